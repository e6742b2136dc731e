//! Whether presented tokens are revoked, read in batches: every check is a read of the
//! database made after the token was presented (revocations are never answered from memory,
//! so one made on any instance counts at once), but concurrent checks share one query.
use crate::batch::{Answers, Batcher, Handed};
use crate::core::Core;
use crate::error::{Error, Result};
use crate::realms::RealmId;
use crate::storage::DynStore;
use std::collections::{HashMap, HashSet};

/// One question: is this `jti` revoked in this realm?
type Question = (RealmId, String);

/// The revocation reader: one query per realm in a batch.
pub(crate) type RevocationReader = Batcher<Question, std::result::Result<bool, String>>;

/// A reader for [`Core::is_revoked`].
pub(crate) fn revocation_reader() -> RevocationReader {
    Batcher::new(read)
}

fn read(store: DynStore, questions: Vec<Question>) -> Answers<std::result::Result<bool, String>> {
    Box::pin(async move {
        let mut by_realm: HashMap<&RealmId, Vec<&str>> = HashMap::new();
        for (realm, jti) in &questions {
            by_realm.entry(realm).or_default().push(jti);
        }
        let mut revoked: HashMap<&RealmId, std::result::Result<HashSet<String>, String>> =
            HashMap::new();
        for (realm, jtis) in by_realm {
            let found = store
                .revoked_among(realm, &jtis)
                .await
                .map(|r| r.into_iter().collect())
                .map_err(|e| e.to_string());
            revoked.insert(realm, found);
        }
        questions
            .iter()
            .map(|(realm, jti)| match &revoked[realm] {
                Ok(set) => Ok(set.contains(jti)),
                Err(e) => Err(e.clone()),
            })
            .collect()
    })
}

impl Core {
    /// Whether the token `jti` of the realm is revoked, read now (in a batch with concurrent
    /// checks).
    ///
    /// # Errors
    /// The database could not be read.
    pub(crate) async fn is_revoked(&self, realm_id: &RealmId, jti: &str) -> Result<bool> {
        let question = (realm_id.clone(), jti.to_owned());
        match self.revocations.run(&self.store, question).await {
            Handed::Done(answer) => {
                answer.map_err(|e| Error::Internal(format!("revocations: {e}")))
            }
            // No reader (its runtime is gone): read it here.
            Handed::Refused(_) | Handed::Lost => {
                Ok(self.store.is_token_revoked(realm_id, jti).await?)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::core::{Core, CoreConfig};
    use crate::storage::Database;

    /// Concurrent checks each get their own token's answer, whatever batches the reader makes
    /// of them, and a revocation committed before a check is always seen by it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn each_concurrent_check_gets_its_own_answer() {
        let dir = tempfile::tempdir().expect("tempdir");
        let url = format!("sqlite://{}", dir.path().join("revoked.db").display());
        let db = Database::connect(&url, 4).await.expect("connect sqlite");
        db.migrate().await.expect("migrate");
        let core = Core::new(db.store(), CoreConfig::default());
        core.ensure_default_realm().await.expect("default realm");
        let realm = core.find_realm("default").await.expect("realm");
        let event = |jti: &str| {
            core.event(
                &realm.id,
                "bench-client",
                crate::audit::action::TOKEN_REVOKE,
                crate::audit::AuditSubject::Token(jti.to_owned()),
                &crate::audit::RequestMeta::default(),
            )
        };
        for i in (0..300).step_by(3) {
            let jti = format!("jti-{i}");
            core.store
                .insert_revoked_token(&realm.id, &jti, i64::MAX, &event(&jti))
                .await
                .expect("revoke");
        }
        let checks = (0..300).map(|i| {
            let (core, realm_id) = (core.clone(), realm.id.clone());
            tokio::spawn(async move {
                let revoked = core
                    .is_revoked(&realm_id, &format!("jti-{i}"))
                    .await
                    .expect("read");
                assert_eq!(revoked, i % 3 == 0, "jti-{i}");
                // Revoked now: the next check sees it.
                let jti = format!("jti-{i}");
                core.store
                    .insert_revoked_token(
                        &realm_id,
                        &jti,
                        i64::MAX,
                        &core.event(
                            &realm_id,
                            "bench-client",
                            crate::audit::action::TOKEN_REVOKE,
                            crate::audit::AuditSubject::Token(jti.clone()),
                            &crate::audit::RequestMeta::default(),
                        ),
                    )
                    .await
                    .expect("revoke");
                assert!(
                    core.is_revoked(&realm_id, &jti).await.expect("read"),
                    "{jti} after revoking"
                );
            })
        });
        for check in checks.collect::<Vec<_>>() {
            check.await.expect("join");
        }
    }
}
