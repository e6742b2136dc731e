//! Access grants as the client's and the resource's pages show them.
use super::resources::resource_view;
use crate::types::access::{AccessView, GrantView};

/// A grant just made, as the client's page shows it.
pub fn granted_view(g: authz::access::GrantedResource, now: authz::clock::UnixTime) -> AccessView {
    access_view(
        &authz::access::ResourceAccess {
            resource: g.resource,
            grant: Some(g.grant),
        },
        now,
    )
}

/// A resource and a client's access to it.
pub fn access_view(a: &authz::access::ResourceAccess, now: authz::clock::UnixTime) -> AccessView {
    let last = a.grant.as_ref().and_then(|g| g.last_used_at);
    AccessView {
        last_used_at: last.map(authz::clock::rfc3339).unwrap_or_default(),
        last_used: last.map(|t| authz::clock::ago(now, t)).unwrap_or_default(),
        resource: resource_view(&a.resource),
        scopes: a
            .grant
            .as_ref()
            .map(|g| {
                g.scopes
                    .intersection(&a.resource.scopes)
                    .iter()
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        lapsed: a
            .grant
            .as_ref()
            .map(|g| {
                g.scopes
                    .difference(&a.resource.scopes)
                    .iter()
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        granted: a.grant.is_some(),
        updated_at: a
            .grant
            .as_ref()
            .map(|g| authz::clock::rfc3339(g.updated_at))
            .unwrap_or_default(),
    }
}

/// A grant on a resource's page.
pub fn grant_view(g: &authz::access::GrantedClient, now: authz::clock::UnixTime) -> GrantView {
    let last = g.grant.last_used_at;
    GrantView {
        last_used_at: last.map(authz::clock::rfc3339).unwrap_or_default(),
        last_used: last.map(|t| authz::clock::ago(now, t)).unwrap_or_default(),
        client_id: g.client_id.to_string(),
        name: g.name.clone(),
        enabled: g.enabled,
        scopes: g.grant.scopes.iter().map(str::to_owned).collect(),
        lapsed: g.lapsed.iter().map(str::to_owned).collect(),
        agent: g
            .agent
            .as_ref()
            .map(|(name, _)| name.clone())
            .unwrap_or_default(),
        token_scopes: g.token_scopes().iter().map(str::to_owned).collect(),
        created_at: authz::clock::rfc3339(g.grant.created_at),
        updated_at: authz::clock::rfc3339(g.grant.updated_at),
    }
}
