//! View types sent between server functions and components (wasm-safe; no core types).
//!
//! One module per domain (the domains of `api/` and `pages/`). This file holds what every domain
//! shares; the domain modules name it (`super::Moment`), and it names none of them.
use serde::{Deserialize, Serialize};

pub mod access;
pub mod agents;
pub mod audit;
pub mod chaining;
pub mod clients;
pub mod federation;
pub mod gateway;
pub mod integration;
pub mod keys;
pub mod overview;
pub mod people;
pub mod realms;
pub mod registry;
pub mod resources;
pub mod review;
pub mod second_factor;
pub mod session;
pub mod sso;
pub mod users;

/// A point in time as the console shows it: in words, with the exact time on hover.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moment {
    /// RFC 3339, UTC.
    pub at: String,
    /// Relative to the server's now (`5 minutes ago`, `in 2 days`).
    pub ago: String,
}

/// Rows per page on list screens.
pub const PAGE_SIZE: u32 = 20;

/// One page of a list paged by key (`authz::paging`): its rows, how many match in all, and the
/// keys the pages before and after it start from (the `before` and `after` of their links).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyedPage<T> {
    /// Rows.
    pub items: Vec<T>,
    /// All matching rows.
    pub total: u64,
    /// Matching rows before this page.
    pub before: u64,
    /// The previous page is the rows before this key (`None` on the first page).
    pub prev: Option<String>,
    /// The next page is the rows after this key (`None` on the last page).
    pub next: Option<String>,
}

impl<T> Default for KeyedPage<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            total: 0,
            before: 0,
            prev: None,
            next: None,
        }
    }
}
