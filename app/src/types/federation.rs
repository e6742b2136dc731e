//! Identity providers a realm trusts for ID-JAGs (`api::federation`, `pages::federation`).
use super::Moment;
use serde::{Deserialize, Serialize};

/// An identity provider whose ID-JAGs the realm accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustedIssuerView {
    /// Id (`tis_…`).
    pub id: String,
    /// Its `iss`.
    pub issuer: String,
    /// Display name.
    pub display_name: String,
    /// Its JWKS URL (empty when its keys were pasted).
    pub jwks_uri: String,
    /// Its pasted JWK Set, pretty-printed (empty with a URL).
    pub jwks: String,
    /// How many keys were pasted.
    pub inline_keys: usize,
    /// Accepted algorithms, space-separated.
    pub algorithms: String,
    /// The clients that may present its assertions.
    pub clients: Vec<String>,
    /// Creates people just in time.
    pub create_people: bool,
    /// Links existing people by email.
    pub link_by_email: bool,
    /// Enabled flag.
    pub enabled: bool,
    /// Last change.
    pub updated: Moment,
}

/// The realm's trusted identity providers, with what they need to know of the realm.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustedIssuersView {
    /// The realm's issuer: the `aud` of the assertions.
    pub issuer: String,
    /// Where clients present them.
    pub token_endpoint: String,
    /// The providers, by name.
    pub items: Vec<TrustedIssuerView>,
}

/// An identity provider's identity linked to a person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonIdentityView {
    /// The provider's issuer.
    pub issuer: String,
    /// The provider's name, when the realm still trusts it.
    pub provider: Option<String>,
    /// Its `sub` for the person.
    pub subject: String,
    /// When the link was made.
    pub linked: Moment,
}

/// A person's linked identities, and the providers an admin may link them to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonIdentitiesView {
    /// The linked identities, oldest first.
    pub links: Vec<PersonIdentityView>,
    /// The realm's trusted providers as (issuer, name), for whoever may see them.
    pub providers: Vec<(String, String)>,
}
