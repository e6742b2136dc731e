//! The sign-in page's memory of a failed sign-in's email (a short-lived cookie).
use authz::Core;
use leptos::prelude::*;

/// The cookie in which a failed sign-in hands the typed email back to the sign-in page.
pub const LOGIN_EMAIL_COOKIE: &str = "portcullis_login_email";

/// `Set-Cookie` for [`LOGIN_EMAIL_COOKIE`]: the email, or a removal when `email` is empty.
///
/// At most 254 bytes, hex-encoded so any character survives. Scoped to `/login`, five minutes,
/// HttpOnly, `SameSite=Strict`, `__Secure-` on https; not in the URL, where it would land in access logs and history.
pub fn login_email_cookie(email: &str, secure: bool) -> String {
    use std::fmt::Write;
    let email = email.trim();
    let email = &email[..email.floor_char_boundary(254)];
    let mut value = String::with_capacity(email.len() * 2);
    for b in email.bytes() {
        let _ = write!(value, "{b:02x}");
    }
    let max_age = if value.is_empty() { 0 } else { 300 };
    format!(
        "{}{LOGIN_EMAIL_COOKIE}={value}; Path=/login; Max-Age={max_age}; HttpOnly; SameSite=Strict{}",
        if secure { "__Secure-" } else { "" },
        if secure { "; Secure" } else { "" }
    )
}

/// The email a failed sign-in left in [`LOGIN_EMAIL_COOKIE`], when rendering the sign-in page.
pub fn login_email() -> Option<String> {
    let parts = use_context::<axum::http::request::Parts>()?;
    // Over https only the prefixed cookie, which no plain-http page or sibling host can set.
    let secure =
        use_context::<Core>().is_some_and(|c| c.config().public_url.starts_with("https://"));
    let name = if secure {
        format!("__Secure-{LOGIN_EMAIL_COOKIE}")
    } else {
        LOGIN_EMAIL_COOKIE.to_owned()
    };
    let hex = parts
        .headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == name)?
        .1;
    if hex.len() > 508 || hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok().filter(|e| !e.is_empty())
}
