//! The one mapping from core errors to OAuth error responses (RFC 6749 §5.2): JSON
//! `{"error","error_description"}`, 400 (401 with `WWW-Authenticate` for `invalid_client`;
//! 429 with `Retry-After` and `temporarily_unavailable` when throttled, never
//! `invalid_client`, which MCP clients take as "delete my registration"), never cached. Errors
//! of the authorization endpoint that may be redirected become a `303` to the client's verified
//! redirect URI.
use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// A core error rendered for a protocol endpoint of `realm`.
#[derive(Debug)]
pub struct OAuthResponse {
    error: authz::Error,
    realm: String,
    /// At the token endpoint every error but `invalid_client` is a 400 (RFC 6749 §5.2; a
    /// device's `access_denied`, RFC 8628 §3.5, included).
    token_endpoint: bool,
}

impl OAuthResponse {
    /// Wraps an error. `realm` is the path segment as requested: only a valid realm name is
    /// ever echoed (in `WWW-Authenticate`), anything else is replaced.
    pub fn new(error: authz::Error, realm: &str) -> Self {
        Self {
            error,
            realm: authz::realms::RealmName::parse(realm)
                .map_or_else(|_| "portcullis".to_owned(), |r| r.to_string()),
            token_endpoint: false,
        }
    }

    /// The same error, answered as the token endpoint answers (RFC 6749 §5.2).
    pub fn at_token_endpoint(mut self) -> Self {
        self.token_endpoint = true;
        self
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

impl OAuthResponse {
    /// The error code the response carries and the reason in words (its description), for
    /// the refusal log line and metrics. Never a secret: descriptions are written here and in
    /// the core, and name parameters, not their values.
    pub fn code_and_reason(&self) -> (&'static str, String) {
        use authz::error::OAuthErrorCode as Code;
        match &self.error {
            authz::Error::OAuth(e) => (e.code.as_str(), e.description.to_string()),
            authz::Error::Throttled { retry_after_secs } => (
                Code::TemporarilyUnavailable.as_str(),
                format!(
                    "throttled: too many requests from this source or for this client; retry after {retry_after_secs} s"
                ),
            ),
            authz::Error::InvalidField { field, message } => (
                if *field == "redirect_uris" {
                    Code::InvalidRedirectUri.as_str()
                } else {
                    Code::InvalidClientMetadata.as_str()
                },
                format!("{field}: {message}"),
            ),
            authz::Error::Redirect(r) => (r.error.code.as_str(), r.error.description.to_string()),
            authz::Error::NotFound { .. } => {
                ("invalid_request", "unknown or disabled realm".to_owned())
            }
            authz::Error::Storage(_) | authz::Error::Internal(_) => {
                ("server_error", "the server failed".to_owned())
            }
            other => ("invalid_request", other.to_string()),
        }
    }

    /// Whether the server failed (rather than refusing the request).
    pub fn is_server_error(&self) -> bool {
        matches!(
            self.error,
            authz::Error::Storage(_) | authz::Error::Internal(_)
        )
    }
}

impl IntoResponse for OAuthResponse {
    fn into_response(self) -> Response {
        let (code, description) = self.code_and_reason();
        match self.error {
            authz::Error::OAuth(e) if e.code == authz::error::OAuthErrorCode::InvalidClient => {
                let mut res = body(StatusCode::UNAUTHORIZED, code, &e.description);
                // A parsed realm name is a slug, so it is always a valid quoted-string.
                if let Ok(v) = HeaderValue::from_str(&format!("Basic realm=\"{}\"", self.realm)) {
                    res.headers_mut().insert(header::WWW_AUTHENTICATE, v);
                }
                res
            }
            authz::Error::OAuth(e) if e.code == authz::error::OAuthErrorCode::InvalidToken => {
                let mut res = body(StatusCode::UNAUTHORIZED, code, &e.description);
                res.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer error=\"invalid_token\""),
                );
                res
            }
            authz::Error::OAuth(e)
                if e.code == authz::error::OAuthErrorCode::AccessDenied && !self.token_endpoint =>
            {
                body(StatusCode::FORBIDDEN, code, &e.description)
            }
            authz::Error::OAuth(e) => body(StatusCode::BAD_REQUEST, code, &e.description),
            authz::Error::Throttled { retry_after_secs } => {
                let mut res = body(
                    StatusCode::TOO_MANY_REQUESTS,
                    code,
                    &format!(
                        "Too many requests from here; retry after {retry_after_secs} seconds."
                    ),
                );
                res.headers_mut()
                    .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
                res
            }
            authz::Error::InvalidField { message, .. } => {
                body(StatusCode::BAD_REQUEST, code, &message)
            }
            authz::Error::Redirect(r) => {
                let mut res = StatusCode::SEE_OTHER.into_response();
                if let Ok(v) = HeaderValue::from_str(r.location().as_str()) {
                    res.headers_mut().insert(header::LOCATION, v);
                }
                res.headers_mut()
                    .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                res
            }
            authz::Error::NotFound { .. } => {
                body(StatusCode::NOT_FOUND, code, "Unknown or disabled realm.")
            }
            e @ (authz::Error::Storage(_) | authz::Error::Internal(_)) => {
                tracing::error!(error = ?e, "Protocol endpoint failed");
                body(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    code,
                    "The server failed; the error was logged.",
                )
            }
            _ => body(StatusCode::BAD_REQUEST, code, &description),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use authz::error::{OAuthError, OAuthErrorCode, RedirectError};

    #[test]
    fn authorization_errors_redirect_with_state_and_iss() {
        let err = authz::Error::Redirect(Box::new(RedirectError {
            redirect_uri: url::Url::parse("http://127.0.0.1:5173/cb?keep=1").expect("url"),
            error: OAuthError {
                code: OAuthErrorCode::AccessDenied,
                description: "The user denied the request.".into(),
            },
            state: Some("xyz & more".into()),
            iss: "https://id.example.com/realms/default".into(),
        }));
        let res = OAuthResponse::new(err, "default").into_response();
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        let location = res.headers()[header::LOCATION].to_str().expect("ascii");
        let url = url::Url::parse(location).expect("url");
        let q: Vec<(String, String)> = url.query_pairs().into_owned().collect();
        let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(get("keep"), Some("1"), "the registered query is kept");
        assert_eq!(get("error"), Some("access_denied"));
        assert_eq!(get("state"), Some("xyz & more"));
        assert_eq!(get("iss"), Some("https://id.example.com/realms/default"));
    }

    #[test]
    fn only_a_valid_realm_name_reaches_the_challenge() {
        let unauthorized = || {
            authz::Error::oauth(
                OAuthErrorCode::InvalidClient,
                "Client authentication failed.",
            )
        };
        let res =
            OAuthResponse::new(unauthorized(), "x\", Bearer error=\"injected").into_response();
        assert_eq!(
            res.headers()[header::WWW_AUTHENTICATE],
            "Basic realm=\"portcullis\""
        );
        let res = OAuthResponse::new(unauthorized(), "Payments").into_response();
        assert_eq!(
            res.headers()[header::WWW_AUTHENTICATE],
            "Basic realm=\"payments\""
        );
    }

    #[test]
    fn throttling_is_never_invalid_client() {
        let res = OAuthResponse::new(
            authz::Error::Throttled {
                retry_after_secs: 42,
            },
            "default",
        )
        .into_response();
        assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(res.headers()[header::RETRY_AFTER], "42");
        assert!(res.headers().get(header::WWW_AUTHENTICATE).is_none());
    }

    #[tokio::test]
    async fn metadata_errors_name_their_code() {
        use http_body_util::BodyExt as _;
        for (field, code) in [
            ("redirect_uris", "invalid_redirect_uri"),
            ("jwks_uri", "invalid_client_metadata"),
        ] {
            let res =
                OAuthResponse::new(authz::Error::field(field, "bad"), "default").into_response();
            assert_eq!(res.status(), StatusCode::BAD_REQUEST);
            let bytes = res.into_body().collect().await.expect("body").to_bytes();
            let json: serde_json::Value = serde_json::from_slice(&bytes).expect("json");
            assert_eq!(json["error"], code);
            assert_eq!(json["error_description"], "bad");
        }
    }
}
