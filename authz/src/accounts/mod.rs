//! Console accounts: local users with an Argon2id password and one role.
//!
//! Accounts live in the administration realm (`default`). One-time links (first-admin setup and
//! password reset) are stored as SHA-256 hashes only and expire. Sign-in is throttled per
//! account + source address and per source address; Argon2 runs on blocking threads, a bounded
//! number at a time, so a flood of sign-ins cannot stall the token endpoint.
mod model;
mod ops;

pub use model::*;
pub(crate) use ops::count_sign_in;
