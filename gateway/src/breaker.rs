//! A circuit breaker per upstream: it opens after a run of failures, refuses calls while open,
//! and after a delay lets one call through (half-open) whose outcome closes or reopens it.
use std::time::{Duration, Instant};

/// Where a breaker stands, as search and the console report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    /// Calls go through; the last ones succeeded.
    Up,
    /// Calls go through, but the last ones failed (fewer than open the breaker).
    Degraded,
    /// Calls are refused until the delay passes.
    CircuitOpen,
}

impl Availability {
    /// Wire form.
    pub fn as_str(self) -> &'static str {
        match self {
            Availability::Up => "up",
            Availability::Degraded => "degraded",
            Availability::CircuitOpen => "circuit_open",
        }
    }
}

/// One upstream's breaker.
#[derive(Debug, Clone, Default)]
pub struct Breaker {
    failures: u32,
    opened_at: Option<Instant>,
    /// A half-open trial under way since then: other calls are refused until its outcome, or
    /// until it is as old as the open delay (a trial that never reported does not hold it shut).
    trial: Option<Instant>,
}

impl Breaker {
    /// Whether a call may go through now; a half-open breaker lets exactly one through.
    pub fn admit(&mut self, now: Instant, open_for: Duration) -> bool {
        match self.opened_at {
            None => true,
            Some(at)
                if now.duration_since(at) >= open_for
                    && self.trial.is_none_or(|t| now.duration_since(t) >= open_for) =>
            {
                self.trial = Some(now);
                true
            }
            Some(_) => false,
        }
    }

    /// Ends a trial that says nothing about the upstream (the call never reached it).
    pub fn release(&mut self) {
        self.trial = None;
    }

    /// Records a call's outcome.
    pub fn record(&mut self, ok: bool, now: Instant, threshold: u32) {
        self.trial = None;
        if ok {
            self.failures = 0;
            self.opened_at = None;
            return;
        }
        self.failures = self.failures.saturating_add(1);
        if self.failures >= threshold.max(1) || self.opened_at.is_some() {
            self.opened_at = Some(now);
        }
    }

    /// Where it stands at `now`.
    pub fn availability(&self) -> Availability {
        match (self.opened_at, self.failures) {
            (Some(_), _) => Availability::CircuitOpen,
            (None, 0) => Availability::Up,
            (None, _) => Availability::Degraded,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_after_the_threshold_and_half_opens_after_the_delay() {
        let (t0, open_for) = (Instant::now(), Duration::from_secs(30));
        let mut b = Breaker::default();
        b.record(false, t0, 3);
        b.record(false, t0, 3);
        assert_eq!(b.availability(), Availability::Degraded);
        assert!(b.admit(t0, open_for));
        b.record(false, t0, 3);
        assert_eq!(b.availability(), Availability::CircuitOpen);
        assert!(!b.admit(t0 + Duration::from_secs(29), open_for));
        // Half-open: one trial, the next caller is refused until it ends.
        let later = t0 + Duration::from_secs(31);
        assert!(b.admit(later, open_for));
        assert!(!b.admit(later, open_for));
        // A failed trial reopens it at once.
        b.record(false, later, 3);
        assert!(!b.admit(later + Duration::from_secs(1), open_for));
        let again = later + Duration::from_secs(31);
        assert!(b.admit(again, open_for));
        b.record(true, again, 3);
        assert_eq!(b.availability(), Availability::Up);
        assert!(b.admit(again, open_for));
    }

    #[test]
    fn a_trial_that_never_reports_does_not_hold_the_breaker_shut() {
        let (t0, open_for) = (Instant::now(), Duration::from_secs(30));
        let mut b = Breaker::default();
        b.record(false, t0, 1);
        let later = t0 + Duration::from_secs(31);
        assert!(b.admit(later, open_for));
        // The trial's call never reached the upstream (no token): released, the next may try.
        b.release();
        assert!(b.admit(later, open_for));
        // Lost altogether: after the open delay another trial goes.
        assert!(!b.admit(later + Duration::from_secs(29), open_for));
        assert!(b.admit(later + Duration::from_secs(30), open_for));
    }
}
