//! Authorization server metadata (RFC 8414) and the realm's JWKS.
use crate::core::Core;
use crate::error::Result;
use crate::keys::SigningAlg;
use serde::Serialize;

/// The authorization server metadata of a realm (RFC 8414 §2); lists only what exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerMetadata {
    /// `issuer`.
    pub issuer: String,
    /// `token_endpoint`.
    pub token_endpoint: String,
    /// `jwks_uri`.
    pub jwks_uri: String,
    /// `introspection_endpoint` (RFC 7662).
    pub introspection_endpoint: String,
    /// `revocation_endpoint` (RFC 7009).
    pub revocation_endpoint: String,
    /// `grant_types_supported`.
    pub grant_types_supported: Vec<&'static str>,
    /// `response_types_supported`: none, until the authorization endpoint exists.
    pub response_types_supported: Vec<&'static str>,
    /// `token_endpoint_auth_methods_supported`.
    pub token_endpoint_auth_methods_supported: Vec<&'static str>,
    /// `token_endpoint_auth_signing_alg_values_supported` (for `private_key_jwt`).
    pub token_endpoint_auth_signing_alg_values_supported: Vec<&'static str>,
    /// `introspection_endpoint_auth_methods_supported`.
    pub introspection_endpoint_auth_methods_supported: Vec<&'static str>,
    /// `introspection_endpoint_auth_signing_alg_values_supported`.
    pub introspection_endpoint_auth_signing_alg_values_supported: Vec<&'static str>,
    /// `revocation_endpoint_auth_methods_supported`.
    pub revocation_endpoint_auth_methods_supported: Vec<&'static str>,
    /// `revocation_endpoint_auth_signing_alg_values_supported`.
    pub revocation_endpoint_auth_signing_alg_values_supported: Vec<&'static str>,
    /// `scopes_supported`: the scopes of the realm's enabled resources.
    pub scopes_supported: Vec<String>,
}

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
