//! Signing in at the authorization endpoint through one of the realm's providers: the button
//! starts it (the pending sign-in goes into a cookie of the browser, sealed), the provider's
//! callback finishes it, and a person who must prove their account first does so on the link
//! page. Each ends like a password sign-in: a sign-in session, then consent or the code.
use super::model::UpstreamStart;
use super::model::{AuthorizeStep, NewLoginSession};
use super::ticket::{Ticket, browser_hash, page_error};
use crate::audit::{RequestMeta, action};
use crate::broker::{Brokered, LINK_TTL_SECS, LinkPage, PendingLink};
use crate::clients::Client;
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::people::Subject;
use crate::realms::Realm;
use crate::sso::{PendingSsoSignIn, SIGN_IN_TTL_SECS, SsoCallback, SsoProvider, provider_actor};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

/// Longest sealed pending sign-in a cookie carries (browsers keep cookies up to 4 KiB).
const MAX_PENDING_COOKIE: usize = 3800;

/// A sign-in that went to a realm's provider, sealed into a cookie of the browser.
#[derive(Debug, Serialize, Deserialize)]
struct PendingUpstream {
    /// State, nonce, PKCE verifier and when it started.
    sign_in: PendingSsoSignIn,
    /// The authorization request it continues; none for the account page.
    ticket: Option<Ticket>,
    /// The hash of the browser cookie of the browser that started it.
    browser: String,
}

/// Where a provider sign-in goes back to.
enum Back {
    /// The authorization request (and its client) it continues.
    Authorize(Box<(Ticket, Client)>),
    /// The account page.
    Account,
}

const EXPIRED: &str = "This sign-in has expired or was started in another browser. Go back to the application and connect again.";

impl Core {
    /// `POST` of a provider button on the sign-in page: where to send the browser, with the
    /// sealed pending sign-in for its cookie.
    ///
    /// # Errors
    /// `NotFound` (realm), `OAuth` (an expired or foreign ticket, a provider not offered: an
    /// error page).
    pub async fn authorize_upstream(
        &self,
        realm_name: &str,
        ticket: &str,
        browser: &str,
        provider_id: &str,
    ) -> Result<UpstreamStart> {
        let realm = self.serving_realm(realm_name).await?;
        let opened = self.open_ticket(&realm, ticket, browser)?;
        let provider = self.offered_provider(realm_name, provider_id).await?;
        match self
            .start_upstream(&realm, &provider, Some(opened), browser)
            .await?
        {
            Ok(started) => Ok(started),
            Err((Some(opened), error)) => self.upstream_again(&realm, &opened, error).await,
            Err((None, _)) => Err(page_error(EXPIRED)),
        }
    }

    /// The account page's provider button: where to send the browser and the sealed pending
    /// sign-in for its cookie; `None` when the provider cannot be reached now.
    ///
    /// # Errors
    /// `NotFound` (realm), `OAuth` (a provider not offered: an error page).
    pub(super) async fn account_upstream(
        &self,
        realm_name: &str,
        browser: &str,
        provider_id: &str,
    ) -> Result<Option<(String, String)>> {
        let realm = self.serving_realm(realm_name).await?;
        let provider = self.offered_provider(realm_name, provider_id).await?;
        Ok(
            match self
                .start_upstream(&realm, &provider, None, browser)
                .await?
            {
                Ok(UpstreamStart::Redirect { url, pending }) => Some((url, pending)),
                Ok(UpstreamStart::Page(_)) | Err(_) => None,
            },
        )
    }

    /// An enabled provider of the realm, or the error page.
    async fn offered_provider(&self, realm_name: &str, provider_id: &str) -> Result<SsoProvider> {
        match self.realm_provider(realm_name, provider_id).await {
            Ok((_, p)) if p.enabled => Ok(p),
            Ok(_) | Err(Error::NotFound { .. }) => Err(page_error(
                "This sign-in option is not available any more. Go back and choose another.",
            )),
            Err(e) => Err(e),
        }
    }

    /// Starts a sign-in at a realm's provider for this browser: the redirect, or (with the
    /// request given back) why not.
    async fn start_upstream(
        &self,
        realm: &Realm,
        provider: &SsoProvider,
        ticket: Option<Ticket>,
        browser: &str,
    ) -> Result<std::result::Result<UpstreamStart, (Option<Ticket>, String)>> {
        let rp = match self.relying_party(provider, false).await {
            Ok(rp) => rp,
            Err(e) => {
                tracing::warn!(provider = %provider.id, error = %e, "A realm's sign-in provider could not be reached");
                let error = format!(
                    "{} cannot be reached right now. Try again in a moment.",
                    provider.display_name
                );
                return Ok(Err((ticket, error)));
            }
        };
        let started = rp.start(&provider.scopes, &provider.second_factor_acr);
        let pending = PendingUpstream {
            sign_in: PendingSsoSignIn {
                provider_id: provider.id.to_string(),
                state: started.state,
                nonce: started.nonce,
                pkce_verifier: started.pkce_verifier,
                next: String::new(),
                started_at: self.now(),
            },
            ticket,
            browser: browser_hash(browser),
        };
        let sealed = self.seal_for(realm, b"upstream", &pending)?;
        if sealed.len() > MAX_PENDING_COOKIE {
            let error = "This request is too long to continue through a sign-in provider: sign in with your password, or ask your administrator.".to_owned();
            return Ok(Err((pending.ticket, error)));
        }
        Ok(Ok(UpstreamStart::Redirect {
            url: started.url,
            pending: sealed,
        }))
    }

    /// The sign-in page again, saying why the provider button did not lead anywhere.
    async fn upstream_again(
        &self,
        realm: &Realm,
        ticket: &Ticket,
        error: String,
    ) -> Result<UpstreamStart> {
        let client = self.ticket_client(realm, ticket).await?;
        let step = self
            .login_step(realm, &client, ticket, Some(error), "")
            .await?;
        Ok(UpstreamStart::Page(Box::new(step)))
    }

    /// The provider's callback: checks `state` against the browser's pending sign-in (and `iss`,
    /// RFC 9207, when sent), redeems the code, validates the ID token, and signs in the person
    /// it is — or asks them to prove their account, or says why not. Every outcome past the
    /// `state` check is audited.
    ///
    /// # Errors
    /// `NotFound` (realm), `OAuth` (no such sign-in under way in this browser: an error page),
    /// storage failure.
    pub async fn finish_upstream(
        &self,
        realm_name: &str,
        provider_id: &str,
        pending: Option<&str>,
        callback: &SsoCallback,
        browser: &str,
        meta: &RequestMeta,
    ) -> Result<(AuthorizeStep, Option<NewLoginSession>)> {
        let realm = self.serving_realm(realm_name).await?;
        // Only the browser that started this sign-in, at this provider, recently, with the
        // same `state` (constant-time) gets past here; anything else is unaudited noise.
        let Some(pending) = pending
            .and_then(|c| self.open_for::<PendingUpstream>(&realm, b"upstream", c))
            .filter(|p| {
                p.sign_in.provider_id == provider_id
                    && self.now() - p.sign_in.started_at <= SIGN_IN_TTL_SECS
                    && callback
                        .state
                        .as_deref()
                        .is_some_and(|s| bool::from(s.as_bytes().ct_eq(p.sign_in.state.as_bytes())))
            })
        else {
            return Err(page_error(EXPIRED));
        };
        if !crate::secret::constant_time_eq(
            pending.browser.as_bytes(),
            browser_hash(browser).as_bytes(),
        ) {
            return Err(page_error(EXPIRED));
        }
        let back = match pending.ticket {
            Some(t) => {
                let ticket = self.ticket_for(&realm, t, browser)?;
                let client = self.ticket_client(&realm, &ticket).await?;
                Back::Authorize(Box::new((ticket, client)))
            }
            None => Back::Account,
        };
        let provider = match self.realm_provider(realm_name, provider_id).await {
            Ok((_, p)) if p.enabled => p,
            Ok(_) | Err(Error::NotFound { .. }) => return Err(page_error(EXPIRED)),
            Err(e) => return Err(e),
        };
        let Ok(attempt) = self.login_throttle.begin_login(
            &format!(
                "{}:{}",
                provider_actor(&provider),
                pending.sign_in.state.chars().take(16).collect::<String>()
            ),
            crate::throttle::Source::of(meta.client_ip),
            self.now(),
        ) else {
            crate::accounts::count_sign_in("realm", "throttled");
            return self
                .upstream_back(
                    &realm,
                    &back,
                    "Too many attempts. Try again in a few minutes.".into(),
                )
                .await;
        };
        let failed = format!(
            "Signing in with {} did not work. Try again, or ask your administrator if it keeps failing.",
            provider.display_name
        );
        let (r, pr, bk, failed) = (&realm, &provider, &back, &failed);
        let refused = |reason: String| async move {
            self.audit_broker_failure(r, pr, &provider_actor(pr), &reason, meta)
                .await?;
            self.upstream_back(r, bk, failed.clone()).await
        };
        let code = match callback.code_from(&provider.issuer) {
            Ok(code) => code,
            Err(reason) => return refused(reason).await,
        };
        let identity = match self
            .redeem_sso_code(&provider, code, &pending.sign_in)
            .await
        {
            Ok((identity, _)) => identity,
            Err(e) => {
                tracing::warn!(provider = %provider.id, error = %e, "A realm provider sign-in failed");
                return refused(e).await;
            }
        };
        self.login_throttle.succeeded(attempt);
        match self
            .broker_identity(&realm, &provider, &identity, meta)
            .await?
        {
            Brokered::Person(subject) => {
                self.upstream_signed_in(&realm, back, &subject, &provider, false, meta)
                    .await
            }
            Brokered::Link(person) => {
                // Only the groups the mapping names matter (and they keep the page small).
                let named = |g: &&String| provider.group_mapping.iter().any(|r| &r.group == *g);
                let link = PendingLink {
                    provider_id: provider.id.to_string(),
                    subject: identity.subject.clone(),
                    person_id: person.id.to_string(),
                    email: person.email.to_string(),
                    groups: identity.groups.iter().filter(named).cloned().collect(),
                    ticket: match &back {
                        Back::Authorize(b) => Some(self.seal_ticket(&b.0)?),
                        Back::Account => None,
                    },
                    browser: pending.browser,
                    expires_at: self.now() + LINK_TTL_SECS,
                };
                Ok((
                    AuthorizeStep::Link(LinkPage {
                        realm: realm.display_name.clone(),
                        provider: provider.display_name.clone(),
                        email: link.email.clone(),
                        link: self.seal_for(&realm, b"upstream_link", &link)?,
                        error: None,
                    }),
                    None,
                ))
            }
            Brokered::Refused(says) => self.upstream_back(&realm, &back, says).await,
        }
    }

    /// `POST` of the link page: the person proves the account with its password; the provider's
    /// identity is then linked to it and they are signed in.
    ///
    /// # Errors
    /// `NotFound` (realm), `OAuth` (an expired or foreign page: an error page), storage failure.
    pub async fn authorize_link(
        &self,
        realm_name: &str,
        link: &str,
        browser: &str,
        password: &str,
        meta: &RequestMeta,
    ) -> Result<(AuthorizeStep, Option<NewLoginSession>)> {
        let realm = self.serving_realm(realm_name).await?;
        let Some(pending) = self
            .open_for::<PendingLink>(&realm, b"upstream_link", link)
            .filter(|l| l.expires_at > self.now())
        else {
            return Err(page_error(EXPIRED));
        };
        if !crate::secret::constant_time_eq(
            pending.browser.as_bytes(),
            browser_hash(browser).as_bytes(),
        ) {
            return Err(page_error(EXPIRED));
        }
        let back = match &pending.ticket {
            Some(t) => {
                let ticket = self.open_ticket(&realm, t, browser)?;
                let client = self.ticket_client(&realm, &ticket).await?;
                Back::Authorize(Box::new((ticket, client)))
            }
            None => Back::Account,
        };
        let provider = match self.realm_provider(realm_name, &pending.provider_id).await {
            Ok((_, p)) if p.enabled => p,
            Ok(_) | Err(Error::NotFound { .. }) => return Err(page_error(EXPIRED)),
            Err(e) => return Err(e),
        };
        let again = |error: &str| {
            Ok((
                AuthorizeStep::Link(LinkPage {
                    realm: realm.display_name.clone(),
                    provider: provider.display_name.clone(),
                    email: pending.email.clone(),
                    link: link.to_owned(),
                    error: Some(error.to_owned()),
                }),
                None,
            ))
        };
        match self
            .sign_in_subject(&realm, &pending.email, password, meta)
            .await
        {
            Ok(s) if s.id == pending.person_id => {}
            // The email names someone else now: start over.
            Ok(_) => return Err(page_error(EXPIRED)),
            Err(Error::InvalidCredentials) => {
                return again("That password is not right.");
            }
            Err(Error::Throttled { retry_after_secs }) => {
                return again(&format!(
                    "Too many attempts. Try again in {retry_after_secs} seconds."
                ));
            }
            Err(e) => return Err(e),
        }
        let Some(person) = self
            .store
            .find_person(
                &realm.id,
                &crate::people::PersonId::from_stored(pending.person_id.clone()),
            )
            .await?
        else {
            return Err(page_error(EXPIRED));
        };
        match self
            .link_brokered(
                &realm,
                &provider,
                &person,
                &pending.subject,
                &pending.groups,
                meta,
            )
            .await?
        {
            Brokered::Person(subject) => {
                self.upstream_signed_in(&realm, back, &subject, &provider, true, meta)
                    .await
            }
            Brokered::Link(_) | Brokered::Refused(_) => {
                self.upstream_back(
                    &realm,
                    &back,
                    "This account could not be connected. Try again.".into(),
                )
                .await
            }
        }
    }

    /// Back where the sign-in came from, saying why it did not work: the sign-in page of the
    /// authorization request, or (from the account page) the error page.
    async fn upstream_back(
        &self,
        realm: &Realm,
        back: &Back,
        error: String,
    ) -> Result<(AuthorizeStep, Option<NewLoginSession>)> {
        match back {
            Back::Authorize(b) => {
                let step = self.login_step(realm, &b.1, &b.0, Some(error), "").await?;
                Ok((step, None))
            }
            Back::Account => Err(Error::oauth(OAuthErrorCode::InvalidRequest, error)),
        }
    }

    /// Starts the sign-in session of a person a provider signed in.
    async fn upstream_signed_in(
        &self,
        realm: &Realm,
        back: Back,
        subject: &Subject,
        provider: &SsoProvider,
        linked: bool,
        meta: &RequestMeta,
    ) -> Result<(AuthorizeStep, Option<NewLoginSession>)> {
        let mut event = self.event(
            &realm.id,
            &subject.email,
            action::AUTHORIZE_LOGIN,
            crate::people::subject_target(&subject.id),
            meta,
        );
        event.details = serde_json::json!({
            "via": provider.display_name,
            "provider": provider.id.as_str(),
            "linked": linked,
        });
        crate::accounts::count_sign_in("realm", "ok");
        match back {
            Back::Authorize(b) => self.signed_in_step(realm, b.0, subject, event, meta).await,
            Back::Account => {
                let session = self.new_login_session(realm, subject, &event).await?;
                Ok((
                    AuthorizeStep::Redirect(format!("/realms/{}/account", realm.name)),
                    Some(session),
                ))
            }
        }
    }

    /// Seals `value` for this realm (AES-256-GCM under the master key; `purpose` and the realm
    /// are the associated data, so nothing sealed for one use opens for another).
    pub(crate) fn seal_for<T: Serialize>(
        &self,
        realm: &Realm,
        purpose: &[u8],
        value: &T,
    ) -> Result<String> {
        let json = serde_json::to_vec(value).map_err(|e| Error::Internal(e.to_string()))?;
        let sealed = self
            .config()
            .master_key
            .derive(SEAL_KEY)
            .seal(&json, &aad(realm, purpose))
            .map_err(Error::Internal)?;
        Ok(URL_SAFE_NO_PAD.encode(sealed))
    }

    /// What [`Core::seal_for`] sealed; `None` for anything else.
    pub(crate) fn open_for<T: DeserializeOwned>(
        &self,
        realm: &Realm,
        purpose: &[u8],
        s: &str,
    ) -> Option<T> {
        if s.len() > 16 * 1024 {
            return None;
        }
        let sealed = URL_SAFE_NO_PAD.decode(s).ok()?;
        let json = self
            .config()
            .master_key
            .derive(SEAL_KEY)
            .open(&sealed, &aad(realm, purpose))
            .ok()?;
        serde_json::from_slice(&json).ok()
    }
}

/// What the key sealing pending sign-ins and link pages is derived with (never the master key
/// itself, which protects signing keys and secrets at rest).
const SEAL_KEY: &str = "portcullis upstream sign-in";

fn aad(realm: &Realm, purpose: &[u8]) -> Vec<u8> {
    let mut out = purpose.to_vec();
    out.push(b':');
    out.extend_from_slice(realm.id.as_str().as_bytes());
    out
}
