//! The console's error type: small, serialisable, and never carrying internal details.
//!
//! It names only `status` (to set the HTTP status of a failure); `ssr`, `api`, `components` and
//! `pages` name it, never the other way round.
use serde::{Deserialize, Serialize};

/// An error returned by a console server function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum AppError {
    /// No session.
    #[error("Your session has ended. Please sign in again.")]
    Unauthenticated,
    /// The role does not allow the operation.
    #[error("Your role does not allow this.")]
    Forbidden,
    /// The entity does not exist.
    #[error("{0}")]
    NotFound(String),
    /// Input was rejected; the message says why.
    #[error("{0}")]
    Invalid(String),
    /// One input field was rejected: forms show the message on that field.
    #[error("{message}")]
    Field {
        /// The server's name for the field (RFC 7591 member names for client metadata).
        field: String,
        /// Why, in plain words.
        message: String,
    },
    /// Several input fields were rejected (a registry server's checks): forms show each
    /// message on its field.
    #[error("{}", fields_message(.0))]
    Fields(Vec<FieldProblem>),
    /// The change conflicts with existing state.
    #[error("{0}")]
    Conflict(String),
    /// Something failed on the server; details are in the server log only.
    #[error("Something went wrong on the server. The error was logged.")]
    Internal,
    /// The request did not reach the server function (network, decoding).
    #[error("Request failed: {0}")]
    Request(String),
}

/// One rejected field of [`AppError::Fields`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldProblem {
    /// The server's name for the field: a path (`package.version`, `headers.Authorization`).
    pub field: String,
    /// Why, in plain words.
    pub message: String,
}

/// The message of several rejected fields as one line (for toasts and plain clients).
fn fields_message(problems: &[FieldProblem]) -> String {
    match problems {
        [] => "The input was rejected.".to_owned(),
        [one] => one.message.clone(),
        [first, rest @ ..] => format!(
            "{} (and {} more problem{})",
            first.message,
            rest.len(),
            if rest.len() == 1 { "" } else { "s" }
        ),
    }
}

impl leptos::server_fn::error::FromServerFnError for AppError {
    type Encoder = leptos::server_fn::codec::JsonEncoding;

    fn from_server_fn_error(value: leptos::server_fn::error::ServerFnErrorErr) -> Self {
        // On the server, arguments that do not decode are the caller's fault: 400, not 500.
        #[cfg(feature = "ssr")]
        {
            use leptos::server_fn::error::ServerFnErrorErr as E;
            if matches!(value, E::Args(_) | E::MissingArg(_) | E::Deserialization(_)) {
                crate::status::set_status(axum::http::StatusCode::BAD_REQUEST);
            }
        }
        AppError::Request(value.to_string())
    }
}

/// The one mapping from core errors to what the console shows: a status and a safe message.
///
/// Internal failures are logged here and flattened to [`AppError::Internal`]. Server functions
/// and the console's plain routes (the audit export) both use it.
#[cfg(feature = "ssr")]
pub fn classify(e: authz::Error) -> (axum::http::StatusCode, AppError) {
    use axum::http::StatusCode;
    match e {
        authz::Error::Invalid(m) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            AppError::Invalid(m.into()),
        ),
        authz::Error::InvalidField { field, message } => (
            StatusCode::UNPROCESSABLE_ENTITY,
            AppError::Field {
                field: field.to_owned(),
                message: message.into(),
            },
        ),
        authz::Error::Findings(found) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            AppError::Fields(
                found
                    .into_iter()
                    .map(|f| FieldProblem {
                        field: f.field,
                        message: f.message,
                    })
                    .collect(),
            ),
        ),
        authz::Error::NotFound { .. } => (StatusCode::NOT_FOUND, AppError::NotFound(e.to_string())),
        authz::Error::Conflict(m) => (StatusCode::CONFLICT, AppError::Conflict(m.into())),
        authz::Error::Taken { field, message } => (
            StatusCode::CONFLICT,
            AppError::Field {
                field: field.to_owned(),
                message: message.into(),
            },
        ),
        authz::Error::Unauthenticated => (StatusCode::UNAUTHORIZED, AppError::Unauthenticated),
        authz::Error::Forbidden => (StatusCode::FORBIDDEN, AppError::Forbidden),
        authz::Error::OAuth(o) => (
            StatusCode::BAD_REQUEST,
            AppError::Invalid(o.description.into_owned()),
        ),
        authz::Error::InvalidCredentials
        | authz::Error::Throttled { .. }
        | authz::Error::InvalidLink => (StatusCode::BAD_REQUEST, AppError::Invalid(e.to_string())),
        authz::Error::Storage(_) | authz::Error::Internal(_) | authz::Error::Redirect(_) => {
            tracing::error!(error = ?e, "Console operation failed");
            (StatusCode::INTERNAL_SERVER_ERROR, AppError::Internal)
        }
    }
}

#[cfg(feature = "ssr")]
impl From<authz::Error> for AppError {
    fn from(e: authz::Error) -> Self {
        let (status, err) = classify(e);
        crate::status::set_status(status);
        err
    }
}
