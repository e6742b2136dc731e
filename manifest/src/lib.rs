//! The MCP server registry's manifest, shared by the server and `portcullis-cli`.
//!
//! Pure: no I/O, no database, no HTTP. It holds the policy model (which MCP servers are
//! approved, pinned how, with which tools, authenticated how, for whom) and its validation,
//! where every error names its field ([`server`], [`policy`]); the import of the official MCP
//! Registry's `server.json` into a pinned draft ([`import`]); the canonical form a release is
//! hashed and signed in ([`canonical`], RFC 8785); and the signed release itself, verified
//! with the realm's JWKS alone ([`release`]); each harness's configuration files for a ring or
//! unit, with what a harness cannot express ([`render`]); and the drift of a person's own
//! harness configs from a release ([`drift`]).
pub mod canonical;
pub mod diff;
pub mod drift;
pub mod field;
pub mod harness;
pub mod import;
pub mod names;
pub mod policy;
pub mod registry_api;
pub mod release;
pub mod render;
pub mod secrets;
pub mod server;

pub use field::{Finding, Findings};
pub use policy::{Mode, Policy};
pub use server::profile::Profile;
pub use server::{Auth, Command, Package, PackageType, Server, ServerInput, Tools, Transport};
