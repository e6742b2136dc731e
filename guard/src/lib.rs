//! Protects an MCP server — or any axum service — with a Portcullis realm.
//!
//! An MCP server is an OAuth 2.1 resource server: it accepts only access tokens the realm
//! issued *for it* (RFC 8707: `aud` is this server's URL, and nothing else), tells clients where
//! to get one (RFC 9728 Protected Resource Metadata and the `WWW-Authenticate` challenge), and
//! asks for more scopes when a token has too few. This crate does all of it:
//!
//! - discovers the realm from its issuer (RFC 8414) and fetches its JWK Set, cached: refetched
//!   when a token names an unknown key (at most once per interval, whoever asks), refreshed in
//!   the background when stale, and kept in use while the realm cannot be reached
//!   (stale-while-error);
//! - verifies RFC 9068 access tokens: signature by a realm key with the key's own algorithm
//!   (ES256, RS256 or EdDSA; never `none`, never another), `typ` `at+jwt`, `iss`, `exp` (with
//!   leeway), `aud` equal to this resource, required scopes; optionally asks the realm's
//!   introspection endpoint whether the token is still active (cached briefly), for servers that
//!   must notice a revocation at once;
//! - hands handlers the verified [`Caller`]: subject, client, scopes and, for agents
//!   (non-human identities), the agent's id, name, owner and roles — the same typed claims
//!   ([`AccessTokenClaims`]) Portcullis issues;
//! - serves the RFC 9728 metadata document at its path-inserted and root well-known URLs;
//! - answers a request without a token with `401` and `WWW-Authenticate: Bearer
//!   resource_metadata="…", scope="…"`, a bad token with `401` `error="invalid_token"`, and a
//!   token without a needed scope with `403` `error="insufficient_scope"` (step-up).
//!
//! It depends on axum, tower, reqwest (rustls on AWS-LC) and AWS-LC for signatures; not on
//! the rest of Portcullis.
//!
//! # Example
//!
//! ```no_run
//! use portcullis_guard::{Caller, Guard};
//!
//! async fn whoami(caller: Caller) -> String {
//!     match caller.agent() {
//!         Some(agent) => format!("agent {} owned by {}", agent.agent_name, agent.agent_owner),
//!         None => format!("{} via {}", caller.subject(), caller.client_id()),
//!     }
//! }
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let guard = Guard::builder("https://id.example.com/realms/acme", "https://mcp.example.com/mcp")?
//!     .required_scopes(["tools:call"])
//!     .resource_name("Payments MCP")
//!     .build()?;
//! let app = axum::Router::new()
//!     .route(guard.resource_path(), axum::routing::post(whoami))
//!     .layer(guard.layer())
//!     // The metadata is public: merged after the layer.
//!     .merge(guard.metadata_router());
//! let listener = tokio::net::TcpListener::bind("0.0.0.0:8080").await?;
//! axum::serve(listener, app).await?;
//! # Ok(()) }
//! ```
//!
//! A complete MCP server with the official Rust SDK (`rmcp`) is `examples/mcp_server.rs`. (The
//! Portcullis console's "Protect your MCP server" generates a crate that does the same checks
//! with crates.io crates alone, so it builds without this repository.)
#![forbid(unsafe_code)]

mod caller;
mod challenge;
mod client;
mod config;
mod introspect;
mod keys;
mod layer;
mod metadata;
mod realm;

pub use caller::{Caller, MissingGuard};
pub use challenge::Rejection;
pub use config::{ConfigError, GuardBuilder, canonical_resource};
pub use layer::{GuardLayer, GuardService};
pub use metadata::ProtectedResourceMetadata;
pub use portcullis_claims::{ACCESS_TOKEN_TYP, AccessTokenClaims, Actor, AgentClaims};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use keys::{Alg, KeySet};
use realm::{CachePolicy, Lookup, Realm};
use std::sync::Arc;

/// Verifies the access tokens of one realm for one resource; cheap to clone (one shared key
/// cache).
#[derive(Clone)]
pub struct Guard {
    inner: Arc<Inner>,
}

struct Inner {
    realm: Arc<Realm>,
    resource: String,
    resource_path: String,
    scopes: Vec<String>,
    metadata: ProtectedResourceMetadata,
    metadata_urls: Vec<String>,
    leeway: i64,
    introspector: Option<introspect::Introspector>,
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("issuer", &self.inner.realm.issuer)
            .field("resource", &self.inner.resource)
            .field("scopes", &self.inner.scopes)
            .field("introspection", &self.inner.introspector)
            .finish_non_exhaustive()
    }
}

/// The protected header members read.
#[derive(serde::Deserialize)]
struct Header {
    alg: String,
    #[serde(default)]
    typ: Option<String>,
    #[serde(default)]
    kid: Option<String>,
    /// Present at all (whatever its value): this verifier understands no critical extension.
    #[serde(default, deserialize_with = "present")]
    crit: bool,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    <serde::de::IgnoredAny as serde::Deserialize>::deserialize(d).map(|_| true)
}

fn decode(part: &str) -> Result<Vec<u8>, Rejection> {
    URL_SAFE_NO_PAD
        .decode(part)
        .map_err(|_| Rejection::InvalidToken("The token is not a JWT."))
}

impl Guard {
    /// Starts a guard for the resource at `resource` (its canonical URL: the one Portcullis
    /// names in `aud`, which [`canonical_resource`] computes) accepting the tokens of the realm
    /// whose issuer is `issuer` (`https://…/realms/{realm}`).
    ///
    /// # Errors
    /// When either is not an https URL (http is accepted on loopback hosts, for development).
    pub fn builder(issuer: &str, resource: &str) -> Result<GuardBuilder, ConfigError> {
        GuardBuilder::new(issuer, resource)
    }

    fn from_builder(
        b: GuardBuilder,
        metadata: ProtectedResourceMetadata,
    ) -> Result<Self, ConfigError> {
        let pinned = b
            .jwks
            .as_ref()
            .map(KeySet::parse)
            .transpose()
            .map_err(ConfigError::Jwks)?;
        let client = client::Http::new().map_err(ConfigError::Client)?;
        let realm = Realm::new(
            b.issuer,
            client,
            CachePolicy {
                ttl: b.key_ttl,
                min_refetch: b.min_refetch,
                max_stale: b.max_stale,
            },
            pinned,
        );
        let metadata_urls = config::metadata_urls(&b.resource);
        let resource_path = metadata::split_origin(&b.resource).1.to_owned();
        Ok(Self {
            inner: Arc::new(Inner {
                realm: Arc::new(realm),
                resource_path,
                resource: b.resource,
                scopes: b.scopes,
                metadata,
                metadata_urls,
                leeway: i64::try_from(b.leeway.as_secs()).unwrap_or(i64::MAX),
                introspector: b.introspection.map(|(id, secret)| {
                    introspect::Introspector::new(id, secret, b.introspection_ttl)
                }),
            }),
        })
    }

    /// The realm's issuer.
    pub fn issuer(&self) -> &str {
        &self.inner.realm.issuer
    }

    /// The resource (canonical URL) tokens must name in `aud`.
    pub fn resource(&self) -> &str {
        &self.inner.resource
    }

    /// The resource URL's path: where to route the MCP endpoint.
    pub fn resource_path(&self) -> &str {
        &self.inner.resource_path
    }

    /// The resource URL's host name: what the server's `Host` check (DNS-rebinding
    /// protection) should accept.
    pub fn resource_host(&self) -> &str {
        let (origin, _) = metadata::split_origin(&self.inner.resource);
        let authority = origin.split_once("://").map_or(origin, |(_, a)| a);
        match authority.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or(v6),
            None => authority.split(':').next().unwrap_or(authority),
        }
    }

    /// The scopes every request must carry.
    pub fn required_scopes(&self) -> &[String] {
        &self.inner.scopes
    }

    /// Discovers the realm and fetches its keys now, instead of on the first request: call it
    /// at start-up to fail early.
    ///
    /// # Errors
    /// What went wrong, in words (unreachable, not this issuer, no usable key).
    pub async fn refresh_keys(&self) -> Result<(), String> {
        self.inner
            .realm
            .refresh_now()
            .await
            .map_err(|e| e.to_string())
    }

    /// Verifies `token` for this resource with the guard's required scopes.
    ///
    /// # Errors
    /// The [`Rejection`] to answer with ([`Guard::reject`]).
    pub async fn verify(&self, token: &str) -> Result<Caller, Rejection> {
        self.verify_requiring(token, &self.inner.scopes).await
    }

    /// Verifies `token` for this resource, requiring `scopes`.
    ///
    /// # Errors
    /// The [`Rejection`] to answer with ([`Guard::reject`]).
    pub async fn verify_requiring(
        &self,
        token: &str,
        scopes: &[String],
    ) -> Result<Caller, Rejection> {
        if token.len() > layer::MAX_AUTHORIZATION_BYTES {
            return Err(Rejection::InvalidToken("The token is too long."));
        }
        let mut parts = token.split('.');
        let (Some(h), Some(p), Some(s), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(Rejection::InvalidToken("The token is not a JWT."));
        };
        let header: Header = serde_json::from_slice(&decode(h)?)
            .map_err(|_| Rejection::InvalidToken("The token is not a JWT."))?;
        // RFC 9068 §4: only access tokens, never an ID token or another JWT of the realm.
        if !header.typ.as_deref().is_some_and(|t| {
            t.eq_ignore_ascii_case(ACCESS_TOKEN_TYP) || t.eq_ignore_ascii_case("application/at+jwt")
        }) {
            return Err(Rejection::InvalidToken(
                "The token is not an access token (typ).",
            ));
        }
        let alg = Alg::parse(&header.alg).ok_or(Rejection::InvalidToken(
            "The token's algorithm is not accepted.",
        ))?;
        if header.crit {
            return Err(Rejection::InvalidToken("The token has a critical header."));
        }
        let kid = header
            .kid
            .ok_or(Rejection::InvalidToken("The token names no key."))?;
        let key = match self.inner.realm.key(&kid).await {
            Lookup::Found(key) => key,
            Lookup::Unknown => {
                return Err(Rejection::InvalidToken(
                    "The token is signed by an unknown key.",
                ));
            }
            Lookup::Unavailable => return Err(Rejection::Unavailable),
        };
        if key.alg != alg {
            return Err(Rejection::InvalidToken(
                "The token's algorithm is not its key's.",
            ));
        }
        let signed = &token[..h.len() + 1 + p.len()];
        if !key.verify(signed.as_bytes(), &decode(s)?) {
            return Err(Rejection::InvalidToken("The token's signature is wrong."));
        }
        let claims: AccessTokenClaims = serde_json::from_slice(&decode(p)?).map_err(|_| {
            Rejection::InvalidToken("The token's claims are not an access token's.")
        })?;
        if claims.iss != self.inner.realm.issuer {
            return Err(Rejection::InvalidToken("The token is from another issuer."));
        }
        if claims.aud != self.inner.resource {
            return Err(Rejection::InvalidToken(
                "The token is for another resource.",
            ));
        }
        let now = unix_now();
        if claims.exp.saturating_add(self.inner.leeway) <= now {
            return Err(Rejection::InvalidToken("The token has expired."));
        }
        if let Some(introspector) = &self.inner.introspector {
            match introspector
                .is_active(&self.inner.realm, token, &claims, now)
                .await
            {
                Ok(true) => {}
                Ok(false) => {
                    return Err(Rejection::InvalidToken("The token has been revoked."));
                }
                Err(e) => {
                    tracing::warn!(issuer = %self.inner.realm.issuer, "Failed to introspect a token: {e}");
                    return Err(Rejection::Unavailable);
                }
            }
        }
        // After introspection: a revoked token is told so, not asked for more scopes.
        if !scopes.iter().all(|s| claims.scopes().any(|c| c == s)) {
            return Err(Rejection::InsufficientScope);
        }
        Ok(Caller::new(claims))
    }
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}
