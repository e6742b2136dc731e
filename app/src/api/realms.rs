//! Realm administration.
// One server-function argument per form field (the registration settings form posts a dozen),
// and `#[server]` copies the signature into the browser build, so the allow is module-wide.
#![allow(clippy::too_many_arguments)]
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::realms::RealmView;
use leptos::prelude::*;

/// All realms.
#[server(prefix = "/api", endpoint = "realms/list", client = crate::tab::TabClient)]
pub async fn list_realms() -> Result<Vec<RealmView>, AppError> {
    let (core, p, _) = ssr::context().await?;
    let realms = core.list_realms(&p).await?;
    Ok(realms
        .iter()
        .map(|r| ssr::realms::realm_view(&core, r))
        .collect())
}

/// One realm by name (no name: the realm the console works in).
#[server(prefix = "/api", endpoint = "realms/get", client = crate::tab::TabClient)]
pub async fn get_realm(name: String) -> Result<RealmView, AppError> {
    let (core, p, _) = ssr::context().await?;
    // No name: the realm the console works in (the settings page), as this tab knows it.
    let name = if name.is_empty() {
        ssr::tab_realm(&core).await?
    } else {
        name
    };
    let realm = core.get_realm(&p, &name).await?;
    Ok(ssr::realms::realm_view(&core, &realm))
}

/// Creates a realm.
#[server(prefix = "/api", endpoint = "realms/create", client = crate::tab::TabClient)]
pub async fn create_realm(name: String, display_name: String) -> Result<RealmView, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let realm = core.create_realm(&p, &name, &display_name, &meta).await?;
    Ok(ssr::realms::realm_view(&core, &realm))
}

/// Changes a realm's settings: name (renaming changes its issuer), display name, default
/// access-token lifetime, refresh-token lifetimes (days; empty keeps them). Sessions that have the realm selected keep it across a rename (they
/// remember its id).
#[server(prefix = "/api", endpoint = "realms/update", client = crate::tab::TabClient)]
pub async fn update_realm(
    name: String,
    new_name: String,
    display_name: String,
    token_ttl_secs: String,
    #[server(default)] refresh_idle_days: String,
    #[server(default)] refresh_max_days: String,
) -> Result<RealmView, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let input = authz::realms::RealmInput {
        name: new_name,
        display_name,
        token_ttl_secs,
        refresh_idle_days,
        refresh_max_days,
    };
    let realm = core.update_realm(&p, &name, &input, &meta).await?;
    Ok(ssr::realms::realm_view(&core, &realm))
}

/// Enables or disables a realm.
#[server(prefix = "/api", endpoint = "realms/enabled", client = crate::tab::TabClient)]
pub async fn set_realm_enabled(name: String, enabled: bool) -> Result<RealmView, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let realm = core.set_realm_enabled(&p, &name, enabled, &meta).await?;
    Ok(ssr::realms::realm_view(&core, &realm))
}

/// Sets who may register clients in a realm, and how many self-registered clients it holds.
#[server(prefix = "/api", endpoint = "realms/registration", client = crate::tab::TabClient)]
pub async fn set_registration_policy(
    name: String,
    registration_policy: String,
    max_dynamic_clients: String,
    metadata_document_policy: String,
    metadata_document_domains: String,
    #[server(default)] unused_client_days: String,
    #[server(default)] client_secret_days: String,
    #[server(default)] registrations_per_source: String,
    #[server(default)] trusted_networks: String,
    #[server(default)] registrations_per_trusted_network: String,
    #[server(default)] metadata_document_machine_domains: String,
) -> Result<RealmView, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let r = core
        .set_registration_policy(
            &p,
            &name,
            &authz::realms::RegistrationInput {
                policy: registration_policy,
                max_dynamic_clients,
                metadata_document_policy,
                metadata_document_domains,
                unused_client_days,
                client_secret_days,
                // An emptied list clears it: the form always sends what it shows.
                trusted_networks: or_clear(trusted_networks),
                metadata_document_machine_domains: or_clear(metadata_document_machine_domains),
                registrations_per_source,
                registrations_per_trusted_network,
            },
            &meta,
        )
        .await?;
    Ok(ssr::realms::realm_view(&core, &r))
}

/// A list field as the core reads it: empty keeps the stored value, `-` clears it.
#[cfg(feature = "ssr")]
fn or_clear(list: String) -> String {
    if list.trim().is_empty() {
        "-".to_owned()
    } else {
        list
    }
}
