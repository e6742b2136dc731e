use super::fixtures::{event, given_realm, resource};
use crate::error::StorageError;
use crate::ids::{RealmId, ResourceId};
use crate::resources::{Resource, ResourceUri};
use crate::scope::ScopeSet;
use crate::storage::{Database, SubmissionLimits, TOO_MANY_IN_REALM, TOO_MANY_OF_YOURS};

/// Six submissions by one developer at once, three allowed: exactly three are stored, and the
/// realm's limit holds as well.
pub(super) async fn submissions_are_bounded_in_the_transaction(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let submission = |by: &str, i: usize| Resource {
        enabled: false,
        submitted_by: Some(by.to_owned()),
        ..resource(
            &r.id,
            &format!("s{i}"),
            &format!("https://s{i}.example.com/mcp"),
        )
    };
    let limits = SubmissionLimits {
        per_person: 3,
        per_realm: 4,
    };
    let tasks: Vec<_> = (0..6)
        .map(|i| {
            let (s, sub) = (db.store(), submission("dev@x.io", i));
            let ev = event(&r.id, "resource.submit", "dev@x.io", "resource:s", 2);
            tokio::spawn(async move { s.insert_submission(&sub, limits, &ev).await })
        })
        .collect();
    let mut stored = 0;
    for t in tasks {
        match t.await.expect("task") {
            Ok(()) => stored += 1,
            Err(StorageError::Precondition(TOO_MANY_OF_YOURS)) => {}
            Err(e) => panic!("{e:?}"),
        }
    }
    assert_eq!(stored, 3);
    let ev = || event(&r.id, "resource.submit", "other@x.io", "resource:s", 2);
    store
        .insert_submission(&submission("other@x.io", 10), limits, &ev())
        .await
        .expect("the realm's fourth");
    assert!(matches!(
        store
            .insert_submission(&submission("third@x.io", 11), limits, &ev())
            .await,
        Err(StorageError::Precondition(TOO_MANY_IN_REALM))
    ));
    // An admin's own resources are not submissions and do not count.
    store
        .insert_resource(
            &resource(&r.id, "live", "https://live.example.com/mcp"),
            &ev(),
        )
        .await
        .expect("insert");
    let waiting = store
        .list_resources(&r.id)
        .await
        .expect("list")
        .into_iter()
        .filter(|r| r.submitted_by.is_some())
        .count();
    assert_eq!(waiting, 4);
}

pub(super) async fn resources(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = || event(&r.id, "resource.create", "a@x.io", "resource:x", 2);
    let pay = resource(&r.id, "payments-mcp", "https://pay.example.com/mcp");
    store.insert_resource(&pay, &ev()).await.expect("insert");
    for dup in [
        resource(&r.id, "payments-mcp", "https://other.example.com/mcp"),
        resource(&r.id, "other", "https://pay.example.com/mcp"),
    ] {
        let err = store
            .insert_resource(&dup, &ev())
            .await
            .expect_err("duplicate");
        assert!(matches!(err, StorageError::Conflict(_)), "{err:?}");
    }
    let email = resource(&r.id, "email-mcp", "https://mail.example.com/");
    store.insert_resource(&email, &ev()).await.expect("insert");
    assert_eq!(
        store
            .find_resource(&r.id, "payments-mcp")
            .await
            .expect("find"),
        Some(pay.clone())
    );
    let by_uri = store
        .find_resource_by_uri(
            &r.id,
            &ResourceUri::parse("HTTPS://PAY.example.com/mcp/", false).expect("valid"),
        )
        .await
        .expect("find");
    assert_eq!(by_uri, Some(pay.clone()));
    let slugs: Vec<_> = store
        .list_resources(&r.id)
        .await
        .expect("list")
        .into_iter()
        .map(|r| r.slug)
        .collect();
    assert_eq!(slugs, ["email-mcp", "payments-mcp"]);
    // A developer's submission: stored disabled with who submitted it, until an admin decides
    // either way.
    let submitted = Resource {
        enabled: false,
        submitted_by: Some("dev@x.io".into()),
        ..resource(&r.id, "submitted-mcp", "https://submitted.example.com/mcp")
    };
    store
        .insert_resource(
            &submitted,
            &event(
                &r.id,
                "resource.submit",
                "dev@x.io",
                "resource:submitted-mcp",
                2,
            ),
        )
        .await
        .expect("insert");
    assert_eq!(
        store
            .find_resource(&r.id, "submitted-mcp")
            .await
            .expect("find"),
        Some(submitted.clone())
    );
    // Its submitter may withdraw it only while it waits.
    assert!(matches!(
        store
            .delete_resource(&submitted.id, Some("other@x.io"), &ev())
            .await,
        Err(StorageError::NotFound)
    ));
    let withdrawn = Resource {
        enabled: false,
        submitted_by: Some("dev@x.io".into()),
        ..resource(&r.id, "withdrawn-mcp", "https://withdrawn.example.com/mcp")
    };
    store
        .insert_resource(&withdrawn, &ev())
        .await
        .expect("insert");
    // Made the realm's default by an admin, it is no longer the developer's to withdraw.
    store
        .set_default_resource(&r.id, Some(&withdrawn.id), 3, &ev())
        .await
        .expect("default");
    assert!(matches!(
        store
            .delete_resource(&withdrawn.id, Some("dev@x.io"), &ev())
            .await,
        Err(StorageError::NotFound)
    ));
    store
        .set_default_resource(&r.id, None, 4, &ev())
        .await
        .expect("no default");
    store
        .delete_resource(&withdrawn.id, Some("dev@x.io"), &ev())
        .await
        .expect("withdraw");
    assert_eq!(
        store
            .find_resource(&r.id, "withdrawn-mcp")
            .await
            .expect("find"),
        None
    );
    // Rejected once, with the reason its developer sees; an admin's enable still decides.
    store
        .reject_submission(&submitted.id, "Use the shared gateway.", 6, &ev())
        .await
        .expect("reject");
    let rejected = store
        .find_resource(&r.id, "submitted-mcp")
        .await
        .expect("find")
        .expect("kept");
    assert_eq!(
        rejected.rejection.as_deref(),
        Some("Use the shared gateway.")
    );
    assert!(rejected.submitted_by.is_some() && !rejected.waiting());
    assert!(matches!(
        store
            .reject_submission(&submitted.id, "Again.", 6, &ev())
            .await,
        Err(StorageError::NotFound)
    ));
    store
        .set_resource_enabled(&submitted.id, true, 7, &ev())
        .await
        .expect("enable");
    assert!(matches!(
        store
            .reject_submission(&submitted.id, "Too late.", 8, &ev())
            .await,
        Err(StorageError::NotFound)
    ));
    assert_eq!(
        store
            .find_resource(&r.id, "submitted-mcp")
            .await
            .expect("find"),
        Some(Resource {
            enabled: true,
            submitted_by: None,
            updated_at: 7,
            ..submitted.clone()
        })
    );
    assert!(
        matches!(
            store
                .delete_resource(&submitted.id, Some("dev@x.io"), &ev())
                .await,
            Err(StorageError::NotFound)
        ),
        "decided: no longer the developer's to withdraw"
    );
    store
        .delete_resource(&submitted.id, None, &ev())
        .await
        .expect("delete");
    let mut changed = pay.clone();
    changed.enabled = false;
    changed.signing_alg = None;
    changed.scopes = ScopeSet::parse("mcp").expect("valid");
    changed.token_ttl_secs = None;
    changed.updated_at = 9;
    store
        .update_resource(&changed, &ev())
        .await
        .expect("update");
    // A settings write leaves the enabled flag (its own write) alone.
    assert_eq!(
        store
            .find_resource(&r.id, "payments-mcp")
            .await
            .expect("find"),
        Some(Resource {
            enabled: true,
            ..changed.clone()
        })
    );
    store
        .set_resource_enabled(&changed.id, false, 9, &ev())
        .await
        .expect("disable");
    assert_eq!(
        store
            .find_resource(&r.id, "payments-mcp")
            .await
            .expect("find"),
        Some(changed)
    );
    // The realm's default resource: set by id, found by id, cleared when the resource goes.
    store
        .set_default_resource(&r.id, Some(&email.id), 10, &ev())
        .await
        .expect("set default");
    let stored = store.find_realm(&r.id).await.expect("find").expect("realm");
    assert_eq!(stored.default_resource_id, Some(email.id.clone()));
    assert_eq!(stored.updated_at, 10);
    assert_eq!(
        store
            .find_resource_by_id(&r.id, &email.id)
            .await
            .expect("find"),
        Some(email.clone())
    );
    assert_eq!(
        store
            .find_resource_by_id(&RealmId::generate(), &email.id)
            .await
            .expect("find"),
        None,
        "scoped to the realm"
    );
    let err = store
        .set_default_resource(&r.id, Some(&ResourceId::generate()), 11, &ev())
        .await
        .expect_err("unknown resource");
    assert!(!matches!(err, StorageError::NotFound), "{err:?}");
    let err = store
        .set_default_resource(&RealmId::generate(), None, 11, &ev())
        .await
        .expect_err("unknown realm");
    assert!(matches!(err, StorageError::NotFound), "{err:?}");
    store
        .delete_resource(&email.id, None, &ev())
        .await
        .expect("delete");
    let stored = store.find_realm(&r.id).await.expect("find").expect("realm");
    assert_eq!(stored.default_resource_id, None, "ON DELETE SET NULL");
    let err = store
        .delete_resource(&email.id, None, &ev())
        .await
        .expect_err("gone");
    assert!(matches!(err, StorageError::NotFound), "{err:?}");
    assert_eq!(store.list_resources(&r.id).await.expect("list").len(), 1);
}

/// Before realm lifetimes, every resource stored its own (300 s unless set). After the upgrade a
/// resource on 300 s follows its realm's default, which starts at 300 s, and any other keeps its
/// own: no token's lifetime changes.
pub(super) async fn upgrade_keeps_every_token_lifetime(db: &Database) {
    super::migrate_before(db, 20261201060000).await;
    let rows = [
        "INSERT INTO realms (id, name, display_name, enabled, created_at, updated_at) VALUES ('rlm_1', 'default', 'Default', TRUE, 1, 1)",
        "INSERT INTO resources (id, realm_id, slug, display_name, uri, scopes, token_ttl_secs, signing_alg, enabled, created_at, updated_at) VALUES ('res_a', 'rlm_1', 'pay', 'Pay', 'https://pay.example.com/mcp', 'a', 300, NULL, TRUE, 1, 1)",
        "INSERT INTO resources (id, realm_id, slug, display_name, uri, scopes, token_ttl_secs, signing_alg, enabled, created_at, updated_at) VALUES ('res_b', 'rlm_1', 'mail', 'Mail', 'https://mail.example.com/mcp', 'a', 900, NULL, TRUE, 1, 1)",
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
    let realm = store
        .find_realm(&RealmId::from_stored("rlm_1"))
        .await
        .expect("find")
        .expect("realm");
    assert_eq!(realm.token_ttl_secs, 300);
    for (slug, own, effective) in [("pay", None, 300), ("mail", Some(900), 900)] {
        let r = store
            .find_resource(&realm.id, slug)
            .await
            .expect("find")
            .expect("resource");
        assert_eq!(
            (r.token_ttl_secs, r.token_ttl(&realm)),
            (own, effective),
            "{slug}"
        );
    }
    // The database refuses lifetimes out of bounds, whatever writes them.
    for sql in [
        "UPDATE realms SET token_ttl_secs = 5",
        "UPDATE resources SET token_ttl_secs = 7200",
    ] {
        let refused = match db {
            Database::Sqlite(p) => sqlx::raw_sql(sql).execute(p).await.is_err(),
            Database::Postgres(p) => sqlx::raw_sql(sql).execute(p).await.is_err(),
        };
        assert!(refused, "{sql}");
    }
}
