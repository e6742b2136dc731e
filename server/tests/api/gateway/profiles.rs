//! Provider profiles through the gateway, against local fake upstreams that list the
//! providers' tools: the Notion profile offers its read tools only, the Gmail preview its
//! search, read and draft tools — labelled preview — and never sending or deleting, whatever
//! the upstream lists.
use super::*;

/// Notion's hosted server's tools.
const NOTION: [(&str, bool); 8] = [
    ("notion-search", true),
    ("notion-fetch", true),
    ("notion-get-async-task", true),
    ("notion-create-pages", false),
    ("notion-update-page", false),
    ("notion-move-pages", false),
    ("notion-create-comment", false),
    ("notion-get-users", true),
];

/// Gmail's hosted server's tools, and two it might add one day.
const GMAIL: [(&str, bool); 6] = [
    ("search_threads", true),
    ("get_thread", true),
    ("get_message", true),
    ("create_draft", false),
    ("send_message", false),
    ("delete_thread", false),
];

async fn fake(tools: &[(&str, bool)]) -> String {
    let upstream = Upstream::default();
    upstream.set_tools(
        tools
            .iter()
            .map(|(name, read)| tool(name, &format!("{name} (fake)"), *read))
            .collect(),
    );
    serve_upstream(upstream).await
}

#[tokio::test]
async fn profiles_offer_only_their_tools_and_label_the_preview() {
    let g = setup().await;
    let core = &g.t.state.core;
    let meta = authz::RequestMeta::default();
    let (notion_url, gmail_url) = (fake(&NOTION).await, fake(&GMAIL).await);
    let revision = core
        .registry(&g.admin, "default")
        .await
        .expect("registry")
        .registry
        .revision;
    // The fakes stand in for the hosted servers: their own URLs, no authentication.
    let policy: portcullis_manifest::policy::PolicyInput = serde_json::from_value(json!({
        "mode": "allowlist",
        "rings": ["ring0"],
        "servers": [
            {"id": "notion", "profile": "notion", "url": notion_url, "auth": {"mode": "none"}, "rings": ["ring0"]},
            {"id": "mail", "profile": "gmail-preview", "url": gmail_url, "auth": {"mode": "none"}, "rings": ["ring0"]},
        ],
    }))
    .expect("policy");
    core.replace_registry_draft(&g.admin, "default", revision, &policy, &meta)
        .await
        .expect("draft");
    core.publish_registry(&g.admin, "default", revision + 1, &meta)
        .await
        .expect("publish");
    for s in ["notion", "mail"] {
        core.attach_gateway_server(&g.admin, "default", "alpha", s, &meta)
            .await
            .expect("attach");
    }
    let toolset = core
        .agent_toolset(&g.admin, "default", "alpha")
        .await
        .expect("toolset");
    for s in &toolset.servers {
        assert_eq!(s.excluded, None, "{}", s.server.id);
    }
    let alpha = g.client("alpha").await;
    search(&alpha).await;
    g.accept("notion").await;
    g.accept("mail").await;
    let found = search(&alpha).await;
    assert_eq!(
        names(&found),
        vec![
            "mail.create_draft",
            "mail.get_message",
            "mail.get_thread",
            "mail.search_threads",
            "notion.notion-fetch",
            "notion.notion-get-async-task",
            "notion.notion-search",
        ],
        "{found}"
    );
    for c in found["capabilities"].as_array().expect("caps") {
        let mail = c["server"] == "mail";
        assert_eq!(c["profile"], if mail { "gmail-preview" } else { "notion" });
        assert_eq!(c["preview"], mail, "{c}");
    }
    // A draft is a write: it waits for a person. Sending never reaches the upstream.
    let r = execute(&alpha, "mail.create_draft", json!({"q": "hello"}))
        .await
        .expect("a result");
    assert_eq!(
        r.structured_content.expect("structured")["status"],
        "approval_required"
    );
    assert!(not_found(
        execute(&alpha, "mail.send_message", json!({"q": "hello"})).await
    ));
    assert!(not_found(
        execute(&alpha, "notion.notion-create-pages", json!({"q": "x"})).await
    ));
    let r = execute(&alpha, "notion.notion-search", json!({"q": "roadmap"}))
        .await
        .expect("call");
    assert_ne!(r.is_error, Some(true), "{r:?}");
}
