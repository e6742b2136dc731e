//! Gateway persistence: each person's connection to an upstream with its own OAuth
//! authorization server, and the client secrets administrators gave the gateway for such
//! servers (tokens and secrets sealed by the core before they get here).
use crate::audit::NewAuditEvent;
use crate::error::StorageError;
use crate::gateway::{UpstreamClientSecret, UpstreamConnection};
use crate::ids::RealmId;
use async_trait::async_trait;

/// Per-person upstream connections.
#[async_trait]
pub trait GatewayConnectionStore: Send + Sync {
    /// One person's connection to one server.
    async fn find_gateway_connection(
        &self,
        realm_id: &RealmId,
        subject: &str,
        server_id: &str,
    ) -> Result<Option<UpstreamConnection>, StorageError>;
    /// One person's connections, by server.
    async fn list_gateway_connections(
        &self,
        realm_id: &RealmId,
        subject: &str,
    ) -> Result<Vec<UpstreamConnection>, StorageError>;
    /// Connects (or connects again, replacing the tokens), with its audit event; bumps the
    /// generation.
    async fn save_gateway_connection(
        &self,
        c: &UpstreamConnection,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Stores refreshed tokens, only while the row still holds the tokens they were refreshed
    /// from (`previous`); whether it did (a disconnect or another refresh came first: not).
    async fn refresh_gateway_connection(
        &self,
        c: &UpstreamConnection,
        previous: &[u8],
    ) -> Result<bool, StorageError>;
    /// Disconnects, with its audit event (bumping the generation); only while the row still
    /// holds `tokens` when given. `NotFound` when not connected (or holding others).
    async fn delete_gateway_connection(
        &self,
        realm_id: &RealmId,
        subject: &str,
        server_id: &str,
        tokens: Option<&[u8]>,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// The client secret the gateway holds for one server.
    async fn find_gateway_client_secret(
        &self,
        realm_id: &RealmId,
        server_id: &str,
    ) -> Result<Option<UpstreamClientSecret>, StorageError>;
    /// Every client secret the gateway holds in a realm, by server.
    async fn list_gateway_client_secrets(
        &self,
        realm_id: &RealmId,
    ) -> Result<Vec<UpstreamClientSecret>, StorageError>;
    /// Sets (or replaces) a server's client secret, with its audit event.
    async fn save_gateway_client_secret(
        &self,
        s: &UpstreamClientSecret,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Removes a server's client secret, with its audit event. `NotFound` when there is none.
    async fn delete_gateway_client_secret(
        &self,
        realm_id: &RealmId,
        server_id: &str,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
}

pub(super) const CONNECTION_COLUMNS: &str = "realm_id, subject, server_id, issuer, sealed_tokens, access_expires_at, scope, connected_at, refreshed_at";

#[derive(sqlx::FromRow)]
pub(crate) struct ConnectionRow {
    pub realm_id: String,
    pub subject: String,
    pub server_id: String,
    pub issuer: String,
    pub sealed_tokens: Vec<u8>,
    pub access_expires_at: i64,
    pub scope: String,
    pub connected_at: i64,
    pub refreshed_at: i64,
}

impl From<ConnectionRow> for UpstreamConnection {
    fn from(r: ConnectionRow) -> Self {
        UpstreamConnection {
            realm_id: RealmId::from_stored(r.realm_id),
            subject: r.subject,
            server_id: r.server_id,
            issuer: r.issuer,
            sealed_tokens: r.sealed_tokens,
            access_expires_at: r.access_expires_at,
            scope: r.scope,
            connected_at: r.connected_at,
            refreshed_at: r.refreshed_at,
        }
    }
}

pub(super) const SECRET_COLUMNS: &str =
    "realm_id, server_id, client_id, issuer, resource, sealed_secret, set_by, set_at";

#[derive(sqlx::FromRow)]
pub(crate) struct SecretRow {
    pub realm_id: String,
    pub server_id: String,
    pub client_id: String,
    pub issuer: String,
    pub resource: String,
    pub sealed_secret: Vec<u8>,
    pub set_by: String,
    pub set_at: i64,
}

impl From<SecretRow> for UpstreamClientSecret {
    fn from(r: SecretRow) -> Self {
        UpstreamClientSecret {
            realm_id: RealmId::from_stored(r.realm_id),
            server_id: r.server_id,
            client_id: r.client_id,
            issuer: r.issuer,
            resource: r.resource,
            sealed_secret: r.sealed_secret,
            set_by: r.set_by,
            set_at: r.set_at,
        }
    }
}

/// Implements [`GatewayConnectionStore`] for one backend's store.
macro_rules! gateway_connection_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::error::StorageError;
            use $crate::gateway::{UpstreamClientSecret, UpstreamConnection};
            use $crate::ids::RealmId;
            use $crate::storage::gateway_connections::*;

            #[async_trait::async_trait]
            impl GatewayConnectionStore for $store {
                async fn find_gateway_connection(
                    &self,
                    realm_id: &RealmId,
                    subject: &str,
                    server_id: &str,
                ) -> Result<Option<UpstreamConnection>, StorageError> {
                    Ok(sqlx::query_as::<_, ConnectionRow>(&format!(
                        "SELECT {CONNECTION_COLUMNS} FROM gateway_connections WHERE realm_id = $1 AND subject = $2 AND server_id = $3"
                    ))
                    .bind(realm_id.as_str())
                    .bind(subject)
                    .bind(server_id)
                    .fetch_optional(&self.pool)
                    .await?
                    .map(UpstreamConnection::from))
                }

                async fn list_gateway_connections(
                    &self,
                    realm_id: &RealmId,
                    subject: &str,
                ) -> Result<Vec<UpstreamConnection>, StorageError> {
                    Ok(sqlx::query_as::<_, ConnectionRow>(&format!(
                        "SELECT {CONNECTION_COLUMNS} FROM gateway_connections WHERE realm_id = $1 AND subject = $2 ORDER BY server_id LIMIT 1000"
                    ))
                    .bind(realm_id.as_str())
                    .bind(subject)
                    .fetch_all(&self.pool)
                    .await?
                    .into_iter()
                    .map(UpstreamConnection::from)
                    .collect())
                }

                async fn save_gateway_connection(
                    &self,
                    c: &UpstreamConnection,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(&format!(
                        "INSERT INTO gateway_connections ({CONNECTION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (realm_id, subject, server_id) DO UPDATE SET issuer = excluded.issuer, sealed_tokens = excluded.sealed_tokens, access_expires_at = excluded.access_expires_at, scope = excluded.scope, connected_at = excluded.connected_at, refreshed_at = excluded.refreshed_at"
                    ))
                    .bind(c.realm_id.as_str())
                    .bind(&c.subject)
                    .bind(&c.server_id)
                    .bind(&c.issuer)
                    .bind(&c.sealed_tokens)
                    .bind(c.access_expires_at)
                    .bind(&c.scope)
                    .bind(c.connected_at)
                    .bind(c.refreshed_at)
                    .execute(&mut *tx)
                    .await?;
                    // Who is connected where is cached (the gateway checks it on every call).
                    self.commit(tx, event).await
                }

                async fn refresh_gateway_connection(
                    &self,
                    c: &UpstreamConnection,
                    previous: &[u8],
                ) -> Result<bool, StorageError> {
                    Ok(sqlx::query(
                        "UPDATE gateway_connections SET sealed_tokens = $1, access_expires_at = $2, scope = $3, refreshed_at = $4 WHERE realm_id = $5 AND subject = $6 AND server_id = $7 AND sealed_tokens = $8",
                    )
                    .bind(&c.sealed_tokens)
                    .bind(c.access_expires_at)
                    .bind(&c.scope)
                    .bind(c.refreshed_at)
                    .bind(c.realm_id.as_str())
                    .bind(&c.subject)
                    .bind(&c.server_id)
                    .bind(previous)
                    .execute(&self.pool)
                    .await?
                    .rows_affected()
                        == 1)
                }

                async fn delete_gateway_connection(
                    &self,
                    realm_id: &RealmId,
                    subject: &str,
                    server_id: &str,
                    tokens: Option<&[u8]>,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = match tokens {
                        None => sqlx::query(
                            "DELETE FROM gateway_connections WHERE realm_id = $1 AND subject = $2 AND server_id = $3",
                        )
                        .bind(realm_id.as_str())
                        .bind(subject)
                        .bind(server_id)
                        .execute(&mut *tx)
                        .await?,
                        Some(tokens) => sqlx::query(
                            "DELETE FROM gateway_connections WHERE realm_id = $1 AND subject = $2 AND server_id = $3 AND sealed_tokens = $4",
                        )
                        .bind(realm_id.as_str())
                        .bind(subject)
                        .bind(server_id)
                        .bind(tokens)
                        .execute(&mut *tx)
                        .await?,
                    }
                    .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    self.commit(tx, event).await
                }

                async fn find_gateway_client_secret(
                    &self,
                    realm_id: &RealmId,
                    server_id: &str,
                ) -> Result<Option<UpstreamClientSecret>, StorageError> {
                    Ok(sqlx::query_as::<_, SecretRow>(&format!(
                        "SELECT {SECRET_COLUMNS} FROM gateway_client_secrets WHERE realm_id = $1 AND server_id = $2"
                    ))
                    .bind(realm_id.as_str())
                    .bind(server_id)
                    .fetch_optional(&self.pool)
                    .await?
                    .map(UpstreamClientSecret::from))
                }

                async fn list_gateway_client_secrets(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Vec<UpstreamClientSecret>, StorageError> {
                    Ok(sqlx::query_as::<_, SecretRow>(&format!(
                        "SELECT {SECRET_COLUMNS} FROM gateway_client_secrets WHERE realm_id = $1 ORDER BY server_id LIMIT 1000"
                    ))
                    .bind(realm_id.as_str())
                    .fetch_all(&self.pool)
                    .await?
                    .into_iter()
                    .map(UpstreamClientSecret::from)
                    .collect())
                }

                async fn save_gateway_client_secret(
                    &self,
                    s: &UpstreamClientSecret,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(&format!(
                        "INSERT INTO gateway_client_secrets ({SECRET_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (realm_id, server_id) DO UPDATE SET client_id = excluded.client_id, issuer = excluded.issuer, resource = excluded.resource, sealed_secret = excluded.sealed_secret, set_by = excluded.set_by, set_at = excluded.set_at"
                    ))
                    .bind(s.realm_id.as_str())
                    .bind(&s.server_id)
                    .bind(&s.client_id)
                    .bind(&s.issuer)
                    .bind(&s.resource)
                    .bind(&s.sealed_secret)
                    .bind(&s.set_by)
                    .bind(s.set_at)
                    .execute(&mut *tx)
                    .await?;
                    self.commit(tx, event).await
                }

                async fn delete_gateway_client_secret(
                    &self,
                    realm_id: &RealmId,
                    server_id: &str,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(
                        "DELETE FROM gateway_client_secrets WHERE realm_id = $1 AND server_id = $2",
                    )
                    .bind(realm_id.as_str())
                    .bind(server_id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    self.commit(tx, event).await
                }
            }
        };
    };
}
