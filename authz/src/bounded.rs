//! A map with a hard size bound, for everything in memory that requests can grow.
use crate::clock::UnixTime;
use std::collections::HashMap;
use std::hash::Hash;

/// How an entry fares when a full map makes room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rank {
    /// Of no use any more: dropped first.
    Dead,
    /// Ordinary: the oldest go when room is needed.
    Spare,
    /// Worth keeping (a throttle counter at its limit): goes only when nothing else is left.
    Keep,
}

/// A map that never holds more than `cap` entries.
///
/// Inserting a new key into a full map first drops the entries ranked [`Rank::Dead`], then, if
/// that freed less than a tenth, the oldest [`Rank::Spare`] entries by insertion time, and only
/// then the oldest [`Rank::Keep`] ones, until a tenth is free. Each eviction makes room for a
/// tenth of `cap` inserts, so its cost is spread over them.
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

    pub(crate) fn insert(&mut self, key: K, value: V, now: UnixTime, rank: impl Fn(&V) -> Rank) {
        if self.entries.len() >= self.cap && !self.entries.contains_key(&key) {
            self.entries.retain(|_, (v, _)| rank(v) != Rank::Dead);
            let target = self.cap - self.cap / 10;
            for tier in [Rank::Spare, Rank::Keep] {
                if self.entries.len() <= target {
                    break;
                }
                self.drop_oldest(self.entries.len() - target, tier, &rank);
            }
        }
        self.entries.insert(key, (value, now));
    }

    /// Drops up to `excess` of the oldest entries ranked at most `tier`.
    fn drop_oldest(&mut self, excess: usize, tier: Rank, rank: &impl Fn(&V) -> Rank) {
        let mut ages: Vec<UnixTime> = self
            .entries
            .values()
            .filter(|(v, _)| rank(v) <= tier)
            .map(|(_, at)| *at)
            .collect();
        if ages.is_empty() {
            return;
        }
        let excess = excess.min(ages.len());
        let (_, cutoff, _) = ages.select_nth_unstable(excess - 1);
        let cutoff = *cutoff;
        let mut dropped = 0;
        self.entries.retain(|_, (v, at)| {
            let go = dropped < excess && *at <= cutoff && rank(v) <= tier;
            if go {
                dropped += 1;
            }
            !go
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_entries_go_first() {
        let mut m: BoundedMap<u32, ()> = BoundedMap::new(100);
        for i in 0..100 {
            m.insert(i, (), i64::from(i), |()| Rank::Spare);
        }
        m.insert(1000, (), 1000, |()| Rank::Spare);
        assert!(m.len() <= 91);
        assert!(m.get(&0).is_none() && m.get(&99).is_some() && m.get(&1000).is_some());
    }

    #[test]
    fn kept_entries_outlast_spare_ones() {
        // Values are "kept" when true: the oldest entries are kept ones, yet spare ones go.
        let mut m: BoundedMap<u32, bool> = BoundedMap::new(100);
        let rank = |v: &bool| if *v { Rank::Keep } else { Rank::Spare };
        for i in 0..100 {
            m.insert(i, i < 20, i64::from(i), rank);
        }
        m.insert(1000, false, 1000, rank);
        assert!(
            (0..20).all(|i| m.get(&i).is_some()),
            "kept counters survive"
        );
        assert!(m.get(&20).is_none() && m.len() <= 91);
    }
}
