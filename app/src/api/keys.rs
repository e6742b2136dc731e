//! Signing keys of the selected realm.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::keys::KeysOverview;
use leptos::prelude::*;

/// The realm's keys and JWKS URL.
#[server(prefix = "/api", endpoint = "keys/list", client = crate::tab::TabClient)]
pub async fn list_keys() -> Result<KeysOverview, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let keys = core.list_signing_keys(&p, &realm).await?;
    let name = authz::realms::RealmName::parse(&realm).map_err(|_| AppError::Internal)?;
    Ok(KeysOverview {
        jwks_uri: format!("{}/jwks", core.issuer(&name)),
        keys: keys
            .iter()
            .map(|k| ssr::keys::key_view(k, core.now()))
            .collect(),
    })
}

/// Rotates the realm's signing keys.
#[server(prefix = "/api", endpoint = "keys/rotate", client = crate::tab::TabClient)]
pub async fn rotate_keys() -> Result<Vec<String>, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core.rotate_signing_keys(&p, &realm, &meta).await?)
}
