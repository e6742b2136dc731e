//! `sso` commands: the OpenID Connect providers console users sign in with. Each is one core
//! call, audited as `cli`. Client secrets are read from a file or standard input, never from an
//! argument (which other users of the machine and the shell history would see).
use super::support::core_error;
use super::table::{Cell, ListFormat, Table};
use anyhow::Context as _;
use clap::{Args, Subcommand};
use std::io::BufRead as _;
use std::path::PathBuf;

/// Where a client secret comes from.
#[derive(Debug, Args)]
pub struct SecretSource {
    /// A file holding the client secret (its first line).
    #[arg(long, conflicts_with = "client_secret_stdin")]
    client_secret_file: Option<PathBuf>,
    /// Read the client secret from standard input (its first line).
    #[arg(long)]
    client_secret_stdin: bool,
}

impl SecretSource {
    /// Whether a source was named.
    pub(super) fn given(&self) -> bool {
        self.client_secret_file.is_some() || self.client_secret_stdin
    }

    /// The secret, or empty when none was given.
    pub(super) fn read(&self) -> anyhow::Result<String> {
        let text = if let Some(path) = &self.client_secret_file {
            std::fs::read_to_string(path)
                .with_context(|| format!("Failed to read {}", path.display()))?
        } else if self.client_secret_stdin {
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut line)
                .context("Failed to read the client secret from standard input")?;
            line
        } else {
            return Ok(String::new());
        };
        Ok(text.lines().next().unwrap_or_default().trim().to_owned())
    }
}

/// The settings `add` takes.
#[derive(Debug, Args)]
pub struct ProviderSettings {
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
    /// A group whose members are admins (repeat for several; * for everyone).
    #[arg(long = "admin-group")]
    admin_groups: Vec<String>,
    /// A group whose members are security reviewers (repeat for several).
    #[arg(long = "reviewer-group")]
    reviewer_groups: Vec<String>,
    /// A group whose members are developers (repeat for several).
    #[arg(long = "developer-group")]
    developer_groups: Vec<String>,
    /// Take emails the provider does not mark verified (never those it marks unverified).
    #[arg(long)]
    trust_email: bool,
    /// An `amr` value that proves a second factor, for roles that require one (repeat).
    #[arg(long = "second-factor-amr")]
    second_factor_amr: Vec<String>,
    /// An `acr` value that proves a second factor (repeat; also asked for as `acr_values`).
    #[arg(long = "second-factor-acr")]
    second_factor_acr: Vec<String>,
}

/// The settings `update` may change, each kept when not given.
#[derive(Debug, Args)]
pub struct ProviderChanges {
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
    /// Admin groups (repeat; replaces the list; give "" to empty it).
    #[arg(long = "admin-group")]
    admin_groups: Option<Vec<String>>,
    /// Security reviewer groups (repeat; replaces the list).
    #[arg(long = "reviewer-group")]
    reviewer_groups: Option<Vec<String>>,
    /// Developer groups (repeat; replaces the list).
    #[arg(long = "developer-group")]
    developer_groups: Option<Vec<String>>,
    /// Take emails the provider does not mark verified: true or false.
    #[arg(long)]
    trust_email: Option<bool>,
    /// `amr` values that prove a second factor (repeat; replaces the list; "" empties it).
    #[arg(long = "second-factor-amr")]
    second_factor_amr: Option<Vec<String>>,
    /// `acr` values that prove a second factor (repeat; replaces the list; "" empties it).
    #[arg(long = "second-factor-acr")]
    second_factor_acr: Option<Vec<String>>,
}

/// One value per line, as the core parses lists.
fn lines(values: &[String]) -> String {
    values.join("\n")
}

/// `sso` subcommands.
#[derive(Debug, Subcommand)]
pub enum SsoCommand {
    /// Add an OpenID Connect provider console users sign in with.
    Add {
        #[command(flatten)]
        settings: ProviderSettings,
    },
    /// List the sign-in providers.
    List {
        #[command(flatten)]
        format: ListFormat,
    },
    /// Change a provider's settings; what is not given stays as it is.
    Update {
        /// Its id (sso_…).
        id: String,
        #[command(flatten)]
        changes: ProviderChanges,
    },
    /// Run discovery at a provider now and show what it found.
    Test {
        /// Its id (sso_…).
        id: String,
    },
    /// Stop offering a provider: nobody signs in with it, its accounts' sessions end.
    Disable {
        /// Its id (sso_…).
        id: String,
    },
    /// Offer a disabled provider again.
    Enable {
        /// Its id (sso_…).
        id: String,
    },
    /// Remove a provider: its accounts stay but can no longer sign in with it.
    Remove {
        /// Its id (sso_…).
        id: String,
    },
    /// Who may sign in with a password: everyone, or only break-glass admins (everyone else
    /// signs in through a provider).
    PasswordSignIn {
        /// `everyone` or `break-glass-only`.
        #[arg(value_parser = ["everyone", "break-glass-only"])]
        mode: String,
    },
    /// Mark an admin (by email) as break-glass: they may sign in with their password even when
    /// password sign-in is off.
    BreakGlass {
        /// The admin's email.
        email: String,
        /// Remove the mark instead.
        #[arg(long)]
        off: bool,
    },
    /// Show or set which roles must sign in with a second factor (an authenticator app, or
    /// their provider's amr/acr where set).
    SecondFactor {
        /// The roles (admin, security_reviewer, developer; repeat or comma-separate); `none`
        /// for no role. Without it, shows the current setting.
        #[arg(long = "require", value_delimiter = ',')]
        require: Option<Vec<String>>,
    },
    /// Reset a console account's authenticator app (a lost phone and lost recovery codes):
    /// its sessions end and it sets up a new one at its next sign-in.
    ResetSecondFactor {
        /// The account's email.
        email: String,
    },
}

pub(super) async fn sso(core: &authz::Core, command: SsoCommand) -> anyhow::Result<()> {
    let p = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        SsoCommand::Add { settings } => {
            let input = authz::sso::SsoProviderInput {
                client_secret: settings.secret.read()?,
                display_name: settings.name,
                button_text: settings.button_text,
                issuer: settings.issuer,
                client_id: settings.client_id,
                clear_secret: false,
                scopes: settings.scopes,
                groups_claim: settings.groups_claim,
                admin_groups: lines(&settings.admin_groups),
                reviewer_groups: lines(&settings.reviewer_groups),
                developer_groups: lines(&settings.developer_groups),
                trust_email: settings.trust_email,
                second_factor_amr: settings.second_factor_amr.join(" "),
                second_factor_acr: settings.second_factor_acr.join(" "),
                group_mapping: String::new(),
            };
            let provider = core
                .create_sso_provider(&p, &input, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Added {} ({}). Register this redirect URI at the provider:\n  {}",
                provider.display_name,
                provider.id,
                core.sso_redirect_uri(&provider.id)
            );
        }
        SsoCommand::List { format } => {
            let list = core.list_sso_providers(&p).await.map_err(core_error)?;
            let mut table = Table::new(
                format,
                [
                    "id",
                    "name",
                    "issuer",
                    "client_id",
                    "secret",
                    "groups_claim",
                    "admin",
                    "security_reviewer",
                    "developer",
                    "second_factor_amr",
                    "second_factor_acr",
                    "enabled",
                    "redirect_uri",
                ],
            );
            for provider in list {
                table.row([
                    provider.id.to_string().into(),
                    provider.display_name.clone().into(),
                    provider.issuer.clone().into(),
                    provider.client_id.clone().into(),
                    Cell::flag(provider.sealed_client_secret.is_some(), "set", "none"),
                    provider.groups_claim.clone().into(),
                    Cell::list(&provider.rules.admin, ", "),
                    Cell::list(&provider.rules.security_reviewer, ", "),
                    Cell::list(&provider.rules.developer, ", "),
                    Cell::list(&provider.second_factor_amr, ", "),
                    Cell::list(&provider.second_factor_acr, ", "),
                    Cell::flag(provider.enabled, "enabled", "disabled"),
                    core.sso_redirect_uri(&provider.id).into(),
                ])?;
            }
            table.finish()?;
        }
        SsoCommand::Update { id, changes } => {
            let current = core
                .list_sso_providers(&p)
                .await
                .map_err(core_error)?
                .into_iter()
                .find(|s| s.id.as_str() == id)
                .ok_or_else(|| anyhow::anyhow!("No sign-in provider {id}."))?;
            let rules = |given: Option<Vec<String>>, now: &[String]| {
                lines(&given.unwrap_or_else(|| now.to_vec()))
            };
            let input = authz::sso::SsoProviderInput {
                client_secret: changes.secret.read()?,
                clear_secret: changes.clear_client_secret,
                display_name: changes.name.unwrap_or(current.display_name.clone()),
                button_text: changes.button_text.unwrap_or(current.button_text.clone()),
                issuer: current.issuer.clone(),
                client_id: changes.client_id.unwrap_or(current.client_id.clone()),
                scopes: changes.scopes.unwrap_or_else(|| current.scopes.join(" ")),
                groups_claim: changes.groups_claim.unwrap_or(current.groups_claim.clone()),
                admin_groups: rules(changes.admin_groups, &current.rules.admin),
                reviewer_groups: rules(changes.reviewer_groups, &current.rules.security_reviewer),
                developer_groups: rules(changes.developer_groups, &current.rules.developer),
                trust_email: changes.trust_email.unwrap_or(current.trust_email),
                second_factor_amr: changes
                    .second_factor_amr
                    .unwrap_or_else(|| current.second_factor_amr.clone())
                    .join(" "),
                second_factor_acr: changes
                    .second_factor_acr
                    .unwrap_or_else(|| current.second_factor_acr.clone())
                    .join(" "),
                group_mapping: String::new(),
            };
            let provider = core
                .update_sso_provider(&p, &id, &input, &meta)
                .await
                .map_err(core_error)?;
            say!("Updated {} ({}).", provider.display_name, provider.id);
        }
        SsoCommand::Test { id } => {
            match core.test_sso_provider(&p, &id).await.map_err(core_error)? {
                Ok(d) => {
                    say!("Discovery works: issuer {}", d.issuer);
                    say!("  authorization endpoint  {}", d.authorization_endpoint);
                    say!(
                        "  token endpoint          {}",
                        d.token_endpoint.unwrap_or_else(|| "(none)".into())
                    );
                    say!(
                        "  userinfo endpoint       {}",
                        d.userinfo_endpoint.unwrap_or_else(|| "(none)".into())
                    );
                    say!(
                        "  end-session endpoint    {}",
                        d.end_session_endpoint.unwrap_or_else(|| "(none)".into())
                    );
                    say!("  signing keys            {}", d.keys);
                    say!("  ID token algorithms     {}", d.algorithms.join(" "));
                    say!("  scopes                  {}", d.scopes.join(" "));
                    say!("  claims                  {}", d.claims.join(" "));
                }
                Err(e) => anyhow::bail!("Discovery failed: {e}"),
            }
        }
        SsoCommand::Disable { id } => {
            let provider = core
                .set_sso_provider_enabled(&p, &id, false, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Disabled {}: nobody signs in with it, and its accounts' sessions ended.",
                provider.display_name
            );
        }
        SsoCommand::Enable { id } => {
            let provider = core
                .set_sso_provider_enabled(&p, &id, true, &meta)
                .await
                .map_err(core_error)?;
            say!("Enabled {}.", provider.display_name);
        }
        SsoCommand::Remove { id } => {
            core.delete_sso_provider(&p, &id, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Removed {id}: its accounts stay, their sessions ended, and they can no longer sign in with it."
            );
        }
        SsoCommand::PasswordSignIn { mode } => {
            let off = mode == "break-glass-only";
            core.set_password_sign_in(&p, off, &meta)
                .await
                .map_err(core_error)?;
            if off {
                say!(
                    "Password sign-in is off: only break-glass admins use a password; everyone else signs in through a provider."
                );
            } else {
                say!("Password sign-in is on for everyone.");
            }
        }
        SsoCommand::BreakGlass { email, off } => {
            let user = core
                .find_principal_by_email(&email)
                .await
                .map_err(core_error)?
                .ok_or_else(|| anyhow::anyhow!("No enabled console user {email}."))?;
            core.set_user_break_glass(&p, &user.user_id, !off, &meta)
                .await
                .map_err(core_error)?;
            if off {
                say!("{email} is no longer a break-glass admin.");
            } else {
                say!(
                    "{email} is a break-glass admin: they may sign in with their password even when password sign-in is off."
                );
            }
        }
        SsoCommand::SecondFactor { require } => {
            let policy = match require {
                None => core.second_factor_policy(&p).await.map_err(core_error)?,
                Some(names) => {
                    let names: Vec<&str> = names
                        .iter()
                        .map(|n| n.trim())
                        .filter(|n| !n.is_empty())
                        .collect();
                    // An empty list (an unset variable in a script) is not "no role".
                    if names.is_empty() || (names.contains(&"none") && names.len() > 1) {
                        anyhow::bail!(
                            "Give the roles (admin, security_reviewer, developer), or `none` alone for no role."
                        );
                    }
                    let mut roles = Vec::new();
                    for name in names.into_iter().filter(|n| *n != "none") {
                        roles.push(authz::policy::Role::parse(name).map_err(|_| {
                            anyhow::anyhow!(
                                "Unknown role {name:?}: give admin, security_reviewer or developer, or `none` alone."
                            )
                        })?);
                    }
                    core.set_second_factor_policy(&p, &roles, &meta)
                        .await
                        .map_err(core_error)?
                }
            };
            if policy.roles.is_empty() {
                say!("No role requires a second factor (accounts may still set one up).");
            } else {
                say!(
                    "A second factor is required for: {}.",
                    policy
                        .roles
                        .iter()
                        .map(|r| r.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        SsoCommand::ResetSecondFactor { email } => {
            let user = core
                .find_principal_by_email(&email)
                .await
                .map_err(core_error)?
                .ok_or_else(|| anyhow::anyhow!("No enabled console user {email}."))?;
            core.reset_second_factor(&p, &user.user_id, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Reset the authenticator app of {email}: their sessions ended; they set up a new one at their next sign-in when their role requires one."
            );
        }
    }
    Ok(())
}
