//! Read-through cache for the token path: realms, clients with their secrets, resources and
//! agents.
//!
//! Any change made through this process bumps an epoch that invalidates every entry at once;
//! entries also expire after a few seconds so changes made by other instances are seen soon.
//! Only hits are cached, so a lookup of an unknown client always reaches the database (and is
//! throttled there).
use crate::clock::UnixTime;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::RwLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// Seconds an entry is trusted (bounds staleness across instances).
pub const TTL_SECS: i64 = 5;

/// One cached map.
#[derive(Debug)]
pub(crate) struct Cached<K, V> {
    entries: RwLock<HashMap<K, (V, u64, UnixTime)>>,
}

impl<K, V> Default for Cached<K, V> {
    fn default() -> Self {
        Self {
            entries: RwLock::default(),
        }
    }
}

impl<K: Eq + Hash, V: Clone> Cached<K, V> {
    pub(crate) fn get(&self, key: &K, epoch: u64, now: UnixTime) -> Option<V> {
        let map = self.entries.read().unwrap_or_else(|p| p.into_inner());
        map.get(key)
            .filter(|(_, e, at)| *e == epoch && now - at < TTL_SECS)
            .map(|(v, _, _)| v.clone())
    }

    pub(crate) fn put(&self, key: K, value: V, epoch: u64, now: UnixTime) {
        let mut map = self.entries.write().unwrap_or_else(|p| p.into_inner());
        if map.len() > 10_000 {
            map.retain(|_, (_, e, at)| *e == epoch && now - *at < TTL_SECS);
        }
        map.insert(key, (value, epoch, now));
    }
}

/// The caches of one core.
#[derive(Debug, Default)]
pub(crate) struct LookupCache {
    epoch: AtomicU64,
    pub(crate) realms: Cached<String, crate::realms::Realm>,
    pub(crate) clients:
        Cached<(String, String), (crate::clients::Client, Vec<crate::clients::ClientSecret>)>,
    pub(crate) resources: Cached<(String, String), crate::resources::Resource>,
    pub(crate) agents: Cached<String, crate::agents::Agent>,
}

impl LookupCache {
    /// The current epoch.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    /// Invalidates every entry.
    pub(crate) fn invalidate(&self) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_expire_and_invalidate() {
        let c: Cached<u8, &str> = Cached::default();
        c.put(1, "a", 0, 100);
        assert_eq!(c.get(&1, 0, 104), Some("a"));
        assert_eq!(c.get(&1, 0, 105), None, "ttl");
        assert_eq!(c.get(&1, 1, 101), None, "epoch");
    }
}
