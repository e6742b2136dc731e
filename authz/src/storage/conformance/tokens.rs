use super::fixtures::{event, given_realm};
use crate::clients::ClientId;
use crate::storage::{Database, Purged};

pub(super) async fn assertions_and_revocations(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = || event(&r.id, "token.revoke", "bot", "token:x", 2);
    let (bot, other) = (
        ClientId::parse("bot-client").expect("valid"),
        ClientId::parse("other").expect("valid"),
    );
    assert!(
        store
            .consume_assertion_jti(&r.id, &bot, "j1", 100)
            .await
            .expect("jti")
    );
    assert!(
        !store
            .consume_assertion_jti(&r.id, &bot, "j1", 100)
            .await
            .expect("jti"),
        "replay"
    );
    assert!(
        store
            .consume_assertion_jti(&r.id, &other, "j1", 100)
            .await
            .expect("jti"),
        "per client"
    );

    assert!(!store.is_token_revoked(&r.id, "jti-1").await.expect("check"));
    store
        .insert_revoked_token(&r.id, "jti-1", 900, &ev())
        .await
        .expect("revoke");
    store
        .insert_revoked_token(&r.id, "jti-1", 900, &ev())
        .await
        .expect("idempotent");
    store
        .insert_revoked_token(&r.id, "jti-2", 50, &ev())
        .await
        .expect("revoke");
    assert!(store.is_token_revoked(&r.id, "jti-1").await.expect("check"));
    assert!(!store.is_token_revoked(&r.id, "jti-3").await.expect("check"));
    let mut among = store
        .revoked_among(&r.id, &["jti-3", "jti-2", "jti-1", "jti-1"])
        .await
        .expect("batch check");
    among.sort();
    among.dedup();
    assert_eq!(among, ["jti-1", "jti-2"], "the revoked ones of the batch");
    assert!(
        store
            .revoked_among(&given_realm(&store, "other").await.id, &["jti-1"])
            .await
            .expect("batch check")
            .is_empty(),
        "another realm's revocations do not count"
    );
    assert!(
        store
            .revoked_among(&r.id, &[])
            .await
            .expect("empty")
            .is_empty()
    );

    // Housekeeping forgets what can no longer matter, and nothing else.
    assert_eq!(
        store.purge_expired(100).await.expect("purge"),
        Purged {
            revoked_tokens: 1,
            assertion_jtis: 2,
            flows: 0,
            clients_expired: 0,
        }
    );
    assert!(
        store.is_token_revoked(&r.id, "jti-1").await.expect("check"),
        "not expired yet"
    );
    assert!(
        !store.is_token_revoked(&r.id, "jti-2").await.expect("check"),
        "expired: forgotten"
    );
    assert!(
        store
            .consume_assertion_jti(&r.id, &bot, "j1", 200)
            .await
            .expect("jti"),
        "forgotten jti"
    );
    assert_eq!(
        store.purge_expired(100).await.expect("purge"),
        Purged::default()
    );
}

/// Committed changes bump the generation (which invalidates cached reads); reads and refused
/// changes do not.
pub(super) async fn commits_bump_the_generation(db: &Database) {
    let store = db.store();
    let g0 = store.generation();
    let r = given_realm(&store, "default").await;
    let g1 = store.generation();
    assert!(g1 > g0);
    store.list_realms().await.expect("list");
    let dup = super::fixtures::realm("default");
    let _ = store
        .insert_realm(&dup, &event(&dup.id, "realm.create", "x", "r", 2))
        .await;
    assert_eq!(store.generation(), g1, "reads and refused writes leave it");
    let mut changed = r.clone();
    changed.display_name = "Changed".into();
    store
        .update_realm(&changed, &event(&r.id, "realm.update", "x", "r", 3))
        .await
        .expect("update");
    assert!(store.generation() > g1);
}
