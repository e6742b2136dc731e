//! Agents (non-human identities) of the selected realm.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::agents::{AgentPage, AgentView};
use leptos::prelude::*;

/// One page of agents matching `query`, optionally only MCP-capable ones or those expiring
/// within a week.
#[server(prefix = "/api", endpoint = "agents/list", client = crate::tab::TabClient)]
pub async fn list_agents(
    query: String,
    mcp_only: bool,
    expiring_soon: bool,
    after: String,
    before: String,
) -> Result<AgentPage, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let filter = authz::agents::AgentFilter {
        mcp_only,
        expiring_within: expiring_soon.then_some(authz::agents::EXPIRING_SOON_SECS),
        active_only: false,
        query: Some(query.as_str()),
        owner: None,
    };
    let found = core
        .list_agents(&p, &realm, filter, ssr::key_page(&after, &before))
        .await?;
    Ok(ssr::keyed(&found, |a| {
        ssr::agents::agent_view(a, core.now())
    }))
}

/// Creates an agent.
#[server(prefix = "/api", endpoint = "agents/create", client = crate::tab::TabClient)]
pub async fn create_agent(
    name: String,
    owner: String,
    description: String,
    roles: String,
    expires_at: String,
) -> Result<String, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = authz::agents::AgentInput {
        name,
        owner,
        description,
        roles,
        expires_at,
    };
    Ok(core.create_agent(&p, &realm, &input, &meta).await?.name)
}

/// One agent with its bound clients.
#[server(prefix = "/api", endpoint = "agents/get", client = crate::tab::TabClient)]
pub async fn get_agent(name: String) -> Result<AgentView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let a = core.agent(&p, &realm, &name).await?;
    Ok(ssr::agents::agent_view(&a, core.now()))
}

/// Changes an agent's owner, description, roles and expiry.
#[server(prefix = "/api", endpoint = "agents/update", client = crate::tab::TabClient)]
pub async fn update_agent(
    name: String,
    owner: String,
    description: String,
    roles: String,
    expires_at: String,
) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = authz::agents::AgentInput {
        name: name.clone(),
        owner,
        description,
        roles,
        expires_at,
    };
    core.update_agent(&p, &realm, &name, &input, &meta).await?;
    Ok(())
}

/// Disables or re-enables an agent.
#[server(prefix = "/api", endpoint = "agents/disabled", client = crate::tab::TabClient)]
pub async fn set_agent_disabled(name: String, disabled: bool) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    core.set_agent_disabled(&p, &realm, &name, disabled, &meta)
        .await?;
    Ok(())
}

/// Deletes an agent (its clients are unbound).
#[server(prefix = "/api", endpoint = "agents/delete", client = crate::tab::TabClient)]
pub async fn delete_agent(name: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core.delete_agent(&p, &realm, &name, &meta).await?)
}

/// Binds a client to an agent; an empty `agent` unbinds it.
#[server(prefix = "/api", endpoint = "agents/bind", client = crate::tab::TabClient)]
pub async fn bind_client(client_id: String, agent: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let agent = Some(agent.trim()).filter(|a| !a.is_empty());
    Ok(core
        .bind_client_to_agent(&p, &realm, client_id.trim(), agent, &meta)
        .await?)
}
