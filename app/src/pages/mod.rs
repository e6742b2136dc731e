//! One page component per screen.
pub mod account;
pub mod audit;
pub mod login;
pub mod overview;
pub mod realms;
pub mod setup;
pub mod users;
