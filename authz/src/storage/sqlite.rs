//! The SQLite backend (embedded; WAL, foreign keys and a busy timeout are set at connect).
common_store!(
    /// Storage on SQLite.
    SqliteStore,
    sqlx::Sqlite,
    sqlx::SqlitePool,
    crate::storage::types::Dialect::Sqlite
);
access_store!(SqliteStore, sqlx::Sqlite);
agent_store!(SqliteStore, sqlx::Sqlite);
audit_store!(SqliteStore, sqlx::Sqlite);
client_store!(SqliteStore, sqlx::Sqlite);
review_store!(SqliteStore, sqlx::Sqlite);
key_store!(SqliteStore, sqlx::Sqlite);
realm_store!(SqliteStore, sqlx::Sqlite);
resource_store!(SqliteStore, sqlx::Sqlite);
registry_store!(SqliteStore, sqlx::Sqlite);
drift_store!(SqliteStore, sqlx::Sqlite);
federation_store!(SqliteStore, sqlx::Sqlite);
sso_store!(SqliteStore, sqlx::Sqlite);
second_factor_store!(SqliteStore, sqlx::Sqlite);
broker_store!(SqliteStore, sqlx::Sqlite);
chaining_store!(SqliteStore, sqlx::Sqlite);
gateway_store!(SqliteStore, sqlx::Sqlite);
gateway_connection_store!(SqliteStore, sqlx::Sqlite);
token_store!(SqliteStore, sqlx::Sqlite);
account_store!(SqliteStore, sqlx::Sqlite);
people_store!(SqliteStore, sqlx::Sqlite);
authorize_store!(SqliteStore, sqlx::Sqlite);
