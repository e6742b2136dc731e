//! `GET` and `POST /realms/{realm}/authorize` and `/realms/{realm}/account`: the
//! authorization endpoint's pages and a person's account page.
//!
//! The sealed request on every authorization page is bound to the hash of the browser cookie,
//! which makes a copied page useless elsewhere; the forms are checked by [`PageForm`].
use super::Meta;
use super::page::{
    AccountForm, BROWSER_COOKIE, CONNECT_NEXT_COOKIE, LOGIN_COOKIE, MAX_PARAMETERS, MAX_QUERY,
    PageForm, SignInForm, UPSTREAM_COOKIE, browser_of, callback_of, cookie, cookie_up_to,
    error_page, is_connect_path, page, set_cookie,
};
use crate::AppState;
use authz::authorize::{AuthorizeParams, AuthorizeStep};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Counts a step and logs a refusal (an error page, or an error sent back to the client).
fn record(realm: &str, client: Option<&str>, step: &Result<AuthorizeStep, authz::Error>) {
    use super::{Endpoint, answered, refused};
    let refuse =
        |code: &str, reason: &str| refused(Endpoint::Authorize, realm, client, code, reason);
    match step {
        Ok(AuthorizeStep::Redirect(_)) => answered(Endpoint::Authorize, "ok"),
        Ok(AuthorizeStep::Refused {
            error, description, ..
        }) => refuse(error, description),
        Ok(
            AuthorizeStep::Login(_)
            | AuthorizeStep::Link(_)
            | AuthorizeStep::Consent(_)
            | AuthorizeStep::DeviceEntry(_)
            | AuthorizeStep::DeviceDone(_),
        ) => {
            answered(Endpoint::Authorize, "interaction");
        }
        Ok(AuthorizeStep::AwaitingReview(p)) => refused(
            Endpoint::Authorize,
            realm,
            Some(&p.client_id),
            "unauthorized_client",
            "the client awaits a security review",
        ),
        Err(authz::Error::NotFound { .. }) => {
            refuse("invalid_request", "unknown or disabled realm")
        }
        Err(authz::Error::OAuth(e)) => refuse(e.code.as_str(), &e.description),
        Err(authz::Error::Throttled { .. }) => refuse("temporarily_unavailable", "throttled"),
        Err(authz::Error::InvalidCredentials) => refuse("access_denied", "sign-in failed"),
        Err(_) => refuse("server_error", "the server failed"),
    }
}

/// Renders a step, or the error page for an error that may not go back to the client.
fn render(realm: &str, step: Result<AuthorizeStep, authz::Error>, post: bool) -> Response {
    render_for(realm, None, step, post)
}

/// [`render`], naming the client the request named (for the refusal log line).
fn render_for(
    realm: &str,
    client: Option<&str>,
    step: Result<AuthorizeStep, authz::Error>,
    post: bool,
) -> Response {
    record(realm, client, &step);
    let action = format!("/realms/{realm}/authorize");
    match step {
        Ok(AuthorizeStep::Redirect(location) | AuthorizeStep::Refused { location, .. }) => {
            let status = if post {
                StatusCode::SEE_OTHER
            } else {
                StatusCode::FOUND
            };
            let mut res = status.into_response();
            match HeaderValue::from_str(&location) {
                Ok(v) => {
                    res.headers_mut().insert(header::LOCATION, v);
                }
                Err(_) => {
                    return error_page(
                        realm,
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "The answer could not be sent back to the application.",
                    );
                }
            }
            res.headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            res
        }
        Ok(AuthorizeStep::Login(p)) => page(
            StatusCode::OK,
            app::pages::authorize::login_html(&p, &action),
        ),
        Ok(AuthorizeStep::Consent(p)) => page(
            StatusCode::OK,
            app::pages::authorize::consent_html(&p, &action),
        ),
        Ok(AuthorizeStep::Link(p)) => page(
            if p.error.is_some() {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::OK
            },
            app::pages::authorize::link_html(&p, &action),
        ),
        Ok(AuthorizeStep::AwaitingReview(p)) => page(
            StatusCode::BAD_REQUEST,
            app::pages::authorize::awaiting_review_html(&p),
        ),
        Ok(AuthorizeStep::DeviceEntry(p)) => page(
            if p.error.is_some() {
                StatusCode::BAD_REQUEST
            } else {
                StatusCode::OK
            },
            app::pages::authorize::device_entry_html(&p, &format!("/realms/{realm}/device")),
        ),
        Ok(AuthorizeStep::DeviceDone(p)) => {
            page(StatusCode::OK, app::pages::authorize::device_done_html(&p))
        }
        Err(authz::Error::NotFound { .. }) => error_page(
            realm,
            StatusCode::NOT_FOUND,
            "There is no such realm, or it is disabled.",
        ),
        Err(authz::Error::OAuth(e)) => error_page(realm, StatusCode::BAD_REQUEST, &e.description),
        Err(e) => {
            tracing::error!(error = %e, "Authorization request failed");
            error_page(
                realm,
                StatusCode::SERVICE_UNAVAILABLE,
                "Something went wrong on our side. Try again in a moment.",
            )
        }
    }
}

/// Decodes the query; names that repeat are listed (an error the core reports).
fn parse_query(query: &str) -> Result<AuthorizeParams, &'static str> {
    if query.len() > MAX_QUERY {
        return Err("The request is too long.");
    }
    let mut p = AuthorizeParams::default();
    let mut count = 0;
    for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
        count += 1;
        if count > MAX_PARAMETERS {
            return Err("The request has too many parameters.");
        }
        let v = v.into_owned();
        let slot = match k.as_ref() {
            "response_type" => &mut p.response_type,
            "client_id" => &mut p.client_id,
            "redirect_uri" => &mut p.redirect_uri,
            "scope" => &mut p.scope,
            "state" => &mut p.state,
            "code_challenge" => &mut p.code_challenge,
            "code_challenge_method" => &mut p.code_challenge_method,
            "prompt" => &mut p.prompt,
            "nonce" => &mut p.nonce,
            "resource" => {
                p.resource.push(v);
                continue;
            }
            _ => continue,
        };
        if slot.is_some() {
            p.repeated.push(k.into_owned());
        } else {
            *slot = Some(v);
        }
    }
    Ok(p)
}

/// Sets a new browser-binding cookie on `res` (`fresh`: the browser had none).
pub(super) fn keep_browser(
    mut res: Response,
    state: &AppState,
    realm: &str,
    browser: &str,
    fresh: bool,
) -> Response {
    if fresh {
        set_cookie(
            &mut res,
            BROWSER_COOKIE,
            browser,
            realm,
            None,
            state.config.is_https(),
        );
    }
    res
}

/// `GET /realms/{realm}/authorize`.
pub async fn get(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    Meta(meta): Meta,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let Ok(realm_name) = authz::realms::RealmName::parse(&realm) else {
        return error_page(&realm, StatusCode::NOT_FOUND, "There is no such realm.");
    };
    let realm = realm_name.to_string();
    let params = match parse_query(query.as_deref().unwrap_or_default()) {
        Ok(p) => p,
        Err(m) => return error_page(&realm, StatusCode::BAD_REQUEST, m),
    };
    let (browser, fresh) = browser_of(&headers, state.config.is_https());
    let session = cookie(&headers, LOGIN_COOKIE, state.config.is_https());
    let step = state
        .core
        .authorize(&realm, &params, &browser, session, &meta)
        .await;
    let res = render_for(&realm, params.client_id.as_deref(), step, false);
    keep_browser(res, &state, &realm, &browser, fresh)
}

/// `POST /realms/{realm}/authorize`: the sign-in and consent forms.
pub async fn post(
    State(state): State<AppState>,
    Meta(meta): Meta,
    form: PageForm<SignInForm>,
) -> Response {
    let realm = &form.realm;
    let field = |name| form.fields.get(name);
    let ticket = field("ticket").unwrap_or_default();
    match field("step") {
        Some("login") => {
            let result = state
                .core
                .authorize_sign_in(
                    realm,
                    ticket,
                    &form.browser,
                    field("email").unwrap_or_default(),
                    field("password").unwrap_or_default(),
                    &meta,
                )
                .await;
            signed_in(&state, realm, result, true)
        }
        Some("link") => {
            let result = state
                .core
                .authorize_link(
                    realm,
                    field("link").unwrap_or_default(),
                    &form.browser,
                    field("password").unwrap_or_default(),
                    &meta,
                )
                .await;
            signed_in(&state, realm, result, true)
        }
        Some("upstream") => {
            let started = state
                .core
                .authorize_upstream(
                    realm,
                    ticket,
                    &form.browser,
                    field("provider").unwrap_or_default(),
                )
                .await;
            match started {
                Ok(authz::authorize::UpstreamStart::Redirect { url, pending }) => {
                    let mut res = render(realm, Ok(AuthorizeStep::Redirect(url)), true);
                    set_cookie(
                        &mut res,
                        UPSTREAM_COOKIE,
                        &pending,
                        realm,
                        Some(authz::sso::SIGN_IN_TTL_SECS),
                        state.config.is_https(),
                    );
                    res
                }
                Ok(authz::authorize::UpstreamStart::Page(step)) => render(realm, Ok(*step), true),
                Err(e) => render(realm, Err(e), true),
            }
        }
        Some("consent") => {
            let approve = field("decision") == Some("approve");
            let step = state
                .core
                .authorize_decide(
                    realm,
                    ticket,
                    &form.browser,
                    form.session.as_deref(),
                    approve,
                    &meta,
                )
                .await;
            render(realm, step, true)
        }
        _ => error_page(realm, StatusCode::BAD_REQUEST, "The form is incomplete."),
    }
}

/// Renders a sign-in's outcome, starting the sign-in session it made.
fn signed_in(
    state: &AppState,
    realm: &str,
    result: Result<(AuthorizeStep, Option<authz::authorize::NewLoginSession>), authz::Error>,
    post: bool,
) -> Response {
    match result {
        Ok((step, session)) => {
            let mut res = render(realm, Ok(step), post);
            if let Some(s) = session {
                set_cookie(
                    &mut res,
                    LOGIN_COOKIE,
                    &s.0,
                    realm,
                    Some(authz::authorize::LOGIN_SESSION_TTL_SECS),
                    state.config.is_https(),
                );
            }
            res
        }
        Err(e) => render(realm, Err(e), post),
    }
}

/// `GET /realms/{realm}/upstream/{provider}/callback`: a realm provider sends the browser back
/// here; the sign-in under way (its cookie, which is cleared) continues the authorization.
pub async fn upstream_callback(
    State(state): State<AppState>,
    Path((realm, provider)): Path<(String, String)>,
    Meta(meta): Meta,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let Ok(realm_name) = authz::realms::RealmName::parse(&realm) else {
        return error_page(&realm, StatusCode::NOT_FOUND, "There is no such realm.");
    };
    let realm = realm_name.to_string();
    let Some(callback) = callback_of(query) else {
        return error_page(&realm, StatusCode::BAD_REQUEST, "The request is too long.");
    };
    let secure = state.config.is_https();
    let (browser, _) = browser_of(&headers, secure);
    let pending = cookie_up_to(&headers, UPSTREAM_COOKIE, secure, 8 * 1024);
    let result = state
        .core
        .finish_upstream(&realm, &provider, pending, &callback, &browser, &meta)
        .await;
    let mut res = signed_in(&state, &realm, result, false);
    // One callback per sign-in: whatever happened, the pending sign-in is gone.
    set_cookie(&mut res, UPSTREAM_COOKIE, "", &realm, Some(0), secure);
    res
}

/// `GET /realms/{realm}/device`: the device verification page (RFC 8628 §3.3), with the
/// code filled in when the link carried it (`verification_uri_complete`).
pub async fn device_get(
    State(state): State<AppState>,
    Path(realm): Path<String>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let Ok(realm_name) = authz::realms::RealmName::parse(&realm) else {
        return error_page(&realm, StatusCode::NOT_FOUND, "There is no such realm.");
    };
    let realm = realm_name.to_string();
    let query = query.unwrap_or_default();
    if query.len() > MAX_QUERY {
        return error_page(&realm, StatusCode::BAD_REQUEST, "The request is too long.");
    }
    let user_code = url::form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == "user_code")
        .map(|(_, v)| v.into_owned());
    let (browser, fresh) = browser_of(&headers, state.config.is_https());
    let session = cookie(&headers, LOGIN_COOKIE, state.config.is_https());
    let step = state
        .core
        .device_page(&realm, &browser, session, user_code.as_deref())
        .await;
    let res = render(&realm, step, false);
    keep_browser(res, &state, &realm, &browser, fresh)
}

/// `POST /realms/{realm}/device`: the typed code; on to sign-in or the consent page.
pub async fn device_post(
    State(state): State<AppState>,
    Meta(meta): Meta,
    form: PageForm<AccountForm>,
) -> Response {
    let step = state
        .core
        .device_enter(
            &form.realm,
            &form.browser,
            form.session.as_deref(),
            form.fields.get("user_code").unwrap_or_default(),
            &meta,
        )
        .await;
    render(&form.realm, step, true)
}

fn account_apps(
    now: i64,
    apps: &[authz::authorize::ConnectedApp],
) -> Vec<app::pages::authorize::AccountApp> {
    apps.iter()
        .map(|a| app::pages::authorize::AccountApp {
            id: a.consent.id.to_string(),
            client_name: a.client_name.clone(),
            client_id: a.client_id.clone(),
            resource_name: a.resource_name.clone(),
            resource_uri: a.resource_uri.clone(),
            scopes: a
                .consent
                .scopes
                .iter()
                .map(|s| {
                    if s == "offline_access" {
                        "Stay connected".to_owned()
                    } else {
                        authz::authorize::describe_scope(s)
                    }
                })
                .collect(),
            since: authz::clock::ago(now, a.consent.updated_at),
        })
        .collect()
}

fn account_servers(
    now: i64,
    servers: &[authz::gateway::ConnectionView],
) -> Vec<app::pages::authorize::AccountServer> {
    servers
        .iter()
        .map(|c| app::pages::authorize::AccountServer {
            id: c.server_id.clone(),
            title: c.title.clone(),
            issuer: c.issuer.clone(),
            since: authz::clock::ago(now, c.connected_at),
        })
        .collect()
}

/// Answers an account request: the page the core built (its sign-in form, or the person's
/// apps), or after a change a 303 to the page (post/redirect/get) with the sign-in cookie.
fn account_page(
    state: &AppState,
    realm: &str,
    step: Result<authz::authorize::AccountStep, authz::Error>,
) -> Response {
    use authz::authorize::{
        AccountNotice, AccountSignInError, AccountStep, AccountView, SessionCookie,
    };
    let page_of = match step {
        Ok(AccountStep::Page(p)) => p,
        Ok(AccountStep::Done { done, cookie }) => {
            let mut to = format!("/realms/{realm}/account");
            if let Some(d) = done.as_str() {
                to.push_str("?done=");
                to.push_str(d);
            }
            let mut res = StatusCode::SEE_OTHER.into_response();
            let h = res.headers_mut();
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            if let Ok(v) = HeaderValue::from_str(&to) {
                h.insert(header::LOCATION, v);
            }
            let secure = state.config.is_https();
            match &cookie {
                SessionCookie::Keep => {}
                SessionCookie::Set(s) => set_cookie(
                    &mut res,
                    LOGIN_COOKIE,
                    &s.0,
                    realm,
                    Some(authz::authorize::LOGIN_SESSION_TTL_SECS),
                    secure,
                ),
                SessionCookie::Clear => {
                    set_cookie(&mut res, LOGIN_COOKIE, "", realm, Some(0), secure);
                }
            }
            return res;
        }
        Ok(AccountStep::Upstream { url, pending }) => {
            let mut res = render(
                realm,
                Ok(authz::authorize::AuthorizeStep::Redirect(url)),
                true,
            );
            set_cookie(
                &mut res,
                UPSTREAM_COOKIE,
                &pending,
                realm,
                Some(authz::sso::SIGN_IN_TTL_SECS),
                state.config.is_https(),
            );
            return res;
        }
        Err(e) => return render(realm, Err(e), true),
    };
    let action = format!("/realms/{realm}/account");
    let html = match page_of.view {
        AccountView::Apps {
            subject,
            apps,
            servers,
            notice,
        } => {
            let notice = notice.map(|n| match n {
                AccountNotice::Disconnected { horizon_secs } => format!(
                    "Disconnected: the app's refresh tokens stopped working, and services that check with Portcullis refuse its access tokens now. {}",
                    authz::tokens::local_verification_note(horizon_secs)
                ),
                AccountNotice::AlreadyDisconnected => {
                    "That app was already disconnected.".to_owned()
                }
                AccountNotice::ServerDisconnected => {
                    "Disconnected: the gateway forgot your tokens for that server. To end its access entirely, also remove Portcullis at the server's own account settings.".to_owned()
                }
            });
            app::pages::authorize::account_html(
                &page_of.realm,
                &action,
                &page_of.form_token,
                (&subject.display_name, &subject.email),
                &account_apps(state.core.now(), &apps),
                &account_servers(state.core.now(), &servers),
                notice.as_deref(),
            )
        }
        AccountView::SignIn {
            error,
            email,
            providers,
            password,
        } => app::pages::authorize::account_login_html(
            &page_of.realm,
            &action,
            &page_of.form_token,
            error.map(|e| match e {
                AccountSignInError::WrongPassword => "That email and password do not match.",
                AccountSignInError::Throttled => "Too many attempts. Try again later.",
                AccountSignInError::ProviderUnreachable => {
                    "The sign-in provider cannot be reached right now. Try again in a moment."
                }
            }),
            &email,
            (&providers, password),
        ),
    };
    page(StatusCode::OK, html)
}

/// `GET /realms/{realm}/account`: a person's connected apps (after signing in).
pub async fn account_get(
    State(state): State<AppState>,
    Meta(meta): Meta,
    Path(realm): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Response {
    let Ok(realm_name) = authz::realms::RealmName::parse(&realm) else {
        return error_page(&realm, StatusCode::NOT_FOUND, "There is no such realm.");
    };
    let realm = realm_name.to_string();
    let (browser, fresh) = browser_of(&headers, state.config.is_https());
    let step = state
        .core
        .account(
            &realm,
            &browser,
            cookie(&headers, LOGIN_COOKIE, state.config.is_https()),
            authz::authorize::AccountAction::Show(
                url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
                    .find(|(k, _)| k == "done")
                    .and_then(|(_, v)| authz::authorize::AccountDone::parse(&v)),
            ),
            &meta,
        )
        .await;
    // Signed in after following a connect link: back to it (once).
    let secure = state.config.is_https();
    if let Ok(authz::authorize::AccountStep::Page(page)) = &step
        && matches!(page.view, authz::authorize::AccountView::Apps { .. })
        && let Some(next) = cookie(&headers, CONNECT_NEXT_COOKIE, secure)
            .map(|v| v.replace("%2F", "/"))
            .filter(|v| is_connect_path(&realm, v))
    {
        let mut res = StatusCode::SEE_OTHER.into_response();
        if let Ok(v) = HeaderValue::from_str(&next) {
            res.headers_mut().insert(header::LOCATION, v);
        }
        set_cookie(&mut res, CONNECT_NEXT_COOKIE, "", &realm, Some(0), secure);
        return keep_browser(res, &state, &realm, &browser, fresh);
    }
    let res = account_page(&state, &realm, step);
    keep_browser(res, &state, &realm, &browser, fresh)
}

/// `POST /realms/{realm}/account`: sign in, disconnect an app, sign out.
pub async fn account_post(
    State(state): State<AppState>,
    Meta(meta): Meta,
    form: PageForm<AccountForm>,
) -> Response {
    use authz::authorize::AccountAction;
    let field = |name| form.fields.get(name).unwrap_or_default().to_owned();
    let action = match form.fields.get("step") {
        Some("login") => AccountAction::SignIn {
            email: field("email"),
            password: field("password"),
        },
        Some("revoke") => AccountAction::Disconnect(field("consent")),
        Some("disconnect-server") => AccountAction::DisconnectServer(field("server")),
        Some("logout") => AccountAction::SignOut,
        Some("upstream") => AccountAction::Upstream(field("provider")),
        _ => {
            return error_page(
                &form.realm,
                StatusCode::BAD_REQUEST,
                "The form is incomplete.",
            );
        }
    };
    let step = state
        .core
        .account(
            &form.realm,
            &form.browser,
            form.session.as_deref(),
            action,
            &meta,
        )
        .await;
    account_page(&state, &form.realm, step)
}
