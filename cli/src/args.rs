//! Checked command-line values shared by the commands: the server URL, realm names, URLs, and
//! how a bad value is quoted back.
use crate::Failure;
use crate::http;
use url::Url;

/// The Portcullis base URL: https (http only to this machine), no query.
///
/// # Errors
/// What is wrong with it.
pub fn server_url(raw: &str) -> Result<Url, Failure> {
    let url = parse(raw.trim())?;
    http::check_url(&url).map_err(Failure::error)?;
    if url.query().is_some() {
        return Err(Failure::error(format!("{url}: no query in the server URL")));
    }
    Ok(url)
}

/// A URL.
///
/// # Errors
/// It does not parse.
pub fn parse(raw: &str) -> Result<Url, Failure> {
    Url::parse(raw).map_err(|e| Failure::error(format!("{}: not a URL ({e})", shown(raw))))
}

/// A realm name.
///
/// # Errors
/// It is not one.
pub fn realm(raw: &str) -> Result<&str, Failure> {
    let ok = !raw.is_empty()
        && raw.len() <= 64
        && raw.starts_with(|c: char| c.is_ascii_alphanumeric())
        && raw
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if ok {
        Ok(raw)
    } else {
        Err(Failure::error(format!(
            "{}: not a realm name (letters, digits, '-', '_', '.').",
            shown(raw)
        )))
    }
}

/// `s` quoted for a message: no control characters, at most 200 characters.
pub fn shown(s: &str) -> String {
    let mut out: String = s.chars().filter(|c| !c.is_control()).take(200).collect();
    if s.chars().count() > 200 {
        out.push('…');
    }
    format!("'{out}'")
}
