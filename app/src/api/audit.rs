//! The audit log.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
#[cfg(feature = "ssr")]
use crate::types::PAGE_SIZE;
use crate::types::audit::{AuditPage, AuditQuery};
#[cfg(feature = "ssr")]
use authz::audit::{AuditCursor, AuditSubject, AuditWindow};
use leptos::prelude::*;

/// One page of audit events matching the filter: the newest, or those older than `before`, or
/// those newer than `after` (ids from a previous page).
#[server(prefix = "/api", endpoint = "audit/list", client = crate::tab::TabClient)]
pub async fn list_audit(
    query: AuditQuery,
    before: Option<i64>,
    after: Option<i64>,
) -> Result<AuditPage, AppError> {
    let (core, p, _) = ssr::context().await?;
    let filter = ssr::audit::audit_filter(&query, core.now())?;
    let realm = Some(query.realm.as_str()).filter(|r| !r.is_empty());
    let cursor = match (before, after) {
        (Some(_), Some(_)) => {
            return Err(ssr::invalid(
                "Page either older or newer than an event, not both.",
            ));
        }
        (Some(id), None) => AuditCursor::Before(id),
        (None, Some(id)) => AuditCursor::After(id),
        (None, None) => AuditCursor::Newest,
    };
    let found = core
        .audit_log_page(&p, realm, filter, AuditWindow::page(cursor, PAGE_SIZE))
        .await?;
    Ok(ssr::audit::audit_page(
        &found,
        core.now(),
        cursor != AuditCursor::Newest,
    ))
}

/// Events shown in an object's history on its page.
pub const HISTORY_SIZE: u32 = 10;

/// The newest events of one object: `kind` is `client`, `resource` or `agent` (of the selected
/// realm), `realm` or `user`; `id` its `client_id`, slug, name or user id.
#[server(prefix = "/api", endpoint = "audit/history", client = crate::tab::TabClient)]
pub async fn history(kind: String, id: String) -> Result<AuditPage, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let subject = match kind.as_str() {
        "client" => AuditSubject::Client(id),
        "resource" => AuditSubject::Resource(id),
        "agent" => AuditSubject::Agent(id),
        // No name: the realm the console works in (the settings page).
        "realm" if id.is_empty() => AuditSubject::Realm(realm.clone()),
        "realm" => AuditSubject::Realm(id),
        "user" => AuditSubject::User(id),
        "person" => AuditSubject::Person(id),
        "registry_server" => AuditSubject::RegistryServer(id),
        _ => return Err(ssr::invalid("Unknown kind of object.")),
    };
    let found = core
        .audit_history(
            &p,
            &realm,
            &subject,
            AuditWindow::page(AuditCursor::Newest, HISTORY_SIZE),
        )
        .await?;
    // The newest events only: a history offers no "newer".
    let mut page = ssr::audit::audit_page(&found, core.now(), false);
    page.newer = None;
    page.about = subject.target();
    Ok(page)
}
