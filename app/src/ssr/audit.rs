//! The audit log as the console shows it, and the console's audit filter parsed for the core.
use super::invalid;
use crate::error::AppError;
use crate::types::audit::{AuditPage, AuditQuery, AuditView};

/// View of an audit event, with the names `names` found for it.
pub fn audit_view(
    e: &authz::audit::AuditEvent,
    names: &authz::audit::AuditNames,
    now: i64,
) -> AuditView {
    AuditView {
        actor_name: names.actor(e).unwrap_or_default().to_owned(),
        target_name: names.target(e).unwrap_or_default().to_owned(),
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
pub fn audit_page(named: &authz::audit::NamedAuditSlice, now: i64, paged: bool) -> AuditPage {
    let found = &named.slice;
    AuditPage {
        newer: found
            .newer
            .then(|| found.items.first().map(|e| e.id))
            .flatten(),
        older: found
            .older
            .then(|| found.items.last().map(|e| e.id))
            .flatten(),
        items: found
            .items
            .iter()
            .map(|e| audit_view(e, &named.names, now))
            .collect(),
        total: found.total,
        total_exact: found.total_exact,
        paged,
        about: String::new(),
    }
}

/// Parses the console's audit filter into the core's; a period (`since`) ends at `now`.
///
/// # Errors
/// `Invalid` for a malformed time or an unknown period.
pub fn audit_filter(q: &AuditQuery, now: i64) -> Result<authz::audit::AuditFilter, AppError> {
    let since = match q.since.trim() {
        "" => None,
        s => Some(
            crate::types::audit::AUDIT_PERIODS
                .iter()
                .find(|(v, _, _)| *v == s)
                .map(|(_, _, secs)| now - secs)
                .ok_or_else(|| invalid("Pick a period from the list."))?,
        ),
    };
    let mut filter = authz::audit::AuditFilter::from_input(
        &q.action, &q.actor, &q.target, &q.about, &q.from, &q.to,
    )
    .map_err(|m| invalid(&m))?;
    if filter.from.is_none() {
        filter.from = since;
    }
    Ok(filter)
}
