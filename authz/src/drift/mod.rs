//! Drift reports: what `portcullis-cli drift --report` found on people's laptops.
//!
//! MCP servers configured in their harnesses that the registry's release does not approve for
//! them, or approves with another URL or command line.
//!
//! A report comes in over HTTP with the person's registry sign-in token (never anonymously),
//! is checked against [`portcullis_manifest::drift::DriftReport::check`]'s limits and replaces
//! the device's previous one; a device reports at most once a minute and a person keeps at most
//! [`MAX_DEVICES`] devices. The console shows the realm's summary, the most common findings and
//! each device's last report.
mod model;
mod ops;

pub use model::*;
