//! Resource types: canonical URIs, slugs, the stored resource and its checked fields.
use crate::clock::UnixTime;
use crate::ids::RealmId;
pub use crate::ids::ResourceId;
use crate::keys::SigningAlg;
use crate::scope::ScopeSet;

/// The most resources a developer may have waiting for an admin.
pub const MAX_SUBMISSIONS_PER_PERSON: usize = 10;
/// The most developer submissions a realm holds waiting for an admin.
pub const MAX_SUBMISSIONS: usize = 100;
/// Longest reason for rejecting a submission, in characters.
pub const MAX_REJECTION_CHARS: usize = 500;

/// A reason for rejecting a submission: trimmed, 1 to [`MAX_REJECTION_CHARS`] characters, no
/// control characters but line breaks.
///
/// # Errors
/// What is wrong with it, for the field.
pub fn parse_rejection(s: &str) -> Result<String, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("Give a reason: the developer sees it.".into());
    }
    if s.chars().count() > MAX_REJECTION_CHARS || s.chars().any(|c| c.is_control() && c != '\n') {
        return Err(format!(
            "A reason is at most {MAX_REJECTION_CHARS} characters without control characters."
        ));
    }
    Ok(s.to_owned())
}

/// A canonical resource URI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourceUri(String);

impl ResourceUri {
    /// Canonicalises a resource indicator.
    ///
    /// # Errors
    /// A message saying which rule the input breaks.
    pub fn parse(input: &str, allow_http_loopback: bool) -> Result<Self, String> {
        let url = url::Url::parse(input.trim())
            .map_err(|_| format!("\"{input}\" is not an absolute URI"))?;
        if url.query().is_some() || url.fragment().is_some() {
            return Err("A resource URI must not have a query or fragment.".into());
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("A resource URI must not carry user info.".into());
        }
        let host = url.host_str().ok_or("A resource URI needs a host.")?;
        match url.scheme() {
            "https" => {}
            "http" if allow_http_loopback && is_loopback(host) => {}
            "http" => {
                return Err(
                    "A resource URI must use https (http only for loopback hosts in development)."
                        .into(),
                );
            }
            _ => return Err("A resource URI must use https.".into()),
        }
        // The url crate lower-cases scheme and host and drops default ports already.
        let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
        let path = url.path();
        let path = if path == "/" {
            "/"
        } else {
            path.trim_end_matches('/')
        };
        let path = if path.is_empty() { "/" } else { path };
        Ok(Self(format!("{}://{}{}{}", url.scheme(), host, port, path)))
    }

    /// The canonical text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ResourceUri {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether `host` (as a URL writes it) names this machine.
pub(crate) fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
        || host
            .trim_matches(['[', ']'])
            .parse::<std::net::Ipv6Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// A resource slug: 1–63 of `a-z`, `0-9`, `-` (no `_` or `.`), not starting or ending with `-`.
///
/// # Errors
/// A message fit for the user.
pub fn parse_slug(s: &str) -> Result<String, &'static str> {
    let s = s.trim().to_ascii_lowercase();
    if s.is_empty() || s.len() > 63 {
        return Err("Resource id must be 1–63 characters.");
    }
    if !s
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        || s.starts_with('-')
        || s.ends_with('-')
    {
        return Err("Resource id may contain only letters, digits and '-' (no '_' or '.').");
    }
    Ok(s)
}

/// Input for creating or changing a resource, as typed by an admin.
#[derive(Debug, Clone, Default)]
pub struct ResourceInput {
    /// Slug (ignored on update).
    pub slug: String,
    /// Display name.
    pub display_name: String,
    /// Resource URI (canonicalised).
    pub uri: String,
    /// Accepted scopes, space-delimited.
    pub scopes: String,
    /// Token lifetime in seconds; empty means the realm's default.
    pub token_ttl_secs: String,
    /// Signing algorithm override; empty means the realm default (ES256).
    pub signing_alg: String,
    /// Enabled flag, on creation only (afterwards `Core::set_resource_enabled`).
    pub enabled: bool,
}

/// The changeable fields of a resource, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceFields {
    /// Display name.
    pub display_name: String,
    /// Canonical URI.
    pub uri: ResourceUri,
    /// Accepted scopes (at least one).
    pub scopes: ScopeSet,
    /// Access-token lifetime override (else the realm's default).
    pub token_ttl_secs: Option<i64>,
    /// Signing algorithm override.
    pub signing_alg: Option<SigningAlg>,
    /// Enabled flag (used on creation only).
    pub enabled: bool,
}

impl ResourceFields {
    /// Checks typed input, every field.
    ///
    /// # Errors
    /// `InvalidField` for one field that breaks a rule, `Findings` for several.
    pub fn parse(input: &ResourceInput, allow_http_loopback: bool) -> crate::error::Result<Self> {
        let mut checks = crate::error::FieldChecks::default();
        let fields = Self::check(input, allow_http_loopback, &mut checks);
        fields.ok_or_else(|| checks.failed())
    }

    /// Checks typed input, noting each field's problem in `checks` (so that a form can add
    /// its own fields' problems before reporting them all); `None` when one was noted.
    pub(crate) fn check(
        input: &ResourceInput,
        allow_http_loopback: bool,
        checks: &mut crate::error::FieldChecks,
    ) -> Option<Self> {
        let display_name = checks.take(
            "name",
            crate::realms::parse_display_name(&input.display_name, "Name"),
        );
        let uri = checks.take("uri", ResourceUri::parse(&input.uri, allow_http_loopback));
        let scopes = checks.take(
            "scopes",
            ScopeSet::parse(&input.scopes).and_then(|s| {
                if s.is_empty() {
                    return Err("List at least one scope the resource accepts.".into());
                }
                // These ask for refresh tokens and for who the person is, agreed to apart from
                // any resource: a resource scope of the same name would ride on that consent.
                let reserved: Vec<&str> = s
                    .iter()
                    .filter(|s| crate::authorize::NON_RESOURCE_SCOPES.contains(s))
                    .collect();
                if !reserved.is_empty() {
                    return Err(format!(
                        "{} cannot be a resource's scope: offline_access asks for refresh tokens, and openid, email and profile for who the person is.",
                        reserved.join(", ")
                    ));
                }
                Ok(s)
            }),
        );
        let token_ttl_secs = match input.token_ttl_secs.trim() {
            "" => Some(None),
            s => checks
                .take_error(
                    "token_ttl_secs",
                    crate::tokens::lifetime::parse_token_ttl(s, "token_ttl_secs"),
                )
                .map(Some),
        };
        let signing_alg = match input.signing_alg.trim() {
            "" => Some(None),
            s => checks.take("signing_alg", SigningAlg::parse(s)).map(Some),
        };
        match (display_name, uri, scopes, token_ttl_secs, signing_alg) {
            (
                Some(display_name),
                Some(uri),
                Some(scopes),
                Some(token_ttl_secs),
                Some(signing_alg),
            ) => Some(Self {
                display_name,
                uri,
                scopes,
                token_ttl_secs,
                signing_alg,
                enabled: input.enabled,
            }),
            _ => None,
        }
    }
}

/// A stored protected resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// Row id: never reused, carried in its tokens so a re-created resource does not revive
    /// them.
    pub id: ResourceId,
    /// Realm.
    pub realm_id: RealmId,
    /// Slug, e.g. `payments-mcp`.
    pub slug: String,
    /// Display name.
    pub display_name: String,
    /// Canonical URI: the `aud` of its tokens.
    pub uri: ResourceUri,
    /// Scopes this resource accepts.
    pub scopes: ScopeSet,
    /// Access-token lifetime override; `None` follows the realm's default.
    pub token_ttl_secs: Option<i64>,
    /// Signing algorithm override (else the realm's active key).
    pub signing_alg: Option<SigningAlg>,
    /// Disabled resources get no tokens.
    pub enabled: bool,
    /// Who may get tokens for it.
    pub policy: AccessPolicy,
    /// The developer who submitted it from "Protect your MCP server", until an admin enables
    /// (or disables) it; disabled until then.
    pub submitted_by: Option<String>,
    /// Why an admin rejected the submission (then it no longer waits; its developer sees why and
    /// may withdraw it).
    pub rejection: Option<String>,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

/// Which clients may ask a resource's people for consent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConsentPolicy {
    /// Any registered (and approved) client; the person decides. The MCP default: VS Code
    /// registers itself and the user agrees.
    #[default]
    AnyClient,
    /// Only clients an admin granted access, within their granted scopes.
    GrantedClients,
}

impl ConsentPolicy {
    /// Stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            ConsentPolicy::AnyClient => "any_client",
            ConsentPolicy::GrantedClients => "granted_clients",
        }
    }

    /// Parses the stored name.
    ///
    /// # Errors
    /// A message naming the two.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        match s.trim() {
            "any_client" => Ok(ConsentPolicy::AnyClient),
            "granted_clients" => Ok(ConsentPolicy::GrantedClients),
            _ => Err("Consent policy must be any_client or granted_clients."),
        }
    }
}

/// Who may get tokens for a resource, beyond the per-client grants.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessPolicy {
    /// Which clients may ask people for consent (authorization code).
    pub consent: ConsentPolicy,
    /// People holding one of these roles may use it; empty: every person of the realm.
    pub people_roles: ScopeSet,
    /// What a request without `scope` gets (within what may be granted); empty: everything.
    pub default_scopes: ScopeSet,
    /// Self-registered machine clients get client_credentials tokens (within their registered
    /// scope) without a reviewer's grant.
    pub open_to_self_registered: bool,
}

/// A resource's access policy as typed by an admin.
#[derive(Debug, Clone, Default)]
pub struct AccessPolicyInput {
    /// `any_client` or `granted_clients`.
    pub consent: String,
    /// Roles, space-separated.
    pub people_roles: String,
    /// Scopes, space-separated.
    pub default_scopes: String,
    /// Open to self-registered machine clients.
    pub open_to_self_registered: bool,
}

impl AccessPolicy {
    /// Whether a person with `roles` may use the resource.
    pub fn admits(&self, roles: &ScopeSet) -> bool {
        self.people_roles.is_empty() || !self.people_roles.intersection(roles).is_empty()
    }
}

impl Resource {
    /// A developer's submission that waits for an admin (not yet decided, not rejected).
    #[must_use]
    pub fn waiting(&self) -> bool {
        self.submitted_by.is_some() && self.rejection.is_none()
    }

    /// The lifetime of its access tokens: its own, else its realm's default.
    pub fn token_ttl(&self, realm: &crate::realms::Realm) -> i64 {
        crate::tokens::lifetime::effective_token_ttl(self.token_ttl_secs, realm.token_ttl_secs)
    }

    /// Applies checked settings. The enabled flag is not a setting: it has its own action
    /// (`Core::set_resource_enabled`), so a stale form never flips it back.
    pub fn apply(&mut self, f: ResourceFields) {
        self.display_name = f.display_name;
        self.uri = f.uri;
        self.scopes = f.scopes;
        self.token_ttl_secs = f.token_ttl_secs;
        self.signing_alg = f.signing_alg;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn canon(s: &str) -> Result<String, String> {
        ResourceUri::parse(s, true).map(|u| u.0)
    }

    #[test]
    fn person_and_refresh_requests_are_never_resource_scopes() {
        for scopes in [
            "tools:call email",
            "openid",
            "profile files:read",
            "offline_access",
        ] {
            let mut checks = crate::error::FieldChecks::default();
            let input = ResourceInput {
                slug: "mail".into(),
                display_name: "Mail".into(),
                uri: "https://mail.example.com/mcp".into(),
                scopes: scopes.into(),
                enabled: true,
                ..Default::default()
            };
            assert!(
                ResourceFields::check(&input, false, &mut checks).is_none(),
                "{scopes}"
            );
            let err = checks.finish().expect_err(scopes).to_string();
            assert!(err.contains("cannot be a resource's scope"), "{err}");
        }
    }

    #[test]
    fn canonical_forms() {
        assert_eq!(
            canon("HTTPS://MCP.Example.COM:443/Mcp/"),
            Ok("https://mcp.example.com/Mcp".into())
        );
        assert_eq!(
            canon("https://mcp.example.com"),
            Ok("https://mcp.example.com/".into())
        );
        assert_eq!(
            canon("https://mcp.example.com/"),
            Ok("https://mcp.example.com/".into())
        );
        assert_eq!(
            canon("https://mcp.example.com:8443/a//"),
            Ok("https://mcp.example.com:8443/a".into())
        );
        assert_eq!(
            canon("http://127.0.0.1:9000/mcp"),
            Ok("http://127.0.0.1:9000/mcp".into())
        );
        assert_eq!(
            canon("http://localhost/mcp"),
            Ok("http://localhost/mcp".into())
        );
        assert!(
            ResourceUri::parse("http://localhost/mcp", false).is_err(),
            "loopback http needs the dev setting"
        );
        for bad in [
            "http://mcp.example.com/",
            "https://mcp.example.com/?a=1",
            "https://mcp.example.com/#x",
            "https://user:pw@mcp.example.com/",
            "ftp://mcp.example.com/",
            "mcp.example.com",
            "",
        ] {
            assert!(canon(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn slugs() {
        assert_eq!(parse_slug("Payments-MCP"), Ok("payments-mcp".into()));
        for bad in ["", "a_b", "a.b", "-a", "a-", &"a".repeat(64)] {
            assert!(parse_slug(bad).is_err(), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn canonicalisation_is_idempotent_and_ignores_case_and_trailing_slash(
            host in "[a-z]{1,10}(\\.[a-z]{2,5}){1,2}",
            path in "(/[A-Za-z0-9_~-]{1,8}){0,3}",
            upper in any::<bool>(),
            slash in any::<bool>(),
        ) {
            let base = format!("https://{host}{path}");
            let canonical = canon(&base).expect("valid");
            prop_assert_eq!(canon(&canonical).expect("valid"), canonical.clone());
            let mut variant = if upper { format!("HTTPS://{}{path}", host.to_uppercase()) } else { base.clone() };
            if slash { variant.push('/'); }
            prop_assert_eq!(canon(&variant).expect("valid"), canonical.clone());
            prop_assert!(!canonical.contains('?') && !canonical.contains('#'));
            prop_assert!(canonical.ends_with('/') == (path.is_empty()));
        }

        #[test]
        fn arbitrary_input_never_panics(s in "\\PC{0,60}") {
            let _ = ResourceUri::parse(&s, true);
        }
    }
}
