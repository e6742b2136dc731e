//! Gateway persistence: tool pins and the servers attached to agents.
use crate::audit::NewAuditEvent;
use crate::error::StorageError;
use crate::gateway::{Approval, ApprovalStatus, Attachment, PinnedDefinition, ToolPin};
use crate::ids::{AgentId, RealmId};
use async_trait::async_trait;

/// Gateway persistence.
#[async_trait]
pub trait GatewayStore: Send + Sync {
    /// The realm's tool pins, by server and tool.
    async fn list_tool_pins(&self, realm_id: &RealmId) -> Result<Vec<ToolPin>, StorageError>;
    /// Records what servers list now (a pin's `seen` columns; a new pin has no acceptance),
    /// with one audit event each, in one transaction. Acceptances are never written here.
    async fn save_tool_pins(&self, pins: &[(ToolPin, NewAuditEvent)]) -> Result<(), StorageError>;
    /// Accepts what a server lists as an administrator saw it: each `(tool, seen sha256)`
    /// becomes accepted only while the server still lists exactly that (a removed tool, `None`,
    /// is forgotten while still removed). Writes each accepted one's audit event; returns how
    /// many were.
    async fn accept_tool_pins(
        &self,
        realm_id: &RealmId,
        server_id: &str,
        accepted: &[(String, Option<String>, NewAuditEvent)],
        by: &str,
        at: i64,
    ) -> Result<usize, StorageError>;
    /// Deletes the pins of tools no longer listed (never accepted, or acknowledged).
    async fn delete_tool_pins(
        &self,
        realm_id: &RealmId,
        server_id: &str,
        tools: &[(String, NewAuditEvent)],
    ) -> Result<(), StorageError>;
    /// The servers attached to an agent, by id.
    async fn list_attachments(&self, agent_id: &AgentId) -> Result<Vec<Attachment>, StorageError>;
    /// Attaches a server to an agent; `Conflict` when it is attached already.
    async fn insert_attachment(
        &self,
        agent_id: &AgentId,
        a: &Attachment,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Detaches a server; `NotFound` when it was not attached.
    async fn delete_attachment(
        &self,
        agent_id: &AgentId,
        server_id: &str,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Records a call waiting for a person, with its audit event.
    async fn insert_approval(
        &self,
        a: &Approval,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// One approval of a realm.
    async fn find_approval(
        &self,
        realm_id: &RealmId,
        id: &str,
    ) -> Result<Option<Approval>, StorageError>;
    /// A realm's approvals, newest first: those still waiting at `now` (`pending_only`), or
    /// all; at most `limit`.
    async fn list_approvals(
        &self,
        realm_id: &RealmId,
        pending_only: Option<i64>,
        limit: i64,
    ) -> Result<Vec<Approval>, StorageError>;
    /// One caller's approvals still waiting at `now`, newest first; at most `limit`.
    async fn pending_approvals_of(
        &self,
        realm_id: &RealmId,
        caller_key: &str,
        now: i64,
        limit: i64,
    ) -> Result<Vec<Approval>, StorageError>;
    /// Decides a waiting approval (approved or denied) with its audit event; `Conflict` when
    /// it was no longer waiting at `now` (decided or lapsed).
    async fn decide_approval(
        &self,
        a: &Approval,
        now: i64,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Uses an approved approval up; whether it was approved and unexpired at `now`.
    async fn use_approval(&self, id: &str, now: i64) -> Result<bool, StorageError>;
}

pub(super) const APPROVAL_COLUMNS: &str = "id, realm_id, caller_key, sub, agent_id, client_id, server_id, tool, arguments_sha256, arguments_preview, side_effect_class, risk, status, requested_at, expires_at, decided_by, decided_at, reason";

#[derive(sqlx::FromRow)]
pub(crate) struct ApprovalRow {
    pub id: String,
    pub realm_id: String,
    pub caller_key: String,
    pub sub: String,
    pub agent_id: Option<String>,
    pub client_id: String,
    pub server_id: String,
    pub tool: String,
    pub arguments_sha256: String,
    pub arguments_preview: String,
    pub side_effect_class: String,
    pub risk: String,
    pub status: String,
    pub requested_at: i64,
    pub expires_at: i64,
    pub decided_by: Option<String>,
    pub decided_at: Option<i64>,
    pub reason: Option<String>,
}

impl TryFrom<ApprovalRow> for Approval {
    type Error = StorageError;
    fn try_from(r: ApprovalRow) -> Result<Self, StorageError> {
        Ok(Approval {
            status: ApprovalStatus::parse(&r.status)
                .ok_or_else(|| StorageError::Corrupt(format!("approval status {}", r.status)))?,
            id: r.id,
            realm_id: RealmId::from_stored(r.realm_id),
            caller_key: r.caller_key,
            sub: r.sub,
            agent_id: r.agent_id,
            client_id: r.client_id,
            server_id: r.server_id,
            tool: r.tool,
            arguments_sha256: r.arguments_sha256,
            arguments_preview: r.arguments_preview,
            side_effect_class: r.side_effect_class,
            risk: r.risk,
            requested_at: r.requested_at,
            expires_at: r.expires_at,
            decided_by: r.decided_by,
            decided_at: r.decided_at,
            reason: r.reason,
        })
    }
}

pub(super) const PIN_COLUMNS: &str = "realm_id, server_id, tool, seen_definition, seen_sha256, seen_at, accepted_definition, accepted_sha256, accepted_by, accepted_at";
pub(super) const UPSERT_PIN: &str = "INSERT INTO gateway_tool_pins (realm_id, server_id, tool, seen_definition, seen_sha256, seen_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (realm_id, server_id, tool) DO UPDATE SET seen_definition = excluded.seen_definition, seen_sha256 = excluded.seen_sha256, seen_at = excluded.seen_at";
pub(super) const ACCEPT_PIN: &str = "UPDATE gateway_tool_pins SET accepted_definition = seen_definition, accepted_sha256 = seen_sha256, accepted_by = $1, accepted_at = $2 WHERE realm_id = $3 AND server_id = $4 AND tool = $5 AND seen_sha256 = $6";
pub(super) const FORGET_REMOVED_PIN: &str = "DELETE FROM gateway_tool_pins WHERE realm_id = $1 AND server_id = $2 AND tool = $3 AND seen_sha256 IS NULL";
pub(super) const DELETE_PIN: &str =
    "DELETE FROM gateway_tool_pins WHERE realm_id = $1 AND server_id = $2 AND tool = $3";
pub(super) const INSERT_ATTACHMENT: &str = "INSERT INTO gateway_attachments (agent_id, server_id, attached_by, attached_at) VALUES ($1, $2, $3, $4)";
pub(super) const DELETE_ATTACHMENT: &str =
    "DELETE FROM gateway_attachments WHERE agent_id = $1 AND server_id = $2";

#[derive(sqlx::FromRow)]
pub(crate) struct PinRow {
    pub realm_id: String,
    pub server_id: String,
    pub tool: String,
    pub seen_definition: Option<String>,
    pub seen_sha256: Option<String>,
    pub seen_at: i64,
    pub accepted_definition: Option<String>,
    pub accepted_sha256: Option<String>,
    pub accepted_by: Option<String>,
    pub accepted_at: Option<i64>,
}

impl From<PinRow> for ToolPin {
    fn from(r: PinRow) -> Self {
        let def = |canonical: Option<String>, sha256: Option<String>| {
            Some(PinnedDefinition {
                canonical: canonical?,
                sha256: sha256?,
            })
        };
        ToolPin {
            realm_id: RealmId::from_stored(r.realm_id),
            server_id: r.server_id,
            tool: r.tool,
            seen: def(r.seen_definition, r.seen_sha256),
            seen_at: r.seen_at,
            accepted: def(r.accepted_definition, r.accepted_sha256),
            accepted_by: r.accepted_by,
            accepted_at: r.accepted_at,
        }
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct AttachmentRow {
    pub server_id: String,
    pub attached_by: String,
    pub attached_at: i64,
}

/// Implements [`GatewayStore`] for one backend's store.
macro_rules! gateway_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::error::StorageError;
            use $crate::gateway::{Approval, Attachment, ToolPin};
            use $crate::ids::{AgentId, RealmId};
            use $crate::storage::gateway::*;

            #[async_trait::async_trait]
            impl GatewayStore for $store {
                async fn list_tool_pins(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Vec<ToolPin>, StorageError> {
                    let sql = format!(
                        "SELECT {PIN_COLUMNS} FROM gateway_tool_pins WHERE realm_id = $1 ORDER BY server_id, tool"
                    );
                    Ok(sqlx::query_as::<_, PinRow>(&sql)
                        .bind(realm_id.as_str())
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(ToolPin::from)
                        .collect())
                }

                async fn save_tool_pins(
                    &self,
                    pins: &[(ToolPin, NewAuditEvent)],
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    for (p, event) in pins {
                        sqlx::query(UPSERT_PIN)
                            .bind(p.realm_id.as_str())
                            .bind(&p.server_id)
                            .bind(&p.tool)
                            .bind(p.seen.as_ref().map(|d| d.canonical.as_str()))
                            .bind(p.seen.as_ref().map(|d| d.sha256.as_str()))
                            .bind(p.seen_at)
                            .execute(&mut *tx)
                            .await?;
                        insert_audit(&mut tx, event).await?;
                    }
                    tx.commit().await?;
                    // Pins are cached (the gateway reads them on every call).
                    self.generation.bump();
                    Ok(())
                }

                async fn accept_tool_pins(
                    &self,
                    realm_id: &RealmId,
                    server_id: &str,
                    accepted: &[(String, Option<String>, NewAuditEvent)],
                    by: &str,
                    at: i64,
                ) -> Result<usize, StorageError> {
                    let mut tx = self.begin().await?;
                    let mut n = 0;
                    for (tool, seen, event) in accepted {
                        let done = match seen {
                            Some(sha) => sqlx::query(ACCEPT_PIN)
                                .bind(by)
                                .bind(at)
                                .bind(realm_id.as_str())
                                .bind(server_id)
                                .bind(tool)
                                .bind(sha)
                                .execute(&mut *tx)
                                .await?,
                            None => sqlx::query(FORGET_REMOVED_PIN)
                                .bind(realm_id.as_str())
                                .bind(server_id)
                                .bind(tool)
                                .execute(&mut *tx)
                                .await?,
                        }
                        .rows_affected();
                        if done == 1 {
                            insert_audit(&mut tx, event).await?;
                            n += 1;
                        }
                    }
                    tx.commit().await?;
                    self.generation.bump();
                    Ok(n)
                }

                async fn delete_tool_pins(
                    &self,
                    realm_id: &RealmId,
                    server_id: &str,
                    tools: &[(String, NewAuditEvent)],
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    for (tool, event) in tools {
                        sqlx::query(DELETE_PIN)
                            .bind(realm_id.as_str())
                            .bind(server_id)
                            .bind(tool)
                            .execute(&mut *tx)
                            .await?;
                        insert_audit(&mut tx, event).await?;
                    }
                    tx.commit().await?;
                    self.generation.bump();
                    Ok(())
                }

                async fn list_attachments(
                    &self,
                    agent_id: &AgentId,
                ) -> Result<Vec<Attachment>, StorageError> {
                    Ok(sqlx::query_as::<_, AttachmentRow>(
                        "SELECT server_id, attached_by, attached_at FROM gateway_attachments WHERE agent_id = $1 ORDER BY server_id",
                    )
                    .bind(agent_id.as_str())
                    .fetch_all(&self.pool)
                    .await?
                    .into_iter()
                    .map(|r| Attachment {
                        server_id: r.server_id,
                        attached_by: r.attached_by,
                        attached_at: r.attached_at,
                    })
                    .collect())
                }

                async fn insert_attachment(
                    &self,
                    agent_id: &AgentId,
                    a: &Attachment,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(INSERT_ATTACHMENT)
                        .bind(agent_id.as_str())
                        .bind(&a.server_id)
                        .bind(&a.attached_by)
                        .bind(a.attached_at)
                        .execute(&mut *tx)
                        .await?;
                    self.commit(tx, event).await
                }

                async fn delete_attachment(
                    &self,
                    agent_id: &AgentId,
                    server_id: &str,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(DELETE_ATTACHMENT)
                        .bind(agent_id.as_str())
                        .bind(server_id)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    self.commit(tx, event).await
                }

                async fn insert_approval(
                    &self,
                    a: &Approval,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(&format!(
                        "INSERT INTO gateway_approvals ({APPROVAL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)"
                    ))
                    .bind(&a.id)
                    .bind(a.realm_id.as_str())
                    .bind(&a.caller_key)
                    .bind(&a.sub)
                    .bind(a.agent_id.as_deref())
                    .bind(&a.client_id)
                    .bind(&a.server_id)
                    .bind(&a.tool)
                    .bind(&a.arguments_sha256)
                    .bind(&a.arguments_preview)
                    .bind(&a.side_effect_class)
                    .bind(&a.risk)
                    .bind(a.status.as_str())
                    .bind(a.requested_at)
                    .bind(a.expires_at)
                    .bind(a.decided_by.as_deref())
                    .bind(a.decided_at)
                    .bind(a.reason.as_deref())
                    .execute(&mut *tx)
                    .await?;
                    self.commit_uncached(tx, event).await
                }

                async fn find_approval(
                    &self,
                    realm_id: &RealmId,
                    id: &str,
                ) -> Result<Option<Approval>, StorageError> {
                    sqlx::query_as::<_, ApprovalRow>(&format!(
                        "SELECT {APPROVAL_COLUMNS} FROM gateway_approvals WHERE realm_id = $1 AND id = $2"
                    ))
                    .bind(realm_id.as_str())
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?
                    .map(Approval::try_from)
                    .transpose()
                }

                async fn list_approvals(
                    &self,
                    realm_id: &RealmId,
                    pending_only: Option<i64>,
                    limit: i64,
                ) -> Result<Vec<Approval>, StorageError> {
                    let rows = match pending_only {
                        Some(now) => sqlx::query_as::<_, ApprovalRow>(&format!(
                            "SELECT {APPROVAL_COLUMNS} FROM gateway_approvals WHERE realm_id = $1 AND status = 'pending' AND expires_at > $2 ORDER BY requested_at DESC, id LIMIT $3"
                        ))
                        .bind(realm_id.as_str())
                        .bind(now)
                        .bind(limit)
                        .fetch_all(&self.pool)
                        .await?,
                        None => sqlx::query_as::<_, ApprovalRow>(&format!(
                            "SELECT {APPROVAL_COLUMNS} FROM gateway_approvals WHERE realm_id = $1 ORDER BY requested_at DESC, id LIMIT $2"
                        ))
                        .bind(realm_id.as_str())
                        .bind(limit)
                        .fetch_all(&self.pool)
                        .await?,
                    };
                    rows.into_iter().map(Approval::try_from).collect()
                }

                async fn pending_approvals_of(
                    &self,
                    realm_id: &RealmId,
                    caller_key: &str,
                    now: i64,
                    limit: i64,
                ) -> Result<Vec<Approval>, StorageError> {
                    sqlx::query_as::<_, ApprovalRow>(&format!(
                        "SELECT {APPROVAL_COLUMNS} FROM gateway_approvals WHERE realm_id = $1 AND caller_key = $2 AND status = 'pending' AND expires_at > $3 ORDER BY requested_at DESC, id LIMIT $4"
                    ))
                    .bind(realm_id.as_str())
                    .bind(caller_key)
                    .bind(now)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?
                    .into_iter()
                    .map(Approval::try_from)
                    .collect()
                }

                async fn decide_approval(
                    &self,
                    a: &Approval,
                    now: i64,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(
                        "UPDATE gateway_approvals SET status = $1, decided_by = $2, decided_at = $3, reason = $4, expires_at = $5 WHERE id = $6 AND status = 'pending' AND expires_at > $7",
                    )
                    .bind(a.status.as_str())
                    .bind(a.decided_by.as_deref())
                    .bind(a.decided_at)
                    .bind(a.reason.as_deref())
                    .bind(a.expires_at)
                    .bind(&a.id)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::Conflict(
                            "The approval is no longer waiting: decided already, or lapsed.".into(),
                        ));
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn use_approval(&self, id: &str, now: i64) -> Result<bool, StorageError> {
                    Ok(sqlx::query(
                        "UPDATE gateway_approvals SET status = 'used' WHERE id = $1 AND status = 'approved' AND expires_at > $2",
                    )
                    .bind(id)
                    .bind(now)
                    .execute(&self.pool)
                    .await?
                    .rows_affected()
                        == 1)
                }
            }
        };
    };
}
