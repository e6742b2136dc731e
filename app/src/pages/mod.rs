//! One page component per screen.
pub mod access;
pub mod account;
pub mod agents;
pub mod audit;
#[cfg(feature = "ssr")]
pub mod authorize;
pub mod clients;
pub mod integration;
pub mod keys;
pub mod login;
pub mod overview;
pub mod people;
pub mod realms;
pub mod resources;
pub mod review;
pub mod setup;
pub mod users;
