//! A realm's people and their connected apps as the console shows them.
use super::moment;
use crate::types::people::{ConnectedAppView, PersonView};

/// View of a realm's person.
pub fn person_view(p: &authz::people::Person, now: i64) -> PersonView {
    PersonView {
        id: p.id.to_string(),
        email: p.email.to_string(),
        display_name: p.display_name.clone(),
        roles: p.roles.to_string(),
        disabled: p.disabled,
        has_password: p.password_hash.is_some(),
        linked: p.linked,
        provider: p.provider_name.clone(),
        provider_disabled: p.provider_disabled,
        created: moment(now, p.created_at),
    }
}

/// View of a connected app.
pub fn connected_app_view(a: &authz::authorize::ConnectedApp, now: i64) -> ConnectedAppView {
    ConnectedAppView {
        id: a.consent.id.to_string(),
        subject: a.consent.subject.clone(),
        client_id: a.client_id.clone(),
        client_name: a.client_name.clone(),
        resource_name: a.resource_name.clone(),
        resource_uri: a.resource_uri.clone(),
        scopes: a
            .consent
            .scopes
            .iter()
            .filter(|s| *s != "offline_access")
            .map(str::to_owned)
            .collect(),
        offline: a.consent.scopes.contains("offline_access"),
        updated: moment(now, a.consent.updated_at),
        last_used: a.last_used_at.map(|t| moment(now, t)),
    }
}
