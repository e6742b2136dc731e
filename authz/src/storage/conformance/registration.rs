//! Self-registered clients: registration with a secret and a registration access token, the
//! review queue and its decisions, updates that go back to review or renew the secret,
//! initial access tokens, and the sweep for unused clients.
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

/// The review inbox: one state across every realm or one, by registration kind and search,
/// paged by key in both orders; admin-registered clients never appear; counts per state.
pub(super) async fn review_inbox(db: &Database) {
    use crate::clients::{InboxCursor, InboxFilter};
    let store = db.store();
    let (one, two) = (
        given_realm(&store, "default").await,
        given_realm(&store, "other").await,
    );
    let mut n = 0;
    let mut register = |realm: &crate::realms::Realm, name: &str, kind, review, at: i64| {
        n += 1;
        let mut c = client(&realm.id, &format!("{}-{n}", name.replace(' ', "-")));
        c.name = name.to_owned();
        c.registration = Registration {
            kind,
            review,
            ..Registration::admin()
        };
        c.created_at = at;
        c.updated_at = at;
        c
    };
    let mut clients = Vec::new();
    // Seven pending across two realms, two sharing one registration time (ties break by id).
    for (realm, name, kind, at) in [
        (&one, "VS Code", RegistrationKind::Dynamic, 10),
        (&two, "Claude Code", RegistrationKind::MetadataDocument, 20),
        (&one, "Cursor", RegistrationKind::Dynamic, 30),
        (&two, "Codex", RegistrationKind::Dynamic, 30),
        (&one, "Inspector", RegistrationKind::MetadataDocument, 40),
        (&two, "Gemini CLI", RegistrationKind::Dynamic, 50),
        (&one, "ChatGPT connector", RegistrationKind::Dynamic, 60),
    ] {
        clients.push(register(realm, name, kind, ReviewState::Pending, at));
    }
    clients.push(register(
        &two,
        "Old approved",
        RegistrationKind::Dynamic,
        ReviewState::Approved,
        5,
    ));
    // An administrator's client is never reviewed, whatever its state says.
    clients.push(register(
        &one,
        "Admin made",
        RegistrationKind::Admin,
        ReviewState::Pending,
        70,
    ));
    for c in &clients {
        store
            .insert_registered_client(
                c,
                None,
                format!("rat-{}", c.client_id).as_bytes(),
                None,
                &event(
                    &c.realm_id,
                    "client.register",
                    "registration",
                    "client:x",
                    1,
                ),
            )
            .await
            .expect("register");
    }
    let filter = |realm: Option<&crate::realms::Realm>| InboxFilter {
        state: ReviewState::Pending,
        realm_id: realm.map(|r| r.id.clone()),
        kind: None,
        search: None,
        signal: None,
        order: crate::clients::InboxOrder::Newest,
    };
    let names = |page: &[crate::clients::Client]| -> Vec<String> {
        page.iter().map(|c| c.name.clone()).collect()
    };
    // Every realm, newest first, three at a time: every pending client once, in order.
    let mut seen = Vec::new();
    let mut after: Option<InboxCursor> = None;
    loop {
        let page = store
            .list_review_inbox(&filter(None), after.as_ref(), 3)
            .await
            .expect("inbox");
        seen.extend(names(&page));
        match page.last() {
            Some(last) if page.len() == 3 => {
                after = Some(InboxCursor {
                    risk: None,
                    created_at: last.created_at,
                    id: last.id.to_string(),
                });
            }
            _ => break,
        }
    }
    assert_eq!(seen.len(), 7, "{seen:?}");
    assert_eq!(seen[0], "ChatGPT connector");
    assert_eq!(seen[6], "VS Code");
    let mut tie = vec![seen[3].clone(), seen[4].clone()];
    tie.sort();
    assert_eq!(
        tie,
        ["Codex", "Cursor"],
        "the tie is on one page or split, never lost"
    );
    // Oldest first, across the tie.
    let oldest = InboxFilter {
        order: crate::clients::InboxOrder::Oldest,
        ..filter(None)
    };
    let first = store
        .list_review_inbox(&oldest, None, 3)
        .await
        .expect("inbox");
    assert_eq!(names(&first)[..2], ["VS Code", "Claude Code"]);
    let last = first.last().expect("three");
    let rest = store
        .list_review_inbox(
            &oldest,
            Some(&InboxCursor {
                risk: None,
                created_at: last.created_at,
                id: last.id.to_string(),
            }),
            10,
        )
        .await
        .expect("inbox");
    assert_eq!(rest.len(), 4, "{:?}", names(&rest));
    assert_eq!(rest[3].name, "ChatGPT connector");
    // One realm; one kind; a search (three characters or more: the trigram index; fewer: LIKE).
    let other_only = store
        .list_review_inbox(&filter(Some(&two)), None, 10)
        .await
        .expect("inbox");
    assert_eq!(names(&other_only), ["Gemini CLI", "Codex", "Claude Code"]);
    let documents = store
        .list_review_inbox(
            &InboxFilter {
                kind: Some(RegistrationKind::MetadataDocument),
                ..filter(None)
            },
            None,
            10,
        )
        .await
        .expect("inbox");
    assert_eq!(names(&documents), ["Inspector", "Claude Code"]);
    for (q, expected) in [
        ("code", vec!["Codex", "Claude Code", "VS Code"]),
        ("cu", vec!["Cursor"]),
    ] {
        let found = store
            .list_review_inbox(
                &InboxFilter {
                    search: Some(q.to_owned()),
                    ..filter(None)
                },
                None,
                10,
            )
            .await
            .expect("inbox");
        assert_eq!(names(&found), expected, "search {q}");
    }
    // Counts per state for the inbox's filters (its state aside): the tabs follow a search.
    let mut found = store
        .count_review_inbox(&InboxFilter {
            search: Some("code".to_owned()),
            ..filter(None)
        })
        .await
        .expect("counts");
    found.sort();
    assert_eq!(found, [("pending".to_owned(), 3)]);
    let mut other_realm = store
        .count_review_inbox(&filter(Some(&two)))
        .await
        .expect("counts");
    other_realm.sort();
    assert_eq!(
        other_realm,
        [("approved".to_owned(), 1), ("pending".to_owned(), 3)]
    );
    // Counts per state, every realm or one; the administrator's client is not counted.
    let mut all = store.count_review_states(None).await.expect("counts");
    all.sort();
    assert_eq!(all, [("approved".to_owned(), 1), ("pending".to_owned(), 7)]);
    let mut other = store
        .count_review_states(Some(&two.id))
        .await
        .expect("counts");
    other.sort();
    assert_eq!(
        other,
        [("approved".to_owned(), 1), ("pending".to_owned(), 3)]
    );
}

pub(super) async fn rejected_clients_by_contact(db: &Database) {
    let store = db.store();
    let (one, two) = (
        given_realm(&store, "default").await,
        given_realm(&store, "other").await,
    );
    let register = |realm: &crate::realms::Realm, id: &str, contacts: &[&str], review, at| {
        let mut c = client(&realm.id, id);
        c.metadata.contacts = contacts.iter().map(|s| (*s).to_owned()).collect();
        c.registration = Registration {
            kind: RegistrationKind::Dynamic,
            review,
            reviewed_by: Some("rita@example.com".into()),
            review_reason: Some(format!("{id}: unknown publisher")),
            reviewed_at: Some(at),
            ..Registration::admin()
        };
        c
    };
    let clients = [
        register(
            &one,
            "older",
            &["Dev_1@Example.com"],
            ReviewState::Rejected,
            10,
        ),
        register(
            &one,
            "newer",
            &["ops@example.com", "dev_1@example.com"],
            ReviewState::Rejected,
            20,
        ),
        // Not rejected; another realm's; a look-alike address (LIKE's `_` is literal).
        register(
            &one,
            "pending",
            &["dev_1@example.com"],
            ReviewState::Pending,
            30,
        ),
        register(
            &two,
            "elsewhere",
            &["dev_1@example.com"],
            ReviewState::Rejected,
            40,
        ),
        register(
            &one,
            "lookalike",
            &["devx1@example.com"],
            ReviewState::Rejected,
            50,
        ),
        register(
            &one,
            "longer",
            &["adev_1@example.com"],
            ReviewState::Rejected,
            60,
        ),
    ];
    for c in &clients {
        store
            .insert_registered_client(
                c,
                None,
                format!("rat-{}", c.client_id).as_bytes(),
                None,
                &event(
                    &c.realm_id,
                    "client.register",
                    "registration",
                    "client:x",
                    1,
                ),
            )
            .await
            .expect("register");
    }
    let found = store
        .list_rejected_clients_mentioning(&one.id, "dev_1@example.com", 10)
        .await
        .expect("list");
    let ids: Vec<String> = found.iter().map(|c| c.client_id.to_string()).collect();
    assert_eq!(ids, ["newer", "older"], "newest decision first, any case");
    assert_eq!(
        found[0].registration.review_reason.as_deref(),
        Some("newer: unknown publisher")
    );
    let one_only = store
        .list_rejected_clients_mentioning(&one.id, "dev_1@example.com", 1)
        .await
        .expect("list");
    assert_eq!(one_only.len(), 1);
}

/// The inbox riskiest first (the score stored with each registration and change of it), paged
/// by key across equal scores, and filtered by one signal: the stored ones and the number of
/// registrations from the client's address, counted when read.
pub(super) async fn review_inbox_by_risk(db: &Database) {
    use crate::clients::{
        GrantType, InboxCursor, InboxFilter, InboxOrder, RegistrationChange, RiskSignal, risk_of,
    };
    let store = db.store();
    let realm = given_realm(&store, "default").await;
    let shaped = |name: &str, at: i64, uris: &[&str], machine: bool, ip: &str| {
        let mut c = client(&realm.id, &name.to_lowercase().replace(' ', "-"));
        c.name = name.to_owned();
        c.grant_types = if machine {
            vec![GrantType::ClientCredentials]
        } else {
            vec![GrantType::AuthorizationCode]
        };
        c.metadata.redirect_uris = uris.iter().map(|u| (*u).to_owned()).collect();
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
    let clients = [
        // score 0: loopback only
        shaped("Desktop", 10, &["http://127.0.0.1/cb"], false, "10.0.0.1"),
        // 3: a web host
        shaped(
            "Web app",
            20,
            &["https://app.example.com/cb"],
            false,
            "10.0.0.2",
        ),
        // 2: a private-use scheme
        shaped("Mobile", 30, &["com.example.app:/cb"], false, "10.0.0.2"),
        // 4: client credentials
        shaped("Nightly job", 40, &[], true, "10.0.0.2"),
        // 5: web and private-use, two of them with one registration time
        shaped(
            "Hybrid A",
            50,
            &["https://a.example.com/cb", "com.example.a:/cb"],
            false,
            "10.0.0.2",
        ),
        shaped(
            "Hybrid B",
            50,
            &["https://b.example.com/cb", "com.example.b:/cb"],
            false,
            "10.0.0.3",
        ),
    ];
    for c in &clients {
        store
            .insert_registered_client(
                c,
                None,
                format!("rat-{}", c.client_id).as_bytes(),
                None,
                &event(
                    &c.realm_id,
                    "client.register",
                    "registration",
                    "client:x",
                    1,
                ),
            )
            .await
            .expect("register");
    }
    let filter = InboxFilter {
        state: ReviewState::Pending,
        realm_id: None,
        kind: None,
        search: None,
        signal: None,
        order: InboxOrder::Riskiest,
    };
    let names = |page: &[crate::clients::Client]| -> Vec<String> {
        page.iter().map(|c| c.name.clone()).collect()
    };
    // Two at a time: every client once, riskiest first, newest first within a score.
    let mut seen = Vec::new();
    let mut after: Option<InboxCursor> = None;
    loop {
        let page = store
            .list_review_inbox(&filter, after.as_ref(), 2)
            .await
            .expect("inbox");
        seen.extend(names(&page));
        match page.last() {
            Some(last) if page.len() == 2 => {
                after = Some(InboxCursor {
                    risk: Some(risk_of(last).1),
                    created_at: last.created_at,
                    id: last.id.to_string(),
                });
            }
            _ => break,
        }
    }
    let mut hybrids = seen[..2].to_vec();
    hybrids.sort();
    assert_eq!(hybrids, ["Hybrid A", "Hybrid B"], "{seen:?}");
    assert_eq!(seen[2..], ["Nightly job", "Web app", "Mobile", "Desktop"]);
    // Each signal alone.
    for (signal, expected) in [
        (RiskSignal::WebRedirects, vec!["Web app"]),
        (RiskSignal::PrivateUse, vec!["Mobile"]),
        (RiskSignal::Machine, vec!["Nightly job"]),
        // Four from 10.0.0.2 (more than three).
        (
            RiskSignal::Crowded,
            vec!["Hybrid A", "Nightly job", "Mobile", "Web app"],
        ),
    ] {
        let found = store
            .list_review_inbox(
                &InboxFilter {
                    signal: Some(signal),
                    order: InboxOrder::Newest,
                    ..filter.clone()
                },
                None,
                10,
            )
            .await
            .expect("inbox");
        let mut found = names(&found);
        let mut expected: Vec<String> = expected.into_iter().map(str::to_owned).collect();
        if signal != RiskSignal::Crowded {
            // The hybrids show web and private-use redirects too.
            found.retain(|n| !n.starts_with("Hybrid"));
        }
        found.sort();
        expected.sort();
        assert_eq!(found, expected, "{signal:?}");
    }
    // A change of the registration scores it again: the desktop app now redirects to the web.
    let mut desktop = clients[0].clone();
    desktop.metadata.redirect_uris = vec!["https://desktop.example.com/cb".to_owned()];
    desktop.updated_at = 60;
    store
        .update_self_registration(
            &desktop,
            RegistrationChange {
                back_to_review: false,
                changed: false,
            },
            None,
            &event(
                &desktop.realm_id,
                "client.update",
                "registration",
                "client:x",
                60,
            ),
        )
        .await
        .expect("update");
    let web = store
        .list_review_inbox(
            &InboxFilter {
                signal: Some(RiskSignal::WebRedirects),
                ..filter.clone()
            },
            None,
            10,
        )
        .await
        .expect("inbox");
    assert_eq!(names(&web)[2..], ["Web app", "Desktop"]);
}

/// Clients registered before risk scores existed are scored by the migration exactly as new
/// registrations are.
pub(super) async fn upgrade_scores_registered_clients(db: &Database) {
    use crate::clients::{InboxFilter, InboxOrder, risk_of};
    super::migrate_before(db, 20270102000000).await;
    let rows = [
        "INSERT INTO realms (id, name, display_name, enabled, created_at, updated_at) VALUES ('rlm_1', 'default', 'Default', TRUE, 1, 1)",
        r#"INSERT INTO clients (id, realm_id, client_id, name, auth_method, grant_types, scope, metadata, enabled, created_at, updated_at, registration_kind, review_state) VALUES ('cli_1', 'rlm_1', 'desktop', 'Desktop', 'none', 'authorization_code refresh_token', '', '{"redirect_uris":["http://127.0.0.1/cb"]}', TRUE, 10, 10, 'dynamic', 'pending')"#,
        r#"INSERT INTO clients (id, realm_id, client_id, name, auth_method, grant_types, scope, metadata, enabled, created_at, updated_at, registration_kind, review_state) VALUES ('cli_2', 'rlm_1', 'web', 'Web app', 'none', 'authorization_code', '', '{"redirect_uris":["http://localhost/cb","https://app.example.com/cb"]}', TRUE, 20, 20, 'dynamic', 'pending')"#,
        r#"INSERT INTO clients (id, realm_id, client_id, name, auth_method, grant_types, scope, metadata, enabled, created_at, updated_at, registration_kind, review_state) VALUES ('cli_3', 'rlm_1', 'mobile', 'Mobile', 'none', 'authorization_code', '', '{"redirect_uris":["com.example.app:/cb","https://m.example.com/cb"]}', TRUE, 30, 30, 'dynamic', 'pending')"#,
        r#"INSERT INTO clients (id, realm_id, client_id, name, auth_method, grant_types, scope, metadata, enabled, created_at, updated_at, registration_kind, review_state) VALUES ('cli_4', 'rlm_1', 'job', 'Nightly job', 'client_secret_basic', 'client_credentials', '', '{}', TRUE, 40, 40, 'dynamic', 'pending')"#,
    ];
    for sql in rows {
        match db {
            Database::Sqlite(p) => sqlx::raw_sql(sql).execute(p).await.map(|_| ()),
            Database::Postgres(p) => sqlx::raw_sql(sql).execute(p).await.map(|_| ()),
        }
        .expect(sql);
    }
    db.migrate().await.expect("upgrade");
    let store = db.store();
    let page = store
        .list_review_inbox(
            &InboxFilter {
                state: ReviewState::Pending,
                realm_id: None,
                kind: None,
                search: None,
                signal: None,
                order: InboxOrder::Riskiest,
            },
            None,
            10,
        )
        .await
        .expect("inbox");
    let shown: Vec<(String, i64)> = page
        .iter()
        .map(|c| (c.name.clone(), risk_of(c).1))
        .collect();
    assert_eq!(
        shown,
        [
            ("Mobile".to_owned(), 5),
            ("Nightly job".to_owned(), 4),
            ("Web app".to_owned(), 3),
            ("Desktop".to_owned(), 0),
        ],
        "the migration's scores order them as risk_of scores them"
    );
}
