//! Console links that carry their realm: `/go/{realm}/clients/{client_id}` selects that realm in
//! the session and opens the client, so a link from the review inbox (or pasted to a colleague)
//! opens the same object whatever realm the session was in.
use app::ssr::ConsoleRequest;
use axum::Extension;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use tower_sessions::Session;

use crate::AppState;

/// Opens a client of `realm` (its page, in the console's selected realm from now on).
pub async fn client(
    State(state): State<AppState>,
    Extension(req): Extension<ConsoleRequest>,
    session: Session,
    Path((realm, client_id)): Path<(String, String)>,
) -> Response {
    // Signed out: the sign-in guard sent them to the login page with this address to return to.
    let Some(principal) = req.principal else {
        return StatusCode::UNAUTHORIZED.into_response();
    };
    let Ok(realm) = state.core.get_realm(&principal, &realm).await else {
        return (
            StatusCode::NOT_FOUND,
            "No such realm, or not one you may see.",
        )
            .into_response();
    };
    if app::ssr::select_realm(&session, &realm).await.is_err() {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    }
    let id: String = url::form_urlencoded::byte_serialize(client_id.as_bytes()).collect();
    Redirect::to(&format!("/clients/{id}")).into_response()
}
