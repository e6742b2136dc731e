//! Paging: which page of a list to show ([`Page`]), and one page of results with the total.
//!
//! The core's list operations take a [`Page`] and return a [`Paged`], storage runs them as
//! `LIMIT`/`OFFSET`, and the console and the CLI build them from a page number.

/// A page request: skip `offset` rows, return at most `limit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Rows to skip.
    pub offset: u32,
    /// Rows to return (1–500).
    pub limit: u32,
}

impl Page {
    /// Page `index` (0-based) of `size` rows; size is clamped to 1–500.
    pub fn new(index: u32, size: u32) -> Self {
        let limit = size.clamp(1, 500);
        Self {
            offset: index.saturating_mul(limit),
            limit,
        }
    }
}

/// One page of results and the total number of matching rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paged<T> {
    /// The rows of this page.
    pub items: Vec<T>,
    /// All matching rows.
    pub total: u64,
}
