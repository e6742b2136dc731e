//! Operability endpoints: liveness, readiness (database reachable, same master key), Prometheus
//! metrics.
use crate::AppState;
use authz::keys::MasterKeyCheck;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;

/// The process-wide Prometheus recorder (installed once).
pub fn metrics_handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full("http_request_duration_seconds".into()),
                    &[
                        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                    ],
                )
                .expect("bucket list is non-empty")
                .build_recorder();
            let handle = recorder.handle();
            // Another recorder may exist only in tests that install their own; keep ours usable.
            let _ = metrics::set_global_recorder(recorder);
            describe_metrics();
            handle
        })
        .clone()
}

/// The `# HELP` line of every metric Portcullis records (the exporter prints it once the metric
/// has a value).
fn describe_metrics() {
    use metrics::{Unit, describe_counter, describe_gauge, describe_histogram};
    describe_counter!(
        "http_requests_total",
        "HTTP requests answered, by method, route and status."
    );
    describe_histogram!(
        "http_request_duration_seconds",
        Unit::Seconds,
        "Time to answer an HTTP request, by method and route."
    );
    describe_gauge!("db_pool_connections", "Open database connections.");
    describe_gauge!("db_pool_idle_connections", "Idle database connections.");
    describe_counter!(
        "portcullis_oauth_requests_total",
        "OAuth requests (token, authorize, register, introspect, revoke) by endpoint, outcome and OAuth error code."
    );
    describe_counter!(
        "portcullis_sign_ins_total",
        "Sign-in attempts by surface (console, realm) and outcome."
    );
    describe_counter!(
        "portcullis_registrations_total",
        "Clients registered by kind (dynamic, metadata_document) and the review state they start in."
    );
    describe_counter!(
        "portcullis_review_decisions_total",
        "Security review decisions on self-registered clients, by decision."
    );
    describe_counter!(
        "portcullis_throttled_total",
        "Requests refused by a rate limit or failure budget, by kind."
    );
}

/// How often the recorder's upkeep runs.
pub const UPKEEP_SECS: u64 = 5;

/// Runs the Prometheus recorder's upkeep on a timer, forever.
///
/// The recorder keeps histogram samples until it renders; without a scraper that is memory
/// growing with every request, so upkeep folds them into the buckets whether anyone scrapes
/// `/metrics` or not.
pub async fn metrics_upkeep(handle: PrometheusHandle) {
    let mut every = tokio::time::interval(std::time::Duration::from_secs(UPKEEP_SECS));
    loop {
        every.tick().await;
        handle.run_upkeep();
    }
}

/// `GET /healthz`: the process is up.
pub async fn healthz() -> &'static str {
    "ok"
}

/// `GET /readyz`: the database answers and holds this instance's master key.
pub async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    match state.core.ready().await {
        Ok(MasterKeyCheck::Matches) => (StatusCode::OK, "ready"),
        Ok(MasterKeyCheck::Mismatch) => {
            tracing::error!("{}", state.config.master_key_mismatch());
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "master key mismatch: this instance cannot open the database's signing keys",
            )
        }
        Err(e) => {
            tracing::warn!(error = %e, "Readiness check failed");
            (StatusCode::SERVICE_UNAVAILABLE, "database unreachable")
        }
    }
}

/// `GET /metrics`: Prometheus text format; with `metrics.bearer_token` set, only for requests
/// that carry it.
pub async fn metrics(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Some(expected) = &state.config.metrics.bearer_token {
        let sent = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or_default();
        // Hashes of equal length, compared in constant time: neither the token nor its length
        // leaks through timing.
        let hash = |s: &str| authz::secret::PlainToken::from_input(s).hashed();
        if !authz::secret::constant_time_eq(&hash(sent), &hash(expected)) {
            return (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer realm=\"metrics\"")],
                "metrics need the configured bearer token",
            )
                .into_response();
        }
    }
    let (size, idle) = state.db.pool_stats();
    metrics::gauge!("db_pool_connections").set(f64::from(size));
    metrics::gauge!("db_pool_idle_connections").set(idle as f64);
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
        .into_response()
}
