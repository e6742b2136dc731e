//! One server across releases: its page, its resource, two editors at once, and plain http
//! on loopback.
use super::*;

#[tokio::test]
async fn a_server_page_shows_what_releases_did_to_it() {
    use crate::registry::ServerEvent;
    let f = fixture().await;
    let (core, p, m) = (&f.core, Principal::cli(), RequestMeta::default());
    core.replace_registry_draft(&p, "default", 0, &policy(vec![npm("wiki", "1.0.0")]), &m)
        .await
        .expect("draft");
    core.publish_registry(&p, "default", 1, &m)
        .await
        .expect("1");
    core.save_registry_server(&p, "default", 1, None, &npm("jira", "2.0.0"), &m)
        .await
        .expect("add jira");
    core.publish_registry(&p, "default", 2, &m)
        .await
        .expect("2");
    core.save_registry_server(&p, "default", 2, Some("wiki"), &npm("wiki", "1.0.1"), &m)
        .await
        .expect("bump wiki");
    core.publish_registry(&p, "default", 3, &m)
        .await
        .expect("3");
    let mut draft = npm("wiki", "1.0.1");
    draft.tools.deny = vec!["delete_page".into()];
    core.save_registry_server(&p, "default", 3, Some("wiki"), &draft, &m)
        .await
        .expect("draft edit");

    let wiki = core
        .registry_server(&developer(), "default", "wiki")
        .await
        .expect("wiki");
    assert!(wiki.is_published);
    // Release 2 did nothing to it; 3 bumped it; 1 added it. Newest first.
    let history: Vec<(i64, ServerEvent)> =
        wiki.history.iter().map(|h| (h.sequence, h.event)).collect();
    assert_eq!(
        history,
        [(3, ServerEvent::Changed), (1, ServerEvent::Added)]
    );
    assert_eq!(wiki.history[0].fields[0].field, "package.version");
    assert_eq!(wiki.history[0].fields[0].to.as_deref(), Some("\"1.0.1\""));
    // The draft against release 3: the tool rule, and nothing else.
    let changed: Vec<&str> = wiki.changes.iter().map(|c| c.field.as_str()).collect();
    assert_eq!(changed, ["tools.deny"]);
    assert_eq!(wiki.resource, None, "a package is no protected resource");

    let jira = core
        .registry_server(&p, "default", "jira")
        .await
        .expect("jira");
    let history: Vec<(i64, ServerEvent)> =
        jira.history.iter().map(|h| (h.sequence, h.event)).collect();
    assert_eq!(history, [(2, ServerEvent::Added)]);
    assert!(jira.changes.is_empty());

    let err = core
        .registry_server(&p, "default", "nope")
        .await
        .expect_err("unknown");
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
}

#[tokio::test]
async fn a_remote_server_portcullis_authorizes_is_its_resource() {
    use crate::registry::{LinkedResource, ResourceStanding};
    use portcullis_manifest::server::AuthInput;
    let f = fixture().await;
    let (core, p, m) = (&f.core, Principal::cli(), RequestMeta::default());
    let pay = ServerInput {
        id: "payments".into(),
        title: "Payments".into(),
        url: Some("https://Pay.Example.com:443/mcp".into()),
        auth: Some(AuthInput {
            mode: "portcullis".into(),
            scopes: vec!["pay:read".into(), "pay:write".into()],
            ..AuthInput::default()
        }),
        rings: vec!["ring0".into()],
        ..ServerInput::default()
    };
    core.replace_registry_draft(
        &p,
        "default",
        0,
        &policy(vec![pay, npm("wiki", "1.0.0")]),
        &m,
    )
    .await
    .expect("draft");
    let shown = core
        .registry_server(&p, "default", "payments")
        .await
        .expect("payments");
    assert_eq!(shown.resource, Some(None), "no resource for its URL yet");
    // Only those who may create resources create it.
    let err = core
        .create_registry_resource(&reviewer(), "default", "payments", &m)
        .await
        .expect_err("reviewer");
    assert!(matches!(err, Error::Forbidden), "{err:?}");
    let r = core
        .create_registry_resource(&p, "default", "payments", &m)
        .await
        .expect("create");
    assert_eq!(r.slug, "payments");
    assert_eq!(r.uri.to_string(), "https://pay.example.com/mcp");
    assert_eq!(r.scopes.to_string(), "pay:read pay:write");
    let shown = core
        .registry_server(&p, "default", "payments")
        .await
        .expect("payments");
    assert_eq!(
        shown.resource,
        Some(Some(LinkedResource {
            slug: "payments".into(),
            standing: ResourceStanding::Enabled,
        }))
    );
    // The resource's page finds its registry entry (its URL, however written).
    let ids = core
        .registry_entries_for(&developer(), "default", "https://pay.example.com/mcp")
        .await
        .expect("entries");
    assert_eq!(ids, ["payments"]);
    let err = core
        .create_registry_resource(&p, "default", "payments", &m)
        .await
        .expect_err("twice");
    assert!(matches!(err, Error::Conflict(_)), "{err:?}");
    let err = core
        .create_registry_resource(&p, "default", "wiki", &m)
        .await
        .expect_err("a package");
    assert!(matches!(err, Error::Invalid(_)), "{err:?}");
}

#[tokio::test]
async fn two_editors_of_two_servers_both_save() {
    let f = fixture().await;
    let (core, p, m) = (&f.core, Principal::cli(), RequestMeta::default());
    core.replace_registry_draft(
        &p,
        "default",
        0,
        &policy(vec![npm("wiki", "1.0.0"), npm("jira", "2.0.0")]),
        &m,
    )
    .await
    .expect("draft");
    // Both opened the draft at revision 1; one saves jira first.
    core.edit_registry_server(
        &p,
        "default",
        1,
        Some("jira"),
        Some(&npm("jira", "2.0.0")),
        &npm("jira", "2.0.1"),
        &m,
    )
    .await
    .expect("jira");
    // The other's wiki is as they read it: saved over revision 2.
    let saved = core
        .edit_registry_server(
            &p,
            "default",
            1,
            Some("wiki"),
            Some(&npm("wiki", "1.0.0")),
            &npm("wiki", "1.1.0"),
            &m,
        )
        .await
        .expect("wiki over a newer draft");
    assert_eq!(saved.revision, 3);
    // Jira changed since they read it: a conflict, and nothing is lost.
    let err = core
        .edit_registry_server(
            &p,
            "default",
            1,
            Some("jira"),
            Some(&npm("jira", "2.0.0")),
            &npm("jira", "9.9.9"),
            &m,
        )
        .await
        .expect_err("stale jira");
    assert!(matches!(err, Error::Conflict(_)), "{err:?}");
    // Without saying what it read, any change since is a conflict.
    let err = core
        .edit_registry_server(
            &p,
            "default",
            1,
            Some("wiki"),
            None,
            &npm("wiki", "1.2.0"),
            &m,
        )
        .await
        .expect_err("no base");
    assert!(matches!(err, Error::Conflict(_)), "{err:?}");
    let view = core.registry(&p, "default").await.expect("view");
    let versions: Vec<Option<&str>> = view
        .registry
        .draft
        .servers
        .iter()
        .map(|s| s.package.as_ref().and_then(|p| p.version.as_deref()))
        .collect();
    assert_eq!(versions, [Some("2.0.1"), Some("1.1.0")], "jira, then wiki");
}

#[tokio::test]
async fn plain_http_on_loopback_enters_the_draft_only_in_development() {
    let f = fixture().await;
    let p = Principal::cli();
    let m = RequestMeta::default();
    let local = ServerInput {
        id: "figma".into(),
        url: Some("http://127.0.0.1:3845/mcp".into()),
        rings: vec!["ring0".into()],
        ..ServerInput::default()
    };
    let mut input = policy(vec![local.clone()]);
    input.rings = vec!["ring0".into()];
    let r = revision(&f.core).await;
    match f
        .core
        .replace_registry_draft(&p, "default", r, &input, &m)
        .await
    {
        Err(Error::Findings(found)) => {
            assert_eq!(found[0].field, "servers[0].url");
            assert!(found[0].message.contains("development"), "{found:?}");
        }
        other => panic!("refused in production: {other:?}"),
    }
    // A non-loopback http URL is refused by the manifest itself, everywhere.
    input.servers[0].url = Some("http://wiki.example.com/mcp".into());
    assert!(
        f.core
            .replace_registry_draft(&p, "default", r, &input, &m)
            .await
            .is_err()
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("sqlite://{}", dir.path().join("dev.db").display());
    let db = Database::connect(&url, 4).await.expect("connect sqlite");
    db.migrate().await.expect("migrate");
    let dev = Core::new(
        db.store(),
        CoreConfig {
            allow_http_loopback: true,
            ..CoreConfig::default()
        },
    );
    dev.ensure_default_realm().await.expect("default realm");
    let mut input = policy(vec![local]);
    input.rings = vec!["ring0".into()];
    let r = revision(&dev).await;
    dev.replace_registry_draft(&p, "default", r, &input, &m)
        .await
        .expect("accepted in development");
}
