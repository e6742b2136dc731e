//! The pure rules of the authorization endpoint: redirect URI matching (exact, with the RFC 8252
//! §7.3 loopback port exception), PKCE S256 (RFC 7636), the scopes a request may get, and how
//! scopes read on the consent page.
use crate::scope::ScopeSet;
use base64::Engine as _;
use sha2::{Digest, Sha256};

/// Scopes clients send unasked that name no resource permission: `offline_access` asks for a
/// refresh token, the OpenID ones for identity claims this server does not put in access tokens.
pub const NON_RESOURCE_SCOPES: [&str; 4] = ["offline_access", "openid", "profile", "email"];

/// The loopback origins whose port may differ from the registered one (RFC 8252 §7.3): the
/// app listens on whatever port it got.
const LOOPBACK_PREFIXES: [&str; 3] = ["http://127.0.0.1", "http://[::1]", "http://localhost"];

/// Splits a loopback URI into (origin without port, rest after the port), textually, so no
/// parser normalisation can make two different strings equal.
fn loopback_parts(uri: &str) -> Option<(&'static str, &str)> {
    for prefix in LOOPBACK_PREFIXES {
        let Some(after) = uri.strip_prefix(prefix) else {
            continue;
        };
        let rest = match after.strip_prefix(':') {
            Some(p) => {
                let digits = p.bytes().take_while(u8::is_ascii_digit).count();
                if digits == 0
                    || p[..digits]
                        .parse::<u32>()
                        .map_or(true, |n| n == 0 || n > 65_535)
                {
                    return None;
                }
                &p[digits..]
            }
            None => after,
        };
        // `http://127.0.0.1.evil.example/` or `http://localhost@evil.example/` are other hosts.
        if !(rest.is_empty() || rest.starts_with('/') || rest.starts_with('?')) {
            return None;
        }
        return Some((prefix, if rest.is_empty() { "/" } else { rest }));
    }
    None
}

/// Whether a presented `redirect_uri` matches a registered one.
///
/// Byte for byte, except that a loopback redirect (`http://127.0.0.1`, `http://[::1]`,
/// `http://localhost`) matches on any port, the registered one with or without a port.
pub fn redirect_matches(registered: &str, presented: &str) -> bool {
    if crate::secret::constant_time_eq(registered.as_bytes(), presented.as_bytes())
        && registered.len() == presented.len()
    {
        return true;
    }
    match (loopback_parts(registered), loopback_parts(presented)) {
        (Some((ro, rr)), Some((po, pr))) => ro == po && rr == pr && visible(presented),
        _ => false,
    }
}

fn visible(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_graphic())
}

/// Checks a PKCE `code_challenge` and its method: S256 only (RFC 7636 §4.2; `plain`, and a
/// missing method, which means `plain`, are refused as OAuth 2.1 and the MCP spec require).
///
/// # Errors
/// A message for the error redirect.
pub fn check_challenge(
    challenge: Option<&str>,
    method: Option<&str>,
) -> Result<String, &'static str> {
    let Some(challenge) = challenge.filter(|c| !c.is_empty()) else {
        return Err("code_challenge is required (PKCE with S256).");
    };
    match method {
        Some("S256") => {}
        None | Some("") => {
            return Err(
                "code_challenge_method is required and must be S256 (plain is not accepted).",
            );
        }
        Some(_) => return Err("code_challenge_method must be S256 (plain is not accepted)."),
    }
    // BASE64URL(SHA-256(verifier)) without padding: exactly 43 characters.
    let ok = challenge.len() == 43
        && challenge
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if !ok {
        return Err("code_challenge must be the 43-character base64url SHA-256 of the verifier.");
    }
    Ok(challenge.to_owned())
}

/// Whether a `code_verifier` (43–128 unreserved characters, RFC 7636 §4.1) hashes to the
/// challenge.
pub fn verifier_matches(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b));
    if !well_formed {
        return false;
    }
    let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    crate::secret::constant_time_eq(computed.as_bytes(), challenge.as_bytes())
        && computed.len() == challenge.len()
}

/// What a request's `scope` asks of a resource: its resource scopes and whether it asks for a
/// refresh token (`offline_access`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeRequest {
    /// Scopes that name resource permissions.
    pub scopes: ScopeSet,
    /// `offline_access` was asked for.
    pub offline: bool,
}

impl ScopeRequest {
    /// Parses `scope`, setting aside the scopes of [`NON_RESOURCE_SCOPES`].
    ///
    /// # Errors
    /// When `scope` is malformed.
    pub fn parse(scope: Option<&str>) -> Result<Self, String> {
        let all = ScopeSet::parse(scope.unwrap_or_default())?;
        let offline = all.contains("offline_access");
        let mut kept = String::new();
        for s in all.iter().filter(|s| !NON_RESOURCE_SCOPES.contains(s)) {
            kept.push_str(s);
            kept.push(' ');
        }
        Ok(Self {
            scopes: ScopeSet::parse(&kept)?,
            offline,
        })
    }

    /// The scopes granted from `allowed`: all of them when none was asked for, else those asked
    /// for that are allowed; `None` when scopes were asked for and none may be granted.
    pub fn grant(&self, allowed: &ScopeSet) -> Option<ScopeSet> {
        let granted = if self.scopes.is_empty() {
            allowed.clone()
        } else {
            self.scopes.intersection(allowed)
        };
        (!granted.is_empty()).then_some(granted)
    }
}

/// A scope in words for the consent page: `tools:call` → "Call tools", `files.read` → "Read
/// files"; anything else as it is.
pub fn describe_scope(scope: &str) -> String {
    match scope {
        "openid" => return "Know who you are (your account in this realm)".to_owned(),
        "email" => return "See your email address".to_owned(),
        "profile" => return "See your name".to_owned(),
        _ => {}
    }
    let verbs = [
        ("read", "Read"),
        ("write", "Change"),
        ("call", "Call"),
        ("list", "List"),
        ("admin", "Administer"),
        ("manage", "Manage"),
        ("delete", "Delete"),
        ("create", "Create"),
        ("send", "Send"),
        ("execute", "Run"),
        ("run", "Run"),
    ];
    let split = scope
        .split_once(':')
        .or_else(|| scope.split_once('.'))
        .or_else(|| scope.split_once('/'));
    if let Some((noun, verb)) = split
        && let Some((_, word)) = verbs.iter().find(|(v, _)| *v == verb)
        && !noun.is_empty()
    {
        return format!("{word} {}", noun.replace(['_', '-'], " "));
    }
    if let Some((_, word)) = verbs.iter().find(|(v, _)| *v == scope) {
        return format!("{word} everything the server offers");
    }
    format!("Use “{scope}”")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirects_match_exactly_except_loopback_ports() {
        let reg = "https://app.example.com/cb";
        assert!(redirect_matches(reg, reg));
        for bad in [
            "https://app.example.com/cb/",
            "https://app.example.com/CB",
            "HTTPS://app.example.com/cb",
            " https://app.example.com/cb",
            "https://app.example.com/cb?x=1",
            "https://app.example.com/cb#x",
            "https://app.example.com@evil.example/cb",
            "https://app.example.com%40evil.example/cb",
            "https://app.example.com%25@evil.example/cb",
            "https://app.example.com/cb/..;/evil",
            "https://app.example.com/cb\\@evil.example",
            "https://app.example.com.evil.example/cb",
            "javascript:alert(1)//https://app.example.com/cb",
            "data:text/html,https://app.example.com/cb",
        ] {
            assert!(!redirect_matches(reg, bad), "{bad}");
        }
        for (reg, ok) in [
            (
                "http://127.0.0.1/callback",
                "http://127.0.0.1:53682/callback",
            ),
            (
                "http://127.0.0.1:8080/callback",
                "http://127.0.0.1:33418/callback",
            ),
            (
                "http://localhost/callback",
                "http://localhost:6274/callback",
            ),
            ("http://[::1]/cb", "http://[::1]:9000/cb"),
            ("http://127.0.0.1", "http://127.0.0.1:5000/"),
        ] {
            assert!(redirect_matches(reg, ok), "{reg} ~ {ok}");
        }
        for (reg, bad) in [
            (
                "http://127.0.0.1/callback",
                "http://127.0.0.1:53682/callback/x",
            ),
            (
                "http://127.0.0.1/callback",
                "http://localhost:53682/callback",
            ),
            (
                "http://127.0.0.1/callback",
                "http://127.0.0.1.evil.example/callback",
            ),
            (
                "http://127.0.0.1/callback",
                "http://127.0.0.1:99999999/callback",
            ),
            ("http://127.0.0.1/callback", "http://127.0.0.1:/callback"),
            (
                "http://localhost/callback",
                "http://localhost@evil.example/callback",
            ),
            (
                "http://localhost/callback",
                "http://localhost:80@evil.example/callback",
            ),
            (
                "http://127.0.0.1/callback",
                "https://127.0.0.1:443/callback",
            ),
            ("http://127.0.0.1/cb", "http://127.0.0.1:5000/cb\t"),
        ] {
            assert!(!redirect_matches(reg, bad), "{reg} !~ {bad}");
        }
    }

    #[test]
    fn pkce_is_s256_only() {
        // RFC 7636 Appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert_eq!(
            check_challenge(Some(challenge), Some("S256")).as_deref(),
            Ok(challenge)
        );
        assert!(check_challenge(Some(challenge), Some("plain")).is_err());
        assert!(
            check_challenge(Some(challenge), None).is_err(),
            "missing method means plain"
        );
        assert!(check_challenge(None, Some("S256")).is_err());
        assert!(check_challenge(Some("short"), Some("S256")).is_err());
        assert!(verifier_matches(verifier, challenge));
        assert!(!verifier_matches(challenge, challenge));
        assert!(!verifier_matches("short", challenge));
        assert!(!verifier_matches(&format!("{verifier} "), challenge));
    }

    #[test]
    fn scopes_clients_send_unasked_are_set_aside() {
        let r = ScopeRequest::parse(Some("openid email profile offline_access")).expect("ok");
        assert!(r.offline && r.scopes.is_empty());
        let allowed = ScopeSet::parse("tools:call tools:read").expect("ok");
        assert_eq!(
            r.grant(&allowed),
            Some(allowed.clone()),
            "nothing asked: everything allowed"
        );
        let r = ScopeRequest::parse(Some("tools:read admin")).expect("ok");
        assert_eq!(
            r.grant(&allowed).map(|s| s.to_string()).as_deref(),
            Some("tools:read")
        );
        assert_eq!(
            ScopeRequest::parse(Some("admin"))
                .expect("ok")
                .grant(&allowed),
            None
        );
        assert!(ScopeRequest::parse(Some("a\"b")).is_err());
    }

    #[test]
    fn scopes_in_words() {
        assert_eq!(describe_scope("tools:call"), "Call tools");
        assert_eq!(describe_scope("files.read"), "Read files");
        assert_eq!(describe_scope("read"), "Read everything the server offers");
        assert_eq!(describe_scope("mcp"), "Use “mcp”");
    }
}
