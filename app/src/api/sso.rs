//! Console sign-in providers (single sign-on), for admins.
// One server-function argument per form field, and `#[server]` copies the signature into the
// browser build, so the allow is module-wide.
#![allow(clippy::too_many_arguments)]
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::sso::{SsoDiscoveryView, SsoProviderView};
use leptos::prelude::*;

/// The console's sign-in providers.
#[server(prefix = "/api", endpoint = "sso/list", client = crate::tab::TabClient)]
pub async fn list_sso_providers() -> Result<Vec<SsoProviderView>, AppError> {
    let (core, p, _) = ssr::context().await?;
    Ok(core
        .list_sso_providers(&p)
        .await?
        .iter()
        .map(|s| ssr::sso::sso_provider_view(&core, s))
        .collect())
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
    scopes: String,
    groups_claim: String,
    (admin_groups, reviewer_groups, developer_groups): (String, String, String),
    (trust_email, second_factor_amr, second_factor_acr): (&str, String, String),
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
        admin_groups,
        reviewer_groups,
        developer_groups,
        trust_email: trust_email == "on",
        second_factor_amr,
        second_factor_acr,
        group_mapping: String::new(),
    }
}

/// Adds a sign-in provider.
#[server(prefix = "/api", endpoint = "sso/create", client = crate::tab::TabClient)]
pub async fn create_sso_provider(
    display_name: String,
    #[server(default)] button_text: String,
    issuer: String,
    client_id: String,
    #[server(default)] client_secret: String,
    #[server(default)] scopes: String,
    #[server(default)] groups_claim: String,
    #[server(default)] admin_groups: String,
    #[server(default)] reviewer_groups: String,
    #[server(default)] developer_groups: String,
    #[server(default)] trust_email: String,
    #[server(default)] second_factor_amr: String,
    #[server(default)] second_factor_acr: String,
) -> Result<SsoProviderView, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let input = input(
        display_name,
        button_text,
        issuer,
        client_id,
        client_secret,
        "",
        scopes,
        groups_claim,
        (admin_groups, reviewer_groups, developer_groups),
        (&trust_email, second_factor_amr, second_factor_acr),
    );
    let s = core.create_sso_provider(&p, &input, &meta).await?;
    Ok(ssr::sso::sso_provider_view(&core, &s))
}

/// Changes a sign-in provider (an empty secret keeps the stored one).
#[server(prefix = "/api", endpoint = "sso/update", client = crate::tab::TabClient)]
pub async fn update_sso_provider(
    id: String,
    display_name: String,
    #[server(default)] button_text: String,
    issuer: String,
    client_id: String,
    #[server(default)] client_secret: String,
    #[server(default)] clear_secret: String,
    #[server(default)] scopes: String,
    #[server(default)] groups_claim: String,
    #[server(default)] admin_groups: String,
    #[server(default)] reviewer_groups: String,
    #[server(default)] developer_groups: String,
    #[server(default)] trust_email: String,
    #[server(default)] second_factor_amr: String,
    #[server(default)] second_factor_acr: String,
) -> Result<SsoProviderView, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let input = input(
        display_name,
        button_text,
        issuer,
        client_id,
        client_secret,
        &clear_secret,
        scopes,
        groups_claim,
        (admin_groups, reviewer_groups, developer_groups),
        (&trust_email, second_factor_amr, second_factor_acr),
    );
    let s = core.update_sso_provider(&p, &id, &input, &meta).await?;
    Ok(ssr::sso::sso_provider_view(&core, &s))
}

/// Enables or disables a sign-in provider.
#[server(prefix = "/api", endpoint = "sso/enabled", client = crate::tab::TabClient)]
pub async fn set_sso_provider_enabled(
    id: String,
    enabled: bool,
) -> Result<SsoProviderView, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let s = core
        .set_sso_provider_enabled(&p, &id, enabled, &meta)
        .await?;
    Ok(ssr::sso::sso_provider_view(&core, &s))
}

/// Removes a sign-in provider.
#[server(prefix = "/api", endpoint = "sso/delete", client = crate::tab::TabClient)]
pub async fn delete_sso_provider(id: String) -> Result<(), AppError> {
    let (core, p, meta) = ssr::context().await?;
    Ok(core.delete_sso_provider(&p, &id, &meta).await?)
}

/// Whether password sign-in is for break-glass admins only.
#[server(prefix = "/api", endpoint = "sso/password-sign-in", client = crate::tab::TabClient)]
pub async fn get_password_sign_in() -> Result<bool, AppError> {
    let (core, _, _) = ssr::context().await?;
    Ok(core.password_sign_in_break_glass_only().await?)
}

/// Turns password sign-in on for everyone, or off for all but break-glass admins.
#[server(prefix = "/api", endpoint = "sso/set-password-sign-in", client = crate::tab::TabClient)]
pub async fn set_password_sign_in(break_glass_only: bool) -> Result<bool, AppError> {
    let (core, p, meta) = ssr::context().await?;
    core.set_password_sign_in(&p, break_glass_only, &meta)
        .await?;
    Ok(break_glass_only)
}

/// Runs discovery at a provider now: what it found, or why it failed.
#[server(prefix = "/api", endpoint = "sso/test", client = crate::tab::TabClient)]
pub async fn test_sso_provider(id: String) -> Result<Result<SsoDiscoveryView, String>, AppError> {
    let (core, p, _) = ssr::context().await?;
    Ok(core
        .test_sso_provider(&p, &id)
        .await?
        .map(ssr::sso::discovery_view))
}
