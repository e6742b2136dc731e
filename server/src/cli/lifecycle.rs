//! CLI lifecycle commands for clients and resources beyond `create`: list, enable, disable,
//! delete. Each is one core call, audited as `cli`.
use super::support::{core_error, say_awaiting_review};
use super::table::{Cell, ListFormat, Table};
use clap::Subcommand;

/// Client lifecycle subcommands (beside `create` and `rotate-secret`).
#[derive(Debug, Subcommand)]
pub enum ClientLifecycle {
    /// List clients (optionally matching a search string).
    List {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Substring of client_id or name.
        #[arg(long, default_value = "", hide_default_value = true)]
        search: String,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Disable a client: no tokens, and its tokens introspect inactive.
    Disable {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
    },
    /// Enable a disabled client.
    Enable {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
    },
    /// Delete a client and its secrets.
    Delete {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
    },
}

pub(super) async fn client_lifecycle(
    core: &authz::Core,
    command: ClientLifecycle,
) -> anyhow::Result<()> {
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        ClientLifecycle::List {
            realm,
            search,
            format,
        } => {
            let mut table = Table::new(
                format,
                [
                    "client_id",
                    "name",
                    "auth_method",
                    "scope",
                    "enabled",
                    "review",
                ],
            );
            let mut page = authz::paging::Page::first(100);
            let mut waiting = 0;
            loop {
                let p = core
                    .list_clients(&cli, &realm, &search, page.clone())
                    .await
                    .map_err(core_error)?;
                for c in &p.items {
                    if c.registration.review == authz::clients::ReviewState::Pending {
                        waiting += 1;
                    }
                    table.row([
                        c.client_id.to_string().into(),
                        c.name.clone().into(),
                        c.auth_method.as_str().into(),
                        c.scope.to_string().into(),
                        Cell::flag(c.enabled, "enabled", "disabled"),
                        // approved, pending, rejected, revoked or expired: `enabled` alone does
                        // not say whether it gets tokens.
                        c.registration.review.as_str().into(),
                    ])?;
                }
                match p.next {
                    Some(key) => page.cursor = authz::paging::Cursor::After(key),
                    None => break,
                }
            }
            table.finish()?;
            say_awaiting_review(core, waiting, false);
        }
        ClientLifecycle::Disable { realm, client_id } => {
            core.set_client_enabled(&cli, &realm, &client_id, false, &meta)
                .await
                .map_err(core_error)?;
            say!("Disabled client {client_id}");
        }
        ClientLifecycle::Enable { realm, client_id } => {
            core.set_client_enabled(&cli, &realm, &client_id, true, &meta)
                .await
                .map_err(core_error)?;
            say!("Enabled client {client_id}");
        }
        ClientLifecycle::Delete { realm, client_id } => {
            core.delete_client(&cli, &realm, &client_id, &meta)
                .await
                .map_err(core_error)?;
            say!("Deleted client {client_id}");
        }
    }
    Ok(())
}

/// Resource lifecycle subcommands (beside `create`, `list` and `set-default`).
#[derive(Debug, Subcommand)]
pub enum ResourceLifecycle {
    /// Stop issuing tokens for a resource; its tokens introspect inactive.
    Disable {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Resource id (slug).
        #[arg(long)]
        id: String,
    },
    /// Issue tokens for a disabled resource again.
    Enable {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Resource id (slug).
        #[arg(long)]
        id: String,
    },
    /// Delete a resource.
    Delete {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Resource id (slug).
        #[arg(long)]
        id: String,
    },
}

pub(super) async fn resource_lifecycle(
    core: &authz::Core,
    command: ResourceLifecycle,
) -> anyhow::Result<()> {
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    let (realm, id, enabled) = match command {
        ResourceLifecycle::Delete { realm, id } => {
            core.delete_resource(&cli, &realm, &id, &meta)
                .await
                .map_err(core_error)?;
            say!("Deleted resource {id}");
            return Ok(());
        }
        ResourceLifecycle::Disable { realm, id } => (realm, id, false),
        ResourceLifecycle::Enable { realm, id } => (realm, id, true),
    };
    core.set_resource_enabled(&cli, &realm, &id, enabled, &meta)
        .await
        .map_err(core_error)?;
    say!(
        "{} resource {id}",
        if enabled { "Enabled" } else { "Disabled" }
    );
    Ok(())
}
