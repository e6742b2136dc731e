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
        // Asks for a refresh token; not a resource scope (and never in a resource's challenge).
        scopes.push("offline_access".to_owned());
        // OpenID Connect: an ID token beside the tokens (`openid`), with the email and name.
        scopes.extend(["openid", "email", "profile"].map(str::to_owned));
        let auth_methods = vec![
            "client_secret_basic",
            "client_secret_post",
            "private_key_jwt",
        ];
        // Public clients (PKCE) authenticate with their client_id alone; they may revoke their
        // own tokens, but never introspect.
        let public_too = vec![
            "client_secret_basic",
            "client_secret_post",
            "private_key_jwt",
            "none",
        ];
        let algs: Vec<&'static str> = SigningAlg::ALL.iter().map(|a| a.as_str()).collect();
        Ok(ServerMetadata {
            authorization_endpoint: format!("{issuer}/authorize"),
            token_endpoint: format!("{issuer}/token"),
            jwks_uri: format!("{issuer}/jwks"),
            registration_endpoint: (realm.registration_policy
                != crate::realms::RegistrationPolicy::Disabled)
                .then(|| format!("{issuer}/connect/register")),
            introspection_endpoint: format!("{issuer}/introspect"),
            revocation_endpoint: format!("{issuer}/revoke"),
            device_authorization_endpoint: format!("{issuer}/device_authorization"),
            issuer,
            grant_types_supported: crate::clients::GrantType::ALL
                .iter()
                .map(|g| g.as_str())
                .collect(),
            response_types_supported: vec!["code"],
            response_modes_supported: vec!["query"],
            code_challenge_methods_supported: vec!["S256"],
            authorization_response_iss_parameter_supported: true,
            client_id_metadata_document_supported: realm.metadata_document_policy
                != crate::realms::MetadataDocumentPolicy::Disabled,
            token_endpoint_auth_methods_supported: public_too.clone(),
            token_endpoint_auth_signing_alg_values_supported: algs.clone(),
            introspection_endpoint_auth_methods_supported: auth_methods.clone(),
            introspection_endpoint_auth_signing_alg_values_supported: algs.clone(),
            revocation_endpoint_auth_methods_supported: public_too,
            revocation_endpoint_auth_signing_alg_values_supported: algs,
            scopes_supported: scopes,
            id_token_signing_alg_values_supported: vec![crate::tokens::ID_TOKEN_ALG.as_str()],
            subject_types_supported: vec!["public"],
            claims_supported: vec![
                "iss",
                "sub",
                "aud",
                "azp",
                "exp",
                "iat",
                "auth_time",
                "nonce",
                "sid",
                "email",
                "email_verified",
                "name",
            ],
            identity_chaining_requested_token_types_supported: vec![
                super::model::ID_JAG_TOKEN_TYPE,
            ],
            authorization_grant_profiles_supported: vec![super::model::ID_JAG_GRANT_PROFILE],
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
