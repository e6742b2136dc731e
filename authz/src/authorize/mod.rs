//! Interactive authorization: the authorization endpoint and what it stores.
//!
//! The endpoint (authorization code with PKCE S256, `resource`, `iss`), sign-in sessions,
//! remembered consent, and the codes and refresh-token families the token endpoint redeems (see
//! `tokens::grants`).
//!
//! Redirect URIs match exactly, except loopback ports (RFC 8252 §7.3); an unknown client or an
//! unmatched redirect URI is an error page, never a redirect.
mod account;
mod apps;
mod checks;
mod device;
mod model;
mod ops;
mod request;
pub(crate) mod ticket;
mod upstream;

pub use checks::{
    NON_RESOURCE_SCOPES, ScopeRequest, check_challenge, describe_scope, redirect_matches,
    verifier_matches,
};
pub use model::*;
