//! Console-account persistence: users and one-time links.
use crate::accounts::{Email, OneTimeLink, User, UserId};
use crate::audit::NewAuditEvent;
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::paging::{Page, Paged};
use crate::policy::Role;
use crate::realms::RealmId;
use async_trait::async_trait;

/// What [`AccountStore::set_user_role`] and [`AccountStore::set_user_disabled`] refuse with
/// [`StorageError::Precondition`].
pub const LAST_ADMIN: &str = "the realm would have no enabled admin";

/// Console-account persistence.
#[async_trait]
pub trait AccountStore: Send + Sync {
    /// Inserts a user, optionally its first set-password link, and the audit event in one
    /// transaction; `Conflict` if the email is taken in the realm.
    async fn insert_user(
        &self,
        user: &User,
        link: Option<&OneTimeLink>,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Finds a user by id.
    async fn find_user(&self, id: &UserId) -> Result<Option<User>, StorageError>;
    /// Finds a user by email within a realm.
    async fn find_user_by_email(
        &self,
        realm_id: &RealmId,
        email: &Email,
    ) -> Result<Option<User>, StorageError>;
    /// Lists users of a realm whose email or display name contains `query` (case-insensitive),
    /// ordered by email.
    async fn list_users(
        &self,
        realm_id: &RealmId,
        query: Option<&str>,
        page: Page,
    ) -> Result<Paged<User>, StorageError>;
    /// Number of users in all realms.
    async fn count_users(&self) -> Result<u64, StorageError>;
    /// Sets a user's role (and nothing else, so a concurrent change of another field is never
    /// undone) with the audit event; `NotFound` if the user is gone. Refused with
    /// `Precondition` ([`LAST_ADMIN`]), and rolled back, when the realm had an enabled admin
    /// before the change and has none after it: the check runs inside the transaction, with the
    /// realm's admin rows locked, so concurrent demotions cannot both pass.
    async fn set_user_role(
        &self,
        user: &UserId,
        role: Role,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Disables or enables a user, with the same last-admin rule as [`Self::set_user_role`].
    async fn set_user_disabled(
        &self,
        user: &UserId,
        disabled: bool,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Sets a new password hash and bumps the credential version (ending the user's other
    /// sessions), only if the version is still `expected_version`; returns `false` (nothing
    /// written) when it moved on meanwhile (another password change or a reset) or the user
    /// is gone.
    async fn set_user_password(
        &self,
        user: &UserId,
        password_hash: &str,
        expected_version: i64,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
    /// Stores a one-time link, superseding earlier unused links of the same purpose (and user),
    /// with its audit event.
    async fn insert_link(
        &self,
        link: &OneTimeLink,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Finds an unused, unexpired link by token hash.
    async fn find_active_link(
        &self,
        token_hash: &[u8],
        now: UnixTime,
    ) -> Result<Option<OneTimeLink>, StorageError>;
    /// Consumes a setup link and creates the first user, atomically; returns `false` (and
    /// changes nothing) if the link is no longer usable or a user already exists.
    async fn complete_setup(
        &self,
        token_hash: &[u8],
        now: UnixTime,
        user: &User,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
    /// Consumes a password-reset link for `user_id`, sets the new password hash and bumps the
    /// credential version (ending the user's sessions), atomically; returns `false` (and
    /// changes nothing) if the link is no longer usable.
    async fn reset_password(
        &self,
        token_hash: &[u8],
        user_id: &UserId,
        password_hash: &str,
        now: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
}

pub(super) const USER_COLUMNS: &str = "id, realm_id, email, display_name, password_hash, role, disabled, credential_version, created_at, updated_at, break_glass, \
    (SELECT sp.display_name FROM user_identities ui JOIN sso_providers sp ON sp.id = ui.provider_id WHERE ui.user_id = users.id) AS sso_provider, \
    (SELECT t.confirmed_at FROM user_totp t WHERE t.user_id = users.id) AS second_factor_since";
pub(super) const INSERT_USER: &str = "INSERT INTO users (id, realm_id, email, display_name, password_hash, role, disabled, credential_version, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
/// A demoted admin stops being break-glass.
pub(super) const SET_ROLE: &str = "UPDATE users SET role = $1, break_glass = CASE WHEN role = 'admin' AND $1 = 'admin' THEN break_glass ELSE FALSE END, updated_at = $2 WHERE id = $3";
pub(super) const SET_DISABLED: &str =
    "UPDATE users SET disabled = $1, updated_at = $2 WHERE id = $3";
pub(super) const CHANGE_PASSWORD: &str = "UPDATE users SET password_hash = $1, credential_version = credential_version + 1, updated_at = $2 WHERE id = $3 AND credential_version = $4";
pub(super) const COUNT_USERS: &str = "SELECT COUNT(*) FROM users";
/// Touches (and so locks, on PostgreSQL; on SQLite this first write takes the database lock,
/// before anything is read) the enabled admins of a user's realm; its row count is their number.
pub(super) const LOCK_ACTIVE_ADMINS: &str = "UPDATE users SET updated_at = updated_at WHERE realm_id = (SELECT realm_id FROM users WHERE id = $1) AND role = 'admin' AND disabled = FALSE";
pub(super) const COUNT_ACTIVE_ADMINS: &str = "SELECT COUNT(*) FROM users WHERE realm_id = (SELECT realm_id FROM users WHERE id = $1) AND role = 'admin' AND disabled = FALSE";
pub(super) const LINK_COLUMNS: &str =
    "token_hash, realm_id, user_id, purpose, created_at, expires_at";
pub(super) const INSERT_LINK: &str = "INSERT INTO user_links (token_hash, realm_id, user_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)";
pub(super) const SUPERSEDE_SETUP_LINKS: &str =
    "UPDATE user_links SET used_at = $1 WHERE purpose = 'setup' AND used_at IS NULL";
pub(super) const SUPERSEDE_RESET_LINKS: &str = "UPDATE user_links SET used_at = $1 WHERE purpose = 'password_reset' AND user_id = $2 AND used_at IS NULL";
pub(super) const CONSUME_SETUP_LINK: &str = "UPDATE user_links SET used_at = $1 WHERE token_hash = $2 AND purpose = 'setup' AND used_at IS NULL AND expires_at > $1";
pub(super) const CONSUME_RESET_LINK: &str = "UPDATE user_links SET used_at = $1 WHERE token_hash = $2 AND user_id = $3 AND purpose = 'password_reset' AND used_at IS NULL AND expires_at > $1";
pub(super) const SET_PASSWORD: &str = "UPDATE users SET password_hash = $1, credential_version = credential_version + 1, updated_at = $2 WHERE id = $3";

/// The precondition a change fails when it would leave password sign-in off without an enabled
/// break-glass admin who has a password.
pub const NO_BREAK_GLASS: &str = "password sign-in is off and no break-glass admin would remain";
pub(super) const PASSWORD_SIGN_IN: &str =
    "SELECT password_sign_in FROM console_sign_in WHERE id = 1";
pub(super) const COUNT_BREAK_GLASS: &str = "SELECT COUNT(*) FROM users WHERE role = 'admin' AND disabled = FALSE AND break_glass = TRUE AND password_hash IS NOT NULL";

/// Whether a change inside a transaction (`$conn`, a `&mut` connection) leaves a way in:
/// password sign-in for everyone, or an enabled break-glass admin with a password. An
/// expression for `async` bodies that return `Result<_, StorageError>`.
macro_rules! break_glass_remains {
    ($conn:expr) => {{
        let mode: Option<String> = sqlx::query_scalar($crate::storage::accounts::PASSWORD_SIGN_IN)
            .fetch_optional(&mut *$conn)
            .await?;
        if mode.as_deref() == Some("break_glass") {
            let n: i64 = sqlx::query_scalar($crate::storage::accounts::COUNT_BREAK_GLASS)
                .fetch_one(&mut *$conn)
                .await?;
            n > 0
        } else {
            true
        }
    }};
}

/// Implements [`AccountStore`] for one backend's store.
macro_rules! account_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::accounts::{Email, LinkPurpose, OneTimeLink, User, UserId};
            use $crate::audit::NewAuditEvent;
            use $crate::policy::Role;
            use $crate::clock::UnixTime;
            use $crate::error::StorageError;
            use $crate::realms::RealmId;
            use $crate::storage::rows::{LinkRow, UserRow};
            use $crate::storage::accounts::*;
            use $crate::paging::{Page, Paged};

            async fn insert_user_row(
                conn: &mut <$db as sqlx::Database>::Connection,
                user: &User,
            ) -> Result<(), StorageError> {
                sqlx::query(INSERT_USER)
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
                    .execute(conn)
                    .await?;
                Ok(())
            }

            async fn insert_link_row(
                conn: &mut <$db as sqlx::Database>::Connection,
                link: &OneTimeLink,
            ) -> Result<(), StorageError> {
                sqlx::query(INSERT_LINK)
                    .bind(&link.token_hash)
                    .bind(link.realm_id.as_str())
                    .bind(link.user_id.as_ref().map(UserId::as_str))
                    .bind(link.purpose.as_str())
                    .bind(link.created_at)
                    .bind(link.expires_at)
                    .execute(conn)
                    .await?;
                Ok(())
            }

            /// Ends a console account's sign-ins to apps (it may sign in at the default realm's
            /// authorization endpoint): its sessions there go, its token families are revoked.
            async fn end_user_sign_ins(
                conn: &mut <$db as sqlx::Database>::Connection,
                user: &UserId,
                at: UnixTime,
                why: &str,
            ) -> Result<(), StorageError> {
                sqlx::query($crate::storage::people::END_SUBJECT_SESSIONS)
                    .bind(user.as_str())
                    .execute(&mut *conn)
                    .await?;
                sqlx::query($crate::storage::authorize::KILL_SUBJECT_CODES)
                    .bind(user.as_str())
                    .execute(&mut *conn)
                    .await?;
                sqlx::query($crate::storage::people::REVOKE_SUBJECT_FAMILIES)
                    .bind(at)
                    .bind(why)
                    .bind(user.as_str())
                    .execute(&mut *conn)
                    .await?;
                Ok(())
            }

            #[async_trait::async_trait]
            impl AccountStore for $store {
                async fn insert_user(
                    &self,
                    user: &User,
                    link: Option<&OneTimeLink>,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    insert_user_row(&mut tx, user).await?;
                    if let Some(link) = link {
                        insert_link_row(&mut tx, link).await?;
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn find_user(&self, id: &UserId) -> Result<Option<User>, StorageError> {
                    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1");
                    sqlx::query_as::<_, UserRow>(&sql)
                        .bind(id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(User::try_from)
                        .transpose()
                }

                async fn find_user_by_email(
                    &self,
                    realm_id: &RealmId,
                    email: &Email,
                ) -> Result<Option<User>, StorageError> {
                    let sql = format!(
                        "SELECT {USER_COLUMNS} FROM users WHERE realm_id = $1 AND email = $2"
                    );
                    sqlx::query_as::<_, UserRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(email.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(User::try_from)
                        .transpose()
                }

                async fn list_users(
                    &self,
                    realm_id: &RealmId,
                    query: Option<&str>,
                    page: Page,
                ) -> Result<Paged<User>, StorageError> {
                    let search = Search {
                        table: "users",
                        columns: USER_COLUMNS,
                        fields: ["email", "display_name"],
                        order: "email",
                        trigrams: None,
                    };
                    search
                        .page::<UserRow>(
                            &self.pool,
                            realm_id.as_str(),
                            query,
                            &page,
                            &|_| {},
                            |r: &UserRow| r.email.clone(),
                        )
                        .await?
                        .try_map(User::try_from)
                }

                async fn count_users(&self) -> Result<u64, StorageError> {
                    let n: i64 = sqlx::query_scalar(COUNT_USERS).fetch_one(&self.pool).await?;
                    Ok(u64::try_from(n).unwrap_or(0))
                }

                async fn set_user_role(
                    &self,
                    user: &UserId,
                    role: Role,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let q = sqlx::query(SET_ROLE).bind(role.as_str());
                    self.change_admins(user, event, q.bind(updated_at).bind(user.as_str()), None).await
                }

                async fn set_user_disabled(
                    &self,
                    user: &UserId,
                    disabled: bool,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let q = sqlx::query(SET_DISABLED).bind(disabled);
                    // A disabled account also stops signing in to apps (the default realm's
                    // authorization endpoint): its sessions end, its token families are revoked.
                    let ends = disabled.then_some((updated_at, "user_disabled"));
                    self.change_admins(user, event, q.bind(updated_at).bind(user.as_str()), ends)
                        .await
                }

                async fn set_user_password(
                    &self,
                    user: &UserId,
                    password_hash: &str,
                    expected_version: i64,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<bool, StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(CHANGE_PASSWORD)
                        .bind(password_hash)
                        .bind(updated_at)
                        .bind(user.as_str())
                        .bind(expected_version)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        return Ok(false);
                    }
                    end_user_sign_ins(&mut tx, user, updated_at, "password_set").await?;
                    self.commit_uncached(tx, event).await?;
                    Ok(true)
                }

                async fn insert_link(
                    &self,
                    link: &OneTimeLink,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    match link.purpose {
                        LinkPurpose::Setup => {
                            sqlx::query(SUPERSEDE_SETUP_LINKS)
                                .bind(link.created_at)
                                .execute(&mut *tx)
                                .await?;
                        }
                        LinkPurpose::PasswordReset => {
                            sqlx::query(SUPERSEDE_RESET_LINKS)
                                .bind(link.created_at)
                                .bind(link.user_id.as_ref().map(UserId::as_str))
                                .execute(&mut *tx)
                                .await?;
                        }
                    }
                    insert_link_row(&mut tx, link).await?;
                    self.commit_uncached(tx, event).await
                }

                async fn find_active_link(
                    &self,
                    token_hash: &[u8],
                    now: UnixTime,
                ) -> Result<Option<OneTimeLink>, StorageError> {
                    let sql = format!(
                        "SELECT {LINK_COLUMNS} FROM user_links WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2"
                    );
                    sqlx::query_as::<_, LinkRow>(&sql)
                        .bind(token_hash)
                        .bind(now)
                        .fetch_optional(&self.pool)
                        .await?
                        .map(OneTimeLink::try_from)
                        .transpose()
                }

                async fn complete_setup(
                    &self,
                    token_hash: &[u8],
                    now: UnixTime,
                    user: &User,
                    event: &NewAuditEvent,
                ) -> Result<bool, StorageError> {
                    let mut tx = self.begin().await?;
                    let consumed = sqlx::query(CONSUME_SETUP_LINK)
                        .bind(now)
                        .bind(token_hash)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    let users: i64 = sqlx::query_scalar(COUNT_USERS).fetch_one(&mut *tx).await?;
                    if consumed != 1 || users != 0 {
                        // Dropping the transaction rolls it back: nothing is half-written.
                        return Ok(false);
                    }
                    insert_user_row(&mut tx, user).await?;
                    self.commit_uncached(tx, event).await?;
                    Ok(true)
                }

                async fn reset_password(
                    &self,
                    token_hash: &[u8],
                    user_id: &UserId,
                    password_hash: &str,
                    now: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<bool, StorageError> {
                    let mut tx = self.begin().await?;
                    let consumed = sqlx::query(CONSUME_RESET_LINK)
                        .bind(now)
                        .bind(token_hash)
                        .bind(user_id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if consumed != 1 {
                        return Ok(false);
                    }
                    sqlx::query(SET_PASSWORD)
                        .bind(password_hash)
                        .bind(now)
                        .bind(user_id.as_str())
                        .execute(&mut *tx)
                        .await?;
                    // A reset is how a taken-over account is recovered: whatever signed in to
                    // apps with the old password ends with it.
                    end_user_sign_ins(&mut tx, user_id, now, "password_reset").await?;
                    self.commit_uncached(tx, event).await?;
                    Ok(true)
                }
            }

            impl $store {
                /// Runs `change` (a one-row update of `user`) under the last-admin rule of
                /// [`AccountStore::set_user_role`].
                async fn change_admins<'q>(
                    &self,
                    user: &UserId,
                    event: &NewAuditEvent,
                    change: sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>>,
                    ends_sign_ins: Option<(UnixTime, &str)>,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    // Write first: on SQLite a transaction that read before writing could not
                    // take the write lock once another writer got it.
                    let admins_before = sqlx::query(LOCK_ACTIVE_ADMINS)
                        .bind(user.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    let n = change.execute(&mut *tx).await?.rows_affected();
                    let admins_after: i64 = sqlx::query_scalar(COUNT_ACTIVE_ADMINS)
                        .bind(user.as_str())
                        .fetch_one(&mut *tx)
                        .await?;
                    if admins_before > 0 && admins_after == 0 {
                        // Dropping the transaction rolls the change back.
                        return Err(StorageError::Precondition(LAST_ADMIN));
                    }
                    if !break_glass_remains!(tx) {
                        tx.rollback().await?;
                        return Err(StorageError::Precondition(
                            $crate::storage::accounts::NO_BREAK_GLASS,
                        ));
                    }
                    if let (1, Some((at, why))) = (n, ends_sign_ins) {
                        end_user_sign_ins(&mut tx, user, at, why).await?;
                    }
                    self.commit_one_uncached(tx, n, event).await
                }
            }
        };
    };
}
