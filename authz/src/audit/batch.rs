//! Audit rows of the hot token path written in batches: each caller still waits until its own
//! row is committed (nothing is answered before it is recorded), but concurrent callers share
//! one transaction — one write lock and one commit — instead of queueing for one each.
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
        vec![result; events.len()]
    })
}

impl Core {
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
}
