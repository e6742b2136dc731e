//! Audit persistence (append-only).
use crate::audit::{AuditFilter, AuditSlice, AuditWindow, NewAuditEvent};
use crate::error::StorageError;
use async_trait::async_trait;

/// Audit persistence (append-only).
#[async_trait]
pub trait AuditStore: Send + Sync {
    /// Appends an event that has no other change to commit with (e.g. a failed sign-in).
    async fn insert_audit_event(&self, event: &NewAuditEvent) -> Result<(), StorageError>;
    /// Appends events in one statement (all or none).
    async fn insert_audit_events(&self, events: &[&NewAuditEvent]) -> Result<(), StorageError>;
    /// Lists events matching the filter in the window, newest first.
    async fn list_audit_events(
        &self,
        filter: &AuditFilter,
        window: AuditWindow,
    ) -> Result<AuditSlice, StorageError>;
}

pub(super) const AUDIT_SELECT: &str = "SELECT a.id, r.name AS realm, a.occurred_at, a.actor, a.action, a.target, a.outcome, a.request_id, a.client_ip, a.details FROM audit_events a JOIN realms r ON r.id = a.realm_id WHERE 1 = 1";
/// Counts matching rows up to a bound (the bind after the filter is the bound plus one).
pub(super) const AUDIT_COUNT: &str =
    "SELECT COUNT(*) FROM (SELECT 1 FROM audit_events a WHERE 1 = 1";

/// Implements [`AuditStore`] for one backend's store.
macro_rules! audit_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::{
                AuditCursor, AuditEvent, AuditFilter, AuditSlice, AuditWindow, NewAuditEvent,
            };
            use $crate::error::StorageError;
            use $crate::storage::audit::*;
            use $crate::storage::rows::AuditRow;

            #[async_trait::async_trait]
            impl AuditStore for $store {
                async fn insert_audit_event(
                    &self,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut conn = self.pool.acquire().await?;
                    insert_audit(&mut conn, event).await
                }

                async fn insert_audit_events(
                    &self,
                    events: &[&NewAuditEvent],
                ) -> Result<(), StorageError> {
                    if events.is_empty() {
                        return Ok(());
                    }
                    // One statement: atomic on its own, one round trip to the database.
                    let mut qb =
                        sqlx::QueryBuilder::<$db>::new($crate::storage::sql::INSERT_AUDIT_ROWS);
                    qb.push_values(events, |mut row, e| {
                        row.push_bind(e.realm_id.as_str().to_owned())
                            .push_bind(e.occurred_at)
                            .push_bind(e.actor.clone())
                            .push_bind(e.action)
                            .push_bind(e.target.clone())
                            .push_bind(e.related.clone())
                            .push_bind(e.outcome.as_str())
                            .push_bind(e.request_id.clone())
                            .push_bind(e.client_ip.clone())
                            .push_bind(e.details.to_string());
                    });
                    qb.build().execute(&self.pool).await?;
                    Ok(())
                }

                async fn list_audit_events(
                    &self,
                    f: &AuditFilter,
                    w: AuditWindow,
                ) -> Result<AuditSlice, StorageError> {
                    let trigrams = |column| Trigrams {
                        table: "audit_search",
                        key: "a.id",
                        fts_key: "rowid",
                        column: Some(column),
                    };
                    let (by_actor, by_target) = (trigrams("actor"), trigrams("target"));
                    let filter = |qb: &mut sqlx::QueryBuilder<'_, $db>| {
                        if let Some(v) = &f.realm_id {
                            qb.push(" AND a.realm_id = ")
                                .push_bind(v.as_str().to_owned());
                        }
                        if let Some(v) = &f.action {
                            qb.push(" AND a.action = ").push_bind(v.clone());
                        }
                        if let Some(v) = &f.actor {
                            push_text_search(qb, v, &["a.actor"], Some(&by_actor));
                        }
                        if let Some(v) = &f.target {
                            push_text_search(qb, v, &["a.target"], Some(&by_target));
                        }
                        if let Some(v) = &f.target_is {
                            qb.push(" AND a.target = ").push_bind(v.clone());
                        }
                        if let Some(v) = &f.concerning {
                            qb.push(" AND (a.target = ")
                                .push_bind(v.clone())
                                .push(" OR a.related = ")
                                .push_bind(v.clone())
                                .push(")");
                        }
                        if let Some(v) = f.from {
                            qb.push(" AND a.occurred_at >= ").push_bind(v);
                        }
                        if let Some(v) = f.to {
                            qb.push(" AND a.occurred_at < ").push_bind(v);
                        }
                    };
                    let mut qb = sqlx::QueryBuilder::<$db>::new(AUDIT_SELECT);
                    filter(&mut qb);
                    let ascending = matches!(w.cursor, AuditCursor::After(_));
                    match w.cursor {
                        AuditCursor::Newest => {}
                        AuditCursor::Before(id) => {
                            qb.push(" AND a.id < ").push_bind(id);
                        }
                        AuditCursor::After(id) => {
                            qb.push(" AND a.id > ").push_bind(id);
                        }
                    }
                    qb.push(if ascending {
                        " ORDER BY a.id ASC LIMIT "
                    } else {
                        " ORDER BY a.id DESC LIMIT "
                    })
                    .push_bind(i64::from(w.limit) + 1);
                    // Text searches are planned for their pattern (see `Search::page`).
                    let prepared = f.actor.is_none() && f.target.is_none();
                    let mut items = qb
                        .build_query_as::<AuditRow>()
                        .persistent(prepared)
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(AuditEvent::try_from)
                        .collect::<Result<Vec<_>, _>>()?;
                    let limit = usize::try_from(w.limit).unwrap_or(usize::MAX);
                    let more = items.len() > limit;
                    items.truncate(limit);
                    if ascending {
                        items.reverse();
                    }
                    // Whether a matching event lies on the cursor's other side: the nearest one
                    // first (usually the cursor's own event, unless the cursor was made up), so
                    // the probe stops at once wherever the planner starts.
                    let beyond = |newer: bool, id: i64| {
                        let mut qb = sqlx::QueryBuilder::<$db>::new(
                            "SELECT a.id FROM audit_events a WHERE 1 = 1",
                        );
                        filter(&mut qb);
                        let (condition, order) = if newer {
                            (" AND a.id >= ", " ORDER BY a.id ASC LIMIT 1")
                        } else {
                            (" AND a.id <= ", " ORDER BY a.id DESC LIMIT 1")
                        };
                        qb.push(condition).push_bind(id).push(order);
                        async move {
                            let found: Option<i64> = qb
                                .build_query_scalar()
                                .persistent(prepared)
                                .fetch_optional(&self.pool)
                                .await?;
                            Ok::<_, StorageError>(found.is_some())
                        }
                    };
                    let (newer, older) = match w.cursor {
                        AuditCursor::Newest => (false, more),
                        AuditCursor::Before(id) => (beyond(true, id).await?, more),
                        AuditCursor::After(id) => (more, beyond(false, id).await?),
                    };
                    let mut qb = sqlx::QueryBuilder::<$db>::new(AUDIT_COUNT);
                    filter(&mut qb);
                    let bound = i64::try_from(w.count_up_to.saturating_add(1)).unwrap_or(i64::MAX);
                    qb.push(" LIMIT ").push_bind(bound).push(") AS matching");
                    let counted: i64 = qb
                        .build_query_scalar()
                        .persistent(prepared)
                        .fetch_one(&self.pool)
                        .await?;
                    let counted = u64::try_from(counted).unwrap_or(0);
                    Ok(AuditSlice {
                        items,
                        newer,
                        older,
                        total: counted.min(w.count_up_to),
                        total_exact: counted <= w.count_up_to,
                    })
                }
            }
        };
    };
}
