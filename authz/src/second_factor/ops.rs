//! Second factors for console accounts: the per-role requirement, the sign-in step after the
//! password or the provider, enrolment, recovery codes, removal and an admin's reset.
use super::model::{
    Enrolment, PendingSecondFactor, RECOVERY_CODES, RecoveryCodes, SecondFactorKind,
    SecondFactorPolicy, SecondFactorStatus, TOTP_SECRET_BYTES, TotpSetup, TypedCode,
    display_recovery_code, enrolment, new_recovery_code, recovery_code_hash, totp,
};
use crate::accounts::{User, UserId};
use crate::audit::{AuditSubject, NewAuditEvent, Outcome, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result, StorageError};
use crate::policy::{Permission, Principal, Role};
use crate::secret::Password;
use crate::sso::SsoSession;
use crate::throttle::Source;

fn secret_aad(user: &UserId) -> Vec<u8> {
    format!("portcullis:totp:{user}").into_bytes()
}

impl Core {
    /// Which roles must sign in with a second factor.
    ///
    /// # Errors
    /// `Forbidden` without the right to manage users.
    pub async fn second_factor_policy(&self, p: &Principal) -> Result<SecondFactorPolicy> {
        p.require(Permission::ManageUsers)?;
        self.required_roles().await
    }

    /// Whether `role` must sign in with a second factor.
    pub(crate) async fn second_factor_required(&self, role: Role) -> Result<bool> {
        Ok(self.required_roles().await?.requires(role))
    }

    /// Whether a sign-in of `user` waits for a second factor after its first (an authenticator
    /// app is set up, or the role requires one).
    pub(crate) async fn second_factor_due(&self, user: &User) -> Result<bool> {
        Ok(self.store.find_totp(&user.id).await?.is_some()
            || self.second_factor_required(user.role).await?)
    }

    async fn required_roles(&self) -> Result<SecondFactorPolicy> {
        Ok(SecondFactorPolicy::from_stored(
            &self.store.second_factor_roles().await?,
        ))
    }

    /// Sets which roles must sign in with a second factor. It applies from each account's next
    /// sign-in; accounts without an authenticator set one up then.
    ///
    /// # Errors
    /// `Forbidden`.
    pub async fn set_second_factor_policy(
        &self,
        p: &Principal,
        roles: &[Role],
        meta: &RequestMeta,
    ) -> Result<SecondFactorPolicy> {
        p.require(Permission::ManageUsers)?;
        let policy = SecondFactorPolicy::of(roles);
        let realm = self.admin_realm().await?;
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::SECOND_FACTOR_POLICY,
            AuditSubject::ConsoleSignIn,
            meta,
        );
        event.details = serde_json::json!({
            "roles": policy.roles.iter().map(|r| r.as_str()).collect::<Vec<_>>(),
        });
        self.store
            .set_second_factor_roles(&policy.to_stored(), self.now(), &event)
            .await?;
        Ok(policy)
    }

    /// What follows a first factor (a password, or a provider sign-in): `None` when the
    /// session may start now; otherwise the sign-in that must wait for a code (or, for an
    /// account without an authenticator whose role needs one, for its enrolment).
    ///
    /// An account with an authenticator is always asked for a code, whatever its role. A
    /// provider that proved a second factor (`amr` / `acr`, see [`crate::sso`]) stands in for
    /// it.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn second_factor_step(
        &self,
        principal: &Principal,
        proven_by_provider: bool,
        sso: Option<SsoSession>,
    ) -> Result<Option<PendingSecondFactor>> {
        if proven_by_provider {
            return Ok(None);
        }
        let confirmed = self.store.find_totp(&principal.user_id).await?.is_some();
        let enrol = !confirmed && self.required_roles().await?.requires(principal.role);
        if !confirmed && !enrol {
            return Ok(None);
        }
        Ok(Some(PendingSecondFactor {
            user_id: principal.user_id.to_string(),
            credential_version: principal.credential_version,
            enrol,
            setup: None,
            sso,
            next: String::new(),
            started_at: self.now(),
        }))
    }

    /// The account of a waiting sign-in, while it may still finish: enabled, its credentials
    /// unchanged and not too old.
    async fn pending_user(&self, pending: &PendingSecondFactor) -> Result<User> {
        let user = self
            .store
            .find_user(&UserId::from_stored(&pending.user_id))
            .await?
            .filter(|u| {
                !u.disabled
                    && u.credential_version == pending.credential_version
                    && !pending.expired(self.now())
            });
        user.ok_or(Error::InvalidLink)
    }

    /// The authenticator a waiting sign-in that must enrol sets up: the one this sign-in made
    /// before, or a new one (kept in `pending`, which the caller stores back in the session).
    /// Each browser sees only the secret it made.
    ///
    /// # Errors
    /// `InvalidLink` when the sign-in can no longer finish, `Conflict` when the account has an
    /// authenticator already.
    pub async fn sign_in_enrolment(&self, pending: &mut PendingSecondFactor) -> Result<Enrolment> {
        let user = self.pending_user(pending).await?;
        self.refuse_second_setup(&user).await?;
        let setup = match pending.setup.take() {
            Some(s) if s.user_id == user.id.as_str() && !s.expired(self.now()) => s,
            _ => self.new_setup(&user)?,
        };
        let shown = self.setup_view(&user, &setup);
        pending.setup = Some(setup);
        shown
    }

    async fn refuse_second_setup(&self, user: &User) -> Result<()> {
        if self.store.find_totp(&user.id).await?.is_some() {
            return Err(Error::Conflict(
                "An authenticator app is set up already.".into(),
            ));
        }
        Ok(())
    }

    /// A new secret for `user`, sealed.
    fn new_setup(&self, user: &User) -> Result<TotpSetup> {
        let mut secret = vec![0u8; TOTP_SECRET_BYTES];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut secret);
        let sealed_secret = self
            .config()
            .master_key
            .seal(&secret, &secret_aad(&user.id))
            .map_err(|e| Error::Internal(format!("sealing a TOTP secret: {e}")))?;
        Ok(TotpSetup {
            user_id: user.id.to_string(),
            sealed_secret,
            created_at: self.now(),
        })
    }

    fn setup_view(&self, user: &User, setup: &TotpSetup) -> Result<Enrolment> {
        let secret = self.open_totp_secret(&user.id, &setup.sealed_secret)?;
        enrolment(&secret, user.email.as_str()).map_err(Error::Internal)
    }

    fn open_totp_secret(&self, user: &UserId, sealed: &[u8]) -> Result<Vec<u8>> {
        self.config()
            .master_key
            .open(sealed, &secret_aad(user))
            .map_err(|e| Error::Internal(format!("opening the TOTP secret of {user}: {e}")))
    }

    /// The time step a six-digit code is right for at this moment, if any.
    fn matching_step(&self, user: &User, sealed: &[u8], code: &str) -> Result<Option<i64>> {
        let secret = self.open_totp_secret(&user.id, sealed)?;
        let generator = totp(secret, user.email.as_str()).map_err(Error::Internal)?;
        let now = u64::try_from(self.now()).unwrap_or(0);
        Ok(generator
            .check(code, now)
            .and_then(|s| i64::try_from(s).ok()))
    }

    fn second_factor_event(
        &self,
        user: &User,
        actor: &str,
        purpose: &str,
        meta: &RequestMeta,
    ) -> NewAuditEvent {
        let mut event = self.event(
            &user.realm_id,
            actor,
            action::SESSION_SECOND_FACTOR,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"for": purpose});
        event
    }

    /// Checks a code typed by an account's owner against its confirmed authenticator (a code
    /// from the app, accepted once, or an unused recovery code, used up) and records the
    /// check. Throttled per account and per source.
    ///
    /// # Errors
    /// `Throttled`, `InvalidCredentials` (wrong, reused or malformed code, no authenticator).
    async fn check_code(
        &self,
        user: &User,
        code: &str,
        purpose: &str,
        meta: &RequestMeta,
    ) -> Result<SecondFactorKind> {
        let attempt = self
            .second_factor_throttle
            .begin_second_factor(user.id.as_str(), Source::of(meta.client_ip), self.now())
            .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
        let stored = self.store.find_totp(&user.id).await?;
        let mut event = self.second_factor_event(user, user.email.as_str(), purpose, meta);
        let passed = match (&stored, TypedCode::parse(code)) {
            (Some(t), TypedCode::Totp(digits)) => {
                match self.matching_step(user, &t.sealed_secret, &digits)? {
                    Some(step) => {
                        event.details["second_factor"] = SecondFactorKind::Totp.as_str().into();
                        self.store
                            .accept_totp_step(&user.id, step, &event)
                            .await?
                            .then_some(SecondFactorKind::Totp)
                    }
                    None => None,
                }
            }
            (Some(_), TypedCode::Recovery(normalised)) => {
                event.details["second_factor"] = SecondFactorKind::RecoveryCode.as_str().into();
                let left = self.store.recovery_codes_left(&user.id).await?;
                event.details["recovery_codes_left"] = left.saturating_sub(1).into();
                self.store
                    .use_recovery_code(
                        &user.id,
                        &recovery_code_hash(&normalised),
                        self.now(),
                        &event,
                    )
                    .await?
                    .then_some(SecondFactorKind::RecoveryCode)
            }
            _ => None,
        };
        if let Some(kind) = passed {
            // Uncounted, but earlier wrong codes stay counted: the owner's success does not
            // reset a guesser's budget.
            self.second_factor_throttle.undo(attempt);
            return Ok(kind);
        }
        event.outcome = Outcome::Failure;
        event.details = serde_json::json!({
            "for": purpose,
            "reason": if stored.is_some() { "wrong, reused or malformed code" } else { "no authenticator app" },
        });
        self.store.insert_audit_event(&event).await?;
        Err(Error::InvalidCredentials)
    }

    /// Finishes a waiting sign-in with a code: from the app or a recovery code when the account
    /// has an authenticator; the first code of the waiting secret when it must enrol (then the
    /// authenticator is confirmed and fresh recovery codes come back, to be shown once).
    ///
    /// # Errors
    /// `InvalidLink` when the sign-in can no longer finish (start again), `Throttled`,
    /// `InvalidCredentials` (wrong code).
    pub async fn finish_second_factor(
        &self,
        pending: &PendingSecondFactor,
        code: &str,
        meta: &RequestMeta,
    ) -> Result<(Principal, Option<RecoveryCodes>)> {
        let user = self.pending_user(pending).await?;
        let codes = if pending.enrol {
            Some(
                self.confirm_enrolment(&user, pending.setup.as_ref(), code, "sign_in", meta)
                    .await?,
            )
        } else {
            self.check_code(&user, code, "sign_in", meta).await?;
            None
        };
        let principal = self
            .principal(&user.id)
            .await?
            .filter(|p| p.credential_version == pending.credential_version)
            .ok_or(Error::InvalidLink)?;
        Ok((principal, codes))
    }

    /// Confirms the authenticator `setup` (made for this browser) with its first code, stores
    /// it and hands out recovery codes.
    async fn confirm_enrolment(
        &self,
        user: &User,
        setup: Option<&TotpSetup>,
        code: &str,
        purpose: &str,
        meta: &RequestMeta,
    ) -> Result<RecoveryCodes> {
        let now = self.now();
        let Some(setup) = setup.filter(|s| s.user_id == user.id.as_str() && !s.expired(now)) else {
            return Err(Error::Conflict(
                "This setup has expired: start again and scan the new code.".into(),
            ));
        };
        let attempt = self
            .second_factor_throttle
            .begin_second_factor(user.id.as_str(), Source::of(meta.client_ip), now)
            .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
        let step = match TypedCode::parse(code) {
            TypedCode::Totp(digits) => self.matching_step(user, &setup.sealed_secret, &digits)?,
            _ => None,
        };
        let Some(step) = step else {
            let mut event = self.second_factor_event(user, user.email.as_str(), purpose, meta);
            event.outcome = Outcome::Failure;
            event.details["reason"] = "wrong code while setting up an authenticator app".into();
            self.store.insert_audit_event(&event).await?;
            return Err(Error::InvalidCredentials);
        };
        let codes: Vec<String> = (0..RECOVERY_CODES).map(|_| new_recovery_code()).collect();
        let hashes: Vec<String> = codes.iter().map(|c| recovery_code_hash(c)).collect();
        let mut enrolled = self.event(
            &user.realm_id,
            user.email.as_str(),
            action::USER_SECOND_FACTOR_ENROL,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        enrolled.details = serde_json::json!({"recovery_codes": RECOVERY_CODES, "during": purpose});
        let mut passed = self.second_factor_event(user, user.email.as_str(), purpose, meta);
        passed.details["second_factor"] = SecondFactorKind::Totp.as_str().into();
        self.store
            .insert_totp(
                &user.id,
                &setup.sealed_secret,
                step,
                &hashes,
                now,
                &[&enrolled, &passed],
            )
            .await
            .map_err(|e| match e {
                StorageError::Conflict(_) => Error::Conflict(
                    "An authenticator app was set up for this account meanwhile.".into(),
                ),
                other => other.into(),
            })?;
        self.second_factor_throttle.undo(attempt);
        Ok(codes.iter().map(|c| display_recovery_code(c)).collect())
    }

    async fn own_user(&self, p: &Principal) -> Result<User> {
        p.require(Permission::ManageOwnAccount)?;
        self.store
            .find_user(&p.user_id)
            .await?
            .filter(|u| !u.disabled)
            .ok_or(Error::Unauthenticated)
    }

    async fn status_of(&self, user: &User) -> Result<SecondFactorStatus> {
        let since = self
            .store
            .find_totp(&user.id)
            .await?
            .map(|t| t.confirmed_at);
        let recovery_codes_left = if since.is_some() {
            self.store.recovery_codes_left(&user.id).await?
        } else {
            0
        };
        Ok(SecondFactorStatus {
            since,
            recovery_codes_left,
            required: self.required_roles().await?.requires(user.role),
            has_password: user.password_hash.is_some(),
        })
    }

    /// The signed-in account's second factor.
    ///
    /// # Errors
    /// `Unauthenticated` when the account is gone.
    pub async fn own_second_factor(&self, p: &Principal) -> Result<SecondFactorStatus> {
        let user = self.own_user(p).await?;
        self.status_of(&user).await
    }

    /// Starts setting up an authenticator app for the signed-in account, after its password
    /// (an account that has one): what to show, and the setup the caller keeps in this browser's
    /// session until the first code confirms it.
    ///
    /// # Errors
    /// `InvalidField` (`password`), `Throttled`, `Conflict` when one is set up already.
    pub async fn start_own_enrolment(
        &self,
        p: &Principal,
        password: &str,
        meta: &RequestMeta,
    ) -> Result<(Enrolment, TotpSetup)> {
        let user = self.own_user(p).await?;
        self.refuse_second_setup(&user).await?;
        if user.password_hash.is_some() {
            let attempt = self
                .login_throttle
                .begin_login(user.email.as_str(), Source::of(meta.client_ip), self.now())
                .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
            let Ok(ok) = self
                .hasher
                .verify(Password::from_input(password), user.password_hash.clone())
                .await
            else {
                self.login_throttle.undo(attempt);
                return Err(Error::Throttled {
                    retry_after_secs: 1,
                });
            };
            if !ok {
                return Err(Error::field("password", "Your password is incorrect."));
            }
            self.login_throttle.succeeded(attempt);
        }
        let setup = self.new_setup(&user)?;
        Ok((self.setup_view(&user, &setup)?, setup))
    }

    /// Confirms the signed-in account's new authenticator (`setup`, from
    /// [`Core::start_own_enrolment`] in this browser) with its first code; the recovery codes
    /// come back, to be shown once.
    ///
    /// # Errors
    /// `InvalidCredentials` (wrong code), `Throttled`, `Conflict` (setup expired, or one was set
    /// up meanwhile).
    pub async fn confirm_own_enrolment(
        &self,
        p: &Principal,
        setup: Option<&TotpSetup>,
        code: &str,
        meta: &RequestMeta,
    ) -> Result<RecoveryCodes> {
        let user = self.own_user(p).await?;
        self.confirm_enrolment(&user, setup, code, "account", meta)
            .await
    }

    /// New recovery codes for the signed-in account (the old ones stop working), after a code
    /// from its app or a recovery code.
    ///
    /// # Errors
    /// `InvalidCredentials`, `Throttled`.
    pub async fn new_own_recovery_codes(
        &self,
        p: &Principal,
        code: &str,
        meta: &RequestMeta,
    ) -> Result<RecoveryCodes> {
        let user = self.own_user(p).await?;
        self.check_code(&user, code, action::USER_RECOVERY_CODES, meta)
            .await?;
        let codes: Vec<String> = (0..RECOVERY_CODES).map(|_| new_recovery_code()).collect();
        let hashes: Vec<String> = codes.iter().map(|c| recovery_code_hash(c)).collect();
        let mut event = self.event(
            &user.realm_id,
            &p.email,
            action::USER_RECOVERY_CODES,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"recovery_codes": RECOVERY_CODES});
        self.store
            .replace_recovery_codes(&user.id, &hashes, &event)
            .await
            .map_err(|e| match e {
                StorageError::Conflict(_) => {
                    Error::Conflict("No authenticator app is set up.".into())
                }
                other => other.into(),
            })?;
        Ok(codes.iter().map(|c| display_recovery_code(c)).collect())
    }

    /// Removes the signed-in account's authenticator and recovery codes, after a code from its
    /// app or a recovery code (a lost phone: a recovery code, then set up the new one). When
    /// the account's role requires a second factor, it sets one up again at its next sign-in.
    ///
    /// # Errors
    /// `InvalidCredentials`, `Throttled`.
    pub async fn remove_own_second_factor(
        &self,
        p: &Principal,
        code: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let user = self.own_user(p).await?;
        self.check_code(&user, code, action::USER_SECOND_FACTOR_REMOVE, meta)
            .await?;
        let mut event = self.event(
            &user.realm_id,
            &p.email,
            action::USER_SECOND_FACTOR_REMOVE,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"by": "owner"});
        Ok(self
            .store
            .remove_second_factor(&user.id, false, self.now(), &event)
            .await?)
    }

    /// An account's second factor, for admins.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn user_second_factor(
        &self,
        p: &Principal,
        user_id: &UserId,
    ) -> Result<SecondFactorStatus> {
        p.require(Permission::ManageUsers)?;
        let user = self.find_console_user(user_id).await?;
        self.status_of(&user).await
    }

    async fn find_console_user(&self, user_id: &UserId) -> Result<User> {
        self.store.find_user(user_id).await?.ok_or_else(|| {
            Error::not_found(
                "user",
                user_id.as_str().chars().take(64).collect::<String>(),
            )
        })
    }

    /// Resets another account's second factor (a lost phone and lost recovery codes): its
    /// authenticator and recovery codes go and its sessions end; it sets up a new one at its
    /// next sign-in when its role requires one. Owners remove their own from the Account page.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `Invalid` (one's own account, or nothing to reset).
    pub async fn reset_second_factor(
        &self,
        p: &Principal,
        user_id: &UserId,
        meta: &RequestMeta,
    ) -> Result<User> {
        p.require(Permission::ManageUsers)?;
        let user = self.find_console_user(user_id).await?;
        if user.id == p.user_id {
            return Err(Error::Invalid(
                "Remove your own authenticator app from your Account page.".into(),
            ));
        }
        if self.store.find_totp(&user.id).await?.is_none() {
            return Err(Error::Invalid(
                "This account has no authenticator app to reset.".into(),
            ));
        }
        let mut event = self.event(
            &user.realm_id,
            &p.email,
            action::USER_SECOND_FACTOR_REMOVE,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"by": "admin", "sessions": "ended"});
        self.store
            .remove_second_factor(&user.id, true, self.now(), &event)
            .await?;
        self.find_console_user(user_id).await
    }
}
