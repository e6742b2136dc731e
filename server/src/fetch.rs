//! The HTTPS client behind [`authz::fetch::Fetcher`]: fetches documents clients publish (their
//! `jwks_uri`) without becoming an SSRF proxy.
//!
//! Host names are resolved by [`PublicResolver`], which refuses a name if any of its addresses
//! is not public unicast (so DNS cannot point us at 127.0.0.1, 10.0.0.0/8 or the cloud metadata
//! service), and the connection goes to exactly the checked addresses. IP literals are checked
//! the same way. No redirects (a registry import follows a few on the same host), no proxies,
//! 3 s to connect, 5 s in all, 64 KiB at most (1 MiB for a registry import).
use authz::fetch::{
    FetchError, Fetched, MAX_DOCUMENT_BYTES, MAX_PROBE_BODY_BYTES, Probe, ProbeResponse,
    may_connect,
};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use url::{Host, Url};

/// Resolves host names to public addresses only.
#[derive(Debug, Clone, Copy)]
struct PublicResolver {
    allow_loopback: bool,
}

impl Resolve for PublicResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_loopback = self.allow_loopback;
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            if addrs.is_empty() {
                return Err(format!("{} has no addresses", name.as_str()).into());
            }
            if let Some(bad) = addrs.iter().find(|a| !may_connect(a.ip(), allow_loopback)) {
                return Err(
                    Box::new(NonPublic(bad.ip())) as Box<dyn std::error::Error + Send + Sync>
                );
            }
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// The resolver's refusal, recognised in the error chain to report `Refused`.
#[derive(Debug)]
struct NonPublic(IpAddr);

impl std::fmt::Display for NonPublic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "resolves to a non-public address ({})", self.0)
    }
}

impl std::error::Error for NonPublic {}

/// Fetches JSON documents over HTTPS (and, in development, over http on loopback).
#[derive(Debug, Clone)]
pub struct HttpFetcher {
    client: reqwest::Client,
    allow_loopback: bool,
}

impl HttpFetcher {
    /// A fetcher; `allow_loopback` (the `dev.allow_loopback_client_urls` setting) also lets it
    /// reach this machine, over http or https.
    ///
    /// # Errors
    /// When the TLS stack cannot be set up.
    pub fn new(allow_loopback: bool) -> anyhow::Result<Self> {
        // rustls on AWS-LC (the signing library), with Mozilla's roots compiled in.
        let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let client = reqwest::Client::builder()
            .use_preconfigured_tls(tls)
            .user_agent(concat!("Portcullis/", env!("CARGO_PKG_VERSION")))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .https_only(!allow_loopback)
            .connect_timeout(Duration::from_secs(3))
            .timeout(Duration::from_secs(5))
            .dns_resolver(Arc::new(PublicResolver { allow_loopback }))
            .build()?;
        Ok(Self {
            client,
            allow_loopback,
        })
    }

    fn check_literal(&self, url: &Url) -> Result<(), FetchError> {
        let ip = match url.host() {
            Some(Host::Ipv4(v4)) => IpAddr::V4(v4),
            Some(Host::Ipv6(v6)) => IpAddr::V6(v6),
            Some(Host::Domain(_)) => return Ok(()),
            None => return Err(FetchError::Refused("no host".into())),
        };
        if may_connect(ip, self.allow_loopback) {
            Ok(())
        } else {
            Err(FetchError::Refused("a non-public address".into()))
        }
    }
}

fn failed(e: &reqwest::Error) -> FetchError {
    let mut source: Option<&dyn std::error::Error> = Some(e);
    while let Some(s) = source {
        if let Some(np) = s.downcast_ref::<NonPublic>() {
            // The address stays in the log: shown to whoever typed the URL, it would tell
            // how internal names resolve.
            tracing::debug!("Refused a fetch: {np}");
            return FetchError::Refused("the name resolves to a non-public address".into());
        }
        source = s.source();
    }
    FetchError::Failed(if e.is_timeout() {
        "timed out (5 s)".to_owned()
    } else if e.is_connect() {
        "could not connect".to_owned()
    } else {
        // Without the URL, which the caller logs beside it.
        let mut text = e.to_string();
        if let Some(url) = e.url() {
            text = text.replace(&format!(" ({url})"), "");
        }
        text
    })
}

#[async_trait::async_trait]
impl authz::fetch::Fetcher for HttpFetcher {
    async fn fetch_json(&self, url: &Url) -> Result<Fetched, FetchError> {
        self.check_literal(url)?;
        let mut res = self
            .client
            .get(url.clone())
            .header(
                reqwest::header::ACCEPT,
                "application/jwk-set+json, application/json",
            )
            .send()
            .await
            .map_err(|e| failed(&e))?;
        if res.status() != reqwest::StatusCode::OK {
            return Err(FetchError::Failed(format!("HTTP status {}", res.status())));
        }
        if res
            .content_length()
            .is_some_and(|n| n > MAX_DOCUMENT_BYTES as u64)
        {
            return Err(FetchError::Failed("document too large".into()));
        }
        let max_age_secs = res
            .headers()
            .get(reqwest::header::CACHE_CONTROL)
            .and_then(|v| v.to_str().ok())
            .and_then(authz::fetch::max_age);
        let mut body = Vec::new();
        while let Some(chunk) = res.chunk().await.map_err(|e| failed(&e))? {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(FetchError::Failed("document too large".into()));
            }
            body.extend_from_slice(&chunk);
        }
        let body = serde_json::from_slice(&body)
            .map_err(|_| FetchError::Failed("not a JSON document".into()))?;
        Ok(Fetched { body, max_age_secs })
    }

    async fn probe(&self, probe: &Probe) -> Result<ProbeResponse, FetchError> {
        self.check_literal(&probe.url)?;
        let method = if probe.method == "POST" {
            reqwest::Method::POST
        } else {
            reqwest::Method::GET
        };
        let mut req = self.client.request(method, probe.url.clone());
        for (name, value) in &probe.headers {
            req = req.header(*name, value);
        }
        if let Some(body) = &probe.body {
            req = req.body(body.clone());
        }
        let mut res = req.send().await.map_err(|e| failed(&e))?;
        let headers = res
            .headers()
            .iter()
            .take(64)
            .map(|(n, v)| {
                let v = String::from_utf8_lossy(v.as_bytes());
                (n.as_str().to_owned(), v.chars().take(1024).collect())
            })
            .collect();
        let status = res.status().as_u16();
        let (mut body, mut truncated) = (Vec::new(), false);
        // Read no more than kept, and not for long: a server that answers with an event
        // stream keeps it open.
        let read = async {
            while let Some(chunk) = res.chunk().await.map_err(|e| failed(&e))? {
                let room = MAX_PROBE_BODY_BYTES - body.len();
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    truncated = true;
                    break;
                }
                body.extend_from_slice(&chunk);
            }
            Ok::<(), FetchError>(())
        };
        match tokio::time::timeout(Duration::from_secs(2), read).await {
            Ok(result) => result?,
            Err(_) => truncated = true,
        }
        Ok(ProbeResponse {
            status,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
            truncated,
        })
    }

    async fn fetch_document(&self, url: &Url, max_bytes: usize) -> Result<Vec<u8>, FetchError> {
        const MAX_REDIRECTS: usize = 3;
        let mut at = url.clone();
        for _ in 0..=MAX_REDIRECTS {
            self.check_literal(&at)?;
            let mut res = self
                .client
                .get(at.clone())
                .header(reqwest::header::ACCEPT, "application/json")
                .send()
                .await
                .map_err(|e| failed(&e))?;
            if res.status().is_redirection() {
                let next = res
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|l| at.join(l).ok())
                    .ok_or_else(|| FetchError::Failed("a redirect without a location".into()))?;
                // Only on the same host, never down to http.
                if next.host_str() != at.host_str()
                    || next.port_or_known_default() != at.port_or_known_default()
                    || (at.scheme() == "https" && next.scheme() != "https")
                {
                    return Err(FetchError::Refused(
                        "a redirect to another host or to http".into(),
                    ));
                }
                at = next;
                continue;
            }
            if res.status() != reqwest::StatusCode::OK {
                return Err(FetchError::Failed(format!("HTTP status {}", res.status())));
            }
            if res.content_length().is_some_and(|n| n > max_bytes as u64) {
                return Err(FetchError::Failed(format!(
                    "the document is larger than {max_bytes} bytes"
                )));
            }
            let mut body = Vec::new();
            while let Some(chunk) = res.chunk().await.map_err(|e| failed(&e))? {
                if body.len() + chunk.len() > max_bytes {
                    return Err(FetchError::Failed(format!(
                        "the document is larger than {max_bytes} bytes"
                    )));
                }
                body.extend_from_slice(&chunk);
            }
            return Ok(body);
        }
        Err(FetchError::Failed(format!(
            "more than {MAX_REDIRECTS} redirects"
        )))
    }

    async fn idp_request(
        &self,
        request: axum::http::Request<Vec<u8>>,
    ) -> Result<axum::http::Response<Vec<u8>>, FetchError> {
        let (parts, body) = request.into_parts();
        let url = Url::parse(&parts.uri.to_string())
            .map_err(|_| FetchError::Refused("not an absolute URL".into()))?;
        if !matches!(url.scheme(), "https" | "http") {
            return Err(FetchError::Refused("not an http(s) URL".into()));
        }
        self.check_literal(&url)?;
        let mut res = self
            .client
            .request(parts.method, url)
            .headers(parts.headers)
            .body(body)
            .send()
            .await
            .map_err(|e| failed(&e))?;
        if res
            .content_length()
            .is_some_and(|n| n > authz::fetch::MAX_IDP_RESPONSE_BYTES as u64)
        {
            return Err(FetchError::Failed("the answer is too large".into()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = res.chunk().await.map_err(|e| failed(&e))? {
            if body.len() + chunk.len() > authz::fetch::MAX_IDP_RESPONSE_BYTES {
                return Err(FetchError::Failed("the answer is too large".into()));
            }
            body.extend_from_slice(&chunk);
        }
        let mut out = axum::http::Response::new(body);
        *out.status_mut() = res.status();
        *out.headers_mut() = std::mem::take(res.headers_mut());
        Ok(out)
    }
}
