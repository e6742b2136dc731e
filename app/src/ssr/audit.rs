//! The audit log as the console shows it, and the console's audit filter parsed for the core.
use super::invalid;
use crate::error::AppError;
use crate::types::audit::{AuditPage, AuditQuery, AuditView};

/// View of an audit event.
pub fn audit_view(e: &authz::audit::AuditEvent, now: i64) -> AuditView {
    AuditView {
        id: e.id,
        time: authz::clock::rfc3339(e.occurred_at),
        ago: authz::clock::ago(now, e.occurred_at),
        realm: e.realm.clone(),
        actor: e.actor.clone(),
        action: e.action.clone(),
        target: e.target.clone(),
        outcome: e.outcome.as_str().to_owned(),
        request_id: e.request_id.clone().unwrap_or_default(),
        client_ip: e.client_ip.clone().unwrap_or_default(),
        details: e.details.to_string(),
    }
}

/// A slice of the audit log as the console pages it (`paged`: not the newest page).
pub fn audit_page(found: &authz::audit::AuditSlice, now: i64, paged: bool) -> AuditPage {
    AuditPage {
        newer: found
            .newer
            .then(|| found.items.first().map(|e| e.id))
            .flatten(),
        older: found
            .older
            .then(|| found.items.last().map(|e| e.id))
            .flatten(),
        items: found.items.iter().map(|e| audit_view(e, now)).collect(),
        total: found.total,
        total_exact: found.total_exact,
        paged,
        about: String::new(),
    }
}

/// Parses the console's audit filter into the core's.
///
/// # Errors
/// `Invalid` for a malformed time.
pub fn audit_filter(q: &AuditQuery) -> Result<authz::audit::AuditFilter, AppError> {
    authz::audit::AuditFilter::from_input(&q.action, &q.actor, &q.target, &q.about, &q.from, &q.to)
        .map_err(|m| invalid(&m))
}
