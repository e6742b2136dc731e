//! "Protect your MCP server", "Check an MCP server" and the MCP overview (`api::integration`, `pages::integration`).
use serde::{Deserialize, Serialize};

/// One copyable block of "Protect your MCP server".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactView {
    /// Stable id (`metadata`, `challenge`, …).
    pub id: String,
    /// Heading.
    pub title: String,
    /// What it is and where it goes.
    pub explanation: String,
    /// The specification it follows.
    pub reference_label: String,
    /// Its link.
    pub reference_url: String,
    /// `json`, `http`, `shell`, `typescript`, `python`, `text`.
    pub language: String,
    /// The text to copy.
    pub text: String,
}

/// Everything generated for one MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtectionView {
    /// The server URL in canonical form (the tokens' `aud`).
    pub resource: String,
    /// The name typed.
    pub name: String,
    /// What canonicalisation changed, in words.
    pub changes: Vec<String>,
    /// The scopes the challenges offer.
    pub scopes: Vec<String>,
    /// Notes on typed scopes.
    pub scope_notes: Vec<String>,
    /// Offered scopes no resource of the realm accepts yet.
    pub new_scopes: Vec<String>,
    /// The blocks, in reading order.
    pub artifacts: Vec<ArtifactView>,
    /// The realm's resource with this URL, when there is one.
    pub registered: Option<RegisteredView>,
    /// When the realm has self-registered clients wait for review: how many wait now, and
    /// whether the viewer reviews them.
    pub client_review: Option<(u64, bool)>,
}

/// A resource registered (or submitted) from "Protect your MCP server".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisteredView {
    /// Its id.
    pub slug: String,
    /// Its name.
    pub display_name: String,
    /// Whether tokens are issued for it.
    pub enabled: bool,
    /// Who submitted it, until an admin decides.
    pub submitted_by: Option<String>,
    /// Why an admin rejected the submission.
    pub rejection: Option<String>,
}

/// One step of "Check an MCP server".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckStepView {
    /// Stable id.
    pub id: String,
    /// Heading.
    pub title: String,
    /// `pass`, `warn`, `fail` or `skipped`.
    pub verdict: String,
    /// Why.
    pub reason: String,
    /// (request, response) texts.
    pub exchanges: Vec<(String, String)>,
}

/// "Check an MCP server": every step and the overall result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpCheckView {
    /// The URL checked (canonical).
    pub url: String,
    /// Whether no step failed.
    pub passed: bool,
    /// The steps.
    pub steps: Vec<CheckStepView>,
}

/// Integration → MCP authorization: the realm's MCP side at a glance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpOverviewView {
    /// (label, URL) of each endpoint.
    pub endpoints: Vec<(String, String)>,
    /// MCP-capable agents.
    pub mcp_agents: u64,
    /// Only the viewer's own agents are counted and listed (a developer's view).
    pub own_only: bool,
    /// Of them, active now.
    pub active: u64,
    /// Of them, expiring within the window.
    pub expiring: u64,
    /// The window in days.
    pub window_days: i64,
    /// Protected resources.
    pub resources: u64,
    /// Resources developers submitted, waiting for an admin.
    pub submitted: u64,
    /// Clients waiting for review, for roles that review.
    pub pending_reviews: Option<u64>,
    /// One page of MCP-capable agents.
    pub agents: super::agents::AgentPage,
}
