//! Portcullis authorization core.
//!
//! Owns the domains (realms, console accounts, audit, resources, clients, agents, signing
//! keys, tokens), the policy that decides who may do what, and storage on SQLite and
//! PostgreSQL. HTTP and UI are adapters around [`Core`]: this crate depends on neither axum nor
//! Leptos. It reads no environment variables; configuration comes in as [`CoreConfig`].
//!
//! Each domain module is layered: its types (`model.rs`) import nothing above them, storage
//! imports the types, and its operations (`ops.rs`, methods on [`Core`]) import storage and
//! types, so the module graph has no cycles (checked in CI).
#![forbid(unsafe_code)]

pub mod access;
pub mod accounts;
pub mod agents;
pub mod audit;
pub mod authorize;
mod batch;
mod bounded;
pub mod broker;
pub mod cache;
pub mod chaining;
pub mod clients;
pub mod clock;
mod core;
pub mod drift;
pub mod error;
pub mod federation;
pub mod fetch;
pub mod gateway;
pub mod housekeeping;
pub mod ids;
pub mod integration;
pub mod keys;
pub mod mail;
pub mod net;
mod notify;
pub mod overview;
pub mod paging;
pub mod people;
pub mod policy;
pub mod realms;
pub mod registry;
pub mod resources;
pub mod scope;
pub mod second_factor;
pub mod secret;
pub mod sso;
pub mod storage;
pub mod throttle;
pub mod tokens;

pub use crate::audit::RequestMeta;
pub use crate::core::{Core, CoreConfig, DEFAULT_REGISTRY_IMPORT_BASE};
pub use crate::error::{Error, StorageError};
pub use crate::policy::Principal;
