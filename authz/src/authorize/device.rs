//! The device authorization grant (RFC 8628), its person-facing half: the device
//! authorization endpoint hands a device a device code and a user code; a person types the
//! user code on the realm's verification page, signs in, and allows or refuses on the consent
//! page every authorization shares (always shown: they confirm the code their device shows).
//!
//! An approval stores an authorization code that the device's next poll redeems (see
//! `tokens::grants::device_code`), so a device approval dies exactly as a code does: the person
//! disconnects the app, the client is revoked or disabled, the password changes, the person is
//! disabled. User codes are 8 consonants (20^8); wrong ones are throttled per source and for
//! everyone together, and the device endpoint per source and per client.
use super::model::{
    AuthorizeStep, DEVICE_CODE_TTL_SECS, DEVICE_POLL_INTERVAL_SECS, DeviceAuthorization,
    DeviceAuthorizationRequest, DeviceCode, DeviceDonePage, DeviceEntryPage, DeviceState,
    MAX_LIVE_DEVICE_CODES_PER_CLIENT, Prompt, TICKET_TTL_SECS, USER_CODE_ALPHABET, USER_CODE_LEN,
    display_user_code, normalise_user_code,
};
use super::ticket::{Ticket, browser_hash, page_error};
use crate::audit::{NewAuditEvent, RequestMeta};
use crate::clients::{Client, GrantType};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::people::Subject;
use crate::realms::Realm;
use crate::secret::PlainToken;
use crate::throttle::Source;
use crate::tokens::ClientCredentials;

/// Where an approved device's authorization code says it went (it never goes anywhere: the
/// device collects it by polling).
const DEVICE_REDIRECT: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// A new random user code, normalised.
fn new_user_code() -> String {
    // Random bytes (a hash of a fresh 256-bit secret) mapped onto the alphabet without bias:
    // only values below 240, a multiple of 20, count.
    let mut out = String::with_capacity(USER_CODE_LEN);
    let mut pool: Vec<u8> = Vec::new();
    while out.len() < USER_CODE_LEN {
        if pool.is_empty() {
            pool = PlainToken::generate().hashed();
        }
        let b = pool.pop().unwrap_or_default();
        if b < 240 {
            out.push(char::from(USER_CODE_ALPHABET[usize::from(b % 20)]));
        }
    }
    out
}

fn oauth_refusal(code: &str, description: String) -> Error {
    let code = OAuthErrorCode::ALL
        .into_iter()
        .find(|c| c.as_str() == code)
        .unwrap_or(OAuthErrorCode::InvalidRequest);
    Error::oauth(code, description)
}

impl Core {
    /// `POST /device_authorization` (RFC 8628 §3.1): a client that may use the device grant
    /// asks for codes for one resource. The scopes are checked as at the authorization
    /// endpoint.
    ///
    /// # Errors
    /// `OAuth` (RFC 6749 §5.2 codes, `invalid_target`), `Throttled`, `NotFound` (realm).
    pub async fn device_authorization(
        &self,
        realm_name: &str,
        creds: Option<ClientCredentials>,
        req: &DeviceAuthorizationRequest,
        meta: &RequestMeta,
    ) -> Result<DeviceAuthorization> {
        let realm = self.serving_realm(realm_name).await?;
        let now = self.now();
        self.login_throttle
            .device_request(Source::of(meta.client_ip), now)
            .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
        let client = self
            .authenticate_client(&realm, creds.as_ref(), meta)
            .await?;
        if !client.grant_types.contains(&GrantType::DeviceCode) {
            return Err(Error::oauth(
                OAuthErrorCode::UnauthorizedClient,
                "This client may not use the device authorization grant.",
            ));
        }
        let (resource, scopes) = self
            .asked_scopes(&realm, &client, &req.resource, req.scope.as_deref())
            .await
            .map_err(|r| oauth_refusal(r.code, r.description))?;
        if self.store.count_live_device_codes(&client.id, now).await?
            >= MAX_LIVE_DEVICE_CODES_PER_CLIENT
        {
            return Err(Error::oauth(
                OAuthErrorCode::TemporarilyUnavailable,
                "Too many device authorizations of this client are waiting; let some finish or expire.",
            ));
        }
        let device_code =
            PlainToken::from_input(&format!("pdc_{}", PlainToken::generate().expose()));
        let mut row = DeviceCode {
            device_code_hash: device_code.hashed(),
            user_code: String::new(),
            realm_id: realm.id.clone(),
            client_pk: client.id.clone(),
            client_id: client.client_id.to_string(),
            resource_id: resource.id.clone(),
            scopes,
            offline: client.grant_types.contains(&GrantType::RefreshToken),
            created_at: now,
            expires_at: now + DEVICE_CODE_TTL_SECS,
            interval_secs: DEVICE_POLL_INTERVAL_SECS,
            last_poll_at: None,
            state: DeviceState::Pending,
            subject: None,
            code_hash: None,
        };
        // A user code taken by another live authorization: draw again (at 20^8 codes, twice
        // in a row means something is wrong).
        let mut stored = false;
        for _ in 0..3 {
            row.user_code = new_user_code();
            if self.store.insert_device_code(&row).await? {
                stored = true;
                break;
            }
        }
        if !stored {
            return Err(Error::Internal("no free user code".into()));
        }
        let verification_uri = format!("{}/device", self.issuer(&realm.name));
        let shown = display_user_code(&row.user_code);
        Ok(DeviceAuthorization {
            device_code: device_code.expose().to_owned(),
            verification_uri_complete: format!("{verification_uri}?user_code={shown}"),
            verification_uri,
            user_code: shown,
            expires_in: DEVICE_CODE_TTL_SECS,
            interval: DEVICE_POLL_INTERVAL_SECS,
        })
    }

    /// `GET /device`: the page where a person types the code their device shows (filled in
    /// when the link carried it; nothing is looked up until they continue).
    ///
    /// # Errors
    /// `NotFound` (realm).
    pub async fn device_page(
        &self,
        realm_name: &str,
        browser: &str,
        session: Option<&str>,
        user_code: Option<&str>,
    ) -> Result<AuthorizeStep> {
        let realm = self.serving_realm(realm_name).await?;
        Ok(AuthorizeStep::DeviceEntry(DeviceEntryPage {
            realm: realm.display_name.clone(),
            user_code: user_code
                .map(|c| c.chars().take(32).collect())
                .unwrap_or_default(),
            error: None,
            form_token: self.account_form_token(browser, session),
        }))
    }

    /// `POST /device`: the typed code. A live one leads to sign-in (when nobody is signed in)
    /// and then the consent page; anything else is the form again with what went wrong.
    ///
    /// # Errors
    /// `NotFound` (realm), `OAuth` (the client can no longer be used: an error page).
    pub async fn device_enter(
        &self,
        realm_name: &str,
        browser: &str,
        session: Option<&str>,
        typed: &str,
        meta: &RequestMeta,
    ) -> Result<AuthorizeStep> {
        let realm = self.serving_realm(realm_name).await?;
        let now = self.now();
        let again = |error: String| {
            Ok(AuthorizeStep::DeviceEntry(DeviceEntryPage {
                realm: realm.display_name.clone(),
                user_code: typed.chars().take(32).collect(),
                error: Some(error),
                form_token: self.account_form_token(browser, session),
            }))
        };
        let attempt =
            match self
                .login_throttle
                .begin_user_code(&realm.id, Source::of(meta.client_ip), now)
            {
                Ok(a) => a,
                Err(wait) => {
                    return again(format!(
                        "Too many wrong codes were tried. Try again in {} minutes.",
                        wait.div_ceil(60)
                    ));
                }
            };
        let found = match normalise_user_code(typed) {
            Some(code) => {
                self.store
                    .find_pending_device_code(&realm.id, &code, now)
                    .await?
            }
            None => None,
        };
        let Some(device) = found else {
            return again(
                "That code is not valid or has expired. Check the code on your device (8 letters, like BCDF-GHJK); if it has expired, start again there."
                    .into(),
            );
        };
        self.login_throttle.undo(attempt);
        let client_id = crate::clients::ClientId::parse(&device.client_id)
            .map_err(|_| page_error("Bad device code."))?;
        let client = self
            .store
            .find_client(&realm.id, &client_id)
            .await?
            .filter(|c| c.id == device.client_pk && c.is_active())
            .ok_or_else(|| {
                Error::oauth(
                    OAuthErrorCode::UnauthorizedClient,
                    "This application is no longer registered or was disabled.",
                )
            })?;
        let ticket = Ticket {
            id: crate::secret::new_id("tkt"),
            realm: realm.id.to_string(),
            client: client.id.to_string(),
            client_version: client.updated_at,
            client_id: client.client_id.to_string(),
            redirect_uri: DEVICE_REDIRECT.to_owned(),
            state: None,
            challenge: String::new(),
            resource: device.resource_id.to_string(),
            scopes: device.scopes.to_string(),
            offline: device.offline,
            openid: None,
            nonce: None,
            prompt: Prompt::default(),
            exp: (now + TICKET_TTL_SECS).min(device.expires_at),
            browser: browser_hash(browser),
            subject: None,
            auth_time: None,
            device: Some(hex::encode(&device.device_code_hash)),
            user_code: Some(display_user_code(&device.user_code)),
        };
        let signed_in = match session {
            Some(cookie) => self.session_subject(&realm, cookie).await?,
            None => None,
        };
        match signed_in {
            Some((subject, auth_time)) => {
                self.continue_as(&realm, ticket, &subject, (auth_time, true), meta)
                    .await
            }
            None => self.login_step(&realm, &client, &ticket, None, "").await,
        }
    }

    /// The person allowed the device: the authorization code its next poll redeems.
    pub(super) async fn approve_device(
        &self,
        realm: &Realm,
        ticket: &Ticket,
        client: &Client,
        subject: &Subject,
        auth_time: i64,
        meta: &RequestMeta,
    ) -> Result<AuthorizeStep> {
        let hash = device_hash(ticket)?;
        let (_, row, mut event) = self.new_code(
            realm,
            ticket,
            subject,
            (auth_time, DEVICE_CODE_TTL_SECS),
            meta,
        )?;
        event.details["device"] = serde_json::Value::Bool(true);
        if !self.store.approve_device_code(&hash, &row, &event).await? {
            return Err(page_error(
                "This code was already answered or has expired. Start again on your device.",
            ));
        }
        Ok(AuthorizeStep::DeviceDone(DeviceDonePage {
            realm: realm.display_name.clone(),
            client_name: client.name.clone(),
            approved: true,
        }))
    }

    /// The person refused the device (`event`: the consent refusal).
    pub(super) async fn deny_device(
        &self,
        realm: &Realm,
        ticket: &Ticket,
        client: &Client,
        subject: &Subject,
        event: &NewAuditEvent,
    ) -> Result<AuthorizeStep> {
        let hash = device_hash(ticket)?;
        if !self
            .store
            .deny_device_code(&hash, &subject.id, self.now(), event)
            .await?
        {
            return Err(page_error(
                "This code was already answered or has expired. Start again on your device.",
            ));
        }
        Ok(AuthorizeStep::DeviceDone(DeviceDonePage {
            realm: realm.display_name.clone(),
            client_name: client.name.clone(),
            approved: false,
        }))
    }
}

fn device_hash(ticket: &Ticket) -> Result<Vec<u8>> {
    ticket
        .device
        .as_deref()
        .and_then(|h| hex::decode(h).ok())
        .ok_or_else(|| page_error("Bad ticket."))
}
