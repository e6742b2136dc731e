//! OAuth clients (pre-registered): metadata per RFC 7591, authentication methods, secrets.
//!
//! # Security
//! Secrets carry 256 bits of entropy, are shown once, stored as SHA-256 and compared in constant
//! time. A slow password hash is deliberately not used: the entropy makes brute force moot, and a
//! fast hash keeps the token endpoint signing-bound.
use crate::clock::UnixTime;
use crate::scope::ScopeSet;
use serde::{Deserialize, Serialize};

/// How a client authenticates at the token endpoint (RFC 7591 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthMethod {
    /// HTTP Basic with the client secret.
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form body.
    ClientSecretPost,
    /// A public client: no authentication.
    None,
}

impl AuthMethod {
    /// Registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthMethod::ClientSecretBasic => "client_secret_basic",
            AuthMethod::ClientSecretPost => "client_secret_post",
            AuthMethod::None => "none",
        }
    }

    /// Parses the registered name.
    ///
    /// # Errors
    /// A message listing the supported methods.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "client_secret_basic" => Ok(AuthMethod::ClientSecretBasic),
            "client_secret_post" => Ok(AuthMethod::ClientSecretPost),
            "none" => Ok(AuthMethod::None),
            other => Err(format!(
                "Unsupported token_endpoint_auth_method `{other}`; use client_secret_basic, client_secret_post or none."
            )),
        }
    }

    /// Whether the method uses a client secret.
    pub fn uses_secret(self) -> bool {
        matches!(
            self,
            AuthMethod::ClientSecretBasic | AuthMethod::ClientSecretPost
        )
    }
}

/// An OAuth grant type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantType {
    /// RFC 6749 §4.4.
    ClientCredentials,
}

impl GrantType {
    /// Registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            GrantType::ClientCredentials => "client_credentials",
        }
    }

    /// Parses the registered name.
    ///
    /// # Errors
    /// For grant types this server does not support.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "client_credentials" => Ok(GrantType::ClientCredentials),
            other => Err(format!("Unsupported grant type `{other}`.")),
        }
    }
}

/// RFC 7591 metadata kept as a document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClientMetadata {
    /// Contacts.
    pub contacts: Vec<String>,
    /// Home page.
    pub client_uri: Option<String>,
    /// Logo.
    pub logo_uri: Option<String>,
    /// Software id.
    pub software_id: Option<String>,
    /// Software version.
    pub software_version: Option<String>,
}

/// A stored client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    /// Opaque row id (`cli_…`).
    pub id: String,
    /// Realm id.
    pub realm_id: String,
    /// The OAuth `client_id`.
    pub client_id: String,
    /// Human-readable name.
    pub name: String,
    /// Token endpoint authentication method.
    pub auth_method: AuthMethod,
    /// Allowed grant types.
    pub grant_types: Vec<GrantType>,
    /// Scopes the client may be granted.
    pub scope: ScopeSet,
    /// Other RFC 7591 metadata.
    pub metadata: ClientMetadata,
    /// Disabled clients get no tokens, and their tokens introspect inactive.
    pub enabled: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

/// A stored client secret (hash only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientSecret {
    /// Opaque id.
    pub id: String,
    /// Owning client row id.
    pub client_pk: String,
    /// SHA-256 of the secret.
    pub secret_hash: Vec<u8>,
    /// Creation time.
    pub created_at: UnixTime,
    /// End of the overlap window after a rotation; `None` while current.
    pub expires_at: Option<UnixTime>,
}

impl ClientSecret {
    /// Whether the secret is accepted at `now`.
    pub fn is_live(&self, now: UnixTime) -> bool {
        self.expires_at.is_none_or(|t| now < t)
    }
}

/// A `client_id`: 1–128 characters of `A-Z a-z 0-9 - . _ ~ :`.
///
/// # Errors
/// A message fit for the user.
pub fn parse_client_id(s: &str) -> Result<String, &'static str> {
    let s = s.trim();
    if s.is_empty() || s.len() > 128 {
        return Err("client_id must be 1–128 characters.");
    }
    if !s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | ':'))
    {
        return Err("client_id may contain only letters, digits and - . _ ~ :");
    }
    Ok(s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in [
            AuthMethod::ClientSecretBasic,
            AuthMethod::ClientSecretPost,
            AuthMethod::None,
        ] {
            assert_eq!(AuthMethod::parse(m.as_str()), Ok(m));
        }
        assert!(AuthMethod::parse("client_secret_jwt").is_err());
        assert_eq!(
            GrantType::parse("client_credentials"),
            Ok(GrantType::ClientCredentials)
        );
        assert!(GrantType::parse("password").is_err());
        assert!(parse_client_id("agent:reports-bot").is_ok());
        assert!(parse_client_id("has space").is_err());
    }

    #[test]
    fn secrets_expire_after_the_overlap() {
        let s = ClientSecret {
            id: "s".into(),
            client_pk: "c".into(),
            secret_hash: vec![],
            created_at: 0,
            expires_at: Some(10),
        };
        assert!(s.is_live(9));
        assert!(!s.is_live(10));
    }
}
