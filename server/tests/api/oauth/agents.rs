//! Agents in tokens: their identity carried and enforced, their bindings and expiries.
use super::*;

#[tokio::test]
async fn agent_identity_is_carried_in_tokens_and_enforced() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let now = authz::clock::Clock::now(&f.clock);
    let input = authz::agents::AgentInput {
        name: "reports-bot".into(),
        owner: "owner@example.com".into(),
        description: "Nightly reports".into(),
        roles: "tools:call mcp:tools".into(),
        expires_at: authz::clock::rfc3339(now + 3600),
    };
    let agent = core
        .create_agent(&admin, "default", &input, &meta)
        .await
        .expect("agent");
    core.bind_client_to_agent(&admin, "default", "bot", Some("reports-bot"), &meta)
        .await
        .expect("bind");

    let (status, _, json) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["scope"], "tools:call", "limited by the agent's roles");
    let claims = verify_for(
        &f.jwks().await,
        json["access_token"].as_str().expect("token"),
        PAY,
    )
    .expect("valid");
    assert_eq!(claims["nhi"], true);
    assert_eq!(claims["agent_id"], agent.id.as_str());
    assert_eq!(claims["agent_name"], "reports-bot");
    assert_eq!(claims["agent_owner"], "owner@example.com");
    assert_eq!(
        claims["roles"],
        serde_json::json!(["mcp:tools", "tools:call"])
    );
    let token = json["access_token"].as_str().expect("token").to_owned();
    assert_eq!(f.introspect(&token).await["active"], true);

    // A disabled agent: no new tokens, existing ones inactive.
    core.set_agent_disabled(&admin, "default", "reports-bot", true, &meta)
        .await
        .expect("disable");
    let (status, _, json) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("unauthorized_client"))
    );
    assert_eq!(f.introspect(&token).await["active"], false);

    // An expired agent: the same.
    core.set_agent_disabled(&admin, "default", "reports-bot", false, &meta)
        .await
        .expect("enable");
    assert_eq!(f.introspect(&token).await["active"], true);
    f.clock.advance(3600);
    let (status, _, _) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Unbound, the client is a plain client again.
    core.bind_client_to_agent(&admin, "default", "bot", None, &meta)
        .await
        .expect("unbind");
    let (status, _, json) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let claims = verify_for(
        &f.jwks().await,
        json["access_token"].as_str().expect("token"),
        PAY,
    )
    .expect("valid");
    assert!(claims.get("nhi").is_none());
    let mcp = authz::agents::AgentFilter {
        mcp_only: true,
        ..Default::default()
    };
    let listed = core
        .list_agents(&admin, "default", mcp, authz::paging::Page::first(10))
        .await
        .expect("list");
    assert_eq!(listed.items.len(), 1, "MCP-capable filter keeps it");
    assert_eq!(listed.items[0].status, authz::agents::AgentStatus::Expired);
}

#[tokio::test]
async fn an_agent_page_shows_its_clients_and_past_expiries_are_refused() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let now = authz::clock::Clock::now(&f.clock);
    let input = |expires: i64| authz::agents::AgentInput {
        name: "reports".into(),
        owner: "owner@example.com".into(),
        roles: "tools:call".into(),
        expires_at: authz::clock::rfc3339(expires),
        ..Default::default()
    };
    for at in [now - 60, now] {
        let err = core
            .create_agent(&admin, "default", &input(at), &meta)
            .await
            .expect_err("past expiry");
        assert!(
            matches!(&err, authz::Error::InvalidField { field, message } if *field == "expires_at" && message.contains("in the past")),
            "{err:?}"
        );
    }
    core.create_agent(&admin, "default", &input(now + 3600), &meta)
        .await
        .expect("agent");
    let err = core
        .update_agent(&admin, "default", "reports", &input(now - 1), &meta)
        .await
        .expect_err("past expiry on update");
    assert!(matches!(err, authz::Error::InvalidField { .. }), "{err:?}");

    // The picker shows which agent a client acts for, so a move can be confirmed.
    let choices = core
        .client_choices(&admin, "default", "bot", 10)
        .await
        .expect("choices");
    assert_eq!(choices.len(), 1);
    assert_eq!(choices[0].agent, None);
    core.bind_client_to_agent(&admin, "default", "bot", Some("reports"), &meta)
        .await
        .expect("bind");
    let choices = core
        .client_choices(&admin, "default", "bot", 10)
        .await
        .expect("choices");
    assert_eq!(choices[0].agent.as_deref(), Some("reports"));
    let agent = core
        .agent(&admin, "default", "reports")
        .await
        .expect("agent");
    assert_eq!(agent.clients, vec!["bot".to_owned()]);
    assert_eq!(agent.status, authz::agents::AgentStatus::Active);

    // A token names the agent's owner and roles: changing either ends it at introspection.
    let change = |owner: &str, roles: &str| authz::agents::AgentInput {
        name: "reports".into(),
        owner: owner.into(),
        roles: roles.into(),
        expires_at: authz::clock::rfc3339(now + 3600),
        ..Default::default()
    };
    let token = f.access_token(PAY).await;
    assert_eq!(f.introspect(&token).await["active"], true);
    core.update_agent(
        &admin,
        "default",
        "reports",
        &change("owner@example.com", "tools:call"),
        &meta,
    )
    .await
    .expect("unchanged identity");
    assert_eq!(
        f.introspect(&token).await["active"],
        true,
        "same owner and roles"
    );
    core.update_agent(
        &admin,
        "default",
        "reports",
        &change("new@example.com", "tools:call"),
        &meta,
    )
    .await
    .expect("new owner");
    assert_eq!(f.introspect(&token).await["active"], false, "owner changed");
    let token = f.access_token(PAY).await;
    assert_eq!(f.introspect(&token).await["active"], true);
    core.update_agent(
        &admin,
        "default",
        "reports",
        &change("new@example.com", "other"),
        &meta,
    )
    .await
    .expect("roles narrowed");
    assert_eq!(
        f.introspect(&token).await["active"],
        false,
        "a role it carries is gone"
    );
    assert!(matches!(
        core.agent(&admin, "default", "nobody").await,
        Err(authz::Error::NotFound { .. })
    ));
}

#[tokio::test]
async fn agent_tokens_die_with_their_binding_and_never_outlive_the_agent() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let now = authz::clock::Clock::now(&f.clock);
    let agent = |name: &str, expires: i64| authz::agents::AgentInput {
        name: name.into(),
        owner: "owner@example.com".into(),
        roles: "tools:call tools:read".into(),
        expires_at: authz::clock::rfc3339(expires),
        ..Default::default()
    };
    core.create_agent(&admin, "default", &agent("reports", now + 100), &meta)
        .await
        .expect("agent");
    let bind =
        |a: Option<&'static str>| core.bind_client_to_agent(&admin, "default", "bot", a, &meta);
    bind(Some("reports")).await.expect("bind");
    // The agent expires in 100 s, before the resource's 300 s lifetime.
    let (status, _, json) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(
        json["expires_in"], 100,
        "never later than the agent's expiry"
    );
    let first = json["access_token"].as_str().expect("token").to_owned();
    let claims = verify_for(&f.jwks().await, &first, PAY).expect("valid");
    assert_eq!(claims["exp"].as_i64(), Some(now + 100));
    assert_eq!(f.introspect(&first).await["active"], true);
    // Unbinding ends it; binding the same agent again does not bring it back.
    bind(None).await.expect("unbind");
    assert_eq!(f.introspect(&first).await["active"], false, "unbound");
    bind(Some("reports")).await.expect("rebind");
    assert_eq!(
        f.introspect(&first).await["active"],
        false,
        "rebound: a new binding"
    );
    let second = f.access_token(PAY).await;
    assert_eq!(f.introspect(&second).await["active"], true);
    // Deleting the agent ends its tokens, and an agent created again under the same name and
    // bound again does not revive them.
    core.delete_agent(&admin, "default", "reports", &meta)
        .await
        .expect("delete");
    assert_eq!(f.introspect(&second).await["active"], false);
    core.create_agent(&admin, "default", &agent("reports", now + 3600), &meta)
        .await
        .expect("same name again");
    bind(Some("reports")).await.expect("bind the new agent");
    assert_eq!(f.introspect(&second).await["active"], false);
    // Moving the client to another agent ends the old agent's tokens too.
    let third = f.access_token(PAY).await;
    core.create_agent(&admin, "default", &agent("other", now + 3600), &meta)
        .await
        .expect("agent");
    bind(Some("other")).await.expect("move");
    assert_eq!(f.introspect(&third).await["active"], false);
    // A client that was plain when its token was minted and is bound later: the token does
    // not pick up an identity it was not issued with.
    bind(None).await.expect("unbind");
    let plain = f.access_token(PAY).await;
    bind(Some("other")).await.expect("bind");
    assert_eq!(f.introspect(&plain).await["active"], false);
}
