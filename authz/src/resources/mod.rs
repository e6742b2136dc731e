//! Protected resources (MCP servers): the entities every token audience comes from.
//!
//! A resource has a canonical URI (RFC 8707, MCP authorization): `https` (or `http` for loopback
//! hosts when allowed), lower-case scheme and host, no default port, no query, no fragment, no
//! user info, and no trailing slash unless the path is `/`. Input that differs only by case of
//! scheme or host, or by a trailing slash, maps to the same resource; `aud` always carries the
//! stored canonical form.
mod model;
mod ops;

pub use model::*;
