//! A map with a hard size bound, for everything in memory that requests can grow.
use crate::clock::UnixTime;
use std::collections::HashMap;
use std::hash::Hash;

/// A map that never holds more than `cap` entries: inserting a new key into a full map first
/// drops the entries `is_expired` says are dead, then, if that freed less than a tenth, the
/// oldest tenth by insertion time. Each eviction makes room for a tenth of `cap` inserts, so its
/// cost is spread over them.
#[derive(Debug)]
pub(crate) struct BoundedMap<K, V> {
    entries: HashMap<K, (V, UnixTime)>,
    cap: usize,
}

impl<K: Eq + Hash, V> BoundedMap<K, V> {
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            entries: HashMap::new(),
            cap: cap.max(10),
        }
    }

    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.entries.get(key).map(|(v, _)| v)
    }

    /// The value and the time it was inserted.
    pub(crate) fn get_with_time(&self, key: &K) -> Option<(&V, UnixTime)> {
        self.entries.get(key).map(|(v, at)| (v, *at))
    }

    pub(crate) fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.entries.get_mut(key).map(|(v, _)| v)
    }

    pub(crate) fn remove(&mut self, key: &K) {
        self.entries.remove(key);
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn insert(
        &mut self,
        key: K,
        value: V,
        now: UnixTime,
        is_expired: impl Fn(&V) -> bool,
    ) {
        if self.entries.len() >= self.cap && !self.entries.contains_key(&key) {
            self.entries.retain(|_, (v, _)| !is_expired(v));
            let target = self.cap - self.cap / 10;
            if self.entries.len() > target {
                let mut ages: Vec<UnixTime> = self.entries.values().map(|(_, at)| *at).collect();
                let excess = self.entries.len() - target;
                let (_, cutoff, _) = ages.select_nth_unstable(excess - 1);
                let cutoff = *cutoff;
                let mut dropped = 0;
                self.entries.retain(|_, (_, at)| {
                    let keep = *at > cutoff || dropped >= excess;
                    if !keep {
                        dropped += 1;
                    }
                    keep
                });
            }
        }
        self.entries.insert(key, (value, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_entries_go_first() {
        let mut m: BoundedMap<u32, ()> = BoundedMap::new(100);
        for i in 0..100 {
            m.insert(i, (), i64::from(i), |()| false);
        }
        m.insert(1000, (), 1000, |()| false);
        assert!(m.len() <= 91);
        assert!(m.get(&0).is_none() && m.get(&99).is_some() && m.get(&1000).is_some());
    }
}
