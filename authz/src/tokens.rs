//! The protocol side of the authorization server.
//!
//! Client authentication (RFC 6749 §2.3), the `client_credentials` grant with audience-bound
//! RFC 9068 access tokens (RFC 8707), introspection (RFC 7662), revocation (RFC 7009),
//! authorization server metadata (RFC 8414) and the JWKS.
//!
//! The token path writes nothing to the database: a token is a signed JWT, revocation is
//! remembered by `jti`.
use crate::agents::{Agent, AgentStatus};
use crate::audit::action;
use crate::clients::{AuthMethod, Client, ClientSecret, GrantType};
use crate::core::{Core, RequestMeta};
use crate::error::{Error, OAuthErrorCode, Result};
use crate::keys::{SigningAlg, decode_unverified};
use crate::realms::Realm;
use crate::resources::Resource;
use crate::resources::ResourceUri;
use crate::scope::ScopeSet;
use crate::secret::{PlainToken, constant_time_eq};
use serde::Serialize;

/// How far in the future a client assertion's `exp` may be.
pub const MAX_ASSERTION_LIFETIME_SECS: i64 = 300;

/// `client_assertion_type` of RFC 7523 §2.2.
pub const JWT_BEARER_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// The `typ` header of access tokens (RFC 9068 §2.1).
pub const ACCESS_TOKEN_TYP: &str = "at+jwt";

/// Client credentials as presented at an endpoint.
#[derive(Clone, PartialEq, Eq)]
pub enum ClientCredentials {
    /// `Authorization: Basic` (RFC 6749 §2.3.1).
    Basic {
        /// Client id.
        client_id: String,
        /// Secret.
        secret: String,
    },
    /// `client_id` and `client_secret` in the body.
    Post {
        /// Client id.
        client_id: String,
        /// Secret.
        secret: String,
    },
    /// A `private_key_jwt` client assertion (RFC 7523 §2.2).
    Assertion {
        /// Client id (from `client_id` or the assertion's `iss`).
        client_id: String,
        /// The signed JWT.
        assertion: String,
    },
    /// Only a `client_id` (public clients).
    None {
        /// Client id.
        client_id: String,
    },
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id())
            .finish_non_exhaustive()
    }
}

impl ClientCredentials {
    /// The presented client id.
    pub fn client_id(&self) -> &str {
        match self {
            ClientCredentials::Basic { client_id, .. }
            | ClientCredentials::Post { client_id, .. }
            | ClientCredentials::Assertion { client_id, .. }
            | ClientCredentials::None { client_id } => client_id,
        }
    }
}

/// A token request after form decoding.
#[derive(Debug, Clone, Default)]
pub struct TokenRequest {
    /// `grant_type`.
    pub grant_type: String,
    /// `scope`, if sent.
    pub scope: Option<String>,
    /// Every `resource` parameter sent.
    pub resource: Vec<String>,
}

/// A successful token response (RFC 6749 §5.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TokenResponse {
    /// The JWT.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until expiry.
    pub expires_in: i64,
    /// Granted scope.
    pub scope: String,
}

fn oauth(code: OAuthErrorCode, msg: &'static str) -> Error {
    Error::oauth(code, msg)
}

fn invalid_client() -> Error {
    oauth(
        OAuthErrorCode::InvalidClient,
        "Client authentication failed.",
    )
}

/// Whether `secret` matches a live secret. Every live secret is compared, in constant time,
/// so timing does not reveal which one matched.
fn secret_matches(secrets: &[ClientSecret], secret: &str, now: i64) -> bool {
    let presented = PlainToken::from_input(secret).hashed();
    secrets
        .iter()
        .filter(|s| s.is_live(now))
        .fold(false, |acc, s| {
            constant_time_eq(&s.secret_hash, &presented) | acc
        })
}

/// Claims of a verified access token.
struct Verified {
    claims: serde_json::Value,
}

impl Core {
    /// A realm that serves protocol requests: unknown and disabled realms are `NotFound`.
    async fn serving_realm(&self, name: &str) -> Result<Realm> {
        let (epoch, now) = (self.cache.epoch(), self.now());
        let realm = match self.cache.realms.get(&name.to_owned(), epoch, now) {
            Some(r) => r,
            None => {
                let r = self.find_realm(name).await?;
                self.cache
                    .realms
                    .put(name.to_owned(), r.clone(), epoch, now);
                r
            }
        };
        if realm.enabled {
            Ok(realm)
        } else {
            Err(Error::not_found("realm", name))
        }
    }

    /// A client and its secrets, through the cache.
    async fn cached_client(
        &self,
        realm_id: &str,
        client_id: &str,
    ) -> Result<Option<(Client, Vec<ClientSecret>)>> {
        let (epoch, now) = (self.cache.epoch(), self.now());
        let key = (realm_id.to_owned(), client_id.to_owned());
        if let Some(hit) = self.cache.clients.get(&key, epoch, now) {
            return Ok(Some(hit));
        }
        let Some(client) = self.store.find_client(realm_id, client_id).await? else {
            return Ok(None);
        };
        let secrets = self.store.list_client_secrets(&client.id).await?;
        self.cache
            .clients
            .put(key, (client.clone(), secrets.clone()), epoch, now);
        Ok(Some((client, secrets)))
    }

    /// A resource by canonical URI, through the cache.
    async fn cached_resource(&self, realm_id: &str, uri: &ResourceUri) -> Result<Option<Resource>> {
        let load = || self.store.find_resource_by_uri(realm_id, uri);
        self.cached_resource_with(realm_id, uri.as_str(), load)
            .await
    }

    /// A resource by id (the realm's default resource), through the cache.
    async fn cached_resource_by_id(&self, realm_id: &str, id: &str) -> Result<Option<Resource>> {
        let load = || self.store.find_resource_by_id(realm_id, id);
        self.cached_resource_with(realm_id, id, load).await
    }

    /// Looks `key` up in the resource cache, else awaits `load()` and caches a hit. Ids (`res_…`)
    /// and canonical URIs (`http…`) never collide, so both share one map.
    async fn cached_resource_with<F>(
        &self,
        realm_id: &str,
        key: &str,
        load: impl FnOnce() -> F,
    ) -> Result<Option<Resource>>
    where
        F: std::future::Future<
                Output = std::result::Result<Option<Resource>, crate::error::StorageError>,
            >,
    {
        let (epoch, now) = (self.cache.epoch(), self.now());
        let key = (realm_id.to_owned(), key.to_owned());
        if let Some(hit) = self.cache.resources.get(&key, epoch, now) {
            return Ok(Some(hit));
        }
        let found = load().await?;
        if let Some(r) = &found {
            self.cache.resources.put(key, r.clone(), epoch, now);
        }
        Ok(found)
    }

    /// Authenticates a client with the method it registered, throttling failures per client and
    /// per IP.
    ///
    /// # Errors
    /// `OAuth(invalid_client)` or `Throttled`.
    ///
    /// # Security
    /// Secrets are compared as SHA-256 digests in constant time; unknown clients, wrong secrets,
    /// wrong methods and disabled clients give the same answer.
    async fn authenticate_client(
        &self,
        realm: &Realm,
        creds: Option<&ClientCredentials>,
        meta: &RequestMeta,
    ) -> Result<Client> {
        let Some(creds) = creds else {
            return Err(oauth(
                OAuthErrorCode::InvalidClient,
                "Client authentication is required.",
            ));
        };
        let key = format!("{}/{}", realm.id, creds.client_id());
        let ip = meta.client_ip.as_deref();
        let now = self.now();
        if let Some(retry_after_secs) = self.client_throttle.retry_after(&key, ip, now) {
            return Err(Error::Throttled { retry_after_secs });
        }
        let found = self.cached_client(&realm.id, creds.client_id()).await?;
        let (client, secrets) = match found {
            Some((c, s)) => (Some(c), s),
            None => (None, Vec::new()),
        };
        let ok = match (&client, creds) {
            (Some(c), ClientCredentials::Basic { secret, .. })
                if c.auth_method == AuthMethod::ClientSecretBasic =>
            {
                secret_matches(&secrets, secret, now)
            }
            (Some(c), ClientCredentials::Post { secret, .. })
                if c.auth_method == AuthMethod::ClientSecretPost =>
            {
                secret_matches(&secrets, secret, now)
            }
            (Some(c), ClientCredentials::Assertion { assertion, .. })
                if c.auth_method == AuthMethod::PrivateKeyJwt =>
            {
                self.assertion_is_valid(realm, c, assertion, now).await?
            }
            (Some(c), ClientCredentials::None { .. }) => c.auth_method == AuthMethod::None,
            _ => false,
        };
        match client.filter(|c| ok && c.enabled) {
            Some(c) => Ok(c),
            None => {
                self.client_throttle.record_failure(&key, ip, now);
                tracing::info!(client.id = %creds.client_id(), realm = %realm.name, "Client authentication failed");
                Err(invalid_client())
            }
        }
    }

    /// Checks a `private_key_jwt` assertion (RFC 7523 §3): signed by one of the client's keys with
    /// an asymmetric algorithm, `iss` = `sub` = `client_id`, `aud` = the issuer or the token
    /// endpoint, `exp` in the future and at most five minutes ahead, and a `jti` never seen
    /// before (recorded in the database, so replays fail on every instance).
    async fn assertion_is_valid(
        &self,
        realm: &Realm,
        client: &Client,
        assertion: &str,
        now: i64,
    ) -> Result<bool> {
        let Ok((header, claims)) = decode_unverified(assertion) else {
            return Ok(false);
        };
        // Only ES256, RS256 and EdDSA parse: `none` and HMAC are refused here.
        let Ok(alg) = SigningAlg::parse(&header.alg) else {
            return Ok(false);
        };
        let jwks = match (&client.metadata.jwks, &client.metadata.jwks_uri) {
            (Some(inline), _) => Some(inline.clone()),
            (None, Some(uri)) => self.remote_jwks(client, uri, header.kid.as_deref()).await,
            (None, None) => None,
        };
        let keys = jwks
            .as_ref()
            .and_then(|j| j["keys"].as_array())
            .cloned()
            .unwrap_or_default();
        let signed = keys
            .iter()
            .filter(|k| {
                header
                    .kid
                    .as_deref()
                    .is_none_or(|kid| k["kid"].as_str() == Some(kid))
            })
            .filter_map(|k| crate::keys::Verifier::from_jwk(k).ok())
            .filter(|v| v.alg() == alg)
            .any(|v| v.verify(assertion).is_ok());
        if !signed {
            return Ok(false);
        }
        let issuer = self.issuer(&realm.name);
        let token_endpoint = format!("{issuer}/token");
        let is_us = |a: &serde_json::Value| {
            a.as_str()
                .is_some_and(|a| a == issuer || a == token_endpoint)
        };
        let aud_ok = match &claims["aud"] {
            serde_json::Value::Array(v) => v.iter().any(is_us),
            other => is_us(other),
        };
        let id = client.client_id.as_str();
        let (Some(exp), Some(jti)) = (claims["exp"].as_i64(), claims["jti"].as_str()) else {
            return Ok(false);
        };
        let ok = claims["iss"].as_str() == Some(id)
            && claims["sub"].as_str() == Some(id)
            && aud_ok
            && exp > now
            && exp <= now + MAX_ASSERTION_LIFETIME_SECS
            && !jti.is_empty()
            && jti.len() <= 256;
        if !ok {
            return Ok(false);
        }
        Ok(self
            .store
            .consume_assertion_jti(&realm.id, id, jti, exp, now)
            .await?)
    }

    /// A client's JWK Set from its `jwks_uri`, through the document cache: fetched when missing or
    /// expired, or when it lacks the assertion's `kid` (the client rotated its keys), but at most
    /// once a minute per URL. A failed fetch keeps the previous document usable for a day.
    async fn remote_jwks(
        &self,
        client: &Client,
        uri: &str,
        kid: Option<&str>,
    ) -> Option<serde_json::Value> {
        use crate::fetch::Lookup;
        let lacks_kid = |doc: &serde_json::Value| {
            kid.is_some_and(|kid| {
                !doc["keys"]
                    .as_array()
                    .is_some_and(|keys| keys.iter().any(|k| k["kid"].as_str() == Some(kid)))
            })
        };
        let now = self.now();
        let stale = match self.documents.lookup(uri, now, lacks_kid) {
            Lookup::Fresh(doc) => return Some(doc),
            Lookup::Wait(doc) => return doc,
            Lookup::Refetch(stale) => stale,
        };
        match self.fetch_client_jwks(client, uri, now).await {
            Ok(doc) => Some(doc),
            Err(_) => stale,
        }
    }

    /// Fetches a client's JWK Set from `uri` now and records the outcome in the document cache
    /// (a document that is not a public JWK Set counts as a failure).
    pub(crate) async fn fetch_client_jwks(
        &self,
        client: &Client,
        uri: &str,
        now: i64,
    ) -> std::result::Result<serde_json::Value, crate::fetch::FetchError> {
        let fetched = match crate::fetch::parse_fetch_url(uri, self.config().allow_loopback_fetch) {
            Ok(url) => self.fetcher.fetch_json(&url).await,
            Err(e) => Err(crate::fetch::FetchError::Refused(e)),
        };
        let checked = fetched.and_then(|f| {
            crate::clients::check_client_jwks(&f.body)
                .map(|()| f)
                .map_err(|e| crate::fetch::FetchError::Failed(format!("not a public JWK Set: {e}")))
        });
        self.documents.record(uri, now, checked.as_ref());
        match checked {
            Ok(f) => Ok(f.body),
            Err(error) => {
                tracing::warn!(client.id = %client.client_id, jwks_uri = %uri, %error, "Fetching a client's JWKS failed");
                Err(error)
            }
        }
    }

    /// The `client_credentials` grant: an RFC 9068 access token whose `aud` is exactly one
    /// registered resource.
    ///
    /// # Errors
    /// `OAuth` errors per RFC 6749 §5.2 / RFC 8707, `Throttled`, `NotFound` (realm).
    pub async fn issue_token(
        &self,
        realm_name: &str,
        creds: Option<ClientCredentials>,
        req: &TokenRequest,
        meta: &RequestMeta,
    ) -> Result<TokenResponse> {
        let realm = self.serving_realm(realm_name).await?;
        match req.grant_type.as_str() {
            "client_credentials" => {}
            "" => {
                return Err(oauth(
                    OAuthErrorCode::InvalidRequest,
                    "grant_type is required.",
                ));
            }
            _ => {
                return Err(oauth(
                    OAuthErrorCode::UnsupportedGrantType,
                    "Only client_credentials is supported.",
                ));
            }
        }
        let client = self
            .authenticate_client(&realm, creds.as_ref(), meta)
            .await?;
        if !client.grant_types.contains(&GrantType::ClientCredentials) {
            return Err(oauth(
                OAuthErrorCode::UnauthorizedClient,
                "This client may not use client_credentials.",
            ));
        }
        let resource = match req.resource.as_slice() {
            [] => match &realm.default_resource_id {
                Some(id) => self.cached_resource_by_id(&realm.id, id).await?,
                None => {
                    return Err(oauth(
                        OAuthErrorCode::InvalidTarget,
                        "The resource parameter is required.",
                    ));
                }
            },
            [one] => {
                let uri =
                    ResourceUri::parse(one, self.config().allow_http_loopback).map_err(|_| {
                        oauth(
                            OAuthErrorCode::InvalidTarget,
                            "The resource parameter is not a valid resource URI.",
                        )
                    })?;
                self.cached_resource(&realm.id, &uri).await?
            }
            _ => {
                return Err(oauth(
                    OAuthErrorCode::InvalidTarget,
                    "Exactly one resource parameter is allowed.",
                ));
            }
        };
        let resource = resource.filter(|r| r.enabled).ok_or_else(|| {
            oauth(
                OAuthErrorCode::InvalidTarget,
                "The resource is unknown or disabled.",
            )
        })?;
        let requested =
            ScopeSet::parse(req.scope.as_deref().unwrap_or_default()).map_err(|_| {
                oauth(
                    OAuthErrorCode::InvalidScope,
                    "The scope parameter is malformed.",
                )
            })?;
        let agent = self.active_agent_of(&client).await?;
        let mut allowed = client.scope.intersection(&resource.scopes);
        if let Some(a) = &agent {
            allowed = allowed.intersection(&a.roles);
        }
        let granted = if requested.is_empty() {
            allowed
        } else {
            requested.intersection(&allowed)
        };
        if granted.is_empty() {
            return Err(oauth(
                OAuthErrorCode::InvalidScope,
                "None of the requested scopes may be granted for this resource.",
            ));
        }
        let alg = resource.signing_alg.unwrap_or(SigningAlg::ES256);
        let keys = self.realm_keys(&realm, Some(alg)).await?;
        let signer = keys
            .signer(alg)
            .ok_or_else(|| Error::Internal(format!("no active {alg} key")))?;
        let now = self.now();
        let mut claims = serde_json::json!({
            "iss": self.issuer(&realm.name),
            "sub": client.client_id,
            "aud": resource.uri.as_str(),
            "client_id": client.client_id,
            "scope": granted.to_string(),
            "iat": now,
            "exp": now + resource.token_ttl_secs,
            "jti": crate::secret::new_id("at"),
        });
        if let Some(a) = &agent {
            claims["nhi"] = true.into();
            claims["agent_id"] = a.id.clone().into();
            claims["agent_name"] = a.name.clone().into();
            claims["agent_owner"] = a.owner.clone().into();
            claims["roles"] = a.roles.iter().collect::<Vec<_>>().into();
        }
        let access_token = signer
            .sign(ACCESS_TOKEN_TYP, &claims)
            .map_err(Error::Internal)?;
        Ok(TokenResponse {
            access_token,
            token_type: "Bearer",
            expires_in: resource.token_ttl_secs,
            scope: granted.to_string(),
        })
    }

    /// Verifies an access token issued by this realm: signature by a published key, `typ`,
    /// `iss`. Expiry and revocation are checked by the callers that need them.
    async fn verify_access_token(&self, realm: &Realm, token: &str) -> Result<Option<Verified>> {
        let Ok((header, _)) = decode_unverified(token) else {
            return Ok(None);
        };
        if header.typ.as_deref() != Some(ACCESS_TOKEN_TYP) {
            return Ok(None);
        }
        let keys = self.realm_keys(realm, None).await?;
        let Some(verifier) = header.kid.as_deref().and_then(|kid| keys.verifier(kid)) else {
            return Ok(None);
        };
        let Ok((_, claims)) = verifier.verify(token) else {
            return Ok(None);
        };
        if claims["iss"].as_str() != Some(self.issuer(&realm.name).as_str()) {
            return Ok(None);
        }
        Ok(Some(Verified { claims }))
    }

    /// The agent a client acts for, which must be active; `None` for clients without one.
    ///
    /// # Errors
    /// `OAuth(unauthorized_client)` when the agent is disabled, expired or gone.
    async fn active_agent_of(&self, client: &Client) -> Result<Option<Agent>> {
        let Some(id) = &client.agent_id else {
            return Ok(None);
        };
        let (epoch, now) = (self.cache.epoch(), self.now());
        let agent = match self.cache.agents.get(id, epoch, now) {
            Some(a) => Some(a),
            None => {
                let found = self.store.find_agent_by_id(id).await?;
                if let Some(a) = &found {
                    self.cache.agents.put(id.clone(), a.clone(), epoch, now);
                }
                found
            }
        };
        agent
            .filter(|a| a.status(now) == AgentStatus::Active)
            .map(Some)
            .ok_or_else(|| {
                oauth(
                    OAuthErrorCode::UnauthorizedClient,
                    "The agent this client acts for is disabled or expired.",
                )
            })
    }

    /// Token introspection (RFC 7662) for an authenticated client of the realm.
    ///
    /// # Errors
    /// `OAuth(invalid_client)`, `Throttled`, `NotFound` (realm).
    pub async fn introspect_token(
        &self,
        realm_name: &str,
        creds: Option<ClientCredentials>,
        token: &str,
        meta: &RequestMeta,
    ) -> Result<serde_json::Value> {
        let realm = self.serving_realm(realm_name).await?;
        self.authenticate_client(&realm, creds.as_ref(), meta)
            .await?;
        let inactive = serde_json::json!({ "active": false });
        let Some(Verified { claims }) = self.verify_access_token(&realm, token).await? else {
            return Ok(inactive);
        };
        let now = self.now();
        let (Some(exp), Some(jti), Some(client_id), Some(aud)) = (
            claims["exp"].as_i64(),
            claims["jti"].as_str(),
            claims["client_id"].as_str(),
            claims["aud"].as_str(),
        ) else {
            return Ok(inactive);
        };
        if exp <= now || self.store.is_token_revoked(&realm.id, jti).await? {
            return Ok(inactive);
        }
        // A token outlives neither its client nor its resource.
        let client_ok = match self.store.find_client(&realm.id, client_id).await? {
            Some(c) if c.enabled => match self.active_agent_of(&c).await {
                Ok(_) => true,
                Err(Error::OAuth(_)) => false,
                Err(e) => return Err(e),
            },
            _ => false,
        };
        let resource_ok = match ResourceUri::parse(aud, true) {
            Ok(uri) => self
                .store
                .find_resource_by_uri(&realm.id, &uri)
                .await?
                .is_some_and(|r| r.enabled),
            Err(_) => false,
        };
        if !client_ok || !resource_ok {
            return Ok(inactive);
        }
        let mut out = serde_json::json!({ "active": true, "token_type": "Bearer" });
        for k in [
            "scope",
            "client_id",
            "sub",
            "aud",
            "iss",
            "exp",
            "iat",
            "jti",
        ] {
            out[k] = claims[k].clone();
        }
        Ok(out)
    }

    /// Token revocation (RFC 7009): the client that a token was issued to may revoke it.
    /// Invalid or unknown tokens are not an error.
    ///
    /// # Errors
    /// `OAuth(invalid_client)`, `OAuth(unauthorized_client)` for another client's token,
    /// `Throttled`, `NotFound` (realm).
    pub async fn revoke_token(
        &self,
        realm_name: &str,
        creds: Option<ClientCredentials>,
        token: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let realm = self.serving_realm(realm_name).await?;
        let client = self
            .authenticate_client(&realm, creds.as_ref(), meta)
            .await?;
        let Some(Verified { claims }) = self.verify_access_token(&realm, token).await? else {
            return Ok(());
        };
        let (Some(jti), Some(exp)) = (claims["jti"].as_str(), claims["exp"].as_i64()) else {
            return Ok(());
        };
        if claims["client_id"].as_str() != Some(client.client_id.as_str()) {
            return Err(oauth(
                OAuthErrorCode::UnauthorizedClient,
                "The token was not issued to this client.",
            ));
        }
        if exp <= self.now() {
            return Ok(());
        }
        let mut event = self.event(
            &realm.id,
            &client.client_id,
            action::TOKEN_REVOKE,
            format!("token:{jti}"),
            meta,
        );
        event.details = serde_json::json!({"aud": claims["aud"]});
        Ok(self
            .store
            .insert_revoked_token(&realm.id, jti, exp, &event)
            .await?)
    }

    /// Authorization server metadata (RFC 8414) of a realm; lists only what exists.
    ///
    /// # Errors
    /// `NotFound` (unknown or disabled realm).
    pub async fn authorization_server_metadata(
        &self,
        realm_name: &str,
    ) -> Result<serde_json::Value> {
        let realm = self.serving_realm(realm_name).await?;
        let issuer = self.issuer(&realm.name);
        let mut scopes: Vec<String> = self
            .store
            .list_resources(&realm.id)
            .await?
            .iter()
            .filter(|r| r.enabled)
            .flat_map(|r| r.scopes.iter().map(str::to_owned).collect::<Vec<_>>())
            .collect();
        scopes.sort();
        scopes.dedup();
        let auth_methods = [
            "client_secret_basic",
            "client_secret_post",
            "private_key_jwt",
        ];
        let signing_algs: Vec<&str> = SigningAlg::ALL.iter().map(|a| a.as_str()).collect();
        Ok(serde_json::json!({
            "issuer": issuer,
            "token_endpoint": format!("{issuer}/token"),
            "jwks_uri": format!("{issuer}/jwks"),
            "introspection_endpoint": format!("{issuer}/introspect"),
            "revocation_endpoint": format!("{issuer}/revoke"),
            "grant_types_supported": ["client_credentials"],
            "response_types_supported": [],
            "token_endpoint_auth_methods_supported": auth_methods,
            "token_endpoint_auth_signing_alg_values_supported": signing_algs,
            "introspection_endpoint_auth_methods_supported": auth_methods,
            "introspection_endpoint_auth_signing_alg_values_supported": signing_algs,
            "revocation_endpoint_auth_methods_supported": auth_methods,
            "revocation_endpoint_auth_signing_alg_values_supported": signing_algs,
            "scopes_supported": scopes,
        }))
    }

    /// The realm's JWKS: active, next and still-needed retired keys.
    ///
    /// # Errors
    /// `NotFound` (unknown or disabled realm).
    pub async fn jwks(&self, realm_name: &str) -> Result<serde_json::Value> {
        let realm = self.serving_realm(realm_name).await?;
        Ok(self
            .realm_keys(&realm, Some(SigningAlg::ES256))
            .await?
            .jwks()
            .clone())
    }
}
