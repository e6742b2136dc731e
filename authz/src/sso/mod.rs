//! Console single sign-on: console users sign in with the company's OpenID Connect provider.
//!
//! Admins configure providers (issuer, client, sealed secret, scopes, groups claim, which groups
//! make which role). A sign-in runs the authorization code flow with PKCE, `state` and `nonce`
//! (`rp`, on the `openidconnect` crate); the verified identity becomes a console account just
//! in time, keyed by the provider's `sub` and never linked to an existing account by email, and
//! its role follows its groups at every sign-in (an identity no group maps any more is refused
//! and its sessions end).
mod model;
mod ops;
pub(crate) mod rp;
mod signin;

pub use model::*;
pub(crate) use rp::MetadataCache;
pub(crate) use signin::{provider_actor, received_groups};
