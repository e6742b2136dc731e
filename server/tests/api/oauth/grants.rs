//! Access grants: tokens only for granted resources, with at most the granted scopes.
use super::*;

/// Access grants: a client gets tokens only for the resources it is granted, with at most the
/// grant's scopes; narrowing or revoking a grant stops new tokens and kills live ones at once.
#[tokio::test]
async fn tokens_only_for_granted_resources_with_granted_scopes() {
    let f = fixture().await;
    let core = &f.t.state.core;
    let admin = f.t.principal("ada@example.com").await;
    let meta = authz::RequestMeta::default();
    let (_, secret) = register_client(
        core,
        &admin,
        "fresh",
        ClientForm {
            name: "Fresh".into(),
            auth_method: "client_secret_basic".into(),
            scope: "tools:call tools:read".into(),
            ..Default::default()
        },
    )
    .await
    .expect("client");
    let secret = secret.expect("confidential").expose().to_owned();
    let auth = basic("fresh", &secret);
    let ask = |scope: &'static str| {
        let (f, auth) = (&f, auth.clone());
        async move {
            let scope = if scope.is_empty() {
                String::new()
            } else {
                format!("&scope={}", enc(scope))
            };
            f.post(
                "/realms/default/token",
                Some(&auth),
                &format!("grant_type=client_credentials&resource={}{scope}", enc(PAY)),
            )
            .await
        }
    };

    // A new client has no grants: its registered scopes alone open nothing.
    let (status, _, json) = ask("").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{json}");
    assert_eq!(json["error"], "invalid_target");
    assert!(
        json["error_description"]
            .as_str()
            .is_some_and(|d| d.contains("not been granted")),
        "{json}"
    );

    // Scopes the resource does not accept, or none at all, are refused on the field.
    for bad in ["tools:call admin", " "] {
        let err = core
            .grant_access(&admin, "default", "fresh", "payments-mcp", Some(bad), &meta)
            .await
            .expect_err("refused");
        assert!(
            matches!(
                err,
                authz::Error::InvalidField {
                    field: "scopes",
                    ..
                }
            ),
            "{err:?}"
        );
    }
    core.grant_access(
        &admin,
        "default",
        "fresh",
        "payments-mcp",
        Some("tools:read"),
        &meta,
    )
    .await
    .expect("grant");
    let (status, _, json) = ask("").await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(
        json["scope"], "tools:read",
        "the grant's scopes, not the client's"
    );
    // When it last got a token is noted in memory and written by the periodic flush.
    let last_used = || async {
        core.resource_access(
            &admin,
            "default",
            "payments-mcp",
            "fresh",
            authz::paging::Page::first(10),
        )
        .await
        .expect("list")
        .items[0]
            .grant
            .last_used_at
    };
    assert_eq!(last_used().await, None, "nothing written per token");
    assert!(core.flush_token_use().await.expect("flush") >= 1);
    assert_eq!(last_used().await, Some(authz::clock::Clock::now(&f.clock)));
    assert_eq!(
        core.flush_token_use().await.expect("flush"),
        0,
        "written once"
    );
    let (status, _, json) = ask("tools:call").await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_scope")),
        "{json}"
    );
    // Only the granted resource.
    let (status, _, json) = f
        .post(
            "/realms/default/token",
            Some(&auth),
            &format!("grant_type=client_credentials&resource={}", enc(MAIL)),
        )
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );

    // Widen, take a token with both scopes, then narrow: that token dies, new ones are narrow.
    core.grant_access(&admin, "default", "fresh", "payments-mcp", None, &meta)
        .await
        .expect("widen");
    let (_, _, json) = ask("").await;
    assert_eq!(
        json["scope"], "tools:call tools:read",
        "None grants every scope"
    );
    let wide = json["access_token"].as_str().expect("token").to_owned();
    let (_, _, json) = ask("tools:read").await;
    let narrow = json["access_token"].as_str().expect("token").to_owned();
    assert_eq!(
        f.introspect_as("fresh", &secret, &wide).await["active"],
        true
    );
    core.grant_access(
        &admin,
        "default",
        "fresh",
        "payments-mcp",
        Some("tools:read"),
        &meta,
    )
    .await
    .expect("narrow");
    assert_eq!(
        f.introspect_as("fresh", &secret, &wide).await["active"],
        false,
        "a scope no longer granted"
    );
    assert_eq!(
        f.introspect_as("fresh", &secret, &narrow).await["active"],
        true
    );

    // Revoke: no new tokens, and live ones introspect inactive.
    core.revoke_access(&admin, "default", "fresh", "payments-mcp", &meta)
        .await
        .expect("revoke");
    assert_eq!(
        f.introspect_as("fresh", &secret, &narrow).await["active"],
        false
    );
    let (_, _, json) = ask("").await;
    assert_eq!(json["error"], "invalid_target");
    let again = core
        .revoke_access(&admin, "default", "fresh", "payments-mcp", &meta)
        .await
        .expect_err("nothing to revoke");
    assert!(matches!(again, authz::Error::NotFound { .. }), "{again:?}");

    // Introspection credentials get no grants.
    f.resource_server("payments-mcp").await;
    let err = core
        .grant_access(
            &admin,
            "default",
            "payments-mcp-introspect",
            "payments-mcp",
            None,
            &meta,
        )
        .await
        .expect_err("refused");
    assert!(
        matches!(
            err,
            authz::Error::InvalidField {
                field: "client",
                ..
            }
        ),
        "{err:?}"
    );

    // Every change is audited on the client.
    let actions: Vec<String> = core
        .list_audit(
            &admin,
            None,
            authz::audit::AuditFilter {
                target: Some("client:fresh".into()),
                ..Default::default()
            },
            authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 20),
        )
        .await
        .expect("audit")
        .items
        .into_iter()
        .map(|e| e.action)
        .collect();
    assert_eq!(
        actions,
        [
            "access.revoke",
            "access.update",
            "access.update",
            "access.grant",
            "client.create"
        ]
    );

    // Both lists answer "who can reach what".
    let listed = core
        .resource_access(
            &admin,
            "default",
            "payments-mcp",
            "",
            authz::paging::Page::first(10),
        )
        .await
        .expect("list");
    let ids: Vec<_> = listed.items.iter().map(|g| g.client_id.as_str()).collect();
    assert_eq!(ids, ["bot", "poster"]);
    let fresh = core
        .client_access(&admin, "default", "fresh")
        .await
        .expect("list");
    let slugs: Vec<_> = fresh.iter().map(|a| a.resource.slug.as_str()).collect();
    assert_eq!(
        slugs,
        ["ed-mcp", "email-mcp", "payments-mcp", "rsa-mcp"],
        "every resource"
    );
    assert!(
        fresh.iter().all(|a| a.grant.is_none()),
        "none granted any more"
    );
    let bots = core
        .client_access(&admin, "default", "bot")
        .await
        .expect("list");
    assert!(bots.iter().all(|a| a.grant.is_some()));

    // A resource that stops accepting a granted scope: its page shows what tokens get, and the
    // scope set apart as no longer accepted.
    let input = ResourceInput {
        display_name: "Payments".into(),
        uri: PAY.into(),
        scopes: "tools:call".into(),
        enabled: true,
        ..Default::default()
    };
    core.update_resource(
        &admin,
        "default",
        "payments-mcp",
        &input,
        &Default::default(),
    )
    .await
    .expect("narrow");
    let shown = core
        .resource_access(
            &admin,
            "default",
            "payments-mcp",
            "bot",
            authz::paging::Page::first(10),
        )
        .await
        .expect("list");
    let bot = shown
        .items
        .iter()
        .find(|g| g.client_id.as_str() == "bot")
        .expect("bot");
    assert_eq!(bot.grant.scopes.to_string(), "tools:call");
    assert_eq!(bot.lapsed.to_string(), "tools:read");
}

#[tokio::test]
async fn a_resource_lists_each_clients_agent_and_what_its_tokens_carry_and_a_second_grant_is_refused()
 {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let now = authz::clock::Clock::now(&f.clock);
    let input = authz::agents::AgentInput {
        name: "reader-bot".into(),
        owner: "owner@example.com".into(),
        roles: "mcp tools:read".into(),
        expires_at: authz::clock::rfc3339(now + 3600),
        ..Default::default()
    };
    core.create_agent(&admin, "default", &input, &meta)
        .await
        .expect("agent");
    core.bind_client_to_agent(&admin, "default", "bot", Some("reader-bot"), &meta)
        .await
        .expect("bind");
    let page = core
        .resource_access(
            &admin,
            "default",
            "payments-mcp",
            "",
            authz::paging::Page::first(20),
        )
        .await
        .expect("grants");
    let bot = page
        .items
        .iter()
        .find(|g| g.client_id.as_str() == "bot")
        .expect("bot");
    assert_eq!(bot.grant.scopes.to_string(), "tools:call tools:read");
    assert_eq!(
        bot.agent.as_ref().map(|(n, _)| n.as_str()),
        Some("reader-bot")
    );
    assert_eq!(
        bot.token_scopes().to_string(),
        "tools:read",
        "cut to the agent's roles"
    );
    let poster = page
        .items
        .iter()
        .find(|g| g.client_id.as_str() == "poster")
        .expect("poster");
    assert!(poster.agent.is_none());
    assert_eq!(poster.token_scopes(), poster.grant.scopes);
    // What the page says is what a token gets.
    let (_, _, json) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(json["scope"], "tools:read", "{json}");

    // "Grant a client" never replaces a grant; changing scopes is its own, deliberate act.
    let err = core
        .add_access(
            &admin,
            "default",
            "bot",
            "payments-mcp",
            Some("tools:call"),
            &meta,
        )
        .await
        .expect_err("already granted");
    assert!(
        matches!(&err, authz::Error::Taken { field: "client", message } if message.contains("tools:call tools:read")),
        "{err:?}"
    );
    let page = core
        .resource_access(
            &admin,
            "default",
            "payments-mcp",
            "bot",
            authz::paging::Page::first(20),
        )
        .await
        .expect("grants");
    assert_eq!(
        page.items[0].grant.scopes.to_string(),
        "tools:call tools:read",
        "unchanged"
    );
}
