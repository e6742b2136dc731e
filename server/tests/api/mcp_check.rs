//! "Check an MCP server" against stand-in MCP servers on loopback: a correctly protected one
//! (portcullis-guard with the realm's keys), one that is not protected at all, and one whose
//! metadata names another authorization server.
use crate::*;
use authz::integration::{McpCheck, Verdict};
use portcullis_guard::Guard;

async fn server() -> TestServer {
    TestServer::with(
        |c| {
            c.dev.allow_http_loopback_resources = true;
            c.dev.allow_loopback_client_urls = true;
        },
        Arc::new(authz::clock::SystemClock),
    )
    .await
}

/// Serves `app` on a loopback port; its URL (`/mcp` path).
async fn serve(app: impl FnOnce(&str) -> axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let app = app(&url);
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
    url
}

async fn jwks(s: &TestServer) -> serde_json::Value {
    let res = s.get("/realms/default/jwks", None).await;
    serde_json::from_slice(&res.into_body().collect().await.expect("body").to_bytes())
        .expect("jwks")
}

async fn check(s: &TestServer, url: &str) -> McpCheck {
    s.state
        .core
        .check_mcp_server(
            &authz::Principal::cli(),
            "default",
            url,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("the check runs")
}

fn verdicts(c: &McpCheck) -> Vec<(&str, Verdict)> {
    c.steps.iter().map(|s| (s.id, s.verdict)).collect()
}

async fn register(s: &TestServer, slug: &str, uri: &str) {
    let input = authz::resources::ResourceInput {
        slug: slug.into(),
        display_name: "Checked server".into(),
        uri: uri.into(),
        scopes: "tools:call".into(),
        token_ttl_secs: String::new(),
        signing_alg: String::new(),
        enabled: true,
    };
    s.state
        .core
        .create_resource(
            &authz::Principal::cli(),
            "default",
            &input,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("resource");
}

#[tokio::test]
async fn a_correctly_protected_server_passes_every_step() {
    let s = server().await;
    let keys = jwks(&s).await;
    let url = serve(|url| {
        let guard = Guard::builder("http://127.0.0.1:3000/realms/default", url)
            .expect("guard")
            .required_scopes(["tools:call"])
            .jwks(keys)
            .build()
            .expect("guard");
        axum::Router::new()
            .route("/mcp", axum::routing::post(|| async { "{}" }))
            .layer(guard.layer())
            .merge(guard.metadata_router())
    })
    .await;
    register(&s, "checked", &url).await;
    let c = check(&s, &url).await;
    assert_eq!(
        verdicts(&c),
        [
            ("challenge", Verdict::Pass),
            ("metadata", Verdict::Pass),
            ("authorization_server", Verdict::Pass),
            ("registered", Verdict::Pass),
            ("forged_token", Verdict::Pass),
        ],
        "{c:#?}"
    );
    assert!(c.passed());
    // What was sent and what came back are shown, the forged token never.
    let first = &c.steps[0].exchanges[0];
    assert!(first.request.starts_with(&format!("POST {url}\n")));
    assert!(first.response.starts_with("HTTP 401\n"));
    assert!(
        first
            .response
            .contains("www-authenticate: Bearer resource_metadata=")
    );
    let forged = &c.steps[4].exchanges[0].request;
    assert!(forged.contains("authorization: Bearer …") && !forged.contains("eyJ"));
}

#[tokio::test]
async fn an_unprotected_server_fails_and_says_why() {
    let s = server().await;
    let url = serve(|_| {
        axum::Router::new().route(
            "/mcp",
            axum::routing::post(|| async { "{\"jsonrpc\":\"2.0\"}" }),
        )
    })
    .await;
    let c = check(&s, &url).await;
    assert!(!c.passed());
    let v = verdicts(&c);
    assert_eq!(v[0], ("challenge", Verdict::Fail));
    assert!(
        c.steps[0].reason.contains("without a token"),
        "{}",
        c.steps[0].reason
    );
    assert_eq!(v[1], ("metadata", Verdict::Fail), "no metadata anywhere");
    assert_eq!(v[3], ("registered", Verdict::Fail));
    assert!(c.steps[3].reason.contains("No resource of this realm"));
    assert_eq!(v[4], ("forged_token", Verdict::Fail), "it takes any token");
    assert!(c.steps[4].reason.contains("does not verify signatures"));
}

#[tokio::test]
async fn metadata_naming_another_authorization_server_fails() {
    let s = server().await;
    let url = serve(|url| {
        let guard = Guard::builder("https://elsewhere.example.com/realms/x", url)
            .expect("guard")
            .build()
            .expect("guard");
        axum::Router::new()
            .route("/mcp", axum::routing::post(|| async { "{}" }))
            .layer(guard.layer())
            .merge(guard.metadata_router())
    })
    .await;
    let c = check(&s, &url).await;
    assert_eq!(c.steps[1].verdict, Verdict::Fail);
    assert!(
        c.steps[1].reason.contains("not this realm"),
        "{}",
        c.steps[1].reason
    );
    assert_eq!(c.steps[2].verdict, Verdict::Skipped);
}

#[tokio::test]
async fn the_checker_fetches_no_metadata_url_but_a_well_known_one() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let s = server().await;
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let url = serve(move |url| {
        let origin = url.trim_end_matches("/mcp").to_owned();
        axum::Router::new()
            .route(
                "/mcp",
                axum::routing::post(move || {
                    let origin = origin.clone();
                    async move {
                        (
                            StatusCode::UNAUTHORIZED,
                            [(
                                header::WWW_AUTHENTICATE,
                                format!(
                                    "Bearer resource_metadata=\"{origin}/internal/admin?dump=1\""
                                ),
                            )],
                        )
                    }
                }),
            )
            .route(
                "/internal/admin",
                axum::routing::get(move || {
                    counted.fetch_add(1, Ordering::SeqCst);
                    async { "secret" }
                }),
            )
    })
    .await;
    let c = check(&s, &url).await;
    assert_eq!(c.steps[1].verdict, Verdict::Fail);
    assert!(
        c.steps[1]
            .reason
            .contains("not a /.well-known/oauth-protected-resource URL"),
        "{}",
        c.steps[1].reason
    );
    assert_eq!(hits.load(Ordering::SeqCst), 0, "never fetched");
    // Who checked what is in the audit log.
    let events = s
        .audit(authz::audit::AuditFilter {
            action: Some("mcp.check".into()),
            ..Default::default()
        })
        .await;
    assert_eq!(events.len(), 1);
    assert_eq!(
        events[0].target,
        authz::audit::AuditSubject::McpServer(url.to_string()).target()
    );
    assert_eq!(events[0].actor, "cli");
}

#[tokio::test]
async fn an_unreachable_server_stops_the_check_at_the_first_step() {
    let s = server().await;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    drop(listener);
    let c = check(&s, &url).await;
    assert_eq!(c.steps[0].verdict, Verdict::Fail);
    assert!(
        c.steps[0].reason.contains("could not be reached"),
        "{}",
        c.steps[0].reason
    );
    // What needs the server is not run; what does not (this realm, the registration) is.
    assert_eq!(
        verdicts(&c)[1..],
        [
            ("metadata", Verdict::Skipped),
            ("authorization_server", Verdict::Skipped),
            ("registered", Verdict::Fail),
            ("forged_token", Verdict::Skipped),
        ]
    );
    assert!(
        c.steps[2].reason.starts_with("Not judged"),
        "{}",
        c.steps[2].reason
    );
    assert!(
        !c.steps[0].reason.contains("failed: "),
        "no stutter: {}",
        c.steps[0].reason
    );
}

#[tokio::test]
async fn checks_follow_the_ssrf_rules_and_are_throttled_per_account() {
    // Without the development settings, loopback and private addresses are refused.
    let strict = TestServer::new().await;
    for url in [
        "http://127.0.0.1:9/mcp",
        "https://10.0.0.1/mcp",
        "https://169.254.169.254/mcp",
    ] {
        let e = strict
            .state
            .core
            .check_mcp_server(
                &authz::Principal::cli(),
                "default",
                url,
                &authz::RequestMeta::default(),
            )
            .await
            .expect_err(url);
        assert!(
            matches!(
                e,
                authz::Error::InvalidField {
                    field: "server_url",
                    ..
                }
            ),
            "{url}: {e:?}"
        );
    }
    let s = server().await;
    s.user("dev@example.com", "developer").await;
    let dev = s.principal("dev@example.com").await;
    let url = "http://127.0.0.1:9/mcp";
    for _ in 0..authz::throttle::MAX_MCP_CHECKS_PER_ACCOUNT {
        s.state
            .core
            .check_mcp_server(&dev, "default", url, &authz::RequestMeta::default())
            .await
            .expect("within the limit");
    }
    let e = s
        .state
        .core
        .check_mcp_server(&dev, "default", url, &authz::RequestMeta::default())
        .await
        .expect_err("throttled");
    assert!(matches!(e, authz::Error::Throttled { .. }), "{e:?}");
}

#[tokio::test]
async fn the_demo_plays_the_handshake_end_to_end() {
    let mut lines = Vec::new();
    server::demo::run(&mut |l: &str| lines.push(l.to_owned()))
        .await
        .expect("every step as the spec says");
    let text = lines.join("\n");
    assert_eq!(text.matches("   ✓ ").count(), 6, "{text}");
    assert!(text.contains("\"agent_name\":\"demo-agent\""), "{text}");
    assert!(text.contains("\"nhi\":true"), "{text}");
    assert!(text.contains("error=\"invalid_token\""), "{text}");
}
