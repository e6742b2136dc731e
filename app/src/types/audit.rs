//! The audit log (`api::audit`, `pages::audit`, the history panels).
use serde::{Deserialize, Serialize};

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
    /// The actor's display name, when known (empty otherwise).
    pub actor_name: String,
    /// Action.
    pub action: String,
    /// Target.
    pub target: String,
    /// The target's name (a client's, resource's, person's…), when it has one other than its
    /// id (empty otherwise, e.g. once deleted).
    pub target_name: String,
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

/// Every audit action with its area (the filter groups by it) and what it says in words; a
/// test keeps the actions equal to the core's list, in its order.
pub const AUDIT_ACTIONS: &[(&str, &str, &str)] = &[
    ("realm.create", "Realms", "Realm created"),
    ("realm.update", "Realms", "Realm changed"),
    ("realm.enable", "Realms", "Realm enabled"),
    ("realm.disable", "Realms", "Realm disabled"),
    ("user.create", "Console users", "Console user created"),
    ("user.role_change", "Console users", "Role changed"),
    ("user.disable", "Console users", "Console user disabled"),
    ("user.enable", "Console users", "Console user enabled"),
    (
        "user.password_reset_link",
        "Console users",
        "Password reset link issued",
    ),
    ("user.password_reset", "Console users", "Password reset"),
    ("user.password_change", "Console users", "Password changed"),
    ("setup.complete", "Console users", "First admin set up"),
    ("setup.link_issued", "Console users", "Setup link issued"),
    (
        "session.login",
        "Console users",
        "Console sign-in (password or provider)",
    ),
    (
        "session.logout",
        "Console users",
        "Signed out of the console",
    ),
    ("audit.export", "Audit log", "Audit log exported"),
    ("key.create", "Signing keys", "Signing key created"),
    ("key.rotate", "Signing keys", "Signing keys rotated"),
    ("resource.create", "Resources", "Resource registered"),
    (
        "resource.submit",
        "Resources",
        "Resource submitted by a developer",
    ),
    ("resource.update", "Resources", "Resource changed"),
    ("resource.delete", "Resources", "Resource deleted"),
    ("resource.withdraw", "Resources", "Submission withdrawn"),
    ("resource.reject", "Resources", "Submission rejected"),
    ("resource.set_default", "Resources", "Default audience set"),
    ("mcp.check", "Resources", "MCP server checked"),
    ("client.create", "Clients", "Client created"),
    ("client.update", "Clients", "Client changed"),
    ("client.secret_rotate", "Clients", "Client secret rotated"),
    ("client.delete", "Clients", "Client deleted"),
    ("token.revoke", "Tokens", "Token revoked"),
    ("agent.create", "Agents", "Agent created"),
    ("agent.update", "Agents", "Agent changed"),
    ("agent.delete", "Agents", "Agent deleted"),
    ("access.grant", "Access", "Access granted"),
    ("access.update", "Access", "Access changed"),
    ("access.revoke", "Access", "Access revoked"),
    (
        "client.register",
        "Security review",
        "Client registered itself",
    ),
    (
        "client.registration_update",
        "Security review",
        "Self-registered client changed",
    ),
    ("client.approve", "Security review", "Client approved"),
    ("client.reject", "Security review", "Client rejected"),
    ("client.revoke", "Security review", "Client revoked"),
    ("client.restore", "Security review", "Client restored"),
    (
        "client.expire",
        "Security review",
        "Client expired unreviewed",
    ),
    (
        "registration.initial_token",
        "Security review",
        "Initial access token issued",
    ),
    ("person.create", "People", "Person added"),
    ("person.update", "People", "Person changed"),
    ("person.password_set", "People", "Person's password set"),
    ("person.disable", "People", "Person disabled"),
    ("person.enable", "People", "Person enabled"),
    (
        "authorize.login",
        "Sign-in and consent",
        "Signed in at the realm",
    ),
    ("consent.grant", "Sign-in and consent", "Consent given"),
    ("consent.deny", "Sign-in and consent", "Consent refused"),
    ("consent.revoke", "Sign-in and consent", "Consent withdrawn"),
    (
        "authorize.code",
        "Sign-in and consent",
        "Authorization code issued",
    ),
    ("token.code_replay", "Tokens", "Authorization code replayed"),
    ("token.refresh_reuse", "Tokens", "Refresh token reused"),
    ("token.exchange", "Tokens", "Token exchanged"),
    ("token.exchange_denied", "Tokens", "Token exchange refused"),
    ("registry.update", "MCP registry", "Registry draft changed"),
    (
        "registry.settings",
        "MCP registry",
        "Registry settings changed",
    ),
    ("registry.publish", "MCP registry", "Release published"),
    ("registry.rollback", "MCP registry", "Release rolled back"),
    (
        "registry.request",
        "MCP registry",
        "Release requested for approval",
    ),
    (
        "registry.reject",
        "MCP registry",
        "Release request rejected",
    ),
    (
        "registry.withdraw",
        "MCP registry",
        "Release request withdrawn",
    ),
    (
        "registry.member_add",
        "MCP registry",
        "Member added to a ring or unit",
    ),
    (
        "registry.member_remove",
        "MCP registry",
        "Member removed from a ring or unit",
    ),
    (
        "registry.drift_forget",
        "MCP registry",
        "Drift reports forgotten",
    ),
    ("mail.failed", "Notifications", "E-mail not sent"),
    (
        "trusted_issuer.create",
        "Identity providers",
        "Identity provider trusted",
    ),
    (
        "trusted_issuer.update",
        "Identity providers",
        "Identity provider changed",
    ),
    (
        "trusted_issuer.enable",
        "Identity providers",
        "Identity provider enabled",
    ),
    (
        "trusted_issuer.disable",
        "Identity providers",
        "Identity provider disabled",
    ),
    (
        "trusted_issuer.delete",
        "Identity providers",
        "Identity provider removed",
    ),
    ("person.link", "People", "Identity linked to a person"),
    ("person.unlink", "People", "Identity unlinked from a person"),
    ("token.id_jag", "Tokens", "ID-JAG traded for a token"),
    ("token.id_jag_denied", "Tokens", "ID-JAG refused"),
    (
        "sso_provider.create",
        "Single sign-on",
        "Sign-in provider added",
    ),
    (
        "sso_provider.update",
        "Single sign-on",
        "Sign-in provider changed",
    ),
    (
        "sso_provider.enable",
        "Single sign-on",
        "Sign-in provider enabled",
    ),
    (
        "sso_provider.disable",
        "Single sign-on",
        "Sign-in provider disabled",
    ),
    (
        "sso_provider.delete",
        "Single sign-on",
        "Sign-in provider removed",
    ),
    (
        "console.password_sign_in",
        "Single sign-on",
        "Password sign-in changed",
    ),
    (
        "user.break_glass",
        "Console users",
        "Break-glass admin changed",
    ),
    (
        "user.sso_link",
        "Console users",
        "Console user linked to a sign-in provider",
    ),
    (
        "session.second_factor",
        "Console users",
        "Second sign-in step",
    ),
    (
        "console.second_factor",
        "Single sign-on",
        "Second-factor requirement changed",
    ),
    (
        "user.second_factor_enrol",
        "Console users",
        "Authenticator app set up",
    ),
    ("user.recovery_codes", "Console users", "New recovery codes"),
    (
        "user.second_factor_remove",
        "Console users",
        "Authenticator app removed",
    ),
    (
        "trusting_server.create",
        "Identity providers",
        "Trusting authorization server added",
    ),
    (
        "trusting_server.update",
        "Identity providers",
        "Trusting authorization server changed",
    ),
    (
        "trusting_server.enable",
        "Identity providers",
        "Trusting authorization server enabled",
    ),
    (
        "trusting_server.disable",
        "Identity providers",
        "Trusting authorization server disabled",
    ),
    (
        "trusting_server.delete",
        "Identity providers",
        "Trusting authorization server removed",
    ),
    (
        "token.id_jag_issue",
        "Tokens",
        "ID-JAG issued for another server",
    ),
    (
        "gateway.tool_change",
        "Gateway",
        "Gateway found a tool new, changed or gone",
    ),
    ("gateway.tool_accept", "Gateway", "Tool definition accepted"),
    ("gateway.attach", "Gateway", "Server attached to an agent"),
    ("gateway.detach", "Gateway", "Server detached from an agent"),
    ("gateway.call", "Gateway", "Call through the gateway"),
    (
        "gateway.approval_request",
        "Gateway",
        "Gateway call waits for approval",
    ),
    (
        "gateway.approval_approve",
        "Gateway",
        "Gateway call approved",
    ),
    ("gateway.approval_deny", "Gateway", "Gateway call denied"),
    (
        "gateway.connect",
        "Gateway",
        "Person connected an upstream account",
    ),
    (
        "gateway.disconnect",
        "Gateway",
        "Upstream account disconnected",
    ),
    (
        "gateway.client_secret",
        "Gateway",
        "Upstream client secret changed",
    ),
];

/// The periods the audit filter offers, ending now: (value, words, seconds).
pub const AUDIT_PERIODS: &[(&str, &str, i64)] = &[
    ("1h", "Last hour", 3_600),
    ("24h", "Last 24 hours", 86_400),
    ("7d", "Last 7 days", 7 * 86_400),
    ("30d", "Last 30 days", 30 * 86_400),
];

/// What `action` says in words (the action itself when it is unknown, e.g. from a newer
/// server).
pub fn action_label(action: &str) -> &str {
    AUDIT_ACTIONS
        .iter()
        .find(|(a, _, _)| *a == action)
        .map_or(action, |(_, _, label)| label)
}

/// The areas of [`AUDIT_ACTIONS`], in order of first appearance, each with its actions.
pub fn action_areas() -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
    let mut areas: Vec<(&'static str, Vec<(&'static str, &'static str)>)> = Vec::new();
    for (action, area, label) in AUDIT_ACTIONS {
        match areas.iter_mut().find(|(a, _)| a == area) {
            Some((_, list)) => list.push((action, label)),
            None => areas.push((area, vec![(action, label)])),
        }
    }
    areas
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
    /// A period ending now (`1h`, `24h`, `7d`, `30d`); `from` wins when both are given.
    #[serde(default)]
    pub since: String,
    /// From (`YYYY-MM-DDTHH:MM` UTC, inclusive).
    #[serde(default)]
    pub from: String,
    /// To (`YYYY-MM-DDTHH:MM` UTC, exclusive).
    #[serde(default)]
    pub to: String,
}

#[cfg(test)]
mod tests {
    #[cfg(feature = "ssr")]
    #[test]
    fn audit_actions_match_the_core() {
        let actions: Vec<&str> = super::AUDIT_ACTIONS.iter().map(|(a, _, _)| *a).collect();
        assert_eq!(actions, authz::audit::action::ALL);
    }
}
