//! The security-review queue of the selected realm.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::review::{BulkResult, ReviewInboxView};
use leptos::prelude::*;

/// One page of the review inbox: self-registered clients in a review state (`pending`,
/// `approved`, …) across every realm or in `realm` (empty: all), of one registration `kind`
/// (`dynamic`, `metadata_document`; empty: both), showing a risk `signal` (`web_redirects`,
/// `private_use`, `machine`, `crowded`; empty: any), matching `q`, newest first (`order` =
/// `oldest`: oldest first; `risk`: riskiest first), after the cursor `after`.
#[server(prefix = "/api", endpoint = "review/inbox", client = crate::tab::TabClient)]
pub async fn review_inbox(
    state: String,
    #[server(default)] realm: String,
    #[server(default)] kind: String,
    #[server(default)] q: String,
    #[server(default)] order: String,
    #[server(default)] signal: String,
    #[server(default)] after: String,
) -> Result<ReviewInboxView, AppError> {
    let (core, p, _) = ssr::context().await?;
    let query = inbox_query(&state, realm, &kind, q, &order, &signal, &after)?;
    let page = core.review_inbox(&p, &query).await?;
    let now = core.now();
    Ok(ReviewInboxView {
        items: page
            .items
            .iter()
            .map(|i| ssr::review::inbox_item_view(i, now))
            .collect(),
        next: page.next.map(|c| c.encode()),
    })
}

/// How many self-registered clients matching the inbox's filters (`realm`, `kind`, `q`,
/// `signal`, as [`review_inbox`] reads them) are in each review state (`pending`, `approved`, …):
/// the tabs follow the search.
#[server(prefix = "/api", endpoint = "review/counts", client = crate::tab::TabClient)]
pub async fn review_counts(
    #[server(default)] realm: String,
    #[server(default)] kind: String,
    #[server(default)] q: String,
    #[server(default)] signal: String,
) -> Result<Vec<(String, u64)>, AppError> {
    let (core, p, _) = ssr::context().await?;
    let query = inbox_query("pending", realm, &kind, q, "", &signal, "")?;
    Ok(core
        .review_inbox_counts(&p, &query)
        .await?
        .into_iter()
        .map(|(s, n)| (s.as_str().to_owned(), n))
        .collect())
}

/// An inbox query from a form's fields (empty ones: no filter, newest first, the first page).
#[cfg(feature = "ssr")]
fn inbox_query(
    state: &str,
    realm: String,
    kind: &str,
    q: String,
    order: &str,
    signal: &str,
    after: &str,
) -> Result<authz::clients::InboxQuery, AppError> {
    use authz::clients::{
        InboxCursor, InboxOrder, InboxQuery, RegistrationKind, ReviewState, RiskSignal,
    };
    let state = ReviewState::parse(state).map_err(|_| ssr::invalid("Unknown review state."))?;
    let kind = match kind {
        "" => None,
        "dynamic" => Some(RegistrationKind::Dynamic),
        "metadata_document" => Some(RegistrationKind::MetadataDocument),
        _ => return Err(ssr::invalid("Unknown registration kind.")),
    };
    let after = match after {
        "" => None,
        text => Some(InboxCursor::decode(text).ok_or_else(|| {
            ssr::invalid("That page no longer exists: start from the first page.")
        })?),
    };
    Ok(InboxQuery {
        state,
        realm: (!realm.is_empty()).then_some(realm),
        kind,
        search: (!q.trim().is_empty()).then_some(q),
        signal: match signal {
            "" => None,
            s => Some(RiskSignal::parse(s).ok_or_else(|| ssr::invalid("Unknown risk signal."))?),
        },
        order: match order {
            "" | "newest" => InboxOrder::Newest,
            "oldest" => InboxOrder::Oldest,
            "risk" => InboxOrder::Riskiest,
            _ => return Err(ssr::invalid("Unknown order.")),
        },
        after,
    })
}

/// Approves, rejects or revokes clients (`decision`), with one reason for all of them; each
/// client is named by its realm (empty: the selected realm), `client_id` and the version shown.
/// Approving one machine client may grant it access too: each `access` entry is a resource
/// slug followed by the scopes granted, space-separated.
#[server(prefix = "/api", endpoint = "review/decide", client = crate::tab::TabClient)]
pub async fn decide_review(
    realms: Vec<String>,
    client_ids: Vec<String>,
    versions: Vec<i64>,
    decision: String,
    reason: String,
    #[server(default)] access: Vec<String>,
) -> Result<BulkResult, AppError> {
    let (core, p, meta) = ssr::context().await?;
    if versions.len() != client_ids.len() || realms.len() != client_ids.len() {
        return Err(ssr::invalid(
            "Each client needs its realm and the version shown.",
        ));
    }
    let decision = authz::clients::Decision::parse(&decision).map_err(ssr::invalid)?;
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
    // Each decision holds only for the version of the client the reviewer saw; the inbox
    // mixes realms, which the core checks as one list (limits, and who may decide each).
    let selected = if realms.iter().any(String::is_empty) {
        ssr::tab_realm(&core).await?
    } else {
        String::new()
    };
    let realms: Vec<String> = realms
        .into_iter()
        // An empty realm is the selected one (a client's own page).
        .map(|r| if r.is_empty() { selected.clone() } else { r })
        .collect();
    let clients: Vec<(&str, &str, i64)> = realms
        .iter()
        .zip(&client_ids)
        .zip(&versions)
        .map(|((realm, id), version)| (realm.as_str(), id.as_str(), *version))
        .collect();
    let decided = core
        .decide_clients_in_realms(&p, &clients, decision, &reason, &access, &meta)
        .await?;
    Ok(BulkResult {
        done: decided.done,
        failed: decided
            .failed
            .into_iter()
            // Reported in the answer, not as the answer's status: the others were decided.
            .map(|(id, e)| (id, crate::error::classify(e).1.to_string()))
            .collect(),
    })
}
