use super::fixtures::{audit_count, event, realm};
use crate::error::StorageError;
use crate::realms::{Realm, RealmId, RealmName};
use crate::storage::Database;

pub(super) async fn realms(db: &Database) {
    let store = db.store();
    let r = realm("default");
    let e = event(&r.id, "realm.create", "system", "realm:default", 1_000);
    assert!(store.insert_realm_if_absent(&r, &e).await.expect("insert"));
    assert!(
        !store
            .insert_realm_if_absent(&realm("default"), &e)
            .await
            .expect("insert")
    );
    assert_eq!(
        audit_count(&store).await,
        1,
        "no audit row when nothing was inserted"
    );

    let found = store
        .find_realm_by_name(&RealmName::parse("default").expect("valid"))
        .await
        .expect("find");
    assert_eq!(found, Some(r.clone()));
    assert_eq!(
        store.find_realm(&r.id).await.expect("find"),
        Some(r.clone())
    );
    assert_eq!(
        store.find_realm(&RealmId::generate()).await.expect("find"),
        None
    );

    let p = realm("payments");
    store
        .insert_realm(
            &p,
            &event(&p.id, "realm.create", "a@x.io", "realm:payments", 1_001),
        )
        .await
        .expect("insert");
    let dup = realm("payments");
    let err = store
        .insert_realm(
            &dup,
            &event(&dup.id, "realm.create", "a@x.io", "realm:payments", 1_002),
        )
        .await
        .expect_err("duplicate name");
    assert!(matches!(err, StorageError::Conflict(_)), "{err:?}");
    assert_eq!(
        audit_count(&store).await,
        2,
        "a failed insert writes no audit row"
    );

    let names: Vec<_> = store
        .list_realms()
        .await
        .expect("list")
        .into_iter()
        .map(|r| r.name.to_string())
        .collect();
    assert_eq!(names, ["default", "payments"]);

    let mut renamed = p.clone();
    renamed.name = RealmName::parse("billing").expect("valid");
    renamed.enabled = false;
    renamed.token_ttl_secs = 900;
    renamed.refresh_idle_ttl_secs = 86_400;
    renamed.refresh_max_ttl_secs = 172_800;
    renamed.updated_at = 1_100;
    store
        .update_realm(
            &renamed,
            &event(&p.id, "realm.update", "a@x.io", "realm:payments", 1_100),
        )
        .await
        .expect("update");
    // A settings write leaves the enabled flag alone (a stale copy never re-enables a realm).
    let stored = store.find_realm(&p.id).await.expect("find").expect("realm");
    assert_eq!(
        stored,
        Realm {
            enabled: true,
            ..renamed.clone()
        }
    );
    store
        .set_realm_enabled(
            &p.id,
            false,
            1_100,
            &event(&p.id, "realm.disable", "a@x.io", "realm:billing", 1_100),
        )
        .await
        .expect("disable");
    assert_eq!(
        store.find_realm(&p.id).await.expect("find"),
        Some(renamed.clone())
    );
    let err = store
        .set_realm_enabled(
            &realm("ghost").id,
            true,
            1_100,
            &event(&r.id, "realm.enable", "a@x.io", "realm:ghost", 1_100),
        )
        .await
        .expect_err("missing realm");
    assert!(matches!(err, StorageError::NotFound), "{err:?}");

    // Registration settings are written on their own, lifetimes of clients and secrets
    // included.
    let mut registration = renamed.clone();
    registration.registration_policy = crate::realms::RegistrationPolicy::Open;
    registration.max_dynamic_clients = 7;
    registration.unused_client_ttl_secs = 0;
    registration.client_secret_ttl_secs = 86_400;
    registration.registrations_per_source = 40;
    registration.trusted_networks = vec![
        crate::net::Cidr::parse("203.0.113.0/24").expect("cidr"),
        crate::net::Cidr::parse("2001:db8::/48").expect("cidr"),
    ];
    registration.registrations_per_trusted_network = 500;
    registration.metadata_document_machine_domains = vec!["agents.example.com".into()];
    registration.display_name = "not written".into();
    store
        .set_realm_registration(
            &registration,
            &event(&p.id, "realm.update", "a@x.io", "realm:billing", 1_100),
        )
        .await
        .expect("registration");
    let renamed = Realm {
        registration_policy: crate::realms::RegistrationPolicy::Open,
        max_dynamic_clients: 7,
        unused_client_ttl_secs: 0,
        client_secret_ttl_secs: 86_400,
        registrations_per_source: 40,
        trusted_networks: registration.trusted_networks.clone(),
        registrations_per_trusted_network: 500,
        metadata_document_machine_domains: vec!["agents.example.com".into()],
        password_sign_in: true,
        ..renamed
    };
    assert_eq!(
        store.find_realm(&p.id).await.expect("find"),
        Some(renamed.clone())
    );
    let mut clash = renamed.clone();
    clash.name = RealmName::parse("default").expect("valid");
    let err = store
        .update_realm(
            &clash,
            &event(&p.id, "realm.update", "a@x.io", "realm:billing", 1_101),
        )
        .await
        .expect_err("rename onto an existing name");
    assert!(matches!(err, StorageError::Conflict(_)), "{err:?}");
    let ghost = realm("ghost");
    let err = store
        .update_realm(
            &ghost,
            &event(&r.id, "realm.update", "a@x.io", "realm:ghost", 1_102),
        )
        .await
        .expect_err("missing realm");
    assert!(matches!(err, StorageError::NotFound), "{err:?}");
    assert_eq!(
        audit_count(&store).await,
        5,
        "only the successful writes were audited"
    );
}
