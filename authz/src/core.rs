//! The core façade: every operation the console, CLI and protocol endpoints perform.
//!
//! Each method takes the acting [`Principal`] (or none, for sign-in and one-time links), checks
//! the policy, validates input into domain types, and makes exactly one store call that commits
//! the change together with its audit event.
use crate::accounts::{Email, LinkPurpose, OneTimeLink, User};
use crate::audit::{self, AuditEvent, AuditFilter, NewAuditEvent, Outcome, action};
use crate::clock::{Clock, SystemClock, UnixTime};
use crate::error::{Error, Result, StorageError};
use crate::policy::{Permission, Principal, Role};
use crate::realms::{self, Realm, RealmName};
use crate::secret::{self, Password, PlainToken};
use crate::storage::{DynStore, Page, Paged};
use crate::throttle::LoginThrottle;
use std::sync::Arc;

/// Configuration of the core, passed in by the server.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    /// Public base URL (scheme, host, optional path; no trailing slash needed).
    pub public_url: String,
    /// Lifetime of the first-admin setup link.
    pub setup_link_ttl_secs: i64,
    /// Lifetime of password-reset and new-user links.
    pub reset_link_ttl_secs: i64,
    /// Key-encryption key for signing keys at rest.
    pub master_key: crate::keys::MasterKey,
    /// Accept `http://` resource URIs on loopback hosts (development).
    pub allow_http_loopback: bool,
    /// Let client URLs (`jwks_uri`) point at loopback hosts, over http or https (development
    /// and tests; SSRF protection refuses them otherwise).
    pub allow_loopback_fetch: bool,
}

impl Default for CoreConfig {
    fn default() -> Self {
        Self {
            public_url: "http://127.0.0.1:3000".to_owned(),
            setup_link_ttl_secs: 24 * 3600,
            reset_link_ttl_secs: 24 * 3600,
            master_key: crate::keys::MasterKey::generate(),
            allow_http_loopback: false,
            allow_loopback_fetch: false,
        }
    }
}

/// Facts about the HTTP request (or CLI call) an operation runs in, for the audit log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestMeta {
    /// Request id (`x-request-id`).
    pub request_id: Option<String>,
    /// Client IP address.
    pub client_ip: Option<String>,
}

/// Maximum rows one audit export returns.
pub const MAX_EXPORT_ROWS: u32 = 50_000;

/// The authorization core. Cheap to clone.
#[derive(Clone)]
pub struct Core {
    pub(crate) store: DynStore,
    clock: Arc<dyn Clock>,
    config: Arc<CoreConfig>,
    throttle: Arc<LoginThrottle>,
    pub(crate) client_throttle: Arc<LoginThrottle>,
    pub(crate) keyring: Arc<crate::keys::KeyRing>,
    pub(crate) cache: Arc<crate::cache::LookupCache>,
    pub(crate) fetcher: Arc<dyn crate::fetch::Fetcher>,
    pub(crate) documents: Arc<crate::fetch::DocumentCache>,
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Core")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

pub(crate) fn invalid(msg: impl Into<std::borrow::Cow<'static, str>>) -> Error {
    Error::invalid(msg)
}

pub(crate) fn map_conflict(e: StorageError, msg: &'static str) -> Error {
    match e {
        StorageError::Conflict(_) => Error::Conflict(msg.into()),
        other => Error::Storage(other),
    }
}

impl Core {
    /// A core on the system clock.
    pub fn new(store: DynStore, config: CoreConfig) -> Self {
        Self::with_clock(store, config, Arc::new(SystemClock))
    }

    /// A core on the given clock (tests).
    pub fn with_clock(store: DynStore, config: CoreConfig, clock: Arc<dyn Clock>) -> Self {
        Self {
            store,
            clock,
            config: Arc::new(config),
            throttle: Arc::new(LoginThrottle::default()),
            client_throttle: Arc::new(LoginThrottle::new(
                crate::throttle::MAX_CLIENT_FAILURES,
                crate::throttle::MAX_FAILURES_PER_IP,
            )),
            keyring: Arc::default(),
            cache: Arc::default(),
            fetcher: Arc::new(crate::fetch::NoFetcher),
            documents: Arc::default(),
        }
    }

    /// This core, fetching client documents (a `private_key_jwt` client's `jwks_uri`) with
    /// `fetcher`. Without one, clients with a `jwks_uri` cannot authenticate.
    #[must_use]
    pub fn with_fetcher(mut self, fetcher: Arc<dyn crate::fetch::Fetcher>) -> Self {
        self.fetcher = fetcher;
        self
    }

    /// The configuration.
    pub fn config(&self) -> &CoreConfig {
        &self.config
    }

    /// Now, from the injected clock.
    pub fn now(&self) -> UnixTime {
        self.clock.now()
    }

    /// The issuer of a realm.
    pub fn issuer(&self, realm: &RealmName) -> String {
        realms::issuer(&self.config.public_url, realm)
    }

    /// Link that lets the first admin choose a password.
    pub fn setup_url(&self, token: &PlainToken) -> String {
        format!("{}/setup?token={}", self.base(), token.expose())
    }

    /// Link that lets a user choose a new password.
    pub fn reset_url(&self, token: &PlainToken) -> String {
        format!("{}/reset-password?token={}", self.base(), token.expose())
    }

    fn base(&self) -> &str {
        self.config.public_url.trim_end_matches('/')
    }

    pub(crate) fn event(
        &self,
        realm_id: &str,
        actor: &str,
        action: &'static str,
        target: String,
        meta: &RequestMeta,
    ) -> NewAuditEvent {
        NewAuditEvent {
            realm_id: realm_id.to_owned(),
            occurred_at: self.now(),
            actor: actor.to_owned(),
            action,
            target,
            outcome: Outcome::Success,
            request_id: meta.request_id.clone(),
            client_ip: meta.client_ip.clone(),
            details: serde_json::json!({}),
        }
    }

    /// Mints a one-time token and the link row that stores its hash.
    fn new_link(
        &self,
        realm_id: &str,
        user_id: Option<&str>,
        purpose: LinkPurpose,
    ) -> (PlainToken, OneTimeLink) {
        let token = PlainToken::generate();
        let now = self.now();
        let ttl = match purpose {
            LinkPurpose::Setup => self.config.setup_link_ttl_secs,
            LinkPurpose::PasswordReset => self.config.reset_link_ttl_secs,
        };
        let link = OneTimeLink {
            token_hash: token.hashed(),
            realm_id: realm_id.to_owned(),
            user_id: user_id.map(str::to_owned),
            purpose,
            created_at: now,
            expires_at: now + ttl,
        };
        (token, link)
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
            format!("user:{}", user.id),
            meta,
        );
        event.details =
            serde_json::json!({"email": user.email.as_str(), "role": user.role.as_str()});
        self.store
            .insert_user(user, link, &event)
            .await
            .map_err(|e| map_conflict(e, "A user with this email already exists."))
    }

    /// Invalidates cached lookups after a change to realms, resources, clients or agents.
    pub(crate) fn changed(&self) {
        self.cache.invalidate();
    }

    /// Checks that the database answers.
    ///
    /// # Errors
    /// When it does not.
    pub async fn ready(&self) -> Result<()> {
        Ok(self.store.ping().await?)
    }

    // ---- bootstrap ---------------------------------------------------------------------------

    /// Creates the `default` realm if missing and, when no user exists, issues a first-admin
    /// setup link (superseding earlier ones). Returns the link's token when one was issued.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn bootstrap(&self) -> Result<Option<PlainToken>> {
        self.ensure_default_realm().await?;
        self.issue_setup_link().await
    }

    /// Creates the `default` realm if missing.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn ensure_default_realm(&self) -> Result<Realm> {
        self.admin_realm_or_create().await
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
            "setup".into(),
            &RequestMeta::default(),
        );
        self.store.insert_link(&link, &event).await?;
        Ok(Some(token))
    }

    async fn admin_realm_or_create(&self) -> Result<Realm> {
        let name = RealmName::default_realm();
        let now = self.now();
        let realm = Realm {
            id: secret::new_id("rlm"),
            name: name.clone(),
            display_name: "Default".into(),
            enabled: true,
            default_resource_id: None,
            created_at: now,
            updated_at: now,
        };
        let event = self.event(
            &realm.id,
            "system",
            action::REALM_CREATE,
            format!("realm:{name}"),
            &RequestMeta::default(),
        );
        self.store.insert_realm_if_absent(&realm, &event).await?;
        self.admin_realm().await
    }

    /// The administration realm (`default`), which holds console accounts.
    ///
    /// # Errors
    /// `Internal` if it does not exist (bootstrap has not run).
    pub async fn admin_realm(&self) -> Result<Realm> {
        self.store
            .find_realm_by_name(&RealmName::default_realm())
            .await?
            .ok_or_else(|| Error::Internal("default realm missing; run migrations".into()))
    }

    // ---- sessions and one-time links -----------------------------------------------------------

    /// Verifies an email and password, with throttling per account and per client IP.
    /// Every attempt is audited.
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
        let key = email.trim().to_lowercase();
        let ip = meta.client_ip.as_deref();
        let now = self.now();
        if let Some(retry_after_secs) = self.throttle.retry_after(&key, ip, now) {
            return Err(Error::Throttled { retry_after_secs });
        }
        let password = Password::from_input(password);
        let user = match Email::parse(&key) {
            Ok(e) => self.store.find_user_by_email(&realm.id, &e).await?,
            Err(_) => None,
        };
        let ok = match user.as_ref().and_then(|u| u.password_hash.as_deref()) {
            Some(phc) => password.verify(phc),
            None => {
                secret::dummy_verify(&password);
                false
            }
        };
        let user = user.filter(|u| ok && !u.disabled);
        let mut event = self.event(
            &realm.id,
            &key,
            action::SESSION_LOGIN,
            user.as_ref()
                .map_or_else(|| "user:unknown".into(), |u| format!("user:{}", u.id)),
            meta,
        );
        let Some(user) = user else {
            self.throttle.record_failure(&key, ip, now);
            event.outcome = Outcome::Failure;
            self.store.insert_audit_event(&event).await?;
            return Err(Error::InvalidCredentials);
        };
        self.throttle.record_success(&key);
        self.store.insert_audit_event(&event).await?;
        Ok(principal_of(&user))
    }

    /// Resolves a session's user id to a principal; `None` when the user is gone or disabled.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn principal(&self, user_id: &str) -> Result<Option<Principal>> {
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
            format!("user:{}", p.user_id),
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
        let email = Email::parse(email).map_err(invalid)?;
        let display_name = realms::parse_display_name(display_name, "Name").map_err(invalid)?;
        let password = Password::parse_new(password).map_err(invalid)?;
        let link = self.active_link(token, LinkPurpose::Setup).await?;
        let now = self.now();
        let user = User {
            id: secret::new_id("usr"),
            realm_id: link.realm_id.clone(),
            email,
            display_name,
            password_hash: Some(password.hash().map_err(Error::Internal)?),
            role: Role::Admin,
            disabled: false,
            created_at: now,
            updated_at: now,
        };
        let event = self.event(
            &link.realm_id,
            user.email.as_str(),
            action::SETUP_COMPLETE,
            format!("user:{}", user.id),
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

    /// Sets a new password through a one-time link; the link is consumed atomically.
    ///
    /// # Errors
    /// `Invalid` for a password that breaks the policy (nothing is written), `InvalidLink`.
    pub async fn reset_password(
        &self,
        token: &str,
        password: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let password = Password::parse_new(password).map_err(invalid)?;
        let link = self.active_link(token, LinkPurpose::PasswordReset).await?;
        let user_id = link.user_id.clone().ok_or(Error::InvalidLink)?;
        let user = self
            .store
            .find_user(&user_id)
            .await?
            .ok_or(Error::InvalidLink)?;
        let hash = password.hash().map_err(Error::Internal)?;
        let event = self.event(
            &link.realm_id,
            user.email.as_str(),
            action::USER_PASSWORD_RESET,
            format!("user:{}", user.id),
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

    /// Changes the principal's own password after checking the current one.
    ///
    /// # Errors
    /// `Invalid` when the current password is wrong or the new one breaks the policy.
    pub async fn change_own_password(
        &self,
        p: &Principal,
        current: &str,
        new: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageOwnAccount)?;
        let new = Password::parse_new(new).map_err(invalid)?;
        let mut user = self.load_user(&p.user_id).await?;
        let current_ok = user
            .password_hash
            .as_deref()
            .is_some_and(|h| Password::from_input(current).verify(h));
        if !current_ok {
            return Err(invalid("Current password is incorrect."));
        }
        user.password_hash = Some(new.hash().map_err(Error::Internal)?);
        user.updated_at = self.now();
        let event = self.event(
            &user.realm_id,
            &p.email,
            action::USER_PASSWORD_CHANGE,
            format!("user:{}", user.id),
            meta,
        );
        Ok(self.store.update_user(&user, &event).await?)
    }

    // ---- realms ------------------------------------------------------------------------------

    /// Lists realms.
    ///
    /// # Errors
    /// `Forbidden`, or storage failure.
    pub async fn list_realms(&self, p: &Principal) -> Result<Vec<Realm>> {
        p.require(Permission::ViewRealms)?;
        Ok(self.store.list_realms().await?)
    }

    /// Gets a realm by name.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn get_realm(&self, p: &Principal, name: &str) -> Result<Realm> {
        p.require(Permission::ViewRealms)?;
        self.find_realm(name).await
    }

    pub(crate) async fn find_realm(&self, name: &str) -> Result<Realm> {
        let parsed = RealmName::parse(name).map_err(|_| Error::not_found("realm", name))?;
        self.store
            .find_realm_by_name(&parsed)
            .await?
            .ok_or_else(|| Error::not_found("realm", name))
    }

    /// Creates a realm.
    ///
    /// # Errors
    /// `Forbidden`, `Invalid` (nothing written), `Conflict` when the name is taken.
    pub async fn create_realm(
        &self,
        p: &Principal,
        name: &str,
        display_name: &str,
        meta: &RequestMeta,
    ) -> Result<Realm> {
        p.require(Permission::ManageRealms)?;
        let name = RealmName::parse(name).map_err(invalid)?;
        let display_name =
            realms::parse_display_name(display_name, "Display name").map_err(invalid)?;
        let now = self.now();
        let realm = Realm {
            id: secret::new_id("rlm"),
            name,
            display_name,
            enabled: true,
            default_resource_id: None,
            created_at: now,
            updated_at: now,
        };
        let event = self.event(
            &realm.id,
            &p.email,
            action::REALM_CREATE,
            format!("realm:{}", realm.name),
            meta,
        );
        self.store
            .insert_realm(&realm, &event)
            .await
            .map_err(|e| map_conflict(e, "A realm with this name already exists."))?;
        self.changed();
        Ok(realm)
    }

    /// Renames a realm and/or changes its display name. Renaming changes its issuer.
    ///
    /// # Errors
    /// `Forbidden`, `Invalid`, `NotFound`, `Conflict`.
    pub async fn update_realm(
        &self,
        p: &Principal,
        name: &str,
        new_name: &str,
        display_name: &str,
        meta: &RequestMeta,
    ) -> Result<Realm> {
        p.require(Permission::ManageRealms)?;
        let new_name = RealmName::parse(new_name).map_err(invalid)?;
        let display_name =
            realms::parse_display_name(display_name, "Display name").map_err(invalid)?;
        let mut realm = self.find_realm(name).await?;
        if realm.name.is_default() && !new_name.is_default() {
            return Err(invalid(
                "The default realm holds console accounts and cannot be renamed.",
            ));
        }
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::REALM_UPDATE,
            format!("realm:{}", realm.name),
            meta,
        );
        event.details = serde_json::json!({
            "name": {"from": realm.name.as_str(), "to": new_name.as_str()},
            "display_name": {"from": realm.display_name, "to": display_name},
        });
        realm.name = new_name;
        realm.display_name = display_name;
        realm.updated_at = self.now();
        self.store
            .update_realm(&realm, &event)
            .await
            .map_err(|e| map_conflict(e, "A realm with this name already exists."))?;
        self.changed();
        Ok(realm)
    }

    /// Enables or disables a realm. The default realm cannot be disabled.
    ///
    /// # Errors
    /// `Forbidden`, `Invalid`, `NotFound`.
    pub async fn set_realm_enabled(
        &self,
        p: &Principal,
        name: &str,
        enabled: bool,
        meta: &RequestMeta,
    ) -> Result<Realm> {
        p.require(Permission::ManageRealms)?;
        let mut realm = self.find_realm(name).await?;
        if realm.name.is_default() && !enabled {
            return Err(invalid(
                "The default realm holds console accounts and cannot be disabled.",
            ));
        }
        let verb = if enabled {
            action::REALM_ENABLE
        } else {
            action::REALM_DISABLE
        };
        let event = self.event(
            &realm.id,
            &p.email,
            verb,
            format!("realm:{}", realm.name),
            meta,
        );
        realm.enabled = enabled;
        realm.updated_at = self.now();
        self.store.update_realm(&realm, &event).await?;
        self.changed();
        Ok(realm)
    }

    // ---- users -------------------------------------------------------------------------------

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

    async fn load_user(&self, id: &str) -> Result<User> {
        self.store
            .find_user(id)
            .await?
            .ok_or_else(|| Error::not_found("user", id))
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
        let password = Password::parse_new(password).map_err(invalid)?;
        let hash = password.hash().map_err(Error::Internal)?;
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
        let email = Email::parse(email).map_err(invalid)?;
        let display_name = realms::parse_display_name(display_name, "Name").map_err(invalid)?;
        let role = Role::parse(role).map_err(invalid)?;
        let realm = self.admin_realm().await?;
        let now = self.now();
        Ok(User {
            id: secret::new_id("usr"),
            realm_id: realm.id,
            email,
            display_name,
            password_hash,
            role,
            disabled: false,
            created_at: now,
            updated_at: now,
        })
    }

    /// Refuses a change that would leave no enabled admin.
    async fn ensure_admin_remains(&self, user: &User) -> Result<()> {
        if user.role == Role::Admin
            && !user.disabled
            && self.store.count_active_admins(&user.realm_id).await? <= 1
        {
            return Err(Error::Conflict(
                "This is the last enabled admin; make someone else an admin first.".into(),
            ));
        }
        Ok(())
    }

    /// Changes a user's role.
    ///
    /// # Errors
    /// `Forbidden`, `Invalid`, `NotFound`, `Conflict` (last admin).
    pub async fn set_user_role(
        &self,
        p: &Principal,
        user_id: &str,
        role: &str,
        meta: &RequestMeta,
    ) -> Result<User> {
        p.require(Permission::ManageUsers)?;
        let role = Role::parse(role).map_err(invalid)?;
        let mut user = self.load_user(user_id).await?;
        if user.role == role {
            return Ok(user);
        }
        if role != Role::Admin {
            self.ensure_admin_remains(&user).await?;
        }
        let mut event = self.event(
            &user.realm_id,
            &p.email,
            action::USER_ROLE_CHANGE,
            format!("user:{}", user.id),
            meta,
        );
        event.details = serde_json::json!({"from": user.role.as_str(), "to": role.as_str()});
        user.role = role;
        user.updated_at = self.now();
        self.store.update_user(&user, &event).await?;
        Ok(user)
    }

    /// Disables or re-enables a user. Disabled users cannot sign in and their sessions end.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `Invalid` (own account), `Conflict` (last admin).
    pub async fn set_user_disabled(
        &self,
        p: &Principal,
        user_id: &str,
        disabled: bool,
        meta: &RequestMeta,
    ) -> Result<User> {
        p.require(Permission::ManageUsers)?;
        let mut user = self.load_user(user_id).await?;
        if user.disabled == disabled {
            return Ok(user);
        }
        if disabled {
            if user.id == p.user_id {
                return Err(invalid("You cannot disable your own account."));
            }
            self.ensure_admin_remains(&user).await?;
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
            format!("user:{}", user.id),
            meta,
        );
        user.disabled = disabled;
        user.updated_at = self.now();
        self.store.update_user(&user, &event).await?;
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
        user_id: &str,
        meta: &RequestMeta,
    ) -> Result<(User, PlainToken)> {
        p.require(Permission::ManageUsers)?;
        let user = self.load_user(user_id).await?;
        let (token, link) =
            self.new_link(&user.realm_id, Some(&user.id), LinkPurpose::PasswordReset);
        let event = self.event(
            &user.realm_id,
            &p.email,
            action::USER_RESET_LINK,
            format!("user:{}", user.id),
            meta,
        );
        self.store.insert_link(&link, &event).await?;
        Ok((user, token))
    }

    // ---- audit -------------------------------------------------------------------------------

    /// Resolves an optional realm name in a filter to its id.
    async fn realm_filter(&self, realm: Option<&str>) -> Result<Option<String>> {
        match realm.map(str::trim).filter(|s| !s.is_empty()) {
            Some(name) => Ok(Some(self.find_realm(name).await?.id)),
            None => Ok(None),
        }
    }

    /// Lists audit events, newest first. `realm` is a realm name (or none for all realms).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), or storage failure.
    pub async fn list_audit(
        &self,
        p: &Principal,
        realm: Option<&str>,
        mut filter: AuditFilter,
        page: Page,
    ) -> Result<Paged<AuditEvent>> {
        p.require(Permission::ViewAudit)?;
        filter.realm_id = self.realm_filter(realm).await?;
        Ok(self.store.list_audit_events(&filter, page).await?)
    }

    /// Exports matching audit events (up to [`MAX_EXPORT_ROWS`]) as CSV or JSON lines.
    /// The export itself is audited.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), or storage failure.
    pub async fn export_audit(
        &self,
        p: &Principal,
        realm: Option<&str>,
        mut filter: AuditFilter,
        format: ExportFormat,
        meta: &RequestMeta,
    ) -> Result<String> {
        p.require(Permission::ViewAudit)?;
        filter.realm_id = self.realm_filter(realm).await?;
        let events = self
            .store
            .list_audit_events(
                &filter,
                Page {
                    offset: 0,
                    limit: MAX_EXPORT_ROWS,
                },
            )
            .await?
            .items;
        let admin = self.admin_realm().await?;
        let mut event = self.event(
            &admin.id,
            &p.email,
            action::AUDIT_EXPORT,
            "audit".into(),
            meta,
        );
        event.details = serde_json::json!({"rows": events.len(), "format": format.as_str()});
        self.store.insert_audit_event(&event).await?;
        Ok(match format {
            ExportFormat::Csv => audit::to_csv(&events),
            ExportFormat::JsonLines => audit::to_json_lines(&events),
        })
    }
}

/// Audit export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// RFC 4180 CSV.
    Csv,
    /// One JSON object per line.
    JsonLines,
}

impl ExportFormat {
    /// Short name (`csv`, `jsonl`).
    pub fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::JsonLines => "jsonl",
        }
    }
}

fn principal_of(u: &User) -> Principal {
    Principal {
        user_id: u.id.clone(),
        email: u.email.to_string(),
        display_name: u.display_name.clone(),
        role: u.role,
    }
}
