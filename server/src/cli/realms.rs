//! `realms` commands: list realms, create one, change a realm's settings. Each is one core
//! call, audited as `cli`.
use super::support::core_error;
use super::table::{Cell, ListFormat, Table};
use clap::Subcommand;

/// `realms` subcommands.
#[derive(Debug, Subcommand)]
pub enum RealmsCommand {
    /// List realms with their issuers and lifetimes.
    List {
        #[command(flatten)]
        format: ListFormat,
    },
    /// Create a realm (its own issuer, clients, resources, agents and people).
    Create {
        /// URL name, part of the issuer.
        #[arg(long)]
        name: String,
        /// Human-readable name.
        #[arg(long)]
        display_name: String,
    },
    /// Change a realm's settings; options left out keep their value.
    Update {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// New URL name (renaming changes the issuer).
        #[arg(long)]
        rename: Option<String>,
        /// Human-readable name.
        #[arg(long)]
        display_name: Option<String>,
        /// Access-token lifetime in seconds, for resources that set none.
        #[arg(long)]
        token_ttl: Option<String>,
        /// Days a refresh token may go unused before it expires (1 to 365).
        #[arg(long, default_value = "", hide_default_value = true)]
        refresh_idle_days: String,
        /// Days the refresh tokens of one sign-in last at most (1 to 365).
        #[arg(long, default_value = "", hide_default_value = true)]
        refresh_max_days: String,
    },
}

pub(super) async fn realms(core: &authz::Core, command: RealmsCommand) -> anyhow::Result<()> {
    let p = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        RealmsCommand::List { format } => {
            let mut table = Table::new(
                format,
                ["name", "display_name", "enabled", "lifetimes", "issuer"],
            );
            for r in core.list_realms(&p).await.map_err(core_error)? {
                let (access, idle, max) = (
                    r.token_ttl_secs,
                    authz::realms::as_days(r.refresh_idle_ttl_secs),
                    authz::realms::as_days(r.refresh_max_ttl_secs),
                );
                table.row([
                    r.name.to_string().into(),
                    r.display_name.into(),
                    Cell::flag(r.enabled, "enabled", "disabled"),
                    Cell::shown_as(
                        serde_json::json!({
                            "access_token_secs": access,
                            "refresh_idle_days": idle,
                            "refresh_max_days": max,
                        }),
                        format!("access {access} s, refresh idle {idle} d / max {max} d"),
                    ),
                    core.issuer(&r.name).to_string().into(),
                ])?;
            }
            table.finish()?;
        }
        RealmsCommand::Create { name, display_name } => {
            let r = core
                .create_realm(&p, &name, &display_name, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Created realm {} (issuer {}).",
                r.name,
                core.issuer(&r.name)
            );
        }
        RealmsCommand::Update {
            realm,
            rename,
            display_name,
            token_ttl,
            refresh_idle_days,
            refresh_max_days,
        } => {
            let current = core.get_realm(&p, &realm).await.map_err(core_error)?;
            let input = authz::realms::RealmInput {
                name: rename.unwrap_or_else(|| current.name.to_string()),
                display_name: display_name.unwrap_or(current.display_name),
                token_ttl_secs: token_ttl.unwrap_or_else(|| current.token_ttl_secs.to_string()),
                refresh_idle_days,
                refresh_max_days,
            };
            let r = core
                .update_realm(&p, &realm, &input, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Realm {}: access tokens {} s; refresh tokens expire after {} d unused and {} d at most.",
                r.name,
                r.token_ttl_secs,
                authz::realms::as_days(r.refresh_idle_ttl_secs),
                authz::realms::as_days(r.refresh_max_ttl_secs)
            );
        }
    }
    Ok(())
}
