//! Realm types: names, display names, the stored realm, its issuer.
use crate::clock::UnixTime;
pub use crate::ids::RealmId;
use crate::ids::ResourceId;
use serde::{Deserialize, Serialize};

/// Name of the realm created at first start.
pub const DEFAULT_REALM: &str = "default";

/// A realm name: 1–63 characters of `a-z`, `0-9` and `-`, starting with a letter or digit.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct RealmName(String);

impl RealmName {
    /// Parses a realm name from user input (trimmed, case-folded).
    ///
    /// # Errors
    /// A message fit for the user when the name breaks the rules above.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        let s = s.trim().to_ascii_lowercase();
        if s.is_empty() {
            return Err("Realm name is required.");
        }
        if s.len() > 63 {
            return Err("Realm name must be at most 63 characters.");
        }
        if !s
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            return Err("Realm name may contain only letters, digits and '-'.");
        }
        if s.starts_with('-') || s.ends_with('-') {
            return Err("Realm name must not start or end with '-'.");
        }
        Ok(Self(s))
    }

    /// The name of the default realm.
    pub fn default_realm() -> Self {
        Self(DEFAULT_REALM.to_owned())
    }

    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the default (administration) realm.
    pub fn is_default(&self) -> bool {
        self.0 == DEFAULT_REALM
    }
}

impl std::fmt::Display for RealmName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A display name for a realm or user: trimmed, 1–100 characters, no control characters.
///
/// # Errors
/// A message naming `what` when the value breaks the rules.
pub fn parse_display_name(s: &str, what: &'static str) -> Result<String, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err(format!("{what} is required."));
    }
    if s.chars().count() > 100 {
        return Err(format!("{what} must be at most 100 characters."));
    }
    if s.chars().any(char::is_control) {
        return Err(format!("{what} must not contain control characters."));
    }
    // Invisible and direction-changing characters let a name look like another one (a
    // self-registered client posing as a known app on the consent page).
    let invisible = |c: char| matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{00AD}');
    if s.chars().any(invisible) {
        return Err(format!(
            "{what} must not contain invisible or text-direction characters."
        ));
    }
    Ok(s.to_owned())
}

/// A realm's settings as typed by an admin.
#[derive(Debug, Clone, Default)]
pub struct RealmInput {
    /// URL name (a change renames the realm and changes its issuer).
    pub name: String,
    /// Human-readable name.
    pub display_name: String,
    /// Default access-token lifetime in seconds.
    pub token_ttl_secs: String,
    /// Days a refresh token may go unused (empty keeps the current value).
    pub refresh_idle_days: String,
    /// Days a sign-in's refresh tokens last at most (empty keeps the current value).
    pub refresh_max_days: String,
}

/// A realm's registration settings as typed by an admin; an empty member keeps its value
/// (except the domains, which an allow-list needs).
#[derive(Debug, Clone, Default)]
pub struct RegistrationInput {
    /// `review`, `open`, `initial_access_token` or `disabled`.
    pub policy: String,
    /// Most self-registered clients.
    pub max_dynamic_clients: String,
    /// `review`, `any`, `allow_list` or `disabled`.
    pub metadata_document_policy: String,
    /// Trusted domains, space- or comma-separated.
    pub metadata_document_domains: String,
    /// Days without a token after which a self-registered client expires (`0`: never).
    pub unused_client_days: String,
    /// Days the secrets of dynamically registered clients last (`0`: they do not expire).
    pub client_secret_days: String,
    /// Registrations one address may make per window (empty keeps the current value).
    pub registrations_per_source: String,
    /// Trusted networks (address ranges), space- or comma-separated; `-` clears them.
    pub trusted_networks: String,
    /// Registrations each trusted network may make per window (empty keeps the current value).
    pub registrations_per_trusted_network: String,
    /// Hosts whose metadata documents may ask for machine access (`client_credentials`),
    /// space- or comma-separated; `-` clears them.
    pub metadata_document_machine_domains: String,
}

/// Registrations one address may make per throttle window (15 minutes), unless the realm
/// says otherwise.
pub const DEFAULT_REGISTRATIONS_PER_SOURCE: i64 = 10;
/// Registrations each trusted network may make per window, unless the realm says otherwise.
pub const DEFAULT_REGISTRATIONS_PER_TRUSTED_NETWORK: i64 = 200;
/// Most trusted networks (or machine-access hosts) a realm lists.
pub const MAX_TRUSTED_ENTRIES: usize = 50;

/// A stored realm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Realm {
    /// Opaque id; never changes, even on rename.
    pub id: RealmId,
    /// URL name, part of the issuer.
    pub name: RealmName,
    /// Human-readable name.
    pub display_name: String,
    /// Disabled realms issue nothing.
    pub enabled: bool,
    /// The resource (id) that token requests without a `resource` parameter are for; `None`
    /// means such requests are refused with `invalid_target` (the default).
    pub default_resource_id: Option<ResourceId>,
    /// Access-token lifetime of resources that set none of their own, in seconds.
    pub token_ttl_secs: i64,
    /// A refresh token unused this long expires (seconds).
    pub refresh_idle_ttl_secs: i64,
    /// No refresh token of one sign-in outlives this (seconds since the sign-in's code).
    pub refresh_max_ttl_secs: i64,
    /// Who may register a client at the registration endpoint.
    pub registration_policy: RegistrationPolicy,
    /// Most self-registered clients the realm holds.
    pub max_dynamic_clients: i64,
    /// Which clients identified by a metadata-document URL the realm trusts.
    pub metadata_document_policy: MetadataDocumentPolicy,
    /// The domains trusted under [`MetadataDocumentPolicy::AllowList`] (and below them).
    pub metadata_document_domains: Vec<String>,
    /// A self-registered client that gets no token this long expires (seconds; 0: never).
    pub unused_client_ttl_secs: i64,
    /// Lifetime of the secrets dynamic registration issues (seconds; 0: they do not expire).
    pub client_secret_ttl_secs: i64,
    /// Registrations one address may make per throttle window.
    pub registrations_per_source: i64,
    /// Networks (an office behind one NAT, a VPN) whose addresses share one, larger budget
    /// instead of one each.
    pub trusted_networks: Vec<crate::net::Cidr>,
    /// Registrations each trusted network may make per throttle window.
    pub registrations_per_trusted_network: i64,
    /// Hosts whose metadata documents may ask for machine access (`client_credentials`); such
    /// a client still waits for review before its first token.
    pub metadata_document_machine_domains: Vec<String>,
    /// Whether the sign-in page takes the people's local password (off: the realm's sign-in
    /// providers only).
    pub password_sign_in: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

/// Who may register a client at a realm's registration endpoint (RFC 7591).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RegistrationPolicy {
    /// Anyone; the client works at once.
    Open,
    /// Whoever holds an initial access token an admin issued.
    InitialAccessToken,
    /// Anyone, but the client is pending until a security reviewer approves it.
    #[default]
    Review,
    /// Nobody: the endpoint answers that registration is closed.
    Disabled,
}

impl RegistrationPolicy {
    /// Every policy, in display order.
    pub const ALL: [RegistrationPolicy; 4] = [
        RegistrationPolicy::Review,
        RegistrationPolicy::Open,
        RegistrationPolicy::InitialAccessToken,
        RegistrationPolicy::Disabled,
    ];

    /// Stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            RegistrationPolicy::Open => "open",
            RegistrationPolicy::InitialAccessToken => "initial_access_token",
            RegistrationPolicy::Review => "review",
            RegistrationPolicy::Disabled => "disabled",
        }
    }

    /// Parses the stored name.
    ///
    /// # Errors
    /// A message naming the policies.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == s.trim())
            .ok_or("Registration policy must be review, open, initial_access_token or disabled.")
    }
}

/// Which clients identified by a Client ID Metadata Document URL a realm trusts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetadataDocumentPolicy {
    /// Any https host; the client works at once.
    Any,
    /// Only hosts under the listed domains.
    AllowList,
    /// Any https host, but each new client waits for review.
    #[default]
    Review,
    /// None: such `client_id`s are refused.
    Disabled,
}

impl MetadataDocumentPolicy {
    /// Every policy, in display order.
    pub const ALL: [MetadataDocumentPolicy; 4] = [
        MetadataDocumentPolicy::Review,
        MetadataDocumentPolicy::Any,
        MetadataDocumentPolicy::AllowList,
        MetadataDocumentPolicy::Disabled,
    ];

    /// Stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            MetadataDocumentPolicy::Any => "any",
            MetadataDocumentPolicy::AllowList => "allow_list",
            MetadataDocumentPolicy::Review => "review",
            MetadataDocumentPolicy::Disabled => "disabled",
        }
    }

    /// Parses the stored name.
    ///
    /// # Errors
    /// A message naming the policies.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == s.trim())
            .ok_or("Metadata-document policy must be review, any, allow_list or disabled.")
    }
}

/// Most self-registered clients a new realm holds.
pub const DEFAULT_MAX_DYNAMIC_CLIENTS: i64 = 1000;

/// Refresh-token idle lifetime of a new realm: 14 days.
pub const DEFAULT_REFRESH_IDLE_TTL_SECS: i64 = 14 * 24 * 3600;
/// Refresh-token absolute lifetime of a new realm: 90 days.
pub const DEFAULT_REFRESH_MAX_TTL_SECS: i64 = 90 * 24 * 3600;
/// A self-registered client of a new realm that gets no token this long expires: 30 days.
pub const DEFAULT_UNUSED_CLIENT_TTL_SECS: i64 = 30 * 24 * 3600;

const DAY: i64 = 24 * 3600;

/// A number of whole days typed by an admin, from `min` to `max`, in seconds; empty keeps
/// `current`.
///
/// # Errors
/// `InvalidField` on `field` naming the bounds.
pub fn parse_days(
    s: &str,
    field: &'static str,
    (min, max): (i64, i64),
    current: i64,
) -> crate::error::Result<i64> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(current);
    }
    s.parse::<i64>()
        .ok()
        .filter(|d| (min..=max).contains(d))
        .map(|d| d * DAY)
        .ok_or_else(|| {
            crate::error::Error::field(
                field,
                format!("Enter a whole number of days from {min} to {max}."),
            )
        })
}

/// Seconds as whole days, for forms (rounded up, so a value never shows as 0 days unless it
/// is 0).
pub fn as_days(secs: i64) -> i64 {
    (secs + DAY - 1).div_euclid(DAY)
}

/// The issuer identifier of a realm: `{public_url}/realms/{name}`.
pub fn issuer(public_url: &str, name: &RealmName) -> String {
    format!("{}/realms/{}", public_url.trim_end_matches('/'), name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn realm_names() {
        assert_eq!(
            RealmName::parse(" Payments ").map(|n| n.0),
            Ok("payments".into())
        );
        assert!(RealmName::parse("").is_err());
        assert!(RealmName::parse("a_b").is_err());
        assert!(RealmName::parse("a.b").is_err());
        assert!(RealmName::parse("-ab").is_err());
        assert!(RealmName::parse(&"a".repeat(64)).is_err());
        assert!(RealmName::parse("team-42").is_ok());
    }

    #[test]
    fn issuer_has_no_double_slash() {
        let n = RealmName::parse("default").expect("valid");
        assert_eq!(
            issuer("https://id.example.com/", &n),
            "https://id.example.com/realms/default"
        );
    }

    #[test]
    fn display_names() {
        assert!(parse_display_name("  ", "Name").is_err());
        assert!(parse_display_name("a\u{7}b", "Name").is_err());
        assert_eq!(parse_display_name(" Ops ", "Name"), Ok("Ops".into()));
    }
}
