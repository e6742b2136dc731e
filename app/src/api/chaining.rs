//! The authorization servers that trust the selected realm's ID-JAGs (identity chaining).
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::chaining::{TrustingServerView, TrustingServersView};
use leptos::prelude::*;

/// The realm's trusting servers.
#[server(prefix = "/api", endpoint = "trusting-servers/list", client = crate::tab::TabClient)]
pub async fn list_trusting_servers() -> Result<TrustingServersView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let items = core.list_trusting_servers(&p, &realm).await?;
    let name = authz::realms::RealmName::parse(&realm).map_err(|_| AppError::Internal)?;
    let issuer = core.issuer(&name);
    Ok(TrustingServersView {
        jwks_uri: format!("{issuer}/jwks"),
        token_endpoint: format!("{issuer}/token"),
        issuer,
        items: items
            .iter()
            .map(|t| ssr::chaining::trusting_server_view(t, core.now()))
            .collect(),
    })
}

/// Lists an authorization server that trusts the realm.
#[server(prefix = "/api", endpoint = "trusting-servers/create", client = crate::tab::TabClient)]
pub async fn create_trusting_server(
    issuer: String,
    display_name: String,
    resources: String,
    scopes: String,
    clients: String,
) -> Result<TrustingServerView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = authz::chaining::TrustingServerInput {
        issuer,
        display_name,
        resources,
        scopes,
        clients,
    };
    let t = core
        .create_trusting_server(&p, &realm, &input, &meta)
        .await?;
    Ok(ssr::chaining::trusting_server_view(&t, core.now()))
}

/// Changes a trusting server's settings.
#[server(prefix = "/api", endpoint = "trusting-servers/update", client = crate::tab::TabClient)]
pub async fn update_trusting_server(
    id: String,
    issuer: String,
    display_name: String,
    resources: String,
    scopes: String,
    clients: String,
) -> Result<TrustingServerView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = authz::chaining::TrustingServerInput {
        issuer,
        display_name,
        resources,
        scopes,
        clients,
    };
    let t = core
        .update_trusting_server(&p, &realm, &id, &input, &meta)
        .await?;
    Ok(ssr::chaining::trusting_server_view(&t, core.now()))
}

/// Enables or disables a trusting server.
#[server(prefix = "/api", endpoint = "trusting-servers/enabled", client = crate::tab::TabClient)]
pub async fn set_trusting_server_enabled(
    id: String,
    enabled: bool,
) -> Result<TrustingServerView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let t = core
        .set_trusting_server_enabled(&p, &realm, &id, enabled, &meta)
        .await?;
    Ok(ssr::chaining::trusting_server_view(&t, core.now()))
}

/// Removes a trusting server.
#[server(prefix = "/api", endpoint = "trusting-servers/delete", client = crate::tab::TabClient)]
pub async fn delete_trusting_server(id: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core.delete_trusting_server(&p, &realm, &id, &meta).await?)
}
