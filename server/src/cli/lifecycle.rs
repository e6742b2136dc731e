//! CLI lifecycle commands for clients, resources and agents beyond `create`: list, enable,
//! disable, delete, and binding clients to agents. Each is one core call, audited as `cli`.
use super::core_error;
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
        #[arg(long, default_value = "")]
        description: String,
        /// Expiry, `YYYY-MM-DDTHH:MM` (UTC).
        #[arg(long, default_value = "")]
        expires: String,
    },
    /// List agents with their status and bound clients.
    List {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Substring of the name or owner.
        #[arg(long, default_value = "")]
        search: String,
        /// Only MCP-capable agents.
        #[arg(long)]
        mcp: bool,
        /// Only agents expiring within a week.
        #[arg(long)]
        expiring_soon: bool,
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
        AgentsCommand::List {
            realm,
            search,
            mcp,
            expiring_soon,
        } => {
            let filter = authz::agents::AgentFilter {
                mcp_only: mcp,
                expiring_within: expiring_soon.then_some(authz::agents::EXPIRING_SOON_SECS),
                active_only: false,
                query: Some(search.as_str()),
                owner: None,
            };
            let mut page = 0;
            loop {
                let found = core
                    .list_agents(&cli, &realm, filter, authz::storage::Page::new(page, 500))
                    .await
                    .map_err(core_error)?;
                for s in &found.items {
                    say!(
                        "{}\t{}\t{}\t{}\t{}",
                        s.agent.name,
                        s.agent.owner,
                        s.agent.roles,
                        s.status.as_str(),
                        s.clients.join(",")
                    );
                }
                page += 1;
                if u64::from(page) * 500 >= found.total {
                    break;
                }
            }
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

/// Client lifecycle subcommands (beside `create` and `rotate-secret`).
#[derive(Debug, Subcommand)]
pub enum ClientLifecycle {
    /// List clients (optionally matching a search string).
    List {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Substring of client_id or name.
        #[arg(long, default_value = "")]
        search: String,
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
        ClientLifecycle::List { realm, search } => {
            let mut page = 0;
            loop {
                let p = core
                    .list_clients(&cli, &realm, &search, authz::storage::Page::new(page, 100))
                    .await
                    .map_err(core_error)?;
                for c in &p.items {
                    say!(
                        "{}\t{}\t{}\t{}\t{}",
                        c.client_id,
                        c.name,
                        c.auth_method.as_str(),
                        c.scope,
                        if c.enabled { "enabled" } else { "disabled" }
                    );
                }
                page += 1;
                if u64::from(page) * 100 >= p.total {
                    break;
                }
            }
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
