//! The token endpoint's refusals: RFC error codes for every malformed request, and
//! throttled client authentication that never throttles a correct one.
use super::*;

#[tokio::test]
async fn token_errors_follow_the_rfcs() {
    let f = fixture().await;
    let cases: Vec<(String, Option<String>, StatusCode, &str)> = vec![
        (
            "grant_type=client_credentials".to_owned(),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_target",
        ),
        (
            format!(
                "grant_type=client_credentials&resource={}&resource={}",
                enc(PAY),
                enc(MAIL)
            ),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_target",
        ),
        (
            format!(
                "grant_type=client_credentials&resource={}",
                enc("https://unknown.example.com/")
            ),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_target",
        ),
        (
            format!(
                "grant_type=client_credentials&resource={}",
                enc("http://pay.example.com/mcp")
            ),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_target",
        ),
        (
            format!(
                "grant_type=client_credentials&resource={}&scope=nope",
                enc(PAY)
            ),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_scope",
        ),
        (
            format!("grant_type=password&resource={}", enc(PAY)),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
        ),
        (
            format!("resource={}", enc(PAY)),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            format!(
                "grant_type=client_credentials&grant_type=client_credentials&resource={}",
                enc(PAY)
            ),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            format!("grant_type=client_credentials&resource={}", enc(PAY)),
            None,
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
        (
            format!("grant_type=client_credentials&resource={}", enc(PAY)),
            Some(basic("bot", "wrong")),
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
        (
            format!("grant_type=client_credentials&resource={}", enc(PAY)),
            Some(basic("ghost", &f.secret)),
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
    ];
    for (form, auth, status, code) in cases {
        let (got, headers, json) = f
            .post("/realms/default/token", auth.as_deref(), &form)
            .await;
        assert_eq!(
            (got, json["error"].as_str()),
            (status, Some(code)),
            "{form}: {json}"
        );
        assert!(json["error_description"].is_string(), "{json}");
        assert_eq!(headers[header::CACHE_CONTROL], "no-store");
    }
    let res =
        f.t.send(
            Request::post("/realms/default/token")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from("{}"))
                .expect("request"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    // A disabled resource and a disabled client get nothing.
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    core.set_resource_enabled(
        &admin,
        "default",
        "payments-mcp",
        false,
        &Default::default(),
    )
    .await
    .expect("disable");
    assert_eq!(
        f.token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await
        .2["error"],
        "invalid_target"
    );
    core.set_resource_enabled(&admin, "default", "payments-mcp", true, &Default::default())
        .await
        .expect("enable");
    core.set_client_enabled(&admin, "default", "bot", false, &Default::default())
        .await
        .expect("disable");
    assert_eq!(
        f.token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await
        .0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn failed_client_authentication_is_throttled_but_never_a_correct_one() {
    let f = fixture().await;
    let form = format!("grant_type=client_credentials&resource={}", enc(PAY));
    for _ in 0..10 {
        assert_eq!(
            f.post("/realms/default/token", Some(&basic("bot", "wrong")), &form)
                .await
                .0,
            StatusCode::UNAUTHORIZED
        );
    }
    // Failures beyond the limit are told to wait, never told `invalid_client` (MCP clients
    // delete their registration on that)...
    let (status, headers, json) = f
        .post("/realms/default/token", Some(&basic("bot", "wrong")), &form)
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{json}");
    assert_eq!(json["error"], "temporarily_unavailable");
    assert!(headers.contains_key(header::RETRY_AFTER));
    assert!(headers.get(header::WWW_AUTHENTICATE).is_none());
    // ...while the client with its correct secret keeps getting tokens.
    assert_eq!(f.token(&form).await.0, StatusCode::OK);
    f.clock.advance(15 * 60);
    assert_eq!(
        f.post("/realms/default/token", Some(&basic("bot", "wrong")), &form)
            .await
            .0,
        StatusCode::UNAUTHORIZED,
        "a new window"
    );
}
