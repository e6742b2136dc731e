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

/// Clients one page of the review inbox shows.
pub const INBOX_PAGE: usize = 25;
/// Longest search text of the inbox.
pub const MAX_INBOX_SEARCH_CHARS: usize = 200;

/// Where a page of the inbox starts: after this client in the list's order (by first seen,
/// then id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxCursor {
    /// The last client's registration time.
    pub created_at: i64,
    /// Its row id.
    pub id: String,
}

impl InboxCursor {
    /// The cursor as one opaque string (`created_at:id`).
    pub fn encode(&self) -> String {
        format!("{}:{}", self.created_at, self.id)
    }

    /// Reads [`InboxCursor::encode`]'s form; `None` when it is not one.
    pub fn decode(s: &str) -> Option<InboxCursor> {
        let (at, id) = s.split_once(':')?;
        let id = id.trim();
        if id.is_empty() || id.len() > 64 {
            return None;
        }
        Some(InboxCursor {
            created_at: at.parse().ok()?,
            id: id.to_owned(),
        })
    }
}

/// Which self-registered clients the inbox lists: one review state, across every realm or in
/// one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxQuery {
    /// The review state (the queue proper is `pending`).
    pub state: crate::clients::model::ReviewState,
    /// Only this realm's (by name).
    pub realm: Option<String>,
    /// Only clients registered this way (dynamic registration or metadata document).
    pub kind: Option<crate::clients::model::RegistrationKind>,
    /// A substring of the client's name or `client_id`.
    pub search: Option<String>,
    /// Oldest first (the default is newest first).
    pub oldest_first: bool,
    /// Start after this client (the next page).
    pub after: Option<InboxCursor>,
}

/// The storage side of an [`InboxQuery`]: the realm resolved to its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxFilter {
    /// The review state.
    pub state: crate::clients::model::ReviewState,
    /// Only this realm's.
    pub realm_id: Option<crate::realms::RealmId>,
    /// Only clients registered this way.
    pub kind: Option<crate::clients::model::RegistrationKind>,
    /// A substring of the name or `client_id` (case-insensitive).
    pub search: Option<String>,
    /// Oldest first.
    pub oldest_first: bool,
}

/// A client of the inbox, with its realm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxItem {
    /// The realm's name.
    pub realm: String,
    /// The realm's display name.
    pub realm_display: String,
    /// The client and its risk signals.
    pub item: ReviewItem,
}

/// One page of the inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxPage {
    /// The clients, in the query's order.
    pub items: Vec<InboxItem>,
    /// Where the next page starts, when there is one.
    pub next: Option<InboxCursor>,
}
