//! Client secrets for an upstream's authorization server that takes the gateway as a
//! confidential client: sent only there, as the client the registry names, at the URL it names.
use super::*;

/// What the console's Gateway page says of the docs server's client secret.
async fn secret_state(f: &Fixture) -> Option<authz::gateway::ClientSecretState> {
    f.t.state
        .core
        .gateway_overview(&f.admin, "default")
        .await
        .expect("overview")
        .upstreams
        .into_iter()
        .find(|u| u.server.server.id == "docs")
        .expect("docs")
        .client_secret
}

#[tokio::test]
async fn a_confidential_gateway_client_sends_its_secret_only_where_it_was_issued() {
    let f = fixture().await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let connect_url = format!("{}/gateway/connect/docs", f.issuer());
    let as_issuer = format!("{}/realms/{AS_REALM}", f.origin);

    // At the upstream's authorization server, the gateway is now a confidential client (a web
    // application client, as Google's are): its token requests need the secret.
    let (_, secret) = core
        .create_client(
            &f.admin,
            AS_REALM,
            "gateway-web",
            &ClientForm {
                name: "Portcullis gateway (web)".into(),
                auth_method: "client_secret_basic".into(),
                redirect_uris: format!("{}/realms/default/gateway/callback/docs", f.origin),
                ..Default::default()
            }
            .into_metadata()
            .expect("metadata"),
            &meta,
        )
        .await
        .expect("confidential client");
    let secret = secret.expect("a secret").expose().to_owned();
    core.grant_access(
        &f.admin,
        AS_REALM,
        "gateway-web",
        "docs",
        Some("docs:read"),
        &meta,
    )
    .await
    .expect("grant");
    let (fx, m) = (&f, &meta);
    let publish = move |auth: Value| async move {
        let revision = core
            .registry(&fx.admin, "default")
            .await
            .expect("registry")
            .registry
            .revision;
        let policy: portcullis_manifest::policy::PolicyInput = serde_json::from_value(json!({
            "mode": "allowlist",
            "rings": ["ring0"],
            "servers": [{"id": "docs", "title": "Team docs", "url": fx.docs_url, "auth": auth, "rings": ["ring0"]}],
        }))
        .expect("policy");
        core.replace_registry_draft(&fx.admin, "default", revision, &policy, m)
            .await
            .expect("draft");
        core.publish_registry(&fx.admin, "default", revision + 1, m)
            .await
            .expect("publish");
    };

    // A secret is bound to the client id and the authorization server the registry names:
    // without an issuer in the entry, there is nothing to bind it to.
    publish(json!({"mode": "oauth", "clientId": "gateway-web", "scopes": ["docs:read", "offline_access"]})).await;
    let err = core
        .set_gateway_client_secret(&f.admin, "default", "docs", &secret, &meta)
        .await
        .expect_err("no issuer named");
    assert!(
        matches!(
            err,
            authz::Error::InvalidField {
                field: "server",
                ..
            }
        ),
        "{err:?}"
    );
    publish(json!({"mode": "oauth", "clientId": "gateway-web", "issuer": as_issuer, "scopes": ["docs:read", "offline_access"]})).await;
    for (bad, field) in [
        ("", "client_secret"),
        ("two\nlines", "client_secret"),
        (
            r#"{"web":{"client_id":"gateway-web","client_secret":"s"}}"#,
            "client_secret",
        ),
    ] {
        let err = core
            .set_gateway_client_secret(&f.admin, "default", "docs", bad, &meta)
            .await
            .expect_err("refused");
        assert!(
            matches!(&err, authz::Error::InvalidField { field: f, .. } if *f == field),
            "{err:?}"
        );
    }
    let err = core
        .set_gateway_client_secret(&f.admin, "default", "nowhere", &secret, &meta)
        .await
        .expect_err("no such server");
    assert!(
        matches!(&err, authz::Error::InvalidField { field: "server", message } if message.contains("publish")),
        "{err:?}"
    );

    // Without the secret, the authorization server gives the gateway no token.
    let mut jar = Jar::default();
    let ada = f
        .client(f.person_token(&mut jar, "ada@example.com").await)
        .await;
    search(&ada).await;
    let (status, html) = f
        .try_connect(&mut jar, &connect_url, "ada@example.com", "gateway-web")
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{html}");
    assert!(html.contains("did not give a token"), "{html}");

    // With it, Ada connects, calls, and her token is refreshed (the secret again).
    core.set_gateway_client_secret(&f.admin, "default", "docs", &format!(" {secret} "), &meta)
        .await
        .expect("secret set");
    let overview = core
        .gateway_overview(&f.admin, "default")
        .await
        .expect("overview");
    let docs = overview
        .upstreams
        .iter()
        .find(|u| u.server.server.id == "docs")
        .expect("docs");
    assert!(
        matches!(
            docs.client_secret,
            Some(authz::gateway::ClientSecretState::Set { .. })
        ),
        "{:?}",
        docs.client_secret
    );
    assert_eq!(
        docs.callback_url.as_deref(),
        Some(format!("{}/gateway/callback/docs", f.issuer()).as_str()),
        "the redirect URI to register, shown beside the secret"
    );
    let (status, html) = f
        .try_connect(&mut jar, &connect_url, "ada@example.com", "gateway-web")
        .await;
    assert_eq!(status, StatusCode::OK, "{html}");
    // Listed through Ada's account, then accepted.
    search(&ada).await;
    core.accept_tool_pins(&f.admin, "default", "docs", &[], &meta)
        .await
        .expect("accept");
    assert_eq!(names(&search(&ada).await), ["docs.read"]);
    let r = execute(&ada, "docs.read", json!({"q": "x"}))
        .await
        .expect("call");
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let first = f.docs.seen.lock().expect("seen")[0].authorization.clone();
    let claims = jwt_claims(
        first
            .as_deref()
            .expect("token")
            .trim_start_matches("Bearer "),
    );
    assert_eq!(claims["client_id"], "gateway-web");
    let lifetime = claims["exp"].as_i64().expect("exp") - claims["iat"].as_i64().expect("iat");
    f.clock.advance(lifetime - 20);
    let r = execute(&ada, "docs.read", json!({"q": "later"}))
        .await
        .expect("call");
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let last = f
        .docs
        .seen
        .lock()
        .expect("seen")
        .last()
        .expect("a call")
        .authorization
        .clone();
    assert_ne!(last, first, "refreshed with the secret");

    // The registry naming another client id: the secret is for the old one, and never sent.
    publish(json!({"mode": "oauth", "clientId": "someone-else", "issuer": as_issuer, "scopes": ["docs:read"]})).await;
    let state = secret_state(&f).await;
    assert!(
        matches!(state, Some(authz::gateway::ClientSecretState::Stale { .. })),
        "{state:?}"
    );

    // Removing it is audited like setting it; the secret is in no audit row.
    core.clear_gateway_client_secret(&f.admin, "default", "docs", &meta)
        .await
        .expect("removed");
    let err = core
        .clear_gateway_client_secret(&f.admin, "default", "docs", &meta)
        .await
        .expect_err("nothing to remove");
    assert!(matches!(err, authz::Error::NotFound { .. }), "{err:?}");
    let events = core
        .list_audit(
            &f.admin,
            Some("default"),
            authz::audit::AuditFilter {
                action: Some("gateway.client_secret".into()),
                ..Default::default()
            },
            authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 10),
        )
        .await
        .expect("audit");
    let changes: Vec<&str> = events
        .items
        .iter()
        .map(|e| e.details["change"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(changes, ["removed", "set"]);
    let text = serde_json::to_string(
        &events
            .items
            .iter()
            .map(|e| e.details.clone())
            .collect::<Vec<_>>(),
    )
    .expect("json");
    assert!(!text.contains(&secret), "{text}");
}
