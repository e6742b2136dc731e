//! Server functions, grouped by domain. Each one: context → parse → one core call → view type.
pub mod access;
pub mod account;
pub mod agents;
pub mod audit;
pub mod clients;
pub mod federation;
pub mod integration;
pub mod keys;
pub mod overview;
pub mod people;
pub mod realms;
pub mod registry;
pub mod resources;
pub mod review;
pub mod session;
pub mod sso;
pub mod users;
