//! Second-factor persistence: the per-role policy, each account's authenticator and its
//! recovery codes.
use crate::audit::NewAuditEvent;
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::ids::UserId;
use crate::second_factor::StoredTotp;
use async_trait::async_trait;

/// Second-factor persistence.
#[async_trait]
pub trait SecondFactorStore: Send + Sync {
    /// The roles that must sign in with a second factor (stored form).
    async fn second_factor_roles(&self) -> Result<String, StorageError>;
    /// Replaces them, with the audit event.
    async fn set_second_factor_roles(
        &self,
        roles: &str,
        at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// An account's authenticator.
    async fn find_totp(&self, user: &UserId) -> Result<Option<StoredTotp>, StorageError>;
    /// Stores an account's authenticator, confirmed by a first code for `step`, and replaces its
    /// recovery codes, with the audit events. `Conflict` when the account has one already (set
    /// up meanwhile elsewhere).
    async fn insert_totp(
        &self,
        user: &UserId,
        sealed_secret: &[u8],
        step: i64,
        recovery_code_hashes: &[String],
        at: UnixTime,
        events: &[&NewAuditEvent],
    ) -> Result<(), StorageError>;
    /// Accepts a code for `step` when it is newer than every code accepted before, with the
    /// audit event; `false` (nothing written) when it is not.
    async fn accept_totp_step(
        &self,
        user: &UserId,
        step: i64,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
    /// Uses a recovery code, with the audit event; `false` (nothing written) when the account
    /// has no such unused code.
    async fn use_recovery_code(
        &self,
        user: &UserId,
        code_hash: &str,
        at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
    /// Unused recovery codes of an account.
    async fn recovery_codes_left(&self, user: &UserId) -> Result<u32, StorageError>;
    /// Replaces an account's recovery codes (it must have a confirmed authenticator), with the
    /// audit event; `Conflict` when it has none.
    async fn replace_recovery_codes(
        &self,
        user: &UserId,
        code_hashes: &[String],
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Removes an account's authenticator and recovery codes, with the audit event; with
    /// `end_sessions` its sessions end too. `NotFound` when the account is gone.
    async fn remove_second_factor(
        &self,
        user: &UserId,
        end_sessions: bool,
        at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
}

pub(super) const SECOND_FACTOR_ROLES: &str =
    "SELECT second_factor_roles FROM console_sign_in WHERE id = 1";
pub(super) const SET_SECOND_FACTOR_ROLES: &str =
    "UPDATE console_sign_in SET second_factor_roles = $1, updated_at = $2 WHERE id = 1";
pub(super) const TOTP_COLUMNS: &str = "user_id, sealed_secret, confirmed_at, last_step";
/// An account's authenticator; one that exists already stays.
pub(super) const INSERT_TOTP: &str = "INSERT INTO user_totp (user_id, sealed_secret, confirmed_at, last_step, created_at) VALUES ($1, $2, $3, $4, $3) \
    ON CONFLICT (user_id) DO NOTHING";
pub(super) const ACCEPT_STEP: &str =
    "UPDATE user_totp SET last_step = $1 WHERE user_id = $2 AND last_step < $1";
pub(super) const DELETE_CODES: &str = "DELETE FROM user_recovery_codes WHERE user_id = $1";
pub(super) const INSERT_CODE: &str =
    "INSERT INTO user_recovery_codes (user_id, code_hash, used_at) VALUES ($1, $2, NULL)";
pub(super) const USE_CODE: &str = "UPDATE user_recovery_codes SET used_at = $1 WHERE user_id = $2 AND code_hash = $3 AND used_at IS NULL \
    AND EXISTS (SELECT 1 FROM user_totp t WHERE t.user_id = $2)";
pub(super) const CODES_LEFT: &str =
    "SELECT COUNT(*) FROM user_recovery_codes WHERE user_id = $1 AND used_at IS NULL";
pub(super) const HAS_CONFIRMED: &str = "SELECT COUNT(*) FROM user_totp WHERE user_id = $1";
pub(super) const DELETE_TOTP: &str = "DELETE FROM user_totp WHERE user_id = $1";
pub(super) const TOUCH_USER: &str = "UPDATE users SET updated_at = $1 WHERE id = $2";

#[derive(sqlx::FromRow)]
pub(crate) struct TotpRow {
    pub user_id: String,
    pub sealed_secret: Vec<u8>,
    pub confirmed_at: i64,
    pub last_step: i64,
}

impl From<TotpRow> for StoredTotp {
    fn from(r: TotpRow) -> Self {
        StoredTotp {
            user_id: UserId::from_stored(r.user_id),
            sealed_secret: r.sealed_secret,
            confirmed_at: r.confirmed_at,
            last_step: r.last_step,
        }
    }
}

/// Implements [`SecondFactorStore`] for one backend's store.
macro_rules! second_factor_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::clock::UnixTime;
            use $crate::error::StorageError;
            use $crate::ids::UserId;
            use $crate::second_factor::StoredTotp;
            use $crate::storage::second_factor::*;

            async fn insert_codes(
                tx: &mut sqlx::Transaction<'_, $db>,
                user: &UserId,
                hashes: &[String],
            ) -> Result<(), StorageError> {
                sqlx::query(DELETE_CODES)
                    .bind(user.as_str())
                    .execute(&mut **tx)
                    .await?;
                for h in hashes {
                    sqlx::query(INSERT_CODE)
                        .bind(user.as_str())
                        .bind(h)
                        .execute(&mut **tx)
                        .await?;
                }
                Ok(())
            }

            #[async_trait::async_trait]
            impl SecondFactorStore for $store {
                async fn second_factor_roles(&self) -> Result<String, StorageError> {
                    let roles: Option<String> = sqlx::query_scalar(SECOND_FACTOR_ROLES)
                        .fetch_optional(&self.pool)
                        .await?;
                    Ok(roles.unwrap_or_default())
                }

                async fn set_second_factor_roles(
                    &self,
                    roles: &str,
                    at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(SET_SECOND_FACTOR_ROLES)
                        .bind(roles)
                        .bind(at)
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await
                }

                async fn find_totp(
                    &self,
                    user: &UserId,
                ) -> Result<Option<StoredTotp>, StorageError> {
                    let row: Option<TotpRow> = sqlx::query_as(&format!(
                        "SELECT {TOTP_COLUMNS} FROM user_totp WHERE user_id = $1"
                    ))
                    .bind(user.as_str())
                    .fetch_optional(&self.pool)
                    .await?;
                    Ok(row.map(Into::into))
                }

                async fn insert_totp(
                    &self,
                    user: &UserId,
                    sealed_secret: &[u8],
                    step: i64,
                    recovery_code_hashes: &[String],
                    at: UnixTime,
                    events: &[&NewAuditEvent],
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(INSERT_TOTP)
                        .bind(user.as_str())
                        .bind(sealed_secret)
                        .bind(at)
                        .bind(step)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::Conflict("second factor".into()));
                    }
                    insert_codes(&mut tx, user, recovery_code_hashes).await?;
                    sqlx::query(TOUCH_USER)
                        .bind(at)
                        .bind(user.as_str())
                        .execute(&mut *tx)
                        .await?;
                    for e in events {
                        insert_audit(&mut tx, e).await?;
                    }
                    tx.commit().await?;
                    Ok(())
                }

                async fn accept_totp_step(
                    &self,
                    user: &UserId,
                    step: i64,
                    event: &NewAuditEvent,
                ) -> Result<bool, StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(ACCEPT_STEP)
                        .bind(step)
                        .bind(user.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                    self.commit_uncached(tx, event).await?;
                    Ok(true)
                }

                async fn use_recovery_code(
                    &self,
                    user: &UserId,
                    code_hash: &str,
                    at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<bool, StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(USE_CODE)
                        .bind(at)
                        .bind(user.as_str())
                        .bind(code_hash)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                    self.commit_uncached(tx, event).await?;
                    Ok(true)
                }

                async fn recovery_codes_left(&self, user: &UserId) -> Result<u32, StorageError> {
                    let n: i64 = sqlx::query_scalar(CODES_LEFT)
                        .bind(user.as_str())
                        .fetch_one(&self.pool)
                        .await?;
                    Ok(u32::try_from(n).unwrap_or(0))
                }

                async fn replace_recovery_codes(
                    &self,
                    user: &UserId,
                    code_hashes: &[String],
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let confirmed: i64 = sqlx::query_scalar(HAS_CONFIRMED)
                        .bind(user.as_str())
                        .fetch_one(&mut *tx)
                        .await?;
                    if confirmed == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::Conflict("second factor".into()));
                    }
                    insert_codes(&mut tx, user, code_hashes).await?;
                    self.commit_uncached(tx, event).await
                }

                async fn remove_second_factor(
                    &self,
                    user: &UserId,
                    end_sessions: bool,
                    at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(if end_sessions {
                        $crate::storage::sso::END_USER_SESSIONS
                    } else {
                        TOUCH_USER
                    })
                    .bind(at)
                    .bind(user.as_str())
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    sqlx::query(DELETE_TOTP)
                        .bind(user.as_str())
                        .execute(&mut *tx)
                        .await?;
                    sqlx::query(DELETE_CODES)
                        .bind(user.as_str())
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await
                }
            }
        };
    };
}
