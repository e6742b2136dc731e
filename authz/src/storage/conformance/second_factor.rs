//! Second factors: the per-role requirement, waiting and confirmed authenticators, codes
//! accepted once, recovery codes used once, removal and reset.
use super::fixtures::{audit_count, event, given_realm, user};
use crate::error::StorageError;
use crate::policy::Role;
use crate::storage::Database;

pub(super) async fn second_factor(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = |action| event(&r.id, action, "cli", "user:x", 20);

    // The requirement: none at first, then the roles given.
    assert_eq!(store.second_factor_roles().await.expect("roles"), "");
    store
        .set_second_factor_roles("admin developer", 5, &ev("console.second_factor"))
        .await
        .expect("set roles");
    assert_eq!(
        store.second_factor_roles().await.expect("roles"),
        "admin developer"
    );

    let ada = user(&r.id, "ada@example.com", Role::Admin);
    store
        .insert_user(&ada, None, &ev("user.create"))
        .await
        .expect("user");
    assert_eq!(store.find_totp(&ada.id).await.expect("find"), None);

    // No authenticator: no code or recovery code is accepted.
    assert!(
        !store
            .accept_totp_step(&ada.id, 5, &ev("session.second_factor"))
            .await
            .expect("accept")
    );
    assert!(
        !store
            .use_recovery_code(&ada.id, "h1", 111, &ev("session.second_factor"))
            .await
            .expect("use")
    );

    // Stored once confirmed, with its recovery codes and both audit rows, at once.
    let hashes: Vec<String> = (1..=3).map(|i| format!("h{i}")).collect();
    let before = audit_count(&store).await;
    store
        .insert_totp(
            &ada.id,
            b"sealed",
            7,
            &hashes,
            120,
            &[
                &ev("user.second_factor_enrol"),
                &ev("session.second_factor"),
            ],
        )
        .await
        .expect("insert");
    assert_eq!(audit_count(&store).await, before + 2);
    let stored = store.find_totp(&ada.id).await.expect("find").expect("totp");
    assert_eq!(
        (
            stored.sealed_secret.as_slice(),
            stored.confirmed_at,
            stored.last_step
        ),
        (b"sealed".as_slice(), 120, 7)
    );
    assert_eq!(
        store
            .find_user(&ada.id)
            .await
            .expect("user")
            .expect("ada")
            .second_factor_since,
        Some(120)
    );
    // One set up elsewhere meanwhile is never replaced, and nothing else is written.
    let before = audit_count(&store).await;
    assert!(matches!(
        store
            .insert_totp(
                &ada.id,
                b"other",
                9,
                &["x".into()],
                130,
                &[&ev("user.second_factor_enrol")]
            )
            .await,
        Err(StorageError::Conflict(_))
    ));
    assert_eq!(audit_count(&store).await, before);
    assert_eq!(store.recovery_codes_left(&ada.id).await.expect("left"), 3);

    // Codes: a step is accepted once, and only a newer one after it.
    for (step, ok) in [(7, false), (6, false), (8, true), (8, false), (9, true)] {
        assert_eq!(
            store
                .accept_totp_step(&ada.id, step, &ev("session.second_factor"))
                .await
                .expect("accept"),
            ok,
            "step {step}"
        );
    }
    // Recovery codes: each once, only the account's own.
    assert_eq!(store.recovery_codes_left(&ada.id).await.expect("left"), 3);
    let bo = user(&r.id, "bo@example.com", Role::Developer);
    store
        .insert_user(&bo, None, &ev("user.create"))
        .await
        .expect("user");
    assert!(
        !store
            .use_recovery_code(&bo.id, "h1", 140, &ev("session.second_factor"))
            .await
            .expect("other's")
    );
    let before = audit_count(&store).await;
    assert!(
        store
            .use_recovery_code(&ada.id, "h1", 140, &ev("session.second_factor"))
            .await
            .expect("use")
    );
    assert!(
        !store
            .use_recovery_code(&ada.id, "h1", 141, &ev("session.second_factor"))
            .await
            .expect("reuse")
    );
    assert_eq!(audit_count(&store).await, before + 1);
    assert_eq!(store.recovery_codes_left(&ada.id).await.expect("left"), 2);

    // New codes replace all the old ones; an account without an authenticator gets none.
    store
        .replace_recovery_codes(&ada.id, &["n1".into()], &ev("user.recovery_codes"))
        .await
        .expect("replace");
    assert_eq!(store.recovery_codes_left(&ada.id).await.expect("left"), 1);
    assert!(
        !store
            .use_recovery_code(&ada.id, "h2", 150, &ev("session.second_factor"))
            .await
            .expect("old")
    );
    assert!(matches!(
        store
            .replace_recovery_codes(&bo.id, &["x".into()], &ev("user.recovery_codes"))
            .await,
        Err(StorageError::Conflict(_))
    ));

    // Removal by the owner keeps the sessions; an admin's reset ends them.
    let version = store
        .find_user(&ada.id)
        .await
        .expect("user")
        .expect("ada")
        .credential_version;
    store
        .remove_second_factor(&ada.id, false, 160, &ev("user.second_factor_remove"))
        .await
        .expect("remove");
    let after = store.find_user(&ada.id).await.expect("user").expect("ada");
    assert_eq!(
        (after.second_factor_since, after.credential_version),
        (None, version)
    );
    assert_eq!(store.find_totp(&ada.id).await.expect("find"), None);
    assert_eq!(store.recovery_codes_left(&ada.id).await.expect("left"), 0);
    store
        .insert_totp(
            &ada.id,
            b"again",
            1,
            &[],
            170,
            &[&ev("user.second_factor_enrol")],
        )
        .await
        .expect("again");
    store
        .remove_second_factor(&ada.id, true, 180, &ev("user.second_factor_remove"))
        .await
        .expect("reset");
    assert_eq!(
        store
            .find_user(&ada.id)
            .await
            .expect("user")
            .expect("ada")
            .credential_version,
        version + 1
    );
    assert!(matches!(
        store
            .remove_second_factor(
                &crate::ids::UserId::from_stored("usr_gone"),
                true,
                190,
                &ev("user.second_factor_remove")
            )
            .await,
        Err(StorageError::NotFound)
    ));
}
