//! A realm's published MCP server registry over HTTP.
//!
//! The signed releases `portcullis-cli` pulls (`/realms/{realm}/registry/releases/…`) and the
//! official MCP Registry API v0.1 that VS Code and Copilot read
//! (`/realms/{realm}/registry/v0.1/servers…`).
//!
//! Laptops post their drift reports (`portcullis-cli drift --report`) to
//! `/realms/{realm}/registry/drift` with the person's registry sign-in token.
//!
//! Thin handlers: who may read (the realm's registry access: off, bearer, public) is decided
//! in the core; the documents come from the release as published. Every answer carries the
//! release id as its `ETag` and answers `304` to a matching `If-None-Match`; browsers may call
//! it cross-origin.
use crate::AppState;
use axum::Router;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use portcullis_manifest::registry_api::{self, ListQuery};
use serde::Deserialize;
use tower_http::cors::{Any, CorsLayer};

/// The registry routes.
pub fn routes() -> Router<AppState> {
    let mut router = Router::new()
        .route("/realms/{realm}/registry/releases/latest", get(latest))
        .route("/realms/{realm}/registry/releases/{id}", get(by_id))
        .route("/realms/{realm}/registry/me", get(me))
        .route(
            "/realms/{realm}/registry/drift",
            post(drift).layer(axum::extract::DefaultBodyLimit::max(
                portcullis_manifest::drift::MAX_REPORT_BYTES,
            )),
        );
    // `v0.1` is the API's current version; `v0` is what older clients (and imports) call.
    for version in ["v0.1", "v0"] {
        router = router
            .route(
                &format!("/realms/{{realm}}/registry/{version}/servers"),
                get(list),
            )
            .route(
                &format!("/realms/{{realm}}/registry/{version}/servers/{{*rest}}"),
                get(server),
            );
    }
    router.layer(
        CorsLayer::new()
            .allow_origin(Any)
            .allow_methods([Method::GET, Method::OPTIONS])
            .allow_headers([header::AUTHORIZATION, header::IF_NONE_MATCH])
            .expose_headers([header::ETAG, header::WWW_AUTHENTICATE])
            .max_age(std::time::Duration::from_secs(3600)),
    )
}

/// The bearer token of a request, if it sent one.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// A JSON error in the shape the protocol endpoints use.
fn error(status: StatusCode, code: &str, description: &str) -> Response {
    let mut res = (
        status,
        axum::Json(serde_json::json!({"error": code, "error_description": description})),
    )
        .into_response();
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// Renders a core refusal: no registry here (off, unknown realm, no release) is one 404; a
/// missing or invalid token is a 401 with its challenge.
fn refused(e: authz::Error, realm: &str) -> Response {
    match e {
        authz::Error::NotFound { .. } => error(
            StatusCode::NOT_FOUND,
            "not_found",
            "No published registry here.",
        ),
        authz::Error::OAuth(o) if o.code == authz::error::OAuthErrorCode::InvalidToken => {
            let mut res = error(StatusCode::UNAUTHORIZED, "invalid_token", &o.description);
            res.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer error=\"invalid_token\""),
            );
            res
        }
        other => crate::oauth::OAuthResponse::new(other, realm).into_response(),
    }
}

/// Whether the request's `If-None-Match` names release `id`.
fn matches(headers: &HeaderMap, id: &str) -> bool {
    let etag = format!("\"{id}\"");
    headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .map(|t| t.trim().trim_start_matches("W/"))
                .any(|t| t == etag || t == "*")
        })
}

/// `body` as JSON with the release's ETag, or `304` when the client has it already.
fn with_etag(headers: &HeaderMap, id: &str, cache: &'static str, body: String) -> Response {
    let seen = matches(headers, id);
    let etag = format!("\"{id}\"");
    let mut res = if seen {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body,
        )
            .into_response()
    };
    if let Ok(v) = HeaderValue::from_str(&etag) {
        res.headers_mut().insert(header::ETAG, v);
    }
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    res.headers_mut()
        .insert(header::VARY, HeaderValue::from_static("Authorization"));
    res
}

/// `GET /realms/{realm}/registry/me`: the rings and units the token's holder is in now (what
/// `portcullis-cli pull` renders for a signed-in person).
async fn me(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    headers: HeaderMap,
) -> Response {
    match state
        .core
        .registry_groups_of_bearer(&realm, bearer(&headers))
        .await
    {
        Ok(groups) => {
            let mut res = axum::Json(groups).into_response();
            res.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            res
        }
        Err(e) => refused(e, &realm),
    }
}

/// `GET /realms/{realm}/registry/releases/latest`: the newest signed release.
async fn latest(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    headers: HeaderMap,
) -> Response {
    release(
        &state,
        &realm,
        authz::registry::ReleaseSelector::Latest,
        &headers,
    )
    .await
}

/// `GET /realms/{realm}/registry/releases/{id}`: a release by its content id (immutable).
async fn by_id(
    State(state): State<AppState>,
    Path((realm, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    release(
        &state,
        &realm,
        authz::registry::ReleaseSelector::Id(&id),
        &headers,
    )
    .await
}

async fn release(
    state: &AppState,
    realm: &str,
    which: authz::registry::ReleaseSelector<'_>,
    headers: &HeaderMap,
) -> Response {
    match state
        .core
        .served_release(realm, which, bearer(headers))
        .await
    {
        Ok(r) => {
            let cache = match which {
                // Revalidated every time: a new release must reach laptops at once.
                authz::registry::ReleaseSelector::Latest => "private, no-cache",
                authz::registry::ReleaseSelector::Id(_) => "private, max-age=31536000, immutable",
            };
            with_etag(headers, &r.id, cache, r.document)
        }
        Err(e) => refused(e, realm),
    }
}

/// The query of `GET …/servers`.
#[derive(Debug, Deserialize)]
struct ListParams {
    cursor: Option<String>,
    limit: Option<String>,
    search: Option<String>,
    version: Option<String>,
}

/// `GET /realms/{realm}/registry/v0.1/servers`: the latest release's servers, by name, with
/// cursor paging and search.
async fn list(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    Query(params): Query<ListParams>,
    headers: HeaderMap,
) -> Response {
    let limit = match params.limit.as_deref().map(str::parse::<usize>) {
        None => None,
        Some(Ok(n)) if (1..=registry_api::MAX_LIMIT).contains(&n) => Some(n),
        Some(_) => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "limit: a number from 1 to 100.",
            );
        }
    };
    let served = match state.core.served_registry(&realm, bearer(&headers)).await {
        Ok(s) => s,
        Err(e) => return refused(e, &realm),
    };
    let q = ListQuery {
        cursor: params.cursor,
        limit,
        search: params.search,
        version: params.version,
    };
    let body = registry_api::list(&served.policy.servers, &served.info, &q).to_string();
    with_etag(&headers, &served.id, "private, no-cache", body)
}

/// `GET /realms/{realm}/registry/v0.1/servers/{name}/versions[/{version}]`: one server of the
/// latest release (names hold a `/`, sent as `%2F` or as is).
async fn server(
    State(state): State<AppState>,
    Path((realm, rest)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let not_found = || {
        error(
            StatusCode::NOT_FOUND,
            "not_found",
            "No such server or version.",
        )
    };
    let (name, version) = if let Some(name) = rest.strip_suffix("/versions") {
        (name, None)
    } else if let Some((name, version)) = rest.rsplit_once("/versions/") {
        (name, Some(version))
    } else {
        return not_found();
    };
    let served = match state.core.served_registry(&realm, bearer(&headers)).await {
        Ok(s) => s,
        Err(e) => return refused(e, &realm),
    };
    let found = match version {
        None => registry_api::versions(&served.policy.servers, &served.info, name),
        Some(v) => registry_api::version(&served.policy.servers, &served.info, name, v),
    };
    match found {
        Some(body) => with_etag(&headers, &served.id, "private, no-cache", body.to_string()),
        None => not_found(),
    }
}

/// `POST /realms/{realm}/registry/drift`: a device's drift report (JSON), with the person's
/// registry sign-in token (the token is checked before the body is read). Answers what was
/// stored, `400` naming the field over its limit, `401` without a person's sign-in through the
/// realm's CLI, `413` over the size cap, `429` when the device reported less than a minute ago
/// or the person too often.
async fn drift(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    match state
        .core
        .report_drift(&realm, bearer(&headers), &body)
        .await
    {
        Ok(receipt) => {
            let mut res = axum::Json(serde_json::json!({
                "received_at": receipt.received_at,
                "latest_release": receipt.latest,
            }))
            .into_response();
            res.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            res
        }
        Err(authz::Error::Throttled { retry_after_secs }) => {
            let mut res = error(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_requests",
                &format!(
                    "Too many reports: this device reported less than a minute ago, or this person's devices too often; the next report is accepted within {retry_after_secs} seconds."
                ),
            );
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            res
        }
        Err(authz::Error::Invalid(message)) => {
            error(StatusCode::BAD_REQUEST, "invalid_request", &message)
        }
        Err(e) => refused(e, &realm),
    }
}
