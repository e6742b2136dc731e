//! Refusals and the challenges that answer them (RFC 6750 §3, RFC 9728 §5.1).
use crate::Guard;
use axum::body::Body;
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Rejection {
    /// No bearer token: `401` with the challenge clients discover everything from (no error
    /// code, RFC 6750 §3.1).
    #[error("no bearer token")]
    MissingToken,
    /// The token is not a valid access token for this resource: `401` with
    /// `error="invalid_token"`. The text says why, for the developer of the client.
    #[error("invalid token: {0}")]
    InvalidToken(&'static str),
    /// The token lacks a required scope: `403` with `error="insufficient_scope"` and the scopes
    /// to ask for (step-up).
    #[error("the token lacks a required scope")]
    InsufficientScope,
    /// The realm's keys (or its introspection endpoint) cannot be reached: `503`.
    #[error("the authorization server cannot be reached")]
    Unavailable,
}

impl Rejection {
    /// The HTTP status the refusal is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            Self::MissingToken | Self::InvalidToken(_) => StatusCode::UNAUTHORIZED,
            Self::InsufficientScope => StatusCode::FORBIDDEN,
            Self::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// What a `403` step-up challenge says (the generator prints the same).
pub(crate) const INSUFFICIENT_SCOPE: &str = "The token lacks a scope this request needs.";

impl Guard {
    /// The `WWW-Authenticate` value for a request without a token, asking for `scopes`:
    /// `Bearer resource_metadata="…", scope="…"`.
    pub fn challenge(&self, scopes: &[String]) -> String {
        self.challenge_with(None, scopes)
    }

    fn challenge_with(&self, error: Option<(&str, &str)>, scopes: &[String]) -> String {
        let mut parts = Vec::with_capacity(4);
        if let Some((code, description)) = error {
            parts.push(format!("error=\"{code}\""));
            parts.push(format!("error_description=\"{description}\""));
        }
        parts.push(format!(
            "resource_metadata=\"{}\"",
            self.inner.metadata_urls[0]
        ));
        if !scopes.is_empty() {
            parts.push(format!("scope=\"{}\"", scopes.join(" ")));
        }
        format!("Bearer {}", parts.join(", "))
    }

    /// The response to a refusal on a route that requires `scopes`.
    pub fn reject(&self, rejection: &Rejection, scopes: &[String]) -> Response {
        let challenge = match rejection {
            Rejection::MissingToken => Some(self.challenge(scopes)),
            // The reasons are fixed texts without quotes or backslashes (RFC 6750 §3).
            Rejection::InvalidToken(why) => {
                Some(self.challenge_with(Some(("invalid_token", why)), &[]))
            }
            Rejection::InsufficientScope => {
                Some(self.challenge_with(Some(("insufficient_scope", INSUFFICIENT_SCOPE)), scopes))
            }
            Rejection::Unavailable => None,
        };
        let mut res = Response::new(match rejection {
            Rejection::Unavailable => {
                Body::from("The authorization server cannot be reached; try again shortly.")
            }
            _ => Body::empty(),
        });
        *res.status_mut() = rejection.status();
        let h = res.headers_mut();
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        match challenge.map(HeaderValue::try_from) {
            Some(Ok(v)) => {
                h.insert(header::WWW_AUTHENTICATE, v);
            }
            Some(Err(_)) => {
                tracing::error!("A challenge is not a valid header value");
            }
            None => {
                h.insert(header::RETRY_AFTER, HeaderValue::from_static("10"));
            }
        }
        res
    }
}
