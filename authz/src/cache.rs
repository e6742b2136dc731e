//! Bounded in-memory maps, and the read-through cache of the token path (realms, clients with
//! their secrets, resources, agents and access grants) and of the MCP gateway's calls.
//!
//! Every committed change bumps the store's generation (the store's write helper does it, see
//! [`crate::storage::Generation`]), which invalidates every cached entry at once; entries also
//! expire after a few seconds so changes made by other instances are seen soon. Only hits are
//! cached, so a lookup of an unknown client always reaches the database. Keys are canonical
//! (a parsed realm name, a parsed `client_id`, a canonical resource URI), never raw request text.
use crate::bounded::{BoundedMap, Rank};
use crate::clock::UnixTime;
use std::hash::Hash;
use std::sync::RwLock;

/// Seconds a cache entry is trusted (bounds staleness across instances).
pub const TTL_SECS: i64 = 5;
/// Most entries one lookup cache holds.
pub const MAX_CACHED: usize = 10_000;

/// One cached map of the token path.
#[derive(Debug)]
pub(crate) struct Cached<K, V> {
    entries: RwLock<BoundedMap<K, (V, u64)>>,
}

impl<K: Eq + Hash, V> Default for Cached<K, V> {
    fn default() -> Self {
        Self {
            entries: RwLock::new(BoundedMap::new(MAX_CACHED)),
        }
    }
}

impl<K: Eq + Hash, V: Clone> Cached<K, V> {
    /// The value cached for `key` in `generation`, if younger than [`TTL_SECS`].
    pub(crate) fn get(&self, key: &K, generation: u64, now: UnixTime) -> Option<V> {
        let map = self.entries.read().unwrap_or_else(|p| p.into_inner());
        map.get_with_time(key)
            .filter(|((_, g), at)| *g == generation && now - at < TTL_SECS)
            .map(|((v, _), _)| v.clone())
    }

    /// Caches `value` as read in `generation`.
    pub(crate) fn put(&self, key: K, value: V, generation: u64, now: UnixTime) {
        let mut map = self.entries.write().unwrap_or_else(|p| p.into_inner());
        map.insert(key, (value, generation), now, |(_, g)| {
            if *g == generation {
                Rank::Spare
            } else {
                Rank::Dead
            }
        });
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.read().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// A registry member of a realm: its kind and id.
pub(crate) type MemberKey = (crate::realms::RealmId, crate::registry::MemberKind, String);
/// A ring or unit a member is in.
pub(crate) type MemberGroup = (crate::registry::GroupKind, String);

/// A person (or console account) of a realm.
pub(crate) type PersonKey = (crate::realms::RealmId, String);
/// The servers a person connected their own account at, each with its connection's version.
pub(crate) type ConnectedServers = std::sync::Arc<Vec<(String, i64)>>;

/// The caches of one core.
#[derive(Debug, Default)]
pub(crate) struct LookupCache {
    pub(crate) realms: Cached<crate::realms::RealmName, crate::realms::Realm>,
    pub(crate) clients: Cached<
        (crate::realms::RealmId, crate::clients::ClientId),
        (crate::clients::Client, Vec<crate::clients::ClientSecret>),
    >,
    pub(crate) resources: Cached<(crate::realms::RealmId, String), crate::resources::Resource>,
    pub(crate) agents: Cached<crate::agents::AgentId, crate::agents::Agent>,
    /// A client's access grants; an empty list is cached too (the key is an authenticated
    /// client's row id, so no stranger can fill the map).
    pub(crate) grants: Cached<crate::ids::ClientRowId, std::sync::Arc<[crate::access::Grant]>>,
    /// Access tokens whose signature, `typ` and `iss` were verified, by realm and the token's
    /// SHA-256: a token traded again (token exchange, a gateway calling onward) is not
    /// verified again within [`TTL_SECS`]. A key rotation or removal bumps the generation.
    /// Expiry, revocation and liveness are still checked on every use.
    pub(crate) verified: Cached<
        (crate::realms::RealmId, [u8; 32]),
        std::sync::Arc<portcullis_claims::AccessTokenClaims>,
    >,
    /// What the MCP gateway reads on every call: a realm's tool pins, an agent's attached
    /// servers, a member's registry groups and a realm's latest release (each change bumps
    /// the generation).
    pub(crate) tool_pins:
        Cached<crate::realms::RealmId, std::sync::Arc<Vec<crate::gateway::ToolPin>>>,
    pub(crate) attachments:
        Cached<crate::agents::AgentId, std::sync::Arc<Vec<crate::gateway::Attachment>>>,
    pub(crate) member_groups: Cached<MemberKey, std::sync::Arc<Vec<MemberGroup>>>,
    pub(crate) release_heads: Cached<crate::realms::RealmId, crate::registry::ReleaseHead>,
    /// The servers a person has connected their own account at (connecting and disconnecting
    /// bump the generation; refreshing their tokens does not).
    pub(crate) connected_servers: Cached<PersonKey, ConnectedServers>,
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
        assert_eq!(c.get(&1, 1, 101), None, "generation");
    }

    #[test]
    fn caches_are_bounded_even_when_every_entry_is_fresh() {
        let c: Cached<u32, u32> = Cached::default();
        for i in 0..(MAX_CACHED as u32 * 3) {
            c.put(i, i, 0, 100);
        }
        assert!(c.len() <= MAX_CACHED);
        assert_eq!(
            c.get(&(MAX_CACHED as u32 * 3 - 1), 0, 100),
            Some(MAX_CACHED as u32 * 3 - 1)
        );
    }
}
