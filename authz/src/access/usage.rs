//! When each grant was last used, counted in memory on the token path and written to the
//! database periodically ([`crate::Core::flush_token_use`]), never once per token.
use crate::clock::UnixTime;
use crate::ids::{ClientRowId, ResourceId};
use std::collections::HashMap;
use std::sync::Mutex;

/// Most grants remembered between two flushes; beyond it new ones wait for the next flush.
pub const MAX_PENDING: usize = 100_000;

/// The latest token time per (client, resource) since the last flush.
#[derive(Debug, Default)]
pub(crate) struct TokenUse {
    pending: Mutex<HashMap<(ClientRowId, ResourceId), UnixTime>>,
}

impl TokenUse {
    /// Notes that `client` got a token for `resource` at `at`.
    pub(crate) fn record(&self, client: &ClientRowId, resource: &ResourceId, at: UnixTime) {
        let mut map = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        let key = (client.clone(), resource.clone());
        if let Some(t) = map.get_mut(&key) {
            *t = (*t).max(at);
        } else if map.len() < MAX_PENDING {
            map.insert(key, at);
        }
    }

    /// Everything noted since the last call.
    pub(crate) fn take(&self) -> Vec<(ClientRowId, ResourceId, UnixTime)> {
        let mut map = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        std::mem::take(&mut *map)
            .into_iter()
            .map(|((c, r), t)| (c, r, t))
            .collect()
    }

    /// Puts back what could not be written, keeping anything newer noted meanwhile.
    pub(crate) fn restore(&self, entries: Vec<(ClientRowId, ResourceId, UnixTime)>) {
        for (c, r, t) in entries {
            self.record(&c, &r, t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_latest_time_per_grant_and_is_bounded() {
        let u = TokenUse::default();
        let (c, r) = (
            ClientRowId::from_stored("cli_1"),
            ResourceId::from_stored("res_1"),
        );
        u.record(&c, &r, 10);
        u.record(&c, &r, 30);
        u.record(&c, &r, 20);
        assert_eq!(u.take(), [(c.clone(), r.clone(), 30)]);
        assert!(u.take().is_empty(), "taken once");
        for i in 0..(MAX_PENDING + 10) {
            u.record(&ClientRowId::from_stored(format!("cli_{i}")), &r, 1);
        }
        let all = u.take();
        assert_eq!(all.len(), MAX_PENDING);
        u.restore(all);
        u.record(&ClientRowId::from_stored("cli_0"), &r, 5);
        assert!(
            u.take()
                .contains(&(ClientRowId::from_stored("cli_0"), r, 5))
        );
    }
}
