//! Identity chaining: the realm as its people's identity provider.
//!
//! The realm lists the authorization servers that trust it (they accept its ID-JAGs), which of
//! its clients may ask for an ID-JAG for each, for which resources, and by which client id that
//! server knows each client.
//!
//! A client signed in with OpenID Connect trades the person's ID token at the realm's token
//! endpoint (token exchange, `requested_token_type` id-jag, `audience` one of these servers) for
//! an Identity Assertion JWT Authorization Grant it presents there (`tokens::grants::
//! token_exchange::id_jag`). The other side — accepting ID-JAGs — is `federation`.
mod model;
mod ops;

pub use model::*;
