//! Per-caller budgets and per-tool rate limits, in fixed one-minute windows.
//!
//! Every call spends its capability's `cost_hint` (at least 1) from the caller's budget for the
//! minute, and counts once against the caller's limit for that capability. A call over either
//! is refused before anything is sent, with the seconds until the window turns.
use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

const WINDOW: Duration = Duration::from_secs(60);
/// Most windows remembered; stale ones are dropped beyond it.
const MAX_WINDOWS: usize = 100_000;

/// The windows of every caller of this process.
#[derive(Default)]
pub struct Limits {
    windows: Mutex<HashMap<String, (Instant, u64)>>,
}

impl Limits {
    /// Spends `cost` of the caller's budget (`budget` per minute) and one of its calls to
    /// `capability` (`per_tool` per minute); `Err(seconds to wait)` when either is spent.
    pub fn spend(
        &self,
        caller: &str,
        capability: &str,
        cost: u64,
        (budget, per_tool): (u64, u64),
        now: Instant,
    ) -> Result<(), u64> {
        let mut windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
        if windows.len() > MAX_WINDOWS {
            windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let keys = [
            (format!("b\u{0}{caller}"), cost.max(1), budget),
            (format!("t\u{0}{caller}\u{0}{capability}"), 1, per_tool),
        ];
        // Check both before spending either: a refused call spends nothing.
        for (key, amount, limit) in &keys {
            if let Some((start, used)) = windows.get(key)
                && now.duration_since(*start) < WINDOW
                && used + amount > *limit
            {
                return Err(WINDOW
                    .saturating_sub(now.duration_since(*start))
                    .as_secs()
                    .max(1));
            }
            if *amount > *limit {
                return Err(WINDOW.as_secs());
            }
        }
        for (key, amount, _) in keys {
            let entry = windows.entry(key).or_insert((now, 0));
            if now.duration_since(entry.0) >= WINDOW {
                *entry = (now, 0);
            }
            entry.1 += amount;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_count_cost_and_tools_count_calls_per_minute() {
        let l = Limits::default();
        let t0 = Instant::now();
        // Budget 10 per minute: two calls of cost 4 pass, a third does not.
        assert!(l.spend("a", "x.read", 4, (10, 100), t0).is_ok());
        assert!(l.spend("a", "x.read", 4, (10, 100), t0).is_ok());
        let wait = l
            .spend("a", "x.read", 4, (10, 100), t0 + Duration::from_secs(20))
            .unwrap_err();
        assert_eq!(wait, 40);
        // Another caller has its own budget.
        assert!(l.spend("b", "x.read", 4, (10, 100), t0).is_ok());
        // A new minute, a new budget.
        assert!(l.spend("a", "x.read", 4, (10, 100), t0 + WINDOW).is_ok());
        // Per tool: two calls a minute.
        assert!(l.spend("c", "x.write", 1, (100, 2), t0).is_ok());
        assert!(l.spend("c", "x.write", 1, (100, 2), t0).is_ok());
        assert!(l.spend("c", "x.write", 1, (100, 2), t0).is_err());
        assert!(
            l.spend("c", "x.read", 1, (100, 2), t0).is_ok(),
            "another tool"
        );
        // A refused call spent nothing: after the tool refusal, the budget is intact.
        assert!(l.spend("d", "y", 150, (100, 5), t0).is_err());
        assert!(l.spend("d", "y", 100, (100, 5), t0).is_ok());
    }
}
