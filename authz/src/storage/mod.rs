//! Storage: one trait per domain, implemented for SQLite and PostgreSQL.
//!
//! The backend is chosen at run time from the database URL scheme (`sqlite://…` or
//! `postgres://…`). The SQL text is portable (`$n` placeholders, `BIGINT` Unix seconds, `TEXT`
//! ids) and written once in [`sql`]; each backend instantiates it for its own pool. A store method
//! is one unit of work: everything that must commit together (a change and its audit row) is one
//! method with its own transaction. The conformance suite (`conformance.rs`) runs every scenario
//! on both backends.
use crate::accounts::{Email, OneTimeLink, User};
use crate::agents::Agent;
use crate::audit::{AuditEvent, AuditFilter, NewAuditEvent};
use crate::clients::{Client, ClientSecret};
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::keys::SigningAlg;
use crate::realms::{Realm, RealmName};
use crate::resources::{Resource, ResourceUri};
use async_trait::async_trait;
use std::sync::Arc;
use std::time::Duration;

#[cfg(test)]
mod conformance;
mod rows;
#[macro_use]
mod sql;
mod postgres;
mod sqlite;

pub use postgres::PgStore;
pub use sqlite::SqliteStore;

/// Lifecycle state of a signing key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyState {
    /// Published, not yet signing (so verifiers know it before rotation).
    Next,
    /// Signing new tokens.
    Active,
    /// No longer signing; published until `publish_until`.
    Retired,
}

impl KeyState {
    /// Stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyState::Next => "next",
            KeyState::Active => "active",
            KeyState::Retired => "retired",
        }
    }
}

/// A stored signing key (private part sealed under the master key).
#[derive(Clone, PartialEq, Eq)]
pub struct StoredKey {
    /// Key id.
    pub kid: String,
    /// Realm id.
    pub realm_id: String,
    /// Algorithm.
    pub alg: SigningAlg,
    /// Lifecycle state.
    pub state: KeyState,
    /// Public JWK including `kid`, `alg` and `use`.
    pub public_jwk: serde_json::Value,
    /// AES-256-GCM sealed PKCS#8.
    pub sealed_private_key: Vec<u8>,
    /// Creation time.
    pub created_at: UnixTime,
    /// When it became active.
    pub activated_at: Option<UnixTime>,
    /// When it retired.
    pub retired_at: Option<UnixTime>,
    /// Published until (retired keys).
    pub publish_until: Option<UnixTime>,
}

impl std::fmt::Debug for StoredKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredKey")
            .field("kid", &self.kid)
            .field("alg", &self.alg)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

/// A page request: skip `offset` rows, return at most `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Rows to skip.
    pub offset: u32,
    /// Rows to return (1–500).
    pub limit: u32,
}

impl Page {
    /// Page `index` (0-based) of `size` rows; size is clamped to 1–500.
    pub fn new(index: u32, size: u32) -> Self {
        let limit = size.clamp(1, 500);
        Self {
            offset: index.saturating_mul(limit),
            limit,
        }
    }
}

/// One page of results and the total number of matching rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paged<T> {
    /// The rows of this page.
    pub items: Vec<T>,
    /// All matching rows.
    pub total: u64,
}

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
    async fn find_realm(&self, id: &str) -> Result<Option<Realm>, StorageError>;
    /// Finds a realm by name.
    async fn find_realm_by_name(&self, name: &RealmName) -> Result<Option<Realm>, StorageError>;
    /// Lists all realms by name.
    async fn list_realms(&self) -> Result<Vec<Realm>, StorageError>;
    /// Updates name, display name and enabled flag, writing the audit event in the same
    /// transaction; `NotFound` if the realm is gone, `Conflict` if the new name is taken.
    async fn update_realm(&self, realm: &Realm, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Sets (or clears) the resource that token requests without `resource` are for, writing
    /// the audit event in the same transaction; `NotFound` if the realm is gone.
    async fn set_default_resource(
        &self,
        realm_id: &str,
        resource_id: Option<&str>,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
}

/// Console-account persistence.
#[async_trait]
pub trait UserStore: Send + Sync {
    /// Inserts a user, optionally its first set-password link, and the audit event in one
    /// transaction; `Conflict` if the email is taken in the realm.
    async fn insert_user(
        &self,
        user: &User,
        link: Option<&OneTimeLink>,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Finds a user by id.
    async fn find_user(&self, id: &str) -> Result<Option<User>, StorageError>;
    /// Finds a user by email within a realm.
    async fn find_user_by_email(
        &self,
        realm_id: &str,
        email: &Email,
    ) -> Result<Option<User>, StorageError>;
    /// Lists users of a realm whose email or display name contains `query` (case-insensitive),
    /// ordered by email.
    async fn list_users(
        &self,
        realm_id: &str,
        query: Option<&str>,
        page: Page,
    ) -> Result<Paged<User>, StorageError>;
    /// Number of users in all realms.
    async fn count_users(&self) -> Result<u64, StorageError>;
    /// Number of enabled admins in a realm.
    async fn count_active_admins(&self, realm_id: &str) -> Result<u64, StorageError>;
    /// Writes every mutable field of the user and the audit event in one transaction;
    /// `NotFound` if the user is gone.
    async fn update_user(&self, user: &User, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Stores a one-time link, superseding earlier unused links of the same purpose (and user),
    /// with its audit event.
    async fn insert_link(
        &self,
        link: &OneTimeLink,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Finds an unused, unexpired link by token hash.
    async fn find_active_link(
        &self,
        token_hash: &[u8],
        now: UnixTime,
    ) -> Result<Option<OneTimeLink>, StorageError>;
    /// Consumes a setup link and creates the first user, atomically; returns `false` (and
    /// changes nothing) if the link is no longer usable or a user already exists.
    async fn complete_setup(
        &self,
        token_hash: &[u8],
        now: UnixTime,
        user: &User,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
    /// Consumes a password-reset link for `user_id` and sets the new password hash,
    /// atomically; returns `false` (and changes nothing) if the link is no longer usable.
    async fn reset_password(
        &self,
        token_hash: &[u8],
        user_id: &str,
        password_hash: &str,
        now: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
}

/// Audit persistence (append-only).
#[async_trait]
pub trait AuditStore: Send + Sync {
    /// Appends an event that has no other change to commit with (e.g. a failed sign-in).
    async fn insert_audit_event(&self, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Lists events matching the filter, newest first.
    async fn list_audit_events(
        &self,
        filter: &AuditFilter,
        page: Page,
    ) -> Result<Paged<AuditEvent>, StorageError>;
}

/// Signing-key persistence.
#[async_trait]
pub trait KeyStore: Send + Sync {
    /// Inserts a key and its audit event.
    async fn insert_signing_key(
        &self,
        key: &StoredKey,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// All keys of a realm, newest first.
    async fn list_signing_keys(&self, realm_id: &str) -> Result<Vec<StoredKey>, StorageError>;
    /// Rotates the keys of one algorithm in one transaction: the active key retires (published
    /// until `publish_until`), the next key becomes active, and `new_next` is inserted as next.
    /// `NotFound` if the realm has no active and next key for that algorithm.
    async fn rotate_signing_keys(
        &self,
        realm_id: &str,
        alg: SigningAlg,
        new_next: &StoredKey,
        publish_until: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
}

/// Protected-resource persistence.
#[async_trait]
pub trait ResourceStore: Send + Sync {
    /// Inserts a resource; `Conflict` if its slug or URI is taken in the realm.
    async fn insert_resource(
        &self,
        r: &Resource,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Finds a resource by slug.
    async fn find_resource(
        &self,
        realm_id: &str,
        slug: &str,
    ) -> Result<Option<Resource>, StorageError>;
    /// Finds a resource by id within a realm.
    async fn find_resource_by_id(
        &self,
        realm_id: &str,
        id: &str,
    ) -> Result<Option<Resource>, StorageError>;
    /// Finds a resource by canonical URI.
    async fn find_resource_by_uri(
        &self,
        realm_id: &str,
        uri: &ResourceUri,
    ) -> Result<Option<Resource>, StorageError>;
    /// All resources of a realm by slug.
    async fn list_resources(&self, realm_id: &str) -> Result<Vec<Resource>, StorageError>;
    /// Writes every mutable field; `NotFound` if gone, `Conflict` on a taken URI.
    async fn update_resource(
        &self,
        r: &Resource,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Deletes a resource; `NotFound` if gone.
    async fn delete_resource(&self, id: &str, event: &NewAuditEvent) -> Result<(), StorageError>;
}

/// Client persistence.
#[async_trait]
pub trait ClientStore: Send + Sync {
    /// Inserts a client, its first secret if any, and the audit event; `Conflict` if the
    /// `client_id` is taken in the realm.
    async fn insert_client(
        &self,
        c: &Client,
        secret: Option<&ClientSecret>,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Finds a client by `client_id`.
    async fn find_client(
        &self,
        realm_id: &str,
        client_id: &str,
    ) -> Result<Option<Client>, StorageError>;
    /// Lists clients of a realm whose `client_id` or name contains `query`, by `client_id`.
    async fn list_clients(
        &self,
        realm_id: &str,
        query: Option<&str>,
        page: Page,
    ) -> Result<Paged<Client>, StorageError>;
    /// Writes every mutable field; `NotFound` if gone.
    async fn update_client(&self, c: &Client, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Deletes a client and its secrets; `NotFound` if gone.
    async fn delete_client(&self, id: &str, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// The client's secrets, newest first (expired ones included).
    async fn list_client_secrets(&self, client_pk: &str)
    -> Result<Vec<ClientSecret>, StorageError>;
    /// Adds `new` and makes every current secret expire at `old_expires_at`, atomically.
    async fn rotate_client_secret(
        &self,
        new: &ClientSecret,
        old_expires_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
}

/// Agent persistence.
#[async_trait]
pub trait AgentStore: Send + Sync {
    /// Inserts an agent; `Conflict` if the name is taken in the realm.
    async fn insert_agent(&self, a: &Agent, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Finds an agent by name.
    async fn find_agent(&self, realm_id: &str, name: &str) -> Result<Option<Agent>, StorageError>;
    /// Finds an agent by id.
    async fn find_agent_by_id(&self, id: &str) -> Result<Option<Agent>, StorageError>;
    /// All agents of a realm by name.
    async fn list_agents(&self, realm_id: &str) -> Result<Vec<Agent>, StorageError>;
    /// `client_id`s of the clients bound to an agent.
    async fn list_agent_clients(&self, agent_id: &str) -> Result<Vec<String>, StorageError>;
    /// Writes every mutable field; `NotFound` if gone.
    async fn update_agent(&self, a: &Agent, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Unbinds its clients and deletes the agent, atomically; `NotFound` if gone.
    async fn delete_agent(&self, id: &str, event: &NewAuditEvent) -> Result<(), StorageError>;
}

/// Single-use client assertions (RFC 7523 `jti`).
#[async_trait]
pub trait AssertionStore: Send + Sync {
    /// Records an assertion's `jti`; `false` if it was seen before (a replay). Forgets expired
    /// entries on the way.
    async fn consume_assertion_jti(
        &self,
        realm_id: &str,
        client_id: &str,
        jti: &str,
        expires_at: UnixTime,
        now: UnixTime,
    ) -> Result<bool, StorageError>;
}

/// Revoked access tokens, remembered by `jti` until they expire.
#[async_trait]
pub trait RevocationStore: Send + Sync {
    /// Remembers a revoked token (idempotent) with its audit event.
    async fn insert_revoked_token(
        &self,
        realm_id: &str,
        jti: &str,
        expires_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Whether a token was revoked.
    async fn is_token_revoked(&self, realm_id: &str, jti: &str) -> Result<bool, StorageError>;
}

/// Health of the storage backend.
#[async_trait]
pub trait HealthStore: Send + Sync {
    /// Runs a trivial query.
    async fn ping(&self) -> Result<(), StorageError>;
}

/// Everything the core needs from storage.
pub trait Store:
    RealmStore
    + UserStore
    + AuditStore
    + HealthStore
    + KeyStore
    + ResourceStore
    + ClientStore
    + RevocationStore
    + AgentStore
    + AssertionStore
{
}
impl<T> Store for T where
    T: RealmStore
        + UserStore
        + AuditStore
        + HealthStore
        + KeyStore
        + ResourceStore
        + ClientStore
        + RevocationStore
        + AgentStore
        + AssertionStore
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

/// Escapes `%`, `_` and `\` for a `LIKE … ESCAPE '\'` pattern and wraps it in `%…%`.
pub(crate) fn contains_pattern(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('%');
    for c in s.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}
