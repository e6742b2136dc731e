//! Documents clients publish at a URL (today the JWK Set at a `private_key_jwt` client's
//! `jwks_uri`), fetched with SSRF limits and cached.
//!
//! The rules live here, the HTTP client in the server: [`Fetcher`] is implemented there with a
//! resolver that refuses non-public addresses. URLs are checked once at registration
//! ([`parse_fetch_url`]) and again, with the resolved addresses, at fetch time.
use crate::bounded::{BoundedMap, Rank};
use crate::clock::UnixTime;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::Mutex;
use url::{Host, Url};

/// Largest document accepted.
pub const MAX_DOCUMENT_BYTES: usize = 64 * 1024;
/// Longest URL accepted.
pub const MAX_URL_LEN: usize = 2048;
/// How long a fetched document is used when it says nothing (`Cache-Control: max-age`).
pub const DEFAULT_TTL_SECS: i64 = 3600;
/// Bounds on the honoured `max-age`.
pub const MIN_TTL_SECS: i64 = 300;
/// Upper bound on the honoured `max-age`.
pub const MAX_TTL_SECS: i64 = 24 * 3600;
/// At most one fetch per URL in this many seconds (an unknown `kid` triggers a refetch; this
/// keeps a client from making us fetch on every request).
pub const MIN_REFETCH_SECS: i64 = 60;
/// After expiry, a document is still used for this long if refetching fails.
pub const STALE_GRACE_SECS: i64 = 24 * 3600;

/// Why a fetch failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The URL or the address it resolves to is not allowed (SSRF protection).
    #[error("refused: {0}")]
    Refused(String),
    /// Network error, timeout, non-200 status, oversized or non-JSON body.
    #[error("failed: {0}")]
    Failed(String),
}

/// A fetched JSON document.
#[derive(Debug, Clone, PartialEq)]
pub struct Fetched {
    /// The document.
    pub body: serde_json::Value,
    /// `Cache-Control: max-age`, if the response had one.
    pub max_age_secs: Option<i64>,
}

/// The most response body a probe keeps.
pub const MAX_PROBE_BODY_BYTES: usize = 16 * 1024;

/// One request of the MCP handshake tester to a server a person named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// Checked by [`parse_fetch_url`].
    pub url: Url,
    /// Request headers.
    pub headers: Vec<(&'static str, String)>,
    /// A JSON body, for `POST`.
    pub body: Option<String>,
}

/// What came back, whatever the status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeResponse {
    /// HTTP status code.
    pub status: u16,
    /// Response headers, names in lower case, in order.
    pub headers: Vec<(String, String)>,
    /// The body as text (lossy), at most [`MAX_PROBE_BODY_BYTES`].
    pub body: String,
    /// Whether the body was longer.
    pub truncated: bool,
}

impl ProbeResponse {
    /// The first value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Fetches JSON documents over HTTPS.
#[async_trait::async_trait]
pub trait Fetcher: Send + Sync + std::fmt::Debug {
    /// GETs `url` (checked by [`parse_fetch_url`]): no redirects, only public addresses, a short
    /// timeout, at most [`MAX_DOCUMENT_BYTES`].
    async fn fetch_json(&self, url: &Url) -> Result<Fetched, FetchError>;

    /// Sends `probe` under the same rules and returns the response whatever its status (the
    /// MCP handshake tester reads 401s and their headers).
    async fn probe(&self, _probe: &Probe) -> Result<ProbeResponse, FetchError> {
        Err(FetchError::Refused("this server makes no requests".into()))
    }

    /// GETs a document of at most `max_bytes` at `url` (checked by [`parse_fetch_url`]) under
    /// the same rules, except that redirects are followed (a few) while they stay on the same
    /// host and scheme: the read-only import from an MCP registry.
    async fn fetch_document(&self, _url: &Url, _max_bytes: usize) -> Result<Vec<u8>, FetchError> {
        Err(FetchError::Refused("this server fetches no URLs".into()))
    }

    /// Sends a request of the OpenID Connect relying party (discovery, JWKS, token, userinfo)
    /// to a sign-in provider an admin configured, under the same rules (no redirects, the same
    /// addresses, a short timeout), with an answer of at most [`MAX_IDP_RESPONSE_BYTES`]
    /// whatever its status.
    async fn idp_request(
        &self,
        _request: openidconnect::HttpRequest,
    ) -> Result<openidconnect::HttpResponse, FetchError> {
        Err(FetchError::Refused("this server makes no requests".into()))
    }
}

/// Largest answer a sign-in provider's endpoint may give (discovery, JWKS, token, userinfo).
pub const MAX_IDP_RESPONSE_BYTES: usize = 256 * 1024;

/// The fetcher of a core that was given none: refuses everything.
#[derive(Debug, Default)]
pub struct NoFetcher;

#[async_trait::async_trait]
impl Fetcher for NoFetcher {
    async fn fetch_json(&self, _url: &Url) -> Result<Fetched, FetchError> {
        Err(FetchError::Refused("this server fetches no URLs".into()))
    }
}

/// Whether `ip` is a public unicast address.
///
/// Not loopback, private, link-local, shared (CGNAT), unique-local, multicast, documentation,
/// benchmarking, reserved or unspecified. IPv4-mapped
/// and -compatible IPv6 addresses are judged by their IPv4 address.
pub fn is_public_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_public_v4(v4);
            }
            let s = v6.segments();
            let low_v4 =
                || Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
            // Forms that embed an IPv4 address in the low 32 bits: ::a.b.c.d (deprecated
            // IPv4-compatible), ::ffff:0:a.b.c.d (IPv4-translated, RFC 2765) and NAT64
            // 64:ff9b::/96 (RFC 6052). Judged by that address.
            if s[..6] == [0, 0, 0, 0, 0, 0]
                || s[..6] == [0, 0, 0, 0, 0xffff, 0]
                || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0]
            {
                return is_public_v4(low_v4());
            }
            // Local-use NAT64 64:ff9b:1::/48 (RFC 8215) translates to whatever the operator
            // chose, often private space: never public.
            if s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1 {
                return false;
            }
            // 6to4 2002::/16 (RFC 3056) embeds an IPv4 address in bits 16–47.
            if s[0] == 0x2002 {
                let v4 =
                    Ipv4Addr::new((s[1] >> 8) as u8, s[1] as u8, (s[2] >> 8) as u8, s[2] as u8);
                if !is_public_v4(v4) {
                    return false;
                }
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (s[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (s[0] & 0xffc0) == 0xfec0 // site-local (deprecated) fec0::/10
                || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation 2001:db8::/32
                || (s[0] == 0x2001 && s[1] < 0x0200)) // IETF protocol assignments 2001::/23
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || a >= 240) // reserved
}

/// Whether `host` names this machine: `localhost` (and `*.localhost`) or a loopback address.
fn is_loopback_host(host: &Host<&str>) -> bool {
    match host {
        Host::Domain(d) => {
            let d = d.trim_end_matches('.');
            d.eq_ignore_ascii_case("localhost") || d.to_ascii_lowercase().ends_with(".localhost")
        }
        Host::Ipv4(v4) => v4.is_loopback(),
        Host::Ipv6(v6) => v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v| v.is_loopback()),
    }
}

/// Checks a URL this server will fetch.
///
/// `https` with a host, no credentials, no fragment, at most
/// [`MAX_URL_LEN`] characters, and not an IP literal outside public unicast space. With
/// `allow_http_loopback` (development), `http` and `https` on loopback hosts are accepted too.
/// Host names are checked again at fetch time, against the addresses they resolve to.
///
/// # Errors
/// A message fit for the user.
pub fn parse_fetch_url(s: &str, allow_http_loopback: bool) -> Result<Url, String> {
    let s = s.trim();
    if s.len() > MAX_URL_LEN {
        return Err(format!("The URL must be at most {MAX_URL_LEN} characters."));
    }
    let url = Url::parse(s).map_err(|_| "The URL is not a valid absolute URL.".to_owned())?;
    let host = url
        .host()
        .ok_or_else(|| "The URL must have a host.".to_owned())?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err("The URL must not contain credentials.".into());
    }
    if url.fragment().is_some() {
        return Err("The URL must not have a fragment.".into());
    }
    let loopback = is_loopback_host(&host);
    let loopback_ok = allow_http_loopback && loopback;
    match url.scheme() {
        "https" => {}
        "http" if loopback_ok => {}
        _ => return Err("The URL must use https.".into()),
    }
    let ip = match host {
        Host::Ipv4(v4) => Some(IpAddr::V4(v4)),
        Host::Ipv6(v6) => Some(IpAddr::V6(v6)),
        Host::Domain(_) => None,
    };
    if !loopback_ok && (loopback || ip.is_some_and(|ip| !is_public_ip(ip))) {
        return Err("The URL must point at a public address.".into());
    }
    Ok(url)
}

/// Whether an address a host name resolved to may be connected to.
pub fn may_connect(ip: IpAddr, allow_loopback: bool) -> bool {
    is_public_ip(ip) || (allow_loopback && (ip.is_loopback() || ip == Ipv6Addr::LOCALHOST))
}

#[derive(Debug, Clone)]
struct Entry {
    body: Option<serde_json::Value>,
    fresh_until: UnixTime,
    attempted_at: UnixTime,
    fetched_at: Option<UnixTime>,
    last_error: Option<String>,
}

impl Entry {
    fn empty(now: UnixTime) -> Self {
        Self {
            body: None,
            fresh_until: now,
            attempted_at: now,
            fetched_at: None,
            last_error: None,
        }
    }
}

/// What this instance knows of a fetched document (for the console).
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentStatus {
    /// The last good document, while it may still be used.
    pub body: Option<serde_json::Value>,
    /// When it was fetched.
    pub fetched_at: Option<UnixTime>,
    /// Until when it is used without refetching.
    pub fresh_until: Option<UnixTime>,
    /// Why the last attempt failed, if it did.
    pub last_error: Option<String>,
}

/// Most documents one cache holds (each at most [`MAX_DOCUMENT_BYTES`]: 64 MiB in all).
pub const MAX_DOCUMENTS: usize = 1_000;

/// Fetched documents by URL, shared by every request of one core.
#[derive(Debug)]
pub(crate) struct DocumentCache {
    entries: Mutex<BoundedMap<String, Entry>>,
}

impl Default for DocumentCache {
    fn default() -> Self {
        Self {
            entries: Mutex::new(BoundedMap::new(MAX_DOCUMENTS)),
        }
    }
}

/// Dead when an entry can no longer be used at all (past its grace period, nothing pending).
fn rank(e: &Entry, now: UnixTime) -> Rank {
    if now >= e.fresh_until + STALE_GRACE_SECS && now - e.attempted_at >= MIN_REFETCH_SECS {
        Rank::Dead
    } else {
        Rank::Spare
    }
}

/// What the cache says about a URL.
pub(crate) enum Lookup {
    /// Fresh: use it.
    Fresh(serde_json::Value),
    /// Expired or missing something the caller needs; refetch is allowed now.
    Refetch(Option<serde_json::Value>),
    /// Refetched too recently: use what there is (maybe nothing).
    Wait(Option<serde_json::Value>),
}

impl DocumentCache {
    /// Looks `url` up; `needs_refresh` says whether a fresh document still lacks what the caller
    /// needs (a JWKS without the assertion's `kid`).
    pub(crate) fn lookup(
        &self,
        url: &str,
        now: UnixTime,
        needs_refresh: impl Fn(&serde_json::Value) -> bool,
    ) -> Lookup {
        let mut map = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let Some(e) = map.get_mut(&url.to_owned()) else {
            // Mark the attempt now so concurrent requests wait for this fetch, not repeat it.
            map.insert(url.to_owned(), Entry::empty(now), now, |e| rank(e, now));
            return Lookup::Refetch(None);
        };
        let usable = e
            .body
            .clone()
            .filter(|_| now < e.fresh_until + STALE_GRACE_SECS);
        let fresh = now < e.fresh_until;
        match &e.body {
            Some(b) if fresh && !needs_refresh(b) => Lookup::Fresh(b.clone()),
            _ if now - e.attempted_at < MIN_REFETCH_SECS => Lookup::Wait(usable),
            _ => {
                e.attempted_at = now;
                Lookup::Refetch(usable)
            }
        }
    }

    /// Records a fetch attempt: the document on success; on failure the reason, keeping the
    /// previous document usable during its grace period.
    pub(crate) fn record(&self, url: &str, now: UnixTime, result: Result<&Fetched, &FetchError>) {
        let mut map = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let mut e = map
            .get(&url.to_owned())
            .cloned()
            .unwrap_or_else(|| Entry::empty(now));
        e.attempted_at = now;
        match result {
            Ok(f) => {
                let ttl = f
                    .max_age_secs
                    .unwrap_or(DEFAULT_TTL_SECS)
                    .clamp(MIN_TTL_SECS, MAX_TTL_SECS);
                e.body = Some(f.body.clone());
                e.fresh_until = now + ttl;
                e.fetched_at = Some(now);
                e.last_error = None;
            }
            Err(err) => e.last_error = Some(err.to_string()),
        }
        map.insert(url.to_owned(), e, now, |e| rank(e, now));
    }

    /// What is known of `url` now; `None` when it was never fetched by this instance.
    pub(crate) fn status(&self, url: &str, now: UnixTime) -> Option<DocumentStatus> {
        let map = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        map.get(&url.to_owned()).map(|e| DocumentStatus {
            body: e
                .body
                .clone()
                .filter(|_| now < e.fresh_until + STALE_GRACE_SECS),
            fetched_at: e.fetched_at,
            fresh_until: e.fetched_at.map(|_| e.fresh_until),
            last_error: e.last_error.clone(),
        })
    }
}

/// Parses `Cache-Control` for `max-age` (ignoring `no-store`/`no-cache`, which would make every
/// assertion a fetch; the minimum TTL applies instead).
pub fn max_age(cache_control: &str) -> Option<i64> {
    cache_control.split(',').find_map(|d| {
        let (k, v) = d.trim().split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case("max-age")
            .then(|| v.trim().trim_matches('"').parse().ok())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_addresses() {
        for ip in [
            "8.8.8.8",
            "1.1.1.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "::ffff:0:808:808",
            "2002:808:808::1",
        ] {
            assert!(is_public_ip(ip.parse().expect("ip")), "{ip}");
        }
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "224.0.0.1",
            "192.0.2.1",
            "198.18.0.1",
            "240.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "64:ff9b:1::a00:1",
            "64:ff9b:1:ffff::808:808",
            "::ffff:0:7f00:1",
            "::ffff:0:a9fe:a9fe",
            "2002:7f00:1::1",
            "2002:a00:1::",
            "2002:c0a8:101::1",
            "2002:a9fe:a9fe::1",
        ] {
            assert!(!is_public_ip(ip.parse().expect("ip")), "{ip}");
        }
    }

    #[test]
    fn fetch_urls() {
        let ok = |s: &str, dev: bool| parse_fetch_url(s, dev).map(|u| u.to_string());
        assert_eq!(
            ok("https://keys.example.com/jwks.json", false).as_deref(),
            Ok("https://keys.example.com/jwks.json")
        );
        for bad in [
            "http://keys.example.com/jwks",
            "ftp://keys.example.com/jwks",
            "https://user:pw@keys.example.com/jwks",
            "https://keys.example.com/jwks#frag",
            "https://10.0.0.1/jwks",
            "https://[::1]/jwks",
            "https://169.254.169.254/latest/meta-data",
            "https://localhost/jwks",
            "https://api.localhost./jwks",
            "http://127.0.0.1:8080/jwks",
            "/relative",
        ] {
            assert!(ok(bad, false).is_err(), "{bad}");
        }
        assert!(ok(&format!("https://e.com/{}", "a".repeat(MAX_URL_LEN)), false).is_err());
        // Development: loopback over http or https, but still nothing private.
        assert!(ok("http://127.0.0.1:8080/jwks", true).is_ok());
        assert!(ok("http://localhost:8080/jwks", true).is_ok());
        assert!(ok("http://10.0.0.1/jwks", true).is_err());
        assert!(ok("http://keys.example.com/jwks", true).is_err());
        assert!(may_connect("127.0.0.1".parse().expect("ip"), true));
        assert!(!may_connect("127.0.0.1".parse().expect("ip"), false));
        assert!(!may_connect("10.0.0.1".parse().expect("ip"), true));
    }

    #[test]
    fn cache_control() {
        assert_eq!(max_age("public, max-age=600"), Some(600));
        assert_eq!(max_age("MAX-AGE=\"60\""), Some(60));
        assert_eq!(max_age("no-store"), None);
        assert_eq!(max_age("max-age=abc"), None);
    }

    #[test]
    fn documents_are_cached_refetched_on_need_and_not_too_often() {
        let c = DocumentCache::default();
        let url = "https://k.example.com/jwks";
        let doc = |kid: &str| Fetched {
            body: serde_json::json!({"keys": [{"kid": kid}]}),
            max_age_secs: Some(600),
        };
        let has = |kid: &'static str| {
            move |b: &serde_json::Value| b["keys"][0]["kid"].as_str() != Some(kid)
        };
        assert!(matches!(c.lookup(url, 0, has("a")), Lookup::Refetch(None)));
        c.record(url, 0, Ok(&doc("a")));
        assert!(matches!(c.lookup(url, 10, has("a")), Lookup::Fresh(_)));
        // A new kid: refetch only once a minute has passed since the last attempt.
        assert!(matches!(c.lookup(url, 10, has("b")), Lookup::Wait(Some(_))));
        assert!(matches!(
            c.lookup(url, 60, has("b")),
            Lookup::Refetch(Some(_))
        ));
        c.record(url, 60, Err(&FetchError::Failed("down".into())));
        assert!(matches!(c.lookup(url, 61, has("b")), Lookup::Wait(Some(_))));
        // Expired (TTL 600 s): refetch; if that fails the old document serves its grace period.
        assert!(matches!(
            c.lookup(url, 700, has("a")),
            Lookup::Refetch(Some(_))
        ));
        c.record(url, 700, Err(&FetchError::Failed("down".into())));
        let st = c.status(url, 701).expect("known");
        assert_eq!(
            (st.fetched_at, st.fresh_until, st.last_error.as_deref()),
            (Some(0), Some(600), Some("failed: down"))
        );
        assert!(st.body.is_some(), "the last good document is still usable");
        assert_eq!(c.status("https://other.example.com/", 701), None);
        assert!(matches!(
            c.lookup(url, 701, has("a")),
            Lookup::Wait(Some(_))
        ));
        assert!(matches!(
            c.lookup(url, 600 + STALE_GRACE_SECS, has("a")),
            Lookup::Refetch(None)
        ));
        // max-age is clamped to [MIN_TTL_SECS, MAX_TTL_SECS].
        c.record(
            url,
            1000,
            Ok(&Fetched {
                max_age_secs: Some(1),
                ..doc("a")
            }),
        );
        assert!(matches!(
            c.lookup(url, 1000 + MIN_TTL_SECS - 1, has("a")),
            Lookup::Fresh(_)
        ));
    }
}
