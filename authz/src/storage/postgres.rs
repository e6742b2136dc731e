//! The PostgreSQL backend.
impl_store!(
    /// Storage on PostgreSQL.
    PgStore,
    sqlx::Postgres,
    sqlx::PgPool
);
