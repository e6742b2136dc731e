//! Realms (`api::realms`, `pages::realms`).
use serde::{Deserialize, Serialize};

/// A realm as shown in the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RealmView {
    /// Id (stable across renames).
    pub id: String,
    /// URL name.
    pub name: String,
    /// Display name.
    pub display_name: String,
    /// Enabled flag.
    pub enabled: bool,
    /// Issuer identifier.
    pub issuer: String,
    /// Default access-token lifetime in seconds.
    pub token_ttl_secs: i64,
    /// Days a refresh token may go unused.
    pub refresh_idle_days: i64,
    /// Days the refresh tokens of one sign-in last at most.
    pub refresh_max_days: i64,
    /// Days without a token after which a self-registered client expires (0: never).
    pub unused_client_days: i64,
    /// Days dynamically registered clients' secrets last (0: they do not expire).
    pub client_secret_days: i64,
    /// Who may register clients (`review`, `open`, `initial_access_token`, `disabled`).
    pub registration_policy: String,
    /// Most self-registered clients.
    pub max_dynamic_clients: i64,
    /// Which metadata-document clients it trusts (`review`, `any`, `allow_list`, `disabled`).
    pub metadata_document_policy: String,
    /// Trusted domains under `allow_list`.
    pub metadata_document_domains: String,
    /// Registrations one address may make per 15 minutes.
    pub registrations_per_source: i64,
    /// Trusted networks (address ranges), space-separated.
    pub trusted_networks: String,
    /// Registrations each trusted network may make per 15 minutes.
    pub registrations_per_trusted_network: i64,
    /// Hosts whose metadata documents may ask for machine access, space-separated.
    pub metadata_document_machine_domains: String,
    /// Creation time (RFC 3339).
    pub created_at: String,
}
