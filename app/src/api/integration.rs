//! Integration: what a developer copies to protect their own MCP server with the selected realm.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::integration::{McpCheckView, McpOverviewView, ProtectionView, RegisteredView};
use leptos::prelude::*;

/// Generates the metadata, challenges, commands, configurations and server snippets for the MCP
/// server at `server_url`.
#[server(prefix = "/api", endpoint = "integration/protect", client = crate::tab::TabClient)]
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
    Ok(ssr::integration::protection_view(
        &core.protect_mcp_server(&p, &realm, &input).await?,
    ))
}

/// Registers the MCP server at `server_url` as a protected resource (an admin), or submits it
/// for an admin to enable (a developer).
#[server(prefix = "/api", endpoint = "integration/register", client = crate::tab::TabClient)]
pub async fn register_protected_resource(
    server_url: String,
    #[server(default)] resource_name: String,
    #[server(default)] scopes: String,
) -> Result<RegisteredView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = authz::integration::ProtectInput {
        server_url,
        resource_name,
        scopes,
        documentation_url: String::new(),
    };
    let r = core
        .register_protected_resource(&p, &realm, &input, &meta)
        .await?;
    Ok(ssr::integration::registered_view(&(&r).into()))
}

/// Runs the MCP client's discovery steps against the server at `server_url`.
#[server(prefix = "/api", endpoint = "integration/check", client = crate::tab::TabClient)]
pub async fn check_mcp_server(server_url: String) -> Result<McpCheckView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(ssr::integration::check_view(
        &core
            .check_mcp_server(&p, &realm, &server_url, &meta)
            .await?,
    ))
}

/// The realm's MCP side: agent counts (expiring within `window_days`), resources, reviews,
/// endpoints and the first page of MCP-capable agents.
#[server(prefix = "/api", endpoint = "integration/overview", client = crate::tab::TabClient)]
pub async fn mcp_overview(
    window_days: i64,
    show: String,
    after: String,
    before: String,
) -> Result<McpOverviewView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let o = core
        .mcp_overview(
            &p,
            &realm,
            window_days,
            &show,
            ssr::key_page(&after, &before),
        )
        .await?;
    let now = core.now();
    Ok(McpOverviewView {
        endpoints: o
            .endpoints
            .into_iter()
            .map(|e| (e.label.to_owned(), e.url))
            .collect(),
        mcp_agents: o.mcp_agents,
        own_only: o.own_only,
        active: o.active,
        expiring: o.expiring,
        window_days: o.window_days,
        resources: o.resources,
        submitted: o.submitted,
        pending_reviews: o.pending_reviews,
        agents: ssr::keyed(&o.agents, |a| ssr::agents::agent_view(a, now)),
    })
}
