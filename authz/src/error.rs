//! Errors of the authorization core.
//!
//! [`Error`] is what every [`crate::Core`] operation returns. Variants other than `Storage` and
//! `Internal` carry messages that are safe to show to the caller; those two never are.
use std::borrow::Cow;

/// OAuth error codes (RFC 6749 §5.2, RFC 7009 §2.2.1, RFC 8707 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OAuthErrorCode {
    /// "The request is missing a required parameter, includes an unsupported parameter value
    /// (other than grant type), repeats a parameter, … or is otherwise malformed."
    InvalidRequest,
    /// "Client authentication failed (e.g., unknown client, no client authentication included,
    /// or unsupported authentication method)." Answered with 401.
    InvalidClient,
    /// "The authenticated client is not authorized to use this authorization grant type."
    UnauthorizedClient,
    /// "The authorization grant type is not supported by the authorization server."
    UnsupportedGrantType,
    /// "The requested scope is invalid, unknown, malformed, or exceeds the scope granted by the
    /// resource owner."
    InvalidScope,
    /// "The requested resource is invalid, missing, unknown, or malformed." (RFC 8707)
    InvalidTarget,
    /// "The authorization server does not support the revocation of the presented token type."
    UnsupportedTokenType,
}

impl OAuthErrorCode {
    /// The registered error code.
    pub fn as_str(self) -> &'static str {
        match self {
            OAuthErrorCode::InvalidRequest => "invalid_request",
            OAuthErrorCode::InvalidClient => "invalid_client",
            OAuthErrorCode::UnauthorizedClient => "unauthorized_client",
            OAuthErrorCode::UnsupportedGrantType => "unsupported_grant_type",
            OAuthErrorCode::InvalidScope => "invalid_scope",
            OAuthErrorCode::InvalidTarget => "invalid_target",
            OAuthErrorCode::UnsupportedTokenType => "unsupported_token_type",
        }
    }
}

/// A protocol error whose code and description are safe to return to the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthError {
    /// Error code.
    pub code: OAuthErrorCode,
    /// Human-readable description.
    pub description: Cow<'static, str>,
}

impl std::fmt::Display for OAuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.description)
    }
}

/// An error from a core operation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input did not parse or violates a rule; the message says which.
    #[error("{0}")]
    Invalid(Cow<'static, str>),
    /// The entity does not exist (or the caller may not know that it does).
    #[error("{entity} `{id}` not found")]
    NotFound {
        /// Kind of entity, e.g. `user`.
        entity: &'static str,
        /// The identifier that was looked up.
        id: String,
    },
    /// The change conflicts with existing state (duplicate name, last admin, …).
    #[error("{0}")]
    Conflict(Cow<'static, str>),
    /// No authenticated principal.
    #[error("sign-in required")]
    Unauthenticated,
    /// The principal's role does not allow the operation.
    #[error("your role does not allow this")]
    Forbidden,
    /// Sign-in failed; the message is deliberately the same for unknown user and wrong password.
    #[error("invalid email or password")]
    InvalidCredentials,
    /// Too many failed attempts; retry after the given number of seconds.
    #[error("too many failed sign-in attempts; try again in {retry_after_secs} seconds")]
    Throttled {
        /// Seconds until another attempt is accepted.
        retry_after_secs: u64,
    },
    /// A one-time link was unknown, used or expired.
    #[error("this link is invalid or has expired")]
    InvalidLink,
    /// A protocol error for the token, introspection or revocation endpoint.
    #[error("{0}")]
    OAuth(OAuthError),
    /// Storage failed; details are logged, never shown.
    #[error("storage failure")]
    Storage(#[from] StorageError),
    /// Any other internal failure; details are logged, never shown.
    #[error("internal error")]
    Internal(String),
}

impl Error {
    /// Builds an [`Error::Invalid`].
    pub fn invalid(msg: impl Into<Cow<'static, str>>) -> Self {
        Self::Invalid(msg.into())
    }

    /// Builds an [`Error::OAuth`].
    pub fn oauth(code: OAuthErrorCode, description: impl Into<Cow<'static, str>>) -> Self {
        Self::OAuth(OAuthError {
            code,
            description: description.into(),
        })
    }

    /// Builds an [`Error::NotFound`].
    pub fn not_found(entity: &'static str, id: impl Into<String>) -> Self {
        Self::NotFound {
            entity,
            id: id.into(),
        }
    }
}

/// A storage-layer failure.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// A uniqueness constraint was violated.
    #[error("unique constraint violated: {0}")]
    Conflict(String),
    /// A row that must exist did not.
    #[error("row not found")]
    NotFound,
    /// A stored value could not be decoded into a domain value.
    #[error("corrupt row: {0}")]
    Corrupt(String),
    /// The database driver failed.
    #[error(transparent)]
    Database(sqlx::Error),
    /// Running migrations failed.
    #[error(transparent)]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

impl From<sqlx::Error> for StorageError {
    fn from(e: sqlx::Error) -> Self {
        match &e {
            sqlx::Error::Database(db) if db.is_unique_violation() => {
                Self::Conflict(db.message().to_owned())
            }
            sqlx::Error::RowNotFound => Self::NotFound,
            _ => Self::Database(e),
        }
    }
}

/// Result alias for core operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;
