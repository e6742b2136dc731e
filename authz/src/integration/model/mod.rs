//! What a developer copies to protect their own MCP server with a realm: the RFC 9728
//! protected-resource metadata and where to serve it, the `401` and `403` challenges, a
//! registration command, token and call commands, client configurations and server snippets.
//! Pure functions of the realm's endpoints and the developer's input; the console only renders
//! them, and tests run what they produce.
//!
//! One file per generated artefact: [`protect`] puts them in reading order.
mod challenge;
mod clients;
mod commands;
mod metadata;
mod protect;
mod protection;
mod python;
mod rust;
mod server_url;
mod snippet;
#[cfg(test)]
mod tests;
mod typescript;

pub(crate) use clients::short_name;
pub use commands::MCP_PROTOCOL_VERSION;
pub use metadata::metadata_urls;
pub use protect::protect;
pub use protection::*;
pub use python::{PYJWT_VERSION, PYTHON_SDK_VERSION, UVICORN_VERSION};
pub use rust::RUST_CRATES;
pub use server_url::canonical_server_url;
pub use typescript::{EXPRESS_VERSION, JOSE_VERSION, TS_SDK_VERSION};
