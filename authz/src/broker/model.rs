//! Brokering types: a sign-in under way at a realm's provider, the proof a link asks for, and
//! what the sign-in page offers.
use crate::clock::UnixTime;
use serde::{Deserialize, Serialize};

/// How long the page asking an existing person for their password (to link a provider
/// identity) stays valid.
pub const LINK_TTL_SECS: i64 = 600;

/// A realm's sign-in provider as admins see it.
#[derive(Debug, Clone)]
pub struct RealmProviderListing {
    /// The provider.
    pub provider: crate::sso::SsoProvider,
    /// How many people come from it.
    pub people: i64,
    /// The units and rings its mapping names that the registry no longer has (`unit x`).
    pub missing: Vec<String>,
}

/// A sign-in provider button on a realm's sign-in page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignInButton {
    /// The provider's id (posted back).
    pub id: String,
    /// Its button text.
    pub text: String,
}

/// A verified provider identity whose email belongs to a person of the realm: it is linked to
/// them once they prove the local account. Sealed into the page that asks for the password.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PendingLink {
    /// The provider.
    pub provider_id: String,
    /// The provider's `sub`.
    pub subject: String,
    /// The person with the email.
    pub person_id: String,
    /// Their email (shown and signed in with).
    pub email: String,
    /// The groups the provider sent that its mapping names.
    pub groups: Vec<String>,
    /// The authorization request it continues (sealed); none for the account page.
    pub ticket: Option<String>,
    /// The hash of the browser cookie of the browser it was made for.
    pub browser: String,
    /// Until when the page is valid.
    pub expires_at: UnixTime,
}

/// The page asking someone to prove their local account before a provider identity is
/// linked to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkPage {
    /// The realm's display name.
    pub realm: String,
    /// The provider's display name.
    pub provider: String,
    /// The email of the account.
    pub email: String,
    /// The sealed [`PendingLink`], posted back.
    pub link: String,
    /// Why the last attempt failed.
    pub error: Option<String>,
}

/// What a verified identity at a realm's provider comes to.
#[derive(Debug, Clone)]
pub enum Brokered {
    /// The person it is (created just in time, or linked before), signed in.
    Person(crate::people::Subject),
    /// A person of the realm has its email: linked once they prove their account.
    Link(crate::people::Person),
    /// Refused (audited), with what the sign-in page says.
    Refused(String),
}
