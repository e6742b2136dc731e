//! What the Overview shows.

/// One endpoint of the realm's authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// What it is, in words.
    pub label: &'static str,
    /// Its URL.
    pub url: String,
}

/// A realm at a glance. Counts are `None` where the caller's role may not see that list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RealmOverview {
    /// Issuer, discovery documents, JWKS, token, introspection and revocation endpoints.
    pub endpoints: Vec<Endpoint>,
    /// Protected resources (MCP servers), without developers' submissions waiting for an admin.
    pub resources: Option<u64>,
    /// Clients.
    pub clients: Option<u64>,
    /// Agents.
    pub agents: Option<u64>,
    /// Agents holding `mcp` or an `mcp:*` role.
    pub mcp_agents: Option<u64>,
    /// Access grants (client × resource).
    pub grants: Option<u64>,
    /// Grants that have produced a token.
    pub grants_used: Option<u64>,
}
