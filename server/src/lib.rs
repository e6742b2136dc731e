//! The `portcullis` server: configuration, CLI, HTTP endpoints, sessions and the console host.
//!
//! Handlers are thin: extract → parse → one [`authz::Core`] call → render. [`router`] builds the
//! whole application for a given [`AppState`]; tests drive it in process.
#![forbid(unsafe_code)]
#![recursion_limit = "256"]

pub mod auth;
pub mod cli;
pub mod client_ip;
pub mod config;
pub mod demo;
pub mod export;
pub mod fetch;
pub mod gateway;
pub mod go;
pub mod http;
pub mod mail;
pub mod oauth;
pub mod ops;
pub mod registry;
pub mod render;
pub mod session;

use anyhow::Context as _;
use authz::storage::Database;
use authz::{Core, CoreConfig};
use axum::Router;
use axum::extract::FromRef;
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{get, post};
use config::Config;
use leptos::prelude::*;
use leptos_axum::{LeptosRoutes, generate_route_list};
use metrics_exporter_prometheus::PrometheusHandle;
use std::sync::Arc;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::set_header::SetResponseHeaderLayer;

/// What handlers share.
pub struct Shared {
    /// The authorization core.
    pub core: Core,
    /// The database pool (for readiness and pool metrics).
    pub db: Database,
    /// The configuration.
    pub config: Arc<Config>,
    /// Scheme, host and port of the public URL (for the CSRF origin check).
    pub public_origin: Arc<str>,
    /// Leptos site options.
    pub leptos: LeptosOptions,
    /// Prometheus recorder handle.
    pub metrics: PrometheusHandle,
    /// Session store.
    pub sessions: session::AnyStore,
    /// How to find a request's client address.
    pub client_ip: Arc<client_ip::ClientIpRule>,
    /// The MCP gateway of every realm.
    pub gateway: portcullis_gateway::Gateway,
    /// Its MCP endpoint (shared by every realm; each request carries its verified caller).
    pub gateway_service: portcullis_gateway::Service,
}

/// Everything handlers share: one `Arc`, so extracting it per request is one atomic increment.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(s: &AppState) -> Self {
        s.leptos.clone()
    }
}

impl AppState {
    /// Connects to the database, applies migrations, prepares sessions and creates the default
    /// realm if missing.
    ///
    /// # Errors
    /// When the database is unreachable or a migration fails.
    pub async fn init(config: Config) -> anyhow::Result<Self> {
        Self::init_with_clock(config, Arc::new(authz::clock::SystemClock)).await
    }

    /// [`AppState::init`] on a given clock (tests move time to expire sessions and throttles).
    ///
    /// # Errors
    /// As [`AppState::init`].
    pub async fn init_with_clock(
        config: Config,
        clock: Arc<dyn authz::clock::Clock>,
    ) -> anyhow::Result<Self> {
        let client_ip = Arc::new(config.client_ip_rule()?);
        if client_ip.trusts_everyone() {
            tracing::warn!(
                "http.trusted_proxies covers every address: any client can name its own address in the forwarding header and throttle others; list only your proxies"
            );
        }
        let db = connect(&config).await?;
        if config.database.migrate_on_start {
            prepare_schema(&db).await?;
        } else {
            db.check_migrations()
                .await
                .context("The database schema is not current")?;
        }
        let core = Core::with_clock(
            db.store(),
            CoreConfig {
                public_url: config.public_url(),
                master_key: config.master_key()?,
                allow_http_loopback: config.dev.allow_http_loopback_resources
                    || config.serves_on_loopback_http(),
                allow_loopback_fetch: config.dev.allow_loopback_client_urls,
                registry_import_base: config.registry.import_base.clone(),
                gateway_approval_ttl_secs: config.gateway.approval_ttl_secs(),
                ..CoreConfig::default()
            },
            clock,
        )
        .with_fetcher(Arc::new(
            fetch::HttpFetcher::new(config.dev.allow_loopback_client_urls)
                .context("Failed to set up the HTTPS client")?,
        ));
        let core = match config
            .mail
            .mailer()
            .map_err(|e| anyhow::anyhow!("mail: {e}"))?
        {
            Some(mailer) => core.with_mailer(Arc::new(mailer)),
            None => core,
        };
        if core
            .check_master_key()
            .await
            .context("Failed to check the master key")?
            == authz::keys::MasterKeyCheck::Mismatch
        {
            anyhow::bail!("{}", config.master_key_mismatch());
        }
        core.ensure_default_realm()
            .await
            .context("Failed to create the default realm")?;
        core.ensure_first_party_clients()
            .await
            .context("Failed to create the realms' Portcullis CLI clients")?;
        let sessions = session::AnyStore::new(&db);
        let public_origin = url::Url::parse(&config.public_url)
            .context("Invalid public_url")?
            .origin()
            .ascii_serialization();
        let leptos = LeptosOptions::builder()
            .output_name("app")
            .site_root(config.console.site_dir.display().to_string())
            .site_pkg_dir("pkg")
            .site_addr(config.http.bind)
            .build();
        let gateway = portcullis_gateway::Gateway::new(core.clone(), config.gateway.settings())
            .map_err(|e| anyhow::anyhow!("Failed to set up the MCP gateway: {e}"))?;
        let gateway_service = gateway.service();
        Ok(Self(Arc::new(Shared {
            gateway,
            gateway_service,
            core,
            db,
            config: Arc::new(config),
            public_origin: public_origin.into(),
            leptos,
            metrics: ops::metrics_handle(),
            sessions,
            client_ip,
        })))
    }
}

/// Applies the migrations and creates the session table: the only schema changes the server
/// makes (`portcullis migrate`, and `serve` unless `database.migrate_on_start = false`).
///
/// # Errors
/// When a migration fails or the role may not change the schema.
pub async fn prepare_schema(db: &Database) -> anyhow::Result<()> {
    db.migrate()
        .await
        .context("Failed to apply database migrations")?;
    session::AnyStore::new(db)
        .migrate()
        .await
        .context("Failed to prepare the session store")
}

/// Connects to the configured database, creating the data directory for SQLite.
///
/// # Errors
/// When the directory cannot be created or the database is unreachable.
pub async fn connect(config: &Config) -> anyhow::Result<Database> {
    let url = config.database_url();
    if config.database.url.is_none() {
        std::fs::create_dir_all(&config.data_dir).with_context(|| {
            format!(
                "Failed to create data directory {}",
                config.data_dir.display()
            )
        })?;
    }
    Database::connect(&url, config.database.max_connections)
        .await
        .with_context(|| format!("Failed to connect to {}", config::redact_url(&url)))
}

/// The whole HTTP application.
pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(app::App);
    let core = state.core.clone();
    let fallback_core = state.core.clone();
    let leptos = state.leptos.clone();
    let session_layer = session::layer(
        state.sessions.clone(),
        state.config.is_https(),
        state.config.session.idle_timeout_secs,
    );
    let header = |name: &'static str, value: &'static str| {
        SetResponseHeaderLayer::if_not_present(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        )
    };
    // Console routes carry sessions, CSRF protection and the sign-in guard; protocol and
    // operability endpoints are not cookie-authenticated and skip that stack.
    // Pages render within a deadline (`render`); the routes above them are not pages.
    let pages = Router::new()
        .leptos_routes_with_context(
            &state,
            routes,
            move || provide_context(core.clone()),
            move || app::shell(leptos.clone()),
        )
        // Unknown addresses render the console's "not found" page inside its layout, which
        // needs the same context as the routes.
        .fallback(leptos_axum::file_and_error_handler_with_context::<
            AppState,
            _,
        >(
            move || provide_context(fallback_core.clone()), app::shell
        ))
        .layer(from_fn(render::deadline));
    let console = Router::new()
        .route("/login", post(auth::login))
        .route("/login/second-factor", post(auth::second_factor))
        .route(
            "/login/second-factor/cancel",
            post(auth::cancel_second_factor),
        )
        .route("/logout", post(auth::logout))
        .route("/login/sso/{id}", get(auth::sso_start))
        .route("/login/sso/{id}/callback", get(auth::sso_callback))
        .route("/admin/audit/export", get(export::export_audit))
        .route(
            "/go/{realm}/{kind}/{*id}",
            get(go::open_link).post(go::confirm),
        )
        .merge(pages)
        .layer(from_fn(http::require_sign_in))
        .layer(from_fn(http::no_store_pages))
        .layer(from_fn_with_state(state.clone(), http::csrf))
        .layer(from_fn_with_state(state.clone(), session::resolve))
        .layer(session_layer);
    let mut operability = Router::new()
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz));
    if state.config.metrics.bind.is_none() {
        operability = operability.route("/metrics", get(ops::metrics));
    }
    operability
        .merge(oauth::routes())
        .merge(registry::routes())
        .merge(gateway::routes())
        .merge(console)
        .layer(RequestBodyLimitLayer::new(state.config.http.max_body_bytes))
        .layer(header("content-security-policy", http::CSP))
        .layer(header("x-content-type-options", "nosniff"))
        .layer(header("x-frame-options", "DENY"))
        .layer(header("referrer-policy", "no-referrer"))
        .layer(from_fn(http::observe))
        .layer(from_fn_with_state(
            state.client_ip.clone(),
            client_ip::layer,
        ))
        .layer(from_fn(http::request_id))
        .with_state(state)
}

/// Runs the server until SIGTERM or Ctrl-C, then drains connections and closes the pool.
///
/// # Errors
/// When start-up fails or the listener cannot bind.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    config.check_site_dir()?;
    let state = AppState::init(config).await?;
    if let Some(banner) = setup_banner(&state.core, &state.config.data_dir).await?
        && let Err(e) = cli::write_out(format_args!("{banner}\n"))
    {
        // The link is also in `{data_dir}/setup-link`; serving goes on.
        tracing::warn!(error = %e, "could not print the setup banner; the link is in the setup-link file");
    }
    tokio::spawn(
        state
            .sessions
            .clone()
            .delete_expired_periodically(std::time::Duration::from_secs(600)),
    );
    tokio::spawn(housekeeping(state.core.clone()));
    tokio::spawn(token_use_upkeep(state.core.clone()));
    tokio::spawn(ops::metrics_upkeep(state.metrics.clone()));
    let addr = state.config.http.bind;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("Failed to listen on {addr}"))?;
    tracing::info!(
        "Portcullis console at {} (listening on {addr})",
        state.config.public_url()
    );
    if let Some(addr) = state.config.metrics.bind {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("Failed to listen on {addr} (metrics.bind)"))?;
        tracing::info!("Metrics at http://{addr}/metrics");
        let metrics = Router::new()
            .route("/metrics", get(ops::metrics))
            .with_state(state.clone());
        tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, metrics).await {
                tracing::error!(error = %e, "The metrics listener failed");
            }
        });
    }
    let (db, core) = (state.db.clone(), state.core.clone());
    let served = axum::serve(
        listener,
        router(state).into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown_signal())
    .await;
    // Rows handed to the audit writer get written however serving ended.
    if !core.drain_audit(std::time::Duration::from_secs(10)).await {
        tracing::error!("Audit rows still waiting to be written after 10 s: not recorded");
    }
    served.context("HTTP server failed")?;
    if let Err(e) = core.flush_token_use().await {
        tracing::error!(error = %e, "Could not write when grants were last used");
    }
    db.close().await;
    tracing::info!("Shut down cleanly");
    Ok(())
}

/// When no console user exists, issues a first-admin setup link and returns its banner.
///
/// The link is also written to `{data_dir}/setup-link` (mode 0600); `serve` prints the banner
/// on standard output.
///
/// The link never goes through the log: log lines are shipped and kept, and whoever holds the
/// link becomes the first admin. The log only says where to look.
///
/// # Errors
/// When the link cannot be stored or written.
pub async fn setup_banner(
    core: &Core,
    data_dir: &std::path::Path,
) -> anyhow::Result<Option<String>> {
    let Some(token) = core
        .issue_setup_link()
        .await
        .context("Failed to issue the setup link")?
    else {
        return Ok(None);
    };
    let url = core.setup_url(&token);
    let file = data_dir.join("setup-link");
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("Failed to create {}", data_dir.display()))?;
    config::write_private_replacing(&file, &format!("{url}\n"))
        .with_context(|| format!("Failed to write {}", file.display()))?;
    tracing::warn!(
        path = %file.display(),
        "No console user exists yet; the one-time setup link is printed on standard output and written to this file"
    );
    let rule = "=".repeat(72);
    Ok(Some(format!(
        "\n{rule}\n No console user exists yet. Open this one-time link to create the first\n admin (valid 24 hours; it works once; also in {}):\n\n   {url}\n{rule}\n",
        file.display()
    )))
}

/// Forgets expired revocations and assertion `jti`s every few minutes, forever.
async fn housekeeping(core: Core) {
    let mut every = tokio::time::interval(std::time::Duration::from_secs(
        authz::housekeeping::PURGE_INTERVAL_SECS,
    ));
    loop {
        every.tick().await;
        match core.purge_expired().await {
            Ok(p) => tracing::debug!(
                revoked_tokens = p.revoked_tokens,
                assertion_jtis = p.assertion_jtis,
                flows = p.flows,
                clients_expired = p.clients_expired,
                "Purged expired rows"
            ),
            Err(e) => tracing::error!(error = %e, "Housekeeping failed"),
        }
    }
}

/// Writes when grants were last used every few seconds, forever (and `serve` once more at
/// shutdown).
async fn token_use_upkeep(core: Core) {
    let mut every = tokio::time::interval(std::time::Duration::from_secs(
        authz::housekeeping::TOKEN_USE_FLUSH_SECS,
    ));
    loop {
        every.tick().await;
        if let Err(e) = core.flush_token_use().await {
            tracing::error!(error = %e, "Could not write when grants were last used");
        }
    }
}

/// Waits for Ctrl-C or SIGTERM.
pub(crate) async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "Cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("Shutdown signal received; draining connections");
}

/// Installs the `tracing` subscriber (text or JSON).
pub fn init_tracing(log: &config::LogConfig) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(&log.filter));
    // PostgreSQL's notices ("relation … already exists, skipping" on every migration check)
    // are not news; a filter that names sqlx itself decides otherwise.
    let filter = if log.filter.contains("sqlx") {
        filter
    } else {
        filter.add_directive(
            "sqlx::postgres::notice=warn"
                .parse()
                .expect("a valid directive"),
        )
    };
    use std::io::IsTerminal as _;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = match log.format {
        config::LogFormat::Json => builder.json().try_init(),
        config::LogFormat::Text => builder.try_init(),
    };
}
