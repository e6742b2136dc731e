use super::fixtures::{audit_count, event, given_realm};
use crate::audit::{AuditCursor, AuditFilter, AuditWindow, Outcome};
use crate::storage::Database;

pub(super) async fn audit(db: &Database) {
    let store = db.store();
    let a = given_realm(&store, "default").await;
    let b = super::fixtures::realm("payments");
    store
        .insert_realm(
            &b,
            &event(
                &b.id,
                "realm.create",
                "Ada@Example.com",
                "realm:payments",
                200,
            ),
        )
        .await
        .expect("realm");
    let mut failed = event(
        &a.id,
        "session.login",
        "eve@example.com",
        "user:unknown",
        300,
    );
    failed.outcome = Outcome::Failure;
    store.insert_audit_event(&failed).await.expect("insert");
    store
        .insert_audit_event(&event(
            &a.id,
            "session.login",
            "ada@example.com",
            "user:usr_1",
            400,
        ))
        .await
        .expect("insert");

    let all = store
        .list_audit_events(
            &AuditFilter::default(),
            AuditWindow::page(AuditCursor::Newest, 10),
        )
        .await
        .expect("list");
    assert_eq!((all.total, all.total_exact), (4, true));
    assert!(!all.newer && !all.older, "one page holds everything");
    let times: Vec<_> = all.items.iter().map(|e| e.occurred_at).collect();
    assert_eq!(times, [400, 300, 200, 1], "newest first");
    let e = &all.items[1];
    assert_eq!(
        (e.realm.as_str(), e.outcome, e.action.as_str()),
        ("default", Outcome::Failure, "session.login")
    );
    assert_eq!(e.request_id.as_deref(), Some("req-1"));
    assert_eq!(e.client_ip.as_deref(), Some("127.0.0.1"));
    assert_eq!(e.details, serde_json::json!({"k": "v"}));

    let count = |f: AuditFilter| {
        let store = store.clone();
        async move {
            store
                .list_audit_events(&f, AuditWindow::page(AuditCursor::Newest, 10))
                .await
                .expect("list")
                .total
        }
    };
    let action = Some("session.login".to_owned());
    assert_eq!(
        count(AuditFilter {
            action,
            ..Default::default()
        })
        .await,
        2
    );
    let actor = Some("ADA@".to_owned());
    assert_eq!(
        count(AuditFilter {
            actor,
            ..Default::default()
        })
        .await,
        2
    );
    let target = Some("payments".to_owned());
    assert_eq!(
        count(AuditFilter {
            target,
            ..Default::default()
        })
        .await,
        1
    );
    let exact = |t: &str| AuditFilter {
        target_is: Some(t.to_owned()),
        ..Default::default()
    };
    assert_eq!(count(exact("user:usr_1")).await, 1, "exactly that target");
    assert_eq!(count(exact("user:usr")).await, 0, "not a prefix");
    let realm_id = Some(b.id.clone());
    assert_eq!(
        count(AuditFilter {
            realm_id,
            ..Default::default()
        })
        .await,
        1
    );
    let (from, to) = (Some(200), Some(400));
    assert_eq!(
        count(AuditFilter {
            from,
            to,
            ..Default::default()
        })
        .await,
        2
    );
    // Paging by id: three, then the one below, then back up to the same three.
    let window = |cursor| AuditWindow::page(cursor, 3);
    let top = store
        .list_audit_events(&AuditFilter::default(), window(AuditCursor::Newest))
        .await
        .expect("list");
    let ids = |s: &crate::audit::AuditSlice| s.items.iter().map(|e| e.id).collect::<Vec<_>>();
    assert_eq!((top.items.len(), top.newer, top.older), (3, false, true));
    let last = *ids(&top).last().expect("rows");
    let below = store
        .list_audit_events(&AuditFilter::default(), window(AuditCursor::Before(last)))
        .await
        .expect("list");
    assert_eq!(
        (below.items.len(), below.newer, below.older),
        (1, true, false)
    );
    assert_eq!(
        below.total, 4,
        "the count covers the whole log, not the page"
    );
    assert!(below.items[0].id < last);
    let above = store
        .list_audit_events(
            &AuditFilter::default(),
            window(AuditCursor::After(below.items[0].id)),
        )
        .await
        .expect("list");
    assert_eq!(
        ids(&above),
        ids(&top),
        "newest first, the same page as before"
    );
    assert_eq!((above.newer, above.older), (false, true));
    let above_one = store
        .list_audit_events(
            &AuditFilter::default(),
            AuditWindow::page(AuditCursor::After(below.items[0].id), 1),
        )
        .await
        .expect("list");
    assert_eq!(ids(&above_one), [last], "the nearest newer event");
    assert!(above_one.newer && above_one.older);
    // A made-up cursor past either end says there is nothing beyond it.
    let past_top = store
        .list_audit_events(
            &AuditFilter::default(),
            window(AuditCursor::Before(i64::MAX)),
        )
        .await
        .expect("list");
    assert_eq!(ids(&past_top), ids(&top));
    assert_eq!((past_top.newer, past_top.older), (false, true));
    let past_bottom = store
        .list_audit_events(&AuditFilter::default(), window(AuditCursor::After(0)))
        .await
        .expect("list");
    assert_eq!((past_bottom.newer, past_bottom.older), (true, false));
    // The filter applies to the cursor's pages too.
    let logins = AuditFilter {
        action: Some("session.login".to_owned()),
        ..Default::default()
    };
    let first = store
        .list_audit_events(&logins, AuditWindow::page(AuditCursor::Newest, 1))
        .await
        .expect("list");
    let next = store
        .list_audit_events(
            &logins,
            AuditWindow::page(AuditCursor::Before(first.items[0].id), 1),
        )
        .await
        .expect("list");
    assert_eq!(next.items[0].action, "session.login");
    assert_eq!((next.older, next.total), (false, 2));
    // Counting stops at the bound.
    let capped = store
        .list_audit_events(
            &AuditFilter::default(),
            AuditWindow {
                cursor: AuditCursor::Newest,
                limit: 1,
                count_up_to: 2,
            },
        )
        .await
        .expect("list");
    assert_eq!((capped.total, capped.total_exact), (2, false));
    let exact = store
        .list_audit_events(
            &AuditFilter::default(),
            AuditWindow {
                cursor: AuditCursor::Newest,
                limit: 1,
                count_up_to: 4,
            },
        )
        .await
        .expect("list");
    assert_eq!((exact.total, exact.total_exact), (4, true));
    assert!(store.ping().await.is_ok());
}

/// Raw SQL that tries to rewrite history must fail on both backends (and `TRUNCATE` on
/// PostgreSQL, which SQLite does not have).
pub(super) async fn append_only(db: &Database) {
    let store = db.store();
    given_realm(&store, "default").await;
    let refused = |e: Option<sqlx::Error>, what: &str| {
        let e = e
            .unwrap_or_else(|| panic!("{what} must be refused"))
            .to_string();
        assert!(e.contains("append-only"), "{what}: {e}");
    };
    match db {
        Database::Sqlite(p) => {
            refused(
                sqlx::query("UPDATE audit_events SET actor = 'mallory'")
                    .execute(p)
                    .await
                    .err(),
                "UPDATE",
            );
            refused(
                sqlx::query("DELETE FROM audit_events")
                    .execute(p)
                    .await
                    .err(),
                "DELETE",
            );
            refused(
                sqlx::query(
                    "INSERT OR REPLACE INTO audit_events (id, realm_id, occurred_at, actor, action, target, outcome, details) SELECT id, realm_id, occurred_at, 'mallory', action, target, outcome, details FROM audit_events",
                )
                .execute(p)
                .await
                .err(),
                "INSERT OR REPLACE",
            );
        }
        Database::Postgres(p) => {
            refused(
                sqlx::query("UPDATE audit_events SET actor = 'mallory'")
                    .execute(p)
                    .await
                    .err(),
                "UPDATE",
            );
            refused(
                sqlx::query("DELETE FROM audit_events")
                    .execute(p)
                    .await
                    .err(),
                "DELETE",
            );
            refused(
                sqlx::query("TRUNCATE audit_events").execute(p).await.err(),
                "TRUNCATE",
            );
            refused(
                sqlx::query(
                    "INSERT INTO audit_events (id, realm_id, occurred_at, actor, action, target, outcome, details) OVERRIDING SYSTEM VALUE SELECT id, realm_id, occurred_at, 'mallory', action, target, outcome, details FROM audit_events ON CONFLICT (id) DO UPDATE SET actor = 'mallory'",
                )
                .execute(p)
                .await
                .err(),
                "upsert",
            );
        }
    }
    assert_eq!(audit_count(&store).await, 1);
}
