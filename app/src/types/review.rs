//! The security-review queue (`api::review`, `pages::review`).
use super::Moment;
use serde::{Deserialize, Serialize};

/// A client in the security-review queue, with its risk signals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewItemView {
    /// The realm's name.
    pub realm: String,
    /// The realm's display name.
    pub realm_display: String,
    /// `client_id`.
    pub client_id: String,
    /// The client as an audit log target (its history's filter).
    pub audit_target: String,
    /// Name it registered.
    pub name: String,
    /// `admin`, `dynamic` or `metadata_document`.
    pub kind: String,
    /// Review state.
    pub state: String,
    /// Public (`none`) or how it authenticates.
    pub auth_method: String,
    /// Grant types.
    pub grant_types: Vec<String>,
    /// Registered scope (empty: any the resources offer).
    pub scope: String,
    /// Redirect URIs in full.
    pub redirect_uris: Vec<String>,
    /// Their hosts or schemes.
    pub redirect_hosts: Vec<String>,
    /// Every redirect is loopback.
    pub loopback_only: bool,
    /// Some redirect uses a private-use scheme.
    pub private_use: bool,
    /// Some redirect goes to a web host (https).
    pub web_redirects: bool,
    /// `software_id`, `software_version`.
    pub software: Option<String>,
    /// Client URI (home page).
    pub client_uri: Option<String>,
    /// Contacts it names (those with a console account read a rejection's reason).
    #[serde(default)]
    pub contacts: Vec<String>,
    /// Source address.
    pub source_ip: Option<String>,
    /// Registrations from that address.
    pub same_source: u64,
    /// Other clients with a similar name.
    pub similar_names: Vec<String>,
    /// First seen.
    pub created: Moment,
    /// Its last change (Unix seconds): a decision applies only to this version.
    pub version: i64,
    /// Who decided, why, when (for decided clients).
    pub decision: Option<(String, String, Moment)>,
    /// When it last got a token, if ever.
    pub last_token: Option<Moment>,
}

/// One page of the review inbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewInboxView {
    /// The clients, in the chosen order.
    pub items: Vec<ReviewItemView>,
    /// The cursor of the next page, when there is one.
    pub next: Option<String>,
}

/// What a bulk review did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BulkResult {
    /// Clients decided.
    pub done: u32,
    /// Clients not decided, with why.
    pub failed: Vec<(String, String)>,
}
