use super::fixtures::{agent, client, event, given_realm, resource};
use crate::clients::{AgentBinding, BindingId, ClientId, ClientSecret, SecretId};
use crate::error::StorageError;
use crate::paging::Page;
use crate::storage::Database;

pub(super) async fn clients(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = || event(&r.id, "client.create", "a@x.io", "client:x", 2);
    let bot = client(&r.id, "reports-bot");
    let secret = |hash: &[u8], at: i64| ClientSecret {
        id: SecretId::generate(),
        client_pk: bot.id.clone(),
        secret_hash: hash.to_vec(),
        created_at: at,
        expires_at: None,
    };
    let first = secret(b"h1", 3);
    store
        .insert_client(&bot, Some(&first), &ev())
        .await
        .expect("insert");
    let err = store
        .insert_client(&client(&r.id, "reports-bot"), None, &ev())
        .await
        .expect_err("dup");
    assert!(matches!(err, StorageError::Conflict(_)), "{err:?}");
    store
        .insert_client(&client(&r.id, "alpha_100%"), None, &ev())
        .await
        .expect("insert");
    let id = |s: &str| ClientId::parse(s).expect("valid");
    assert_eq!(
        store
            .find_client(&r.id, &id("reports-bot"))
            .await
            .expect("find"),
        Some(bot.clone())
    );
    let page = store
        .list_clients(&r.id, None, Page::first(10))
        .await
        .expect("list");
    assert_eq!(page.total, 2);
    assert_eq!(page.items[0].client_id.as_str(), "alpha_100%");
    let total = |q: &'static str| {
        let store = store.clone();
        let realm = r.id.clone();
        async move {
            store
                .list_clients(&realm, Some(q), Page::first(10))
                .await
                .expect("list")
                .total
        }
    };
    assert_eq!(total("%").await, 1);
    assert_eq!(total("REPORTS").await, 1);
    // Long enough for the trigram index, wildcards still literal, names searched too.
    assert_eq!(total("a_1").await, 1, "the underscore is literal");
    assert_eq!(total("ts-b").await, 1, "a substring across a word break");
    assert_eq!(total("client reports").await, 1, "names are searched too");
    assert_eq!(total("nothing-like-it").await, 0);

    let second = secret(b"h2", 50);
    store
        .rotate_client_secret(&second, 110, &ev())
        .await
        .expect("rotate");
    let secrets = store.list_client_secrets(&bot.id).await.expect("secrets");
    assert_eq!(secrets.len(), 2);
    assert_eq!((&secrets[0].id, secrets[0].expires_at), (&second.id, None));
    assert_eq!(
        (&secrets[1].id, secrets[1].expires_at),
        (&first.id, Some(110))
    );

    // Binding and enabling are separate writes: neither undoes the other.
    let a = agent(&r.id, "reports");
    store.insert_agent(&a, &ev()).await.expect("agent");
    let binding = AgentBinding {
        agent_id: a.id.clone(),
        binding_id: BindingId::generate(),
    };
    store
        .set_client_agent(&bot.id, Some(&binding), 60, &ev())
        .await
        .expect("bind");
    store
        .set_client_enabled(&bot.id, false, 61, &ev())
        .await
        .expect("disable");
    // A registration change writes name, scope and metadata only: the binding and the
    // disabled status set just before stay.
    let mut edited = bot.clone();
    edited.name = "Renamed bot".into();
    edited.scope = crate::scope::ScopeSet::parse("tools:read").expect("scope");
    edited.metadata.contacts = vec!["new@example.com".into()];
    edited.enabled = true;
    edited.agent = None;
    edited.updated_at = 61;
    store
        .update_client_registration(&edited, &ev())
        .await
        .expect("edit");
    let mut expected = bot.clone();
    expected.agent = Some(binding);
    expected.enabled = false;
    expected.updated_at = 61;
    expected.name = edited.name.clone();
    expected.scope = edited.scope.clone();
    expected.metadata = edited.metadata.clone();
    let found = store
        .find_client(&r.id, &id("reports-bot"))
        .await
        .expect("find");
    assert_eq!(found, Some(expected));
    store
        .set_client_agent(&bot.id, None, 62, &ev())
        .await
        .expect("unbind");
    let found = store
        .find_client(&r.id, &id("reports-bot"))
        .await
        .expect("find")
        .expect("client");
    assert_eq!((found.agent, found.enabled), (None, false));
    let ghost = crate::clients::ClientRowId::generate();
    assert!(matches!(
        store.set_client_enabled(&ghost, true, 63, &ev()).await,
        Err(StorageError::NotFound)
    ));
    let mut gone = edited.clone();
    gone.id = ghost.clone();
    assert!(matches!(
        store.update_client_registration(&gone, &ev()).await,
        Err(StorageError::NotFound)
    ));
    store.delete_client(&bot.id, &ev()).await.expect("delete");
    assert_eq!(
        total("REPORTS").await,
        0,
        "a deleted client is not found any more"
    );
    assert!(
        store
            .list_client_secrets(&bot.id)
            .await
            .expect("secrets")
            .is_empty(),
        "secrets go with the client"
    );
    assert!(matches!(
        store.delete_client(&bot.id, &ev()).await,
        Err(StorageError::NotFound)
    ));
}

pub(super) async fn resource_server_credentials(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = || event(&r.id, "client.create", "a@x.io", "client:x", 2);
    let pay = resource(&r.id, "payments-mcp", "https://pay.example.com/mcp");
    store.insert_resource(&pay, &ev()).await.expect("resource");
    let mut rs = client(&r.id, "payments-mcp-introspect");
    rs.grant_types = vec![];
    rs.resource_server_for = Some(pay.id.clone());
    store
        .insert_client(&rs, None, &ev())
        .await
        .expect("credentials");
    let found = store.find_client(&r.id, &rs.client_id).await.expect("find");
    assert_eq!(
        found.and_then(|c| c.resource_server_for),
        Some(pay.id.clone())
    );
    let by_resource = store
        .find_resource_server_client(&pay.id)
        .await
        .expect("by resource");
    assert_eq!(by_resource.map(|c| c.client_id), Some(rs.client_id.clone()));
    let mut again = client(&r.id, "second-introspect");
    again.resource_server_for = Some(pay.id.clone());
    let err = store
        .insert_client(&again, None, &ev())
        .await
        .expect_err("one set per resource");
    assert!(matches!(err, StorageError::Conflict(_)), "{err:?}");
    store
        .delete_resource(&pay.id, None, &ev())
        .await
        .expect("delete resource");
    assert_eq!(
        store.find_client(&r.id, &rs.client_id).await.expect("find"),
        None,
        "the credentials go with their resource"
    );
    assert_eq!(
        store
            .find_resource_server_client(&pay.id)
            .await
            .expect("by resource"),
        None
    );
}
