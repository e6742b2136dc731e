//! Integration: what a developer copies to protect their own MCP server with the selected realm.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::ProtectionView;
use leptos::prelude::*;

/// Generates the metadata, challenges, commands, configurations and server snippets for the MCP
/// server at `server_url`.
#[server(prefix = "/api", endpoint = "integration/protect")]
pub async fn protect_mcp_server(
    server_url: String,
    #[server(default)] resource_name: String,
    #[server(default)] scopes: String,
    #[server(default)] documentation_url: String,
) -> Result<ProtectionView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let input = authz::integration::ProtectInput {
        server_url,
        resource_name,
        scopes,
        documentation_url,
    };
    Ok(ssr::protection_view(
        &core.protect_mcp_server(&p, &realm, &input).await?,
    ))
}
