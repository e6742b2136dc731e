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
    "token.exchange",
    "token.exchange_denied",
    "registry.update",
    "registry.settings",
    "registry.publish",
    "registry.rollback",
    "registry.request",
    "registry.reject",
    "registry.withdraw",
    "registry.member_add",
    "registry.member_remove",
    "registry.drift_forget",
];

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

#[cfg(test)]
mod tests {
    #[cfg(feature = "ssr")]
    #[test]
    fn audit_actions_match_the_core() {
        assert_eq!(super::AUDIT_ACTIONS, authz::audit::action::ALL);
    }
}
