//! The PostgreSQL backend.
common_store!(
    /// Storage on PostgreSQL.
    PgStore,
    sqlx::Postgres,
    sqlx::PgPool,
    crate::storage::types::Dialect::Postgres
);
access_store!(PgStore, sqlx::Postgres);
agent_store!(PgStore, sqlx::Postgres);
audit_store!(PgStore, sqlx::Postgres);
client_store!(PgStore, sqlx::Postgres);
review_store!(PgStore, sqlx::Postgres);
key_store!(PgStore, sqlx::Postgres);
realm_store!(PgStore, sqlx::Postgres);
resource_store!(PgStore, sqlx::Postgres);
registry_store!(PgStore, sqlx::Postgres);
drift_store!(PgStore, sqlx::Postgres);
federation_store!(PgStore, sqlx::Postgres);
sso_store!(PgStore, sqlx::Postgres);
second_factor_store!(PgStore, sqlx::Postgres);
broker_store!(PgStore, sqlx::Postgres);
chaining_store!(PgStore, sqlx::Postgres);
gateway_store!(PgStore, sqlx::Postgres);
gateway_connection_store!(PgStore, sqlx::Postgres);
token_store!(PgStore, sqlx::Postgres);
account_store!(PgStore, sqlx::Postgres);
people_store!(PgStore, sqlx::Postgres);
authorize_store!(PgStore, sqlx::Postgres);
