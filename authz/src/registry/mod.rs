//! The MCP server registry of each realm.
//!
//! Which MCP servers are approved, pinned how, with which tools, authenticated how, and for
//! whom (rings and units); edited as a draft, published as signed immutable releases,
//! optionally after a second person's approval.
//!
//! The policy model and its checks, the canonical JSON a release is hashed and signed in, and
//! the release format are the `portcullis-manifest` crate's (the laptop CLI verifies with the
//! same code). This module stores the draft and the releases, signs with the realm's key, and
//! decides who may read a realm's registry over HTTP.
mod deliver;
mod entries;
mod exchange;
pub(crate) use exchange::RegistryConsent;
mod import;
mod members;
mod model;
mod ops;
mod releases;
mod serve;

pub use model::*;
#[cfg(test)]
mod tests;
