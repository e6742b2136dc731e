//! Registry persistence: a realm's draft and settings (one row, written under its revision),
//! its releases (inserted once, never updated), publish requests and ring/unit memberships.
use crate::audit::NewAuditEvent;
use crate::error::StorageError;
use crate::realms::RealmId;
use crate::registry::{
    GroupKind, MemberKind, MemberView, Membership, PublishRequest, Registry, ReleaseHead,
    RequestStatus, StoredRelease,
};
use async_trait::async_trait;

/// What else a release's insert writes in its transaction.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReleaseEffects<'a> {
    /// The draft to store with it (a roll back makes the draft the content it publishes), and
    /// the revision the draft must still be at.
    pub draft: Option<(&'a Registry, i64)>,
    /// The pending request it ends (as published, decided by the approver).
    pub request: Option<&'a str>,
}

/// A release of the realm took the sequence number first: the caller builds the next one.
pub const SEQUENCE_TAKEN: &str = "another release took this sequence number";
/// The draft changed since the caller read it.
pub const STALE_DRAFT: &str = "the draft changed since it was read";
/// The request was decided meanwhile.
pub const REQUEST_DECIDED: &str = "the request is no longer pending";

/// Registry persistence.
#[async_trait]
pub trait RegistryStore: Send + Sync {
    /// The realm's registry row, if it has one yet.
    async fn find_registry(&self, realm_id: &RealmId) -> Result<Option<Registry>, StorageError>;
    /// Writes the draft and settings. `expected`: the revision the caller read (`None`: the
    /// realm has no registry row yet, and this creates it). `Precondition(STALE_DRAFT)` when
    /// the stored revision differs (or the row exists already).
    async fn save_registry(
        &self,
        r: &Registry,
        expected: Option<i64>,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Inserts a release with its audit event, and its `effects`, in one transaction;
    /// `Precondition(SEQUENCE_TAKEN)` when the sequence is taken, `Precondition(STALE_DRAFT)`,
    /// `Precondition(REQUEST_DECIDED)`.
    async fn insert_release(
        &self,
        release: &StoredRelease,
        effects: ReleaseEffects<'_>,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// The realm's newest release.
    async fn latest_release(
        &self,
        realm_id: &RealmId,
    ) -> Result<Option<StoredRelease>, StorageError>;
    /// A release by sequence number.
    async fn release_by_sequence(
        &self,
        realm_id: &RealmId,
        sequence: i64,
    ) -> Result<Option<StoredRelease>, StorageError>;
    /// A release by content id.
    async fn release_by_id(
        &self,
        realm_id: &RealmId,
        id: &str,
    ) -> Result<Option<StoredRelease>, StorageError>;
    /// Releases newest first: at most `limit` with a sequence below `before` (`None`: from the
    /// newest), and how many the realm has.
    async fn list_releases(
        &self,
        realm_id: &RealmId,
        before: Option<i64>,
        limit: u32,
    ) -> Result<(Vec<ReleaseHead>, u64), StorageError>;
    /// The newest release's head (no document: the cheap answer to "has it changed?").
    async fn latest_release_head(
        &self,
        realm_id: &RealmId,
    ) -> Result<Option<ReleaseHead>, StorageError>;
    /// Inserts a pending request; `Conflict` when one is pending already.
    async fn insert_request(
        &self,
        r: &PublishRequest,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// A request by id.
    async fn find_request(
        &self,
        realm_id: &RealmId,
        id: &str,
    ) -> Result<Option<PublishRequest>, StorageError>;
    /// The realm's pending request.
    async fn pending_request(
        &self,
        realm_id: &RealmId,
    ) -> Result<Option<PublishRequest>, StorageError>;
    /// The realm's most recently rejected request.
    async fn last_rejected_request(
        &self,
        realm_id: &RealmId,
    ) -> Result<Option<PublishRequest>, StorageError>;
    /// Ends a pending request as rejected or withdrawn; `NotFound` when it is not pending.
    async fn close_request(
        &self,
        id: &str,
        status: RequestStatus,
        by: &str,
        at: crate::clock::UnixTime,
        reason: Option<&str>,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Adds a member; `Conflict` when it is one already.
    async fn insert_member(
        &self,
        m: &Membership,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Removes a member; `NotFound` when it is not one.
    async fn delete_member(
        &self,
        realm_id: &RealmId,
        group: (GroupKind, &str),
        member: (MemberKind, &str),
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// A ring's or unit's members (at most `limit`) with their names, by kind and name.
    async fn list_members(
        &self,
        realm_id: &RealmId,
        group: (GroupKind, &str),
        limit: u32,
    ) -> Result<Vec<MemberView>, StorageError>;
    /// How many members each ring and unit of the realm has.
    async fn count_members(
        &self,
        realm_id: &RealmId,
    ) -> Result<Vec<(GroupKind, String, u64)>, StorageError>;
    /// The rings and units a member is in (directly).
    async fn groups_of(
        &self,
        realm_id: &RealmId,
        member: (MemberKind, &str),
    ) -> Result<Vec<(GroupKind, String)>, StorageError>;
}

pub(super) const REGISTRY_COLUMNS: &str =
    "realm_id, draft, revision, require_approval, api_access, updated_at, updated_by";
pub(super) const INSERT_REGISTRY: &str = "INSERT INTO registries (realm_id, draft, revision, require_approval, api_access, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $7)";
pub(super) const UPDATE_REGISTRY: &str = "UPDATE registries SET draft = $2, revision = $3, require_approval = $4, api_access = $5, updated_at = $6, updated_by = $7 WHERE realm_id = $1 AND revision = $8";
pub(super) const RELEASE_COLUMNS: &str = "realm_id, sequence, id, document, published_at, published_by, approved_by, rollback_of, servers, changes";
/// Everything but the document.
pub(super) const HEAD_COLUMNS: &str =
    "sequence, id, published_at, published_by, approved_by, rollback_of, servers, changes";
pub(super) const INSERT_RELEASE: &str = "INSERT INTO registry_releases (realm_id, sequence, id, document, published_at, published_by, approved_by, rollback_of, servers, changes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
pub(super) const REQUEST_COLUMNS: &str = "id, realm_id, policy, rollback_of, base_sequence, settings, requested_by, requested_at, status, decided_by, decided_at, reason, release_sequence";
pub(super) const INSERT_REQUEST: &str = "INSERT INTO registry_requests (id, realm_id, policy, rollback_of, base_sequence, settings, requested_by, requested_at, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending')";
pub(super) const PUBLISH_REQUEST: &str = "UPDATE registry_requests SET status = 'published', decided_by = $2, decided_at = $3, release_sequence = $4 WHERE id = $1 AND status = 'pending'";
pub(super) const CLOSE_REQUEST: &str = "UPDATE registry_requests SET status = $2, decided_by = $3, decided_at = $4, reason = $5 WHERE id = $1 AND status = 'pending'";
pub(super) const INSERT_MEMBER: &str = "INSERT INTO registry_members (realm_id, group_kind, group_id, member_kind, member_id, user_id, person_id, agent_id, added_at, added_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
pub(super) const DELETE_MEMBER: &str = "DELETE FROM registry_members WHERE realm_id = $1 AND group_kind = $2 AND group_id = $3 AND member_kind = $4 AND member_id = $5";
/// Members with a name for each: a user's or person's email, an agent's name.
pub(super) const LIST_MEMBERS: &str = "SELECT m.realm_id, m.group_kind, m.group_id, m.member_kind, m.member_id, m.added_at, m.added_by, \
    COALESCE(u.email, p.email, a.name, m.member_id) AS name \
    FROM registry_members m \
    LEFT JOIN users u ON u.id = m.user_id \
    LEFT JOIN people p ON p.id = m.person_id \
    LEFT JOIN agents a ON a.id = m.agent_id \
    WHERE m.realm_id = $1 AND m.group_kind = $2 AND m.group_id = $3 \
    ORDER BY m.member_kind, name LIMIT $4";
pub(super) const COUNT_MEMBERS: &str = "SELECT group_kind, group_id, COUNT(*) FROM registry_members WHERE realm_id = $1 GROUP BY group_kind, group_id ORDER BY group_kind, group_id";
pub(super) const GROUPS_OF: &str = "SELECT group_kind, group_id FROM registry_members WHERE realm_id = $1 AND member_kind = $2 AND member_id = $3 ORDER BY group_kind, group_id";

/// Which release to read.
#[derive(Debug, Clone, Copy)]
pub(super) enum ReleaseKey<'a> {
    /// The newest.
    Latest,
    /// By sequence number.
    Sequence(i64),
    /// By content id.
    Id(&'a str),
}

/// A registry row.
pub(super) type RegistryRow = (String, String, i64, bool, String, i64, String);
/// A release row.
pub(super) type ReleaseRow = (
    String,
    i64,
    String,
    String,
    i64,
    String,
    Option<String>,
    Option<i64>,
    i64,
    String,
);
/// A release's head row.
pub(super) type HeadRow = (
    i64,
    String,
    i64,
    String,
    Option<String>,
    Option<i64>,
    i64,
    String,
);
/// A request row.
pub(super) type RequestRow = (
    String,
    String,
    String,
    Option<i64>,
    i64,
    Option<String>,
    String,
    i64,
    String,
    Option<String>,
    Option<i64>,
    Option<String>,
    Option<i64>,
);
/// A member row with its name.
pub(super) type MemberRow = (String, String, String, String, String, i64, String, String);

fn corrupt(what: &'static str) -> impl Fn(String) -> StorageError {
    move |m| StorageError::Corrupt(format!("{what}: {m}"))
}

pub(super) fn registry_from(r: RegistryRow) -> Result<Registry, StorageError> {
    Ok(Registry {
        realm_id: RealmId::from_stored(r.0),
        draft: serde_json::from_str(&r.1).map_err(|e| corrupt("registry draft")(e.to_string()))?,
        revision: r.2,
        require_approval: r.3,
        api_access: crate::registry::ApiAccess::parse(&r.4)
            .map_err(|e| corrupt("registry access")(e.to_owned()))?,
        updated_at: r.5,
        updated_by: r.6,
    })
}

pub(super) fn release_from(r: ReleaseRow) -> StoredRelease {
    StoredRelease {
        realm_id: RealmId::from_stored(r.0),
        sequence: r.1,
        id: r.2,
        document: r.3,
        published_at: r.4,
        published_by: r.5,
        approved_by: r.6,
        rollback_of: r.7,
        servers: r.8,
        changes: r.9,
    }
}

pub(super) fn head_from(r: HeadRow) -> ReleaseHead {
    ReleaseHead {
        sequence: r.0,
        id: r.1,
        published_at: r.2,
        published_by: r.3,
        approved_by: r.4,
        rollback_of: r.5,
        servers: r.6,
        changes: r.7,
    }
}

pub(super) fn request_from(r: RequestRow) -> Result<PublishRequest, StorageError> {
    Ok(PublishRequest {
        id: r.0,
        realm_id: RealmId::from_stored(r.1),
        policy: serde_json::from_str(&r.2)
            .map_err(|e| corrupt("registry request")(e.to_string()))?,
        rollback_of: r.3,
        base_sequence: r.4,
        settings: r
            .5
            .as_deref()
            .map(serde_json::from_str)
            .transpose()
            .map_err(|e| corrupt("request settings")(e.to_string()))?,
        requested_by: r.6,
        requested_at: r.7,
        status: RequestStatus::parse(&r.8).ok_or_else(|| corrupt("request status")(r.8.clone()))?,
        decided_by: r.9,
        decided_at: r.10,
        reason: r.11,
        release_sequence: r.12,
    })
}

pub(super) fn member_from(r: MemberRow) -> Result<MemberView, StorageError> {
    Ok(MemberView {
        membership: Membership {
            realm_id: RealmId::from_stored(r.0),
            group_kind: GroupKind::parse(&r.1).map_err(|e| corrupt("group kind")(e.into()))?,
            group_id: r.2,
            member_kind: MemberKind::parse(&r.3).map_err(|e| corrupt("member kind")(e.into()))?,
            member_id: r.4,
            added_at: r.5,
            added_by: r.6,
        },
        name: r.7,
    })
}

pub(super) fn json(
    policy: &portcullis_manifest::policy::PolicyInput,
) -> Result<String, StorageError> {
    serde_json::to_string(policy).map_err(|e| StorageError::Corrupt(e.to_string()))
}

/// Implements [`RegistryStore`] for one backend's store.
macro_rules! registry_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::error::StorageError;
            use $crate::realms::RealmId;
            use $crate::registry::{
                GroupKind, MemberKind, MemberView, Membership, PublishRequest, Registry,
                ReleaseHead, RequestStatus, StoredRelease,
            };
            use $crate::storage::registry::*;

            async fn release_where(
                pool: &sqlx::Pool<$db>,
                realm_id: &RealmId,
                key: ReleaseKey<'_>,
            ) -> Result<Option<StoredRelease>, StorageError> {
                let condition = match key {
                    ReleaseKey::Latest => "ORDER BY sequence DESC LIMIT 1",
                    ReleaseKey::Sequence(_) => "AND sequence = $2",
                    ReleaseKey::Id(_) => "AND id = $2",
                };
                let sql = format!(
                    "SELECT {RELEASE_COLUMNS} FROM registry_releases WHERE realm_id = $1 {condition}"
                );
                let q = sqlx::query_as::<_, ReleaseRow>(&sql).bind(realm_id.as_str());
                let q = match key {
                    ReleaseKey::Latest => q,
                    ReleaseKey::Sequence(n) => q.bind(n),
                    ReleaseKey::Id(id) => q.bind(id),
                };
                Ok(q.fetch_optional(pool).await?.map(release_from))
            }

            async fn request_where(
                pool: &sqlx::Pool<$db>,
                realm_id: &RealmId,
                condition: &'static str,
                value: &str,
            ) -> Result<Option<PublishRequest>, StorageError> {
                let sql = format!(
                    "SELECT {REQUEST_COLUMNS} FROM registry_requests WHERE realm_id = $1 AND {condition} = $2"
                );
                sqlx::query_as::<_, RequestRow>(&sql)
                    .bind(realm_id.as_str())
                    .bind(value)
                    .fetch_optional(pool)
                    .await?
                    .map(request_from)
                    .transpose()
            }

            async fn write_registry(
                tx: &mut sqlx::Transaction<'_, $db>,
                r: &Registry,
                expected: Option<i64>,
            ) -> Result<(), StorageError> {
                let draft = json(&r.draft)?;
                let n = match expected {
                    None => sqlx::query(INSERT_REGISTRY)
                        .bind(r.realm_id.as_str())
                        .bind(draft)
                        .bind(r.revision)
                        .bind(r.require_approval)
                        .bind(r.api_access.as_str())
                        .bind(r.updated_at)
                        .bind(&r.updated_by)
                        .execute(&mut **tx)
                        .await
                        .map_err(StorageError::from)
                        .map_err(|e| match e {
                            StorageError::Conflict(_) => StorageError::Precondition(STALE_DRAFT),
                            other => other,
                        })?
                        .rows_affected(),
                    Some(expected) => sqlx::query(UPDATE_REGISTRY)
                        .bind(r.realm_id.as_str())
                        .bind(draft)
                        .bind(r.revision)
                        .bind(r.require_approval)
                        .bind(r.api_access.as_str())
                        .bind(r.updated_at)
                        .bind(&r.updated_by)
                        .bind(expected)
                        .execute(&mut **tx)
                        .await?
                        .rows_affected(),
                };
                if n == 1 {
                    Ok(())
                } else {
                    Err(StorageError::Precondition(STALE_DRAFT))
                }
            }

            #[async_trait::async_trait]
            impl RegistryStore for $store {
                async fn find_registry(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Option<Registry>, StorageError> {
                    let sql =
                        format!("SELECT {REGISTRY_COLUMNS} FROM registries WHERE realm_id = $1");
                    sqlx::query_as::<_, RegistryRow>(&sql)
                        .bind(realm_id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(registry_from)
                        .transpose()
                }

                async fn save_registry(
                    &self,
                    r: &Registry,
                    expected: Option<i64>,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    if let Err(e) = write_registry(&mut tx, r, expected).await {
                        tx.rollback().await?;
                        return Err(e);
                    }
                    self.commit(tx, event).await
                }

                async fn insert_release(
                    &self,
                    release: &StoredRelease,
                    effects: ReleaseEffects<'_>,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let inserted = sqlx::query(INSERT_RELEASE)
                        .bind(release.realm_id.as_str())
                        .bind(release.sequence)
                        .bind(&release.id)
                        .bind(&release.document)
                        .bind(release.published_at)
                        .bind(&release.published_by)
                        .bind(release.approved_by.as_deref())
                        .bind(release.rollback_of)
                        .bind(release.servers)
                        .bind(&release.changes)
                        .execute(&mut *tx)
                        .await;
                    match inserted.map_err(StorageError::from) {
                        Ok(_) => {}
                        Err(StorageError::Conflict(_)) => {
                            tx.rollback().await?;
                            return Err(StorageError::Precondition(SEQUENCE_TAKEN));
                        }
                        Err(e) => return Err(e),
                    }
                    if let Some((draft, expected)) = effects.draft
                        && let Err(e) = write_registry(&mut tx, draft, Some(expected)).await
                    {
                        tx.rollback().await?;
                        return Err(e);
                    }
                    if let Some(request) = effects.request {
                        let n = sqlx::query(PUBLISH_REQUEST)
                            .bind(request)
                            .bind(release.approved_by.as_deref().unwrap_or_default())
                            .bind(release.published_at)
                            .bind(release.sequence)
                            .execute(&mut *tx)
                            .await?
                            .rows_affected();
                        if n != 1 {
                            tx.rollback().await?;
                            return Err(StorageError::Precondition(REQUEST_DECIDED));
                        }
                    }
                    self.commit(tx, event).await
                }

                async fn latest_release(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Option<StoredRelease>, StorageError> {
                    release_where(&self.pool, realm_id, ReleaseKey::Latest).await
                }

                async fn release_by_sequence(
                    &self,
                    realm_id: &RealmId,
                    sequence: i64,
                ) -> Result<Option<StoredRelease>, StorageError> {
                    release_where(&self.pool, realm_id, ReleaseKey::Sequence(sequence)).await
                }

                async fn release_by_id(
                    &self,
                    realm_id: &RealmId,
                    id: &str,
                ) -> Result<Option<StoredRelease>, StorageError> {
                    release_where(&self.pool, realm_id, ReleaseKey::Id(id)).await
                }

                async fn latest_release_head(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Option<ReleaseHead>, StorageError> {
                    let sql = format!(
                        "SELECT {HEAD_COLUMNS} FROM registry_releases WHERE realm_id = $1 ORDER BY sequence DESC LIMIT 1"
                    );
                    Ok(sqlx::query_as::<_, HeadRow>(&sql)
                        .bind(realm_id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(head_from))
                }

                async fn list_releases(
                    &self,
                    realm_id: &RealmId,
                    before: Option<i64>,
                    limit: u32,
                ) -> Result<(Vec<ReleaseHead>, u64), StorageError> {
                    let sql = format!(
                        "SELECT {HEAD_COLUMNS} FROM registry_releases WHERE realm_id = $1 AND sequence < $2 ORDER BY sequence DESC LIMIT $3"
                    );
                    let rows = sqlx::query_as::<_, HeadRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(before.unwrap_or(i64::MAX))
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await?;
                    let total: i64 = sqlx::query_scalar(
                        "SELECT COUNT(*) FROM registry_releases WHERE realm_id = $1",
                    )
                    .bind(realm_id.as_str())
                    .fetch_one(&self.pool)
                    .await?;
                    Ok((
                        rows.into_iter().map(head_from).collect(),
                        u64::try_from(total).unwrap_or(0),
                    ))
                }

                async fn insert_request(
                    &self,
                    r: &PublishRequest,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(INSERT_REQUEST)
                        .bind(&r.id)
                        .bind(r.realm_id.as_str())
                        .bind(json(&r.policy)?)
                        .bind(r.rollback_of)
                        .bind(r.base_sequence)
                        .bind(
                            r.settings
                                .map(|s| serde_json::to_string(&s))
                                .transpose()
                                .map_err(|e| StorageError::Corrupt(e.to_string()))?,
                        )
                        .bind(&r.requested_by)
                        .bind(r.requested_at)
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await
                }

                async fn find_request(
                    &self,
                    realm_id: &RealmId,
                    id: &str,
                ) -> Result<Option<PublishRequest>, StorageError> {
                    request_where(&self.pool, realm_id, "id", id).await
                }

                async fn pending_request(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Option<PublishRequest>, StorageError> {
                    request_where(&self.pool, realm_id, "status", "pending").await
                }

                async fn last_rejected_request(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Option<PublishRequest>, StorageError> {
                    let sql = format!(
                        "SELECT {REQUEST_COLUMNS} FROM registry_requests WHERE realm_id = $1 AND status = 'rejected' ORDER BY decided_at DESC, id DESC LIMIT 1"
                    );
                    sqlx::query_as::<_, RequestRow>(&sql)
                        .bind(realm_id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(request_from)
                        .transpose()
                }

                async fn close_request(
                    &self,
                    id: &str,
                    status: RequestStatus,
                    by: &str,
                    at: $crate::clock::UnixTime,
                    reason: Option<&str>,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(CLOSE_REQUEST)
                        .bind(id)
                        .bind(status.as_str())
                        .bind(by)
                        .bind(at)
                        .bind(reason)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn insert_member(
                    &self,
                    m: &Membership,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let id = Some(m.member_id.as_str());
                    let (user, person, agent) = match m.member_kind {
                        MemberKind::User => (id, None, None),
                        MemberKind::Person => (None, id, None),
                        MemberKind::Agent => (None, None, id),
                    };
                    let mut tx = self.begin().await?;
                    sqlx::query(INSERT_MEMBER)
                        .bind(m.realm_id.as_str())
                        .bind(m.group_kind.as_str())
                        .bind(&m.group_id)
                        .bind(m.member_kind.as_str())
                        .bind(&m.member_id)
                        .bind(user)
                        .bind(person)
                        .bind(agent)
                        .bind(m.added_at)
                        .bind(&m.added_by)
                        .execute(&mut *tx)
                        .await?;
                    self.commit(tx, event).await
                }

                async fn delete_member(
                    &self,
                    realm_id: &RealmId,
                    group: (GroupKind, &str),
                    member: (MemberKind, &str),
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(DELETE_MEMBER)
                        .bind(realm_id.as_str())
                        .bind(group.0.as_str())
                        .bind(group.1)
                        .bind(member.0.as_str())
                        .bind(member.1)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    self.commit(tx, event).await
                }

                async fn list_members(
                    &self,
                    realm_id: &RealmId,
                    group: (GroupKind, &str),
                    limit: u32,
                ) -> Result<Vec<MemberView>, StorageError> {
                    sqlx::query_as::<_, MemberRow>(LIST_MEMBERS)
                        .bind(realm_id.as_str())
                        .bind(group.0.as_str())
                        .bind(group.1)
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(member_from)
                        .collect()
                }

                async fn count_members(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Vec<(GroupKind, String, u64)>, StorageError> {
                    let rows: Vec<(String, String, i64)> = sqlx::query_as(COUNT_MEMBERS)
                        .bind(realm_id.as_str())
                        .fetch_all(&self.pool)
                        .await?;
                    rows.into_iter()
                        .map(|(k, g, n)| {
                            Ok((
                                GroupKind::parse(&k)
                                    .map_err(|e| StorageError::Corrupt(e.into()))?,
                                g,
                                u64::try_from(n).unwrap_or(0),
                            ))
                        })
                        .collect()
                }

                async fn groups_of(
                    &self,
                    realm_id: &RealmId,
                    member: (MemberKind, &str),
                ) -> Result<Vec<(GroupKind, String)>, StorageError> {
                    let rows: Vec<(String, String)> = sqlx::query_as(GROUPS_OF)
                        .bind(realm_id.as_str())
                        .bind(member.0.as_str())
                        .bind(member.1)
                        .fetch_all(&self.pool)
                        .await?;
                    rows.into_iter()
                        .map(|(k, g)| {
                            Ok((
                                GroupKind::parse(&k)
                                    .map_err(|e| StorageError::Corrupt(e.into()))?,
                                g,
                            ))
                        })
                        .collect()
                }
            }
        };
    };
}
