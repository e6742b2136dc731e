//! Console single sign-on persistence: providers, provider identities of console accounts, the
//! sign-in writes, and the password sign-in switch with its break-glass guard.
use super::fixtures::{audit_count, event, given_realm, user};
use crate::error::StorageError;
use crate::policy::Role;
use crate::sso::{RoleRules, SsoProvider, SsoProviderId, UserIdentity};
use crate::storage::{Database, NO_BREAK_GLASS, SsoAccountChange};

fn provider(realm: &crate::realms::Realm, issuer: &str) -> SsoProvider {
    SsoProvider {
        id: SsoProviderId::generate(),
        realm_id: realm.id.clone(),
        display_name: "Acme".into(),
        button_text: "Sign in with Acme".into(),
        issuer: issuer.into(),
        client_id: "portcullis".into(),
        sealed_client_secret: Some(vec![1, 2, 3]),
        scopes: vec!["openid".into(), "email".into()],
        groups_claim: "groups".into(),
        rules: RoleRules {
            admin: vec!["admins".into()],
            security_reviewer: vec![],
            developer: vec!["*".into()],
        },
        trust_email: false,
        second_factor_amr: vec![],
        second_factor_acr: vec![],
        for_people: false,
        group_mapping: vec![crate::sso::GroupRule {
            group: "Platform Engineering".into(),
            kind: crate::sso::MappingKind::Unit,
            target: "platform".into(),
        }],
        enabled: true,
        created_at: 10,
        updated_at: 10,
    }
}

pub(super) async fn sso(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = |action| event(&r.id, action, "cli", "sso:x", 20);

    // Providers: one per issuer and client id, stored as given (the secret as sealed bytes).
    let mut acme = provider(&r, "https://sso.example.com");
    store
        .insert_sso_provider(&acme, &ev("sso_provider.create"))
        .await
        .expect("insert");
    assert!(matches!(
        store
            .insert_sso_provider(
                &provider(&r, "https://sso.example.com"),
                &ev("sso_provider.create")
            )
            .await,
        Err(StorageError::Conflict(_))
    ));
    assert_eq!(
        store.find_sso_provider(&acme.id).await.expect("find"),
        Some(acme.clone())
    );
    acme.sealed_client_secret = None;
    acme.rules.security_reviewer = vec!["secops".into()];
    acme.updated_at = 11;
    store
        .update_sso_provider(&acme, &ev("sso_provider.update"))
        .await
        .expect("update");
    assert_eq!(
        store.list_sso_providers(&r.id, false).await.expect("list"),
        vec![acme.clone()]
    );

    // A first sign-in creates the account and its identity, with both audit rows, at once.
    let before = audit_count(&store).await;
    let mut ada = user(&r.id, "ada@corp.example", Role::Developer);
    ada.password_hash = None;
    let link = UserIdentity {
        provider_id: acme.id.clone(),
        subject: "sub-ada".into(),
        user_id: ada.id.clone(),
        created_at: 30,
    };
    let (created, login) = (ev("user.create"), ev("session.login"));
    store
        .save_sso_sign_in(
            SsoAccountChange::Create(&ada, &link),
            30,
            &[&created, &login],
        )
        .await
        .expect("create");
    assert_eq!(audit_count(&store).await, before + 2);
    assert_eq!(
        store
            .find_user_identity(&acme.id, "sub-ada")
            .await
            .expect("identity"),
        Some(link.clone())
    );
    let stored = store.find_user(&ada.id).await.expect("find").expect("user");
    assert_eq!(stored.sso_provider.as_deref(), Some("Acme"));
    // The same identity again (two sign-ins at once): nothing more is written.
    let mut twin = user(&r.id, "twin@corp.example", Role::Developer);
    twin.password_hash = None;
    let twin_link = UserIdentity {
        user_id: twin.id.clone(),
        ..link.clone()
    };
    assert!(matches!(
        store
            .save_sso_sign_in(
                SsoAccountChange::Create(&twin, &twin_link),
                31,
                &[&ev("user.create")]
            )
            .await,
        Err(StorageError::Conflict(_))
    ));
    assert_eq!(store.find_user(&twin.id).await.expect("find"), None);

    // A local account that proved itself links to its identity in the same write as its update;
    // an identity linked already cannot be linked again.
    let bo = user(&r.id, "bo@corp.example", Role::Developer);
    store
        .insert_user(&bo, None, &ev("user.create"))
        .await
        .expect("bo");
    let bo_link = UserIdentity {
        provider_id: acme.id.clone(),
        subject: "sub-bo".into(),
        user_id: bo.id.clone(),
        created_at: 35,
    };
    let bo_email = bo.email.clone();
    let change = |link| SsoAccountChange::Update {
        user: &bo.id,
        link,
        role: Role::Developer,
        email: &bo_email,
        display_name: "Bo",
    };
    store
        .save_sso_sign_in(change(Some(&bo_link)), 35, &[&ev("user.sso_link")])
        .await
        .expect("link");
    assert_eq!(
        store.identity_of_user(&bo.id).await.expect("identity"),
        Some(bo_link.clone())
    );
    let twice = UserIdentity {
        subject: "sub-ada".into(),
        ..bo_link.clone()
    };
    assert!(matches!(
        store
            .save_sso_sign_in(change(Some(&twice)), 36, &[&ev("user.sso_link")])
            .await,
        Err(StorageError::Conflict(_))
    ));
    assert_eq!(
        store.identity_of_user(&bo.id).await.expect("identity"),
        Some(bo_link)
    );

    // Later sign-ins update role, email and name; a change that leaves no enabled admin is
    // refused and changes nothing.
    let email = crate::accounts::Email::parse("ada.l@corp.example").expect("valid");
    store
        .save_sso_sign_in(
            SsoAccountChange::Update {
                user: &ada.id,
                link: None,
                role: Role::Admin,
                email: &email,
                display_name: "Ada L.",
            },
            40,
            &[&ev("session.login")],
        )
        .await
        .expect("update");
    let stored = store.find_user(&ada.id).await.expect("find").expect("user");
    assert_eq!(
        (
            stored.role,
            stored.email.as_str(),
            stored.display_name.as_str()
        ),
        (Role::Admin, "ada.l@corp.example", "Ada L.")
    );
    assert!(matches!(
        store
            .save_sso_sign_in(
                SsoAccountChange::Update {
                    user: &ada.id,
                    link: None,
                    role: Role::Developer,
                    email: &email,
                    display_name: "Ada L.",
                },
                41,
                &[&ev("session.login")],
            )
            .await,
        Err(StorageError::Precondition(_))
    ));
    // Ending the sessions changes the credential version only.
    store
        .save_sso_sign_in(
            SsoAccountChange::EndSessions(&ada.id),
            42,
            &[&ev("session.login")],
        )
        .await
        .expect("end sessions");
    let ended = store.find_user(&ada.id).await.expect("find").expect("user");
    assert_eq!(ended.credential_version, stored.credential_version + 1);
    assert_eq!(ended.role, Role::Admin);

    // Password sign-in off needs an enabled break-glass admin with a password; the last one
    // cannot lose the mark (nor be disabled or demoted) while it is off.
    assert!(
        !store
            .password_sign_in_break_glass_only()
            .await
            .expect("mode")
    );
    assert!(matches!(
        store
            .set_password_sign_in(true, 50, &ev("console.password_sign_in"))
            .await,
        Err(StorageError::Precondition(NO_BREAK_GLASS))
    ));
    let root = user(&r.id, "root@corp.example", Role::Admin);
    store
        .insert_user(&root, None, &ev("user.create"))
        .await
        .expect("root");
    assert!(matches!(
        store
            .set_user_break_glass(
                &crate::ids::UserId::from_stored("usr_gone"),
                true,
                50,
                &ev("user.break_glass")
            )
            .await,
        Err(StorageError::NotFound)
    ));
    store
        .set_user_break_glass(&root.id, true, 50, &ev("user.break_glass"))
        .await
        .expect("mark");
    store
        .set_password_sign_in(true, 51, &ev("console.password_sign_in"))
        .await
        .expect("off");
    assert!(
        store
            .password_sign_in_break_glass_only()
            .await
            .expect("mode")
    );
    assert!(matches!(
        store
            .set_user_break_glass(&root.id, false, 52, &ev("user.break_glass"))
            .await,
        Err(StorageError::Precondition(NO_BREAK_GLASS))
    ));
    assert!(matches!(
        store
            .set_user_disabled(&root.id, true, 52, &ev("user.disable"))
            .await,
        Err(StorageError::Precondition(NO_BREAK_GLASS))
    ));
    assert!(matches!(
        store
            .set_user_role(&root.id, Role::Developer, 52, &ev("user.role_change"))
            .await,
        Err(StorageError::Precondition(NO_BREAK_GLASS))
    ));
    let kept = store
        .find_user(&root.id)
        .await
        .expect("find")
        .expect("root");
    assert!(kept.break_glass && !kept.disabled && kept.role == Role::Admin);
    store
        .set_password_sign_in(false, 53, &ev("console.password_sign_in"))
        .await
        .expect("on");
    store
        .set_user_break_glass(&root.id, false, 54, &ev("user.break_glass"))
        .await
        .expect("unmark once password sign-in is on");

    // Disabling a provider ends its accounts' sessions; removing it removes their identities
    // (the accounts stay).
    let version = store
        .find_user(&ada.id)
        .await
        .expect("find")
        .expect("user")
        .credential_version;
    store
        .set_sso_provider_enabled(&acme.id, false, 60, &ev("sso_provider.disable"))
        .await
        .expect("disable");
    let after = store.find_user(&ada.id).await.expect("find").expect("user");
    assert_eq!(after.credential_version, version + 1);
    store
        .delete_sso_provider(&acme.id, &ev("sso_provider.delete"))
        .await
        .expect("delete");
    assert_eq!(store.find_sso_provider(&acme.id).await.expect("find"), None);
    assert_eq!(
        store.identity_of_user(&ada.id).await.expect("identity"),
        None
    );
    let gone = store
        .find_user(&ada.id)
        .await
        .expect("find")
        .expect("account stays");
    assert_eq!(gone.credential_version, version + 2);
    assert_eq!(gone.sso_provider, None);
    assert!(matches!(
        store
            .delete_sso_provider(&acme.id, &ev("sso_provider.delete"))
            .await,
        Err(StorageError::NotFound)
    ));
}
