//! The SQLite backend (embedded; WAL, foreign keys and a busy timeout are set at connect).
impl_store!(
    /// Storage on SQLite.
    SqliteStore,
    sqlx::Sqlite,
    sqlx::SqlitePool
);
