//! The device authorization grant's polling half (RFC 8628 §3.4–3.5): the device sends its
//! device code until a person answered on the verification page. Polls answer
//! `authorization_pending` while nobody has, `slow_down` (and five seconds more between polls)
//! when they come too fast, `access_denied` when the person refused or the approval was
//! withdrawn before the device collected it, and `expired_token` after ten minutes. An approval
//! is an authorization code, redeemed here once: a second redemption is refused and revokes
//! what the first produced, as for any code.
use super::super::model::{TokenRequest, TokenResponse};
use super::authorization_code::invalid_grant;
use crate::audit::RequestMeta;
use crate::authorize::{DEVICE_SLOW_DOWN_SECS, DeviceState};
use crate::clients::Client;
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::realms::Realm;
use crate::secret::PlainToken;

impl Core {
    pub(super) async fn device_code(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
        meta: &RequestMeta,
    ) -> Result<TokenResponse> {
        let Some(code) = req.device_code.as_deref().filter(|c| !c.is_empty()) else {
            return Err(Error::oauth(
                OAuthErrorCode::InvalidRequest,
                "device_code is required.",
            ));
        };
        if code.len() > 256 {
            return Err(invalid_grant("The device code is invalid."));
        }
        let hash = PlainToken::from_input(code).hashed();
        let Some(device) = self.store.find_device_code(&hash).await? else {
            return Err(invalid_grant("The device code is invalid."));
        };
        if device.realm_id != realm.id || device.client_pk != client.id {
            return Err(invalid_grant(
                "The device code was not issued to this client.",
            ));
        }
        let now = self.now();
        if device.expires_at <= now {
            return Err(Error::oauth(
                OAuthErrorCode::ExpiredToken,
                "The device code expired; start the sign-in again.",
            ));
        }
        match device.state {
            DeviceState::Pending => {
                if self
                    .store
                    .poll_device_code(&hash, now, DEVICE_SLOW_DOWN_SECS)
                    .await?
                {
                    Err(Error::oauth(
                        OAuthErrorCode::AuthorizationPending,
                        "Waiting for the person to enter the code and allow access.",
                    ))
                } else {
                    Err(Error::oauth(
                        OAuthErrorCode::SlowDown,
                        format!(
                            "Polling too fast: wait {} seconds between requests.",
                            device.interval_secs + DEVICE_SLOW_DOWN_SECS
                        ),
                    ))
                }
            }
            DeviceState::Denied => Err(Error::oauth(
                OAuthErrorCode::AccessDenied,
                "The person refused access.",
            )),
            DeviceState::Approved => {
                let withdrawn = || {
                    Error::oauth(
                        OAuthErrorCode::AccessDenied,
                        "The approval was withdrawn before the device collected it.",
                    )
                };
                let code_hash = device.code_hash.ok_or_else(withdrawn)?;
                let stored = self
                    .store
                    .find_code(&code_hash)
                    .await?
                    .ok_or_else(withdrawn)?;
                if stored.redeemed_at.is_some() {
                    return Err(self.code_replayed(realm, client, &stored, meta).await);
                }
                if stored.expires_at <= now {
                    return Err(Error::oauth(
                        OAuthErrorCode::ExpiredToken,
                        "The device code expired; start the sign-in again.",
                    ));
                }
                self.redeem_stored_code(realm, client, &code_hash, &stored, &req.resource, meta)
                    .await
            }
        }
    }
}
