//! Protected resources (MCP servers) of the selected realm.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::clients::IssuedSecret;
use crate::types::resources::{ResourceCredentialsView, ResourceView};
use leptos::prelude::*;

/// The realm's resources.
#[server(prefix = "/api", endpoint = "resources/list", client = crate::tab::TabClient)]
pub async fn list_resources() -> Result<Vec<ResourceView>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(core
        .list_resources(&p, &realm)
        .await?
        .iter()
        .map(ssr::resources::resource_view)
        .collect())
}

/// One resource of the realm.
#[server(prefix = "/api", endpoint = "resources/get", client = crate::tab::TabClient)]
pub async fn get_resource(slug: String) -> Result<ResourceView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(ssr::resources::resource_view(
        &core.resource(&p, &realm, &slug).await?,
    ))
}

/// Registers a resource.
#[server(prefix = "/api", endpoint = "resources/create", client = crate::tab::TabClient)]
pub async fn create_resource(
    slug: String,
    display_name: String,
    uri: String,
    scopes: String,
    token_ttl_secs: String,
    signing_alg: String,
) -> Result<ResourceView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = authz::resources::ResourceInput {
        slug,
        display_name,
        uri,
        scopes,
        token_ttl_secs,
        signing_alg,
        enabled: true,
    };
    Ok(ssr::resources::resource_view(
        &core.create_resource(&p, &realm, &input, &meta).await?,
    ))
}

/// Changes a resource's settings (not whether it is enabled: `resources/enabled`).
#[server(prefix = "/api", endpoint = "resources/update", client = crate::tab::TabClient)]
pub async fn update_resource(
    slug: String,
    display_name: String,
    uri: String,
    scopes: String,
    token_ttl_secs: String,
    signing_alg: String,
) -> Result<ResourceView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = authz::resources::ResourceInput {
        slug: slug.clone(),
        display_name,
        uri,
        scopes,
        token_ttl_secs,
        signing_alg,
        enabled: true,
    };
    Ok(ssr::resources::resource_view(
        &core
            .update_resource(&p, &realm, &slug, &input, &meta)
            .await?,
    ))
}

/// Enables or disables a resource: a disabled one gets no tokens, and its tokens introspect
/// inactive.
#[server(prefix = "/api", endpoint = "resources/enabled", client = crate::tab::TabClient)]
pub async fn set_resource_enabled(slug: String, enabled: bool) -> Result<ResourceView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(ssr::resources::resource_view(
        &core
            .set_resource_enabled(&p, &realm, &slug, enabled, &meta)
            .await?,
    ))
}

/// Rejects a developer's submission with a reason they see.
#[server(prefix = "/api", endpoint = "resources/reject", client = crate::tab::TabClient)]
pub async fn reject_submission(slug: String, reason: String) -> Result<ResourceView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(ssr::resources::resource_view(
        &core
            .reject_submission(&p, &realm, &slug, &reason, &meta)
            .await?,
    ))
}

/// Deletes a resource.
#[server(prefix = "/api", endpoint = "resources/delete", client = crate::tab::TabClient)]
pub async fn delete_resource(slug: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core.delete_resource(&p, &realm, &slug, &meta).await?)
}

/// The slug of the realm's default resource (the audience of token requests without
/// `resource`), or `None` when such requests are refused.
#[server(prefix = "/api", endpoint = "resources/default", client = crate::tab::TabClient)]
pub async fn default_resource() -> Result<Option<String>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(core.default_resource(&p, &realm).await?.map(|r| r.slug))
}

/// Every scope some resource of the realm accepts, in order.
#[server(prefix = "/api", endpoint = "resources/scopes", client = crate::tab::TabClient)]
pub async fn realm_scopes() -> Result<Vec<String>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let all = core.realm_scopes(&p, &realm).await?;
    Ok(all.iter().map(str::to_owned).collect())
}

/// The access-token lifetime (seconds) of the realm's resources that set none of their own.
#[server(prefix = "/api", endpoint = "resources/default-lifetime", client = crate::tab::TabClient)]
pub async fn default_token_ttl() -> Result<i64, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(core.default_token_ttl(&p, &realm).await?)
}

/// Sets the realm's default resource; an empty slug means "refuse requests without resource".
#[server(prefix = "/api", endpoint = "resources/set-default", client = crate::tab::TabClient)]
pub async fn set_default_resource(slug: String) -> Result<Option<String>, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let slug = Some(slug.trim()).filter(|s| !s.is_empty());
    Ok(core
        .set_default_resource(&p, &realm, slug, &meta)
        .await?
        .map(|r| r.slug))
}

/// Creates the credentials the resource's MCP server introspects its tokens with; the secret
/// is returned once.
#[server(prefix = "/api", endpoint = "resources/credentials", client = crate::tab::TabClient)]
pub async fn create_resource_credentials(slug: String) -> Result<IssuedSecret, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let (client, secret) = core
        .create_resource_server_credentials(&p, &realm, &slug, &meta)
        .await?;
    Ok(IssuedSecret {
        client_id: client.client_id.to_string(),
        secret: secret.expose().to_owned(),
    })
}

/// The resource's introspection credentials, if it has them, and where they are used.
#[server(prefix = "/api", endpoint = "resources/get-credentials", client = crate::tab::TabClient)]
pub async fn resource_credentials(slug: String) -> Result<ResourceCredentialsView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(ssr::resources::credentials_view(
        &core.resource_server_credentials(&p, &realm, &slug).await?,
        core.now(),
    ))
}

/// Sets who may get tokens for a resource.
#[server(prefix = "/api", endpoint = "resources/policy", client = crate::tab::TabClient)]
pub async fn set_resource_policy(
    slug: String,
    consent: String,
    people_roles: String,
    default_scopes: String,
    #[server(default)] open_to_self_registered: Option<String>,
) -> Result<ResourceView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = authz::resources::AccessPolicyInput {
        consent,
        people_roles,
        default_scopes,
        open_to_self_registered: open_to_self_registered.is_some(),
    };
    Ok(ssr::resources::resource_view(
        &core
            .set_resource_policy(&p, &realm, &slug, &input, &meta)
            .await?,
    ))
}
