//! Upstream MCP servers and their breakers.
//!
//! One `rmcp` Streamable HTTP client per caller and upstream, connected
//! lazily with the token exchanged for that caller (MCP 2026-07-28 when the server speaks it,
//! else the version it offers over `initialize`), its tool list cached until the server says
//! it changed (`notifications/tools/list_changed`: on the session, or on a
//! `subscriptions/listen` stream for 2026-07-28 servers, which have no session); a circuit
//! breaker and call statistics per upstream URL.
use crate::GatewayConfig;
use crate::breaker::{Availability, Breaker};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, PaginatedRequestParams, ProtocolVersion,
    ServerNotification, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _, Peer, RoleClient};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Why an upstream could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamError {
    /// Its breaker is open.
    CircuitOpen,
    /// It did not answer in time.
    Timeout,
    /// No token could be had for it (the exchange's refusal, for the caller).
    NoToken(String),
    /// The calling person has not connected their own account at it (`auth.mode = oauth`):
    /// where they connect.
    NotConnected(String),
    /// It refused the caller's token (401 or 403): the caller's problem, not the server's.
    TokenRefused,
    /// Connecting or the call failed.
    Failed(String),
}

impl UpstreamError {
    /// The short kind the audit row and the caller see.
    pub fn kind(&self) -> &'static str {
        match self {
            UpstreamError::CircuitOpen => "circuit_open",
            UpstreamError::Timeout => "timeout",
            UpstreamError::NoToken(_) => "no_token",
            UpstreamError::NotConnected(_) => "not_connected",
            UpstreamError::TokenRefused => "token_refused",
            UpstreamError::Failed(_) => "upstream_error",
        }
    }

    /// What the caller is told (never the upstream's URL or credentials).
    pub fn message(&self) -> String {
        match self {
            UpstreamError::CircuitOpen => {
                "The server failed repeatedly; the gateway stopped calling it for a while. Try again later.".into()
            }
            UpstreamError::Timeout => "The server did not answer in time.".into(),
            UpstreamError::NoToken(why) => format!("No token could be had for this server: {why}"),
            UpstreamError::TokenRefused => {
                "The server refused the credential it was sent for you. Try again; if this keeps happening, connect your account again or tell your administrator.".into()
            }
            UpstreamError::NotConnected(url) => format!(
                "Connect your own account at this server first: open {url} in a browser (signed in as yourself), then call again."
            ),
            UpstreamError::Failed(_) => "The server could not be reached or failed.".into(),
        }
    }
}

/// A failed connection or call: a refused token (401 or 403, which rmcp names "Auth required"
/// and "Insufficient scope" anywhere in the error's chain) is the caller's, anything else the
/// server's.
fn failure(e: &(dyn std::error::Error + 'static)) -> UpstreamError {
    let mut next = Some(e);
    while let Some(err) = next {
        let text = err.to_string();
        if text.contains("Auth required") || text.contains("Insufficient scope") {
            return UpstreamError::TokenRefused;
        }
        next = err.source();
    }
    UpstreamError::Failed(e.to_string())
}

/// Marks a connection's tool list stale when the server says it changed.
#[derive(Clone)]
pub struct Listener {
    stale: Arc<AtomicBool>,
}

impl ClientHandler for Listener {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.stale.store(true, Ordering::Relaxed);
    }
}

/// One caller's connection to one upstream.
pub struct Conn {
    client: RunningService<RoleClient, Listener>,
    /// When its token expires (Unix seconds; `i64::MAX` without one).
    expires_at: i64,
    stale: Arc<AtomicBool>,
    /// The tools listed, and when.
    tools: tokio::sync::Mutex<Option<(Vec<serde_json::Value>, Instant)>>,
    last_used: Mutex<Instant>,
    opened: Instant,
    /// The `subscriptions/listen` stream of a 2026-07-28 server, ended with the connection.
    _listening: Option<Listening>,
}

/// A listening task, stopped when dropped.
struct Listening(tokio::task::AbortHandle);

impl Drop for Listening {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Listens for a 2026-07-28 server's tool list changes (it has no session to send them on)
/// and marks the connection's list stale at each; ends when the stream or connection does.
/// A server that refuses to be listened to is re-listed when the cache ages out instead.
fn listen_for_changes(peer: Peer<RoleClient>, stale: Arc<AtomicBool>) -> Listening {
    let task = tokio::spawn(async move {
        let Ok(mut subscription) = peer
            .listen(SubscriptionFilter::builder().tools_list_changed().build())
            .await
        else {
            return;
        };
        while let Ok(Some(notification)) = subscription.next().await {
            if matches!(
                notification,
                ServerNotification::ToolListChangedNotification(_)
            ) {
                stale.store(true, Ordering::Relaxed);
            }
        }
    });
    Listening(task.abort_handle())
}

/// Most pages of a tool list read, and most tools kept.
const MAX_LIST_PAGES: usize = 10;
const MAX_LISTED_TOOLS: usize = 500;
/// How long a connection is kept at most, whatever its token (a server without one included).
const MAX_CONNECTION_AGE: Duration = Duration::from_secs(600);

/// One upstream's state for health reports.
#[derive(Debug, Clone, Default)]
struct Stats {
    breaker: Breaker,
    calls: u64,
    errors: u64,
    last_latency_ms: u64,
    last_error: Option<String>,
    last_call: Option<i64>,
}

/// Every upstream connection of the process.
pub struct Upstreams {
    http: reqwest::Client,
    board: Arc<authz::gateway::HealthBoard>,
    conns: Mutex<HashMap<(String, String), Arc<Conn>>>,
    stats: Mutex<HashMap<String, Stats>>,
    config: GatewayConfig,
}

/// A token gets a new connection this long before it expires.
const TOKEN_MARGIN_SECS: i64 = 30;

impl Upstreams {
    pub(crate) fn new(
        config: &GatewayConfig,
        board: Arc<authz::gateway::HealthBoard>,
    ) -> Result<Self, String> {
        // rustls on AWS-LC, with Mozilla's roots compiled in; a redirect could carry the
        // token elsewhere, so none is followed.
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let http = reqwest::Client::builder()
            .tls_backend_preconfigured(tls)
            .user_agent(concat!("Portcullis-gateway/", env!("CARGO_PKG_VERSION")))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self {
            http,
            board,
            conns: Mutex::new(HashMap::new()),
            stats: Mutex::new(HashMap::new()),
            config: config.clone(),
        })
    }

    /// Whether a call to `url` may go now (its breaker), and its availability.
    pub fn admit(&self, url: &str) -> bool {
        let mut stats = self.stats.lock().unwrap_or_else(PoisonError::into_inner);
        stats
            .entry(url.to_owned())
            .or_default()
            .breaker
            .admit(Instant::now(), self.config.breaker_open_for)
    }

    /// The availability of `url` as its breaker stands.
    pub fn availability(&self, url: &str) -> Availability {
        let stats = self.stats.lock().unwrap_or_else(PoisonError::into_inner);
        stats
            .get(url)
            .map_or(Availability::Up, |s| s.breaker.availability())
    }

    /// Records one call's outcome for `url` at `now` (Unix seconds), on the health board too.
    pub fn record(
        &self,
        url: &str,
        result: Result<(), &UpstreamError>,
        latency: Duration,
        now: i64,
    ) {
        let mut stats = self.stats.lock().unwrap_or_else(PoisonError::into_inner);
        let s = stats.entry(url.to_owned()).or_default();
        // A person who has not connected their account made no call: nothing was sent.
        if matches!(result, Err(UpstreamError::NotConnected(_))) {
            s.breaker.release();
            return;
        }
        s.calls += 1;
        s.last_latency_ms = u64::try_from(latency.as_millis()).unwrap_or(u64::MAX);
        s.last_call = Some(now);
        match result {
            Ok(()) => s
                .breaker
                .record(true, Instant::now(), self.config.breaker_failures),
            // A refused token says nothing about the upstream's health (its breaker), but the
            // console shows it: the server is unusable for that caller.
            Err(e @ (UpstreamError::NoToken(_) | UpstreamError::TokenRefused)) => {
                s.breaker.release();
                s.errors += 1;
                s.last_error = Some(e.kind().to_owned());
            }
            Err(e) => {
                s.errors += 1;
                s.last_error = Some(e.kind().to_owned());
                s.breaker
                    .record(false, Instant::now(), self.config.breaker_failures);
            }
        }
        self.board.set(
            url,
            authz::gateway::UpstreamStatus {
                availability: s.breaker.availability().as_str().to_owned(),
                calls: s.calls,
                errors: s.errors,
                last_latency_ms: s.last_latency_ms,
                last_error: s.last_error.clone(),
                last_call_at: s.last_call,
            },
        );
    }

    /// The caller's live connection to `url`, connecting (with a token from `token`, when it
    /// gives one) if there is none or its token is about to expire.
    ///
    /// # Errors
    /// The token's refusal, a timeout, or the connection's failure.
    pub async fn connection<F, Fut>(
        &self,
        caller: &str,
        url: &str,
        now: i64,
        token: F,
    ) -> Result<Arc<Conn>, UpstreamError>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Option<(String, i64)>, UpstreamError>>,
    {
        let key = (caller.to_owned(), url.to_owned());
        let existing = {
            let conns = self.conns.lock().unwrap_or_else(PoisonError::into_inner);
            conns.get(&key).cloned()
        };
        if let Some(c) = existing
            && c.expires_at - TOKEN_MARGIN_SECS > now
            && c.opened.elapsed() < MAX_CONNECTION_AGE
            && !c.client.is_closed()
        {
            *c.last_used.lock().unwrap_or_else(PoisonError::into_inner) = Instant::now();
            return Ok(c);
        }
        let token = token().await?;
        let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned())
            .max_json_response_size(self.config.max_response_bytes)
            .max_sse_event_size(self.config.max_response_bytes);
        let expires_at = match token {
            Some((t, exp)) => {
                config = config.auth_header(t);
                exp
            }
            None => i64::MAX,
        };
        let stale = Arc::new(AtomicBool::new(false));
        let listener = Listener {
            stale: stale.clone(),
        };
        let transport = StreamableHttpClientTransport::with_client(self.http.clone(), config);
        // 2026-07-28 first (`server/discover`), the server's own older version otherwise.
        let lifecycle = ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: None,
        };
        let client = tokio::time::timeout(
            self.config.connect_timeout,
            listener.serve_with_lifecycle(transport, lifecycle),
        )
        .await
        .map_err(|_| UpstreamError::Timeout)?
        .map_err(|e| failure(&e))?;
        let listening = client
            .peer_info()
            .filter(|info| {
                info.protocol_version.as_str() >= ProtocolVersion::V_2026_07_28.as_str()
                    && info
                        .capabilities
                        .tools
                        .as_ref()
                        .is_some_and(|t| t.list_changed == Some(true))
            })
            .map(|_| listen_for_changes(client.peer().clone(), stale.clone()));
        let conn = Arc::new(Conn {
            client,
            expires_at,
            stale,
            tools: tokio::sync::Mutex::new(None),
            last_used: Mutex::new(Instant::now()),
            opened: Instant::now(),
            _listening: listening,
        });
        let evicted = {
            let mut conns = self.conns.lock().unwrap_or_else(PoisonError::into_inner);
            let mut evicted = conns.insert(key, conn.clone());
            if conns.len() > self.config.max_connections.max(1) {
                let oldest = conns
                    .iter()
                    .min_by_key(|(_, c)| {
                        *c.last_used.lock().unwrap_or_else(PoisonError::into_inner)
                    })
                    .map(|(k, _)| k.clone());
                if let Some(k) = oldest {
                    evicted = conns.remove(&k);
                }
            }
            evicted
        };
        if let Some(old) = evicted
            && let Ok(old) = Arc::try_unwrap(old)
        {
            // Closed in the background: the caller does not wait for the old session's end.
            tokio::spawn(async move {
                let _ = old.client.cancel().await;
            });
        }
        Ok(conn)
    }

    /// Forgets a caller's connection (after it failed), so the next call connects anew.
    pub fn drop_connection(&self, caller: &str, url: &str) {
        let mut conns = self.conns.lock().unwrap_or_else(PoisonError::into_inner);
        conns.remove(&(caller.to_owned(), url.to_owned()));
    }

    /// The tools `conn`'s server lists (each Tool object whole): from its cache unless the
    /// server said they changed or the cache is older than `tools_ttl`; at most
    /// [`MAX_LIST_PAGES`] pages and [`MAX_LISTED_TOOLS`] tools are read.
    ///
    /// # Errors
    /// A timeout or the call's failure.
    pub async fn tools(&self, conn: &Conn) -> Result<Vec<serde_json::Value>, UpstreamError> {
        let mut cached = conn.tools.lock().await;
        if let Some((tools, at)) = cached.as_ref()
            && at.elapsed() < self.config.tools_ttl
            && !conn.stale.swap(false, Ordering::Relaxed)
        {
            return Ok(tools.clone());
        }
        let listing = async {
            let mut tools = Vec::new();
            let mut cursor = None;
            for _ in 0..MAX_LIST_PAGES {
                let page = conn
                    .client
                    .list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor)))
                    .await
                    .map_err(|e| failure(&e))?;
                tools.extend(
                    page.tools
                        .iter()
                        .filter_map(|t| serde_json::to_value(t).ok()),
                );
                cursor = page.next_cursor;
                if cursor.is_none() || tools.len() >= MAX_LISTED_TOOLS {
                    break;
                }
            }
            tools.truncate(MAX_LISTED_TOOLS);
            Ok(tools)
        };
        let tools = tokio::time::timeout(self.config.call_timeout, listing)
            .await
            .map_err(|_| UpstreamError::Timeout)??;
        *cached = Some((tools.clone(), Instant::now()));
        Ok(tools)
    }

    /// Calls a tool.
    ///
    /// # Errors
    /// A timeout or the call's failure (a tool's own error is a result, not an error).
    pub async fn call(
        &self,
        conn: &Conn,
        params: CallToolRequestParams,
    ) -> Result<CallToolResult, UpstreamError> {
        tokio::time::timeout(self.config.call_timeout, conn.client.call_tool(params))
            .await
            .map_err(|_| UpstreamError::Timeout)?
            .map_err(|e| failure(&e))
    }
}
