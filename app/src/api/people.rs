//! A realm's people and the apps they connected.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::people::{ConnectedAppView, PersonPage, PersonView};
use leptos::prelude::*;

/// One page of the realm's people matching `query`.
#[server(prefix = "/api", endpoint = "people/list", client = crate::tab::TabClient)]
pub async fn list_people(
    query: String,
    after: String,
    before: String,
) -> Result<PersonPage, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let q = Some(query.trim()).filter(|q| !q.is_empty());
    let found = core
        .list_people(&p, &realm, q, ssr::key_page(&after, &before))
        .await?;
    Ok(ssr::keyed(&found, |x| {
        ssr::people::person_view(x, core.now())
    }))
}

/// One person of the realm.
#[server(prefix = "/api", endpoint = "people/get", client = crate::tab::TabClient)]
pub async fn get_person(id: String) -> Result<PersonView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(ssr::people::person_view(
        &core.person(&p, &realm, &id).await?,
        core.now(),
    ))
}

/// Adds a person to the realm.
#[server(prefix = "/api", endpoint = "people/create", client = crate::tab::TabClient)]
pub async fn create_person(
    email: String,
    display_name: String,
    roles: String,
    password: String,
    confirm: String,
) -> Result<PersonView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    if !password.is_empty() {
        ssr::confirmed(&password, &confirm)?;
    }
    let input = authz::people::PersonInput {
        email,
        display_name,
        roles,
    };
    let person = core
        .create_person(
            &p,
            &realm,
            &input,
            Some(&password)
                .filter(|s| !s.is_empty())
                .map(String::as_str),
            &meta,
        )
        .await?;
    Ok(ssr::people::person_view(&person, core.now()))
}

/// Changes a person's name and roles.
#[server(prefix = "/api", endpoint = "people/update", client = crate::tab::TabClient)]
pub async fn update_person(
    id: String,
    display_name: String,
    roles: String,
) -> Result<PersonView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = authz::people::PersonInput {
        email: String::new(),
        display_name,
        roles,
    };
    Ok(ssr::people::person_view(
        &core.update_person(&p, &realm, &id, &input, &meta).await?,
        core.now(),
    ))
}

/// Sets a person's password.
#[server(prefix = "/api", endpoint = "people/password", client = crate::tab::TabClient)]
pub async fn set_person_password(
    id: String,
    password: String,
    confirm: String,
) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    ssr::confirmed(&password, &confirm)?;
    Ok(core
        .set_person_password(&p, &realm, &id, &password, &meta)
        .await?)
}

/// Disables or enables a person.
#[server(prefix = "/api", endpoint = "people/disabled", client = crate::tab::TabClient)]
pub async fn set_person_disabled(id: String, disabled: bool) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core
        .set_person_disabled(&p, &realm, &id, disabled, &meta)
        .await?)
}

/// The realm's connected apps: one person's (`subject`), or everyone's (empty).
#[server(prefix = "/api", endpoint = "people/apps", client = crate::tab::TabClient)]
pub async fn connected_apps(subject: String) -> Result<Vec<ConnectedAppView>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let subject = Some(subject.trim()).filter(|s| !s.is_empty());
    let apps = core.connected_apps(&p, &realm, subject).await?;
    Ok(apps
        .iter()
        .map(|a| ssr::people::connected_app_view(a, core.now()))
        .collect())
}

/// Revokes anyone's connected app in the realm.
#[server(prefix = "/api", endpoint = "people/apps/revoke", client = crate::tab::TabClient)]
pub async fn revoke_connected_app(id: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core.revoke_connected_app(&p, &realm, &id, &meta).await?)
}

/// The signed-in console account's own connected apps.
#[server(prefix = "/api", endpoint = "account/apps", client = crate::tab::TabClient)]
pub async fn my_connected_apps() -> Result<Vec<ConnectedAppView>, AppError> {
    let (core, p, _) = ssr::context().await?;
    let apps = core.my_connected_apps(&p).await?;
    Ok(apps
        .iter()
        .map(|a| ssr::people::connected_app_view(a, core.now()))
        .collect())
}

/// Revokes one of the signed-in console account's connected apps.
#[server(prefix = "/api", endpoint = "account/apps/revoke", client = crate::tab::TabClient)]
pub async fn revoke_my_connected_app(id: String) -> Result<(), AppError> {
    let (core, p, meta) = ssr::context().await?;
    Ok(core.revoke_my_connected_app(&p, &id, &meta).await?)
}

/// The registry rings and units a person is in (`ring:everyone`, `unit:platform`), for those
/// who see the registry.
#[server(prefix = "/api", endpoint = "people/groups", client = crate::tab::TabClient)]
pub async fn person_groups(email: String) -> Result<Vec<String>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(core
        .registry_groups_of(
            &p,
            &realm,
            (authz::registry::MemberKind::Person, email.as_str()),
        )
        .await?
        .into_iter()
        .map(|(kind, id)| format!("{} {id}", kind.as_str()))
        .collect())
}
