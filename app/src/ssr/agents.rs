//! Agents as the console shows them.
use crate::types::agents::AgentView;

/// View of an agent.
pub fn agent_view(a: &authz::agents::AgentSummary, now: i64) -> AgentView {
    let expires = a.agent.expires_at;
    AgentView {
        expires: expires
            .map(|t| authz::clock::ago(now, t))
            .unwrap_or_default(),
        expires_input: expires
            .map(|t| authz::clock::rfc3339(t).chars().take(16).collect())
            .unwrap_or_default(),
        name: a.agent.name.clone(),
        owner: a.agent.owner.clone(),
        description: a.agent.description.clone(),
        roles: a.agent.roles.to_string(),
        expires_at: a
            .agent
            .expires_at
            .map(authz::clock::rfc3339)
            .unwrap_or_default(),
        status: a.status.as_str().to_owned(),
        mcp_capable: a.agent.is_mcp_capable(),
        clients: a.clients.clone(),
    }
}
