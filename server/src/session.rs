//! Console sessions: tower-sessions on the configured database, and the middleware that turns a
//! session into a [`ConsoleRequest`] (principal + request facts) for handlers and server fns.
//!
//! Cookies are HttpOnly, `SameSite=Lax`, `Secure` when the public URL is https. Sessions end after
//! the idle timeout (store expiry) or the absolute timeout (checked here against the sign-in time),
//! immediately when the user is disabled, and when the account's password changed after the
//! session began (its credential version is older than the account's).
use crate::AppState;
use app::ssr::{ConsoleRequest, SESSION_AUTH_AT, SESSION_CREDENTIALS, SESSION_USER};
use async_trait::async_trait;
use authz::storage::Database;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use tower_sessions::cookie::SameSite;
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, ExpiredDeletion, SessionStore};
use tower_sessions::{Expiry, Session, SessionManagerLayer};
use tower_sessions_sqlx_store::{PostgresStore, SqliteStore};

/// Name of the session cookie over plain http (development).
pub const COOKIE_NAME: &str = "portcullis_session";

/// The session cookie's name: on https with the `__Host-` prefix (`Secure`, `Path=/`, no
/// `Domain`), so neither a plain-http page nor a sibling host can set or shadow it.
pub fn cookie_name(secure: bool) -> &'static str {
    if secure {
        "__Host-portcullis_session"
    } else {
        COOKIE_NAME
    }
}

/// The session store on whichever backend the database is.
#[derive(Debug, Clone)]
pub enum AnyStore {
    /// SQLite.
    Sqlite(SqliteStore),
    /// PostgreSQL.
    Postgres(PostgresStore),
}

impl AnyStore {
    /// The store for a database (its table is created by [`AnyStore::migrate`]).
    pub fn new(db: &Database) -> Self {
        match db {
            Database::Sqlite(p) => AnyStore::Sqlite(SqliteStore::new(p.clone())),
            Database::Postgres(p) => AnyStore::Postgres(PostgresStore::new(p.clone())),
        }
    }

    /// Creates the session table if missing.
    ///
    /// # Errors
    /// When the table cannot be created.
    pub async fn migrate(&self) -> anyhow::Result<()> {
        match self {
            AnyStore::Sqlite(s) => s.migrate().await?,
            AnyStore::Postgres(s) => s.migrate().await?,
        }
        Ok(())
    }

    /// Deletes expired sessions every `period`, forever.
    pub async fn delete_expired_periodically(self, period: std::time::Duration) {
        let result = match self {
            AnyStore::Sqlite(s) => s.continuously_delete_expired(period).await,
            AnyStore::Postgres(s) => s.continuously_delete_expired(period).await,
        };
        if let Err(e) = result {
            tracing::error!(error = %e, "Failed to delete expired sessions");
        }
    }
}

#[async_trait]
impl SessionStore for AnyStore {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        match self {
            AnyStore::Sqlite(s) => s.create(record).await,
            AnyStore::Postgres(s) => s.create(record).await,
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        match self {
            AnyStore::Sqlite(s) => s.save(record).await,
            AnyStore::Postgres(s) => s.save(record).await,
        }
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        match self {
            AnyStore::Sqlite(s) => s.load(id).await,
            AnyStore::Postgres(s) => s.load(id).await,
        }
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        match self {
            AnyStore::Sqlite(s) => s.delete(id).await,
            AnyStore::Postgres(s) => s.delete(id).await,
        }
    }
}

/// The session layer with the project's cookie settings.
pub fn layer(store: AnyStore, secure: bool, idle_secs: i64) -> SessionManagerLayer<AnyStore> {
    SessionManagerLayer::new(store)
        .with_name(cookie_name(secure))
        .with_http_only(true)
        .with_same_site(SameSite::Lax)
        .with_secure(secure)
        .with_path("/")
        .with_expiry(Expiry::OnInactivity(
            tower_sessions::cookie::time::Duration::seconds(idle_secs),
        ))
}

/// Resolves the session to a principal and records request facts, for every request.
pub async fn resolve(
    State(state): State<AppState>,
    session: Session,
    mut req: Request,
    next: Next,
) -> Response {
    let meta = crate::http::request_meta(req.extensions());
    let principal = match principal(&state, &session).await {
        Ok(p) => p,
        Err(e) => {
            tracing::error!(error = %e, "Failed to resolve the console session");
            None
        }
    };
    req.extensions_mut()
        .insert(ConsoleRequest { principal, meta });
    next.run(req).await
}

async fn principal(
    state: &AppState,
    session: &Session,
) -> anyhow::Result<Option<authz::Principal>> {
    let Some(user_id) = session.get::<String>(SESSION_USER).await? else {
        return Ok(None);
    };
    let auth_at = session.get::<i64>(SESSION_AUTH_AT).await?.unwrap_or(0);
    if state.core.now() - auth_at > state.config.session.absolute_timeout_secs {
        session.flush().await?;
        return Ok(None);
    }
    let credentials = session.get::<i64>(SESSION_CREDENTIALS).await?;
    let principal = state
        .core
        .principal(&authz::ids::UserId::from_stored(user_id))
        .await?
        .filter(|p| credentials == Some(p.credential_version));
    if principal.is_none() {
        // The user was disabled or deleted, or the password changed: end the session now.
        session.flush().await?;
    }
    Ok(principal)
}
