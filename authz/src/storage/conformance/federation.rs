//! Federation persistence: trusted issuers, ID-JAG `jti`s, and upstream identities linked to
//! people.
use super::authorize::person;
use super::fixtures::{audit_count, event, given_realm};
use crate::authorize::{FamilyId, TokenFamily};
use crate::clients::ClientId;
use crate::error::StorageError;
use crate::federation::{IssuerKeys, PersonIdentity, TrustedIssuer, TrustedIssuerId};
use crate::keys::SigningAlg;
use crate::scope::ScopeSet;
use crate::storage::{AssertionRedeemed, Database, NewSubject};

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
        .update_trusted_issuer(&corp, false, &ev("trusted_issuer.update"))
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

    // Redemption: the jti once per issuer and realm, the subject's link or person and the
    // family in one transaction, nothing written on a replay or a conflict.
    let iss = "https://idp.example.com";
    let idp = issuer(&r, iss);
    store
        .insert_trusted_issuer(&idp, &ev("trusted_issuer.create"))
        .await
        .expect("insert");
    let idp_b = issuer(&r, "https://b.example");
    store
        .insert_trusted_issuer(&idp_b, &ev("trusted_issuer.create"))
        .await
        .expect("insert");
    let app = super::fixtures::client(&r.id, "app");
    store
        .insert_client(&app, None, &ev("client.create"))
        .await
        .expect("client");
    let res = super::fixtures::resource(&r.id, "pay", "https://pay.example.com/mcp");
    store
        .insert_resource(&res, &ev("resource.create"))
        .await
        .expect("resource");
    let family = |subject: &crate::people::Person| TokenFamily {
        id: FamilyId::generate(),
        realm_id: r.id.clone(),
        subject: subject.id.to_string(),
        client_pk: app.id.clone(),
        resource_id: res.id.clone(),
        scopes: ScopeSet::default(),
        offline: false,
        openid: None,
        auth_time: 50,
        created_at: 50,
        expires_at: 400,
        revoked_at: None,
        revoked_reason: None,
    };
    let link = |p: &crate::people::Person, sub: &str| PersonIdentity {
        realm_id: r.id.clone(),
        issuer: iss.into(),
        subject: sub.into(),
        person_id: p.id.clone(),
        created_at: 50,
    };
    let grace = person(&r, "grace@example.com");
    let before = audit_count(&store).await;
    let created = ev("person.create");
    let first = family(&grace);
    assert_eq!(
        store
            .redeem_identity_assertion(
                iss,
                ("j1", 100),
                NewSubject::Create(&grace, &link(&grace, "g-1"), &created),
                &first
            )
            .await
            .expect("redeem"),
        AssertionRedeemed::Done
    );
    assert_eq!(
        audit_count(&store).await,
        before + 1,
        "the person's audit row"
    );
    let found = store
        .find_person_identity(&r.id, iss, "g-1")
        .await
        .expect("find")
        .expect("linked");
    assert_eq!(found.person_id, grace.id);
    assert!(
        store
            .find_family(&first.id)
            .await
            .expect("family")
            .is_some()
    );
    assert!(
        store
            .find_person_identity(&other.id, iss, "g-1")
            .await
            .expect("find")
            .is_none()
    );
    // The same jti again: a replay, nothing written.
    let again = family(&grace);
    assert_eq!(
        store
            .redeem_identity_assertion(
                iss,
                ("j1", 100),
                NewSubject::Linked(&link(&grace, "g-1")),
                &again,
            )
            .await
            .expect("redeem"),
        AssertionRedeemed::Replayed
    );
    assert!(
        store
            .find_family(&again.id)
            .await
            .expect("family")
            .is_none()
    );
    // Another issuer's j1 is another jti.
    let bea = person(&r, "bea@example.com");
    let b = family(&bea);
    let b_link = PersonIdentity {
        issuer: "https://b.example".into(),
        ..link(&bea, "b-1")
    };
    assert_eq!(
        store
            .redeem_identity_assertion(
                "https://b.example",
                ("j1", 100),
                NewSubject::Create(&bea, &b_link, &created),
                &b,
            )
            .await
            .expect("redeem"),
        AssertionRedeemed::Done
    );
    // A second person with the email: a conflict, and the jti stays unused.
    let twin = person(&r, "grace@example.com");
    let twin_family = family(&twin);
    assert_eq!(
        store
            .redeem_identity_assertion(
                iss,
                ("j2", 100),
                NewSubject::Create(&twin, &link(&twin, "g-2"), &created),
                &twin_family
            )
            .await
            .expect("redeem"),
        AssertionRedeemed::Conflict
    );
    assert!(
        store
            .find_person_identity(&r.id, iss, "g-2")
            .await
            .expect("find")
            .is_none()
    );
    assert!(
        store
            .find_family(&twin_family.id)
            .await
            .expect("family")
            .is_none()
    );
    let after_conflict = family(&grace);
    assert_eq!(
        store
            .redeem_identity_assertion(
                iss,
                ("j2", 100),
                NewSubject::Linked(&link(&grace, "g-1")),
                &after_conflict,
            )
            .await
            .expect("redeem"),
        AssertionRedeemed::Done,
        "the conflict left j2 unused"
    );
    // Linking an existing person: an identity is linked once.
    let ada = person(&r, "ada@example.com");
    store
        .insert_person(&ada, &ev("person.create"))
        .await
        .expect("person");
    let linked = ev("person.link");
    assert_eq!(
        store
            .redeem_identity_assertion(
                iss,
                ("j3", 100),
                NewSubject::Link(&link(&ada, "a-1"), &linked),
                &family(&ada)
            )
            .await
            .expect("redeem"),
        AssertionRedeemed::Done
    );
    assert_eq!(
        store
            .redeem_identity_assertion(
                iss,
                ("j4", 100),
                NewSubject::Link(&link(&grace, "a-1"), &linked),
                &family(&grace)
            )
            .await
            .expect("redeem"),
        AssertionRedeemed::Conflict
    );
    let subjects: Vec<String> = store
        .list_person_identities(&ada.id)
        .await
        .expect("list")
        .into_iter()
        .map(|l| l.subject)
        .collect();
    assert_eq!(subjects, ["a-1"]);

    // Housekeeping forgets expired jtis.
    let purged = store.purge_expired(100).await.expect("purge");
    assert_eq!(
        purged.assertion_jtis, 4,
        "j1 twice (two issuers), j2 and j3; the conflicts left none"
    );

    // A subject unlinked meanwhile: a conflict, nothing written.
    assert_eq!(
        store
            .redeem_identity_assertion(
                iss,
                ("j5", 100),
                NewSubject::Linked(&link(&grace, "no-such-subject")),
                &family(&grace),
            )
            .await
            .expect("redeem"),
        AssertionRedeemed::Conflict
    );
    // Disabling the issuer revokes the families its assertions started, and refuses what is
    // redeemed after; removing it also removes its links.
    store
        .set_trusted_issuer_enabled(&idp.id, false, 60, &ev("trusted_issuer.disable"))
        .await
        .expect("disable");
    let revoked = store
        .find_family(&first.id)
        .await
        .expect("family")
        .expect("kept");
    assert_eq!(revoked.revoked_reason.as_deref(), Some("issuer_disabled"));
    assert_eq!(
        store
            .redeem_identity_assertion(
                iss,
                ("j6", 100),
                NewSubject::Linked(&link(&grace, "g-1")),
                &family(&grace),
            )
            .await
            .expect("redeem"),
        AssertionRedeemed::IssuerGone
    );
    assert!(
        store
            .find_family(&b.id)
            .await
            .expect("family")
            .expect("kept")
            .revoked_at
            .is_none(),
        "another issuer's family lives on"
    );
    store
        .delete_trusted_issuer(&idp.id, &ev("trusted_issuer.delete"))
        .await
        .expect("delete");
    assert!(
        store
            .find_person_identity(&r.id, iss, "g-1")
            .await
            .expect("find")
            .is_none()
    );
    assert!(
        store
            .find_person(&r.id, &grace.id)
            .await
            .expect("find")
            .is_some(),
        "people stay"
    );
}
