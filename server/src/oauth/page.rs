//! The HTML pages of a realm (authorization and account): their cookies, the one way a page is
//! sent ([`page`]), the one error page ([`error_page`]), and the one extractor every form they
//! post goes through ([`PageForm`]), which holds the CSRF checks.
//!
//! Two cookies, both scoped to the realm's path and apart from the console's session: a
//! browser binding (random; what each form is bound to) and the sign-in session.
use crate::AppState;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use std::marker::PhantomData;

/// The browser-binding cookie (over plain http, in development).
pub const BROWSER_COOKIE: &str = "portcullis_authz";
/// The sign-in session cookie (over plain http, in development).
pub const LOGIN_COOKIE: &str = "portcullis_login";
/// A sign-in under way at one of the realm's providers (sealed; over plain http).
pub const UPSTREAM_COOKIE: &str = "portcullis_upstream";
/// A connection of a person's upstream account under way (sealed; over plain http).
pub const CONNECT_COOKIE: &str = "portcullis_gateway_connect";
/// The connect link to go back to once signed in on the account page (over plain http).
pub const CONNECT_NEXT_COOKIE: &str = "portcullis_connect_next";

/// A cookie's name as sent: on https with the `__Secure-` prefix (the strongest a cookie scoped
/// to the realm's path may carry; `__Host-` requires `Path=/`), so no plain-http page or
/// sibling host can set it.
fn cookie_name(name: &'static str, secure: bool) -> &'static str {
    match (secure, name) {
        (true, BROWSER_COOKIE) => "__Secure-portcullis_authz",
        (true, LOGIN_COOKIE) => "__Secure-portcullis_login",
        (true, UPSTREAM_COOKIE) => "__Secure-portcullis_upstream",
        (true, CONNECT_COOKIE) => "__Secure-portcullis_gateway_connect",
        (true, CONNECT_NEXT_COOKIE) => "__Secure-portcullis_connect_next",
        _ => name,
    }
}
/// Whether `path` is a connect link of `realm` (where the account page may send a person
/// back once signed in): `/realms/{realm}/gateway/connect/{server}`, a plain server id.
pub(super) fn is_connect_path(realm: &str, path: &str) -> bool {
    path.strip_prefix(&format!("/realms/{realm}/gateway/connect/"))
        .is_some_and(|id| {
            !id.is_empty()
                && id.len() <= 64
                && id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        })
}

/// The query of an authorization server's answer coming back to one of the realm's callbacks
/// (`code`, `state`, `iss`, `error`; the first of each); `None` when it is too long.
pub(super) fn callback_of(query: Option<String>) -> Option<authz::sso::SsoCallback> {
    let query = query.unwrap_or_default();
    if query.len() > MAX_QUERY {
        return None;
    }
    let mut callback = authz::sso::SsoCallback::default();
    for (k, v) in url::form_urlencoded::parse(query.as_bytes()).take(MAX_PARAMETERS) {
        let slot = match k.as_ref() {
            "code" => &mut callback.code,
            "state" => &mut callback.state,
            "iss" => &mut callback.iss,
            "error" => &mut callback.error,
            _ => continue,
        };
        slot.get_or_insert_with(|| v.into_owned());
    }
    Some(callback)
}

/// Most parameters an authorization request (or a page's form) may carry.
pub(super) const MAX_PARAMETERS: usize = 64;
/// Longest query string accepted.
pub(super) const MAX_QUERY: usize = 16 * 1024;

/// Pages may show a client's logo (any https image) and must not be framed; no `form-action`,
/// as browsers apply it to the redirect that follows a form post (to the client's URI).
const PAGE_CSP: &str = "default-src 'self'; script-src 'unsafe-inline'; style-src 'self'; img-src 'self' data: https:; frame-ancestors 'none'; base-uri 'none'";

pub(super) fn cookie<'a>(
    headers: &'a HeaderMap,
    name: &'static str,
    secure: bool,
) -> Option<&'a str> {
    cookie_up_to(headers, name, secure, 128)
}

/// [`cookie`], for a value up to `max` bytes long.
pub(super) fn cookie_up_to<'a>(
    headers: &'a HeaderMap,
    name: &'static str,
    secure: bool,
    max: usize,
) -> Option<&'a str> {
    let name = cookie_name(name, secure);
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, v)| *k == name && !v.is_empty() && v.len() <= max)
        .map(|(_, v)| v)
}

/// This browser's binding cookie, or a new one to set (`true`).
pub(super) fn browser_of(headers: &HeaderMap, secure: bool) -> (String, bool) {
    match cookie(headers, BROWSER_COOKIE, secure) {
        Some(b) => (b.to_owned(), false),
        None => (
            authz::secret::PlainToken::generate().expose().to_owned(),
            true,
        ),
    }
}

pub(super) fn set_cookie(
    res: &mut Response,
    name: &'static str,
    value: &str,
    realm: &str,
    max_age: Option<i64>,
    secure: bool,
) {
    let age = max_age
        .map(|a| format!("; Max-Age={a}"))
        .unwrap_or_default();
    let name = cookie_name(name, secure);
    let secure = if secure { "; Secure" } else { "" };
    // The realm segment is a parsed slug here, so the path is always a valid cookie path.
    let v = format!("{name}={value}; Path=/realms/{realm}/; HttpOnly; SameSite=Lax{age}{secure}");
    if let Ok(v) = HeaderValue::from_str(&v) {
        res.headers_mut().append(header::SET_COOKIE, v);
    }
}

pub(super) fn page(status: StatusCode, html: String) -> Response {
    let mut res = (status, Html(html)).into_response();
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PAGE_CSP),
    );
    res
}

/// The one error page of a realm's HTML pages (authorization, account).
pub(super) fn error_page(realm: &str, status: StatusCode, message: &str) -> Response {
    let shown = authz::realms::RealmName::parse(realm)
        .map_or_else(|_| "Portcullis".to_owned(), |r| r.to_string());
    page(
        status,
        app::pages::authorize::error_html(&shown, "This sign-in cannot continue", message),
    )
}

/// How a page's form is bound to the page that carried it, beyond coming from our origin.
pub(super) trait Binding {
    /// The error page's words when the form is not (or no longer) bound.
    const EXPIRED: &'static str;
    /// Whether the form's fields are bound to this browser and sign-in session.
    fn bound(core: &authz::Core, browser: &str, session: Option<&str>, form: &Fields) -> bool;
}

/// The sign-in and consent forms: the sealed request (`ticket`) they carry is bound to the
/// hash of the browser cookie, and the core opens it only for that browser.
pub(super) struct SignInForm;

impl Binding for SignInForm {
    const EXPIRED: &'static str = "This sign-in page has expired or was opened in another browser. Go back to the application and connect again.";

    fn bound(_: &authz::Core, _: &str, _: Option<&str>, _: &Fields) -> bool {
        true // checked when the core opens the ticket
    }
}

/// The account forms: their `csrf` token is an HMAC over the browser cookie and the session.
pub(super) struct AccountForm;

impl Binding for AccountForm {
    const EXPIRED: &'static str = "The form expired. Open your account page again.";

    fn bound(core: &authz::Core, browser: &str, session: Option<&str>, form: &Fields) -> bool {
        core.account_form_token_matches(browser, session, form.get("csrf").unwrap_or_default())
    }
}

/// A form's fields (at most [`MAX_PARAMETERS`]).
pub(super) struct Fields(Vec<(String, String)>);

impl Fields {
    fn parse(body: &str) -> Self {
        Self(
            url::form_urlencoded::parse(body.as_bytes())
                .take(MAX_PARAMETERS)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// The first value of `name`.
    pub(super) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A form posted from one of a realm's pages, checked: the realm name parses (the core then finds the realm), the browser
/// says the post comes from our own origin, it carries the browser-binding cookie, and the
/// form is bound to them ([`Binding`]). Anything else is the error page.
pub(super) struct PageForm<B> {
    /// The realm's name, parsed.
    pub realm: String,
    /// The form's fields.
    pub fields: Fields,
    /// The browser-binding cookie.
    pub browser: String,
    /// The sign-in session cookie, if any.
    pub session: Option<String>,
    binding: PhantomData<B>,
}

impl<B: Binding> FromRequest<AppState> for PageForm<B> {
    type Rejection = Response;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, Response> {
        let (mut parts, body) = req.into_parts();
        let Path(realm) = Path::<String>::from_request_parts(&mut parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let Ok(realm) = authz::realms::RealmName::parse(&realm).map(|r| r.to_string()) else {
            return Err(error_page(
                &realm,
                StatusCode::NOT_FOUND,
                "There is no such realm.",
            ));
        };
        let secure = state.config.is_https();
        let expired = || error_page(&realm, StatusCode::BAD_REQUEST, B::EXPIRED);
        // Without the binding cookie the post did not come from our page in this browser; our
        // pages post same-origin.
        let Some(browser) = cookie(&parts.headers, BROWSER_COOKIE, secure).map(str::to_owned)
        else {
            return Err(expired());
        };
        if !crate::http::same_origin(&parts.headers, &state.public_origin) {
            return Err(expired());
        }
        let session = cookie(&parts.headers, LOGIN_COOKIE, secure).map(str::to_owned);
        let body = String::from_request(Request::from_parts(parts, body), state)
            .await
            .map_err(IntoResponse::into_response)?;
        let fields = Fields::parse(&body);
        if !B::bound(&state.core, &browser, session.as_deref(), &fields) {
            return Err(expired());
        }
        Ok(Self {
            realm,
            fields,
            browser,
            session,
            binding: PhantomData,
        })
    }
}
