//! The command line: `serve`, `migrate`, `print-config`, `validate-config`, `admin create`.
use crate::config::Config;
use anyhow::Context as _;
use clap::{Parser, Subcommand};
use std::io::{BufRead, IsTerminal};
use std::path::PathBuf;

/// `println!` for command output. A closed pipe (`portcullis clients list | head`) ends the
/// command quietly with success (see [`closed_pipe`]), not with a panic.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::write_out(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// `print!` for command output (no newline added); see `say!`.
macro_rules! say_raw {
    ($($arg:tt)*) => {
        $crate::cli::write_out(format_args!($($arg)*))?
    };
}

/// `say!` for the output of a command that creates a one-time secret: if it cannot be written,
/// the command fails, because the secret is shown nowhere else.
macro_rules! say_secret {
    ($($arg:tt)*) => {
        $crate::cli::write_out(format_args!("{}\n", format_args!($($arg)*))).map_err(|e| {
            anyhow::anyhow!(
                "{e}: the new secret was not delivered and is shown nowhere else; rotate it (clients rotate-secret) before use"
            )
        })?
    };
}

mod lifecycle;
mod mcp;
mod realms;
pub use lifecycle::{AgentsCommand, ClientLifecycle, ResourceLifecycle};
pub use realms::RealmsCommand;

/// Command output could not be written to stdout.
#[derive(Debug, thiserror::Error)]
#[error("cannot write to stdout: {0}")]
pub struct StdoutClosed(#[source] std::io::Error);

/// Writes command output to stdout.
///
/// # Errors
/// [`StdoutClosed`], e.g. with `BrokenPipe` when the reader went away.
pub fn write_out(args: std::fmt::Arguments<'_>) -> Result<(), StdoutClosed> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.flush())
        .map_err(StdoutClosed)
}

/// Whether a command failed only because whoever read its output stopped reading. Only a write
/// to stdout counts: a broken pipe anywhere else (a database socket) is a real failure.
pub fn closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<StdoutClosed>()
            .is_some_and(|c| c.0.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

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
    /// Check the configuration and exit non-zero if it is invalid.
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
    /// Manage a realm's people: who signs in at its authorization endpoint.
    People {
        /// People subcommand.
        #[command(subcommand)]
        command: PeopleCommand,
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

/// `registration` subcommands.
#[derive(Debug, Subcommand)]
pub enum RegistrationCommand {
    /// Set who may register clients (review, open, initial_access_token, disabled).
    Policy {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The policy: review, open, initial_access_token or disabled (unchanged when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        policy: String,
        /// Most self-registered clients the realm holds (unchanged when omitted).
        #[arg(long, default_value = "")]
        max_clients: String,
        /// Clients identified by a metadata-document URL: review, any, allow_list or disabled
        /// (unchanged when omitted).
        #[arg(long, default_value = "")]
        documents: String,
        /// Domains trusted under allow_list, space- or comma-separated.
        #[arg(long, default_value = "")]
        domains: String,
        /// Days without a token after which a self-registered client expires; 0: never
        /// (unchanged when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        unused_client_days: String,
        /// Days the secrets of dynamically registered clients last; 0: they do not expire
        /// (unchanged when omitted).
        #[arg(long, default_value = "", hide_default_value = true)]
        client_secret_days: String,
    },
    /// Issue an initial access token (for the initial_access_token policy). Shown once.
    Token {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// What it is for.
        #[arg(long)]
        label: String,
        /// How many registrations it allows.
        #[arg(long, default_value_t = 1)]
        uses: i64,
        /// Lifetime in seconds.
        #[arg(long, default_value_t = 86_400)]
        ttl: i64,
    },
    /// List clients waiting for review (or in another state: approved, rejected, revoked).
    Pending {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Review state: pending, approved, rejected, revoked or expired.
        #[arg(long, default_value = "pending")]
        state: String,
    },
    /// Approve a pending client.
    Approve {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its client_id.
        client_id: String,
        /// Why (kept in its history).
        #[arg(long)]
        reason: String,
        /// For a machine client: grant client_credentials access, `RESOURCE[=SCOPE ...]`
        /// (every scope the resource accepts when none are given); repeatable.
        #[arg(long = "grant")]
        grants: Vec<String>,
    },
    /// Reject a pending client.
    Reject {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its client_id.
        client_id: String,
        /// Why (kept in its history).
        #[arg(long)]
        reason: String,
    },
    /// Revoke an active client: no new tokens, its refresh tokens and codes die, its access
    /// tokens introspect inactive for good.
    Revoke {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its client_id.
        client_id: String,
        /// Why (kept in its history).
        #[arg(long)]
        reason: String,
    },
    /// Let a revoked client work again: new tokens only, the old ones stay dead.
    Restore {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Its client_id.
        client_id: String,
        /// Why (kept in its history).
        #[arg(long)]
        reason: String,
    },
}

/// `people` subcommands.
#[derive(Debug, Subcommand)]
pub enum PeopleCommand {
    /// Add a person. With --password, the password is prompted for (or read from stdin).
    Add {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Sign-in email.
        #[arg(long)]
        email: String,
        /// Display name (default: the email).
        #[arg(long, default_value = "")]
        name: String,
        /// Roles, space-separated.
        #[arg(long, default_value = "")]
        roles: String,
        /// Set a first password.
        #[arg(long)]
        password: bool,
    },
    /// List a realm's people.
    List {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Only those whose email or name contains this.
        #[arg(long)]
        search: Option<String>,
    },
    /// Set a person's password (prompted for, or read from stdin).
    SetPassword {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The person's id (psn_…).
        id: String,
    },
    /// Disable a person: their sign-ins end and their apps' tokens stop working.
    Disable {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The person's id (psn_…).
        id: String,
    },
    /// Enable a person again.
    Enable {
        /// Realm.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The person's id (psn_…).
        id: String,
    },
}

/// `keys` subcommands.
#[derive(Debug, Subcommand)]
pub enum KeysCommand {
    /// Rotate: the next key becomes active, the active key retires (still published until its
    /// tokens expire), a new next key is created.
    Rotate {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// List keys and their states.
    List {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// Measure the single-core signing rate of the realm's active key (for the benchmark).
    BenchSign {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// ES256, RS256 or EdDSA.
        #[arg(long, default_value = "ES256")]
        alg: String,
        /// How long to sign for.
        #[arg(long, default_value_t = 3)]
        seconds: u64,
    },
}

/// `resources` subcommands.
#[derive(Debug, Subcommand)]
pub enum ResourcesCommand {
    /// Register an MCP server as a token audience.
    Create {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Id (slug), e.g. payments-mcp.
        #[arg(long)]
        id: String,
        /// Display name.
        #[arg(long)]
        name: String,
        /// Canonical URI, e.g. <https://mcp.example.com/mcp>.
        #[arg(long)]
        uri: String,
        /// Accepted scopes, space-separated.
        #[arg(long)]
        scopes: String,
        /// Access-token lifetime in seconds (default: the realm's, 300 unless changed).
        #[arg(long, default_value = "")]
        ttl: String,
        /// Signing algorithm override: ES256, RS256 or EdDSA.
        #[arg(long, default_value = "")]
        alg: String,
    },
    /// List resources.
    List {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// Choose the audience of token requests that omit `resource` (by default they are refused
    /// with invalid_target).
    SetDefault {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Resource id (slug) to use as the default audience.
        #[arg(long, required_unless_present = "none", conflicts_with = "none")]
        id: Option<String>,
        /// Require `resource` on every token request again.
        #[arg(long)]
        none: bool,
    },
    /// Create the credentials the resource's MCP server uses to introspect tokens minted for
    /// it (a client named `{id}-introspect`; the secret is printed once).
    Credentials {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Resource id (slug).
        #[arg(long)]
        id: String,
    },
    /// List the clients that may get tokens for a resource, with their scopes.
    Access {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Resource id (slug).
        #[arg(long)]
        id: String,
        /// Only clients whose client_id or name contains this.
        #[arg(long, default_value = "")]
        search: String,
    },
    /// Enable, disable or delete a resource.
    #[command(flatten)]
    Lifecycle(ResourceLifecycle),
}

/// `clients` subcommands.
#[derive(Debug, Subcommand)]
#[allow(clippy::large_enum_variant)] // parsed once per process
pub enum ClientsCommand {
    /// Register a client; a confidential client's secret is printed once.
    Create {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id` (generated when omitted).
        #[arg(long, default_value = "")]
        client_id: String,
        /// Display name.
        #[arg(long)]
        name: String,
        /// Allowed scopes, space-separated.
        #[arg(long)]
        scope: String,
        /// client_secret_basic, client_secret_post, private_key_jwt or none.
        #[arg(long, default_value = "client_secret_basic")]
        auth_method: String,
        /// JWK Set (JSON) with the public keys of a private_key_jwt client.
        #[arg(long, default_value = "")]
        jwks: String,
        /// Or the HTTPS URL where a private_key_jwt client publishes its JWK Set.
        #[arg(long, default_value = "", conflicts_with = "jwks")]
        jwks_uri: String,
        /// Contacts (emails, comma-separated).
        #[arg(long, default_value = "")]
        contacts: String,
        /// Redirect URIs (space-separated), matched exactly.
        #[arg(long, default_value = "")]
        redirect_uris: String,
        /// RFC 7591 `client_uri`.
        #[arg(long, default_value = "")]
        client_uri: String,
        /// RFC 7591 `logo_uri`.
        #[arg(long, default_value = "")]
        logo_uri: String,
        /// RFC 7591 `software_id`.
        #[arg(long, default_value = "")]
        software_id: String,
        /// RFC 7591 `software_version`.
        #[arg(long, default_value = "")]
        software_version: String,
    },
    /// Issue a new secret; old ones keep working for the overlap.
    RotateSecret {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
        /// Seconds the previous secrets keep working.
        #[arg(long, default_value_t = authz::clients::DEFAULT_SECRET_OVERLAP_SECS)]
        overlap_secs: i64,
    },
    /// Let a client get tokens for a resource (or change the scopes it may get there).
    Grant {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
        /// Resource id (slug).
        #[arg(long)]
        resource: String,
        /// Scopes, space-separated, each accepted by the resource (default: all it accepts).
        #[arg(long)]
        scopes: Option<String>,
    },
    /// Stop a client getting tokens for a resource; its live tokens for it introspect inactive.
    Revoke {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
        /// Resource id (slug).
        #[arg(long)]
        resource: String,
    },
    /// List the resources a client may get tokens for, with its scopes there.
    Access {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `client_id`.
        #[arg(long)]
        client_id: String,
    },
    /// List, enable, disable or delete clients.
    #[command(flatten)]
    Lifecycle(ClientLifecycle),
}

/// `admin` subcommands.
#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// Create a console user. The password is prompted for, or read from stdin when piped.
    Create {
        /// Sign-in email.
        #[arg(long)]
        email: String,
        /// Display name.
        #[arg(long)]
        name: String,
        /// Role: admin, security_reviewer or developer.
        #[arg(long, default_value = "admin")]
        role: String,
    },
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
            let result = keys(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Resources { command } => {
            let state = crate::AppState::init(config).await?;
            let result = resources(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Clients { command } => {
            let state = crate::AppState::init(config).await?;
            let result = clients(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::Agents { command } => {
            let state = crate::AppState::init(config).await?;
            let result = lifecycle::agents(&state.core, command).await;
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
            let result = registration(&state.core, command).await;
            state.db.close().await;
            result
        }
        Command::People { command } => {
            let password = match &command {
                PeopleCommand::Add { password: true, .. } | PeopleCommand::SetPassword { .. } => {
                    Some(read_password()?)
                }
                _ => None,
            };
            let state = crate::AppState::init(config).await?;
            let result = people(&state.core, command, password).await;
            state.db.close().await;
            result
        }
        Command::Admin {
            command: AdminCommand::Create { email, name, role },
        } => {
            let password = read_password()?;
            crate::init_tracing(&config.log);
            let state = crate::AppState::init(config).await?;
            let user = state
                .core
                .create_user_with_password(&email, &name, &role, &password)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            state.db.close().await;
            say!(
                "Created {} ({}) with role {}.",
                user.email,
                user.id,
                user.role.as_str()
            );
            Ok(())
        }
    }
}

fn core_error(e: authz::Error) -> anyhow::Error {
    match e {
        authz::Error::InvalidField { field, message } => anyhow::anyhow!("{field}: {message}"),
        e => anyhow::anyhow!("{e}"),
    }
}

async fn keys(core: &authz::Core, command: KeysCommand) -> anyhow::Result<()> {
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        KeysCommand::Rotate { realm } => {
            let active = core
                .rotate_signing_keys(&cli, &realm, &meta)
                .await
                .map_err(core_error)?;
            say!("Rotated realm {realm}; now active: {}", active.join(", "));
        }
        KeysCommand::BenchSign {
            realm,
            alg,
            seconds,
        } => {
            let alg = authz::keys::SigningAlg::parse(&alg).map_err(anyhow::Error::msg)?;
            let signer = core
                .signer_for_benchmark(&cli, &realm, alg)
                .await
                .map_err(core_error)?;
            let claims = serde_json::json!({
                "iss": "https://id.example.com/realms/default", "sub": "bench-client",
                "aud": "https://bench.example.com/mcp", "client_id": "bench-client", "scope": "tools:call",
                "iat": 1_800_000_000, "exp": 1_800_000_300, "jti": "at_0123456789abcdef01234567",
            });
            let start = std::time::Instant::now();
            let mut n: u64 = 0;
            while start.elapsed().as_secs() < seconds {
                for _ in 0..100 {
                    signer.sign("at+jwt", &claims).map_err(anyhow::Error::msg)?;
                }
                n += 100;
            }
            say!(
                "signatures/s: {:.0}",
                n as f64 / start.elapsed().as_secs_f64()
            );
        }
        KeysCommand::List { realm } => {
            for k in core
                .list_signing_keys(&cli, &realm)
                .await
                .map_err(core_error)?
            {
                say!(
                    "{}\t{}\t{}\t{}",
                    k.kid,
                    k.alg,
                    k.state,
                    if k.published {
                        "published"
                    } else {
                        "unpublished"
                    }
                );
            }
        }
    }
    Ok(())
}

async fn resources(core: &authz::Core, command: ResourcesCommand) -> anyhow::Result<()> {
    let cli = authz::Principal::cli();
    match command {
        ResourcesCommand::Create {
            realm,
            id,
            name,
            uri,
            scopes,
            ttl,
            alg,
        } => {
            let input = authz::resources::ResourceInput {
                slug: id,
                display_name: name,
                uri,
                scopes,
                token_ttl_secs: ttl,
                signing_alg: alg,
                enabled: true,
            };
            let r = core
                .create_resource(&cli, &realm, &input, &authz::RequestMeta::default())
                .await
                .map_err(core_error)?;
            say!("Created resource {} with audience {}", r.slug, r.uri);
        }
        ResourcesCommand::List { realm } => {
            let default = core
                .default_resource(&cli, &realm)
                .await
                .map_err(core_error)?;
            for r in core
                .list_resources(&cli, &realm)
                .await
                .map_err(core_error)?
            {
                let is_default = default.as_ref().is_some_and(|d| d.id == r.id);
                say!(
                    "{}\t{}\t{}\t{}{}",
                    r.slug,
                    r.uri,
                    r.scopes,
                    if r.enabled { "enabled" } else { "disabled" },
                    if is_default { "\tdefault" } else { "" }
                );
            }
        }
        ResourcesCommand::SetDefault { realm, id, none: _ } => {
            match core
                .set_default_resource(&cli, &realm, id.as_deref(), &authz::RequestMeta::default())
                .await
                .map_err(core_error)?
            {
                Some(r) => say!(
                    "Token requests without resource now get audience {} ({})",
                    r.uri,
                    r.slug
                ),
                None => say!("Token requests without resource are refused (invalid_target)"),
            }
        }
        ResourcesCommand::Credentials { realm, id } => {
            let (client, secret) = core
                .create_resource_server_credentials(
                    &cli,
                    &realm,
                    &id,
                    &authz::RequestMeta::default(),
                )
                .await
                .map_err(core_error)?;
            say_secret!("client_id: {}", client.client_id);
            say_secret!("client_secret: {}", secret.expose());
            eprintln!(
                "The secret is shown only this once. With these credentials (client_secret_basic) the MCP server may introspect tokens minted for {id}."
            );
        }
        ResourcesCommand::Access { realm, id, search } => {
            let mut page = 0;
            loop {
                let found = core
                    .resource_access(
                        &cli,
                        &realm,
                        &id,
                        &search,
                        authz::storage::Page::new(page, 500),
                    )
                    .await
                    .map_err(core_error)?;
                for g in &found.items {
                    say!(
                        "{}\t{}\t{}\t{}",
                        g.client_id,
                        g.name,
                        g.grant.scopes,
                        if g.enabled { "enabled" } else { "disabled" }
                    );
                }
                page += 1;
                if u64::from(page) * 500 >= found.total {
                    break;
                }
            }
        }
        ResourcesCommand::Lifecycle(command) => {
            lifecycle::resource_lifecycle(core, command).await?
        }
    }
    Ok(())
}

async fn clients(core: &authz::Core, command: ClientsCommand) -> anyhow::Result<()> {
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        ClientsCommand::Create {
            realm,
            client_id,
            name,
            scope,
            auth_method,
            jwks,
            jwks_uri,
            contacts,
            redirect_uris,
            client_uri,
            logo_uri,
            software_id,
            software_version,
        } => {
            let metadata = authz::clients::ClientForm {
                name,
                auth_method,
                scope,
                contacts,
                jwks,
                jwks_uri,
                client_uri,
                logo_uri,
                software_id,
                software_version,
                redirect_uris,
            }
            .into_metadata()
            .map_err(core_error)?;
            let (client, secret) = core
                .create_client(&cli, &realm, &client_id, &metadata, &meta)
                .await
                .map_err(core_error)?;
            say_secret!("client_id: {}", client.client_id);
            if let Some(secret) = secret {
                say_secret!("client_secret: {}", secret.expose());
                eprintln!("The secret is shown only this once; store it now.");
            }
        }
        ClientsCommand::RotateSecret {
            realm,
            client_id,
            overlap_secs,
        } => {
            let secret = core
                .rotate_client_secret(&cli, &realm, &client_id, overlap_secs, &meta)
                .await
                .map_err(core_error)?;
            say_secret!("client_secret: {}", secret.expose());
            eprintln!("Previous secrets keep working for {overlap_secs} seconds.");
        }
        ClientsCommand::Grant {
            realm,
            client_id,
            resource,
            scopes,
        } => {
            let g = core
                .grant_access(
                    &cli,
                    &realm,
                    &client_id,
                    &resource,
                    scopes.as_deref(),
                    &meta,
                )
                .await
                .map_err(core_error)?;
            say!(
                "Client {client_id} may get tokens for {} ({}) with scopes: {}",
                g.resource.slug,
                g.resource.uri,
                g.grant.scopes
            );
        }
        ClientsCommand::Revoke {
            realm,
            client_id,
            resource,
        } => {
            core.revoke_access(&cli, &realm, &client_id, &resource, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Client {client_id} may no longer get tokens for {resource}; servers that introspect see its live tokens for it as inactive. {}",
                revocation_note(core, &realm).await?
            );
        }
        ClientsCommand::Access { realm, client_id } => {
            for a in core
                .client_access(&cli, &realm, &client_id)
                .await
                .map_err(core_error)?
            {
                if let Some(grant) = &a.grant {
                    say!(
                        "{}\t{}\t{}",
                        a.resource.slug,
                        a.resource.uri,
                        grant.scopes.intersection(&a.resource.scopes)
                    );
                }
            }
        }
        ClientsCommand::Lifecycle(command) => lifecycle::client_lifecycle(core, command).await?,
    }
    Ok(())
}

async fn registration(core: &authz::Core, command: RegistrationCommand) -> anyhow::Result<()> {
    let p = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        RegistrationCommand::Policy {
            realm,
            policy,
            max_clients,
            documents,
            domains,
            unused_client_days,
            client_secret_days,
        } => {
            let r = core
                .set_registration_policy(
                    &p,
                    &realm,
                    &authz::realms::RegistrationInput {
                        policy,
                        max_dynamic_clients: max_clients,
                        metadata_document_policy: documents,
                        metadata_document_domains: domains,
                        unused_client_days,
                        client_secret_days,
                    },
                    &meta,
                )
                .await
                .map_err(core_error)?;
            say!(
                "Realm {}: registration {}, at most {} self-registered clients, unused ones expire after {} d (0: never), their secrets last {} d (0: forever); metadata documents {}{}.",
                r.name,
                r.registration_policy.as_str(),
                r.max_dynamic_clients,
                authz::realms::as_days(r.unused_client_ttl_secs),
                authz::realms::as_days(r.client_secret_ttl_secs),
                r.metadata_document_policy.as_str(),
                if r.metadata_document_domains.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", r.metadata_document_domains.join(" "))
                }
            );
        }
        RegistrationCommand::Token {
            realm,
            label,
            uses,
            ttl,
        } => {
            let token = core
                .create_initial_access_token(&p, &realm, &label, uses, ttl, &meta)
                .await
                .map_err(core_error)?;
            say_secret!("{}", token.expose());
        }
        RegistrationCommand::Pending { realm, state } => {
            let state = authz::clients::ReviewState::parse(&state).map_err(|_| {
                anyhow::anyhow!("--state must be pending, approved, rejected, revoked or expired")
            })?;
            for item in core
                .review_queue(&p, &realm, state)
                .await
                .map_err(core_error)?
            {
                let c = &item.client;
                say!(
                    "{}\t{}\t{}\tfrom {}\t{}",
                    c.client_id,
                    c.name,
                    item.redirect_hosts.join(" "),
                    c.registration.source_ip.as_deref().unwrap_or("-"),
                    authz::clock::rfc3339(c.created_at)
                );
            }
        }
        RegistrationCommand::Approve {
            realm,
            client_id,
            reason,
            grants,
        } => {
            let access: Vec<authz::clients::AccessChoice> = grants
                .iter()
                .map(|g| match g.split_once('=') {
                    Some((resource, scopes)) => authz::clients::AccessChoice {
                        resource: resource.to_owned(),
                        scopes: Some(scopes.to_owned()),
                    },
                    None => authz::clients::AccessChoice {
                        resource: g.clone(),
                        scopes: None,
                    },
                })
                .collect();
            core.approve_client_with_access(&p, &realm, &client_id, &reason, None, &access, &meta)
                .await
                .map_err(core_error)?;
            if access.is_empty() {
                say!("Approved {client_id}.");
            } else {
                say!(
                    "Approved {client_id}; it may get tokens for {}.",
                    access
                        .iter()
                        .map(|a| a.resource.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        RegistrationCommand::Reject {
            realm,
            client_id,
            reason,
        } => {
            core.reject_client(&p, &realm, &client_id, &reason, None, &meta)
                .await
                .map_err(core_error)?;
            say!("Rejected {client_id}.");
        }
        RegistrationCommand::Revoke {
            realm,
            client_id,
            reason,
        } => {
            core.revoke_client(&p, &realm, &client_id, &reason, None, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Revoked {client_id}: it gets no new tokens, its refresh tokens and codes stopped working, and servers that introspect see its access tokens as inactive for good. {}",
                revocation_note(core, &realm).await?
            );
        }
        RegistrationCommand::Restore {
            realm,
            client_id,
            reason,
        } => {
            core.restore_client(&p, &realm, &client_id, &reason, None, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Restored {client_id}: it may get tokens again; those it held when revoked stay dead."
            );
        }
    }
    Ok(())
}

async fn people(
    core: &authz::Core,
    command: PeopleCommand,
    password: Option<String>,
) -> anyhow::Result<()> {
    let p = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        PeopleCommand::Add {
            realm,
            email,
            name,
            roles,
            password: _,
        } => {
            let input = authz::people::PersonInput {
                email,
                display_name: name,
                roles,
            };
            let person = core
                .create_person(&p, &realm, &input, password.as_deref(), &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Added {} ({}) to realm {realm}{}.",
                person.email,
                person.id,
                if person.password_hash.is_some() {
                    ""
                } else {
                    "; set a password with `people set-password` before they can sign in"
                }
            );
        }
        PeopleCommand::List { realm, search } => {
            let page = core
                .list_people(
                    &p,
                    &realm,
                    search.as_deref(),
                    authz::storage::Page {
                        limit: 500,
                        offset: 0,
                    },
                )
                .await
                .map_err(core_error)?;
            for person in page.items {
                say!(
                    "{}\t{}\t{}\t{}\t{}",
                    person.id,
                    person.email,
                    person.display_name,
                    person.roles,
                    if person.disabled {
                        "disabled"
                    } else {
                        "enabled"
                    }
                );
            }
        }
        PeopleCommand::SetPassword { realm, id } => {
            core.set_person_password(&p, &realm, &id, &password.unwrap_or_default(), &meta)
                .await
                .map_err(core_error)?;
            say!("Password set.");
        }
        PeopleCommand::Disable { realm, id } => {
            core.set_person_disabled(&p, &realm, &id, true, &meta)
                .await
                .map_err(core_error)?;
            say!(
                "Disabled {id}: their sign-ins ended, their apps' refresh tokens were revoked, and servers that introspect see their access tokens as inactive. {}",
                revocation_note(core, &realm).await?
            );
        }
        PeopleCommand::Enable { realm, id } => {
            core.set_person_disabled(&p, &realm, &id, false, &meta)
                .await
                .map_err(core_error)?;
            say!("Enabled {id}.");
        }
    }
    Ok(())
}

/// What a revocation in `realm` cannot reach, in words (for every message that says one
/// happened).
async fn revocation_note(core: &authz::Core, realm: &str) -> anyhow::Result<String> {
    let horizon = core.local_token_horizon(realm).await.map_err(core_error)?;
    Ok(authz::tokens::local_verification_note(horizon))
}

fn read_password() -> anyhow::Result<String> {
    if std::io::stdin().is_terminal() {
        let first =
            rpassword::prompt_password("Password: ").context("Failed to read the password")?;
        let second = rpassword::prompt_password("Repeat password: ")
            .context("Failed to read the password")?;
        anyhow::ensure!(first == second, "The two passwords do not match.");
        Ok(first)
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .context("Failed to read the password from stdin")?;
        Ok(line.trim_end_matches(['\r', '\n']).to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::{StdoutClosed, closed_pipe};
    use std::io::{Error, ErrorKind};

    #[test]
    fn only_a_closed_stdout_counts_as_a_quiet_end() {
        let stdout = anyhow::Error::from(StdoutClosed(Error::from(ErrorKind::BrokenPipe)));
        assert!(closed_pipe(&stdout));
        assert!(closed_pipe(&stdout.context("listing agents")));
        // A database socket's broken pipe is a failure, however deep in the chain.
        let socket = anyhow::Error::from(Error::from(ErrorKind::BrokenPipe)).context("migrate");
        assert!(!closed_pipe(&socket));
        let full = anyhow::Error::from(StdoutClosed(Error::from(ErrorKind::StorageFull)));
        assert!(
            !closed_pipe(&full),
            "a full disk is not a reader going away"
        );
    }
}
