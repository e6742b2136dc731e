//! "Check an MCP server": the discovery steps an MCP client takes, run against a server a
//! developer names, each judged with the reason (RFC 9728 §5.1 challenge, §3 metadata and its
//! `resource`, the realm as its authorization server, the resource registered here, a forged
//! token refused).
//!
//! This module judges responses; [`crate::Core::check_mcp_server`] sends the requests through
//! the SSRF-safe [`crate::fetch::Fetcher`].
use crate::fetch::{Probe, ProbeResponse};

/// How a step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// As the MCP authorization spec asks.
    Pass,
    /// Works, but a client may stumble, or something is worth a look.
    Warn,
    /// MCP clients will fail here (or the server lets the wrong callers in).
    Fail,
    /// Not run: an earlier step failed.
    Skipped,
}

/// One request and its response, as text to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// Method, URL and headers sent (and the body).
    pub request: String,
    /// Status, headers and body received, or why nothing was.
    pub response: String,
}

/// One step of the check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckStep {
    /// Stable id: `challenge`, `metadata`, `authorization_server`, `registered`, `forged_token`.
    pub id: &'static str,
    /// Heading.
    pub title: &'static str,
    /// How it went.
    pub verdict: Verdict,
    /// Why, in words.
    pub reason: String,
    /// What was sent and received.
    pub exchanges: Vec<Exchange>,
}

/// The whole check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpCheck {
    /// The server URL in canonical form (what was checked).
    pub url: String,
    /// The steps, in order.
    pub steps: Vec<CheckStep>,
}

impl McpCheck {
    /// Whether no step failed.
    pub fn passed(&self) -> bool {
        !self.steps.iter().any(|s| s.verdict == Verdict::Fail)
    }
}

/// The initialize request an MCP client opens with (no token).
pub(crate) fn initialize_probe(url: &url::Url, token: Option<&str>) -> Probe {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": super::model::MCP_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "portcullis-check", "version": env!("CARGO_PKG_VERSION")},
        },
    });
    let mut headers = vec![
        ("content-type", "application/json".to_owned()),
        ("accept", "application/json, text/event-stream".to_owned()),
        (
            "mcp-protocol-version",
            super::model::MCP_PROTOCOL_VERSION.to_owned(),
        ),
    ];
    if let Some(t) = token {
        headers.push(("authorization", format!("Bearer {t}")));
    }
    Probe {
        method: "POST",
        url: url.clone(),
        headers,
        body: Some(body.to_string()),
    }
}

/// A `GET` of a JSON document.
pub(crate) fn get_probe(url: &url::Url) -> Probe {
    Probe {
        method: "GET",
        url: url.clone(),
        headers: vec![
            ("accept", "application/json".to_owned()),
            (
                "mcp-protocol-version",
                super::model::MCP_PROTOCOL_VERSION.to_owned(),
            ),
        ],
        body: None,
    }
}

/// The request as text; a bearer token shows as `Bearer …` (it is a forged one, but a token
/// on screen teaches the wrong habit).
pub(crate) fn show_request(p: &Probe) -> String {
    let mut out = format!("{} {}", p.method, p.url);
    for (n, v) in &p.headers {
        let v = if *n == "authorization" {
            "Bearer …"
        } else {
            v.as_str()
        };
        out.push_str(&format!("\n{n}: {v}"));
    }
    if let Some(b) = &p.body {
        out.push_str(&format!("\n\n{}", pretty_json(b)));
    }
    out
}

/// JSON laid out to read; anything else as it is.
fn pretty_json(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| text.to_owned())
}

/// The most of a body shown.
const SHOWN_BODY_CHARS: usize = 4000;

pub(crate) fn show_response(r: &Result<ProbeResponse, String>) -> String {
    match r {
        Err(why) => format!("(no response: {why})"),
        Ok(r) => {
            let mut out = format!("HTTP {}", r.status);
            for (n, v) in &r.headers {
                out.push_str(&format!("\n{n}: {v}"));
            }
            if !r.body.is_empty() {
                let full = pretty_json(&r.body);
                let body: String = full.chars().take(SHOWN_BODY_CHARS).collect();
                out.push_str(&format!("\n\n{body}"));
                if r.truncated || body.len() < full.len() {
                    out.push_str("\n…");
                }
            }
            out
        }
    }
}

/// The auth-params of the `Bearer` challenge in a `WWW-Authenticate` value (RFC 9110 §11.6.1),
/// names in lower case; `None` when no Bearer challenge is there.
pub fn bearer_params(header: &str) -> Option<Vec<(String, String)>> {
    // Split on commas outside quotes; a piece is `scheme`, `scheme param=…` or `param=…`.
    let mut pieces = Vec::new();
    let (mut cur, mut quoted, mut escaped) = (String::new(), false, false);
    for c in header.chars() {
        match c {
            _ if escaped => {
                cur.push(c);
                escaped = false;
            }
            '\\' if quoted => escaped = true,
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            ',' if !quoted => pieces.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    pieces.push(cur);
    let mut in_bearer = false;
    let mut found = false;
    let mut params = Vec::new();
    for piece in pieces {
        let piece = piece.trim();
        if piece.is_empty() {
            continue;
        }
        let (head, rest) = piece.split_once(' ').unwrap_or((piece, ""));
        let param = if head.contains('=') {
            Some(piece)
        } else {
            // A new challenge begins.
            in_bearer = head.eq_ignore_ascii_case("bearer");
            found |= in_bearer;
            Some(rest.trim()).filter(|r| !r.is_empty())
        };
        if in_bearer && let Some((k, v)) = param.and_then(|p| p.split_once('=')) {
            params.push((
                k.trim().to_ascii_lowercase(),
                v.trim().trim_matches('"').to_owned(),
            ));
        }
    }
    found.then_some(params)
}

/// What the unauthenticated request taught.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Challenge {
    pub(crate) verdict: Verdict,
    pub(crate) reason: String,
    pub(crate) resource_metadata: Option<String>,
    pub(crate) scope: Option<String>,
}

/// Step 1: an unauthenticated initialize must get `401` with a Bearer challenge, ideally
/// naming the metadata (`resource_metadata`) and the scopes to ask for.
pub(crate) fn judge_challenge(r: &ProbeResponse, realm_scopes: &[String]) -> Challenge {
    let fail = |reason: String| Challenge {
        verdict: Verdict::Fail,
        reason,
        resource_metadata: None,
        scope: None,
    };
    match r.status {
        401 => {}
        200..=299 => {
            return fail(format!(
                "The server answered {} without a token: it is not protected, and MCP clients never start the authorization flow.",
                r.status
            ));
        }
        300..=399 => {
            return fail(format!(
                "The server redirects ({}{}); MCP clients expect 401 at the URL they were given.",
                r.status,
                r.header("location")
                    .map(|l| format!(" to {l}"))
                    .unwrap_or_default()
            ));
        }
        s => {
            return fail(format!(
                "The server answered {s}, not 401: MCP clients start authorization only on 401 Unauthorized."
            ));
        }
    }
    let Some(header) = r.header("www-authenticate") else {
        return fail("The 401 has no WWW-Authenticate header: clients cannot tell it wants a bearer token or where its metadata is (RFC 9728 §5.1).".into());
    };
    let Some(params) = bearer_params(header) else {
        return fail(format!(
            "WWW-Authenticate names no Bearer challenge ({header})."
        ));
    };
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let mut notes = Vec::new();
    let metadata = get("resource_metadata");
    let mut verdict = Verdict::Pass;
    if metadata.is_none() {
        verdict = Verdict::Warn;
        notes.push("It names no resource_metadata: clients of the 2025-06-18 revision and later fall back to the well-known URL, older ones may not find the metadata.".to_owned());
    }
    if let Some(scope) = get("scope") {
        for s in scope.split(' ').filter(|s| !s.is_empty()) {
            if s == "offline_access" {
                verdict = Verdict::Warn;
                notes.push("The challenge asks for offline_access: that is the authorization server's business (refresh tokens), not a resource's scope.".into());
            } else if !realm_scopes.iter().any(|r| r == s) {
                verdict = Verdict::Warn;
                notes.push(format!(
                    "It asks for {s}, which no resource of this realm accepts: tokens will not carry it."
                ));
            }
        }
    }
    if get("error").is_some() {
        notes.push("A request without a token should get no error code (RFC 6750 §3.1); clients cope, but invalid_token here usually means the server treats a missing token as a bad one.".into());
        verdict = Verdict::Warn;
    }
    let reason = if notes.is_empty() {
        "401 with a Bearer challenge naming the metadata: what MCP clients discover everything from.".to_owned()
    } else {
        notes.join(" ")
    };
    Challenge {
        verdict,
        reason,
        resource_metadata: metadata,
        scope: get("scope"),
    }
}

/// Step 2: the metadata must be JSON whose `resource` is the server's URL and whose
/// `authorization_servers` include this realm.
pub(crate) fn judge_metadata(
    r: &ProbeResponse,
    resource: &str,
    issuer: &str,
    realm_scopes: &[String],
) -> (Verdict, String) {
    if r.status != 200 {
        return (
            Verdict::Fail,
            format!("The metadata URL answered {}, not 200.", r.status),
        );
    }
    if r.truncated {
        return (
            Verdict::Fail,
            "The metadata document is too large.".to_owned(),
        );
    }
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(&r.body) else {
        return (
            Verdict::Fail,
            "The metadata is not a JSON document.".to_owned(),
        );
    };
    let named = doc
        .get("resource")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default();
    let canonical = crate::resources::ResourceUri::parse(named, true)
        .map(|u| u.as_str().to_owned())
        .unwrap_or_default();
    if canonical != resource {
        return (
            Verdict::Fail,
            if named.is_empty() {
                "The metadata has no resource member (RFC 9728 §2).".to_owned()
            } else {
                format!(
                    "The metadata names resource {named}, not this server ({resource}): clients must refuse it (RFC 9728 §3.3) and tokens for it would not be valid here."
                )
            },
        );
    }
    let servers: Vec<&str> = doc
        .get("authorization_servers")
        .and_then(serde_json::Value::as_array)
        .map(|a| a.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default();
    if !servers.contains(&issuer) {
        return (
            Verdict::Fail,
            if servers.is_empty() {
                "The metadata lists no authorization_servers.".to_owned()
            } else {
                format!(
                    "The metadata's authorization server is not this realm: it lists {}, this realm is {issuer}.",
                    servers.join(", ")
                )
            },
        );
    }
    let mut notes = Vec::new();
    if servers.len() > 1 {
        notes.push("It lists more than one authorization server; MCP clients pick one (usually the first).".to_owned());
    }
    if named != resource {
        notes.push(format!(
            "It writes the resource as {named}; tokens name {resource} in aud (the same resource)."
        ));
    }
    let scopes: Vec<&str> = doc
        .get("scopes_supported")
        .and_then(serde_json::Value::as_array)
        .map(|a| a.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default();
    for s in scopes {
        if s == "offline_access" {
            notes.push("scopes_supported lists offline_access, which belongs in the authorization server's metadata.".to_owned());
        } else if !realm_scopes.iter().any(|r| r == s) {
            notes.push(format!(
                "scopes_supported lists {s}, which no resource of this realm accepts."
            ));
        }
    }
    if notes.is_empty() {
        (
            Verdict::Pass,
            "The metadata names this server and this realm.".to_owned(),
        )
    } else {
        (Verdict::Warn, notes.join(" "))
    }
}

/// Step 5: a token this realm did not sign must be refused with 401.
pub(crate) fn judge_forged(r: &ProbeResponse) -> (Verdict, String) {
    match r.status {
        401 => {
            let invalid = r
                .header("www-authenticate")
                .and_then(bearer_params)
                .is_some_and(|p| p.iter().any(|(k, v)| k == "error" && v == "invalid_token"));
            if invalid {
                (Verdict::Pass, "Refused with 401 invalid_token: the server checks signatures.".to_owned())
            } else {
                (Verdict::Pass, "Refused with 401 (RFC 6750 §3.1 suggests error=\"invalid_token\" in the challenge).".to_owned())
            }
        }
        403 => (
            Verdict::Warn,
            "Refused with 403: a token that is not valid should get 401 invalid_token, or clients ask for more scopes instead of a new token.".to_owned(),
        ),
        200..=299 => (
            Verdict::Fail,
            "The server ACCEPTED a token signed by a key that is not this realm's: it does not verify signatures. Anyone can call it.".to_owned(),
        ),
        s => (
            Verdict::Warn,
            format!("The server answered {s} to a forged token; 401 is expected."),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(status: u16, headers: &[(&str, &str)], body: &str) -> ProbeResponse {
        ProbeResponse {
            status,
            headers: headers
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect(),
            body: body.into(),
            truncated: false,
        }
    }

    #[test]
    fn bearer_challenges_are_parsed_among_others() {
        assert_eq!(
            bearer_params(
                r#"Bearer resource_metadata="https://x/.well-known/oauth-protected-resource/mcp", scope="a b""#
            ),
            Some(vec![
                (
                    "resource_metadata".into(),
                    "https://x/.well-known/oauth-protected-resource/mcp".into()
                ),
                ("scope".into(), "a b".into()),
            ])
        );
        assert_eq!(
            bearer_params(r#"Basic realm="x, y", Bearer error="invalid_token", Other a=b"#),
            Some(vec![("error".into(), "invalid_token".into())])
        );
        assert_eq!(bearer_params("bearer"), Some(vec![]));
        assert_eq!(bearer_params(r#"Basic realm="api""#), None);
    }

    #[test]
    fn the_challenge_step_names_what_clients_need() {
        let scopes = vec!["tools:call".to_owned()];
        let ok = judge_challenge(
            &res(
                401,
                &[(
                    "www-authenticate",
                    r#"Bearer resource_metadata="https://m/.well-known/oauth-protected-resource/mcp", scope="tools:call""#,
                )],
                "",
            ),
            &scopes,
        );
        assert_eq!(ok.verdict, Verdict::Pass);
        assert_eq!(
            ok.resource_metadata.as_deref(),
            Some("https://m/.well-known/oauth-protected-resource/mcp")
        );
        for (r, why) in [
            (res(200, &[], "{}"), "without a token"),
            (res(302, &[("location", "https://login")], ""), "redirects"),
            (res(404, &[], ""), "answered 404"),
            (res(401, &[], ""), "no WWW-Authenticate"),
            (
                res(401, &[("www-authenticate", "Basic realm=\"x\"")], ""),
                "no Bearer",
            ),
        ] {
            let c = judge_challenge(&r, &scopes);
            assert_eq!(c.verdict, Verdict::Fail, "{why}");
            assert!(c.reason.contains(why), "{why}: {}", c.reason);
        }
        let warn = judge_challenge(
            &res(
                401,
                &[(
                    "www-authenticate",
                    r#"Bearer scope="tools:call offline_access files:write""#,
                )],
                "",
            ),
            &scopes,
        );
        assert_eq!(warn.verdict, Verdict::Warn);
        for note in ["no resource_metadata", "offline_access", "files:write"] {
            assert!(warn.reason.contains(note), "{note}: {}", warn.reason);
        }
    }

    #[test]
    fn the_metadata_must_name_this_server_and_this_realm() {
        let issuer = "https://id.example.com/realms/acme";
        let scopes = vec!["tools:call".to_owned()];
        let judge = |body: serde_json::Value| {
            judge_metadata(
                &res(200, &[], &body.to_string()),
                "https://mcp.example.com/mcp",
                issuer,
                &scopes,
            )
        };
        assert_eq!(
            judge(serde_json::json!({"resource": "https://mcp.example.com/mcp", "authorization_servers": [issuer], "scopes_supported": ["tools:call"]})).0,
            Verdict::Pass
        );
        let (v, why) = judge(
            serde_json::json!({"resource": "https://mcp.example.com/mcp/", "authorization_servers": [issuer]}),
        );
        assert_eq!(v, Verdict::Warn, "{why}");
        let (v, why) = judge(
            serde_json::json!({"resource": "https://other.example.com/mcp", "authorization_servers": [issuer]}),
        );
        assert_eq!(v, Verdict::Fail);
        assert!(why.contains("not this server"), "{why}");
        let (v, why) = judge(
            serde_json::json!({"resource": "https://mcp.example.com/mcp", "authorization_servers": ["https://evil.example.com"]}),
        );
        assert_eq!(v, Verdict::Fail);
        assert!(why.contains("not this realm"), "{why}");
        let (v, _) = judge(serde_json::json!({"authorization_servers": [issuer]}));
        assert_eq!(v, Verdict::Fail);
        let (v, _) = judge_metadata(
            &res(404, &[], ""),
            "https://mcp.example.com/mcp",
            issuer,
            &scopes,
        );
        assert_eq!(v, Verdict::Fail);
        let (v, _) = judge_metadata(
            &res(200, &[], "<html>"),
            "https://mcp.example.com/mcp",
            issuer,
            &scopes,
        );
        assert_eq!(v, Verdict::Fail);
    }

    #[test]
    fn a_forged_token_must_be_refused() {
        assert_eq!(
            judge_forged(&res(
                401,
                &[("www-authenticate", "Bearer error=\"invalid_token\"")],
                ""
            ))
            .0,
            Verdict::Pass
        );
        assert_eq!(judge_forged(&res(200, &[], "{}")).0, Verdict::Fail);
        assert_eq!(judge_forged(&res(403, &[], "")).0, Verdict::Warn);
    }

    #[test]
    fn requests_are_shown_without_the_token() {
        let url = url::Url::parse("https://mcp.example.com/mcp").expect("url");
        let shown = show_request(&initialize_probe(&url, Some("eyJsecret")));
        assert!(shown.starts_with("POST https://mcp.example.com/mcp\n"));
        assert!(shown.contains("authorization: Bearer …") && !shown.contains("eyJsecret"));
    }
}
