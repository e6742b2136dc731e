//! Client types: identifiers, authentication methods, grant types, the stored client and its
//! secrets.
use crate::clock::UnixTime;
use crate::ids::{AgentId, RealmId, ResourceId};
pub use crate::ids::{BindingId, ClientRowId, SecretId};
use crate::scope::ScopeSet;
use serde::{Deserialize, Serialize};

/// Checked RFC 7591 metadata stored with a client (beyond its name, method, grants and scope).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Metadata {
    /// Contacts (parsed email addresses).
    pub contacts: Vec<String>,
    /// Home page.
    pub client_uri: Option<String>,
    /// Logo.
    pub logo_uri: Option<String>,
    /// Software id.
    pub software_id: Option<String>,
    /// Software version.
    pub software_version: Option<String>,
    /// Public keys for `private_key_jwt` (a JWK Set of public asymmetric keys).
    pub jwks: Option<serde_json::Value>,
    /// Where the client publishes its public keys instead (fetched over HTTPS and cached).
    pub jwks_uri: Option<String>,
    /// Redirect URIs, matched exactly (for the authorization code flow).
    pub redirect_uris: Vec<String>,
    /// `application_type`, when the client declared one.
    pub application_type: Option<ApplicationType>,
}

/// `application_type` (OpenID Connect Dynamic Client Registration §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApplicationType {
    /// A web application: redirects to https.
    Web,
    /// A native application: redirects to loopback or a private-use scheme.
    Native,
}

impl ApplicationType {
    /// Parses the registered name.
    ///
    /// # Errors
    /// A message naming the two values.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        match s {
            "web" => Ok(ApplicationType::Web),
            "native" => Ok(ApplicationType::Native),
            _ => Err("application_type must be web or native."),
        }
    }
}

/// An OAuth `client_id` (RFC 6749 §2.2).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ClientId(String);

/// Longest `client_id` accepted at any endpoint.
pub const MAX_CLIENT_ID_LEN: usize = 255;

impl ClientId {
    /// Parses a `client_id` presented at an endpoint: 1–255 visible ASCII characters. Anything
    /// else names no client and is refused before it is looked up, stored or logged.
    ///
    /// # Errors
    /// A message fit for the caller.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        if s.is_empty() || s.len() > MAX_CLIENT_ID_LEN {
            return Err("client_id must be 1–255 characters.");
        }
        if !s.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("client_id must be visible ASCII characters.");
        }
        Ok(Self(s.to_owned()))
    }

    /// Parses a `client_id` chosen at registration: 1–128 characters of
    /// `A-Z a-z 0-9 - . _ ~ :` (trimmed).
    ///
    /// # Errors
    /// A message fit for the user.
    pub fn parse_new(s: &str) -> Result<Self, &'static str> {
        let s = s.trim();
        if s.is_empty() || s.len() > 128 {
            return Err("client_id must be 1–128 characters.");
        }
        if !s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | ':'))
        {
            return Err("client_id may contain only letters, digits and - . _ ~ :");
        }
        Ok(Self(s.to_owned()))
    }

    /// A generated `client_id` (`client_` and 24 hex digits).
    pub fn generate() -> Self {
        Self(crate::secret::new_id("client"))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ClientId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How a client authenticates at the token endpoint (RFC 7591 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthMethod {
    /// HTTP Basic with the client secret.
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form body.
    ClientSecretPost,
    /// A JWT signed with the client's private key (RFC 7523 §2.2).
    PrivateKeyJwt,
    /// A public client: no authentication.
    None,
}

impl AuthMethod {
    /// Registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            AuthMethod::ClientSecretBasic => "client_secret_basic",
            AuthMethod::ClientSecretPost => "client_secret_post",
            AuthMethod::PrivateKeyJwt => "private_key_jwt",
            AuthMethod::None => "none",
        }
    }

    /// Parses the registered name.
    ///
    /// # Errors
    /// A message listing the supported methods.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "client_secret_basic" => Ok(AuthMethod::ClientSecretBasic),
            "client_secret_post" => Ok(AuthMethod::ClientSecretPost),
            "private_key_jwt" => Ok(AuthMethod::PrivateKeyJwt),
            "none" => Ok(AuthMethod::None),
            other => Err(format!(
                "Unsupported token_endpoint_auth_method {other:?}; use client_secret_basic, client_secret_post, private_key_jwt or none."
            )),
        }
    }

    /// Whether the method uses a client secret.
    pub fn uses_secret(self) -> bool {
        matches!(
            self,
            AuthMethod::ClientSecretBasic | AuthMethod::ClientSecretPost
        )
    }
}

/// The JWT bearer grant (RFC 7523 §2.1), the grant ID-JAGs are presented with.
pub const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// An OAuth grant type this server implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantType {
    /// RFC 6749 §4.1, with PKCE (RFC 7636) always.
    AuthorizationCode,
    /// RFC 6749 §4.4.
    ClientCredentials,
    /// RFC 6749 §6.
    RefreshToken,
    /// RFC 8693: an access token of the realm traded for one at another resource.
    TokenExchange,
    /// RFC 8628: a device without a browser polls while a person approves elsewhere.
    DeviceCode,
    /// RFC 7523 §2.1 with the ID-JAG profile: an enterprise IdP's identity assertion traded for
    /// an access token. Who may use it is decided by the realm's trusted issuers (each lists
    /// its clients), not by the client's registration.
    JwtBearer,
}

impl GrantType {
    /// Every grant type this server implements.
    pub const ALL: [GrantType; 6] = [
        GrantType::AuthorizationCode,
        GrantType::ClientCredentials,
        GrantType::RefreshToken,
        GrantType::TokenExchange,
        GrantType::DeviceCode,
        GrantType::JwtBearer,
    ];

    /// Registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            GrantType::AuthorizationCode => "authorization_code",
            GrantType::ClientCredentials => "client_credentials",
            GrantType::RefreshToken => "refresh_token",
            GrantType::TokenExchange => "urn:ietf:params:oauth:grant-type:token-exchange",
            GrantType::DeviceCode => "urn:ietf:params:oauth:grant-type:device_code",
            GrantType::JwtBearer => JWT_BEARER_GRANT,
        }
    }

    /// Parses the registered name.
    ///
    /// # Errors
    /// For grant types this server does not implement.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "authorization_code" => Ok(GrantType::AuthorizationCode),
            "client_credentials" => Ok(GrantType::ClientCredentials),
            "refresh_token" => Ok(GrantType::RefreshToken),
            "urn:ietf:params:oauth:grant-type:token-exchange" => Ok(GrantType::TokenExchange),
            "urn:ietf:params:oauth:grant-type:device_code" => Ok(GrantType::DeviceCode),
            JWT_BEARER_GRANT => Ok(GrantType::JwtBearer),
            other => Err(format!("Unsupported grant type {other:?}.")),
        }
    }
}

/// Who decided when Portcullis changed a client's review state itself (an unused client
/// expired, an expired metadata-document client came back).
pub const SYSTEM_REVIEWER: &str = "system";

/// How long the secrets a registration update (RFC 7592) replaces keep working, for requests
/// already under way.
pub const SECRET_RENEWAL_OVERLAP_SECS: i64 = 3600;

/// A stored client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    /// Row id: never reused, carried in its tokens so a re-created client does not revive them.
    pub id: ClientRowId,
    /// Realm.
    pub realm_id: RealmId,
    /// The OAuth `client_id`.
    pub client_id: ClientId,
    /// Human-readable name (`client_name`).
    pub name: String,
    /// Token endpoint authentication method.
    pub auth_method: AuthMethod,
    /// Allowed grant types.
    pub grant_types: Vec<GrantType>,
    /// Scopes the client may be granted.
    pub scope: ScopeSet,
    /// Other RFC 7591 metadata.
    pub metadata: Metadata,
    /// The agent this client acts for, if any, and the id of that binding (new on every bind).
    pub agent: Option<AgentBinding>,
    /// Set for a resource server's credentials: this client may introspect tokens minted for
    /// that resource, and gets no tokens itself.
    pub resource_server_for: Option<ResourceId>,
    /// Disabled clients get no tokens, and their tokens introspect inactive.
    pub enabled: bool,
    /// How it was registered and where its review stands.
    pub registration: Registration,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

impl Client {
    /// Whether it may get tokens and sign people in: enabled, and approved (admin-registered
    /// clients are).
    pub fn is_active(&self) -> bool {
        self.enabled && self.registration.review == ReviewState::Approved
    }

    /// Came through self-registration (dynamic registration or a Client ID Metadata Document):
    /// a security reviewer's to decide on. Clients an administrator made, and resource
    /// servers' introspection credentials, are an administrator's.
    pub fn is_self_registered(&self) -> bool {
        self.registration.kind != RegistrationKind::Admin && self.resource_server_for.is_none()
    }

    /// Registered by an administrator, or let in by a reviewer (a person: decisions Portcullis
    /// takes itself, [`SYSTEM_REVIEWER`], verify nothing).
    pub fn is_verified(&self) -> bool {
        self.registration.kind == RegistrationKind::Admin
            || self
                .registration
                .reviewed_by
                .as_deref()
                .is_some_and(|by| by != SYSTEM_REVIEWER)
    }
}

/// How a client came to be registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegistrationKind {
    /// By an administrator (console or CLI).
    Admin,
    /// By itself, at the registration endpoint (RFC 7591).
    Dynamic,
    /// By its Client ID Metadata Document (an https `client_id`).
    MetadataDocument,
}

impl RegistrationKind {
    /// Stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            RegistrationKind::Admin => "admin",
            RegistrationKind::Dynamic => "dynamic",
            RegistrationKind::MetadataDocument => "metadata_document",
        }
    }

    /// Parses the stored name.
    ///
    /// # Errors
    /// For any other value.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "admin" => Ok(RegistrationKind::Admin),
            "dynamic" => Ok(RegistrationKind::Dynamic),
            "metadata_document" => Ok(RegistrationKind::MetadataDocument),
            other => Err(format!("registration kind {other}")),
        }
    }
}

/// Where a client's security review stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewState {
    /// Waiting for a reviewer: no tokens, no sign-ins.
    Pending,
    /// Let in (or never needed review).
    Approved,
    /// Refused by a reviewer.
    Rejected,
    /// Let in once, then revoked: its tokens stopped working.
    Revoked,
    /// Never used within the realm's limit, so removed from service.
    Expired,
}

impl ReviewState {
    /// Every state, in display order.
    pub const ALL: [ReviewState; 5] = [
        ReviewState::Pending,
        ReviewState::Approved,
        ReviewState::Rejected,
        ReviewState::Revoked,
        ReviewState::Expired,
    ];

    /// Stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewState::Pending => "pending",
            ReviewState::Approved => "approved",
            ReviewState::Rejected => "rejected",
            ReviewState::Revoked => "revoked",
            ReviewState::Expired => "expired",
        }
    }

    /// Parses the stored name.
    ///
    /// # Errors
    /// For any other value.
    pub fn parse(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| format!("review state {s}"))
    }
}

/// How a client was registered and where its review stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// By whom.
    pub kind: RegistrationKind,
    /// Review state.
    pub review: ReviewState,
    /// The address a self-registration came from.
    pub source_ip: Option<String>,
    /// Who last decided (approved, rejected, revoked).
    pub reviewed_by: Option<String>,
    /// Why.
    pub review_reason: Option<String>,
    /// When.
    pub reviewed_at: Option<UnixTime>,
    /// When it last got a token (written in batches, so up to a quarter of a minute late).
    pub last_token_at: Option<UnixTime>,
    /// Its token epoch: access tokens carry the one they were minted in and live only while it
    /// is current. It moves on each time the client leaves `approved` (revoked, expired), so a
    /// client an administrator restores starts with none of its old tokens.
    pub token_epoch: i64,
}

impl Registration {
    /// An administrator's registration: approved from the start.
    pub fn admin() -> Self {
        Self {
            kind: RegistrationKind::Admin,
            review: ReviewState::Approved,
            source_ip: None,
            reviewed_by: None,
            review_reason: None,
            reviewed_at: None,
            last_token_at: None,
            token_epoch: 0,
        }
    }
}

/// How a self-registered client's registration write changes it (RFC 7592 update, a changed
/// metadata document, a secret renewal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegistrationChange {
    /// What people or a reviewer agreed to changed (not only the secret renewed).
    pub changed: bool,
    /// An approved client goes back to pending.
    pub back_to_review: bool,
}

/// A reviewer's decision on a client: from which state to which, by whom, why, when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewDecision {
    /// The state the client must still be in.
    pub from: ReviewState,
    /// The state it moves to.
    pub to: ReviewState,
    /// Who decided.
    pub by: String,
    /// Why.
    pub reason: String,
    /// When.
    pub at: UnixTime,
    /// The client's `updated_at` the reviewer saw: the decision applies only if the client has
    /// not changed since (a pending client cannot swap its redirect URIs between the look and
    /// the click). `None` from the command line, which shows nothing first.
    pub seen: Option<UnixTime>,
    /// Access an approval grants (a machine client's client_credentials grants: resource,
    /// scopes), written with the decision.
    pub grants: Vec<(ResourceId, ScopeSet)>,
}

/// What a reviewer decides for one or many clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Let pending clients in.
    Approve,
    /// Refuse pending clients.
    Reject,
    /// Stop approved clients.
    Revoke,
    /// Let revoked clients work again (administrators only); their old tokens stay dead.
    Restore,
}

impl Decision {
    /// Parses `approve`, `reject`, `revoke` or `restore`.
    ///
    /// # Errors
    /// A message naming the four.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        match s.trim() {
            "approve" => Ok(Decision::Approve),
            "reject" => Ok(Decision::Reject),
            "revoke" => Ok(Decision::Revoke),
            "restore" => Ok(Decision::Restore),
            _ => Err("The decision is approve, reject, revoke or restore."),
        }
    }
}

/// What a decision on many clients did: how many were decided, and why the others were not.
#[derive(Debug, Default)]
pub struct Decided {
    /// Clients decided.
    pub done: u32,
    /// `client_id` and why, for each client not decided.
    pub failed: Vec<(String, crate::error::Error)>,
}

/// Most clients one decision covers.
pub const MAX_DECIDED_AT_ONCE: usize = 100;

/// A resource (slug) and scopes a reviewer grants a self-registered machine client while
/// approving it; `scopes` `None` means every scope the resource accepts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AccessChoice {
    /// The resource's slug.
    pub resource: String,
    /// Space-separated scopes.
    pub scopes: Option<String>,
}

/// An initial access token for registration (hash only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitialToken {
    /// SHA-256 of the token.
    pub token_hash: Vec<u8>,
    /// Realm.
    pub realm_id: RealmId,
    /// What it is for.
    pub label: String,
    /// Who issued it.
    pub created_by: String,
    /// Issued.
    pub created_at: UnixTime,
    /// Unusable from then.
    pub expires_at: UnixTime,
    /// Registrations it still allows.
    pub uses: i64,
}

/// A client's binding to an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentBinding {
    /// The agent.
    pub agent_id: AgentId,
    /// This binding: a client unbound and bound again gets a new one, and tokens minted under
    /// the old one stay dead.
    pub binding_id: BindingId,
}

/// A stored client secret (hash only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientSecret {
    /// Opaque id.
    pub id: SecretId,
    /// Owning client.
    pub client_pk: ClientRowId,
    /// SHA-256 of the secret.
    pub secret_hash: Vec<u8>,
    /// Creation time.
    pub created_at: UnixTime,
    /// End of the overlap window after a rotation; `None` while current.
    pub expires_at: Option<UnixTime>,
}

impl ClientSecret {
    /// Whether the secret is accepted at `now`.
    pub fn is_live(&self, now: UnixTime) -> bool {
        self.expires_at.is_none_or(|t| now < t)
    }
}

/// Dates of one client secret (never the secret or its hash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretInfo {
    /// Creation time.
    pub created_at: UnixTime,
    /// End of its overlap window, if rotated out.
    pub expires_at: Option<UnixTime>,
    /// Accepted now.
    pub live: bool,
}

/// A client with its secrets' dates and its agent's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientDetail {
    /// The client.
    pub client: Client,
    /// Its secrets, newest first.
    pub secrets: Vec<SecretInfo>,
    /// The name of the agent it acts for.
    pub agent: Option<String>,
    /// The slug of the resource whose server it is.
    pub resource_server_for: Option<String>,
    /// For a client with a `jwks_uri`: the keys this instance has fetched from it.
    pub remote_keys: Option<RemoteKeys>,
}

/// A resource's introspection credentials, as its page shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceServerCredentials {
    /// The realm's introspection endpoint, where the MCP server uses them.
    pub introspection_endpoint: String,
    /// The client, if the resource has credentials.
    pub client: Option<ClientDetail>,
}

/// What this instance knows of the keys at a client's `jwks_uri`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteKeys {
    /// The URL.
    pub jwks_uri: String,
    /// `kid`s of the keys in use (empty when nothing usable was fetched).
    pub kids: Vec<String>,
    /// When they were fetched.
    pub fetched_at: Option<UnixTime>,
    /// Until when they are used without refetching.
    pub fresh_until: Option<UnixTime>,
    /// Why the last fetch failed, if it did.
    pub last_error: Option<String>,
}

/// How long a rotated-out secret keeps working by default.
pub const DEFAULT_SECRET_OVERLAP_SECS: i64 = 24 * 3600;
/// Longest overlap a rotated-out secret may keep working.
pub const MAX_SECRET_OVERLAP_SECS: i64 = 30 * 24 * 3600;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in [
            AuthMethod::ClientSecretBasic,
            AuthMethod::ClientSecretPost,
            AuthMethod::PrivateKeyJwt,
            AuthMethod::None,
        ] {
            assert_eq!(AuthMethod::parse(m.as_str()), Ok(m));
        }
        assert!(AuthMethod::parse("client_secret_jwt").is_err());
        for g in GrantType::ALL {
            assert_eq!(GrantType::parse(g.as_str()), Ok(g));
        }
        assert!(GrantType::parse("password").is_err());
    }

    #[test]
    fn client_ids() {
        assert!(ClientId::parse_new("agent:reports-bot").is_ok());
        assert!(ClientId::parse_new("has space").is_err());
        assert!(ClientId::parse("https://app.example.com/client.json").is_ok());
        assert!(ClientId::parse(&"a".repeat(MAX_CLIENT_ID_LEN)).is_ok());
        assert!(ClientId::parse(&"a".repeat(MAX_CLIENT_ID_LEN + 1)).is_err());
        assert!(ClientId::parse("").is_err());
        assert!(ClientId::parse("tab\tinside").is_err());
        assert!(ClientId::parse("é").is_err());
    }

    #[test]
    fn secrets_expire_after_the_overlap() {
        let s = ClientSecret {
            id: SecretId::generate(),
            client_pk: ClientRowId::generate(),
            secret_hash: vec![],
            created_at: 0,
            expires_at: Some(10),
        };
        assert!(s.is_live(9));
        assert!(!s.is_live(10));
    }
}

/// A client offered by a picker, with the agent it acts for now (so moving it can be confirmed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientChoice {
    /// The client.
    pub client: Client,
    /// The name of the agent it acts for, if any.
    pub agent: Option<String>,
}

// The first-party client every realm has: `portcullis-cli`, the laptop binary (created in
// `ops.rs`).

/// The `client_id` of the realm's command-line client.
pub const CLI_CLIENT_ID: &str = "portcullis-cli";
/// Its loopback redirect URI (any port matches, RFC 8252 §7.3).
pub const CLI_REDIRECT_URI: &str = "http://127.0.0.1/callback";

/// Whether `client_id` names the first-party client (which may not be deleted, edited or taken).
pub fn is_first_party(client_id: &str) -> bool {
    client_id == CLI_CLIENT_ID
}
