//! Access grants: which client may get tokens for which resource of the selected realm.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::access::{AccessView, GrantPage};
use leptos::prelude::*;

/// Every resource of the realm with the client's access to it.
#[server(prefix = "/api", endpoint = "access/client", client = crate::tab::TabClient)]
pub async fn client_access(
    client_id: String,
    #[server(default)] realm: String,
) -> Result<Vec<AccessView>, AppError> {
    // The review inbox names the client's realm (whatever the tab shows); other screens use
    // the selected one.
    let realm = if realm.is_empty() {
        ssr::realm_context().await?.3
    } else {
        realm
    };
    let (core, p, _) = ssr::context().await?;
    Ok(core
        .client_access(&p, &realm, &client_id)
        .await?
        .iter()
        .map(|a| ssr::access::access_view(a, core.now()))
        .collect())
}

/// One page of the clients that may get tokens for a resource, matching `query`.
#[server(prefix = "/api", endpoint = "access/resource", client = crate::tab::TabClient)]
pub async fn resource_access(
    resource: String,
    query: String,
    after: String,
    before: String,
) -> Result<GrantPage, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let found = core
        .resource_access(
            &p,
            &realm,
            &resource,
            &query,
            ssr::key_page(&after, &before),
        )
        .await?;
    Ok(ssr::keyed(&found, |g| {
        ssr::access::grant_view(g, core.now())
    }))
}

/// Grants a client access to a resource with `scopes` (space-separated), or changes the scopes
/// of its grant.
#[server(prefix = "/api", endpoint = "access/grant", client = crate::tab::TabClient)]
pub async fn grant_access(
    client_id: String,
    resource: String,
    scopes: String,
) -> Result<AccessView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let g = core
        .grant_access(&p, &realm, &client_id, &resource, Some(&scopes), &meta)
        .await?;
    Ok(ssr::access::granted_view(g, core.now()))
}

/// Grants a client access it does not have yet (the resource page's "Grant a client"); a
/// client that has access already is refused, naming its scopes.
#[server(prefix = "/api", endpoint = "access/add", client = crate::tab::TabClient)]
pub async fn add_access(
    client_id: String,
    resource: String,
    scopes: String,
) -> Result<AccessView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let g = core
        .add_access(&p, &realm, &client_id, &resource, Some(&scopes), &meta)
        .await?;
    Ok(ssr::access::granted_view(g, core.now()))
}

/// Ends a client's access to a resource.
#[server(prefix = "/api", endpoint = "access/revoke", client = crate::tab::TabClient)]
pub async fn revoke_access(client_id: String, resource: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core
        .revoke_access(&p, &realm, &client_id, &resource, &meta)
        .await?)
}
