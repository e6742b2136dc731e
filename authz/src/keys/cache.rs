//! The loaded keys of each realm: signers, verifiers and the JWKS, cached per realm.
//!
//! An entry is used while the store's generation is unchanged (every committed change bumps it,
//! so a rotation here is seen at once) and for at most [`CACHE_SECS`] (a rotation by another
//! instance is seen within that time).
use super::jws::{Signer, Verifier};
use super::model::SigningAlg;
use crate::clock::UnixTime;
use crate::ids::RealmId;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};

/// How long a cached key set is trusted before re-reading (other instances may have rotated).
pub(crate) const CACHE_SECS: i64 = 30;

/// The loaded keys of one realm.
#[derive(Debug)]
pub struct RealmKeys {
    pub(crate) loaded_at: UnixTime,
    pub(crate) generation: u64,
    pub(crate) signers: HashMap<SigningAlg, Arc<Signer>>,
    pub(crate) verifiers: HashMap<String, Verifier>,
    pub(crate) jwks: serde_json::Value,
}

impl RealmKeys {
    /// The active signer for `alg`.
    pub fn signer(&self, alg: SigningAlg) -> Option<&Arc<Signer>> {
        self.signers.get(&alg)
    }

    /// The verifier for a published key id.
    pub fn verifier(&self, kid: &str) -> Option<&Verifier> {
        self.verifiers.get(kid)
    }

    /// The JWKS document.
    pub fn jwks(&self) -> &serde_json::Value {
        &self.jwks
    }

    /// Whether this set may still be used.
    pub(crate) fn is_current(&self, generation: u64, now: UnixTime) -> bool {
        self.generation == generation && now - self.loaded_at < CACHE_SECS
    }
}

/// Cache of loaded realm keys (one entry per realm that exists: only realms found in the
/// database are loaded).
#[derive(Debug, Default)]
pub struct KeyRing {
    realms: RwLock<HashMap<RealmId, Arc<RealmKeys>>>,
}

impl KeyRing {
    pub(crate) fn get(&self, realm_id: &RealmId) -> Option<Arc<RealmKeys>> {
        self.realms
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(realm_id)
            .cloned()
    }

    pub(crate) fn put(&self, realm_id: &RealmId, keys: Arc<RealmKeys>) {
        self.realms
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(realm_id.clone(), keys);
    }
}
