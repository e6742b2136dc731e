//! Paging by key: which page of a list to show ([`Page`]), and one page of results with the
//! total and the cursors of the pages around it ([`Paged`]).
//!
//! Every list the core pages is ordered by a key unique within its realm (a `client_id`, an
//! agent's name, an email). A page starts after or before a key, so storage reads it with
//! `WHERE key > $after ORDER BY key LIMIT n` from the index: the ten-thousandth page costs what
//! the first does, and a row added while someone pages neither repeats nor hides another (an
//! `OFFSET` page would do both, and reads every row it skips).

/// Longest cursor accepted from a request (a key is at most an email's 320 characters); a
/// longer one is not a key of any row and starts the list from its first page.
pub const MAX_CURSOR_CHARS: usize = 512;

/// Where a page starts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Cursor {
    /// The first rows of the list.
    #[default]
    First,
    /// The rows after this key (the next page).
    After(String),
    /// The rows before this key (the previous page), still returned in the list's order.
    Before(String),
}

/// A page request: up to `limit` rows from `cursor`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Page {
    /// Where the page starts.
    pub cursor: Cursor,
    /// Rows to return (1–500).
    pub limit: u32,
}

impl Page {
    /// The first `size` rows; size is clamped to 1–500.
    pub fn first(size: u32) -> Self {
        Self::at(Cursor::First, size)
    }

    /// `size` rows from `cursor`; size is clamped to 1–500.
    pub fn at(cursor: Cursor, size: u32) -> Self {
        Self {
            cursor,
            limit: size.clamp(1, 500),
        }
    }

    /// A page from a request's `after` and `before` parameters (empty when absent): `after`
    /// wins when both are given, and a cursor no key could be (empty, too long, with a control
    /// character) starts from the first page.
    pub fn from_params(after: &str, before: &str, size: u32) -> Self {
        // No key holds a control character (and PostgreSQL refuses NUL in text).
        let usable = |s: &str| {
            !s.is_empty() && s.len() <= MAX_CURSOR_CHARS && !s.chars().any(char::is_control)
        };
        let cursor = if usable(after) {
            Cursor::After(after.to_owned())
        } else if usable(before) {
            Cursor::Before(before.to_owned())
        } else {
            Cursor::First
        };
        Self::at(cursor, size)
    }

    /// Rows storage reads for this page: one more than it returns, to learn whether the list
    /// goes on.
    pub fn fetch(&self) -> i64 {
        i64::from(self.limit) + 1
    }

    /// Whether storage reads this page backwards (descending from the cursor).
    pub fn backwards(&self) -> bool {
        matches!(self.cursor, Cursor::Before(_))
    }

    /// Shapes the rows storage read for this page (up to [`Page::fetch`] of them, in key order,
    /// or in reverse order when [`Page::backwards`]) into the page, with the cursors of the
    /// pages before and after it. `key` is the row's key.
    pub fn shape<R>(&self, mut rows: Vec<R>, total: u64, key: impl Fn(&R) -> String) -> Paged<R> {
        let limit = usize::try_from(self.limit).unwrap_or(usize::MAX);
        let more = rows.len() > limit;
        rows.truncate(limit);
        if self.backwards() {
            rows.reverse();
        }
        // Rows lie beyond the page on the side it was read towards when one more was found, and
        // on the side it was read from whenever it starts at a key (that key's row, at least).
        let (earlier, later) = match self.cursor {
            Cursor::First => (false, more),
            Cursor::After(_) => (true, more),
            Cursor::Before(_) => (more, true),
        };
        let prev = earlier.then(|| rows.first().map(&key)).flatten();
        let next = later.then(|| rows.last().map(&key)).flatten();
        Paged {
            items: rows,
            total,
            before: 0,
            prev,
            next,
        }
    }
}

/// One page of results, the total number of matching rows, and where the pages around it start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paged<T> {
    /// The rows of this page.
    pub items: Vec<T>,
    /// All matching rows.
    pub total: u64,
    /// Matching rows before this page (its first row is number `before + 1`); storage counts
    /// them when there is a previous page.
    pub before: u64,
    /// The previous page is the rows before this key (`None` on the first page).
    pub prev: Option<String>,
    /// The next page is the rows after this key (`None` on the last page).
    pub next: Option<String>,
}

impl<T> Paged<T> {
    /// The same page with each row converted by `f`; the first error stops it.
    ///
    /// # Errors
    /// The first error `f` returns.
    pub fn try_map<U, E>(self, f: impl FnMut(T) -> Result<U, E>) -> Result<Paged<U>, E> {
        Ok(Paged {
            items: self.items.into_iter().map(f).collect::<Result<_, _>>()?,
            total: self.total,
            before: self.before,
            prev: self.prev,
            next: self.next,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys<'a>(p: &'a Paged<&'a str>) -> (Vec<&'a str>, Option<&'a str>, Option<&'a str>) {
        (p.items.clone(), p.prev.as_deref(), p.next.as_deref())
    }

    #[test]
    fn pages_carry_the_keys_around_them() {
        let key = |r: &&str| (*r).to_owned();
        // The first page of a longer list: storage found one row more than the page.
        let first = Page::first(2).shape(vec!["a", "b", "c"], 5, key);
        assert_eq!(keys(&first), (vec!["a", "b"], None, Some("b")));
        // A middle page read forwards.
        let middle = Page::at(Cursor::After("b".into()), 2).shape(vec!["c", "d", "e"], 5, key);
        assert_eq!(keys(&middle), (vec!["c", "d"], Some("c"), Some("d")));
        // The last page.
        let last = Page::at(Cursor::After("d".into()), 2).shape(vec!["e"], 5, key);
        assert_eq!(keys(&last), (vec!["e"], Some("e"), None));
        // Back from the last page: read descending, returned in order.
        let back = Page::at(Cursor::Before("e".into()), 2).shape(vec!["d", "c", "b"], 5, key);
        assert_eq!(keys(&back), (vec!["c", "d"], Some("c"), Some("d")));
        // Back to the start: nothing before it.
        let start = Page::at(Cursor::Before("c".into()), 2).shape(vec!["b", "a"], 5, key);
        assert_eq!(keys(&start), (vec!["a", "b"], None, Some("b")));
        // A short list.
        let all = Page::first(10).shape(vec!["a"], 1, key);
        assert_eq!(keys(&all), (vec!["a"], None, None));
        // Past the end (rows deleted since the link was made): no row, no cursor.
        let gone = Page::at(Cursor::After("z".into()), 2).shape(Vec::<&str>::new(), 5, key);
        assert_eq!(keys(&gone), (vec![], None, None));
    }

    #[test]
    fn requests_name_their_cursor() {
        assert_eq!(Page::from_params("", "", 50), Page::first(50));
        assert_eq!(
            Page::from_params("b", "x", 50).cursor,
            Cursor::After("b".into()),
            "after wins"
        );
        assert_eq!(
            Page::from_params("", "x", 50).cursor,
            Cursor::Before("x".into())
        );
        let long = "x".repeat(MAX_CURSOR_CHARS + 1);
        assert_eq!(Page::from_params(&long, "", 50).cursor, Cursor::First);
        assert_eq!(Page::from_params("a\0b", "", 50).cursor, Cursor::First);
        assert_eq!(Page::first(0).limit, 1);
        assert_eq!(Page::first(10_000).limit, 500);
        assert_eq!(Page::first(50).fetch(), 51);
    }
}
