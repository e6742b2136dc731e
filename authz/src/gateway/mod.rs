//! The MCP gateway's policy, decided here for the `portcullis-gateway` crate.
//!
//! Which registry servers a caller reaches through a realm's gateway (the latest release, the caller's rings and units, the servers attached to its agent), the
//! tool definitions an administrator accepted (pins: RFC 8785 canonical JSON and SHA-256 each;
//! anything new or changed is hidden until accepted), the token each upstream receives
//! (exchanged for the caller, the gateway as actor) and the audit row of every call.
//!
//! The MCP side — the facade's two tools, upstream connections, argument validation — is the
//! `portcullis-gateway` crate, which asks this module everything it decides.
mod approvals;
mod client_secrets;
mod connect;
mod model;
mod ops;
mod person_tokens;
mod pins;

pub use model::*;
