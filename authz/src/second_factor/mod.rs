//! Second factors for console accounts: an authenticator app (TOTP, RFC 6238, on the
//! `totp-rs` crate) with single-use recovery codes, required per role.
//!
//! A sign-in whose first factor (password or provider) succeeded waits, in the server-side
//! session, for a code — or, for an account whose role requires a second factor and has none,
//! for its enrolment. A provider that proves a second factor in its ID token (`amr` / `acr`,
//! configured per provider) stands in for the app. Codes are accepted once (the newest step is
//! kept), checks are throttled per account from anywhere, secrets are sealed with the master
//! key, recovery codes stored as SHA-256.
mod model;
mod ops;

pub use model::*;
