//! Cross-cutting HTTP middleware: request ids, metrics and request logs, CSRF protection, the
//! sign-in guard for console pages, and security headers.
use crate::AppState;
use app::ssr::ConsoleRequest;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use std::time::Instant;

/// Header carrying the request id.
pub const REQUEST_ID: &str = "x-request-id";

/// Request id assigned by [`request_id`].
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// The request's id and client address (see [`crate::client_ip`]), for the audit log and
/// throttling.
pub fn request_meta(extensions: &axum::http::Extensions) -> authz::RequestMeta {
    authz::RequestMeta {
        request_id: extensions.get::<RequestId>().map(|r| r.0.clone()),
        client_ip: crate::client_ip::of(extensions),
    }
}

/// A bounded label for the request method (clients may send any token as a method).
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        _ => "OTHER",
    }
}

/// Assigns a request id (keeping a well-formed incoming one) and echoes it in the response.
pub async fn request_id(mut req: Request, next: Next) -> Response {
    let incoming = req
        .headers()
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty()
                && v.len() <= 64
                && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
        .map(str::to_owned);
    let id = incoming.unwrap_or_else(|| {
        let mut b = [0u8; 8];
        rand::Rng::fill(&mut rand::thread_rng(), &mut b);
        hex::encode(b)
    });
    req.extensions_mut().insert(RequestId(id.clone()));
    let mut res = next.run(req).await;
    if let Ok(v) = HeaderValue::from_str(&id) {
        res.headers_mut().insert(REQUEST_ID, v);
    }
    res
}

/// Counts requests by route and status, records latency, and logs one line per request
/// (path without query string: links may carry one-time tokens).
pub async fn observe(req: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = req.method().clone();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| route_label(req.uri().path()), |m| m.as_str().to_owned());
    let request_id = req
        .extensions()
        .get::<RequestId>()
        .map(|r| r.0.clone())
        .unwrap_or_default();
    let res = next.run(req).await;
    let status = res.status().as_u16();
    let elapsed = start.elapsed();
    let method = method_label(&method);
    metrics::counter!("http_requests_total", "method" => method, "route" => route.clone(), "status" => status.to_string()).increment(1);
    metrics::histogram!("http_request_duration_seconds", "method" => method, "route" => route.clone()).record(elapsed.as_secs_f64());
    tracing::info!(
        http.method = %method,
        http.route = %route,
        http.status = status,
        duration_ms = elapsed.as_secs_f64() * 1000.0,
        request_id = %request_id,
        "request"
    );
    res
}

/// A bounded label for requests no route matched (static files, fallbacks).
fn route_label(path: &str) -> String {
    if path.starts_with("/pkg/") {
        "/pkg/*".into()
    } else {
        "fallback".into()
    }
}

/// Paths of protocol endpoints, which are not cookie-authenticated and so need no CSRF check.
fn is_protocol_path(path: &str) -> bool {
    path.starts_with("/realms/") || path.starts_with("/.well-known/")
}

/// Whether a browser says the request comes from one of our own pages.
///
/// `Sec-Fetch-Site: same-origin`, or where that is absent, an `Origin` equal to the public
/// URL's. Requests with neither (not from a browser) are not.
pub fn same_origin(headers: &axum::http::HeaderMap, public_origin: &str) -> bool {
    match headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) {
        Some(site) => site == "same-origin",
        None => headers
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|o| o == public_origin),
    }
}

/// Refuses state-changing requests that a browser marks as cross-site.
///
/// Browsers send `Sec-Fetch-Site`; where it is absent, `Origin` must equal the public URL's
/// origin. Requests with neither (not from a browser) are refused too, so a console cookie can
/// never be ridden from another site. Forms and server functions are covered alike.
pub async fn csrf(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let safe = matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if safe || is_protocol_path(req.uri().path()) {
        return next.run(req).await;
    }
    if same_origin(req.headers(), &state.public_origin) {
        next.run(req).await
    } else {
        tracing::warn!(path = %req.uri().path(), "Refused a cross-site state-changing request");
        (
            StatusCode::FORBIDDEN,
            "Cross-site request refused (CSRF protection).",
        )
            .into_response()
    }
}

/// Paths that render without a session.
fn is_public_path(path: &str) -> bool {
    const PUBLIC: &[&str] = &[
        "/login",
        "/login/second-factor",
        "/setup",
        "/reset-password",
        "/healthz",
        "/readyz",
        "/metrics",
        "/favicon.svg",
    ];
    PUBLIC.contains(&path)
        || path.starts_with("/pkg/")
        || path.starts_with("/login/sso/")
        || path.starts_with("/api/")
        || path.starts_with("/admin/")
        || is_protocol_path(path)
}

/// Sends signed-out browsers from console pages to the sign-in page (and signed-in ones away
/// from it). Server functions and exports check the session themselves.
pub async fn require_sign_in(req: Request, next: Next) -> Response {
    if !matches!(*req.method(), Method::GET | Method::HEAD) {
        return next.run(req).await;
    }
    let signed_in = req
        .extensions()
        .get::<ConsoleRequest>()
        .is_some_and(|c| c.principal.is_some());
    let path = req.uri().path();
    if path == "/login" && signed_in {
        return Redirect::to("/").into_response();
    }
    if signed_in || is_public_path(path) {
        return next.run(req).await;
    }
    let target = req.uri().path_and_query().map_or("/", |p| p.as_str());
    if target == "/" {
        Redirect::to("/login").into_response()
    } else {
        Redirect::to(&format!(
            "/login?next={}",
            url::form_urlencoded::byte_serialize(target.as_bytes()).collect::<String>()
        ))
        .into_response()
    }
}

/// Content-Security-Policy of every response. Leptos' hydration scripts are inline modules and
/// WebAssembly needs `wasm-unsafe-eval`.
pub const CSP: &str = "default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// Console pages are never stored by the browser or a proxy.
///
/// They show what the signed-in user may see (and the sign-in page may show a typed email), so
/// a shared machine's back button or cache must not bring them back after sign-out. Static files
/// (`/pkg`) keep their caching.
pub async fn no_store_pages(req: Request, next: Next) -> Response {
    let mut res = next.run(req).await;
    let html = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if html {
        res.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn public_paths() {
        assert!(is_public_path("/login"));
        assert!(is_public_path("/pkg/app.js"));
        assert!(is_public_path("/realms/default/token"));
        assert!(!is_public_path("/users"));
        assert!(!is_public_path("/"));
        assert!(!is_public_path("/loginx"));
    }
}
