//! `gateway` commands.
//!
//! Turn a realm's MCP gateway on, accept the tool definitions its
//! upstreams list (pins), attach registry servers to agents, and see what an agent's search
//! returns. Each is one core call, audited as `cli`.
use super::support::core_error;
use super::table::{Cell, ListFormat, Table};
use clap::Subcommand;

/// `gateway` subcommands.
#[derive(Debug, Subcommand)]
pub enum GatewayCommand {
    /// Turn a realm's gateway on: its resource (scope `mcp`) and the client it exchanges
    /// upstream tokens as.
    Enable {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// Where a realm's gateway is and whether it is on.
    Status {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// The tools the gateway has seen, each with its pin: accepted, new, changed or removed.
    Tools {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Only tools waiting for acceptance.
        #[arg(long)]
        pending: bool,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Show what changed in a tool's definition since it was accepted, field by field.
    Diff {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `<server>.<tool>`.
        tool: String,
    },
    /// Accept a server's tool definitions as it lists them now (every waiting tool, or those
    /// named with --tool).
    Accept {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The registry server's id.
        server: String,
        /// Only this tool (repeat).
        #[arg(long = "tool")]
        tools: Vec<String>,
    },
    /// Attach a registry server to an agent: its gateway search may then return its tools.
    Attach {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The agent's name.
        agent: String,
        /// The registry server's id.
        server: String,
    },
    /// Detach a registry server from an agent.
    Detach {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The agent's name.
        agent: String,
        /// The registry server's id.
        server: String,
    },
    /// The calls waiting for a person's approval (or every recent one, with --all).
    Approvals {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Every approval, decided or not (the newest 500).
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Approve a waiting call: the caller may then run it, once.
    Approve {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its id (apr_…).
        id: String,
        /// Why (kept in the audit log).
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Deny a waiting call.
    Deny {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its id (apr_…).
        id: String,
        /// Why (kept in the audit log).
        #[arg(long, default_value = "")]
        reason: String,
    },
    /// Set the client secret the gateway sends to a server's own authorization server (a
    /// server with auth.mode oauth whose registry entry names auth.clientId and auth.issuer),
    /// read from a file or standard input; or remove it with --clear.
    ClientSecret {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The registry server's id.
        server: String,
        #[command(flatten)]
        secret: super::sso::SecretSource,
        /// Remove the secret: the gateway is then a public client there (PKCE only).
        #[arg(long, conflicts_with_all = ["client_secret_file", "client_secret_stdin"])]
        clear: bool,
    },
    /// Which servers an agent's gateway search draws on, and why each other one does not.
    Toolset {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The agent's name.
        agent: String,
        #[command(flatten)]
        format: ListFormat,
    },
}

pub(super) async fn gateway(core: &authz::Core, command: GatewayCommand) -> anyhow::Result<()> {
    let p = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        GatewayCommand::Enable { realm } => {
            let info = core
                .enable_gateway(&p, &realm, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "The gateway of realm {realm} is on at {}. Clients ask for tokens with resource={} and scope {}; attach registry servers to agents with `portcullis gateway attach`.",
                info.url,
                info.url,
                info.scope
            );
        }
        GatewayCommand::Status { realm } => {
            let info = core.gateway_info(&p, &realm).await.map_err(core_error)?;
            say!(
                "{} ({}; resource {}, scope {})",
                info.url,
                if info.enabled {
                    "on"
                } else {
                    "off: `portcullis gateway enable`"
                },
                info.resource_slug,
                info.scope
            );
        }
        GatewayCommand::Tools {
            realm,
            pending,
            format,
        } => {
            let pins = core.list_tool_pins(&p, &realm).await.map_err(core_error)?;
            let mut table = Table::new(format, ["tool", "state", "sha256", "accepted_by"]);
            for pin in pins
                .into_iter()
                .filter(|t| !pending || t.state() != authz::gateway::PinState::Accepted)
            {
                let sha = pin
                    .seen
                    .as_ref()
                    .or(pin.accepted.as_ref())
                    .map(|d| d.sha256.chars().take(12).collect::<String>())
                    .unwrap_or_default();
                table.row([
                    format!("{}.{}", pin.server_id, pin.tool).into(),
                    pin.state().as_str().into(),
                    sha.into(),
                    Cell::from(pin.accepted_by.unwrap_or_default()),
                ])?;
            }
            table.finish()?;
        }
        GatewayCommand::Diff { realm, tool } => {
            let Some((server, name)) = tool.split_once('.') else {
                anyhow::bail!("Name the tool as <server>.<tool>.");
            };
            let pin = core
                .list_tool_pins(&p, &realm)
                .await
                .map_err(core_error)?
                .into_iter()
                .find(|t| t.server_id == server && t.tool == name)
                .ok_or_else(|| {
                    anyhow::anyhow!("The gateway has not seen {tool} in realm {realm}.")
                })?;
            say!("{tool}: {}", pin.state().as_str());
            for change in pin.diff() {
                say!("── {}", change.field);
                say!(
                    "   accepted: {}",
                    change.accepted.as_deref().unwrap_or("(absent)")
                );
                say!(
                    "   listed:   {}",
                    change.listed.as_deref().unwrap_or("(absent)")
                );
            }
        }
        GatewayCommand::Accept {
            realm,
            server,
            tools,
        } => {
            // Each named tool as the server lists it now (`diff` shows what that is).
            let pins = core.list_tool_pins(&p, &realm).await.map_err(core_error)?;
            let seen: Vec<(String, String)> = tools
                .iter()
                .map(|t| {
                    let sha = pins
                        .iter()
                        .find(|x| x.server_id == server && &x.tool == t)
                        .and_then(|x| x.seen.as_ref())
                        .map(|d| d.sha256.clone())
                        .unwrap_or_default();
                    (t.clone(), sha)
                })
                .collect();
            let n = core
                .accept_tool_pins(&p, &realm, &server, &seen, &meta)
                .await
                .map_err(core_error)?;
            if n == 0 {
                say!("Nothing of {server} waits for acceptance.");
            } else {
                say!(
                    "Accepted {n} tool definition(s) of {server}: the gateway offers them as listed now."
                );
            }
        }
        GatewayCommand::Attach {
            realm,
            agent,
            server,
        } => {
            core.attach_gateway_server(&p, &realm, &agent, &server, &meta)
                .await
                .map_err(core_error)?;
            say!("Attached {server} to agent {agent}.");
        }
        GatewayCommand::Detach {
            realm,
            agent,
            server,
        } => {
            core.detach_gateway_server(&p, &realm, &agent, &server, &meta)
                .await
                .map_err(core_error)?;
            say!("Detached {server} from agent {agent}.");
        }
        GatewayCommand::Approvals { realm, all, format } => {
            let list = core
                .list_gateway_approvals(&p, &realm, !all)
                .await
                .map_err(core_error)?;
            let now = core.now();
            let mut table = Table::new(
                format,
                [
                    "id",
                    "capability",
                    "agent",
                    "subject",
                    "risk",
                    "status",
                    "requested",
                    "arguments",
                ],
            );
            for (a, agent) in list {
                table.row([
                    a.id.clone().into(),
                    a.capability().into(),
                    Cell::from(agent.unwrap_or_default()),
                    a.sub.clone().into(),
                    a.risk.clone().into(),
                    a.status_at(now).as_str().into(),
                    authz::clock::rfc3339(a.requested_at).into(),
                    a.arguments_preview.replace('\n', " ").into(),
                ])?;
            }
            table.finish()?;
        }
        GatewayCommand::Approve { realm, id, reason } => {
            let a = core
                .decide_gateway_approval(&p, &realm, &id, true, &reason, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Approved {} ({}): the caller may run it once, until {}.",
                a.id,
                a.capability(),
                authz::clock::rfc3339(a.expires_at)
            );
        }
        GatewayCommand::Deny { realm, id, reason } => {
            let a = core
                .decide_gateway_approval(&p, &realm, &id, false, &reason, &meta)
                .await
                .map_err(core_error)?;
            say!("Denied {} ({}).", a.id, a.capability());
        }
        GatewayCommand::ClientSecret {
            realm,
            server,
            secret,
            clear,
        } => {
            if clear {
                core.clear_gateway_client_secret(&p, &realm, &server, &meta)
                    .await
                    .map_err(core_error)?;
                say!(
                    "Removed the client secret of {server}: the gateway is a public client there now."
                );
            } else {
                if !secret.given() {
                    anyhow::bail!(
                        "Give the secret with --client-secret-file or --client-secret-stdin (never as an argument: other users of the machine and the shell history would see it), or remove it with --clear."
                    );
                }
                let secret = secret.read()?;
                if secret.is_empty() {
                    anyhow::bail!("The secret read is empty: nothing was changed.");
                }
                core.set_gateway_client_secret(&p, &realm, &server, &secret, &meta)
                    .await
                    .map_err(core_error)?;
                say!(
                    "Set the client secret of {server}: the gateway sends it with each token request to the server's authorization server, while the registry names the same client id, authorization server and URL. The redirect URI to register there: {}",
                    core.gateway_callback(&realm, &server)
                        .await
                        .map_err(core_error)?
                );
            }
        }
        GatewayCommand::Toolset {
            realm,
            agent,
            format,
        } => {
            let toolset = core
                .agent_toolset(&p, &realm, &agent)
                .await
                .map_err(core_error)?;
            let mut table = Table::new(format, ["server", "tools", "excluded"]);
            for s in toolset.servers {
                let offered: Vec<&str> = toolset
                    .pins
                    .iter()
                    .filter(|t| t.server_id == s.server.id && t.offered().is_some())
                    .filter(|t| s.server.tools.allows(&t.tool))
                    .map(|t| t.tool.as_str())
                    .collect();
                table.row([
                    s.server.id.clone().into(),
                    Cell::list(&offered, " "),
                    Cell::from(s.excluded.map(|e| e.reason()).unwrap_or_default()),
                ])?;
            }
            table.finish()?;
        }
    }
    Ok(())
}
