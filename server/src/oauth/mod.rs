//! Protocol endpoints of each realm.
//!
//! Metadata (RFC 8414, OIDC discovery paths), JWKS, token, introspection and revocation. Every
//! handler is extract → parse → one core call → render, through one wrapper: [`respond`] (or
//! [`respond_cached`] for public documents) renders the core's answer as JSON, or its error
//! through [`OAuthResponse`].
mod authorize;
mod connect;
mod error;
mod form;
mod page;

use crate::AppState;
use axum::extract::FromRequestParts;
use axum::extract::{Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
pub use error::OAuthResponse;
use form::{client_credentials, parse_form};
use serde::Serialize;
use tower_http::cors::{Any, CorsLayer};

/// Request facts for the audit log and throttling, without the console's session machinery.
pub struct Meta(authz::RequestMeta);

impl<S: Send + Sync> FromRequestParts<S> for Meta {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        Ok(Meta(crate::http::request_meta(&parts.extensions)))
    }
}

/// Browser-based MCP clients call discovery, JWKS and token endpoints cross-origin.
fn cors() -> CorsLayer {
    CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::DELETE,
            Method::OPTIONS,
        ])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            HeaderName::from_static("mcp-protocol-version"),
            HeaderName::from_static("mcp-method"),
            HeaderName::from_static("mcp-name"),
        ])
        .expose_headers([header::WWW_AUTHENTICATE])
        .max_age(std::time::Duration::from_secs(3600))
}

/// The protocol routes.
pub fn routes() -> Router<AppState> {
    let public = Router::new()
        .route(
            "/.well-known/oauth-authorization-server/realms/{realm}",
            get(metadata),
        )
        .route(
            "/.well-known/openid-configuration/realms/{realm}",
            get(metadata),
        )
        .route(
            "/realms/{realm}/.well-known/openid-configuration",
            get(metadata),
        )
        .route("/realms/{realm}/jwks", get(jwks))
        .route("/realms/{realm}/token", post(token))
        .route("/realms/{realm}/revoke", post(revoke))
        .route(
            "/realms/{realm}/device_authorization",
            post(device_authorization),
        )
        .route("/realms/{realm}/connect/register", post(register))
        .route(
            "/realms/{realm}/connect/register/{client_id}",
            get(read_registration)
                .put(update_registration)
                .delete(delete_registration),
        )
        .layer(cors());
    public
        .route(
            "/realms/{realm}/authorize",
            get(authorize::get).post(authorize::post),
        )
        .route(
            "/realms/{realm}/upstream/{provider}/callback",
            get(authorize::upstream_callback),
        )
        .route(
            "/realms/{realm}/account",
            get(authorize::account_get).post(authorize::account_post),
        )
        .route(
            "/realms/{realm}/gateway/connect/{server}",
            get(connect::page_get),
        )
        .route("/realms/{realm}/gateway/connect", post(connect::start))
        .route(
            "/realms/{realm}/gateway/callback/{server}",
            get(connect::callback),
        )
        .route(
            "/realms/{realm}/gateway/client/{server}",
            get(connect::client_metadata),
        )
        .route(
            "/realms/{realm}/device",
            get(authorize::device_get).post(authorize::device_post),
        )
        .route("/realms/{realm}/introspect", post(introspect))
}

/// The protocol endpoints, as logs and metrics name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// Discovery documents.
    Metadata,
    /// The realm's JWKS.
    Jwks,
    /// `/token`.
    Token,
    /// `/authorize` (and its forms).
    Authorize,
    /// `/connect/register` (RFC 7591).
    Register,
    /// `/connect/register/{client_id}` (RFC 7592).
    Registration,
    /// `/introspect`.
    Introspect,
    /// `/revoke`.
    Revoke,
    /// `/device_authorization` (RFC 8628).
    DeviceAuthorization,
}

impl Endpoint {
    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Endpoint::Metadata => "metadata",
            Endpoint::Jwks => "jwks",
            Endpoint::Token => "token",
            Endpoint::Authorize => "authorize",
            Endpoint::Register => "register",
            Endpoint::Registration => "registration",
            Endpoint::Introspect => "introspect",
            Endpoint::Revoke => "revoke",
            Endpoint::DeviceAuthorization => "device_authorization",
        }
    }
}

/// The client a request named, once its handler has parsed it: for the refusal log line.
type Named = std::sync::OnceLock<String>;

/// Counts one answered protocol request (`outcome` `ok`, or `interaction` for a sign-in or
/// consent page) in `portcullis_oauth_requests_total`.
pub fn answered(endpoint: Endpoint, outcome: &'static str) {
    metrics::counter!("portcullis_oauth_requests_total", "endpoint" => endpoint.as_str(), "outcome" => outcome, "error" => "").increment(1);
}

/// Longest reason logged (descriptions may quote a parsed parameter).
const MAX_REASON: usize = 300;

/// Counts and logs one refused protocol request.
///
/// One structured line with the endpoint, realm, client id, error code and the reason in words
/// (quoted and escaped: descriptions may quote a parameter, newlines included);
/// never a secret, code or token (descriptions name parameters, not their values, and client
/// ids are parsed, bounded values).
pub fn refused(endpoint: Endpoint, realm: &str, client_id: Option<&str>, code: &str, reason: &str) {
    let outcome = if code == "server_error" {
        "failed"
    } else {
        "refused"
    };
    // Error codes are a closed set; anything else is one label value.
    let label = authz::error::OAuthErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .chain(["server_error"])
        .find(|c| *c == code)
        .unwrap_or("other");
    metrics::counter!("portcullis_oauth_requests_total", "endpoint" => endpoint.as_str(), "outcome" => outcome, "error" => label).increment(1);
    let realm =
        authz::realms::RealmName::parse(realm).map_or_else(|_| "-".to_owned(), |r| r.to_string());
    // Parsed, then shortened and quoted: a client id comes from the request.
    let client_id = client_id
        .and_then(|c| authz::clients::ClientId::parse(c).ok())
        .map_or_else(
            || "-".to_owned(),
            |c| format!("{:?}", c.as_str().chars().take(64).collect::<String>()),
        );
    let reason = &reason[..reason.floor_char_boundary(MAX_REASON)];
    // A device polling while its person decides is the protocol working, not a refusal.
    if matches!(label, "authorization_pending" | "slow_down") {
        return;
    }
    tracing::info!(
        endpoint = endpoint.as_str(),
        realm = %realm,
        client_id = %client_id,
        error = label,
        reason = ?reason,
        "protocol request refused"
    );
}

fn refused_response(endpoint: Endpoint, realm: &str, client: &Named, e: authz::Error) -> Response {
    let mut e = OAuthResponse::new(e, realm);
    if matches!(endpoint, Endpoint::Token | Endpoint::DeviceAuthorization) {
        e = e.at_token_endpoint();
    }
    let (code, reason) = e.code_and_reason();
    refused(
        endpoint,
        realm,
        client.get().map(String::as_str),
        code,
        &reason,
    );
    e.into_response()
}

/// Renders one protocol operation of `realm`: its answer as JSON with `Cache-Control:
/// no-store`, or its error per RFC 6749 §5.2 (logged and counted).
async fn respond<T: Serialize>(
    endpoint: Endpoint,
    realm: &str,
    client: &Named,
    operation: impl Future<Output = Result<T, authz::Error>>,
) -> Response {
    match operation.await {
        Ok(body) => {
            answered(endpoint, "ok");
            let mut res = Json(body).into_response();
            res.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            res.headers_mut()
                .insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
            res
        }
        Err(e) => refused_response(endpoint, realm, client, e),
    }
}

/// As [`respond`], for public documents (metadata, JWKS) caches may keep for five minutes.
async fn respond_cached<T: Serialize>(
    endpoint: Endpoint,
    realm: &str,
    operation: impl Future<Output = Result<T, authz::Error>>,
) -> Response {
    match operation.await {
        Ok(body) => {
            answered(endpoint, "ok");
            let mut res = Json(body).into_response();
            res.headers_mut().insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            );
            res
        }
        Err(e) => refused_response(endpoint, realm, &Named::new(), e),
    }
}

/// `GET` metadata at the three discovery paths.
async fn metadata(State(state): State<AppState>, Path(realm): Path<String>) -> Response {
    respond_cached(
        Endpoint::Metadata,
        &realm,
        state.core.authorization_server_metadata(&realm),
    )
    .await
}

/// `GET /realms/{realm}/jwks`.
async fn jwks(State(state): State<AppState>, Path(realm): Path<String>) -> Response {
    respond_cached(Endpoint::Jwks, &realm, state.core.jwks(&realm)).await
}

/// `POST /realms/{realm}/token`.
async fn token(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    Meta(meta): Meta,
    headers: HeaderMap,
    body: String,
) -> Response {
    let client = Named::new();
    respond(Endpoint::Token, &realm, &client, async {
        let form = parse_form(&headers, &body, &["resource", "audience"])?;
        let creds = client_credentials(&headers, &form)?;
        name_client(&client, creds.as_ref());
        let request = authz::tokens::TokenRequest {
            grant_type: form.one("grant_type").unwrap_or_default().to_owned(),
            scope: form.one("scope").map(str::to_owned),
            resource: form.all("resource"),
            code: form.one("code").map(str::to_owned),
            redirect_uri: form.one("redirect_uri").map(str::to_owned),
            code_verifier: form.one("code_verifier").map(str::to_owned),
            device_code: form.one("device_code").map(str::to_owned),
            refresh_token: form.one("refresh_token").map(str::to_owned),
            subject_token: form.one("subject_token").map(str::to_owned),
            subject_token_type: form.one("subject_token_type").map(str::to_owned),
            actor_token: form.one("actor_token").map(str::to_owned),
            actor_token_type: form.one("actor_token_type").map(str::to_owned),
            requested_token_type: form.one("requested_token_type").map(str::to_owned),
            audience: form.all("audience"),
            assertion: form.one("assertion").map(str::to_owned),
        };
        state.core.issue_token(&realm, creds, &request, &meta).await
    })
    .await
}

/// `POST /realms/{realm}/device_authorization` (RFC 8628 §3.1).
async fn device_authorization(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    Meta(meta): Meta,
    headers: HeaderMap,
    body: String,
) -> Response {
    let client = Named::new();
    respond(Endpoint::DeviceAuthorization, &realm, &client, async {
        let form = parse_form(&headers, &body, &["resource"])?;
        let creds = client_credentials(&headers, &form)?;
        name_client(&client, creds.as_ref());
        let request = authz::authorize::DeviceAuthorizationRequest {
            scope: form.one("scope").map(str::to_owned),
            resource: form.all("resource"),
        };
        state
            .core
            .device_authorization(&realm, creds, &request, &meta)
            .await
    })
    .await
}

/// `POST /realms/{realm}/introspect`.
async fn introspect(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    Meta(meta): Meta,
    headers: HeaderMap,
    body: String,
) -> Response {
    let client = Named::new();
    respond(Endpoint::Introspect, &realm, &client, async {
        let form = parse_form(&headers, &body, &[])?;
        let creds = client_credentials(&headers, &form)?;
        name_client(&client, creds.as_ref());
        let token = form.required("token")?;
        state
            .core
            .introspect_token(&realm, creds, token, &meta)
            .await
    })
    .await
}

/// `POST /realms/{realm}/revoke`.
async fn revoke(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    Meta(meta): Meta,
    headers: HeaderMap,
    body: String,
) -> Response {
    let client = Named::new();
    respond(Endpoint::Revoke, &realm, &client, async {
        let form = parse_form(&headers, &body, &[])?;
        let creds = client_credentials(&headers, &form)?;
        name_client(&client, creds.as_ref());
        let token = form.required("token")?;
        state.core.revoke_token(&realm, creds, token, &meta).await?;
        Ok(serde_json::json!({}))
    })
    .await
}

/// Remembers the client a request named, for its refusal log line.
fn name_client(client: &Named, creds: Option<&authz::tokens::ClientCredentials>) {
    if let Some(c) = creds {
        let _ = client.set(c.client_id().to_string());
    }
}

/// The bearer token of a request (`Authorization: Bearer …`), if any.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.get(..7)
                .filter(|p| p.eq_ignore_ascii_case("bearer "))
                .map(|_| v[7..].trim())
        })
}

fn json_body(
    headers: &HeaderMap,
    body: &str,
) -> Result<authz::clients::ClientMetadata, authz::Error> {
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
    if !is_json {
        return Err(authz::Error::field(
            "client_metadata",
            "Send the client metadata as application/json.",
        ));
    }
    authz::clients::parse_registration_body(body)
}

/// `POST /realms/{realm}/connect/register` (RFC 7591): `201` with the registration.
async fn register(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    Meta(meta): Meta,
    headers: HeaderMap,
    body: String,
) -> Response {
    let mut res = respond(Endpoint::Register, &realm, &Named::new(), async {
        let metadata = json_body(&headers, &body)?;
        state
            .core
            .register_client_dynamically(&realm, &metadata, bearer(&headers), &meta)
            .await
    })
    .await;
    if res.status() == axum::http::StatusCode::OK {
        *res.status_mut() = axum::http::StatusCode::CREATED;
    }
    res
}

/// `GET /realms/{realm}/connect/register/{client_id}` (RFC 7592 §2.1).
async fn read_registration(
    State(state): State<AppState>,
    Path((realm, client_id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    respond(
        Endpoint::Registration,
        &realm,
        &Named::from(client_id.clone()),
        state
            .core
            .read_registration(&realm, &client_id, bearer(&headers)),
    )
    .await
}

/// `PUT /realms/{realm}/connect/register/{client_id}` (RFC 7592 §2.2).
async fn update_registration(
    State(state): State<AppState>,
    Path((realm, client_id)): Path<(String, String)>,
    Meta(meta): Meta,
    headers: HeaderMap,
    body: String,
) -> Response {
    respond(
        Endpoint::Registration,
        &realm,
        &Named::from(client_id.clone()),
        async {
            let metadata = json_body(&headers, &body)?;
            state
                .core
                .update_registration(&realm, &client_id, bearer(&headers), &metadata, &meta)
                .await
        },
    )
    .await
}

/// `DELETE /realms/{realm}/connect/register/{client_id}` (RFC 7592 §2.3): `204`.
async fn delete_registration(
    State(state): State<AppState>,
    Path((realm, client_id)): Path<(String, String)>,
    Meta(meta): Meta,
    headers: HeaderMap,
) -> Response {
    match state
        .core
        .delete_registration(&realm, &client_id, bearer(&headers), &meta)
        .await
    {
        Ok(()) => {
            answered(Endpoint::Registration, "ok");
            axum::http::StatusCode::NO_CONTENT.into_response()
        }
        Err(e) => refused_response(Endpoint::Registration, &realm, &Named::from(client_id), e),
    }
}
