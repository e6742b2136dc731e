//! Account operations: first-admin setup, sign-in and sign-out, one-time links, password
//! changes, and managing console users.
use super::model::{Email, LinkPurpose, OneTimeLink, User, UserId, login_actor};
use crate::audit::{AuditSubject, Outcome, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result, StorageError, invalid, map_taken};
use crate::paging::{Page, Paged};
use crate::policy::{Permission, Principal, Role};
use crate::realms::{RealmId, parse_display_name};
use crate::secret::{Password, PlainToken};
use crate::throttle::Source;

/// What the store's last-admin check says, for the user.
const LAST_ADMIN: &str = "This is the last enabled admin; make someone else an admin first.";

fn principal_of(u: &User) -> Principal {
    Principal {
        user_id: u.id.clone(),
        email: u.email.to_string(),
        display_name: u.display_name.clone(),
        role: u.role,
        credential_version: u.credential_version,
    }
}

fn map_last_admin(e: StorageError) -> Error {
    match e {
        StorageError::Precondition(crate::storage::NO_BREAK_GLASS) => {
            Error::Conflict(crate::sso::NO_BREAK_GLASS_LEFT.into())
        }
        StorageError::Precondition(_) => Error::Conflict(LAST_ADMIN.into()),
        other => Error::Storage(other),
    }
}

impl Core {
    /// Creates the `default` realm if missing and, when no user exists, issues a first-admin
    /// setup link (superseding earlier ones). Returns the link's token when one was issued.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn bootstrap(&self) -> Result<Option<PlainToken>> {
        self.ensure_default_realm().await?;
        self.issue_setup_link().await
    }

    /// Issues a first-admin setup link when no user exists (superseding earlier ones).
    ///
    /// # Errors
    /// On storage failure, or `Internal` before the default realm exists.
    pub async fn issue_setup_link(&self) -> Result<Option<PlainToken>> {
        if self.store.count_users().await? > 0 {
            return Ok(None);
        }
        let realm = self.admin_realm().await?;
        let (token, link) = self.new_link(&realm.id, None, LinkPurpose::Setup);
        let event = self.event(
            &realm.id,
            "system",
            action::SETUP_LINK,
            AuditSubject::Setup,
            &RequestMeta::default(),
        );
        self.store.insert_link(&link, &event).await?;
        Ok(Some(token))
    }

    /// Link that lets the first admin choose a password.
    pub fn setup_url(&self, token: &PlainToken) -> String {
        format!("{}/setup?token={}", self.base_url(), token.expose())
    }

    /// Link that lets a user choose a new password.
    pub fn reset_url(&self, token: &PlainToken) -> String {
        format!(
            "{}/reset-password?token={}",
            self.base_url(),
            token.expose()
        )
    }

    /// Mints a one-time token and the link row that stores its hash.
    fn new_link(
        &self,
        realm_id: &RealmId,
        user_id: Option<&UserId>,
        purpose: LinkPurpose,
    ) -> (PlainToken, OneTimeLink) {
        let token = PlainToken::generate();
        let now = self.now();
        let ttl = match purpose {
            LinkPurpose::Setup => self.config().setup_link_ttl_secs,
            LinkPurpose::PasswordReset => self.config().reset_link_ttl_secs,
        };
        let link = OneTimeLink {
            token_hash: token.hashed(),
            realm_id: realm_id.clone(),
            user_id: user_id.cloned(),
            purpose,
            created_at: now,
            expires_at: now + ttl,
        };
        (token, link)
    }

    async fn hash_password(&self, password: Password) -> Result<String> {
        self.hasher.hash(password).await.map_err(Error::Internal)
    }

    /// Verifies an email and password. Every attempt is audited, with the parsed address (or a
    /// marker) as actor.
    ///
    /// Throttled per account + source and per source (see [`crate::throttle`]): a throttled
    /// attempt is refused before the password is checked, and each attempt counts before its
    /// hash is computed.
    ///
    /// # Errors
    /// `InvalidCredentials` (same for unknown user, wrong password and disabled account) or
    /// `Throttled`.
    pub async fn login(
        &self,
        email: &str,
        password: &str,
        meta: &RequestMeta,
    ) -> Result<Principal> {
        let realm = self.admin_realm().await?;
        let actor = login_actor(email);
        let now = self.now();
        let attempt = self
            .login_throttle
            .begin_login(&actor, Source::of(meta.client_ip), now)
            .map_err(|retry_after_secs| {
                count_sign_in("console", "throttled");
                Error::Throttled { retry_after_secs }
            })?;
        let user = match Email::parse(email) {
            Ok(e) => self.store.find_user_by_email(&realm.id, &e).await?,
            Err(_) => None,
        };
        let phc = user.as_ref().and_then(|u| u.password_hash.clone());
        // A full queue of hashes is a flood: answer "try again", uncounted.
        let Ok(ok) = self
            .hasher
            .verify(Password::from_input(password), phc)
            .await
        else {
            self.login_throttle.undo(attempt);
            return Err(Error::Throttled {
                retry_after_secs: 1,
            });
        };
        // With password sign-in off only break-glass admins may use one; everyone else gets the
        // same answer whatever they typed, so the answer tells nothing about the password.
        let passwords_off = self.store.password_sign_in_break_glass_only().await?;
        let user = user
            .filter(|u| ok && !u.disabled)
            .filter(|u| !passwords_off || u.may_use_password_when_off());
        let mut event = self.event(
            &realm.id,
            &actor,
            action::SESSION_LOGIN,
            user.as_ref().map_or_else(
                || AuditSubject::User("unknown".into()),
                |u| AuditSubject::User(u.id.to_string()),
            ),
            meta,
        );
        let Some(user) = user else {
            event.outcome = Outcome::Failure;
            if passwords_off {
                event.details = serde_json::json!({"reason": "password sign-in is off for all but break-glass admins"});
            }
            self.store.insert_audit_event(&event).await?;
            count_sign_in("console", "failed");
            return Err(if passwords_off {
                Error::Forbidden
            } else {
                Error::InvalidCredentials
            });
        };
        self.login_throttle.succeeded(attempt);
        // The password passed; when a second factor follows, the row says so (the session starts
        // only once `session.second_factor` passes).
        let due = self.second_factor_due(&user).await?;
        if due {
            event.details = serde_json::json!({"second_factor": "due"});
        }
        self.store.insert_audit_event(&event).await?;
        count_sign_in("console", if due { "second_factor_due" } else { "ok" });
        Ok(principal_of(&user))
    }

    /// Resolves a session's user id to a principal; `None` when the user is gone or disabled.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn principal(&self, user_id: &UserId) -> Result<Option<Principal>> {
        Ok(self
            .store
            .find_user(user_id)
            .await?
            .filter(|u| !u.disabled)
            .map(|u| principal_of(&u)))
    }

    /// Looks up an enabled console user by email (CLI and tests act as them).
    ///
    /// # Errors
    /// On storage failure.
    pub async fn find_principal_by_email(&self, email: &str) -> Result<Option<Principal>> {
        let realm = self.admin_realm().await?;
        let Ok(email) = Email::parse(email) else {
            return Ok(None);
        };
        Ok(self
            .store
            .find_user_by_email(&realm.id, &email)
            .await?
            .filter(|u| !u.disabled)
            .map(|u| principal_of(&u)))
    }

    /// Records a sign-out.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn logout(&self, p: &Principal, meta: &RequestMeta) -> Result<()> {
        let realm = self.admin_realm().await?;
        let event = self.event(
            &realm.id,
            &p.email,
            action::SESSION_LOGOUT,
            AuditSubject::User(p.user_id.to_string()),
            meta,
        );
        Ok(self.store.insert_audit_event(&event).await?)
    }

    async fn active_link(&self, token: &str, purpose: LinkPurpose) -> Result<OneTimeLink> {
        let token = PlainToken::from_input(token);
        self.store
            .find_active_link(&token.hashed(), self.now())
            .await?
            .filter(|l| l.purpose == purpose)
            .ok_or(Error::InvalidLink)
    }

    /// Whether a first-admin setup link is usable (unused, unexpired, and no user exists).
    ///
    /// # Errors
    /// On storage failure.
    pub async fn setup_link_is_valid(&self, token: &str) -> Result<bool> {
        if self.store.count_users().await? > 0 {
            return Ok(false);
        }
        match self.active_link(token, LinkPurpose::Setup).await {
            Ok(_) => Ok(true),
            Err(Error::InvalidLink) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Creates the first admin through a setup link; the link is consumed atomically.
    ///
    /// # Errors
    /// `Invalid` for bad input (nothing is written), `InvalidLink` when the link is unusable.
    pub async fn complete_setup(
        &self,
        token: &str,
        email: &str,
        display_name: &str,
        password: &str,
        meta: &RequestMeta,
    ) -> Result<Principal> {
        let mut checks = crate::error::FieldChecks::default();
        let email = checks.take("email", Email::parse(email));
        let display_name = checks.take("display_name", parse_display_name(display_name, "Name"));
        let password = checks.take("password", Password::parse_new(password));
        let (Some(email), Some(display_name), Some(password)) = (email, display_name, password)
        else {
            return Err(checks.failed());
        };
        let link = self.active_link(token, LinkPurpose::Setup).await?;
        let now = self.now();
        let user = User {
            id: UserId::generate(),
            realm_id: link.realm_id.clone(),
            email,
            display_name,
            password_hash: Some(self.hash_password(password).await?),
            role: Role::Admin,
            disabled: false,
            credential_version: 1,
            created_at: now,
            updated_at: now,
            sso_provider: None,
            break_glass: false,
            second_factor_since: None,
        };
        let event = self.event(
            &link.realm_id,
            user.email.as_str(),
            action::SETUP_COMPLETE,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        if !self
            .store
            .complete_setup(&link.token_hash, now, &user, &event)
            .await?
        {
            return Err(Error::InvalidLink);
        }
        Ok(principal_of(&user))
    }

    /// The email a password-reset link is for, if the link is usable.
    ///
    /// # Errors
    /// `InvalidLink` when unusable.
    pub async fn reset_link_email(&self, token: &str) -> Result<String> {
        let link = self.active_link(token, LinkPurpose::PasswordReset).await?;
        let user_id = link.user_id.ok_or(Error::InvalidLink)?;
        let user = self
            .store
            .find_user(&user_id)
            .await?
            .ok_or(Error::InvalidLink)?;
        Ok(user.email.to_string())
    }

    /// Sets a new password through a one-time link; the link is consumed atomically, and every
    /// session of the account ends (its credential version changes).
    ///
    /// # Errors
    /// `Invalid` for a password that breaks the policy (nothing is written), `InvalidLink`.
    pub async fn reset_password(
        &self,
        token: &str,
        password: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let password = Password::parse_new(password).map_err(|m| Error::field("password", m))?;
        let link = self.active_link(token, LinkPurpose::PasswordReset).await?;
        let user_id = link.user_id.clone().ok_or(Error::InvalidLink)?;
        let user = self
            .store
            .find_user(&user_id)
            .await?
            .ok_or(Error::InvalidLink)?;
        let hash = self.hash_password(password).await?;
        let event = self.event(
            &link.realm_id,
            user.email.as_str(),
            action::USER_PASSWORD_RESET,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        let now = self.now();
        if self
            .store
            .reset_password(&link.token_hash, &user.id, &hash, now, &event)
            .await?
        {
            Ok(())
        } else {
            Err(Error::InvalidLink)
        }
    }

    /// Changes the principal's own password after checking the current one. Every other
    /// session of the account ends; the returned principal carries the new credential version,
    /// for the caller's own (rotated) session.
    ///
    /// Checking the current password is throttled like sign-in (per account + source), so a
    /// stolen session cannot be used to guess the password. The change applies only if the
    /// account's credentials did not change since the session's principal was resolved, so a
    /// concurrent reset always wins over a stale session.
    ///
    /// # Errors
    /// `Invalid` when the current password is wrong or the new one breaks the policy,
    /// `Throttled`, `Conflict` when the credentials changed meanwhile.
    pub async fn change_own_password(
        &self,
        p: &Principal,
        current: &str,
        new: &str,
        meta: &RequestMeta,
    ) -> Result<Principal> {
        p.require(Permission::ManageOwnAccount)?;
        let new = Password::parse_new(new).map_err(|m| Error::field("password", m))?;
        let user = self.load_user(&p.user_id).await?;
        let attempt = self
            .login_throttle
            .begin_login(user.email.as_str(), Source::of(meta.client_ip), self.now())
            .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
        let Ok(current_ok) = self
            .hasher
            .verify(Password::from_input(current), user.password_hash.clone())
            .await
        else {
            self.login_throttle.undo(attempt);
            return Err(Error::Throttled {
                retry_after_secs: 1,
            });
        };
        if !current_ok {
            return Err(Error::field("current", "Current password is incorrect."));
        }
        self.login_throttle.succeeded(attempt);
        let hash = self.hash_password(new).await?;
        let now = self.now();
        let event = self.event(
            &user.realm_id,
            &p.email,
            action::USER_PASSWORD_CHANGE,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        if !self
            .store
            .set_user_password(&user.id, &hash, p.credential_version, now, &event)
            .await?
        {
            return Err(Error::Conflict(
                "Your account's credentials changed meanwhile; sign in again.".into(),
            ));
        }
        let mut changed = principal_of(&user);
        changed.credential_version = p.credential_version + 1;
        Ok(changed)
    }

    /// Lists console users, optionally filtered by a search string.
    ///
    /// # Errors
    /// `Forbidden`, or storage failure.
    pub async fn list_users(&self, p: &Principal, query: &str, page: Page) -> Result<Paged<User>> {
        p.require(Permission::ManageUsers)?;
        let realm = self.admin_realm().await?;
        let q = query.trim();
        Ok(self
            .store
            .list_users(&realm.id, (!q.is_empty()).then_some(q), page)
            .await?)
    }

    /// One console user.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn user(&self, p: &Principal, id: &UserId) -> Result<User> {
        p.require(Permission::ManageUsers)?;
        self.load_user(id).await
    }

    async fn load_user(&self, id: &UserId) -> Result<User> {
        self.store.find_user(id).await?.ok_or_else(|| {
            Error::not_found("user", id.as_str().chars().take(64).collect::<String>())
        })
    }

    /// Inserts a new user (and optionally their first link) with a `user.create` audit event.
    async fn insert_new_user(
        &self,
        user: &User,
        link: Option<&OneTimeLink>,
        actor: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let mut event = self.event(
            &user.realm_id,
            actor,
            action::USER_CREATE,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        event.details =
            serde_json::json!({"email": user.email.as_str(), "role": user.role.as_str()});
        self.store
            .insert_user(user, link, &event)
            .await
            .map_err(|e| map_taken(e, "email", "A user with this email already exists."))
    }

    /// Creates a console user without a password and returns a one-time link with which
    /// they choose it.
    ///
    /// # Errors
    /// `Forbidden`, `Invalid` (nothing written), `Conflict` when the email is taken.
    pub async fn create_user(
        &self,
        p: &Principal,
        email: &str,
        display_name: &str,
        role: &str,
        meta: &RequestMeta,
    ) -> Result<(User, PlainToken)> {
        p.require(Permission::ManageUsers)?;
        let user = self.new_user(email, display_name, role, None).await?;
        let (token, link) =
            self.new_link(&user.realm_id, Some(&user.id), LinkPurpose::PasswordReset);
        self.insert_new_user(&user, Some(&link), &p.email, meta)
            .await?;
        Ok((user, token))
    }

    /// Creates a console user with a password, from the CLI (actor `cli`).
    ///
    /// # Errors
    /// `Invalid` (nothing written), `Conflict` when the email is taken.
    pub async fn create_user_with_password(
        &self,
        email: &str,
        display_name: &str,
        role: &str,
        password: &str,
    ) -> Result<User> {
        let password = Password::parse_new(password).map_err(|m| Error::field("password", m))?;
        let hash = self.hash_password(password).await?;
        let user = self.new_user(email, display_name, role, Some(hash)).await?;
        self.insert_new_user(&user, None, "cli", &RequestMeta::default())
            .await?;
        Ok(user)
    }

    async fn new_user(
        &self,
        email: &str,
        display_name: &str,
        role: &str,
        password_hash: Option<String>,
    ) -> Result<User> {
        let mut checks = crate::error::FieldChecks::default();
        let email = checks.take("email", Email::parse(email));
        let display_name = checks.take("display_name", parse_display_name(display_name, "Name"));
        let role = checks.take("role", Role::parse(role));
        let (Some(email), Some(display_name), Some(role)) = (email, display_name, role) else {
            return Err(checks.failed());
        };
        let realm = self.admin_realm().await?;
        let now = self.now();
        Ok(User {
            id: UserId::generate(),
            realm_id: realm.id,
            email,
            display_name,
            password_hash,
            role,
            disabled: false,
            credential_version: 1,
            created_at: now,
            updated_at: now,
            sso_provider: None,
            break_glass: false,
            second_factor_since: None,
        })
    }

    /// Changes a user's role. Demoting the last enabled admin is refused, checked in the same
    /// transaction as the change.
    ///
    /// # Errors
    /// `Forbidden`, `Invalid`, `NotFound`, `Conflict` (last admin).
    pub async fn set_user_role(
        &self,
        p: &Principal,
        user_id: &UserId,
        role: &str,
        meta: &RequestMeta,
    ) -> Result<User> {
        p.require(Permission::ManageUsers)?;
        let role = Role::parse(role).map_err(invalid)?;
        let mut user = self.load_user(user_id).await?;
        if user.role == role {
            return Ok(user);
        }
        let mut event = self.event(
            &user.realm_id,
            &p.email,
            action::USER_ROLE_CHANGE,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"from": user.role.as_str(), "to": role.as_str()});
        user.role = role;
        user.updated_at = self.now();
        self.store
            .set_user_role(&user.id, role, user.updated_at, &event)
            .await
            .map_err(map_last_admin)?;
        Ok(user)
    }

    /// Disables or re-enables a user. Disabled users cannot sign in and their sessions end.
    /// Disabling the last enabled admin is refused, checked in the same transaction.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `Invalid` (own account), `Conflict` (last admin).
    pub async fn set_user_disabled(
        &self,
        p: &Principal,
        user_id: &UserId,
        disabled: bool,
        meta: &RequestMeta,
    ) -> Result<User> {
        p.require(Permission::ManageUsers)?;
        let mut user = self.load_user(user_id).await?;
        if user.disabled == disabled {
            return Ok(user);
        }
        if disabled && user.id == p.user_id {
            return Err(invalid("You cannot disable your own account."));
        }
        let verb = if disabled {
            action::USER_DISABLE
        } else {
            action::USER_ENABLE
        };
        let event = self.event(
            &user.realm_id,
            &p.email,
            verb,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        user.disabled = disabled;
        user.updated_at = self.now();
        self.store
            .set_user_disabled(&user.id, disabled, user.updated_at, &event)
            .await
            .map_err(map_last_admin)?;
        Ok(user)
    }

    /// Issues a one-time password-reset link for a user, superseding earlier ones; returns the
    /// user and the link's token.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn issue_password_reset(
        &self,
        p: &Principal,
        user_id: &UserId,
        meta: &RequestMeta,
    ) -> Result<(User, PlainToken)> {
        p.require(Permission::ManageUsers)?;
        let user = self.load_user(user_id).await?;
        if let Some(provider) = &user.sso_provider {
            return Err(Error::Invalid(
                format!(
                    "{} signs in with {provider}: a password would let them in whatever their groups say. Remove the provider first to give them a password.",
                    user.email
                )
                .into(),
            ));
        }
        let (token, link) =
            self.new_link(&user.realm_id, Some(&user.id), LinkPurpose::PasswordReset);
        let event = self.event(
            &user.realm_id,
            &p.email,
            action::USER_RESET_LINK,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        self.store.insert_link(&link, &event).await?;
        Ok((user, token))
    }
}

/// Counts one sign-in in `portcullis_sign_ins_total{surface,outcome}`: `surface` is `console` or
/// `realm` (a realm's sign-in page), `outcome` `ok`, `failed` or `throttled`.
pub(crate) fn count_sign_in(surface: &'static str, outcome: &'static str) {
    metrics::counter!("portcullis_sign_ins_total", "surface" => surface, "outcome" => outcome)
        .increment(1);
}
