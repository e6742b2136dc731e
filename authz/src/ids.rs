//! Row identifiers: opaque, prefixed random ids (`rlm_…`, `cli_…`), one type per entity.
//!
//! [`Id<T>`] is the primary key of entity kind `T` (a marker type in [`kind`], so that this module
//! depends on no domain module and every domain module may depend on it). It never changes, even when the entity is renamed, and is
//! never reused: a row deleted and created again under the same name gets a new id, which is
//! how tokens and caches tell the two apart. Store methods take these types, so a client's row
//! id cannot be passed where a realm's is expected.
use rand::RngCore;
use std::marker::PhantomData;

/// An entity with a row id.
pub trait Entity: 'static {
    /// The id prefix, e.g. `cli`.
    const PREFIX: &'static str;
}

macro_rules! entities {
    ($($(#[$doc:meta])* $kind:ident => $alias:ident, $prefix:literal;)*) => {
        /// Marker types naming each entity kind.
        pub mod kind {
            $(
                $(#[$doc])*
                #[derive(Debug)]
                pub enum $kind {}
                impl $crate::ids::Entity for $kind {
                    const PREFIX: &'static str = $prefix;
                }
            )*
        }
        $(
            $(#[$doc])*
            pub type $alias = Id<kind::$kind>;
        )*
    };
}

entities! {
    /// A realm's id (`rlm_…`).
    Realm => RealmId, "rlm";
    /// A console user's id (`usr_…`).
    User => UserId, "usr";
    /// A protected resource's id (`res_…`).
    Resource => ResourceId, "res";
    /// A client's row id (`cli_…`; not its OAuth `client_id`).
    Client => ClientRowId, "cli";
    /// A client secret's id (`sec_…`).
    Secret => SecretId, "sec";
    /// An agent's id (`agt_…`), carried in tokens as `agent_id`.
    Agent => AgentId, "agt";
    /// One binding of a client to an agent (`bnd_…`); a new one on every bind, so tokens from
    /// an earlier binding never come back to life.
    Binding => BindingId, "bnd";
    /// A person of a realm (`psn_…`): someone who signs in at its authorization endpoint.
    Person => PersonId, "psn";
    /// A remembered consent (`cns_…`).
    Consent => ConsentId, "cns";
    /// A token family (`fam_…`): what one authorization produced (its refresh tokens and the
    /// access tokens minted from them), revoked together.
    Family => FamilyId, "fam";
    /// A registry release waiting for a second person's approval (`rrq_…`).
    RegistryRequest => RegistryRequestId, "rrq";
    /// An identity provider a realm trusts for ID-JAG assertions (`tis_…`).
    TrustedIssuer => TrustedIssuerId, "tis";
    /// An OpenID Connect provider console users sign in with (`sso_…`).
    SsoProvider => SsoProviderId, "sso";
    /// An authorization server that trusts a realm's ID-JAGs (`tas_…`).
    TrustingServer => TrustingServerId, "tas";
}

/// The primary key of a `T`.
pub struct Id<T: Entity>(String, PhantomData<fn() -> T>);

impl<T: Entity> Id<T> {
    /// A new random id with `T`'s prefix.
    pub fn generate() -> Self {
        let mut bytes = [0u8; 12];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Self(format!("{}_{}", T::PREFIX, hex::encode(bytes)), PhantomData)
    }

    /// Wraps an id read from storage or carried in a token. Ids are opaque: nothing is checked
    /// here, and an id that names no row simply finds nothing.
    pub fn from_stored(s: impl Into<String>) -> Self {
        Self(s.into(), PhantomData)
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<T: Entity> Clone for Id<T> {
    fn clone(&self) -> Self {
        Self(self.0.clone(), PhantomData)
    }
}

impl<T: Entity> PartialEq for Id<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl<T: Entity> Eq for Id<T> {}

impl<T: Entity> std::hash::Hash for Id<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl<T: Entity> std::fmt::Debug for Id<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<T: Entity> std::fmt::Display for Id<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<T: Entity> serde::Serialize for Id<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de, T: Entity> serde::Deserialize<'de> for Id<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Self::from_stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Thing;
    impl Entity for Thing {
        const PREFIX: &'static str = "thg";
    }

    #[test]
    fn ids_are_prefixed_random_and_compare_by_value() {
        let a = Id::<Thing>::generate();
        assert!(a.as_str().starts_with("thg_"));
        assert_eq!(a.as_str().len(), 4 + 24);
        assert_ne!(a, Id::<Thing>::generate());
        assert_eq!(a, Id::<Thing>::from_stored(a.as_str()));
        assert_eq!(serde_json::to_string(&a).expect("json"), format!("\"{a}\""));
    }
}
