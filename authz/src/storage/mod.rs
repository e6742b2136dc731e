//! Storage: one trait per domain, implemented for SQLite and PostgreSQL.
//!
//! The backend is chosen at run time from the database URL scheme (`sqlite://…` or
//! `postgres://…`). The SQL text is portable (`$n` placeholders, `BIGINT` Unix seconds, `TEXT`
//! ids) and written once per domain (`realms.rs`, `accounts.rs`, …, each holding its trait, its
//! statements and the macro that implements it); each backend instantiates every domain for its
//! own pool. A store method is one unit of work: everything that must commit together (a change
//! and its audit row) is one method with its own transaction, and every commit bumps the store's
//! [`Generation`], which invalidates the core's caches. The conformance suite
//! (`conformance/`) runs every scenario on both backends.
use crate::error::StorageError;
use std::sync::Arc;
use std::time::Duration;

#[macro_use]
mod sql;
#[macro_use]
mod access;
#[macro_use]
mod accounts;
#[macro_use]
mod agents;
#[macro_use]
mod audit;
#[macro_use]
mod authorize;
#[macro_use]
mod broker;
#[macro_use]
mod chaining;
#[macro_use]
mod gateway;
#[macro_use]
mod gateway_connections;
#[macro_use]
mod clients;
#[macro_use]
mod drift;
#[macro_use]
mod federation;
#[macro_use]
mod keys;
#[macro_use]
mod people;
#[macro_use]
mod realms;
#[macro_use]
mod registry;
#[macro_use]
mod resources;
#[macro_use]
mod review;
#[macro_use]
mod second_factor;
#[macro_use]
mod sso;
#[macro_use]
mod tokens;
#[cfg(test)]
mod conformance;
mod postgres;
mod rows;
mod sqlite;
mod types;

pub use access::AccessStore;
pub use accounts::AccountStore;
pub use accounts::NO_BREAK_GLASS;
pub use agents::AgentStore;
pub use audit::AuditStore;
pub use authorize::{AuthorizeStore, MAX_CONNECTED_APPS, Redeemed};
pub use broker::{BrokerStore, BrokeredSignIn};
pub use chaining::ChainingStore;
pub use clients::{ClientStore, INITIAL_TOKEN_SPENT};
pub use drift::{DriftStore, Saved};
pub use federation::{AssertionRedeemed, FederationStore, NewSubject};
pub use gateway::GatewayStore;
pub use gateway_connections::GatewayConnectionStore;
pub use keys::KeyStore;
pub use people::PeopleStore;
pub use postgres::PgStore;
pub use realms::RealmStore;
pub use registry::{REQUEST_DECIDED, RegistryStore, ReleaseEffects, SEQUENCE_TAKEN, STALE_DRAFT};
pub use resources::{ResourceStore, SubmissionLimits, TOO_MANY_IN_REALM, TOO_MANY_OF_YOURS};
pub use review::ReviewStore;
pub use second_factor::SecondFactorStore;
pub use sqlite::SqliteStore;
pub use sso::{SsoAccountChange, SsoStore};
pub use tokens::{Purged, TokenStore};
pub use types::{BaseStore, Generation};

/// Everything the core needs from storage.
pub trait Store:
    BaseStore
    + RealmStore
    + AccountStore
    + AuditStore
    + KeyStore
    + ResourceStore
    + ClientStore
    + ReviewStore
    + AgentStore
    + AccessStore
    + TokenStore
    + PeopleStore
    + AuthorizeStore
    + RegistryStore
    + DriftStore
    + FederationStore
    + SsoStore
    + SecondFactorStore
    + BrokerStore
    + ChainingStore
    + GatewayStore
    + GatewayConnectionStore
{
}
impl<T> Store for T where
    T: BaseStore
        + RealmStore
        + AccountStore
        + AuditStore
        + KeyStore
        + ResourceStore
        + ClientStore
        + ReviewStore
        + AgentStore
        + AccessStore
        + TokenStore
        + PeopleStore
        + AuthorizeStore
        + RegistryStore
        + DriftStore
        + FederationStore
        + SsoStore
        + SecondFactorStore
        + BrokerStore
        + ChainingStore
        + GatewayStore
        + GatewayConnectionStore
{
}

/// The concrete store type the core holds.
pub type DynStore = Arc<dyn Store>;

/// A connection pool on one of the supported backends.
#[derive(Debug, Clone)]
pub enum Database {
    /// Embedded SQLite (WAL, foreign keys, busy timeout).
    Sqlite(sqlx::SqlitePool),
    /// PostgreSQL.
    Postgres(sqlx::PgPool),
}

/// Which backend a URL selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// `sqlite:` URLs.
    Sqlite,
    /// `postgres:` / `postgresql:` URLs.
    Postgres,
}

impl Backend {
    /// Picks the backend from the URL scheme.
    ///
    /// # Errors
    /// A message when the scheme is neither.
    pub fn from_url(url: &str) -> Result<Self, String> {
        if url.starts_with("sqlite:") {
            Ok(Backend::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Backend::Postgres)
        } else {
            Err("database.url must start with sqlite:// or postgres://".to_owned())
        }
    }
}

impl Database {
    /// Connects to the database named by `url`, creating a SQLite file if missing.
    ///
    /// # Errors
    /// When the URL is malformed or the database unreachable.
    pub async fn connect(url: &str, max_connections: u32) -> Result<Self, StorageError> {
        let backend = Backend::from_url(url).map_err(StorageError::Corrupt)?;
        Ok(match backend {
            Backend::Sqlite => {
                use sqlx::sqlite::{
                    SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous,
                };
                use std::str::FromStr;
                let opts = SqliteConnectOptions::from_str(url)?
                    .create_if_missing(true)
                    .journal_mode(SqliteJournalMode::Wal)
                    .synchronous(SqliteSynchronous::Normal)
                    .foreign_keys(true)
                    .busy_timeout(Duration::from_secs(5));
                let pool = SqlitePoolOptions::new()
                    .max_connections(max_connections)
                    .acquire_timeout(Duration::from_secs(5))
                    .connect_with(opts)
                    .await?;
                Database::Sqlite(pool)
            }
            Backend::Postgres => {
                let pool = sqlx::postgres::PgPoolOptions::new()
                    .max_connections(max_connections)
                    .acquire_timeout(Duration::from_secs(5))
                    .connect(url)
                    .await?;
                Database::Postgres(pool)
            }
        })
    }

    /// Applies the embedded migrations for this backend.
    ///
    /// # Errors
    /// When a migration fails or an applied one was edited.
    pub async fn migrate(&self) -> Result<(), StorageError> {
        match self {
            Database::Sqlite(p) => sqlx::migrate!("../migrations/sqlite").run(p).await?,
            Database::Postgres(p) => sqlx::migrate!("../migrations/postgres").run(p).await?,
        }
        Ok(())
    }

    /// Checks, without changing anything, that every embedded migration has been applied.
    ///
    /// # Errors
    /// `Schema` naming the first missing migration, or saying that none was ever applied.
    pub async fn check_migrations(&self) -> Result<(), StorageError> {
        const APPLIED: &str = "SELECT version FROM _sqlx_migrations WHERE success = TRUE";
        let (migrator, applied): (sqlx::migrate::Migrator, Result<Vec<i64>, sqlx::Error>) =
            match self {
                Database::Sqlite(p) => (
                    sqlx::migrate!("../migrations/sqlite"),
                    sqlx::query_scalar(APPLIED).fetch_all(p).await,
                ),
                Database::Postgres(p) => (
                    sqlx::migrate!("../migrations/postgres"),
                    sqlx::query_scalar(APPLIED).fetch_all(p).await,
                ),
            };
        // Without the migrations table, nothing was ever migrated (or the role may not read it).
        let applied = applied.map_err(|_| {
            StorageError::Schema(
                "the database has no Portcullis schema yet (or this role may not read it); run `portcullis migrate` as the schema owner".into(),
            )
        })?;
        match migrator.iter().find(|m| !applied.contains(&m.version)) {
            Some(m) => Err(StorageError::Schema(format!(
                "migration {} ({}) is not applied; run `portcullis migrate` as the schema owner",
                m.version, m.description
            ))),
            None => Ok(()),
        }
    }

    /// The store over this pool.
    pub fn store(&self) -> DynStore {
        match self {
            Database::Sqlite(p) => Arc::new(SqliteStore::new(p.clone())),
            Database::Postgres(p) => Arc::new(PgStore::new(p.clone())),
        }
    }

    /// Which backend this is.
    pub fn backend(&self) -> Backend {
        match self {
            Database::Sqlite(_) => Backend::Sqlite,
            Database::Postgres(_) => Backend::Postgres,
        }
    }

    /// Open connections and idle connections in the pool.
    pub fn pool_stats(&self) -> (u32, usize) {
        match self {
            Database::Sqlite(p) => (p.size(), p.num_idle()),
            Database::Postgres(p) => (p.size(), p.num_idle()),
        }
    }

    /// Closes the pool, waiting for connections to be returned.
    pub async fn close(&self) {
        match self {
            Database::Sqlite(p) => p.close().await,
            Database::Postgres(p) => p.close().await,
        }
    }
}
