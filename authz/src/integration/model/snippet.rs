//! What the server snippets share: their input, and literals and comments safe in any of their
//! languages.
use super::protection::AuthorizationServer;

pub(super) fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// What a server snippet is generated from.
pub(super) struct Snippet<'a> {
    pub(super) server: &'a AuthorizationServer,
    pub(super) resource: &'a str,
    pub(super) scopes: &'a [String],
    pub(super) name: &'a str,
    /// The exact `WWW-Authenticate` value for a request without a token.
    pub(super) challenge: String,
}

/// A JSON string literal (valid in TypeScript and Python alike).
pub(super) fn lit(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

pub(super) fn lit_list(items: &[String]) -> String {
    serde_json::Value::from(items.to_vec()).to_string()
}

/// Text safe inside a one-line comment of any of the snippet languages: no line breaks (nor
/// JavaScript's U+2028/U+2029) or other control characters.
pub(super) fn comment_text(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// The port the snippet listens on by default: the one the server's URL names, else 8080
/// (behind the proxy that terminates TLS for the public URL).
pub(super) fn listen_port(resource: &str) -> u16 {
    url::Url::parse(resource)
        .ok()
        .and_then(|u| u.port())
        .unwrap_or(8080)
}
