//! A realm at a glance: its endpoints, how much it holds, and how far it is from its first token.
mod model;
mod ops;

pub use model::*;
