//! Gateway operations: turning the gateway on for a realm, its callers, their toolsets, agent
//! attachments, upstream tokens, the audit row of each call and the console's overview (tool
//! pins are `pins.rs`, approvals `approvals.rs`).
use super::model::{
    Attachment, CallRecord, Exclusion, GATEWAY_RESOURCE_SLUG, GATEWAY_SCOPE, GatewayCaller,
    GatewayInfo, GatewayRefusal, GatewayServer, PinState, Toolset, UpstreamAuth,
};
use crate::audit::{AuditSubject, Outcome, RequestMeta, action};
use crate::clients::{Client, ClientId};
use crate::core::Core;
use crate::error::{Error, Result, StorageError};
use crate::policy::{Permission, Principal};
use crate::realms::Realm;
use crate::registry::{GroupKind, MemberKind};
use crate::resources::ResourceUri;
use portcullis_manifest::{Auth, Transport};

/// The client id of a realm's gateway (the gateway resource's own client: the actor of every
/// exchange it makes).
fn gateway_client_id() -> String {
    format!("{GATEWAY_RESOURCE_SLUG}-introspect")
}

impl Core {
    /// The URL of a realm's gateway.
    pub fn gateway_url(&self, realm: &crate::realms::RealmName) -> String {
        format!("{}/mcp", self.issuer(realm))
    }

    /// Whether a realm's gateway is on, and where.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn gateway_info(&self, p: &Principal, realm_name: &str) -> Result<GatewayInfo> {
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let url = self.gateway_url(&realm.name);
        let enabled = self.gateway_resource(&realm).await?.is_some();
        Ok(GatewayInfo {
            url,
            resource_slug: GATEWAY_RESOURCE_SLUG.into(),
            scope: GATEWAY_SCOPE.into(),
            enabled,
        })
    }

    /// The gateway's RFC 9728 protected resource metadata, when the realm's gateway is on.
    ///
    /// # Errors
    /// Storage failure.
    pub async fn gateway_metadata(&self, realm_name: &str) -> Result<Option<serde_json::Value>> {
        let realm = match self.find_realm(realm_name).await {
            Ok(r) if r.enabled => r,
            Ok(_) | Err(Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        if self.gateway_resource(&realm).await?.is_none() {
            return Ok(None);
        }
        Ok(Some(serde_json::json!({
            "resource": self.gateway_url(&realm.name),
            "authorization_servers": [self.issuer(&realm.name)],
            "scopes_supported": [GATEWAY_SCOPE],
            "bearer_methods_supported": ["header"],
            "resource_name": format!("MCP gateway of {}", realm.name),
        })))
    }

    /// Turns a realm's gateway on: its resource (scope `mcp`) and the client it exchanges
    /// tokens as. Nothing happens when it is on already.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `Conflict` when a resource of another kind holds its
    /// slug or URL.
    pub async fn enable_gateway(
        &self,
        p: &Principal,
        realm_name: &str,
        meta: &RequestMeta,
    ) -> Result<GatewayInfo> {
        p.require(Permission::ManageRegistry)?;
        p.require(Permission::ManageResources)?;
        p.require(Permission::ManageClients)?;
        let realm = self.find_realm(realm_name).await?;
        let url = self.gateway_url(&realm.name);
        // Portcullis's own URL: http only when it is served on loopback (development).
        let uri = ResourceUri::parse(&url, true).map_err(|m| {
            Error::invalid(format!(
                "The gateway's URL {url} is not a resource URI: {m}"
            ))
        })?;
        let resource = match self.store.find_resource_by_uri(&realm.id, &uri).await? {
            Some(r) if r.slug.as_str() == GATEWAY_RESOURCE_SLUG && r.submitted_by.is_none() => r,
            Some(r) => {
                return Err(Error::Conflict(
                    format!(
                        "Resource {} has the gateway's URL: delete it first.",
                        r.slug
                    )
                    .into(),
                ));
            }
            None => {
                let input = crate::resources::ResourceInput {
                    slug: GATEWAY_RESOURCE_SLUG.into(),
                    display_name: "MCP gateway".into(),
                    uri: url.clone(),
                    scopes: GATEWAY_SCOPE.into(),
                    token_ttl_secs: String::new(),
                    signing_alg: String::new(),
                    enabled: true,
                };
                self.create_resource(p, realm.name.as_str(), &input, meta)
                    .await?;
                // Reaching the gateway reaches everything the release gives a person: only
                // clients an administrator granted access may ask for its tokens.
                self.set_resource_policy(
                    p,
                    realm.name.as_str(),
                    GATEWAY_RESOURCE_SLUG,
                    &crate::resources::AccessPolicyInput {
                        consent: "granted_clients".into(),
                        ..Default::default()
                    },
                    meta,
                )
                .await?
            }
        };
        if !resource.enabled {
            self.set_resource_enabled(p, realm.name.as_str(), GATEWAY_RESOURCE_SLUG, true, meta)
                .await?;
        }
        if self.gateway_client(&realm).await?.is_none() {
            // Its secret is never shown: the gateway runs in this process and needs none.
            self.create_resource_server_credentials(
                p,
                realm.name.as_str(),
                GATEWAY_RESOURCE_SLUG,
                meta,
            )
            .await?;
        }
        Ok(GatewayInfo {
            url,
            resource_slug: GATEWAY_RESOURCE_SLUG.into(),
            scope: GATEWAY_SCOPE.into(),
            enabled: true,
        })
    }

    async fn gateway_resource(&self, realm: &Realm) -> Result<Option<crate::resources::Resource>> {
        let url = self.gateway_url(&realm.name);
        let Ok(uri) = ResourceUri::parse(&url, true) else {
            return Ok(None);
        };
        Ok(self.cached_resource(&realm.id, &uri).await?.filter(|r| {
            r.slug.as_str() == GATEWAY_RESOURCE_SLUG && r.enabled && r.submitted_by.is_none()
        }))
    }

    /// A realm's tool pins, read through the cache (the gateway reads them on every call).
    pub(crate) async fn cached_tool_pins(
        &self,
        realm_id: &crate::realms::RealmId,
    ) -> Result<std::sync::Arc<Vec<super::model::ToolPin>>> {
        let (generation, now) = (self.store.generation(), self.now());
        if let Some(hit) = self.cache.tool_pins.get(realm_id, generation, now) {
            return Ok(hit);
        }
        let pins = std::sync::Arc::new(self.store.list_tool_pins(realm_id).await?);
        self.cache
            .tool_pins
            .put(realm_id.clone(), pins.clone(), generation, now);
        Ok(pins)
    }

    /// An agent's attached servers, read through the cache.
    async fn cached_attachments(
        &self,
        agent_id: &crate::agents::AgentId,
    ) -> Result<std::sync::Arc<Vec<Attachment>>> {
        let (generation, now) = (self.store.generation(), self.now());
        if let Some(hit) = self.cache.attachments.get(agent_id, generation, now) {
            return Ok(hit);
        }
        let list = std::sync::Arc::new(self.store.list_attachments(agent_id).await?);
        self.cache
            .attachments
            .put(agent_id.clone(), list.clone(), generation, now);
        Ok(list)
    }

    /// The registry groups (rings, units) a member is in, read through the cache.
    async fn cached_groups_of(
        &self,
        realm_id: &crate::realms::RealmId,
        (kind, id): (MemberKind, &str),
    ) -> Result<std::sync::Arc<Vec<(GroupKind, String)>>> {
        let (generation, now) = (self.store.generation(), self.now());
        let key = (realm_id.clone(), kind, id.to_owned());
        if let Some(hit) = self.cache.member_groups.get(&key, generation, now) {
            return Ok(hit);
        }
        let groups = std::sync::Arc::new(self.store.groups_of(realm_id, (kind, id)).await?);
        self.cache
            .member_groups
            .put(key, groups.clone(), generation, now);
        Ok(groups)
    }

    /// The gateway resource's own client: the one that exchanges for it.
    async fn gateway_client(&self, realm: &Realm) -> Result<Option<Client>> {
        let Ok(id) = ClientId::parse(&gateway_client_id()) else {
            return Ok(None);
        };
        let Some(resource) = self.gateway_resource(realm).await? else {
            return Ok(None);
        };
        Ok(self
            .cached_client(&realm.id, &id)
            .await?
            .map(|(c, _)| c)
            .filter(|c| c.enabled && c.resource_server_for.as_ref() == Some(&resource.id)))
    }

    /// The caller a bearer token makes of a realm's gateway: a live access token of the realm
    /// whose audience is the gateway and whose scope holds `mcp`; its agent, if any, active.
    ///
    /// # Errors
    /// The refusal to answer with; `Err(Err(_))` for storage failures.
    pub async fn gateway_caller(
        &self,
        realm_name: &str,
        token: Option<&str>,
    ) -> std::result::Result<GatewayCaller, std::result::Result<GatewayRefusal, Error>> {
        let realm = match self.serving_realm(realm_name).await {
            Ok(r) => r,
            Err(Error::NotFound { .. }) => return Err(Ok(GatewayRefusal::NotFound)),
            Err(e) => return Err(Err(e)),
        };
        if self.gateway_resource(&realm).await.map_err(Err)?.is_none() {
            return Err(Ok(GatewayRefusal::NotFound));
        }
        let Some(token) = token.filter(|t| !t.is_empty() && t.len() <= 16 * 1024) else {
            return Err(Ok(GatewayRefusal::InvalidToken(
                "No access token was sent.",
            )));
        };
        let Some((claims, _client)) = self.live_access_token(&realm, token).await.map_err(Err)?
        else {
            return Err(Ok(GatewayRefusal::InvalidToken(
                "The access token is not live: expired, revoked, or not this realm's.",
            )));
        };
        if claims.aud != self.gateway_url(&realm.name) {
            return Err(Ok(GatewayRefusal::InvalidToken(
                "The access token is for another resource; ask for one with resource set to this gateway.",
            )));
        }
        if !claims.scope.split(' ').any(|s| s == GATEWAY_SCOPE) {
            return Err(Ok(GatewayRefusal::InsufficientScope));
        }
        let agent = match &claims.agent {
            Some(a) => {
                let agent = self
                    .cached_agent(&crate::ids::AgentId::from_stored(a.agent_id.as_str()))
                    .await
                    .map_err(Err)?;
                match agent {
                    Some(agent)
                        if agent.status(self.now()) == crate::agents::AgentStatus::Active =>
                    {
                        Some(agent)
                    }
                    _ => {
                        return Err(Ok(GatewayRefusal::InvalidToken(
                            "The token's agent is disabled, expired or gone.",
                        )));
                    }
                }
            }
            None => None,
        };
        Ok(GatewayCaller {
            realm,
            claims,
            token: token.to_owned(),
            agent,
        })
    }

    /// What the caller may reach through the gateway: every server of the latest release, each
    /// with the reason it gives nothing when it does not, and the realm's pins.
    ///
    /// # Errors
    /// Storage failure.
    pub async fn gateway_toolset(&self, caller: &GatewayCaller) -> Result<Toolset> {
        let member = match (caller.person(), &caller.agent) {
            (Some(sub), _) if sub.starts_with("usr_") => Some((MemberKind::User, sub.to_owned())),
            (Some(sub), _) => Some((MemberKind::Person, sub.to_owned())),
            (None, Some(agent)) => Some((MemberKind::Agent, agent.id.to_string())),
            (None, None) => None,
        };
        let attached = match &caller.agent {
            Some(agent) => Some(self.cached_attachments(&agent.id).await?),
            None => None,
        };
        self.toolset_for(
            &caller.realm,
            member,
            attached.as_deref().map(Vec::as_slice),
        )
        .await
    }

    /// What one agent's gateway search returns (acting for itself), with the reason each
    /// excluded server gives nothing: the console's and the CLI's view.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm or agent), storage failure.
    pub async fn agent_toolset(
        &self,
        p: &Principal,
        realm_name: &str,
        agent_name: &str,
    ) -> Result<Toolset> {
        p.require(Permission::ViewAgents)?;
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let agent = self.load_agent(realm_name, agent_name).await?;
        let attached = self.cached_attachments(&agent.id).await?;
        self.toolset_for(
            &realm,
            Some((MemberKind::Agent, agent.id.to_string())),
            Some(&attached),
        )
        .await
    }

    pub(super) async fn toolset_for(
        &self,
        realm: &Realm,
        member: Option<(MemberKind, String)>,
        attached: Option<&[Attachment]>,
    ) -> Result<Toolset> {
        let Some(served) = self.latest_served_registry(realm).await? else {
            return Ok(Toolset::default());
        };
        let (mut rings, mut units) = (Vec::new(), Vec::new());
        if let Some((kind, id)) = &member {
            for (group, gid) in self
                .cached_groups_of(&realm.id, (*kind, id))
                .await?
                .iter()
                .cloned()
            {
                match group {
                    GroupKind::Ring => rings.push(gid),
                    GroupKind::Unit => units.push(gid),
                }
            }
        }
        // Only a person has an account of their own to connect at a server.
        let for_person = matches!(member, Some((MemberKind::Person | MemberKind::User, _)));
        let given: Vec<&str> = served
            .policy
            .servers_for(&rings, &units)
            .into_iter()
            .map(|s| s.id.as_str())
            .collect();
        let servers = served
            .policy
            .servers
            .iter()
            .map(|s| {
                let (url, auth) = match (&s.transport, &s.auth) {
                    (Transport::Remote { url, .. }, Auth::None) => {
                        (Some(url.clone()), Ok(UpstreamAuth::None))
                    }
                    (Transport::Remote { url, .. }, Auth::Portcullis { .. }) => {
                        (Some(url.clone()), Ok(UpstreamAuth::Portcullis))
                    }
                    (Transport::Remote { url, .. }, Auth::OAuth { .. }) => (
                        Some(url.clone()),
                        if for_person {
                            Ok(UpstreamAuth::OAuth)
                        } else {
                            Err(Exclusion::PersonOnly)
                        },
                    ),
                    (Transport::Remote { url, .. }, Auth::Enterprise { .. }) => {
                        (Some(url.clone()), Err(Exclusion::AuthMode("enterprise")))
                    }
                    _ => (None, Err(Exclusion::NotRemote)),
                };
                let excluded = match (&auth, url.is_some()) {
                    (_, false) => Some(Exclusion::NotRemote),
                    (Err(e), _) => Some(e.clone()),
                    _ if !given.contains(&s.id.as_str()) => Some(Exclusion::NotForCaller),
                    _ if attached.is_some_and(|a| !a.iter().any(|a| a.server_id == s.id)) => {
                        Some(Exclusion::NotAttached)
                    }
                    _ => None,
                };
                GatewayServer {
                    server: s.clone(),
                    url,
                    auth: auth.unwrap_or(UpstreamAuth::None),
                    excluded,
                }
            })
            .collect();
        Ok(Toolset {
            release: i64::try_from(served.info.sequence).ok(),
            servers,
            pins: self.cached_tool_pins(&realm.id).await?.as_ref().clone(),
            attached: attached
                .unwrap_or_default()
                .iter()
                .map(|a| a.server_id.clone())
                .collect(),
        })
    }

    /// The registry servers attached to an agent.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm or agent).
    pub async fn list_gateway_attachments(
        &self,
        p: &Principal,
        realm_name: &str,
        agent_name: &str,
    ) -> Result<Vec<Attachment>> {
        p.require(Permission::ViewAgents)?;
        let agent = self.load_agent(realm_name, agent_name).await?;
        Ok(self.store.list_attachments(&agent.id).await?)
    }

    /// Attaches a registry server to an agent: its gateway search may then return the
    /// server's tools (an agent never attaches servers to itself: this takes an administrator).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm or agent), `InvalidField` (`server`: not in the
    /// registry's draft or latest release), `Conflict` (attached already).
    pub async fn attach_gateway_server(
        &self,
        p: &Principal,
        realm_name: &str,
        agent_name: &str,
        server_id: &str,
        meta: &RequestMeta,
    ) -> Result<Attachment> {
        p.require(Permission::ManageAgents)?;
        let realm = self.find_realm(realm_name).await?;
        let agent = self.load_agent(realm_name, agent_name).await?;
        let server_id = server_id.trim();
        let known = self
            .latest_served_registry(&realm)
            .await?
            .is_some_and(|s| s.policy.servers.iter().any(|s| s.id == server_id))
            || self
                .registry_of(&realm)
                .await?
                .draft
                .servers
                .iter()
                .any(|s| s.id == server_id);
        if !known {
            return Err(Error::field(
                "server",
                "No server of the registry (its draft or latest release) has this id.",
            ));
        }
        let attachment = Attachment {
            server_id: server_id.to_owned(),
            attached_by: p.email.clone(),
            attached_at: self.now(),
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::GATEWAY_ATTACH,
            AuditSubject::Agent(agent.name.clone()),
            meta,
        );
        event.related = Some(AuditSubject::RegistryServer(server_id.to_owned()).target());
        self.store
            .insert_attachment(&agent.id, &attachment, &event)
            .await
            .map_err(|e| match e {
                StorageError::Conflict(_) => Error::Conflict(
                    format!("{server_id} is attached to {} already.", agent.name).into(),
                ),
                other => Error::Storage(other),
            })?;
        Ok(attachment)
    }

    /// Detaches a registry server from an agent.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, agent, or not attached).
    pub async fn detach_gateway_server(
        &self,
        p: &Principal,
        realm_name: &str,
        agent_name: &str,
        server_id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageAgents)?;
        let realm = self.find_realm(realm_name).await?;
        let agent = self.load_agent(realm_name, agent_name).await?;
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::GATEWAY_DETACH,
            AuditSubject::Agent(agent.name.clone()),
            meta,
        );
        event.related = Some(AuditSubject::RegistryServer(server_id.to_owned()).target());
        self.store
            .delete_attachment(&agent.id, server_id, &event)
            .await
            .map_err(|e| match e {
                StorageError::NotFound => {
                    Error::not_found("attachment", server_id.chars().take(63).collect::<String>())
                }
                other => Error::Storage(other),
            })
    }

    /// A token for one upstream, exchanged from the caller's (RFC 8693) with the gateway as
    /// actor: audience the upstream, scopes within the caller's, lifetime at most five minutes.
    /// Returns the token and its expiry.
    ///
    /// # Errors
    /// The exchange's refusal (`OAuth`), or `Conflict` when the gateway's client is gone.
    pub async fn gateway_upstream_token(
        &self,
        caller: &GatewayCaller,
        upstream_url: &str,
    ) -> Result<(String, i64)> {
        let client = self.gateway_client(&caller.realm).await?.ok_or_else(|| {
            Error::Conflict(
                "The gateway's client is gone or disabled: turn the gateway on again.".into(),
            )
        })?;
        let req = crate::tokens::TokenRequest {
            grant_type: crate::clients::GrantType::TokenExchange.as_str().into(),
            resource: vec![upstream_url.to_owned()],
            subject_token: Some(caller.token.clone()),
            subject_token_type: Some(crate::tokens::ACCESS_TOKEN_TYPE.into()),
            ..Default::default()
        };
        let response = self.gateway_exchange(&caller.realm, &client, &req).await?;
        Ok((response.access_token, self.now() + response.expires_in))
    }

    /// Writes the audit row of one gateway call; for a call the upstream ran, without waiting
    /// for its commit (the batch writer's queue is bounded: under load, callers wait for a
    /// place; at shutdown, [`Core::drain_audit`] writes what waits).
    ///
    /// # Errors
    /// Storage failure.
    pub async fn record_gateway_call(
        &self,
        caller: &GatewayCaller,
        server_id: &str,
        record: &CallRecord,
    ) -> Result<()> {
        let mut event = self.event(
            &caller.realm.id,
            &caller.claims.client_id,
            action::GATEWAY_CALL,
            AuditSubject::RegistryServer(server_id.chars().take(200).collect()),
            &RequestMeta::default(),
        );
        // A call waiting for a person has not failed (nor succeeded yet): its row says so.
        if record.decision != "approval_required"
            && (record.decision != "allowed" || record.outcome != "ok")
        {
            event.outcome = Outcome::Failure;
        }
        event.related = caller
            .agent
            .as_ref()
            .map(|a| AuditSubject::Agent(a.name.clone()).target());
        event.details = serde_json::json!({
            "capability": record.name,
            "decision": record.decision,
            "outcome": record.outcome,
            "latency_ms": record.latency_ms,
            "upstream_status": record.upstream_status,
            "sub": caller.claims.sub,
            "person": caller.person(),
            "agent_id": caller.agent.as_ref().map(|a| a.id.to_string()),
            "session_id": record.session_id,
            "run_id": record.run_id,
            "subject_ids": record.subject_ids,
            "traceparent": record.traceparent,
            "approval": record.approval_id,
            "jti": caller.claims.jti,
        });
        // A call sent to the upstream has happened: waiting for its row's commit would only
        // delay the answer. A call refused or sent nowhere (unavailable, not connected) waits
        // for its row, so that those (which no budget bounds) are paced by the writer.
        let sent = record.decision == "allowed"
            && !matches!(record.outcome.as_str(), "unavailable" | "not_connected");
        if sent {
            self.audit_detached(event).await
        } else {
            self.audit_batched(event).await
        }
    }

    /// The console's Gateway page: whether the gateway is on, each server of the latest
    /// release with its health and tools, the tools waiting for acceptance, the calls waiting
    /// for a person (for those who may decide) and the agents whose toolsets can be viewed.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn gateway_overview(
        &self,
        p: &Principal,
        realm_name: &str,
    ) -> Result<super::model::GatewayOverview> {
        let info = self.gateway_info(p, realm_name).await?;
        let realm = self.find_realm(realm_name).await?;
        let toolset = self.toolset_for(&realm, None, None).await?;
        let board = self.gateway_health();
        let secrets = self.store.list_gateway_client_secrets(&realm.id).await?;
        let upstreams = toolset
            .servers
            .iter()
            .map(|s| super::model::GatewayUpstream {
                status: s.url.as_deref().and_then(|u| board.get(u)),
                offered: toolset
                    .pins
                    .iter()
                    .filter(|t| t.server_id == s.server.id && t.offered().is_some())
                    .filter(|t| s.server.tools.allows(&t.tool))
                    .map(|t| t.tool.clone())
                    .collect(),
                waiting: toolset
                    .pins
                    .iter()
                    .filter(|t| t.server_id == s.server.id && t.state() != PinState::Accepted)
                    .count(),
                client_secret: super::client_secrets::secret_state(
                    secrets.iter().find(|h| h.server_id == s.server.id),
                    &s.server,
                ),
                callback_url: matches!(s.server.auth, portcullis_manifest::Auth::OAuth { .. })
                    .then(|| self.gateway_callback_url(&realm, &s.server.id)),
                server: s.clone(),
            })
            .collect();
        let pins_waiting = toolset
            .pins
            .iter()
            .filter(|t| t.state() != PinState::Accepted)
            .cloned()
            .collect();
        // Reviewers see every waiting call, agents' owners their agents' calls.
        let approvals = self.list_gateway_approvals(p, realm_name, true).await?;
        let now = self.now();
        let decided = self
            .list_gateway_approvals(p, realm_name, false)
            .await?
            .into_iter()
            .filter(|(a, _)| a.status_at(now) != super::model::ApprovalStatus::Pending)
            .take(20)
            .collect();
        let agents = if p.role.can(Permission::ViewAgents) {
            self.store
                .list_agents(
                    &realm.id,
                    crate::agents::AgentFilter::default(),
                    self.now(),
                    crate::paging::Page::first(500),
                )
                .await?
                .items
                .into_iter()
                .map(|a| a.name)
                .collect()
        } else {
            Vec::new()
        };
        Ok(super::model::GatewayOverview {
            info,
            release: toolset.release,
            upstreams,
            pins_waiting,
            approvals,
            decided,
            agents,
        })
    }
}
