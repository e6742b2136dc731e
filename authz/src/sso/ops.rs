//! Console single sign-on operations: admins manage the sign-in providers (console and CLI);
//! the sign-in page starts and finishes a provider sign-in, which creates or updates the
//! console account and decides its role.
use super::model::{
    Discovery, MAX_SSO_PROVIDERS, PendingSsoSignIn, RoleRules, SIGN_IN_TTL_SECS, SsoCallback,
    SsoIdentity, SsoProvider, SsoProviderId, SsoProviderInput, SsoRefusal, SsoSession,
    UserIdentity, parse_claim_name, parse_scopes, parse_sso_client_id, parse_values,
};
use super::rp::{self, RelyingParty};
use crate::accounts::{Email, User, UserId};
use crate::audit::{AuditSubject, Outcome, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, FieldChecks, Result, map_taken};
use crate::federation::parse_issuer;
use crate::policy::{Permission, Principal};
use crate::realms::parse_display_name;
use crate::storage::SsoAccountChange;
use subtle::ConstantTimeEq;

/// The associated data pending sign-ins are sealed with.
const PENDING_AAD: &[u8] = b"sso_pending";

const TAKEN: &str = "A sign-in provider with this issuer and client ID exists already.";

/// What the audit log records of a provider's settings (never the secret, only whether one is
/// set).
fn audit_settings(p: &SsoProvider) -> serde_json::Value {
    serde_json::json!({
        "display_name": p.display_name,
        "button_text": p.button_text,
        "issuer": p.issuer,
        "client_id": p.client_id,
        "client_secret": if p.sealed_client_secret.is_some() { "set" } else { "none" },
        "scopes": p.scopes.join(" "),
        "groups_claim": p.groups_claim,
        "admin_groups": p.rules.admin,
        "security_reviewer_groups": p.rules.security_reviewer,
        "developer_groups": p.rules.developer,
        "trust_email": p.trust_email,
    })
}

/// The associated data a provider's secret is sealed with: the secret only opens for its row.
fn secret_aad(id: &SsoProviderId) -> Vec<u8> {
    format!("sso_provider:{id}").into_bytes()
}

/// Checked settings of a provider (the secret as typed, still to be sealed).
struct Fields {
    display_name: String,
    button_text: String,
    issuer: String,
    client_id: String,
    scopes: Vec<String>,
    groups_claim: String,
    rules: RoleRules,
}

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
    /// The console's sign-in providers.
    ///
    /// # Errors
    /// `Forbidden`.
    pub async fn list_sso_providers(&self, p: &Principal) -> Result<Vec<SsoProvider>> {
        p.require(Permission::ManageUsers)?;
        let realm = self.admin_realm().await?;
        Ok(self.store.list_sso_providers(&realm.id).await?)
    }

    /// The enabled sign-in providers, for the sign-in page (anyone may see their buttons).
    ///
    /// # Errors
    /// On storage failure.
    pub async fn sign_in_providers(&self) -> Result<Vec<SsoProvider>> {
        let realm = self.admin_realm().await?;
        let mut all = self.store.list_sso_providers(&realm.id).await?;
        all.retain(|p| p.enabled);
        Ok(all)
    }

    /// Where a provider sends people back after signing them out (its post-logout redirect URI).
    pub fn sso_post_logout_uri(&self) -> String {
        format!("{}/login", self.base_url())
    }

    /// The provider the signed-in account signs in with (its name), if any, and the enabled
    /// providers it could connect: for the Account page.
    ///
    /// # Errors
    /// `Forbidden`, or storage failure.
    pub async fn own_sign_in(&self, p: &Principal) -> Result<(Option<String>, Vec<SsoProvider>)> {
        p.require(Permission::ManageOwnAccount)?;
        let linked = self
            .store
            .find_user(&p.user_id)
            .await?
            .and_then(|u| u.sso_provider);
        let providers = if linked.is_some() {
            Vec::new()
        } else {
            self.sign_in_providers().await?
        };
        Ok((linked, providers))
    }

    /// The redirect URI a provider sends people back to (registered at the provider).
    pub fn sso_redirect_uri(&self, id: &SsoProviderId) -> String {
        format!("{}/login/sso/{id}/callback", self.base_url())
    }

    fn check_sso_fields(&self, input: &SsoProviderInput) -> Result<Fields> {
        let mut checks = FieldChecks::default();
        let display_name = checks.take(
            "display_name",
            parse_display_name(&input.display_name, "Name"),
        );
        let button_text = if input.button_text.trim().is_empty() {
            display_name.as_ref().map(|n| format!("Sign in with {n}"))
        } else {
            checks.take(
                "button_text",
                parse_display_name(&input.button_text, "Button text"),
            )
        };
        let issuer = checks.take(
            "issuer",
            parse_issuer(&input.issuer, self.config().allow_http_loopback),
        );
        let client_id = checks.take("client_id", parse_sso_client_id(&input.client_id));
        let scopes = checks.take("scopes", parse_scopes(&input.scopes));
        let groups_claim = checks.take("groups_claim", parse_claim_name(&input.groups_claim));
        let admin = checks.take(
            "admin_groups",
            parse_values(&input.admin_groups, "Admin groups"),
        );
        let security_reviewer = checks.take(
            "reviewer_groups",
            parse_values(&input.reviewer_groups, "Security reviewer groups"),
        );
        let developer = checks.take(
            "developer_groups",
            parse_values(&input.developer_groups, "Developer groups"),
        );
        if input.client_secret.len() > 1024 {
            checks.note(
                "client_secret",
                "The client secret must be at most 1024 characters.",
            );
        }
        let (
            Some(display_name),
            Some(button_text),
            Some(issuer),
            Some(client_id),
            Some(scopes),
            Some(groups_claim),
            Some(admin),
            Some(security_reviewer),
            Some(developer),
        ) = (
            display_name,
            button_text,
            issuer,
            client_id,
            scopes,
            groups_claim,
            admin,
            security_reviewer,
            developer,
        )
        else {
            return Err(checks.failed());
        };
        let rules = RoleRules {
            admin,
            security_reviewer,
            developer,
        };
        if rules.is_empty() {
            return Err(Error::field(
                "admin_groups",
                "Map at least one group to a role (or * to give everyone the provider signs in a role): without a rule nobody can sign in.",
            ));
        }
        Ok(Fields {
            display_name,
            button_text,
            issuer,
            client_id,
            scopes,
            groups_claim,
            rules,
        })
    }

    fn seal_sso_secret(&self, id: &SsoProviderId, secret: &str) -> Result<Option<Vec<u8>>> {
        let secret = secret.trim();
        if secret.is_empty() {
            return Ok(None);
        }
        self.config()
            .master_key
            .seal(secret.as_bytes(), &secret_aad(id))
            .map(Some)
            .map_err(|e| Error::Internal(format!("sealing a client secret: {e}")))
    }

    fn open_sso_secret(&self, p: &SsoProvider) -> Result<Option<String>> {
        let Some(sealed) = &p.sealed_client_secret else {
            return Ok(None);
        };
        let plain = self
            .config()
            .master_key
            .open(sealed, &secret_aad(&p.id))
            .map_err(|e| Error::Internal(format!("opening the client secret of {}: {e}", p.id)))?;
        String::from_utf8(plain)
            .map(Some)
            .map_err(|_| Error::Internal("a client secret is not UTF-8".into()))
    }

    /// Adds a sign-in provider.
    ///
    /// # Errors
    /// `Forbidden`, `InvalidField` (nothing written), `Taken`, `Conflict` (too many).
    pub async fn create_sso_provider(
        &self,
        p: &Principal,
        input: &SsoProviderInput,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        p.require(Permission::ManageUsers)?;
        let f = self.check_sso_fields(input)?;
        let realm = self.admin_realm().await?;
        if self.store.list_sso_providers(&realm.id).await?.len() >= MAX_SSO_PROVIDERS {
            return Err(Error::Conflict(
                format!("The console offers at most {MAX_SSO_PROVIDERS} sign-in providers; remove one first.").into(),
            ));
        }
        let id = SsoProviderId::generate();
        let now = self.now();
        let provider = SsoProvider {
            sealed_client_secret: self.seal_sso_secret(&id, &input.client_secret)?,
            id,
            realm_id: realm.id.clone(),
            display_name: f.display_name,
            button_text: f.button_text,
            issuer: f.issuer,
            client_id: f.client_id,
            scopes: f.scopes,
            groups_claim: f.groups_claim,
            rules: f.rules,
            trust_email: input.trust_email,
            enabled: true,
            created_at: now,
            updated_at: now,
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::SSO_PROVIDER_CREATE,
            AuditSubject::SsoProvider(provider.id.to_string()),
            meta,
        );
        event.details = audit_settings(&provider);
        self.store
            .insert_sso_provider(&provider, &event)
            .await
            .map_err(|e| map_taken(e, "issuer", TAKEN))?;
        Ok(provider)
    }

    /// Changes a sign-in provider's settings. An empty secret keeps the stored one unless
    /// `clear_secret`.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `InvalidField`, `Taken`.
    pub async fn update_sso_provider(
        &self,
        p: &Principal,
        id: &str,
        input: &SsoProviderInput,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        p.require(Permission::ManageUsers)?;
        let mut provider = self.load_sso_provider(id).await?;
        let f = self.check_sso_fields(input)?;
        // Accounts are linked to a provider by its subjects, which only its issuer numbers.
        if f.issuer != provider.issuer {
            return Err(Error::field(
                "issuer",
                "The issuer cannot change: accounts are linked to this provider by the subjects its issuer names. Add the new issuer as another provider.",
            ));
        }
        let before = audit_settings(&provider);
        if input.clear_secret {
            provider.sealed_client_secret = None;
        } else if !input.client_secret.trim().is_empty() {
            provider.sealed_client_secret =
                self.seal_sso_secret(&provider.id, &input.client_secret)?;
        }
        let secret_changed = input.clear_secret || !input.client_secret.trim().is_empty();
        // A button text that was the default follows the name.
        let default_before = format!("Sign in with {}", provider.display_name);
        provider.button_text = if input.button_text.trim() == default_before {
            format!("Sign in with {}", f.display_name)
        } else {
            f.button_text
        };
        provider.display_name = f.display_name;
        provider.issuer = f.issuer;
        provider.client_id = f.client_id;
        provider.scopes = f.scopes;
        provider.groups_claim = f.groups_claim;
        provider.rules = f.rules;
        provider.trust_email = input.trust_email;
        provider.updated_at = self.now();
        let mut event = self.event(
            &provider.realm_id,
            &p.email,
            action::SSO_PROVIDER_UPDATE,
            AuditSubject::SsoProvider(provider.id.to_string()),
            meta,
        );
        let mut details = crate::audit::changes(&before, &audit_settings(&provider));
        if secret_changed && let Some(obj) = details.as_object_mut() {
            obj.insert("client_secret".into(), serde_json::json!("changed"));
        }
        event.details = details;
        self.store
            .update_sso_provider(&provider, &event)
            .await
            .map_err(|e| map_taken(e, "issuer", TAKEN))?;
        Ok(provider)
    }

    /// Enables or disables a sign-in provider; disabling ends its accounts' sessions.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn set_sso_provider_enabled(
        &self,
        p: &Principal,
        id: &str,
        enabled: bool,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        p.require(Permission::ManageUsers)?;
        let mut provider = self.load_sso_provider(id).await?;
        if provider.enabled == enabled {
            return Ok(provider);
        }
        if !enabled {
            self.keep_a_way_in(&provider).await?;
        }
        provider.enabled = enabled;
        provider.updated_at = self.now();
        let event = self.event(
            &provider.realm_id,
            &p.email,
            if enabled {
                action::SSO_PROVIDER_ENABLE
            } else {
                action::SSO_PROVIDER_DISABLE
            },
            AuditSubject::SsoProvider(provider.id.to_string()),
            meta,
        );
        self.store
            .set_sso_provider_enabled(&provider.id, enabled, provider.updated_at, &event)
            .await?;
        Ok(provider)
    }

    /// Removes a sign-in provider: its accounts stay (without a password they can no longer
    /// sign in) and their sessions end.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn delete_sso_provider(
        &self,
        p: &Principal,
        id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageUsers)?;
        let provider = self.load_sso_provider(id).await?;
        if provider.enabled {
            self.keep_a_way_in(&provider).await?;
        }
        let mut event = self.event(
            &provider.realm_id,
            &p.email,
            action::SSO_PROVIDER_DELETE,
            AuditSubject::SsoProvider(provider.id.to_string()),
            meta,
        );
        event.details = audit_settings(&provider);
        Ok(self.store.delete_sso_provider(&provider.id, &event).await?)
    }

    /// Refuses to take away the last enabled provider while password sign-in is off: nobody
    /// but break-glass admins could sign in.
    async fn keep_a_way_in(&self, provider: &SsoProvider) -> Result<()> {
        if self.store.password_sign_in_break_glass_only().await?
            && self
                .sign_in_providers()
                .await?
                .iter()
                .all(|p| p.id == provider.id)
        {
            return Err(Error::Conflict(
                "This is the only enabled sign-in provider and password sign-in is off: turn password sign-in back on first, or nobody but break-glass admins can sign in.".into(),
            ));
        }
        Ok(())
    }

    /// Runs discovery at a provider now (bypassing the cache) and reports what it found.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`; `Ok(Err(message))` when the provider could not be discovered.
    pub async fn test_sso_provider(
        &self,
        p: &Principal,
        id: &str,
    ) -> Result<std::result::Result<Discovery, String>> {
        p.require(Permission::ManageUsers)?;
        let provider = self.load_sso_provider(id).await?;
        Ok(rp::metadata(
            &self.fetcher,
            &self.sso_metadata,
            &provider.issuer,
            self.now(),
            true,
        )
        .await
        .map(|m| rp::discovery(&m)))
    }

    async fn load_sso_provider(&self, id: &str) -> Result<SsoProvider> {
        let not_found =
            || Error::not_found("sign-in provider", id.chars().take(64).collect::<String>());
        if id.len() > 64 {
            return Err(not_found());
        }
        let realm = self.admin_realm().await?;
        self.store
            .find_sso_provider(&SsoProviderId::from_stored(id.to_owned()))
            .await?
            .filter(|p| p.realm_id == realm.id)
            .ok_or_else(not_found)
    }

    async fn relying_party(
        &self,
        provider: &SsoProvider,
        fresh: bool,
    ) -> std::result::Result<RelyingParty, String> {
        let metadata = rp::metadata(
            &self.fetcher,
            &self.sso_metadata,
            &provider.issuer,
            self.now(),
            fresh,
        )
        .await?;
        let secret = self.open_sso_secret(provider).map_err(|e| e.to_string())?;
        RelyingParty::new(
            provider,
            secret,
            metadata,
            self.sso_redirect_uri(&provider.id),
            self.fetcher.clone(),
        )
    }

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
        let started = rp.start(&provider.scopes);
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
        if let Some(error) = &callback.error {
            // An error code is ASCII without quotes or backslashes (RFC 6749 §4.1.2.1).
            let error: String = error
                .chars()
                .take(100)
                .filter(|c| c.is_ascii_graphic() && !matches!(c, '"' | '\\'))
                .collect();
            return refuse(format!("the provider answered {error}")).await;
        }
        if callback
            .iss
            .as_deref()
            .is_some_and(|iss| iss != provider.issuer)
        {
            return refuse(
                "the answer names another issuer (iss): a mix-up attempt or a misconfiguration"
                    .into(),
            )
            .await;
        }
        let Some(code) = callback
            .code
            .as_deref()
            .filter(|c| !c.is_empty() && c.len() <= 2048)
        else {
            return refuse("the provider answered without a code".into()).await;
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
        let outcome = self
            .sso_account(&provider, &identity, signed_in, meta)
            .await?;
        Ok(outcome.map(|principal| {
            (
                principal,
                SsoSession {
                    provider_id: provider.id.to_string(),
                    id_token,
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
    async fn redeem_sso_code(
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
                event.details["groups"] = received_groups(identity);
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
                    received_groups(identity)
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

    /// Whether password sign-in is for break-glass admins only (the sign-in page says so).
    ///
    /// # Errors
    /// On storage failure.
    pub async fn password_sign_in_break_glass_only(&self) -> Result<bool> {
        Ok(self.store.password_sign_in_break_glass_only().await?)
    }

    /// Turns password sign-in on for everyone, or off for all but break-glass admins (everyone
    /// else signs in with a provider). Turning it off needs an enabled provider and an enabled
    /// break-glass admin with a password.
    ///
    /// # Errors
    /// `Forbidden`, `Conflict` (no provider, no break-glass admin).
    pub async fn set_password_sign_in(
        &self,
        p: &Principal,
        break_glass_only: bool,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageUsers)?;
        if break_glass_only && self.sign_in_providers().await?.is_empty() {
            return Err(Error::Conflict(
                "Add and enable a sign-in provider first: with password sign-in off, everyone but break-glass admins signs in through one.".into(),
            ));
        }
        let realm = self.admin_realm().await?;
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::PASSWORD_SIGN_IN,
            AuditSubject::ConsoleSignIn,
            meta,
        );
        event.details = serde_json::json!({
            "password_sign_in": if break_glass_only { "break_glass_only" } else { "everyone" },
        });
        self.store
            .set_password_sign_in(break_glass_only, self.now(), &event)
            .await
            .map_err(|e| match e {
                crate::error::StorageError::Precondition(_) => Error::Conflict(
                    "Mark an admin who has a password as break-glass first: they can still sign in when the provider is down.".into(),
                ),
                other => other.into(),
            })
    }

    /// Marks an admin as break-glass (may sign in with a password when password sign-in is
    /// off) or not. Only admins with a password who do not sign in through a provider qualify.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `Invalid`, `Conflict` (the last break-glass admin while
    /// password sign-in is off).
    pub async fn set_user_break_glass(
        &self,
        p: &Principal,
        user_id: &UserId,
        on: bool,
        meta: &RequestMeta,
    ) -> Result<User> {
        p.require(Permission::ManageUsers)?;
        let mut user = self.store.find_user(user_id).await?.ok_or_else(|| {
            Error::not_found(
                "user",
                user_id.as_str().chars().take(64).collect::<String>(),
            )
        })?;
        if user.break_glass == on {
            return Ok(user);
        }
        if on
            && (user.role != crate::policy::Role::Admin
                || user.password_hash.is_none()
                || user.sso_provider.is_some())
        {
            return Err(Error::Invalid(
                "Only an admin who signs in with a password (not through a provider) can be a break-glass admin.".into(),
            ));
        }
        let mut event = self.event(
            &user.realm_id,
            &p.email,
            action::USER_BREAK_GLASS,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"break_glass": on});
        user.break_glass = on;
        user.updated_at = self.now();
        self.store
            .set_user_break_glass(&user.id, on, user.updated_at, &event)
            .await
            .map_err(|e| match e {
                crate::error::StorageError::Precondition(_) => {
                    Error::Conflict(super::NO_BREAK_GLASS_LEFT.into())
                }
                other => other.into(),
            })?;
        Ok(user)
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

    /// The provider identity of a console account, if it signs in through one.
    ///
    /// # Errors
    /// `Forbidden`, or storage failure.
    pub async fn user_sso_identity(
        &self,
        p: &Principal,
        user: &UserId,
    ) -> Result<Option<(UserIdentity, Option<SsoProvider>)>> {
        p.require(Permission::ManageUsers)?;
        let Some(identity) = self.store.identity_of_user(user).await? else {
            return Ok(None);
        };
        let provider = self.store.find_sso_provider(&identity.provider_id).await?;
        Ok(Some((identity, provider)))
    }
}

/// The audit actor of a provider sign-in that gave no usable email.
fn provider_actor(p: &SsoProvider) -> String {
    format!("sso:{}", p.id)
}

/// The groups a sign-in came with, for an audit row (at most 20, each at most 100 characters).
fn received_groups(identity: &SsoIdentity) -> serde_json::Value {
    identity
        .groups
        .iter()
        .take(20)
        .map(|g| serde_json::Value::from(g.chars().take(100).collect::<String>()))
        .collect()
}
