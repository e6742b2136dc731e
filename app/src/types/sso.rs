//! Console sign-in providers (`api::sso`).
use super::Moment;
use serde::{Deserialize, Serialize};

/// An OpenID Connect provider console users sign in with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SsoProviderView {
    /// Id (`sso_…`).
    pub id: String,
    /// Display name.
    pub display_name: String,
    /// Sign-in button text.
    pub button_text: String,
    /// Issuer URL.
    pub issuer: String,
    /// Client ID at the provider.
    pub client_id: String,
    /// Whether a client secret is stored (never the secret).
    pub has_secret: bool,
    /// Scopes, space-separated.
    pub scopes: String,
    /// The groups claim.
    pub groups_claim: String,
    /// Takes emails it does not mark verified.
    pub trust_email: bool,
    /// `amr` values that prove a second factor, space-separated.
    pub second_factor_amr: String,
    /// `acr` values that prove a second factor, space-separated.
    pub second_factor_acr: String,
    /// Groups that make admins.
    pub admin_groups: Vec<String>,
    /// Groups that make security reviewers.
    pub reviewer_groups: Vec<String>,
    /// Groups that make developers.
    pub developer_groups: Vec<String>,
    /// The redirect URI to register at the provider.
    pub redirect_uri: String,
    /// Where the provider sends people back after signing out (its post-logout redirect URI).
    pub post_logout_uri: String,
    /// Enabled flag.
    pub enabled: bool,
    /// Last change.
    pub updated: Moment,
}

/// What "Test connection" found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SsoDiscoveryView {
    /// `issuer`.
    pub issuer: String,
    /// `authorization_endpoint`.
    pub authorization_endpoint: String,
    /// `token_endpoint` (empty when absent).
    pub token_endpoint: String,
    /// `userinfo_endpoint` (empty when absent).
    pub userinfo_endpoint: String,
    /// `end_session_endpoint` (empty when absent).
    pub end_session_endpoint: String,
    /// Signing keys in its JWKS.
    pub keys: usize,
    /// ID token algorithms.
    pub algorithms: Vec<String>,
    /// Supported scopes.
    pub scopes: Vec<String>,
    /// Supported claims.
    pub claims: Vec<String>,
}

/// A realm's sign-in provider for its people (brokering).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RealmProviderView {
    /// Id (`sso_…`).
    pub id: String,
    /// Display name.
    pub display_name: String,
    /// Sign-in button text.
    pub button_text: String,
    /// Issuer URL.
    pub issuer: String,
    /// Client ID at the provider.
    pub client_id: String,
    /// Whether a client secret is stored (never the secret).
    pub has_secret: bool,
    /// Scopes, space-separated.
    pub scopes: String,
    /// The groups claim.
    pub groups_claim: String,
    /// Takes emails it does not mark verified.
    pub trust_email: bool,
    /// The group mapping, one `GROUP -> KIND:NAME` per line.
    pub group_mapping: String,
    /// How many people come from it.
    pub people: i64,
    /// The units and rings its mapping names that the registry no longer has (`unit x`).
    #[serde(default)]
    pub missing: Vec<String>,
    /// The redirect URI to register at the provider.
    pub redirect_uri: String,
    /// Enabled flag.
    pub enabled: bool,
    /// Last change.
    pub updated: Moment,
}

/// A realm's sign-in for its people: its providers and whether the password still works.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RealmSignInView {
    /// The realm's display name.
    pub realm: String,
    /// Whether its sign-in page takes the people's password.
    pub password_sign_in: bool,
    /// Its providers.
    pub providers: Vec<RealmProviderView>,
}
