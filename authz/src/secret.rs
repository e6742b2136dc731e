//! Secrets: generation, hashing at rest, constant-time comparison, password hashing.
//!
//! # Security
//! One-time tokens (setup and password-reset links) carry 256 bits of entropy, are shown once and
//! stored only as SHA-256. Passwords are hashed with Argon2id. `Debug` never prints a secret.
use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand::RngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A plaintext one-time token, returned to its owner once and never stored.
#[derive(Clone, PartialEq, Eq)]
pub struct PlainToken(String);

impl std::fmt::Debug for PlainToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlainToken([redacted])")
    }
}

impl PlainToken {
    /// Generates a token with 256 bits of entropy, hex-encoded.
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Self(hex::encode(bytes))
    }

    /// Wraps a token received from a caller.
    pub fn from_input(s: &str) -> Self {
        Self(s.trim().to_owned())
    }

    /// The plaintext, for the one place that hands it to its owner.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// SHA-256 of the token: what is stored and looked up.
    pub fn hashed(&self) -> Vec<u8> {
        Sha256::digest(self.0.as_bytes()).to_vec()
    }
}

/// Compares two byte strings in constant time (for equal lengths).
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.ct_eq(b).into()
}

/// A password as typed by a user, validated against the password policy.
#[derive(Clone)]
pub struct Password(String);

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password([redacted])")
    }
}

/// Minimum password length, in characters.
pub const MIN_PASSWORD_CHARS: usize = 12;
/// Maximum password length, in characters (bounds hashing cost).
pub const MAX_PASSWORD_CHARS: usize = 256;

impl Password {
    /// Validates a new password.
    ///
    /// # Errors
    /// A message fit for the user when the password is too short or too long.
    pub fn parse_new(s: &str) -> Result<Self, &'static str> {
        let n = s.chars().count();
        if n < MIN_PASSWORD_CHARS {
            return Err("Password must be at least 12 characters long.");
        }
        if n > MAX_PASSWORD_CHARS {
            return Err("Password must be at most 256 characters long.");
        }
        if s.trim().is_empty() {
            return Err("Password must not be only spaces.");
        }
        Ok(Self(s.to_owned()))
    }

    /// Wraps a password typed at sign-in (not checked against the policy).
    pub fn from_input(s: &str) -> Self {
        Self(s.to_owned())
    }

    /// Hashes the password with Argon2id and a random salt (PHC string).
    ///
    /// # Errors
    /// Only if the hasher fails, which it does not for bounded input.
    pub fn hash(&self) -> Result<String, String> {
        let salt = SaltString::generate(&mut rand::rngs::OsRng);
        Argon2::default()
            .hash_password(self.0.as_bytes(), &salt)
            .map(|h| h.to_string())
            .map_err(|e| format!("Failed to hash password: {e}"))
    }

    /// Verifies the password against a stored PHC hash in constant time.
    pub fn verify(&self, phc: &str) -> bool {
        PasswordHash::new(phc)
            .map(|h| {
                Argon2::default()
                    .verify_password(self.0.as_bytes(), &h)
                    .is_ok()
            })
            .unwrap_or(false)
    }
}

/// Spends the same time as a real verification, so an unknown account is not revealed by timing.
pub fn dummy_verify(password: &Password) {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let phc = DUMMY.get_or_init(|| {
        Password::from_input("portcullis-timing-equaliser")
            .hash()
            .unwrap_or_default()
    });
    let _ = password.verify(phc);
}

/// A random opaque identifier with a type prefix, e.g. `usr_3f9c…`.
pub fn new_id(prefix: &str) -> String {
    let mut bytes = [0u8; 12];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    format!("{prefix}_{}", hex::encode(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_has_256_bits_and_hash_is_stable() {
        let t = PlainToken::generate();
        assert_eq!(t.expose().len(), 64);
        assert_eq!(t.hashed(), PlainToken::from_input(t.expose()).hashed());
        assert_ne!(t.hashed(), PlainToken::generate().hashed());
        assert_eq!(format!("{t:?}"), "PlainToken([redacted])");
    }

    #[test]
    fn password_policy_and_verify() {
        assert!(Password::parse_new("short").is_err());
        assert!(Password::parse_new(&" ".repeat(20)).is_err());
        let p = Password::parse_new("correct horse battery").expect("valid");
        let h = p.hash().expect("hash");
        assert!(h.starts_with("$argon2id$"));
        assert!(p.verify(&h));
        assert!(!Password::from_input("wrong horse battery").verify(&h));
        assert!(!p.verify("not a phc string"));
        assert_eq!(format!("{p:?}"), "Password([redacted])");
    }

    #[test]
    fn constant_time_eq_works() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
    }
}
