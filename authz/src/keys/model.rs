//! Key types: algorithms, a stored key and its lifecycle state, and what admins see of it.
use crate::clock::UnixTime;
use crate::ids::RealmId;
use serde::{Deserialize, Serialize};

/// A JWS signing algorithm Portcullis issues tokens with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SigningAlg {
    /// ECDSA P-256 with SHA-256 (the default).
    ES256,
    /// RSASSA-PKCS1-v1_5 with SHA-256, 2048-bit keys (required by RFC 9068).
    RS256,
    /// Ed25519 (RFC 8037).
    EdDSA,
}

impl SigningAlg {
    /// Every supported algorithm.
    pub const ALL: [SigningAlg; 3] = [SigningAlg::ES256, SigningAlg::RS256, SigningAlg::EdDSA];

    /// The JOSE `alg` value.
    pub fn as_str(self) -> &'static str {
        match self {
            SigningAlg::ES256 => "ES256",
            SigningAlg::RS256 => "RS256",
            SigningAlg::EdDSA => "EdDSA",
        }
    }

    /// Parses a JOSE `alg` value (exact case).
    ///
    /// # Errors
    /// A message for anything else, including `none` and symmetric algorithms.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "ES256" => Ok(SigningAlg::ES256),
            "RS256" => Ok(SigningAlg::RS256),
            "EdDSA" => Ok(SigningAlg::EdDSA),
            other => Err(format!(
                "Unsupported signing algorithm \"{other}\"; use ES256, RS256 or EdDSA."
            )),
        }
    }
}

impl std::fmt::Display for SigningAlg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Lifecycle state of a signing key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyState {
    /// Published, not yet signing (so verifiers know it before rotation).
    Next,
    /// Signing new tokens.
    Active,
    /// No longer signing; published until `publish_until`.
    Retired,
}

impl KeyState {
    /// Stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyState::Next => "next",
            KeyState::Active => "active",
            KeyState::Retired => "retired",
        }
    }

    /// Parses the stored form.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "next" => Some(KeyState::Next),
            "active" => Some(KeyState::Active),
            "retired" => Some(KeyState::Retired),
            _ => None,
        }
    }
}

/// A stored signing key (private part sealed under the master key).
#[derive(Clone, PartialEq, Eq)]
pub struct StoredKey {
    /// Key id.
    pub kid: String,
    /// Realm.
    pub realm_id: RealmId,
    /// Algorithm.
    pub alg: SigningAlg,
    /// Lifecycle state.
    pub state: KeyState,
    /// Public JWK including `kid`, `alg` and `use`.
    pub public_jwk: serde_json::Value,
    /// AES-256-GCM sealed PKCS#8.
    pub sealed_private_key: Vec<u8>,
    /// Creation time.
    pub created_at: UnixTime,
    /// When it became active.
    pub activated_at: Option<UnixTime>,
    /// When it retired.
    pub retired_at: Option<UnixTime>,
    /// Published until (retired keys).
    pub publish_until: Option<UnixTime>,
}

impl StoredKey {
    /// Whether it is in the JWKS at `now`.
    pub fn is_published(&self, now: UnixTime) -> bool {
        match self.state {
            KeyState::Active | KeyState::Next => true,
            KeyState::Retired => self.publish_until.is_some_and(|t| now < t),
        }
    }
}

impl std::fmt::Debug for StoredKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredKey")
            .field("kid", &self.kid)
            .field("alg", &self.alg)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

/// A signing key as shown to admins (never the private part).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyInfo {
    /// Key id.
    pub kid: String,
    /// Algorithm.
    pub alg: SigningAlg,
    /// `next`, `active` or `retired`.
    pub state: &'static str,
    /// Whether it is in the JWKS now.
    pub published: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// When it became active.
    pub activated_at: Option<UnixTime>,
    /// When it retired.
    pub retired_at: Option<UnixTime>,
    /// Published until.
    pub publish_until: Option<UnixTime>,
}

/// What the master-key check found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MasterKeyCheck {
    /// This instance holds the key that sealed the database's signing keys.
    Matches,
    /// It holds another key: it cannot open a signing key, so it must not serve.
    Mismatch,
}
