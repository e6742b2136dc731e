//! Client operations: register, list, inspect, rotate secrets, enable, disable, delete, and
//! the introspection credentials of a resource server.
use super::metadata::{ClientMetadata, MetadataRules, ValidClient};
use super::model::{
    Client, ClientChoice, ClientDetail, ClientId, ClientRowId, ClientSecret, GrantType,
    MAX_SECRET_OVERLAP_SECS, Metadata, RemoteKeys, ResourceServerCredentials, SecretId, SecretInfo,
};
use crate::audit::{AuditSubject, NewAuditEvent, RequestMeta, action};
use crate::clock::UnixTime;
use crate::core::Core;
use crate::error::{Error, Result, invalid, map_conflict};
use crate::paging::{Page, Paged};
use crate::policy::{Permission, Principal};
use crate::scope::ScopeSet;
use crate::secret::PlainToken;

impl Core {
    pub(super) fn metadata_rules(&self) -> MetadataRules {
        MetadataRules {
            allow_loopback_fetch: self.config().allow_loopback_fetch,
        }
    }

    /// A new secret for `client`, and its stored (hashed) form.
    pub(super) fn new_secret(
        &self,
        client: &ClientRowId,
        now: UnixTime,
    ) -> (PlainToken, ClientSecret) {
        let token = PlainToken::generate();
        let secret = ClientSecret {
            id: SecretId::generate(),
            client_pk: client.clone(),
            secret_hash: token.hashed(),
            created_at: now,
            expires_at: None,
        };
        (token, secret)
    }

    /// Registers a client from RFC 7591 metadata; `client_id` empty generates one.
    /// Confidential clients get a secret, returned once.
    ///
    /// # Errors
    /// `Forbidden`, `Invalid`/`InvalidField` (nothing written), `NotFound` (realm), `Conflict`.
    pub async fn create_client(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        metadata: &ClientMetadata,
        meta: &RequestMeta,
    ) -> Result<(Client, Option<PlainToken>)> {
        p.require(Permission::ManageClients)?;
        let realm = self.find_realm(realm_name).await?;
        // The client_id and the metadata are both checked before either is reported.
        let mut checks = crate::error::FieldChecks::default();
        let client_id = match client_id.trim() {
            "" => Some(ClientId::generate()),
            s => checks.take("client_id", ClientId::parse_new(s)),
        };
        let valid = match metadata.validate(self.metadata_rules()) {
            Err(e @ Error::InvalidField { .. }) => checks.take_error("client_name", Err(e)),
            other => Some(other?),
        };
        let (
            Some(client_id),
            Some(ValidClient {
                name,
                auth_method,
                grant_types,
                scope,
                metadata,
            }),
        ) = (client_id, valid)
        else {
            return Err(checks.failed());
        };
        let now = self.now();
        let client = Client {
            id: ClientRowId::generate(),
            realm_id: realm.id.clone(),
            client_id,
            name,
            auth_method,
            grant_types,
            scope,
            metadata,
            agent: None,
            resource_server_for: None,
            enabled: true,
            registration: super::model::Registration::admin(),
            created_at: now,
            updated_at: now,
        };
        let issued = auth_method
            .uses_secret()
            .then(|| self.new_secret(&client.id, now));
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::CLIENT_CREATE,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"auth_method": auth_method.as_str(), "scope": client.scope.to_string()});
        self.store
            .insert_client(&client, issued.as_ref().map(|(_, s)| s), &event)
            .await
            .map_err(|e| map_conflict(e, "A client with this client_id already exists."))?;
        Ok((client, issued.map(|(t, _)| t)))
    }

    /// Changes a client's registration from RFC 7591 metadata: name, registered scope,
    /// contacts, URIs, software facts and, for `private_key_jwt`, its keys. The authentication
    /// method and grant types stay (register a new client to change them); status, secrets,
    /// grants and agent binding are untouched.
    ///
    /// # Errors
    /// `Forbidden`, `InvalidField` (nothing written), `NotFound`.
    pub async fn update_client(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        metadata: &ClientMetadata,
        meta: &RequestMeta,
    ) -> Result<Client> {
        p.require(Permission::ManageClients)?;
        let mut client = self.load_client(realm_name, client_id).await?;
        if super::is_first_party(client.client_id.as_str()) {
            return Err(Error::field(
                "client_name",
                "The Portcullis CLI comes with the realm: its registration cannot be edited (disable it to stop its sign-ins).",
            ));
        }
        if client.resource_server_for.is_some() {
            return Err(Error::field(
                "client_name",
                "These are a resource server's introspection credentials; they have no registration to edit.",
            ));
        }
        let method = client.auth_method.as_str();
        if metadata
            .token_endpoint_auth_method
            .as_deref()
            .is_some_and(|m| m.trim() != method)
        {
            return Err(Error::field(
                "token_endpoint_auth_method",
                format!(
                    "The authentication method stays {method}; register a new client to use another."
                ),
            ));
        }
        let mut metadata = metadata.clone();
        metadata.token_endpoint_auth_method = Some(method.to_owned());
        // The grants stay as registered; only token exchange and the device grant may be
        // turned on or off here.
        let toggles = [GrantType::TokenExchange, GrantType::DeviceCode];
        let wanted: Vec<GrantType> = toggles
            .into_iter()
            .filter(|t| {
                metadata
                    .grant_types
                    .as_ref()
                    .map_or(client.grant_types.contains(t), |g| {
                        g.iter().any(|g| g == t.as_str())
                    })
            })
            .collect();
        metadata.grant_types = Some(
            client
                .grant_types
                .iter()
                .filter(|g| !toggles.contains(g))
                .chain(wanted.iter())
                .map(|g| g.as_str().to_owned())
                .collect(),
        );
        let valid = metadata.validate(self.metadata_rules())?;
        let before = audit_settings(&client);
        client.name = valid.name;
        client.scope = valid.scope;
        client.grant_types = valid.grant_types;
        client.metadata = valid.metadata;
        self.save_registration(p, client, &before, meta).await
    }

    /// Turns token exchange (RFC 8693) on or off for a confidential client — including a
    /// resource server's introspection credentials, which then may trade the tokens addressed
    /// to their MCP server for tokens to the servers it calls onward (recorded as the actor).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `InvalidField` (`grant_types`) for a public client.
    pub async fn set_client_token_exchange(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        enabled: bool,
        meta: &RequestMeta,
    ) -> Result<Client> {
        p.require(Permission::ManageClients)?;
        let mut client = self.load_client(realm_name, client_id).await?;
        if client.auth_method == super::model::AuthMethod::None {
            return Err(Error::field(
                "grant_types",
                "A public client cannot use token exchange: it takes a client that can authenticate.",
            ));
        }
        if client.grant_types.contains(&GrantType::TokenExchange) == enabled {
            return Ok(client);
        }
        let before = audit_settings(&client);
        client
            .grant_types
            .retain(|g| *g != GrantType::TokenExchange);
        if enabled {
            client.grant_types.push(GrantType::TokenExchange);
        }
        self.save_registration(p, client, &before, meta).await
    }

    /// Writes a changed registration (stamped now) with its audit event: what changed since
    /// `before` (its [`audit_settings`]).
    async fn save_registration(
        &self,
        p: &Principal,
        mut client: Client,
        before: &serde_json::Value,
        meta: &RequestMeta,
    ) -> Result<Client> {
        client.updated_at = self.now();
        let mut event = self.event(
            &client.realm_id,
            &p.email,
            action::CLIENT_UPDATE,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.details = crate::audit::changes(before, &audit_settings(&client));
        self.store
            .update_client_registration(&client, &event)
            .await?;
        Ok(client)
    }

    /// Creates the credentials a resource server (an MCP server) uses to introspect tokens
    /// minted for it: a `client_secret_basic` client named `{slug}-introspect` that gets no
    /// tokens itself. The secret is returned once.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm or resource), `Conflict` when they exist already (rotate
    /// that client's secret instead).
    pub async fn create_resource_server_credentials(
        &self,
        p: &Principal,
        realm_name: &str,
        resource_slug: &str,
        meta: &RequestMeta,
    ) -> Result<(Client, PlainToken)> {
        p.require(Permission::ManageClients)?;
        let resource = self.load_resource(realm_name, resource_slug).await?;
        let now = self.now();
        let client = Client {
            id: ClientRowId::generate(),
            realm_id: resource.realm_id.clone(),
            client_id: ClientId::parse_new(&format!("{}-introspect", resource.slug))
                .map_err(invalid)?,
            name: resource_server_name(&resource.display_name),
            auth_method: super::model::AuthMethod::ClientSecretBasic,
            grant_types: vec![],
            scope: ScopeSet::default(),
            metadata: Metadata::default(),
            agent: None,
            resource_server_for: Some(resource.id.clone()),
            enabled: true,
            registration: super::model::Registration::admin(),
            created_at: now,
            updated_at: now,
        };
        let (token, secret) = self.new_secret(&client.id, now);
        let mut event = self.event(
            &client.realm_id,
            &p.email,
            action::CLIENT_CREATE,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"resource_server_for": resource.slug});
        event.related = Some(AuditSubject::Resource(resource.slug.to_string()).target());
        self.store
            .insert_client(&client, Some(&secret), &event)
            .await
            .map_err(|e| match e {
                crate::error::StorageError::Conflict(_) => Error::Conflict(
                    format!(
                        "This resource has introspection credentials already (client {}); rotate that client's secret instead.",
                        client.client_id
                    )
                    .into(),
                ),
                other => Error::Storage(other),
            })?;
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
        page: Page,
    ) -> Result<Paged<Client>> {
        p.require(Permission::ViewClients)?;
        let realm = self.find_realm(realm_name).await?;
        let q = query.trim();
        Ok(self
            .store
            .list_clients(&realm.id, (!q.is_empty()).then_some(q), page)
            .await?)
    }

    /// Up to `limit` clients matching `query` that may act for an agent (not a resource
    /// server's credentials), each with the agent it acts for now: what a client picker offers.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn client_choices(
        &self,
        p: &Principal,
        realm_name: &str,
        query: &str,
        limit: u32,
    ) -> Result<Vec<ClientChoice>> {
        let found = self
            .list_clients(p, realm_name, query, Page::first(limit))
            .await?;
        let mut names = std::collections::HashMap::new();
        let mut out = Vec::with_capacity(found.items.len());
        for client in found.items {
            if client.resource_server_for.is_some() {
                continue;
            }
            let agent = match &client.agent {
                Some(b) => {
                    if !names.contains_key(&b.agent_id) {
                        let name = self
                            .store
                            .find_agent_by_id(&b.agent_id)
                            .await?
                            .map(|a| a.name);
                        names.insert(b.agent_id.clone(), name);
                    }
                    names.get(&b.agent_id).cloned().flatten()
                }
                None => None,
            };
            out.push(ClientChoice { client, agent });
        }
        Ok(out)
    }

    /// A client of the realm by `client_id`.
    pub(crate) async fn load_client(&self, realm_name: &str, client_id: &str) -> Result<Client> {
        let realm = self.find_realm(realm_name).await?;
        let not_found =
            || Error::not_found("client", client_id.chars().take(255).collect::<String>());
        let id = ClientId::parse(client_id).map_err(|_| not_found())?;
        self.store
            .find_client(&realm.id, &id)
            .await?
            .ok_or_else(not_found)
    }

    /// One client with its secrets (hashes are never returned, only their dates), the name of
    /// the agent it acts for, and the resource it serves.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn get_client(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
    ) -> Result<ClientDetail> {
        p.require(Permission::ViewClients)?;
        let client = self.load_client(realm_name, client_id).await?;
        self.client_detail(client).await
    }

    /// The introspection credentials of a resource's MCP server (with their secrets' dates),
    /// if it has them, and the endpoint they are used at.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, resource).
    pub async fn resource_server_credentials(
        &self,
        p: &Principal,
        realm_name: &str,
        resource_slug: &str,
    ) -> Result<ResourceServerCredentials> {
        p.require(Permission::ViewClients)?;
        let resource = self.load_resource(realm_name, resource_slug).await?;
        let client = match self.store.find_resource_server_client(&resource.id).await? {
            Some(client) => Some(self.client_detail(client).await?),
            None => None,
        };
        Ok(ResourceServerCredentials {
            introspection_endpoint: self
                .authorization_server_metadata(realm_name)
                .await?
                .introspection_endpoint,
            client,
        })
    }

    async fn client_detail(&self, client: Client) -> Result<ClientDetail> {
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
        let agent = match &client.agent {
            Some(b) => self
                .store
                .find_agent_by_id(&b.agent_id)
                .await?
                .map(|a| a.name),
            None => None,
        };
        let resource_server_for = match &client.resource_server_for {
            Some(id) => self
                .store
                .find_resource_by_id(&client.realm_id, id)
                .await?
                .map(|r| r.slug),
            None => None,
        };
        let remote_keys = self.remote_keys_status(&client, now);
        Ok(ClientDetail {
            client,
            secrets,
            agent,
            resource_server_for,
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
    /// `Forbidden`, `NotFound`, `Invalid` for public clients or an overlap outside 0–30 days.
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
            return Err(invalid("This client authenticates without a secret."));
        }
        if !(0..=MAX_SECRET_OVERLAP_SECS).contains(&overlap_secs) {
            return Err(invalid(
                "The overlap must be between 0 seconds and 30 days.",
            ));
        }
        let now = self.now();
        let (token, secret) = self.new_secret(&client.id, now);
        let mut event = self
            .client_event(&client, &p.email, action::CLIENT_SECRET_ROTATE, meta)
            .await?;
        event.details = serde_json::json!({"overlap_secs": overlap_secs});
        self.store
            .rotate_client_secret(&secret, now + overlap_secs, &event)
            .await?;
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
        let mut event = self
            .client_event(&client, &p.email, action::CLIENT_UPDATE, meta)
            .await?;
        event.details = serde_json::json!({"enabled": enabled});
        self.store
            .set_client_enabled(&client.id, enabled, client.updated_at, &event)
            .await?;
        Ok(client)
    }

    /// Deletes a client and its secrets; its tokens introspect inactive from then on, even if
    /// a client with the same `client_id` is registered again.
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
        if super::is_first_party(client.client_id.as_str()) {
            return Err(Error::invalid(
                "The Portcullis CLI comes with the realm and cannot be deleted; disable it to stop its sign-ins.",
            ));
        }
        let event = self
            .client_event(&client, &p.email, action::CLIENT_DELETE, meta)
            .await?;
        Ok(self.store.delete_client(&client.id, &event).await?)
    }

    /// The audit event of a change to `client`; a change to a resource's introspection
    /// credentials also concerns that resource, so the resource's history shows it.
    pub(crate) async fn client_event(
        &self,
        client: &Client,
        actor: &str,
        action: &'static str,
        meta: &RequestMeta,
    ) -> Result<NewAuditEvent> {
        let mut event = self.event(
            &client.realm_id,
            actor,
            action,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        if let Some(id) = &client.resource_server_for {
            event.related = self
                .store
                .find_resource_by_id(&client.realm_id, id)
                .await?
                .map(|r| AuditSubject::Resource(r.slug.to_string()).target());
        }
        Ok(event)
    }
}

/// What an audit event records of a client's settings (its registration metadata, keys
/// included), for [`crate::audit::changes`]. A JWK Set is recorded by its key ids and a digest,
/// so a key replaced under the same `kid` shows as a change too.
pub(crate) fn audit_settings(c: &Client) -> serde_json::Value {
    use sha2::{Digest, Sha256};
    let m = &c.metadata;
    let jwks = m.jwks.as_ref().map(|set| {
        let kids: Vec<&str> = set["keys"]
            .as_array()
            .map(|keys| keys.iter().filter_map(|k| k["kid"].as_str()).collect())
            .unwrap_or_default();
        let digest = Sha256::digest(set.to_string().as_bytes());
        let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
        serde_json::json!({"kids": kids, "sha256": hex})
    });
    serde_json::json!({
        "client_name": c.name,
        "scope": c.scope.to_string(),
        "grant_types": c.grant_types.iter().map(|g| g.as_str()).collect::<Vec<_>>(),
        "redirect_uris": m.redirect_uris,
        "contacts": m.contacts,
        "client_uri": m.client_uri,
        "logo_uri": m.logo_uri,
        "software_id": m.software_id,
        "software_version": m.software_version,
        "jwks": jwks,
        "jwks_uri": m.jwks_uri,
        "application_type": m.application_type,
    })
}

/// The name of a resource's introspection credentials: its name, shortened to leave room for
/// the suffix, then " (resource server)" (at most 100 characters in all).
fn resource_server_name(display_name: &str) -> String {
    const SUFFIX: &str = " (resource server)";
    let room = 100 - SUFFIX.chars().count();
    let name: String = if display_name.chars().count() > room {
        let mut cut: String = display_name.chars().take(room - 1).collect();
        cut.truncate(cut.trim_end().len());
        format!("{cut}…")
    } else {
        display_name.to_owned()
    };
    format!("{name}{SUFFIX}")
}

impl Core {
    /// Creates `realm`'s first-party command-line client, `portcullis-cli` (a public client that
    /// signs people in with code + PKCE or the device grant, refreshes, and trades its own
    /// sign-in token by token exchange, which public clients cannot register for themselves)
    /// when it has none (audited as done by `system`).
    ///
    /// # Errors
    /// On storage failure.
    pub(crate) async fn ensure_cli_client(&self, realm: &crate::realms::Realm) -> Result<()> {
        let id = ClientId::parse(super::model::CLI_CLIENT_ID)
            .map_err(|e| Error::Internal(e.to_string()))?;
        if self.store.find_client(&realm.id, &id).await?.is_some() {
            return Ok(());
        }
        let now = self.now();
        let client = Client {
            id: ClientRowId::generate(),
            realm_id: realm.id.clone(),
            client_id: id,
            name: "Portcullis CLI".into(),
            auth_method: super::model::AuthMethod::None,
            grant_types: vec![
                GrantType::AuthorizationCode,
                GrantType::RefreshToken,
                GrantType::TokenExchange,
                GrantType::DeviceCode,
            ],
            scope: ScopeSet::default(),
            metadata: Metadata {
                redirect_uris: vec![super::model::CLI_REDIRECT_URI.into()],
                software_id: Some("portcullis-cli".into()),
                application_type: Some(super::model::ApplicationType::Native),
                ..Metadata::default()
            },
            agent: None,
            resource_server_for: None,
            enabled: true,
            registration: super::model::Registration::admin(),
            created_at: now,
            updated_at: now,
        };
        let mut event = self.event(
            &realm.id,
            "system",
            action::CLIENT_CREATE,
            AuditSubject::Client(super::model::CLI_CLIENT_ID.into()),
            &RequestMeta::default(),
        );
        event.details = serde_json::json!({"auth_method": "none", "first_party": true});
        match self.store.insert_client(&client, None, &event).await {
            // Another instance made it at the same moment.
            Ok(()) | Err(crate::error::StorageError::Conflict(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Gives every realm its command-line client (at start, for realms made before it existed).
    ///
    /// # Errors
    /// On storage failure.
    pub async fn ensure_first_party_clients(&self) -> Result<()> {
        for realm in self.store.list_realms().await? {
            self.ensure_cli_client(&realm).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn credentials_keep_their_suffix_however_long_the_name() {
        assert_eq!(
            super::resource_server_name("Payments"),
            "Payments (resource server)"
        );
        let long = super::resource_server_name(&"Weather data ".repeat(20));
        assert!(long.chars().count() <= 100, "{long}");
        assert!(long.ends_with("… (resource server)"), "{long}");
    }
}
