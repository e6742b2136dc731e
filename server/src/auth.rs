//! Sign-in and sign-out as plain form posts, so they work without JavaScript.
use crate::AppState;
use app::ssr::{ConsoleRequest, start_session};
use axum::Form;
use axum::extract::{Extension, State};
use axum::http::header;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use tower_sessions::Session;

/// The sign-in form.
#[derive(Deserialize)]
pub struct LoginForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    next: String,
}

/// Only same-site absolute paths are followed after sign-in (no open redirect). Only visible
/// ASCII is allowed: browsers drop tabs and newlines from a `Location`, so `/\t/evil.example`
/// would become `//evil.example`, another host.
fn safe_next(next: &str) -> &str {
    let ok = next.starts_with('/')
        && !next.starts_with("//")
        && !next.contains('\\')
        && next.bytes().all(|b| b.is_ascii_graphic())
        && !next.starts_with("/login");
    if ok { next } else { "/" }
}

use app::ssr::login::login_email_cookie;

fn back_to_login(error: &str, extra: &[(&str, String)], next: &str) -> Response {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    q.append_pair("error", error);
    for (k, v) in extra {
        q.append_pair(k, v);
    }
    if safe_next(next) != "/" {
        q.append_pair("next", next);
    }
    Redirect::to(&format!("/login?{}", q.finish())).into_response()
}

/// `POST /login`: verifies the credentials, rotates the session id and signs in.
pub async fn login(
    State(state): State<AppState>,
    Extension(req): Extension<ConsoleRequest>,
    session: Session,
    headers: header::HeaderMap,
    Form(form): Form<LoginForm>,
) -> Response {
    let had_email = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains(app::ssr::login::LOGIN_EMAIL_COOKIE));
    let secure = state.config.is_https();
    let keep_email = |mut res: Response| {
        if let Ok(v) = header::HeaderValue::from_str(&login_email_cookie(&form.email, secure)) {
            res.headers_mut().append(header::SET_COOKIE, v);
        }
        res
    };
    match state
        .core
        .login(&form.email, &form.password, &req.meta)
        .await
    {
        Ok(principal) => match start_session(&session, &principal, state.core.now()).await {
            Ok(()) => {
                let mut res = Redirect::to(safe_next(&form.next)).into_response();
                if had_email
                    && let Ok(v) = header::HeaderValue::from_str(&login_email_cookie("", secure))
                {
                    res.headers_mut().append(header::SET_COOKIE, v);
                }
                res
            }
            Err(_) => back_to_login("unavailable", &[], &form.next),
        },
        Err(authz::Error::Throttled { retry_after_secs }) => keep_email(back_to_login(
            "throttled",
            &[("retry", retry_after_secs.to_string())],
            &form.next,
        )),
        Err(authz::Error::InvalidCredentials) => {
            keep_email(back_to_login("invalid", &[], &form.next))
        }
        Err(e) => {
            tracing::error!(error = %e, "Sign-in failed");
            back_to_login("unavailable", &[], &form.next)
        }
    }
}

/// `POST /logout`: records the sign-out and destroys the session.
pub async fn logout(
    State(state): State<AppState>,
    Extension(req): Extension<ConsoleRequest>,
    session: Session,
) -> Response {
    if let Some(p) = &req.principal
        && let Err(e) = state.core.logout(p, &req.meta).await
    {
        tracing::error!(error = %e, "Failed to audit a sign-out");
    }
    if let Err(e) = session.flush().await {
        tracing::error!(error = %e, "Failed to destroy a session");
    }
    Redirect::to("/login").into_response()
}

#[cfg(test)]
mod tests {
    use super::safe_next;

    #[test]
    fn next_is_never_an_open_redirect() {
        assert_eq!(safe_next("/users?q=a"), "/users?q=a");
        for bad in [
            "",
            "https://evil.example",
            "//evil.example",
            "/\\evil",
            "users",
            "/login?x",
            "/\t/evil.example",
            "/\n/evil.example",
            "/\r//evil.example",
            "/ /evil.example",
            "/\u{a0}/evil.example",
        ] {
            assert_eq!(safe_next(bad), "/", "{bad}");
        }
    }
}
