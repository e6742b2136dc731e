//! The MCP gateway: one governed facade over a realm's approved MCP servers.
//!
//! Agents see exactly two tools, `search_capabilities` and `execute_capability`
//! ([`facade`]). What a caller may reach is decided by the core (`authz::gateway`: the latest
//! registry release, the caller's rings and units, the servers attached to its agent, the tool
//! definitions an administrator accepted); this crate speaks MCP on both sides: the facade is
//! an `rmcp` Streamable HTTP server, each upstream an `rmcp` client ([`upstream`]) holding a
//! token exchanged for the caller — never the caller's own. Arguments are checked against the
//! pinned input schema before anything is sent ([`validate`]); every call leaves one audit row
//! carrying the `_meta` ids the upstream received ([`context`]).
//!
//! The server mounts [`Gateway::service`] at `/realms/{realm}/mcp` behind its bearer check,
//! which puts the verified [`authz::gateway::GatewayCaller`] into each request's extensions.
pub mod breaker;
pub mod context;
pub mod facade;
pub mod limits;
pub mod names;
pub mod redact;
pub mod upstream;
pub mod validate;

use authz::Core;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use std::sync::Arc;
use std::time::Duration;

/// The facade's MCP endpoint.
pub type Service = StreamableHttpService<facade::Facade, LocalSessionManager>;

/// How the gateway behaves; the defaults suit a production deployment.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    /// Longest an upstream call may take (then: a timeout, counted by the breaker).
    pub call_timeout: Duration,
    /// Longest connecting to an upstream (initialize) may take.
    pub connect_timeout: Duration,
    /// How many times a `read` call is retried after an upstream failure (writes never are).
    pub read_retries: u32,
    /// Consecutive failures that open an upstream's breaker.
    pub breaker_failures: u32,
    /// How long an open breaker refuses calls before letting one through (half-open).
    pub breaker_open_for: Duration,
    /// Most upstream connections kept at once (one per caller and upstream); the least
    /// recently used is closed beyond it.
    pub max_connections: usize,
    /// How long a connection's tool list is trusted without a `list_changed` notice.
    pub tools_ttl: Duration,
    /// Largest `arguments` object accepted, as JSON.
    pub max_argument_bytes: usize,
    /// Largest upstream response accepted, as JSON.
    pub max_response_bytes: usize,
    /// Patterns (besides the built-in credential shapes) redacted in results.
    pub redact_patterns: Vec<String>,
    /// What one caller may spend a minute, counting each call's `cost_hint`.
    pub budget_per_minute: u64,
    /// How many calls one caller may make to one capability a minute.
    pub calls_per_tool_per_minute: u64,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        Self {
            call_timeout: Duration::from_secs(30),
            connect_timeout: Duration::from_secs(10),
            read_retries: 1,
            breaker_failures: 5,
            breaker_open_for: Duration::from_secs(30),
            max_connections: 1000,
            tools_ttl: Duration::from_secs(60),
            max_argument_bytes: 256 * 1024,
            max_response_bytes: 4 * 1024 * 1024,
            redact_patterns: Vec::new(),
            budget_per_minute: 600,
            calls_per_tool_per_minute: 120,
        }
    }
}

/// The gateway of every realm of one Portcullis process.
#[derive(Clone)]
pub struct Gateway {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) core: Core,
    /// Which caller opened each MCP session: a session is only ever used by its caller.
    sessions: std::sync::Mutex<Sessions>,
    /// The facade's open MCP sessions (closed when their caller opens too many).
    session_manager: Arc<LocalSessionManager>,
    pub(crate) config: GatewayConfig,
    pub(crate) upstreams: upstream::Upstreams,
    pub(crate) schemas: validate::Schemas,
    pub(crate) redactor: redact::Redactor,
    pub(crate) limits: limits::Limits,
}

impl Gateway {
    /// A gateway over `core`'s realms.
    ///
    /// # Errors
    /// When the TLS stack of its HTTP client cannot be set up, or a redaction pattern does
    /// not compile.
    pub fn new(core: Core, config: GatewayConfig) -> Result<Self, String> {
        Ok(Self {
            inner: Arc::new(Inner {
                redactor: redact::Redactor::new(&config.redact_patterns)?,
                limits: limits::Limits::default(),
                upstreams: upstream::Upstreams::new(&config, core.gateway_health())?,
                sessions: std::sync::Mutex::default(),
                session_manager: Arc::new(LocalSessionManager::default()),
                schemas: validate::Schemas::default(),
                core,
                config,
            }),
        })
    }

    /// The MCP endpoint (Streamable HTTP): mount it behind the bearer check that puts a
    /// [`authz::gateway::GatewayCaller`] into each request's extensions. Every request is
    /// authorized by its own token, so the `Host` allowlist (a defence for unauthenticated
    /// local servers) is off.
    pub fn service(&self) -> Service {
        let facade = facade::Facade::new(self.clone());
        StreamableHttpService::new(
            move || Ok(facade.clone()),
            self.inner.session_manager.clone(),
            StreamableHttpServerConfig::default()
                .disable_allowed_hosts()
                .with_max_request_body_bytes(self.inner.config.max_argument_bytes + 64 * 1024),
        )
    }

    /// Whether `caller` may use the MCP session a request names (`None`: a request that opens
    /// one, or a stateless one). A session is its opener's alone; one this process does not
    /// know (expired, or forgotten at the bound) is refused, and the client opens another.
    pub fn may_use_session(&self, session: Option<&str>, caller: &str) -> bool {
        let Some(session) = session else {
            return true;
        };
        let sessions = self
            .inner
            .sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        sessions
            .owners
            .get(session)
            .is_some_and(|owner| owner == caller)
    }

    /// Records that `caller` opened `session` (the `Mcp-Session-Id` of an initialize response).
    /// A caller keeps at most [`MAX_SESSIONS_PER_CALLER`] open: beyond, its oldest is closed
    /// (a client that lost track of its sessions cannot make the gateway hold thousands).
    pub async fn opened_session(&self, session: &str, caller: &str) {
        if session.len() > MAX_SESSION_ID {
            return;
        }
        let closed = {
            let mut sessions = self
                .inner
                .sessions
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            sessions.insert(session, caller)
        };
        for old in closed {
            use rmcp::transport::streamable_http_server::session::SessionManager as _;
            let _ = self.inner.session_manager.close_session(&old.into()).await;
        }
    }

    /// How many MCP sessions `caller` has open.
    pub fn open_sessions(&self, caller: &str) -> usize {
        self.inner
            .sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .by_caller
            .get(caller)
            .map_or(0, std::collections::VecDeque::len)
    }
}

/// Longest session id remembered.
const MAX_SESSION_ID: usize = 128;
/// Most sessions remembered; the oldest are forgotten beyond it (their callers open new ones).
const MAX_SESSIONS: usize = 100_000;
/// Most sessions one caller keeps open; its oldest is closed beyond it.
pub const MAX_SESSIONS_PER_CALLER: usize = 64;

#[derive(Default)]
struct Sessions {
    owners: std::collections::HashMap<String, String>,
    order: std::collections::VecDeque<String>,
    by_caller: std::collections::HashMap<String, std::collections::VecDeque<String>>,
}

impl Sessions {
    /// Remembers `session` as `caller`'s; the sessions forgotten to make room (to close).
    fn insert(&mut self, session: &str, caller: &str) -> Vec<String> {
        let mut gone = Vec::new();
        if self
            .owners
            .insert(session.to_owned(), caller.to_owned())
            .is_none()
        {
            self.order.push_back(session.to_owned());
            let mine = self.by_caller.entry(caller.to_owned()).or_default();
            mine.push_back(session.to_owned());
            while mine.len() > MAX_SESSIONS_PER_CALLER {
                if let Some(old) = mine.pop_front() {
                    // Out of the global order too: a caller cycling through sessions must
                    // not push others' out of it.
                    self.order.retain(|s| *s != old);
                    gone.push(old);
                }
            }
        }
        while self.order.len() > MAX_SESSIONS {
            if let Some(old) = self.order.pop_front() {
                gone.push(old);
            }
        }
        for old in &gone {
            if let Some(owner) = self.owners.remove(old)
                && let Some(theirs) = self.by_caller.get_mut(&owner)
            {
                theirs.retain(|s| s != old);
                if theirs.is_empty() {
                    self.by_caller.remove(&owner);
                }
            }
        }
        gone
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caller_keeps_at_most_its_share_of_sessions_and_others_keep_theirs() {
        let mut s = Sessions::default();
        assert!(s.insert("other-1", "bob").is_empty());
        for i in 0..MAX_SESSIONS_PER_CALLER {
            assert!(s.insert(&format!("s{i}"), "ann").is_empty());
        }
        // One more: ann's oldest goes, bob's stays.
        assert_eq!(s.insert("s-new", "ann"), vec!["s0".to_owned()]);
        assert!(!s.owners.contains_key("s0"));
        assert_eq!(s.owners.get("other-1").map(String::as_str), Some("bob"));
        assert_eq!(s.by_caller["ann"].len(), MAX_SESSIONS_PER_CALLER);
        // The same id again changes nothing.
        assert!(s.insert("s-new", "ann").is_empty());
        // However many sessions ann cycles through, the global order holds only live ones.
        for i in 0..1000 {
            s.insert(&format!("more-{i}"), "ann");
        }
        assert_eq!(s.order.len(), MAX_SESSIONS_PER_CALLER + 1);
        assert!(s.order.contains(&"other-1".to_owned()));
    }
}
