//! The Rust server (official MCP SDK `rmcp` on axum, tokens checked with `jsonwebtoken`): a
//! whole crate — its `Cargo.toml` and `src/main.rs` — that builds in an empty directory from
//! crates.io alone.
use super::snippet::{Snippet, comment_text, listen_port};

/// The crates the Rust snippet is written and tested against: name, version, features,
/// whether the default features are off.
///
/// The versions are the workspace's `Cargo.lock` ones (`rmcp` exactly: the snippet uses its
/// API, which changes between minor versions; the others at least at the tested version).
pub const RUST_CRATES: &[(&str, &str, &[&str], bool)] = &[
    (
        "rmcp",
        "=3.11.0",
        &["server", "macros", "transport-streamable-http-server"],
        false,
    ),
    ("axum", "0.8.9", &[], false),
    (
        "tokio",
        "1.54.1",
        &["macros", "rt-multi-thread", "net", "sync"],
        false,
    ),
    ("jsonwebtoken", "10.4.0", &["rust_crypto"], false),
    ("reqwest", "0.12.28", &["rustls-tls", "json"], true),
    ("serde", "1.0.229", &["derive"], false),
    ("serde_json", "1.0.154", &[], false),
    ("url", "2.5.8", &[], false),
];

/// The crate's name: the server's short name, prefixed with `mcp-` unless it is several words
/// starting with a letter (one word could be a Rust keyword or a name Cargo forbids, like
/// `test` or `build`).
pub(super) fn crate_name(short_name: &str) -> String {
    if short_name.contains('-') && short_name.starts_with(|c: char| c.is_ascii_lowercase()) {
        short_name.to_owned()
    } else {
        format!("mcp-{short_name}")
    }
}

/// The whole `Cargo.toml`.
pub(super) fn rust_manifest(crate_name: &str) -> String {
    let mut out = format!(
        "[package]\nname = \"{crate_name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\nrust-version = \"1.88\"\npublish = false\n\n[dependencies]\n"
    );
    for (name, version, features, no_defaults) in RUST_CRATES {
        let mut table = vec![format!("version = \"{version}\"")];
        if *no_defaults {
            table.push("default-features = false".to_owned());
        }
        if !features.is_empty() {
            let list = features
                .iter()
                .map(|f| format!("\"{f}\""))
                .collect::<Vec<_>>()
                .join(", ");
            table.push(format!("features = [{list}]"));
        }
        if table.len() == 1 {
            out.push_str(&format!("{name} = \"{version}\"\n"));
        } else {
            out.push_str(&format!("{name} = {{ {} }}\n", table.join(", ")));
        }
    }
    out
}

/// A Rust raw string literal holding `s` exactly: as many `#` as it needs never to end early.
pub(super) fn raw_literal(s: &str) -> String {
    let mut longest = 0;
    for (i, _) in s.match_indices('"') {
        let run = s[i + 1..].chars().take_while(|c| *c == '#').count();
        longest = longest.max(run);
    }
    let hashes = "#".repeat(longest + 1);
    format!("r{hashes}\"{s}\"{hashes}")
}

/// `template` with each `@KEY@` replaced by its value, in one pass: a value is never searched
/// for keys (a server named `@NAME@` stays that name).
fn fill(template: &str, values: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len() + 1024);
    let mut rest = template;
    while let Some(at) = rest.find('@') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let value = after.find('@').and_then(|end| {
            values
                .iter()
                .find(|(key, _)| *key == &after[..end])
                .map(|(_, v)| (v, end))
        });
        match value {
            Some((v, end)) => {
                out.push_str(v);
                rest = &after[end + 1..];
            }
            None => {
                out.push('@');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A Rust string literal holding `s` exactly.
fn literal(s: &str) -> String {
    format!("{s:?}")
}

/// `src/main.rs`: `metadata_urls` are where the metadata is served (path-inserted first),
/// `metadata` the document served there.
pub(super) fn rust_server(s: &Snippet<'_>, metadata_urls: &[String], metadata: &str) -> String {
    let Snippet {
        server,
        resource,
        scopes,
        name,
        challenge,
    } = s;
    let parsed = url::Url::parse(resource).ok();
    let host = parsed
        .as_ref()
        .and_then(|u| u.host_str())
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let loopback = crate::resources::is_loopback(&host);
    let path = parsed.as_ref().map_or("/", |u| u.path()).to_owned();
    let paths = metadata_urls
        .iter()
        .filter_map(|u| url::Url::parse(u).ok())
        .map(|u| literal(u.path()))
        .collect::<Vec<_>>()
        .join(", ");
    let list = |items: &[String]| {
        items
            .iter()
            .map(|i| literal(i))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let filled = fill(
        TEMPLATE,
        &[
            ("REALM", comment_text(&server.realm)),
            ("ISSUER", literal(&server.issuer)),
            ("REALM_METADATA", literal(&server.metadata_url)),
            ("RESOURCE", literal(resource)),
            ("RESOURCE_PATH", literal(&path)),
            ("HOST", literal(&host)),
            ("SCOPES", list(scopes)),
            ("NAME", literal(name)),
            ("METADATA_PATHS", paths),
            ("METADATA", raw_literal(metadata)),
            (
                "CHALLENGE",
                literal(challenge.strip_prefix("Bearer ").unwrap_or(challenge)),
            ),
            ("PORT", listen_port(resource).to_string()),
            (
                "BIND",
                literal(match host.parse::<std::net::IpAddr>() {
                    Ok(std::net::IpAddr::V6(_)) if loopback => "::1",
                    _ if loopback => "127.0.0.1",
                    _ => "0.0.0.0",
                }),
            ),
        ],
    );
    wrap_long_constants(&filled)
}

/// `code` with each `const` longer than rustfmt's 100 columns wrapped as rustfmt would: a list
/// of string literals one per line, a string literal on the line after its `=` when it fits there.
pub(super) fn wrap_long_constants(code: &str) -> String {
    let mut out = String::with_capacity(code.len() + 256);
    for line in code.split_inclusive('\n') {
        let text = line.trim_end_matches('\n');
        if !text.starts_with("const ") || text.chars().count() <= 100 {
            out.push_str(line);
            continue;
        }
        let list = text
            .split_once(" = &[")
            .and_then(|(head, rest)| Some((head, rest.strip_suffix("];")?)));
        // rustfmt leaves a literal too long for the next line where it is.
        let single = text
            .split_once(" = \"")
            .filter(|(_, value)| text.ends_with("\";") && 5 + value.chars().count() <= 100);
        match (list, single) {
            // The items are string literals, whose quotes inside are escaped: `", "` is only
            // ever between two of them.
            (Some((head, items)), _)
                if items.len() > 1 && items.starts_with('"') && items.ends_with('"') =>
            {
                out.push_str(&format!("{head} = &[\n"));
                // Within the brackets but for the first and last quote.
                let inner = &items[1..items.len().saturating_sub(1).max(1)];
                for item in inner.split("\", \"") {
                    out.push_str(&format!("    \"{item}\",\n"));
                }
                out.push_str("];\n");
            }
            (_, Some((head, value))) => {
                out.push_str(&format!("{head} =\n    \"{value}\n"));
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// The server, with `@KEY@` where [`rust_server`] puts the input's values.
const TEMPLATE: &str = r##"// src/main.rs: an MCP server protected by @REALM@ (Portcullis), with the official Rust SDK.
//
// Every request to the MCP endpoint needs a token from the realm, checked here: its signature
// (the realm's keys, fetched and cached), typ, iss, exp, aud (this server) and scopes.
// The RFC 9728 metadata tells MCP clients where to get one.
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::Extension;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde::Deserialize;

const ISSUER: &str = @ISSUER@;
/// The realm's metadata (RFC 8414): where its keys and its introspection endpoint are.
const REALM_METADATA: &str = @REALM_METADATA@;
const RESOURCE: &str = @RESOURCE@;
/// Where the MCP endpoint is served, and the host name requests must name.
const RESOURCE_PATH: &str = @RESOURCE_PATH@;
const HOST: &str = @HOST@;
const SCOPES: &[&str] = &[@SCOPES@];
const NAME: &str = @NAME@;
/// The RFC 9728 metadata, served at the path-inserted well-known URL (what MCP clients ask
/// first) and at the root one (all some clients ask).
const METADATA_PATHS: &[&str] = &[@METADATA_PATHS@];
const METADATA: &str = @METADATA@;
/// What every `WWW-Authenticate` challenge names: where the metadata is, which scopes to ask.
const CHALLENGE: &str = @CHALLENGE@;
/// The realm signs with these (never HS256 or none: a public key is no secret).
const ALGORITHMS: &[Algorithm] = &[Algorithm::ES256, Algorithm::RS256, Algorithm::EdDSA];
/// How long fetched keys are used before they are fetched again, and how often at most a
/// token naming an unknown key sends this server to the realm for new ones.
const KEYS_FRESH: Duration = Duration::from_secs(600);
const KEYS_REFETCH: Duration = Duration::from_secs(30);
/// How long after their last fetch the keys are used while the realm cannot be reached.
const KEYS_MAX_STALE: Duration = Duration::from_secs(3600);
/// How long the realm's introspection answer for a token is reused.
const INTROSPECTION_CACHE: Duration = Duration::from_secs(30);

/// The verified token's claims (RFC 9068), left in the request for the tools.
#[derive(Clone, Debug, Deserialize)]
struct Caller {
    sub: String,
    client_id: String,
    #[serde(default)]
    scope: String,
    exp: u64,
    jti: Option<String>,
    /// The agent (non-human identity) the token was issued to, when there is one.
    agent: Option<serde_json::Value>,
    /// Who calls for the subject after a token exchange (RFC 8693 `act`, most recent first).
    act: Option<serde_json::Value>,
    /// The registry entry and release that allowed the token, when the realm has a registry.
    mcp_server: Option<serde_json::Value>,
    mcp_release: Option<serde_json::Value>,
}

#[derive(Clone)]
struct Server {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Server {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Who the token is for")]
    async fn whoami(&self, Extension(parts): Extension<axum::http::request::Parts>) -> String {
        // The check below let the request in and left the verified caller in its extensions.
        let Some(caller) = parts.extensions.get::<Caller>() else {
            return "nobody".to_owned();
        };
        serde_json::json!({
            "sub": caller.sub,
            "client_id": caller.client_id,
            "scopes": caller.scope.split_whitespace().collect::<Vec<_>>(),
            "agent": caller.agent,
            "act": caller.act,
            "mcp_server": caller.mcp_server,
            "mcp_release": caller.mcp_release,
        })
        .to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(NAME, "1.0.0"))
    }
}

const UNKNOWN_KEY: &str = "The token is signed with a key the realm does not have.";

/// Why a token was not let in.
enum Refusal {
    /// The token is not good: 401 `invalid_token`, with a reason for the client.
    Invalid(&'static str),
    /// The realm cannot be reached to check it: 503, the reason logged.
    Unavailable(String),
}

#[derive(Clone, Deserialize)]
struct Endpoints {
    issuer: String,
    jwks_uri: String,
    introspection_endpoint: Option<String>,
}

/// The realm's introspection answer (RFC 7662 §2.2): only `active` counts here.
#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    active: bool,
}

#[derive(Default)]
struct Keys {
    endpoints: Option<Endpoints>,
    set: Option<JwkSet>,
    fetched: Option<Instant>,
    attempted: Option<Instant>,
}

/// The realm as this server knows it: its endpoints and keys, fetched on first use.
struct Realm {
    http: reqwest::Client,
    introspection: Option<(String, String)>,
    keys: Mutex<Keys>,
    /// Held while keys are fetched: requests that need them wait for that fetch.
    fetching: tokio::sync::Mutex<()>,
    /// The realm's introspection answers by token id, with when each stops being reused.
    answers: Mutex<HashMap<String, (bool, Instant)>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Realm {
    async fn get<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let res = self
            .http
            .get(url)
            .send()
            .await
            .map_err(|e| format!("{url}: {e}"))?;
        if !res.status().is_success() {
            return Err(format!("{url}: {}", res.status()));
        }
        res.json().await.map_err(|e| format!("{url}: {e}"))
    }

    async fn endpoints(&self) -> Result<Endpoints, String> {
        if let Some(known) = lock(&self.keys).endpoints.clone() {
            return Ok(known);
        }
        let found: Endpoints = self.get(REALM_METADATA).await?;
        if found.issuer != ISSUER {
            return Err(format!(
                "{REALM_METADATA} names another issuer: {}",
                found.issuer
            ));
        }
        lock(&self.keys).endpoints = Some(found.clone());
        Ok(found)
    }

    /// The realm's key `kid`: from the cache while it is fresh, else fetched (at most once per
    /// `KEYS_REFETCH`; a request that finds a fetch under way waits for it). While the realm
    /// cannot be reached the last keys stay in use, up to `KEYS_MAX_STALE` after they were
    /// fetched; until keys were fetched once, the call fails (503) rather than call a good
    /// token invalid.
    async fn key(&self, kid: &str) -> Result<Jwk, Refusal> {
        let find = |keys: &Keys| keys.set.as_ref().and_then(|s| s.find(kid)).cloned();
        let fresh = |keys: &Keys| keys.fetched.is_some_and(|t| t.elapsed() < KEYS_FRESH);
        let cached = {
            let keys = lock(&self.keys);
            find(&keys).filter(|_| fresh(&keys))
        };
        if let Some(key) = cached {
            return Ok(key);
        }
        let _one_fetch_at_a_time = self.fetching.lock().await;
        let (known, fetch) = {
            let mut keys = lock(&self.keys);
            let usable = keys.fetched.is_some_and(|t| t.elapsed() < KEYS_MAX_STALE);
            let known = find(&keys).filter(|_| usable);
            let may = keys.attempted.is_none_or(|t| t.elapsed() >= KEYS_REFETCH);
            let fetch = may && (known.is_none() || !fresh(&keys));
            if fetch {
                keys.attempted = Some(Instant::now());
            }
            (known, fetch)
        };
        if fetch {
            let fetched = match self.endpoints().await {
                Ok(endpoints) => self.get::<JwkSet>(&endpoints.jwks_uri).await,
                Err(e) => Err(e),
            };
            match fetched {
                Ok(set) => {
                    let mut keys = lock(&self.keys);
                    keys.set = Some(set);
                    keys.fetched = Some(Instant::now());
                    // A key the realm no longer lists is not used, even if it was before.
                    return find(&keys).ok_or(Refusal::Invalid(UNKNOWN_KEY));
                }
                Err(e) if known.is_none() => return Err(Refusal::Unavailable(e)),
                Err(e) => {
                    eprintln!("Could not refresh the realm's keys (using the last ones): {e}");
                }
            }
        }
        // Invalid only when the realm listed its keys recently, without this one.
        let listed = lock(&self.keys)
            .fetched
            .is_some_and(|t| t.elapsed() < KEYS_MAX_STALE);
        match known {
            Some(key) => Ok(key),
            None if listed => Err(Refusal::Invalid(UNKNOWN_KEY)),
            None => Err(Refusal::Unavailable(
                "the realm's keys could not be fetched (trying again soon)".into(),
            )),
        }
    }

    async fn verify(&self, token: &str) -> Result<Caller, Refusal> {
        let invalid = Refusal::Invalid;
        let header =
            jsonwebtoken::decode_header(token).map_err(|_| invalid("The token is not a JWT."))?;
        // RFC 9068 §4: an access token says so, so no other JWT of the realm (an ID token) passes.
        if !header.typ.as_deref().is_some_and(|t| {
            t.eq_ignore_ascii_case("at+jwt") || t.eq_ignore_ascii_case("application/at+jwt")
        }) {
            return Err(invalid("The token is not an access token (typ at+jwt)."));
        }
        if !ALGORITHMS.contains(&header.alg) {
            return Err(invalid(
                "The token is signed with an algorithm the realm does not use.",
            ));
        }
        let kid = header.kid.ok_or(invalid("The token names no key (kid)."))?;
        let jwk = self.key(&kid).await?;
        if jwk
            .common
            .public_key_use
            .as_ref()
            .is_some_and(|u| *u != PublicKeyUse::Signature)
        {
            return Err(invalid("The token's key is not a signing key."));
        }
        let key =
            DecodingKey::from_jwk(&jwk).map_err(|_| invalid("The token's key is not usable."))?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[RESOURCE]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let caller = jsonwebtoken::decode::<Caller>(token, &key, &validation)
            .map_err(|e| {
                invalid(match e.kind() {
                    ErrorKind::ExpiredSignature => "The token has expired.",
                    ErrorKind::InvalidAudience => "The token is for another server (aud).",
                    ErrorKind::InvalidIssuer => "The token is from another issuer (iss).",
                    ErrorKind::InvalidSignature => "The token's signature does not verify.",
                    _ => "The token is not valid.",
                })
            })?
            .claims;
        if !self.still_active(token, &caller).await? {
            return Err(invalid(
                "The realm says the token is no longer active (revoked).",
            ));
        }
        Ok(caller)
    }

    /// With introspection credentials: whether the realm still calls the token active
    /// (RFC 7662), reusing an answer for `INTROSPECTION_CACHE` at most and never past exp.
    async fn still_active(&self, token: &str, caller: &Caller) -> Result<bool, Refusal> {
        let Some((id, secret)) = &self.introspection else {
            return Ok(true);
        };
        let cache_key = caller.jti.clone().unwrap_or_else(|| token.to_owned());
        let now = Instant::now();
        if let Some((active, until)) = lock(&self.answers).get(&cache_key)
            && *until > now
        {
            return Ok(*active);
        }
        let endpoint = self
            .endpoints()
            .await
            .map_err(Refusal::Unavailable)?
            .introspection_endpoint;
        let endpoint = endpoint.ok_or(Refusal::Unavailable(
            "the realm has no introspection endpoint".into(),
        ))?;
        // RFC 6749 §2.3.1: the id and secret are form-encoded before Basic encoding.
        let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let res = self
            .http
            .post(&endpoint)
            .basic_auth(enc(id), Some(enc(secret)))
            .form(&[("token", token), ("token_type_hint", "access_token")])
            .send()
            .await
            .map_err(|e| Refusal::Unavailable(format!("{endpoint}: {e}")))?;
        // The realm cannot say: the call fails (503) rather than let a revoked token through.
        if !res.status().is_success() {
            return Err(Refusal::Unavailable(format!(
                "{endpoint}: {}",
                res.status()
            )));
        }
        let answer: Answer = res
            .json()
            .await
            .map_err(|e| Refusal::Unavailable(format!("{endpoint}: {e}")))?;
        let unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default()
            .as_secs();
        let until =
            now + INTROSPECTION_CACHE.min(Duration::from_secs(caller.exp.saturating_sub(unix)));
        let mut answers = lock(&self.answers);
        if answers.len() >= 10_000 {
            answers.retain(|_, (_, until)| *until > now);
        }
        if answers.len() >= 10_000 {
            answers.clear();
        }
        answers.insert(cache_key, (answer.active, until));
        Ok(answer.active)
    }
}

fn challenge(status: StatusCode, error: Option<(&str, &str)>) -> Response {
    let value = match error {
        // No token: no error code (RFC 6750 §3.1); clients discover everything from the rest.
        None => format!("Bearer {CHALLENGE}"),
        Some((code, description)) => {
            format!("Bearer error=\"{code}\", error_description=\"{description}\", {CHALLENGE}")
        }
    };
    (status, [(header::WWW_AUTHENTICATE, value)]).into_response()
}

/// Lets a request in only with a valid token carrying every scope in SCOPES.
async fn authorize(State(realm): State<Arc<Realm>>, mut request: Request, next: Next) -> Response {
    let token = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim().to_owned());
    let Some(token) = token else {
        return challenge(StatusCode::UNAUTHORIZED, None);
    };
    let caller = match realm.verify(&token).await {
        Ok(caller) => caller,
        Err(Refusal::Invalid(why)) => {
            return challenge(StatusCode::UNAUTHORIZED, Some(("invalid_token", why)));
        }
        Err(Refusal::Unavailable(why)) => {
            eprintln!("Cannot check tokens: {why}");
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                "The authorization server cannot be reached.",
            )
                .into_response();
        }
    };
    let granted: Vec<&str> = caller.scope.split_whitespace().collect();
    if !SCOPES.iter().all(|s| granted.contains(s)) {
        // Step-up: the client asks for a token with the scopes the challenge names.
        let why = "The token lacks a scope this request needs.";
        return challenge(StatusCode::FORBIDDEN, Some(("insufficient_scope", why)));
    }
    request.extensions_mut().insert(caller);
    next.run(request).await
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Opt-in: with the resource's introspection credentials (Portcullis: the resource's page,
    // Introspection credentials) each token is also confirmed with the realm (RFC 7662), so a
    // revoked token is refused at once, or within 30 s if it was used just before, instead of
    // working until it expires. It costs at most one request to the realm per token per 30 s,
    // and calls fail (503) while the realm cannot be reached.
    let set = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
    let introspection = match (
        set("INTROSPECTION_CLIENT_ID"),
        set("INTROSPECTION_CLIENT_SECRET"),
    ) {
        (Some(id), Some(secret)) => Some((id, secret)),
        (None, None) => None,
        // Half configured (a secret store failed?): refuse to start rather than skip the checks.
        _ => {
            return Err(
                "Set both INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET, or neither."
                    .into(),
            );
        }
    };
    let realm = Arc::new(Realm {
        http: reqwest::Client::builder()
            // Credentials go to the introspection endpoint only, never where a redirect points.
            .redirect(reqwest::redirect::Policy::none())
            // A realm that hangs fails the call instead of holding every request open.
            .connect_timeout(Duration::from_secs(3))
            .timeout(Duration::from_secs(10))
            .build()?,
        introspection,
        keys: Mutex::default(),
        fetching: tokio::sync::Mutex::default(),
        answers: Mutex::default(),
    });
    let config = StreamableHttpServerConfig::default()
        // DNS-rebinding protection: requests must name this server's host.
        .with_allowed_hosts([HOST])
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let mcp = StreamableHttpService::new(
        || Ok(Server::new()),
        LocalSessionManager::default().into(),
        config,
    );
    let mut app = axum::Router::new()
        .route_service(RESOURCE_PATH, mcp)
        .layer(middleware::from_fn_with_state(realm, authorize));
    // The metadata is public: routed outside the token check.
    for path in METADATA_PATHS {
        app = app.route(
            path,
            axum::routing::get(|| async {
                ([(header::CONTENT_TYPE, "application/json")], METADATA)
            }),
        );
    }
    let port: u16 = std::env::var("PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(@PORT@);
    let listener = tokio::net::TcpListener::bind((@BIND@, port)).await?;
    println!("MCP server for {RESOURCE} on port {port}");
    axum::serve(listener, app).await?;
    Ok(())
}
"##;
