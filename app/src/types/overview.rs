//! A realm at a glance (`api::overview`, `pages::overview`).
use serde::{Deserialize, Serialize};

/// The Overview: endpoints (label, URL) and counts (`None` where the role may not see the list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverviewView {
    /// Endpoints of the realm's authorization server.
    pub endpoints: Vec<(String, String)>,
    /// Resources.
    pub resources: Option<u64>,
    /// Clients.
    pub clients: Option<u64>,
    /// Agents.
    pub agents: Option<u64>,
    /// MCP-capable agents.
    pub mcp_agents: Option<u64>,
    /// Access grants.
    pub grants: Option<u64>,
    /// Grants that produced a token.
    pub grants_used: Option<u64>,
}
