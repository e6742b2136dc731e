//! Context propagation to upstreams.
//!
//! The `_meta` every upstream call carries (`session_id`, `agent_id`,
//! `run_id`, `subject_ids` and the W3C `traceparent`), so downstream tools can tag what they
//! write and traces join up; the audit row holds the same ids.
use rand::RngCore as _;

/// The ids of one call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallContext {
    /// The caller's MCP session (or, stateless, the token's id).
    pub session_id: String,
    /// The calling agent's id.
    pub agent_id: Option<String>,
    /// This call's run id (new per call unless the caller sent one).
    pub run_id: String,
    /// The data subjects the call concerns.
    pub subject_ids: Vec<String>,
    /// W3C traceparent: the caller's with a new span id, or a new trace.
    pub traceparent: String,
}

impl CallContext {
    /// The `_meta` object sent upstream.
    pub fn meta(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut m = serde_json::Map::new();
        m.insert("session_id".into(), self.session_id.clone().into());
        if let Some(a) = &self.agent_id {
            m.insert("agent_id".into(), a.clone().into());
        }
        m.insert("run_id".into(), self.run_id.clone().into());
        if !self.subject_ids.is_empty() {
            m.insert("subject_ids".into(), self.subject_ids.clone().into());
        }
        m.insert("traceparent".into(), self.traceparent.clone().into());
        m
    }
}

fn random_hex(bytes: usize) -> String {
    let mut b = vec![0u8; bytes];
    rand::thread_rng().fill_bytes(&mut b);
    hex::encode(b)
}

/// The id upstreams and the audit log know a session by: derived from it, useless to open it.
pub fn session_ref(session: &str) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(format!("portcullis-gateway-session\u{0}{session}"));
    format!("ses_{}", hex::encode(&digest[..16]))
}

/// A new id for a run.
pub fn new_run_id() -> String {
    format!("run_{}", random_hex(12))
}

/// The traceparent for the upstream call: the caller's trace (a valid version-00 header from
/// `_meta.traceparent` or the HTTP header) continued with a new span id, else a new sampled
/// trace.
pub fn traceparent(incoming: Option<&str>) -> String {
    if let Some((trace, flags)) = incoming.and_then(parse_traceparent) {
        return format!("00-{trace}-{}-{flags}", random_hex(8));
    }
    format!("00-{}-{}-01", random_hex(16), random_hex(8))
}

/// The trace id and flags of a valid W3C traceparent (version 00).
fn parse_traceparent(s: &str) -> Option<(&str, &str)> {
    let parts: Vec<&str> = s.trim().split('-').collect();
    let [version, trace, span, flags] = parts.as_slice() else {
        return None;
    };
    let hex = |p: &str, n: usize| {
        p.len() == n
            && p.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    let ok = *version == "00"
        && hex(trace, 32)
        && hex(span, 16)
        && hex(flags, 2)
        && trace.bytes().any(|b| b != b'0')
        && span.bytes().any(|b| b != b'0');
    ok.then_some((*trace, *flags))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_valid_traceparent_is_continued_anything_else_starts_a_trace() {
        let incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let out = traceparent(Some(incoming));
        assert!(out.starts_with("00-4bf92f3577b34da6a3ce929d0e0e4736-"));
        assert!(out.ends_with("-01"));
        assert_ne!(out, incoming);
        for bad in [
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "garbage",
        ] {
            let t = traceparent(Some(bad));
            assert!(parse_traceparent(&t).is_some());
            assert!(!t.contains("4bf92f3577b34da6a3ce929d0e0e4736"), "{bad}");
        }
    }
}
