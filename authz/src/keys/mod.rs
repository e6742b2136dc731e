//! Signing keys: generation (ES256, RS256, EdDSA), encryption at rest, JWS compact signing and
//! verification, and public JWKs (RFC 7517 / RFC 7518 / RFC 8037).
//!
//! # Security
//! Private keys exist in plaintext only in memory. At rest they are sealed with AES-256-GCM under
//! the master key, with the key id and realm as associated data, so a sealed key cannot be
//! swapped between rows. Only asymmetric algorithms exist here; `none` and HMAC are unrepresentable.
//!
//! The cryptography is AWS-LC (through `aws-lc-rs`), chosen by measurement: on the project's
//! machine it signs RSA-2048 at the rate of `openssl speed rsa2048` (ring reached 54%), and P-256
//! and Ed25519 faster than ring did (see `BENCHMARKS.md`).
mod cache;
mod generate;
mod jws;
mod master;
mod model;
mod ops;

pub use cache::{KeyRing, RealmKeys};
pub use generate::{GeneratedKey, generate, new_kid};
pub use jws::{Header, JwsError, Signer, Verifier, decode_unverified};
pub use master::MasterKey;
pub use model::{KeyInfo, KeyState, MasterKeyCheck, SigningAlg, StoredKey};

/// Clock-skew leeway added to publication windows.
pub const LEEWAY_SECS: i64 = 60;
