//! OAuth clients (pre-registered): metadata per RFC 7591, authentication methods, secrets.
//!
//! # Security
//! Secrets carry 256 bits of entropy, are shown once, stored as SHA-256 and compared in constant
//! time. A slow password hash is deliberately not used: the entropy makes brute force moot, and a
//! fast hash keeps the token endpoint signing-bound.
use crate::clock::UnixTime;
use crate::scope::ScopeSet;
use serde::{Deserialize, Serialize};

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
                "Unsupported token_endpoint_auth_method `{other}`; use client_secret_basic, client_secret_post, private_key_jwt or none."
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

/// An OAuth grant type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantType {
    /// RFC 6749 §4.4.
    ClientCredentials,
}

impl GrantType {
    /// Registered name.
    pub fn as_str(self) -> &'static str {
        match self {
            GrantType::ClientCredentials => "client_credentials",
        }
    }

    /// Parses the registered name.
    ///
    /// # Errors
    /// For grant types this server does not support.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim() {
            "client_credentials" => Ok(GrantType::ClientCredentials),
            other => Err(format!("Unsupported grant type `{other}`.")),
        }
    }
}

/// RFC 7591 metadata kept as a document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClientMetadata {
    /// Contacts.
    pub contacts: Vec<String>,
    /// Home page.
    pub client_uri: Option<String>,
    /// Logo.
    pub logo_uri: Option<String>,
    /// Software id.
    pub software_id: Option<String>,
    /// Software version.
    pub software_version: Option<String>,
    /// Public keys for `private_key_jwt` (a JWK Set).
    pub jwks: Option<serde_json::Value>,
    /// Where the client publishes its public keys instead (fetched over HTTPS and cached).
    pub jwks_uri: Option<String>,
    /// Redirect URIs, matched exactly (for the authorization code flow).
    pub redirect_uris: Vec<String>,
}

/// A stored client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    /// Opaque row id (`cli_…`).
    pub id: String,
    /// Realm id.
    pub realm_id: String,
    /// The OAuth `client_id`.
    pub client_id: String,
    /// Human-readable name.
    pub name: String,
    /// Token endpoint authentication method.
    pub auth_method: AuthMethod,
    /// Allowed grant types.
    pub grant_types: Vec<GrantType>,
    /// Scopes the client may be granted.
    pub scope: ScopeSet,
    /// Other RFC 7591 metadata.
    pub metadata: ClientMetadata,
    /// The agent this client acts for, if any.
    pub agent_id: Option<String>,
    /// Disabled clients get no tokens, and their tokens introspect inactive.
    pub enabled: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

/// A stored client secret (hash only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientSecret {
    /// Opaque id.
    pub id: String,
    /// Owning client row id.
    pub client_pk: String,
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

/// A `client_id`: 1–128 characters of `A-Z a-z 0-9 - . _ ~ :`.
///
/// # Errors
/// A message fit for the user.
pub fn parse_client_id(s: &str) -> Result<String, &'static str> {
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
    Ok(s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_are_exact_and_safe() {
        assert_eq!(
            parse_redirect_uris(
                "https://app.example.com/cb\n http://127.0.0.1:8080/cb http://localhost/cb com.example.app:/cb https://app.example.com/cb"
            ),
            Ok(vec![
                "https://app.example.com/cb".to_owned(),
                "http://127.0.0.1:8080/cb".to_owned(),
                "http://localhost/cb".to_owned(),
                "com.example.app:/cb".to_owned(),
            ])
        );
        for bad in [
            "http://app.example.com/cb",
            "https://app.example.com/cb#x",
            "https://*.example.com/cb",
            "/cb",
            "myapp:/cb",
            "javascript:alert(1)",
            "https://u:p@app.example.com/cb",
        ] {
            assert!(parse_redirect_uris(bad).is_err(), "{bad}");
        }
        let many: Vec<String> = (0..=MAX_REDIRECT_URIS)
            .map(|i| format!("https://a.example.com/{i}"))
            .collect();
        assert!(parse_redirect_uris(&many.join(" ")).is_err());
        assert_eq!(parse_redirect_uris("  "), Ok(vec![]));
    }

    #[test]
    fn names_round_trip() {
        for m in [
            AuthMethod::ClientSecretBasic,
            AuthMethod::ClientSecretPost,
            AuthMethod::None,
        ] {
            assert_eq!(AuthMethod::parse(m.as_str()), Ok(m));
        }
        assert!(AuthMethod::parse("client_secret_jwt").is_err());
        assert_eq!(
            GrantType::parse("client_credentials"),
            Ok(GrantType::ClientCredentials)
        );
        assert!(GrantType::parse("password").is_err());
        assert!(parse_client_id("agent:reports-bot").is_ok());
        assert!(parse_client_id("has space").is_err());
    }

    #[test]
    fn secrets_expire_after_the_overlap() {
        let s = ClientSecret {
            id: "s".into(),
            client_pk: "c".into(),
            secret_hash: vec![],
            created_at: 0,
            expires_at: Some(10),
        };
        assert!(s.is_live(9));
        assert!(!s.is_live(10));
    }
}

/// Input for creating a client, as typed by an admin.
#[derive(Debug, Clone, Default)]
pub struct ClientInput {
    /// `client_id`; empty generates one.
    pub client_id: String,
    /// Name.
    pub name: String,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    pub auth_method: String,
    /// Allowed scopes, space-delimited.
    pub scope: String,
    /// Contacts, comma- or space-separated emails.
    pub contacts: String,
    /// JWK Set (JSON) with the public keys of a `private_key_jwt` client.
    pub jwks: String,
    /// Or the HTTPS URL where the client publishes that JWK Set.
    pub jwks_uri: String,
    /// Home page (`client_uri`).
    pub client_uri: String,
    /// Logo (`logo_uri`).
    pub logo_uri: String,
    /// `software_id`.
    pub software_id: String,
    /// `software_version`.
    pub software_version: String,
    /// Redirect URIs, separated by whitespace.
    pub redirect_uris: String,
}

/// Parses a client's JWK Set: public, asymmetric keys only.
///
/// # Errors
/// A message fit for the user.
pub fn parse_client_jwks(s: &str) -> Result<serde_json::Value, String> {
    let doc: serde_json::Value = serde_json::from_str(s.trim())
        .map_err(|_| "JWKS must be a JSON JWK Set: {\"keys\": [...]}.".to_owned())?;
    check_client_jwks(&doc)?;
    Ok(doc)
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

/// An optional RFC 7591 URL field (`client_uri`, `logo_uri`): an absolute `https` URL (or `http`)
/// without credentials, at most 2048 characters.
///
/// # Errors
/// A message naming `what`.
pub fn parse_metadata_url(s: &str, what: &str) -> Result<Option<String>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    let url = url::Url::parse(s)
        .ok()
        .filter(|u| matches!(u.scheme(), "https" | "http") && u.host().is_some())
        .filter(|u| u.username().is_empty() && u.password().is_none())
        .filter(|_| s.len() <= crate::fetch::MAX_URL_LEN)
        .ok_or_else(|| format!("{what} must be an absolute https URL."))?;
    Ok(Some(url.to_string()))
}

/// Most redirect URIs one client may register.
pub const MAX_REDIRECT_URIS: usize = 20;

/// Parses redirect URIs (whitespace-separated) for exact matching.
///
/// Per OAuth 2.1 §2.3.1 and RFC 8252: `https`, `http` only on loopback hosts (native apps), or a private-use scheme containing a
/// dot (`com.example.app:/callback`); no fragment, no wildcard, no credentials.
///
/// # Errors
/// A message naming the offending URI.
pub fn parse_redirect_uris(s: &str) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for raw in s.split_whitespace() {
        let bad = |why: &str| format!("Redirect URI {raw}: {why}");
        if raw.len() > crate::fetch::MAX_URL_LEN {
            return Err(bad("too long."));
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
        let loopback = matches!(
            url.host(),
            Some(url::Host::Ipv4(ip)) if ip.is_loopback()
        ) || matches!(url.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback())
            || url.host_str() == Some("localhost");
        match url.scheme() {
            "https" if url.host().is_some() => {}
            "http" if loopback => {}
            "http" => return Err(bad("http is allowed only on loopback hosts.")),
            scheme if scheme.contains('.') => {}
            _ => {
                return Err(bad(
                    "use https, http on a loopback host, or a private-use scheme like com.example.app.",
                ));
            }
        }
        if !out.iter().any(|u| u == raw) {
            out.push(raw.to_owned());
        }
    }
    if out.len() > MAX_REDIRECT_URIS {
        return Err(format!("At most {MAX_REDIRECT_URIS} redirect URIs."));
    }
    Ok(out)
}

/// An optional short RFC 7591 text field (`software_id`, `software_version`): at most 255
/// characters, no control characters.
///
/// # Errors
/// A message naming `what`.
pub fn parse_metadata_text(s: &str, what: &str) -> Result<Option<String>, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(None);
    }
    if s.chars().count() > 255 || s.chars().any(char::is_control) {
        return Err(format!(
            "{what} must be at most 255 characters without control characters."
        ));
    }
    Ok(Some(s.to_owned()))
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
    /// The agent it acts for.
    pub agent: Option<String>,
    /// For a client with a `jwks_uri`: the keys this instance has fetched from it.
    pub remote_keys: Option<RemoteKeys>,
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

mod ops {
    use super::*;
    use crate::audit::action;
    use crate::core::{Core, RequestMeta, invalid, map_conflict};
    use crate::error::{Error, Result};
    use crate::policy::{Permission, Principal};
    use crate::realms::parse_display_name;
    use crate::secret::PlainToken;

    impl Core {
        /// Registers a client. Confidential clients get a secret, returned once.
        ///
        /// # Errors
        /// `Forbidden`, `Invalid` (nothing written), `NotFound` (realm), `Conflict`.
        pub async fn create_client(
            &self,
            p: &Principal,
            realm_name: &str,
            input: &ClientInput,
            meta: &RequestMeta,
        ) -> Result<(Client, Option<PlainToken>)> {
            p.require(Permission::ManageClients)?;
            let realm = self.find_realm(realm_name).await?;
            let client_id = match input.client_id.trim() {
                "" => crate::secret::new_id("client"),
                s => parse_client_id(s).map_err(invalid)?,
            };
            let auth_method = AuthMethod::parse(&input.auth_method).map_err(invalid)?;
            let (jwks, jwks_uri) = match (auth_method, input.jwks.trim(), input.jwks_uri.trim()) {
                (AuthMethod::PrivateKeyJwt, "", "") => {
                    return Err(invalid(
                        "A private_key_jwt client needs its public keys: a JWKS or a JWKS URL.",
                    ));
                }
                (AuthMethod::PrivateKeyJwt, s, "") => {
                    (Some(parse_client_jwks(s).map_err(invalid)?), None)
                }
                (AuthMethod::PrivateKeyJwt, "", u) => {
                    let url = crate::fetch::parse_fetch_url(u, self.config().allow_loopback_fetch)
                        .map_err(|e| invalid(format!("JWKS URL: {e}")))?;
                    (None, Some(url.to_string()))
                }
                (AuthMethod::PrivateKeyJwt, _, _) => {
                    return Err(invalid("Give either a JWKS or a JWKS URL, not both."));
                }
                (_, "", "") => (None, None),
                _ => {
                    return Err(invalid(
                        "Only private_key_jwt clients have a JWKS or a JWKS URL.",
                    ));
                }
            };
            let contacts: Vec<String> = input
                .contacts
                .split([',', ' '])
                .filter(|c| !c.trim().is_empty())
                .map(|c| {
                    crate::accounts::Email::parse(c)
                        .map(|e| e.to_string())
                        .map_err(invalid)
                })
                .collect::<Result<_>>()?;
            let now = self.now();
            let client = Client {
                id: crate::secret::new_id("cli"),
                realm_id: realm.id.clone(),
                client_id,
                name: parse_display_name(&input.name, "Name").map_err(invalid)?,
                auth_method,
                // Public clients cannot use client_credentials; they await authorization_code.
                grant_types: if auth_method != AuthMethod::None {
                    vec![GrantType::ClientCredentials]
                } else {
                    vec![]
                },
                scope: ScopeSet::parse(&input.scope).map_err(invalid)?,
                metadata: ClientMetadata {
                    contacts,
                    jwks,
                    jwks_uri,
                    client_uri: parse_metadata_url(&input.client_uri, "Client URI")
                        .map_err(invalid)?,
                    logo_uri: parse_metadata_url(&input.logo_uri, "Logo URI").map_err(invalid)?,
                    software_id: parse_metadata_text(&input.software_id, "Software id")
                        .map_err(invalid)?,
                    software_version: parse_metadata_text(
                        &input.software_version,
                        "Software version",
                    )
                    .map_err(invalid)?,
                    redirect_uris: parse_redirect_uris(&input.redirect_uris).map_err(invalid)?,
                },
                agent_id: None,
                enabled: true,
                created_at: now,
                updated_at: now,
            };
            let token = auth_method.uses_secret().then(PlainToken::generate);
            let secret = token.as_ref().map(|t| ClientSecret {
                id: crate::secret::new_id("sec"),
                client_pk: client.id.clone(),
                secret_hash: t.hashed(),
                created_at: now,
                expires_at: None,
            });
            let mut event = self.event(
                &realm.id,
                &p.email,
                action::CLIENT_CREATE,
                format!("client:{}", client.client_id),
                meta,
            );
            event.details = serde_json::json!({"auth_method": auth_method.as_str(), "scope": client.scope.to_string()});
            self.store
                .insert_client(&client, secret.as_ref(), &event)
                .await
                .map_err(|e| map_conflict(e, "A client with this client_id already exists."))?;
            self.changed();
            Ok((client, token))
        }

        /// One page of a realm's clients.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound` (realm).
        pub async fn list_clients(
            &self,
            p: &Principal,
            realm_name: &str,
            query: &str,
            page: crate::storage::Page,
        ) -> Result<crate::storage::Paged<Client>> {
            p.require(Permission::ManageClients)?;
            let realm = self.find_realm(realm_name).await?;
            let q = query.trim();
            Ok(self
                .store
                .list_clients(&realm.id, (!q.is_empty()).then_some(q), page)
                .await?)
        }

        pub(crate) async fn load_client(
            &self,
            realm_name: &str,
            client_id: &str,
        ) -> Result<Client> {
            let realm = self.find_realm(realm_name).await?;
            self.store
                .find_client(&realm.id, client_id)
                .await?
                .ok_or_else(|| Error::not_found("client", client_id))
        }

        /// One client with its secrets (hashes are never returned, only their dates) and the name
        /// of the agent it acts for.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound`.
        pub async fn get_client(
            &self,
            p: &Principal,
            realm_name: &str,
            client_id: &str,
        ) -> Result<ClientDetail> {
            p.require(Permission::ManageClients)?;
            let client = self.load_client(realm_name, client_id).await?;
            let now = self.now();
            let secrets = self
                .store
                .list_client_secrets(&client.id)
                .await?
                .into_iter()
                .map(|s| SecretInfo {
                    created_at: s.created_at,
                    expires_at: s.expires_at,
                    live: s.is_live(now),
                })
                .collect();
            let agent = match &client.agent_id {
                Some(id) => self.store.find_agent_by_id(id).await?.map(|a| a.name),
                None => None,
            };
            let remote_keys = self.remote_keys_status(&client, now);
            Ok(ClientDetail {
                client,
                secrets,
                agent,
                remote_keys,
            })
        }

        /// Fetches a `private_key_jwt` client's keys from its `jwks_uri` now, whatever the cache
        /// says, and returns what this instance then has (the error included, if the fetch
        /// failed). `None` for clients without a `jwks_uri`.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound`.
        pub async fn refresh_client_keys(
            &self,
            p: &Principal,
            realm_name: &str,
            client_id: &str,
        ) -> Result<Option<RemoteKeys>> {
            p.require(Permission::ManageClients)?;
            let client = self.load_client(realm_name, client_id).await?;
            let now = self.now();
            if let Some(uri) = &client.metadata.jwks_uri {
                // The outcome, error included, is recorded in the status returned below.
                let _ = self.fetch_client_jwks(&client, uri, now).await;
            }
            Ok(self.remote_keys_status(&client, now))
        }

        fn remote_keys_status(&self, client: &Client, now: UnixTime) -> Option<RemoteKeys> {
            let uri = client.metadata.jwks_uri.clone()?;
            let status = self.documents.status(&uri, now);
            let kids = status
                .as_ref()
                .and_then(|s| s.body.as_ref())
                .and_then(|b| b["keys"].as_array())
                .map(|keys| {
                    keys.iter()
                        .map(|k| k["kid"].as_str().unwrap_or("(no kid)").to_owned())
                        .collect()
                })
                .unwrap_or_default();
            Some(RemoteKeys {
                jwks_uri: uri,
                kids,
                fetched_at: status.as_ref().and_then(|s| s.fetched_at),
                fresh_until: status.as_ref().and_then(|s| s.fresh_until),
                last_error: status.and_then(|s| s.last_error),
            })
        }

        /// Issues a new secret; the previous ones keep working for `overlap_secs`.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound`, `Invalid` for public clients or a negative overlap.
        pub async fn rotate_client_secret(
            &self,
            p: &Principal,
            realm_name: &str,
            client_id: &str,
            overlap_secs: i64,
            meta: &RequestMeta,
        ) -> Result<PlainToken> {
            p.require(Permission::ManageClients)?;
            let client = self.load_client(realm_name, client_id).await?;
            if !client.auth_method.uses_secret() {
                return Err(invalid("Public clients have no secret."));
            }
            if !(0..=30 * 24 * 3600).contains(&overlap_secs) {
                return Err(invalid(
                    "The overlap must be between 0 seconds and 30 days.",
                ));
            }
            let now = self.now();
            let token = PlainToken::generate();
            let secret = ClientSecret {
                id: crate::secret::new_id("sec"),
                client_pk: client.id.clone(),
                secret_hash: token.hashed(),
                created_at: now,
                expires_at: None,
            };
            let mut event = self.event(
                &client.realm_id,
                &p.email,
                action::CLIENT_SECRET_ROTATE,
                format!("client:{}", client.client_id),
                meta,
            );
            event.details = serde_json::json!({"overlap_secs": overlap_secs});
            self.store
                .rotate_client_secret(&secret, now + overlap_secs, &event)
                .await?;
            self.changed();
            Ok(token)
        }

        /// Enables or disables a client. Tokens of a disabled client introspect as inactive.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound`.
        pub async fn set_client_enabled(
            &self,
            p: &Principal,
            realm_name: &str,
            client_id: &str,
            enabled: bool,
            meta: &RequestMeta,
        ) -> Result<Client> {
            p.require(Permission::ManageClients)?;
            let mut client = self.load_client(realm_name, client_id).await?;
            client.enabled = enabled;
            client.updated_at = self.now();
            let mut event = self.event(
                &client.realm_id,
                &p.email,
                action::CLIENT_UPDATE,
                format!("client:{}", client.client_id),
                meta,
            );
            event.details = serde_json::json!({"enabled": enabled});
            self.store.update_client(&client, &event).await?;
            self.changed();
            Ok(client)
        }

        /// Deletes a client and its secrets.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound`.
        pub async fn delete_client(
            &self,
            p: &Principal,
            realm_name: &str,
            client_id: &str,
            meta: &RequestMeta,
        ) -> Result<()> {
            p.require(Permission::ManageClients)?;
            let client = self.load_client(realm_name, client_id).await?;
            let event = self.event(
                &client.realm_id,
                &p.email,
                action::CLIENT_DELETE,
                format!("client:{}", client.client_id),
                meta,
            );
            self.store.delete_client(&client.id, &event).await?;
            self.changed();
            Ok(())
        }
    }
}
