//! Types every store shares: the commit generation, the base trait, and the LIKE pattern for
//! searches. Pages of results are in [`crate::paging`].
use crate::error::StorageError;
use std::sync::atomic::{AtomicU64, Ordering};

/// A counter bumped by every commit of a store: cached reads tagged with an older value are
/// stale.
#[derive(Debug, Default)]
pub struct Generation(AtomicU64);

impl Generation {
    /// The current value.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }

    /// Marks every earlier read stale.
    pub fn bump(&self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }
}

/// What every store offers besides the domains.
#[async_trait::async_trait]
pub trait BaseStore: Send + Sync {
    /// Runs a trivial query.
    async fn ping(&self) -> Result<(), StorageError>;
    /// The generation: changes whenever this store committed a change.
    fn generation(&self) -> u64;
}

/// Escapes `%`, `_` and `\` for a `LIKE … ESCAPE '\'` pattern and wraps it in `%…%`.
pub(crate) fn contains_pattern(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('%');
    for c in s.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// How a backend searches text by substring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// `LIKE` on lower-cased columns, served by `pg_trgm` GIN indexes.
    Postgres,
    /// FTS5 trigram tables (`<table>_search`), kept by triggers; `LIKE` for short queries.
    Sqlite,
}

/// Shortest query a trigram index can serve.
pub(crate) const MIN_TRIGRAM_CHARS: usize = 3;

/// An FTS5 phrase matching `s` as a substring (with a trigram tokenizer), quotes escaped.
pub(crate) fn trigram_phrase(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}
