//! Brokering persistence: a realm provider's people, created just in time or linked, with the
//! roles, units and rings a sign-in writes, all or nothing; a provider's disabled flag read
//! through its people.
use super::authorize::person;
use super::fixtures::{audit_count, event, given_realm};
use crate::error::StorageError;
use crate::registry::{GroupKind, MemberKind};
use crate::sso::{RoleRules, SsoProvider, SsoProviderId};
use crate::storage::{BrokeredSignIn, Database};

fn provider(realm: &crate::realms::Realm) -> SsoProvider {
    SsoProvider {
        id: SsoProviderId::generate(),
        realm_id: realm.id.clone(),
        display_name: "Corp".into(),
        button_text: "Sign in with Corp".into(),
        issuer: "https://idp.corp.example".into(),
        client_id: "portcullis".into(),
        sealed_client_secret: None,
        scopes: vec!["openid".into()],
        groups_claim: "groups".into(),
        rules: RoleRules::default(),
        trust_email: false,
        second_factor_amr: vec![],
        second_factor_acr: vec![],
        for_people: true,
        group_mapping: vec![],
        enabled: true,
        created_at: 10,
        updated_at: 10,
    }
}

pub(super) async fn broker(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = |action| event(&r.id, action, "grace@corp.example", "person:x", 20);
    let corp = provider(&r);
    store
        .insert_sso_provider(&corp, &ev("sso_provider.create"))
        .await
        .expect("provider");
    // A realm's people providers and its console providers are listed apart.
    assert_eq!(
        store
            .list_sso_providers(&r.id, true)
            .await
            .expect("list")
            .len(),
        1
    );
    assert!(
        store
            .list_sso_providers(&r.id, false)
            .await
            .expect("list")
            .is_empty()
    );

    // Just in time: the person, the link, a role and a unit, and both audit rows, together.
    let mut grace = person(&r, "grace@corp.example");
    grace.password_hash = None;
    let before = audit_count(&store).await;
    let add = [(GroupKind::Unit, "platform".to_owned())];
    let change = BrokeredSignIn {
        create: Some(&grace),
        person: &grace.id,
        provider: &corp.id,
        link: Some("sub-grace"),
        roles: Some("mcp-user".into()),
        add: &add,
        remove: &[],
        added_by: "sso_provider:corp",
        at: 30,
    };
    store
        .save_brokered_sign_in(&change, &[ev("person.create"), ev("person.update")])
        .await
        .expect("jit");
    assert_eq!(audit_count(&store).await, before + 2);
    assert_eq!(
        store
            .find_upstream_person(&corp.id, "sub-grace")
            .await
            .expect("find"),
        Some(grace.id.clone())
    );
    let stored = store
        .find_person(&r.id, &grace.id)
        .await
        .expect("find")
        .expect("person");
    assert!(stored.linked);
    assert_eq!(stored.provider, Some(corp.id.clone()));
    assert_eq!(stored.provider_name.as_deref(), Some("Corp"));
    assert_eq!(stored.roles.to_string(), "mcp-user");
    assert_eq!(
        store
            .groups_of(&r.id, (MemberKind::Person, grace.id.as_str()))
            .await
            .expect("groups"),
        add.to_vec()
    );
    assert_eq!(
        store.count_provider_people(&corp.id).await.expect("count"),
        1
    );

    // The same subject linked again (a second sign-in racing the first): nothing is written.
    let other = person(&r, "other@corp.example");
    let before = audit_count(&store).await;
    let err = store
        .save_brokered_sign_in(
            &BrokeredSignIn {
                create: Some(&other),
                person: &other.id,
                link: Some("sub-grace"),
                ..change.clone()
            },
            &[ev("person.create")],
        )
        .await
        .expect_err("linked already");
    assert!(matches!(err, StorageError::Conflict(_)), "{err:?}");
    assert_eq!(audit_count(&store).await, before);
    assert!(
        store
            .find_person(&r.id, &other.id)
            .await
            .expect("find")
            .is_none()
    );

    // A later sign-in: out of the unit, into a ring; roles unchanged; no audit row needed.
    let ring = [(GroupKind::Ring, "canary".to_owned())];
    store
        .save_brokered_sign_in(
            &BrokeredSignIn {
                create: None,
                link: None,
                roles: None,
                add: &ring,
                remove: &add,
                ..change.clone()
            },
            &[],
        )
        .await
        .expect("sync");
    assert_eq!(
        store
            .groups_of(&r.id, (MemberKind::Person, grace.id.as_str()))
            .await
            .expect("groups"),
        ring.to_vec()
    );

    // Disabling the provider shows on its people.
    store
        .set_sso_provider_enabled(&corp.id, false, 40, &ev("sso_provider.disable"))
        .await
        .expect("disable");
    let stored = store
        .find_person(&r.id, &grace.id)
        .await
        .expect("find")
        .expect("person");
    assert!(stored.provider_disabled && !stored.disabled);
    assert!(
        store
            .find_upstream_person(&corp.id, "sub-nobody")
            .await
            .expect("find")
            .is_none()
    );
}
