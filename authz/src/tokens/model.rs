//! Token types: client credentials as presented, token requests and responses, introspection
//! answers, authorization server metadata.
use crate::clients::ClientId;
use serde::Serialize;

/// How far in the future a client assertion's `exp` may be.
pub const MAX_ASSERTION_LIFETIME_SECS: i64 = 300;
/// Clock skew allowed on a client assertion's `exp`, `nbf` and `iat`.
pub const ASSERTION_SKEW_SECS: i64 = 60;
/// The token type of access tokens in token exchange (RFC 8693 §3).
pub const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";
/// The grant profile of Identity Assertion JWT Authorization Grants.
pub const ID_JAG_GRANT_PROFILE: &str = "urn:ietf:params:oauth:grant-profile:id-jag";
/// The token type of OpenID Connect ID tokens (RFC 8693 §3): what a client trades for an ID-JAG.
pub const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
/// The token type of ID-JAGs (identity-assertion-authz-grant §9): what a client asks the
/// realm, as an identity provider, to issue for another authorization server.
pub const ID_JAG_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";
/// The `typ` header of an ID-JAG.
pub const ID_JAG_TYP: &str = "oauth-id-jag+jwt";
/// Longest an ID-JAG may live, from `iat` to `exp` (they are meant to live minutes).
pub const MAX_ID_JAG_LIFETIME_SECS: i64 = 600;
/// Longest `assertion` accepted, in bytes.
pub const MAX_ASSERTION_LEN: usize = 16 * 1024;
/// The token type of JWTs (RFC 8693 §3): a client may ask for it, and gets an access token.
pub const JWT_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:jwt";
/// The longest lifetime of a token minted by token exchange (the resource's or realm's token
/// lifetime may be shorter, and it never outlives its subject token).
pub const MAX_EXCHANGED_TOKEN_TTL_SECS: i64 = 300;
/// The most actors a delegation chain holds, and the most exchanges a token descends from.
pub const MAX_DELEGATION_DEPTH: usize = 4;
/// `client_assertion_type` of RFC 7523 §2.2.
pub const JWT_BEARER_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// What a revocation cannot reach, in words.
///
/// Access tokens are JWTs: a resource server that verifies them itself (without introspection)
/// accepts one already issued until it expires, at most `horizon_secs` later (the longest
/// access-token lifetime in play).
pub fn local_verification_note(horizon_secs: i64) -> String {
    format!(
        "Servers that verify tokens themselves, without asking Portcullis, accept access tokens already issued until they expire: within {}.",
        crate::clock::duration_words(horizon_secs)
    )
}

/// Client credentials as presented at an endpoint; the `client_id` is parsed (bounded) already.
#[derive(Clone, PartialEq, Eq)]
pub enum ClientCredentials {
    /// `Authorization: Basic` (RFC 6749 §2.3.1).
    Basic {
        /// Client id.
        client_id: ClientId,
        /// Secret.
        secret: String,
    },
    /// `client_id` and `client_secret` in the body.
    Post {
        /// Client id.
        client_id: ClientId,
        /// Secret.
        secret: String,
    },
    /// A `private_key_jwt` client assertion (RFC 7523 §2.2).
    Assertion {
        /// Client id (from `client_id` or the assertion's `iss`).
        client_id: ClientId,
        /// The signed JWT.
        assertion: String,
    },
    /// Only a `client_id` (public clients).
    None {
        /// Client id.
        client_id: ClientId,
    },
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", self.client_id())
            .finish_non_exhaustive()
    }
}

impl ClientCredentials {
    /// The presented client id.
    pub fn client_id(&self) -> &ClientId {
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
    /// `grant_type`, as sent.
    pub grant_type: String,
    /// `scope`, if sent.
    pub scope: Option<String>,
    /// Every `resource` parameter sent.
    pub resource: Vec<String>,
    /// `code` (authorization_code).
    pub code: Option<String>,
    /// `redirect_uri` (authorization_code).
    pub redirect_uri: Option<String>,
    /// `code_verifier` (authorization_code, PKCE).
    pub code_verifier: Option<String>,
    /// `device_code` (the device authorization grant, RFC 8628).
    pub device_code: Option<String>,
    /// `refresh_token` (refresh_token).
    pub refresh_token: Option<String>,
    /// `subject_token` (token exchange).
    pub subject_token: Option<String>,
    /// `subject_token_type` (token exchange).
    pub subject_token_type: Option<String>,
    /// `actor_token` (token exchange).
    pub actor_token: Option<String>,
    /// `actor_token_type` (token exchange).
    pub actor_token_type: Option<String>,
    /// `requested_token_type` (token exchange).
    pub requested_token_type: Option<String>,
    /// Every `audience` parameter sent (token exchange; not supported: `resource` names the
    /// target).
    pub audience: Vec<String>,
    /// `assertion` (the JWT bearer grant: an ID-JAG).
    pub assertion: Option<String>,
}

/// A successful token response (RFC 6749 §5.1).
#[derive(Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TokenResponse {
    /// The JWT.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: String,
    /// Seconds until expiry.
    pub expires_in: i64,
    /// Granted scope (left out when empty: an ID-JAG may carry none).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub scope: String,
    /// The refresh token (authorization_code with `offline_access`, and every refresh).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// `issued_token_type` (RFC 8693 §2.2.1), for token exchange.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_token_type: Option<String>,
    /// The ID token (OpenID Connect), when the authorization asked for `openid`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_token: Option<String>,
}

impl std::fmt::Debug for TokenResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenResponse")
            .field("expires_in", &self.expires_in)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// An introspection response.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Introspection {
    /// Whether the token is active.
    pub active: bool,
    /// The token's claims (without Portcullis' private `portcullis` claim), when active.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub claims: Option<serde_json::Map<String, serde_json::Value>>,
}

impl Introspection {
    /// The answer for anything not active (or not the caller's to know about).
    pub(crate) fn inactive() -> Self {
        Self {
            active: false,
            claims: None,
        }
    }
}

/// The authorization server metadata of a realm (RFC 8414 §2); lists only what exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerMetadata {
    /// `issuer`.
    pub issuer: String,
    /// `authorization_endpoint`.
    pub authorization_endpoint: String,
    /// `token_endpoint`.
    pub token_endpoint: String,
    /// `jwks_uri`.
    pub jwks_uri: String,
    /// `registration_endpoint` (RFC 7591), unless the realm's registration is closed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// `introspection_endpoint` (RFC 7662).
    pub introspection_endpoint: String,
    /// `revocation_endpoint` (RFC 7009).
    pub revocation_endpoint: String,
    /// RFC 8628 §4: where devices ask for a device code and a user code.
    pub device_authorization_endpoint: String,
    /// `grant_types_supported`.
    pub grant_types_supported: Vec<&'static str>,
    /// `response_types_supported`: `code`.
    pub response_types_supported: Vec<&'static str>,
    /// `response_modes_supported`: `query`.
    pub response_modes_supported: Vec<&'static str>,
    /// `code_challenge_methods_supported`: `S256` (PKCE is required).
    pub code_challenge_methods_supported: Vec<&'static str>,
    /// `authorization_response_iss_parameter_supported` (RFC 9207): always `true`.
    pub authorization_response_iss_parameter_supported: bool,
    /// `client_id_metadata_document_supported`: https `client_id`s naming their metadata
    /// document are accepted (unless the realm refuses them).
    pub client_id_metadata_document_supported: bool,
    /// `token_endpoint_auth_methods_supported`.
    pub token_endpoint_auth_methods_supported: Vec<&'static str>,
    /// `token_endpoint_auth_signing_alg_values_supported` (for `private_key_jwt`).
    pub token_endpoint_auth_signing_alg_values_supported: Vec<&'static str>,
    /// `introspection_endpoint_auth_methods_supported`.
    pub introspection_endpoint_auth_methods_supported: Vec<&'static str>,
    /// `introspection_endpoint_auth_signing_alg_values_supported`.
    pub introspection_endpoint_auth_signing_alg_values_supported: Vec<&'static str>,
    /// `revocation_endpoint_auth_methods_supported`.
    pub revocation_endpoint_auth_methods_supported: Vec<&'static str>,
    /// `revocation_endpoint_auth_signing_alg_values_supported`.
    pub revocation_endpoint_auth_signing_alg_values_supported: Vec<&'static str>,
    /// `scopes_supported`: the scopes of the realm's enabled resources, `offline_access`, and
    /// the OpenID Connect ones (`openid`, `email`, `profile`).
    pub scopes_supported: Vec<String>,
    /// `id_token_signing_alg_values_supported` (OpenID Connect Discovery §3).
    pub id_token_signing_alg_values_supported: Vec<&'static str>,
    /// `subject_types_supported`: `public` (a person's `sub` is the same for every client).
    pub subject_types_supported: Vec<&'static str>,
    /// `claims_supported`: what ID tokens carry.
    pub claims_supported: Vec<&'static str>,
    /// `identity_chaining_requested_token_types_supported`: an ID token is exchanged for an
    /// ID-JAG for another authorization server.
    pub identity_chaining_requested_token_types_supported: Vec<&'static str>,
    /// `authorization_grant_profiles_supported` (identity-assertion-authz-grant §7): the ID-JAG
    /// profile of the JWT bearer grant. Says nothing of which issuers are trusted.
    pub authorization_grant_profiles_supported: Vec<&'static str>,
}

/// How long an ID token is good for. It says who signed in; the client keeps its session with
/// refresh tokens, and trades the ID token for an ID-JAG soon after it gets it.
pub const ID_TOKEN_TTL_SECS: i64 = 15 * 60;
/// ID tokens are signed with RS256: what OpenID Connect relying parties expect when they
/// registered no other algorithm (Core §3.1.3.7; Discovery §3 requires it be offered).
pub const ID_TOKEN_ALG: crate::keys::SigningAlg = crate::keys::SigningAlg::RS256;
/// The `typ` of an ID token's header.
pub const ID_TOKEN_TYP: &str = "JWT";

/// The claims of an ID token this server issues.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct IdTokenClaims {
    /// The realm's issuer.
    pub iss: String,
    /// The person (`psn_…`) or console account (`usr_…`): the `sub` of their access tokens.
    pub sub: String,
    /// The client's `client_id`.
    pub aud: String,
    /// The client's `client_id` again (the authorized party).
    pub azp: String,
    /// Expiry.
    pub exp: crate::clock::UnixTime,
    /// Issued.
    pub iat: crate::clock::UnixTime,
    /// When they signed in.
    pub auth_time: crate::clock::UnixTime,
    /// The authorization request's `nonce`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<String>,
    /// The sign-in it comes from: the token family of the code that brought it (OpenID Connect
    /// `sid`). Trading it for an ID-JAG needs that family still live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
    /// Their email, with the `email` scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// With the email: `true`. Nobody types their own address into a realm; administrators
    /// set it, or a provider the realm vouches for gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email_verified: Option<bool>,
    /// Their name, with the `profile` scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}
