//! `GET /admin/audit/export`: the audit log as CSV or JSON lines, for the signed-in user.
use crate::AppState;
use app::ssr::ConsoleRequest;
use app::types::audit::AuditQuery;
use authz::audit::ExportFormat;
use axum::extract::{Extension, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

/// Query of an export request: a format and the console's audit filter.
#[derive(Deserialize)]
pub struct ExportQuery {
    #[serde(default)]
    format: String,
    #[serde(flatten)]
    filter: AuditQuery,
}

/// Streams the export as a download.
pub async fn export_audit(
    State(state): State<AppState>,
    Extension(req): Extension<ConsoleRequest>,
    Query(q): Query<ExportQuery>,
) -> Response {
    let Some(principal) = req.principal else {
        return (StatusCode::UNAUTHORIZED, "Sign in to export the audit log.").into_response();
    };
    let (format, mime, ext) = match q.format.as_str() {
        "csv" | "" => (ExportFormat::Csv, "text/csv; charset=utf-8", "csv"),
        "jsonl" => (ExportFormat::JsonLines, "application/x-ndjson", "jsonl"),
        _ => return (StatusCode::BAD_REQUEST, "format must be csv or jsonl").into_response(),
    };
    let filter = match app::ssr::audit::audit_filter(&q.filter, state.core.now()) {
        Ok(filter) => filter,
        Err(e) => return (StatusCode::BAD_REQUEST, e.to_string()).into_response(),
    };
    let realm = Some(q.filter.realm.as_str()).filter(|r| !r.is_empty());
    match state
        .core
        .export_audit(&principal, realm, filter, format, &req.meta)
        .await
    {
        Ok(body) => (
            [
                (header::CONTENT_TYPE, mime.to_owned()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"portcullis-audit.{ext}\""),
                ),
                (header::CACHE_CONTROL, "no-store".to_owned()),
            ],
            body,
        )
            .into_response(),
        Err(e) => {
            let (status, error) = app::error::classify(e);
            (status, error.to_string()).into_response()
        }
    }
}
