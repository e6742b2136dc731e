//! Protected-resource persistence.
use crate::audit::NewAuditEvent;
use crate::error::StorageError;
use crate::realms::RealmId;
use crate::resources::{Resource, ResourceId, ResourceUri};
use async_trait::async_trait;

/// Protected-resource persistence.
#[async_trait]
pub trait ResourceStore: Send + Sync {
    /// Sets a resource's access policy (nothing else) with the audit event; `NotFound` if gone.
    async fn set_resource_policy(
        &self,
        id: &crate::ids::ResourceId,
        policy: &crate::resources::AccessPolicy,
        updated_at: crate::clock::UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Inserts a resource; `Conflict` if its slug or URI is taken in the realm.
    async fn insert_resource(
        &self,
        r: &Resource,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Inserts a developer's submission (`r.submitted_by` set) if fewer than the limits wait
    /// for an admin, counted in the insert's transaction with the realm locked, so concurrent
    /// submissions cannot pass them; `Precondition` ([`TOO_MANY_OF_YOURS`],
    /// [`TOO_MANY_IN_REALM`]) otherwise, `Conflict` as [`ResourceStore::insert_resource`].
    async fn insert_submission(
        &self,
        r: &Resource,
        limits: SubmissionLimits,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Finds a resource by slug.
    async fn find_resource(
        &self,
        realm_id: &RealmId,
        slug: &str,
    ) -> Result<Option<Resource>, StorageError>;
    /// Finds a resource by id within a realm.
    async fn find_resource_by_id(
        &self,
        realm_id: &RealmId,
        id: &ResourceId,
    ) -> Result<Option<Resource>, StorageError>;
    /// Finds a resource by canonical URI.
    async fn find_resource_by_uri(
        &self,
        realm_id: &RealmId,
        uri: &ResourceUri,
    ) -> Result<Option<Resource>, StorageError>;
    /// All resources of a realm by slug.
    async fn list_resources(&self, realm_id: &RealmId) -> Result<Vec<Resource>, StorageError>;
    /// The longest access-token lifetime a resource of the realm sets for itself (`None` when
    /// none sets one: they use the realm's default).
    async fn max_resource_token_ttl(&self, realm_id: &RealmId)
    -> Result<Option<i64>, StorageError>;
    /// Writes the settings (every mutable field but `enabled`, which `set_resource_enabled`
    /// writes); `NotFound` if gone, `Conflict` on a taken URI.
    async fn update_resource(
        &self,
        r: &Resource,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Enables or disables a resource (and ends a developer's submission: an admin decided);
    /// `NotFound` if gone.
    async fn set_resource_enabled(
        &self,
        id: &ResourceId,
        enabled: bool,
        updated_at: crate::clock::UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Rejects a submission that waits for an admin, with the reason its developer sees;
    /// `NotFound` if gone, decided or rejected already.
    async fn reject_submission(
        &self,
        id: &ResourceId,
        reason: &str,
        updated_at: crate::clock::UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Deletes a resource and its introspection credentials; `NotFound` if gone. With
    /// `submitted_by`, only while it is that person's submission waiting for an admin and
    /// nothing refers to it (grants, introspection credentials, the realm's default):
    /// `NotFound` otherwise.
    async fn delete_resource(
        &self,
        id: &ResourceId,
        submitted_by: Option<&str>,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
}

/// The most submissions that may wait for an admin.
#[derive(Debug, Clone, Copy)]
pub struct SubmissionLimits {
    /// Per developer.
    pub per_person: usize,
    /// Per realm.
    pub per_realm: usize,
}

/// A submission refused: its developer has [`SubmissionLimits::per_person`] waiting.
pub const TOO_MANY_OF_YOURS: &str = "too many submissions by this person wait for an admin";
/// A submission refused: the realm has [`SubmissionLimits::per_realm`] waiting.
pub const TOO_MANY_IN_REALM: &str = "too many submissions wait for an admin in this realm";

/// Touches the realm's row: on PostgreSQL this locks it until the transaction ends (SQLite's
/// transactions hold the write lock from their start).
pub(super) const LOCK_REALM: &str = "UPDATE realms SET updated_at = updated_at WHERE id = $1";
pub(super) const COUNT_SUBMISSIONS: &str = "SELECT COUNT(*), COUNT(CASE WHEN submitted_by = $2 THEN 1 END) FROM resources WHERE realm_id = $1 AND submitted_by IS NOT NULL";
pub(super) const RESOURCE_COLUMNS: &str = "id, realm_id, slug, display_name, uri, scopes, token_ttl_secs, signing_alg, enabled, consent_policy, people_roles, default_scopes, open_to_self_registered, submitted_by, rejection, created_at, updated_at";
pub(super) const SET_RESOURCE_POLICY: &str = "UPDATE resources SET consent_policy = $1, people_roles = $2, default_scopes = $3, open_to_self_registered = $4, updated_at = $5 WHERE id = $6";
pub(super) const INSERT_RESOURCE: &str = "INSERT INTO resources (id, realm_id, slug, display_name, uri, scopes, token_ttl_secs, signing_alg, enabled, submitted_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";
/// A settings write: everything but the enabled flag, which has its own write.
pub(super) const UPDATE_RESOURCE: &str = "UPDATE resources SET display_name = $1, uri = $2, scopes = $3, token_ttl_secs = $4, signing_alg = $5, updated_at = $6 WHERE id = $7";
/// An admin's decision either way ends a developer's submission.
pub(super) const SET_RESOURCE_ENABLED: &str = "UPDATE resources SET enabled = $1, submitted_by = NULL, rejection = NULL, updated_at = $2 WHERE id = $3";
/// Only a submission still waiting: rejected once, decided otherwise by an admin's enable.
pub(super) const REJECT_SUBMISSION: &str = "UPDATE resources SET rejection = $1, updated_at = $2 WHERE id = $3 AND submitted_by IS NOT NULL AND rejection IS NULL";
pub(super) const DELETE_RESOURCE_SERVER_CLIENTS: &str =
    "DELETE FROM clients WHERE resource_server_for = $1";
pub(super) const DELETE_RESOURCE: &str = "DELETE FROM resources WHERE id = $1";
/// A waiting submission nothing else refers to yet: once an admin has granted clients access,
/// given it introspection credentials or made it the realm's default, only an admin deletes it.
pub(super) const DELETE_SUBMISSION: &str = "DELETE FROM resources WHERE id = $1 AND submitted_by = $2 \
    AND NOT EXISTS (SELECT 1 FROM client_grants WHERE resource_id = $1) \
    AND NOT EXISTS (SELECT 1 FROM clients WHERE resource_server_for = $1) \
    AND NOT EXISTS (SELECT 1 FROM realms WHERE default_resource_id = $1)";

/// Implements [`ResourceStore`] for one backend's store.
macro_rules! resource_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::error::StorageError;
            use $crate::keys::SigningAlg;
            use $crate::realms::RealmId;
            use $crate::resources::{Resource, ResourceId, ResourceUri};
            use $crate::storage::resources::*;
            use $crate::storage::rows::ResourceRow;

            fn bind_resource<'q>(
                q: sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>>,
                r: &'q Resource,
            ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
                q.bind(r.display_name.as_str())
                    .bind(r.uri.as_str())
                    .bind(r.scopes.to_string())
                    .bind(r.token_ttl_secs)
                    .bind(r.signing_alg.map(SigningAlg::as_str))
            }

            /// One realm's resource whose `column` (a fixed column name, never input) equals
            /// `value`.
            async fn resource_where(
                pool: &sqlx::Pool<$db>,
                realm_id: &RealmId,
                column: &'static str,
                value: &str,
            ) -> Result<Option<Resource>, StorageError> {
                let sql = format!(
                    "SELECT {RESOURCE_COLUMNS} FROM resources WHERE realm_id = $1 AND {column} = $2"
                );
                sqlx::query_as::<_, ResourceRow>(&sql)
                    .bind(realm_id.as_str())
                    .bind(value)
                    .fetch_optional(pool)
                    .await?
                    .map(Resource::try_from)
                    .transpose()
            }

            async fn insert_row(
                tx: &mut sqlx::Transaction<'_, $db>,
                r: &Resource,
            ) -> Result<(), StorageError> {
                let q = sqlx::query(INSERT_RESOURCE)
                    .bind(r.id.as_str())
                    .bind(r.realm_id.as_str())
                    .bind(&r.slug);
                bind_resource(q, r)
                    .bind(r.enabled)
                    .bind(r.submitted_by.as_deref())
                    .bind(r.created_at)
                    .bind(r.updated_at)
                    .execute(&mut **tx)
                    .await?;
                Ok(())
            }

            #[async_trait::async_trait]
            impl ResourceStore for $store {
                async fn set_resource_policy(
                    &self,
                    id: &$crate::ids::ResourceId,
                    policy: &$crate::resources::AccessPolicy,
                    updated_at: $crate::clock::UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_RESOURCE_POLICY)
                        .bind(policy.consent.as_str())
                        .bind(policy.people_roles.to_string())
                        .bind(policy.default_scopes.to_string())
                        .bind(policy.open_to_self_registered)
                        .bind(updated_at)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn insert_resource(
                    &self,
                    r: &Resource,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    insert_row(&mut tx, r).await?;
                    self.commit(tx, event).await
                }

                async fn insert_submission(
                    &self,
                    r: &Resource,
                    limits: SubmissionLimits,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let by = r.submitted_by.as_deref().ok_or_else(|| {
                        StorageError::Corrupt("a submission names who submitted it".into())
                    })?;
                    let mut tx = self.begin().await?;
                    // Concurrent submissions to the realm wait here for each other's count.
                    sqlx::query(LOCK_REALM)
                        .bind(r.realm_id.as_str())
                        .execute(&mut *tx)
                        .await?;
                    let (in_realm, yours): (i64, i64) = sqlx::query_as(COUNT_SUBMISSIONS)
                        .bind(r.realm_id.as_str())
                        .bind(by)
                        .fetch_one(&mut *tx)
                        .await?;
                    let at_least =
                        |n: i64, limit: usize| usize::try_from(n).map_or(true, |n| n >= limit);
                    if at_least(in_realm, limits.per_realm) {
                        tx.rollback().await?;
                        return Err(StorageError::Precondition(TOO_MANY_IN_REALM));
                    }
                    if at_least(yours, limits.per_person) {
                        tx.rollback().await?;
                        return Err(StorageError::Precondition(TOO_MANY_OF_YOURS));
                    }
                    insert_row(&mut tx, r).await?;
                    self.commit(tx, event).await
                }

                async fn find_resource(
                    &self,
                    realm_id: &RealmId,
                    slug: &str,
                ) -> Result<Option<Resource>, StorageError> {
                    resource_where(&self.pool, realm_id, "slug", slug).await
                }

                async fn find_resource_by_id(
                    &self,
                    realm_id: &RealmId,
                    id: &ResourceId,
                ) -> Result<Option<Resource>, StorageError> {
                    resource_where(&self.pool, realm_id, "id", id.as_str()).await
                }

                async fn find_resource_by_uri(
                    &self,
                    realm_id: &RealmId,
                    uri: &ResourceUri,
                ) -> Result<Option<Resource>, StorageError> {
                    resource_where(&self.pool, realm_id, "uri", uri.as_str()).await
                }

                async fn list_resources(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Vec<Resource>, StorageError> {
                    let sql = format!(
                        "SELECT {RESOURCE_COLUMNS} FROM resources WHERE realm_id = $1 ORDER BY slug"
                    );
                    sqlx::query_as::<_, ResourceRow>(&sql)
                        .bind(realm_id.as_str())
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(Resource::try_from)
                        .collect()
                }

                async fn max_resource_token_ttl(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Option<i64>, StorageError> {
                    Ok(sqlx::query_scalar(
                        "SELECT MAX(token_ttl_secs) FROM resources WHERE realm_id = $1",
                    )
                    .bind(realm_id.as_str())
                    .fetch_one(&self.pool)
                    .await?)
                }

                async fn update_resource(
                    &self,
                    r: &Resource,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = bind_resource(sqlx::query(UPDATE_RESOURCE), r)
                        .bind(r.updated_at)
                        .bind(r.id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn set_resource_enabled(
                    &self,
                    id: &ResourceId,
                    enabled: bool,
                    updated_at: $crate::clock::UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    self.set_flag(
                        SET_RESOURCE_ENABLED,
                        enabled,
                        updated_at,
                        id.as_str(),
                        event,
                    )
                    .await
                }

                async fn reject_submission(
                    &self,
                    id: &ResourceId,
                    reason: &str,
                    updated_at: $crate::clock::UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(REJECT_SUBMISSION)
                        .bind(reason)
                        .bind(updated_at)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn delete_resource(
                    &self,
                    id: &ResourceId,
                    submitted_by: Option<&str>,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let delete = match submitted_by {
                        None => {
                            sqlx::query(DELETE_RESOURCE_SERVER_CLIENTS)
                                .bind(id.as_str())
                                .execute(&mut *tx)
                                .await?;
                            sqlx::query(DELETE_RESOURCE).bind(id.as_str())
                        }
                        Some(by) => sqlx::query(DELETE_SUBMISSION).bind(id.as_str()).bind(by),
                    };
                    let n = delete.execute(&mut *tx).await?.rows_affected();
                    self.commit_one(tx, n, event).await
                }
            }
        };
    };
}
