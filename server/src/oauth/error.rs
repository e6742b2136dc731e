//! The one mapping from core errors to OAuth error responses (RFC 6749 §5.2): JSON
//! `{"error","error_description"}`, 400 (401 with `WWW-Authenticate` for `invalid_client`,
//! 429 with `Retry-After` when throttled), never cached.
use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// A core error rendered for a protocol endpoint of `realm`.
#[derive(Debug)]
pub struct OAuthResponse {
    error: authz::Error,
    realm: String,
}

impl OAuthResponse {
    /// Wraps an error.
    pub fn new(error: authz::Error, realm: &str) -> Self {
        Self {
            error,
            realm: realm.to_owned(),
        }
    }
}

fn body(status: StatusCode, code: &str, description: &str) -> Response {
    let mut res = (
        status,
        Json(serde_json::json!({"error": code, "error_description": description})),
    )
        .into_response();
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res.headers_mut()
        .insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    res
}

impl IntoResponse for OAuthResponse {
    fn into_response(self) -> Response {
        match self.error {
            authz::Error::OAuth(e) if e.code == authz::error::OAuthErrorCode::InvalidClient => {
                let mut res = body(StatusCode::UNAUTHORIZED, e.code.as_str(), &e.description);
                // The realm name is a slug, so it is always a valid quoted-string.
                if let Ok(v) = HeaderValue::from_str(&format!("Basic realm=\"{}\"", self.realm)) {
                    res.headers_mut().insert(header::WWW_AUTHENTICATE, v);
                }
                res
            }
            authz::Error::OAuth(e) => {
                body(StatusCode::BAD_REQUEST, e.code.as_str(), &e.description)
            }
            authz::Error::Throttled { retry_after_secs } => {
                let mut res = body(
                    StatusCode::TOO_MANY_REQUESTS,
                    "invalid_client",
                    &format!(
                        "Too many failed client authentications; retry after {retry_after_secs} seconds."
                    ),
                );
                res.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
                res
            }
            authz::Error::NotFound { .. } => body(
                StatusCode::NOT_FOUND,
                "invalid_request",
                "Unknown or disabled realm.",
            ),
            e @ (authz::Error::Storage(_) | authz::Error::Internal(_)) => {
                tracing::error!(error = ?e, "Protocol endpoint failed");
                body(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "server_error",
                    "The server failed; the error was logged.",
                )
            }
            other => body(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                &other.to_string(),
            ),
        }
    }
}
