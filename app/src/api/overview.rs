//! The Overview of the selected realm.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::overview::OverviewView;
use leptos::prelude::*;

/// The selected realm's endpoints and counts (only those the role may see).
#[server(prefix = "/api", endpoint = "overview", client = crate::tab::TabClient)]
pub async fn realm_overview() -> Result<OverviewView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let o = core.realm_overview(&p, &realm).await?;
    Ok(OverviewView {
        endpoints: o
            .endpoints
            .into_iter()
            .map(|e| (e.label.to_owned(), e.url))
            .collect(),
        resources: o.resources,
        clients: o.clients,
        agents: o.agents,
        mcp_agents: o.mcp_agents,
        grants: o.grants,
        grants_used: o.grants_used,
        submissions_waiting: o.submissions_waiting,
        rejections: o
            .rejections
            .into_iter()
            .map(|r| crate::types::overview::RejectionView {
                kind: match r.kind {
                    authz::overview::RejectedKind::Resource => "resource",
                    authz::overview::RejectedKind::Client => "client",
                }
                .to_owned(),
                id: r.id,
                name: r.name,
                reason: r.reason,
                by: r.by.unwrap_or_default(),
                at: ssr::moment(core.now(), r.at),
                registered: ssr::moment(core.now(), r.registered),
            })
            .collect(),
    })
}
