//! The security review of self-registered clients: its types (`model.rs`, pure) and the
//! decisions and the queue (`ops.rs`).
mod model;
mod ops;

pub use model::{
    CROWDED_SOURCE, INBOX_PAGE, InboxCursor, InboxFilter, InboxItem, InboxOrder, InboxPage,
    InboxQuery, MAX_INBOX_SEARCH_CHARS, MAX_REASON_CHARS, MAX_REVIEW_ITEMS, ReviewItem, RiskSignal,
    risk_of,
};
