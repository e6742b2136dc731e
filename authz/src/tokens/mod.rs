//! The protocol side of the authorization server.
//!
//! Client authentication (RFC 6749 §2.3, RFC 7523), the token endpoint with one module per
//! grant (`client_credentials` today) minting audience-bound RFC 9068 access tokens (RFC 8707),
//! introspection (RFC 7662), revocation (RFC 7009), authorization server metadata (RFC 8414)
//! and the JWKS.
//!
//! The token path writes nothing to the database: a token is a signed JWT, revocation is
//! remembered by `jti`, and liveness (the client, resource and agent binding behind a token)
//! is checked against the rows named in the token's [`TokenOrigin`].

mod client_auth;
mod grants;
mod id_token;
mod introspect;
pub(crate) mod lifetime;
mod lookup;
mod metadata;
mod model;
mod revoke;
mod revoked;
mod verify;

pub use lifetime::{
    DEFAULT_TOKEN_TTL_SECS, MAX_TOKEN_TTL_SECS, MIN_TOKEN_TTL_SECS, parse_token_ttl,
};
pub use model::*;
pub use portcullis_claims::{ACCESS_TOKEN_TYP, AccessTokenClaims, AgentClaims, TokenOrigin};
pub(crate) use revoked::{RevocationReader, revocation_reader};
