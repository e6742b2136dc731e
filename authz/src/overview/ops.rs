//! Building the Overview.
use super::model::{Endpoint, RealmOverview};
use crate::agents::AgentFilter;
use crate::core::Core;
use crate::error::Result;
use crate::paging::Page;
use crate::policy::{Permission, Principal};

impl Core {
    /// The realm's endpoints and counts; each count only when `p` may see that list.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn realm_overview(&self, p: &Principal, realm_name: &str) -> Result<RealmOverview> {
        p.require(Permission::ViewRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let issuer = self.issuer(&realm.name);
        let name = realm.name.as_str();
        let base = issuer
            .strip_suffix(&format!("/realms/{name}"))
            .unwrap_or(&issuer)
            .to_owned();
        let endpoints = vec![
            Endpoint {
                label: "Issuer",
                url: issuer.clone(),
            },
            Endpoint {
                label: "Authorization server metadata (RFC 8414)",
                url: format!("{base}/.well-known/oauth-authorization-server/realms/{name}"),
            },
            Endpoint {
                label: "OpenID Connect discovery",
                url: format!("{issuer}/.well-known/openid-configuration"),
            },
            Endpoint {
                label: "JWKS",
                url: format!("{issuer}/jwks"),
            },
            Endpoint {
                label: "Authorization",
                url: format!("{issuer}/authorize"),
            },
            Endpoint {
                label: "Token",
                url: format!("{issuer}/token"),
            },
            Endpoint {
                label: "Registration (RFC 7591)",
                url: format!("{issuer}/connect/register"),
            },
            Endpoint {
                label: "Introspection",
                url: format!("{issuer}/introspect"),
            },
            Endpoint {
                label: "Revocation",
                url: format!("{issuer}/revoke"),
            },
        ];
        let can = |perm| p.role.can(perm);
        let one = Page::first(1);
        let now = self.now();
        let resources = if can(Permission::ViewResources) {
            // Live ones: a developer's submission is not registered until an admin enables it.
            Some(
                self.store
                    .list_resources(&realm.id)
                    .await?
                    .iter()
                    .filter(|r| r.submitted_by.is_none())
                    .count() as u64,
            )
        } else {
            None
        };
        let clients = if can(Permission::ViewClients) {
            Some(
                self.store
                    .list_clients(&realm.id, None, one.clone())
                    .await?
                    .total,
            )
        } else {
            None
        };
        let (agents, mcp_agents) = if can(Permission::ViewAgents) {
            let all = self
                .store
                .list_agents(&realm.id, AgentFilter::default(), now, one.clone())
                .await?
                .total;
            let mcp = AgentFilter {
                mcp_only: true,
                ..Default::default()
            };
            let mcp = self
                .store
                .list_agents(&realm.id, mcp, now, one.clone())
                .await?
                .total;
            (Some(all), Some(mcp))
        } else {
            (None, None)
        };
        let (grants, grants_used) = if can(Permission::ViewClients) {
            let (all, used) = self.store.grant_counts(&realm.id).await?;
            (Some(all), Some(used))
        } else {
            (None, None)
        };
        Ok(RealmOverview {
            endpoints,
            resources,
            clients,
            agents,
            mcp_agents,
            grants,
            grants_used,
        })
    }
}
