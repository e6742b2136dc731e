//! A deadline on rendering a console page.
//!
//! Pages render on the server in full before the first byte is sent (`SsrMode::Async`), so a
//! render that never finishes would hold the browser's request open until it gives up. Leptos
//! 0.8 has open reports of exactly that: a rare race between `Suspense` boundaries and the
//! resources they wait for leaves a render pending for ever while the process stays healthy
//! (leptos-rs/leptos#4578, #4647; #4851 fixed one such race in 0.8.23, which we run). We saw it
//! once in CI: `GET /users` never answered.
//!
//! A page is rendered again (at most [`MAX_SECOND_RENDERS`] at once in the process) when the
//! first render has not finished within [`RENDER_DEADLINE`]:
//! rendering a page only reads (every change goes through a server function or a form `POST`,
//! which this never repeats), so a second render is safe and, the race being rare, answers. A
//! second miss answers `503` with `Retry-After` rather than hanging. Both are logged as
//! warnings with the path, so an operator sees them.
use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// How long one render of a console page may take. Pages render in milliseconds; this is far
/// beyond any legitimate render and well inside a browser's patience.
pub const RENDER_DEADLINE: Duration = Duration::from_secs(10);

/// Second renders under way at most, in the whole process. A render that misses its deadline
/// because the server is slow (not stuck) leaves its data loads running; a second render adds
/// load, so only this many happen at once and any further miss answers `503` at once.
const MAX_SECOND_RENDERS: usize = 2;

/// Second renders under way.
static SECOND_RENDERS: AtomicUsize = AtomicUsize::new(0);

/// A place among the [`MAX_SECOND_RENDERS`] counted by `.0`, given back when dropped.
struct SecondRender(&'static AtomicUsize);

impl SecondRender {
    fn take(places: &'static AtomicUsize) -> Option<Self> {
        places
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < MAX_SECOND_RENDERS).then_some(n + 1)
            })
            .ok()
            .map(|_| Self(places))
    }
}

impl Drop for SecondRender {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Renders `GET`/`HEAD` console pages within [`RENDER_DEADLINE`], once more on a miss.
pub async fn deadline(req: Request, next: Next) -> Response {
    within(RENDER_DEADLINE, &SECOND_RENDERS, req, next).await
}

async fn within(
    limit: Duration,
    places: &'static AtomicUsize,
    req: Request,
    next: Next,
) -> Response {
    let repeatable = matches!(*req.method(), Method::GET | Method::HEAD)
        && !req.uri().path().starts_with("/api/");
    if !repeatable {
        return next.run(req).await;
    }
    let (parts, _) = req.into_parts();
    let path = parts.uri.path().to_owned();
    let mut place = None;
    for attempt in 1..=2 {
        if attempt == 2 {
            place = SecondRender::take(places);
            if place.is_none() {
                break;
            }
        }
        let again = Request::from_parts(parts.clone(), axum::body::Body::empty());
        match tokio::time::timeout(limit, next.clone().run(again)).await {
            Ok(res) => return res,
            Err(_) => tracing::warn!(
                path,
                attempt,
                deadline_secs = limit.as_secs_f64(),
                "console page render missed its deadline"
            ),
        }
    }
    drop(place);
    let mut res = (
        StatusCode::SERVICE_UNAVAILABLE,
        Html(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <title>Try again · Portcullis</title></head><body>\
             <h1>This page took too long</h1>\
             <p>The console could not finish this page. Reload to try again.</p>\
             </body></html>",
        ),
    )
        .into_response();
    res.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::Router;
    use axum::body::Body;
    use axum::routing::get;
    use std::sync::Arc;
    use tower::ServiceExt as _;

    /// A router whose page hangs on its first `hangs` renders, and counts renders; second
    /// renders counted in `places` (each test its own, so that tests do not share them).
    fn app_with(hangs: usize, places: &'static AtomicUsize) -> (Router, Arc<AtomicUsize>) {
        let renders = Arc::new(AtomicUsize::new(0));
        let count = renders.clone();
        let page = move || {
            let count = count.clone();
            async move {
                if count.fetch_add(1, Ordering::SeqCst) < hangs {
                    std::future::pending::<()>().await;
                }
                "page"
            }
        };
        let router = Router::new()
            .route("/users", get(page.clone()).post(page.clone()))
            .route("/api/x", get(page))
            .layer(axum::middleware::from_fn(move |req, next| {
                within(Duration::from_millis(50), places, req, next)
            }));
        (router, renders)
    }

    fn app(hangs: usize) -> (Router, Arc<AtomicUsize>) {
        app_with(hangs, Box::leak(Box::new(AtomicUsize::new(0))))
    }

    async fn send(router: Router, method: Method, path: &str) -> Response {
        let req = Request::builder()
            .method(method)
            .uri(path)
            .body(Body::empty())
            .expect("request");
        tokio::time::timeout(Duration::from_secs(5), router.oneshot(req))
            .await
            .expect("answered")
            .expect("infallible")
    }

    #[tokio::test]
    async fn a_stuck_render_is_rendered_again() {
        let (router, renders) = app(1);
        let res = send(router, Method::GET, "/users").await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(renders.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn two_stuck_renders_answer_503_with_retry_after() {
        let (router, renders) = app(2);
        let res = send(router, Method::GET, "/users").await;
        assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(res.headers()[header::RETRY_AFTER], "1");
        assert_eq!(renders.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn without_a_free_place_a_miss_answers_503_without_a_second_render() {
        let places: &'static AtomicUsize = Box::leak(Box::new(AtomicUsize::new(0)));
        let held: Vec<_> = std::iter::from_fn(|| SecondRender::take(places))
            .take(MAX_SECOND_RENDERS + 1)
            .collect();
        assert_eq!(held.len(), MAX_SECOND_RENDERS, "no more places than that");
        let (router, renders) = app_with(1, places);
        let res = send(router, Method::GET, "/users").await;
        drop(held);
        assert_eq!(res.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(renders.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn posts_and_server_functions_are_never_repeated() {
        for (method, path) in [(Method::POST, "/users"), (Method::GET, "/api/x")] {
            let (router, renders) = app(1);
            let req = Request::builder()
                .method(method)
                .uri(path)
                .body(Body::empty())
                .expect("request");
            let waited =
                tokio::time::timeout(Duration::from_millis(300), router.oneshot(req)).await;
            assert!(waited.is_err(), "{path}: no deadline, no second render");
            assert_eq!(renders.load(Ordering::SeqCst), 1);
        }
    }
}
