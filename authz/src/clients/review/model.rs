//! Review types: the reason a reviewer gives and the review queue's items. Pure: the
//! operations are in `ops.rs`.
use crate::clients::model::Client;
use crate::error::{Error, Result};

/// Longest review reason.
pub const MAX_REASON_CHARS: usize = 500;

pub(crate) fn reason(s: &str) -> Result<String> {
    let s = s.trim();
    if s.is_empty() {
        return Err(Error::field(
            "reason",
            "Give a reason; it is kept in the client's history.",
        ));
    }
    if s.chars().count() > MAX_REASON_CHARS || s.chars().any(|c| c.is_control() && c != '\n') {
        return Err(Error::field(
            "reason",
            format!(
                "A reason is at most {MAX_REASON_CHARS} characters without control characters."
            ),
        ));
    }
    Ok(s.to_owned())
}

/// Most clients one review list shows.
pub const MAX_REVIEW_ITEMS: i64 = 500;

/// A client in the review queue, with what a reviewer weighs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewItem {
    /// The client.
    pub client: Client,
    /// The hosts (or app schemes) its redirect URIs go to.
    pub redirect_hosts: Vec<String>,
    /// Every redirect goes to this machine (loopback): typical of CLI and desktop clients.
    pub loopback_only: bool,
    /// Some redirect goes to a private-use scheme (any app may claim it).
    pub private_use: bool,
    /// Clients registered from the same address (this one included).
    pub same_source: u64,
    /// Other clients of the realm with a similar name (impersonation).
    pub similar_names: Vec<String>,
}
