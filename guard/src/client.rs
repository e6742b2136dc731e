//! The guard's HTTP client: the realm's metadata, its JWK Set and introspection.
//!
//! rustls on AWS-LC with Mozilla's roots; no redirects, no proxies from the environment, 3 s to
//! connect, 5 s in all, bounded bodies.
use std::time::Duration;

/// The largest document read from the authorization server.
const MAX_BODY: usize = 256 * 1024;

/// Why a request to the authorization server failed (kept for logs, never sent to callers).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct HttpError(pub(crate) String);

#[derive(Debug, Clone)]
pub(crate) struct Http {
    client: reqwest::Client,
}

/// A JSON answer and how long it may be cached.
pub(crate) struct Json {
    pub(crate) body: serde_json::Value,
    pub(crate) max_age: Option<Duration>,
}

impl Http {
    pub(crate) fn new() -> Result<Self, String> {
        let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let client = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .user_agent(concat!("portcullis-guard/", env!("CARGO_PKG_VERSION")))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .connect_timeout(Duration::from_secs(3))
            .timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Self { client })
    }

    pub(crate) async fn get_json(&self, url: &str) -> Result<Json, HttpError> {
        let req = self
            .client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json");
        read_json(req).await
    }

    pub(crate) async fn post_form(
        &self,
        url: &str,
        basic: (&str, &str),
        form: &[(&str, &str)],
    ) -> Result<Json, HttpError> {
        // RFC 6749 §2.3.1: the id and secret are form-encoded before Basic encoding.
        let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let req = self
            .client
            .post(url)
            .basic_auth(enc(basic.0), Some(enc(basic.1)))
            .header(reqwest::header::ACCEPT, "application/json")
            .form(form);
        read_json(req).await
    }
}

async fn read_json(req: reqwest::RequestBuilder) -> Result<Json, HttpError> {
    let err = |e: reqwest::Error| {
        HttpError(if e.is_timeout() {
            "timed out".into()
        } else if e.is_connect() {
            "could not connect".into()
        } else {
            e.without_url().to_string()
        })
    };
    let mut res = req.send().await.map_err(err)?;
    if res.status() != reqwest::StatusCode::OK {
        return Err(HttpError(format!("HTTP status {}", res.status())));
    }
    let max_age = res
        .headers()
        .get(reqwest::header::CACHE_CONTROL)
        .and_then(|v| v.to_str().ok())
        .and_then(max_age);
    let mut body = Vec::new();
    while let Some(chunk) = res.chunk().await.map_err(err)? {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(HttpError("document too large".into()));
        }
        body.extend_from_slice(&chunk);
    }
    let body =
        serde_json::from_slice(&body).map_err(|_| HttpError("not a JSON document".into()))?;
    Ok(Json { body, max_age })
}

/// `max-age` of a `Cache-Control` value (`no-store`/`no-cache` count as 0).
fn max_age(v: &str) -> Option<Duration> {
    v.split(',').map(str::trim).find_map(|d| {
        let d = d.to_ascii_lowercase();
        if d == "no-store" || d == "no-cache" {
            Some(Duration::ZERO)
        } else {
            d.strip_prefix("max-age=")
                .and_then(|n| n.trim_matches('"').parse().ok())
                .map(Duration::from_secs)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_control() {
        assert_eq!(
            max_age("public, max-age=600"),
            Some(Duration::from_secs(600))
        );
        assert_eq!(max_age("no-store"), Some(Duration::ZERO));
        assert_eq!(max_age("public"), None);
        assert_eq!(max_age("max-age=x"), None);
    }
}
