//! Federation: the identity providers a realm trusts to say who a person is.
//!
//! Today that is enterprise-managed authorization (the MCP extension, built on the IETF draft
//! "Identity Assertion JWT Authorization Grant"): an enterprise IdP hands a client an ID-JAG
//! naming a person, this realm and one of its MCP servers; the realm's token endpoint trades it
//! for an access token (`tokens::grants::jwt_bearer`) when the IdP is trusted here, the client is
//! one it lists, and the person is linked (or may be linked or created) in the realm.
mod model;
mod ops;

pub use model::*;
