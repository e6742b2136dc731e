//! Protected resources (`api::resources`, `pages::resources`).
use super::Moment;
use serde::{Deserialize, Serialize};

/// A protected resource as shown in the console.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceView {
    /// Slug.
    pub slug: String,
    /// Display name.
    pub display_name: String,
    /// Canonical URI (the token audience).
    pub uri: String,
    /// Accepted scopes.
    pub scopes: String,
    /// Token lifetime override; `None` follows the realm's default.
    pub token_ttl_secs: Option<i64>,
    /// Signing algorithm override, empty for the default.
    pub signing_alg: String,
    /// Enabled flag.
    pub enabled: bool,
    /// `any_client` or `granted_clients`.
    pub consent: String,
    /// People roles required (space-separated; empty: everyone).
    pub people_roles: String,
    /// Scopes a request without `scope` gets (empty: all that may be granted).
    pub default_scopes: String,
    /// Self-registered machine clients get tokens without a grant.
    pub open_to_self_registered: bool,
    /// The developer who submitted it, until an admin enables (or disables) it.
    pub submitted_by: Option<String>,
    /// Why an admin rejected the submission.
    pub rejection: Option<String>,
}

/// A resource's introspection credentials (the card on its page).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceCredentialsView {
    /// The realm's introspection endpoint, where the MCP server uses them.
    pub introspection_endpoint: String,
    /// The credentials, if the resource has them.
    pub client: Option<CredentialsClientView>,
}

/// The client that holds a resource's introspection credentials.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CredentialsClientView {
    /// `client_id`.
    pub client_id: String,
    /// Enabled flag.
    pub enabled: bool,
    /// Review state (an administrator may have revoked them).
    pub review: String,
    /// Creation time.
    pub created: Moment,
    /// Secrets that work now.
    pub live_secrets: usize,
    /// When the newest secret was issued.
    pub newest_secret: Option<Moment>,
}
