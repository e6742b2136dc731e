//! People and interactive-flow persistence: people, sign-in sessions, consent, codes, refresh
//! families.
use super::fixtures::{client, event, given_realm, resource, user};
use crate::accounts::Email;
use crate::authorize::{
    AuthorizationCode, Consent, ConsentId, FamilyId, LoginSession, RefreshToken, TokenFamily,
};
use crate::error::StorageError;
use crate::paging::Page;
use crate::people::{Person, PersonId};
use crate::scope::ScopeSet;
use crate::storage::{Database, Redeemed};

pub(super) fn person(realm: &crate::realms::Realm, email: &str) -> Person {
    Person {
        id: PersonId::generate(),
        realm_id: realm.id.clone(),
        email: Email::parse(email).expect("valid"),
        display_name: format!("Name of {email}"),
        password_hash: Some("$argon2id$fake".into()),
        roles: ScopeSet::parse("finance").expect("valid"),
        disabled: false,
        linked: false,
        provider: None,
        provider_name: None,
        provider_disabled: false,
        created_at: 10,
        updated_at: 10,
    }
}

pub(super) async fn people(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let other = given_realm(&store, "other").await;
    let ev = |a| event(&r.id, a, "admin@x.io", "person:x", 10);
    let ada = person(&r, "ada@example.com");
    store
        .insert_person(&ada, &ev("person.create"))
        .await
        .expect("insert");
    assert!(matches!(
        store
            .insert_person(
                &Person {
                    id: PersonId::generate(),
                    ..ada.clone()
                },
                &ev("person.create")
            )
            .await,
        Err(StorageError::Conflict(_))
    ));
    // The same email in another realm is another person.
    store
        .insert_person(&person(&other, "ada@example.com"), &ev("person.create"))
        .await
        .expect("other realm");
    assert_eq!(
        store.find_person(&r.id, &ada.id).await.expect("find"),
        Some(ada.clone())
    );
    assert_eq!(
        store.find_person(&other.id, &ada.id).await.expect("find"),
        None,
        "realm-scoped"
    );
    assert_eq!(
        store
            .find_person_by_email(&r.id, &ada.email)
            .await
            .expect("find")
            .map(|p| p.id),
        Some(ada.id.clone())
    );
    store
        .insert_person(&person(&r, "bob@example.com"), &ev("person.create"))
        .await
        .expect("bob");
    let page = store
        .list_people(&r.id, Some("ADA"), Page::first(10))
        .await
        .expect("list");
    assert_eq!((page.total, page.items[0].id.clone()), (1, ada.id.clone()));
    let renamed = Person {
        display_name: "Countess".into(),
        roles: ScopeSet::default(),
        updated_at: 20,
        ..ada.clone()
    };
    store
        .update_person(&renamed, &ev("person.update"))
        .await
        .expect("update");
    store
        .set_person_password(&ada.id, "$argon2id$new", 21, &ev("person.password_set"))
        .await
        .expect("password");
    let stored = store
        .find_person(&r.id, &ada.id)
        .await
        .expect("find")
        .expect("ada");
    assert_eq!(stored.display_name, "Countess");
    assert_eq!(stored.password_hash.as_deref(), Some("$argon2id$new"));
    assert_eq!(stored.email, ada.email, "never changed by an update");
    assert!(matches!(
        store
            .set_person_disabled(&PersonId::generate(), true, 22, &ev("person.disable"))
            .await,
        Err(StorageError::NotFound)
    ));
}

pub(super) async fn flows(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let res = resource(&r.id, "pay", "https://pay.example.com/");
    store
        .insert_resource(&res, &event(&r.id, "resource.create", "a", "r", 1))
        .await
        .expect("res");
    let c = client(&r.id, "vscode");
    store
        .insert_client(&c, None, &event(&r.id, "client.create", "a", "c", 1))
        .await
        .expect("client");
    let ada = person(&r, "ada@example.com");
    store
        .insert_person(&ada, &event(&r.id, "person.create", "a", "p", 1))
        .await
        .expect("ada");
    let subject = ada.id.to_string();
    let ev = |a| event(&r.id, a, "ada@example.com", "client:vscode", 100);

    // Sign-in sessions: found by hash until they expire, then gone; deleted on sign-out.
    let session = LoginSession {
        id_hash: vec![1; 32],
        realm_id: r.id.clone(),
        subject: subject.clone(),
        auth_time: 100,
        expires_at: 200,
    };
    store
        .insert_login_session(&session, &ev("authorize.login"))
        .await
        .expect("session");
    assert_eq!(
        store
            .find_login_session(&r.id, &[1; 32], 150)
            .await
            .expect("find"),
        Some(session.clone())
    );
    assert_eq!(
        store
            .find_login_session(&r.id, &[1; 32], 200)
            .await
            .expect("find"),
        None,
        "expired"
    );
    assert_eq!(
        store
            .find_login_session(&r.id, &[2; 32], 150)
            .await
            .expect("find"),
        None
    );

    // Consent: one per subject, client and resource; saving again replaces the scopes.
    let consent = Consent {
        id: ConsentId::generate(),
        realm_id: r.id.clone(),
        subject: subject.clone(),
        client_pk: c.id.clone(),
        resource_id: res.id.clone(),
        scopes: ScopeSet::parse("tools:call").expect("valid"),
        created_at: 100,
        updated_at: 100,
    };
    store
        .save_consent(&consent, &ev("consent.grant"))
        .await
        .expect("consent");
    let wider = Consent {
        id: ConsentId::generate(),
        scopes: ScopeSet::parse("tools:call tools:read offline_access").expect("valid"),
        updated_at: 110,
        ..consent.clone()
    };
    store
        .save_consent(&wider, &ev("consent.grant"))
        .await
        .expect("again");
    let found = store
        .find_consent(&subject, &c.id, &res.id)
        .await
        .expect("find")
        .expect("consent");
    assert_eq!(
        (found.id.clone(), found.scopes.clone(), found.created_at),
        (consent.id.clone(), wider.scopes.clone(), 100)
    );
    let apps = store
        .list_consents(&r.id, Some(&subject))
        .await
        .expect("apps");
    assert_eq!(apps.len(), 1);
    assert_eq!(
        (apps[0].client_id.as_str(), apps[0].resource_uri.as_str()),
        ("vscode", "https://pay.example.com/")
    );
    assert!(
        store
            .list_consents(&r.id, Some("psn_other"))
            .await
            .expect("apps")
            .is_empty()
    );

    // A code is redeemed once: the family and first refresh token come with that.
    let family = TokenFamily {
        id: FamilyId::generate(),
        realm_id: r.id.clone(),
        subject: subject.clone(),
        client_pk: c.id.clone(),
        resource_id: res.id.clone(),
        scopes: ScopeSet::parse("tools:call").expect("valid"),
        offline: true,
        openid: Some(crate::authorize::OpenId {
            email: true,
            profile: false,
        }),
        auth_time: 100,
        created_at: 120,
        expires_at: 10_000,
        revoked_at: None,
        revoked_reason: None,
    };
    let code = AuthorizationCode {
        code_hash: vec![7; 32],
        family_id: family.id.clone(),
        realm_id: r.id.clone(),
        subject: subject.clone(),
        client_pk: c.id.clone(),
        resource_id: res.id.clone(),
        redirect_uri: "http://127.0.0.1/cb".into(),
        code_challenge: "c".repeat(43),
        scopes: family.scopes.clone(),
        offline: true,
        openid: Some(crate::authorize::OpenId {
            email: true,
            profile: false,
        }),
        nonce: Some("n-1".into()),
        auth_time: 100,
        created_at: 110,
        expires_at: 170,
        redeemed_at: None,
    };
    store
        .insert_code(&code, &ev("authorize.code"))
        .await
        .expect("code");
    assert_eq!(
        store.find_code(&[7; 32]).await.expect("find"),
        Some(code.clone())
    );
    let rt1 = RefreshToken {
        token_hash: vec![9; 32],
        family_id: family.id.clone(),
        created_at: 120,
        expires_at: 5_000,
        rotated_at: None,
        successor: None,
    };
    assert_eq!(
        store
            .redeem_code(&[7; 32], 120, &family, Some(&rt1))
            .await
            .expect("redeem"),
        Redeemed::First
    );
    assert_eq!(
        store
            .redeem_code(&[7; 32], 121, &family, Some(&rt1))
            .await
            .expect("again"),
        Redeemed::Again,
        "nothing written the second time"
    );
    assert_eq!(
        store
            .find_code(&[7; 32])
            .await
            .expect("find")
            .and_then(|c| c.redeemed_at),
        Some(120)
    );
    assert_eq!(
        store.find_refresh_token(&[9; 32]).await.expect("rt"),
        Some((rt1.clone(), family.clone()))
    );

    // Rotation happens once; the loser of a race writes nothing.
    let rt2 = RefreshToken {
        token_hash: vec![10; 32],
        created_at: 130,
        ..rt1.clone()
    };
    assert!(
        store
            .rotate_refresh_token(&[9; 32], 130, b"sealed", &rt2)
            .await
            .expect("rotate")
    );
    let rt3 = RefreshToken {
        token_hash: vec![11; 32],
        ..rt2.clone()
    };
    assert!(
        !store
            .rotate_refresh_token(&[9; 32], 131, b"other", &rt3)
            .await
            .expect("race")
    );
    assert_eq!(store.find_refresh_token(&[11; 32]).await.expect("rt"), None);
    let (old, _) = store
        .find_refresh_token(&[9; 32])
        .await
        .expect("rt")
        .expect("old");
    assert_eq!(
        (old.rotated_at, old.successor.as_deref()),
        (Some(130), Some(&b"sealed"[..]))
    );

    // Revoking a family is audited once.
    assert!(
        store
            .revoke_family(&family.id, "refresh_reuse", 140, &ev("token.refresh_reuse"))
            .await
            .expect("revoke")
    );
    assert!(
        !store
            .revoke_family(&family.id, "refresh_reuse", 141, &ev("token.refresh_reuse"))
            .await
            .expect("again")
    );
    let f = store
        .find_family(&family.id)
        .await
        .expect("find")
        .expect("family");
    assert_eq!(
        (f.revoked_at, f.revoked_reason.as_deref()),
        (Some(140), Some("refresh_reuse"))
    );
    assert!(!f.is_live(150));

    // Revoking a consent revokes its families; disabling a person ends sessions and families.
    let live = TokenFamily {
        id: FamilyId::generate(),
        ..family.clone()
    };
    let live_code = AuthorizationCode {
        code_hash: vec![8; 32],
        family_id: live.id.clone(),
        ..code.clone()
    };
    store
        .insert_code(&live_code, &ev("authorize.code"))
        .await
        .expect("code");
    store
        .redeem_code(&[8; 32], 150, &live, None)
        .await
        .expect("redeem");
    let revoked = store
        .revoke_consent(&r.id, &consent.id, 160, &ev("consent.revoke"))
        .await
        .expect("revoke");
    assert_eq!(revoked.id, consent.id);
    assert_eq!(
        store
            .find_consent(&subject, &c.id, &res.id)
            .await
            .expect("find"),
        None
    );
    assert_eq!(
        store
            .find_family(&live.id)
            .await
            .expect("f")
            .and_then(|f| f.revoked_reason),
        Some("consent_revoked".into())
    );
    assert!(matches!(
        store
            .revoke_consent(&r.id, &consent.id, 161, &ev("consent.revoke"))
            .await,
        Err(StorageError::NotFound)
    ));
    let third = TokenFamily {
        id: FamilyId::generate(),
        ..family.clone()
    };
    let third_code = AuthorizationCode {
        code_hash: vec![6; 32],
        family_id: third.id.clone(),
        ..code.clone()
    };
    store
        .insert_code(&third_code, &ev("authorize.code"))
        .await
        .expect("code");
    store
        .redeem_code(&[6; 32], 150, &third, None)
        .await
        .expect("redeem");
    store
        .set_person_disabled(&ada.id, true, 170, &ev("person.disable"))
        .await
        .expect("disable");
    assert_eq!(
        store
            .find_family(&third.id)
            .await
            .expect("f")
            .and_then(|f| f.revoked_reason),
        Some("person_disabled".into())
    );
    assert_eq!(
        store
            .find_login_session(&r.id, &[1; 32], 150)
            .await
            .expect("find"),
        None,
        "sessions end"
    );

    // Housekeeping removes expired codes, sessions and families with their refresh tokens.
    assert!(store.purge_flows(20_000).await.expect("purge") >= 5);
    assert_eq!(store.find_refresh_token(&[10; 32]).await.expect("rt"), None);
    assert_eq!(store.find_code(&[7; 32]).await.expect("code"), None);
}

/// An unredeemed code of `subject` for `client` and `res`, stored; its hash is `[n; 32]`.
async fn given_code(
    store: &crate::storage::DynStore,
    r: &crate::realms::Realm,
    (subject, client, res): (&str, &crate::clients::Client, &crate::resources::Resource),
    n: u8,
) -> (AuthorizationCode, TokenFamily) {
    let family = TokenFamily {
        id: FamilyId::generate(),
        realm_id: r.id.clone(),
        subject: subject.to_owned(),
        client_pk: client.id.clone(),
        resource_id: res.id.clone(),
        scopes: ScopeSet::parse("tools:call").expect("valid"),
        offline: false,
        openid: None,
        auth_time: 100,
        created_at: 120,
        expires_at: 10_000,
        revoked_at: None,
        revoked_reason: None,
    };
    let code = AuthorizationCode {
        code_hash: vec![n; 32],
        family_id: family.id.clone(),
        realm_id: r.id.clone(),
        subject: subject.to_owned(),
        client_pk: client.id.clone(),
        resource_id: res.id.clone(),
        redirect_uri: "http://127.0.0.1/cb".into(),
        code_challenge: "c".repeat(43),
        scopes: family.scopes.clone(),
        offline: false,
        openid: None,
        nonce: None,
        auth_time: 100,
        created_at: 110,
        expires_at: 170,
        redeemed_at: None,
    };
    store
        .insert_code(&code, &event(&r.id, "authorize.code", "a", "client:x", 110))
        .await
        .expect("code");
    (code, family)
}

/// Unredeemed codes die with what they were issued under: the person's consent, the client's
/// approval or enabled flag, the person's (or console account's) password and enabled flag.
/// Redeemed codes stay (a replay is still recognised); a killed code redeems as `Gone`.
pub(super) async fn codes_die_with_what_they_stood_for(db: &Database) {
    use crate::clients::{ReviewDecision, ReviewState};
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = |a| event(&r.id, a, "admin@x.io", "client:x", 150);
    let res = resource(&r.id, "pay", "https://pay.example.com/");
    store
        .insert_resource(&res, &ev("resource.create"))
        .await
        .expect("res");
    let (vscode, other) = (client(&r.id, "vscode"), client(&r.id, "other"));
    for c in [&vscode, &other] {
        store
            .insert_client(c, None, &ev("client.create"))
            .await
            .expect("client");
    }
    let ada = person(&r, "ada@example.com");
    store
        .insert_person(&ada, &ev("person.create"))
        .await
        .expect("ada");
    let bob = person(&r, "bob@example.com");
    store
        .insert_person(&bob, &ev("person.create"))
        .await
        .expect("bob");
    let (ada_id, bob_id) = (ada.id.to_string(), bob.id.to_string());
    let gone = |n: u8| {
        let store = store.clone();
        async move { store.find_code(&[n; 32]).await.expect("find").is_none() }
    };

    // Disconnecting an app kills that consent's codes only.
    let consent = Consent {
        id: ConsentId::generate(),
        realm_id: r.id.clone(),
        subject: ada_id.clone(),
        client_pk: vscode.id.clone(),
        resource_id: res.id.clone(),
        scopes: ScopeSet::parse("tools:call").expect("valid"),
        created_at: 100,
        updated_at: 100,
    };
    store
        .save_consent(&consent, &ev("consent.grant"))
        .await
        .expect("consent");
    let (code, family) = given_code(&store, &r, (&ada_id, &vscode, &res), 1).await;
    given_code(&store, &r, (&ada_id, &other, &res), 2).await;
    given_code(&store, &r, (&bob_id, &vscode, &res), 3).await;
    let (_, redeemed) = given_code(&store, &r, (&ada_id, &vscode, &res), 4).await;
    assert_eq!(
        store
            .redeem_code(&[4; 32], 120, &redeemed, None)
            .await
            .expect("redeem"),
        Redeemed::First
    );
    store
        .revoke_consent(&r.id, &consent.id, 150, &ev("consent.revoke"))
        .await
        .expect("revoke");
    assert!(gone(1).await, "the disconnected app's code died");
    assert!(!gone(2).await && !gone(3).await, "others' codes live");
    assert!(
        !gone(4).await,
        "a redeemed code stays, for replay detection"
    );
    assert_eq!(
        store
            .redeem_code(&code.code_hash, 151, &family, None)
            .await
            .expect("redeem"),
        Redeemed::Gone,
        "nothing written"
    );
    assert!(
        store
            .find_family(&family.id)
            .await
            .expect("family")
            .is_none()
    );

    // Disabling a client kills its codes; enabling it again does not bring them back.
    given_code(&store, &r, (&ada_id, &vscode, &res), 5).await;
    store
        .set_client_enabled(&vscode.id, false, 152, &ev("client.update"))
        .await
        .expect("off");
    store
        .set_client_enabled(&vscode.id, true, 153, &ev("client.update"))
        .await
        .expect("on");
    assert!(
        gone(5).await && gone(3).await,
        "every code of the client died"
    );
    assert!(!gone(2).await);

    // Revoking a client kills its codes and starts a new token epoch; restoring keeps it.
    given_code(&store, &r, (&ada_id, &vscode, &res), 6).await;
    let decide = |from, to, at| ReviewDecision {
        from,
        to,
        by: "admin@x.io".into(),
        reason: "why".into(),
        at,
        seen: None,
        grants: vec![],
    };
    store
        .set_client_review(
            &vscode.id,
            &decide(ReviewState::Approved, ReviewState::Revoked, 154),
            &ev("client.revoke"),
        )
        .await
        .expect("revoke");
    assert!(gone(6).await);
    // A code stored after the revocation (by an instance whose cached client was still
    // approved) starts no family while the client is revoked.
    let (late, late_family) = given_code(&store, &r, (&ada_id, &vscode, &res), 20).await;
    assert_eq!(
        store
            .redeem_code(&late.code_hash, 154, &late_family, None)
            .await
            .expect("redeem"),
        Redeemed::Gone
    );
    assert!(
        store
            .find_family(&late_family.id)
            .await
            .expect("family")
            .is_none()
    );
    let epoch = |c: &crate::clients::Client| {
        let store = store.clone();
        let (realm, id) = (r.id.clone(), c.client_id.clone());
        async move {
            store
                .find_client(&realm, &id)
                .await
                .expect("find")
                .expect("client")
                .registration
                .token_epoch
        }
    };
    assert_eq!(epoch(&vscode).await, 1);
    store
        .set_client_review(
            &vscode.id,
            &decide(ReviewState::Revoked, ReviewState::Approved, 155),
            &ev("client.restore"),
        )
        .await
        .expect("restore");
    assert_eq!(
        epoch(&vscode).await,
        1,
        "a restore starts no epoch: only leaving approved does"
    );
    assert_eq!(epoch(&other).await, 0);

    // A person's new password, or disabling them, kills their codes.
    given_code(&store, &r, (&bob_id, &other, &res), 7).await;
    store
        .set_person_password(&ada.id, "$argon2id$new", 156, &ev("person.password_set"))
        .await
        .expect("password");
    assert!(gone(2).await, "ada's code for the other client died");
    assert!(!gone(7).await, "bob's lives");
    store
        .set_person_disabled(&bob.id, true, 157, &ev("person.disable"))
        .await
        .expect("disable");
    assert!(gone(7).await);

    // The same for a console account signing in to apps: a password change, a reset through
    // a link, disabling.
    let root = user(&r.id, "root@example.com", crate::policy::Role::Admin);
    let admin2 = user(&r.id, "second@example.com", crate::policy::Role::Admin);
    for u in [&root, &admin2] {
        store
            .insert_user(u, None, &ev("user.create"))
            .await
            .expect("user");
    }
    let root_id = root.id.to_string();
    given_code(&store, &r, (&root_id, &other, &res), 8).await;
    assert!(
        store
            .set_user_password(
                &root.id,
                "$argon2id$x",
                root.credential_version,
                158,
                &ev("user.password_change")
            )
            .await
            .expect("password")
    );
    assert!(gone(8).await);
    given_code(&store, &r, (&root_id, &other, &res), 9).await;
    let link = crate::accounts::OneTimeLink {
        token_hash: vec![42; 32],
        realm_id: r.id.clone(),
        user_id: Some(root.id.clone()),
        purpose: crate::accounts::LinkPurpose::PasswordReset,
        created_at: 158,
        expires_at: 10_000,
    };
    store
        .insert_link(&link, &ev("user.password_reset_link"))
        .await
        .expect("link");
    assert!(
        store
            .reset_password(
                &[42; 32],
                &root.id,
                "$argon2id$y",
                159,
                &ev("user.password_reset")
            )
            .await
            .expect("reset")
    );
    assert!(gone(9).await, "a reset ends app sign-ins too");
    given_code(&store, &r, (&root_id, &other, &res), 10).await;
    store
        .set_user_disabled(&root.id, true, 160, &ev("user.disable"))
        .await
        .expect("disable");
    assert!(gone(10).await);
}
