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
    /// What of the viewer's was rejected, newest first.
    pub rejections: Vec<RejectionView>,
    /// MCP servers submitted by developers that wait for an admin (the viewer's own, unless
    /// they manage resources).
    #[serde(default)]
    pub submissions_waiting: u64,
}

/// Something of the viewer's that was rejected: a resource they submitted, or a client naming
/// them among its contacts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RejectionView {
    /// `resource` or `client`.
    pub kind: String,
    /// The resource's id or the `client_id`.
    pub id: String,
    /// Its name.
    pub name: String,
    /// The reason given (empty when none was).
    pub reason: String,
    /// Who decided, when known.
    pub by: String,
    /// When.
    pub at: super::Moment,
    /// When it was registered or submitted.
    #[serde(default)]
    pub registered: super::Moment,
}
