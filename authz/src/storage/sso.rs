//! Console single sign-on persistence: the sign-in providers, and which provider identity each
//! SSO console account is.
use crate::accounts::{Email, User};
use crate::audit::NewAuditEvent;
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::ids::{RealmId, UserId};
use crate::policy::Role;
use crate::sso::{RoleRules, SsoProvider, SsoProviderId, UserIdentity};
use async_trait::async_trait;

/// What a provider sign-in writes for the console account.
#[derive(Debug, Clone, Copy)]
pub enum SsoAccountChange<'a> {
    /// A new account and its identity.
    Create(&'a User, &'a UserIdentity),
    /// The linked account (or one linked now, `link`), brought up to date with what the
    /// provider said.
    Update {
        /// The account.
        user: &'a UserId,
        /// The identity to link first: an account that proved itself (signed in) links to the
        /// provider identity it came back with.
        link: Option<&'a UserIdentity>,
        /// Its role now.
        role: Role,
        /// Its email now.
        email: &'a Email,
        /// Its name now.
        display_name: &'a str,
    },
    /// The linked account no longer maps to a role: its sessions end (its credential version
    /// changes), nothing else.
    EndSessions(&'a UserId),
}

/// Console single sign-on persistence.
#[async_trait]
pub trait SsoStore: Send + Sync {
    /// Inserts a provider with its audit event; `Conflict` if that issuer and client id are
    /// configured already.
    async fn insert_sso_provider(
        &self,
        p: &SsoProvider,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Replaces a provider's settings (not its enabled flag) with its audit event; `NotFound` if
    /// gone, `Conflict` as for insert.
    async fn update_sso_provider(
        &self,
        p: &SsoProvider,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Enables or disables a provider with its audit event; disabling ends the sessions of its
    /// accounts. `NotFound` if gone.
    async fn set_sso_provider_enabled(
        &self,
        id: &SsoProviderId,
        enabled: bool,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Deletes a provider with its audit event: its accounts stay (they can no longer sign in
    /// without a password) and their sessions end. `NotFound` if gone.
    async fn delete_sso_provider(
        &self,
        id: &SsoProviderId,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// The realm's providers for console accounts (or, `for_people`, for its people), by
    /// display name.
    async fn list_sso_providers(
        &self,
        realm_id: &RealmId,
        for_people: bool,
    ) -> Result<Vec<SsoProvider>, StorageError>;
    /// One provider.
    async fn find_sso_provider(
        &self,
        id: &SsoProviderId,
    ) -> Result<Option<SsoProvider>, StorageError>;
    /// The account a provider identity is.
    async fn find_user_identity(
        &self,
        provider: &SsoProviderId,
        subject: &str,
    ) -> Result<Option<UserIdentity>, StorageError>;
    /// The provider identity of an account, if it signs in through one.
    async fn identity_of_user(&self, user: &UserId) -> Result<Option<UserIdentity>, StorageError>;
    /// Whether password sign-in is for break-glass admins only.
    async fn password_sign_in_break_glass_only(&self) -> Result<bool, StorageError>;
    /// Turns password sign-in on for everyone or off for all but break-glass admins, with its
    /// audit event; `Precondition` ([`crate::storage::NO_BREAK_GLASS`]) when turning it off without an enabled
    /// break-glass admin who has a password.
    async fn set_password_sign_in(
        &self,
        break_glass_only: bool,
        at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Marks an admin as break-glass or not, with its audit event; `NotFound` if gone,
    /// `Precondition` ([`crate::storage::NO_BREAK_GLASS`]) when that leaves password sign-in off without one.
    async fn set_user_break_glass(
        &self,
        user: &UserId,
        on: bool,
        at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Writes what a provider sign-in decided, with its audit events, in one transaction.
    /// `Conflict` when the email or identity was taken meanwhile; `Precondition` when the
    /// change would leave no enabled admin.
    async fn save_sso_sign_in(
        &self,
        change: SsoAccountChange<'_>,
        at: UnixTime,
        events: &[&NewAuditEvent],
    ) -> Result<(), StorageError>;
}

pub(super) const SET_PASSWORD_SIGN_IN: &str =
    "UPDATE console_sign_in SET password_sign_in = $1, updated_at = $2 WHERE id = 1";
/// Touches (and so locks, see `LOCK_ACTIVE_ADMINS`) every admin account.
pub(super) const LOCK_ADMINS: &str =
    "UPDATE users SET updated_at = updated_at WHERE role = 'admin'";
/// Only an admin with a password who signs in without a provider can be marked.
pub(super) const SET_BREAK_GLASS: &str = "UPDATE users SET break_glass = $1, updated_at = $2 WHERE id = $3 AND ($1 = FALSE OR (role = 'admin' AND password_hash IS NOT NULL AND NOT EXISTS (SELECT 1 FROM user_identities ui WHERE ui.user_id = users.id)))";

pub(super) const PROVIDER_COLUMNS: &str = "id, realm_id, display_name, button_text, issuer, client_id, sealed_client_secret, scopes, groups_claim, role_rules, trust_email, enabled, created_at, updated_at, second_factor_amr, second_factor_acr, group_mapping, for_people";
pub(super) const INSERT_PROVIDER: &str = "INSERT INTO sso_providers (id, realm_id, display_name, button_text, issuer, client_id, sealed_client_secret, scopes, groups_claim, role_rules, trust_email, second_factor_amr, second_factor_acr, group_mapping, enabled, created_at, updated_at, for_people) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)";
pub(super) const UPDATE_PROVIDER: &str = "UPDATE sso_providers SET display_name = $1, button_text = $2, issuer = $3, client_id = $4, sealed_client_secret = $5, scopes = $6, groups_claim = $7, role_rules = $8, trust_email = $9, second_factor_amr = $10, second_factor_acr = $11, group_mapping = $12, updated_at = $13 WHERE id = $14";
pub(super) const SET_PROVIDER_ENABLED: &str =
    "UPDATE sso_providers SET enabled = $1, updated_at = $2 WHERE id = $3";
pub(super) const DELETE_PROVIDER: &str = "DELETE FROM sso_providers WHERE id = $1";
pub(super) const DELETE_PROVIDER_IDENTITIES: &str =
    "DELETE FROM user_identities WHERE provider_id = $1";
/// Ends the console sessions of a provider's accounts (their credential version changes).
pub(super) const END_PROVIDER_SESSIONS: &str = "UPDATE users SET credential_version = credential_version + 1, updated_at = $1 WHERE id IN (SELECT user_id FROM user_identities WHERE provider_id = $2)";
pub(super) const END_PROVIDER_PEOPLE_SESSIONS: &str = "DELETE FROM login_sessions WHERE subject IN (SELECT person_id FROM person_upstream_identities WHERE provider_id = $1)";
pub(super) const REVOKE_PROVIDER_PEOPLE_FAMILIES: &str = "UPDATE token_families SET revoked_at = $1, revoked_reason = 'sign-in provider disabled' WHERE revoked_at IS NULL AND subject IN (SELECT person_id FROM person_upstream_identities WHERE provider_id = $2)";
pub(super) const END_USER_SESSIONS: &str =
    "UPDATE users SET credential_version = credential_version + 1, updated_at = $1 WHERE id = $2";
pub(super) const UPDATE_SSO_USER: &str = "UPDATE users SET role = $1, email = $2, display_name = $3, break_glass = FALSE, updated_at = $4 WHERE id = $5";
pub(super) const IDENTITY_COLUMNS: &str = "provider_id, subject, user_id, created_at";
pub(super) const INSERT_IDENTITY: &str = "INSERT INTO user_identities (provider_id, subject, user_id, created_at) VALUES ($1, $2, $3, $4)";

#[derive(sqlx::FromRow)]
pub(crate) struct ProviderRow {
    pub id: String,
    pub realm_id: String,
    pub display_name: String,
    pub button_text: String,
    pub issuer: String,
    pub client_id: String,
    pub sealed_client_secret: Option<Vec<u8>>,
    pub scopes: String,
    pub groups_claim: String,
    pub role_rules: String,
    pub trust_email: bool,
    pub second_factor_amr: String,
    pub second_factor_acr: String,
    pub group_mapping: String,
    pub for_people: bool,
    pub enabled: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

impl TryFrom<ProviderRow> for SsoProvider {
    type Error = StorageError;
    fn try_from(r: ProviderRow) -> Result<Self, StorageError> {
        let rules: RoleRules = serde_json::from_str(&r.role_rules)
            .map_err(|e| StorageError::Corrupt(format!("sso provider role_rules: {e}")))?;
        let group_mapping = serde_json::from_str(&r.group_mapping)
            .map_err(|e| StorageError::Corrupt(format!("sso provider group_mapping: {e}")))?;
        Ok(SsoProvider {
            id: SsoProviderId::from_stored(r.id),
            realm_id: RealmId::from_stored(r.realm_id),
            display_name: r.display_name,
            button_text: r.button_text,
            issuer: r.issuer,
            client_id: r.client_id,
            sealed_client_secret: r.sealed_client_secret,
            scopes: r.scopes.split_whitespace().map(str::to_owned).collect(),
            groups_claim: r.groups_claim,
            rules,
            trust_email: r.trust_email,
            second_factor_amr: r
                .second_factor_amr
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            second_factor_acr: r
                .second_factor_acr
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            group_mapping,
            for_people: r.for_people,
            enabled: r.enabled,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// The stored form of role rules.
pub(super) fn rules_json(rules: &RoleRules) -> String {
    serde_json::to_string(rules).unwrap_or_else(|_| "{}".to_owned())
}

#[derive(sqlx::FromRow)]
pub(crate) struct UserIdentityRow {
    pub provider_id: String,
    pub subject: String,
    pub user_id: String,
    pub created_at: i64,
}

impl From<UserIdentityRow> for UserIdentity {
    fn from(r: UserIdentityRow) -> Self {
        UserIdentity {
            provider_id: SsoProviderId::from_stored(r.provider_id),
            subject: r.subject,
            user_id: UserId::from_stored(r.user_id),
            created_at: r.created_at,
        }
    }
}

/// Implements [`SsoStore`] for one backend's store.
macro_rules! sso_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::clock::UnixTime;
            use $crate::error::StorageError;
            use $crate::ids::{RealmId, UserId};
            use $crate::sso::{SsoProvider, SsoProviderId, UserIdentity};
            use $crate::storage::sso::*;

            /// Binds a provider's settings, in the order of [`INSERT_PROVIDER`]'s `$3`–`$14` and
            /// [`UPDATE_PROVIDER`]'s `$1`–`$12`.
            fn bind_settings<'q>(
                q: sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>>,
                p: &'q SsoProvider,
            ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
                q.bind(&p.display_name)
                    .bind(&p.button_text)
                    .bind(&p.issuer)
                    .bind(&p.client_id)
                    .bind(&p.sealed_client_secret)
                    .bind(p.scopes.join(" "))
                    .bind(&p.groups_claim)
                    .bind(rules_json(&p.rules))
                    .bind(p.trust_email)
                    .bind(p.second_factor_amr.join(" "))
                    .bind(p.second_factor_acr.join(" "))
                    .bind(
                        serde_json::to_string(&p.group_mapping)
                            .unwrap_or_else(|_| "[]".to_owned()),
                    )
            }

            #[async_trait::async_trait]
            impl SsoStore for $store {
                async fn insert_sso_provider(
                    &self,
                    p: &SsoProvider,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let q = sqlx::query(INSERT_PROVIDER)
                        .bind(p.id.as_str())
                        .bind(p.realm_id.as_str());
                    bind_settings(q, p)
                        .bind(p.enabled)
                        .bind(p.created_at)
                        .bind(p.updated_at)
                        .bind(p.for_people)
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await
                }

                async fn update_sso_provider(
                    &self,
                    p: &SsoProvider,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = bind_settings(sqlx::query(UPDATE_PROVIDER), p)
                        .bind(p.updated_at)
                        .bind(p.id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn set_sso_provider_enabled(
                    &self,
                    id: &SsoProviderId,
                    enabled: bool,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_PROVIDER_ENABLED)
                        .bind(enabled)
                        .bind(updated_at)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    if !enabled {
                        sqlx::query(END_PROVIDER_SESSIONS)
                            .bind(updated_at)
                            .bind(id.as_str())
                            .execute(&mut *tx)
                            .await?;
                        // A realm's provider: its people's sign-in sessions end and their
                        // token families are revoked (a compromised provider's sign-ins die).
                        sqlx::query(END_PROVIDER_PEOPLE_SESSIONS)
                            .bind(id.as_str())
                            .execute(&mut *tx)
                            .await?;
                        sqlx::query(REVOKE_PROVIDER_PEOPLE_FAMILIES)
                            .bind(updated_at)
                            .bind(id.as_str())
                            .execute(&mut *tx)
                            .await?;
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn delete_sso_provider(
                    &self,
                    id: &SsoProviderId,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(END_PROVIDER_SESSIONS)
                        .bind(event.occurred_at)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?;
                    sqlx::query(DELETE_PROVIDER_IDENTITIES)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?;
                    let n = sqlx::query(DELETE_PROVIDER)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn list_sso_providers(
                    &self,
                    realm_id: &RealmId,
                    for_people: bool,
                ) -> Result<Vec<SsoProvider>, StorageError> {
                    let sql = format!(
                        "SELECT {PROVIDER_COLUMNS} FROM sso_providers WHERE realm_id = $1 AND for_people = $2 ORDER BY display_name, id"
                    );
                    sqlx::query_as::<_, ProviderRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(for_people)
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(SsoProvider::try_from)
                        .collect()
                }

                async fn find_sso_provider(
                    &self,
                    id: &SsoProviderId,
                ) -> Result<Option<SsoProvider>, StorageError> {
                    let sql = format!("SELECT {PROVIDER_COLUMNS} FROM sso_providers WHERE id = $1");
                    sqlx::query_as::<_, ProviderRow>(&sql)
                        .bind(id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(SsoProvider::try_from)
                        .transpose()
                }

                async fn find_user_identity(
                    &self,
                    provider: &SsoProviderId,
                    subject: &str,
                ) -> Result<Option<UserIdentity>, StorageError> {
                    let sql = format!(
                        "SELECT {IDENTITY_COLUMNS} FROM user_identities WHERE provider_id = $1 AND subject = $2"
                    );
                    Ok(sqlx::query_as::<_, UserIdentityRow>(&sql)
                        .bind(provider.as_str())
                        .bind(subject)
                        .fetch_optional(&self.pool)
                        .await?
                        .map(UserIdentity::from))
                }

                async fn identity_of_user(
                    &self,
                    user: &UserId,
                ) -> Result<Option<UserIdentity>, StorageError> {
                    let sql =
                        format!("SELECT {IDENTITY_COLUMNS} FROM user_identities WHERE user_id = $1");
                    Ok(sqlx::query_as::<_, UserIdentityRow>(&sql)
                        .bind(user.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(UserIdentity::from))
                }

                async fn password_sign_in_break_glass_only(&self) -> Result<bool, StorageError> {
                    let mode: Option<String> = sqlx::query_scalar($crate::storage::accounts::PASSWORD_SIGN_IN)
                        .fetch_optional(&self.pool)
                        .await?;
                    Ok(mode.as_deref() == Some("break_glass"))
                }

                async fn set_password_sign_in(
                    &self,
                    break_glass_only: bool,
                    at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    // Write first (locks the admins on PostgreSQL), then check what is left.
                    sqlx::query(LOCK_ADMINS).execute(&mut *tx).await?;
                    sqlx::query(SET_PASSWORD_SIGN_IN)
                        .bind(if break_glass_only { "break_glass" } else { "everyone" })
                        .bind(at)
                        .execute(&mut *tx)
                        .await?;
                    if !break_glass_remains!(tx) {
                        tx.rollback().await?;
                        return Err(StorageError::Precondition($crate::storage::accounts::NO_BREAK_GLASS));
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn set_user_break_glass(
                    &self,
                    user: &UserId,
                    on: bool,
                    at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(LOCK_ADMINS).execute(&mut *tx).await?;
                    let n = sqlx::query(SET_BREAK_GLASS)
                        .bind(on)
                        .bind(at)
                        .bind(user.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    if !break_glass_remains!(tx) {
                        tx.rollback().await?;
                        return Err(StorageError::Precondition($crate::storage::accounts::NO_BREAK_GLASS));
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn save_sso_sign_in(
                    &self,
                    change: SsoAccountChange<'_>,
                    at: UnixTime,
                    events: &[&NewAuditEvent],
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    match change {
                        SsoAccountChange::Create(user, identity) => {
                            sqlx::query($crate::storage::accounts::INSERT_USER)
                                .bind(user.id.as_str())
                                .bind(user.realm_id.as_str())
                                .bind(user.email.as_str())
                                .bind(&user.display_name)
                                .bind(&user.password_hash)
                                .bind(user.role.as_str())
                                .bind(user.disabled)
                                .bind(user.credential_version)
                                .bind(user.created_at)
                                .bind(user.updated_at)
                                .execute(&mut *tx)
                                .await?;
                            sqlx::query(INSERT_IDENTITY)
                                .bind(identity.provider_id.as_str())
                                .bind(&identity.subject)
                                .bind(identity.user_id.as_str())
                                .bind(identity.created_at)
                                .execute(&mut *tx)
                                .await?;
                        }
                        SsoAccountChange::Update {
                            user,
                            link,
                            role,
                            email,
                            display_name,
                        } => {
                            if let Some(identity) = link {
                                sqlx::query(INSERT_IDENTITY)
                                    .bind(identity.provider_id.as_str())
                                    .bind(&identity.subject)
                                    .bind(identity.user_id.as_str())
                                    .bind(identity.created_at)
                                    .execute(&mut *tx)
                                    .await?;
                            }
                            // Write first (see `change_admins`): lock the realm's admins, change,
                            // and refuse a change that leaves none enabled.
                            let admins_before =
                                sqlx::query($crate::storage::accounts::LOCK_ACTIVE_ADMINS)
                                    .bind(user.as_str())
                                    .execute(&mut *tx)
                                    .await?
                                    .rows_affected();
                            let n = sqlx::query(UPDATE_SSO_USER)
                                .bind(role.as_str())
                                .bind(email.as_str())
                                .bind(display_name)
                                .bind(at)
                                .bind(user.as_str())
                                .execute(&mut *tx)
                                .await?
                                .rows_affected();
                            let admins_after: i64 =
                                sqlx::query_scalar($crate::storage::accounts::COUNT_ACTIVE_ADMINS)
                                    .bind(user.as_str())
                                    .fetch_one(&mut *tx)
                                    .await?;
                            if n == 0 {
                                tx.rollback().await?;
                                return Err(StorageError::NotFound);
                            }
                            if admins_before > 0 && admins_after == 0 {
                                tx.rollback().await?;
                                return Err(StorageError::Precondition(
                                    $crate::storage::accounts::LAST_ADMIN,
                                ));
                            }
                        }
                        SsoAccountChange::EndSessions(user) => {
                            sqlx::query(END_USER_SESSIONS)
                                .bind(at)
                                .bind(user.as_str())
                                .execute(&mut *tx)
                                .await?;
                        }
                    }
                    for event in events {
                        insert_audit(&mut tx, event).await?;
                    }
                    tx.commit().await?;
                    Ok(())
                }
            }
        };
    };
}
