//! `trusting-servers` commands: the authorization servers that accept a realm's ID-JAGs (the
//! realm as its people's identity provider), which clients may ask for them, and by which id
//! each client is known there. Each is one core call, audited as `cli`.
use super::support::core_error;
use super::table::{Cell, ListFormat, Table};
use authz::chaining::{TrustingServer, TrustingServerInput, client_links_text};
use clap::{Args, Subcommand};

/// `--client desk` or `--client desk=0oa8f5j3` (its id there) → the form's line.
fn client_lines(clients: &[String]) -> String {
    clients
        .iter()
        .map(|c| match c.split_once('=') {
            Some((ours, theirs)) if !c.contains("->") => {
                format!("{} -> {}", ours.trim(), theirs.trim())
            }
            _ => c.trim().to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The settings `add` takes.
#[derive(Debug, Args)]
pub struct TrustingSettings {
    /// Its issuer: the `audience` clients name, and the ID-JAG's `aud`.
    #[arg(long)]
    issuer: String,
    /// Display name (default: the issuer's host).
    #[arg(long, default_value = "", hide_default_value = true)]
    name: String,
    /// A resource (an MCP server it protects) ID-JAGs may name (repeat; at least one).
    #[arg(long = "resource", required = true)]
    resources: Vec<String>,
    /// The scopes ID-JAGs may carry, separated by spaces (default: whatever the client asks;
    /// that server decides).
    #[arg(long, default_value = "", hide_default_value = true)]
    scopes: String,
    /// A client that may ask for ID-JAGs for it: `client-id`, or `client-id=its-id-there`
    /// (`client-id -> its-id-there` works too, as `list` shows it; repeat; at least one).
    #[arg(long = "client", required = true)]
    clients: Vec<String>,
}

/// The settings `update` may change, each kept when not given.
#[derive(Debug, Args)]
pub struct TrustingChanges {
    /// Display name.
    #[arg(long)]
    name: Option<String>,
    /// The resources (repeat; replaces the list).
    #[arg(long = "resource")]
    resources: Vec<String>,
    /// The scopes (replaces them; "" for whatever the client asks).
    #[arg(long)]
    scopes: Option<String>,
    /// The clients, as for `add` (repeat; replaces the list).
    #[arg(long = "client")]
    clients: Vec<String>,
}

impl TrustingChanges {
    fn apply(self, t: &TrustingServer) -> TrustingServerInput {
        TrustingServerInput {
            issuer: t.issuer.clone(),
            display_name: self.name.unwrap_or_else(|| t.display_name.clone()),
            resources: if self.resources.is_empty() {
                t.resources.join(" ")
            } else {
                self.resources.join(" ")
            },
            scopes: self.scopes.unwrap_or_else(|| t.scopes.to_string()),
            clients: if self.clients.is_empty() {
                client_links_text(&t.clients)
            } else {
                client_lines(&self.clients)
            },
        }
    }
}

/// `trusting-servers` subcommands.
#[derive(Debug, Subcommand)]
pub enum TrustingCommand {
    /// Add an authorization server that accepts the realm's ID-JAGs.
    Add {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        #[command(flatten)]
        settings: TrustingSettings,
    },
    /// List the authorization servers that accept a realm's ID-JAGs.
    List {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Change a trusting server's settings; what is not given stays as it is.
    Update {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its id (tas_…) or issuer.
        id: String,
        #[command(flatten)]
        changes: TrustingChanges,
    },
    /// Issue no ID-JAGs for it until enabled again.
    Disable {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its id (tas_…) or issuer.
        id: String,
    },
    /// Issue ID-JAGs for a disabled server again.
    Enable {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its id (tas_…) or issuer.
        id: String,
    },
    /// Remove it: no more ID-JAGs for it.
    Remove {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its id (tas_…) or issuer.
        id: String,
    },
}

pub(super) async fn trusting(core: &authz::Core, command: TrustingCommand) -> anyhow::Result<()> {
    let p = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        TrustingCommand::Add { realm, settings } => {
            let input = TrustingServerInput {
                issuer: settings.issuer,
                display_name: settings.name,
                resources: settings.resources.join(" "),
                scopes: settings.scopes,
                clients: client_lines(&settings.clients),
            };
            let t = core
                .create_trusting_server(&p, &realm, &input, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Realm {realm} now issues ID-JAGs for {} ({}) to {}.",
                t.issuer,
                t.id,
                client_links_text(&t.clients).replace('\n', ", ")
            );
            if let Ok(name) = authz::realms::RealmName::parse(&realm) {
                let issuer = core.issuer(&name);
                say!(
                    "Give {} this realm as a trusted identity provider: issuer {issuer}, keys {issuer}/jwks.",
                    t.display_name
                );
            }
        }
        TrustingCommand::List { realm, format } => {
            let list = core
                .list_trusting_servers(&p, &realm)
                .await
                .map_err(core_error)?;
            let mut table = Table::new(
                format,
                [
                    "id",
                    "issuer",
                    "name",
                    "resources",
                    "scopes",
                    "clients",
                    "enabled",
                ],
            );
            for t in list {
                let resources: Vec<&str> = t.resources.iter().map(String::as_str).collect();
                let scopes = if t.scopes.is_empty() {
                    "as asked".to_owned()
                } else {
                    t.scopes.to_string()
                };
                table.row([
                    t.id.to_string().into(),
                    t.issuer.into(),
                    t.display_name.into(),
                    Cell::list(&resources, " "),
                    scopes.into(),
                    client_links_text(&t.clients).replace('\n', ", ").into(),
                    Cell::flag(t.enabled, "enabled", "disabled"),
                ])?;
            }
            table.finish()?;
        }
        TrustingCommand::Update { realm, id, changes } => {
            let current = core
                .list_trusting_servers(&p, &realm)
                .await
                .map_err(core_error)?
                .into_iter()
                .find(|t| t.id.as_str() == id || t.issuer == id)
                .ok_or_else(|| {
                    anyhow::anyhow!("No trusting authorization server {id} in realm {realm}.")
                })?;
            let t = core
                .update_trusting_server(&p, &realm, &id, &changes.apply(&current), &meta)
                .await
                .map_err(core_error)?;
            say!("Updated {} ({}).", t.issuer, t.id);
        }
        TrustingCommand::Disable { realm, id } => {
            let t = core
                .set_trusting_server_enabled(&p, &realm, &id, false, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Disabled {}: the realm issues no ID-JAGs for it (those issued already expire within five minutes).",
                t.issuer
            );
        }
        TrustingCommand::Enable { realm, id } => {
            let t = core
                .set_trusting_server_enabled(&p, &realm, &id, true, &meta)
                .await
                .map_err(core_error)?;
            say!("Enabled {}.", t.issuer);
        }
        TrustingCommand::Remove { realm, id } => {
            core.delete_trusting_server(&p, &realm, &id, &meta)
                .await
                .map_err(core_error)?;
            say!("Realm {realm} issues no more ID-JAGs for {id}.");
        }
    }
    Ok(())
}
