//! The tower layer that guards routes: no valid token, no request.
use crate::Guard;
use crate::challenge::Rejection;
use axum::response::Response;
use http::{HeaderMap, Request, header};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tower_layer::Layer;
use tower_service::Service;

/// The longest `Authorization` header read: a Portcullis token is well under 2 KiB.
pub(crate) const MAX_AUTHORIZATION_BYTES: usize = 16 * 1024;

/// Guards the routes it wraps; made by [`Guard::layer`] or [`Guard::layer_requiring`].
#[derive(Debug, Clone)]
pub struct GuardLayer {
    guard: Guard,
    scopes: Arc<[String]>,
}

impl Guard {
    /// A layer that lets through requests with a valid token carrying the guard's required
    /// scopes, handing the [`Caller`](crate::Caller) to the handler, and answers the others
    /// with the challenge (`401`, `403`) or `503` when the realm's keys cannot be had.
    ///
    /// Every request needs a token, `OPTIONS` too: browser clients' CORS preflights are for a
    /// CORS layer added *after* this one (outermost, e.g. tower-http's `CorsLayer`), which
    /// answers them before they reach the guard.
    pub fn layer(&self) -> GuardLayer {
        GuardLayer {
            guard: self.clone(),
            scopes: self.inner.scopes.clone().into(),
        }
    }

    /// Like [`Guard::layer`], requiring `scopes` instead (a route that needs more: a token
    /// without them gets the `403` step-up challenge naming them).
    ///
    /// # Errors
    /// [`ConfigError::Scope`](crate::ConfigError::Scope) for a scope that is not an RFC 6749
    /// scope token.
    pub fn layer_requiring<I, S>(&self, scopes: I) -> Result<GuardLayer, crate::config::ConfigError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let scopes: Vec<String> = scopes.into_iter().map(Into::into).collect();
        crate::config::check_scopes(&scopes)?;
        Ok(GuardLayer {
            guard: self.clone(),
            scopes: scopes.into(),
        })
    }

    /// Verifies the bearer token of a request's headers with the required `scopes`.
    ///
    /// # Errors
    /// The [`Rejection`] to answer with ([`Guard::reject`]).
    pub async fn authorize(
        &self,
        headers: &HeaderMap,
        scopes: &[String],
    ) -> Result<crate::caller::Caller, Rejection> {
        let token = bearer(headers)?;
        self.verify_requiring(token, scopes).await
    }
}

/// The token of `Authorization: Bearer …` (RFC 6750 §2.1). Another scheme is no bearer
/// authentication at all: it gets the plain challenge.
fn bearer(headers: &HeaderMap) -> Result<&str, Rejection> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Err(Rejection::MissingToken);
    };
    if values.next().is_some() {
        return Err(Rejection::InvalidToken(
            "More than one Authorization header.",
        ));
    }
    if value.len() > MAX_AUTHORIZATION_BYTES {
        return Err(Rejection::InvalidToken("The token is too long."));
    }
    let value = value
        .to_str()
        .map_err(|_| Rejection::InvalidToken("The Authorization header is not text."))?;
    match value.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => {
            let token = token.trim();
            if token.is_empty() {
                Err(Rejection::InvalidToken("The bearer token is empty."))
            } else {
                Ok(token)
            }
        }
        _ => Err(Rejection::MissingToken),
    }
}

impl<S> Layer<S> for GuardLayer {
    type Service = GuardService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        GuardService {
            inner,
            guard: self.guard.clone(),
            scopes: self.scopes.clone(),
        }
    }
}

/// The service [`GuardLayer`] wraps around a route.
#[derive(Debug, Clone)]
pub struct GuardService<S> {
    inner: S,
    guard: Guard,
    scopes: Arc<[String]>,
}

impl<S, B> Service<Request<B>> for GuardService<S>
where
    S: Service<Request<B>, Response = Response> + Clone + Send + 'static,
    S::Future: Send,
    B: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: Request<B>) -> Self::Future {
        // The clone is not ready yet; the ready one handles this request (tower's usual dance).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let (guard, scopes) = (self.guard.clone(), self.scopes.clone());
        Box::pin(async move {
            match guard.authorize(req.headers(), &scopes).await {
                Ok(caller) => {
                    req.extensions_mut().insert(caller);
                    inner.call(req).await
                }
                Err(rejection) => {
                    if let Rejection::InvalidToken(why) = &rejection {
                        tracing::debug!("Refused a token: {why}");
                    }
                    Ok(guard.reject(&rejection, &scopes))
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn bearer_tokens_are_read_strictly() {
        let with = |values: &[&str]| {
            let mut h = HeaderMap::new();
            for v in values {
                h.append(
                    header::AUTHORIZATION,
                    HeaderValue::from_str(v).expect("header"),
                );
            }
            bearer(&h).map(str::to_owned)
        };
        assert_eq!(with(&[]), Err(Rejection::MissingToken));
        assert_eq!(with(&["Basic abc"]), Err(Rejection::MissingToken));
        assert_eq!(with(&["Bearer"]), Err(Rejection::MissingToken));
        assert_eq!(with(&["bearer abc"]).as_deref(), Ok("abc"));
        assert_eq!(with(&["Bearer  abc "]).as_deref(), Ok("abc"));
        assert!(matches!(
            with(&["Bearer  "]),
            Err(Rejection::InvalidToken(_))
        ));
        assert!(matches!(
            with(&["Bearer a", "Bearer b"]),
            Err(Rejection::InvalidToken(_))
        ));
        let long = format!("Bearer {}", "a".repeat(MAX_AUTHORIZATION_BYTES));
        assert!(matches!(with(&[&long]), Err(Rejection::InvalidToken(_))));
    }
}
