//! Agents (`api::agents`, `pages::agents`).
use serde::{Deserialize, Serialize};

/// An agent as shown in the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentView {
    /// Name.
    pub name: String,
    /// Owner's email.
    pub owner: String,
    /// Description.
    pub description: String,
    /// Roles.
    pub roles: String,
    /// Expiry (RFC 3339), empty for none.
    pub expires_at: String,
    /// The expiry relative to now, in words ("in 3 days"), empty for none.
    pub expires: String,
    /// The expiry as the form's input shows it (`YYYY-MM-DDTHH:MM`, UTC), empty for none.
    pub expires_input: String,
    /// `active`, `disabled` or `expired`.
    pub status: String,
    /// Holds `mcp` or an `mcp:*` role.
    pub mcp_capable: bool,
    /// `client_id`s bound to it.
    pub clients: Vec<String>,
}

/// One page of agents.
pub type AgentPage = super::KeyedPage<AgentView>;
