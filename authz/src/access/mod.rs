//! Per-resource access grants: which client may get tokens for which resource, with which
//! scopes (Auth0's "authorized applications" of an API, Keycloak's audience mapping).
//!
//! A client gets a token for a resource only while it holds a grant for it, and the token's
//! scopes are at most the grant's (and the resource's, and its agent's roles). Revoking a grant
//! or narrowing its scopes also makes the client's live tokens for that resource introspect
//! inactive. New clients start with no grants; the migration that introduced grants gave every
//! existing client what it could reach before.
mod model;
mod ops;
pub(crate) mod usage;

pub use model::*;
pub use usage::MAX_PENDING as MAX_PENDING_TOKEN_USE;
