//! The security-review queue of the selected realm.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::review::{BulkResult, ReviewItemView};
use leptos::prelude::*;

/// Clients in a review state (`pending`, `approved`, `rejected`, `revoked`), newest first.
#[server(prefix = "/api", endpoint = "review/list")]
pub async fn review_queue(state: String) -> Result<Vec<ReviewItemView>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let state = authz::clients::ReviewState::parse(&state)
        .map_err(|_| AppError::Invalid("Unknown review state.".into()))?;
    let items = core.review_queue(&p, &realm, state).await?;
    Ok(items
        .iter()
        .map(|i| ssr::review::review_item_view(i, core.now()))
        .collect())
}

/// How many clients are in each review state (`pending`, `approved`, …).
#[server(prefix = "/api", endpoint = "review/counts")]
pub async fn review_counts() -> Result<Vec<(String, u64)>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(core
        .review_counts(&p, &realm)
        .await?
        .into_iter()
        .map(|(s, n)| (s.as_str().to_owned(), n))
        .collect())
}

/// Approves, rejects or revokes clients (`decision`), with one reason for all of them.
/// Approving one machine client may grant it access too: each `access` entry is a resource
/// slug followed by the scopes granted, space-separated.
#[server(prefix = "/api", endpoint = "review/decide")]
pub async fn decide_review(
    client_ids: Vec<String>,
    versions: Vec<i64>,
    decision: String,
    reason: String,
    #[server(default)] access: Vec<String>,
) -> Result<BulkResult, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    if versions.len() != client_ids.len() {
        return Err(AppError::Invalid(
            "Each client needs the version shown.".into(),
        ));
    }
    let decision =
        authz::clients::Decision::parse(&decision).map_err(|m| AppError::Invalid(m.into()))?;
    let access: Vec<authz::clients::AccessChoice> = access
        .iter()
        .map(|entry| {
            let (resource, scopes) = entry.trim().split_once(' ').unwrap_or((entry.trim(), ""));
            authz::clients::AccessChoice {
                resource: resource.to_owned(),
                scopes: Some(scopes.to_owned()),
            }
        })
        .collect();
    // Each decision holds only for the version of the client the reviewer saw.
    let clients: Vec<(String, i64)> = client_ids.into_iter().zip(versions).collect();
    let decided = core
        .decide_clients(&p, &realm, &clients, decision, &reason, &access, &meta)
        .await?;
    Ok(BulkResult {
        done: decided.done,
        failed: decided
            .failed
            .into_iter()
            .map(|(id, e)| (id, AppError::from(e).to_string()))
            .collect(),
    })
}
