//! Console links that carry their realm: `/go/{realm}/{kind}/{id}` for a client, resource,
//! agent, person or registry server (`kind` = `clients`, `resources`, `agents`, `people`,
//! `servers`).
//!
//! It selects that realm in the session and opens the object's page, so a link from the review
//! inbox, the audit log or an object's "Copy link" (pasted to a colleague) opens the same object
//! whatever realm the session was in.
//!
//! Selecting a realm changes what the session's other tabs act on, so another site cannot do it
//! with a link: a cross-site GET gets a page asking to confirm, whose button POSTs (and POSTs
//! carry the console's CSRF check).
use app::ssr::ConsoleRequest;
use axum::Extension;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use tower_sessions::Session;

use crate::AppState;

/// The kinds of object a link opens: the name in the link, the page's path, and the word for it.
const KINDS: &[(&str, &str, &str)] = &[
    ("clients", "/clients", "client"),
    ("resources", "/resources", "resource"),
    ("agents", "/agents", "agent"),
    ("people", "/people", "person"),
    ("servers", "/registry/servers", "registry server"),
];

/// Longest id a link carries (a metadata document's `client_id` URL is the longest kind).
const MAX_ID_CHARS: usize = 2048;

/// The page path and word for `kind`, if links open it.
fn kind(kind: &str) -> Option<(&'static str, &'static str)> {
    KINDS
        .iter()
        .find(|(k, ..)| *k == kind)
        .map(|(_, path, word)| (*path, *word))
}

/// Opens an object of `realm` (GET): at once when the request comes from the console itself or
/// from the address bar, else after a confirmation.
pub async fn open_link(
    state: State<AppState>,
    req: Extension<ConsoleRequest>,
    session: Session,
    headers: HeaderMap,
    Path((realm, kind_name, id)): Path<(String, String, String)>,
) -> Response {
    let Some((_, word)) = kind(&kind_name) else {
        return not_found();
    };
    // Nothing but a plausible link gets a page on this origin that repeats it.
    if authz::realms::RealmName::parse(&realm).is_err() || id.is_empty() || id.len() > MAX_ID_CHARS
    {
        return not_found();
    }
    // Only a browser that says this is a page navigation from this console or from the address
    // bar opens it at once. Anything else asks: a request without Fetch Metadata, and an image
    // or other subresource on one of this origin's pages (a client's logo_uri on the consent
    // page), which would otherwise switch the realm without a click.
    let fetch = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("unknown")
    };
    if matches!(fetch("sec-fetch-site"), "same-origin" | "none")
        && fetch("sec-fetch-mode") == "navigate"
        && fetch("sec-fetch-dest") == "document"
        // A page the browser prerenders from the address bar before Enter is no click either.
        && !headers.contains_key("sec-purpose")
        && !headers.contains_key("purpose")
    {
        return open(state, req, session, (realm, kind_name, id)).await;
    }
    let escape = app::pages::authorize::html_escape;
    let (realm, id) = (escape(&realm), escape(&id));
    (
        [(header::CACHE_CONTROL, "no-store")],
        Html(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Open {word} {id}</title></head>\
             <body style=\"font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; overflow-wrap: anywhere\">\
             <h1>Open {word} {id} in realm {realm}?</h1>\
             <p>A link from another site asks to switch your console to the realm <strong>{realm}</strong>. Console tabs still showing another realm will ask to be reloaded before they act.</p>\
             <form method=\"post\"><button type=\"submit\">Open it in {realm}</button> <a href=\"/\">Stay where I was</a></form>\
             </body></html>"
        )),
    )
        .into_response()
}

/// Opens an object of `realm` (the confirmation's POST, behind the CSRF check).
pub async fn confirm(
    state: State<AppState>,
    req: Extension<ConsoleRequest>,
    session: Session,
    Path(target): Path<(String, String, String)>,
) -> Response {
    open(state, req, session, target).await
}

async fn open(
    State(state): State<AppState>,
    Extension(req): Extension<ConsoleRequest>,
    session: Session,
    (realm, kind_name, id): (String, String, String),
) -> Response {
    // Signed out, a GET went to the login page (with this address to come back to) already.
    let Some(principal) = req.principal else {
        return message(
            StatusCode::UNAUTHORIZED,
            "Sign in first",
            "Your session has ended: sign in, then open the link again.",
        );
    };
    let Some((path, _)) = kind(&kind_name) else {
        return not_found();
    };
    let Ok(realm) = state.core.get_realm(&principal, &realm).await else {
        return message(
            StatusCode::NOT_FOUND,
            "No such realm",
            "The link names a realm that does not exist, or one your role may not see. Your console stays in the realm it was in.",
        );
    };
    let before = app::ssr::selected_realm(&state.core, &session).await.ok();
    if app::ssr::select_realm(&session, &realm).await.is_err() {
        return could_not_switch();
    }
    // The next page says the console changed realm (other tabs will ask to reload).
    if let Some(before) = before.filter(|b| b.as_str() != realm.name.as_str()) {
        let _ = app::ssr::note_switch(&session, &before, true).await;
    }
    // The id as one path segment (a metadata document's `client_id` is a URL): the redirect
    // stays on this console's page for the object, whatever the id holds.
    let Ok(mut page) = url::Url::parse(&format!("http://console{path}")) else {
        return could_not_switch();
    };
    if let Ok(mut segments) = page.path_segments_mut() {
        segments.push(&id);
    }
    Redirect::to(page.path()).into_response()
}

/// A link that opens no console page.
fn not_found() -> Response {
    message(
        StatusCode::NOT_FOUND,
        "No such console page",
        "The link is not one the console makes: check that it was copied whole.",
    )
}

/// The session could not be changed (its store failed).
fn could_not_switch() -> Response {
    message(
        StatusCode::INTERNAL_SERVER_ERROR,
        "The link could not be opened",
        "Your console could not switch realm just now. Try the link again in a moment.",
    )
}

/// A short page that says why a link opens nothing, with the way back to the console (fixed
/// words only: nothing from the link is repeated).
fn message(status: StatusCode, title: &str, text: &str) -> Response {
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        Html(format!(
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title}</title></head>\
             <body style=\"font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; overflow-wrap: anywhere\">\
             <h1>{title}</h1><p>{text}</p><p><a href=\"/\">Back to the console</a></p></body></html>"
        )),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::kind;

    #[test]
    fn links_open_the_console_pages_of_their_kind() {
        assert_eq!(kind("clients"), Some(("/clients", "client")));
        assert_eq!(
            kind("servers"),
            Some(("/registry/servers", "registry server"))
        );
        assert_eq!(kind("realms"), None, "installation pages need no realm");
        assert_eq!(kind("../admin"), None);
    }
}
