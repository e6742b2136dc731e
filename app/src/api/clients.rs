//! OAuth clients of the selected realm.
// One server-function argument per form field: the create form posts RFC 7591 metadata flat,
// and `#[server]` copies the signature into the browser build, so the allow is module-wide.
#![allow(clippy::too_many_arguments)]
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::clients::{
    ClientChoiceView, ClientDetailView, ClientPage, ClientView, IssuedSecret, RemoteKeysView,
};
use leptos::prelude::*;

/// One page of clients matching `query`.
#[server(prefix = "/api", endpoint = "clients/list", client = crate::tab::TabClient)]
pub async fn list_clients(
    query: String,
    after: String,
    before: String,
) -> Result<ClientPage, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let found = core
        .list_clients(&p, &realm, &query, ssr::key_page(&after, &before))
        .await?;
    Ok(ssr::keyed(&found, |c| {
        ssr::clients::client_view(c, core.now())
    }))
}

/// One client in detail.
#[server(prefix = "/api", endpoint = "clients/get", client = crate::tab::TabClient)]
pub async fn get_client(client_id: String) -> Result<ClientDetailView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let d = core.get_client(&p, &realm, &client_id).await?;
    let t = authz::clock::rfc3339;
    Ok(ClientDetailView {
        client: ssr::clients::client_view(&d.client, core.now()),
        form: ssr::clients::client_form_view(&d.client),
        agent: d.agent.unwrap_or_default(),
        resource: d.resource_server_for.unwrap_or_default(),
        jwks: d
            .client
            .metadata
            .jwks
            .as_ref()
            .map(|j| format!("{j:#}"))
            .unwrap_or_default(),
        jwks_uri: d.client.metadata.jwks_uri.clone().unwrap_or_default(),
        remote_keys: d.remote_keys.as_ref().map(ssr::clients::remote_keys_view),
        metadata: [
            ("client_uri", &d.client.metadata.client_uri),
            ("logo_uri", &d.client.metadata.logo_uri),
            ("software_id", &d.client.metadata.software_id),
            ("software_version", &d.client.metadata.software_version),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.clone().map(|v| (k.to_owned(), v)))
        .chain((!d.client.metadata.redirect_uris.is_empty()).then(|| {
            (
                "redirect_uris".to_owned(),
                d.client.metadata.redirect_uris.join(" "),
            )
        }))
        .collect(),
        secrets: d
            .secrets
            .iter()
            .map(|s| {
                (
                    t(s.created_at),
                    s.expires_at.map(t).unwrap_or_default(),
                    s.live,
                )
            })
            .collect(),
    })
}

/// Changes a client's registration (not its authentication method, status or secrets).
#[server(prefix = "/api", endpoint = "clients/update", client = crate::tab::TabClient)]
pub async fn update_client(
    client_id: String,
    name: String,
    scope: String,
    contacts: String,
    #[server(default)] jwks: String,
    #[server(default)] jwks_uri: String,
    #[server(default)] client_uri: String,
    #[server(default)] logo_uri: String,
    #[server(default)] software_id: String,
    #[server(default)] software_version: String,
    #[server(default)] redirect_uris: String,
    #[server(default)] token_exchange: String,
    #[server(default)] device_code: String,
) -> Result<ClientView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let metadata = authz::clients::ClientForm {
        name,
        auth_method: String::new(),
        scope,
        contacts,
        jwks,
        jwks_uri,
        client_uri,
        logo_uri,
        software_id,
        software_version,
        redirect_uris,
        token_exchange: Some(token_exchange == "on"),
        device_code: Some(device_code == "on"),
    }
    .into_metadata()?;
    Ok(ssr::clients::client_view(
        &core
            .update_client(&p, &realm, &client_id, &metadata, &meta)
            .await?,
        core.now(),
    ))
}

/// Registers a client; a confidential client's secret is returned once.
#[server(prefix = "/api", endpoint = "clients/create", client = crate::tab::TabClient)]
pub async fn create_client(
    client_id: String,
    name: String,
    auth_method: String,
    scope: String,
    contacts: String,
    jwks: String,
    #[server(default)] jwks_uri: String,
    #[server(default)] client_uri: String,
    #[server(default)] logo_uri: String,
    #[server(default)] software_id: String,
    #[server(default)] software_version: String,
    #[server(default)] redirect_uris: String,
    #[server(default)] token_exchange: String,
    #[server(default)] device_code: String,
) -> Result<IssuedSecret, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let metadata = authz::clients::ClientForm {
        name,
        auth_method,
        scope,
        contacts,
        jwks,
        jwks_uri,
        client_uri,
        logo_uri,
        software_id,
        software_version,
        redirect_uris,
        token_exchange: Some(token_exchange == "on"),
        device_code: Some(device_code == "on"),
    }
    .into_metadata()?;
    let (client, secret) = core
        .create_client(&p, &realm, &client_id, &metadata, &meta)
        .await?;
    Ok(IssuedSecret {
        client_id: client.client_id.to_string(),
        secret: secret.map(|s| s.expose().to_owned()).unwrap_or_default(),
    })
}

/// Issues a new secret; previous ones keep working for `overlap_secs`.
#[server(prefix = "/api", endpoint = "clients/rotate-secret", client = crate::tab::TabClient)]
pub async fn rotate_client_secret(
    client_id: String,
    overlap_secs: i64,
) -> Result<IssuedSecret, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let secret = core
        .rotate_client_secret(&p, &realm, &client_id, overlap_secs, &meta)
        .await?;
    Ok(IssuedSecret {
        client_id,
        secret: secret.expose().to_owned(),
    })
}

/// Enables or disables a client.
#[server(prefix = "/api", endpoint = "clients/enabled", client = crate::tab::TabClient)]
pub async fn set_client_enabled(client_id: String, enabled: bool) -> Result<ClientView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(ssr::clients::client_view(
        &core
            .set_client_enabled(&p, &realm, &client_id, enabled, &meta)
            .await?,
        core.now(),
    ))
}

/// Turns token exchange (RFC 8693) on or off for a confidential client, a resource server's
/// introspection credentials included.
#[server(prefix = "/api", endpoint = "clients/token-exchange", client = crate::tab::TabClient)]
pub async fn set_client_token_exchange(
    client_id: String,
    enabled: bool,
) -> Result<ClientView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(ssr::clients::client_view(
        &core
            .set_client_token_exchange(&p, &realm, &client_id, enabled, &meta)
            .await?,
        core.now(),
    ))
}

/// Deletes a client and its secrets.
#[server(prefix = "/api", endpoint = "clients/delete", client = crate::tab::TabClient)]
pub async fn delete_client(client_id: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core.delete_client(&p, &realm, &client_id, &meta).await?)
}

/// Fetches a `private_key_jwt` client's keys from its `jwks_uri` now.
#[server(prefix = "/api", endpoint = "clients/refresh-keys", client = crate::tab::TabClient)]
pub async fn refresh_client_keys(client_id: String) -> Result<Option<RemoteKeysView>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(core
        .refresh_client_keys(&p, &realm, &client_id)
        .await?
        .as_ref()
        .map(ssr::clients::remote_keys_view))
}

/// Clients matching `query` for a picker (binding to an agent, granting access), each with the agent it acts for.
#[server(prefix = "/api", endpoint = "clients/choices", client = crate::tab::TabClient)]
pub async fn client_choices(query: String) -> Result<Vec<ClientChoiceView>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(core
        .client_choices(&p, &realm, &query, CHOICES)
        .await?
        .into_iter()
        .map(|c| ClientChoiceView {
            client_id: c.client.client_id.to_string(),
            name: c.client.name,
            agent: c.agent.unwrap_or_default(),
        })
        .collect())
}

/// How many clients the picker offers at once.
#[cfg(feature = "ssr")]
const CHOICES: u32 = 8;
