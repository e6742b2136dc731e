//! Token revocation (RFC 7009): the client a token was issued to may revoke it.
use super::model::ClientCredentials;
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};

impl Core {
    /// Revokes an access token of the calling client; invalid, unknown and expired tokens are
    /// not an error (RFC 7009 §2.2). A revoked `jti` is remembered until the token expires.
    ///
    /// # Errors
    /// `OAuth(invalid_client)`, `OAuth(unauthorized_client)` for another client's token,
    /// `Throttled`, `NotFound` (realm).
    pub async fn revoke_token(
        &self,
        realm_name: &str,
        creds: Option<ClientCredentials>,
        token: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let realm = self.serving_realm(realm_name).await?;
        let client = self
            .authenticate_client(&realm, creds.as_ref(), meta)
            .await?;
        if token.starts_with("prt_") {
            return self
                .revoke_refresh_token(&realm, &client, token, meta)
                .await;
        }
        let Some(claims) = self.verify_access_token(&realm, token).await? else {
            return Ok(());
        };
        if claims.client_id != client.client_id.as_str()
            || claims.origin.client != client.id.as_str()
        {
            return Err(Error::oauth(
                OAuthErrorCode::UnauthorizedClient,
                "The token was not issued to this client.",
            ));
        }
        if claims.exp <= self.now() {
            return Ok(());
        }
        let mut event = self.event(
            &realm.id,
            client.client_id.as_str(),
            action::TOKEN_REVOKE,
            AuditSubject::Token(claims.jti.to_string()),
            meta,
        );
        event.details = serde_json::json!({"aud": claims.aud});
        self.store
            .insert_revoked_token(&realm.id, &claims.jti, claims.exp, &event)
            .await?;
        Ok(())
    }

    /// Revokes a refresh token of the calling client, and with it its whole family (RFC 7009
    /// §2.1: the access tokens of the same authorization go too).
    async fn revoke_refresh_token(
        &self,
        realm: &crate::realms::Realm,
        client: &crate::clients::Client,
        token: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let hash = crate::secret::PlainToken::from_input(token).hashed();
        let Some((_, family)) = self.store.find_refresh_token(&hash).await? else {
            return Ok(());
        };
        if family.realm_id != realm.id {
            return Ok(());
        }
        if family.client_pk != client.id {
            return Err(Error::oauth(
                OAuthErrorCode::UnauthorizedClient,
                "The token was not issued to this client.",
            ));
        }
        let mut event = self.event(
            &realm.id,
            client.client_id.as_str(),
            action::TOKEN_REVOKE,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.details =
            serde_json::json!({"family": family.id.as_str(), "subject": family.subject});
        self.store
            .revoke_family(&family.id, "revoked_by_client", self.now(), &event)
            .await?;
        Ok(())
    }
}
