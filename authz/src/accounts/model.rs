//! Account types: email addresses, console users, one-time links.
use crate::clock::UnixTime;
use crate::ids::RealmId;
pub use crate::ids::UserId;
use crate::policy::Role;

/// A normalised email address (trimmed, lower-cased).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Email(String);

impl Email {
    /// Parses an email address.
    ///
    /// # Errors
    /// A message fit for the user when the address is malformed.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        let s = s.trim().to_lowercase();
        if s.is_empty() {
            return Err("Email is required.");
        }
        if s.len() > 254 {
            return Err("Email must be at most 254 characters.");
        }
        let Some((local, domain)) = s.split_once('@') else {
            return Err("Enter a valid email address, like name@example.com.");
        };
        // The common form (no quoted local parts, no address literals): a dot-separated local
        // part and a domain of labels of letters, digits and inner hyphens (one label, like
        // `localhost`, for internal mail).
        let label_ok = |l: &str| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_alphanumeric() || c == '-')
        };
        let local_ok = local.len() <= 64
            && !local.is_empty()
            && local.split('.').all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_alphanumeric() || "!#$%&'*+/=?^_`{|}~-".contains(c))
            });
        let ok = local_ok && domain.split('.').all(label_ok);
        if !ok {
            return Err("Enter a valid email address, like name@example.com.");
        }
        Ok(Self(s))
    }

    /// An address as stored: checked when it was written, perhaps under older, looser rules,
    /// so it is taken as it is (an account never becomes unreadable when the rules tighten).
    pub(crate) fn from_stored(s: String) -> Self {
        Self(s)
    }

    /// The address as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Email {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The audit actor of a sign-in attempt: the parsed address, or a fixed marker for input that
/// is not an address (so a failed attempt never stores arbitrary or oversized text).
pub fn login_actor(input: &str) -> String {
    Email::parse(input).map_or_else(|_| "(not an email address)".to_owned(), |e| e.0)
}

/// A stored console user.
#[derive(Clone, PartialEq, Eq)]
pub struct User {
    /// Opaque id.
    pub id: UserId,
    /// Realm (always the administration realm).
    pub realm_id: RealmId,
    /// Sign-in name.
    pub email: Email,
    /// Display name.
    pub display_name: String,
    /// Argon2id PHC string; `None` until the user has set a password.
    pub password_hash: Option<String>,
    /// Role.
    pub role: Role,
    /// Disabled users cannot sign in and lose their sessions.
    pub disabled: bool,
    /// Bumped whenever the password changes; sessions started under an older version end.
    pub credential_version: i64,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
    /// The sign-in provider (its display name) the account signs in with, if any.
    pub sso_provider: Option<String>,
    /// A break-glass admin: may sign in with a password even when password sign-in is off.
    pub break_glass: bool,
    /// Since when the account has an authenticator app, if it has one.
    pub second_factor_since: Option<UnixTime>,
}

impl User {
    /// Whether the account may sign in with its password when password sign-in is off: an
    /// enabled break-glass admin.
    pub fn may_use_password_when_off(&self) -> bool {
        self.break_glass && self.role == Role::Admin && !self.disabled
    }
}

impl std::fmt::Debug for User {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("User")
            .field("id", &self.id)
            .field("role", &self.role)
            .field("disabled", &self.disabled)
            .finish_non_exhaustive()
    }
}

/// What a one-time link is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkPurpose {
    /// Lets the first admin choose a password when no user exists.
    Setup,
    /// Lets a user choose a new password.
    PasswordReset,
}

impl LinkPurpose {
    /// Stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkPurpose::Setup => "setup",
            LinkPurpose::PasswordReset => "password_reset",
        }
    }
}

/// A stored one-time link (only its hash is kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneTimeLink {
    /// SHA-256 of the token.
    pub token_hash: Vec<u8>,
    /// Realm.
    pub realm_id: RealmId,
    /// The user it resets; `None` for setup.
    pub user_id: Option<UserId>,
    /// Purpose.
    pub purpose: LinkPurpose,
    /// Creation time.
    pub created_at: UnixTime,
    /// Expiry.
    pub expires_at: UnixTime,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails() {
        assert_eq!(
            Email::parse(" Ada@Example.COM ").map(|e| e.0),
            Ok("ada@example.com".into())
        );
        for bad in [
            "",
            "ada",
            "@x.com",
            "ada@",
            "a b@x.com",
            "a@b@c",
            "a@.com",
            "a@com.",
            "user@acme..example",
            "user@-acme.example",
            "user@acme-.example",
            "\"quoted\"@acme.example",
            "a..b@acme.example",
            ".a@acme.example",
            "a@acme_corp.example",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?} must be rejected");
        }
        assert!(Email::parse("ops@localhost").is_ok());
        assert!(Email::parse("o'brien+ops@mail.acme-corp.example").is_ok());
    }
}
