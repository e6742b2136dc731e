//! Realm persistence.
use crate::audit::NewAuditEvent;
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::ids::ResourceId;
use crate::realms::{Realm, RealmId, RealmName};
use async_trait::async_trait;

/// Realm persistence.
#[async_trait]
pub trait RealmStore: Send + Sync {
    /// Inserts the realm unless one with the same name exists; returns whether it inserted.
    /// The audit event is written in the same transaction, only when inserted.
    async fn insert_realm_if_absent(
        &self,
        realm: &Realm,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
    /// Inserts a realm and its audit event; `Conflict` if the name is taken.
    async fn insert_realm(&self, realm: &Realm, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Finds a realm by id.
    async fn find_realm(&self, id: &RealmId) -> Result<Option<Realm>, StorageError>;
    /// Finds a realm by name.
    async fn find_realm_by_name(&self, name: &RealmName) -> Result<Option<Realm>, StorageError>;
    /// Lists all realms by name.
    async fn list_realms(&self) -> Result<Vec<Realm>, StorageError>;
    /// Updates the settings (name, display name, token and refresh lifetimes) and nothing else, writing the
    /// audit event in the same transaction; `NotFound` if the realm is gone, `Conflict` if the
    /// new name is taken.
    async fn update_realm(&self, realm: &Realm, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Writes a realm's registration settings (policies, limits, lifetimes of self-registered
    /// clients and their secrets) from `realm` and nothing else, with the audit event;
    /// `NotFound` if gone.
    async fn set_realm_registration(
        &self,
        realm: &Realm,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Enables or disables a realm and nothing else (so that it never races a settings change
    /// back), writing the audit event in the same transaction; `NotFound` if it is gone.
    async fn set_realm_enabled(
        &self,
        realm_id: &RealmId,
        enabled: bool,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Turns the realm's password sign-in on or off and nothing else, with the audit event;
    /// `NotFound` if the realm is gone.
    async fn set_realm_password_sign_in(
        &self,
        realm_id: &RealmId,
        on: bool,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Sets (or clears) the resource that token requests without `resource` are for, writing
    /// the audit event in the same transaction; `NotFound` if the realm is gone.
    async fn set_default_resource(
        &self,
        realm_id: &RealmId,
        resource_id: Option<&ResourceId>,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
}

/// Trusted networks as stored: space-separated ranges.
pub(super) fn networks_text(networks: &[crate::net::Cidr]) -> String {
    networks
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) const REALM_COLUMNS: &str = "id, name, display_name, enabled, default_resource_id, token_ttl_secs, refresh_idle_ttl_secs, refresh_max_ttl_secs, registration_policy, max_dynamic_clients, metadata_document_policy, metadata_document_domains, unused_client_ttl_secs, client_secret_ttl_secs, registrations_per_source, trusted_networks, registrations_per_trusted_network, metadata_document_machine_domains, password_sign_in, created_at, updated_at";
pub(super) const SET_REALM_PASSWORD_SIGN_IN: &str =
    "UPDATE realms SET password_sign_in = $1, updated_at = $2 WHERE id = $3";
pub(super) const SET_DEFAULT_RESOURCE: &str =
    "UPDATE realms SET default_resource_id = $1, updated_at = $2 WHERE id = $3";
pub(super) const INSERT_REALM: &str = "INSERT INTO realms (id, name, display_name, enabled, token_ttl_secs, created_at, updated_at, refresh_idle_ttl_secs, refresh_max_ttl_secs, registration_policy, max_dynamic_clients, metadata_document_policy, metadata_document_domains, unused_client_ttl_secs, client_secret_ttl_secs, registrations_per_source, trusted_networks, registrations_per_trusted_network, metadata_document_machine_domains) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)";
pub(super) const INSERT_REALM_IF_ABSENT: &str = "INSERT INTO realms (id, name, display_name, enabled, token_ttl_secs, created_at, updated_at, refresh_idle_ttl_secs, refresh_max_ttl_secs, registration_policy, max_dynamic_clients, metadata_document_policy, metadata_document_domains, unused_client_ttl_secs, client_secret_ttl_secs, registrations_per_source, trusted_networks, registrations_per_trusted_network, metadata_document_machine_domains) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) ON CONFLICT (name) DO NOTHING";
pub(super) const SET_REALM_REGISTRATION: &str = "UPDATE realms SET registration_policy = $1, max_dynamic_clients = $2, metadata_document_policy = $3, metadata_document_domains = $4, updated_at = $5, unused_client_ttl_secs = $7, client_secret_ttl_secs = $8, registrations_per_source = $9, trusted_networks = $10, registrations_per_trusted_network = $11, metadata_document_machine_domains = $12 WHERE id = $6";
pub(super) const UPDATE_REALM: &str = "UPDATE realms SET name = $1, display_name = $2, token_ttl_secs = $3, updated_at = $4, refresh_idle_ttl_secs = $6, refresh_max_ttl_secs = $7 WHERE id = $5";
pub(super) const SET_REALM_ENABLED: &str =
    "UPDATE realms SET enabled = $1, updated_at = $2 WHERE id = $3";

/// Implements [`RealmStore`] for one backend's store.
macro_rules! realm_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::clock::UnixTime;
            use $crate::error::StorageError;
            use $crate::ids::ResourceId;
            use $crate::realms::{Realm, RealmId, RealmName};
            use $crate::storage::realms::*;
            use $crate::storage::rows::RealmRow;

            fn bind_realm<'q>(
                q: sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>>,
                r: &'q Realm,
            ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
                q.bind(r.id.as_str())
                    .bind(r.name.as_str())
                    .bind(&r.display_name)
                    .bind(r.enabled)
                    .bind(r.token_ttl_secs)
                    .bind(r.created_at)
                    .bind(r.updated_at)
                    .bind(r.refresh_idle_ttl_secs)
                    .bind(r.refresh_max_ttl_secs)
                    .bind(r.registration_policy.as_str())
                    .bind(r.max_dynamic_clients)
                    .bind(r.metadata_document_policy.as_str())
                    .bind(r.metadata_document_domains.join(" "))
                    .bind(r.unused_client_ttl_secs)
                    .bind(r.client_secret_ttl_secs)
                    .bind(r.registrations_per_source)
                    .bind(networks_text(&r.trusted_networks))
                    .bind(r.registrations_per_trusted_network)
                    .bind(r.metadata_document_machine_domains.join(" "))
            }

            async fn realm_where(
                pool: &sqlx::Pool<$db>,
                column: &'static str,
                value: &str,
            ) -> Result<Option<Realm>, StorageError> {
                let sql = format!("SELECT {REALM_COLUMNS} FROM realms WHERE {column} = $1");
                sqlx::query_as::<_, RealmRow>(&sql)
                    .bind(value)
                    .fetch_optional(pool)
                    .await?
                    .map(Realm::try_from)
                    .transpose()
            }

            #[async_trait::async_trait]
            impl RealmStore for $store {
                async fn insert_realm_if_absent(
                    &self,
                    realm: &Realm,
                    event: &NewAuditEvent,
                ) -> Result<bool, StorageError> {
                    let mut tx = self.begin().await?;
                    let n = bind_realm(sqlx::query(INSERT_REALM_IF_ABSENT), realm)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        return Ok(false);
                    }
                    self.commit(tx, event).await?;
                    Ok(true)
                }

                async fn insert_realm(
                    &self,
                    realm: &Realm,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    bind_realm(sqlx::query(INSERT_REALM), realm)
                        .execute(&mut *tx)
                        .await?;
                    self.commit(tx, event).await
                }

                async fn find_realm(&self, id: &RealmId) -> Result<Option<Realm>, StorageError> {
                    realm_where(&self.pool, "id", id.as_str()).await
                }

                async fn find_realm_by_name(
                    &self,
                    name: &RealmName,
                ) -> Result<Option<Realm>, StorageError> {
                    realm_where(&self.pool, "name", name.as_str()).await
                }

                async fn list_realms(&self) -> Result<Vec<Realm>, StorageError> {
                    let sql = format!("SELECT {REALM_COLUMNS} FROM realms ORDER BY name");
                    sqlx::query_as::<_, RealmRow>(&sql)
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(Realm::try_from)
                        .collect()
                }

                async fn set_realm_registration(
                    &self,
                    r: &Realm,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_REALM_REGISTRATION)
                        .bind(r.registration_policy.as_str())
                        .bind(r.max_dynamic_clients)
                        .bind(r.metadata_document_policy.as_str())
                        .bind(r.metadata_document_domains.join(" "))
                        .bind(r.updated_at)
                        .bind(r.id.as_str())
                        .bind(r.unused_client_ttl_secs)
                        .bind(r.client_secret_ttl_secs)
                        .bind(r.registrations_per_source)
                        .bind(networks_text(&r.trusted_networks))
                        .bind(r.registrations_per_trusted_network)
                        .bind(r.metadata_document_machine_domains.join(" "))
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn update_realm(
                    &self,
                    realm: &Realm,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(UPDATE_REALM)
                        .bind(realm.name.as_str())
                        .bind(&realm.display_name)
                        .bind(realm.token_ttl_secs)
                        .bind(realm.updated_at)
                        .bind(realm.id.as_str())
                        .bind(realm.refresh_idle_ttl_secs)
                        .bind(realm.refresh_max_ttl_secs)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn set_realm_enabled(
                    &self,
                    realm_id: &RealmId,
                    enabled: bool,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_REALM_ENABLED)
                        .bind(enabled)
                        .bind(updated_at)
                        .bind(realm_id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn set_realm_password_sign_in(
                    &self,
                    realm_id: &RealmId,
                    on: bool,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_REALM_PASSWORD_SIGN_IN)
                        .bind(on)
                        .bind(updated_at)
                        .bind(realm_id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn set_default_resource(
                    &self,
                    realm_id: &RealmId,
                    resource_id: Option<&ResourceId>,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_DEFAULT_RESOURCE)
                        .bind(resource_id.map(ResourceId::as_str))
                        .bind(updated_at)
                        .bind(realm_id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }
            }
        };
    };
}
