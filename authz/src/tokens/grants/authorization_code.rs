//! The `authorization_code` grant (RFC 6749 §4.1.3 with PKCE, RFC 7636 §4.6): a code is used
//! once, within a minute, by the client it was issued to, with the redirect URI and PKCE
//! verifier of its request; a second use revokes everything the first one produced.
use super::super::model::{TokenRequest, TokenResponse};
use crate::audit::{AuditSubject, Outcome, RequestMeta, action};
use crate::authorize::{AuthorizationCode, RefreshToken, TokenFamily, verifier_matches};
use crate::clients::Client;
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::realms::Realm;
use crate::resources::{Resource, ResourceUri};
use crate::secret::PlainToken;
use crate::storage::Redeemed;

/// The one answer for a code that cannot be used, whatever the reason (RFC 6749 §5.2).
pub(super) fn invalid_grant(msg: &'static str) -> Error {
    Error::oauth(OAuthErrorCode::InvalidGrant, msg)
}

/// A new refresh token value (`prt_` + 256 bits).
pub(super) fn new_refresh_token() -> PlainToken {
    PlainToken::from_input(&format!("prt_{}", PlainToken::generate().expose()))
}

impl Core {
    pub(super) async fn authorization_code(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
        meta: &RequestMeta,
    ) -> Result<TokenResponse> {
        let (Some(code), Some(verifier)) = (req.code.as_deref(), req.code_verifier.as_deref())
        else {
            return Err(Error::oauth(
                OAuthErrorCode::InvalidRequest,
                "code and code_verifier are required.",
            ));
        };
        let hash = PlainToken::from_input(code).hashed();
        let Some(stored) = self.store.find_code(&hash).await? else {
            return Err(invalid_grant(
                "The authorization code is invalid or expired.",
            ));
        };
        if stored.realm_id != realm.id || stored.client_pk != client.id {
            return Err(invalid_grant(
                "The authorization code was not issued to this client.",
            ));
        }
        if stored.redeemed_at.is_some() {
            return Err(self.code_replayed(realm, client, &stored, meta).await);
        }
        let now = self.now();
        if stored.expires_at <= now {
            return Err(invalid_grant(
                "The authorization code is invalid or expired.",
            ));
        }
        if req.redirect_uri.as_deref() != Some(stored.redirect_uri.as_str()) {
            return Err(invalid_grant(
                "redirect_uri must be the one the authorization request used.",
            ));
        }
        if !verifier_matches(verifier, &stored.code_challenge) {
            return Err(invalid_grant(
                "The code_verifier does not match the code_challenge.",
            ));
        }
        self.redeem_stored_code(realm, client, &hash, &stored, &req.resource, meta)
            .await
    }

    /// Redeems a checked, unexpired code (of the authorization endpoint, or of an approved
    /// device): the person can still sign in, the grant still covers it, then the family, its
    /// first refresh token and an access token.
    pub(super) async fn redeem_stored_code(
        &self,
        realm: &Realm,
        client: &Client,
        hash: &[u8],
        stored: &AuthorizationCode,
        sent_resource: &[String],
        meta: &RequestMeta,
    ) -> Result<TokenResponse> {
        let now = self.now();
        let resource = self.code_resource(realm, stored, sent_resource).await?;
        let Some(subject) = self.live_subject(realm, &stored.subject).await? else {
            return Err(invalid_grant("The user can no longer sign in."));
        };
        // As on refresh: where only granted clients may ask, the grant must still cover it.
        if resource.policy.consent == crate::resources::ConsentPolicy::GrantedClients
            && !self
                .cached_grant(&client.id, &resource.id)
                .await?
                .is_some_and(|g| stored.scopes.iter().all(|s| g.scopes.contains(s)))
        {
            return Err(invalid_grant(
                "The client's access to the resource was withdrawn.",
            ));
        }
        let family = TokenFamily {
            id: stored.family_id.clone(),
            realm_id: realm.id.clone(),
            subject: stored.subject.clone(),
            client_pk: client.id.clone(),
            resource_id: resource.id.clone(),
            scopes: stored.scopes.clone(),
            offline: stored.offline,
            openid: stored.openid,
            auth_time: stored.auth_time,
            created_at: now,
            expires_at: now + realm.refresh_max_ttl_secs,
            revoked_at: None,
            revoked_reason: None,
        };
        let refresh = stored.offline.then(new_refresh_token);
        let refresh_row = refresh.as_ref().map(|t| RefreshToken {
            token_hash: t.hashed(),
            family_id: family.id.clone(),
            created_at: now,
            expires_at: (now + realm.refresh_idle_ttl_secs).min(family.expires_at),
            rotated_at: None,
            successor: None,
        });
        match self
            .store
            .redeem_code(hash, now, &family, refresh_row.as_ref())
            .await?
        {
            Redeemed::First => {}
            Redeemed::Again => return Err(self.code_replayed(realm, client, stored, meta).await),
            // Killed while this request ran (the app disconnected, the client revoked, …).
            Redeemed::Gone => {
                return Err(invalid_grant(
                    "The authorization code is invalid or expired.",
                ));
            }
        }
        let mut issued = self
            .mint_access_token(
                realm,
                client,
                &resource,
                None,
                &stored.scopes,
                Some((stored.subject.as_str(), &family.id)),
            )
            .await?;
        issued.refresh_token = refresh.map(|t| t.expose().to_owned());
        if let Some(openid) = stored.openid {
            let nonce = stored.nonce.as_deref();
            issued.id_token = Some(
                self.sign_id_token(
                    realm,
                    client,
                    &subject,
                    (openid, nonce),
                    (&family.id, stored.auth_time),
                )
                .await?,
            );
        }
        self.token_use.record(&client.id, &resource.id, now);
        Ok(issued)
    }

    /// The code's resource, still enabled; a `resource` sent with the token request must name
    /// the same one.
    async fn code_resource(
        &self,
        realm: &Realm,
        code: &AuthorizationCode,
        sent: &[String],
    ) -> Result<Resource> {
        let target = |m: &'static str| Error::oauth(OAuthErrorCode::InvalidTarget, m);
        let resource = self
            .cached_resource_by_id(&realm.id, &code.resource_id)
            .await?
            .filter(|r| r.enabled)
            .ok_or_else(|| target("The resource is unknown or disabled."))?;
        match sent {
            [] => {}
            [one] => {
                let same = ResourceUri::parse(one, self.config().allow_http_loopback)
                    .is_ok_and(|u| u == resource.uri);
                if !same {
                    return Err(target(
                        "The resource must be the one the authorization request named.",
                    ));
                }
            }
            _ => return Err(target("Exactly one resource parameter is allowed.")),
        }
        Ok(resource)
    }

    /// A code used again: whoever holds it is not the only holder, so everything its first use
    /// produced is revoked (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3).
    pub(super) async fn code_replayed(
        &self,
        realm: &Realm,
        client: &Client,
        code: &AuthorizationCode,
        meta: &RequestMeta,
    ) -> Error {
        let mut event = self.event(
            &realm.id,
            client.client_id.as_str(),
            action::CODE_REPLAY,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.outcome = Outcome::Failure;
        event.details = serde_json::json!({
            "family": code.family_id.as_str(),
            "subject": code.subject,
        });
        let now = self.now();
        match self
            .store
            .revoke_family(&code.family_id, "code_replay", now, &event)
            .await
        {
            Ok(true) => {}
            // Nothing to revoke (the first redemption's family is gone): still audited.
            Ok(false) => {
                if let Err(e) = self.store.insert_audit_event(&event).await {
                    return e.into();
                }
            }
            Err(e) => return e.into(),
        }
        invalid_grant("The authorization code was already used.")
    }
}
