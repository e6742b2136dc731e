//! The authorization servers that trust a realm's ID-JAGs (`api::chaining`, `pages::chaining`).
use super::Moment;
use serde::{Deserialize, Serialize};

/// An authorization server that accepts the realm's ID-JAGs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustingServerView {
    /// Id (`tas_…`).
    pub id: String,
    /// Its issuer (the ID-JAG's `aud`).
    pub issuer: String,
    /// Display name.
    pub display_name: String,
    /// The resources ID-JAGs may name.
    pub resources: Vec<String>,
    /// The scopes they may carry, space-separated (empty: as the client asks).
    pub scopes: String,
    /// The clients, one per line as the form takes them (`id` or `id -> id there`).
    pub clients: String,
    /// Enabled flag.
    pub enabled: bool,
    /// Last change.
    pub updated: Moment,
}

/// The realm's trusting servers, with what they need to know of the realm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustingServersView {
    /// The realm's issuer: the `iss` of its ID-JAGs.
    pub issuer: String,
    /// Where its keys are published.
    pub jwks_uri: String,
    /// Where clients exchange ID tokens for ID-JAGs.
    pub token_endpoint: String,
    /// The servers, by name.
    pub items: Vec<TrustingServerView>,
}
