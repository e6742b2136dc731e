//! Console sign-in through a provider: the sign-in page starts it (the pending sign-in goes to
//! the browser, sealed), the callback finishes it (code redeemed, ID token checked), and the
//! verified identity becomes, or updates, a console account with the role its groups map to.
use super::model::{
    PendingSsoSignIn, SIGN_IN_TTL_SECS, SsoCallback, SsoIdentity, SsoProvider, SsoRefusal,
    SsoSession, UserIdentity,
};
use super::rp;
use crate::accounts::{Email, User, UserId};
use crate::audit::{AuditSubject, Outcome, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result};
use crate::policy::Principal;
use crate::realms::parse_display_name;
use crate::storage::SsoAccountChange;
use subtle::ConstantTimeEq;

/// The associated data pending sign-ins are sealed with.
const PENDING_AAD: &[u8] = b"sso_pending";

fn principal_of(u: &User) -> Principal {
    Principal {
        user_id: u.id.clone(),
        email: u.email.to_string(),
        display_name: u.display_name.clone(),
        role: u.role,
        credential_version: u.credential_version,
    }
}

impl Core {
    /// Starts a sign-in at a provider: the URL to send the browser to, and what the callback
    /// needs (kept in the browser's server-side session). `next` must already be a checked
    /// local path.
    ///
    /// # Errors
    /// `NotFound` for an unknown or disabled provider; `Ok(Err(_))` when the provider cannot be
    /// reached.
    pub async fn start_sso_sign_in(
        &self,
        id: &str,
        next: &str,
    ) -> Result<std::result::Result<(String, PendingSsoSignIn), SsoRefusal>> {
        let provider = self.load_sso_provider(id).await?;
        if !provider.enabled {
            return Err(Error::not_found(
                "sign-in provider",
                provider.id.to_string(),
            ));
        }
        let rp = match self.relying_party(&provider, false).await {
            Ok(rp) => rp,
            Err(e) => {
                tracing::warn!(provider = %provider.id, error = %e, "A sign-in provider could not be reached");
                return Ok(Err(SsoRefusal::Provider(e)));
            }
        };
        let started = rp.start(&provider.scopes, &provider.second_factor_acr);
        Ok(Ok((
            started.url,
            PendingSsoSignIn {
                provider_id: provider.id.to_string(),
                state: started.state,
                nonce: started.nonce,
                pkce_verifier: started.pkce_verifier,
                next: next.to_owned(),
                started_at: self.now(),
            },
        )))
    }

    /// Finishes a sign-in at a provider: checks `state` against the session's pending sign-in
    /// (and `iss`, RFC 9207, when sent), redeems the code, validates the ID token, and creates
    /// or updates the console account. Every outcome past the `state` check is audited.
    ///
    /// # Errors
    /// On storage failure; `Ok(Err(_))` for a refusal the person reads.
    pub async fn finish_sso_sign_in(
        &self,
        id: &str,
        pending: Option<PendingSsoSignIn>,
        callback: &SsoCallback,
        signed_in: Option<&Principal>,
        meta: &RequestMeta,
    ) -> Result<std::result::Result<(Principal, SsoSession), SsoRefusal>> {
        // Only the browser that started this sign-in, at this provider, recently, with the
        // same `state` (constant-time) gets past here; anything else is unaudited noise.
        let Some(pending) = pending.filter(|p| {
            p.provider_id == id
                && self.now() - p.started_at <= SIGN_IN_TTL_SECS
                && callback
                    .state
                    .as_deref()
                    .is_some_and(|s| bool::from(s.as_bytes().ct_eq(p.state.as_bytes())))
        }) else {
            return Ok(Err(SsoRefusal::Expired));
        };
        let provider = match self.load_sso_provider(id).await {
            Ok(p) if p.enabled => p,
            Ok(_) | Err(Error::NotFound { .. }) => return Ok(Err(SsoRefusal::Expired)),
            Err(e) => return Err(e),
        };
        // Anyone can start a sign-in and replay its callback: every attempt counts on the
        // sign-in throttle, per pending sign-in and source and per source, before any request
        // or audit row, until the provider's answer checks out (people refused for their
        // groups or email do not count: a company's shared address stays usable).
        let Ok(attempt) = self.login_throttle.begin_login(
            &format!(
                "{}:{}",
                provider_actor(&provider),
                pending.state.chars().take(16).collect::<String>()
            ),
            crate::throttle::Source::of(meta.client_ip),
            self.now(),
        ) else {
            crate::accounts::count_sign_in("console", "throttled");
            return Ok(Err(SsoRefusal::Throttled));
        };
        let shared = &provider;
        let refuse = |reason: String| async move {
            self.audit_sso_failure(&provider_actor(shared), shared, None, &reason, meta)
                .await
                .map(|()| Err(SsoRefusal::Provider(reason)))
        };
        let code = match callback.code_from(&provider.issuer) {
            Ok(code) => code,
            Err(reason) => return refuse(reason).await,
        };
        let identity = self.redeem_sso_code(&provider, code, &pending).await;
        let (identity, id_token) = match identity {
            Ok(i) => i,
            Err(e) => {
                tracing::warn!(provider = %provider.id, error = %e, "A provider sign-in failed");
                return refuse(e).await;
            }
        };
        self.login_throttle.succeeded(attempt);
        // A provider set up to prove a second factor must show it for a role that needs one;
        // one that is not leaves the second factor to Portcullis (an authenticator app).
        let second_factor =
            provider.proves_second_factor() && provider.second_factor_shown(&identity);
        if provider.proves_second_factor()
            && !second_factor
            && let Some(role) = provider.rules.role_for(&identity.groups)
            && self.second_factor_required(role).await?
        {
            let reason = format!(
                "the {} role requires a second factor and the ID token shows none of the provider's amr or acr values (amr {:?}, acr {:?})",
                role.as_str(),
                identity.amr.iter().take(10).collect::<Vec<_>>(),
                identity
                    .acr
                    .as_deref()
                    .map(|a| a.chars().take(100).collect::<String>()),
            );
            self.audit_sso_failure(&provider_actor(&provider), &provider, None, &reason, meta)
                .await?;
            return Ok(Err(SsoRefusal::NoSecondFactor));
        }
        let outcome = self
            .sso_account(&provider, &identity, signed_in, meta)
            .await?;
        Ok(outcome.map(|principal| {
            (
                principal,
                SsoSession {
                    provider_id: provider.id.to_string(),
                    id_token,
                    second_factor,
                },
            )
        }))
    }

    /// Where to send the browser after a console sign-out to sign out at the provider too
    /// (RP-Initiated Logout), when the session came from one that offers it; it sends the
    /// browser back to the sign-in page.
    pub async fn sso_logout_url(&self, session: &SsoSession) -> Option<String> {
        let provider = self.load_sso_provider(&session.provider_id).await.ok()?;
        let metadata = rp::metadata(
            &self.fetcher,
            &self.sso_metadata,
            &provider.issuer,
            self.now(),
            false,
        )
        .await
        .ok()?;
        rp::logout_url(
            &metadata,
            &provider.client_id,
            Some(&session.id_token),
            &self.sso_post_logout_uri(),
        )
    }

    /// Redeems the code and validates what came back; when the ID token is signed with a key
    /// the cached JWKS lacks (the provider rotated its keys), fetches the keys again once.
    pub(crate) async fn redeem_sso_code(
        &self,
        provider: &SsoProvider,
        code: &str,
        pending: &PendingSsoSignIn,
    ) -> std::result::Result<(SsoIdentity, String), String> {
        let rp = self.relying_party(provider, false).await?;
        let tokens = rp.exchange(code, &pending.pkce_verifier).await?;
        match rp
            .verify(&tokens, &pending.nonce, &provider.groups_claim)
            .await
        {
            Ok(found) => Ok(found),
            Err(rp::Unverified::Refused(e)) => Err(e),
            Err(rp::Unverified::UnknownKey) => {
                let fresh = self.relying_party(provider, true).await?;
                fresh
                    .verify(&tokens, &pending.nonce, &provider.groups_claim)
                    .await
                    .map_err(|e| match e {
                        rp::Unverified::UnknownKey => {
                            "the ID token is not valid: no key of the provider's JWKS signed it"
                                .to_owned()
                        }
                        rp::Unverified::Refused(e) => e,
                    })
            }
        }
    }

    async fn audit_sso_failure(
        &self,
        actor: &str,
        provider: &SsoProvider,
        user: Option<&UserId>,
        reason: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let mut event = self.event(
            &provider.realm_id,
            actor,
            action::SESSION_LOGIN,
            AuditSubject::User(user.map_or_else(|| "unknown".to_owned(), ToString::to_string)),
            meta,
        );
        event.outcome = Outcome::Failure;
        event.details = serde_json::json!({
            "via": provider.display_name,
            "provider": provider.id.as_str(),
            "reason": reason,
        });
        crate::accounts::count_sign_in("console", "failed");
        Ok(self.store.insert_audit_event(&event).await?)
    }

    /// Creates or updates the console account a verified provider identity is, and decides
    /// its role.
    async fn sso_account(
        &self,
        provider: &SsoProvider,
        identity: &SsoIdentity,
        signed_in: Option<&Principal>,
        meta: &RequestMeta,
    ) -> Result<std::result::Result<Principal, SsoRefusal>> {
        let role = provider.rules.role_for(&identity.groups);
        // An email counts only when the provider vouches for it: marked verified, or not marked
        // at all from a provider whose emails the admin trusts; ASCII only (no lookalikes).
        let vouched = identity.email_verified == Some(true)
            || (provider.trust_email && identity.email_verified.is_none());
        let email = identity
            .email
            .as_deref()
            .filter(|e| vouched && e.is_ascii())
            .and_then(|e| Email::parse(e).ok());
        let actor = email
            .as_ref()
            .map_or_else(|| provider_actor(provider), ToString::to_string);
        let now = self.now();
        let via =
            serde_json::json!({"via": provider.display_name, "provider": provider.id.as_str()});
        let login = |user: &UserId| {
            let mut e = self.event(
                &provider.realm_id,
                &actor,
                action::SESSION_LOGIN,
                AuditSubject::User(user.to_string()),
                meta,
            );
            e.details = via.clone();
            e
        };
        let link = self
            .store
            .find_user_identity(&provider.id, &identity.subject)
            .await?;
        // The account this identity is: linked before; or the account the browser is signed in
        // to, when the provider vouches for that account's email and it has no provider yet —
        // the person proved both sides, so they are linked now. Never by email alone.
        let mut new_link = None;
        let linked = match &link {
            Some(link) => self.store.find_user(&link.user_id).await?,
            None => match (signed_in, &email) {
                (Some(me), Some(email)) => self
                    .store
                    .find_user_by_email(&provider.realm_id, email)
                    .await?
                    .filter(|u| u.id == me.user_id && u.sso_provider.is_none() && !u.disabled)
                    .inspect(|u| {
                        new_link = Some(UserIdentity {
                            provider_id: provider.id.clone(),
                            subject: identity.subject.clone(),
                            user_id: u.id.clone(),
                            created_at: now,
                        });
                    }),
                _ => None,
            },
        };
        if link.is_some() || new_link.is_some() {
            let Some(user) = linked else {
                return Ok(Err(SsoRefusal::Expired));
            };
            if user.disabled {
                self.audit_sso_failure(
                    &actor,
                    provider,
                    Some(&user.id),
                    "the account is disabled",
                    meta,
                )
                .await?;
                return Ok(Err(SsoRefusal::Disabled));
            }
            let Some(role) = role else {
                if new_link.is_some() {
                    // Not linked: nothing of the account changes.
                    self.audit_sso_failure(
                        &actor,
                        provider,
                        Some(&user.id),
                        "no group maps to a role",
                        meta,
                    )
                    .await?;
                    return Ok(Err(SsoRefusal::NoRole));
                }
                // No longer any role: refused, and every session of the account ends.
                let mut event = login(&user.id);
                event.outcome = Outcome::Failure;
                event.details["reason"] = "no group maps to a role".into();
                event.details["groups"] = received_groups(&identity.groups);
                self.store
                    .save_sso_sign_in(SsoAccountChange::EndSessions(&user.id), now, &[&event])
                    .await?;
                crate::accounts::count_sign_in("console", "failed");
                return Ok(Err(SsoRefusal::NoRole));
            };
            // The provider's email and name win, unless the email is another account's.
            let mut email = email.unwrap_or_else(|| user.email.clone());
            if email != user.email
                && self
                    .store
                    .find_user_by_email(&user.realm_id, &email)
                    .await?
                    .is_some()
            {
                email = user.email.clone();
            }
            let display_name = identity
                .name
                .as_deref()
                .and_then(|n| parse_display_name(n, "Name").ok())
                .unwrap_or_else(|| user.display_name.clone());
            let mut events = Vec::new();
            if new_link.is_some() {
                let mut e = self.event(
                    &user.realm_id,
                    &actor,
                    action::USER_SSO_LINK,
                    AuditSubject::User(user.id.to_string()),
                    meta,
                );
                e.details = serde_json::json!({
                    "via": provider.display_name,
                    "provider": provider.id.as_str(),
                    "subject": identity.subject,
                });
                events.push(e);
            }
            if role != user.role {
                let mut e = self.event(
                    &user.realm_id,
                    &actor,
                    action::USER_ROLE_CHANGE,
                    AuditSubject::User(user.id.to_string()),
                    meta,
                );
                e.details = serde_json::json!({
                    "from": user.role.as_str(),
                    "to": role.as_str(),
                    "via": provider.display_name,
                    "provider": provider.id.as_str(),
                });
                events.push(e);
            }
            events.push(login(&user.id));
            let saved = self
                .store
                .save_sso_sign_in(
                    SsoAccountChange::Update {
                        user: &user.id,
                        link: new_link.as_ref(),
                        role,
                        email: &email,
                        display_name: &display_name,
                    },
                    now,
                    &events.iter().collect::<Vec<_>>(),
                )
                .await;
            match saved {
                Ok(()) => {}
                // The email was taken by another account meanwhile.
                Err(crate::error::StorageError::Conflict(_)) => {
                    return Ok(Err(SsoRefusal::Expired));
                }
                Err(crate::error::StorageError::Precondition(_)) => {
                    self.audit_sso_failure(
                        &actor,
                        provider,
                        Some(&user.id),
                        "the change would leave no enabled admin",
                        meta,
                    )
                    .await?;
                    return Ok(Err(SsoRefusal::Provider(
                        "Your groups no longer make you an admin, but you are the last enabled admin; ask another admin.".into(),
                    )));
                }
                Err(e) => return Err(e.into()),
            }
            crate::accounts::count_sign_in("console", "ok");
            let mut principal = principal_of(&user);
            principal.role = role;
            principal.email = email.to_string();
            principal.display_name = display_name;
            return Ok(Ok(principal));
        }
        let Some(role) = role else {
            self.audit_sso_failure(
                &actor,
                provider,
                None,
                &format!(
                    "no group maps to a role (groups received: {})",
                    received_groups(&identity.groups)
                ),
                meta,
            )
            .await?;
            return Ok(Err(SsoRefusal::NoRole));
        };
        let Some(email) = email else {
            self.audit_sso_failure(
                &actor,
                provider,
                None,
                "the provider gave no verified email",
                meta,
            )
            .await?;
            return Ok(Err(SsoRefusal::NoEmail));
        };
        // Never linked silently: an account with this email that did not come from this
        // provider identity stays its owner's.
        if self
            .store
            .find_user_by_email(&provider.realm_id, &email)
            .await?
            .is_some()
        {
            self.audit_sso_failure(
                &actor,
                provider,
                None,
                "a console account that did not sign in with this provider has this email",
                meta,
            )
            .await?;
            return Ok(Err(SsoRefusal::EmailTaken));
        }
        let user = User {
            id: UserId::generate(),
            realm_id: provider.realm_id.clone(),
            display_name: identity
                .name
                .as_deref()
                .and_then(|n| parse_display_name(n, "Name").ok())
                .unwrap_or_else(|| email.to_string()),
            email,
            password_hash: None,
            role,
            disabled: false,
            credential_version: 1,
            created_at: now,
            updated_at: now,
            sso_provider: Some(provider.display_name.clone()),
            break_glass: false,
            second_factor_since: None,
        };
        let link = UserIdentity {
            provider_id: provider.id.clone(),
            subject: identity.subject.clone(),
            user_id: user.id.clone(),
            created_at: now,
        };
        let mut create = self.event(
            &user.realm_id,
            &actor,
            action::USER_CREATE,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        create.details = serde_json::json!({
            "email": user.email.as_str(),
            "role": role.as_str(),
            "via": provider.display_name,
            "provider": provider.id.as_str(),
        });
        match self
            .store
            .save_sso_sign_in(
                SsoAccountChange::Create(&user, &link),
                now,
                &[&create, &login(&user.id)],
            )
            .await
        {
            Ok(()) => {}
            // The same person signing in twice at once, or the email taken meanwhile.
            Err(crate::error::StorageError::Conflict(_)) => return Ok(Err(SsoRefusal::Expired)),
            Err(e) => return Err(e.into()),
        }
        crate::accounts::count_sign_in("console", "ok");
        Ok(Ok(principal_of(&user)))
    }

    /// A pending sign-in sealed for the browser's cookie (AES-256-GCM under the master key: the
    /// PKCE verifier and nonce stay secret, and nobody can forge one).
    ///
    /// # Errors
    /// `Internal` if sealing fails.
    pub fn seal_sso_pending(&self, pending: &PendingSsoSignIn) -> Result<String> {
        use base64::Engine as _;
        let json = serde_json::to_vec(pending).map_err(|e| Error::Internal(e.to_string()))?;
        let sealed = self
            .config()
            .master_key
            .seal(&json, PENDING_AAD)
            .map_err(Error::Internal)?;
        Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sealed))
    }

    /// The pending sign-in in a cookie [`Core::seal_sso_pending`] made; `None` for anything else.
    pub fn open_sso_pending(&self, cookie: &str) -> Option<PendingSsoSignIn> {
        use base64::Engine as _;
        if cookie.len() > 4096 {
            return None;
        }
        let sealed = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(cookie)
            .ok()?;
        let json = self.config().master_key.open(&sealed, PENDING_AAD).ok()?;
        serde_json::from_slice(&json).ok()
    }
}

/// The audit actor of a provider sign-in that gave no usable email.
pub(crate) fn provider_actor(p: &SsoProvider) -> String {
    AuditSubject::SsoProvider(p.id.to_string()).target()
}

/// The groups a sign-in came with, for an audit row (at most 20, each at most 100 characters).
pub(crate) fn received_groups(groups: &[String]) -> serde_json::Value {
    groups
        .iter()
        .take(20)
        .map(|g| serde_json::Value::from(g.chars().take(100).collect::<String>()))
        .collect()
}
