//! Dynamic Client Registration (RFC 7591) and its management protocol (RFC 7592): the
//! endpoint's types (`model.rs`, pure) and the operations (`ops.rs`).
mod model;
mod ops;

pub use model::{MAX_INITIAL_TOKEN_TTL_SECS, RegistrationResponse, parse_registration_body};
