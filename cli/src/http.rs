//! HTTPS GETs with a size cap: rustls on *ring* with Mozilla's roots compiled in, http only to
//! this machine (tests, local development), redirects only within the same origin.
use crate::Failure;
use reqwest::header::{HeaderMap, HeaderValue};
use std::net::IpAddr;
use std::time::Duration;
use url::Url;

/// Largest metadata or JWKS document read.
pub const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;

/// A response: its status and body.
#[derive(Debug)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The body (empty for 304).
    pub body: Vec<u8>,
}

/// A client for one server.
#[derive(Debug)]
pub struct Http {
    client: reqwest::Client,
}

/// Whether `url` may be fetched: https, or http to a loopback address or `localhost`.
///
/// # Errors
/// Why not, for the user.
pub fn check_url(url: &Url) -> Result<(), String> {
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!("{url}: no user name or password in the URL"));
    }
    if url.fragment().is_some() {
        return Err(format!("{url}: no fragment"));
    }
    match url.scheme() {
        "https" if url.host_str().is_some() => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        "http" => Err(format!(
            "{url}: https only (http is allowed to this machine alone)"
        )),
        _ => Err(format!("{url}: not an https URL")),
    }
}

/// Whether the URL's host is this machine.
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

impl Http {
    /// A client; `local` (the server is on this machine) also skips proxies.
    ///
    /// # Errors
    /// When the TLS stack cannot be set up.
    pub fn new(local: bool) -> Result<Self, Failure> {
        let tls = tls()?;
        // Same origin only, never down to http: a redirect must not carry the token elsewhere.
        let redirects = reqwest::redirect::Policy::custom(|attempt| {
            let first = attempt.previous().first();
            let same = first.is_some_and(|f| {
                f.scheme() == attempt.url().scheme()
                    && f.host_str() == attempt.url().host_str()
                    && f.port_or_known_default() == attempt.url().port_or_known_default()
            });
            if same && attempt.previous().len() < 5 {
                attempt.follow()
            } else {
                attempt.stop()
            }
        });
        let mut builder = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .user_agent(concat!("portcullis-cli/", env!("CARGO_PKG_VERSION")))
            .redirect(redirects)
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(60));
        if local {
            builder = builder.no_proxy();
        }
        let client = builder
            .build()
            .map_err(|e| Failure::error(format!("Failed to set up HTTP: {e}")))?;
        Ok(Http { client })
    }

    /// GETs `url`, reading at most `cap` bytes of body.
    ///
    /// # Errors
    /// When the URL is not allowed, the request fails, or the body is larger than `cap`.
    pub async fn get(
        &self,
        url: &Url,
        headers: HeaderMap,
        cap: usize,
        what: &str,
    ) -> Result<Response, Failure> {
        check_url(url).map_err(Failure::error)?;
        let failed = |e: reqwest::Error| {
            Failure::error(format!("Failed to fetch the {what} ({url}): {}", cause(&e)))
        };
        let mut res = self
            .client
            .get(url.clone())
            .headers(headers)
            .send()
            .await
            .map_err(failed)?;
        let status = res.status().as_u16();
        if (300..400).contains(&status) && status != 304 {
            return Err(Failure::error(format!(
                "Failed to fetch the {what} ({url}): redirected to another origin ({status}), refused"
            )));
        }
        let too_large = || {
            Failure::error(format!(
                "Failed to fetch the {what} ({url}): larger than {cap} bytes"
            ))
        };
        if res.content_length().is_some_and(|n| n > cap as u64) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = res.chunk().await.map_err(failed)? {
            if body.len() + chunk.len() > cap {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Response { status, body })
    }
}

impl Http {
    /// POSTs `body` as JSON with a bearer token, reading at most 64 KiB of answer.
    ///
    /// # Errors
    /// When the URL is not allowed, the request fails, or the answer is larger than that.
    pub async fn post_json<T: serde::Serialize + ?Sized>(
        &self,
        url: &Url,
        token: &str,
        body: &T,
        what: &str,
    ) -> Result<Response, Failure> {
        const CAP: usize = 64 * 1024;
        check_url(url).map_err(Failure::error)?;
        let failed = |e: reqwest::Error| {
            Failure::error(format!("Failed to send the {what} ({url}): {}", cause(&e)))
        };
        let body = serde_json::to_vec(body)
            .map_err(|e| Failure::error(format!("Failed to serialise the {what}: {e}")))?;
        let mut headers = header("authorization", &format!("Bearer {token}"))?;
        headers.extend(header("content-type", "application/json")?);
        let mut res = self
            .client
            .post(url.clone())
            .headers(headers)
            .body(body)
            .send()
            .await
            .map_err(failed)?;
        let status = res.status().as_u16();
        let mut answer = Vec::new();
        while let Some(chunk) = res.chunk().await.map_err(failed)? {
            if answer.len() + chunk.len() > CAP {
                return Err(Failure::error(format!(
                    "The answer to the {what} is larger than {CAP} bytes"
                )));
            }
            answer.extend_from_slice(&chunk);
        }
        Ok(Response {
            status,
            body: answer,
        })
    }
}

/// rustls on *ring* with Mozilla's roots.
fn tls() -> Result<rustls::ClientConfig, Failure> {
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Failure::error(format!("Failed to set up TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// The client OAuth requests go through: the same TLS, and no redirects at all (a token
/// endpoint that redirects must not get a credential sent on).
///
/// # Errors
/// When the TLS stack cannot be set up.
pub fn oauth_client(local: bool) -> Result<reqwest::Client, Failure> {
    let mut builder = reqwest::Client::builder()
        .use_preconfigured_tls(tls()?)
        .user_agent(concat!("portcullis-cli/", env!("CARGO_PKG_VERSION")))
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(60));
    if local {
        builder = builder.no_proxy();
    }
    builder
        .build()
        .map_err(|e| Failure::error(format!("Failed to set up HTTP: {e}")))
}

/// A header map with one header.
pub fn header(name: &'static str, value: &str) -> Result<HeaderMap, Failure> {
    let mut map = HeaderMap::new();
    let mut value = HeaderValue::from_str(value)
        .map_err(|_| Failure::error(format!("The {name} header value is not valid")))?;
    value.set_sensitive(name.eq_ignore_ascii_case("authorization"));
    map.insert(name, value);
    Ok(map)
}

/// Why a request failed, in words (without the URL, which the caller names).
fn cause(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "timed out".to_owned()
    } else if e.is_connect() {
        "could not connect".to_owned()
    } else {
        without_url(e)
    }
}

fn without_url(e: &reqwest::Error) -> String {
    let text = e.to_string();
    match e.url() {
        Some(url) => text.replace(&format!(" ({url})"), ""),
        None => text,
    }
}
