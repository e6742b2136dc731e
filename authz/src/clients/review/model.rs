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
    /// Some redirect goes to a web host (https).
    pub web_redirects: bool,
    /// Clients registered from the same address (this one included).
    pub same_source: u64,
    /// Other clients of the realm with a similar name (impersonation).
    pub similar_names: Vec<String>,
}

/// A risk signal a reviewer can sort and filter the inbox by.
///
/// The first three are what the client registered (stored with it as flags and a score, see
/// [`risk_of`]); `Crowded` is counted when the list is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RiskSignal {
    /// Some redirect goes to a web host (https): where codes go if the name lies.
    WebRedirects,
    /// Some redirect goes to a private-use scheme, which any app may claim.
    PrivateUse,
    /// It asked for client credentials: tokens with no person involved.
    Machine,
    /// More than [`CROWDED_SOURCE`] clients of its realm registered from its address.
    Crowded,
}

/// Registrations from one address above which a client is flagged (`same_source > 3`).
pub const CROWDED_SOURCE: u64 = 3;

impl RiskSignal {
    /// Every signal, in the filter's order.
    pub const ALL: [RiskSignal; 4] = [
        RiskSignal::WebRedirects,
        RiskSignal::PrivateUse,
        RiskSignal::Machine,
        RiskSignal::Crowded,
    ];

    /// The name in links and forms.
    pub fn as_str(self) -> &'static str {
        match self {
            RiskSignal::WebRedirects => "web_redirects",
            RiskSignal::PrivateUse => "private_use",
            RiskSignal::Machine => "machine",
            RiskSignal::Crowded => "crowded",
        }
    }

    /// Reads [`RiskSignal::as_str`]'s form.
    pub fn parse(s: &str) -> Option<RiskSignal> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Its bit in the stored flags (none for signals counted when read).
    pub fn flag(self) -> Option<i64> {
        match self {
            RiskSignal::WebRedirects => Some(1),
            RiskSignal::PrivateUse => Some(2),
            RiskSignal::Machine => Some(4),
            RiskSignal::Crowded => None,
        }
    }

    /// What it adds to a client's risk score: a machine client gets tokens with nobody
    /// consenting; a web redirect sends codes to a host the name may lie about; a private-use
    /// scheme may be claimed by another app.
    fn weight(self) -> i64 {
        match self {
            RiskSignal::Machine => 4,
            RiskSignal::WebRedirects => 3,
            RiskSignal::PrivateUse => 2,
            RiskSignal::Crowded => 0,
        }
    }
}

/// What a client registered says of its risk: the stored flags and score.
///
/// The flags are bits of [`RiskSignal::flag`], the score the sum of their weights; both are
/// written with every registration and change of it and read by the inbox's "riskiest first"
/// order and its signal filter.
///
/// Stored redirect URIs were checked at registration: `https:` is a web host, `http:` only
/// loopback, anything else a private-use scheme.
pub fn risk_of(client: &Client) -> (i64, i64) {
    let uris = &client.metadata.redirect_uris;
    let present = [
        (
            RiskSignal::WebRedirects,
            uris.iter().any(|u| u.starts_with("https:")),
        ),
        (
            RiskSignal::PrivateUse,
            uris.iter()
                .any(|u| !u.starts_with("https:") && !u.starts_with("http:")),
        ),
        (
            RiskSignal::Machine,
            client
                .grant_types
                .contains(&crate::clients::model::GrantType::ClientCredentials),
        ),
    ];
    present
        .into_iter()
        .filter(|(_, on)| *on)
        .fold((0, 0), |(flags, score), (signal, _)| {
            (flags | signal.flag().unwrap_or(0), score + signal.weight())
        })
}

/// How the inbox is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InboxOrder {
    /// Newest registration first (the default).
    #[default]
    Newest,
    /// Oldest first: the queue as it formed.
    Oldest,
    /// Highest risk score first, newest first within a score.
    Riskiest,
}

/// Clients one page of the review inbox shows.
pub const INBOX_PAGE: usize = 25;
/// Longest search text of the inbox.
pub const MAX_INBOX_SEARCH_CHARS: usize = 200;

/// Where a page of the inbox starts: after this client in the list's order (by first seen,
/// then id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InboxCursor {
    /// The last client's risk score (in the riskiest-first order only).
    pub risk: Option<i64>,
    /// The last client's registration time.
    pub created_at: i64,
    /// Its row id.
    pub id: String,
}

impl InboxCursor {
    /// The cursor as one opaque string (`created_at:id`, or `risk.created_at:id`).
    pub fn encode(&self) -> String {
        match self.risk {
            Some(r) => format!("{r}.{}:{}", self.created_at, self.id),
            None => format!("{}:{}", self.created_at, self.id),
        }
    }

    /// Reads [`InboxCursor::encode`]'s form; `None` when it is not one.
    pub fn decode(s: &str) -> Option<InboxCursor> {
        let (head, id) = s.split_once(':')?;
        let id = id.trim();
        // No id holds a control character (and PostgreSQL refuses NUL in text).
        if id.is_empty() || id.len() > 64 || id.chars().any(char::is_control) {
            return None;
        }
        let (risk, at) = match head.split_once('.') {
            Some((r, at)) => (Some(r.parse().ok()?), at),
            None => (None, head),
        };
        Some(InboxCursor {
            risk,
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
    /// Only clients showing this risk signal.
    pub signal: Option<RiskSignal>,
    /// The order.
    pub order: InboxOrder,
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
    /// Only clients showing this risk signal.
    pub signal: Option<RiskSignal>,
    /// The order.
    pub order: InboxOrder,
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

#[cfg(test)]
mod tests {
    use super::{InboxCursor, RiskSignal};

    #[test]
    fn cursors_carry_the_risk_score_of_the_riskiest_order_and_refuse_junk() {
        for c in [
            InboxCursor {
                risk: None,
                created_at: 1_700_000_000,
                id: "cli_1".into(),
            },
            InboxCursor {
                risk: Some(7),
                created_at: 1_700_000_000,
                id: "cli_2".into(),
            },
        ] {
            assert_eq!(InboxCursor::decode(&c.encode()), Some(c));
        }
        for junk in [
            "",
            "12",
            "12:",
            "x.12:cli",
            "1.x:cli",
            "1.2.3:cli",
            "12:cli\0x",
        ] {
            assert_eq!(InboxCursor::decode(junk), None, "{junk}");
        }
    }

    #[test]
    fn signals_read_back_from_their_names() {
        for s in RiskSignal::ALL {
            assert_eq!(RiskSignal::parse(s.as_str()), Some(s));
        }
        assert_eq!(RiskSignal::parse("Machine"), None);
    }
}
