//! Signing-key persistence.
use crate::audit::NewAuditEvent;
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::keys::{SigningAlg, StoredKey};
use crate::realms::RealmId;
use async_trait::async_trait;

/// Signing-key persistence. Unique partial indexes allow at most one `active` and one `next`
/// key per realm and algorithm.
#[async_trait]
pub trait KeyStore: Send + Sync {
    /// Inserts a realm's first `active` and `next` keys for an algorithm, and the audit event,
    /// in one transaction; `Conflict` (nothing written) when the realm has either already.
    async fn insert_signing_key_pair(
        &self,
        active: &StoredKey,
        next: &StoredKey,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// All keys of a realm, newest first.
    async fn list_signing_keys(&self, realm_id: &RealmId) -> Result<Vec<StoredKey>, StorageError>;
    /// Rotates the keys of one algorithm in one transaction: the active key retires (published
    /// until `publish_until`), the next key becomes active, and `new_next` is inserted as next.
    /// `NotFound` if the realm has no active and next key for that algorithm.
    async fn rotate_signing_keys(
        &self,
        realm_id: &RealmId,
        alg: SigningAlg,
        new_next: &StoredKey,
        publish_until: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// The master key's check value (a constant sealed under it), if one is set.
    async fn master_key_check(&self) -> Result<Option<Vec<u8>>, StorageError>;
    /// Sets the check value unless one is set already (two instances starting at once: the
    /// first wins), and returns the value that is set.
    async fn init_master_key_check(
        &self,
        sealed: &[u8],
        now: UnixTime,
    ) -> Result<Vec<u8>, StorageError>;
    /// Some sealed signing key (realm, kid, sealed private key), to check a master key against
    /// a database set up before check values existed.
    async fn any_sealed_signing_key(
        &self,
    ) -> Result<Option<(String, String, Vec<u8>)>, StorageError>;
}

pub(super) const MASTER_KEY_CHECK: &str = "SELECT sealed FROM master_key_check WHERE id = 1";
pub(super) const INIT_MASTER_KEY_CHECK: &str = "INSERT INTO master_key_check (id, sealed, created_at) VALUES (1, $1, $2) ON CONFLICT (id) DO NOTHING";
pub(super) const ANY_SEALED_KEY: &str =
    "SELECT realm_id, kid, sealed_private_key FROM signing_keys ORDER BY created_at, kid LIMIT 1";

pub(super) const KEY_COLUMNS: &str = "kid, realm_id, alg, state, public_jwk, sealed_private_key, created_at, activated_at, retired_at, publish_until";
pub(super) const INSERT_KEY: &str = "INSERT INTO signing_keys (kid, realm_id, alg, state, public_jwk, sealed_private_key, created_at, activated_at, retired_at, publish_until) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
pub(super) const RETIRE_ACTIVE_KEY: &str = "UPDATE signing_keys SET state = 'retired', retired_at = $1, publish_until = $2 WHERE realm_id = $3 AND alg = $4 AND state = 'active'";
pub(super) const ACTIVATE_NEXT_KEY: &str = "UPDATE signing_keys SET state = 'active', activated_at = $1 WHERE realm_id = $2 AND alg = $3 AND state = 'next'";

/// Implements [`KeyStore`] for one backend's store.
macro_rules! key_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::clock::UnixTime;
            use $crate::error::StorageError;
            use $crate::keys::{SigningAlg, StoredKey};
            use $crate::realms::RealmId;
            use $crate::storage::keys::*;
            use $crate::storage::rows::KeyRow;

            async fn insert_key_row(
                conn: &mut <$db as sqlx::Database>::Connection,
                k: &StoredKey,
            ) -> Result<(), StorageError> {
                sqlx::query(INSERT_KEY)
                    .bind(&k.kid)
                    .bind(k.realm_id.as_str())
                    .bind(k.alg.as_str())
                    .bind(k.state.as_str())
                    .bind(k.public_jwk.to_string())
                    .bind(&k.sealed_private_key)
                    .bind(k.created_at)
                    .bind(k.activated_at)
                    .bind(k.retired_at)
                    .bind(k.publish_until)
                    .execute(conn)
                    .await?;
                Ok(())
            }

            #[async_trait::async_trait]
            impl KeyStore for $store {
                async fn insert_signing_key_pair(
                    &self,
                    active: &StoredKey,
                    next: &StoredKey,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    insert_key_row(&mut tx, active).await?;
                    insert_key_row(&mut tx, next).await?;
                    self.commit(tx, event).await
                }

                async fn list_signing_keys(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Vec<StoredKey>, StorageError> {
                    let sql = format!("SELECT {KEY_COLUMNS} FROM signing_keys WHERE realm_id = $1 ORDER BY created_at DESC, kid");
                    sqlx::query_as::<_, KeyRow>(&sql)
                        .bind(realm_id.as_str())
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(StoredKey::try_from)
                        .collect()
                }

                async fn rotate_signing_keys(
                    &self,
                    realm_id: &RealmId,
                    alg: SigningAlg,
                    new_next: &StoredKey,
                    publish_until: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let now = new_next.created_at;
                    let mut tx = self.begin().await?;
                    let retired = sqlx::query(RETIRE_ACTIVE_KEY)
                        .bind(now)
                        .bind(publish_until)
                        .bind(realm_id.as_str())
                        .bind(alg.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    let activated = sqlx::query(ACTIVATE_NEXT_KEY)
                        .bind(now)
                        .bind(realm_id.as_str())
                        .bind(alg.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if retired != 1 || activated != 1 {
                        return Err(StorageError::NotFound);
                    }
                    insert_key_row(&mut tx, new_next).await?;
                    self.commit(tx, event).await
                }

                async fn master_key_check(&self) -> Result<Option<Vec<u8>>, StorageError> {
                    Ok(sqlx::query_scalar::<_, Vec<u8>>(MASTER_KEY_CHECK)
                        .fetch_optional(&self.pool)
                        .await?)
                }

                async fn init_master_key_check(
                    &self,
                    sealed: &[u8],
                    now: UnixTime,
                ) -> Result<Vec<u8>, StorageError> {
                    sqlx::query(INIT_MASTER_KEY_CHECK)
                        .bind(sealed)
                        .bind(now)
                        .execute(&self.pool)
                        .await?;
                    Ok(sqlx::query_scalar::<_, Vec<u8>>(MASTER_KEY_CHECK)
                        .fetch_one(&self.pool)
                        .await?)
                }

                async fn any_sealed_signing_key(
                    &self,
                ) -> Result<Option<(String, String, Vec<u8>)>, StorageError> {
                    Ok(sqlx::query_as::<_, (String, String, Vec<u8>)>(ANY_SEALED_KEY)
                        .fetch_optional(&self.pool)
                        .await?)
                }
            }
        };
    };
}
