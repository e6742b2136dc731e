//! The selected realm's MCP gateway: health, tools waiting for acceptance, calls waiting for
//! a person, and what an agent's search returns.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::gateway::{GatewayView, ToolsetServerView};
use leptos::prelude::*;

/// The Gateway page.
#[server(prefix = "/api", endpoint = "gateway/overview", client = crate::tab::TabClient)]
pub async fn gateway_overview() -> Result<GatewayView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let overview = core.gateway_overview(&p, &realm).await?;
    Ok(ssr::gateway::gateway_view(overview, &p, core.now()))
}

/// Turns the realm's gateway on.
#[server(prefix = "/api", endpoint = "gateway/enable", client = crate::tab::TabClient)]
pub async fn enable_gateway() -> Result<String, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core.enable_gateway(&p, &realm, &meta).await?.url)
}

/// Accepts one server's tools as the page showed them: `seen` holds a line `tool sha256` for
/// each (only `tool` for a removed one); a definition that changed since is not accepted.
#[server(prefix = "/api", endpoint = "gateway/accept", client = crate::tab::TabClient)]
pub async fn accept_gateway_tools(server: String, seen: String) -> Result<usize, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let seen: Vec<(String, String)> = seen
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let tool = words.next()?;
            Some((tool.to_owned(), words.next().unwrap_or_default().to_owned()))
        })
        .take(1000)
        .collect();
    if seen.is_empty() {
        return Err(ssr::invalid("Nothing to accept: reload the page."));
    }
    Ok(core
        .accept_tool_pins(&p, &realm, &server, &seen, &meta)
        .await?)
}

/// Approves or denies a waiting call, with an optional reason.
#[server(prefix = "/api", endpoint = "gateway/decide", client = crate::tab::TabClient)]
pub async fn decide_gateway_call(
    id: String,
    approve: bool,
    reason: String,
) -> Result<String, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let a = core
        .decide_gateway_approval(&p, &realm, &id, approve, &reason, &meta)
        .await?;
    Ok(a.capability())
}

/// Sets (or replaces) the client secret the gateway sends to one server's authorization
/// server; returns the server's id.
#[server(prefix = "/api", endpoint = "gateway/client-secret", client = crate::tab::TabClient)]
pub async fn set_gateway_client_secret(server: String, secret: String) -> Result<String, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    core.set_gateway_client_secret(&p, &realm, &server, &secret, &meta)
        .await?;
    Ok(server)
}

/// Removes the client secret held for one server; returns the server's id.
#[server(prefix = "/api", endpoint = "gateway/client-secret/remove", client = crate::tab::TabClient)]
pub async fn clear_gateway_client_secret(server: String) -> Result<String, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    core.clear_gateway_client_secret(&p, &realm, &server, &meta)
        .await?;
    Ok(server)
}

/// What one agent's gateway search returns, server by server.
#[server(prefix = "/api", endpoint = "gateway/toolset", client = crate::tab::TabClient)]
pub async fn agent_gateway_toolset(agent: String) -> Result<Vec<ToolsetServerView>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let toolset = core.agent_toolset(&p, &realm, &agent).await?;
    Ok(ssr::gateway::toolset_view(&toolset))
}

/// Attaches a registry server to an agent, or detaches it.
#[server(prefix = "/api", endpoint = "gateway/attach", client = crate::tab::TabClient)]
pub async fn set_gateway_attachment(
    agent: String,
    server: String,
    attached: bool,
) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    if attached {
        core.attach_gateway_server(&p, &realm, &agent, &server, &meta)
            .await?;
    } else {
        core.detach_gateway_server(&p, &realm, &agent, &server, &meta)
            .await?;
    }
    Ok(())
}

/// The registry servers attached to an agent (what its gateway search may offer, within the
/// latest release).
#[server(prefix = "/api", endpoint = "gateway/attachments", client = crate::tab::TabClient)]
pub async fn agent_gateway_attachments(agent: String) -> Result<Vec<String>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    Ok(core
        .list_gateway_attachments(&p, &realm, &agent)
        .await?
        .into_iter()
        .map(|a| a.server_id)
        .collect())
}
