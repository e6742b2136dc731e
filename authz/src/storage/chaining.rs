//! Identity chaining persistence: the authorization servers that trust a realm's ID-JAGs.
use crate::audit::NewAuditEvent;
use crate::chaining::{ClientLink, TrustingServer, TrustingServerId};
use crate::clients::ClientId;
use crate::error::StorageError;
use crate::ids::{ClientRowId, RealmId};
use async_trait::async_trait;

/// Identity chaining persistence.
#[async_trait]
pub trait ChainingStore: Send + Sync {
    /// Inserts a trusting server with its audit event; `Conflict` if the realm lists that
    /// issuer already.
    async fn insert_trusting_server(
        &self,
        t: &TrustingServer,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Replaces a trusting server's row (settings and enabled flag) with its audit event;
    /// `NotFound` if gone.
    async fn update_trusting_server(
        &self,
        t: &TrustingServer,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Deletes a trusting server with its audit event; `NotFound` if gone.
    async fn delete_trusting_server(
        &self,
        id: &TrustingServerId,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// The realm's trusting servers, by display name.
    async fn list_trusting_servers(
        &self,
        realm_id: &RealmId,
    ) -> Result<Vec<TrustingServer>, StorageError>;
}

pub(super) const SERVER_COLUMNS: &str = "id, realm_id, issuer, display_name, resources, scopes, clients, enabled, created_at, updated_at";
pub(super) const INSERT_SERVER: &str = "INSERT INTO trusting_servers (id, realm_id, issuer, display_name, resources, scopes, clients, enabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
pub(super) const UPDATE_SERVER: &str = "UPDATE trusting_servers SET display_name = $1, resources = $2, scopes = $3, clients = $4, enabled = $5, updated_at = $6 WHERE id = $7";
pub(super) const DELETE_SERVER: &str = "DELETE FROM trusting_servers WHERE id = $1";

#[derive(sqlx::FromRow)]
pub(crate) struct ServerRow {
    pub id: String,
    pub realm_id: String,
    pub issuer: String,
    pub display_name: String,
    pub resources: String,
    pub scopes: String,
    pub clients: String,
    pub enabled: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

impl TryFrom<ServerRow> for TrustingServer {
    type Error = StorageError;
    fn try_from(r: ServerRow) -> Result<Self, StorageError> {
        let corrupt =
            |what: &str, e: String| StorageError::Corrupt(format!("trusting server {what}: {e}"));
        let triples: Vec<(String, String, String)> =
            serde_json::from_str(&r.clients).map_err(|e| corrupt("clients", e.to_string()))?;
        let clients = triples
            .into_iter()
            .map(|(ours, theirs, row)| {
                Ok(ClientLink {
                    client_id: ClientId::parse(&ours)
                        .map_err(|e| corrupt("clients", e.to_owned()))?,
                    known_as: theirs,
                    client_pk: Some(ClientRowId::from_stored(row)),
                })
            })
            .collect::<Result<Vec<_>, StorageError>>()?;
        Ok(TrustingServer {
            id: TrustingServerId::from_stored(r.id),
            realm_id: RealmId::from_stored(r.realm_id),
            issuer: r.issuer,
            display_name: r.display_name,
            resources: r.resources.split_whitespace().map(str::to_owned).collect(),
            scopes: crate::scope::ScopeSet::parse(&r.scopes).map_err(|e| corrupt("scopes", e))?,
            clients,
            enabled: r.enabled,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// The stored text of a server's clients: a JSON array of `[client_id, id there, client row]`.
pub(super) fn clients_column(links: &[ClientLink]) -> String {
    serde_json::Value::Array(
        links
            .iter()
            .map(|l| {
                serde_json::json!([
                    l.client_id.as_str(),
                    l.known_as,
                    l.client_pk.as_ref().map_or("", |c| c.as_str())
                ])
            })
            .collect(),
    )
    .to_string()
}

/// Implements [`ChainingStore`] for one backend's store.
macro_rules! chaining_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::chaining::{TrustingServer, TrustingServerId};
            use $crate::error::StorageError;
            use $crate::ids::RealmId;
            use $crate::storage::chaining::*;

            #[async_trait::async_trait]
            impl ChainingStore for $store {
                async fn insert_trusting_server(
                    &self,
                    t: &TrustingServer,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(INSERT_SERVER)
                        .bind(t.id.as_str())
                        .bind(t.realm_id.as_str())
                        .bind(&t.issuer)
                        .bind(&t.display_name)
                        .bind(t.resources.join(" "))
                        .bind(t.scopes.to_string())
                        .bind(clients_column(&t.clients))
                        .bind(t.enabled)
                        .bind(t.created_at)
                        .bind(t.updated_at)
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await
                }

                async fn update_trusting_server(
                    &self,
                    t: &TrustingServer,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(UPDATE_SERVER)
                        .bind(&t.display_name)
                        .bind(t.resources.join(" "))
                        .bind(t.scopes.to_string())
                        .bind(clients_column(&t.clients))
                        .bind(t.enabled)
                        .bind(t.updated_at)
                        .bind(t.id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn delete_trusting_server(
                    &self,
                    id: &TrustingServerId,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(DELETE_SERVER)
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

                async fn list_trusting_servers(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Vec<TrustingServer>, StorageError> {
                    let sql = format!(
                        "SELECT {SERVER_COLUMNS} FROM trusting_servers WHERE realm_id = $1 ORDER BY display_name, issuer"
                    );
                    sqlx::query_as::<_, ServerRow>(&sql)
                        .bind(realm_id.as_str())
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(TrustingServer::try_from)
                        .collect()
                }
            }
        };
    };
}
