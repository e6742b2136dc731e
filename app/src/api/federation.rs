//! Identity providers the selected realm trusts for ID-JAGs (enterprise-managed authorization).
// One server-function argument per form field, and `#[server]` copies the signature into the
// browser build, so the allow is module-wide.
#![allow(clippy::too_many_arguments)]
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::federation::{PersonIdentitiesView, TrustedIssuerView, TrustedIssuersView};
use leptos::prelude::*;

/// The realm's trusted identity providers.
#[server(prefix = "/api", endpoint = "identity-providers/list", client = crate::tab::TabClient)]
pub async fn list_trusted_issuers() -> Result<TrustedIssuersView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let items = core.list_trusted_issuers(&p, &realm).await?;
    let name = authz::realms::RealmName::parse(&realm).map_err(|_| AppError::Internal)?;
    let issuer = core.issuer(&name);
    Ok(TrustedIssuersView {
        token_endpoint: format!("{issuer}/token"),
        issuer,
        items: items
            .iter()
            .map(|t| ssr::federation::trusted_issuer_view(t, core.now()))
            .collect(),
    })
}

/// The form's fields as the core takes them.
#[cfg(feature = "ssr")]
fn input(
    issuer: String,
    display_name: String,
    jwks_uri: String,
    jwks: String,
    algorithms: String,
    clients: String,
    create_people: &str,
    link_by_email: &str,
) -> authz::federation::TrustedIssuerInput {
    authz::federation::TrustedIssuerInput {
        issuer,
        display_name,
        jwks_uri,
        jwks,
        algorithms,
        clients,
        create_people: create_people == "on",
        link_by_email: link_by_email == "on",
    }
}

/// Trusts an identity provider.
#[server(prefix = "/api", endpoint = "identity-providers/create", client = crate::tab::TabClient)]
pub async fn create_trusted_issuer(
    issuer: String,
    display_name: String,
    jwks_uri: String,
    jwks: String,
    algorithms: String,
    clients: String,
    #[server(default)] create_people: String,
    #[server(default)] link_by_email: String,
) -> Result<TrustedIssuerView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = input(
        issuer,
        display_name,
        jwks_uri,
        jwks,
        algorithms,
        clients,
        &create_people,
        &link_by_email,
    );
    let t = core
        .create_trusted_issuer(&p, &realm, &input, &meta)
        .await?;
    Ok(ssr::federation::trusted_issuer_view(&t, core.now()))
}

/// Changes a trusted identity provider's settings.
#[server(prefix = "/api", endpoint = "identity-providers/update", client = crate::tab::TabClient)]
pub async fn update_trusted_issuer(
    id: String,
    issuer: String,
    display_name: String,
    jwks_uri: String,
    jwks: String,
    algorithms: String,
    clients: String,
    #[server(default)] create_people: String,
    #[server(default)] link_by_email: String,
) -> Result<TrustedIssuerView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = input(
        issuer,
        display_name,
        jwks_uri,
        jwks,
        algorithms,
        clients,
        &create_people,
        &link_by_email,
    );
    let t = core
        .update_trusted_issuer(&p, &realm, &id, &input, &meta)
        .await?;
    Ok(ssr::federation::trusted_issuer_view(&t, core.now()))
}

/// Enables or disables a trusted identity provider.
#[server(prefix = "/api", endpoint = "identity-providers/enabled", client = crate::tab::TabClient)]
pub async fn set_trusted_issuer_enabled(
    id: String,
    enabled: bool,
) -> Result<TrustedIssuerView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let t = core
        .set_trusted_issuer_enabled(&p, &realm, &id, enabled, &meta)
        .await?;
    Ok(ssr::federation::trusted_issuer_view(&t, core.now()))
}

/// A trusted identity provider's keys as fetched now.
#[server(prefix = "/api", endpoint = "identity-providers/check-keys", client = crate::tab::TabClient)]
pub async fn check_trusted_issuer_keys(id: String) -> Result<Vec<String>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(core.check_trusted_issuer_keys(&p, &realm, &id).await?)
}

/// Stops trusting an identity provider.
#[server(prefix = "/api", endpoint = "identity-providers/delete", client = crate::tab::TabClient)]
pub async fn delete_trusted_issuer(id: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core.delete_trusted_issuer(&p, &realm, &id, &meta).await?)
}

/// The identity providers' identities linked to a person, with the providers' names.
#[server(prefix = "/api", endpoint = "people/identities", client = crate::tab::TabClient)]
pub async fn person_identities(id: String) -> Result<PersonIdentitiesView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let links = core.person_identities(&p, &realm, &id).await?;
    // Names only for whoever may see the providers (admins); others see issuers.
    let providers = core
        .list_trusted_issuers(&p, &realm)
        .await
        .unwrap_or_default();
    Ok(PersonIdentitiesView {
        links: links
            .iter()
            .map(|l| crate::types::federation::PersonIdentityView {
                issuer: l.issuer.clone(),
                provider: providers
                    .iter()
                    .find(|t| t.issuer == l.issuer)
                    .map(|t| t.display_name.clone()),
                subject: l.subject.clone(),
                linked: ssr::moment(core.now(), l.created_at),
            })
            .collect(),
        providers: providers
            .iter()
            .map(|t| (t.issuer.clone(), t.display_name.clone()))
            .collect(),
    })
}

/// Links an identity provider's identity to a person.
#[server(prefix = "/api", endpoint = "people/link", client = crate::tab::TabClient)]
pub async fn link_person_identity(
    id: String,
    issuer: String,
    subject: String,
) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    core.link_person_identity(&p, &realm, &id, (&issuer, &subject), &meta)
        .await?;
    Ok(())
}

/// Unlinks an identity provider's identity from a person.
#[server(prefix = "/api", endpoint = "people/unlink", client = crate::tab::TabClient)]
pub async fn unlink_person_identity(
    id: String,
    issuer: String,
    subject: String,
) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core
        .unlink_person_identity(&p, &realm, &id, (&issuer, &subject), &meta)
        .await?)
}
