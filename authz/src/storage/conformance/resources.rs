use super::fixtures::{event, given_realm, resource};
use crate::error::StorageError;
use crate::ids::{RealmId, ResourceId};
use crate::resources::ResourceUri;
use crate::scope::ScopeSet;
use crate::storage::Database;

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
    let mut changed = pay.clone();
    changed.enabled = false;
    changed.signing_alg = None;
    changed.scopes = ScopeSet::parse("mcp").expect("valid");
    changed.token_ttl_secs = 60;
    changed.updated_at = 9;
    store
        .update_resource(&changed, &ev())
        .await
        .expect("update");
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
        .delete_resource(&email.id, &ev())
        .await
        .expect("delete");
    let stored = store.find_realm(&r.id).await.expect("find").expect("realm");
    assert_eq!(stored.default_resource_id, None, "ON DELETE SET NULL");
    let err = store
        .delete_resource(&email.id, &ev())
        .await
        .expect_err("gone");
    assert!(matches!(err, StorageError::NotFound), "{err:?}");
    assert_eq!(store.list_resources(&r.id).await.expect("list").len(), 1);
}
