//! Secrets: generation, hashing at rest, constant-time comparison, password hashing.
//!
//! # Security
//! One-time tokens (setup and password-reset links) carry 256 bits of entropy, are shown once and
//! stored only as SHA-256. Passwords are hashed with Argon2id, off the async workers. `Debug`
//! never prints a secret.
use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier, SaltString};
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

    /// Hashes the password with Argon2id and a random salt (PHC string). Slow: call it through
    /// [`PasswordHasher`] from async code.
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

    /// Verifies the password against a stored PHC hash in constant time. Slow: call it through
    /// [`PasswordHasher`] from async code.
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

/// A PHC hash of a fixed password, verified against when an account has no password (or does
/// not exist), so that timing does not reveal which.
fn dummy_phc() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| {
        Password::from_input("portcullis-timing-equaliser")
            .hash()
            .unwrap_or_default()
    })
}

/// Runs Argon2 on tokio's blocking threads, at most a fixed number at a time.
///
/// Password hashing then never occupies the async workers that serve the token endpoint, and a
/// flood of sign-ins queues here instead of taking every core.
#[derive(Debug)]
pub struct PasswordHasher {
    permits: tokio::sync::Semaphore,
    /// Verifications waiting or running; beyond `max_waiting` new ones are turned away.
    waiting: std::sync::atomic::AtomicUsize,
    max_waiting: usize,
}

/// Verifications waiting for a hasher, per permit, before new ones are turned away.
pub const WAITING_PER_PERMIT: usize = 32;

impl Default for PasswordHasher {
    /// One permit per core.
    fn default() -> Self {
        Self::new(std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
    }
}

impl PasswordHasher {
    /// A hasher running at most `permits` hashes at once.
    pub fn new(permits: usize) -> Self {
        let permits = permits.max(1);
        Self {
            permits: tokio::sync::Semaphore::new(permits),
            waiting: std::sync::atomic::AtomicUsize::new(0),
            max_waiting: permits * WAITING_PER_PERMIT,
        }
    }

    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, String> {
        let _permit = self
            .permits
            .acquire()
            .await
            .map_err(|_| "password hasher closed".to_owned())?;
        tokio::task::spawn_blocking(f)
            .await
            .map_err(|e| format!("password hashing task failed: {e}"))
    }

    /// Hashes a new password (Argon2id, random salt).
    ///
    /// # Errors
    /// When the blocking task fails.
    pub async fn hash(&self, password: Password) -> Result<String, String> {
        self.run(move || password.hash()).await?
    }

    /// Verifies `password` against `phc`; with no hash (unknown account, no password set yet)
    /// it spends the same time against a dummy hash and answers `false`.
    ///
    /// # Errors
    /// `Err(())` without hashing when too many verifications are waiting already (a flood):
    /// the queue, and so the memory and delay a flood causes, stay bounded.
    pub async fn verify(&self, password: Password, phc: Option<String>) -> Result<bool, ()> {
        use std::sync::atomic::Ordering;
        if self.waiting.fetch_add(1, Ordering::AcqRel) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(());
        }
        let ok = self
            .run(move || match phc {
                Some(phc) => password.verify(&phc),
                None => {
                    let _ = password.verify(dummy_phc());
                    false
                }
            })
            .await
            .unwrap_or(false);
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        Ok(ok)
    }
}

/// A random opaque identifier with a type prefix, e.g. `at_3f9c…` (token ids; row ids are
/// [`crate::ids::Id`]).
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

    #[tokio::test]
    async fn a_full_queue_turns_verifications_away() {
        let hasher = std::sync::Arc::new(PasswordHasher::new(1));
        let phc = Password::from_input("x").hash().expect("hash");
        let mut tasks = Vec::new();
        for _ in 0..(WAITING_PER_PERMIT + 8) {
            let (h, phc) = (hasher.clone(), phc.clone());
            tasks.push(tokio::spawn(async move {
                h.verify(Password::from_input("x"), Some(phc)).await
            }));
        }
        let mut turned_away = 0;
        for t in tasks {
            match t.await.expect("task") {
                Ok(ok) => assert!(ok),
                Err(()) => turned_away += 1,
            }
        }
        assert!(
            turned_away > 0,
            "beyond the queue's bound, verifications are refused"
        );
        assert_eq!(
            hasher.verify(Password::from_input("x"), Some(phc)).await,
            Ok(true),
            "and the hasher serves again once the flood is gone"
        );
    }

    #[test]
    fn constant_time_eq_works() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"abcd"));
    }
}
