//! Token-path persistence: used client-assertion `jti`s (RFC 7523) and revoked access tokens,
//! each kept only while it can matter.
use crate::audit::NewAuditEvent;
use crate::clients::ClientId;
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::realms::RealmId;
use async_trait::async_trait;

/// What one purge removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Purged {
    /// Revoked-token entries past the token's expiry (an expired token is refused anyway).
    pub revoked_tokens: u64,
    /// Used client-assertion and ID-JAG `jti`s past the time their assertion could be
    /// accepted.
    pub assertion_jtis: u64,
    /// Sign-in sessions, authorization codes and token families past their end.
    pub flows: u64,
    /// Self-registered clients that expired unused (kept, in state `expired`).
    pub clients_expired: u64,
}

/// Token-path persistence.
#[async_trait]
pub trait TokenStore: Send + Sync {
    /// Records an assertion's `jti` until `expires_at`; `false` if it was recorded before (a
    /// replay).
    async fn consume_assertion_jti(
        &self,
        realm_id: &RealmId,
        client_id: &ClientId,
        jti: &str,
        expires_at: UnixTime,
    ) -> Result<bool, StorageError>;
    /// Remembers a revoked token with its audit event; `false` (and no audit row) when it was
    /// revoked already, so repeating a revocation writes nothing.
    async fn insert_revoked_token(
        &self,
        realm_id: &RealmId,
        jti: &str,
        expires_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
    /// Whether a token was revoked.
    async fn is_token_revoked(&self, realm_id: &RealmId, jti: &str) -> Result<bool, StorageError>;
    /// Which of `jtis` (at most a few hundred) are revoked in the realm.
    async fn revoked_among(
        &self,
        realm_id: &RealmId,
        jtis: &[&str],
    ) -> Result<Vec<String>, StorageError>;
    /// Deletes revocations of tokens expired by `now` and `jti`s whose assertions can no
    /// longer be accepted.
    async fn purge_expired(&self, now: UnixTime) -> Result<Purged, StorageError>;
}

pub(super) const INSERT_JTI: &str = "INSERT INTO client_assertion_jtis (realm_id, client_id, jti, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (realm_id, client_id, jti) DO NOTHING";
pub(super) const INSERT_REVOKED: &str = "INSERT INTO revoked_tokens (realm_id, jti, expires_at) VALUES ($1, $2, $3) ON CONFLICT (realm_id, jti) DO NOTHING";
pub(super) const IS_REVOKED: &str =
    "SELECT COUNT(*) FROM revoked_tokens WHERE realm_id = $1 AND jti = $2";
pub(super) const PURGE_REVOKED: &str = "DELETE FROM revoked_tokens WHERE expires_at <= $1";
pub(super) const PURGE_JTIS: &str = "DELETE FROM client_assertion_jtis WHERE expires_at <= $1";
pub(super) const PURGE_ID_JAG_JTIS: &str =
    "DELETE FROM identity_assertion_jtis WHERE expires_at <= $1";

/// Implements [`TokenStore`] for one backend's store.
macro_rules! token_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::clients::ClientId;
            use $crate::clock::UnixTime;
            use $crate::error::StorageError;
            use $crate::realms::RealmId;
            use $crate::storage::tokens::*;

            #[async_trait::async_trait]
            impl TokenStore for $store {
                async fn consume_assertion_jti(
                    &self,
                    realm_id: &RealmId,
                    client_id: &ClientId,
                    jti: &str,
                    expires_at: UnixTime,
                ) -> Result<bool, StorageError> {
                    // A row that expired but was not purged yet still refuses its jti: harmless,
                    // since an assertion that old is refused on its times anyway.
                    let n = sqlx::query(INSERT_JTI)
                        .bind(realm_id.as_str())
                        .bind(client_id.as_str())
                        .bind(jti)
                        .bind(expires_at)
                        .execute(&self.pool)
                        .await?
                        .rows_affected();
                    Ok(n == 1)
                }

                async fn insert_revoked_token(
                    &self,
                    realm_id: &RealmId,
                    jti: &str,
                    expires_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<bool, StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(INSERT_REVOKED)
                        .bind(realm_id.as_str())
                        .bind(jti)
                        .bind(expires_at)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        return Ok(false);
                    }
                    // Nothing caches revocations: they are read on every introspection.
                    self.commit_uncached(tx, event).await?;
                    Ok(true)
                }

                async fn is_token_revoked(
                    &self,
                    realm_id: &RealmId,
                    jti: &str,
                ) -> Result<bool, StorageError> {
                    let n: i64 = sqlx::query_scalar(IS_REVOKED)
                        .bind(realm_id.as_str())
                        .bind(jti)
                        .fetch_one(&self.pool)
                        .await?;
                    Ok(n > 0)
                }

                async fn revoked_among(
                    &self,
                    realm_id: &RealmId,
                    jtis: &[&str],
                ) -> Result<Vec<String>, StorageError> {
                    if jtis.is_empty() {
                        return Ok(Vec::new());
                    }
                    let mut qb =
                        sqlx::QueryBuilder::new("SELECT jti FROM revoked_tokens WHERE realm_id = ");
                    qb.push_bind(realm_id.as_str()).push(" AND jti IN (");
                    let mut list = qb.separated(", ");
                    for jti in jtis {
                        list.push_bind(*jti);
                    }
                    qb.push(")");
                    Ok(qb.build_query_scalar().fetch_all(&self.pool).await?)
                }

                async fn purge_expired(&self, now: UnixTime) -> Result<Purged, StorageError> {
                    let revoked_tokens = sqlx::query(PURGE_REVOKED)
                        .bind(now)
                        .execute(&self.pool)
                        .await?
                        .rows_affected();
                    let assertion_jtis = sqlx::query(PURGE_JTIS)
                        .bind(now)
                        .execute(&self.pool)
                        .await?
                        .rows_affected()
                        + sqlx::query(PURGE_ID_JAG_JTIS)
                            .bind(now)
                            .execute(&self.pool)
                            .await?
                            .rows_affected();
                    Ok(Purged {
                        revoked_tokens,
                        assertion_jtis,
                        flows: 0,
                        clients_expired: 0,
                    })
                }
            }
        };
    };
}
