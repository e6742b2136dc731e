//! Audit rows of the hot token path written in batches: each caller still waits until its own
//! row is committed (nothing is answered before it is recorded), but concurrent callers share
//! one transaction — one write lock and one commit — instead of queueing for one each. Rows
//! recording what already happened (a gateway call the upstream answered) are handed over
//! without waiting for the commit.
use super::model::NewAuditEvent;
use crate::batch::{Answers, Batcher, Handed};
use crate::core::Core;
use crate::error::{Error, Result};
use crate::storage::DynStore;

/// The audit rows' batcher: one multi-row `INSERT` per batch, the same outcome for each row.
pub(crate) type AuditBatcher = Batcher<NewAuditEvent, std::result::Result<(), String>>;

/// A batcher for [`Core::audit_batched`].
pub(crate) fn audit_batcher() -> AuditBatcher {
    Batcher::new(write)
}

fn write(store: DynStore, events: Vec<NewAuditEvent>) -> Answers<std::result::Result<(), String>> {
    Box::pin(async move {
        let rows: Vec<&NewAuditEvent> = events.iter().collect();
        let result = store
            .insert_audit_events(&rows)
            .await
            .map_err(|e| e.to_string());
        if let Err(e) = &result {
            // Rows handed over without waiting have no caller to tell.
            tracing::error!(rows = rows.len(), error = %e, "audit rows were not written");
        }
        vec![result; events.len()]
    })
}

impl Core {
    /// Appends `event` through the batch writer without waiting for its commit (it waits only
    /// for a place in the writer's queue): for records of what already happened, such as a
    /// gateway call whose upstream has answered, where waiting would only delay the answer. A
    /// failed write is logged; [`Core::drain_audit`] at shutdown writes what waits.
    ///
    /// # Errors
    /// Storage failure, when no writer takes it and it is written here.
    pub(crate) async fn audit_detached(&self, event: NewAuditEvent) -> Result<()> {
        match self.audit_batch.run_detached(&self.store, event).await {
            Ok(()) => Ok(()),
            // No writer (its runtime is gone): write it here.
            Err(event) => Ok(self.store.insert_audit_event(&event).await?),
        }
    }

    /// Waits (at most `limit`) until every audit row handed to the batch writer is written:
    /// call it at shutdown, after the last request. Whether all were.
    pub async fn drain_audit(&self, limit: std::time::Duration) -> bool {
        self.audit_batch.drain(limit).await
    }

    /// Appends `event` through the batch writer, once it is committed.
    ///
    /// # Errors
    /// The write failed (the caller answers with an error: nothing goes out unrecorded).
    pub(crate) async fn audit_batched(&self, event: NewAuditEvent) -> Result<()> {
        match self.audit_batch.run(&self.store, event).await {
            Handed::Done(result) => result.map_err(|e| Error::Internal(format!("audit: {e}"))),
            // No writer (its runtime is gone): write it here.
            Handed::Refused(event) => Ok(self.store.insert_audit_event(&event).await?),
            // The writer went away with the row (its runtime shut down): not recorded.
            Handed::Lost => Err(Error::Internal("audit: the writer stopped".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::audit::{AuditFilter, AuditWindow, Outcome};
    use crate::core::{Core, CoreConfig};
    use crate::storage::Database;

    /// Concurrent callers each get their own row committed before they return, whatever
    /// batches the writer makes of them.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_batched_row_is_committed_before_its_caller_returns() {
        let dir = tempfile::tempdir().expect("tempdir");
        let url = format!("sqlite://{}", dir.path().join("audit.db").display());
        let db = Database::connect(&url, 4).await.expect("connect sqlite");
        db.migrate().await.expect("migrate");
        let core = Core::new(db.store(), CoreConfig::default());
        core.ensure_default_realm().await.expect("default realm");
        let realm = core.find_realm("default").await.expect("realm");
        let calls = (0..300).map(|i| {
            let core = core.clone();
            let realm_id = realm.id.clone();
            tokio::spawn(async move {
                let mut e = core.event(
                    &realm_id,
                    "bench-client",
                    crate::audit::action::TOKEN_EXCHANGE,
                    crate::audit::AuditSubject::Token(format!("jti-{i}")),
                    &crate::audit::RequestMeta::default(),
                );
                e.outcome = Outcome::Success;
                core.audit_batched(e).await.expect("recorded");
                // Committed: a fresh read sees it.
                let seen = core
                    .store
                    .list_audit_events(
                        &AuditFilter {
                            target_is: Some(
                                crate::audit::AuditSubject::Token(format!("jti-{i}")).target(),
                            ),
                            ..AuditFilter::default()
                        },
                        AuditWindow::page(crate::audit::AuditCursor::Newest, 10),
                    )
                    .await
                    .expect("list");
                assert_eq!(seen.items.len(), 1, "jti-{i}");
            })
        });
        for call in calls.collect::<Vec<_>>() {
            call.await.expect("join");
        }
    }

    /// Rows handed over without waiting are all written once the writer is drained, more of
    /// them than its queue holds (callers wait for a place rather than lose a row).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn detached_rows_are_all_written_by_the_drain() {
        let dir = tempfile::tempdir().expect("tempdir");
        let url = format!("sqlite://{}", dir.path().join("audit.db").display());
        let db = Database::connect(&url, 4).await.expect("connect sqlite");
        db.migrate().await.expect("migrate");
        let core = Core::new(db.store(), CoreConfig::default());
        core.ensure_default_realm().await.expect("default realm");
        let realm = core.find_realm("default").await.expect("realm");
        let n = 5000;
        for i in 0..n {
            let e = core.event(
                &realm.id,
                "gateway-client",
                crate::audit::action::GATEWAY_CALL,
                crate::audit::AuditSubject::Token(format!("call-{i}")),
                &crate::audit::RequestMeta::default(),
            );
            core.audit_detached(e).await.expect("handed over");
        }
        assert!(core.drain_audit(std::time::Duration::from_secs(60)).await);
        let mut seen = 0;
        let mut cursor = crate::audit::AuditCursor::Newest;
        loop {
            let page = core
                .store
                .list_audit_events(
                    &AuditFilter {
                        action: Some(crate::audit::action::GATEWAY_CALL.into()),
                        ..AuditFilter::default()
                    },
                    AuditWindow::page(cursor, 1000),
                )
                .await
                .expect("list");
            seen += page.items.len();
            match page.items.last() {
                Some(last) if page.items.len() == 1000 => {
                    cursor = crate::audit::AuditCursor::Before(last.id);
                }
                _ => break,
            }
        }
        assert_eq!(seen, n);
    }
}
