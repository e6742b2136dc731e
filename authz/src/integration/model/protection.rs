//! What the generator takes (the realm's endpoints, the developer's input) and what it gives
//! (the artefacts, and what the realm already knows of the server).

/// The realm's MCP side at a glance (Integration → MCP authorization): what is protected, who
/// may call it, and the endpoints to configure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpOverview {
    /// Issuer, discovery documents, JWKS and the other endpoints.
    pub endpoints: Vec<crate::overview::Endpoint>,
    /// Agents holding `mcp` or an `mcp:*` role (for roles that may not see the realm's
    /// agents, only those they own; then `own_only` is set).
    pub mcp_agents: u64,
    /// The agents counted and listed are only the caller's own (a developer's view).
    pub own_only: bool,
    /// Of them, those that may act now.
    pub active: u64,
    /// Of them, those expiring within the window.
    pub expiring: u64,
    /// The window, in days.
    pub window_days: i64,
    /// Protected resources (MCP servers) an admin registered or enabled.
    pub resources: u64,
    /// Of them, those developers submitted, waiting for an admin.
    pub submitted: u64,
    /// Clients waiting for review (`None` for roles that do not review).
    pub pending_reviews: Option<u64>,
    /// One page of the MCP-capable agents picked, with how many there are in all.
    pub agents: crate::paging::Paged<crate::agents::AgentSummary>,
}

/// The default window of "expiring soon" on the MCP authorization screen.
pub const DEFAULT_EXPIRY_WINDOW_DAYS: i64 = 14;

/// The realm as an MCP server sees it: its issuer and endpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationServer {
    /// The realm's display name.
    pub realm: String,
    /// `iss` of its tokens.
    pub issuer: String,
    /// RFC 8414 metadata URL.
    pub metadata_url: String,
    /// OpenID Connect discovery URL.
    pub openid_configuration_url: String,
    /// JWKS.
    pub jwks_uri: String,
    /// Token endpoint.
    pub token_endpoint: String,
    /// Authorization endpoint.
    pub authorization_endpoint: String,
    /// Dynamic client registration endpoint (RFC 7591), when registration is open in some way.
    pub registration_endpoint: Option<String>,
    /// Introspection endpoint (RFC 7662).
    pub introspection_endpoint: String,
    /// Revocation endpoint (RFC 7009).
    pub revocation_endpoint: String,
    /// Every scope the realm's resources accept.
    pub scopes_supported: Vec<String>,
    /// Whether clients identified by a metadata-document URL are accepted.
    pub metadata_documents: bool,
}

/// What the developer typed into the generator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtectInput {
    /// The MCP server's URL (its endpoint, e.g. `https://mcp.example.com/mcp`).
    pub server_url: String,
    /// A name for people (`resource_name`).
    pub resource_name: String,
    /// Scopes, space-separated (empty: none required).
    pub scopes: String,
    /// Where the server's documentation lives (`resource_documentation`).
    pub documentation_url: String,
}

/// One copyable block.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Artifact {
    /// Stable id (`metadata`, `challenge`, …), for tests and anchors.
    pub id: &'static str,
    /// Heading.
    pub title: &'static str,
    /// One line on what it is and where it goes.
    pub explanation: String,
    /// The specification it follows: label and link.
    pub reference: (&'static str, &'static str),
    /// `json`, `http`, `shell`, `typescript`, `python`, `text`.
    pub language: &'static str,
    /// The text to copy.
    pub text: String,
}

/// Everything generated for one MCP server.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Protection {
    /// The server URL in canonical form: the `resource` and the tokens' `aud`.
    pub resource: String,
    /// The name typed (`resource_name`; may be empty).
    pub name: String,
    /// What canonicalisation changed, in words (empty when nothing did).
    pub changes: Vec<String>,
    /// The scopes the challenges offer.
    pub scopes: Vec<String>,
    /// Why some typed scopes are not offered.
    pub scope_notes: Vec<String>,
    /// Offered scopes no resource of the realm accepts yet (tokens carry them only once the
    /// server is registered with them).
    pub new_scopes: Vec<String>,
    /// The artifacts, in reading order.
    pub artifacts: Vec<Artifact>,
    /// The realm's resource with this URL, if one is registered (or submitted) already.
    pub registered: Option<RegisteredResource>,
    /// Set when the realm has self-registered clients wait for a security review (the
    /// zero-config path: MCP clients register themselves, then wait).
    pub client_review: Option<ClientReviewNote>,
}

/// Where self-registered clients of the realm wait for review, for the generator's page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ClientReviewNote {
    /// Clients waiting now.
    pub waiting: u64,
    /// Whether the viewer reviews them (else a reviewer has to).
    pub can_review: bool,
}

/// A resource of the realm that has the generator's server URL.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RegisteredResource {
    /// Its id (slug).
    pub slug: String,
    /// Its name.
    pub display_name: String,
    /// Whether tokens are issued for it.
    pub enabled: bool,
    /// The developer who submitted it, until an admin decides.
    pub submitted_by: Option<String>,
    /// Why an admin rejected the submission.
    pub rejection: Option<String>,
}

impl From<&crate::resources::Resource> for RegisteredResource {
    fn from(r: &crate::resources::Resource) -> Self {
        Self {
            slug: r.slug.clone(),
            display_name: r.display_name.clone(),
            enabled: r.enabled,
            submitted_by: r.submitted_by.clone(),
            rejection: r.rejection.clone(),
        }
    }
}

/// A field the input got wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// `server_url`, `scopes`, `documentation_url`, `resource_name`.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

pub(super) fn input_error(field: &'static str, message: impl Into<String>) -> InputError {
    InputError {
        field,
        message: message.into(),
    }
}
