//! A realm's people and their connected apps (`api::people`, `pages::people`, `pages::account`).
use super::Moment;
use serde::{Deserialize, Serialize};

/// A person of a realm (who signs in at its authorization endpoint).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonView {
    /// Id (`psn_…`, the `sub` of their tokens).
    pub id: String,
    /// Email.
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// Roles, space-separated.
    pub roles: String,
    /// Disabled flag.
    pub disabled: bool,
    /// Whether a password is set.
    pub has_password: bool,
    /// Whether an identity provider's identity is linked to them (they get tokens through its
    /// ID-JAGs, without a password here).
    pub linked: bool,
    /// The realm's sign-in provider they come from (its name), if any.
    #[serde(default)]
    pub provider: Option<String>,
    /// Whether that provider is disabled (they can neither sign in nor refresh).
    #[serde(default)]
    pub provider_disabled: bool,
    /// Creation time.
    pub created: Moment,
}

/// One page of people.
pub type PersonPage = super::KeyedPage<PersonView>;

/// A connected app: a client a person let act for them at a resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectedAppView {
    /// Consent id.
    pub id: String,
    /// The person (or console account) id.
    pub subject: String,
    /// The client's `client_id`.
    pub client_id: String,
    /// The client's name.
    pub client_name: String,
    /// The resource's name.
    pub resource_name: String,
    /// The resource's URI.
    pub resource_uri: String,
    /// Scopes agreed to.
    pub scopes: Vec<String>,
    /// Whether it stays connected (refresh tokens).
    pub offline: bool,
    /// Last agreed to.
    pub updated: Moment,
    /// Last token refresh, if any.
    pub last_used: Option<Moment>,
}
