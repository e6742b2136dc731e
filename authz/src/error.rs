//! Errors of the authorization core.
//!
//! [`Error`] is what every [`crate::Core`] operation returns. Variants other than `Storage` and
//! `Internal` carry messages that are safe to show to the caller; those two never are.
use std::borrow::Cow;

/// OAuth error codes (RFC 6749 §4.1.2.1 and §5.2, RFC 7009 §2.2.1, RFC 7591 §3.2.2,
/// RFC 8707 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OAuthErrorCode {
    /// "The request is missing a required parameter, includes an unsupported parameter value
    /// (other than grant type), repeats a parameter, … or is otherwise malformed."
    InvalidRequest,
    /// "Client authentication failed (e.g., unknown client, no client authentication included,
    /// or unsupported authentication method)." Answered with 401.
    InvalidClient,
    /// "The provided authorization grant (e.g., authorization code, resource owner credentials)
    /// or refresh token is invalid, expired, revoked, does not match the redirection URI used in
    /// the authorization request, or was issued to another client."
    InvalidGrant,
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
    /// "The resource owner or authorization server denied the request." (RFC 6749 §4.1.2.1)
    AccessDenied,
    /// "The authorization server does not support obtaining an authorization code using this
    /// method." (RFC 6749 §4.1.2.1)
    UnsupportedResponseType,
    /// "The value of one or more redirection URIs is invalid." (RFC 7591 §3.2.2)
    InvalidRedirectUri,
    /// "The value of one of the client metadata fields is invalid and the server has rejected
    /// this request." (RFC 7591 §3.2.2)
    InvalidClientMetadata,
    /// "The authorization server is currently unable to handle the request due to a temporary
    /// overloading or maintenance of the server." (RFC 6749 §4.1.2.1) Used with 429 and
    /// `Retry-After` for throttled requests, so that clients never mistake a throttle for
    /// `invalid_client` (MCP clients delete their registration on that).
    /// RFC 6750 §3.1: the bearer token (a registration access token) is invalid.
    InvalidToken,
    TemporarilyUnavailable,
    /// RFC 8628 §3.5: the person has not answered the device authorization yet; poll again.
    AuthorizationPending,
    /// RFC 8628 §3.5: polled too soon; the interval grows by five seconds.
    SlowDown,
    /// RFC 8628 §3.5: the device code expired; start again.
    ExpiredToken,
}

impl OAuthErrorCode {
    /// Every code this server answers with.
    pub const ALL: [OAuthErrorCode; 17] = [
        OAuthErrorCode::InvalidRequest,
        OAuthErrorCode::InvalidClient,
        OAuthErrorCode::UnauthorizedClient,
        OAuthErrorCode::UnsupportedGrantType,
        OAuthErrorCode::InvalidScope,
        OAuthErrorCode::InvalidTarget,
        OAuthErrorCode::UnsupportedTokenType,
        OAuthErrorCode::InvalidGrant,
        OAuthErrorCode::AccessDenied,
        OAuthErrorCode::UnsupportedResponseType,
        OAuthErrorCode::InvalidRedirectUri,
        OAuthErrorCode::InvalidClientMetadata,
        OAuthErrorCode::TemporarilyUnavailable,
        OAuthErrorCode::InvalidToken,
        OAuthErrorCode::AuthorizationPending,
        OAuthErrorCode::SlowDown,
        OAuthErrorCode::ExpiredToken,
    ];

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
            OAuthErrorCode::InvalidGrant => "invalid_grant",
            OAuthErrorCode::AccessDenied => "access_denied",
            OAuthErrorCode::UnsupportedResponseType => "unsupported_response_type",
            OAuthErrorCode::InvalidRedirectUri => "invalid_redirect_uri",
            OAuthErrorCode::InvalidClientMetadata => "invalid_client_metadata",
            OAuthErrorCode::TemporarilyUnavailable => "temporarily_unavailable",
            OAuthErrorCode::InvalidToken => "invalid_token",
            OAuthErrorCode::AuthorizationPending => "authorization_pending",
            OAuthErrorCode::SlowDown => "slow_down",
            OAuthErrorCode::ExpiredToken => "expired_token",
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

/// An authorization-endpoint error sent back to the client's redirect URI (RFC 6749 §4.1.2.1).
///
/// Only once that URI has been verified against the client's registration; otherwise the error
/// is shown on a page and nobody is redirected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedirectError {
    /// The verified redirect URI.
    pub redirect_uri: url::Url,
    /// The error code and description.
    pub error: OAuthError,
    /// The client's `state`, echoed back.
    pub state: Option<String>,
    /// The issuer, sent as `iss` on every authorization response (RFC 9207).
    pub iss: String,
}

impl RedirectError {
    /// The redirect URI with `error`, `error_description`, `state` and `iss` appended to its
    /// query.
    pub fn location(&self) -> url::Url {
        let mut url = self.redirect_uri.clone();
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("error", self.error.code.as_str());
            q.append_pair("error_description", &self.error.description);
            if let Some(state) = &self.state {
                q.append_pair("state", state);
            }
            q.append_pair("iss", &self.iss);
        }
        url
    }
}

/// An error from a core operation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The input did not parse or violates a rule; the message says which.
    #[error("{0}")]
    Invalid(Cow<'static, str>),
    /// One input field is invalid; the message says why. Console forms show it on the field;
    /// dynamic registration answers `invalid_redirect_uri` for `redirect_uris` and
    /// `invalid_client_metadata` for any other field.
    #[error("{message}")]
    InvalidField {
        /// The field's wire name (RFC 7591 member names for client metadata).
        field: &'static str,
        /// What is wrong with it.
        message: Cow<'static, str>,
    },
    /// The entity does not exist (or the caller may not know that it does).
    #[error("{entity} \"{id}\" not found")]
    NotFound {
        /// Kind of entity, e.g. `user`.
        entity: &'static str,
        /// The identifier that was looked up.
        id: String,
    },
    /// The change conflicts with existing state (duplicate name, last admin, …).
    #[error("{0}")]
    Conflict(Cow<'static, str>),
    /// The value of one input field is taken by another object (a duplicate name): a conflict
    /// that console forms show on the field.
    #[error("{message}")]
    Taken {
        /// The field's wire name.
        field: &'static str,
        /// What is taken, in plain words.
        message: Cow<'static, str>,
    },
    /// A registry policy or server did not pass its checks: every error, each naming its
    /// field as a path (`servers[2].tools.deny[0]`, `package.version`).
    #[error("{}", findings_message(.0))]
    Findings(Vec<portcullis_manifest::Finding>),
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
    #[error("too many failed attempts; try again in {retry_after_secs} seconds")]
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
    /// A protocol error the authorization endpoint returns by redirect.
    #[error("{}", .0.error)]
    Redirect(Box<RedirectError>),
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

    /// Builds an [`Error::InvalidField`].
    pub fn field(field: &'static str, message: impl Into<Cow<'static, str>>) -> Self {
        Self::InvalidField {
            field,
            message: message.into(),
        }
    }

    /// Builds an [`Error::NotFound`].
    pub fn not_found(entity: &'static str, id: impl Into<String>) -> Self {
        Self::NotFound {
            entity,
            id: id.into(),
        }
    }
}

/// The first finding, and how many more there are.
fn findings_message(findings: &[portcullis_manifest::Finding]) -> String {
    match findings {
        [] => "invalid input".to_owned(),
        [one] => format!("{}: {}", one.field, one.message),
        [first, rest @ ..] => format!(
            "{}: {} (and {} more)",
            first.field,
            first.message,
            rest.len()
        ),
    }
}

/// [`Error::Invalid`] from any message (for `map_err`).
pub(crate) fn invalid(msg: impl Into<Cow<'static, str>>) -> Error {
    Error::invalid(msg)
}

/// Maps a uniqueness violation to [`Error::Conflict`] with a message for the user.
pub(crate) fn map_conflict(e: StorageError, msg: &'static str) -> Error {
    match e {
        StorageError::Conflict(_) => Error::Conflict(msg.into()),
        other => Error::Storage(other),
    }
}

/// Maps a uniqueness violation to [`Error::Taken`] on `field`.
pub(crate) fn map_taken(e: StorageError, field: &'static str, msg: &'static str) -> Error {
    match e {
        StorageError::Conflict(_) => Error::Taken {
            field,
            message: msg.into(),
        },
        other => Error::Storage(other),
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
    /// A rule checked inside the transaction refused the change (which was rolled back), e.g.
    /// that a realm keeps at least one enabled admin.
    #[error("precondition failed: {0}")]
    Precondition(&'static str),
    /// The database schema is missing or behind this version (`migrate_on_start = false`).
    #[error("{0}")]
    Schema(String),
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

#[cfg(test)]
mod tests {
    use super::OAuthErrorCode;

    #[test]
    fn every_error_code_is_listed_once() {
        // A new variant breaks this match until it is listed in `ALL` too.
        let listed = |c: OAuthErrorCode| match c {
            OAuthErrorCode::InvalidRequest
            | OAuthErrorCode::InvalidClient
            | OAuthErrorCode::UnauthorizedClient
            | OAuthErrorCode::UnsupportedGrantType
            | OAuthErrorCode::InvalidScope
            | OAuthErrorCode::InvalidTarget
            | OAuthErrorCode::UnsupportedTokenType
            | OAuthErrorCode::InvalidGrant
            | OAuthErrorCode::AccessDenied
            | OAuthErrorCode::UnsupportedResponseType
            | OAuthErrorCode::InvalidRedirectUri
            | OAuthErrorCode::InvalidClientMetadata
            | OAuthErrorCode::TemporarilyUnavailable
            | OAuthErrorCode::InvalidToken
            | OAuthErrorCode::AuthorizationPending
            | OAuthErrorCode::SlowDown
            | OAuthErrorCode::ExpiredToken => OAuthErrorCode::ALL.contains(&c),
        };
        assert!(OAuthErrorCode::ALL.iter().all(|c| listed(*c)));
        let mut names: Vec<_> = OAuthErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        names.dedup();
        assert_eq!(names.len(), OAuthErrorCode::ALL.len());
    }
}

/// The problems of a form's fields, collected so that the form shows all of them at once rather
/// than one per submission. One problem stays an [`Error::InvalidField`] (what dynamic
/// registration and the CLI expect); several become [`Error::Findings`].
#[derive(Debug, Default)]
pub(crate) struct FieldChecks(Vec<(&'static str, String)>);

impl FieldChecks {
    /// The value of `checked`, or `None` with its message noted against `field`.
    pub(crate) fn take<T, M: Into<Cow<'static, str>>>(
        &mut self,
        field: &'static str,
        checked: std::result::Result<T, M>,
    ) -> Option<T> {
        checked
            .map_err(|m| self.note(field, m.into().into_owned()))
            .ok()
    }

    /// The value of a check that already names its field ([`Error::InvalidField`]); any other
    /// error is noted against `field` in general words (its own text may be internal).
    pub(crate) fn take_error<T>(&mut self, field: &'static str, checked: Result<T>) -> Option<T> {
        match checked {
            Ok(v) => Some(v),
            Err(Error::InvalidField { field, message }) => {
                self.note(field, message.into_owned());
                None
            }
            Err(other) => {
                tracing::warn!(field, error = %other, "a field check failed unexpectedly");
                self.note(field, "This value could not be checked; try again.");
                None
            }
        }
    }

    /// Notes a problem with `field`.
    pub(crate) fn note(&mut self, field: &'static str, message: impl Into<String>) {
        self.0.push((field, message.into()));
    }

    /// Everything noted, as one error (`Ok` when nothing was).
    pub(crate) fn finish(self) -> Result<()> {
        match <[_; 1]>::try_from(self.0) {
            Ok([(field, message)]) => Err(Error::InvalidField {
                field,
                message: message.into(),
            }),
            Err(found) if found.is_empty() => Ok(()),
            Err(found) => Err(Error::Findings(
                found
                    .into_iter()
                    .map(|(field, message)| portcullis_manifest::Finding {
                        field: field.to_owned(),
                        message,
                    })
                    .collect(),
            )),
        }
    }

    /// Everything noted as an error, for when a value is missing because a check failed.
    pub(crate) fn failed(self) -> Error {
        self.finish()
            .err()
            .unwrap_or_else(|| Error::invalid("invalid input"))
    }
}

#[cfg(test)]
mod field_checks_tests {
    use super::*;

    #[test]
    fn one_problem_names_its_field_several_are_all_reported() {
        let mut c = FieldChecks::default();
        assert_eq!(c.take::<u8, &str>("name", Ok(1)), Some(1));
        assert!(c.finish().is_ok());

        let mut c = FieldChecks::default();
        assert_eq!(c.take::<u8, _>("uri", Err("not https")), None);
        assert!(matches!(
            c.finish(),
            Err(Error::InvalidField { field: "uri", ref message }) if message == "not https"
        ));

        let mut c = FieldChecks::default();
        c.take::<u8, _>("uri", Err("not https"));
        c.take_error::<u8>("ttl", Err(Error::field("token_ttl_secs", "too long")));
        let Err(Error::Findings(found)) = c.finish() else {
            panic!("several problems are findings");
        };
        let fields: Vec<_> = found.iter().map(|f| f.field.as_str()).collect();
        assert_eq!(fields, ["uri", "token_ttl_secs"]);
    }
}
