//! Console users (`api::users`, `pages::users`).
use super::Moment;
use serde::{Deserialize, Serialize};

/// A console user as shown in the Users screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserView {
    /// Id.
    pub id: String,
    /// Email.
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// Role.
    pub role: String,
    /// Disabled flag.
    pub disabled: bool,
    /// Whether a password has been set.
    pub has_password: bool,
    /// The sign-in provider the account signs in with (its name), if any.
    pub sso_provider: Option<String>,
    /// A break-glass admin (may sign in with a password when password sign-in is off).
    pub break_glass: bool,
    /// Since when the account has an authenticator app, if it has one.
    pub second_factor_since: Option<Moment>,
    /// Creation time.
    pub created: Moment,
}

/// One page of users.
pub type UserPage = super::KeyedPage<UserView>;

/// A one-time link shown once to an admin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuedLink {
    /// Whom it is for.
    pub email: String,
    /// The link.
    pub url: String,
}
