//! RFC 7591 client metadata: the one request shape the console, the CLI and dynamic
//! registration send ([`ClientMetadata`]), and the checked form a client is stored with.
//!
//! [`ClientMetadata::validate`] is the only place metadata rules live. Errors name the member
//! (`Error::InvalidField`), so a form can show them on the field and dynamic registration can
//! answer `invalid_redirect_uri` or `invalid_client_metadata` (RFC 7591 §3.2.2).
use super::model::{ApplicationType, AuthMethod, GrantType, Metadata};
use crate::accounts::Email;
use crate::error::{Error, Result};
use crate::scope::ScopeSet;
use serde::{Deserialize, Serialize};

/// Most redirect URIs one client may register.
pub const MAX_REDIRECT_URIS: usize = 20;
/// Most contacts one client may list.
pub const MAX_CONTACTS: usize = 20;

/// Client metadata as sent (RFC 7591 §2): every member optional, unknown members ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClientMetadata {
    /// `client_name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    /// `token_endpoint_auth_method`; RFC 7591 §2 says an omitted one means
    /// `client_secret_basic`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// `grant_types`; when omitted, a client with redirect URIs gets `authorization_code` and
    /// `refresh_token`, another confidential client `client_credentials`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grant_types: Option<Vec<String>>,
    /// `scope`: space-delimited scopes the client may be granted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// `redirect_uris`, matched exactly.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redirect_uris: Vec<String>,
    /// `contacts`: email addresses.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contacts: Vec<String>,
    /// `client_uri`: the client's home page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_uri: Option<String>,
    /// `logo_uri`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logo_uri: Option<String>,
    /// `jwks_uri`: where a `private_key_jwt` client publishes its public keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    /// `jwks`: the public keys of a `private_key_jwt` client, inline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jwks: Option<serde_json::Value>,
    /// `software_id`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub software_id: Option<String>,
    /// `software_version`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub software_version: Option<String>,
    /// `application_type` (OpenID Connect Dynamic Client Registration §2): `web` clients
    /// redirect to https only, `native` ones to loopback or a private-use scheme (or https).
    /// Omitted, either kind of redirect is accepted, as MCP clients omit it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub application_type: Option<String>,
}

/// What a client registration is checked against.
#[derive(Debug, Clone, Copy, Default)]
pub struct MetadataRules {
    /// Let `jwks_uri` point at loopback hosts (development).
    pub allow_loopback_fetch: bool,
}

/// Metadata that passed every rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidClient {
    /// `client_name`.
    pub name: String,
    /// `token_endpoint_auth_method`.
    pub auth_method: AuthMethod,
    /// `grant_types`.
    pub grant_types: Vec<GrantType>,
    /// `scope`.
    pub scope: ScopeSet,
    /// Everything else.
    pub metadata: Metadata,
}

impl ValidClient {
    /// Refuses the grants only an administrator turns on (token exchange, the device grant)
    /// in a client's own registration: a self-registered client must not reach servers with
    /// tokens it trades, nor pose as a device sign-in people are asked to approve.
    ///
    /// # Errors
    /// `InvalidField` (`grant_types`).
    pub fn refuse_admin_only_grants(&self) -> Result<()> {
        for g in [GrantType::TokenExchange, GrantType::DeviceCode] {
            if self.grant_types.contains(&g) {
                return Err(Error::field(
                    "grant_types",
                    format!(
                        "{} is turned on by an administrator for a registered client, never by the client's own registration.",
                        g.as_str()
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn text(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

impl ClientMetadata {
    /// Checks every member and returns the client to store.
    ///
    /// # Errors
    /// `InvalidField` naming the first member that breaks a rule; nothing is partially applied.
    pub fn validate(&self, rules: MetadataRules) -> Result<ValidClient> {
        let name =
            crate::realms::parse_display_name(text(&self.client_name).unwrap_or_default(), "Name")
                .map_err(|m| Error::field("client_name", m))?;
        let auth_method = match text(&self.token_endpoint_auth_method) {
            None => AuthMethod::ClientSecretBasic,
            Some(m) => {
                AuthMethod::parse(m).map_err(|m| Error::field("token_endpoint_auth_method", m))?
            }
        };
        let application_type = match text(&self.application_type) {
            None => None,
            Some(t) => {
                Some(ApplicationType::parse(t).map_err(|m| Error::field("application_type", m))?)
            }
        };
        let redirect_uris = parse_redirect_uris(&self.redirect_uris)
            .and_then(|uris| check_application_type(application_type, uris))
            .map_err(|m| Error::field("redirect_uris", m))?;
        let grant_types = match &self.grant_types {
            None if !redirect_uris.is_empty() => {
                vec![GrantType::AuthorizationCode, GrantType::RefreshToken]
            }
            None if auth_method == AuthMethod::None => vec![],
            None => vec![GrantType::ClientCredentials],
            Some(list) => {
                let mut out: Vec<GrantType> = list
                    .iter()
                    .map(|g| GrantType::parse(g).map_err(|m| Error::field("grant_types", m)))
                    .collect::<Result<_>>()?;
                out.sort();
                out.dedup();
                out
            }
        };
        if auth_method == AuthMethod::None && grant_types.contains(&GrantType::ClientCredentials) {
            return Err(Error::field(
                "grant_types",
                "A public client (token_endpoint_auth_method none) cannot use client_credentials.",
            ));
        }
        if auth_method == AuthMethod::None && grant_types.contains(&GrantType::TokenExchange) {
            return Err(Error::field(
                "grant_types",
                "A public client (token_endpoint_auth_method none) cannot use token exchange: it takes a client that can authenticate.",
            ));
        }
        if grant_types.contains(&GrantType::AuthorizationCode) && redirect_uris.is_empty() {
            return Err(Error::field(
                "redirect_uris",
                "The authorization_code grant needs at least one redirect URI.",
            ));
        }
        if grant_types.contains(&GrantType::RefreshToken)
            && !grant_types.contains(&GrantType::AuthorizationCode)
            && !grant_types.contains(&GrantType::DeviceCode)
        {
            return Err(Error::field(
                "grant_types",
                "refresh_token is only issued with authorization_code or the device grant; add one or drop refresh_token.",
            ));
        }
        let scope = ScopeSet::parse(text(&self.scope).unwrap_or_default())
            .map_err(|m| Error::field("scope", m))?;
        let (jwks, jwks_uri) = self.keys(auth_method, rules)?;
        if self.contacts.len() > MAX_CONTACTS {
            return Err(Error::field(
                "contacts",
                format!("At most {MAX_CONTACTS} contacts."),
            ));
        }
        let contacts = self
            .contacts
            .iter()
            .filter(|c| !c.trim().is_empty())
            .map(|c| {
                Email::parse(c).map(|e| e.to_string()).map_err(|m| {
                    // Named, so that in a list of addresses the wrong one is found at once.
                    let shown: String = c.trim().chars().take(64).collect();
                    Error::field("contacts", format!("{shown}: {m}"))
                })
            })
            .collect::<Result<_>>()?;
        Ok(ValidClient {
            name,
            auth_method,
            grant_types,
            scope,
            metadata: Metadata {
                contacts,
                client_uri: url_member(&self.client_uri, "client_uri", "Client URI")?,
                logo_uri: url_member(&self.logo_uri, "logo_uri", "Logo URI")?,
                software_id: text_member(&self.software_id, "software_id", "Software id")?,
                software_version: text_member(
                    &self.software_version,
                    "software_version",
                    "Software version",
                )?,
                jwks,
                jwks_uri,
                redirect_uris,
                application_type,
            },
        })
    }

    /// The inline JWK Set or the JWKS URL of a `private_key_jwt` client (exactly one of them);
    /// other clients have neither.
    fn keys(
        &self,
        auth_method: AuthMethod,
        rules: MetadataRules,
    ) -> Result<(Option<serde_json::Value>, Option<String>)> {
        let jwks = self.jwks.as_ref().filter(|j| !j.is_null());
        let uri = text(&self.jwks_uri);
        match (auth_method, jwks, uri) {
            (AuthMethod::PrivateKeyJwt, None, None) => Err(Error::field(
                "jwks",
                "A private_key_jwt client needs its public keys: a JWKS or a JWKS URL.",
            )),
            (AuthMethod::PrivateKeyJwt, Some(doc), None) => {
                check_client_jwks(doc).map_err(|m| Error::field("jwks", m))?;
                Ok((Some(doc.clone()), None))
            }
            (AuthMethod::PrivateKeyJwt, None, Some(u)) => {
                let url = crate::fetch::parse_fetch_url(u, rules.allow_loopback_fetch)
                    .map_err(|e| Error::field("jwks_uri", format!("JWKS URL: {e}")))?;
                Ok((None, Some(url.to_string())))
            }
            (AuthMethod::PrivateKeyJwt, Some(_), Some(_)) => Err(Error::field(
                "jwks_uri",
                "Give either a JWKS or a JWKS URL, not both.",
            )),
            (_, None, None) => Ok((None, None)),
            _ => Err(Error::field(
                "jwks",
                "Only private_key_jwt clients have a JWKS or a JWKS URL.",
            )),
        }
    }
}

/// Client metadata as typed into one form (the console's create form and the CLI's flags): every
/// member a string, lists separated by whitespace (contacts also by commas).
#[derive(Debug, Clone, Default)]
pub struct ClientForm {
    /// `client_name`.
    pub name: String,
    /// `token_endpoint_auth_method`.
    pub auth_method: String,
    /// `scope`.
    pub scope: String,
    /// `contacts`.
    pub contacts: String,
    /// `jwks`, as JSON text.
    pub jwks: String,
    /// `jwks_uri`.
    pub jwks_uri: String,
    /// `client_uri`.
    pub client_uri: String,
    /// `logo_uri`.
    pub logo_uri: String,
    /// `software_id`.
    pub software_id: String,
    /// `software_version`.
    pub software_version: String,
    /// `redirect_uris`.
    pub redirect_uris: String,
    /// Whether the client may use token exchange (RFC 8693); `None` leaves an existing
    /// client's choice as it is.
    pub token_exchange: Option<bool>,
    /// Whether the client may use the device authorization grant (RFC 8628); `None` leaves an
    /// existing client's choice as it is.
    pub device_code: Option<bool>,
}

impl ClientForm {
    /// The RFC 7591 metadata the form stands for (checked later by
    /// [`ClientMetadata::validate`]).
    ///
    /// # Errors
    /// `InvalidField` (`jwks`) when the JWKS text is not JSON.
    pub fn into_metadata(self) -> Result<ClientMetadata> {
        let some = |s: String| Some(s).filter(|s| !s.trim().is_empty());
        // The grants the form implies (as when none are named), with token exchange when asked.
        let opted = (self.token_exchange.is_some() || self.device_code.is_some()).then_some((
            self.token_exchange.unwrap_or(false),
            self.device_code.unwrap_or(false),
        ));
        let grant_types = opted.map(|(exchange, device)| {
            let mut grants: Vec<String> = if !split_uris(&self.redirect_uris).is_empty() {
                vec![
                    GrantType::AuthorizationCode.as_str().to_owned(),
                    GrantType::RefreshToken.as_str().to_owned(),
                ]
            } else if self.auth_method.trim() == AuthMethod::None.as_str() {
                vec![]
            } else {
                vec![GrantType::ClientCredentials.as_str().to_owned()]
            };
            if exchange {
                grants.push(GrantType::TokenExchange.as_str().to_owned());
            }
            if device {
                grants.push(GrantType::DeviceCode.as_str().to_owned());
                // A device gets refresh tokens as a browser sign-in does.
                if !grants.iter().any(|g| g == GrantType::RefreshToken.as_str()) {
                    grants.push(GrantType::RefreshToken.as_str().to_owned());
                }
            }
            grants
        });
        Ok(ClientMetadata {
            client_name: some(self.name),
            token_endpoint_auth_method: some(self.auth_method),
            grant_types,
            scope: some(self.scope),
            redirect_uris: split_uris(&self.redirect_uris),
            contacts: self
                .contacts
                .split([',', ' ', '\n'])
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_owned)
                .collect(),
            client_uri: some(self.client_uri),
            logo_uri: some(self.logo_uri),
            jwks_uri: some(self.jwks_uri),
            jwks: parse_jwks_text(&self.jwks).map_err(|m| Error::field("jwks", m))?,
            software_id: some(self.software_id),
            software_version: some(self.software_version),
            application_type: None,
        })
    }
}

/// Parses a JWK Set typed as JSON text (console, CLI).
///
/// # Errors
/// A message fit for the user.
pub fn parse_jwks_text(s: &str) -> Result<Option<serde_json::Value>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    serde_json::from_str(s)
        .map(Some)
        .map_err(|_| "JWKS must be a JSON JWK Set: {\"keys\": [...]}.".to_owned())
}

/// Checks a client's JWK Set (typed in or fetched): public, asymmetric keys only.
///
/// # Errors
/// A message fit for the user.
pub fn check_client_jwks(doc: &serde_json::Value) -> Result<(), String> {
    let keys = doc["keys"]
        .as_array()
        .filter(|k| !k.is_empty())
        .ok_or("JWKS must contain at least one key.")?;
    for k in keys {
        if k.get("d").is_some() || k.get("p").is_some() {
            return Err("JWKS must hold public keys only; this one contains a private key.".into());
        }
        crate::keys::Verifier::from_jwk(k).map_err(|e| format!("JWKS: {e}"))?;
    }
    Ok(())
}

/// An optional URL member (`client_uri`, `logo_uri`): an absolute `https` (or, except for the
/// logo, which the consent page's browser loads under a policy allowing https images only,
/// `http`) URL without credentials, at most 2048 characters.
fn url_member(s: &Option<String>, field: &'static str, what: &str) -> Result<Option<String>> {
    let Some(s) = text(s) else {
        return Ok(None);
    };
    let http_ok = field != "logo_uri";
    url::Url::parse(s)
        .ok()
        .filter(|u| {
            (u.scheme() == "https" || (http_ok && u.scheme() == "http")) && u.host().is_some()
        })
        .filter(|u| u.username().is_empty() && u.password().is_none())
        .filter(|_| s.len() <= crate::fetch::MAX_URL_LEN)
        .map(|u| Some(u.to_string()))
        .ok_or_else(|| Error::field(field, format!("{what} must be an absolute https URL.")))
}

/// An optional short text member (`software_id`, `software_version`): at most 255
/// characters, no control characters.
fn text_member(s: &Option<String>, field: &'static str, what: &str) -> Result<Option<String>> {
    let Some(s) = text(s) else {
        return Ok(None);
    };
    if s.chars().count() > 255 || s.chars().any(char::is_control) {
        return Err(Error::field(
            field,
            format!("{what} must be at most 255 characters without control characters."),
        ));
    }
    Ok(Some(s.to_owned()))
}

/// Splits redirect URIs typed in one field (whitespace-separated).
pub fn split_uris(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_owned).collect()
}

/// Checks redirect URIs for exact matching, dropping duplicates.
///
/// Per OAuth 2.1 §2.3.1 and RFC 8252: `https`, `http` only on loopback hosts (native apps), or
/// a private-use scheme in lower case, named after a domain (`com.example.app:/callback`) or
/// one of the known MCP hosts' (`vscode://…`), never one a browser runs or reads
/// (`javascript:`, `data:`, `file:` …) or an operating system handles; visible ASCII only, no
/// fragment, no wildcard, no credentials.
///
/// # Errors
/// A message naming the offending URI.
pub fn parse_redirect_uris(uris: &[String]) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for raw in uris.iter().map(|u| u.trim()).filter(|u| !u.is_empty()) {
        let bad = |why: &str| {
            let shown: String = raw.chars().take(100).collect();
            format!("Redirect URI {shown}: {why}")
        };
        if raw.len() > crate::fetch::MAX_URL_LEN {
            return Err(bad("too long."));
        }
        if !raw.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(bad("must be visible ASCII characters, without spaces."));
        }
        let url = url::Url::parse(raw).map_err(|_| bad("not an absolute URI."))?;
        if url.fragment().is_some() {
            return Err(bad("must not have a fragment."));
        }
        if raw.contains('*') {
            return Err(bad("wildcards are not allowed; register each URI."));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("must not contain credentials."));
        }
        let scheme = url.scheme();
        if !raw.starts_with(scheme) {
            return Err(bad("write the scheme in lower case."));
        }
        match RedirectKind::of(&url) {
            Some(_) => {}
            None if scheme == "http" => {
                return Err(bad("http is allowed only on loopback hosts."));
            }
            None => {
                return Err(bad(
                    "use https, http on a loopback host, or a private-use scheme named after a domain you own, like com.example.app (RFC 8252).",
                ));
            }
        }
        if !out.iter().any(|u| u == raw) {
            out.push(raw.to_owned());
        }
        if out.len() > MAX_REDIRECT_URIS {
            return Err(format!("At most {MAX_REDIRECT_URIS} redirect URIs."));
        }
    }
    Ok(out)
}

/// What a redirect URI points at, for consent warnings and application-type rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectKind {
    /// An https URL: a web host.
    Https,
    /// `http` on 127.0.0.1, `[::1]` or `localhost`: an app on the user's machine.
    Loopback,
    /// A private-use scheme (`vscode:`, `com.example.app:`): whatever app claimed it.
    PrivateUse,
}

/// Schemes a browser runs, reads or hands to something other than an app.
const REFUSED_SCHEMES: &[&str] = &[
    "javascript",
    "data",
    "file",
    "vbscript",
    "blob",
    "about",
    "filesystem",
    "ftp",
    "ws",
    "wss",
    "mailto",
    "tel",
    "sms",
    "view-source",
    "chrome",
    "intent",
    "urn",
];

/// One-word app schemes of MCP hosts, accepted although RFC 8252 §7.1 asks native apps for a
/// reverse-domain scheme (`com.example.app:`). Any other scheme without a dot is refused: it
/// could name an operating-system handler (`ms-msdt:`, `search-ms:`, `shell:`) that a redirect
/// from this trusted origin would launch.
const KNOWN_APP_SCHEMES: &[&str] = &[
    "vscode",
    "vscode-insiders",
    "vscodium",
    "cursor",
    "windsurf",
];

impl RedirectKind {
    /// Classifies a parsed redirect URI; `None` for one never accepted.
    pub fn of(url: &url::Url) -> Option<Self> {
        let loopback = matches!(url.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback())
            || matches!(url.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback())
            || url.host_str() == Some("localhost");
        match url.scheme() {
            "https" if url.host().is_some() => Some(RedirectKind::Https),
            "http" if loopback => Some(RedirectKind::Loopback),
            "http" | "https" => None,
            s if REFUSED_SCHEMES.contains(&s) => None,
            s if s
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"+.-".contains(&b))
                && (s.contains('.') || KNOWN_APP_SCHEMES.contains(&s)) =>
            {
                Some(RedirectKind::PrivateUse)
            }
            _ => None,
        }
    }

    /// Classifies a stored (already checked) redirect URI.
    pub fn of_str(uri: &str) -> Option<Self> {
        url::Url::parse(uri).ok().as_ref().and_then(Self::of)
    }
}

/// Web clients redirect to https only; native clients anywhere but a non-loopback http host
/// (already refused).
fn check_application_type(
    kind: Option<ApplicationType>,
    uris: Vec<String>,
) -> Result<Vec<String>, String> {
    if kind == Some(ApplicationType::Web)
        && let Some(u) = uris
            .iter()
            .find(|u| RedirectKind::of_str(u) != Some(RedirectKind::Https))
    {
        let shown: String = u.chars().take(100).collect();
        return Err(format!(
            "Redirect URI {shown}: a web application redirects to https; register it as native for loopback or app schemes."
        ));
    }
    Ok(uris)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(json: serde_json::Value) -> Result<ValidClient> {
        serde_json::from_value::<ClientMetadata>(json)
            .expect("shape")
            .validate(MetadataRules::default())
    }

    fn field_of(r: Result<ValidClient>) -> &'static str {
        match r {
            Err(Error::InvalidField { field, .. }) => field,
            other => panic!("expected a field error, got {other:?}"),
        }
    }

    #[test]
    fn redirect_uris_are_exact_and_safe() {
        let uris = split_uris(
            "https://app.example.com/cb\n http://127.0.0.1:8080/cb http://localhost/cb com.example.app:/cb vscode://vscode.github-authentication/did-authenticate https://app.example.com/cb",
        );
        assert_eq!(
            parse_redirect_uris(&uris),
            Ok(vec![
                "https://app.example.com/cb".to_owned(),
                "http://127.0.0.1:8080/cb".to_owned(),
                "http://localhost/cb".to_owned(),
                "com.example.app:/cb".to_owned(),
                "vscode://vscode.github-authentication/did-authenticate".to_owned(),
            ])
        );
        for bad in [
            "http://app.example.com/cb",
            "https://app.example.com/cb#x",
            "https://*.example.com/cb",
            "/cb",
            "file:///etc/passwd",
            "Vscode://vscode.github-authentication/did-authenticate",
            "data:text/html,hi",
            "https://app.example.com/c\tb",
            "javascript:alert(1)",
            "https://u:p@app.example.com/cb",
            // Operating-system handlers a redirect would launch: only reverse-domain schemes
            // and the known MCP hosts' one-word schemes are apps.
            "ms-msdt:/id",
            "search-ms:query=x",
            "shell:startup",
            "myapp://cb",
        ] {
            assert!(parse_redirect_uris(&[bad.to_owned()]).is_err(), "{bad}");
        }
        let many: Vec<String> = (0..=MAX_REDIRECT_URIS)
            .map(|i| format!("https://a.example.com/{i}"))
            .collect();
        assert!(parse_redirect_uris(&many).is_err());
        assert_eq!(parse_redirect_uris(&split_uris("  ")), Ok(vec![]));
    }

    #[test]
    fn rfc7591_defaults_and_unknown_members() {
        let c = meta(serde_json::json!({
            "client_name": " Reports ",
            "scope": "tools:call",
            "application_type": "web",
            "tos_uri": "https://example.com/tos",
        }))
        .expect("valid");
        assert_eq!(c.name, "Reports");
        assert_eq!(
            c.auth_method,
            AuthMethod::ClientSecretBasic,
            "RFC 7591 §2 default"
        );
        assert_eq!(c.grant_types, vec![GrantType::ClientCredentials]);
        let public =
            meta(serde_json::json!({"client_name": "App", "token_endpoint_auth_method": "none"}))
                .expect("valid");
        assert!(public.grant_types.is_empty());
    }

    #[test]
    fn errors_name_the_member() {
        assert_eq!(field_of(meta(serde_json::json!({}))), "client_name");
        let named = |extra: serde_json::Value| {
            let mut v = serde_json::json!({"client_name": "A"});
            v.as_object_mut()
                .expect("object")
                .extend(extra.as_object().expect("object").clone());
            meta(v)
        };
        assert_eq!(
            field_of(named(
                serde_json::json!({"redirect_uris": ["http://evil.example/cb"]})
            )),
            "redirect_uris"
        );
        assert_eq!(
            field_of(named(serde_json::json!({"grant_types": ["password"]}))),
            "grant_types"
        );
        assert_eq!(
            field_of(named(
                serde_json::json!({"token_endpoint_auth_method": "none", "grant_types": ["client_credentials"]})
            )),
            "grant_types"
        );
        assert_eq!(
            field_of(named(
                serde_json::json!({"token_endpoint_auth_method": "private_key_jwt"})
            )),
            "jwks"
        );
        assert_eq!(
            field_of(named(
                serde_json::json!({"jwks_uri": "https://k.example.com/jwks"})
            )),
            "jwks"
        );
        assert_eq!(
            field_of(named(
                serde_json::json!({"token_endpoint_auth_method": "private_key_jwt", "jwks_uri": "https://10.0.0.1/jwks"})
            )),
            "jwks_uri"
        );
        assert_eq!(
            field_of(named(serde_json::json!({"contacts": ["nope"]}))),
            "contacts"
        );
        assert_eq!(
            field_of(named(
                serde_json::json!({"logo_uri": "http://x.example/logo.png"})
            )),
            "logo_uri"
        );
        assert_eq!(
            field_of(named(serde_json::json!({"scope": "a\"b"}))),
            "scope"
        );
        assert_eq!(
            field_of(named(serde_json::json!({"software_id": "x".repeat(256)}))),
            "software_id"
        );
    }
}
