//! Access-grant persistence.
use crate::access::{Grant, GrantedClient};
use crate::audit::NewAuditEvent;
use crate::error::StorageError;
use crate::ids::{ClientRowId, RealmId, ResourceId};
use crate::paging::{Page, Paged};
use async_trait::async_trait;

/// Access-grant persistence.
#[async_trait]
pub trait AccessStore: Send + Sync {
    /// Grants a client access to a resource, or changes the scopes of its grant; `NotFound` if
    /// the client or the resource is gone.
    async fn put_grant(&self, g: &Grant, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Ends a client's access to a resource; `NotFound` if it had none.
    async fn delete_grant(
        &self,
        client: &ClientRowId,
        resource: &ResourceId,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Writes when grants and clients were last used (`(client, resource, time)`), keeping
    /// later times already stored; rows of deleted grants and clients are skipped (a use
    /// without a grant, such as a person's sign-in, still counts for its client). Not audited,
    /// and the token path's caches stay warm.
    async fn record_grant_use(
        &self,
        uses: &[(ClientRowId, ResourceId, crate::clock::UnixTime)],
    ) -> Result<(), StorageError>;
    /// How many grants the realm's resources have, and how many of them produced a token.
    async fn grant_counts(&self, realm: &RealmId) -> Result<(u64, u64), StorageError>;
    /// A client's grants (few: one per resource of its realm at most).
    async fn list_client_grants(&self, client: &ClientRowId) -> Result<Vec<Grant>, StorageError>;
    /// The clients granted a resource whose `client_id` or name contains `query`, by
    /// `client_id`.
    async fn list_resource_grants(
        &self,
        resource: &ResourceId,
        query: Option<&str>,
        page: Page,
    ) -> Result<Paged<GrantedClient>, StorageError>;
}

pub(super) const GRANT_COLUMNS: &str =
    "g.client_pk, g.resource_id, g.scopes, g.created_at, g.updated_at, g.last_used_at";
pub(super) const RECORD_GRANT_USE: &str = "UPDATE client_grants SET last_used_at = $1 WHERE client_pk = $2 AND resource_id = $3 AND (last_used_at IS NULL OR last_used_at < $1)";
pub(super) const PUT_GRANT: &str = "INSERT INTO client_grants (client_pk, resource_id, scopes, created_at, updated_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (client_pk, resource_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at";
pub(super) const RECORD_CLIENT_USE: &str = "UPDATE clients SET last_token_at = $1 WHERE id = $2 AND (last_token_at IS NULL OR last_token_at < $1)";
pub(super) const DELETE_GRANT: &str =
    "DELETE FROM client_grants WHERE client_pk = $1 AND resource_id = $2";

/// Implements [`AccessStore`] for one backend's store.
macro_rules! access_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::access::{Grant, GrantedClient};
            use $crate::audit::NewAuditEvent;
            use $crate::error::StorageError;
            use $crate::ids::{ClientRowId, ResourceId};
            use $crate::storage::access::*;
            use $crate::storage::rows::{GrantRow, GrantedClientRow};
            use $crate::paging::{Page, Paged};

            /// The grants of one resource, filtered by `query` (`qb` ends in the FROM clause).
            fn resource_grants_filter(
                qb: &mut sqlx::QueryBuilder<'_, $db>,
                resource: &ResourceId,
                query: Option<&str>,
            ) {
                qb.push(" WHERE g.resource_id = ")
                    .push_bind(resource.as_str().to_owned());
                if let Some(q) = query {
                    let trigrams = Trigrams {
                        table: "clients_search",
                        key: "c.id",
                        fts_key: "id",
                        column: None,
                    };
                    push_text_search(qb, q, &["c.client_id", "c.name"], Some(&trigrams));
                }
            }

            #[async_trait::async_trait]
            impl AccessStore for $store {
                async fn put_grant(
                    &self,
                    g: &Grant,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let put = sqlx::query(PUT_GRANT)
                        .bind(g.client.as_str())
                        .bind(g.resource.as_str())
                        .bind(g.scopes.to_string())
                        .bind(g.created_at)
                        .bind(g.updated_at)
                        .execute(&mut *tx)
                        .await;
                    match put {
                        // The client or resource was deleted since the caller loaded it.
                        Err(sqlx::Error::Database(db)) if db.is_foreign_key_violation() => {
                            return Err(StorageError::NotFound);
                        }
                        other => other?,
                    };
                    self.commit(tx, event).await
                }

                async fn delete_grant(
                    &self,
                    client: &ClientRowId,
                    resource: &ResourceId,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(DELETE_GRANT)
                        .bind(client.as_str())
                        .bind(resource.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn record_grant_use(
                    &self,
                    uses: &[(ClientRowId, ResourceId, $crate::clock::UnixTime)],
                ) -> Result<(), StorageError> {
                    let mut latest: std::collections::BTreeMap<&str, i64> = Default::default();
                    let mut tx = self.begin().await?;
                    for (client, resource, at) in uses {
                        sqlx::query(RECORD_GRANT_USE)
                            .bind(*at)
                            .bind(client.as_str())
                            .bind(resource.as_str())
                            .execute(&mut *tx)
                            .await?;
                        let t = latest.entry(client.as_str()).or_insert(*at);
                        *t = (*t).max(*at);
                    }
                    for (client, at) in latest {
                        sqlx::query(RECORD_CLIENT_USE)
                            .bind(at)
                            .bind(client)
                            .execute(&mut *tx)
                            .await?;
                    }
                    tx.commit().await?;
                    Ok(())
                }

                async fn grant_counts(
                    &self,
                    realm: &$crate::ids::RealmId,
                ) -> Result<(u64, u64), StorageError> {
                    let (all, used): (i64, i64) = sqlx::query_as(
                        "SELECT COUNT(*), COUNT(g.last_used_at) FROM client_grants g \
                         JOIN resources r ON r.id = g.resource_id WHERE r.realm_id = $1",
                    )
                    .bind(realm.as_str())
                    .fetch_one(&self.pool)
                    .await?;
                    Ok((
                        u64::try_from(all).unwrap_or(0),
                        u64::try_from(used).unwrap_or(0),
                    ))
                }

                async fn list_client_grants(
                    &self,
                    client: &ClientRowId,
                ) -> Result<Vec<Grant>, StorageError> {
                    let sql = format!(
                        "SELECT {GRANT_COLUMNS} FROM client_grants g WHERE g.client_pk = $1 ORDER BY g.resource_id"
                    );
                    sqlx::query_as::<_, GrantRow>(&sql)
                        .bind(client.as_str())
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(Grant::try_from)
                        .collect()
                }

                async fn list_resource_grants(
                    &self,
                    resource: &ResourceId,
                    query: Option<&str>,
                    page: Page,
                ) -> Result<Paged<GrantedClient>, StorageError> {
                    let from = " FROM client_grants g JOIN clients c ON c.id = g.client_pk LEFT JOIN agents a ON a.id = c.agent_id";
                    let prepared = query.is_none();
                    let mut qb = sqlx::QueryBuilder::<$db>::new(format!(
                        "SELECT {GRANT_COLUMNS}, c.client_id, c.name, c.enabled, a.name AS agent_name, a.roles AS agent_roles{from}"
                    ));
                    resource_grants_filter(&mut qb, resource, query);
                    push_key_page(&mut qb, "c.client_id", &page);
                    let rows = qb
                        .build_query_as::<GrantedClientRow>()
                        .persistent(prepared)
                        .fetch_all(&self.pool)
                        .await?;
                    let mut qb = sqlx::QueryBuilder::<$db>::new(format!("SELECT COUNT(*){from}"));
                    resource_grants_filter(&mut qb, resource, query);
                    let total: i64 = qb
                        .build_query_scalar()
                        .persistent(prepared)
                        .fetch_one(&self.pool)
                        .await?;
                    let mut paged = page.shape(rows, u64::try_from(total).unwrap_or(0), |r| {
                        r.client_id.clone()
                    });
                    if let (Some(_), Some(first)) =
                        (&paged.prev, paged.items.first().map(|r| r.client_id.clone()))
                    {
                        let mut qb =
                            sqlx::QueryBuilder::<$db>::new(format!("SELECT COUNT(*){from}"));
                        resource_grants_filter(&mut qb, resource, query);
                        qb.push(" AND c.client_id < ").push_bind(first);
                        let before: i64 = qb
                            .build_query_scalar()
                            .persistent(prepared)
                            .fetch_one(&self.pool)
                            .await?;
                        paged.before = u64::try_from(before).unwrap_or(0);
                    }
                    paged.try_map(GrantedClient::try_from)
                }
            }
        };
    };
}
