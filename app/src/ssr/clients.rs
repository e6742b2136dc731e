//! OAuth clients as the console shows them.
use super::moment;
use crate::types::clients::{ClientFormView, ClientView, RemoteKeysView};

/// A client's registration as its edit form shows it.
pub fn client_form_view(c: &authz::clients::Client) -> ClientFormView {
    let m = &c.metadata;
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    ClientFormView {
        name: c.name.clone(),
        scope: c.scope.to_string(),
        contacts: m.contacts.join(", "),
        jwks: m
            .jwks
            .as_ref()
            .map(|j| format!("{j:#}"))
            .unwrap_or_default(),
        jwks_uri: text(&m.jwks_uri),
        redirect_uris: m.redirect_uris.join("\n"),
        client_uri: text(&m.client_uri),
        logo_uri: text(&m.logo_uri),
        software_id: text(&m.software_id),
        software_version: text(&m.software_version),
        token_exchange: c
            .grant_types
            .contains(&authz::clients::GrantType::TokenExchange),
        device_code: c
            .grant_types
            .contains(&authz::clients::GrantType::DeviceCode),
    }
}

/// View of a client.
pub fn client_view(c: &authz::clients::Client, now: i64) -> ClientView {
    ClientView {
        client_id: c.client_id.to_string(),
        name: c.name.clone(),
        auth_method: c.auth_method.as_str().to_owned(),
        scope: c.scope.to_string(),
        grant_types: c
            .grant_types
            .iter()
            .map(|g| g.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        contacts: c.metadata.contacts.join(", "),
        resource_server: c.resource_server_for.is_some(),
        first_party: authz::clients::is_first_party(c.client_id.as_str()),
        enabled: c.enabled,
        registration: c.registration.kind.as_str().to_owned(),
        review: c.registration.review.as_str().to_owned(),
        decision: c
            .registration
            .reviewed_by
            .clone()
            .zip(c.registration.review_reason.clone()),
        created: moment(now, c.created_at),
        version: c.updated_at,
    }
}

/// View of the keys fetched from a client's `jwks_uri`.
pub fn remote_keys_view(k: &authz::clients::RemoteKeys) -> RemoteKeysView {
    let t = |v: Option<i64>| v.map(authz::clock::rfc3339).unwrap_or_default();
    RemoteKeysView {
        kids: k.kids.clone(),
        fetched_at: t(k.fetched_at),
        fresh_until: t(k.fresh_until),
        last_error: k.last_error.clone().unwrap_or_default(),
    }
}
