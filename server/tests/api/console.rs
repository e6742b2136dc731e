use super::*;

#[tokio::test]
async fn signed_out_pages_redirect_to_login() {
    let t = TestServer::new().await;
    let res = t.get("/users?q=a", None).await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/login?next=%2Fusers%3Fq%3Da");
    assert_eq!(location(&t.get("/", None).await), "/login");
    let res = t.get("/login", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let html = body(res).await;
    assert!(
        html.contains("action=\"/login\""),
        "the login form posts without JavaScript"
    );
}

#[tokio::test]
async fn login_rotates_the_session_and_logout_ends_it() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    // A pre-existing session (e.g. planted by an attacker) must not survive sign-in.
    let res = t.get("/login", None).await;
    let before = session_cookie(&res);
    let res = t
        .post_form(
            "/login",
            &format!("email=ada%40example.com&password={}", enc(PASSWORD)),
            before.as_deref(),
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let cookie_header = res.headers()[header::SET_COOKIE]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(cookie_header.contains("HttpOnly"), "{cookie_header}");
    assert!(cookie_header.contains("SameSite=Lax"), "{cookie_header}");
    assert!(!cookie_header.contains("Secure"), "plain http public URL");
    let cookie = session_cookie(&res).expect("cookie");
    assert_ne!(Some(cookie.clone()), before);

    let res = t.get("/", Some(&cookie)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.headers()[header::CACHE_CONTROL],
        "no-store",
        "signed-in pages are not kept by the browser"
    );
    assert!(body(res).await.contains("Overview"));
    assert_eq!(location(&t.get("/login", Some(&cookie)).await), "/");

    let res = t.post_form("/logout", "", Some(&cookie)).await;
    assert_eq!(location(&res), "/login");
    assert_eq!(location(&t.get("/", Some(&cookie)).await), "/login");
}

#[tokio::test]
async fn bad_login_is_refused_audited_and_throttled() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let res = t
        .post_form(
            "/login",
            "email=ada%40example.com&password=wrong-password",
            None,
        )
        .await;
    assert_eq!(location(&res), "/login?error=invalid");
    assert!(session_cookie(&res).is_none());
    let res = t
        .post_form(
            "/login",
            "email=nobody%40example.com&password=x&next=%2Fusers",
            None,
        )
        .await;
    assert_eq!(location(&res), "/login?error=invalid&next=%2Fusers");
    for _ in 0..4 {
        t.post_form("/login", "email=ada%40example.com&password=wrong", None)
            .await;
    }
    let res = t
        .post_form(
            "/login",
            &format!("email=ada%40example.com&password={}", enc(PASSWORD)),
            None,
        )
        .await;
    assert!(
        location(&res).starts_with("/login?error=throttled&retry="),
        "{}",
        location(&res)
    );

    let admin = t.principal("ada@example.com").await;
    let failures = t
        .state
        .core
        .list_audit(
            &admin,
            None,
            authz::audit::AuditFilter {
                action: Some("session.login".into()),
                ..Default::default()
            },
            authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 50),
        )
        .await
        .expect("audit");
    assert_eq!(
        failures.total, 6,
        "every attempt that reached verification is audited"
    );
    assert!(
        failures
            .items
            .iter()
            .all(|e| e.outcome == authz::audit::Outcome::Failure)
    );
}

#[tokio::test]
async fn cross_site_posts_are_refused() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let form = format!("email=ada%40example.com&password={}", enc(PASSWORD));
    let post = |site: Option<&'static str>, origin: Option<&'static str>| {
        let mut b = Request::post("/login")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some(s) = site {
            b = b.header("sec-fetch-site", s);
        }
        if let Some(o) = origin {
            b = b.header(header::ORIGIN, o);
        }
        b.body(Body::from(form.clone())).expect("request")
    };
    assert_eq!(
        t.send(post(None, None)).await.status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        t.send(post(Some("cross-site"), None)).await.status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        t.send(post(Some("same-site"), None)).await.status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        t.send(post(None, Some("https://evil.example")))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        t.send(post(None, Some("http://127.0.0.1:3000")))
            .await
            .status(),
        StatusCode::SEE_OTHER
    );
    // Server functions are covered too.
    let cookie = t.login("ada@example.com").await;
    let res = t
        .send(
            Request::post("/api/users/list")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .header(header::COOKIE, &cookie)
                .body(Body::from("query=&after=&before="))
                .expect("request"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn roles_are_enforced_on_server_functions() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    t.user("dev@example.com", "developer").await;
    let dev = t.login("dev@example.com").await;
    let res = t
        .post_form("/api/users/list", "query=&after=&before=", Some(&dev))
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(body(res).await.contains("Forbidden"));
    let res = t
        .post_form(
            "/api/users/create",
            "email=x%40example.com&display_name=X&role=admin",
            Some(&dev),
        )
        .await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let res = t.get("/admin/audit/export?format=csv", Some(&dev)).await;
    assert_eq!(res.status(), StatusCode::FORBIDDEN);

    let anonymous = t
        .post_form("/api/users/list", "query=&after=&before=", None)
        .await;
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);

    let admin = t.login("ada@example.com").await;
    let res = t
        .post_form("/api/users/list", "query=&after=&before=", Some(&admin))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let page: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(page["total"], 2);
}

#[tokio::test]
async fn bad_input_is_rejected_and_nothing_is_written() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let admin = t.login("ada@example.com").await;
    let audit_rows = || async {
        let p = t.principal("ada@example.com").await;
        t.state
            .core
            .list_audit(
                &p,
                None,
                Default::default(),
                authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 1),
            )
            .await
            .expect("audit")
            .total
    };
    let before = audit_rows().await;
    for (path, form, expected) in [
        (
            "/api/users/create",
            "email=not-an-email&display_name=X&role=developer",
            "valid email",
        ),
        (
            "/api/users/create",
            "email=x%40example.com&display_name=+&role=developer",
            "Name is required",
        ),
        (
            "/api/users/create",
            "email=x%40example.com&display_name=X&role=root",
            "Role must be",
        ),
        (
            "/api/users/create",
            "email=ada%40example.com&display_name=X&role=developer",
            "already exists",
        ),
        (
            "/api/realms/create",
            "name=Bad_Name&display_name=X",
            "only letters",
        ),
        (
            "/api/realms/create",
            "name=default&display_name=X",
            "already exists",
        ),
        (
            "/api/realms/enabled",
            "name=default&enabled=false",
            "cannot be disabled",
        ),
        (
            "/api/account/password",
            &format!("current={}&password=short&confirm=short", enc(PASSWORD)),
            "at least 12",
        ),
        (
            "/api/account/password",
            "current=wrong-current-pw&password=a-long-new-password&confirm=a-long-new-password",
            "incorrect",
        ),
        (
            "/api/account/password",
            &format!(
                "current={}&password=a-long-new-password&confirm=different-password",
                enc(PASSWORD)
            ),
            "do not match",
        ),
    ] {
        let res = t.post_form(path, form, Some(&admin)).await;
        let status = res.status();
        let text = body(res).await;
        assert!(status.is_client_error(), "{path} {form}: {status} {text}");
        assert!(text.contains(expected), "{path} {form}: {text}");
    }
    // Forms show these on the field they name (a taken name is a conflict, on its field).
    for (path, form, field, status) in [
        (
            "/api/users/create",
            "email=ada%40example.com&display_name=X&role=developer",
            "email",
            StatusCode::CONFLICT,
        ),
        (
            "/api/users/create",
            "email=x%40example.com&display_name=+&role=developer",
            "display_name",
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/api/realms/create",
            "name=default&display_name=X",
            "name",
            StatusCode::CONFLICT,
        ),
        (
            "/api/realms/update",
            "name=default&new_name=default&display_name=D&token_ttl_secs=10",
            "token_ttl_secs",
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/api/account/password",
            "current=wrong-current-pw&password=a-long-new-password&confirm=a-long-new-password",
            "current",
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            "/api/account/password",
            &format!(
                "current={}&password=a-long-new-password&confirm=different-password",
                enc(PASSWORD)
            ),
            "confirm",
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ] {
        let res = t.post_form(path, form, Some(&admin)).await;
        assert_eq!(res.status(), status, "{path} {form}");
        let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
        assert_eq!(json["Field"]["field"], field, "{path} {form}: {json}");
    }
    assert_eq!(
        audit_rows().await,
        before,
        "no rejected request wrote anything"
    );
    let res = t
        .post_form("/api/users/list", "query=&after=&before=", Some(&admin))
        .await;
    let page: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(page["total"], 1);
}

#[tokio::test]
async fn admin_creates_a_user_who_sets_a_password_and_signs_in() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let admin = t.login("ada@example.com").await;
    let res = t
        .post_form(
            "/api/users/create",
            "email=bob%40example.com&display_name=Bob&role=security_reviewer",
            Some(&admin),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let link: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    let url = link["url"].as_str().expect("url");
    let token = url.split("token=").nth(1).expect("token");
    assert!(url.starts_with("http://127.0.0.1:3000/reset-password?token="));

    let res = t
        .post_form("/api/reset/status", &format!("token={token}"), None)
        .await;
    assert_eq!(body(res).await, "\"bob@example.com\"");
    let form = format!("token={token}&password={0}&confirm={0}", enc(PASSWORD));
    assert_eq!(
        t.post_form("/api/reset/complete", &form, None)
            .await
            .status(),
        StatusCode::OK
    );
    assert_eq!(
        t.post_form("/api/reset/complete", &form, None)
            .await
            .status(),
        StatusCode::BAD_REQUEST,
        "single use"
    );
    let bob = t.login("bob@example.com").await;
    let res = t
        .get(
            "/admin/audit/export?format=jsonl&action=user.create",
            Some(&bob),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[header::CONTENT_TYPE], "application/x-ndjson");
    let lines = body(res).await;
    assert_eq!(lines.lines().count(), 2, "{lines}");
    assert!(lines.contains("bob@example.com"));
    let res = t
        .get("/admin/audit/export?format=csv&from=yesterday", Some(&bob))
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = t.get("/admin/audit/export?format=csv", Some(&bob)).await;
    assert!(
        body(res).await.starts_with(
            "id,time,realm,actor,action,target,outcome,request_id,client_ip,details\n"
        )
    );
}

#[tokio::test]
async fn disabling_a_user_ends_their_session() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    t.user("dev@example.com", "developer").await;
    let dev = t.login("dev@example.com").await;
    assert_eq!(t.get("/", Some(&dev)).await.status(), StatusCode::OK);
    let admin = t.principal("ada@example.com").await;
    let dev_id = t.principal("dev@example.com").await.user_id;
    t.state
        .core
        .set_user_disabled(&admin, &dev_id, true, &Default::default())
        .await
        .expect("disable");
    assert_eq!(location(&t.get("/", Some(&dev)).await), "/login");
}

#[tokio::test]
async fn first_admin_setup_link_works_once() {
    let t = TestServer::new().await;
    let token = t
        .state
        .core
        .bootstrap()
        .await
        .expect("bootstrap")
        .expect("no users yet");
    let token = token.expose();
    let res = t
        .post_form("/api/setup/status", &format!("token={token}"), None)
        .await;
    assert_eq!(body(res).await, "true");
    let bad = format!(
        "token={token}&email=root%40example.com&display_name=Root&password=short&confirm=short"
    );
    let res = t.post_form("/api/setup/complete", &bad, None).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let form = format!(
        "token={token}&email=root%40example.com&display_name=Root&password={0}&confirm={0}",
        enc(PASSWORD)
    );
    let res = t.post_form("/api/setup/complete", &form, None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let cookie = session_cookie(&res).expect("signed in");
    assert_eq!(
        t.get("/users", Some(&cookie)).await.status(),
        StatusCode::OK
    );
    let res = t.post_form("/api/setup/complete", &form, None).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST, "single use");
    assert_eq!(
        t.state.core.bootstrap().await.expect("bootstrap"),
        None,
        "no link once a user exists"
    );
}

#[tokio::test]
async fn realms_are_created_renamed_and_shown_with_their_issuer() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let admin = t.login("ada@example.com").await;
    let res = t
        .post_form(
            "/api/realms/create",
            "name=Payments&display_name=Payments",
            Some(&admin),
        )
        .await;
    let realm: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(realm["issuer"], "http://127.0.0.1:3000/realms/payments");
    let res = t
        .post_form(
            "/api/realms/update",
            "name=payments&new_name=billing&display_name=Billing&token_ttl_secs=300",
            Some(&admin),
        )
        .await;
    let realm: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(realm["issuer"], "http://127.0.0.1:3000/realms/billing");
    let res = t
        .post_form(
            "/api/realms/enabled",
            "name=billing&enabled=false",
            Some(&admin),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        t.post_form("/api/session/realm", "name=billing", Some(&admin))
            .await
            .status(),
        StatusCode::OK
    );
    let res = t.post_form("/api/session/get", "", Some(&admin)).await;
    let info: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(info["realm"]["name"], "billing");
    assert_eq!(info["realm"]["enabled"], false);
    assert_eq!(info["realms"].as_array().map(Vec::len), Some(2));
    // A session keeps its realm across a rename made elsewhere, and a new realm that takes the
    // old name is not the one it works in.
    let other = t.login("ada@example.com").await;
    let res = t
        .post_form(
            "/api/realms/update",
            "name=billing&new_name=ledger&display_name=Ledger&token_ttl_secs=300",
            Some(&other),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = t
        .post_form(
            "/api/realms/create",
            "name=billing&display_name=Impostor",
            Some(&other),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = t.post_form("/api/session/get", "", Some(&admin)).await;
    let info: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(info["realm"]["name"], "ledger");
    assert_eq!(info["realm"]["display_name"], "Ledger");
}

#[tokio::test]
async fn sessions_end_after_the_absolute_timeout_however_active() {
    let clock = authz::clock::FixedClock::at(time::OffsetDateTime::now_utc().unix_timestamp());
    let t = TestServer::with(
        |c| c.session.absolute_timeout_secs = 3600,
        Arc::new(clock.clone()),
    )
    .await;
    t.user("ada@example.com", "admin").await;
    let cookie = t.login("ada@example.com").await;
    clock.advance(3599);
    assert_eq!(t.get("/", Some(&cookie)).await.status(), StatusCode::OK);
    clock.advance(2);
    assert_eq!(location(&t.get("/", Some(&cookie)).await), "/login");
}

#[tokio::test]
async fn throttling_lifts_after_the_window() {
    let clock = authz::clock::FixedClock::at(1_000_000);
    let t = TestServer::with(|_| {}, Arc::new(clock.clone())).await;
    t.user("ada@example.com", "admin").await;
    for _ in 0..5 {
        t.post_form("/login", "email=ada%40example.com&password=wrong", None)
            .await;
    }
    let good = format!("email=ada%40example.com&password={}", enc(PASSWORD));
    let res = t.post_form("/login", &good, None).await;
    assert!(location(&res).starts_with("/login?error=throttled"));
    clock.advance(15 * 60);
    assert_eq!(location(&t.post_form("/login", &good, None).await), "/");
}

#[tokio::test]
async fn cookies_are_secure_when_the_public_url_is_https() {
    let t = TestServer::with(
        |c| c.public_url = "https://id.example.com".into(),
        Arc::new(authz::clock::SystemClock),
    )
    .await;
    t.user("ada@example.com", "admin").await;
    let res = t
        .post_form(
            "/login",
            &format!("email=ada%40example.com&password={}", enc(PASSWORD)),
            None,
        )
        .await;
    let cookie = res.headers()[header::SET_COOKIE]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(cookie.contains("; Secure"), "{cookie}");
    assert!(
        cookie.starts_with("__Host-portcullis_session=") && cookie.contains("Path=/"),
        "served at the root over https: the strongest prefix, {cookie}"
    );
    // A failed sign-in hands the email back in a `__Secure-` cookie.
    let res = t
        .post_form("/login", "email=ada%40example.com&password=wrong", None)
        .await;
    let cookie = res.headers()[header::SET_COOKIE]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(
        cookie.starts_with("__Secure-portcullis_login_email=") && cookie.contains("; Secure"),
        "{cookie}"
    );
    // The realm pages' cookies are path-scoped: `__Secure-`.
    let res = t.get("/realms/default/account", None).await;
    let cookie = res.headers()[header::SET_COOKIE]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(
        cookie.starts_with("__Secure-portcullis_authz=")
            && cookie.contains("Path=/realms/default/")
            && cookie.contains("; Secure"),
        "{cookie}"
    );
}

#[tokio::test]
async fn account_form_tokens_are_keyed_by_the_server_not_a_hash_of_the_cookie() {
    let t = TestServer::new().await;
    let res = t.get("/realms/default/account", None).await;
    let set = res.headers()[header::SET_COOKIE]
        .to_str()
        .expect("ascii")
        .to_owned();
    let browser = set
        .strip_prefix("portcullis_authz=")
        .and_then(|v| v.split(';').next())
        .expect("binding cookie")
        .to_owned();
    let html = body(res).await;
    let field = "name=\"csrf\" value=\"";
    let at = html.find(field).expect("csrf field") + field.len();
    let token = html[at..at + html[at..].find('"').expect("end")].to_owned();
    let jar = format!("portcullis_authz={browser}");
    // Anyone who can set (or guess) the cookie can hash it: that is not a token.
    let hashed = hex::encode(
        authz::secret::PlainToken::from_input(&format!("account-form:{browser}")).hashed(),
    );
    assert_ne!(token, hashed);
    let post = |csrf: String| {
        format!("step=login&csrf={csrf}&email=nobody%40example.com&password=wrong-password")
    };
    let res = t
        .post_form("/realms/default/account", &post(hashed), Some(&jar))
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(body(res).await.contains("The form expired"));
    // Bound to the sign-in session too: the token of a page shown without one does not carry
    // a post that rides a session (a sibling host that set the browser cookie got that page).
    let res = t
        .post_form(
            "/realms/default/account",
            &post(token.clone()),
            Some(&format!("{jar}; portcullis_login=someone-elses-session")),
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    // A cross-site post is refused whatever it carries.
    let res = t
        .send(
            Request::post("/realms/default/account")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .header("sec-fetch-site", "cross-site")
                .header(header::COOKIE, &jar)
                .body(Body::from(post(token.clone())))
                .expect("request"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = t
        .post_form("/realms/default/account", &post(token), Some(&jar))
        .await;
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "the page's own token is accepted"
    );
}

#[tokio::test]
async fn resource_client_and_key_changes_are_admin_only_and_validate_input() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    t.user("rev@example.com", "security_reviewer").await;
    let reviewer = t.login("rev@example.com").await;
    // Reviewers read clients (they review them) but change nothing.
    let res = t
        .post_form(
            "/api/clients/list",
            "query=&after=&before=",
            Some(&reviewer),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = t
        .post_form(
            "/api/agents/list",
            "query=&mcp_only=false&expiring_soon=false&after=&before=",
            Some(&reviewer),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    // Developers read resources only.
    t.user("dev@example.com", "developer").await;
    let dev = t.login("dev@example.com").await;
    assert_eq!(
        t.post_form("/api/resources/list", "", Some(&dev))
            .await
            .status(),
        StatusCode::OK
    );
    for path in ["/api/clients/list", "/api/agents/list"] {
        let res = t
            .post_form(
                path,
                "query=&mcp_only=false&expiring_soon=false&after=&before=",
                Some(&dev),
            )
            .await;
        assert_eq!(res.status(), StatusCode::FORBIDDEN, "{path}");
    }
    for (path, form) in [
        ("/api/keys/list", ""),
        ("/api/access/grant", "client_id=x&resource=y&scopes=a"),
        ("/api/keys/rotate", ""),
        (
            "/api/resources/create",
            "slug=x&display_name=X&uri=https%3A%2F%2Fx.example.com&scopes=a&token_ttl_secs=&signing_alg=",
        ),
        (
            "/api/clients/create",
            "client_id=&name=X&auth_method=none&scope=&contacts=&jwks=",
        ),
    ] {
        let res = t.post_form(path, form, Some(&reviewer)).await;
        let status = res.status();
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {}", body(res).await);
    }
    let admin = t.login("ada@example.com").await;
    // Arguments that do not decode are a bad request, not a server error.
    let res = t
        .post_form("/api/resources/create", "slug=x", Some(&admin))
        .await;
    let status = res.status();
    assert_eq!(status, StatusCode::BAD_REQUEST, "{}", body(res).await);
    let form = "slug=pay&display_name=Pay&uri=https%3A%2F%2Fpay.example.com%2Fmcp%3Fx%3D1&scopes=a&token_ttl_secs=&signing_alg=";
    let res = t
        .post_form("/api/resources/create", form, Some(&admin))
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body(res).await.contains("query or fragment"));
    let form = "slug=pay&display_name=Pay&uri=https%3A%2F%2Fpay.example.com%2Fmcp&scopes=a&token_ttl_secs=5&signing_alg=";
    assert!(
        body(
            t.post_form("/api/resources/create", form, Some(&admin))
                .await
        )
        .await
        .contains("Token lifetime")
    );
    let form = "slug=pay&display_name=Pay&uri=https%3A%2F%2Fpay.example.com%2Fmcp&scopes=a&token_ttl_secs=&signing_alg=HS256";
    assert!(
        body(
            t.post_form("/api/resources/create", form, Some(&admin))
                .await
        )
        .await
        .contains("Unsupported signing algorithm")
    );
    // Every invalid field is reported at once, each on its own field.
    let form = "slug=Bad%20Id&display_name=&uri=http%3A%2F%2Fpay.example.com&scopes=&token_ttl_secs=5&signing_alg=HS256";
    let res = t
        .post_form("/api/resources/create", form, Some(&admin))
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let answer: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    let fields: Vec<&str> = answer["Fields"]
        .as_array()
        .unwrap_or_else(|| panic!("several fields: {answer}"))
        .iter()
        .map(|f| f["field"].as_str().expect("field"))
        .collect();
    assert_eq!(
        fields,
        [
            "slug",
            "name",
            "uri",
            "scopes",
            "token_ttl_secs",
            "signing_alg"
        ]
    );
    let res = t.post_form("/api/resources/list", "", Some(&admin)).await;
    assert_eq!(body(res).await, "[]", "nothing was written");
    // A taken id or URI is named on its field.
    let ok = "slug=pay&display_name=Pay&uri=https%3A%2F%2Fpay.example.com%2Fmcp&scopes=a&token_ttl_secs=&signing_alg=";
    let res = t.post_form("/api/resources/create", ok, Some(&admin)).await;
    assert_eq!(res.status(), StatusCode::OK, "{}", body(res).await);
    for (form, field) in [
        (ok, "slug"),
        (
            "slug=pay2&display_name=Pay&uri=https%3A%2F%2FPAY.example.com%2Fmcp%2F&scopes=a&token_ttl_secs=&signing_alg=",
            "uri",
        ),
    ] {
        let res = t
            .post_form("/api/resources/create", form, Some(&admin))
            .await;
        assert_eq!(res.status(), StatusCode::CONFLICT);
        let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
        assert_eq!(json["Field"]["field"], field, "{json}");
    }
    let res = t
        .post_form("/api/resources/delete", "slug=pay", Some(&admin))
        .await;
    assert_eq!(res.status(), StatusCode::OK);

    let res = t
        .post_form(
            "/api/clients/create",
            "client_id=bot&name=Bot&auth_method=client_secret_basic&scope=a&contacts=&jwks=",
            Some(&admin),
        )
        .await;
    let issued: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(issued["secret"].as_str().map(str::len), Some(64));
    let res = t
        .post_form("/api/clients/list", "query=&after=&before=", Some(&admin))
        .await;
    let text = body(res).await;
    assert!(
        !text.contains(issued["secret"].as_str().expect("secret")),
        "the secret is shown once, never listed"
    );
    let res = t
        .post_form("/api/clients/get", "client_id=bot", Some(&admin))
        .await;
    let text = body(res).await;
    let detail: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(detail["client"]["client_id"], "bot");
    assert_eq!(detail["secrets"].as_array().map(Vec::len), Some(1));
    assert_eq!(detail["secrets"][0][2], true, "live");
    assert!(
        !text.contains(issued["secret"].as_str().expect("secret")),
        "detail never shows the secret"
    );
    let res = t
        .post_form("/api/clients/get", "client_id=ghost", Some(&admin))
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res = t.post_form("/api/keys/rotate", "", Some(&admin)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = t.post_form("/api/keys/list", "", Some(&admin)).await;
    let keys: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(
        keys["jwks_uri"],
        "http://127.0.0.1:3000/realms/default/jwks"
    );
    assert_eq!(keys["keys"].as_array().map(Vec::len), Some(3));
}

/// The audit log pages by event id: Older/Newer cursors walk the whole filtered log without
/// gaps or repeats, and the count covers the log, not the page.
#[tokio::test]
async fn a_failed_sign_in_keeps_the_email_out_of_the_url() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let res = t
        .post_form(
            "/login",
            "email=ada%40example.com&password=wrong-password-123",
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let location = res.headers()[header::LOCATION].to_str().expect("ascii");
    assert!(!location.contains("ada"), "{location}");
    let cookie = res
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("portcullis_login_email="))
        .expect("email cookie")
        .to_owned();
    assert!(
        cookie.contains("Path=/login") && cookie.contains("HttpOnly"),
        "{cookie}"
    );
    assert!(!cookie.contains("wrong-password"), "never the password");
    let pair = cookie.split(';').next().expect("pair");
    let page = body(t.get(location, Some(pair)).await).await;
    assert!(page.contains(r#"value="ada@example.com""#), "email kept");
    assert!(page.contains("Invalid email or password."));
    // A successful sign-in forgets it.
    let res = t
        .post_form(
            "/login",
            &format!("email=ada%40example.com&password={}", enc(PASSWORD)),
            Some(pair),
        )
        .await;
    assert!(
        res.headers()
            .get_all(header::SET_COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|c| c.starts_with("portcullis_login_email=;") && c.contains("Max-Age=0"))
    );
}
