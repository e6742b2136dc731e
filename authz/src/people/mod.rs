//! A realm's people: the users who sign in at its authorization endpoint so that MCP clients
//! act for them (like Keycloak's realm users), apart from the console's accounts.
//!
//! Passwords are Argon2id (the console accounts' hasher and sign-in throttle); disabling a
//! person ends their sign-ins and revokes every token their apps hold.
mod model;
mod ops;

pub use model::*;
