//! A person connects their own account at a gateway upstream with its own authorization server
//! (`auth.mode = oauth`): the connect link (`GET /realms/{realm}/gateway/connect/{server}`, a
//! page to confirm, posted to `/realms/{realm}/gateway/connect`), the authorization server's
//! callback (`GET /realms/{realm}/gateway/callback/{server}`) and the gateway's Client ID
//! Metadata Document for that server (`GET /realms/{realm}/gateway/client/{server}`). The
//! connection under way lives in a sealed cookie of the browser that started it.
use super::Meta;
use super::authorize::keep_browser;
use super::page::{
    AccountForm, CONNECT_COOKIE, CONNECT_NEXT_COOKIE, LOGIN_COOKIE, PageForm, browser_of,
    callback_of, cookie, cookie_up_to, error_page, is_connect_path, page, set_cookie,
};
use crate::AppState;
use authz::gateway::ConnectStart;
use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// How long the pending connection's cookie lives (the core refuses it after ten minutes too).
const PENDING_MAX_AGE: i64 = 600;

/// A core error as the page that says so.
fn failed(realm: &str, e: &authz::Error) -> Response {
    match e {
        authz::Error::NotFound { .. } => error_page(
            realm,
            StatusCode::NOT_FOUND,
            "There is no such realm, or it is disabled.",
        ),
        authz::Error::OAuth(e) => page(
            StatusCode::BAD_REQUEST,
            app::pages::authorize::error_html(
                realm,
                "Your account could not be connected",
                &e.description,
            ),
        ),
        e => {
            tracing::error!(error = %e, "Connecting an upstream account failed");
            error_page(
                realm,
                StatusCode::SERVICE_UNAVAILABLE,
                "Something went wrong on our side. Try again in a moment.",
            )
        }
    }
}

/// `GET /realms/{realm}/gateway/connect/{server}`: the page asking the person signed in at
/// the realm to confirm; else a page that says to sign in first. Nothing leaves Portcullis.
pub async fn page_get(
    State(state): State<AppState>,
    Path((realm, server)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let Ok(realm_name) = authz::realms::RealmName::parse(&realm) else {
        return error_page(&realm, StatusCode::NOT_FOUND, "There is no such realm.");
    };
    let realm = realm_name.to_string();
    let secure = state.config.is_https();
    let (browser, fresh) = browser_of(&headers, secure);
    let shown = state
        .core
        .gateway_connect_page(
            &realm,
            &server,
            cookie(&headers, LOGIN_COOKIE, secure),
            &browser,
        )
        .await;
    let res = match shown {
        Ok(ConnectStart::SignIn { account_url }) => {
            let mut res = page(
                StatusCode::UNAUTHORIZED,
                app::pages::authorize::connect_sign_in_html(&realm, &account_url),
            );
            // Once signed in there, the account page sends the person back here.
            let back = format!("/realms/{realm}/gateway/connect/{server}");
            if is_connect_path(&realm, &back) {
                set_cookie(
                    &mut res,
                    CONNECT_NEXT_COOKIE,
                    &back.replace('/', "%2F"),
                    &realm,
                    Some(PENDING_MAX_AGE),
                    secure,
                );
            }
            res
        }
        Ok(ConnectStart::Confirm(c)) => page(
            StatusCode::OK,
            app::pages::authorize::connect_confirm_html(
                &c,
                &format!("/realms/{realm}/gateway/connect"),
            ),
        ),
        Ok(ConnectStart::Redirect { .. }) => error_page(
            &realm,
            StatusCode::BAD_REQUEST,
            "Open the connect link again.",
        ),
        Err(e) => failed(&realm, &e),
    };
    keep_browser(res, &state, &realm, &browser, fresh)
}

/// `POST /realms/{realm}/gateway/connect`: the confirmed form (same origin, bound to this
/// browser and sign-in); to the server's authorization server.
pub async fn start(State(state): State<AppState>, form: PageForm<AccountForm>) -> Response {
    let secure = state.config.is_https();
    let realm = form.realm.clone();
    let server = form.fields.get("server").unwrap_or_default().to_owned();
    let started = state
        .core
        .start_gateway_connection(&realm, &server, form.session.as_deref(), &form.browser)
        .await;
    match started {
        Ok(ConnectStart::Redirect { location, pending }) => {
            let mut res = StatusCode::SEE_OTHER.into_response();
            if let Ok(v) = HeaderValue::from_str(&location) {
                res.headers_mut().insert(header::LOCATION, v);
            }
            res.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            set_cookie(
                &mut res,
                CONNECT_COOKIE,
                &pending,
                &realm,
                Some(PENDING_MAX_AGE),
                secure,
            );
            res
        }
        Ok(ConnectStart::SignIn { account_url }) => page(
            StatusCode::UNAUTHORIZED,
            app::pages::authorize::connect_sign_in_html(&realm, &account_url),
        ),
        Ok(ConnectStart::Confirm(_)) => error_page(
            &realm,
            StatusCode::BAD_REQUEST,
            "Open the connect link again.",
        ),
        Err(e) => failed(&realm, &e),
    }
}

/// `GET /realms/{realm}/gateway/callback/{server}`: the authorization server sends the browser
/// back; the connection under way (its cookie, which is cleared) is finished.
pub async fn callback(
    State(state): State<AppState>,
    Path((realm, server)): Path<(String, String)>,
    Meta(meta): Meta,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let Ok(realm_name) = authz::realms::RealmName::parse(&realm) else {
        return error_page(&realm, StatusCode::NOT_FOUND, "There is no such realm.");
    };
    let realm = realm_name.to_string();
    let Some(answer) = callback_of(query) else {
        return error_page(&realm, StatusCode::BAD_REQUEST, "The request is too long.");
    };
    let secure = state.config.is_https();
    let (browser, _) = browser_of(&headers, secure);
    let finished = state
        .core
        .finish_gateway_connection(
            &realm,
            &server,
            &authz::gateway::ConnectBrowser {
                session: cookie(&headers, LOGIN_COOKIE, secure),
                browser: &browser,
                pending: cookie_up_to(&headers, CONNECT_COOKIE, secure, 8 * 1024),
            },
            &answer,
            &meta,
        )
        .await;
    let mut res = match finished {
        Ok(done) => page(
            StatusCode::OK,
            app::pages::authorize::connected_html(&done.realm, &done.server),
        ),
        Err(e) => failed(&realm, &e),
    };
    // One callback per connection: whatever happened, the pending connection is gone.
    set_cookie(&mut res, CONNECT_COOKIE, "", &realm, Some(0), secure);
    res
}

/// `GET /realms/{realm}/gateway/client/{server}`: the gateway's Client ID Metadata Document
/// for one upstream (its URL is the client id at authorization servers that accept such
/// documents).
pub async fn client_metadata(
    State(state): State<AppState>,
    Path((realm, server)): Path<(String, String)>,
) -> Response {
    match state.core.gateway_client_metadata(&realm, &server).await {
        Ok(doc) => {
            let mut res = Json(doc).into_response();
            res.headers_mut().insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            );
            res
        }
        Err(authz::Error::NotFound { .. }) => StatusCode::NOT_FOUND.into_response(),
        Err(e) => {
            tracing::error!(error = %e, "The gateway's client metadata failed");
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
    }
}
