//! Dynamic Client Registration (RFC 7591/7592) through the real router, under each realm
//! policy, with bodies shaped like real MCP clients' (Claude Code, VS Code), and the review
//! that lets a pending client in.
use super::*;
use authz::resources::ResourceInput;

const REGISTER: &str = "/realms/default/connect/register";

/// What Claude Code sends (its callback listens on a random loopback port).
fn claude_code() -> serde_json::Value {
    serde_json::json!({
        "client_name": "Claude Code (payments)",
        "redirect_uris": ["http://localhost:54545/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none"
    })
}

/// What VS Code sends.
fn vscode() -> serde_json::Value {
    serde_json::json!({
        "client_name": "Visual Studio Code",
        "redirect_uris": [
            "https://insiders.vscode.dev/redirect",
            "https://vscode.dev/redirect",
            "http://localhost/",
            "http://127.0.0.1/",
            "http://localhost:33418/",
            "http://127.0.0.1:33418/"
        ],
        "grant_types": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_method": "none",
        "software_id": "Visual Studio Code",
        "software_version": "1.107.0"
    })
}

struct Reg {
    t: TestServer,
    admin: authz::Principal,
    clock: authz::clock::FixedClock,
}

async fn setup(policy: &str) -> Reg {
    let clock = authz::clock::FixedClock::at(time::OffsetDateTime::now_utc().unix_timestamp());
    let t = TestServer::with(|_| {}, Arc::new(clock.clone())).await;
    t.user("root@example.com", "admin").await;
    let admin = t.principal("root@example.com").await;
    let meta = authz::RequestMeta::default();
    t.state
        .core
        .create_resource(
            &admin,
            "default",
            &ResourceInput {
                slug: "payments-mcp".into(),
                display_name: "Payments".into(),
                uri: "https://pay.example.com/".into(),
                scopes: "tools:call".into(),
                enabled: true,
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("resource");
    t.state
        .core
        .set_registration_policy(
            &admin,
            "default",
            &authz::realms::RegistrationInput {
                policy: (policy).into(),
                max_dynamic_clients: "".into(),
                metadata_document_policy: ("").into(),
                metadata_document_domains: ("").into(),
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("policy");
    Reg { t, admin, clock }
}

impl Reg {
    async fn call(
        &self,
        method: &str,
        path: &str,
        bearer: Option<&str>,
        json: Option<&serde_json::Value>,
    ) -> (StatusCode, axum::http::HeaderMap, serde_json::Value) {
        let mut b = Request::builder().method(method).uri(path);
        if let Some(t) = bearer {
            b = b.header(header::AUTHORIZATION, format!("Bearer {t}"));
        }
        let body = match json {
            Some(j) => {
                b = b.header(header::CONTENT_TYPE, "application/json");
                Body::from(j.to_string())
            }
            None => Body::empty(),
        };
        let res = self.t.send(b.body(body).expect("request")).await;
        let (status, headers) = (res.status(), res.headers().clone());
        let text = body_text(res).await;
        (
            status,
            headers,
            serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
        )
    }

    async fn register(&self, json: &serde_json::Value) -> (StatusCode, serde_json::Value) {
        let (s, _, j) = self.call("POST", REGISTER, None, Some(json)).await;
        (s, j)
    }

    async fn token(&self, form: &str) -> (StatusCode, serde_json::Value) {
        let res = self
            .t
            .send(
                Request::post("/realms/default/token")
                    .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                    .body(Body::from(form.to_owned()))
                    .expect("request"),
            )
            .await;
        let s = res.status();
        (
            s,
            serde_json::from_str(&body_text(res).await).expect("json"),
        )
    }
}

async fn body_text(res: Response<Body>) -> String {
    body(res).await
}

fn authorize(client_id: &str, redirect: &str) -> String {
    format!(
        "/realms/default/authorize?response_type=code&client_id={client_id}&redirect_uri={}&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256&resource={}",
        enc(redirect),
        enc("https://pay.example.com/")
    )
}

#[tokio::test]
async fn under_review_a_registered_client_waits_until_a_reviewer_approves_it() {
    let r = setup("review").await;
    let (status, json) = r.register(&claude_code()).await;
    assert_eq!(status, StatusCode::CREATED, "{json}");
    let client_id = json["client_id"].as_str().expect("client_id").to_owned();
    assert!(json.get("client_secret").is_none(), "a public client");
    assert_eq!(json["token_endpoint_auth_method"], "none");
    assert!(
        json["registration_access_token"]
            .as_str()
            .is_some_and(|t| t.starts_with("rat_"))
    );
    assert_eq!(
        json["registration_client_uri"],
        format!("http://127.0.0.1:3000/realms/default/connect/register/{client_id}")
    );
    // Pending: the sign-in page says so, and the token endpoint refuses without invalid_client
    // (which makes MCP clients delete their registration).
    let res =
        r.t.get(
            &authorize(&client_id, "http://localhost:61000/callback"),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(
        body(res)
            .await
            .contains("awaiting approval by the security team")
    );
    let (status, json) = r
        .token(&format!(
            "grant_type=authorization_code&client_id={client_id}&code=x&code_verifier={}",
            "v".repeat(43)
        ))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("unauthorized_client"))
    );

    let queue =
        r.t.state
            .core
            .review_queue(&r.admin, "default", authz::clients::ReviewState::Pending)
            .await
            .expect("queue");
    assert_eq!(queue.len(), 1);
    assert!(queue[0].loopback_only && queue[0].redirect_hosts == ["localhost"]);
    let meta = authz::RequestMeta::default();
    assert!(
        r.t.state
            .core
            .approve_client(&r.admin, "default", &client_id, "  ", None, &meta)
            .await
            .is_err(),
        "a reason is required"
    );
    r.t.state
        .core
        .approve_client(
            &r.admin,
            "default",
            &client_id,
            "Claude Code for the payments team",
            None,
            &meta,
        )
        .await
        .expect("approve");
    let res =
        r.t.get(
            &authorize(&client_id, "http://localhost:61000/callback"),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK, "the sign-in page now");
    // Deciding twice is refused.
    assert!(
        r.t.state
            .core
            .approve_client(&r.admin, "default", &client_id, "again", None, &meta)
            .await
            .is_err()
    );
    // Revoking an active client stops it at once.
    r.t.state
        .core
        .revoke_client(
            &r.admin,
            "default",
            &client_id,
            "Left the company",
            None,
            &meta,
        )
        .await
        .expect("revoke");
    let res =
        r.t.get(
            &authorize(&client_id, "http://localhost:61000/callback"),
            None,
        )
        .await;
    assert!(body(res).await.contains("revoked"));
}

#[tokio::test]
async fn open_registration_and_rfc7592_management() {
    let r = setup("open").await;
    // An omitted auth method means client_secret_basic (RFC 7591 §2); unknown members are
    // ignored.
    let (status, json) = r
        .register(&serde_json::json!({
            "client_name": "Reports",
            "grant_types": ["client_credentials"],
            "tos_uri": "https://example.com/tos",
            "made_up": {"nested": true}
        }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{json}");
    assert_eq!(json["token_endpoint_auth_method"], "client_secret_basic");
    assert!(json["client_secret"].is_string());
    assert_eq!(json["client_secret_expires_at"], 0);
    let id = json["client_id"].as_str().expect("id").to_owned();
    let rat = json["registration_access_token"]
        .as_str()
        .expect("rat")
        .to_owned();
    let path = format!("{REGISTER}/{id}");
    let (status, _, read) = r.call("GET", &path, Some(&rat), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(read["client_name"], "Reports");
    assert!(read.get("client_secret").is_none() && read.get("registration_access_token").is_none());
    for bad in [None, Some("rat_wrong")] {
        let (status, headers, json) = r.call("GET", &path, bad, None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(json["error"], "invalid_token");
        assert!(
            headers[header::WWW_AUTHENTICATE]
                .to_str()
                .expect("h")
                .starts_with("Bearer")
        );
    }
    let (status, _, json) = r
        .call("GET", &format!("{REGISTER}/nobody"), Some(&rat), None)
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("invalid_token")),
        "the same answer for an unknown client"
    );
    let (status, _, updated) = r
        .call(
            "PUT",
            &path,
            Some(&rat),
            Some(&serde_json::json!({"client_id": id, "client_name": "Reports v2", "grant_types": ["client_credentials"]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["client_name"], "Reports v2");
    let (status, _, json) = r
        .call(
            "PUT",
            &path,
            Some(&rat),
            Some(&serde_json::json!({"client_name": "X", "token_endpoint_auth_method": "none"})),
        )
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_client_metadata"))
    );
    let (status, _, _) = r.call("DELETE", &path, Some(&rat), None).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _, _) = r.call("GET", &path, Some(&rat), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "gone");

    // Real clients' bodies register as they are.
    for body in [claude_code(), vscode()] {
        let (status, json) = r.register(&body).await;
        assert_eq!(status, StatusCode::CREATED, "{json}");
        assert_eq!(json["response_types"], serde_json::json!(["code"]));
    }
}

#[tokio::test]
async fn registration_errors_are_json_with_the_rfc_codes() {
    let r = setup("open").await;
    for (body, code) in [
        (
            serde_json::json!({"client_name": "A", "redirect_uris": ["http://evil.example/cb"]}),
            "invalid_redirect_uri",
        ),
        (
            serde_json::json!({"client_name": "A", "redirect_uris": ["javascript:alert(1)"]}),
            "invalid_redirect_uri",
        ),
        (
            serde_json::json!({"client_name": "A", "application_type": "web", "redirect_uris": ["http://127.0.0.1/cb"]}),
            "invalid_redirect_uri",
        ),
        (
            serde_json::json!({"client_name": "A", "application_type": "tv"}),
            "invalid_client_metadata",
        ),
        (
            serde_json::json!({"client_name": "A", "redirect_uris": "https://a.example/cb"}),
            "invalid_client_metadata",
        ),
        (
            serde_json::json!({"client_name": "A", "grant_types": ["password"]}),
            "invalid_client_metadata",
        ),
        (
            serde_json::json!({"client_name": "A", "grant_types": ["authorization_code"], "token_endpoint_auth_method": "none"}),
            "invalid_redirect_uri",
        ),
        (
            serde_json::json!(["not", "an", "object"]),
            "invalid_client_metadata",
        ),
    ] {
        let (status, json) = r.register(&body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(json["error"], code, "{body}: {json}");
        assert!(json["error_description"].is_string());
    }
    // Not JSON at all.
    let res =
        r.t.send(
            Request::post(REGISTER)
                .header(header::CONTENT_TYPE, "text/plain")
                .body(Body::from("hi"))
                .expect("req"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(json["error"], "invalid_client_metadata");
}

#[tokio::test]
async fn a_flood_from_one_address_is_throttled() {
    let r = setup("open").await;
    for i in 0..authz::throttle::MAX_REGISTRATIONS_PER_SOURCE {
        let (status, json) = r.register(&claude_code()).await;
        assert_eq!(status, StatusCode::CREATED, "{i}: {json}");
    }
    let (status, _, json) = r.call("POST", REGISTER, None, Some(&claude_code())).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(json["error"], "temporarily_unavailable");
}

#[tokio::test]
async fn the_realm_limit_closed_registration_and_initial_access_tokens() {
    let r = setup("open").await;
    let meta = authz::RequestMeta::default();
    r.t.state
        .core
        .set_registration_policy(
            &r.admin,
            "default",
            &authz::realms::RegistrationInput {
                policy: ("open").into(),
                max_dynamic_clients: "1".into(),
                metadata_document_policy: ("").into(),
                metadata_document_domains: ("").into(),
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("limit");
    assert_eq!(r.register(&claude_code()).await.0, StatusCode::CREATED);
    let (status, json) = r.register(&claude_code()).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::FORBIDDEN, Some("access_denied"))
    );

    r.t.state
        .core
        .set_registration_policy(
            &r.admin,
            "default",
            &authz::realms::RegistrationInput {
                policy: ("disabled").into(),
                max_dynamic_clients: "100".into(),
                metadata_document_policy: ("").into(),
                metadata_document_domains: ("").into(),
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("closed");
    let (status, json) = r.register(&claude_code()).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::FORBIDDEN, Some("access_denied"))
    );
    let res =
        r.t.get(
            "/.well-known/oauth-authorization-server/realms/default",
            None,
        )
        .await;
    let m: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert!(
        m.get("registration_endpoint").is_none(),
        "not advertised when closed"
    );

    r.t.state
        .core
        .set_registration_policy(
            &r.admin,
            "default",
            &authz::realms::RegistrationInput {
                policy: ("initial_access_token").into(),
                max_dynamic_clients: "".into(),
                metadata_document_policy: ("").into(),
                metadata_document_domains: ("").into(),
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("iat");
    let (status, _, json) = r.call("POST", REGISTER, None, Some(&claude_code())).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("invalid_token"))
    );
    let token =
        r.t.state
            .core
            .create_initial_access_token(&r.admin, "default", "CI runner", 1, 3600, &meta)
            .await
            .expect("token");
    let (status, _, json) = r
        .call("POST", REGISTER, Some(token.expose()), Some(&claude_code()))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{json}");
    let (status, _, _) = r
        .call("POST", REGISTER, Some(token.expose()), Some(&claude_code()))
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "used up");
    let res =
        r.t.get(
            "/.well-known/oauth-authorization-server/realms/default",
            None,
        )
        .await;
    let m: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(
        m["registration_endpoint"],
        "http://127.0.0.1:3000/realms/default/connect/register"
    );
}

#[tokio::test]
async fn an_approved_client_that_changes_what_was_reviewed_goes_back_to_review() {
    let r = setup("review").await;
    let (_, json) = r.register(&claude_code()).await;
    let id = json["client_id"].as_str().expect("id").to_owned();
    let rat = json["registration_access_token"]
        .as_str()
        .expect("rat")
        .to_owned();
    let meta = authz::RequestMeta::default();
    // A decision on a version the reviewer did not see is refused.
    let stale =
        r.t.state
            .core
            .approve_client(&r.admin, "default", &id, "ok", Some(1), &meta)
            .await;
    assert!(stale.is_err(), "the client changed since");
    let seen =
        r.t.state
            .core
            .review_queue(&r.admin, "default", authz::clients::ReviewState::Pending)
            .await
            .expect("queue")[0]
            .client
            .updated_at;
    r.t.state
        .core
        .approve_client(&r.admin, "default", &id, "ok", Some(seen), &meta)
        .await
        .expect("approve");
    let mut renamed = claude_code();
    renamed["client_name"] = "Portcullis Security Team (official)".into();
    let (status, _, json) = r
        .call(
            "PUT",
            &format!("{REGISTER}/{id}"),
            Some(&rat),
            Some(&renamed),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let queue =
        r.t.state
            .core
            .review_queue(&r.admin, "default", authz::clients::ReviewState::Pending)
            .await
            .expect("queue");
    assert_eq!(queue.len(), 1, "back in the queue");
    let res =
        r.t.get(&authorize(&id, "http://localhost:61000/callback"), None)
            .await;
    assert!(body(res).await.contains("awaiting approval"));
}

/// A machine client as a CI job registers it.
fn machine() -> serde_json::Value {
    serde_json::json!({
        "client_name": "Nightly reports",
        "grant_types": ["client_credentials"],
        "token_endpoint_auth_method": "client_secret_post",
        "scope": "tools:call"
    })
}

impl Reg {
    async fn settings(&self, unused_days: &str, secret_days: &str, policy: &str) {
        self.t
            .state
            .core
            .set_registration_policy(
                &self.admin,
                "default",
                &authz::realms::RegistrationInput {
                    policy: policy.into(),
                    unused_client_days: unused_days.into(),
                    client_secret_days: secret_days.into(),
                    ..Default::default()
                },
                &authz::RequestMeta::default(),
            )
            .await
            .expect("settings");
    }

    async fn machine_token(&self, id: &str, secret: &str) -> (StatusCode, serde_json::Value) {
        self.token(&format!(
            "grant_type=client_credentials&client_id={id}&client_secret={secret}&resource=https%3A%2F%2Fpay.example.com%2F"
        ))
        .await
    }

    async fn events(&self, action: &str, client_id: &str) -> Vec<authz::audit::AuditEvent> {
        self.t
            .state
            .core
            .list_audit(
                &self.admin,
                None,
                authz::audit::AuditFilter {
                    action: Some(action.into()),
                    target_is: Some(
                        authz::audit::AuditSubject::Client(client_id.to_string()).target(),
                    ),
                    ..Default::default()
                },
                authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 10),
            )
            .await
            .expect("audit")
            .items
    }

    async fn review_state(&self, id: &str) -> String {
        self.t
            .state
            .core
            .get_client(&self.admin, "default", id)
            .await
            .expect("client")
            .client
            .registration
            .review
            .as_str()
            .to_owned()
    }

    async fn open_payments(&self) {
        self.t
            .state
            .core
            .set_resource_policy(
                &self.admin,
                "default",
                "payments-mcp",
                &authz::resources::AccessPolicyInput {
                    consent: "any_client".into(),
                    open_to_self_registered: true,
                    ..Default::default()
                },
                &authz::RequestMeta::default(),
            )
            .await
            .expect("open");
    }
}

#[tokio::test]
async fn a_self_registered_client_unused_for_the_realms_lifetime_expires_and_must_register_again() {
    let r = setup("open").await;
    r.settings("1", "", "open").await;
    r.open_payments().await;
    let (_, used) = r.register(&machine()).await;
    let (_, idle) = r.register(&machine()).await;
    let (used_id, used_secret) = (
        used["client_id"].as_str().expect("id"),
        used["client_secret"].as_str().expect("secret"),
    );
    let idle_id = idle["client_id"].as_str().expect("id");
    let core = &r.t.state.core;
    // Nothing is old enough yet.
    assert_eq!(
        core.purge_expired().await.expect("purge").clients_expired,
        0
    );
    r.clock.advance(12 * 3600);
    let (status, json) = r.machine_token(used_id, used_secret).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    r.clock.advance(13 * 3600);
    // The idle one went a day without a token; the used one got one 13 hours ago.
    assert_eq!(
        core.purge_expired().await.expect("purge").clients_expired,
        1
    );
    assert_eq!(r.review_state(idle_id).await, "expired");
    assert_eq!(r.review_state(used_id).await, "approved");
    let (status, json) = r
        .machine_token(idle_id, idle["client_secret"].as_str().expect("secret"))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("invalid_client")),
        "an expired client is told to register again: {json}"
    );
    // Audited as the system's decision, and listed with the expired clients.
    let expired = core
        .review_queue(&r.admin, "default", authz::clients::ReviewState::Expired)
        .await
        .expect("expired");
    assert_eq!(expired.len(), 1);
    assert_eq!(
        expired[0].client.registration.reviewed_by.as_deref(),
        Some("system")
    );
    let events = r.events("client.expire", idle_id).await;
    assert!(
        events.len() == 1 && events[0].actor == "system",
        "{events:?}"
    );
    // A realm that keeps unused clients forever expires none.
    r.settings("0", "", "open").await;
    r.clock.advance(400 * 86400);
    assert_eq!(
        core.purge_expired().await.expect("purge").clients_expired,
        0
    );
    assert_eq!(r.review_state(used_id).await, "approved");
}

#[tokio::test]
async fn expired_clients_make_room_under_the_realm_limit() {
    let r = setup("open").await;
    r.t.state
        .core
        .set_registration_policy(
            &r.admin,
            "default",
            &authz::realms::RegistrationInput {
                policy: "open".into(),
                max_dynamic_clients: "1".into(),
                unused_client_days: "1".into(),
                ..Default::default()
            },
            &authz::RequestMeta::default(),
        )
        .await
        .expect("limit");
    let (status, _) = r.register(&claude_code()).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, json) = r.register(&claude_code()).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "full: {json}");
    r.clock.advance(2 * 86400);
    r.t.state.core.purge_expired().await.expect("purge");
    let (status, json) = r.register(&claude_code()).await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "the expired one no longer counts: {json}"
    );
}

#[tokio::test]
async fn registered_secrets_expire_on_the_realms_schedule_and_an_update_renews_them() {
    let r = setup("open").await;
    r.open_payments().await;
    // By default the secrets of registered clients do not expire (RFC 7591: 0).
    let (_, json) = r.register(&machine()).await;
    assert_eq!(json["client_secret_expires_at"], 0);
    r.settings("", "2", "open").await;
    let t0 = authz::clock::Clock::now(&r.clock);
    let (_, json) = r.register(&machine()).await;
    assert_eq!(json["client_secret_expires_at"], t0 + 2 * 86400, "{json}");
    let id = json["client_id"].as_str().expect("id").to_owned();
    let old = json["client_secret"].as_str().expect("secret").to_owned();
    let rat = json["registration_access_token"]
        .as_str()
        .expect("rat")
        .to_owned();
    assert_eq!(r.machine_token(&id, &old).await.0, StatusCode::OK);
    // Before half its lifetime is over, an update renews nothing.
    r.clock.advance(3600);
    let (status, _, json) = r
        .call(
            "PUT",
            &format!("{REGISTER}/{id}"),
            Some(&rat),
            Some(&machine()),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert!(json.get("client_secret").is_none(), "{json}");
    // Past it, an update answers with a new secret; the old one keeps working for an hour.
    r.clock.advance(86400 - 3600 + 1);
    let (status, _, json) = r
        .call(
            "PUT",
            &format!("{REGISTER}/{id}"),
            Some(&rat),
            Some(&machine()),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let new = json["client_secret"].as_str().expect("renewed").to_owned();
    assert_ne!(new, old);
    assert_eq!(json["client_secret_expires_at"], t0 + 3 * 86400 + 1);
    assert_eq!(
        r.machine_token(&id, &old).await.0,
        StatusCode::OK,
        "overlap"
    );
    r.clock.advance(3601);
    assert_eq!(
        r.machine_token(&id, &old).await.0,
        StatusCode::UNAUTHORIZED,
        "the replaced secret stopped"
    );
    assert_eq!(r.machine_token(&id, &new).await.0, StatusCode::OK);
    // Past its expiry the new one stops too.
    r.clock.advance(2 * 86400);
    assert_eq!(r.machine_token(&id, &new).await.0, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_reviewer_grants_a_machine_client_access_while_approving_it() {
    let r = setup("review").await;
    let core = &r.t.state.core;
    let meta = authz::RequestMeta::default();
    let (_, json) = r.register(&machine()).await;
    let id = json["client_id"].as_str().expect("id").to_owned();
    let secret = json["client_secret"].as_str().expect("secret").to_owned();
    let choice = |resource: &str, scopes: &str| authz::clients::AccessChoice {
        resource: resource.into(),
        scopes: Some(scopes.into()),
    };
    // A bad pick refuses the whole approval: nothing is half-written.
    for (bad, message) in [
        (choice("nope", "tools:call"), "There is no resource nope."),
        (choice("payments-mcp", "admin"), "does not accept admin"),
        (choice("payments-mcp", ""), "Pick at least one scope"),
    ] {
        let e = core
            .approve_client_with_access(&r.admin, "default", &id, "CI job", None, &[bad], &meta)
            .await
            .expect_err("refused");
        assert!(
            matches!(&e, authz::Error::InvalidField { field: "access", message: m } if m.contains(message)),
            "{e:?}"
        );
        assert_eq!(r.review_state(&id).await, "pending");
    }
    // Beyond what the client registered for: refused.
    core.create_resource(
        &r.admin,
        "default",
        &ResourceInput {
            slug: "ledger-mcp".into(),
            display_name: "Ledger".into(),
            uri: "https://ledger.example.com/".into(),
            scopes: "ledger:read".into(),
            enabled: true,
            ..Default::default()
        },
        &meta,
    )
    .await
    .expect("resource");
    let e = core
        .approve_client_with_access(
            &r.admin,
            "default",
            &id,
            "CI job",
            None,
            &[choice("ledger-mcp", "ledger:read")],
            &meta,
        )
        .await
        .expect_err("not asked for");
    assert!(
        format!("{e:?}").contains("registered for tools:call, not ledger:read"),
        "{e:?}"
    );
    // A security reviewer alone approves, but granting access takes an administrator (or a
    // reviewer could register a client and let it in anywhere).
    r.t.user("rev@example.com", "security_reviewer").await;
    let reviewer = r.t.principal("rev@example.com").await;
    let e = core
        .approve_client_with_access(
            &reviewer,
            "default",
            &id,
            "CI job",
            None,
            &[choice("payments-mcp", "tools:call")],
            &meta,
        )
        .await
        .expect_err("reviewers do not grant");
    assert!(
        matches!(&e, authz::Error::InvalidField { field: "access", message } if message.contains("takes an administrator")),
        "{e:?}"
    );
    assert_eq!(r.review_state(&id).await, "pending");
    let (status, json) = r.machine_token(&id, &secret).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "pending: {json}");
    core.approve_client_with_access(
        &r.admin,
        "default",
        &id,
        "CI job of the payments team",
        None,
        &[choice("payments-mcp", "tools:call")],
        &meta,
    )
    .await
    .expect("approve with access");
    let (status, json) = r.machine_token(&id, &secret).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["scope"], "tools:call");
    let events = r.events("client.approve", &id).await;
    let approval = events.first().expect("audited");
    assert_eq!(
        approval.details["access"][0]["resource"], "payments-mcp",
        "the grant is in the approval's record"
    );
    // Interactive clients get their access from people's consent, not from a reviewer.
    let (_, json) = r.register(&claude_code()).await;
    let interactive = json["client_id"].as_str().expect("id").to_owned();
    let e = core
        .approve_client_with_access(
            &r.admin,
            "default",
            &interactive,
            "ok",
            None,
            &[choice("payments-mcp", "tools:call")],
            &meta,
        )
        .await
        .expect_err("refused");
    assert!(
        matches!(
            e,
            authz::Error::InvalidField {
                field: "access",
                ..
            }
        ),
        "{e:?}"
    );
}

#[tokio::test]
async fn one_decision_covers_many_clients_and_reports_those_it_could_not_decide() {
    let r = setup("review").await;
    let core = &r.t.state.core;
    let meta = authz::RequestMeta::default();
    let mut ids = vec![];
    for _ in 0..2 {
        let (_, json) = r.register(&claude_code()).await;
        ids.push(json["client_id"].as_str().expect("id").to_owned());
    }
    let seen = |id: &str, t| (id.to_owned(), t);
    let queue = core
        .review_queue(&r.admin, "default", authz::clients::ReviewState::Pending)
        .await
        .expect("queue");
    let version = |id: &str| {
        queue
            .iter()
            .find(|i| i.client.client_id.as_str() == id)
            .expect("queued")
            .client
            .updated_at
    };
    use authz::clients::{AccessChoice, Decision};
    // Access rides along only when approving one client.
    let access = [AccessChoice {
        resource: "payments-mcp".into(),
        scopes: None,
    }];
    let both = [
        seen(&ids[0], version(&ids[0])),
        seen(&ids[1], version(&ids[1])),
    ];
    let e = core
        .decide_clients(
            &r.admin,
            "default",
            &both,
            Decision::Approve,
            "ok",
            &access,
            &meta,
        )
        .await
        .expect_err("access for two");
    assert!(matches!(e, authz::Error::Invalid(_)), "{e:?}");
    assert!(
        core.decide_clients(&r.admin, "default", &[], Decision::Reject, "ok", &[], &meta)
            .await
            .is_err()
    );
    // A stale version is reported, the other client is decided.
    let mixed = [seen(&ids[0], 1), seen(&ids[1], version(&ids[1]))];
    let decided = core
        .decide_clients(
            &r.admin,
            "default",
            &mixed,
            Decision::Reject,
            "Flood",
            &[],
            &meta,
        )
        .await
        .expect("decided");
    assert_eq!(decided.done, 1);
    assert_eq!(decided.failed.len(), 1);
    assert_eq!(decided.failed[0].0, ids[0]);
    assert_eq!(r.review_state(&ids[1]).await, "rejected");
    assert_eq!(r.review_state(&ids[0]).await, "pending");
    // A missing reason is the same for every client: an error, nothing decided.
    let e = core
        .decide_clients(
            &r.admin,
            "default",
            &[seen(&ids[0], version(&ids[0]))],
            Decision::Approve,
            " ",
            &[],
            &meta,
        )
        .await
        .expect_err("no reason");
    assert!(matches!(e, authz::Error::InvalidField { .. }), "{e:?}");
    assert_eq!(Decision::parse("approve"), Ok(Decision::Approve));
    assert!(Decision::parse("bless").is_err());
}

#[tokio::test]
async fn revocation_belongs_to_the_clients_owner_and_an_admin_restores_without_old_tokens() {
    let r = setup("open").await;
    let core = &r.t.state.core;
    let meta = authz::RequestMeta::default();
    r.t.user("rev@example.com", "security_reviewer").await;
    let reviewer = r.t.principal("rev@example.com").await;
    // A machine client that registered itself, granted payments by an admin.
    let (status, json) = r
        .register(&serde_json::json!({
            "client_name": "Nightly reports",
            "grant_types": ["client_credentials"],
            "token_endpoint_auth_method": "client_secret_post",
            "scope": "tools:call"
        }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{json}");
    let id = json["client_id"].as_str().expect("id").to_owned();
    let secret = json["client_secret"].as_str().expect("secret").to_owned();
    core.grant_access(&r.admin, "default", &id, "payments-mcp", None, &meta)
        .await
        .expect("grant");
    let token_form = format!(
        "grant_type=client_credentials&client_id={id}&client_secret={secret}&resource={}",
        enc("https://pay.example.com/")
    );
    // The resource server asks with its introspection credentials.
    let (credentials, rs_secret) = core
        .create_resource_server_credentials(&r.admin, "default", "payments-mcp", &meta)
        .await
        .expect("credentials");
    let introspect = |token: String| {
        let (id, secret) = (
            credentials.client_id.to_string(),
            rs_secret.expose().to_owned(),
        );
        let t = &r.t;
        async move {
            let res = t
                .send(
                    Request::post("/realms/default/introspect")
                        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                        .header(
                            header::AUTHORIZATION,
                            format!(
                                "Basic {}",
                                base64::Engine::encode(
                                    &base64::engine::general_purpose::STANDARD,
                                    format!("{id}:{secret}")
                                )
                            ),
                        )
                        .body(Body::from(format!("token={token}")))
                        .expect("request"),
                )
                .await;
            let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
            json["active"].as_bool().expect("active")
        }
    };
    let (status, json) = r.token(&token_form).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let old = json["access_token"].as_str().expect("token").to_owned();
    assert!(introspect(old.clone()).await);

    // What an administrator made is an administrator's: a reviewer may not revoke it, nor a
    // resource's introspection credentials.
    let (admin_made, _) = register_client(
        core,
        &r.admin,
        "reports-bot",
        authz::clients::ClientForm {
            name: "Reports bot".into(),
            ..Default::default()
        },
    )
    .await
    .expect("admin client");
    for target in [&admin_made.client_id, &credentials.client_id] {
        assert!(
            matches!(
                core.revoke_client(
                    &reviewer,
                    "default",
                    target.as_str(),
                    "mine now",
                    None,
                    &meta
                )
                .await,
                Err(authz::Error::Forbidden)
            ),
            "{target}"
        );
    }
    // Nor do they appear in the reviewer's queue.
    let approved = core
        .review_queue(&reviewer, "default", authz::clients::ReviewState::Approved)
        .await
        .expect("queue");
    assert_eq!(
        approved
            .iter()
            .map(|i| i.client.client_id.as_str())
            .collect::<Vec<_>>(),
        [id.as_str()]
    );

    // A self-registered client is the reviewer's: revoked with a reason, its token dies at once.
    assert!(
        core.revoke_client(&reviewer, "default", &id, " ", None, &meta)
            .await
            .is_err(),
        "a reason is required"
    );
    core.revoke_client(&reviewer, "default", &id, "Leaked secret", None, &meta)
        .await
        .expect("revoke");
    assert!(!introspect(old.clone()).await, "revoked: its token is dead");
    let (status, json) = r.token(&token_form).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("invalid_client"))
    );

    // Only an administrator restores; the client works again, its old token stays dead.
    assert!(matches!(
        core.restore_client(&reviewer, "default", &id, "ok now", None, &meta)
            .await,
        Err(authz::Error::Forbidden)
    ));
    r.clock.advance(5);
    core.restore_client(
        &r.admin,
        "default",
        &id,
        "Secret rotated by its owner",
        None,
        &meta,
    )
    .await
    .expect("restore");
    let (status, json) = r.token(&token_form).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let new = json["access_token"].as_str().expect("token").to_owned();
    assert!(introspect(new).await, "new tokens work");
    assert!(
        !introspect(old).await,
        "tokens from before the revocation stay dead"
    );
    // An administrator revokes what an administrator made.
    core.revoke_client(&r.admin, "default", "reports-bot", "Retired", None, &meta)
        .await
        .expect("admin revokes an admin client");

    // Each step is in the client's history, with who and why.
    let history =
        r.t.audit(authz::audit::AuditFilter {
            target_is: Some(authz::audit::AuditSubject::Client(id.to_string()).target()),
            ..Default::default()
        })
        .await;
    let steps: Vec<(&str, &str, &str)> = history
        .iter()
        .filter(|e| e.action == "client.revoke" || e.action == "client.restore")
        .map(|e| {
            (
                e.action.as_str(),
                e.actor.as_str(),
                e.details["reason"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            (
                "client.restore",
                "root@example.com",
                "Secret rotated by its owner"
            ),
            ("client.revoke", "rev@example.com", "Leaked secret"),
        ]
    );
}

/// The value of one Prometheus series in `text` (0 when absent).
fn series(text: &str, name_and_labels: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name_and_labels)?.trim().parse().ok())
        .unwrap_or(0.0)
}

#[tokio::test]
async fn refusals_registrations_decisions_and_throttling_are_counted() {
    let r = setup("review").await;
    let core = &r.t.state.core;
    let metrics = || async { body(r.t.get("/metrics", None).await).await };
    let before = metrics().await;
    // A refused token request, by endpoint, outcome and error code.
    let (status, _) = r
        .token("grant_type=client_credentials&client_id=nobody&client_secret=wrong-secret")
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // A registration, waiting for review, then a reviewer's decision.
    let (_, json) = r.register(&claude_code()).await;
    let id = json["client_id"].as_str().expect("id").to_owned();
    let queue = core
        .review_queue(&r.admin, "default", authz::clients::ReviewState::Pending)
        .await
        .expect("queue");
    let version = queue
        .iter()
        .find(|i| i.client.client_id.as_str() == id)
        .expect("queued")
        .client
        .updated_at;
    core.decide_clients(
        &r.admin,
        "default",
        &[(id, version)],
        authz::clients::Decision::Reject,
        "not ours",
        &[],
        &authz::RequestMeta::default(),
    )
    .await
    .expect("decided");
    // Registrations beyond the source's budget are throttled.
    for _ in 0..authz::throttle::MAX_REGISTRATIONS_PER_SOURCE {
        r.register(&claude_code()).await;
    }
    let after = metrics().await;
    for (series_name, at_least) in [
        (
            "portcullis_oauth_requests_total{endpoint=\"token\",outcome=\"refused\",error=\"invalid_client\"}",
            1.0,
        ),
        (
            "portcullis_oauth_requests_total{endpoint=\"register\",outcome=\"ok\",error=\"\"}",
            1.0,
        ),
        (
            "portcullis_oauth_requests_total{endpoint=\"register\",outcome=\"refused\",error=\"temporarily_unavailable\"}",
            1.0,
        ),
        (
            "portcullis_registrations_total{kind=\"dynamic\",review=\"pending\"}",
            1.0,
        ),
        (
            "portcullis_review_decisions_total{decision=\"client.reject\"}",
            1.0,
        ),
        ("portcullis_throttled_total{kind=\"registration\"}", 1.0),
    ] {
        let grew = series(&after, series_name) - series(&before, series_name);
        assert!(grew >= at_least, "{series_name} grew by {grew}:\n{after}");
    }
}

#[tokio::test]
async fn an_office_behind_one_address_registers_when_the_realm_trusts_its_network() {
    let r = setup("open").await;
    let core = &r.t.state.core;
    let from = |ip: &str| authz::RequestMeta {
        request_id: None,
        client_ip: Some(ip.parse().expect("ip")),
    };
    let register = |ip: &'static str| {
        let metadata: authz::clients::ClientMetadata =
            serde_json::from_value(claude_code()).expect("metadata");
        async move {
            core.register_client_dynamically("default", &metadata, None, &from(ip))
                .await
        }
    };
    // By default one address has ten registrations per 15 minutes.
    for _ in 0..authz::realms::DEFAULT_REGISTRATIONS_PER_SOURCE {
        register("203.0.113.7").await.expect("within the budget");
    }
    let e = register("203.0.113.7")
        .await
        .expect_err("the office is throttled");
    assert!(matches!(e, authz::Error::Throttled { .. }), "{e:?}");
    // The realm trusts the office's network: thirty developers behind its one NAT address
    // register within the minute.
    core.set_registration_policy(
        &r.admin,
        "default",
        &authz::realms::RegistrationInput {
            trusted_networks: "203.0.113.0/24".into(),
            registrations_per_trusted_network: "100".into(),
            ..Default::default()
        },
        &authz::RequestMeta::default(),
    )
    .await
    .expect("trust the office");
    for i in 0..30 {
        register("203.0.113.7")
            .await
            .unwrap_or_else(|e| panic!("developer {i}: {e:?}"));
    }
    // Anyone else keeps the per-address budget.
    for _ in 0..authz::realms::DEFAULT_REGISTRATIONS_PER_SOURCE {
        register("198.51.100.9").await.expect("within the budget");
    }
    let e = register("198.51.100.9").await.expect_err("still limited");
    assert!(matches!(e, authz::Error::Throttled { .. }), "{e:?}");
    // Bad input names the field: the whole internet, and an IPv6 range narrower than the /64
    // an IPv6 source is counted by (it could never match as written).
    for (networks, why) in [
        ("0.0.0.0/0", "too wide"),
        ("2001:db8:0:1::10/128", "counted by their /64"),
    ] {
        let e = core
            .set_registration_policy(
                &r.admin,
                "default",
                &authz::realms::RegistrationInput {
                    trusted_networks: networks.into(),
                    ..Default::default()
                },
                &authz::RequestMeta::default(),
            )
            .await
            .expect_err(networks);
        assert!(
            matches!(
                &e,
                authz::Error::InvalidField {
                    field: "trusted_networks",
                    message,
                } if message.contains(why)
            ),
            "{e:?}"
        );
    }
}

#[tokio::test]
async fn a_revoked_client_cannot_rewrite_what_an_administrator_would_restore() {
    let r = setup("open").await;
    let core = &r.t.state.core;
    let (status, json) = r.register(&claude_code()).await;
    assert_eq!(status, StatusCode::CREATED, "{json}");
    let id = json["client_id"].as_str().expect("id").to_owned();
    let rat = json["registration_access_token"]
        .as_str()
        .expect("token")
        .to_owned();
    core.revoke_client(
        &r.admin,
        "default",
        &id,
        "Its registration token leaked",
        None,
        &authz::RequestMeta::default(),
    )
    .await
    .expect("revoke");
    // Whoever holds the leaked registration token cannot point it somewhere else now…
    let mut changed = claude_code();
    changed["client_id"] = id.clone().into();
    changed["redirect_uris"] = serde_json::json!(["https://attacker.example/cb"]);
    let (status, _, json) = r
        .call(
            "PUT",
            &format!("{REGISTER}/{id}"),
            Some(&rat),
            Some(&changed),
        )
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{json}");
    assert_eq!(json["error"], "invalid_client");
    // …so what an administrator restores is what was revoked.
    core.restore_client(
        &r.admin,
        "default",
        &id,
        "Token rotated by its owner",
        None,
        &authz::RequestMeta::default(),
    )
    .await
    .expect("restore");
    let client = core
        .review_queue(&r.admin, "default", authz::clients::ReviewState::Approved)
        .await
        .expect("queue")
        .into_iter()
        .find(|i| i.client.client_id.as_str() == id)
        .expect("restored");
    assert_eq!(
        client.client.metadata.redirect_uris,
        vec!["http://localhost:54545/callback".to_owned()]
    );
}
