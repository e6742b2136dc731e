//! OAuth scopes (RFC 6749 §3.3): space-delimited, case-sensitive tokens of `%x21 / %x23-5B /
//! %x5D-7E`, held as an ordered set.
use std::collections::BTreeSet;

/// A set of scope tokens.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScopeSet(BTreeSet<String>);

fn is_scope_char(c: char) -> bool {
    matches!(c, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E')
}

/// Most scopes one set may hold: every token carries its scopes, so a set stays small.
pub const MAX_SCOPES: usize = 100;
/// Longest scope, in characters.
pub const MAX_SCOPE_CHARS: usize = 128;

impl ScopeSet {
    /// Parses a space-delimited scope string; empty input is the empty set.
    ///
    /// # Errors
    /// A message naming the first invalid token, or saying the set is too large.
    pub fn parse(s: &str) -> Result<Self, String> {
        let mut set = BTreeSet::new();
        for token in s.split(' ').filter(|t| !t.is_empty()) {
            if !token.chars().all(is_scope_char) {
                let shown: String = token.chars().take(MAX_SCOPE_CHARS).collect();
                // Debug-quoted: control characters come out escaped (the message reaches logs).
                return Err(format!("{shown:?} is not a valid scope"));
            }
            if token.len() > MAX_SCOPE_CHARS {
                return Err(format!(
                    "A scope may be at most {MAX_SCOPE_CHARS} characters long."
                ));
            }
            set.insert(token.to_owned());
            if set.len() > MAX_SCOPES {
                return Err(format!("At most {MAX_SCOPES} scopes are allowed."));
            }
        }
        Ok(Self(set))
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `scope` is in the set.
    pub fn contains(&self, scope: &str) -> bool {
        self.0.contains(scope)
    }

    /// The tokens in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// Tokens in both sets.
    #[must_use]
    pub fn intersection(&self, other: &ScopeSet) -> ScopeSet {
        ScopeSet(self.0.intersection(&other.0).cloned().collect())
    }

    /// Tokens in either set.
    #[must_use]
    pub fn union(&self, other: &ScopeSet) -> ScopeSet {
        ScopeSet(self.0.union(&other.0).cloned().collect())
    }

    /// Tokens in this set and not in `other`.
    #[must_use]
    pub fn difference(&self, other: &ScopeSet) -> ScopeSet {
        ScopeSet(self.0.difference(&other.0).cloned().collect())
    }
}

impl std::fmt::Display for ScopeSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for s in &self.0 {
            if !first {
                f.write_str(" ")?;
            }
            f.write_str(s)?;
            first = false;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_and_intersects() {
        let a = ScopeSet::parse("tools:read  tools:call mcp").expect("valid");
        assert_eq!(a.to_string(), "mcp tools:call tools:read");
        let b = ScopeSet::parse("tools:call other").expect("valid");
        assert_eq!(a.intersection(&b).to_string(), "tools:call");
        assert!(ScopeSet::parse("").expect("valid").is_empty());
        for bad in ["a\"b", "a\\b", "tab\there", "é"] {
            assert!(ScopeSet::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn sets_stay_small() {
        let many = |n: usize| {
            (0..n)
                .map(|i| format!("s{i}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            ScopeSet::parse(&many(MAX_SCOPES)).map(|s| s.0.len()),
            Ok(MAX_SCOPES)
        );
        assert!(ScopeSet::parse(&many(MAX_SCOPES + 1)).is_err());
        // Repeats count once.
        assert!(ScopeSet::parse(&"a ".repeat(1000)).is_ok());
        assert!(ScopeSet::parse(&"x".repeat(MAX_SCOPE_CHARS)).is_ok());
        assert!(ScopeSet::parse(&"x".repeat(MAX_SCOPE_CHARS + 1)).is_err());
    }

    proptest! {
        #[test]
        fn display_round_trips(tokens in proptest::collection::vec("[!#-\\[\\]-~]{1,12}", 0..6)) {
            let set = ScopeSet::parse(&tokens.join(" ")).expect("valid tokens");
            let again = ScopeSet::parse(&set.to_string()).expect("round trip");
            prop_assert_eq!(&set, &again);
            for t in &tokens {
                prop_assert!(set.contains(t));
            }
        }

        #[test]
        fn never_panics_and_never_accepts_spaces_inside(s in "\\PC{0,40}") {
            if let Ok(set) = ScopeSet::parse(&s) {
                prop_assert!(set.iter().all(|t| !t.is_empty() && t.chars().all(is_scope_char)));
            }
        }
    }
}
