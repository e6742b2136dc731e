//! Agent operations: create, list, change, enable, disable, delete, and binding clients.
use super::model::{
    Agent, AgentFields, AgentFilter, AgentId, AgentInput, AgentSummary, parse_agent_name,
};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::clients::{AgentBinding, BindingId};
use crate::core::Core;
use crate::error::{Error, Result, map_conflict};
use crate::paging::{Page, Paged};
use crate::policy::{Permission, Principal};

impl Core {
    /// Creates an agent.
    ///
    /// # Errors
    /// `Forbidden`, `InvalidField` (nothing written), `NotFound` (realm), `Conflict` (name
    /// taken).
    pub async fn create_agent(
        &self,
        p: &Principal,
        realm_name: &str,
        input: &AgentInput,
        meta: &RequestMeta,
    ) -> Result<Agent> {
        p.require(Permission::ManageAgents)?;
        let realm = self.find_realm(realm_name).await?;
        let now = self.now();
        // Every field is checked before any problem is reported: the form shows them all.
        let mut checks = crate::error::FieldChecks::default();
        let name = checks.take("name", parse_agent_name(&input.name));
        let f = AgentFields::check(input, now, &mut checks);
        let (Some(name), Some(f)) = (name, f) else {
            return Err(checks.failed());
        };
        let a = Agent {
            id: AgentId::generate(),
            realm_id: realm.id.clone(),
            name,
            owner: f.owner,
            description: f.description,
            roles: f.roles,
            expires_at: f.expires_at,
            disabled: false,
            created_at: now,
            updated_at: now,
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::AGENT_CREATE,
            AuditSubject::Agent(a.name.to_string()),
            meta,
        );
        event.details = serde_json::json!({"owner": a.owner, "roles": a.roles.to_string()});
        self.store
            .insert_agent(&a, &event)
            .await
            .map_err(|e| map_conflict(e, "An agent with this name already exists."))?;
        Ok(a)
    }

    /// One page of agents with their bound clients.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn list_agents(
        &self,
        p: &Principal,
        realm_name: &str,
        filter: AgentFilter<'_>,
        page: Page,
    ) -> Result<Paged<AgentSummary>> {
        p.require(Permission::ViewAgents)?;
        let realm = self.find_realm(realm_name).await?;
        self.agent_summaries(&realm.id, filter, page).await
    }

    /// One page of a realm's agents with their status and bound clients (no permission check:
    /// for callers that checked their own).
    pub(crate) async fn agent_summaries(
        &self,
        realm_id: &crate::realms::RealmId,
        filter: AgentFilter<'_>,
        page: Page,
    ) -> Result<Paged<AgentSummary>> {
        let now = self.now();
        let filter = AgentFilter {
            query: filter.query.map(str::trim).filter(|q| !q.is_empty()),
            ..filter
        };
        let found = self.store.list_agents(realm_id, filter, now, page).await?;
        let ids: Vec<AgentId> = found.items.iter().map(|a| a.id.clone()).collect();
        let bound = self.store.list_agent_clients(&ids).await?;
        found.try_map(|agent| {
            Ok(AgentSummary {
                status: agent.status(now),
                clients: bound
                    .iter()
                    .filter(|(a, _)| *a == agent.id)
                    .map(|(_, c)| c.to_string())
                    .collect(),
                agent,
            })
        })
    }

    /// One agent with its status and bound clients.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn agent(&self, p: &Principal, realm_name: &str, name: &str) -> Result<AgentSummary> {
        p.require(Permission::ViewAgents)?;
        let agent = self.load_agent(realm_name, name).await?;
        let clients = self
            .store
            .list_agent_clients(std::slice::from_ref(&agent.id))
            .await?
            .into_iter()
            .map(|(_, c)| c.to_string())
            .collect();
        Ok(AgentSummary {
            status: agent.status(self.now()),
            clients,
            agent,
        })
    }

    pub(crate) async fn load_agent(&self, realm_name: &str, name: &str) -> Result<Agent> {
        let realm = self.find_realm(realm_name).await?;
        let not_found = || Error::not_found("agent", name.chars().take(63).collect::<String>());
        let name = parse_agent_name(name).map_err(|_| not_found())?;
        self.store
            .find_agent(&realm.id, &name)
            .await?
            .ok_or_else(not_found)
    }

    /// Changes an agent's owner, description, roles and expiry.
    ///
    /// # Errors
    /// `Forbidden`, `InvalidField`, `NotFound`.
    pub async fn update_agent(
        &self,
        p: &Principal,
        realm_name: &str,
        name: &str,
        input: &AgentInput,
        meta: &RequestMeta,
    ) -> Result<Agent> {
        p.require(Permission::ManageAgents)?;
        let f = AgentFields::parse(input, self.now())?;
        let mut a = self.load_agent(realm_name, name).await?;
        let settings = |a: &Agent| {
            serde_json::json!({
                "owner": a.owner,
                "description": a.description,
                "roles": a.roles.to_string(),
                "expires_at": a.expires_at,
            })
        };
        let before = settings(&a);
        a.owner = f.owner;
        a.description = f.description;
        a.roles = f.roles;
        a.expires_at = f.expires_at;
        a.updated_at = self.now();
        let mut event = self.event(
            &a.realm_id,
            &p.email,
            action::AGENT_UPDATE,
            AuditSubject::Agent(a.name.to_string()),
            meta,
        );
        event.details = crate::audit::changes(&before, &settings(&a));
        self.store.update_agent(&a, &event).await?;
        Ok(a)
    }

    /// Disables or re-enables an agent; its clients' tokens follow.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn set_agent_disabled(
        &self,
        p: &Principal,
        realm_name: &str,
        name: &str,
        disabled: bool,
        meta: &RequestMeta,
    ) -> Result<Agent> {
        p.require(Permission::ManageAgents)?;
        let mut a = self.load_agent(realm_name, name).await?;
        a.disabled = disabled;
        a.updated_at = self.now();
        let mut event = self.event(
            &a.realm_id,
            &p.email,
            action::AGENT_UPDATE,
            AuditSubject::Agent(a.name.to_string()),
            meta,
        );
        event.details = serde_json::json!({"disabled": disabled});
        self.store
            .set_agent_disabled(&a.id, disabled, a.updated_at, &event)
            .await?;
        Ok(a)
    }

    /// Deletes an agent, unbinding its clients; its tokens stay inactive even if an agent of
    /// the same name is created again.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn delete_agent(
        &self,
        p: &Principal,
        realm_name: &str,
        name: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageAgents)?;
        let a = self.load_agent(realm_name, name).await?;
        let event = self.event(
            &a.realm_id,
            &p.email,
            action::AGENT_DELETE,
            AuditSubject::Agent(a.name.to_string()),
            meta,
        );
        Ok(self.store.delete_agent(&a.id, &event).await?)
    }

    /// Binds a client to an agent (`agent` = `None` unbinds). Every bind is a new binding:
    /// tokens minted under an earlier one never become active again.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (client or agent), `Invalid` for a resource server's
    /// credentials.
    pub async fn bind_client_to_agent(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        agent: Option<&str>,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageAgents)?;
        let mut client = self.load_client(realm_name, client_id).await?;
        if client.resource_server_for.is_some() {
            return Err(Error::invalid(
                "A resource server's introspection credentials cannot act for an agent.",
            ));
        }
        let agent = match agent {
            Some(name) => Some(self.load_agent(realm_name, name).await?),
            None => None,
        };
        // The agent it leaves, for that agent's history (a move also shows on the new one's).
        let previous = match &client.agent {
            Some(b) => self.store.find_agent_by_id(&b.agent_id).await?,
            None => None,
        };
        client.agent = agent.as_ref().map(|a| AgentBinding {
            agent_id: a.id.clone(),
            binding_id: BindingId::generate(),
        });
        client.updated_at = self.now();
        let mut event = self.event(
            &client.realm_id,
            &p.email,
            action::CLIENT_UPDATE,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "agent": agent.as_ref().map(|a| a.name.clone()),
            "previous_agent": previous.as_ref().map(|a| a.name.clone()),
        });
        event.related = agent
            .as_ref()
            .or(previous.as_ref())
            .map(|a| AuditSubject::Agent(a.name.to_string()).target());
        Ok(self
            .store
            .set_client_agent(&client.id, client.agent.as_ref(), client.updated_at, &event)
            .await?)
    }
}
