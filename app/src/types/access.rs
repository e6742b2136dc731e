//! Access grants between clients and resources (`api::access`, `pages::access`).
use super::resources::ResourceView;
use serde::{Deserialize, Serialize};

/// A resource of the realm on a client's page: whether and with which scopes the client may
/// get tokens for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccessView {
    /// The resource.
    pub resource: ResourceView,
    /// Granted scopes (empty when not granted), only those the resource still accepts.
    pub scopes: Vec<String>,
    /// Granted scopes the resource no longer accepts.
    pub lapsed: Vec<String>,
    /// Whether the client holds a grant.
    pub granted: bool,
    /// When the grant's scopes last changed (RFC 3339), empty when not granted.
    pub updated_at: String,
    /// When the client last got a token for it (RFC 3339), empty if never.
    pub last_used_at: String,
    /// The same in words (`5 minutes ago`), empty if never.
    pub last_used: String,
}

/// A client with access to a resource, on the resource's page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantView {
    /// `client_id`.
    pub client_id: String,
    /// Client name.
    pub name: String,
    /// Whether the client is enabled.
    pub enabled: bool,
    /// Granted scopes the resource accepts (what its tokens get).
    pub scopes: Vec<String>,
    /// Granted scopes the resource no longer accepts.
    pub lapsed: Vec<String>,
    /// The agent the client acts for, empty for none.
    pub agent: String,
    /// What its tokens actually carry: the granted scopes, cut to the agent's roles.
    pub token_scopes: Vec<String>,
    /// When first granted (RFC 3339).
    pub created_at: String,
    /// When the scopes last changed (RFC 3339).
    pub updated_at: String,
    /// When the client last got a token for the resource (RFC 3339), empty if never.
    pub last_used_at: String,
    /// The same in words (`5 minutes ago`), empty if never.
    pub last_used: String,
}

/// One page of a resource's grants.
pub type GrantPage = super::KeyedPage<GrantView>;
