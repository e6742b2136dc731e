//! Signing keys (`api::keys`, `pages::keys`).
use super::Moment;
use serde::{Deserialize, Serialize};

/// A signing key as shown in the console (public facts only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyView {
    /// Key id.
    pub kid: String,
    /// Algorithm.
    pub alg: String,
    /// `next`, `active` or `retired`.
    pub state: String,
    /// In the JWKS now.
    pub published: bool,
    /// Creation time.
    pub created: Moment,
    /// Activation time.
    pub activated_at: String,
    /// Retirement time.
    pub retired_at: String,
    /// Published until (retired keys).
    pub publish_until: Option<Moment>,
}

/// The Keys screen: the realm's JWKS URL and its keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeysOverview {
    /// JWKS URL.
    pub jwks_uri: String,
    /// Keys, newest first.
    pub keys: Vec<KeyView>,
}
