//! Client authentication (RFC 6749 §2.3): `client_secret_basic`, `client_secret_post`,
//! `private_key_jwt` (RFC 7523) and public clients.
//!
//! The credential is checked first and a correct one is never refused; failures are counted
//! per (realm, client) and per source, and failures beyond the limits are answered with
//! `Throttled` (429, "try later") instead of `invalid_client` (see [`crate::throttle`]).
use super::model::{ASSERTION_SKEW_SECS, ClientCredentials, MAX_ASSERTION_LIFETIME_SECS};
use crate::audit::RequestMeta;
use crate::clients::{AuthMethod, Client, ClientSecret, check_client_jwks};
use crate::clock::UnixTime;
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::fetch::{FetchError, Lookup, parse_fetch_url};
use crate::keys::{SigningAlg, Verifier, decode_unverified};
use crate::realms::Realm;
use crate::secret::{PlainToken, constant_time_eq};
use crate::throttle::Source;
use serde::Deserialize;

/// A JWT NumericDate (RFC 7519 §2): a JSON number of seconds, fractions allowed (truncated).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct NumericDate(pub(super) i64);

impl<'de> Deserialize<'de> for NumericDate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let n = serde_json::Number::deserialize(d)?;
        n.as_i64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.is_finite() && f.abs() < 1e15)
                    .map(|f| f.floor() as i64)
            })
            .map(NumericDate)
            .ok_or_else(|| serde::de::Error::custom("not a NumericDate"))
    }
}

/// `aud`: one string or an array of strings (RFC 7519 §4.1.3).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Audience {
    One(String),
    Many(Vec<String>),
}

impl Audience {
    /// Every value, in order.
    pub(super) fn values(&self) -> Vec<&str> {
        match self {
            Audience::One(a) => vec![a.as_str()],
            Audience::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }

    fn contains(&self, f: impl Fn(&str) -> bool) -> bool {
        match self {
            Audience::One(a) => f(a),
            Audience::Many(v) => v.iter().any(|a| f(a)),
        }
    }
}

/// The claims of a client assertion (RFC 7523 §3).
#[derive(Debug, Deserialize)]
struct AssertionClaims {
    iss: String,
    sub: String,
    aud: Audience,
    exp: NumericDate,
    #[serde(default)]
    nbf: Option<NumericDate>,
    #[serde(default)]
    iat: Option<NumericDate>,
    jti: String,
}

impl AssertionClaims {
    /// The time rules of RFC 7523 §3 with [`ASSERTION_SKEW_SECS`] of leeway: not expired, not
    /// valid only later, not issued in the future, and at most
    /// [`MAX_ASSERTION_LIFETIME_SECS`] ahead.
    fn times_ok(&self, now: UnixTime) -> bool {
        let skew = ASSERTION_SKEW_SECS;
        self.exp.0 + skew > now
            && self.exp.0 <= now + MAX_ASSERTION_LIFETIME_SECS + skew
            && self.nbf.is_none_or(|t| t.0 <= now + skew)
            && self
                .iat
                .is_none_or(|t| t.0 <= now + skew && t.0 <= self.exp.0)
    }
}

/// Most keys an assertion is tried against.
pub(super) const MAX_KEYS_TRIED: usize = 4;

fn invalid_client() -> Error {
    Error::oauth(
        OAuthErrorCode::InvalidClient,
        "Client authentication failed.",
    )
}

/// Whether `secret` matches a live secret. Every live secret is compared, in constant time,
/// so timing does not reveal which one matched.
fn secret_matches(secrets: &[ClientSecret], secret: &str, now: UnixTime) -> bool {
    let presented = PlainToken::from_input(secret).hashed();
    secrets
        .iter()
        .filter(|s| s.is_live(now))
        .fold(false, |acc, s| {
            constant_time_eq(&s.secret_hash, &presented) | acc
        })
}

/// A value from a request, shortened and debug-quoted for a log line.
pub(crate) fn untrusted(s: &str) -> String {
    let short: String = s.chars().take(64).collect();
    format!("{short:?}")
}

impl Core {
    /// Authenticates a client with the method it registered.
    ///
    /// # Errors
    /// `OAuth(invalid_client)`, or `Throttled` for a failure beyond the limits.
    ///
    /// # Security
    /// Secrets are compared as SHA-256 digests in constant time; unknown clients, wrong secrets,
    /// wrong methods and disabled clients give the same answer.
    pub(crate) async fn authenticate_client(
        &self,
        realm: &Realm,
        creds: Option<&ClientCredentials>,
        meta: &RequestMeta,
    ) -> Result<Client> {
        let Some(creds) = creds else {
            return Err(Error::oauth(
                OAuthErrorCode::InvalidClient,
                "Client authentication is required.",
            ));
        };
        let now = self.now();
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
        if let Some(c) = client.as_ref().filter(|c| ok && c.enabled) {
            match c.registration.review {
                crate::clients::ReviewState::Approved => return Ok(c.clone()),
                // Not invalid_client: MCP clients delete their registration on that, and this
                // one is fine, only not let in yet.
                crate::clients::ReviewState::Pending => {
                    return Err(Error::oauth(
                        OAuthErrorCode::UnauthorizedClient,
                        "This client is awaiting approval by the security team.",
                    ));
                }
                // Refused or revoked: the registration is dead; invalid_client tells the client
                // to drop it (and register again, to be reviewed again).
                state => {
                    let what = match state {
                        crate::clients::ReviewState::Expired => "has expired (unused)",
                        crate::clients::ReviewState::Revoked => "was revoked",
                        _ => "was rejected",
                    };
                    let next = if c.is_self_registered() {
                        "register again"
                    } else {
                        "ask an administrator to restore it"
                    };
                    return Err(Error::oauth(
                        OAuthErrorCode::InvalidClient,
                        format!("This client's registration {what}; {next}."),
                    ));
                }
            }
        }
        let source = Source::of(meta.client_ip);
        match self
            .client_throttle
            .client_failed(&realm.id, creds.client_id().as_str(), source, now)
        {
            Some(retry_after_secs) => Err(Error::Throttled { retry_after_secs }),
            None => Err(invalid_client()),
        }
    }

    /// Checks a `private_key_jwt` assertion (RFC 7523 §3): no critical header extensions,
    /// signed by one of the client's keys with an asymmetric algorithm, `iss` = `sub` =
    /// `client_id`, `aud` = the issuer or the token endpoint, the time rules of
    /// [`AssertionClaims::times_ok`], and a `jti` never seen before (recorded in the database
    /// until the assertion can no longer be accepted, so replays fail on every instance).
    async fn assertion_is_valid(
        &self,
        realm: &Realm,
        client: &Client,
        assertion: &str,
        now: UnixTime,
    ) -> Result<bool> {
        let Ok((header, _)) = decode_unverified(assertion) else {
            return Ok(false);
        };
        // Only ES256, RS256 and EdDSA parse: `none` and HMAC are refused here.
        let Ok(alg) = SigningAlg::parse(&header.alg) else {
            return Ok(false);
        };
        let jwks = match (&client.metadata.jwks, &client.metadata.jwks_uri) {
            (Some(inline), _) => Some(inline.clone()),
            (None, Some(uri)) => {
                self.remote_jwks(client.client_id.as_str(), uri, header.kid.as_deref())
                    .await
            }
            (None, None) => None,
        };
        let keys = jwks
            .as_ref()
            .and_then(|j| j["keys"].as_array())
            .cloned()
            .unwrap_or_default();
        // Without a `kid`, only the first few keys of the algorithm are tried: a client that
        // publishes many keys must name the one it signed with.
        let verified = keys
            .iter()
            .filter(|k| {
                header
                    .kid
                    .as_deref()
                    .is_none_or(|kid| k["kid"].as_str() == Some(kid))
            })
            .filter_map(|k| Verifier::from_jwk(k).ok())
            .filter(|v| v.alg() == alg)
            .take(MAX_KEYS_TRIED)
            .find_map(|v| v.verify(assertion).ok());
        let Some((_, claims)) = verified else {
            return Ok(false);
        };
        let Ok(claims) = serde_json::from_value::<AssertionClaims>(claims) else {
            return Ok(false);
        };
        let issuer = self.issuer(&realm.name);
        let token_endpoint = format!("{issuer}/token");
        let id = client.client_id.as_str();
        let ok = claims.iss == id
            && claims.sub == id
            && claims.aud.contains(|a| a == issuer || a == token_endpoint)
            && claims.times_ok(now)
            && !claims.jti.is_empty()
            && claims.jti.len() <= 256;
        if !ok {
            return Ok(false);
        }
        // Remembered as long as the assertion could be accepted: until `exp` plus the skew.
        Ok(self
            .store
            .consume_assertion_jti(
                &realm.id,
                &client.client_id,
                &claims.jti,
                claims.exp.0 + ASSERTION_SKEW_SECS,
            )
            .await?)
    }

    /// A published JWK Set (of a client, or of an identity provider: `owner`, for the log),
    /// through the document cache: fetched when missing or expired, or when it lacks the
    /// assertion's `kid` (the owner rotated its keys), but at most once a minute per URL. A
    /// failed fetch keeps the previous document usable for a day.
    pub(crate) async fn remote_jwks(
        &self,
        owner: &str,
        uri: &str,
        kid: Option<&str>,
    ) -> Option<serde_json::Value> {
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
        match self.fetch_jwks(owner, uri, now).await {
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
        now: UnixTime,
    ) -> std::result::Result<serde_json::Value, FetchError> {
        self.fetch_jwks(client.client_id.as_str(), uri, now).await
    }

    /// Fetches `owner`'s JWK Set from `uri` now and records the outcome in the document cache.
    pub(crate) async fn fetch_jwks(
        &self,
        owner: &str,
        uri: &str,
        now: UnixTime,
    ) -> std::result::Result<serde_json::Value, FetchError> {
        let fetched = match parse_fetch_url(uri, self.config().allow_loopback_fetch) {
            Ok(url) => self.fetcher.fetch_json(&url).await,
            Err(e) => Err(FetchError::Refused(e)),
        };
        let checked = fetched.and_then(|f| {
            check_client_jwks(&f.body)
                .map(|()| f)
                .map_err(|e| FetchError::Failed(format!("not a public JWK Set: {e}")))
        });
        self.documents.record(uri, now, checked.as_ref());
        match checked {
            Ok(f) => Ok(f.body),
            Err(error) => {
                tracing::warn!(owner = %untrusted(owner), jwks_uri = %untrusted(uri), %error, "Fetching a JWKS failed");
                Err(error)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(json: serde_json::Value) -> Option<AssertionClaims> {
        serde_json::from_value(json).ok()
    }

    fn at(exp: serde_json::Value, extra: serde_json::Value) -> AssertionClaims {
        let mut v = serde_json::json!({"iss": "c", "sub": "c", "aud": "a", "jti": "j", "exp": exp});
        v.as_object_mut()
            .expect("object")
            .extend(extra.as_object().expect("object").clone());
        claims(v).expect("parses")
    }

    #[test]
    fn numeric_dates_may_be_fractional() {
        assert_eq!(
            at(serde_json::json!(1000.75), serde_json::json!({})).exp,
            NumericDate(1000)
        );
        assert!(
            claims(
                serde_json::json!({"iss": "c", "sub": "c", "aud": "a", "jti": "j", "exp": "1000"})
            )
            .is_none()
        );
        assert!(
            claims(
                serde_json::json!({"iss": "c", "sub": "c", "aud": ["a", "b"], "jti": "j", "exp": 1})
            )
            .is_some()
        );
    }

    #[test]
    fn time_rules_allow_a_minute_of_skew() {
        let now = 10_000;
        let ok = |c: AssertionClaims| c.times_ok(now);
        assert!(ok(at(serde_json::json!(now + 10), serde_json::json!({}))));
        assert!(
            ok(at(serde_json::json!(now - 59), serde_json::json!({}))),
            "skew on exp"
        );
        assert!(!ok(at(serde_json::json!(now - 60), serde_json::json!({}))));
        assert!(ok(at(serde_json::json!(now + 360), serde_json::json!({}))));
        assert!(
            !ok(at(serde_json::json!(now + 361), serde_json::json!({}))),
            "too far ahead"
        );
        assert!(ok(at(
            serde_json::json!(now + 10),
            serde_json::json!({"nbf": now + 60})
        )));
        assert!(
            !ok(at(
                serde_json::json!(now + 100),
                serde_json::json!({"nbf": now + 61})
            )),
            "not yet valid"
        );
        assert!(ok(at(
            serde_json::json!(now + 100),
            serde_json::json!({"iat": now + 60})
        )));
        assert!(
            !ok(at(
                serde_json::json!(now + 100),
                serde_json::json!({"iat": now + 61})
            )),
            "issued in the future"
        );
        assert!(
            !ok(at(
                serde_json::json!(now + 10),
                serde_json::json!({"iat": now + 20})
            )),
            "issued after it expires"
        );
    }

    #[test]
    fn untrusted_values_are_short_and_quoted() {
        let s = untrusted(&format!("a\nb{}", "x".repeat(100)));
        assert!(s.starts_with("\"a\\nb"));
        assert!(s.chars().count() < 80);
    }
}
