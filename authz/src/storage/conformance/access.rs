use super::fixtures::{audit_count, client, event, given_realm, resource};
use crate::access::Grant;
use crate::error::StorageError;
use crate::paging::Page;
use crate::scope::ScopeSet;
use crate::storage::Database;

fn scopes(s: &str) -> ScopeSet {
    ScopeSet::parse(s).expect("valid")
}

pub(super) async fn grants(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = |action| event(&r.id, action, "a@x.io", "client:bot", 2);
    let pay = resource(&r.id, "pay", "https://pay.example.com/mcp");
    let mail = resource(&r.id, "mail", "https://mail.example.com/mcp");
    for res in [&pay, &mail] {
        store
            .insert_resource(res, &ev("resource.create"))
            .await
            .expect("resource");
    }
    let bot = client(&r.id, "bot");
    let other = client(&r.id, "other-client");
    for c in [&bot, &other] {
        store
            .insert_client(c, None, &ev("client.create"))
            .await
            .expect("client");
    }
    assert!(
        store
            .list_client_grants(&bot.id)
            .await
            .expect("list")
            .is_empty()
    );

    let grant = |c: &crate::clients::Client, res: &crate::resources::Resource, s: &str, at| Grant {
        client: c.id.clone(),
        resource: res.id.clone(),
        scopes: scopes(s),
        created_at: at,
        updated_at: at,
        last_used_at: None,
    };
    let before = audit_count(&store).await;
    let generation = store.generation();
    store
        .put_grant(&grant(&bot, &pay, "tools:call", 10), &ev("access.grant"))
        .await
        .expect("grant");
    assert_eq!(
        audit_count(&store).await,
        before + 1,
        "audited with the change"
    );
    assert_ne!(
        store.generation(),
        generation,
        "the token path's cache is invalidated"
    );
    // Granting again changes the scopes and keeps the first grant time.
    store
        .put_grant(
            &grant(&bot, &pay, "tools:call tools:read", 20),
            &ev("access.update"),
        )
        .await
        .expect("change");
    store
        .put_grant(&grant(&bot, &mail, "tools:read", 30), &ev("access.grant"))
        .await
        .expect("grant");
    store
        .put_grant(&grant(&other, &pay, "tools:read", 40), &ev("access.grant"))
        .await
        .expect("grant");
    let mine = store.list_client_grants(&bot.id).await.expect("list");
    let on_pay = mine.iter().find(|g| g.resource == pay.id).expect("pay");
    assert_eq!(
        (
            on_pay.scopes.to_string(),
            on_pay.created_at,
            on_pay.updated_at
        ),
        ("tools:call tools:read".to_owned(), 10, 20)
    );
    assert_eq!(mine.len(), 2);

    let listed = |q: Option<&'static str>| {
        let (store, pay) = (store.clone(), pay.id.clone());
        async move {
            store
                .list_resource_grants(&pay, q, Page::first(10))
                .await
                .expect("list")
        }
    };
    let all = listed(None).await;
    let ids: Vec<_> = all.items.iter().map(|g| g.client_id.as_str()).collect();
    assert_eq!((ids, all.total), (vec!["bot", "other-client"], 2));
    assert_eq!(all.items[0].name, "Client bot");
    assert_eq!(
        listed(Some("OTHER")).await.total,
        1,
        "by client_id, any case"
    );
    assert_eq!(listed(Some("client bot")).await.total, 1, "by name");
    assert_eq!(listed(Some("nobody")).await.total, 0);

    // Uses are written without an audit row or a cache flush, and never move back in time.
    let (audited, generation) = (audit_count(&store).await, store.generation());
    store
        .record_grant_use(&[
            (bot.id.clone(), pay.id.clone(), 100),
            (bot.id.clone(), mail.id.clone(), 90),
        ])
        .await
        .expect("record");
    store
        .record_grant_use(&[(bot.id.clone(), pay.id.clone(), 50)])
        .await
        .expect("record older");
    assert_eq!(
        (audit_count(&store).await, store.generation()),
        (audited, generation)
    );
    let used: Vec<_> = store
        .list_client_grants(&bot.id)
        .await
        .expect("list")
        .into_iter()
        .map(|g| (g.resource, g.last_used_at))
        .collect();
    assert!(used.contains(&(pay.id.clone(), Some(100))), "{used:?}");
    assert!(used.contains(&(mail.id.clone(), Some(90))), "{used:?}");
    // The client's own last token is the latest of its uses.
    let stored = store
        .find_client(&bot.realm_id, &bot.client_id)
        .await
        .expect("find")
        .expect("client");
    assert_eq!(stored.registration.last_token_at, Some(100));
    let (all, with_token) = store.grant_counts(&r.id).await.expect("counts");
    assert!(all >= 2 && with_token == 2, "({all}, {with_token})");
    let elsewhere = given_realm(&store, "elsewhere").await;
    assert_eq!(
        store.grant_counts(&elsewhere.id).await.expect("counts"),
        (0, 0),
        "counted per realm"
    );
    assert_eq!(listed(None).await.items[0].grant.last_used_at, Some(100));
    // A changed grant keeps its last use.
    store
        .put_grant(&grant(&bot, &pay, "tools:call", 60), &ev("access.update"))
        .await
        .expect("change");
    assert_eq!(listed(None).await.items[0].grant.last_used_at, Some(100));
    store
        .delete_grant(&bot.id, &mail.id, &ev("access.revoke"))
        .await
        .expect("revoke");
    let again = store
        .delete_grant(&bot.id, &mail.id, &ev("access.revoke"))
        .await
        .expect_err("gone");
    assert!(matches!(again, StorageError::NotFound), "{again:?}");

    // Grants go with their client or resource; a grant for a deleted one is NotFound.
    store
        .delete_client(&other.id, &ev("client.delete"))
        .await
        .expect("delete");
    assert_eq!(listed(None).await.total, 1);
    let gone = store
        .put_grant(&grant(&other, &pay, "tools:read", 50), &ev("access.grant"))
        .await
        .expect_err("client gone");
    assert!(matches!(gone, StorageError::NotFound), "{gone:?}");
    store
        .delete_resource(&pay.id, None, &ev("resource.delete"))
        .await
        .expect("delete");
    assert!(
        store
            .list_client_grants(&bot.id)
            .await
            .expect("list")
            .is_empty()
    );
}

/// The statement that gave existing clients their grants when grants were introduced: each
/// client that could use `client_credentials` gets every resource of its realm it shares a scope
/// with, with exactly the shared scopes.
pub(super) async fn upgrade_grants_what_clients_could_reach(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let elsewhere = given_realm(&store, "elsewhere").await;
    let ev = |realm: &crate::realms::Realm| event(&realm.id, "x", "a@x.io", "x", 2);
    let mut pay = resource(&r.id, "pay", "https://pay.example.com/mcp");
    pay.scopes = scopes("tools:call tools:read payments:refund");
    let mut mail = resource(&r.id, "mail", "https://mail.example.com/mcp");
    mail.scopes = scopes("mail:send");
    let far = resource(&elsewhere.id, "far", "https://far.example.com/mcp");
    for (res, realm) in [(&pay, &r), (&mail, &r), (&far, &elsewhere)] {
        store
            .insert_resource(res, &ev(realm))
            .await
            .expect("resource");
    }
    let mut bot = client(&r.id, "bot");
    bot.scope = scopes("tools:call payments:refund unrelated");
    let mut browser = client(&r.id, "browser");
    browser.grant_types = vec![];
    browser.scope = scopes("tools:call");
    let mut stranger = client(&r.id, "stranger");
    stranger.scope = scopes("nothing:here");
    for c in [&bot, &browser, &stranger] {
        store.insert_client(c, None, &ev(&r)).await.expect("client");
    }
    let backfill = |migration: &'static str| {
        let at = migration
            .find("INSERT INTO client_grants")
            .expect("backfill");
        &migration[at..]
    };
    match db {
        Database::Sqlite(p) => {
            let sql = backfill(include_str!(
                "../../../../migrations/sqlite/20261201030000_client_grants.sql"
            ));
            sqlx::raw_sql(sql).execute(p).await.expect("backfill");
        }
        Database::Postgres(p) => {
            let sql = backfill(include_str!(
                "../../../../migrations/postgres/20261201030000_client_grants.sql"
            ));
            sqlx::raw_sql(sql).execute(p).await.expect("backfill");
        }
    }
    let grants = |c: &crate::clients::Client| {
        let (store, id) = (store.clone(), c.id.clone());
        async move {
            store
                .list_client_grants(&id)
                .await
                .expect("list")
                .into_iter()
                .map(|g| (g.resource, g.scopes.to_string()))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        grants(&bot).await,
        [(pay.id.clone(), "payments:refund tools:call".to_owned())],
        "the shared scopes of the resource it could reach, and nothing else"
    );
    assert!(
        grants(&browser).await.is_empty(),
        "no client_credentials, no token before"
    );
    assert!(
        grants(&stranger).await.is_empty(),
        "no shared scope, no token before"
    );
}
