//! Protocol endpoints of each realm.
//!
//! Metadata (RFC 8414, OIDC discovery paths), JWKS, token, introspection and revocation. Every
//! handler is extract → parse → one core call → render, through one wrapper: [`respond`] (or
//! [`respond_cached`] for public documents) renders the core's answer as JSON, or its error
//! through [`OAuthResponse`].
mod authorize;
mod error;
mod form;

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
            "/realms/{realm}/account",
            get(authorize::account_get).post(authorize::account_post),
        )
        .route("/realms/{realm}/introspect", post(introspect))
}

/// Renders one protocol operation of `realm`: its answer as JSON with `Cache-Control:
/// no-store`, or its error per RFC 6749 §5.2.
async fn respond<T: Serialize>(
    realm: &str,
    operation: impl Future<Output = Result<T, authz::Error>>,
) -> Response {
    match operation.await {
        Ok(body) => {
            let mut res = Json(body).into_response();
            res.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            res.headers_mut()
                .insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
            res
        }
        Err(e) => OAuthResponse::new(e, realm).into_response(),
    }
}

/// As [`respond`], for public documents (metadata, JWKS) caches may keep for five minutes.
async fn respond_cached<T: Serialize>(
    realm: &str,
    operation: impl Future<Output = Result<T, authz::Error>>,
) -> Response {
    match operation.await {
        Ok(body) => {
            let mut res = Json(body).into_response();
            res.headers_mut().insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            );
            res
        }
        Err(e) => OAuthResponse::new(e, realm).into_response(),
    }
}

/// `GET` metadata at the three discovery paths.
async fn metadata(State(state): State<AppState>, Path(realm): Path<String>) -> Response {
    respond_cached(&realm, state.core.authorization_server_metadata(&realm)).await
}

/// `GET /realms/{realm}/jwks`.
async fn jwks(State(state): State<AppState>, Path(realm): Path<String>) -> Response {
    respond_cached(&realm, state.core.jwks(&realm)).await
}

/// `POST /realms/{realm}/token`.
async fn token(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    Meta(meta): Meta,
    headers: HeaderMap,
    body: String,
) -> Response {
    respond(&realm, async {
        let form = parse_form(&headers, &body, &["resource"])?;
        let creds = client_credentials(&headers, &form)?;
        let request = authz::tokens::TokenRequest {
            grant_type: form.one("grant_type").unwrap_or_default().to_owned(),
            scope: form.one("scope").map(str::to_owned),
            resource: form.all("resource"),
            code: form.one("code").map(str::to_owned),
            redirect_uri: form.one("redirect_uri").map(str::to_owned),
            code_verifier: form.one("code_verifier").map(str::to_owned),
            refresh_token: form.one("refresh_token").map(str::to_owned),
        };
        state.core.issue_token(&realm, creds, &request, &meta).await
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
    respond(&realm, async {
        let form = parse_form(&headers, &body, &[])?;
        let creds = client_credentials(&headers, &form)?;
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
    respond(&realm, async {
        let form = parse_form(&headers, &body, &[])?;
        let creds = client_credentials(&headers, &form)?;
        let token = form.required("token")?;
        state.core.revoke_token(&realm, creds, token, &meta).await?;
        Ok(serde_json::json!({}))
    })
    .await
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
    let mut res = respond(&realm, async {
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
        &realm,
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
    respond(&realm, async {
        let metadata = json_body(&headers, &body)?;
        state
            .core
            .update_registration(&realm, &client_id, bearer(&headers), &metadata, &meta)
            .await
    })
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
        Ok(()) => axum::http::StatusCode::NO_CONTENT.into_response(),
        Err(e) => OAuthResponse::new(e, &realm).into_response(),
    }
}
