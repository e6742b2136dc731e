//! The command line: `serve`, `migrate`, `print-config`, `validate-config` and the dispatcher;
//! each command group (`keys`, `resources`, `clients`, …) lives in its own module below.
use crate::config::Config;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// `println!` for command output. A closed pipe (`portcullis clients list | head`) ends the
/// command quietly with success (see [`closed_pipe`]), not with a panic.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::support::write_out(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// `print!` for command output (no newline added); see `say!`.
macro_rules! say_raw {
    ($($arg:tt)*) => {
        $crate::cli::support::write_out(format_args!($($arg)*))?
    };
}

/// `say!` for the output of a command that creates a one-time secret: if it cannot be written,
/// the command fails, because the secret is shown nowhere else.
macro_rules! say_secret {
    ($($arg:tt)*) => {
        $crate::cli::support::write_out(format_args!("{}\n", format_args!($($arg)*))).map_err(|e| {
            anyhow::anyhow!(
                "{e}: the new secret was not delivered and is shown nowhere else; rotate it (clients rotate-secret) before use"
            )
        })?
    };
}

mod admin;
mod agents;
mod clients;
mod gateway;
mod idp;
mod issuers;
mod keys;
mod lifecycle;
mod mcp;
mod people;
mod realms;
mod registration;
mod registry;
mod resources;
mod sso;
mod support;
mod table;
mod trusting;
pub use admin::AdminCommand;
pub use agents::AgentsCommand;
pub use clients::ClientsCommand;
pub use gateway::GatewayCommand;
pub use idp::IdpCommand;
pub use issuers::IssuersCommand;
pub use keys::KeysCommand;
pub use lifecycle::{ClientLifecycle, ResourceLifecycle};
pub use people::PeopleCommand;
pub use realms::RealmsCommand;
pub use registration::RegistrationCommand;
pub use registry::RegistryCommand;
pub use resources::ResourcesCommand;
pub use sso::SsoCommand;
pub use support::{StdoutClosed, closed_pipe, write_out};
pub use table::ListFormat;
pub use trusting::TrustingCommand;

/// Portcullis: the authorization server for MCP.
#[derive(Debug, Parser)]
#[command(name = "portcullis", version, about)]
pub struct Cli {
    /// Config file (default: ./portcullis.toml when present).
    #[arg(long, global = true, env = "PORTCULLIS_CONFIG")]
    pub config: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply migrations and serve the console and endpoints.
    Serve,
    /// Apply database migrations and exit.
    Migrate,
    /// Print the effective configuration (secrets redacted).
    PrintConfig,
    /// Check the configuration (and that `console.site_dir` holds a built console) and exit
    /// non-zero if `serve` would refuse it.
    ValidateConfig,
    /// Manage console accounts.
    Admin {
        /// Admin subcommand.
        #[command(subcommand)]
        command: AdminCommand,
    },
    /// Manage realms: create, list, change settings and token lifetimes.
    Realms {
        /// Realms subcommand.
        #[command(subcommand)]
        command: RealmsCommand,
    },
    /// Manage a realm's signing keys.
    Keys {
        /// Keys subcommand.
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Manage protected resources (MCP servers).
    Resources {
        /// Resources subcommand.
        #[command(subcommand)]
        command: ResourcesCommand,
    },
    /// Manage OAuth clients.
    Clients {
        /// Clients subcommand.
        #[command(subcommand)]
        command: ClientsCommand,
    },
    /// Manage agents (non-human identities) and the clients bound to them.
    Agents {
        /// Agents subcommand.
        #[command(subcommand)]
        command: AgentsCommand,
    },
    /// Client registration: the realm's policy, initial access tokens, the review queue.
    Registration {
        /// Registration subcommand.
        #[command(subcommand)]
        command: RegistrationCommand,
    },
    /// The realm's MCP server registry: import, edit, publish signed releases, approve, roll
    /// back, rings and units.
    Registry {
        /// Registry subcommand.
        #[command(subcommand)]
        command: RegistryCommand,
    },
    /// Manage a realm's people: who signs in at its authorization endpoint.
    People {
        /// People subcommand.
        #[command(subcommand)]
        command: PeopleCommand,
    },
    /// Enterprise-managed authorization: the identity providers whose ID-JAGs a realm accepts.
    TrustedIssuers {
        /// Trusted-issuers subcommand.
        #[command(subcommand)]
        command: IssuersCommand,
    },
    /// Identity chaining: the authorization servers that accept a realm's ID-JAGs (the realm
    /// as its people's identity provider).
    TrustingServers {
        /// Trusting-servers subcommand.
        #[command(subcommand)]
        command: TrustingCommand,
    },
    /// The MCP gateway: turn it on, accept tool definitions, attach servers to agents.
    Gateway {
        /// Gateway subcommand.
        #[command(subcommand)]
        command: GatewayCommand,
    },
    /// Brokering: the OpenID Connect providers a realm's people sign in with.
    Idp {
        /// Idp subcommand.
        #[command(subcommand)]
        command: IdpCommand,
    },
    /// Console single sign-on: the OpenID Connect providers console users sign in with.
    Sso {
        /// Sso subcommand.
        #[command(subcommand)]
        command: SsoCommand,
    },
    /// Run an MCP client's discovery steps against an MCP server and say what passes and why
    /// (exit status 1 when a step fails).
    CheckMcp {
        /// Realm the server should trust.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The MCP server's URL.
        url: String,
    },
    /// Play the MCP authorization handshake end to end on this machine: a throwaway Portcullis,
    /// a demo agent and client, a protected MCP server, each step printed.
    Demo,
}

/// `portcullis demo`, printed; `portcullis demo | head` (a closed pipe) finishes quietly.
async fn demo() -> anyhow::Result<()> {
    crate::demo::run(&mut |line: &str| {
        let _ = write_out(format_args!("{line}\n"));
    })
    .await
}

/// Runs the parsed command.
///
/// # Errors
/// Whatever the command fails with, with context.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    if let Command::Demo = cli.command {
        // Its own throwaway configuration: no file or environment is read.
        return demo().await;
    }
    let config = Config::load(cli.config.as_deref())?;
    match cli.command {
        Command::ValidateConfig => {
            // What `serve` refuses to start without, checked here too.
            config.check_site_dir()?;
            say!("Configuration is valid.");
            Ok(())
        }
        Command::PrintConfig => {
            say_raw!("{}", config.redacted_toml());
            Ok(())
        }
        Command::Serve => {
            crate::init_tracing(&config.log);
            crate::serve(config).await
        }
        Command::Demo => demo().await,
        Command::CheckMcp { realm, url } => {
            let state = crate::AppState::init(config).await?;
            let result = mcp::check(&state.core, &realm, &url).await;
            state.db.close().await;
            result
        }
        Command::Migrate => {
            crate::init_tracing(&config.log);
            let db = crate::connect(&config).await?;
            crate::prepare_schema(&db).await?;
            db.close().await;
            say!("Migrations applied.");
            Ok(())
        }
        Command::Keys { command } => {
            let state = crate::AppState::init(config).await?;
            let result = keys::keys(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Resources { command } => {
            let state = crate::AppState::init(config).await?;
            let result = resources::resources(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Clients { command } => {
            let state = crate::AppState::init(config).await?;
            let result = clients::clients(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Registry { command } => {
            let state = crate::AppState::init(config).await?;
            let result = registry::registry(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Agents { command } => {
            let state = crate::AppState::init(config).await?;
            let result = agents::agents(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Realms { command } => {
            let state = crate::AppState::init(config).await?;
            let result = realms::realms(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Registration { command } => {
            let state = crate::AppState::init(config).await?;
            let result = registration::registration(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::People { command } => {
            let password = match &command {
                PeopleCommand::Add { password: true, .. } | PeopleCommand::SetPassword { .. } => {
                    Some(support::read_password()?)
                }
                _ => None,
            };
            let state = crate::AppState::init(config).await?;
            let result = people::people(&state.core, command, password).await;
            state.db.close().await;
            result
        }
        Command::TrustedIssuers { command } => {
            let state = crate::AppState::init(config).await?;
            let result = issuers::issuers(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::TrustingServers { command } => {
            let state = crate::AppState::init(config).await?;
            let result = trusting::trusting(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Gateway { command } => {
            let state = crate::AppState::init(config).await?;
            let result = gateway::gateway(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Idp { command } => {
            let state = crate::AppState::init(config).await?;
            let result = idp::idp(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Sso { command } => {
            let state = crate::AppState::init(config).await?;
            let result = sso::sso(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Admin { command } => admin::admin(config, command).await,
    }
}
