//! `idp` commands: the OpenID Connect providers a realm's people sign in with (brokering), and
//! whether the realm's sign-in page still takes their password. Each is one core call, audited
//! as `cli`. Client secrets are read from a file or standard input, never from an argument.
use super::sso::SecretSource;
use super::support::core_error;
use super::table::{Cell, ListFormat, Table};
use anyhow::Context as _;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// A group mapping given as `--map` rules or a file.
#[derive(Debug, Args)]
pub struct MappingSource {
    /// A rule `GROUP -> role:NAME`, `GROUP -> unit:ID` or `GROUP -> ring:ID` (repeat; `*` as
    /// the group is everyone). With `update` it replaces the mapping; give "" to empty it.
    #[arg(long = "map", value_name = "RULE", conflicts_with = "mapping_file")]
    map: Vec<String>,
    /// A file with one rule per line (`#` starts a comment).
    #[arg(long, value_name = "FILE")]
    mapping_file: Option<PathBuf>,
}

impl MappingSource {
    /// The mapping as text, or `None` when neither was given.
    fn read(&self) -> anyhow::Result<Option<String>> {
        if let Some(path) = &self.mapping_file {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("Failed to read {}", path.display()))?;
            return Ok(Some(text));
        }
        if self.map.is_empty() {
            return Ok(None);
        }
        Ok(Some(self.map.join("\n")))
    }
}

/// `idp` subcommands.
#[derive(Debug, Subcommand)]
pub enum IdpCommand {
    /// Add an OpenID Connect provider the realm's people sign in with.
    Add {
        /// The realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Display name (shown to admins and in the audit log).
        #[arg(long)]
        name: String,
        /// The sign-in button's text (default: "Sign in with <name>").
        #[arg(long, default_value = "", hide_default_value = true)]
        button_text: String,
        /// The provider's issuer URL (its discovery document is below it).
        #[arg(long)]
        issuer: String,
        /// The client ID the provider gave Portcullis.
        #[arg(long)]
        client_id: String,
        #[command(flatten)]
        secret: SecretSource,
        /// Scopes to ask for (default: openid email profile).
        #[arg(long, default_value = "", hide_default_value = true)]
        scopes: String,
        /// The claim carrying the groups (default: groups).
        #[arg(long, default_value = "", hide_default_value = true)]
        groups_claim: String,
        #[command(flatten)]
        mapping: MappingSource,
        /// Take emails the provider does not mark verified (never those it marks unverified).
        #[arg(long)]
        trust_email: bool,
    },
    /// List the realm's sign-in providers.
    List {
        /// The realm.
        #[arg(long, default_value = "default")]
        realm: String,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Change a provider's settings; what is not given stays as it is.
    Update {
        /// Its id (sso_…).
        id: String,
        /// The realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Display name.
        #[arg(long)]
        name: Option<String>,
        /// Button text.
        #[arg(long)]
        button_text: Option<String>,
        /// Client ID.
        #[arg(long)]
        client_id: Option<String>,
        #[command(flatten)]
        secret: SecretSource,
        /// Forget the stored client secret (a public client, PKCE only).
        #[arg(long, conflicts_with_all = ["client_secret_file", "client_secret_stdin"])]
        clear_client_secret: bool,
        /// Scopes.
        #[arg(long)]
        scopes: Option<String>,
        /// Groups claim.
        #[arg(long)]
        groups_claim: Option<String>,
        #[command(flatten)]
        mapping: MappingSource,
        /// Take emails the provider does not mark verified: true or false.
        #[arg(long)]
        trust_email: Option<bool>,
    },
    /// Run discovery at a provider now and show what it found.
    Test {
        /// Its id (sso_…).
        id: String,
        /// The realm.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// Stop offering a provider: nobody signs in with it, and the people who come from it can
    /// neither sign in nor refresh until it is enabled again.
    Disable {
        /// Its id (sso_…).
        id: String,
        /// The realm.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// Offer a disabled provider again.
    Enable {
        /// Its id (sso_…).
        id: String,
        /// The realm.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// Remove a provider nobody comes from.
    Remove {
        /// Its id (sso_…).
        id: String,
        /// The realm.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// Whether the realm's sign-in page takes its people's password (`off`: its providers
    /// only).
    PasswordSignIn {
        /// The realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `on` or `off`.
        #[arg(value_parser = ["on", "off"])]
        mode: String,
    },
}

pub(super) async fn idp(core: &authz::Core, command: IdpCommand) -> anyhow::Result<()> {
    let p = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        IdpCommand::Add {
            realm,
            name,
            button_text,
            issuer,
            client_id,
            secret,
            scopes,
            groups_claim,
            mapping,
            trust_email,
        } => {
            let input = authz::sso::SsoProviderInput {
                client_secret: secret.read()?,
                display_name: name,
                button_text,
                issuer,
                client_id,
                scopes,
                groups_claim,
                trust_email,
                group_mapping: mapping.read()?.unwrap_or_default(),
                ..authz::sso::SsoProviderInput::default()
            };
            let provider = core
                .create_realm_provider(&p, &realm, &input, &meta)
                .await
                .map_err(core_error)?;
            let uri = core
                .realm_provider_redirect_uri(&p, &realm, provider.id.as_str())
                .await
                .map_err(core_error)?;
            say!(
                "Added {} ({}) to realm {realm}. Register this redirect URI at the provider:\n  {uri}",
                provider.display_name,
                provider.id,
            );
        }
        IdpCommand::List { realm, format } => {
            let (found, list) = core
                .list_realm_providers(&p, &realm)
                .await
                .map_err(core_error)?;
            let mut table = Table::new(
                format,
                [
                    "id",
                    "name",
                    "issuer",
                    "client_id",
                    "secret",
                    "groups_claim",
                    "mapping",
                    "not_in_registry",
                    "people",
                    "enabled",
                    "redirect_uri",
                ],
            );
            for authz::broker::RealmProviderListing {
                provider,
                people,
                missing,
            } in list
            {
                table.row([
                    provider.id.to_string().into(),
                    provider.display_name.clone().into(),
                    provider.issuer.clone().into(),
                    provider.client_id.clone().into(),
                    Cell::flag(provider.sealed_client_secret.is_some(), "set", "none"),
                    provider.groups_claim.clone().into(),
                    authz::sso::group_mapping_text(&provider.group_mapping)
                        .replace('\n', "; ")
                        .into(),
                    Cell::list(&missing, ", "),
                    people.to_string().into(),
                    Cell::flag(provider.enabled, "enabled", "disabled"),
                    core.upstream_redirect_uri(&found, &provider.id).into(),
                ])?;
            }
            table.finish()?;
            if !found.password_sign_in {
                eprintln!(
                    "Password sign-in is off in realm {realm}: its people sign in through these providers only."
                );
            }
        }
        IdpCommand::Update {
            id,
            realm,
            name,
            button_text,
            client_id,
            secret,
            clear_client_secret,
            scopes,
            groups_claim,
            mapping,
            trust_email,
        } => {
            let (_, list) = core
                .list_realm_providers(&p, &realm)
                .await
                .map_err(core_error)?;
            let current = list
                .into_iter()
                .map(|l| l.provider)
                .find(|s| s.id.as_str() == id)
                .ok_or_else(|| anyhow::anyhow!("Realm {realm} has no sign-in provider {id}."))?;
            let input = authz::sso::SsoProviderInput {
                client_secret: secret.read()?,
                clear_secret: clear_client_secret,
                display_name: name.unwrap_or(current.display_name.clone()),
                button_text: button_text.unwrap_or(current.button_text.clone()),
                issuer: current.issuer.clone(),
                client_id: client_id.unwrap_or(current.client_id.clone()),
                scopes: scopes.unwrap_or_else(|| current.scopes.join(" ")),
                groups_claim: groups_claim.unwrap_or(current.groups_claim.clone()),
                trust_email: trust_email.unwrap_or(current.trust_email),
                group_mapping: mapping
                    .read()?
                    .unwrap_or_else(|| authz::sso::group_mapping_text(&current.group_mapping)),
                ..authz::sso::SsoProviderInput::default()
            };
            let provider = core
                .update_realm_provider(&p, &realm, &id, &input, &meta)
                .await
                .map_err(core_error)?;
            say!("Updated {} ({}).", provider.display_name, provider.id);
        }
        IdpCommand::Test { id, realm } => {
            match core
                .test_realm_provider(&p, &realm, &id)
                .await
                .map_err(core_error)?
            {
                Ok(d) => {
                    say!("Discovery works: issuer {}", d.issuer);
                    say!("  authorization endpoint  {}", d.authorization_endpoint);
                    say!(
                        "  token endpoint          {}",
                        d.token_endpoint.unwrap_or_else(|| "(none)".into())
                    );
                    say!("  signing keys            {}", d.keys);
                    say!("  ID token algorithms     {}", d.algorithms.join(" "));
                    say!("  scopes                  {}", d.scopes.join(" "));
                    say!("  claims                  {}", d.claims.join(" "));
                }
                Err(e) => anyhow::bail!("Discovery failed: {e}"),
            }
        }
        IdpCommand::Disable { id, realm } => {
            let provider = core
                .set_realm_provider_enabled(&p, &realm, &id, false, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Disabled {}: nobody signs in with it, and the people who come from it can neither sign in nor refresh until it is enabled again.",
                provider.display_name
            );
        }
        IdpCommand::Enable { id, realm } => {
            let provider = core
                .set_realm_provider_enabled(&p, &realm, &id, true, &meta)
                .await
                .map_err(core_error)?;
            say!("Enabled {}.", provider.display_name);
        }
        IdpCommand::Remove { id, realm } => {
            core.delete_realm_provider(&p, &realm, &id, &meta)
                .await
                .map_err(core_error)?;
            say!("Removed {id} from realm {realm}.");
        }
        IdpCommand::PasswordSignIn { realm, mode } => {
            let on = mode == "on";
            core.set_realm_password_sign_in(&p, &realm, on, &meta)
                .await
                .map_err(core_error)?;
            if on {
                say!("Realm {realm}'s sign-in page takes its people's password again.");
            } else {
                say!(
                    "Realm {realm}'s sign-in page no longer takes a password: its people sign in through its providers."
                );
            }
        }
    }
    Ok(())
}
