//! Authorization server metadata (RFC 8414) and the realm's JWKS.
use super::model::ServerMetadata;
use crate::core::Core;
use crate::error::Result;
use crate::keys::SigningAlg;

impl Core {
    /// Authorization server metadata (RFC 8414) of a realm.
    ///
    /// # Errors
    /// `NotFound` (unknown or disabled realm).
    pub async fn authorization_server_metadata(&self, realm_name: &str) -> Result<ServerMetadata> {
        let realm = self.serving_realm(realm_name).await?;
        let issuer = self.issuer(&realm.name);
        let mut scopes: Vec<String> = self
            .store
            .list_resources(&realm.id)
            .await?
            .iter()
            .filter(|r| r.enabled)
            .flat_map(|r| r.scopes.iter().map(str::to_owned).collect::<Vec<_>>())
            .collect();
        scopes.sort();
        scopes.dedup();
        let auth_methods = vec![
            "client_secret_basic",
            "client_secret_post",
            "private_key_jwt",
        ];
        let algs: Vec<&'static str> = SigningAlg::ALL.iter().map(|a| a.as_str()).collect();
        Ok(ServerMetadata {
            token_endpoint: format!("{issuer}/token"),
            jwks_uri: format!("{issuer}/jwks"),
            introspection_endpoint: format!("{issuer}/introspect"),
            revocation_endpoint: format!("{issuer}/revoke"),
            issuer,
            grant_types_supported: crate::clients::GrantType::ALL
                .iter()
                .map(|g| g.as_str())
                .collect(),
            response_types_supported: vec![],
            token_endpoint_auth_methods_supported: auth_methods.clone(),
            token_endpoint_auth_signing_alg_values_supported: algs.clone(),
            introspection_endpoint_auth_methods_supported: auth_methods.clone(),
            introspection_endpoint_auth_signing_alg_values_supported: algs.clone(),
            revocation_endpoint_auth_methods_supported: auth_methods,
            revocation_endpoint_auth_signing_alg_values_supported: algs,
            scopes_supported: scopes,
        })
    }

    /// The realm's JWKS: active, next and still-needed retired keys.
    ///
    /// # Errors
    /// `NotFound` (unknown or disabled realm).
    pub async fn jwks(&self, realm_name: &str) -> Result<serde_json::Value> {
        let realm = self.serving_realm(realm_name).await?;
        Ok(self
            .realm_keys(&realm, Some(SigningAlg::ES256))
            .await?
            .jwks()
            .clone())
    }
}
