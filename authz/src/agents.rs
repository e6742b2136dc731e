//! Agents: non-human identities that clients act for.
//!
//! An agent has an owner (a person's email), roles (e.g. `mcp:tools`), an optional expiry, and a
//! disabled flag. A client bound to an agent gets tokens only while the agent is active; the
//! granted scope is further limited to the agent's roles, and the token carries the agent's
//! identity (`nhi`, `agent_id`, `agent_name`, `agent_owner`, `roles`).
use crate::clock::UnixTime;
use crate::scope::ScopeSet;

/// Whether an agent may act now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentStatus {
    /// May act.
    Active,
    /// Switched off by an admin.
    Disabled,
    /// Past its expiry.
    Expired,
}

impl AgentStatus {
    /// Display form.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentStatus::Active => "active",
            AgentStatus::Disabled => "disabled",
            AgentStatus::Expired => "expired",
        }
    }
}

/// A stored agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// Opaque id (`agt_…`), carried in tokens as `agent_id`.
    pub id: String,
    /// Realm id.
    pub realm_id: String,
    /// Unique name within the realm.
    pub name: String,
    /// Owner's email.
    pub owner: String,
    /// What it is for.
    pub description: String,
    /// Roles; also the ceiling of scopes its clients are granted.
    pub roles: ScopeSet,
    /// Expiry, if any.
    pub expires_at: Option<UnixTime>,
    /// Disabled flag.
    pub disabled: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

impl Agent {
    /// Status at `now`.
    pub fn status(&self, now: UnixTime) -> AgentStatus {
        if self.disabled {
            AgentStatus::Disabled
        } else if self.expires_at.is_some_and(|t| t <= now) {
            AgentStatus::Expired
        } else {
            AgentStatus::Active
        }
    }

    /// MCP-capable: holds `mcp` or an `mcp:*` role.
    pub fn is_mcp_capable(&self) -> bool {
        self.roles
            .iter()
            .any(|r| r == "mcp" || r.starts_with("mcp:"))
    }
}

/// Input for creating or changing an agent, as typed by an admin.
#[derive(Debug, Clone, Default)]
pub struct AgentInput {
    /// Name (ignored on update).
    pub name: String,
    /// Owner's email.
    pub owner: String,
    /// Description.
    pub description: String,
    /// Roles, space-separated.
    pub roles: String,
    /// Expiry (`YYYY-MM-DDTHH:MM` UTC), empty for none.
    pub expires_at: String,
}

/// An agent with the clients bound to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSummary {
    /// The agent.
    pub agent: Agent,
    /// Status now.
    pub status: AgentStatus,
    /// `client_id`s of bound clients.
    pub clients: Vec<String>,
}

/// Agents expiring within this many seconds count as "expiring soon".
pub const EXPIRING_SOON_SECS: i64 = 7 * 24 * 3600;

/// An agent name: 1–63 of `a-z`, `0-9`, `-`, `_`, `.`.
///
/// # Errors
/// A message fit for the user.
pub fn parse_agent_name(s: &str) -> Result<String, &'static str> {
    let s = s.trim().to_ascii_lowercase();
    if s.is_empty() || s.len() > 63 {
        return Err("Agent name must be 1–63 characters.");
    }
    if !s
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'))
    {
        return Err("Agent name may contain only letters, digits, '-', '_' and '.'.");
    }
    Ok(s)
}

mod ops {
    use super::*;
    use crate::audit::action;
    use crate::core::{Core, RequestMeta, invalid, map_conflict};
    use crate::error::{Error, Result};
    use crate::policy::{Permission, Principal};

    impl Core {
        fn parse_agent_fields(&self, a: &mut Agent, input: &AgentInput) -> Result<()> {
            a.owner = crate::accounts::Email::parse(&input.owner)
                .map_err(invalid)?
                .to_string();
            a.description = input.description.trim().chars().take(500).collect();
            a.roles = ScopeSet::parse(&input.roles).map_err(|e| invalid(format!("Roles: {e}")))?;
            a.expires_at = match input.expires_at.trim() {
                "" => None,
                s => Some(crate::clock::parse_console_time(s).map_err(invalid)?),
            };
            Ok(())
        }

        /// Creates an agent.
        ///
        /// # Errors
        /// `Forbidden`, `Invalid` (nothing written), `NotFound` (realm), `Conflict` (name taken).
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
            let mut a = Agent {
                id: crate::secret::new_id("agt"),
                realm_id: realm.id.clone(),
                name: parse_agent_name(&input.name).map_err(invalid)?,
                owner: String::new(),
                description: String::new(),
                roles: ScopeSet::default(),
                expires_at: None,
                disabled: false,
                created_at: now,
                updated_at: now,
            };
            self.parse_agent_fields(&mut a, input)?;
            let mut event = self.event(
                &realm.id,
                &p.email,
                action::AGENT_CREATE,
                format!("agent:{}", a.name),
                meta,
            );
            event.details = serde_json::json!({"owner": a.owner, "roles": a.roles.to_string()});
            self.store
                .insert_agent(&a, &event)
                .await
                .map_err(|e| map_conflict(e, "An agent with this name already exists."))?;
            self.changed();
            Ok(a)
        }

        /// Lists agents with their bound clients; optionally only MCP-capable or expiring soon.
        ///
        /// # Errors
        /// `Forbidden`, `NotFound` (realm).
        pub async fn list_agents(
            &self,
            p: &Principal,
            realm_name: &str,
            mcp_only: bool,
            expiring_soon: bool,
        ) -> Result<Vec<AgentSummary>> {
            p.require(Permission::ManageAgents)?;
            let realm = self.find_realm(realm_name).await?;
            let now = self.now();
            let mut out = Vec::new();
            for agent in self.store.list_agents(&realm.id).await? {
                if mcp_only && !agent.is_mcp_capable() {
                    continue;
                }
                if expiring_soon
                    && !agent
                        .expires_at
                        .is_some_and(|t| t > now && t - now <= EXPIRING_SOON_SECS)
                {
                    continue;
                }
                let clients = self.store.list_agent_clients(&agent.id).await?;
                out.push(AgentSummary {
                    status: agent.status(now),
                    agent,
                    clients,
                });
            }
            Ok(out)
        }

        async fn load_agent(&self, realm_name: &str, name: &str) -> Result<Agent> {
            let realm = self.find_realm(realm_name).await?;
            self.store
                .find_agent(&realm.id, name)
                .await?
                .ok_or_else(|| Error::not_found("agent", name))
        }

        /// Changes an agent's owner, description, roles and expiry.
        ///
        /// # Errors
        /// `Forbidden`, `Invalid`, `NotFound`.
        pub async fn update_agent(
            &self,
            p: &Principal,
            realm_name: &str,
            name: &str,
            input: &AgentInput,
            meta: &RequestMeta,
        ) -> Result<Agent> {
            p.require(Permission::ManageAgents)?;
            let mut a = self.load_agent(realm_name, name).await?;
            self.parse_agent_fields(&mut a, input)?;
            a.updated_at = self.now();
            let mut event = self.event(
                &a.realm_id,
                &p.email,
                action::AGENT_UPDATE,
                format!("agent:{}", a.name),
                meta,
            );
            event.details = serde_json::json!({"owner": a.owner, "roles": a.roles.to_string()});
            self.store.update_agent(&a, &event).await?;
            self.changed();
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
                format!("agent:{}", a.name),
                meta,
            );
            event.details = serde_json::json!({"disabled": disabled});
            self.store.update_agent(&a, &event).await?;
            self.changed();
            Ok(a)
        }

        /// Deletes an agent, unbinding its clients.
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
                format!("agent:{}", a.name),
                meta,
            );
            self.store.delete_agent(&a.id, &event).await?;
            self.changed();
            Ok(())
        }

        /// Binds a client to an agent (`agent` = `None` unbinds).
        ///
        /// # Errors
        /// `Forbidden`, `NotFound` (client or agent).
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
            let agent = match agent {
                Some(name) => Some(self.load_agent(realm_name, name).await?),
                None => None,
            };
            client.agent_id = agent.as_ref().map(|a| a.id.clone());
            client.updated_at = self.now();
            let mut event = self.event(
                &client.realm_id,
                &p.email,
                action::CLIENT_UPDATE,
                format!("client:{}", client.client_id),
                meta,
            );
            event.details = serde_json::json!({"agent": agent.as_ref().map(|a| a.name.clone())});
            self.store.update_client(&client, &event).await?;
            self.changed();
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(roles: &str, expires_at: Option<i64>, disabled: bool) -> Agent {
        Agent {
            id: "agt_1".into(),
            realm_id: "r".into(),
            name: "bot".into(),
            owner: "o@example.com".into(),
            description: String::new(),
            roles: ScopeSet::parse(roles).expect("valid"),
            expires_at,
            disabled,
            created_at: 0,
            updated_at: 0,
        }
    }

    #[test]
    fn status_and_capability() {
        assert_eq!(
            agent("mcp:tools", None, false).status(5),
            AgentStatus::Active
        );
        assert_eq!(
            agent("mcp:tools", Some(5), false).status(5),
            AgentStatus::Expired
        );
        assert_eq!(
            agent("mcp:tools", Some(5), true).status(1),
            AgentStatus::Disabled
        );
        assert!(agent("mcp:tools", None, false).is_mcp_capable());
        assert!(agent("mcp", None, false).is_mcp_capable());
        assert!(!agent("mcpx reports", None, false).is_mcp_capable());
        assert!(parse_agent_name("Reports.Bot_1").is_ok());
        assert!(parse_agent_name("has space").is_err());
    }
}
