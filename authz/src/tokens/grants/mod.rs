//! The token endpoint (RFC 6749 §3.2): the request, the response, dispatch on the grant type,
//! and minting of audience-bound RFC 9068 access tokens shared by every grant.
mod authorization_code;
mod client_credentials;
mod device_code;
mod jwt_bearer;
pub(crate) use client_credentials::machine_scopes;
mod refresh_token;
mod token_exchange;

use super::model::{ClientCredentials, TokenRequest, TokenResponse};
use crate::agents::Agent;
use crate::audit::RequestMeta;
use crate::authorize::FamilyId;
use crate::clients::{Client, GrantType};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::keys::SigningAlg;
use crate::realms::Realm;
use crate::resources::Resource;
use crate::scope::ScopeSet;
use portcullis_claims::{ACCESS_TOKEN_TYP, AccessTokenClaims, AgentClaims, TokenOrigin};

impl Core {
    /// The token endpoint: parses the grant type and runs that grant.
    ///
    /// # Errors
    /// `OAuth` errors per RFC 6749 §5.2 / RFC 8707, `Throttled`, `NotFound` (realm).
    pub async fn issue_token(
        &self,
        realm_name: &str,
        creds: Option<ClientCredentials>,
        req: &TokenRequest,
        meta: &RequestMeta,
    ) -> Result<TokenResponse> {
        let realm = self.serving_realm(realm_name).await?;
        let grant = match req.grant_type.as_str() {
            "" => {
                return Err(Error::oauth(
                    OAuthErrorCode::InvalidRequest,
                    "grant_type is required.",
                ));
            }
            g => GrantType::parse(g).map_err(|_| {
                let supported: Vec<&str> = GrantType::ALL.iter().map(|g| g.as_str()).collect();
                Error::oauth(
                    OAuthErrorCode::UnsupportedGrantType,
                    format!("Supported grant types: {}.", supported.join(", ")),
                )
            })?,
        };
        let client = self
            .authenticate_client(&realm, creds.as_ref(), meta)
            .await?;
        // Who may present an ID-JAG is decided by the realm's trusted issuers (each lists its
        // clients), not by the client's registration.
        // Likewise who may ask for an ID-JAG for another authorization server is decided by the
        // realm's trusting servers (each lists its clients).
        let wants_id_jag = grant == GrantType::TokenExchange
            && req.requested_token_type.as_deref() == Some(super::model::ID_JAG_TOKEN_TYPE);
        let listed_elsewhere = grant == GrantType::JwtBearer
            || (wants_id_jag && self.lists_for_id_jags(&realm, &client).await?);
        if wants_id_jag && !listed_elsewhere {
            // Answered before any work or audit row: anyone can name a public client.
            return Err(Error::oauth(
                OAuthErrorCode::UnauthorizedClient,
                "This client may not ask for ID-JAGs: no trusting server of the realm lists it (confidential clients only).",
            ));
        }
        if !listed_elsewhere && !client.grant_types.contains(&grant) {
            // An ID token sent without asking for an ID-JAG: say what was missing.
            if grant == GrantType::TokenExchange
                && req.subject_token_type.as_deref() == Some(super::model::ID_TOKEN_TYPE)
            {
                return Err(Error::oauth(
                    OAuthErrorCode::InvalidRequest,
                    "An ID token is exchanged only for an ID-JAG: requested_token_type urn:ietf:params:oauth:token-type:id-jag.",
                ));
            }
            return Err(Error::oauth(
                OAuthErrorCode::UnauthorizedClient,
                format!("This client may not use {}.", grant.as_str()),
            ));
        }
        match grant {
            GrantType::ClientCredentials => self.client_credentials(&realm, &client, req).await,
            GrantType::AuthorizationCode => {
                self.authorization_code(&realm, &client, req, meta).await
            }
            GrantType::RefreshToken => self.refresh_token(&realm, &client, req, meta).await,
            GrantType::TokenExchange => self.token_exchange(&realm, &client, req, meta).await,
            GrantType::DeviceCode => self.device_code(&realm, &client, req, meta).await,
            GrantType::JwtBearer => self.jwt_bearer(&realm, &client, req, meta).await,
        }
    }

    /// Signs an access token for `client` at `resource` with `scope`, acting for `agent`, or
    /// for a person (`user`: their subject and the token family). It expires after the
    /// resource's lifetime (its own, else the realm's default), and never after the agent's
    /// expiry.
    pub(crate) async fn mint_access_token(
        &self,
        realm: &Realm,
        client: &Client,
        resource: &Resource,
        agent: Option<&Agent>,
        scope: &ScopeSet,
        user: Option<(&str, &FamilyId)>,
    ) -> Result<TokenResponse> {
        let now = self.now();
        let lifetime = crate::tokens::lifetime::minted_token_ttl(
            resource.token_ttl_secs,
            realm.token_ttl_secs,
        );
        let lifetime_end = now + lifetime;
        let exp = agent
            .and_then(|a| a.expires_at)
            .map_or(lifetime_end, |t| t.min(lifetime_end));
        let claims = AccessTokenClaims {
            iss: self.issuer(&realm.name),
            sub: user.map_or_else(|| client.client_id.to_string(), |(s, _)| s.to_owned()),
            aud: resource.uri.to_string(),
            client_id: client.client_id.to_string(),
            scope: scope.to_string(),
            iat: now,
            exp,
            jti: crate::secret::new_id("at"),
            act: None,
            mcp_server: None,
            mcp_release: None,
            agent: agent.map(|a| AgentClaims {
                nhi: true,
                agent_id: a.id.to_string(),
                agent_name: a.name.clone(),
                agent_owner: a.owner.clone(),
                roles: a.roles.iter().map(str::to_owned).collect(),
            }),
            origin: TokenOrigin {
                client: client.id.to_string(),
                resource: resource.id.to_string(),
                binding: client.agent.as_ref().map(|b| b.binding_id.to_string()),
                family: user.map(|(_, f)| f.to_string()),
                epoch: client.registration.token_epoch,
                subject: None,
            },
        };
        self.sign_access_token(realm, resource, claims).await
    }

    /// Signs `claims` with the realm's key of the resource's algorithm: the token response.
    pub(crate) async fn sign_access_token(
        &self,
        realm: &Realm,
        resource: &Resource,
        claims: AccessTokenClaims,
    ) -> Result<TokenResponse> {
        let alg = resource.signing_alg.unwrap_or(SigningAlg::ES256);
        let keys = self.realm_keys(realm, Some(alg)).await?;
        let signer = keys
            .signer(alg)
            .ok_or_else(|| Error::Internal(format!("no active {alg} key")))?;
        let access_token = signer
            .sign(ACCESS_TOKEN_TYP, &claims)
            .map_err(Error::Internal)?;
        Ok(TokenResponse {
            access_token,
            token_type: "Bearer".to_owned(),
            expires_in: claims.exp - claims.iat,
            scope: claims.scope,
            refresh_token: None,
            issued_token_type: None,
            id_token: None,
        })
    }
}
