//! Federation persistence: trusted issuers, ID-JAG `jti`s, and upstream identities linked to
//! people.
use super::authorize::person;
use super::fixtures::{audit_count, event, given_realm};
use crate::clients::ClientId;
use crate::error::StorageError;
use crate::federation::{IssuerKeys, PersonIdentity, TrustedIssuer, TrustedIssuerId};
use crate::keys::SigningAlg;
use crate::storage::{Database, Purged};

fn issuer(realm: &crate::realms::Realm, iss: &str) -> TrustedIssuer {
    TrustedIssuer {
        id: TrustedIssuerId::generate(),
        realm_id: realm.id.clone(),
        issuer: iss.into(),
        display_name: "Corp".into(),
        keys: IssuerKeys::Uri(format!("{iss}/keys")),
        algorithms: vec![SigningAlg::ES256, SigningAlg::RS256],
        clients: vec![ClientId::parse("app").expect("valid")],
        create_people: false,
        link_by_email: true,
        enabled: true,
        created_at: 10,
        updated_at: 10,
    }
}

pub(super) async fn federation(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let other = given_realm(&store, "other").await;
    let ev = |action| event(&r.id, action, "cli", "idp:x", 20);

    // Trusted issuers: one per issuer and realm, stored as given.
    let mut corp = issuer(&r, "https://idp.example.com");
    store
        .insert_trusted_issuer(&corp, &ev("trusted_issuer.create"))
        .await
        .expect("insert");
    assert!(matches!(
        store
            .insert_trusted_issuer(
                &issuer(&r, "https://idp.example.com"),
                &ev("trusted_issuer.create")
            )
            .await,
        Err(StorageError::Conflict(_))
    ));
    store
        .insert_trusted_issuer(
            &issuer(&other, "https://idp.example.com"),
            &ev("trusted_issuer.create"),
        )
        .await
        .expect("another realm may trust it too");
    corp.keys = IssuerKeys::Inline(serde_json::json!({"keys": [{"kty": "OKP"}]}));
    corp.clients
        .push(ClientId::parse("https://app.example.com/meta.json").expect("valid"));
    corp.algorithms = vec![SigningAlg::EdDSA];
    corp.updated_at = 30;
    store
        .update_trusted_issuer(&corp, &ev("trusted_issuer.update"))
        .await
        .expect("update");
    let found = store
        .find_trusted_issuer(&r.id, "https://idp.example.com")
        .await
        .expect("find")
        .expect("there");
    assert_eq!(found, corp);
    assert!(
        store
            .find_trusted_issuer(&r.id, "https://idp.example.com/")
            .await
            .expect("find")
            .is_none(),
        "compared exactly"
    );
    store
        .set_trusted_issuer_enabled(&corp.id, false, 40, &ev("trusted_issuer.disable"))
        .await
        .expect("disable");
    let listed = store.list_trusted_issuers(&r.id).await.expect("list");
    assert_eq!(listed.len(), 1);
    assert!(!listed[0].enabled);
    store
        .delete_trusted_issuer(&corp.id, &ev("trusted_issuer.delete"))
        .await
        .expect("delete");
    assert!(matches!(
        store
            .delete_trusted_issuer(&corp.id, &ev("trusted_issuer.delete"))
            .await,
        Err(StorageError::NotFound)
    ));

    // ID-JAG jtis: once per issuer and realm, forgotten after they expire.
    let iss = "https://idp.example.com";
    assert!(
        store
            .consume_identity_assertion_jti(&r.id, iss, "j1", 100)
            .await
            .expect("jti")
    );
    assert!(
        !store
            .consume_identity_assertion_jti(&r.id, iss, "j1", 100)
            .await
            .expect("jti"),
        "replay"
    );
    assert!(
        store
            .consume_identity_assertion_jti(&r.id, "https://b.example", "j1", 100)
            .await
            .expect("jti"),
        "per issuer"
    );
    assert!(
        store
            .consume_identity_assertion_jti(&other.id, iss, "j1", 100)
            .await
            .expect("jti"),
        "per realm"
    );
    assert_eq!(
        store.purge_expired(100).await.expect("purge"),
        Purged {
            assertion_jtis: 3,
            ..Purged::default()
        }
    );
    assert!(
        store
            .consume_identity_assertion_jti(&r.id, iss, "j1", 200)
            .await
            .expect("jti"),
        "forgotten after expiry"
    );

    // People created with their link, in one transaction: a taken email writes nothing.
    let grace = person(&r, "grace@example.com");
    let link = |p: &crate::people::Person, sub: &str| PersonIdentity {
        realm_id: r.id.clone(),
        issuer: iss.into(),
        subject: sub.into(),
        person_id: p.id.clone(),
        created_at: 50,
    };
    let before = audit_count(&store).await;
    store
        .insert_linked_person(&grace, &link(&grace, "g-1"), &ev("person.create"))
        .await
        .expect("created");
    assert_eq!(audit_count(&store).await, before + 1);
    let twin = person(&r, "grace@example.com");
    assert!(matches!(
        store
            .insert_linked_person(&twin, &link(&twin, "g-2"), &ev("person.create"))
            .await,
        Err(StorageError::Conflict(_))
    ));
    assert!(
        store
            .find_person_identity(&r.id, iss, "g-2")
            .await
            .expect("find")
            .is_none(),
        "no link without its person"
    );
    assert_eq!(audit_count(&store).await, before + 1, "and no audit row");
    let found = store
        .find_person_identity(&r.id, iss, "g-1")
        .await
        .expect("find")
        .expect("linked");
    assert_eq!(found.person_id, grace.id);
    assert!(
        store
            .find_person_identity(&other.id, iss, "g-1")
            .await
            .expect("find")
            .is_none()
    );

    // Linking an existing person: an identity is linked once.
    let ada = person(&r, "ada@example.com");
    store
        .insert_person(&ada, &ev("person.create"))
        .await
        .expect("person");
    store
        .link_person(&link(&ada, "a-1"), &ev("person.link"))
        .await
        .expect("link");
    assert!(matches!(
        store
            .link_person(&link(&grace, "a-1"), &ev("person.link"))
            .await,
        Err(StorageError::Conflict(_))
    ));
    store
        .link_person(&link(&ada, "a-2"), &ev("person.link"))
        .await
        .expect("a second identity");
    let ids: Vec<String> = store
        .list_person_identities(&ada.id)
        .await
        .expect("list")
        .into_iter()
        .map(|l| l.subject)
        .collect();
    assert_eq!(ids, ["a-1", "a-2"]);
}
