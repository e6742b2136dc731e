//! The `refresh_token` grant (RFC 6749 §6, OAuth 2.1 §4.3.1): every use rotates the token. The
//! rotated token, sent again within [`REFRESH_GRACE_SECS`] (a client that sent two requests at
//! once, or lost the answer), gets the very same answer; after that, its reuse means it leaked,
//! and the whole family is revoked. A refresh may narrow the scopes, never widen them or change
//! the resource; idle and absolute lifetimes come from the realm.
use super::super::model::{TokenRequest, TokenResponse};
use super::authorization_code::{invalid_grant, new_refresh_token};
use crate::audit::{AuditSubject, Outcome, RequestMeta, action};
use crate::authorize::{REFRESH_GRACE_SECS, RefreshToken, ScopeRequest, TokenFamily};
use crate::clients::Client;
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::keys::MasterKey;
use crate::realms::Realm;
use crate::resources::ResourceUri;
use crate::secret::PlainToken;

const SUCCESSOR_KEY: &str = "portcullis refresh successor";

impl Core {
    pub(super) async fn refresh_token(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
        meta: &RequestMeta,
    ) -> Result<TokenResponse> {
        let Some(presented) = req.refresh_token.as_deref().filter(|t| !t.is_empty()) else {
            return Err(Error::oauth(
                OAuthErrorCode::InvalidRequest,
                "refresh_token is required.",
            ));
        };
        let presented = PlainToken::from_input(presented);
        let hash = presented.hashed();
        let Some((token, family)) = self.store.find_refresh_token(&hash).await? else {
            return Err(invalid_grant("The refresh token is invalid or expired."));
        };
        if family.realm_id != realm.id || family.client_pk != client.id {
            return Err(invalid_grant(
                "The refresh token was not issued to this client.",
            ));
        }
        let now = self.now();
        if !family.is_live(now) || token.expires_at <= now {
            return Err(invalid_grant(
                "The refresh token is invalid, expired or revoked.",
            ));
        }
        if let Some(rotated_at) = token.rotated_at {
            return self
                .rotated_again(realm, client, &presented, &token, &family, rotated_at, meta)
                .await;
        }
        // Narrowing is allowed, widening is not; `offline_access` is implied.
        let asked = ScopeRequest::parse(req.scope.as_deref()).map_err(|_| {
            Error::oauth(
                OAuthErrorCode::InvalidScope,
                "The scope parameter is malformed.",
            )
        })?;
        if !asked.scopes.iter().all(|s| family.scopes.contains(s)) {
            return Err(Error::oauth(
                OAuthErrorCode::InvalidScope,
                "A refresh cannot add scopes to what the user agreed to.",
            ));
        }
        let scopes = if asked.scopes.is_empty() {
            family.scopes.clone()
        } else {
            asked.scopes
        };
        let resource = self
            .cached_resource_by_id(&realm.id, &family.resource_id)
            .await?
            .filter(|r| r.enabled)
            .ok_or_else(|| {
                Error::oauth(
                    OAuthErrorCode::InvalidTarget,
                    "The resource is unknown or disabled.",
                )
            })?;
        match req.resource.as_slice() {
            [] => {}
            [one]
                if ResourceUri::parse(one, self.config().allow_http_loopback)
                    .is_ok_and(|u| u == resource.uri) => {}
            _ => {
                return Err(Error::oauth(
                    OAuthErrorCode::InvalidTarget,
                    "A refresh cannot change the resource.",
                ));
            }
        }
        let subject = match self.live_subject(realm, &family.subject).await? {
            Some(s) if resource.policy.admits(&s.roles) => s,
            Some(_) => {
                return Err(invalid_grant(
                    "The user no longer holds a role the resource requires.",
                ));
            }
            None => return Err(invalid_grant("The user can no longer sign in.")),
        };
        if resource.policy.consent == crate::resources::ConsentPolicy::GrantedClients
            && !self
                .cached_grant(&client.id, &resource.id)
                .await?
                .is_some_and(|g| scopes.iter().all(|s| g.scopes.contains(s)))
        {
            return Err(invalid_grant(
                "The client's access to the resource was withdrawn.",
            ));
        }
        let mut issued = self
            .mint_access_token(
                realm,
                client,
                &resource,
                None,
                &scopes,
                Some((family.subject.as_str(), &family.id)),
            )
            .await?;
        // A refresh answers with a new ID token too, without a nonce (OpenID Connect Core §12.2).
        if let Some(openid) = family.openid {
            issued.id_token = Some(
                self.sign_id_token(
                    realm,
                    client,
                    &subject,
                    (openid, None),
                    (&family.id, family.auth_time),
                )
                .await?,
            );
        }
        let next = new_refresh_token();
        issued.refresh_token = Some(next.expose().to_owned());
        let sealed = seal_successor(&presented, &issued)?;
        let next_row = RefreshToken {
            token_hash: next.hashed(),
            family_id: family.id.clone(),
            created_at: now,
            expires_at: (now + realm.refresh_idle_ttl_secs).min(family.expires_at),
            rotated_at: None,
            successor: None,
        };
        if self
            .store
            .rotate_refresh_token(&hash, now, &sealed, &next_row)
            .await?
        {
            self.token_use.record(&client.id, &resource.id, now);
            return Ok(issued);
        }
        // Another request rotated it a moment ago: answer as that one did.
        match self.store.find_refresh_token(&hash).await? {
            Some((token, family)) if token.rotated_at.is_some() => {
                let at = token.rotated_at.unwrap_or(now);
                self.rotated_again(realm, client, &presented, &token, &family, at, meta)
                    .await
            }
            _ => Err(invalid_grant(
                "The refresh token is invalid, expired or revoked.",
            )),
        }
    }

    /// A rotated token presented again: within the grace window, the answer its rotation gave;
    /// after it, the family is revoked.
    #[allow(clippy::too_many_arguments)]
    async fn rotated_again(
        &self,
        realm: &Realm,
        client: &Client,
        presented: &PlainToken,
        token: &RefreshToken,
        family: &TokenFamily,
        rotated_at: i64,
        meta: &RequestMeta,
    ) -> Result<TokenResponse> {
        if self.now() - rotated_at <= REFRESH_GRACE_SECS
            && let Some(answer) = token
                .successor
                .as_deref()
                .and_then(|s| open_successor(presented, s))
        {
            return Ok(answer);
        }
        let mut event = self.event(
            &realm.id,
            client.client_id.as_str(),
            action::REFRESH_REUSE,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.outcome = Outcome::Failure;
        event.details = serde_json::json!({
            "family": family.id.as_str(),
            "subject": family.subject,
        });
        if !self
            .store
            .revoke_family(&family.id, "refresh_reuse", self.now(), &event)
            .await?
        {
            self.store.insert_audit_event(&event).await?;
        }
        Err(invalid_grant(
            "The refresh token was already used; every token of this sign-in is revoked.",
        ))
    }
}

/// Seals the answer of a rotation with a key only the rotated token's holder can derive.
fn seal_successor(presented: &PlainToken, answer: &TokenResponse) -> Result<Vec<u8>> {
    let json = serde_json::to_vec(answer).map_err(|e| Error::Internal(e.to_string()))?;
    MasterKey::from_secret(presented.expose().as_bytes(), SUCCESSOR_KEY)
        .seal(&json, b"successor")
        .map_err(Error::Internal)
}

fn open_successor(presented: &PlainToken, sealed: &[u8]) -> Option<TokenResponse> {
    let json = MasterKey::from_secret(presented.expose().as_bytes(), SUCCESSOR_KEY)
        .open(sealed, b"successor")
        .ok()?;
    serde_json::from_slice(&json).ok()
}
