//! Audit rows of the hot token path written in batches: each caller still waits until its own
//! row is committed (nothing is answered before it is recorded), but concurrent callers share
//! one transaction — one write lock and one commit — instead of queueing for one each.
use super::model::NewAuditEvent;
use crate::core::Core;
use crate::error::{Error, Result};
use crate::storage::DynStore;
use std::sync::OnceLock;
use tokio::sync::{mpsc, oneshot};

/// Most rows one transaction writes.
const MAX_BATCH: usize = 256;
/// Rows waiting for the writer at most; beyond this, callers wait to hand theirs over.
const QUEUE: usize = 4096;

type Job = (
    NewAuditEvent,
    oneshot::Sender<std::result::Result<(), String>>,
);

/// The writer task, started on first use (on the runtime of whoever uses it first).
#[derive(Debug, Default)]
pub(crate) struct AuditBatcher {
    sender: OnceLock<mpsc::Sender<Job>>,
}

impl AuditBatcher {
    fn sender(&self, store: &DynStore) -> &mpsc::Sender<Job> {
        self.sender.get_or_init(|| {
            let (tx, rx) = mpsc::channel(QUEUE);
            tokio::spawn(write(store.clone(), rx));
            tx
        })
    }
}

/// Takes what waits (up to [`MAX_BATCH`]), writes it in one transaction, and tells each caller.
async fn write(store: DynStore, mut rx: mpsc::Receiver<Job>) {
    while let Some(first) = rx.recv().await {
        let mut jobs = vec![first];
        while jobs.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let events: Vec<&NewAuditEvent> = jobs.iter().map(|(e, _)| e).collect();
        let result = store
            .insert_audit_events(&events)
            .await
            .map_err(|e| e.to_string());
        for (_, done) in jobs {
            let _ = done.send(result.clone());
        }
    }
}

impl Core {
    /// Appends `event` through the batch writer, once it is committed.
    ///
    /// # Errors
    /// The write failed (the caller answers with an error: nothing goes out unrecorded).
    pub(crate) async fn audit_batched(&self, event: NewAuditEvent) -> Result<()> {
        let (done, committed) = oneshot::channel();
        match self
            .audit_batch
            .sender(&self.store)
            .send((event, done))
            .await
        {
            Ok(()) => match committed.await {
                Ok(result) => result.map_err(|e| Error::Internal(format!("audit: {e}"))),
                // The writer went away with the row (its runtime shut down): not recorded.
                Err(_) => Err(Error::Internal("audit: the writer stopped".into())),
            },
            // No writer (its runtime is gone): write it here.
            Err(mpsc::error::SendError((event, _))) => {
                Ok(self.store.insert_audit_event(&event).await?)
            }
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
