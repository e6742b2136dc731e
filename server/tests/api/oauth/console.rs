//! What the console reads of the protocol side: the overview, object histories, and how soon
//! writes are seen.
use super::*;

#[tokio::test]
async fn the_overview_counts_what_the_role_may_see_and_lists_the_endpoints() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let o = core
        .realm_overview(&admin, "default")
        .await
        .expect("overview");
    let url = |label: &str| {
        o.endpoints
            .iter()
            .find(|e| e.label.starts_with(label))
            .map(|e| e.url.clone())
            .expect("endpoint")
    };
    assert!(url("Issuer").ends_with("/realms/default"));
    assert!(
        url("Authorization server metadata")
            .ends_with("/.well-known/oauth-authorization-server/realms/default")
    );
    assert_eq!(url("Token"), format!("{}/token", url("Issuer")));
    let authorize = o
        .endpoints
        .iter()
        .find(|e| e.label == "Authorization")
        .expect("authorize");
    assert_eq!(authorize.url, format!("{}/authorize", url("Issuer")));
    assert_eq!(
        url("Registration"),
        format!("{}/connect/register", url("Issuer"))
    );
    assert_eq!(o.resources, Some(4));
    assert!(o.clients.is_some_and(|c| c >= 1));
    assert_eq!(o.grants_used, Some(0), "no token yet");
    assert!(o.grants.is_some_and(|g| g >= 1));
    // The endpoints it lists answer.
    for path in [
        url("Authorization server metadata"),
        url("OpenID"),
        url("JWKS"),
    ] {
        let path = path
            .split_once("://")
            .and_then(|(_, rest)| rest.split_once('/'))
            .map(|(_, p)| format!("/{p}"))
            .expect("path");
        assert_eq!(
            f.t.get(&path, None).await.status(),
            StatusCode::OK,
            "{path}"
        );
    }
    // A token ticks the last step once its use is written.
    f.access_token(PAY).await;
    core.flush_token_use().await.expect("flush");
    let o = core
        .realm_overview(&admin, "default")
        .await
        .expect("overview");
    assert_eq!(o.grants_used, Some(1));
    // A developer sees resources only.
    f.t.user("dev@example.com", "developer").await;
    let dev = f.t.principal("dev@example.com").await;
    let o = core
        .realm_overview(&dev, "default")
        .await
        .expect("overview");
    assert_eq!(
        (o.resources, o.clients, o.agents, o.grants),
        (Some(4), None, None, None)
    );
}

#[tokio::test]
async fn histories_list_the_events_that_concern_an_object_not_only_those_that_target_it() {
    use authz::audit::{AuditCursor, AuditFilter, AuditSubject, AuditWindow};
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let now = authz::clock::Clock::now(&f.clock);
    let window = || AuditWindow::page(AuditCursor::Newest, 50);
    let actions = |slice: authz::audit::AuditSlice| {
        slice
            .items
            .into_iter()
            .map(|e| (e.action, e.target))
            .collect::<Vec<_>>()
    };
    for name in ["night-bot", "day-bot"] {
        let input = authz::agents::AgentInput {
            name: name.into(),
            owner: "owner@example.com".into(),
            roles: "tools:call".into(),
            expires_at: authz::clock::rfc3339(now + 3600),
            ..Default::default()
        };
        core.create_agent(&admin, "default", &input, &meta)
            .await
            .expect("agent");
    }
    // Bound, moved, unbound: each agent's history shows the binding changes that concern it.
    for to in [Some("night-bot"), Some("day-bot"), None] {
        core.bind_client_to_agent(&admin, "default", "bot", to, &meta)
            .await
            .expect("bind");
    }
    let of = |subject: AuditSubject| {
        let admin = admin.clone();
        async move {
            actions(
                core.audit_of(&admin, "default", &subject, window())
                    .await
                    .expect("history"),
            )
        }
    };
    let bound = ("client.update".to_owned(), "client:bot".to_owned());
    assert_eq!(
        of(AuditSubject::Agent("night-bot".into())).await,
        [
            bound.clone(),
            ("agent.create".into(), "agent:night-bot".into())
        ],
        "bound to it (the move away shows on the agent it moved to)"
    );
    assert_eq!(
        of(AuditSubject::Agent("day-bot".into())).await,
        [
            bound.clone(),
            bound.clone(),
            ("agent.create".into(), "agent:day-bot".into())
        ],
        "moved to it, then unbound from it"
    );
    // A resource's history shows the grants of it.
    core.revoke_access(&admin, "default", "bot", "email-mcp", &meta)
        .await
        .expect("revoke");
    let email = of(AuditSubject::Resource("email-mcp".into())).await;
    assert_eq!(
        email.first(),
        Some(&("access.revoke".to_owned(), "client:bot".to_owned()))
    );
    assert!(
        email.contains(&("access.grant".to_owned(), "client:poster".to_owned())),
        "{email:?}"
    );
    assert_eq!(
        email.last(),
        Some(&(
            "resource.create".to_owned(),
            "resource:email-mcp".to_owned()
        ))
    );
    // "About" is exact: client:bo is not client:bot.
    let filter = AuditFilter::from_input("", "", "", "client:bo", "", "").expect("filter");
    let found = core
        .list_audit(&admin, Some("default"), filter, window())
        .await
        .expect("list");
    assert!(found.items.is_empty(), "{:?}", actions(found));
}

#[tokio::test]
async fn writes_are_seen_by_the_next_request_here_and_within_the_cache_lifetime_elsewhere() {
    let f = fixture().await;
    let core = &f.t.state.core;
    let admin = f.t.principal("ada@example.com").await;
    let meta = authz::RequestMeta::default();
    let form = format!("grant_type=client_credentials&resource={}", enc(PAY));
    // A second instance on the same database, on the same clock.
    let other =
        server::AppState::init_with_clock((*f.t.state.config).clone(), Arc::new(f.clock.clone()))
            .await
            .expect("second instance");
    let other_token = |form: String| {
        let router = server::router(other.clone());
        let auth = basic("bot", &f.secret);
        async move {
            let res = router
                .oneshot(
                    Request::post("/realms/default/token")
                        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                        .header(header::AUTHORIZATION, auth)
                        .body(Body::from(form))
                        .expect("request"),
                )
                .await
                .expect("response");
            res.status()
        }
    };
    // Both instances have the token path's lookups cached.
    assert_eq!(f.token(&form).await.0, StatusCode::OK);
    assert_eq!(other_token(form.clone()).await, StatusCode::OK);

    // Without the clock moving, this instance sees each write at once.
    core.revoke_access(&admin, "default", "bot", "payments-mcp", &meta)
        .await
        .expect("revoke");
    let (status, _, json) = f.token(&form).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );
    core.grant_access(
        &admin,
        "default",
        "bot",
        "payments-mcp",
        Some("tools:call"),
        &meta,
    )
    .await
    .expect("grant");
    let (status, _, json) = f.token(&form).await;
    assert_eq!(
        (status, json["scope"].as_str()),
        (StatusCode::OK, Some("tools:call"))
    );
    let lifetime = ResourceInput {
        slug: "payments-mcp".into(),
        display_name: "payments-mcp".into(),
        uri: PAY.into(),
        scopes: "tools:call tools:read".into(),
        token_ttl_secs: "120".into(),
        enabled: true,
        ..Default::default()
    };
    core.update_resource(&admin, "default", "payments-mcp", &lifetime, &meta)
        .await
        .expect("setting");
    assert_eq!(
        f.token(&form).await.2["expires_in"],
        120,
        "a setting applies at once"
    );
    core.set_client_enabled(&admin, "default", "bot", false, &meta)
        .await
        .expect("disable");
    assert_ne!(f.token(&form).await.0, StatusCode::OK);

    // The other instance follows within the cache lifetime (documented), not before it has to.
    assert_eq!(
        other_token(form.clone()).await,
        StatusCode::OK,
        "its cache is still fresh: this test would not see it follow otherwise"
    );
    f.clock.advance(authz::cache::TTL_SECS);
    assert_ne!(other_token(form.clone()).await, StatusCode::OK);
}
