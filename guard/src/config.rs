//! Building a [`Guard`]: the issuer and resource it protects, and its options.
use crate::Guard;
use crate::metadata::{ProtectedResourceMetadata, split_origin};
use std::time::Duration;

/// Why a guard cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The issuer is not an https URL (http only on a loopback host) without query or fragment.
    #[error("issuer: {0}")]
    Issuer(String),
    /// The resource is not an https URL (http only on a loopback host) without query, fragment
    /// or user info, or its path cannot be routed.
    #[error("resource: {0}")]
    Resource(String),
    /// The documentation URL is not an absolute https URL.
    #[error("resource_documentation: {0}")]
    Documentation(String),
    /// A scope is empty or has characters RFC 6749 §3.3 does not allow.
    #[error("scope: {0}")]
    Scope(String),
    /// The static JWK Set has no usable signing key.
    #[error("jwks: {0}")]
    Jwks(String),
    /// The HTTP client (TLS) could not be set up.
    #[error("http client: {0}")]
    Client(String),
}

/// The defaults and bounds of the key cache.
pub(crate) const DEFAULT_KEY_TTL: Duration = Duration::from_secs(300);
pub(crate) const MIN_KEY_TTL: Duration = Duration::from_secs(60);
pub(crate) const MAX_KEY_TTL: Duration = Duration::from_secs(24 * 3600);
pub(crate) const DEFAULT_MIN_REFETCH: Duration = Duration::from_secs(10);
pub(crate) const DEFAULT_MAX_STALE: Duration = Duration::from_secs(24 * 3600);
pub(crate) const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
pub(crate) const DEFAULT_INTROSPECTION_TTL: Duration = Duration::from_secs(30);

/// Builds a [`Guard`]; start with [`Guard::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct GuardBuilder {
    pub(crate) issuer: String,
    pub(crate) resource: String,
    pub(crate) scopes: Vec<String>,
    pub(crate) resource_name: Option<String>,
    pub(crate) documentation: Option<String>,
    pub(crate) leeway: Duration,
    pub(crate) key_ttl: Option<Duration>,
    pub(crate) min_refetch: Duration,
    pub(crate) max_stale: Duration,
    pub(crate) jwks: Option<serde_json::Value>,
    pub(crate) introspection: Option<(String, String)>,
    pub(crate) introspection_ttl: Duration,
}

impl GuardBuilder {
    pub(crate) fn new(issuer: &str, resource: &str) -> Result<Self, ConfigError> {
        let issuer = parse_issuer(issuer).map_err(ConfigError::Issuer)?;
        let resource = canonical_resource(resource).map_err(ConfigError::Resource)?;
        Ok(Self {
            issuer,
            resource,
            scopes: Vec::new(),
            resource_name: None,
            documentation: None,
            leeway: DEFAULT_LEEWAY,
            key_ttl: None,
            min_refetch: DEFAULT_MIN_REFETCH,
            max_stale: DEFAULT_MAX_STALE,
            jwks: None,
            introspection: None,
            introspection_ttl: DEFAULT_INTROSPECTION_TTL,
        })
    }

    /// Scopes every request must carry (all of them); also what the metadata's
    /// `scopes_supported` and the challenges' `scope` offer. Empty by default: any token for
    /// this resource will do.
    pub fn required_scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// `resource_name` in the metadata: what people see when they consent.
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// `resource_documentation` in the metadata (an https URL).
    pub fn resource_documentation(mut self, url: impl Into<String>) -> Self {
        self.documentation = Some(url.into());
        self
    }

    /// How far `exp` may lie in the past to allow for clock skew (30 s by default).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How long fetched keys are fresh, overriding the JWKS response's `Cache-Control:
    /// max-age` (which is honoured within 1 min – 24 h; 5 min when absent).
    pub fn key_cache_ttl(mut self, ttl: Duration) -> Self {
        self.key_ttl = Some(ttl);
        self
    }

    /// The least time between two fetches of the JWK Set (10 s by default), however many
    /// tokens name an unknown key: a caller cannot make the guard fetch on every request.
    pub fn min_refetch_interval(mut self, interval: Duration) -> Self {
        self.min_refetch = interval;
        self
    }

    /// How long keys keep being used after they went stale while the authorization server
    /// cannot be reached (24 h by default); after that, requests get `503`.
    pub fn max_stale(mut self, max_stale: Duration) -> Self {
        self.max_stale = max_stale;
        self
    }

    /// Verifies with this JWK Set instead of fetching the realm's (no discovery, no refresh):
    /// for air-gapped deployments and tests.
    pub fn jwks(mut self, jwks: serde_json::Value) -> Self {
        self.jwks = Some(jwks);
        self
    }

    /// Also asks the realm's introspection endpoint (RFC 7662) whether each token is still
    /// active, with the resource's introspection credentials (`portcullis resources
    /// credentials`): a revoked token is refused within the cache time.
    ///
    /// # Security
    /// The secret is kept in memory only and sent only to the discovered introspection
    /// endpoint, with HTTP Basic authentication.
    pub fn introspection(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.introspection = Some((client_id.into(), client_secret.into()));
        self
    }

    /// How long an introspection answer is reused for the same token (30 s by default; never
    /// past the token's `exp`). Zero asks on every request.
    pub fn introspection_cache_ttl(mut self, ttl: Duration) -> Self {
        self.introspection_ttl = ttl;
        self
    }

    /// Builds the guard. Nothing is fetched yet: the realm's metadata and keys are fetched on
    /// the first request, or now with [`Guard::refresh_keys`].
    ///
    /// # Errors
    /// A [`ConfigError`] naming the option that is wrong.
    pub fn build(self) -> Result<Guard, ConfigError> {
        check_scopes(&self.scopes)?;
        if let Some(docs) = &self.documentation
            && !url::Url::parse(docs).is_ok_and(|u| u.scheme() == "https" && u.host().is_some())
        {
            return Err(ConfigError::Documentation(
                "must be an absolute https URL".into(),
            ));
        }
        let metadata = ProtectedResourceMetadata::new(
            &self.resource,
            &self.issuer,
            &self.scopes,
            self.resource_name.as_deref(),
            self.documentation.as_deref(),
        );
        Guard::from_builder(self, metadata)
    }
}

/// Each scope is an RFC 6749 §3.3 scope token (no spaces, quotes or backslashes: they go into
/// challenges between quotes).
pub(crate) fn check_scopes(scopes: &[String]) -> Result<(), ConfigError> {
    for s in scopes {
        if s.is_empty()
            || !s
                .bytes()
                .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b))
        {
            return Err(ConfigError::Scope(format!("{s:?} is not a scope token")));
        }
    }
    Ok(())
}

fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(d) => *d == "localhost",
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    }
}

/// An http(s) URL without query, fragment or user info; http only on a loopback host.
fn parse_http_url(input: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(input.trim()).map_err(|_| "not an absolute URL".to_owned())?;
    if url.query().is_some() || url.fragment().is_some() {
        return Err("must not have a query or fragment".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not carry user info".into());
    }
    let host = url.host().ok_or("needs a host")?;
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&host) => Ok(url),
        _ => Err("must use https (http only on a loopback host, for development)".into()),
    }
}

fn parse_issuer(input: &str) -> Result<String, String> {
    let url = parse_http_url(input)?;
    // An issuer is compared as a string: keep it exactly as the realm writes it.
    let s = url.as_str();
    Ok(if url.path() == "/" && !input.trim().ends_with('/') {
        s.trim_end_matches('/').to_owned()
    } else {
        s.to_owned()
    })
}

/// The resource in the canonical form Portcullis puts in `aud`: lower-case scheme and host, no
/// default port, no trailing slash except for a bare origin (`https://mcp.example.com/`).
///
/// # Errors
/// Why the URL cannot name a resource.
pub fn canonical_resource(input: &str) -> Result<String, String> {
    let url = parse_http_url(input)?;
    let host = url.host_str().unwrap_or_default();
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    let path = match url.path() {
        "/" => "/",
        p => p.trim_end_matches('/'),
    };
    let path = if path.is_empty() { "/" } else { path };
    if path
        .split('/')
        .any(|seg| seg.starts_with(':') || seg.starts_with('*') || seg.contains(['{', '}']))
    {
        return Err(
            "its path has a segment starting with ':' or '*', or a brace, which cannot be routed"
                .into(),
        );
    }
    Ok(format!("{}://{host}{port}{path}", url.scheme()))
}

/// Where the resource's metadata is served: the path-inserted URL first (RFC 9728 §3.1, what
/// MCP clients ask first), then the root one (their fallback); one URL for a bare origin.
pub(crate) fn metadata_urls(resource: &str) -> Vec<String> {
    let (origin, path) = split_origin(resource);
    let root = format!("{origin}/.well-known/oauth-protected-resource");
    if path == "/" {
        vec![root]
    } else {
        vec![format!("{root}{path}"), root]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_are_canonical_like_the_issuer_writes_aud() {
        for (input, canonical) in [
            (
                "HTTPS://MCP.Example.com:443/mcp/",
                "https://mcp.example.com/mcp",
            ),
            ("https://mcp.example.com", "https://mcp.example.com/"),
            ("https://mcp.example.com/", "https://mcp.example.com/"),
            ("http://127.0.0.1:8931/mcp", "http://127.0.0.1:8931/mcp"),
            ("http://[::1]:8931/mcp", "http://[::1]:8931/mcp"),
        ] {
            assert_eq!(
                canonical_resource(input).as_deref(),
                Ok(canonical),
                "{input}"
            );
        }
        for bad in [
            "http://mcp.example.com/mcp",
            "https://mcp.example.com/mcp?x=1",
            "https://mcp.example.com/mcp#f",
            "https://u:p@mcp.example.com/mcp",
            "mcp.example.com/mcp",
            "ftp://mcp.example.com/mcp",
            "https://mcp.example.com/:tenant/mcp",
            "https://mcp.example.com/*/mcp",
        ] {
            assert!(canonical_resource(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn metadata_is_served_path_inserted_then_at_the_root() {
        assert_eq!(
            metadata_urls("https://mcp.example.com/tenants/a/mcp"),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/tenants/a/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            metadata_urls("http://127.0.0.1:8931/"),
            ["http://127.0.0.1:8931/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn issuers_are_kept_as_written() {
        assert_eq!(
            parse_issuer("https://id.example.com/realms/acme").as_deref(),
            Ok("https://id.example.com/realms/acme")
        );
        assert_eq!(
            parse_issuer("https://id.example.com").as_deref(),
            Ok("https://id.example.com")
        );
        assert!(parse_issuer("http://id.example.com/realms/acme").is_err());
        assert!(parse_issuer("http://localhost:3000/realms/acme").is_ok());
    }

    #[test]
    fn scopes_must_be_scope_tokens() {
        let b = || GuardBuilder::new("https://id.example.com/r", "https://mcp.example.com/mcp");
        for bad in ["", "a b", "a\"b", "a\\b", "é"] {
            let e = b().expect("valid").required_scopes([bad]).build();
            assert!(matches!(e, Err(ConfigError::Scope(_))), "{bad:?}");
        }
        let e = b()
            .expect("valid")
            .resource_documentation("javascript:alert(1)")
            .build();
        assert!(matches!(e, Err(ConfigError::Documentation(_))));
    }
}
