use super::fixtures::{agent, client, event, given_realm};
use crate::agents::AgentFilter;
use crate::clients::{AgentBinding, BindingId, ClientId};
use crate::error::StorageError;
use crate::paging::{Cursor, Page};
use crate::scope::ScopeSet;
use crate::storage::Database;

pub(super) async fn agents(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = || event(&r.id, "agent.create", "a@x.io", "agent:x", 2);
    let bot = agent(&r.id, "reports-bot");
    store.insert_agent(&bot, &ev()).await.expect("insert");
    let err = store
        .insert_agent(&agent(&r.id, "reports-bot"), &ev())
        .await
        .expect_err("dup");
    assert!(matches!(err, StorageError::Conflict(_)), "{err:?}");
    let alpha = agent(&r.id, "alpha");
    store.insert_agent(&alpha, &ev()).await.expect("insert");
    assert_eq!(
        store.find_agent(&r.id, "reports-bot").await.expect("find"),
        Some(bot.clone())
    );
    assert_eq!(
        store.find_agent_by_id(&bot.id).await.expect("find"),
        Some(bot.clone())
    );

    let mut c = client(&r.id, "bot-client");
    let binding = BindingId::generate();
    c.agent = Some(AgentBinding {
        agent_id: bot.id.clone(),
        binding_id: binding.clone(),
    });
    store.insert_client(&c, None, &ev()).await.expect("client");
    let mut other = client(&r.id, "alpha-client");
    other.agent = Some(AgentBinding {
        agent_id: alpha.id.clone(),
        binding_id: BindingId::generate(),
    });
    store
        .insert_client(&other, None, &ev())
        .await
        .expect("client");
    let bound = store
        .list_agent_clients(&[bot.id.clone(), alpha.id.clone()])
        .await
        .expect("clients");
    let id = |s: &str| ClientId::parse(s).expect("valid");
    assert_eq!(
        bound,
        [
            (alpha.id.clone(), id("alpha-client")),
            (bot.id.clone(), id("bot-client"))
        ]
    );
    assert!(
        store
            .list_agent_clients(&[])
            .await
            .expect("none")
            .is_empty()
    );

    store
        .set_agent_disabled(&bot.id, true, 8, &ev())
        .await
        .expect("disable");
    // An edit writes the editable fields and leaves the disabled flag alone.
    let mut edited = bot.clone();
    edited.expires_at = None;
    edited.roles = ScopeSet::parse("mcp").expect("valid");
    edited.updated_at = 9;
    store.update_agent(&edited, &ev()).await.expect("update");
    let found = store
        .find_agent(&r.id, "reports-bot")
        .await
        .expect("find")
        .expect("agent");
    assert_eq!(
        (found.roles.to_string(), found.expires_at, found.disabled),
        ("mcp".to_owned(), None, true)
    );

    store.delete_agent(&bot.id, &ev()).await.expect("delete");
    let unbound = store
        .find_client(&r.id, &id("bot-client"))
        .await
        .expect("find")
        .expect("client");
    assert_eq!(unbound.agent, None, "unbound, binding id gone too");
    assert!(matches!(
        store.delete_agent(&bot.id, &ev()).await,
        Err(StorageError::NotFound)
    ));
}

pub(super) async fn agent_lists(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = || event(&r.id, "agent.create", "a@x.io", "agent:x", 2);
    let now = 10_000;
    for (name, roles, expires) in [
        ("a-mcp", "mcp", None),
        ("b-mcp-tools", "reports mcp:tools", Some(now + 3600)),
        ("c-plain", "reports", Some(now + 60)),
        ("d-lookalike", "mcpx notmcp:x", None),
        ("e-expired", "mcp", Some(now - 1)),
        ("f-far", "mcp:x", Some(now + 30 * 24 * 3600)),
        ("g-off", "mcp", None),
    ] {
        let mut a = agent(&r.id, name);
        a.roles = ScopeSet::parse(roles).expect("valid");
        a.expires_at = expires;
        a.disabled = name == "g-off";
        if name == "c-plain" {
            a.owner = "Someone.Else@example.com".into();
        }
        store.insert_agent(&a, &ev()).await.expect("insert");
    }
    let names = |filter: AgentFilter<'static>, page: Page| {
        let store = store.clone();
        let realm = r.id.clone();
        async move {
            let found = store
                .list_agents(&realm, filter, now, page)
                .await
                .expect("list");
            (
                found.total,
                found.items.into_iter().map(|a| a.name).collect::<Vec<_>>(),
            )
        }
    };
    let all = Page::first(50);
    assert_eq!(
        names(
            AgentFilter::default(),
            Page::at(Cursor::After("b-mcp-tools".into()), 2)
        )
        .await,
        (7, vec!["c-plain".into(), "d-lookalike".into()])
    );
    let mcp = AgentFilter {
        mcp_only: true,
        ..Default::default()
    };
    assert_eq!(
        names(mcp, all.clone()).await.1,
        ["a-mcp", "b-mcp-tools", "e-expired", "f-far", "g-off"],
        "mcp or mcp:* roles, not look-alikes"
    );
    let soon = AgentFilter {
        expiring_within: Some(crate::agents::EXPIRING_SOON_SECS),
        ..Default::default()
    };
    assert_eq!(names(soon, all.clone()).await.1, ["b-mcp-tools", "c-plain"]);
    let both = AgentFilter {
        mcp_only: true,
        expiring_within: Some(crate::agents::EXPIRING_SOON_SECS),
        ..Default::default()
    };
    assert_eq!(names(both, all.clone()).await.1, ["b-mcp-tools"]);
    // Active: enabled and not expired.
    let active = AgentFilter {
        mcp_only: true,
        active_only: true,
        ..Default::default()
    };
    assert_eq!(
        names(active, all.clone()).await.1,
        ["a-mcp", "b-mcp-tools", "f-far"]
    );
    let owner = AgentFilter {
        query: Some("someone.ELSE"),
        ..Default::default()
    };
    assert_eq!(
        names(owner, all.clone()).await.1,
        ["c-plain"],
        "search matches owners"
    );
    let by_name = AgentFilter {
        query: Some("LOOK"),
        ..Default::default()
    };
    assert_eq!(names(by_name, all.clone()).await.1, ["d-lookalike"]);
}
