//! View types sent between server functions and components (wasm-safe; no core types).
use serde::{Deserialize, Serialize};

/// The signed-in user and the console's realm selection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// User id.
    pub user_id: String,
    /// Email.
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// Role (`admin`, `security_reviewer`, `developer`).
    pub role: String,
    /// What the user's role may see and do.
    pub can: Abilities,
    /// The selected realm.
    pub realm: RealmView,
    /// All realms, for the switcher.
    pub realms: Vec<RealmView>,
    /// Clients of the selected realm waiting for review (for reviewers).
    pub pending_reviews: u64,
    /// What revoking anything in the selected realm cannot reach, in words: access tokens that
    /// resource servers verify themselves live until they expire (with the realm's bound).
    pub revocation_note: String,
}

/// What a role may see and do in the console: screens and controls it may not use are not shown.
/// The core checks every operation again; this only shapes the screens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[allow(clippy::struct_excessive_bools)]
pub struct Abilities {
    /// Console users.
    pub manage_users: bool,
    /// Create and change realms.
    pub manage_realms: bool,
    /// The audit log and each object's history.
    pub view_audit: bool,
    /// See resources.
    pub view_resources: bool,
    /// Create, change and delete resources.
    pub manage_resources: bool,
    /// Submit a resource for an admin to enable (developers).
    pub submit_resources: bool,
    /// See clients and their grants.
    pub view_clients: bool,
    /// Create, change and delete clients; grant and revoke access.
    pub manage_clients: bool,
    /// See agents.
    pub view_agents: bool,
    /// Create, change and delete agents.
    pub manage_agents: bool,
    /// Signing keys.
    pub manage_keys: bool,
    /// See the realm's people and their connected apps.
    pub view_people: bool,
    /// Create, change and disable people; revoke anyone's connected apps.
    pub manage_people: bool,
    /// The security-review queue: approve, reject, revoke clients.
    pub review_clients: bool,
}

/// A point in time as the console shows it: in words, with the exact time on hover.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moment {
    /// RFC 3339, UTC.
    pub at: String,
    /// Relative to the server's now (`5 minutes ago`, `in 2 days`).
    pub ago: String,
}

/// A realm as shown in the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RealmView {
    /// URL name.
    pub name: String,
    /// Display name.
    pub display_name: String,
    /// Enabled flag.
    pub enabled: bool,
    /// Issuer identifier.
    pub issuer: String,
    /// Default access-token lifetime in seconds.
    pub token_ttl_secs: i64,
    /// Days a refresh token may go unused.
    pub refresh_idle_days: i64,
    /// Days the refresh tokens of one sign-in last at most.
    pub refresh_max_days: i64,
    /// Days without a token after which a self-registered client expires (0: never).
    pub unused_client_days: i64,
    /// Days dynamically registered clients' secrets last (0: they do not expire).
    pub client_secret_days: i64,
    /// Who may register clients (`review`, `open`, `initial_access_token`, `disabled`).
    pub registration_policy: String,
    /// Most self-registered clients.
    pub max_dynamic_clients: i64,
    /// Which metadata-document clients it trusts (`review`, `any`, `allow_list`, `disabled`).
    pub metadata_document_policy: String,
    /// Trusted domains under `allow_list`.
    pub metadata_document_domains: String,
    /// Registrations one address may make per 15 minutes.
    pub registrations_per_source: i64,
    /// Trusted networks (address ranges), space-separated.
    pub trusted_networks: String,
    /// Registrations each trusted network may make per 15 minutes.
    pub registrations_per_trusted_network: i64,
    /// Hosts whose metadata documents may ask for machine access, space-separated.
    pub metadata_document_machine_domains: String,
    /// Creation time (RFC 3339).
    pub created_at: String,
}

/// A console user as shown in the Users screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserView {
    /// Id.
    pub id: String,
    /// Email.
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// Role.
    pub role: String,
    /// Disabled flag.
    pub disabled: bool,
    /// Whether a password has been set.
    pub has_password: bool,
    /// Creation time.
    pub created: Moment,
}

/// One page of users.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserPage {
    /// Rows.
    pub items: Vec<UserView>,
    /// All matching rows.
    pub total: u64,
    /// 0-based page index.
    pub page: u32,
    /// Rows per page.
    pub page_size: u32,
}

/// A one-time link shown once to an admin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuedLink {
    /// Whom it is for.
    pub email: String,
    /// The link.
    pub url: String,
}

/// An audit event as shown in the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditView {
    /// Id.
    pub id: i64,
    /// Time (RFC 3339).
    pub time: String,
    /// The same time relative to now, in words.
    pub ago: String,
    /// Realm name.
    pub realm: String,
    /// Actor.
    pub actor: String,
    /// Action.
    pub action: String,
    /// Target.
    pub target: String,
    /// `success` or `failure`.
    pub outcome: String,
    /// Request id.
    pub request_id: String,
    /// Client IP.
    pub client_ip: String,
    /// Details (JSON text).
    pub details: String,
}

/// One page of audit events, paged by event id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditPage {
    /// Rows, newest first.
    pub items: Vec<AuditView>,
    /// Matching events in the whole log (at most the count limit).
    pub total: u64,
    /// Whether `total` is exact (`false`: more than `total`).
    pub total_exact: bool,
    /// The id to page newer from (`after`), when newer events exist.
    pub newer: Option<i64>,
    /// The id to page older from (`before`), when older events exist.
    pub older: Option<i64>,
    /// Whether this page is not the newest one (a "Newest" link makes sense).
    pub paged: bool,
    /// The object this page is the history of, as its events name it (e.g.
    /// `client:reports-bot`, made by the core's `AuditSubject`); empty on the audit log.
    pub about: String,
}

/// Audit action names for the filter; a test keeps it equal to the core's list.
pub const AUDIT_ACTIONS: &[&str] = &[
    "realm.create",
    "realm.update",
    "realm.enable",
    "realm.disable",
    "user.create",
    "user.role_change",
    "user.disable",
    "user.enable",
    "user.password_reset_link",
    "user.password_reset",
    "user.password_change",
    "setup.complete",
    "setup.link_issued",
    "session.login",
    "session.logout",
    "audit.export",
    "key.create",
    "key.rotate",
    "resource.create",
    "resource.submit",
    "resource.update",
    "resource.delete",
    "resource.withdraw",
    "resource.reject",
    "resource.set_default",
    "mcp.check",
    "client.create",
    "client.update",
    "client.secret_rotate",
    "client.delete",
    "token.revoke",
    "agent.create",
    "agent.update",
    "agent.delete",
    "access.grant",
    "access.update",
    "access.revoke",
    "client.register",
    "client.registration_update",
    "client.approve",
    "client.reject",
    "client.revoke",
    "client.restore",
    "client.expire",
    "registration.initial_token",
    "person.create",
    "person.update",
    "person.password_set",
    "person.disable",
    "person.enable",
    "authorize.login",
    "consent.grant",
    "consent.deny",
    "consent.revoke",
    "authorize.code",
    "token.code_replay",
    "token.refresh_reuse",
];

#[cfg(all(test, feature = "ssr"))]
mod tests {
    #[test]
    fn audit_actions_match_the_core() {
        assert_eq!(super::AUDIT_ACTIONS, authz::audit::action::ALL);
    }
}

/// Audit filter as typed in the console (and in export links).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditQuery {
    /// Realm name; empty for all realms.
    #[serde(default)]
    pub realm: String,
    /// Exact action; empty for all.
    #[serde(default)]
    pub action: String,
    /// Actor substring.
    #[serde(default)]
    pub actor: String,
    /// Target substring.
    #[serde(default)]
    pub target: String,
    /// Exactly this object, as target or as the second object an event concerns (an object's
    /// whole history, e.g. `client:reports-bot`).
    #[serde(default)]
    pub about: String,
    /// From (`YYYY-MM-DDTHH:MM` UTC, inclusive).
    #[serde(default)]
    pub from: String,
    /// To (`YYYY-MM-DDTHH:MM` UTC, exclusive).
    #[serde(default)]
    pub to: String,
}

/// A protected resource as shown in the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantPage {
    /// Rows.
    pub items: Vec<GrantView>,
    /// All matching rows.
    pub total: u64,
    /// 0-based page index.
    pub page: u32,
    /// Rows per page.
    pub page_size: u32,
}

/// A client as shown in the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientView {
    /// `client_id`.
    pub client_id: String,
    /// Name.
    pub name: String,
    /// Token endpoint authentication method.
    pub auth_method: String,
    /// Registered scopes (RFC 7591 metadata; grants decide what it gets).
    pub scope: String,
    /// Grant types.
    pub grant_types: String,
    /// Contacts.
    pub contacts: String,
    /// Whether these are a resource server's introspection credentials (they get no tokens).
    pub resource_server: bool,
    /// Enabled flag.
    pub enabled: bool,
    /// How it registered (`admin`, `dynamic`, `metadata_document`).
    pub registration: String,
    /// Review state (`pending`, `approved`, `rejected`, `revoked`, `expired`).
    pub review: String,
    /// The last review decision: who and why.
    pub decision: Option<(String, String)>,
    /// Creation time.
    pub created: Moment,
    /// The version a decision on it applies to (its last change).
    pub version: i64,
}

/// A client's registration as its edit form shows it (RFC 7591 metadata as text).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientFormView {
    /// `client_name`.
    pub name: String,
    /// Registered scopes.
    pub scope: String,
    /// Contacts, comma-separated.
    pub contacts: String,
    /// JWKS (pretty JSON), `private_key_jwt` only.
    pub jwks: String,
    /// JWKS URL, `private_key_jwt` only.
    pub jwks_uri: String,
    /// Redirect URIs, one per line.
    pub redirect_uris: String,
    /// `client_uri`.
    pub client_uri: String,
    /// `logo_uri`.
    pub logo_uri: String,
    /// `software_id`.
    pub software_id: String,
    /// `software_version`.
    pub software_version: String,
}

/// A client's detail page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientDetailView {
    /// The client.
    pub client: ClientView,
    /// Its registration, for the edit form.
    pub form: ClientFormView,
    /// Agent it acts for.
    pub agent: String,
    /// JWKS (pretty JSON) of a `private_key_jwt` client.
    pub jwks: String,
    /// Or the URL its keys are fetched from.
    pub jwks_uri: String,
    /// What this instance has fetched from `jwks_uri`.
    pub remote_keys: Option<RemoteKeysView>,
    /// Other RFC 7591 metadata that is set: (field name, value).
    pub metadata: Vec<(String, String)>,
    /// Secrets: (created, expires, live).
    pub secrets: Vec<(String, String, bool)>,
}

/// The keys fetched from a client's `jwks_uri` (empty strings for "never").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteKeysView {
    /// `kid`s in use.
    pub kids: Vec<String>,
    /// When they were fetched.
    pub fetched_at: String,
    /// Until when they are used without refetching.
    pub fresh_until: String,
    /// Why the last fetch failed.
    pub last_error: String,
}

/// One page of clients.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientPage {
    /// Rows.
    pub items: Vec<ClientView>,
    /// All matching rows.
    pub total: u64,
    /// 0-based page index.
    pub page: u32,
    /// Rows per page.
    pub page_size: u32,
}

/// A client secret shown exactly once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuedSecret {
    /// `client_id`.
    pub client_id: String,
    /// The secret; empty for public clients.
    pub secret: String,
}

/// A signing key as shown in the console (public facts only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyView {
    /// Key id.
    pub kid: String,
    /// Algorithm.
    pub alg: String,
    /// `next`, `active` or `retired`.
    pub state: String,
    /// In the JWKS now.
    pub published: bool,
    /// Creation time.
    pub created: Moment,
    /// Activation time.
    pub activated_at: String,
    /// Retirement time.
    pub retired_at: String,
    /// Published until (retired keys).
    pub publish_until: Option<Moment>,
}

/// The Keys screen: the realm's JWKS URL and its keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeysOverview {
    /// JWKS URL.
    pub jwks_uri: String,
    /// Keys, newest first.
    pub keys: Vec<KeyView>,
}

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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentPage {
    /// Rows.
    pub items: Vec<AgentView>,
    /// All matching rows.
    pub total: u64,
    /// 0-based page index.
    pub page: u32,
    /// Rows per page.
    pub page_size: u32,
}

/// Rows per page on list screens.
pub const PAGE_SIZE: u32 = 20;

/// A client a picker offers, with the agent it acts for now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientChoiceView {
    /// `client_id`.
    pub client_id: String,
    /// Name.
    pub name: String,
    /// The agent it acts for, empty for none.
    pub agent: String,
}

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

/// A person of a realm (who signs in at its authorization endpoint).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonView {
    /// Id (`psn_…`, the `sub` of their tokens).
    pub id: String,
    /// Email.
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// Roles, space-separated.
    pub roles: String,
    /// Disabled flag.
    pub disabled: bool,
    /// Whether a password is set.
    pub has_password: bool,
    /// Creation time.
    pub created: Moment,
}

/// One page of people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonPage {
    /// Rows.
    pub items: Vec<PersonView>,
    /// All matching rows.
    pub total: u64,
    /// 0-based page index.
    pub page: u32,
    /// Rows per page.
    pub page_size: u32,
}

/// A connected app: a client a person let act for them at a resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectedAppView {
    /// Consent id.
    pub id: String,
    /// The person (or console account) id.
    pub subject: String,
    /// The client's `client_id`.
    pub client_id: String,
    /// The client's name.
    pub client_name: String,
    /// The resource's name.
    pub resource_name: String,
    /// The resource's URI.
    pub resource_uri: String,
    /// Scopes agreed to.
    pub scopes: Vec<String>,
    /// Whether it stays connected (refresh tokens).
    pub offline: bool,
    /// Last agreed to.
    pub updated: Moment,
    /// Last token refresh, if any.
    pub last_used: Option<Moment>,
}

/// A client in the security-review queue, with its risk signals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewItemView {
    /// `client_id`.
    pub client_id: String,
    /// Name it registered.
    pub name: String,
    /// `admin`, `dynamic` or `metadata_document`.
    pub kind: String,
    /// Review state.
    pub state: String,
    /// Public (`none`) or how it authenticates.
    pub auth_method: String,
    /// Grant types.
    pub grant_types: Vec<String>,
    /// Registered scope (empty: any the resources offer).
    pub scope: String,
    /// Redirect URIs in full.
    pub redirect_uris: Vec<String>,
    /// Their hosts or schemes.
    pub redirect_hosts: Vec<String>,
    /// Every redirect is loopback.
    pub loopback_only: bool,
    /// Some redirect uses a private-use scheme.
    pub private_use: bool,
    /// `software_id`, `software_version`.
    pub software: Option<String>,
    /// Client URI (home page).
    pub client_uri: Option<String>,
    /// Source address.
    pub source_ip: Option<String>,
    /// Registrations from that address.
    pub same_source: u64,
    /// Other clients with a similar name.
    pub similar_names: Vec<String>,
    /// First seen.
    pub created: Moment,
    /// Its last change (Unix seconds): a decision applies only to this version.
    pub version: i64,
    /// Who decided, why, when (for decided clients).
    pub decision: Option<(String, String, Moment)>,
    /// When it last got a token, if ever.
    pub last_token: Option<Moment>,
}

/// What a bulk review did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulkResult {
    /// Clients decided.
    pub done: u32,
    /// Clients not decided, with why.
    pub failed: Vec<(String, String)>,
}

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
    /// How many agents the list holds (all pages).
    pub listed: u64,
    /// The page shown.
    pub page: u32,
    /// One page of MCP-capable agents.
    pub agents: Vec<AgentView>,
}
