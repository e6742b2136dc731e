//! In-process HTTP tests: the real router on a fresh SQLite database per test.
#[path = "../support/mod.rs"]
mod support;

mod audit;
mod authorize;
mod broker;
mod chaining;
mod client_keys;
mod console;
mod device;
mod drift;
mod exchange;
mod gateway;
mod hardening;
mod hydration;
mod id_jag;
mod idp;
mod interop;
mod laptop;
mod lists;
mod mcp_check;
mod metadata_document;
mod oauth;
mod ops;
mod protect;
mod registration;
mod registry;
mod rejections;
mod review;
mod second_factor;
mod sso;

pub use support::*;
