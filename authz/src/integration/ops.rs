//! The Integration screens' data from the core: the realm's MCP side, its endpoints and scopes.
use super::model::{AuthorizationServer, McpOverview, ProtectInput, Protection, protect};
use crate::agents::AgentFilter;
use crate::core::Core;
use crate::error::{Error, Result};
use crate::policy::{Permission, Principal};
use crate::storage::Page;

impl Core {
    /// The realm's MCP side: MCP-capable agents (all, active, expiring within `window_days`,
    /// and one page of those `show` picks: `all`, `active` or `expiring`), protected
    /// resources, clients waiting for review, endpoints. The developer's home: shown to
    /// everyone who may see resources.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField` (`window_days` outside 1–365).
    pub async fn mcp_overview(
        &self,
        p: &Principal,
        realm_name: &str,
        window_days: i64,
        show: &str,
        page: Page,
    ) -> Result<McpOverview> {
        p.require(Permission::ViewResources)?;
        if !(1..=365).contains(&window_days) {
            return Err(Error::field(
                "window_days",
                "The window is a whole number of days from 1 to 365.",
            ));
        }
        let realm = self.find_realm(realm_name).await?;
        let endpoints = self.realm_overview(p, realm_name).await?.endpoints;
        let mcp = AgentFilter {
            mcp_only: true,
            ..Default::default()
        };
        let one = Page::new(0, 1);
        let count = |filter: AgentFilter<'static>| {
            let realm_id = realm.id.clone();
            async move { Ok::<u64, Error>(self.agent_summaries(&realm_id, filter, one).await?.total) }
        };
        let active = count(AgentFilter {
            active_only: true,
            ..mcp
        })
        .await?;
        let expiring = count(AgentFilter {
            expiring_within: Some(window_days * 24 * 3600),
            ..mcp
        })
        .await?;
        let all = count(mcp).await?;
        let shown = match show.trim() {
            "" | "all" => mcp,
            "active" => AgentFilter {
                active_only: true,
                ..mcp
            },
            "expiring" => AgentFilter {
                expiring_within: Some(window_days * 24 * 3600),
                ..mcp
            },
            _ => {
                return Err(Error::field("show", "Show all, active or expiring agents."));
            }
        };
        let listed = self.agent_summaries(&realm.id, shown, page).await?;
        Ok(McpOverview {
            endpoints,
            mcp_agents: all,
            listed: listed.total,
            active,
            expiring,
            window_days,
            resources: self.store.list_resources(&realm.id).await?.len() as u64,
            pending_reviews: if p.role.can(Permission::ReviewClients) {
                Some(self.pending_review_count(p, realm_name).await?)
            } else {
                None
            },
            agents: listed.items,
        })
    }

    /// The realm as an MCP server sees it: issuer, discovery URLs, endpoints, scopes.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (unknown or disabled realm).
    pub async fn integration_endpoints(
        &self,
        p: &Principal,
        realm_name: &str,
    ) -> Result<AuthorizationServer> {
        p.require(Permission::ViewResources)?;
        let realm = self.find_realm(realm_name).await?;
        let m = self.authorization_server_metadata(realm_name).await?;
        let public = self.base_url().to_owned();
        Ok(AuthorizationServer {
            realm: realm.display_name.clone(),
            metadata_url: format!(
                "{public}/.well-known/oauth-authorization-server/realms/{}",
                realm.name
            ),
            openid_configuration_url: format!("{}/.well-known/openid-configuration", m.issuer),
            jwks_uri: m.jwks_uri.clone(),
            token_endpoint: m.token_endpoint.clone(),
            authorization_endpoint: m.authorization_endpoint.clone(),
            registration_endpoint: m.registration_endpoint.clone(),
            introspection_endpoint: m.introspection_endpoint.clone(),
            revocation_endpoint: m.revocation_endpoint.clone(),
            scopes_supported: m
                .scopes_supported
                .iter()
                .filter(|s| s.as_str() != "offline_access")
                .cloned()
                .collect(),
            metadata_documents: m.client_id_metadata_document_supported,
            issuer: m.issuer,
        })
    }

    /// Everything a developer copies to protect the MCP server at `input.server_url` with the
    /// realm ("Protect your MCP server").
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField` (the input).
    pub async fn protect_mcp_server(
        &self,
        p: &Principal,
        realm_name: &str,
        input: &ProtectInput,
    ) -> Result<Protection> {
        let server = self.integration_endpoints(p, realm_name).await?;
        protect(&server, input, self.config().allow_http_loopback)
            .map_err(|e| Error::field(e.field, e.message))
    }
}
