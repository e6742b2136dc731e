//! Audit types: events to write, stored events, filters, and the request facts they carry.
use crate::clock::UnixTime;
use crate::realms::RealmId;
use serde::Serialize;
use std::collections::HashMap;

/// Facts about the HTTP request (or CLI call) an operation runs in, for the audit log and
/// throttling.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestMeta {
    /// Request id (`x-request-id`).
    pub request_id: Option<String>,
    /// Client IP address: the socket peer, or the first untrusted hop of `Forwarded` /
    /// `X-Forwarded-For` when the peer is a trusted proxy.
    pub client_ip: Option<std::net::IpAddr>,
}

/// Whether the recorded operation succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// It happened.
    Success,
    /// It was attempted and refused.
    Failure,
}

impl Outcome {
    /// Stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::Failure => "failure",
        }
    }

    /// Parses the stored form.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "success" => Some(Outcome::Success),
            "failure" => Some(Outcome::Failure),
            _ => None,
        }
    }
}

/// Audit action names (dotted, `<entity>.<verb>`).
pub mod action {
    /// Realm created.
    pub const REALM_CREATE: &str = "realm.create";
    /// Realm renamed or display name changed.
    pub const REALM_UPDATE: &str = "realm.update";
    /// Realm enabled.
    pub const REALM_ENABLE: &str = "realm.enable";
    /// Realm disabled.
    pub const REALM_DISABLE: &str = "realm.disable";
    /// Console user created.
    pub const USER_CREATE: &str = "user.create";
    /// Role changed.
    pub const USER_ROLE_CHANGE: &str = "user.role_change";
    /// User disabled.
    pub const USER_DISABLE: &str = "user.disable";
    /// User enabled.
    pub const USER_ENABLE: &str = "user.enable";
    /// Password-reset link issued.
    pub const USER_RESET_LINK: &str = "user.password_reset_link";
    /// Password set through a one-time link.
    pub const USER_PASSWORD_RESET: &str = "user.password_reset";
    /// Own password changed.
    pub const USER_PASSWORD_CHANGE: &str = "user.password_change";
    /// First admin created through the setup link.
    pub const SETUP_COMPLETE: &str = "setup.complete";
    /// Setup link issued at first start.
    pub const SETUP_LINK: &str = "setup.link_issued";
    /// Sign-in attempt.
    pub const SESSION_LOGIN: &str = "session.login";
    /// Sign-out.
    pub const SESSION_LOGOUT: &str = "session.logout";
    /// Audit log exported.
    pub const AUDIT_EXPORT: &str = "audit.export";
    /// Signing key created.
    pub const KEY_CREATE: &str = "key.create";
    /// Signing keys rotated.
    pub const KEY_ROTATE: &str = "key.rotate";
    /// Protected resource created.
    pub const RESOURCE_CREATE: &str = "resource.create";
    /// An MCP server checked with the handshake tester (outbound requests on a person's
    /// behalf).
    pub const MCP_CHECK: &str = "mcp.check";
    /// Protected resource submitted by a developer, disabled until an admin enables it.
    pub const RESOURCE_SUBMIT: &str = "resource.submit";
    /// Protected resource changed.
    pub const RESOURCE_UPDATE: &str = "resource.update";
    /// Protected resource deleted.
    pub const RESOURCE_DELETE: &str = "resource.delete";
    /// A developer withdrew their submission before an admin decided on it (or after a
    /// rejection).
    pub const RESOURCE_WITHDRAW: &str = "resource.withdraw";
    /// An admin rejected a developer's submission, with a reason the developer sees.
    pub const RESOURCE_REJECT: &str = "resource.reject";
    /// The realm's default resource (for token requests without `resource`) was set or cleared.
    pub const RESOURCE_SET_DEFAULT: &str = "resource.set_default";
    /// Client created.
    pub const CLIENT_CREATE: &str = "client.create";
    /// Client changed (incl. enable/disable).
    pub const CLIENT_UPDATE: &str = "client.update";
    /// Client secret rotated.
    pub const CLIENT_SECRET_ROTATE: &str = "client.secret_rotate";
    /// Client deleted.
    pub const CLIENT_DELETE: &str = "client.delete";
    /// Access token revoked.
    pub const TOKEN_REVOKE: &str = "token.revoke";
    /// Agent created.
    pub const AGENT_CREATE: &str = "agent.create";
    /// Agent changed (incl. enable/disable).
    pub const AGENT_UPDATE: &str = "agent.update";
    /// Agent deleted.
    pub const AGENT_DELETE: &str = "agent.delete";
    /// A client granted access to a resource.
    pub const ACCESS_GRANT: &str = "access.grant";
    /// The scopes of a client's access to a resource changed.
    pub const ACCESS_UPDATE: &str = "access.update";
    /// A client's access to a resource revoked.
    pub const ACCESS_REVOKE: &str = "access.revoke";
    /// A client registered itself (RFC 7591).
    pub const CLIENT_REGISTER: &str = "client.register";
    /// A self-registered client changed or deleted its registration (RFC 7592).
    pub const CLIENT_REGISTRATION_UPDATE: &str = "client.registration_update";
    /// A reviewer let a pending client in.
    pub const CLIENT_APPROVE: &str = "client.approve";
    /// A reviewer refused a pending client.
    pub const CLIENT_REJECT: &str = "client.reject";
    /// A reviewer (or an administrator) revoked an active client: its refresh tokens and
    /// codes died at once, its access tokens introspect inactive for good.
    pub const CLIENT_REVOKE: &str = "client.revoke";
    /// An administrator let a revoked client work again (its old tokens stay dead).
    pub const CLIENT_RESTORE: &str = "client.restore";
    /// A self-registered client unused for the realm's unused-client lifetime expired.
    pub const CLIENT_EXPIRE: &str = "client.expire";
    /// An initial access token issued for registration.
    pub const INITIAL_TOKEN_ISSUE: &str = "registration.initial_token";
    /// A person added to a realm.
    pub const PERSON_CREATE: &str = "person.create";
    /// A person's name or roles changed.
    pub const PERSON_UPDATE: &str = "person.update";
    /// A person's password set by an admin.
    pub const PERSON_PASSWORD_SET: &str = "person.password_set";
    /// A person disabled (their sign-ins and apps' tokens end).
    pub const PERSON_DISABLE: &str = "person.disable";
    /// A person enabled again.
    pub const PERSON_ENABLE: &str = "person.enable";
    /// A sign-in at a realm's authorization endpoint.
    pub const AUTHORIZE_LOGIN: &str = "authorize.login";
    /// A person let a client act for them at a resource (consent given).
    pub const CONSENT_GRANT: &str = "consent.grant";
    /// A person refused a client.
    pub const CONSENT_DENY: &str = "consent.deny";
    /// A connected app's consent revoked, with its tokens.
    pub const CONSENT_REVOKE: &str = "consent.revoke";
    /// An authorization code issued.
    pub const CODE_ISSUE: &str = "authorize.code";
    /// An authorization code presented a second time: what the first use produced is revoked.
    pub const CODE_REPLAY: &str = "token.code_replay";
    /// A rotated refresh token used again after the grace window: its family is revoked.
    pub const REFRESH_REUSE: &str = "token.refresh_reuse";
    /// A token was exchanged (RFC 8693) for a short-lived token at one resource.
    pub const TOKEN_EXCHANGE: &str = "token.exchange";
    /// A token exchange was refused (the reason is in the details).
    pub const TOKEN_EXCHANGE_DENIED: &str = "token.exchange_denied";
    /// The registry's draft changed (a server, the mode, rings or units).
    pub const REGISTRY_UPDATE: &str = "registry.update";
    /// The registry's settings changed (approval, HTTP access).
    pub const REGISTRY_SETTINGS: &str = "registry.settings";
    /// A release was published (the draft, or an approved request).
    pub const REGISTRY_PUBLISH: &str = "registry.publish";
    /// An old release's content was published again as a new release.
    pub const REGISTRY_ROLLBACK: &str = "registry.rollback";
    /// A publish or roll back now waits for a second person.
    pub const REGISTRY_REQUEST: &str = "registry.request";
    /// A waiting publish was rejected by the approver.
    pub const REGISTRY_REJECT: &str = "registry.reject";
    /// A waiting publish was withdrawn.
    pub const REGISTRY_WITHDRAW: &str = "registry.withdraw";
    /// A member was added to a ring or unit.
    pub const REGISTRY_MEMBER_ADD: &str = "registry.member_add";
    /// A member was removed from a ring or unit.
    pub const REGISTRY_MEMBER_REMOVE: &str = "registry.member_remove";
    /// A device's drift report was forgotten (a laptop given back).
    pub const DRIFT_FORGET: &str = "registry.drift_forget";
    /// An e-mail about a decision could not be sent (SMTP refused or unreachable).
    pub const MAIL_FAILED: &str = "mail.failed";
    /// An identity provider became trusted for ID-JAG assertions.
    pub const TRUSTED_ISSUER_CREATE: &str = "trusted_issuer.create";
    /// A trusted identity provider's settings changed.
    pub const TRUSTED_ISSUER_UPDATE: &str = "trusted_issuer.update";
    /// A trusted identity provider was enabled.
    pub const TRUSTED_ISSUER_ENABLE: &str = "trusted_issuer.enable";
    /// A trusted identity provider was disabled: its assertions are refused.
    pub const TRUSTED_ISSUER_DISABLE: &str = "trusted_issuer.disable";
    /// A trusted identity provider was removed.
    pub const TRUSTED_ISSUER_DELETE: &str = "trusted_issuer.delete";
    /// An upstream identity was linked to an existing person.
    pub const PERSON_LINK: &str = "person.link";
    /// An upstream identity was unlinked from a person.
    pub const PERSON_UNLINK: &str = "person.unlink";
    /// An ID-JAG (enterprise-managed authorization) was traded for an access token.
    pub const TOKEN_ID_JAG: &str = "token.id_jag";
    /// An ID-JAG was refused.
    pub const TOKEN_ID_JAG_DENIED: &str = "token.id_jag_denied";
    /// A console sign-in provider (OpenID Connect) was added.
    pub const SSO_PROVIDER_CREATE: &str = "sso_provider.create";
    /// A console sign-in provider's settings changed.
    pub const SSO_PROVIDER_UPDATE: &str = "sso_provider.update";
    /// A console sign-in provider was enabled.
    pub const SSO_PROVIDER_ENABLE: &str = "sso_provider.enable";
    /// A console sign-in provider was disabled: no one signs in with it, its sessions end.
    pub const SSO_PROVIDER_DISABLE: &str = "sso_provider.disable";
    /// A console sign-in provider was removed.
    pub const SSO_PROVIDER_DELETE: &str = "sso_provider.delete";
    /// Password sign-in to the console was turned on for everyone, or off for all but
    /// break-glass admins.
    pub const PASSWORD_SIGN_IN: &str = "console.password_sign_in";
    /// An admin was marked as break-glass, or no longer.
    pub const USER_BREAK_GLASS: &str = "user.break_glass";
    /// A signed-in console account was linked to its identity at a sign-in provider.
    pub const USER_SSO_LINK: &str = "user.sso_link";
    /// The second step of a console sign-in (authenticator or recovery code), passed or failed.
    pub const SESSION_SECOND_FACTOR: &str = "session.second_factor";
    /// The roles that must sign in with a second factor changed.
    pub const SECOND_FACTOR_POLICY: &str = "console.second_factor";
    /// A console account set up an authenticator app.
    pub const USER_SECOND_FACTOR_ENROL: &str = "user.second_factor_enrol";
    /// A console account got new recovery codes (the old ones stop working).
    pub const USER_RECOVERY_CODES: &str = "user.recovery_codes";
    /// A console account's authenticator was removed by its owner, or reset by an admin.
    pub const USER_SECOND_FACTOR_REMOVE: &str = "user.second_factor_remove";
    /// An authorization server now trusts the realm's ID-JAGs (the realm lists it).
    pub const TRUSTING_SERVER_CREATE: &str = "trusting_server.create";
    /// A trusting authorization server's settings changed.
    pub const TRUSTING_SERVER_UPDATE: &str = "trusting_server.update";
    /// A trusting authorization server was enabled.
    pub const TRUSTING_SERVER_ENABLE: &str = "trusting_server.enable";
    /// A trusting authorization server was disabled: no ID-JAGs for it.
    pub const TRUSTING_SERVER_DISABLE: &str = "trusting_server.disable";
    /// A trusting authorization server was removed.
    pub const TRUSTING_SERVER_DELETE: &str = "trusting_server.delete";
    /// A client traded a person's ID token for an ID-JAG for another authorization server.
    pub const TOKEN_ID_JAG_ISSUE: &str = "token.id_jag_issue";
    /// A realm's MCP gateway found a tool new, changed or gone: hidden until accepted.
    pub const GATEWAY_TOOL_CHANGE: &str = "gateway.tool_change";
    /// An administrator accepted a tool's definition as a server lists it now.
    pub const GATEWAY_TOOL_ACCEPT: &str = "gateway.tool_accept";
    /// A registry server was attached to an agent.
    pub const GATEWAY_ATTACH: &str = "gateway.attach";
    /// A registry server was detached from an agent.
    pub const GATEWAY_DETACH: &str = "gateway.detach";
    /// A call through the MCP gateway.
    pub const GATEWAY_CALL: &str = "gateway.call";
    /// A call through the gateway that can change things waits for a person.
    pub const GATEWAY_APPROVAL_REQUEST: &str = "gateway.approval_request";
    /// A person approved a waiting gateway call.
    pub const GATEWAY_APPROVAL_APPROVE: &str = "gateway.approval_approve";
    /// A person denied a waiting gateway call.
    pub const GATEWAY_APPROVAL_DENY: &str = "gateway.approval_deny";
    /// A person connected their own account at an upstream with its own authorization server.
    pub const GATEWAY_CONNECT: &str = "gateway.connect";
    /// A person's upstream account was disconnected (by them, or its server refused to refresh).
    pub const GATEWAY_DISCONNECT: &str = "gateway.disconnect";
    /// An administrator set, replaced or removed the client secret the gateway sends to a
    /// server's authorization server.
    pub const GATEWAY_CLIENT_SECRET: &str = "gateway.client_secret";

    /// Every action, for filter pickers.
    pub const ALL: &[&str] = &[
        REALM_CREATE,
        REALM_UPDATE,
        REALM_ENABLE,
        REALM_DISABLE,
        USER_CREATE,
        USER_ROLE_CHANGE,
        USER_DISABLE,
        USER_ENABLE,
        USER_RESET_LINK,
        USER_PASSWORD_RESET,
        USER_PASSWORD_CHANGE,
        SETUP_COMPLETE,
        SETUP_LINK,
        SESSION_LOGIN,
        SESSION_LOGOUT,
        AUDIT_EXPORT,
        KEY_CREATE,
        KEY_ROTATE,
        RESOURCE_CREATE,
        RESOURCE_SUBMIT,
        RESOURCE_UPDATE,
        RESOURCE_DELETE,
        RESOURCE_WITHDRAW,
        RESOURCE_REJECT,
        RESOURCE_SET_DEFAULT,
        MCP_CHECK,
        CLIENT_CREATE,
        CLIENT_UPDATE,
        CLIENT_SECRET_ROTATE,
        CLIENT_DELETE,
        TOKEN_REVOKE,
        AGENT_CREATE,
        AGENT_UPDATE,
        AGENT_DELETE,
        ACCESS_GRANT,
        ACCESS_UPDATE,
        ACCESS_REVOKE,
        CLIENT_REGISTER,
        CLIENT_REGISTRATION_UPDATE,
        CLIENT_APPROVE,
        CLIENT_REJECT,
        CLIENT_REVOKE,
        CLIENT_RESTORE,
        CLIENT_EXPIRE,
        INITIAL_TOKEN_ISSUE,
        PERSON_CREATE,
        PERSON_UPDATE,
        PERSON_PASSWORD_SET,
        PERSON_DISABLE,
        PERSON_ENABLE,
        AUTHORIZE_LOGIN,
        CONSENT_GRANT,
        CONSENT_DENY,
        CONSENT_REVOKE,
        CODE_ISSUE,
        CODE_REPLAY,
        REFRESH_REUSE,
        TOKEN_EXCHANGE,
        TOKEN_EXCHANGE_DENIED,
        REGISTRY_UPDATE,
        REGISTRY_SETTINGS,
        REGISTRY_PUBLISH,
        REGISTRY_ROLLBACK,
        REGISTRY_REQUEST,
        REGISTRY_REJECT,
        REGISTRY_WITHDRAW,
        REGISTRY_MEMBER_ADD,
        REGISTRY_MEMBER_REMOVE,
        DRIFT_FORGET,
        MAIL_FAILED,
        TRUSTED_ISSUER_CREATE,
        TRUSTED_ISSUER_UPDATE,
        TRUSTED_ISSUER_ENABLE,
        TRUSTED_ISSUER_DISABLE,
        TRUSTED_ISSUER_DELETE,
        PERSON_LINK,
        PERSON_UNLINK,
        TOKEN_ID_JAG,
        TOKEN_ID_JAG_DENIED,
        SSO_PROVIDER_CREATE,
        SSO_PROVIDER_UPDATE,
        SSO_PROVIDER_ENABLE,
        SSO_PROVIDER_DISABLE,
        SSO_PROVIDER_DELETE,
        PASSWORD_SIGN_IN,
        USER_BREAK_GLASS,
        USER_SSO_LINK,
        SESSION_SECOND_FACTOR,
        SECOND_FACTOR_POLICY,
        USER_SECOND_FACTOR_ENROL,
        USER_RECOVERY_CODES,
        USER_SECOND_FACTOR_REMOVE,
        TRUSTING_SERVER_CREATE,
        TRUSTING_SERVER_UPDATE,
        TRUSTING_SERVER_ENABLE,
        TRUSTING_SERVER_DISABLE,
        TRUSTING_SERVER_DELETE,
        TOKEN_ID_JAG_ISSUE,
        GATEWAY_TOOL_CHANGE,
        GATEWAY_TOOL_ACCEPT,
        GATEWAY_ATTACH,
        GATEWAY_DETACH,
        GATEWAY_CALL,
        GATEWAY_APPROVAL_REQUEST,
        GATEWAY_APPROVAL_APPROVE,
        GATEWAY_APPROVAL_DENY,
        GATEWAY_CONNECT,
        GATEWAY_DISCONNECT,
        GATEWAY_CLIENT_SECRET,
    ];
}

/// Maximum rows one audit export returns.
pub const MAX_EXPORT_ROWS: u32 = 50_000;

/// Audit export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// RFC 4180 CSV.
    Csv,
    /// One JSON object per line.
    JsonLines,
}

impl ExportFormat {
    /// Short name (`csv`, `jsonl`).
    pub fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::JsonLines => "jsonl",
        }
    }
}

/// An audit event to be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAuditEvent {
    /// Realm the event belongs to.
    pub realm_id: RealmId,
    /// When.
    pub occurred_at: UnixTime,
    /// Who: an email, `system` or `cli`.
    pub actor: String,
    /// What, one of [`action`].
    pub action: &'static str,
    /// On what, e.g. `user:usr_…` or `realm:payments`: an [`AuditSubject::target`].
    pub target: String,
    /// A second object the event concerns, in the same form (a grant's resource, a binding's
    /// agent): its history lists the event too.
    pub related: Option<String>,
    /// Result.
    pub outcome: Outcome,
    /// Request id of the HTTP request, if any.
    pub request_id: Option<String>,
    /// Client IP of the HTTP request, if any.
    pub client_ip: Option<String>,
    /// Extra facts (never secrets), as a JSON object.
    pub details: serde_json::Value,
}

/// A stored audit event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditEvent {
    /// Monotonic id.
    pub id: i64,
    /// Realm name at read time.
    pub realm: String,
    /// When (Unix seconds).
    pub occurred_at: UnixTime,
    /// Who.
    pub actor: String,
    /// What.
    pub action: String,
    /// On what.
    pub target: String,
    /// Result.
    pub outcome: Outcome,
    /// HTTP request id.
    pub request_id: Option<String>,
    /// Client IP.
    pub client_ip: Option<String>,
    /// Extra facts.
    pub details: serde_json::Value,
}

/// Where a page of the audit log starts.
///
/// The log is paged by event id rather than by offset, so a page deep in a million rows costs
/// the same as the first one. On PostgreSQL an id is
/// taken when a transaction writes its event and seen when it commits, so an event committed
/// while someone walks down with `Before` can appear above their position (`After` shows it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AuditCursor {
    /// The newest events.
    #[default]
    Newest,
    /// Events older than the event with this id (the next page down).
    Before(i64),
    /// Events newer than the event with this id (the page above), still shown newest first.
    After(i64),
}

/// How much of the audit log to read at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditWindow {
    /// Where the page starts.
    pub cursor: AuditCursor,
    /// At most this many events.
    pub limit: u32,
    /// Matching events are counted up to this many (counting a million rows on every page
    /// would cost more than the page itself).
    pub count_up_to: u64,
}

impl AuditWindow {
    /// A console page: `limit` events from `cursor`, counted up to [`AUDIT_COUNT_LIMIT`].
    pub fn page(cursor: AuditCursor, limit: u32) -> Self {
        Self {
            cursor,
            limit,
            count_up_to: AUDIT_COUNT_LIMIT,
        }
    }
}

/// Matching events are counted exactly up to this many; beyond it the console shows "10,000+".
pub const AUDIT_COUNT_LIMIT: u64 = 10_000;

/// One page of the audit log, newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditSlice {
    /// Events, newest first.
    pub items: Vec<AuditEvent>,
    /// Whether newer matching events exist above this page.
    pub newer: bool,
    /// Whether older matching events exist below this page.
    pub older: bool,
    /// Matching events in the whole log, at most the window's `count_up_to`.
    pub total: u64,
    /// Whether `total` is exact (`false`: there are more than `total`).
    pub total_exact: bool,
}

/// What an audit event is about.
///
/// The only way an event's `target` (and `related`) is made, so the stored strings stay one
/// format. Clients, resources, agents, realms, users and people also
/// have their own history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuditSubject {
    /// A client, by `client_id`.
    Client(String),
    /// A resource, by slug.
    Resource(String),
    /// An agent, by name.
    Agent(String),
    /// A realm, by name (its events live in that realm).
    Realm(String),
    /// A console user, by id (their events live in the admin realm).
    User(String),
    /// A person of the realm, by id.
    Person(String),
    /// A signing key, by `kid`.
    Key(String),
    /// An access token, by `jti`.
    Token(String),
    /// An MCP server checked with the handshake tester, by URL.
    McpServer(String),
    /// The audit log itself (its exports).
    AuditLog,
    /// The realm's MCP server registry as a whole (mode, settings, rings and units).
    Registry,
    /// One server of the registry, by its id.
    RegistryServer(String),
    /// A registry release, by its sequence number.
    Release(i64),
    /// A ring or unit of the registry (`ring:<id>` or `unit:<id>`).
    RegistryGroup(&'static str, String),
    /// The first-start setup (its link).
    Setup,
    /// An identity provider trusted for ID-JAG assertions, by issuer.
    TrustedIssuer(String),
    /// An authorization server that trusts the realm's ID-JAGs, by issuer.
    TrustingServer(String),
    /// A console sign-in provider, by id.
    SsoProvider(String),
    /// How people sign in to the console (password sign-in on or off).
    ConsoleSignIn,
}

impl AuditSubject {
    /// The `target` its events carry.
    pub fn target(&self) -> String {
        let (kind, id): (&str, &dyn std::fmt::Display) = match self {
            AuditSubject::Client(id) => ("client", id),
            AuditSubject::Resource(slug) => ("resource", slug),
            AuditSubject::Agent(name) => ("agent", name),
            AuditSubject::Realm(name) => ("realm", name),
            AuditSubject::User(id) => ("user", id),
            AuditSubject::Person(id) => ("person", id),
            AuditSubject::Key(kid) => ("key", kid),
            AuditSubject::Token(jti) => ("token", jti),
            AuditSubject::McpServer(url) => ("mcp_server", url),
            AuditSubject::RegistryServer(id) => ("registry_server", id),
            AuditSubject::Release(n) => ("release", n),
            AuditSubject::RegistryGroup(kind, id) => (*kind, id),
            AuditSubject::TrustedIssuer(iss) => ("idp", iss),
            AuditSubject::TrustingServer(iss) => ("trusting_as", iss),
            AuditSubject::SsoProvider(id) => ("sso", id),
            AuditSubject::AuditLog => return "audit".to_owned(),
            AuditSubject::Registry => return "registry".to_owned(),
            AuditSubject::Setup => return "setup".to_owned(),
            AuditSubject::ConsoleSignIn => return "console:sign_in".to_owned(),
        };
        format!("{kind}:{id}")
    }
}

/// What an update changed, for an event's `details`.
///
/// Every field whose value differs between
/// `before` and `after` (two JSON objects describing the same object's settings), as
/// `{"field": {"from": …, "to": …}}`. A field only one side has counts as changed (`null` on the
/// other side).
pub fn changes(before: &serde_json::Value, after: &serde_json::Value) -> serde_json::Value {
    changes_hiding(before, after, &[])
}

/// As [`changes`], but the fields named in `secrets` never show a value.
///
/// When one changed, it is recorded as `"changed"`. Give such fields a digest of the secret (never the secret itself),
/// so a change can be seen.
pub fn changes_hiding(
    before: &serde_json::Value,
    after: &serde_json::Value,
    secrets: &[&str],
) -> serde_json::Value {
    let empty = serde_json::Map::new();
    let before = before.as_object().unwrap_or(&empty);
    let after = after.as_object().unwrap_or(&empty);
    let keys = after
        .keys()
        .chain(before.keys().filter(|k| !after.contains_key(*k)));
    keys.filter_map(|k| {
        let (from, to) = (before.get(k), after.get(k));
        if from == to {
            return None;
        }
        let change = if secrets.contains(&k.as_str()) {
            serde_json::json!("changed")
        } else {
            serde_json::json!({"from": from.cloned().unwrap_or_default(), "to": to.cloned().unwrap_or_default()})
        };
        Some((k.clone(), change))
    })
    .collect::<serde_json::Map<_, _>>()
    .into()
}

/// Filter for listing audit events; `None` fields do not filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    /// Realm.
    pub realm_id: Option<RealmId>,
    /// Exact action.
    pub action: Option<String>,
    /// Substring of the actor, case-insensitive.
    pub actor: Option<String>,
    /// Substring of the target, case-insensitive.
    pub target: Option<String>,
    /// Exactly this target (an object's own history).
    pub target_is: Option<String>,
    /// Events that target this object or concern it (an object's whole history).
    pub concerning: Option<String>,
    /// Inclusive lower bound.
    pub from: Option<UnixTime>,
    /// Exclusive upper bound.
    pub to: Option<UnixTime>,
}

impl AuditFilter {
    /// Builds a filter from console input; blank fields do not filter.
    ///
    /// # Errors
    /// A message fit for the user when a time is malformed or the range is empty.
    pub fn from_input(
        action: &str,
        actor: &str,
        target: &str,
        about: &str,
        from: &str,
        to: &str,
    ) -> Result<Self, String> {
        let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        let time = |s: &str| match s.trim() {
            "" => Ok(None),
            s => crate::clock::parse_console_time(s).map(Some),
        };
        let filter = AuditFilter {
            realm_id: None,
            action: text(action),
            actor: text(actor),
            target: text(target),
            target_is: None,
            concerning: text(about),
            from: time(from)?,
            to: time(to)?,
        };
        if let (Some(f), Some(t)) = (filter.from, filter.to)
            && f >= t
        {
            return Err("The start of the time range must be before its end.".into());
        }
        Ok(filter)
    }
}

#[cfg(test)]
mod tests {
    use super::{AuditSubject, changes, changes_hiding};

    #[test]
    fn changes_name_only_what_changed() {
        let before =
            serde_json::json!({"uri": "https://a", "token_ttl_secs": null, "enabled": true});
        let after = serde_json::json!({"uri": "https://a", "token_ttl_secs": 45, "enabled": true});
        assert_eq!(
            changes(&before, &after),
            serde_json::json!({"token_ttl_secs": {"from": null, "to": 45}})
        );
    }

    #[test]
    fn changes_count_fields_only_one_side_has() {
        let before = serde_json::json!({"a": 1, "gone": "x"});
        let after = serde_json::json!({"a": 1, "new": "y"});
        assert_eq!(
            changes(&before, &after),
            serde_json::json!({
                "new": {"from": null, "to": "y"},
                "gone": {"from": "x", "to": null},
            })
        );
    }

    #[test]
    fn secrets_are_recorded_as_changed_only() {
        let before = serde_json::json!({"password": "digest-1", "name": "a"});
        let after = serde_json::json!({"password": "digest-2", "name": "a"});
        let details = changes_hiding(&before, &after, &["password"]);
        assert_eq!(details, serde_json::json!({"password": "changed"}));
        assert!(!details.to_string().contains("digest"));
        assert_eq!(
            changes_hiding(&before, &before, &["password"]),
            serde_json::json!({})
        );
    }

    #[test]
    fn subjects_keep_the_stored_target_format() {
        let cases = [
            (AuditSubject::Client("bot".into()), "client:bot"),
            (AuditSubject::Resource("pay".into()), "resource:pay"),
            (AuditSubject::Agent("night".into()), "agent:night"),
            (AuditSubject::Realm("ops".into()), "realm:ops"),
            (AuditSubject::User("usr_1".into()), "user:usr_1"),
            (AuditSubject::Person("psn_1".into()), "person:psn_1"),
            (AuditSubject::Key("k1".into()), "key:k1"),
            (AuditSubject::Token("j1".into()), "token:j1"),
            (
                AuditSubject::McpServer("https://m.example/mcp".into()),
                "mcp_server:https://m.example/mcp",
            ),
            (AuditSubject::AuditLog, "audit"),
            (AuditSubject::Setup, "setup"),
            (
                AuditSubject::TrustedIssuer("https://idp.example".into()),
                "idp:https://idp.example",
            ),
        ];
        for (subject, target) in cases {
            assert_eq!(subject.target(), target);
        }
    }
}

/// The names found for a page of events. Objects deleted since (or not named by id) have none:
/// the log shows their id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditNames {
    /// `(realm, target)` → the object's name (a client's, resource's, person's, realm's or
    /// console user's).
    pub targets: HashMap<(String, String), String>,
    /// Actor (a console user's or person's email) → their display name.
    pub actors: HashMap<String, String>,
}

impl AuditNames {
    /// The name of `event`'s target, if it has one other than its id.
    pub fn target(&self, event: &AuditEvent) -> Option<&str> {
        self.targets
            .get(&(event.realm.clone(), event.target.clone()))
            .map(String::as_str)
    }

    /// The display name of `event`'s actor, if known.
    pub fn actor(&self, event: &AuditEvent) -> Option<&str> {
        self.actors.get(&event.actor).map(String::as_str)
    }
}

/// A page of the audit log with the names of what its events name.
#[derive(Debug, Clone)]
pub struct NamedAuditSlice {
    /// The events.
    pub slice: AuditSlice,
    /// Their objects' and actors' names.
    pub names: AuditNames,
}
