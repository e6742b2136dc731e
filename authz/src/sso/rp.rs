//! The OpenID Connect relying party of console sign-in, on the `openidconnect` crate: discovery,
//! the authorization request (code flow, PKCE S256, `state`, `nonce`), the code exchange, ID
//! token validation (issuer, audience, `azp`, expiry, signature by the provider's JWKS, nonce,
//! `at_hash`) and userinfo. Every request goes through the core's [`Fetcher`] (no redirects,
//! guarded addresses, bounded answers).
use super::model::{Discovery, SsoIdentity, SsoProvider, groups_of};
use crate::clock::UnixTime;
use crate::fetch::Fetcher;
use openidconnect::core::{
    CoreAuthDisplay, CoreAuthPrompt, CoreAuthenticationFlow, CoreClientAuthMethod,
    CoreErrorResponseType, CoreGenderClaim, CoreJsonWebKey, CoreJweContentEncryptionAlgorithm,
    CoreJwsSigningAlgorithm, CoreRevocableToken, CoreRevocationErrorResponse,
    CoreTokenIntrospectionResponse, CoreTokenType,
};
use openidconnect::{
    AccessTokenHash, AdditionalClaims, AuthType, AuthenticationContextClass, AuthorizationCode,
    Client, ClientId, ClientSecret, CsrfToken, EmptyExtraTokenFields, EndpointMaybeSet,
    EndpointNotSet, EndpointSet, IdToken, IdTokenFields, IssuerUrl, LogoutRequest, Nonce,
    OAuth2TokenResponse, PkceCodeChallenge, PkceCodeVerifier, PostLogoutRedirectUrl,
    ProviderMetadataWithLogout, RedirectUrl, Scope, StandardErrorResponse, StandardTokenResponse,
    SubjectIdentifier, TokenResponse, UserInfoClaims,
};

/// Discovered metadata, with the end-session endpoint of RP-Initiated Logout.
type Metadata = ProviderMetadataWithLogout;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

/// How long discovered metadata (and its keys) is used before it is fetched again.
const METADATA_TTL_SECS: i64 = 300;

/// Every claim of an ID token or userinfo answer, for the configured groups claim.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct AllClaims {
    #[serde(flatten)]
    claims: serde_json::Map<String, serde_json::Value>,
}

impl AdditionalClaims for AllClaims {}

type Fields = IdTokenFields<
    AllClaims,
    EmptyExtraTokenFields,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJwsSigningAlgorithm,
>;
pub(crate) type Tokens = StandardTokenResponse<Fields, CoreTokenType>;
type RpClient = Client<
    AllClaims,
    CoreAuthDisplay,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJsonWebKey,
    CoreAuthPrompt,
    StandardErrorResponse<CoreErrorResponseType>,
    Tokens,
    CoreTokenIntrospectionResponse,
    CoreRevocableToken,
    CoreRevocationErrorResponse,
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// The signature algorithms accepted on ID tokens: asymmetric only (never `none`, never an HMAC
/// keyed with the client secret).
const ID_TOKEN_ALGS: [CoreJwsSigningAlgorithm; 9] = [
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha256,
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha384,
    CoreJwsSigningAlgorithm::RsaSsaPkcs1V15Sha512,
    CoreJwsSigningAlgorithm::RsaSsaPssSha256,
    CoreJwsSigningAlgorithm::RsaSsaPssSha384,
    CoreJwsSigningAlgorithm::RsaSsaPssSha512,
    CoreJwsSigningAlgorithm::EcdsaP256Sha256,
    CoreJwsSigningAlgorithm::EcdsaP384Sha384,
    CoreJwsSigningAlgorithm::EdDsa,
];

/// A failed request to the provider, as the relying party library sees it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct IdpHttpError(String);

type IdpFuture = Pin<
    Box<dyn Future<Output = Result<openidconnect::HttpResponse, IdpHttpError>> + Send + 'static>,
>;

/// The HTTP client handed to the library: the core's fetcher.
pub(crate) fn http(fetcher: Arc<dyn Fetcher>) -> impl Fn(openidconnect::HttpRequest) -> IdpFuture {
    move |request| {
        let fetcher = fetcher.clone();
        Box::pin(async move {
            fetcher
                .idp_request(request)
                .await
                .map_err(|e| IdpHttpError(e.to_string()))
        })
    }
}

/// Discovered provider metadata, per issuer, for [`METADATA_TTL_SECS`]; a failed discovery is
/// remembered for [`FAILURE_TTL_SECS`], so that anonymous sign-in attempts while a provider is
/// down do not each send it a request.
#[derive(Debug, Default)]
pub(crate) struct MetadataCache(Mutex<HashMap<String, (UnixTime, Discovered)>>);

/// What a discovery found, or why it failed.
type Discovered = Result<Arc<Metadata>, String>;

/// How long a failed discovery is answered from memory.
const FAILURE_TTL_SECS: i64 = 15;

impl MetadataCache {
    fn get(&self, key: &str, now: UnixTime) -> Option<Discovered> {
        let map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.get(key)
            .filter(|(at, found)| {
                now - at
                    < if found.is_ok() {
                        METADATA_TTL_SECS
                    } else {
                        FAILURE_TTL_SECS
                    }
            })
            .map(|(_, found)| found.clone())
    }

    fn put(&self, key: String, now: UnixTime, found: Discovered) {
        let mut map = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Few providers exist (at most ten per console); drop stale entries as we go.
        map.retain(|_, (at, _)| now - *at < METADATA_TTL_SECS);
        map.insert(key, (now, found));
    }
}

/// The relying party for one provider.
pub(crate) struct RelyingParty {
    client: RpClient,
    metadata: Arc<Metadata>,
    fetcher: Arc<dyn Fetcher>,
}

/// Why an ID token was not accepted.
#[derive(Debug)]
pub(crate) enum Unverified {
    /// Signed with a key the cached JWKS does not have.
    UnknownKey,
    /// Refused, with the reason.
    Refused(String),
}

/// What the authorization request needs remembered for the callback.
pub(crate) struct Started {
    pub url: String,
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
}

/// Fetches (or reuses) a provider's metadata and keys. The library checks that the document's
/// `issuer` is exactly the configured one.
pub(crate) async fn metadata(
    fetcher: &Arc<dyn Fetcher>,
    cache: &MetadataCache,
    issuer: &str,
    now: UnixTime,
    fresh: bool,
) -> Result<Arc<Metadata>, String> {
    if !fresh && let Some(found) = cache.get(issuer, now) {
        return found;
    }
    let url = IssuerUrl::new(issuer.to_owned()).map_err(|e| format!("issuer: {e}"))?;
    let client = http(fetcher.clone());
    let found = Metadata::discover_async(url, &client)
        .await
        .map(Arc::new)
        .map_err(|e| describe(&e));
    cache.put(issuer.to_owned(), now, found.clone());
    found
}

/// An error and its causes on one line, for admins and the log (never secrets: the library's
/// errors carry URLs and protocol messages).
fn describe(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text.chars().take(500).collect()
}

/// What "Test connection" shows of discovered metadata.
pub(crate) fn discovery(m: &Metadata) -> Discovery {
    let strings = |v: Option<Vec<String>>| v.unwrap_or_default();
    Discovery {
        issuer: m.issuer().to_string(),
        authorization_endpoint: m.authorization_endpoint().to_string(),
        token_endpoint: m.token_endpoint().map(ToString::to_string),
        userinfo_endpoint: m.userinfo_endpoint().map(ToString::to_string),
        end_session_endpoint: end_session_endpoint(m),
        keys: m.jwks().keys().len(),
        scopes: strings(
            m.scopes_supported()
                .map(|s| s.iter().map(|s| s.to_string()).collect()),
        ),
        claims: strings(
            m.claims_supported()
                .map(|c| c.iter().map(|c| c.to_string()).collect()),
        ),
        algorithms: m
            .id_token_signing_alg_values_supported()
            .iter()
            .map(|a| {
                serde_json::to_value(a)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            })
            .collect(),
    }
}

/// `end_session_endpoint` (OpenID Connect RP-Initiated Logout), when the provider has one.
fn end_session_endpoint(m: &Metadata) -> Option<String> {
    m.additional_metadata()
        .end_session_endpoint
        .as_ref()
        .map(|u| u.url().to_string())
}

/// Where to send the browser to sign out at the provider too (RP-Initiated Logout 1.0): its
/// end-session endpoint with the ID token of the sign-in as a hint, the client id, and the
/// console's sign-in page to come back to. `None` when the provider has no such endpoint.
pub(crate) fn logout_url(
    m: &Metadata,
    client_id: &str,
    id_token: Option<&str>,
    back_to: &str,
) -> Option<String> {
    let endpoint = m.additional_metadata().end_session_endpoint.clone()?;
    // Only a web address on the issuer's scheme: the browser is sent there from a page of ours.
    let scheme = endpoint.url().scheme();
    let issuer_scheme = m.issuer().url().scheme();
    if !(scheme == "https" || (scheme == "http" && issuer_scheme == "http")) {
        return None;
    }
    let mut request =
        LogoutRequest::from(endpoint).set_client_id(ClientId::new(client_id.to_owned()));
    if let Some(token) = id_token.and_then(|t| {
        t.parse::<IdToken<
            AllClaims,
            CoreGenderClaim,
            CoreJweContentEncryptionAlgorithm,
            CoreJwsSigningAlgorithm,
        >>()
        .ok()
    }) {
        request = request.set_id_token_hint(&token);
    }
    if let Ok(back) = PostLogoutRedirectUrl::new(back_to.to_owned()) {
        request = request.set_post_logout_redirect_uri(back);
    }
    Some(request.http_get_url().to_string())
}

impl RelyingParty {
    /// The relying party of `provider` with discovered metadata.
    pub(crate) fn new(
        provider: &SsoProvider,
        secret: Option<String>,
        metadata: Arc<Metadata>,
        redirect_uri: String,
        fetcher: Arc<dyn Fetcher>,
    ) -> Result<Self, String> {
        // Basic authentication unless the provider only takes the secret in the body.
        let methods = metadata.token_endpoint_auth_methods_supported();
        let post_only = methods.is_some_and(|m| {
            !m.contains(&CoreClientAuthMethod::ClientSecretBasic)
                && m.contains(&CoreClientAuthMethod::ClientSecretPost)
        });
        let client = RpClient::from_provider_metadata(
            (*metadata).clone(),
            ClientId::new(provider.client_id.clone()),
            secret.map(ClientSecret::new),
        )
        .set_redirect_uri(RedirectUrl::new(redirect_uri).map_err(|e| e.to_string())?)
        .set_auth_type(if post_only {
            AuthType::RequestBody
        } else {
            AuthType::BasicAuth
        });
        Ok(Self {
            client,
            metadata,
            fetcher,
        })
    }

    /// The authorization request: code flow, PKCE S256, fresh `state` and `nonce`; `acr_values`
    /// when the provider is asked for a second factor by class.
    pub(crate) fn start(&self, scopes: &[String], acr_values: &[String]) -> Started {
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = self.client.authorize_url(
            CoreAuthenticationFlow::AuthorizationCode,
            CsrfToken::new_random,
            Nonce::new_random,
        );
        for s in scopes.iter().filter(|s| *s != "openid") {
            request = request.add_scope(Scope::new(s.clone()));
        }
        for acr in acr_values {
            request = request.add_auth_context_value(AuthenticationContextClass::new(acr.clone()));
        }
        let (url, state, nonce) = request.set_pkce_challenge(challenge).url();
        Started {
            url: url.to_string(),
            state: state.secret().clone(),
            nonce: nonce.secret().clone(),
            pkce_verifier: verifier.secret().clone(),
        }
    }

    /// Redeems the code and validates the ID token; reads userinfo when the groups claim is
    /// not in the ID token and the provider has a userinfo endpoint.
    pub(crate) async fn exchange(&self, code: &str, pkce_verifier: &str) -> Result<Tokens, String> {
        let http = http(self.fetcher.clone());
        self.client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|e| describe(&e))?
            .set_pkce_verifier(PkceCodeVerifier::new(pkce_verifier.to_owned()))
            .request_async(&http)
            .await
            .map_err(|e| format!("the token request failed: {}", describe(&e)))
    }

    /// Validates the ID token of `tokens`; reads userinfo when the groups claim is not in it and
    /// the provider has a userinfo endpoint. [`Unverified::UnknownKey`] when no key of the
    /// (cached) JWKS matches: the provider may have rotated its keys.
    pub(crate) async fn verify(
        &self,
        tokens: &Tokens,
        nonce: &str,
        groups_claim: &str,
    ) -> Result<(SsoIdentity, String), Unverified> {
        let http = http(self.fetcher.clone());
        let id_token = tokens.id_token().ok_or_else(|| {
            Unverified::Refused("the provider answered without an ID token".into())
        })?;
        let verifier = self
            .client
            .id_token_verifier()
            .set_allowed_algs(ID_TOKEN_ALGS);
        let claims = id_token
            .claims(&verifier, &Nonce::new(nonce.to_owned()))
            .map_err(|e| match e {
                openidconnect::ClaimsVerificationError::SignatureVerification(
                    openidconnect::SignatureVerificationError::NoMatchingKey,
                ) => Unverified::UnknownKey,
                e => Unverified::Refused(format!("the ID token is not valid: {}", describe(&e))),
            })?;
        if let Some(expected) = claims.access_token_hash() {
            let alg = id_token
                .signing_alg()
                .map_err(|e| Unverified::Refused(describe(&e)))?;
            let key = id_token
                .signing_key(&verifier)
                .map_err(|e| Unverified::Refused(describe(&e)))?;
            let actual = AccessTokenHash::from_token(tokens.access_token(), alg, key)
                .map_err(|e| Unverified::Refused(describe(&e)))?;
            if actual != *expected {
                return Err(Unverified::Refused(
                    "the ID token's at_hash does not match the access token".into(),
                ));
            }
        }
        let mut identity = SsoIdentity {
            subject: claims.subject().to_string(),
            email: claims.email().map(|e| e.to_string()),
            email_verified: claims.email_verified(),
            name: claims
                .name()
                .and_then(|n| n.get(None))
                .map(|n| n.to_string()),
            groups: Vec::new(),
            amr: claims
                .auth_method_refs()
                .map(|v| v.iter().map(|m| m.to_string()).collect())
                .unwrap_or_default(),
            acr: claims.auth_context_ref().map(|a| a.to_string()),
        };
        let extra = &claims.additional_claims().claims;
        if extra.contains_key(groups_claim) {
            identity.groups = groups_of(extra.get(groups_claim));
        } else if self.metadata.userinfo_endpoint().is_some() {
            let info: UserInfoClaims<AllClaims, CoreGenderClaim> = self
                .client
                .user_info(
                    tokens.access_token().clone(),
                    Some(SubjectIdentifier::new(identity.subject.clone())),
                )
                .map_err(|e| Unverified::Refused(describe(&e)))?
                .request_async(&http)
                .await
                .map_err(|e| {
                    Unverified::Refused(format!("the userinfo request failed: {}", describe(&e)))
                })?;
            identity.groups = groups_of(info.additional_claims().claims.get(groups_claim));
            if identity.email.is_none() {
                identity.email = info.email().map(|e| e.to_string());
                identity.email_verified = info.email_verified();
            }
            if identity.name.is_none() {
                identity.name = info.name().and_then(|n| n.get(None)).map(|n| n.to_string());
            }
        }
        Ok((identity, id_token.to_string()))
    }
}
