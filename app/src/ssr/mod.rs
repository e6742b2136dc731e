//! Server-side glue for server functions (ssr only): context, session and principal here, and
//! one module per domain converting the core's types into view types (`crate::types::<domain>`).
//!
//! Dependencies go one way: this module and its domain modules name `error`, `status` and
//! `types`; none of those names `ssr`. A domain module may name this file (`super::moment`) and
//! another domain module (`access` names `resources`); this file names none of them.
use crate::error::AppError;
use crate::status::set_status;
use crate::types::Moment;
use authz::{Core, Principal, RequestMeta};
use leptos::prelude::*;
use tower_sessions::Session;

pub mod access;
pub mod agents;
pub mod audit;
pub mod chaining;
pub mod clients;
pub mod drift;
pub mod federation;
pub mod gateway;
pub mod integration;
pub mod keys;
pub mod login;
pub mod people;
pub mod realms;
pub mod registry;
pub mod resources;
pub mod review;
pub mod second_factor;
pub mod sso;
pub mod users;

/// Session key holding the signed-in user's id.
pub const SESSION_USER: &str = "uid";
/// Session key holding the Unix time of sign-in (for the absolute expiry).
pub const SESSION_AUTH_AT: &str = "auth_at";
/// Session key: the provider sign-in that started the session (`authz::sso::SsoSession`), for
/// signing out at the provider too.
pub const SESSION_SSO: &str = "sso";
/// Session key holding the account's credential version at sign-in: when the password changes,
/// sessions holding an older version end.
pub const SESSION_CREDENTIALS: &str = "cred";
/// Session key holding the realm selected in the console.
pub const SESSION_REALM: &str = "realm_id";

/// What the server's middleware resolved for this request.
#[derive(Debug, Clone, Default)]
pub struct ConsoleRequest {
    /// The signed-in user, if any (disabled users and expired sessions resolve to none).
    pub principal: Option<Principal>,
    /// Request id and client IP.
    pub meta: RequestMeta,
}

/// The core from context.
///
/// # Errors
/// `Internal` if the server did not provide it.
pub fn core() -> Result<Core, AppError> {
    use_context::<Core>().ok_or(AppError::Internal)
}

/// The resolved request.
///
/// # Errors
/// `Internal` if the middleware did not run.
pub async fn request() -> Result<ConsoleRequest, AppError> {
    leptos_axum::extract::<axum::Extension<ConsoleRequest>>()
        .await
        .map(|e| e.0)
        .map_err(|_| AppError::Internal)
}

/// Core, signed-in principal and request facts.
///
/// # Errors
/// `Unauthenticated` without a session.
pub async fn context() -> Result<(Core, Principal, RequestMeta), AppError> {
    let req = request().await?;
    let Some(p) = req.principal else {
        set_status(axum::http::StatusCode::UNAUTHORIZED);
        return Err(AppError::Unauthenticated);
    };
    Ok((core()?, p, req.meta))
}

/// The session.
///
/// # Errors
/// `Internal` if the session layer is missing.
pub async fn session() -> Result<Session, AppError> {
    leptos_axum::extract::<Session>()
        .await
        .map_err(|_| AppError::Internal)
}

pub(crate) fn session_failed(e: tower_sessions::session::Error) -> AppError {
    tracing::error!(error = %e, "Session store failed");
    AppError::Internal
}

/// Starts an authenticated session: rotates the session id, then records the user, the time
/// and the account's credential version.
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn start_session(session: &Session, p: &Principal, now: i64) -> Result<(), AppError> {
    // A provider sign-in records its own afterwards; a sign-in on hold for its second factor,
    // or an authenticator being set up, belongs to whoever was here before.
    for key in [
        SESSION_SSO,
        second_factor::SESSION_PENDING,
        second_factor::SESSION_SETUP,
    ] {
        session.remove_value(key).await.map_err(session_failed)?;
    }
    session
        .insert(SESSION_USER, p.user_id.as_str())
        .await
        .map_err(session_failed)?;
    session
        .insert(SESSION_AUTH_AT, now)
        .await
        .map_err(session_failed)?;
    renew_session(session, p).await
}

/// Rotates the session id and records the principal's current credential version (after the
/// signed-in user changed their own password; sign-in time, and so the absolute expiry, stay).
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn renew_session(session: &Session, p: &Principal) -> Result<(), AppError> {
    session.cycle_id().await.map_err(session_failed)?;
    session
        .insert(SESSION_CREDENTIALS, p.credential_version)
        .await
        .map_err(session_failed)
}

/// The name of the realm selected in this session (default `default`).
///
/// The session remembers the realm's id, so a rename (in this session or another) keeps it
/// selected, and a new realm that takes an old name is never selected by mistake.
///
/// # Errors
/// `Internal` when the session store or the store fails.
pub async fn selected_realm(core: &Core, session: &Session) -> Result<String, AppError> {
    let id = session
        .get::<String>(SESSION_REALM)
        .await
        .map_err(session_failed)?;
    let name = match id {
        Some(id) => {
            core.realm_name(&authz::realms::RealmId::from_stored(id))
                .await?
        }
        None => None,
    };
    Ok(name.map_or_else(
        || authz::realms::DEFAULT_REALM.to_owned(),
        |n| n.to_string(),
    ))
}

/// Remembers the selected realm (by id).
///
/// # Errors
/// `Internal` when the session store fails.
/// Session key of the realm the console switched away from (its name, and whether a `/go`
/// link did it), shown once.
pub const SWITCHED_FROM: &str = "portcullis.switched_from";

/// Remembers, for the next page only, that the console switched away from `from` (`by_link`: a
/// `/go` link did it, not the realm switcher).
///
/// # Errors
/// `Internal` if the session store fails.
pub async fn note_switch(session: &Session, from: &str, by_link: bool) -> Result<(), AppError> {
    session
        .insert(SWITCHED_FROM, (from, by_link))
        .await
        .map_err(session_failed)
}

pub async fn select_realm(session: &Session, realm: &authz::realms::Realm) -> Result<(), AppError> {
    session
        .insert(SESSION_REALM, realm.id.as_str())
        .await
        .map_err(session_failed)
}

/// The page of a list screen its request names by `after` and `before` (the keys its links
/// carry; empty for the first page).
pub fn key_page(after: &str, before: &str) -> authz::paging::Page {
    authz::paging::Page::from_params(after, before, crate::types::PAGE_SIZE)
}

/// A page of the core's rows as the console shows it, each row through `view`.
pub fn keyed<T, U>(
    found: &authz::paging::Paged<T>,
    view: impl FnMut(&T) -> U,
) -> crate::types::KeyedPage<U> {
    crate::types::KeyedPage {
        items: found.items.iter().map(view).collect(),
        total: found.total,
        before: found.before,
        prev: found.prev.clone(),
        next: found.next.clone(),
    }
}

/// `t` as the console shows it, relative to `now`.
pub fn moment(now: i64, t: i64) -> Moment {
    Moment {
        at: authz::clock::rfc3339(t),
        ago: authz::clock::ago(now, t),
    }
}

/// Rejects input that failed parsing in a server function (HTTP 422).
pub fn invalid(msg: &str) -> AppError {
    set_status(axum::http::StatusCode::UNPROCESSABLE_ENTITY);
    AppError::Invalid(msg.to_owned())
}

/// A console-side check that failed on one field (422), e.g. a password confirmation.
pub fn field_error(field: &str, msg: &str) -> AppError {
    set_status(axum::http::StatusCode::UNPROCESSABLE_ENTITY);
    AppError::Field {
        field: field.to_owned(),
        message: msg.to_owned(),
    }
}

/// The password and its confirmation agree, else a message on the confirmation.
///
/// # Errors
/// `Field` on `confirm`.
pub fn confirmed(password: &str, confirm: &str) -> Result<(), AppError> {
    if password == confirm {
        Ok(())
    } else {
        Err(field_error("confirm", "The two passwords do not match."))
    }
}

/// Core, principal, request facts and the realm selected in the console.
///
/// # Errors
/// `Unauthenticated` without a session; `Internal` when the session store fails.
pub async fn realm_context() -> Result<(Core, Principal, RequestMeta, String), AppError> {
    let (core, p, meta) = context().await?;
    let realm = tab_realm(&core).await?;
    Ok((core, p, meta, realm))
}

/// The realm selected in this session, provided the calling tab shows it.
///
/// A call from a tab still showing a realm another tab switched away from is refused (409),
/// never carried out in the other realm (see [`crate::tab`]).
///
/// # Errors
/// `Conflict` when the tab shows another realm; `Internal` when the session store fails.
pub async fn tab_realm(core: &Core) -> Result<String, AppError> {
    let session = session().await?;
    let realm = selected_realm(core, &session).await?;
    let headers = leptos_axum::extract::<axum::http::HeaderMap>()
        .await
        .map_err(|_| AppError::Internal)?;
    let Some(tab) = headers.get(crate::tab::REALM_HEADER) else {
        return Ok(realm);
    };
    // "<id> <name>": the id decides (a realm renamed, or another given the old name, is not the
    // tab's); a session that never switched has no id and is the default realm, by name.
    let (tab_id, tab_name) = tab
        .to_str()
        .ok()
        .and_then(|v| v.split_once(' '))
        .unwrap_or(("", "\u{fffd}"));
    let stored = session
        .get::<String>(SESSION_REALM)
        .await
        .map_err(session_failed)?;
    let same = match stored {
        Some(id) => id == tab_id,
        None => tab_name == realm,
    };
    if let Some(message) = crate::tab::tab_mismatch(tab_name, &realm, same) {
        set_status(axum::http::StatusCode::CONFLICT);
        return Err(AppError::Conflict(message));
    }
    Ok(realm)
}
