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
    /// MCP servers developers submitted that wait for an admin (neither enabled nor rejected):
    /// every one for those who manage resources, their own for the others.
    pub submissions_waiting: u64,
    /// What of the caller's was turned down in the last [`REJECTIONS_WINDOW_SECS`]: resources
    /// they submitted and clients naming them as a contact, newest first, at most
    /// [`MAX_REJECTIONS`].
    pub rejections: Vec<Rejection>,
}

/// Rejections the Overview lists at most.
pub const MAX_REJECTIONS: usize = 10;
/// How far back the Overview looks for rejections: 30 days.
pub const REJECTIONS_WINDOW_SECS: i64 = 30 * 24 * 3600;

/// What was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RejectedKind {
    /// A resource a developer submitted from "Protect your MCP server".
    Resource,
    /// A client that registered itself, naming the caller among its `contacts` (RFC 7591).
    Client,
}

/// Something of the caller's that an admin or a security reviewer turned down, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// A resource or a client.
    pub kind: RejectedKind,
    /// The resource's id (slug) or the `client_id` (empty for a metadata-document client when
    /// the caller may not see clients: its id is a URL its registrant chose).
    pub id: String,
    /// Its display name (empty for a client when the caller may not see clients: the name is
    /// the registrant's words).
    pub name: String,
    /// The reason given.
    pub reason: String,
    /// Who decided, when known and the caller may see clients (a client's reviewer).
    pub by: Option<String>,
    /// When.
    pub at: crate::clock::UnixTime,
    /// When it was registered or submitted (which of their clients it is, when its name is
    /// not shown).
    pub registered: crate::clock::UnixTime,
}
