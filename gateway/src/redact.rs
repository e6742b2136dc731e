//! Redaction of secrets in what upstreams return.
//!
//! Upstream text is untrusted and may carry credentials (a tool that echoes a configuration, an
//! error that quotes a header). Before a result reaches the agent, every text block and every
//! string of its structured content is scanned for the built-in patterns (JWTs, bearer
//! credentials, private keys, well-known API key shapes) and the configured ones; each match
//! becomes `[redacted]`.
use rmcp::model::{CallToolResult, ContentBlock};
use std::borrow::Cow;

/// What replaces a match.
pub const REDACTED: &str = "[redacted]";

/// Credentials whose shape is known.
const BUILT_IN: &[&str] = &[
    // JWTs (and other JWS compact serialisations).
    r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    // Authorization header values.
    r"(?i)\b(?:bearer|basic)\s+[A-Za-z0-9._~+/-]{16,}=*",
    // PEM private keys.
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    // AWS access key ids, GitHub, Slack and Stripe secret keys.
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bgh[pousr]_[A-Za-z0-9]{36,}\b",
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}\b",
    r"\b(?:sk|rk)_live_[A-Za-z0-9]{16,}\b",
];

/// Longest configured pattern accepted.
const MAX_PATTERN_LEN: usize = 500;

/// The patterns, compiled.
#[derive(Debug, Clone)]
pub struct Redactor {
    patterns: Vec<regex::Regex>,
}

impl Redactor {
    /// The built-in patterns and `extra` (regular expressions, `regex` crate syntax).
    ///
    /// # Errors
    /// The first pattern that does not compile (or is too long), and why.
    pub fn new(extra: &[String]) -> Result<Self, String> {
        let mut patterns = Vec::new();
        for p in BUILT_IN
            .iter()
            .copied()
            .chain(extra.iter().map(String::as_str))
        {
            if p.len() > MAX_PATTERN_LEN {
                return Err(format!(
                    "a redaction pattern is over {MAX_PATTERN_LEN} characters"
                ));
            }
            let re = regex::RegexBuilder::new(p)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| format!("redaction pattern {p:?}: {e}"))?;
            patterns.push(re);
        }
        Ok(Self { patterns })
    }

    /// `s` with every match replaced.
    pub fn text<'a>(&self, s: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(s);
        for re in &self.patterns {
            if re.is_match(&out) {
                out = Cow::Owned(re.replace_all(&out, REDACTED).into_owned());
            }
        }
        out
    }

    /// Every string in `v` (keys too), redacted in place.
    pub fn value(&self, v: &mut serde_json::Value) {
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::String(s) => {
                    if let Cow::Owned(r) = self.text(s) {
                        *s = r;
                    }
                }
                serde_json::Value::Array(a) => stack.extend(a.iter_mut()),
                serde_json::Value::Object(o) => {
                    let keys: Vec<String> = o.keys().cloned().collect();
                    for k in keys {
                        if let Cow::Owned(r) = self.text(&k)
                            && let Some(val) = o.remove(&k)
                        {
                            o.insert(r, val);
                        }
                    }
                    stack.extend(o.values_mut());
                }
                _ => {}
            }
        }
    }

    /// A tool result's text blocks and structured content, redacted in place.
    pub fn result(&self, r: &mut CallToolResult) {
        for block in &mut r.content {
            if let ContentBlock::Text(t) = block
                && let Cow::Owned(redacted) = self.text(&t.text)
            {
                t.text = redacted;
            }
        }
        if let Some(v) = r.structured_content.as_mut() {
            self.value(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_credential_shapes_and_configured_patterns_are_redacted() {
        let r = Redactor::new(&[r"\bEMP-\d{6}\b".into()]).expect("patterns");
        let jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlLWJ5dGVz";
        let text = format!(
            "token {jwt} header Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345 key AKIAIOSFODNN7EXAMPLE gh ghp_{} employee EMP-123456 fine: invoice 42",
            "a".repeat(36)
        );
        let out = r.text(&text);
        for secret in [
            jwt,
            "abcdefghijklmnopqrstuvwxyz012345",
            "AKIAIOSFODNN7EXAMPLE",
            "EMP-123456",
        ] {
            assert!(!out.contains(secret), "{secret}: {out}");
        }
        assert!(out.contains("fine: invoice 42"));
        let mut v = serde_json::json!({"rows": [{"note": format!("see {jwt}")}], jwt: 1});
        r.value(&mut v);
        assert!(!v.to_string().contains(jwt), "{v}");
        let pem = "-----BEGIN PRIVATE KEY-----\nMIIEv...\n-----END PRIVATE KEY-----";
        assert_eq!(r.text(pem), REDACTED);
        assert!(Redactor::new(&["(".into()]).is_err());
    }
}
