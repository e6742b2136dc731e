//! Token introspection (RFC 7662).
//!
//! Only confidential clients may introspect (RFC 7662 §4: the endpoint must not become a token
//! scanning oracle), and only tokens issued to themselves or, with a resource server's
//! introspection credentials, tokens minted for that resource. Everything else — foreign
//! tokens, expired, revoked or dead ones, garbage — answers `{"active": false}`.
use super::model::{ClientCredentials, Introspection};
use crate::audit::RequestMeta;
use crate::clients::AuthMethod;
use crate::core::Core;
use crate::error::Result;

impl Core {
    /// Token introspection for an authenticated client of the realm.
    ///
    /// # Errors
    /// `OAuth(invalid_client)`, `Throttled`, `NotFound` (realm).
    pub async fn introspect_token(
        &self,
        realm_name: &str,
        creds: Option<ClientCredentials>,
        token: &str,
        meta: &RequestMeta,
    ) -> Result<Introspection> {
        let realm = self.serving_realm(realm_name).await?;
        let caller = self
            .authenticate_client(&realm, creds.as_ref(), meta)
            .await?;
        if caller.auth_method == AuthMethod::None {
            return Ok(Introspection::inactive());
        }
        if token.starts_with("prt_") {
            return self.introspect_refresh_token(&realm, &caller, token).await;
        }
        let Some(claims) = self.verify_access_token(&realm, token).await? else {
            return Ok(Introspection::inactive());
        };
        let own = caller.client_id.as_str() == claims.client_id
            && caller.id.as_str() == claims.origin.client;
        let served = caller
            .resource_server_for
            .as_ref()
            .is_some_and(|r| r.as_str() == claims.origin.resource);
        if !own && !served {
            return Ok(Introspection::inactive());
        }
        if claims.exp <= self.now() || self.is_revoked(&realm.id, &claims.jti).await? {
            return Ok(Introspection::inactive());
        }
        let Some(client) = self.token_client(&realm, &claims).await? else {
            return Ok(Introspection::inactive());
        };
        if !self.token_is_alive(&realm, &claims, &client).await? {
            return Ok(Introspection::inactive());
        }
        let mut out = match serde_json::to_value(&claims) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => return Ok(Introspection::inactive()),
        };
        out.remove("portcullis");
        out.insert("token_type".into(), "Bearer".into());
        Ok(Introspection {
            active: true,
            claims: Some(out),
        })
    }

    /// A refresh token, for the client it was issued to: active while usable (unrotated,
    /// unexpired, its family live).
    async fn introspect_refresh_token(
        &self,
        realm: &crate::realms::Realm,
        caller: &crate::clients::Client,
        token: &str,
    ) -> Result<Introspection> {
        let hash = crate::secret::PlainToken::from_input(token).hashed();
        let Some((t, family)) = self.store.find_refresh_token(&hash).await? else {
            return Ok(Introspection::inactive());
        };
        let now = self.now();
        let usable = family.realm_id == realm.id
            && family.client_pk == caller.id
            && caller.is_active()
            && family.is_live(now)
            && t.rotated_at.is_none()
            && t.expires_at > now;
        if !usable {
            return Ok(Introspection::inactive());
        }
        let resource = self
            .cached_resource_by_id(&realm.id, &family.resource_id)
            .await?
            .filter(|r| r.enabled);
        let Some(resource) = resource else {
            return Ok(Introspection::inactive());
        };
        let serde_json::Value::Object(claims) = serde_json::json!({
            "token_type": "refresh_token",
            "client_id": caller.client_id.as_str(),
            "sub": family.subject,
            "aud": resource.uri.as_str(),
            "scope": family.scopes.to_string(),
            "iss": self.issuer(&realm.name),
            "iat": t.created_at,
            "exp": t.expires_at,
        }) else {
            return Ok(Introspection::inactive());
        };
        Ok(Introspection {
            active: true,
            claims: Some(claims),
        })
    }
}
