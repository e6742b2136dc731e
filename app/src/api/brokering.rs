//! A realm's sign-in providers for its people (brokering), for admins of its people. Every
//! change answers with the realm's sign-in as it is afterwards.
// One server-function argument per form field, and `#[server]` copies the signature into the
// browser build, so the allow is module-wide.
#![allow(clippy::too_many_arguments)]
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::sso::{RealmSignInView, SsoDiscoveryView};
use leptos::prelude::*;

/// The realm's sign-in as it is now.
#[cfg(feature = "ssr")]
async fn view_of(
    core: &authz::Core,
    p: &authz::Principal,
    realm: &str,
) -> Result<RealmSignInView, AppError> {
    let (realm, providers) = core.list_realm_providers(p, realm).await?;
    Ok(RealmSignInView {
        realm: realm.display_name.clone(),
        password_sign_in: realm.password_sign_in,
        providers: providers
            .iter()
            .map(|l| ssr::sso::realm_provider_view(core, &realm, l))
            .collect(),
    })
}

/// The form's fields as the core takes them.
#[cfg(feature = "ssr")]
fn input(
    display_name: String,
    button_text: String,
    issuer: String,
    client_id: String,
    client_secret: String,
    clear_secret: &str,
    (scopes, groups_claim, trust_email, group_mapping): (String, String, &str, String),
) -> authz::sso::SsoProviderInput {
    authz::sso::SsoProviderInput {
        display_name,
        button_text,
        issuer,
        client_id,
        client_secret,
        clear_secret: clear_secret == "on",
        scopes,
        groups_claim,
        trust_email: trust_email == "on",
        group_mapping,
        ..Default::default()
    }
}

/// The realm's sign-in providers for its people, and whether the password still works.
#[server(prefix = "/api", endpoint = "realm-sign-in/get", client = crate::tab::TabClient)]
pub async fn realm_sign_in() -> Result<RealmSignInView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    view_of(&core, &p, &realm).await
}

/// Adds a sign-in provider for the realm's people.
#[server(prefix = "/api", endpoint = "realm-sign-in/create", client = crate::tab::TabClient)]
pub async fn create_realm_provider(
    display_name: String,
    #[server(default)] button_text: String,
    issuer: String,
    client_id: String,
    #[server(default)] client_secret: String,
    #[server(default)] scopes: String,
    #[server(default)] groups_claim: String,
    #[server(default)] trust_email: String,
    #[server(default)] group_mapping: String,
) -> Result<RealmSignInView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = input(
        display_name,
        button_text,
        issuer,
        client_id,
        client_secret,
        "",
        (scopes, groups_claim, &trust_email, group_mapping),
    );
    core.create_realm_provider(&p, &realm, &input, &meta)
        .await?;
    view_of(&core, &p, &realm).await
}

/// Changes a realm's sign-in provider (an empty secret keeps the stored one).
#[server(prefix = "/api", endpoint = "realm-sign-in/update", client = crate::tab::TabClient)]
pub async fn update_realm_provider(
    id: String,
    display_name: String,
    #[server(default)] button_text: String,
    issuer: String,
    client_id: String,
    #[server(default)] client_secret: String,
    #[server(default)] clear_secret: String,
    #[server(default)] scopes: String,
    #[server(default)] groups_claim: String,
    #[server(default)] trust_email: String,
    #[server(default)] group_mapping: String,
) -> Result<RealmSignInView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = input(
        display_name,
        button_text,
        issuer,
        client_id,
        client_secret,
        &clear_secret,
        (scopes, groups_claim, &trust_email, group_mapping),
    );
    core.update_realm_provider(&p, &realm, &id, &input, &meta)
        .await?;
    view_of(&core, &p, &realm).await
}

/// Enables or disables a realm's sign-in provider.
#[server(prefix = "/api", endpoint = "realm-sign-in/enabled", client = crate::tab::TabClient)]
pub async fn set_realm_provider_enabled(
    id: String,
    enabled: bool,
) -> Result<RealmSignInView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    core.set_realm_provider_enabled(&p, &realm, &id, enabled, &meta)
        .await?;
    view_of(&core, &p, &realm).await
}

/// Removes a realm's sign-in provider nobody comes from.
#[server(prefix = "/api", endpoint = "realm-sign-in/delete", client = crate::tab::TabClient)]
pub async fn delete_realm_provider(id: String) -> Result<RealmSignInView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    core.delete_realm_provider(&p, &realm, &id, &meta).await?;
    view_of(&core, &p, &realm).await
}

/// Turns the realm's password sign-in on or off.
#[server(prefix = "/api", endpoint = "realm-sign-in/password", client = crate::tab::TabClient)]
pub async fn set_realm_password_sign_in(on: bool) -> Result<RealmSignInView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    core.set_realm_password_sign_in(&p, &realm, on, &meta)
        .await?;
    view_of(&core, &p, &realm).await
}

/// Runs discovery at a realm's provider now: what it found, or why it failed.
#[server(prefix = "/api", endpoint = "realm-sign-in/test", client = crate::tab::TabClient)]
pub async fn test_realm_provider(id: String) -> Result<Result<SsoDiscoveryView, String>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(core
        .test_realm_provider(&p, &realm, &id)
        .await?
        .map(ssr::sso::discovery_view))
}
