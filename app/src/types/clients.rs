//! OAuth clients (`api::clients`, `pages::clients`, the client picker).
use super::Moment;
use serde::{Deserialize, Serialize};

/// A client as shown in the console.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientView {
    /// `client_id`.
    pub client_id: String,
    /// Name.
    pub name: String,
    /// Token endpoint authentication method.
    pub auth_method: String,
    /// Registered scopes (RFC 7591 metadata; grants decide what it gets).
    pub scope: String,
    /// Grant types.
    pub grant_types: String,
    /// Contacts.
    pub contacts: String,
    /// Whether these are a resource server's introspection credentials (they get no tokens).
    pub resource_server: bool,
    /// Whether it is the realm's own Portcullis CLI (not deletable, not editable).
    #[serde(default)]
    pub first_party: bool,
    /// Enabled flag.
    pub enabled: bool,
    /// How it registered (`admin`, `dynamic`, `metadata_document`).
    pub registration: String,
    /// Review state (`pending`, `approved`, `rejected`, `revoked`, `expired`).
    pub review: String,
    /// The last review decision: who and why.
    pub decision: Option<(String, String)>,
    /// Creation time.
    pub created: Moment,
    /// The version a decision on it applies to (its last change).
    pub version: i64,
}

/// A client's registration as its edit form shows it (RFC 7591 metadata as text).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientFormView {
    /// `client_name`.
    pub name: String,
    /// Registered scopes.
    pub scope: String,
    /// Contacts, comma-separated.
    pub contacts: String,
    /// JWKS (pretty JSON), `private_key_jwt` only.
    pub jwks: String,
    /// JWKS URL, `private_key_jwt` only.
    pub jwks_uri: String,
    /// Redirect URIs, one per line.
    pub redirect_uris: String,
    /// `client_uri`.
    pub client_uri: String,
    /// `logo_uri`.
    pub logo_uri: String,
    /// `software_id`.
    pub software_id: String,
    /// `software_version`.
    pub software_version: String,
    /// Whether it may use token exchange (RFC 8693).
    pub token_exchange: bool,
    /// May use the device authorization grant (RFC 8628).
    pub device_code: bool,
}

/// A client's detail page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientDetailView {
    /// The client.
    pub client: ClientView,
    /// Its registration, for the edit form.
    pub form: ClientFormView,
    /// Agent it acts for.
    pub agent: String,
    /// The resource whose introspection credentials it is (its slug), if any.
    pub resource: String,
    /// JWKS (pretty JSON) of a `private_key_jwt` client.
    pub jwks: String,
    /// Or the URL its keys are fetched from.
    pub jwks_uri: String,
    /// What this instance has fetched from `jwks_uri`.
    pub remote_keys: Option<RemoteKeysView>,
    /// Other RFC 7591 metadata that is set: (field name, value).
    pub metadata: Vec<(String, String)>,
    /// Secrets: (created, expires, live).
    pub secrets: Vec<(String, String, bool)>,
}

/// The keys fetched from a client's `jwks_uri` (empty strings for "never").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteKeysView {
    /// `kid`s in use.
    pub kids: Vec<String>,
    /// When they were fetched.
    pub fetched_at: String,
    /// Until when they are used without refetching.
    pub fresh_until: String,
    /// Why the last fetch failed.
    pub last_error: String,
}

/// One page of clients.
pub type ClientPage = super::KeyedPage<ClientView>;

/// A client secret shown exactly once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IssuedSecret {
    /// `client_id`.
    pub client_id: String,
    /// The secret; empty for public clients.
    pub secret: String,
}

/// A client a picker offers, with the agent it acts for now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientChoiceView {
    /// `client_id`.
    pub client_id: String,
    /// Name.
    pub name: String,
    /// The agent it acts for, empty for none.
    pub agent: String,
}
