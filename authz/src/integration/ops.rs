//! The generator's inputs from the core: the realm's endpoints and scopes.
use super::model::{AuthorizationServer, ProtectInput, Protection, protect};
use crate::core::Core;
use crate::error::{Error, Result};
use crate::policy::{Permission, Principal};

impl Core {
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
