//! The MCP gateway's endpoints.
//!
//! The facade at `/realms/{realm}/mcp` (Streamable HTTP, served
//! by `portcullis-gateway`) behind a bearer check, and its RFC 9728 protected resource
//! metadata, so MCP clients discover the realm's authorization server from a 401.
//!
//! Thin: the core decides who the caller is (`Core::gateway_caller`); the verified caller goes
//! into the request's extensions, where the facade reads it.
use crate::AppState;
use authz::gateway::{GATEWAY_SCOPE, GatewayRefusal};
use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use tower::ServiceExt as _;

/// The MCP session header (Streamable HTTP).
const SESSION_HEADER: &str = "mcp-session-id";

/// The gateway's routes.
pub fn routes() -> Router<AppState> {
    Router::new().route("/realms/{realm}/mcp", any(mcp)).route(
        "/.well-known/oauth-protected-resource/realms/{realm}/mcp",
        get(metadata),
    )
}

fn metadata_url(state: &AppState, realm: &str) -> String {
    format!(
        "{}/.well-known/oauth-protected-resource/realms/{realm}/mcp",
        state.config.public_url().trim_end_matches('/')
    )
}

fn json_error(status: StatusCode, code: &str, description: &str) -> Response {
    let mut res = (
        status,
        axum::Json(serde_json::json!({"error": code, "error_description": description})),
    )
        .into_response();
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

fn challenge(state: &AppState, realm: &str, error: Option<(&str, &str)>) -> HeaderValue {
    let mut value = format!(
        "Bearer resource_metadata=\"{}\", scope=\"{GATEWAY_SCOPE}\"",
        metadata_url(state, realm)
    );
    if let Some((code, description)) = error {
        value.push_str(&format!(
            ", error=\"{code}\", error_description=\"{}\"",
            description.replace(['"', '\\'], "'")
        ));
    }
    HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
}

fn bearer(req: &Request) -> Option<&str> {
    let value = req.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The facade, for a caller with a live token for this realm's gateway.
async fn mcp(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    mut req: Request,
) -> Response {
    let token = bearer(&req).map(str::to_owned);
    let caller = match state.core.gateway_caller(&realm, token.as_deref()).await {
        Ok(c) => c,
        Err(Ok(GatewayRefusal::NotFound)) => {
            return json_error(
                StatusCode::NOT_FOUND,
                "not_found",
                "No MCP gateway here: the realm does not exist or its gateway is off.",
            );
        }
        Err(Ok(GatewayRefusal::InvalidToken(why))) => {
            let mut res = json_error(StatusCode::UNAUTHORIZED, "invalid_token", why);
            // No token at all: the bare challenge (RFC 6750 §3.1), which starts discovery.
            let error = token.is_some().then_some(("invalid_token", why));
            res.headers_mut()
                .insert(header::WWW_AUTHENTICATE, challenge(&state, &realm, error));
            return res;
        }
        Err(Ok(GatewayRefusal::InsufficientScope)) => {
            let why = "The token lacks the gateway's scope (mcp).";
            let mut res = json_error(StatusCode::FORBIDDEN, "insufficient_scope", why);
            res.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                challenge(&state, &realm, Some(("insufficient_scope", why))),
            );
            return res;
        }
        Err(Err(e)) => {
            tracing::error!(error = %e, "gateway: checking the caller failed");
            return json_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "The gateway could not check the token; try again.",
            );
        }
    };
    // A session is its opener's alone: another caller naming it is told it does not exist.
    let key = caller.key();
    let session = req
        .headers()
        .get(SESSION_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if !state.gateway.may_use_session(session.as_deref(), &key) {
        return json_error(
            StatusCode::NOT_FOUND,
            "not_found",
            "No such MCP session for this caller: open a new one (initialize).",
        );
    }
    req.extensions_mut().insert(caller);
    let res = match state.gateway_service.clone().oneshot(req).await {
        Ok(res) => res.map(axum::body::Body::new),
        Err(never) => match never {},
    };
    if session.is_none()
        && let Some(opened) = res
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    {
        state.gateway.opened_session(&opened, &key).await;
    }
    res
}

/// RFC 9728 metadata of a realm's gateway.
async fn metadata(State(state): State<AppState>, Path(realm): Path<String>) -> Response {
    match state.core.gateway_metadata(&realm).await {
        Ok(Some(m)) => {
            let mut res = axum::Json(m).into_response();
            res.headers_mut().insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=300"),
            );
            res.headers_mut().insert(
                header::ACCESS_CONTROL_ALLOW_ORIGIN,
                HeaderValue::from_static("*"),
            );
            res
        }
        Ok(None) => json_error(
            StatusCode::NOT_FOUND,
            "not_found",
            "No MCP gateway here: the realm does not exist or its gateway is off.",
        ),
        Err(e) => {
            tracing::error!(error = %e, "gateway: reading its metadata failed");
            json_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "Try again.",
            )
        }
    }
}
