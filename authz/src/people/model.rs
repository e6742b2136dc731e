//! People types: the users of a realm who sign in at its authorization endpoint, and the
//! subject an interactive token is issued for.
use crate::accounts::Email;
use crate::clock::UnixTime;
pub use crate::ids::PersonId;
use crate::ids::RealmId;
use crate::scope::ScopeSet;

/// A person of a realm: signs in at the realm's authorization endpoint so that an MCP client
/// can act for them. Not a console account (those live in the administration realm).
#[derive(Clone, PartialEq, Eq)]
pub struct Person {
    /// Opaque id: the `sub` of their tokens.
    pub id: PersonId,
    /// Realm.
    pub realm_id: RealmId,
    /// Sign-in name, unique in the realm.
    pub email: Email,
    /// Display name.
    pub display_name: String,
    /// Argon2id PHC string; `None` until a password is set.
    pub password_hash: Option<String>,
    /// Roles (names resources may require of the people who use them).
    pub roles: ScopeSet,
    /// Disabled people cannot sign in; their apps' tokens stop working.
    pub disabled: bool,
    /// Whether an identity provider's identity is linked to them (read from the links; never
    /// written through this field).
    pub linked: bool,
    /// The realm's sign-in provider the person comes from (the first that created or linked
    /// them); read-only here.
    pub provider: Option<crate::ids::SsoProviderId>,
    /// That provider's display name.
    pub provider_name: Option<String>,
    /// Whether a sign-in provider the person is linked to is disabled: they can then neither
    /// sign in nor refresh (read from the links).
    pub provider_disabled: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

impl std::fmt::Debug for Person {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Person")
            .field("id", &self.id)
            .field("disabled", &self.disabled)
            .field("provider", &self.provider)
            .finish_non_exhaustive()
    }
}

/// A person as typed into the console or the CLI.
#[derive(Debug, Clone, Default)]
pub struct PersonInput {
    /// Email.
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// Roles, space-separated.
    pub roles: String,
}

/// Who signed in at an authorization endpoint: a person of the realm or, in the administration
/// realm, a console account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// `sub` of their tokens (`psn_…` or `usr_…`).
    pub id: String,
    /// Email.
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// Roles (a person's; console accounts have none).
    pub roles: ScopeSet,
}

impl From<&Person> for Subject {
    fn from(p: &Person) -> Self {
        Self {
            id: p.id.to_string(),
            email: p.email.to_string(),
            display_name: p.display_name.clone(),
            roles: p.roles.clone(),
        }
    }
}

/// The audit subject of a signed-in subject: `person:psn_…` or `user:usr_…`.
pub(crate) fn subject_target(id: &str) -> crate::audit::AuditSubject {
    if id.starts_with("usr_") {
        crate::audit::AuditSubject::User(id.to_owned())
    } else {
        crate::audit::AuditSubject::Person(id.to_owned())
    }
}
