//! Protected resources (MCP servers): the entities every token audience comes from.
//!
//! A resource has a canonical URI (RFC 8707, MCP authorization): `https` (or `http` for loopback
//! hosts when allowed), lower-case scheme and host, no default port, no query, no fragment, no
//! user info, and no trailing slash unless the path is `/`. Input that differs only by case of
//! scheme or host, or by a trailing slash, maps to the same resource; `aud` always carries the
//! stored canonical form.
use crate::clock::UnixTime;
use crate::keys::SigningAlg;
use crate::scope::ScopeSet;

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
            .map_err(|_| format!("`{input}` is not an absolute URI"))?;
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

fn is_loopback(host: &str) -> bool {
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

/// Default access-token lifetime for a resource, in seconds.
pub const DEFAULT_TOKEN_TTL_SECS: i64 = 300;

/// A stored protected resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// Opaque id (`res_…`).
    pub id: String,
    /// Realm id.
    pub realm_id: String,
    /// Slug, e.g. `payments-mcp`.
    pub slug: String,
    /// Display name.
    pub display_name: String,
    /// Canonical URI: the `aud` of its tokens.
    pub uri: ResourceUri,
    /// Scopes this resource accepts.
    pub scopes: ScopeSet,
    /// Access-token lifetime.
    pub token_ttl_secs: i64,
    /// Signing algorithm override (else the realm's active key).
    pub signing_alg: Option<SigningAlg>,
    /// Disabled resources get no tokens.
    pub enabled: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn canon(s: &str) -> Result<String, String> {
        ResourceUri::parse(s, true).map(|u| u.0)
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
    /// Token lifetime in seconds; empty means the default.
    pub token_ttl_secs: String,
    /// Signing algorithm override; empty means the realm default (ES256).
    pub signing_alg: String,
    /// Enabled flag.
    pub enabled: bool,
}

mod ops {
    use super::*;
    use crate::audit::action;
    use crate::core::{Core, RequestMeta, invalid, map_conflict};
    use crate::error::{Error, Result};
    use crate::keys::MAX_TOKEN_TTL_SECS;
    use crate::policy::{Permission, Principal};
    use crate::realms::parse_display_name;

    impl Core {
        fn parse_resource_fields(&self, r: &mut Resource, input: &ResourceInput) -> Result<()> {
            r.display_name = parse_display_name(&input.display_name, "Name").map_err(invalid)?;
            r.uri = ResourceUri::parse(&input.uri, self.config().allow_http_loopback)
                .map_err(invalid)?;
            r.scopes = ScopeSet::parse(&input.scopes).map_err(invalid)?;
            if r.scopes.is_empty() {
                return Err(invalid("List at least one scope the resource accepts."));
            }
            r.token_ttl_secs = match input.token_ttl_secs.trim() {
                "" => DEFAULT_TOKEN_TTL_SECS,
                s => s
                    .parse()
                    .ok()
                    .filter(|t| (30..=MAX_TOKEN_TTL_SECS).contains(t))
                    .ok_or_else(|| {
                        invalid(format!(
                            "Token lifetime must be 30–{MAX_TOKEN_TTL_SECS} seconds."
                        ))
                    })?,
            };
            r.signing_alg = match input.signing_alg.trim() {
                "" => None,
                s => Some(SigningAlg::parse(s).map_err(invalid)?),
            };
            r.enabled = input.enabled;
            Ok(())
        }

        /// Registers a protected resource.
        ///
        /// # Errors
        /// `Forbidden`, `Invalid` (nothing written), `NotFound` (realm), `Conflict` (slug or URI taken).
        pub async fn create_resource(
            &self,
            p: &Principal,
            realm_name: &str,
            input: &ResourceInput,
            meta: &RequestMeta,
        ) -> Result<Resource> {
            p.require(Permission::ManageResources)?;
            let realm = self.find_realm(realm_name).await?;
            let now = self.now();
            let mut r = Resource {
                id: crate::secret::new_id("res"),
                realm_id: realm.id.clone(),
                slug: parse_slug(&input.slug).map_err(invalid)?,
                display_name: String::new(),
                uri: ResourceUri(String::new()),
                scopes: ScopeSet::default(),
                token_ttl_secs: DEFAULT_TOKEN_TTL_SECS,
                signing_alg: None,
                enabled: true,
                created_at: now,
                updated_at: now,
            };
            self.parse_resource_fields(&mut r, input)?;
            let mut event = self.event(
                &realm.id,
                &p.email,
                action::RESOURCE_CREATE,
                format!("resource:{}", r.slug),
                meta,
            );
            event.details =
                serde_json::json!({"uri": r.uri.as_str(), "scopes": r.scopes.to_string()});
            self.store
                .insert_resource(&r, &event)
                .await
                .map_err(|e| map_conflict(e, "A resource with this id or URI already exists."))?;
            self.changed();
            Ok(r)
        }

        /// Lists a realm's resources.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound` (realm).
        pub async fn list_resources(
            &self,
            p: &Principal,
            realm_name: &str,
        ) -> Result<Vec<Resource>> {
            p.require(Permission::ViewRealms)?;
            let realm = self.find_realm(realm_name).await?;
            Ok(self.store.list_resources(&realm.id).await?)
        }

        async fn load_resource(&self, realm_name: &str, slug: &str) -> Result<Resource> {
            let realm = self.find_realm(realm_name).await?;
            self.store
                .find_resource(&realm.id, slug)
                .await?
                .ok_or_else(|| Error::not_found("resource", slug))
        }

        /// Changes a resource (everything but its slug).
        ///
        /// # Errors
        /// `Forbidden`, `Invalid`, `NotFound`, `Conflict` (URI taken).
        pub async fn update_resource(
            &self,
            p: &Principal,
            realm_name: &str,
            slug: &str,
            input: &ResourceInput,
            meta: &RequestMeta,
        ) -> Result<Resource> {
            p.require(Permission::ManageResources)?;
            let mut r = self.load_resource(realm_name, slug).await?;
            self.parse_resource_fields(&mut r, input)?;
            r.updated_at = self.now();
            let mut event = self.event(
                &r.realm_id,
                &p.email,
                action::RESOURCE_UPDATE,
                format!("resource:{}", r.slug),
                meta,
            );
            event.details = serde_json::json!({"uri": r.uri.as_str(), "scopes": r.scopes.to_string(), "enabled": r.enabled});
            self.store
                .update_resource(&r, &event)
                .await
                .map_err(|e| map_conflict(e, "Another resource already has this URI."))?;
            self.changed();
            Ok(r)
        }

        /// Enables or disables a resource: disabled resources get no tokens, and their tokens
        /// introspect inactive.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound`.
        pub async fn set_resource_enabled(
            &self,
            p: &Principal,
            realm_name: &str,
            slug: &str,
            enabled: bool,
            meta: &RequestMeta,
        ) -> Result<Resource> {
            p.require(Permission::ManageResources)?;
            let mut r = self.load_resource(realm_name, slug).await?;
            r.enabled = enabled;
            r.updated_at = self.now();
            let mut event = self.event(
                &r.realm_id,
                &p.email,
                action::RESOURCE_UPDATE,
                format!("resource:{}", r.slug),
                meta,
            );
            event.details = serde_json::json!({"enabled": enabled});
            self.store.update_resource(&r, &event).await?;
            self.changed();
            Ok(r)
        }

        /// Deletes a resource; tokens for it stop introspecting as active.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound`.
        pub async fn delete_resource(
            &self,
            p: &Principal,
            realm_name: &str,
            slug: &str,
            meta: &RequestMeta,
        ) -> Result<()> {
            p.require(Permission::ManageResources)?;
            let r = self.load_resource(realm_name, slug).await?;
            let event = self.event(
                &r.realm_id,
                &p.email,
                action::RESOURCE_DELETE,
                format!("resource:{}", r.slug),
                meta,
            );
            self.store.delete_resource(&r.id, &event).await?;
            self.changed();
            Ok(())
        }

        /// The realm's default resource: the audience of token requests that omit `resource`.
        /// `None` (the default) means such requests are refused with `invalid_target`.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound` (realm).
        pub async fn default_resource(
            &self,
            p: &Principal,
            realm_name: &str,
        ) -> Result<Option<Resource>> {
            p.require(Permission::ViewRealms)?;
            let realm = self.find_realm(realm_name).await?;
            match &realm.default_resource_id {
                Some(id) => Ok(self.store.find_resource_by_id(&realm.id, id).await?),
                None => Ok(None),
            }
        }

        /// Makes `slug` the realm's default resource, or with `None` requires every token request
        /// to name its resource again.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound` (realm or resource).
        pub async fn set_default_resource(
            &self,
            p: &Principal,
            realm_name: &str,
            slug: Option<&str>,
            meta: &RequestMeta,
        ) -> Result<Option<Resource>> {
            p.require(Permission::ManageResources)?;
            let realm = self.find_realm(realm_name).await?;
            let resource = match slug {
                Some(slug) => Some(self.load_resource(realm_name, slug).await?),
                None => None,
            };
            let mut event = self.event(
                &realm.id,
                &p.email,
                action::RESOURCE_SET_DEFAULT,
                format!("realm:{}", realm.name),
                meta,
            );
            event.details = serde_json::json!({
                "resource": resource.as_ref().map(|r| r.slug.as_str()),
            });
            self.store
                .set_default_resource(
                    &realm.id,
                    resource.as_ref().map(|r| r.id.as_str()),
                    self.now(),
                    &event,
                )
                .await?;
            self.changed();
            Ok(resource)
        }
    }
}
