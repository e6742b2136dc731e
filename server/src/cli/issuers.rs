//! `trusted-issuers` commands: the identity providers whose ID-JAGs (enterprise-managed
//! authorization) a realm's token endpoint accepts. Each is one core call, audited as `cli`.
use super::support::core_error;
use super::table::{Cell, ListFormat, Table};
use anyhow::Context as _;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// The settings `add` and `update` take.
#[derive(Debug, Args)]
pub struct IssuerSettings {
    /// The issuer (`iss`) of its assertions, exactly.
    #[arg(long)]
    issuer: String,
    /// Display name (default: the issuer's host).
    #[arg(long, default_value = "", hide_default_value = true)]
    name: String,
    /// Its JWKS URL (or --jwks-file).
    #[arg(long, conflicts_with = "jwks_file")]
    jwks_uri: Option<String>,
    /// A file holding its JWK Set (public keys).
    #[arg(long)]
    jwks_file: Option<PathBuf>,
    /// Accepted signature algorithms (default: ES256 RS256).
    #[arg(long, default_value = "", hide_default_value = true)]
    algorithms: String,
    /// A client that may present its assertions (repeat for several; at least one).
    #[arg(long = "client", required = true)]
    clients: Vec<String>,
    /// Create a person just in time for a subject nobody is linked to (by its email).
    #[arg(long)]
    create_people: bool,
    /// Link a subject nobody is linked to to the person with its email.
    #[arg(long)]
    link_by_email: bool,
}

impl IssuerSettings {
    fn input(self) -> anyhow::Result<authz::federation::TrustedIssuerInput> {
        let jwks = match &self.jwks_file {
            Some(path) => std::fs::read_to_string(path)
                .with_context(|| format!("Failed to read {}", path.display()))?,
            None => String::new(),
        };
        Ok(authz::federation::TrustedIssuerInput {
            issuer: self.issuer,
            display_name: self.name,
            jwks_uri: self.jwks_uri.unwrap_or_default(),
            jwks,
            algorithms: self.algorithms,
            clients: self.clients.join(" "),
            create_people: self.create_people,
            link_by_email: self.link_by_email,
        })
    }
}

/// The settings `update` may change, each kept when not given.
#[derive(Debug, Args)]
pub struct IssuerChanges {
    /// Display name.
    #[arg(long)]
    name: Option<String>,
    /// Its JWKS URL (replaces pasted keys).
    #[arg(long, conflicts_with = "jwks_file")]
    jwks_uri: Option<String>,
    /// A file holding its JWK Set (replaces a JWKS URL).
    #[arg(long)]
    jwks_file: Option<PathBuf>,
    /// Accepted signature algorithms.
    #[arg(long)]
    algorithms: Option<String>,
    /// The clients that may present its assertions (repeat for several; replaces the list).
    #[arg(long = "client")]
    clients: Vec<String>,
    /// Create people just in time: true or false.
    #[arg(long)]
    create_people: Option<bool>,
    /// Link unlinked subjects by email: true or false.
    #[arg(long)]
    link_by_email: Option<bool>,
}

impl IssuerChanges {
    /// The current settings with these changes.
    fn apply(
        self,
        t: &authz::federation::TrustedIssuer,
    ) -> anyhow::Result<authz::federation::TrustedIssuerInput> {
        let (mut jwks_uri, mut jwks) = match &t.keys {
            authz::federation::IssuerKeys::Uri(u) => (u.clone(), String::new()),
            authz::federation::IssuerKeys::Inline(doc) => (String::new(), doc.to_string()),
        };
        if let Some(u) = self.jwks_uri {
            (jwks_uri, jwks) = (u, String::new());
        }
        if let Some(path) = &self.jwks_file {
            jwks = std::fs::read_to_string(path)
                .with_context(|| format!("Failed to read {}", path.display()))?;
            jwks_uri = String::new();
        }
        Ok(authz::federation::TrustedIssuerInput {
            issuer: t.issuer.clone(),
            display_name: self.name.unwrap_or_else(|| t.display_name.clone()),
            jwks_uri,
            jwks,
            algorithms: self.algorithms.unwrap_or_else(|| {
                t.algorithms
                    .iter()
                    .map(|a| a.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
            clients: if self.clients.is_empty() {
                t.clients
                    .iter()
                    .map(|c| c.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            } else {
                self.clients.join(" ")
            },
            create_people: self.create_people.unwrap_or(t.create_people),
            link_by_email: self.link_by_email.unwrap_or(t.link_by_email),
        })
    }
}

/// `trusted-issuers` subcommands.
#[derive(Debug, Subcommand)]
pub enum IssuersCommand {
    /// Trust an identity provider's ID-JAGs in a realm.
    Add {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        #[command(flatten)]
        settings: IssuerSettings,
    },
    /// List the identity providers a realm trusts.
    List {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Change a trusted identity provider's settings; what is not given stays as it is.
    Update {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its id (tis_…) or issuer.
        id: String,
        #[command(flatten)]
        changes: IssuerChanges,
    },
    /// Refuse an identity provider's assertions until enabled again.
    Disable {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its id (tis_…) or issuer.
        id: String,
    },
    /// Accept a disabled identity provider's assertions again.
    Enable {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its id (tis_…) or issuer.
        id: String,
    },
    /// Stop trusting an identity provider: its assertions are refused, the tokens they bought
    /// are revoked and its links to people are removed (the people stay).
    Remove {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its id (tis_…) or issuer.
        id: String,
    },
}

pub(super) async fn issuers(core: &authz::Core, command: IssuersCommand) -> anyhow::Result<()> {
    let p = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        IssuersCommand::Add { realm, settings } => {
            let t = core
                .create_trusted_issuer(&p, &realm, &settings.input()?, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Realm {realm} now accepts ID-JAGs from {} ({}), presented by {}.",
                t.issuer,
                t.id,
                t.clients
                    .iter()
                    .map(|c| c.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        IssuersCommand::List { realm, format } => {
            let list = core
                .list_trusted_issuers(&p, &realm)
                .await
                .map_err(core_error)?;
            let mut table = Table::new(
                format,
                [
                    "id",
                    "issuer",
                    "name",
                    "keys",
                    "algorithms",
                    "clients",
                    "people",
                    "enabled",
                ],
            );
            for t in list {
                let keys = match &t.keys {
                    authz::federation::IssuerKeys::Uri(u) => u.clone(),
                    authz::federation::IssuerKeys::Inline(doc) => {
                        let n = doc["keys"].as_array().map_or(0, Vec::len);
                        format!("pasted, {n} key{}", if n == 1 { "" } else { "s" })
                    }
                };
                let algorithms: Vec<&str> = t.algorithms.iter().map(|a| a.as_str()).collect();
                let people = match (t.link_by_email, t.create_people) {
                    (true, true) => "link by email, create",
                    (true, false) => "link by email",
                    (false, true) => "create",
                    (false, false) => "linked only",
                };
                let clients: Vec<&str> = t.clients.iter().map(|c| c.as_str()).collect();
                table.row([
                    t.id.to_string().into(),
                    t.issuer.into(),
                    t.display_name.into(),
                    keys.into(),
                    Cell::list(&algorithms, " "),
                    Cell::list(&clients, " "),
                    people.into(),
                    Cell::flag(t.enabled, "enabled", "disabled"),
                ])?;
            }
            table.finish()?;
        }
        IssuersCommand::Update { realm, id, changes } => {
            let current = core
                .list_trusted_issuers(&p, &realm)
                .await
                .map_err(core_error)?
                .into_iter()
                .find(|t| t.id.as_str() == id || t.issuer == id)
                .ok_or_else(|| anyhow::anyhow!("No trusted issuer {id} in realm {realm}."))?;
            let t = core
                .update_trusted_issuer(&p, &realm, &id, &changes.apply(&current)?, &meta)
                .await
                .map_err(core_error)?;
            say!("Updated {} ({}).", t.issuer, t.id);
        }
        IssuersCommand::Disable { realm, id } => {
            let t = core
                .set_trusted_issuer_enabled(&p, &realm, &id, false, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Disabled {}: its assertions are refused, and the tokens they bought are revoked (servers that introspect refuse them now; servers that verify tokens themselves accept them until they expire).",
                t.issuer
            );
        }
        IssuersCommand::Enable { realm, id } => {
            let t = core
                .set_trusted_issuer_enabled(&p, &realm, &id, true, &meta)
                .await
                .map_err(core_error)?;
            say!("Enabled {}.", t.issuer);
        }
        IssuersCommand::Remove { realm, id } => {
            core.delete_trusted_issuer(&p, &realm, &id, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Realm {realm} no longer trusts {id}: the tokens its assertions bought were revoked and its links to people removed (the people stay)."
            );
        }
    }
    Ok(())
}
