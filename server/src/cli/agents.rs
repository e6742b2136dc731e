//! `agents` commands: register non-human identities, change, list, enable, disable and delete
//! them, and bind clients to them. Each is one core call, audited as `cli`.
use super::support::core_error;
use super::table::{Cell, ListFormat, Table};
use clap::Subcommand;

/// `agents` subcommands.
#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// Register a non-human identity.
    Create {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Name, e.g. reports-agent.
        #[arg(long)]
        name: String,
        /// Owner's email.
        #[arg(long)]
        owner: String,
        /// Roles, space-separated (an `mcp` or `mcp:*` role makes it MCP-capable).
        #[arg(long)]
        roles: String,
        /// What it does.
        #[arg(long, default_value = "", hide_default_value = true)]
        description: String,
        /// Expiry, `YYYY-MM-DDTHH:MM` (UTC).
        #[arg(long, default_value = "", hide_default_value = true)]
        expires: String,
    },
    /// Change an agent's owner, roles, description or expiry; what is not given stays.
    Update {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Agent name.
        #[arg(long)]
        name: String,
        /// New owner's email.
        #[arg(long)]
        owner: Option<String>,
        /// New roles, space-separated (replacing the old ones; `mcp` lets it use the gateway).
        #[arg(long)]
        roles: Option<String>,
        /// New description.
        #[arg(long)]
        description: Option<String>,
        /// New expiry, `YYYY-MM-DDTHH:MM` (UTC); `--expires ""` for none.
        #[arg(long)]
        expires: Option<String>,
    },
    /// List agents with their status and bound clients.
    List {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Substring of the name or owner.
        #[arg(long, default_value = "", hide_default_value = true)]
        search: String,
        /// Only MCP-capable agents.
        #[arg(long)]
        mcp: bool,
        /// Only agents expiring within a week.
        #[arg(long)]
        expiring_soon: bool,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Disable an agent: its clients get no tokens and its tokens introspect inactive.
    Disable {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Agent name.
        #[arg(long)]
        name: String,
    },
    /// Enable a disabled agent.
    Enable {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Agent name.
        #[arg(long)]
        name: String,
    },
    /// Delete an agent (its clients are unbound).
    Delete {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Agent name.
        #[arg(long)]
        name: String,
    },
    /// Bind a client to an agent: its tokens then carry the agent's identity.
    Bind {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
        /// Agent name.
        #[arg(long)]
        agent: String,
    },
    /// Unbind a client from its agent.
    Unbind {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
    },
}

pub(super) async fn agents(core: &authz::Core, command: AgentsCommand) -> anyhow::Result<()> {
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        AgentsCommand::Create {
            realm,
            name,
            owner,
            roles,
            description,
            expires,
        } => {
            let input = authz::agents::AgentInput {
                name,
                owner,
                description,
                roles,
                expires_at: expires,
            };
            let a = core
                .create_agent(&cli, &realm, &input, &meta)
                .await
                .map_err(core_error)?;
            say!("Created agent {} ({})", a.name, a.id);
        }
        AgentsCommand::Update {
            realm,
            name,
            owner,
            roles,
            description,
            expires,
        } => {
            let now = core
                .agent(&cli, &realm, &name)
                .await
                .map_err(core_error)?
                .agent;
            let input = authz::agents::AgentInput {
                name: now.name.clone(),
                owner: owner.unwrap_or(now.owner),
                description: description.unwrap_or(now.description),
                roles: roles.unwrap_or_else(|| now.roles.to_string()),
                expires_at: expires.unwrap_or_else(|| {
                    now.expires_at
                        .map(authz::clock::rfc3339)
                        .unwrap_or_default()
                }),
            };
            let a = core
                .update_agent(&cli, &realm, &name, &input, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Updated agent {}: owner {}, roles {}",
                a.name,
                a.owner,
                if a.roles.is_empty() {
                    "(none)".to_owned()
                } else {
                    a.roles.to_string()
                }
            );
        }
        AgentsCommand::List {
            realm,
            search,
            mcp,
            expiring_soon,
            format,
        } => {
            let filter = authz::agents::AgentFilter {
                mcp_only: mcp,
                expiring_within: expiring_soon.then_some(authz::agents::EXPIRING_SOON_SECS),
                active_only: false,
                query: Some(search.as_str()),
                owner: None,
            };
            let mut table = Table::new(format, ["name", "owner", "roles", "status", "clients"]);
            let mut page = authz::paging::Page::first(500);
            loop {
                let found = core
                    .list_agents(&cli, &realm, filter, page.clone())
                    .await
                    .map_err(core_error)?;
                for s in &found.items {
                    table.row([
                        s.agent.name.to_string().into(),
                        s.agent.owner.to_string().into(),
                        s.agent.roles.to_string().into(),
                        s.status.as_str().into(),
                        Cell::list(&s.clients, ","),
                    ])?;
                }
                match found.next {
                    Some(key) => page.cursor = authz::paging::Cursor::After(key),
                    None => break,
                }
            }
            table.finish()?;
        }
        AgentsCommand::Disable { realm, name } => {
            core.set_agent_disabled(&cli, &realm, &name, true, &meta)
                .await
                .map_err(core_error)?;
            say!("Disabled agent {name}");
        }
        AgentsCommand::Enable { realm, name } => {
            core.set_agent_disabled(&cli, &realm, &name, false, &meta)
                .await
                .map_err(core_error)?;
            say!("Enabled agent {name}");
        }
        AgentsCommand::Delete { realm, name } => {
            core.delete_agent(&cli, &realm, &name, &meta)
                .await
                .map_err(core_error)?;
            say!("Deleted agent {name}");
        }
        AgentsCommand::Bind {
            realm,
            client_id,
            agent,
        } => {
            core.bind_client_to_agent(&cli, &realm, &client_id, Some(&agent), &meta)
                .await
                .map_err(core_error)?;
            say!("Client {client_id} now acts for agent {agent}");
        }
        AgentsCommand::Unbind { realm, client_id } => {
            core.bind_client_to_agent(&cli, &realm, &client_id, None, &meta)
                .await
                .map_err(core_error)?;
            say!("Client {client_id} acts for no agent");
        }
    }
    Ok(())
}
