//! Portcullis authorization core.
//!
//! Owns the domain (realms, console accounts, audit), the policy that decides who may do what,
//! and storage on SQLite and PostgreSQL. HTTP and UI are adapters around [`Core`]: this crate
//! depends on neither axum nor Leptos. It reads no environment variables; configuration comes in
//! as [`CoreConfig`].
#![forbid(unsafe_code)]

pub mod accounts;
pub mod agents;
pub mod audit;
mod cache;
pub mod clients;
pub mod clock;
mod core;
pub mod error;
pub mod fetch;
pub mod keys;
pub mod policy;
pub mod realms;
pub mod resources;
pub mod scope;
pub mod secret;
pub mod storage;
mod throttle;
pub mod tokens;

pub use crate::core::{Core, CoreConfig, ExportFormat, MAX_EXPORT_ROWS, RequestMeta};
pub use crate::error::{Error, StorageError};
pub use crate::policy::Principal;
