//! The review desk's reads: the inbox across realms (by kind, search, age and risk), its
//! counts, rejected clients by contact, and the risk scores of clients registered before them.
use super::fixtures::{client, event, given_realm};
use crate::clients::{Registration, RegistrationKind, ReviewState};
use crate::storage::Database;

/// The review inbox: one state across every realm or one, by registration kind and search,
/// paged by key in both orders; admin-registered clients never appear; counts per state.
/// Stores `clients` as self-registered (each with its registration token and audit row).
async fn register_all(store: &crate::storage::DynStore, clients: &[crate::clients::Client]) {
    for c in clients {
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
}

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
    register_all(&store, &clients).await;
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
    register_all(&store, &clients).await;
    let found = store
        .list_rejected_clients_mentioning(&one.id, "dev_1@example.com", 0, 10)
        .await
        .expect("list");
    let ids: Vec<String> = found.iter().map(|c| c.client_id.to_string()).collect();
    assert_eq!(ids, ["newer", "older"], "newest decision first, any case");
    // Only decisions from `since` on.
    let recent = store
        .list_rejected_clients_mentioning(&one.id, "dev_1@example.com", 11, 10)
        .await
        .expect("list");
    let ids: Vec<String> = recent.iter().map(|c| c.client_id.to_string()).collect();
    assert_eq!(ids, ["newer"], "the older decision is outside the window");
    assert_eq!(
        found[0].registration.review_reason.as_deref(),
        Some("newer: unknown publisher")
    );
    let one_only = store
        .list_rejected_clients_mentioning(&one.id, "dev_1@example.com", 0, 1)
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
    register_all(&store, &clients).await;
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
