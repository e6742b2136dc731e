//! "Protect your MCP server" → register it in one click: an admin's registration is a live
//! resource, a developer's a submission an admin enables.
use crate::*;
use authz::Error;
use authz::integration::ProtectInput;

fn input(url: &str, name: &str, scopes: &str) -> ProtectInput {
    ProtectInput {
        server_url: url.into(),
        resource_name: name.into(),
        scopes: scopes.into(),
        documentation_url: String::new(),
    }
}

async fn server() -> (
    TestServer,
    authz::Principal,
    authz::Principal,
    authz::Principal,
) {
    let s = TestServer::new().await;
    for (email, role) in [
        ("admin@example.com", "admin"),
        ("dev@example.com", "developer"),
        ("reviewer@example.com", "security_reviewer"),
    ] {
        s.user(email, role).await;
    }
    let (a, d, r) = (
        s.principal("admin@example.com").await,
        s.principal("dev@example.com").await,
        s.principal("reviewer@example.com").await,
    );
    (s, a, d, r)
}

async fn last_action(s: &TestServer, target: &str) -> String {
    s.audit(authz::audit::AuditFilter {
        target_is: Some(target.into()),
        ..Default::default()
    })
    .await
    .first()
    .map(|e| e.action.clone())
    .unwrap_or_default()
}

#[tokio::test]
async fn an_admin_registers_the_server_as_a_live_resource() {
    let (s, admin, _, _) = server().await;
    let core = &s.state.core;
    let meta = authz::RequestMeta::default();
    let typed = input(
        "HTTPS://Pay.Example.com/mcp/",
        "Payments MCP",
        "tools:call offline_access",
    );
    let r = core
        .register_protected_resource(&admin, "default", &typed, &meta)
        .await
        .expect("registered");
    assert_eq!(r.slug, "payments-mcp");
    assert_eq!(r.uri.as_str(), "https://pay.example.com/mcp");
    assert_eq!(
        r.scopes.to_string(),
        "tools:call",
        "offline_access is never a resource's"
    );
    assert!(r.enabled && r.submitted_by.is_none());
    assert_eq!(
        last_action(&s, "resource:payments-mcp").await,
        "resource.create"
    );
    // The generator now says it is registered.
    let p = core
        .protect_mcp_server(&admin, "default", &typed)
        .await
        .expect("generated");
    assert_eq!(
        p.registered.map(|r| r.slug).as_deref(),
        Some("payments-mcp")
    );
    // The same URL again is taken, on the URL field; the same name gets the next free id.
    let e = core
        .register_protected_resource(&admin, "default", &typed, &meta)
        .await
        .expect_err("taken");
    assert!(
        matches!(
            e,
            Error::Taken {
                field: "server_url",
                ..
            }
        ),
        "{e:?}"
    );
    let again = core
        .register_protected_resource(
            &admin,
            "default",
            &input("https://pay2.example.com/mcp", "Payments MCP", "tools:call"),
            &meta,
        )
        .await
        .expect("registered");
    assert_eq!(again.slug, "payments-mcp-2");
    // No name: the URL names it.
    let unnamed = core
        .register_protected_resource(
            &admin,
            "default",
            &input("https://files.example.com/v1/mcp", "", "files:read"),
            &meta,
        )
        .await
        .expect("registered");
    assert_eq!(unnamed.display_name, "files.example.com/v1/mcp");
    assert_eq!(unnamed.slug, "files-example-com-v1-mcp");
    // A long name makes an id cut between words.
    let long = core
        .register_protected_resource(
            &admin,
            "default",
            &input(
                "https://kb.example.com/mcp",
                "Engineering platform knowledge base search and retrieval service",
                "kb:read",
            ),
            &meta,
        )
        .await
        .expect("registered");
    assert_eq!(long.slug, "engineering-platform-knowledge-base-search-and");
    // A resource needs a scope; the message is on the scopes field.
    let e = core
        .register_protected_resource(
            &admin,
            "default",
            &input("https://x.example.com/mcp", "X", ""),
            &meta,
        )
        .await
        .expect_err("no scope");
    assert!(
        matches!(
            e,
            Error::InvalidField {
                field: "scopes",
                ..
            }
        ),
        "{e:?}"
    );
}

#[tokio::test]
async fn a_developer_submits_and_an_admin_enables() {
    let (s, admin, dev, reviewer) = server().await;
    let core = &s.state.core;
    let meta = authz::RequestMeta::default();
    let r = core
        .register_protected_resource(
            &dev,
            "default",
            &input("https://mail.example.com/mcp", "Mail MCP", "mail:read"),
            &meta,
        )
        .await
        .expect("submitted");
    assert!(!r.enabled, "no tokens until an admin says so");
    assert_eq!(r.submitted_by.as_deref(), Some("dev@example.com"));
    assert_eq!(
        last_action(&s, "resource:mail-mcp").await,
        "resource.submit"
    );
    // Submitting is all a developer may do with resources; a reviewer may not even that.
    let form = authz::resources::ResourceInput {
        slug: "direct".into(),
        display_name: "Direct".into(),
        uri: "https://direct.example.com/mcp".into(),
        scopes: "a".into(),
        token_ttl_secs: String::new(),
        signing_alg: String::new(),
        enabled: true,
    };
    assert!(matches!(
        core.create_resource(&dev, "default", &form, &meta).await,
        Err(Error::Forbidden)
    ));
    assert!(matches!(
        core.register_protected_resource(
            &reviewer,
            "default",
            &input("https://r.example.com/mcp", "R", "a"),
            &meta
        )
        .await,
        Err(Error::Forbidden)
    ));
    let overview = core
        .mcp_overview(&dev, "default", 14, "all", authz::paging::Page::first(10))
        .await
        .expect("overview");
    assert_eq!(overview.submitted, 1);
    let live = |o: authz::overview::RealmOverview| o.resources;
    let realm = core
        .realm_overview(&admin, "default")
        .await
        .expect("overview");
    assert_eq!(live(realm), Some(0), "a submission is not registered yet");
    // The admin's decision ends the submission.
    let enabled = core
        .set_resource_enabled(&admin, "default", "mail-mcp", true, &meta)
        .await
        .expect("enabled");
    assert!(enabled.enabled && enabled.submitted_by.is_none());
    let realm = core
        .realm_overview(&admin, "default")
        .await
        .expect("overview");
    assert_eq!(live(realm), Some(1));
    // Decided, it is no longer the developer's to withdraw.
    assert!(matches!(
        core.delete_resource(&dev, "default", "mail-mcp", &meta)
            .await,
        Err(Error::Conflict(_))
    ));
    assert!(
        core.resource(&admin, "default", "mail-mcp").await.is_ok(),
        "still there"
    );
}

#[tokio::test]
async fn a_developer_withdraws_only_their_own_waiting_submission() {
    let (s, admin, dev, reviewer) = server().await;
    let core = &s.state.core;
    let meta = authz::RequestMeta::default();
    for (who, url) in [
        (&dev, "https://mine.example.com/mcp"),
        (&admin, "https://live.example.com/mcp"),
    ] {
        core.register_protected_resource(who, "default", &input(url, "", "a"), &meta)
            .await
            .expect("registered");
    }
    // Another developer's submission is not theirs.
    s.user("other-dev@example.com", "developer").await;
    let other = s.principal("other-dev@example.com").await;
    core.register_protected_resource(
        &other,
        "default",
        &input("https://theirs.example.com/mcp", "", "a"),
        &meta,
    )
    .await
    .expect("submitted");
    assert!(matches!(
        core.delete_resource(&dev, "default", "live-example-com-mcp", &meta)
            .await,
        Err(Error::Conflict(_))
    ));
    for (who, slug) in [
        (&dev, "theirs-example-com-mcp"),
        (&reviewer, "mine-example-com-mcp"),
    ] {
        assert!(
            matches!(
                core.delete_resource(who, "default", slug, &meta).await,
                Err(Error::Forbidden)
            ),
            "{slug}"
        );
    }
    core.delete_resource(&dev, "default", "mine-example-com-mcp", &meta)
        .await
        .expect("withdrawn");
    assert!(matches!(
        core.resource(&admin, "default", "mine-example-com-mcp")
            .await,
        Err(Error::NotFound { .. })
    ));
    assert_eq!(
        last_action(&s, "resource:mine-example-com-mcp").await,
        "resource.withdraw"
    );
    // Submitting and withdrawing over and over (each a locked, audited write) is bounded.
    let mut changes = 2; // the submission and the withdrawal above
    let throttled = loop {
        let url = format!("https://again-{changes}.example.com/mcp");
        let r = match core
            .register_protected_resource(&dev, "default", &input(&url, "", "a"), &meta)
            .await
        {
            Ok(r) => r,
            Err(e) => break e,
        };
        changes += 1;
        if let Err(e) = core.delete_resource(&dev, "default", &r.slug, &meta).await {
            break e;
        }
        changes += 1;
        assert!(changes <= 100, "bounded");
    };
    assert!(
        matches!(throttled, Error::Throttled { .. }),
        "{throttled:?}"
    );
    assert_eq!(
        changes,
        authz::throttle::MAX_SUBMISSION_CHANGES_PER_ACCOUNT as usize
    );
}

#[tokio::test]
async fn submissions_waiting_for_an_admin_are_bounded_per_developer() {
    let (s, _, dev, _) = server().await;
    let core = &s.state.core;
    let meta = authz::RequestMeta::default();
    for i in 0..authz::resources::MAX_SUBMISSIONS_PER_PERSON {
        core.register_protected_resource(
            &dev,
            "default",
            &input(&format!("https://s{i}.example.com/mcp"), "", "a"),
            &meta,
        )
        .await
        .expect("within the limit");
    }
    let e = core
        .register_protected_resource(
            &dev,
            "default",
            &input("https://one-more.example.com/mcp", "", "a"),
            &meta,
        )
        .await
        .expect_err("bounded");
    assert!(matches!(e, Error::Conflict(_)), "{e:?}");
}

#[tokio::test]
async fn an_admin_rejects_a_submission_with_a_reason_the_developer_sees() {
    let (s, admin, dev, _) = server().await;
    let core = &s.state.core;
    let meta = authz::RequestMeta::default();
    core.register_protected_resource(
        &dev,
        "default",
        &input("https://crm.example.com/mcp", "CRM MCP", "crm:read"),
        &meta,
    )
    .await
    .expect("submitted");
    // A reason is required, and only an admin rejects.
    for (who, reason) in [(&admin, "  "), (&dev, "No.")] {
        assert!(
            core.reject_submission(who, "default", "crm-mcp", reason, &meta)
                .await
                .is_err(),
            "{reason}"
        );
    }
    let r = core
        .reject_submission(
            &admin,
            "default",
            "crm-mcp",
            " Use the shared CRM gateway instead. ",
            &meta,
        )
        .await
        .expect("rejected");
    assert_eq!(
        r.rejection.as_deref(),
        Some("Use the shared CRM gateway instead.")
    );
    assert!(!r.enabled && !r.waiting());
    assert_eq!(last_action(&s, "resource:crm-mcp").await, "resource.reject");
    // The developer sees why, on the resource and in the generator; it no longer waits.
    let seen = core
        .resource(&dev, "default", "crm-mcp")
        .await
        .expect("visible");
    assert_eq!(seen.rejection, r.rejection);
    let overview = core
        .mcp_overview(&dev, "default", 14, "all", authz::paging::Page::first(10))
        .await
        .expect("overview");
    assert_eq!(overview.submitted, 0);
    assert!(matches!(
        core.reject_submission(&admin, "default", "crm-mcp", "Again.", &meta)
            .await,
        Err(Error::Conflict(_))
    ));
    // Rejected, it is still the developer's to withdraw; an admin may still enable it instead.
    let enabled = core
        .set_resource_enabled(&admin, "default", "crm-mcp", true, &meta)
        .await
        .expect("enabled after all");
    assert!(enabled.rejection.is_none() && enabled.submitted_by.is_none());
    core.register_protected_resource(
        &dev,
        "default",
        &input("https://erp.example.com/mcp", "ERP MCP", "erp:read"),
        &meta,
    )
    .await
    .expect("submitted");
    core.reject_submission(&admin, "default", "erp-mcp", "Duplicate of CRM.", &meta)
        .await
        .expect("rejected");
    core.delete_resource(&dev, "default", "erp-mcp", &meta)
        .await
        .expect("withdrawn after the rejection");
}

#[tokio::test]
async fn developers_see_only_their_own_agents_on_the_mcp_authorization_screen() {
    let (s, admin, dev, reviewer) = server().await;
    let core = &s.state.core;
    let meta = authz::RequestMeta::default();
    for (name, owner) in [
        ("payroll-bot", "finance-lead@example.com"),
        ("dev-helper", "dev@example.com"),
    ] {
        core.create_agent(
            &admin,
            "default",
            &authz::agents::AgentInput {
                name: name.into(),
                owner: owner.into(),
                roles: "mcp mcp:payroll".into(),
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("agent");
    }
    let page = authz::paging::Page::first(10);
    let names = |o: &authz::integration::McpOverview| {
        o.agents
            .items
            .iter()
            .map(|a| a.agent.name.clone())
            .collect::<Vec<_>>()
    };
    // A developer: only the agent they own, counted and listed; nobody else's owner or roles.
    let o = core
        .mcp_overview(&dev, "default", 14, "all", page.clone())
        .await
        .expect("developer");
    assert!(o.own_only);
    assert_eq!(names(&o), ["dev-helper"]);
    assert_eq!((o.mcp_agents, o.active, o.agents.total), (1, 1, 1));
    for show in ["active", "expiring"] {
        let o = core
            .mcp_overview(&dev, "default", 14, show, page.clone())
            .await
            .expect("developer");
        assert!(
            o.agents
                .items
                .iter()
                .all(|a| a.agent.owner == "dev@example.com"),
            "{show}"
        );
    }
    // Whoever may see the realm's agents sees them all.
    for p in [&admin, &reviewer] {
        let o = core
            .mcp_overview(p, "default", 14, "all", page.clone())
            .await
            .expect("all");
        assert!(!o.own_only);
        assert_eq!(names(&o), ["dev-helper", "payroll-bot"]);
    }
}
