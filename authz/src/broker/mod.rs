//! Brokering: a realm's people sign in through the realm's own OpenID Connect providers.
//!
//! Admins add providers to a realm (the same settings as console sign-in providers, with a
//! group mapping instead of console roles). The realm's sign-in page offers a button per
//! enabled provider; the flow (authorization code, PKCE, `state`, `nonce`, ID token checked by
//! the `openidconnect` crate) runs in `sso::rp`. The verified identity is the person it is
//! linked to; else a new person, just in time, unless the realm already has someone with that
//! email, who is linked only after proving the local account (its password). At every sign-in
//! the provider's groups set the roles, units and rings its mapping names. A disabled provider
//! signs nobody in, and the people who come from it can neither sign in nor refresh.
mod model;
mod ops;
mod signin;

pub use model::*;
