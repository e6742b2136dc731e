//! Access-token lifetime policy: the default a new realm starts with, the bounds a realm or a
//! resource may configure, and the lifetime in effect for a resource's tokens. Pure: realms and
//! resources store their settings, the token endpoint mints with [`minted_token_ttl`].

/// The access-token lifetime a new realm starts with, in seconds.
pub const DEFAULT_TOKEN_TTL_SECS: i64 = 300;

/// Longest access-token lifetime a realm or resource may configure; retired keys stay published
/// this long (plus leeway) after rotation.
pub const MAX_TOKEN_TTL_SECS: i64 = 3600;
/// Shortest access-token lifetime a realm or resource may configure.
pub const MIN_TOKEN_TTL_SECS: i64 = 30;

/// Parses a typed access-token lifetime in seconds, for the input named `field`.
///
/// # Errors
/// `InvalidField` when it is not a whole number of seconds in the allowed range.
pub fn parse_token_ttl(s: &str, field: &'static str) -> crate::error::Result<i64> {
    s.trim()
        .parse()
        .ok()
        .filter(|t| (MIN_TOKEN_TTL_SECS..=MAX_TOKEN_TTL_SECS).contains(t))
        .ok_or_else(|| {
            crate::error::Error::field(
                field,
                format!(
                    "Token lifetime must be a whole number of seconds from {MIN_TOKEN_TTL_SECS} to {MAX_TOKEN_TTL_SECS}."
                ),
            )
        })
}

/// The access-token lifetime in effect for a resource: its own (`own`), else its realm's
/// default.
pub fn effective_token_ttl(own: Option<i64>, realm_default: i64) -> i64 {
    own.unwrap_or(realm_default)
}

/// The lifetime a minted access token gets: the effective one, clamped again to
/// [`MIN_TOKEN_TTL_SECS`]–[`MAX_TOKEN_TTL_SECS`], because key retirement keeps keys published
/// for the longest lifetime only.
pub fn minted_token_ttl(own: Option<i64>, realm_default: i64) -> i64 {
    effective_token_ttl(own, realm_default).clamp(MIN_TOKEN_TTL_SECS, MAX_TOKEN_TTL_SECS)
}

/// How long access tokens already issued in a realm may still be accepted by resource servers
/// that verify them themselves: the longest lifetime in effect, given the longest lifetime any
/// resource sets of its own (`longest_own`) and the realm's default.
pub fn local_token_horizon(longest_own: Option<i64>, realm_default: i64) -> i64 {
    longest_own.map_or(realm_default, |t| t.max(realm_default))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_without_its_own_lifetime_follows_the_realm() {
        assert_eq!(effective_token_ttl(None, 300), 300);
        assert_eq!(effective_token_ttl(Some(60), 300), 60);
    }

    #[test]
    fn minted_lifetimes_stay_within_the_bounds() {
        assert_eq!(minted_token_ttl(Some(60), 300), 60);
        assert_eq!(
            minted_token_ttl(None, MAX_TOKEN_TTL_SECS + 1),
            MAX_TOKEN_TTL_SECS
        );
        assert_eq!(minted_token_ttl(Some(1), 300), MIN_TOKEN_TTL_SECS);
    }

    #[test]
    fn the_horizon_is_the_longest_lifetime_in_effect() {
        assert_eq!(local_token_horizon(None, 300), 300);
        assert_eq!(local_token_horizon(Some(900), 300), 900);
        assert_eq!(local_token_horizon(Some(60), 300), 300);
    }

    #[test]
    fn typed_lifetimes_outside_the_bounds_are_refused() {
        assert_eq!(parse_token_ttl(" 300 ", "ttl").expect("in range"), 300);
        for bad in ["29", "3601", "5m", ""] {
            assert!(parse_token_ttl(bad, "ttl").is_err(), "{bad}");
        }
    }
}
