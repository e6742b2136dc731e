//! The HTTP status of the current console response (ssr only).
//!
//! It sits below both `error` (which sets the status of a failed server function) and `ssr`
//! (which sets it for a missing session or rejected input), so neither names the other back:
//! `ssr` → `error` → `status`, and `ssr` → `status`.

/// Sets the HTTP status of the current server-function (or console page) response.
pub fn set_status(status: axum::http::StatusCode) {
    if let Some(opts) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() {
        opts.set_status(status);
    }
}
