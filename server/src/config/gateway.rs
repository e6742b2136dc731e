//! The `[gateway]` section: how the MCP gateway times out, trips, waits and limits.
use serde::{Deserialize, Serialize};

/// The MCP gateway (`/realms/{realm}/mcp`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GatewayConfig {
    /// Longest an upstream call may take, in seconds.
    pub call_timeout_secs: u64,
    /// Consecutive failures that open an upstream's circuit breaker.
    pub breaker_failures: u32,
    /// How long an open breaker refuses calls before letting one through, in seconds.
    pub breaker_open_secs: u64,
    /// How long a call that can change things waits for a person's approval (then denied),
    /// and how long an approved call may then be run, in seconds.
    pub approval_timeout_secs: u64,
    /// Regular expressions redacted in upstream results, besides the built-in credential
    /// shapes (JWTs, bearer values, private keys, cloud and chat API keys).
    pub redact_patterns: Vec<String>,
    /// What one caller may spend a minute (each call costs its tool's `cost_hint`, at least 1).
    pub budget_per_minute: u64,
    /// Calls one caller may make to one tool a minute.
    pub calls_per_tool_per_minute: u64,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        let d = portcullis_gateway::GatewayConfig::default();
        Self {
            call_timeout_secs: d.call_timeout.as_secs(),
            breaker_failures: d.breaker_failures,
            breaker_open_secs: d.breaker_open_for.as_secs(),
            approval_timeout_secs: authz::gateway::APPROVAL_TTL_SECS.unsigned_abs(),
            redact_patterns: Vec::new(),
            budget_per_minute: d.budget_per_minute,
            calls_per_tool_per_minute: d.calls_per_tool_per_minute,
        }
    }
}

impl GatewayConfig {
    /// How long a write waits for a person, in seconds (1 s to 7 days).
    pub fn approval_ttl_secs(&self) -> i64 {
        i64::try_from(self.approval_timeout_secs.clamp(1, 7 * 24 * 3600)).unwrap_or(900)
    }

    /// The gateway's settings.
    pub fn settings(&self) -> portcullis_gateway::GatewayConfig {
        portcullis_gateway::GatewayConfig {
            call_timeout: std::time::Duration::from_secs(self.call_timeout_secs.clamp(1, 600)),
            breaker_failures: self.breaker_failures.max(1),
            breaker_open_for: std::time::Duration::from_secs(self.breaker_open_secs.clamp(1, 3600)),
            redact_patterns: self.redact_patterns.clone(),
            budget_per_minute: self.budget_per_minute.max(1),
            calls_per_tool_per_minute: self.calls_per_tool_per_minute.max(1),
            ..portcullis_gateway::GatewayConfig::default()
        }
    }
}
