//! The audit log.
use crate::error::AppError;
use crate::types::{AuditPage, AuditQuery};
#[cfg(feature = "ssr")]
use crate::{ssr, types::PAGE_SIZE};
use leptos::prelude::*;

/// One page of audit events matching the filter.
#[server(prefix = "/api", endpoint = "audit/list")]
pub async fn list_audit(query: AuditQuery, page: u32) -> Result<AuditPage, AppError> {
    let (core, p, _) = ssr::context().await?;
    let filter = ssr::audit_filter(&query)?;
    let realm = Some(query.realm.as_str()).filter(|r| !r.is_empty());
    let found = core
        .list_audit(
            &p,
            realm,
            filter,
            authz::storage::Page::new(page, PAGE_SIZE),
        )
        .await?;
    Ok(AuditPage {
        items: found.items.iter().map(ssr::audit_view).collect(),
        total: found.total,
        page,
        page_size: PAGE_SIZE,
    })
}
