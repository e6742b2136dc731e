//! Attacks that need no credentials, and ways sessions and tokens could outlive what they stand
//! for: throttling behind a reverse proxy, oversized requests, and sessions after a password
//! change.
use super::*;
use authz::clients::ClientForm;
use authz::resources::ResourceInput;
use base64::Engine as _;

const PAY: &str = "https://pay.example.com/mcp";
const PROXY: &str = "10.0.0.1:40000";

/// A request as it arrives from `peer` (the socket address), with an `X-Forwarded-For`.
fn from(
    peer: &str,
    xff: Option<&str>,
    req: axum::http::request::Builder,
) -> axum::http::request::Builder {
    let peer: std::net::SocketAddr = peer.parse().expect("peer");
    let mut req = req.extension(axum::extract::ConnectInfo(peer));
    if let Some(xff) = xff {
        req = req.header("x-forwarded-for", xff);
    }
    req
}

async fn login_via(
    t: &TestServer,
    peer: &str,
    xff: Option<&str>,
    email: &str,
    password: &str,
) -> String {
    let req = from(peer, xff, Request::post("/login"))
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header("sec-fetch-site", "same-origin")
        .body(Body::from(format!(
            "email={}&password={}",
            enc(email),
            enc(password)
        )))
        .expect("request");
    location(&t.send(req).await)
}

async fn token_via(
    t: &TestServer,
    peer: &str,
    xff: Option<&str>,
    client: &str,
    secret: &str,
) -> (StatusCode, serde_json::Value) {
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{client}:{secret}"));
    let req = from(peer, xff, Request::post("/realms/default/token"))
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::AUTHORIZATION, format!("Basic {basic}"))
        .body(Body::from(format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        )))
        .expect("request");
    let res = t.send(req).await;
    let status = res.status();
    (
        status,
        serde_json::from_str(&body(res).await).unwrap_or_default(),
    )
}

/// A realm with resource `pay` and client `bot`; returns bot's secret.
async fn with_bot(t: &TestServer) -> String {
    let cli = authz::Principal::cli();
    let resource = ResourceInput {
        slug: "pay".into(),
        display_name: "Pay".into(),
        uri: PAY.into(),
        scopes: "tools:call".into(),
        enabled: true,
        ..Default::default()
    };
    t.state
        .core
        .create_resource(&cli, "default", &resource, &Default::default())
        .await
        .expect("resource");
    let form = ClientForm {
        name: "Bot".into(),
        auth_method: "client_secret_basic".into(),
        scope: "tools:call".into(),
        ..Default::default()
    };
    let (_, secret) = register_granted_client(&t.state.core, &cli, "bot", form)
        .await
        .expect("client");
    secret.expect("secret").expose().to_owned()
}

#[tokio::test]
async fn an_attacker_behind_the_proxy_locks_out_no_one_else() {
    let t = TestServer::with(
        |c| c.http.trusted_proxies = vec!["10.0.0.0/8".into()],
        Arc::new(authz::clock::SystemClock),
    )
    .await;
    t.user("ada@example.com", "admin").await;
    let secret = with_bot(&t).await;
    let attacker = Some("6.6.6.6");
    // The attacker burns every budget: the admin's account, the source's sign-ins, and
    // client authentication naming the victim client.
    for i in 0..30 {
        let email = if i % 2 == 0 {
            "ada@example.com".to_owned()
        } else {
            format!("u{i}@example.com")
        };
        login_via(&t, PROXY, attacker, &email, "not-the-password").await;
    }
    assert!(
        login_via(&t, PROXY, attacker, "ada@example.com", PASSWORD)
            .await
            .starts_with("/login?error=throttled"),
        "the attacker's source is locked"
    );
    let mut codes = Vec::new();
    for _ in 0..15 {
        codes.push(token_via(&t, PROXY, attacker, "bot", "wrong-secret").await);
    }
    assert!(
        codes[..10]
            .iter()
            .all(|(s, j)| *s == StatusCode::UNAUTHORIZED && j["error"] == "invalid_client")
    );
    assert!(
        codes[10..]
            .iter()
            .all(|(s, j)| *s == StatusCode::TOO_MANY_REQUESTS
                && j["error"] == "temporarily_unavailable"),
        "beyond the limit: try later, never invalid_client: {codes:?}"
    );
    // The admin signs in through the same proxy, and the client gets tokens through it (even
    // from the attacker's own address: a correct credential is never refused).
    assert_eq!(
        login_via(&t, PROXY, Some("7.7.7.7"), "ada@example.com", PASSWORD).await,
        "/"
    );
    assert_eq!(
        token_via(&t, PROXY, Some("7.7.7.8"), "bot", &secret)
            .await
            .0,
        StatusCode::OK
    );
    assert_eq!(
        token_via(&t, PROXY, attacker, "bot", &secret).await.0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn forwarding_headers_from_untrusted_peers_are_ignored() {
    // No trusted proxies (the default): a client cannot pick its own address to dodge limits.
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    for i in 0..20 {
        let xff = format!("198.51.100.{i}");
        login_via(
            &t,
            "203.0.113.5:1234",
            Some(&xff),
            &format!("u{i}@example.com"),
            "wrong",
        )
        .await;
    }
    assert!(
        login_via(
            &t,
            "203.0.113.5:1234",
            Some("192.0.2.200"),
            "ada@example.com",
            PASSWORD
        )
        .await
        .starts_with("/login?error=throttled"),
        "all twenty failures counted against the socket peer"
    );
    assert_eq!(
        login_via(&t, "203.0.113.6:1234", None, "ada@example.com", PASSWORD).await,
        "/"
    );
}

#[tokio::test]
async fn the_failed_sign_in_audit_row_stores_a_bounded_actor() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let huge = "x".repeat(30_000);
    login_via(&t, "203.0.113.5:1", None, &huge, "wrong").await;
    login_via(&t, "203.0.113.5:1", None, "  ADA@Example.com ", "wrong").await;
    let admin = t.principal("ada@example.com").await;
    let filter = authz::audit::AuditFilter {
        action: Some("session.login".into()),
        ..Default::default()
    };
    let events = t
        .state
        .core
        .list_audit(
            &admin,
            None,
            filter,
            authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 10),
        )
        .await
        .expect("audit")
        .items;
    let actors: Vec<&str> = events.iter().map(|e| e.actor.as_str()).collect();
    assert_eq!(actors, ["ada@example.com", "(not an email address)"]);
    assert_eq!(events[0].client_ip.as_deref(), Some("203.0.113.5"));
}

#[tokio::test]
async fn oversized_forms_get_a_bounded_error() {
    let t = TestServer::new().await;
    let post = |body: String| {
        Request::post("/realms/default/token")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .expect("request")
    };
    // 64 KiB of distinct keys: refused after the 64th parameter.
    let distinct: String = (0..8_000).map(|i| format!("{i:07}&")).collect();
    assert!(
        distinct.len() <= 64 * 1024,
        "within the body limit, so the form parser sees it"
    );
    let res = t.send(post(distinct)).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(json["error"], "invalid_request");
    // A client_id of nearly 64 KiB is malformed, not an unknown client.
    let long = format!(
        "grant_type=client_credentials&client_id={}&client_secret=x",
        "a".repeat(60_000)
    );
    let res = t.send(post(long)).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(json["error"], "invalid_request");
}

#[tokio::test]
async fn a_password_change_ends_every_other_session() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let here = t.login("ada@example.com").await;
    let elsewhere = t.login("ada@example.com").await;
    let new_password = "a-brand-new-password";
    let res = t
        .post_form(
            "/api/account/password",
            &format!(
                "current={}&password={1}&confirm={1}",
                enc(PASSWORD),
                enc(new_password)
            ),
            Some(&here),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let renewed = session_cookie(&res).expect("the current session gets a new id");
    assert_ne!(renewed, here);
    assert_eq!(
        t.get("/", Some(&renewed)).await.status(),
        StatusCode::OK,
        "this session goes on"
    );
    assert_eq!(
        location(&t.get("/", Some(&here)).await),
        "/login",
        "its old id is gone"
    );
    assert_eq!(
        location(&t.get("/", Some(&elsewhere)).await),
        "/login",
        "the other session ended"
    );
}

#[tokio::test]
async fn a_password_reset_ends_every_session() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    t.user("dev@example.com", "developer").await;
    let dev = t.login("dev@example.com").await;
    let admin = t.principal("ada@example.com").await;
    let dev_id = t.principal("dev@example.com").await.user_id;
    let (_, token) = t
        .state
        .core
        .issue_password_reset(&admin, &dev_id, &Default::default())
        .await
        .expect("link");
    t.state
        .core
        .reset_password(
            token.expose(),
            "a-reset-password-value",
            &Default::default(),
        )
        .await
        .expect("reset");
    assert_eq!(location(&t.get("/", Some(&dev)).await), "/login");
}

fn meta_from(ip: &str) -> authz::RequestMeta {
    authz::RequestMeta {
        request_id: None,
        client_ip: Some(ip.parse().expect("ip")),
    }
}

#[tokio::test]
async fn concurrent_sign_ins_are_counted_before_their_hashes() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let core = &t.state.core;
    let attempts = (0..12).map(|_| {
        let core = core.clone();
        tokio::spawn(async move {
            core.login("ada@example.com", "wrong", &meta_from("203.0.113.7"))
                .await
        })
    });
    let mut throttled = 0;
    for a in attempts {
        match a.await.expect("task") {
            Err(authz::Error::Throttled { .. }) => throttled += 1,
            Err(authz::Error::InvalidCredentials) => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        throttled,
        12 - authz::throttle::MAX_FAILURES_PER_ACCOUNT_SOURCE as usize
    );
    let admin = t.principal("ada@example.com").await;
    let filter = authz::audit::AuditFilter {
        action: Some("session.login".into()),
        ..Default::default()
    };
    let verified = core
        .list_audit(
            &admin,
            None,
            filter,
            authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 50),
        )
        .await
        .expect("audit")
        .total;
    assert_eq!(
        verified,
        u64::from(authz::throttle::MAX_FAILURES_PER_ACCOUNT_SOURCE),
        "only the attempts within the limit were hashed (and audited)"
    );
}

#[tokio::test]
async fn changing_ones_password_is_throttled_like_sign_in() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let p = t.principal("ada@example.com").await;
    let from = meta_from("203.0.113.8");
    for _ in 0..authz::throttle::MAX_FAILURES_PER_ACCOUNT_SOURCE {
        let e = t
            .state
            .core
            .change_own_password(&p, "a-guess-at-the-password", "a-brand-new-password", &from)
            .await
            .expect_err("wrong current password");
        assert!(
            matches!(
                e,
                authz::Error::InvalidField {
                    field: "current",
                    ..
                }
            ),
            "{e:?}"
        );
    }
    let e = t
        .state
        .core
        .change_own_password(&p, PASSWORD, "a-brand-new-password", &from)
        .await
        .expect_err("a stolen session cannot keep guessing");
    assert!(matches!(e, authz::Error::Throttled { .. }), "{e:?}");
}

#[tokio::test]
async fn a_disable_is_never_undone_by_a_concurrent_password_change() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    t.user("bob@example.com", "admin").await;
    let (ada, core) = (t.principal("ada@example.com").await, t.state.core.clone());
    for round in 0..6 {
        let bob = t.principal("bob@example.com").await;
        let (c1, c2, ada2, bob2) = (core.clone(), core.clone(), ada.clone(), bob.clone());
        let next = format!("bob-new-password-{round}");
        let change = tokio::spawn(async move {
            c1.change_own_password(
                &bob2,
                if round == 0 { PASSWORD } else { "x" },
                &next,
                &Default::default(),
            )
            .await
        });
        let disable = tokio::spawn(async move {
            c2.set_user_disabled(&ada2, &bob.user_id, true, &Default::default())
                .await
        });
        let _ = change.await.expect("task");
        disable.await.expect("task").expect("disable");
        let bob_row = core
            .list_users(&ada, "bob@", authz::paging::Page::first(5))
            .await
            .expect("users")
            .items
            .remove(0);
        assert!(bob_row.disabled, "round {round}: the disable stands");
        core.set_user_disabled(&ada, &bob_row.id, false, &Default::default())
            .await
            .expect("enable again");
    }
}

#[tokio::test]
async fn a_password_reset_wins_over_a_stale_session() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    t.user("dev@example.com", "developer").await;
    let admin = t.principal("ada@example.com").await;
    // An attacker holds dev's session (its principal, at the current credential version) and
    // knows the password; the owner resets it — here to the same text, so the attacker's check
    // of the current password passes as it would in a race, and only the version differs.
    let stolen = t.principal("dev@example.com").await;
    let (_, token) = t
        .state
        .core
        .issue_password_reset(&admin, &stolen.user_id, &Default::default())
        .await
        .expect("link");
    t.state
        .core
        .reset_password(token.expose(), PASSWORD, &Default::default())
        .await
        .expect("reset");
    let e = t
        .state
        .core
        .change_own_password(
            &stolen,
            PASSWORD,
            "the-attackers-password",
            &Default::default(),
        )
        .await
        .expect_err("the stale session cannot set a password");
    assert!(matches!(e, authz::Error::Conflict(_)), "{e:?}");
    assert!(
        t.state
            .core
            .login(
                "dev@example.com",
                "the-attackers-password",
                &Default::default()
            )
            .await
            .is_err(),
        "the attacker's password was never set"
    );
}

#[tokio::test]
async fn a_console_account_has_one_failure_budget_on_the_console_and_the_sign_in_page() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    t.user("bob@example.com", "admin").await;
    let core = &t.state.core;
    let from = meta_from("203.0.113.9");
    // Guesses on the console, then the right password on a realm's sign-in page.
    for _ in 0..authz::throttle::MAX_FAILURES_PER_ACCOUNT_SOURCE {
        let e = core
            .login("ada@example.com", "a-wrong-guess", &from)
            .await
            .expect_err("wrong");
        assert!(matches!(e, authz::Error::InvalidCredentials), "{e:?}");
    }
    let e = core
        .account_sign_in("default", "ada@example.com", PASSWORD, &from)
        .await
        .expect_err("the sign-in page is not a second set of guesses");
    assert!(matches!(e, authz::Error::Throttled { .. }), "{e:?}");
    // And the other way round.
    for _ in 0..authz::throttle::MAX_FAILURES_PER_ACCOUNT_SOURCE {
        let e = core
            .account_sign_in("default", "bob@example.com", "a-wrong-guess", &from)
            .await
            .expect_err("wrong");
        assert!(matches!(e, authz::Error::InvalidCredentials), "{e:?}");
    }
    let e = core
        .login("bob@example.com", PASSWORD, &from)
        .await
        .expect_err("the console is not a second set of guesses");
    assert!(matches!(e, authz::Error::Throttled { .. }), "{e:?}");
}
