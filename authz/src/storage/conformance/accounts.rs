use super::fixtures::{audit_count, event, given_realm, user};
use crate::accounts::{Email, LinkPurpose, OneTimeLink, UserId};
use crate::error::StorageError;
use crate::paging::{Cursor, Page};
use crate::policy::Role;
use crate::storage::Database;

pub(super) async fn users(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ada = user(&r.id, "ada@example.com", Role::Admin);
    store
        .insert_user(
            &ada,
            None,
            &event(&r.id, "user.create", "cli", "user:ada", 2),
        )
        .await
        .expect("insert");
    let mut dup = user(&r.id, "ada@example.com", Role::Developer);
    dup.display_name = "Other".into();
    let err = store
        .insert_user(
            &dup,
            None,
            &event(&r.id, "user.create", "cli", "user:dup", 3),
        )
        .await
        .expect_err("duplicate email");
    assert!(matches!(err, StorageError::Conflict(_)), "{err:?}");
    assert_eq!(audit_count(&store).await, 2);

    for (i, email) in [
        "bob@example.com",
        "carol@example.com",
        "dan_100%@example.com",
    ]
    .iter()
    .enumerate()
    {
        let u = user(&r.id, email, Role::Developer);
        store
            .insert_user(
                &u,
                None,
                &event(&r.id, "user.create", "cli", "u", 10 + i as i64),
            )
            .await
            .expect("insert");
    }
    assert_eq!(store.count_users().await.expect("count"), 4);

    let got = store
        .find_user_by_email(&r.id, &Email::parse("ADA@example.com").expect("valid"))
        .await
        .expect("find");
    assert_eq!(got, Some(ada.clone()));
    assert_eq!(
        store.find_user(&ada.id).await.expect("find"),
        Some(ada.clone())
    );

    let page = store
        .list_users(&r.id, None, Page::first(2))
        .await
        .expect("list");
    assert_eq!(page.total, 4);
    let emails: Vec<_> = page.items.iter().map(|u| u.email.to_string()).collect();
    assert_eq!(emails, ["ada@example.com", "bob@example.com"]);
    assert_eq!(
        (page.prev.as_deref(), page.next.as_deref()),
        (None, Some("bob@example.com"))
    );
    // The next page starts after the last key; the way back ends before the first.
    let next = Cursor::After(page.next.clone().expect("next"));
    let page2 = store
        .list_users(&r.id, None, Page::at(next, 2))
        .await
        .expect("list");
    assert_eq!(page2.items.len(), 2);
    assert_eq!(page2.items[0].email.as_str(), "carol@example.com");
    assert_eq!(page2.total, 4);
    assert_eq!((page.before, page2.before), (0, 2), "rows 1–2, then 3–4");
    assert_eq!(page2.next, None, "the last page");
    let back = Cursor::Before(page2.prev.clone().expect("prev"));
    let page1 = store
        .list_users(&r.id, None, Page::at(back, 2))
        .await
        .expect("list");
    assert_eq!(page1, page, "the way back is the first page again");
    let total = |q: &'static str| {
        let store = store.clone();
        let realm = r.id.clone();
        async move {
            store
                .list_users(&realm, Some(q), Page::first(50))
                .await
                .expect("list")
                .total
        }
    };
    assert_eq!(total("CAROL").await, 1, "search is case-insensitive");
    assert_eq!(
        total("%").await,
        1,
        "LIKE wildcards in the query are literal"
    );
    assert_eq!(total("name of b").await, 1, "search matches display names");

    // Each change writes its own field and nothing else.
    let bob = store
        .find_user_by_email(&r.id, &Email::parse("bob@example.com").expect("valid"))
        .await
        .expect("find")
        .expect("exists");
    let ev = |a: &'static str| event(&r.id, a, "x", "user:bob", 50);
    store
        .set_user_role(&bob.id, Role::SecurityReviewer, 50, &ev("user.role_change"))
        .await
        .expect("role");
    store
        .set_user_disabled(&bob.id, true, 51, &ev("user.disable"))
        .await
        .expect("disable");
    let changed = store
        .find_user(&bob.id)
        .await
        .expect("find")
        .expect("exists");
    assert_eq!(
        (
            changed.role,
            changed.disabled,
            changed.updated_at,
            &changed.password_hash
        ),
        (Role::SecurityReviewer, true, 51, &bob.password_hash)
    );
    // A password change applies only to the credential version it was checked against.
    assert!(
        store
            .set_user_password(&bob.id, "$v2", 1, 52, &ev("user.password_change"))
            .await
            .expect("pw")
    );
    assert!(
        !store
            .set_user_password(&bob.id, "$stale", 1, 53, &ev("user.password_change"))
            .await
            .expect("pw"),
        "a change checked against version 1 after it moved on writes nothing"
    );
    let changed = store
        .find_user(&bob.id)
        .await
        .expect("find")
        .expect("exists");
    assert_eq!(
        (changed.password_hash.as_deref(), changed.credential_version),
        (Some("$v2"), 2)
    );
    assert_eq!(
        (changed.role, changed.disabled),
        (Role::SecurityReviewer, true),
        "untouched"
    );
    let ghost = UserId::generate();
    let err = store
        .set_user_role(&ghost, Role::Developer, 54, &ev("user.role_change"))
        .await
        .expect_err("missing");
    assert!(matches!(err, StorageError::NotFound), "{err:?}");
    assert!(
        !store
            .set_user_password(&ghost, "$x", 1, 54, &ev("user.password_change"))
            .await
            .expect("pw")
    );
}

pub(super) async fn last_admin_is_kept_in_the_transaction(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    // Before any admin exists (accounts made from the CLI), changes are not refused.
    let dev = user(&r.id, "dev@example.com", Role::Developer);
    store
        .insert_user(&dev, None, &event(&r.id, "user.create", "cli", "u", 2))
        .await
        .expect("dev");
    store
        .set_user_role(
            &dev.id,
            Role::SecurityReviewer,
            3,
            &event(&r.id, "user.role_change", "x", "u", 3),
        )
        .await
        .expect("no admin yet: nothing to keep");

    let a = user(&r.id, "a@example.com", Role::Admin);
    let b = user(&r.id, "b@example.com", Role::Admin);
    for u in [&a, &b] {
        store
            .insert_user(u, None, &event(&r.id, "user.create", "cli", "u", 4))
            .await
            .expect("admin");
    }
    let before = audit_count(&store).await;
    // Two admins demote each other at the same moment: exactly one demotion may succeed.
    let (s1, s2) = (db.store(), db.store());
    let (ida, idb) = (a.id.clone(), b.id.clone());
    let ea = event(&r.id, "user.role_change", "b", "user:a", 5);
    let eb = event(&r.id, "user.disable", "a", "user:b", 5);
    let (ra, rb) = tokio::join!(
        tokio::spawn(async move { s1.set_user_role(&ida, Role::Developer, 5, &ea).await }),
        tokio::spawn(async move { s2.set_user_disabled(&idb, true, 5, &eb).await }),
    );
    let results = [ra.expect("task"), rb.expect("task")];
    assert_eq!(
        results.iter().filter(|r| r.is_ok()).count(),
        1,
        "{results:?}"
    );
    let refused = results
        .iter()
        .find_map(|r| r.as_ref().err())
        .expect("one refused");
    assert!(
        matches!(refused, StorageError::Precondition(_)),
        "{refused:?}"
    );
    assert_eq!(
        audit_count(&store).await,
        before + 1,
        "the refused change wrote no audit row"
    );
    let admins = [&a.id, &b.id];
    let mut enabled_admins = 0;
    for id in admins {
        let u = store.find_user(id).await.expect("find").expect("exists");
        if u.role == Role::Admin && !u.disabled {
            enabled_admins += 1;
        }
    }
    assert_eq!(
        enabled_admins, 1,
        "one admin remains, and the refusal was rolled back"
    );
}

pub(super) async fn links(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let setup = |hash: &[u8], at: i64| OneTimeLink {
        token_hash: hash.to_vec(),
        realm_id: r.id.clone(),
        user_id: None,
        purpose: LinkPurpose::Setup,
        created_at: at,
        expires_at: at + 100,
    };
    let ev = |action: &'static str, at: i64| event(&r.id, action, "system", "setup", at);
    store
        .insert_link(&setup(b"old", 10), &ev("setup.link_issued", 10))
        .await
        .expect("link");
    let new = setup(b"new", 20);
    store
        .insert_link(&new, &ev("setup.link_issued", 20))
        .await
        .expect("link");
    assert_eq!(
        store.find_active_link(b"old", 21).await.expect("find"),
        None,
        "superseded"
    );
    assert_eq!(
        store.find_active_link(b"new", 21).await.expect("find"),
        Some(new.clone())
    );
    assert_eq!(
        store.find_active_link(b"new", 120).await.expect("find"),
        None,
        "expired"
    );

    let admin = user(&r.id, "root@example.com", Role::Admin);
    let done = ev("setup.complete", 30);
    assert!(
        !store
            .complete_setup(b"new", 200, &admin, &done)
            .await
            .expect("setup"),
        "expired link"
    );
    assert_eq!(
        store.count_users().await.expect("count"),
        0,
        "nothing half-written"
    );
    assert!(
        store
            .complete_setup(b"new", 30, &admin, &done)
            .await
            .expect("setup")
    );
    assert_eq!(store.count_users().await.expect("count"), 1);
    let other = user(&r.id, "second@example.com", Role::Admin);
    assert!(
        !store
            .complete_setup(b"new", 31, &other, &done)
            .await
            .expect("setup"),
        "single use"
    );
    store
        .insert_link(&setup(b"late", 40), &ev("setup.link_issued", 40))
        .await
        .expect("link");
    assert!(
        !store
            .complete_setup(b"late", 41, &other, &done)
            .await
            .expect("setup"),
        "a user exists"
    );
    assert_eq!(store.count_users().await.expect("count"), 1);

    let reset = |hash: &[u8], at: i64| OneTimeLink {
        token_hash: hash.to_vec(),
        realm_id: r.id.clone(),
        user_id: Some(admin.id.clone()),
        purpose: LinkPurpose::PasswordReset,
        created_at: at,
        expires_at: at + 100,
    };
    store
        .insert_link(&reset(b"r1", 50), &ev("user.password_reset_link", 50))
        .await
        .expect("link");
    store
        .insert_link(&reset(b"r2", 51), &ev("user.password_reset_link", 51))
        .await
        .expect("link");
    let done = ev("user.password_reset", 52);
    assert!(
        !store
            .reset_password(b"r1", &admin.id, "$new", 52, &done)
            .await
            .expect("reset"),
        "superseded"
    );
    assert!(
        !store
            .reset_password(b"r2", &UserId::generate(), "$new", 52, &done)
            .await
            .expect("reset"),
        "other user"
    );
    assert!(
        store
            .reset_password(b"r2", &admin.id, "$new", 52, &done)
            .await
            .expect("reset")
    );
    assert!(
        !store
            .reset_password(b"r2", &admin.id, "$newer", 53, &done)
            .await
            .expect("reset"),
        "single use"
    );
    let stored = store
        .find_user(&admin.id)
        .await
        .expect("find")
        .expect("exists");
    assert_eq!(stored.password_hash.as_deref(), Some("$new"));
    assert_eq!(
        stored.credential_version,
        admin.credential_version + 1,
        "sessions end on reset"
    );

    // A new user and its first link commit together.
    let newbie = user(&r.id, "new@example.com", Role::Developer);
    let first = OneTimeLink {
        user_id: Some(newbie.id.clone()),
        ..reset(b"first", 60)
    };
    store
        .insert_user(
            &newbie,
            Some(&first),
            &event(&r.id, "user.create", "x", "u", 60),
        )
        .await
        .expect("insert");
    assert_eq!(
        store.find_active_link(b"first", 61).await.expect("find"),
        Some(first)
    );
}
