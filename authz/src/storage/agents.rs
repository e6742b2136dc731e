//! Agent persistence.
use crate::agents::{Agent, AgentFilter, AgentId};
use crate::audit::NewAuditEvent;
use crate::clients::ClientId;
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::paging::{Page, Paged};
use crate::realms::RealmId;
use async_trait::async_trait;

/// Agent persistence.
#[async_trait]
pub trait AgentStore: Send + Sync {
    /// Inserts an agent; `Conflict` if the name is taken in the realm.
    async fn insert_agent(&self, a: &Agent, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Finds an agent by name.
    async fn find_agent(
        &self,
        realm_id: &RealmId,
        name: &str,
    ) -> Result<Option<Agent>, StorageError>;
    /// Finds an agent by id.
    async fn find_agent_by_id(&self, id: &AgentId) -> Result<Option<Agent>, StorageError>;
    /// One page of a realm's agents matching the filter (expiry judged at `now`), by name.
    async fn list_agents(
        &self,
        realm_id: &RealmId,
        filter: AgentFilter<'_>,
        now: UnixTime,
        page: Page,
    ) -> Result<Paged<Agent>, StorageError>;
    /// The clients bound to any of `agents`, as (agent, `client_id`) by `client_id`.
    async fn list_agent_clients(
        &self,
        agents: &[AgentId],
    ) -> Result<Vec<(AgentId, ClientId)>, StorageError>;
    /// Writes the editable fields (owner, description, roles, expiry; not the disabled flag);
    /// `NotFound` if gone.
    async fn update_agent(&self, a: &Agent, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Disables or enables an agent (and changes nothing else); `NotFound` if gone.
    async fn set_agent_disabled(
        &self,
        id: &AgentId,
        disabled: bool,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Unbinds its clients and deletes the agent, atomically; `NotFound` if gone.
    async fn delete_agent(&self, id: &AgentId, event: &NewAuditEvent) -> Result<(), StorageError>;
}

pub(super) const AGENT_COLUMNS: &str =
    "id, realm_id, name, owner, description, roles, expires_at, disabled, created_at, updated_at";
pub(super) const INSERT_AGENT: &str = "INSERT INTO agents (id, realm_id, name, owner, description, roles, expires_at, disabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
pub(super) const UPDATE_AGENT: &str = "UPDATE agents SET owner = $1, description = $2, roles = $3, expires_at = $4, updated_at = $5 WHERE id = $6";
pub(super) const SET_AGENT_DISABLED: &str =
    "UPDATE agents SET disabled = $1, updated_at = $2 WHERE id = $3";
pub(super) const UNBIND_AGENT_CLIENTS: &str =
    "UPDATE clients SET agent_id = NULL, agent_binding = NULL WHERE agent_id = $1";
pub(super) const DELETE_AGENT: &str = "DELETE FROM agents WHERE id = $1";
/// Roles hold `mcp` or an `mcp:*` role (roles are stored space-separated). The partial index
/// `agents_mcp_capable` repeats this predicate; the planners use it only while they are equal.
pub(super) const MCP_CAPABLE: &str =
    " AND ((' ' || roles || ' ') LIKE '% mcp %' OR (' ' || roles) LIKE '% mcp:%')";

/// Implements [`AgentStore`] for one backend's store.
macro_rules! agent_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::agents::{Agent, AgentFilter, AgentId};
            use $crate::audit::NewAuditEvent;
            use $crate::clients::ClientId;
            use $crate::clock::UnixTime;
            use $crate::error::StorageError;
            use $crate::paging::{Page, Paged};
            use $crate::realms::RealmId;
            use $crate::storage::agents::*;
            use $crate::storage::rows::AgentRow;

            async fn agent_where(
                pool: &sqlx::Pool<$db>,
                condition: &'static str,
                values: &[&str],
            ) -> Result<Option<Agent>, StorageError> {
                let sql = format!("SELECT {AGENT_COLUMNS} FROM agents WHERE {condition}");
                let mut q = sqlx::query_as::<_, AgentRow>(&sql);
                for v in values {
                    q = q.bind(*v);
                }
                q.fetch_optional(pool)
                    .await?
                    .map(Agent::try_from)
                    .transpose()
            }

            #[async_trait::async_trait]
            impl AgentStore for $store {
                async fn insert_agent(
                    &self,
                    a: &Agent,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(INSERT_AGENT)
                        .bind(a.id.as_str())
                        .bind(a.realm_id.as_str())
                        .bind(&a.name)
                        .bind(&a.owner)
                        .bind(&a.description)
                        .bind(a.roles.to_string())
                        .bind(a.expires_at)
                        .bind(a.disabled)
                        .bind(a.created_at)
                        .bind(a.updated_at)
                        .execute(&mut *tx)
                        .await?;
                    self.commit(tx, event).await
                }

                async fn find_agent(
                    &self,
                    realm_id: &RealmId,
                    name: &str,
                ) -> Result<Option<Agent>, StorageError> {
                    agent_where(
                        &self.pool,
                        "realm_id = $1 AND name = $2",
                        &[realm_id.as_str(), name],
                    )
                    .await
                }

                async fn find_agent_by_id(
                    &self,
                    id: &AgentId,
                ) -> Result<Option<Agent>, StorageError> {
                    agent_where(&self.pool, "id = $1", &[id.as_str()]).await
                }

                async fn list_agents(
                    &self,
                    realm_id: &RealmId,
                    filter: AgentFilter<'_>,
                    now: UnixTime,
                    page: Page,
                ) -> Result<Paged<Agent>, StorageError> {
                    let search = Search {
                        table: "agents",
                        columns: AGENT_COLUMNS,
                        fields: ["name", "owner"],
                        order: "name",
                        trigrams: Some("agents_search"),
                    };
                    let extra = |qb: &mut sqlx::QueryBuilder<'_, $db>| {
                        if filter.mcp_only {
                            qb.push(MCP_CAPABLE);
                        }
                        if let Some(within) = filter.expiring_within {
                            qb.push(" AND expires_at > ")
                                .push_bind(now)
                                .push(" AND expires_at <= ")
                                .push_bind(now.saturating_add(within));
                        }
                        if let Some(owner) = filter.owner {
                            qb.push(" AND owner = ").push_bind(owner.to_owned());
                        }
                        if filter.active_only {
                            qb.push(" AND disabled = ")
                                .push_bind(false)
                                .push(" AND (expires_at IS NULL OR expires_at > ")
                                .push_bind(now)
                                .push(")");
                        }
                    };
                    search
                        .page::<AgentRow>(
                            &self.pool,
                            realm_id.as_str(),
                            filter.query,
                            &page,
                            &extra,
                            |r: &AgentRow| r.name.clone(),
                        )
                        .await?
                        .try_map(Agent::try_from)
                }

                async fn list_agent_clients(
                    &self,
                    agents: &[AgentId],
                ) -> Result<Vec<(AgentId, ClientId)>, StorageError> {
                    if agents.is_empty() {
                        return Ok(Vec::new());
                    }
                    let mut qb = sqlx::QueryBuilder::<$db>::new(
                        "SELECT agent_id, client_id FROM clients WHERE agent_id IN (",
                    );
                    let mut list = qb.separated(", ");
                    for a in agents {
                        list.push_bind(a.as_str().to_owned());
                    }
                    qb.push(") ORDER BY client_id");
                    let rows: Vec<(String, String)> =
                        qb.build_query_as().fetch_all(&self.pool).await?;
                    rows.into_iter()
                        .map(|(a, c)| {
                            ClientId::parse(&c)
                                .map(|c| (AgentId::from_stored(a), c))
                                .map_err(|e| StorageError::Corrupt(e.into()))
                        })
                        .collect()
                }

                async fn update_agent(
                    &self,
                    a: &Agent,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(UPDATE_AGENT)
                        .bind(&a.owner)
                        .bind(&a.description)
                        .bind(a.roles.to_string())
                        .bind(a.expires_at)
                        .bind(a.updated_at)
                        .bind(a.id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn set_agent_disabled(
                    &self,
                    id: &AgentId,
                    disabled: bool,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    self.set_flag(SET_AGENT_DISABLED, disabled, updated_at, id.as_str(), event)
                        .await
                }

                async fn delete_agent(
                    &self,
                    id: &AgentId,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(UNBIND_AGENT_CLIENTS)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?;
                    let n = sqlx::query(DELETE_AGENT)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }
            }
        };
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_mcp_index_repeats_the_filter() {
        let predicate = super::MCP_CAPABLE.trim_start_matches(" AND ");
        for migration in [
            include_str!("../../../migrations/sqlite/20261201020000_agents_mcp_index.sql"),
            include_str!("../../../migrations/postgres/20261201020000_agents_mcp_index.sql"),
        ] {
            assert!(
                migration.contains(&format!("WHERE {predicate};")),
                "{migration}"
            );
        }
    }
}
