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
        .and_then(|d| d.format(&time::format_description::well_known::Rfc3339).ok())
        .unwrap_or_else(|| t.to_string())
}
