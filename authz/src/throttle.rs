//! Sign-in throttling per account and per client IP (fixed windows, in memory).
//!
//! Known quirk: counters live in the process, so several instances each allow the limit.
use crate::clock::UnixTime;
use std::collections::HashMap;
use std::sync::Mutex;

/// Failed attempts allowed per account within a window.
pub const MAX_FAILURES_PER_ACCOUNT: u32 = 5;
/// Failed attempts allowed per IP within a window.
pub const MAX_FAILURES_PER_IP: u32 = 20;
/// Window length in seconds.
pub const WINDOW_SECS: i64 = 15 * 60;

/// Failed authentications of one OAuth client allowed within a window.
pub const MAX_CLIENT_FAILURES: u32 = 10;

/// Failure counters per account (or client) and per IP.
#[derive(Debug)]
pub(crate) struct LoginThrottle {
    failures: Mutex<HashMap<String, (u32, UnixTime)>>,
    max_per_account: u32,
    max_per_ip: u32,
}

impl Default for LoginThrottle {
    fn default() -> Self {
        Self::new(MAX_FAILURES_PER_ACCOUNT, MAX_FAILURES_PER_IP)
    }
}

impl LoginThrottle {
    /// A throttle with the given limits per window.
    pub(crate) fn new(max_per_account: u32, max_per_ip: u32) -> Self {
        Self {
            failures: Mutex::default(),
            max_per_account,
            max_per_ip,
        }
    }

    fn keys(&self, account: &str, ip: Option<&str>) -> [(String, u32); 2] {
        [
            (format!("acct:{account}"), self.max_per_account),
            (format!("ip:{}", ip.unwrap_or("unknown")), self.max_per_ip),
        ]
    }

    /// Seconds to wait if either key is over its limit.
    pub(crate) fn retry_after(
        &self,
        account: &str,
        ip: Option<&str>,
        now: UnixTime,
    ) -> Option<u64> {
        let map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        self.keys(account, ip)
            .iter()
            .filter_map(|(k, max)| {
                let (n, start) = map.get(k)?;
                let end = start + WINDOW_SECS;
                (*n >= *max && now < end).then(|| u64::try_from(end - now).unwrap_or(1))
            })
            .max()
    }

    pub(crate) fn record_failure(&self, account: &str, ip: Option<&str>, now: UnixTime) {
        let mut map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        // Bound memory: drop expired windows when the map grows.
        if map.len() > 100_000 {
            map.retain(|_, (_, start)| now < *start + WINDOW_SECS);
        }
        for (k, _) in self.keys(account, ip) {
            let e = map.entry(k).or_insert((0, now));
            if now >= e.1 + WINDOW_SECS {
                *e = (0, now);
            }
            e.0 += 1;
        }
    }

    pub(crate) fn record_success(&self, account: &str) {
        let mut map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        map.remove(&format!("acct:{account}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_account_after_limit_and_unlocks_after_window() {
        let t = LoginThrottle::default();
        for _ in 0..MAX_FAILURES_PER_ACCOUNT {
            assert_eq!(t.retry_after("a", Some("1.1.1.1"), 100), None);
            t.record_failure("a", Some("1.1.1.1"), 100);
        }
        assert_eq!(
            t.retry_after("a", Some("2.2.2.2"), 100),
            Some(WINDOW_SECS as u64)
        );
        assert_eq!(t.retry_after("b", Some("2.2.2.2"), 100), None);
        assert_eq!(t.retry_after("a", Some("2.2.2.2"), 100 + WINDOW_SECS), None);
    }

    #[test]
    fn locks_ip_across_accounts() {
        let t = LoginThrottle::default();
        for i in 0..MAX_FAILURES_PER_IP {
            t.record_failure(&format!("u{i}"), Some("9.9.9.9"), 0);
        }
        assert!(t.retry_after("fresh", Some("9.9.9.9"), 1).is_some());
        assert!(t.retry_after("fresh", Some("8.8.8.8"), 1).is_none());
    }
}
