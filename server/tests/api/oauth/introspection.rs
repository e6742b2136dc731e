//! Introspection (RFC 7662) and revocation (RFC 7009): who may ask about a token, the
//! resource servers' credentials, and tokens that never come back with a re-created client
//! or resource.
use super::*;

#[tokio::test]
async fn introspection_and_revocation() {
    let f = fixture().await;
    let token = f.access_token(PAY).await;
    let active = f.introspect(&token).await;
    assert_eq!(active["active"], true, "{active}");
    assert_eq!(active["aud"], PAY);
    assert_eq!(active["client_id"], "bot");
    assert_eq!(active["scope"], "tools:call tools:read");

    // Forged and malformed tokens are simply inactive.
    let (h, p, _) = {
        let mut it = token.split('.');
        (
            it.next().expect("h"),
            it.next().expect("p"),
            it.next().expect("s"),
        )
    };
    let none_header =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"at+jwt"}"#);
    let wrong_typ = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(r#"{"alg":"ES256","typ":"JWT","kid":"x"}"#);
    // Algorithm confusion: an HS256 MAC keyed with the published public key, naming its kid.
    let kid = jsonwebtoken::decode_header(&token)
        .expect("header")
        .kid
        .expect("kid");
    let jwks = f.jwks().await;
    let public = jwks["keys"]
        .as_array()
        .and_then(|keys| keys.iter().find(|k| k["kid"] == kid.as_str()))
        .expect("published key")
        .to_string();
    let hs_header = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(format!(r#"{{"alg":"HS256","typ":"at+jwt","kid":"{kid}"}}"#));
    let mac = aws_lc_rs::hmac::sign(
        &aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, public.as_bytes()),
        format!("{hs_header}.{p}").as_bytes(),
    );
    let hmac_token = format!(
        "{hs_header}.{p}.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac.as_ref())
    );
    for forged in [
        hmac_token,
        format!("{none_header}.{p}."),
        format!("{wrong_typ}.{p}.AAAA"),
        format!("{h}.{p}.AAAA"),
        "garbage".into(),
    ] {
        assert_eq!(
            f.introspect(&forged).await,
            serde_json::json!({"active": false}),
            "{forged}"
        );
    }

    // Revocation by another client is refused; by the owner it sticks.
    let (status, _, json) = f
        .post(
            "/realms/default/revoke",
            Some(&basic("bot", &f.secret)),
            &format!("token={token}&token_type_hint=access_token"),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(f.introspect(&token).await["active"], false);
    let (status, _, _) = f
        .post(
            "/realms/default/revoke",
            Some(&basic("bot", &f.secret)),
            "token=garbage",
        )
        .await;
    assert_eq!(status, StatusCode::OK, "unknown tokens are not an error");

    // Disabling the client deactivates its tokens; expiry too.
    let other = f.access_token(PAY).await;
    f.clock.advance(301);
    assert_eq!(f.introspect(&other).await["active"], false, "expired");
    let fresh = f.access_token(PAY).await;
    let admin = f.t.principal("ada@example.com").await;
    f.t.state
        .core
        .set_client_enabled(&admin, "default", "poster", false, &Default::default())
        .await
        .expect("disable");
    assert_eq!(
        f.introspect(&fresh).await["active"],
        true,
        "another client's change does not matter"
    );
    f.t.state
        .core
        .delete_resource(&admin, "default", "payments-mcp", &Default::default())
        .await
        .expect("delete");
    assert_eq!(
        f.introspect(&fresh).await["active"],
        false,
        "resource deleted"
    );
}

#[tokio::test]
async fn introspection_is_for_the_token_owner_and_its_resource_server_only() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let pay_token = f.access_token(PAY).await;
    let mail_token = f.access_token(MAIL).await;
    // Another confidential client learns nothing about bot's tokens.
    let poster =
        f.t.state
            .core
            .rotate_client_secret(&admin, "default", "poster", 0, &Default::default())
            .await
            .expect("secret");
    let (status, _, json) = f
        .post(
            "/realms/default/introspect",
            None,
            &format!(
                "client_id=poster&client_secret={}&token={}",
                poster.expose(),
                enc(&pay_token)
            ),
        )
        .await;
    assert_eq!(
        (status, json),
        (StatusCode::OK, serde_json::json!({"active": false}))
    );
    // A public client may not introspect at all.
    register_granted_client(
        &f.t.state.core,
        &admin,
        "app",
        ClientForm {
            name: "App".into(),
            auth_method: "none".into(),
            ..Default::default()
        },
    )
    .await
    .expect("public client");
    let (status, _, json) = f
        .post(
            "/realms/default/introspect",
            None,
            &format!("client_id=app&token={}", enc(&pay_token)),
        )
        .await;
    assert_eq!(
        (status, json),
        (StatusCode::OK, serde_json::json!({"active": false}))
    );
    // The MCP server of payments-mcp introspects tokens minted for it, and only those.
    let (rs, rs_secret) = f.resource_server("payments-mcp").await;
    assert_eq!(rs, "payments-mcp-introspect");
    let seen = f.introspect_as(&rs, &rs_secret, &pay_token).await;
    assert_eq!(
        (seen["active"].clone(), seen["aud"].clone()),
        (true.into(), PAY.into())
    );
    assert!(
        seen.get("portcullis").is_none(),
        "private claims stay private"
    );
    assert_eq!(
        f.introspect_as(&rs, &rs_secret, &mail_token).await,
        serde_json::json!({"active": false})
    );
    // Its credentials get no tokens, and a second set is refused.
    let (status, _, json) = f
        .post(
            "/realms/default/token",
            Some(&basic(&rs, &rs_secret)),
            &format!("grant_type=client_credentials&resource={}", enc(PAY)),
        )
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("unauthorized_client"))
    );
    let again = f
        .t
        .state
        .core
        .create_resource_server_credentials(&admin, "default", "payments-mcp", &Default::default())
        .await;
    assert!(matches!(again, Err(authz::Error::Conflict(_))), "{again:?}");
}

#[tokio::test]
async fn a_resource_shows_its_introspection_credentials_and_their_history() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::audit::RequestMeta::default();
    let shown = core
        .resource_server_credentials(&admin, "default", "payments-mcp")
        .await
        .expect("none yet");
    assert_eq!(shown.client, None);
    assert!(
        shown
            .introspection_endpoint
            .ends_with("/realms/default/introspect"),
        "{}",
        shown.introspection_endpoint
    );
    let (rs, _) = f.resource_server("payments-mcp").await;
    core.rotate_client_secret(&admin, "default", &rs, 0, &meta)
        .await
        .expect("rotate");
    let shown = core
        .resource_server_credentials(&admin, "default", "payments-mcp")
        .await
        .expect("shown")
        .client
        .expect("credentials");
    assert_eq!(
        (shown.client.client_id.as_str(), shown.secrets.len()),
        (rs.as_str(), 2),
        "the client and both secrets (the first one expired by the rotation)"
    );
    assert_eq!(
        core.resource_server_credentials(&admin, "default", "email-mcp")
            .await
            .expect("other")
            .client,
        None,
        "another resource's credentials are not this one's"
    );
    // The resource's history shows what happened to its credentials.
    core.delete_client(&admin, "default", &rs, &meta)
        .await
        .expect("delete");
    let history = core
        .audit_of(
            &admin,
            "default",
            &authz::audit::AuditSubject::Resource("payments-mcp".into()),
            authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 10),
        )
        .await
        .expect("history");
    let about_credentials: Vec<_> = history
        .items
        .iter()
        .filter(|e| e.target == authz::audit::AuditSubject::Client(rs.to_string()).target())
        .map(|e| e.action.as_str())
        .collect();
    assert_eq!(
        about_credentials,
        ["client.delete", "client.secret_rotate", "client.create"]
    );
    // A developer (who may read resources, not clients) does not see them.
    f.t.user("dev@example.com", "developer").await;
    let developer = f.t.principal("dev@example.com").await;
    let refused = core
        .resource_server_credentials(&developer, "default", "payments-mcp")
        .await;
    assert!(
        matches!(refused, Err(authz::Error::Forbidden)),
        "{refused:?}"
    );
}

#[tokio::test]
async fn deleted_and_recreated_clients_and_resources_do_not_revive_tokens() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let (rs, rs_secret) = f.resource_server("payments-mcp").await;
    let token = f.access_token(PAY).await;
    assert_eq!(
        f.introspect_as(&rs, &rs_secret, &token).await["active"],
        true
    );
    // The client goes, and a client with the same client_id comes.
    core.delete_client(&admin, "default", "bot", &Default::default())
        .await
        .expect("delete");
    let (_, secret) = register_granted_client(
        core,
        &admin,
        "bot",
        ClientForm {
            name: "Bot again".into(),
            auth_method: "client_secret_basic".into(),
            scope: "tools:call tools:read".into(),
            ..Default::default()
        },
    )
    .await
    .expect("same client_id again");
    let secret = secret.expect("secret").expose().to_owned();
    assert_eq!(
        f.introspect_as(&rs, &rs_secret, &token).await["active"],
        false
    );
    assert_eq!(
        f.introspect_as("bot", &secret, &token).await["active"],
        false,
        "nor does the new client own it"
    );
    // The resource goes, and one with the same URI comes.
    let fresh = {
        let (status, _, json) = f
            .post(
                "/realms/default/token",
                Some(&basic("bot", &secret)),
                &format!("grant_type=client_credentials&resource={}", enc(PAY)),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{json}");
        json["access_token"].as_str().expect("token").to_owned()
    };
    assert_eq!(
        f.introspect_as("bot", &secret, &fresh).await["active"],
        true
    );
    core.delete_resource(&admin, "default", "payments-mcp", &Default::default())
        .await
        .expect("delete");
    let input = ResourceInput {
        slug: "payments-mcp".into(),
        display_name: "Payments again".into(),
        uri: PAY.into(),
        scopes: "tools:call tools:read".into(),
        enabled: true,
        ..Default::default()
    };
    core.create_resource(&admin, "default", &input, &Default::default())
        .await
        .expect("same URI again");
    assert_eq!(
        f.introspect_as("bot", &secret, &fresh).await["active"],
        false
    );
}
