//! Identity chaining persistence: a realm's trusting authorization servers, their settings,
//! client links and enabled flag, one issuer per realm, each change with its audit row.
use super::fixtures::{audit_count, event, given_realm};
use crate::chaining::{ClientLink, TrustingServer, TrustingServerId};
use crate::clients::ClientId;
use crate::error::StorageError;
use crate::scope::ScopeSet;
use crate::storage::Database;

pub(super) async fn chaining(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let other = given_realm(&store, "other").await;
    let ev = |action| event(&r.id, action, "root@example.com", "trusting_as:x", 20);
    let mut server = TrustingServer {
        id: TrustingServerId::generate(),
        realm_id: r.id.clone(),
        issuer: "https://as.tickets.example".into(),
        display_name: "Tickets".into(),
        resources: vec![
            "https://tickets.example/mcp".into(),
            "https://wiki.example/".into(),
        ],
        scopes: ScopeSet::default(),
        clients: vec![
            ClientLink {
                client_id: ClientId::parse("desk").expect("id"),
                known_as: "0oa8f5j3".into(),
                client_pk: Some(crate::ids::ClientRowId::generate()),
            },
            ClientLink {
                client_id: ClientId::parse("ops").expect("id"),
                known_as: "ops".into(),
                client_pk: Some(crate::ids::ClientRowId::generate()),
            },
        ],
        enabled: true,
        created_at: 10,
        updated_at: 10,
    };
    let before = audit_count(&store).await;
    store
        .insert_trusting_server(&server, &ev("trusting_server.create"))
        .await
        .expect("insert");
    assert_eq!(audit_count(&store).await, before + 1);
    assert_eq!(
        store.list_trusting_servers(&r.id).await.expect("list"),
        vec![server.clone()],
        "read back as written"
    );
    // One entry per issuer in a realm; another realm may list the same server.
    let again = TrustingServer {
        id: TrustingServerId::generate(),
        ..server.clone()
    };
    assert!(matches!(
        store
            .insert_trusting_server(&again, &ev("trusting_server.create"))
            .await,
        Err(StorageError::Conflict(_))
    ));
    store
        .insert_trusting_server(
            &TrustingServer {
                realm_id: other.id.clone(),
                ..again
            },
            &event(&other.id, "trusting_server.create", "root", "x", 20),
        )
        .await
        .expect("another realm");

    server.scopes = ScopeSet::parse("tickets:read").expect("scopes");
    server.clients.truncate(1);
    server.enabled = false;
    server.updated_at = 30;
    store
        .update_trusting_server(&server, &ev("trusting_server.update"))
        .await
        .expect("update");
    assert_eq!(
        store.list_trusting_servers(&r.id).await.expect("list"),
        vec![server.clone()]
    );
    store
        .delete_trusting_server(&server.id, &ev("trusting_server.delete"))
        .await
        .expect("delete");
    assert!(
        store
            .list_trusting_servers(&r.id)
            .await
            .expect("list")
            .is_empty()
    );
    assert!(matches!(
        store
            .delete_trusting_server(&server.id, &ev("trusting_server.delete"))
            .await,
        Err(StorageError::NotFound)
    ));
    assert!(matches!(
        store
            .update_trusting_server(&server, &ev("trusting_server.update"))
            .await,
        Err(StorageError::NotFound)
    ));
    assert_eq!(
        store
            .list_trusting_servers(&other.id)
            .await
            .expect("list")
            .len(),
        1
    );
}
