//! Time source, injected so tests control it.
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

/// Unix time in whole seconds.
pub type UnixTime = i64;

/// A source of the current time.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Now, in Unix seconds.
    fn now(&self) -> UnixTime;
}

/// The system clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> UnixTime {
        time::OffsetDateTime::now_utc().unix_timestamp()
    }
}

/// A clock that only moves when told to (tests).
#[derive(Debug, Clone)]
pub struct FixedClock(Arc<AtomicI64>);

impl FixedClock {
    /// A clock stopped at `t`.
    pub fn at(t: UnixTime) -> Self {
        Self(Arc::new(AtomicI64::new(t)))
    }

    /// Moves the clock forward by `secs`.
    pub fn advance(&self, secs: i64) {
        self.0.fetch_add(secs, Ordering::SeqCst);
    }
}

impl Clock for FixedClock {
    fn now(&self) -> UnixTime {
        self.0.load(Ordering::SeqCst)
    }
}

/// Formats Unix seconds as RFC 3339 UTC, e.g. `2026-11-29T22:49:25Z`.
pub fn rfc3339(t: UnixTime) -> String {
    time::OffsetDateTime::from_unix_timestamp(t)
        .ok()
        .and_then(|d| {
            d.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| t.to_string())
}

/// The time `t` relative to `now`, in words.
///
/// `just now` (within a minute either way), `5 minutes ago`, `3 hours ago`, `2 days ago`,
/// `in 5 minutes`, `in 2 days`, and the date (`2026-11-29`) beyond 30 days either way. The
/// console shows the exact UTC time on hover.
pub fn ago(now: UnixTime, t: UnixTime) -> String {
    let past = t <= now;
    let secs = now.abs_diff(t);
    let words = |n: u64, unit: &str| {
        let n_units = if n == 1 {
            format!("1 {unit}")
        } else {
            format!("{n} {unit}s")
        };
        if past {
            format!("{n_units} ago")
        } else {
            format!("in {n_units}")
        }
    };
    match secs {
        ..60 => "just now".to_owned(),
        60..3600 => words(secs / 60, "minute"),
        3600..86_400 => words(secs / 3600, "hour"),
        86_400..2_592_000 => words(secs / 86_400, "day"),
        _ => rfc3339(t).get(..10).unwrap_or_default().to_owned(),
    }
}

/// A duration in words: `45 seconds`, `1 minute`, `15 minutes`, `1 hour`, `2 hours`, `3 days`
/// (rounded up to the unit: a bound never reads shorter than it is).
pub fn duration_words(secs: i64) -> String {
    let secs = secs.max(0);
    let (n, unit) = match secs {
        ..60 => (secs, "second"),
        60..3600 => ((secs + 59) / 60, "minute"),
        3600..86_400 => ((secs + 3599) / 3600, "hour"),
        _ => ((secs + 86_399) / 86_400, "day"),
    };
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// Parses a console time (`YYYY-MM-DDTHH:MM`, `YYYY-MM-DDTHH:MM:SS` or `YYYY-MM-DD`, UTC, or a
/// full RFC 3339 value) into Unix seconds.
///
/// # Errors
/// A message fit for the user when the value is not such a time.
pub fn parse_console_time(s: &str) -> Result<UnixTime, String> {
    use time::format_description::well_known::Rfc3339;
    use time::macros::format_description;
    let s = s.trim();
    if let Ok(t) = time::OffsetDateTime::parse(s, &Rfc3339) {
        return Ok(t.unix_timestamp());
    }
    let minutes = format_description!("[year]-[month]-[day]T[hour]:[minute]");
    let seconds = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]");
    if let Ok(t) = time::PrimitiveDateTime::parse(s, &minutes)
        .or_else(|_| time::PrimitiveDateTime::parse(s, &seconds))
    {
        return Ok(t.assume_utc().unix_timestamp());
    }
    let date = format_description!("[year]-[month]-[day]");
    time::Date::parse(s, &date)
        .map(|d| d.midnight().assume_utc().unix_timestamp())
        .map_err(|_| format!("\"{s}\" is not a time; use YYYY-MM-DDTHH:MM (UTC)."))
}

#[cfg(test)]
mod tests {

    #[test]
    fn times_ago_read_as_words() {
        let now = 1_800_000_000;
        let cases = [
            (now + 5, "just now"),
            (now - 59, "just now"),
            (now - 60, "1 minute ago"),
            (now - 7_199, "1 hour ago"),
            (now - 7_200, "2 hours ago"),
            (now - 86_400 * 3, "3 days ago"),
            (now + 60, "in 1 minute"),
            (now + 7_200, "in 2 hours"),
            (now + 86_400 * 14, "in 14 days"),
        ];
        for (t, words) in cases {
            assert_eq!(ago(now, t), words, "{t}");
        }
        assert_eq!(
            ago(now, now - 86_400 * 40),
            rfc3339(now - 86_400 * 40)[..10]
        );
        assert_eq!(
            ago(now, now + 86_400 * 40),
            rfc3339(now + 86_400 * 40)[..10]
        );
    }
    use super::*;

    #[test]
    fn durations_read_as_words_and_never_shorter() {
        for (secs, words) in [
            (45, "45 seconds"),
            (60, "1 minute"),
            (61, "2 minutes"),
            (900, "15 minutes"),
            (3600, "1 hour"),
            (5400, "2 hours"),
            (86_400 * 3, "3 days"),
        ] {
            assert_eq!(duration_words(secs), words, "{secs}");
        }
    }

    #[test]
    fn console_times() {
        assert_eq!(parse_console_time("1970-01-01T00:01"), Ok(60));
        assert_eq!(parse_console_time("1970-01-02"), Ok(86_400));
        assert_eq!(parse_console_time("1970-01-01T00:00:05Z"), Ok(5));
        assert!(parse_console_time("yesterday").is_err());
        assert_eq!(rfc3339(86_400), "1970-01-02T00:00:00Z");
    }
}
