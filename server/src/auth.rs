//! Sign-in and sign-out as plain form posts, so they work without JavaScript.
use crate::AppState;
use app::ssr::{ConsoleRequest, SESSION_SSO, start_session};
use axum::Form;
use axum::extract::{Extension, Path, Query, State};
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
        Ok(principal) => match signed_in(&state, &session, &principal, None, &form.next).await {
            Ok(mut res) => {
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
        Err(authz::Error::Forbidden) => back_to_login("password_off", &[], &form.next),
        Err(e) => {
            tracing::error!(error = %e, "Sign-in failed");
            back_to_login("unavailable", &[], &form.next)
        }
    }
}

/// A first factor passed: signs in, or, when a second factor is due, puts the sign-in on hold
/// and sends the browser to the second step.
async fn signed_in(
    state: &AppState,
    session: &Session,
    principal: &authz::Principal,
    sso: Option<authz::sso::SsoSession>,
    next: &str,
) -> Result<Response, app::error::AppError> {
    let proven = sso.as_ref().is_some_and(|s| s.second_factor);
    let step = state
        .core
        .second_factor_step(principal, proven, sso.clone())
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "Deciding the second sign-in step failed");
            app::error::AppError::Internal
        })?;
    match step {
        Some(mut pending) => {
            pending.next = safe_next(next).to_owned();
            app::ssr::second_factor::hold(session, &pending).await?;
            Ok(Redirect::to("/login/second-factor").into_response())
        }
        None => {
            start_session(session, principal, state.core.now()).await?;
            if let Some(sso) = &sso {
                session
                    .insert(SESSION_SSO, sso)
                    .await
                    .map_err(|_| app::error::AppError::Internal)?;
            }
            Ok(Redirect::to(safe_next(next)).into_response())
        }
    }
}

/// The second-step form.
#[derive(Deserialize)]
pub struct SecondFactorForm {
    #[serde(default)]
    code: String,
}

fn back_to_step(error: &str, extra: &[(&str, String)]) -> Response {
    let mut q = url::form_urlencoded::Serializer::new(String::new());
    q.append_pair("error", error);
    for (k, v) in extra {
        q.append_pair(k, v);
    }
    Redirect::to(&format!("/login/second-factor?{}", q.finish())).into_response()
}

/// `POST /login/second-factor`: checks the code of a sign-in on hold and signs in.
pub async fn second_factor(
    State(state): State<AppState>,
    Extension(req): Extension<ConsoleRequest>,
    session: Session,
    Form(form): Form<SecondFactorForm>,
) -> Response {
    use app::ssr::second_factor::{drop_held, held, release};
    let pending = match held(&session).await {
        Ok(Some(p)) if !p.enrol => p,
        Ok(Some(_)) => return Redirect::to("/login/second-factor").into_response(),
        Ok(None) => return back_to_login("expired", &[], ""),
        Err(_) => return back_to_step("unavailable", &[]),
    };
    match state
        .core
        .finish_second_factor(&pending, &form.code, &req.meta)
        .await
    {
        Ok((principal, _)) => {
            match release(&session, &pending, &principal, state.core.now()).await {
                Ok(()) => Redirect::to(safe_next(&pending.next)).into_response(),
                Err(_) => back_to_step("unavailable", &[]),
            }
        }
        Err(authz::Error::InvalidCredentials) => back_to_step(
            if authz::second_factor::TypedCode::parse(&form.code)
                == authz::second_factor::TypedCode::Invalid
            {
                "malformed"
            } else {
                "invalid"
            },
            &[],
        ),
        Err(authz::Error::Throttled { retry_after_secs }) => {
            back_to_step("throttled", &[("retry", retry_after_secs.to_string())])
        }
        Err(authz::Error::InvalidLink) => {
            let _ = drop_held(&session).await;
            back_to_login("expired", &[], &pending.next)
        }
        Err(e) => {
            tracing::error!(error = %e, "Checking a second factor failed");
            back_to_step("unavailable", &[])
        }
    }
}

/// `POST /login/second-factor/cancel`: drops the sign-in on hold ("Sign in as someone else").
pub async fn cancel_second_factor(session: Session) -> Response {
    let _ = app::ssr::second_factor::drop_held(&session).await;
    Redirect::to("/login").into_response()
}

/// The cookie that carries a started provider sign-in (sealed) to its callback.
const SSO_COOKIE: &str = "portcullis_sso";

fn sso_cookie_name(secure: bool) -> String {
    if secure {
        format!("__Host-{SSO_COOKIE}")
    } else {
        SSO_COOKIE.to_owned()
    }
}

/// `Set-Cookie` for the pending sign-in (or its removal when `value` is empty). `SameSite=Lax`:
/// the provider sends the browser back with a top-level GET, which carries it.
fn sso_cookie(value: &str, secure: bool) -> Option<header::HeaderValue> {
    let max_age = if value.is_empty() {
        0
    } else {
        authz::sso::SIGN_IN_TTL_SECS
    };
    header::HeaderValue::from_str(&format!(
        "{}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Lax{}",
        sso_cookie_name(secure),
        if secure { "; Secure" } else { "" }
    ))
    .ok()
}

fn cookie_value<'a>(headers: &'a header::HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// Where a sign-in goes afterwards.
#[derive(Deserialize)]
pub struct NextQuery {
    #[serde(default)]
    next: String,
}

/// `GET /login/sso/{id}`: starts a sign-in at a provider (a link on the sign-in page; a form
/// post could not follow the redirect under the `form-action 'self'` policy).
pub async fn sso_start(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(q): Query<NextQuery>,
) -> Response {
    let next = safe_next(&q.next);
    match state.core.start_sso_sign_in(&id, next).await {
        Ok(Ok((url, pending))) => {
            let Ok(sealed) = state.core.seal_sso_pending(&pending) else {
                return back_to_login("unavailable", &[], next);
            };
            let mut res = Redirect::to(&url).into_response();
            if let Some(v) = sso_cookie(&sealed, state.config.is_https()) {
                res.headers_mut().append(header::SET_COOKIE, v);
            }
            res
        }
        Ok(Err(refusal)) => back_to_login(refusal.code(), &[], next),
        Err(authz::Error::NotFound { .. }) => back_to_login("sso_unknown", &[], next),
        Err(e) => {
            tracing::error!(error = %e, "Starting a provider sign-in failed");
            back_to_login("unavailable", &[], next)
        }
    }
}

/// What a provider sends back.
#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    iss: Option<String>,
    error: Option<String>,
}

/// `GET /login/sso/{id}/callback`: finishes a provider sign-in and signs in.
pub async fn sso_callback(
    State(state): State<AppState>,
    Extension(req): Extension<ConsoleRequest>,
    session: Session,
    Path(id): Path<String>,
    headers: header::HeaderMap,
    Query(q): Query<CallbackQuery>,
) -> Response {
    let secure = state.config.is_https();
    let pending = cookie_value(&headers, &sso_cookie_name(secure))
        .and_then(|c| state.core.open_sso_pending(c));
    let next = pending
        .as_ref()
        .map_or_else(String::new, |p| p.next.clone());
    let callback = authz::sso::SsoCallback {
        code: q.code,
        state: q.state,
        iss: q.iss,
        error: q.error,
    };
    let mut res = match state
        .core
        .finish_sso_sign_in(&id, pending, &callback, req.principal.as_ref(), &req.meta)
        .await
    {
        Ok(Ok((principal, sso))) => {
            match signed_in(&state, &session, &principal, Some(sso), &next).await {
                Ok(res) => res,
                Err(_) => back_to_login("unavailable", &[], &next),
            }
        }
        Ok(Err(refusal)) => back_to_login(refusal.code(), &[], &next),
        Err(e) => {
            tracing::error!(error = %e, "Finishing a provider sign-in failed");
            back_to_login("unavailable", &[], &next)
        }
    };
    if let Some(v) = sso_cookie("", secure) {
        res.headers_mut().append(header::SET_COOKIE, v);
    }
    res
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
    // A session a provider started also ends at the provider, when it offers that.
    let sso = session
        .get::<authz::sso::SsoSession>(SESSION_SSO)
        .await
        .ok()
        .flatten();
    if let Err(e) = session.flush().await {
        tracing::error!(error = %e, "Failed to destroy a session");
    }
    let at_provider = match &sso {
        Some(s) if req.principal.is_some() => state.core.sso_logout_url(s).await,
        _ => None,
    };
    match at_provider {
        // A page that moves on by itself: a redirect answering the sign-out form could not
        // leave the site under the `form-action 'self'` policy.
        Some(url) => {
            let url = app::pages::authorize::html_escape(&url);
            axum::response::Html(format!(
                "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url={url}\"><title>Signing out</title></head><body><p>Signing you out at your identity provider… <a href=\"{url}\">Continue</a></p></body></html>"
            ))
            .into_response()
        }
        None => Redirect::to("/login").into_response(),
    }
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
