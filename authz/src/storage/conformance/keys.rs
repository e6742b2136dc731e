use super::fixtures::{event, given_realm, stored_key};
use crate::core::{Core, CoreConfig};
use crate::error::StorageError;
use crate::keys::{KeyState, SigningAlg};
use crate::storage::Database;

pub(super) async fn keys(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = |at| event(&r.id, "key.rotate", "system", "realm:default", at);
    store
        .insert_signing_key_pair(
            &stored_key(&r.id, "k1", KeyState::Active, 10),
            &stored_key(&r.id, "k2", KeyState::Next, 10),
            &ev(10),
        )
        .await
        .expect("pair");
    store
        .rotate_signing_keys(
            &r.id,
            SigningAlg::ES256,
            &stored_key(&r.id, "k3", KeyState::Next, 20),
            500,
            &ev(20),
        )
        .await
        .expect("rotate");
    let keys = store.list_signing_keys(&r.id).await.expect("list");
    let state = |kid: &str| {
        keys.iter()
            .find(|k| k.kid == kid)
            .map(|k| (k.state, k.publish_until, k.activated_at))
    };
    assert_eq!(state("k1"), Some((KeyState::Retired, Some(500), Some(10))));
    assert_eq!(state("k2"), Some((KeyState::Active, None, Some(20))));
    assert_eq!(state("k3"), Some((KeyState::Next, None, None)));
    assert_eq!(keys[0].kid, "k3", "newest first");
    assert_eq!(keys[0].sealed_private_key, vec![1, 2, 3]);
    // Without a next key of that algorithm nothing changes.
    let err = store
        .rotate_signing_keys(
            &r.id,
            SigningAlg::RS256,
            &stored_key(&r.id, "k4", KeyState::Next, 30),
            600,
            &ev(30),
        )
        .await
        .expect_err("no RS256 keys");
    assert!(matches!(err, StorageError::NotFound), "{err:?}");
    assert_eq!(store.list_signing_keys(&r.id).await.expect("list").len(), 3);
}

pub(super) async fn one_active_and_one_next_key(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = || event(&r.id, "key.create", "system", "key", 10);
    store
        .insert_signing_key_pair(
            &stored_key(&r.id, "a1", KeyState::Active, 10),
            &stored_key(&r.id, "n1", KeyState::Next, 10),
            &ev(),
        )
        .await
        .expect("first pair");
    let err = store
        .insert_signing_key_pair(
            &stored_key(&r.id, "a2", KeyState::Active, 11),
            &stored_key(&r.id, "n2", KeyState::Next, 11),
            &ev(),
        )
        .await
        .expect_err("a second active key");
    assert!(matches!(err, StorageError::Conflict(_)), "{err:?}");
    let kids: Vec<_> = store
        .list_signing_keys(&r.id)
        .await
        .expect("list")
        .into_iter()
        .map(|k| k.kid)
        .collect();
    assert_eq!(
        kids.len(),
        2,
        "nothing of the second pair was written: {kids:?}"
    );
    // Another algorithm has its own pair.
    let mut rsa_active = stored_key(&r.id, "ra", KeyState::Active, 12);
    let mut rsa_next = stored_key(&r.id, "rn", KeyState::Next, 12);
    rsa_active.alg = SigningAlg::RS256;
    rsa_next.alg = SigningAlg::RS256;
    store
        .insert_signing_key_pair(&rsa_active, &rsa_next, &ev())
        .await
        .expect("RS256 pair");
}

/// Two instances (two cores on one database) and several requests each need the realm's first
/// key pair at the same moment: one pair results, every request is served with it, and
/// rotation works afterwards.
pub(super) async fn concurrent_first_use_makes_one_pair(db: &Database) {
    let a = Core::new(db.store(), CoreConfig::default());
    let master = a.config().master_key.clone();
    let b = Core::new(
        db.store(),
        CoreConfig {
            master_key: master,
            ..CoreConfig::default()
        },
    );
    a.ensure_default_realm().await.expect("realm");
    let mut tasks = Vec::new();
    for core in [
        a.clone(),
        b.clone(),
        a.clone(),
        b.clone(),
        a.clone(),
        b.clone(),
    ] {
        tasks.push(tokio::spawn(async move { core.jwks("default").await }));
    }
    let mut published = Vec::new();
    for t in tasks {
        published.push(t.await.expect("task").expect("jwks"));
    }
    let realm = a.admin_realm().await.expect("realm");
    let keys = a.store.list_signing_keys(&realm.id).await.expect("list");
    let count = |s: KeyState| {
        keys.iter()
            .filter(|k| k.state == s && k.alg == SigningAlg::ES256)
            .count()
    };
    assert_eq!(
        (count(KeyState::Active), count(KeyState::Next)),
        (1, 1),
        "{keys:?}"
    );
    for jwks in &published {
        assert_eq!(jwks["keys"].as_array().map(Vec::len), Some(2), "{jwks}");
    }
    let p = crate::policy::Principal::cli();
    let activated = b
        .rotate_signing_keys(&p, "default", &crate::audit::RequestMeta::default())
        .await
        .expect("rotate");
    assert_eq!(activated.len(), 1);
}
