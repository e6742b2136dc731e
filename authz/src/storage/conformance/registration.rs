//! Self-registered clients: registration with a secret and a registration access token, the
//! review queue and its decisions, updates that go back to review or renew the secret,
//! initial access tokens, and the sweep for unused clients (the inbox reads: `review`).
use super::fixtures::{client, event, given_realm, resource};
use crate::clients::{
    ClientSecret, InitialToken, Registration, RegistrationChange, RegistrationKind, ReviewDecision,
    ReviewState, SecretId,
};
use crate::error::StorageError;
use crate::scope::ScopeSet;
use crate::storage::Database;

pub(super) async fn self_registration(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = |action: &'static str, at: i64| event(&r.id, action, "registration", "client:x", at);
    let pay = resource(&r.id, "payments-mcp", "https://pay.example.com/");
    store
        .insert_resource(&pay, &ev("resource.create", 4))
        .await
        .expect("resource");
    let registered = |client_id: &str, ip: &str, at: i64| {
        let mut c = client(&r.id, client_id);
        c.registration = Registration {
            kind: RegistrationKind::Dynamic,
            review: ReviewState::Pending,
            source_ip: Some(ip.to_owned()),
            ..Registration::admin()
        };
        c.created_at = at;
        c.updated_at = at;
        c
    };
    let secret =
        |c: &crate::clients::Client, hash: &[u8], at: i64, expires: Option<i64>| ClientSecret {
            id: SecretId::generate(),
            client_pk: c.id.clone(),
            secret_hash: hash.to_vec(),
            created_at: at,
            expires_at: expires,
        };
    let bot = registered("dyn-bot", "203.0.113.9", 10);
    let app = registered("dyn-app", "203.0.113.9", 20);
    store
        .insert_registered_client(
            &bot,
            Some(&secret(&bot, b"s1", 10, Some(500))),
            b"rat-hash",
            None,
            &ev("client.register", 10),
        )
        .await
        .expect("register");
    store
        .insert_registered_client(&app, None, b"rat-2", None, &ev("client.register", 20))
        .await
        .expect("register");
    assert_eq!(
        store.registration_token_hash(&bot.id).await.expect("rat"),
        Some(b"rat-hash".to_vec())
    );
    assert_eq!(store.count_registered_clients(&r.id).await.expect("n"), 2);
    assert_eq!(
        store
            .count_clients_from(&r.id, "203.0.113.9")
            .await
            .expect("n"),
        2
    );
    let queue: Vec<_> = store
        .list_clients_in_review(&r.id, ReviewState::Pending, 10)
        .await
        .expect("queue")
        .into_iter()
        .map(|c| c.client_id.to_string())
        .collect();
    assert_eq!(queue, ["dyn-app", "dyn-bot"], "newest first");

    // A decision on a version the reviewer did not see, or from the wrong state, writes nothing.
    let decide = |from, to, seen, grants: Vec<_>| ReviewDecision {
        from,
        to,
        by: "rev@x.io".into(),
        reason: "checked".into(),
        at: 30,
        seen,
        grants,
    };
    let full = ScopeSet::parse("tools:call").expect("valid");
    for stale in [
        decide(ReviewState::Pending, ReviewState::Approved, Some(9), vec![]),
        decide(ReviewState::Approved, ReviewState::Revoked, None, vec![]),
    ] {
        let err = store
            .set_client_review(&bot.id, &stale, &ev("client.approve", 30))
            .await
            .expect_err("stale");
        assert!(matches!(err, StorageError::NotFound), "{err:?}");
    }
    // Approval writes the reviewer's grants with it.
    store
        .set_client_review(
            &bot.id,
            &decide(
                ReviewState::Pending,
                ReviewState::Approved,
                Some(10),
                vec![(pay.id.clone(), full.clone())],
            ),
            &ev("client.approve", 30),
        )
        .await
        .expect("approve");
    let stored = store
        .find_client(&r.id, &bot.client_id)
        .await
        .expect("find")
        .expect("client");
    assert_eq!(stored.registration.review, ReviewState::Approved);
    assert_eq!(stored.registration.reviewed_by.as_deref(), Some("rev@x.io"));
    assert_eq!(stored.updated_at, 30);
    let grants = store.list_client_grants(&bot.id).await.expect("grants");
    assert_eq!(grants.len(), 1);
    assert_eq!(
        (grants[0].resource.clone(), grants[0].scopes.clone()),
        (pay.id.clone(), full)
    );

    // An update that renews the secret adds it and ends the old one at the time given.
    let mut changed = stored.clone();
    changed.name = "Renamed".into();
    changed.updated_at = 40;
    let renewed = secret(&bot, b"s2", 40, Some(900));
    store
        .update_self_registration(
            &changed,
            RegistrationChange {
                changed: true,
                back_to_review: true,
            },
            Some((&renewed, 100)),
            &ev("client.registration_update", 40),
        )
        .await
        .expect("update");
    let secrets = store.list_client_secrets(&bot.id).await.expect("secrets");
    let ends: Vec<_> = secrets
        .iter()
        .map(|s| (s.secret_hash.clone(), s.expires_at))
        .collect();
    assert_eq!(
        ends,
        [(b"s2".to_vec(), Some(900)), (b"s1".to_vec(), Some(100))]
    );
    let stored = store
        .find_client(&r.id, &bot.client_id)
        .await
        .expect("find")
        .expect("client");
    assert_eq!(
        (stored.name.as_str(), stored.registration.review),
        ("Renamed", ReviewState::Pending),
        "back to review with the change"
    );

    // Initial access tokens: used while uses are left and before expiry, in their realm only.
    store
        .insert_initial_token(
            &InitialToken {
                token_hash: b"iat".to_vec(),
                realm_id: r.id.clone(),
                label: "CI".into(),
                created_by: "a@x.io".into(),
                created_at: 1,
                expires_at: 100,
                uses: 1,
            },
            &ev("registration.initial_token", 1),
        )
        .await
        .expect("iat");
    let other = given_realm(&store, "other").await;
    let usable = |realm: crate::realms::RealmId, now: i64| {
        let store = store.clone();
        async move {
            store
                .find_initial_token(&realm, b"iat", now)
                .await
                .expect("find")
                .map(|t| (t.label, t.uses))
        }
    };
    assert_eq!(usable(other.id.clone(), 2).await, None, "its realm only");
    assert_eq!(usable(r.id.clone(), 100).await, None, "expired");
    assert_eq!(usable(r.id.clone(), 2).await, Some(("CI".to_owned(), 1)));
    // A registration spends a use in the write that stores the client; once used up, a
    // registration with it writes nothing.
    let first = registered("iat-one", "203.0.113.7", 2);
    store
        .insert_registered_client(
            &first,
            None,
            b"rat-3",
            Some((b"iat", 2)),
            &ev("client.register", 2),
        )
        .await
        .expect("spends the token");
    assert_eq!(usable(r.id.clone(), 3).await, None, "used up");
    let second = registered("iat-two", "203.0.113.7", 3);
    assert!(matches!(
        store
            .insert_registered_client(
                &second,
                None,
                b"rat-4",
                Some((b"iat", 3)),
                &ev("client.register", 3)
            )
            .await,
        Err(StorageError::Precondition(
            crate::storage::INITIAL_TOKEN_SPENT
        ))
    ));
    assert_eq!(
        store
            .find_client(&r.id, &second.client_id)
            .await
            .expect("find"),
        None,
        "nothing written"
    );
    store
        .delete_client(&first.id, &ev("client.delete", 4))
        .await
        .expect("delete");

    // The sweep finds clients idle for the realm's lifetime (2_592_000 s in the fixture):
    // by their last change and last token, dynamic ones only.
    let day = 86_400;
    let unused = |now| {
        let store = &store;
        async move {
            let mut ids: Vec<_> = store
                .list_unused_clients(now, 10)
                .await
                .expect("unused")
                .into_iter()
                .map(|c| c.client_id.to_string())
                .collect();
            ids.sort();
            ids
        }
    };
    assert!(unused(2_592_000).await.is_empty(), "not yet");
    assert_eq!(unused(2_592_000 + 21).await, ["dyn-app"]);
    store
        .record_grant_use(&[(app.id.clone(), pay.id.clone(), 31 * day)])
        .await
        .expect("use");
    assert_eq!(unused(31 * day).await, ["dyn-bot"], "a token counts as use");
    let mut admin_made = client(&r.id, "by-admin");
    admin_made.updated_at = 1;
    store
        .insert_client(&admin_made, None, &ev("client.create", 1))
        .await
        .expect("admin client");
    assert_eq!(
        unused(62 * day).await,
        ["dyn-app", "dyn-bot"],
        "admin clients stay"
    );
    // Expired: no longer counted against the realm's limit.
    store
        .set_client_review(
            &app.id,
            &ReviewDecision {
                by: "system".into(),
                ..decide(ReviewState::Approved, ReviewState::Expired, None, vec![])
            },
            &ev("client.expire", 62 * day),
        )
        .await
        .expect_err("app is still pending");
    store
        .set_client_review(
            &app.id,
            &decide(ReviewState::Pending, ReviewState::Expired, None, vec![]),
            &ev("client.expire", 62 * day),
        )
        .await
        .expect("expire");
    assert_eq!(store.count_registered_clients(&r.id).await.expect("n"), 1);
    assert_eq!(unused(62 * day).await, ["dyn-bot"], "expired once");
}
