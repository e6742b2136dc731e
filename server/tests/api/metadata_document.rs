//! Client ID Metadata Documents through the real router: documents served over real HTTP by a
//! server the test runs (loopback allowed only by the development flag), the realm's trust
//! policies, caching, and the SSRF targets that must never be fetched.
use super::*;
use authz::resources::ResourceInput;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

const PAY: &str = "https://pay.example.com/";
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

#[derive(Clone)]
struct DocServer {
    answer: Arc<Mutex<(u16, String)>>,
    hits: Arc<AtomicUsize>,
    base: String,
}

impl DocServer {
    async fn start() -> Self {
        let answer = Arc::new(Mutex::new((200, String::new())));
        let hits: Arc<AtomicUsize> = Arc::default();
        let (a, h) = (answer.clone(), hits.clone());
        let app = axum::Router::new().route(
            "/client.json",
            axum::routing::get(move || {
                let (a, h) = (a.clone(), h.clone());
                async move {
                    h.fetch_add(1, Ordering::SeqCst);
                    let (status, body) = a.lock().expect("lock").clone();
                    (
                        StatusCode::from_u16(status).expect("status"),
                        [
                            (header::CONTENT_TYPE, "application/json"),
                            (header::CACHE_CONTROL, "max-age=600"),
                            (header::LOCATION, "http://169.254.169.254/latest/meta-data"),
                        ],
                        body,
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            answer,
            hits,
            base: format!("http://{addr}"),
        }
    }

    fn url(&self) -> String {
        format!("{}/client.json", self.base)
    }

    /// Publishes a document shaped like Claude Code's, for this server's URL.
    fn publish_claude_like(&self) {
        self.publish(
            200,
            serde_json::json!({
                "client_id": self.url(),
                "client_name": "Claude Code",
                "client_uri": "https://claude.ai",
                "redirect_uris": ["http://localhost/callback", "http://127.0.0.1/callback"],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none"
            }),
        );
    }

    fn publish(&self, status: u16, doc: serde_json::Value) {
        *self.answer.lock().expect("lock") = (status, doc.to_string());
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

async fn server(loopback: bool, policy: &str, domains: &str) -> (TestServer, authz::Principal) {
    let (t, admin, _) = server_at(loopback, policy, domains).await;
    (t, admin)
}

/// [`server`] on a clock the test moves.
async fn server_at(
    loopback: bool,
    policy: &str,
    domains: &str,
) -> (TestServer, authz::Principal, authz::clock::FixedClock) {
    let clock = authz::clock::FixedClock::at(time::OffsetDateTime::now_utc().unix_timestamp());
    let t = TestServer::with(
        |c| c.dev.allow_loopback_client_urls = loopback,
        Arc::new(clock.clone()),
    )
    .await;
    t.user("root@example.com", "admin").await;
    let admin = t.principal("root@example.com").await;
    let meta = authz::RequestMeta::default();
    t.state
        .core
        .create_resource(
            &admin,
            "default",
            &ResourceInput {
                slug: "pay".into(),
                display_name: "Payments".into(),
                uri: PAY.into(),
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
                policy: ("review").into(),
                max_dynamic_clients: "".into(),
                metadata_document_policy: (policy).into(),
                metadata_document_domains: (domains).into(),
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("policy");
    (t, admin, clock)
}

fn authorize(client_id: &str, redirect: &str) -> String {
    format!(
        "/realms/default/authorize?response_type=code&client_id={}&redirect_uri={}&code_challenge={CHALLENGE}&code_challenge_method=S256&state=s&resource={}",
        enc(client_id),
        enc(redirect),
        enc(PAY)
    )
}

#[tokio::test]
async fn a_metadata_document_client_signs_a_person_in_and_gets_tokens() {
    let docs = DocServer::start().await;
    docs.publish_claude_like();
    let (t, admin) = server(true, "any", "").await;
    let meta = authz::RequestMeta::default();
    t.state
        .core
        .create_person(
            &admin,
            "default",
            &authz::people::PersonInput {
                email: "ada@example.com".into(),
                ..Default::default()
            },
            Some(PASSWORD),
            &meta,
        )
        .await
        .expect("person");
    let res = t
        .get(
            &authorize(&docs.url(), "http://localhost:51000/callback"),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let cookie = res
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| {
            v.to_str()
                .expect("ascii")
                .split(';')
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .collect::<Vec<_>>()
        .join("; ");
    let html = body(res).await;
    assert!(
        html.contains("Sign in to continue to Claude Code"),
        "{html}"
    );
    let ticket = |html: &str| {
        let at = html.find("name=\"ticket\" value=\"").expect("ticket") + 21;
        html[at..at + html[at..].find('"').expect("end")].to_owned()
    };
    let res = t
        .post_form(
            "/realms/default/authorize",
            &format!(
                "step=login&ticket={}&email=ada%40example.com&password={}",
                ticket(&html),
                enc(PASSWORD)
            ),
            Some(&cookie),
        )
        .await;
    // The sign-in session cookie goes with the consent answer.
    let login = res
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| {
            v.to_str()
                .expect("ascii")
                .split(';')
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .collect::<Vec<_>>()
        .join("; ");
    let cookie = format!("{cookie}; {login}");
    let html = body(res).await;
    assert!(
        html.contains("client-unverified"),
        "a document client is self-registered: {html}"
    );
    let res = t
        .post_form(
            "/realms/default/authorize",
            &format!("step=consent&decision=approve&ticket={}", ticket(&html)),
            Some(&cookie),
        )
        .await;
    let loc = location(&res);
    let code = url::form_urlencoded::parse(loc.split_once('?').expect("query").1.as_bytes())
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .expect("code");
    let res = t
        .send(
            Request::post("/realms/default/token")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from(format!(
                    "grant_type=authorization_code&client_id={}&code={}&redirect_uri={}&code_verifier={VERIFIER}",
                    enc(&docs.url()),
                    enc(&code),
                    enc("http://localhost:51000/callback")
                )))
                .expect("request"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert!(json["access_token"].is_string());
    assert_eq!(docs.hits(), 1, "fetched once, then cached (max-age=600)");
    let m: serde_json::Value = serde_json::from_str(
        &body(
            t.get(
                "/.well-known/oauth-authorization-server/realms/default",
                None,
            )
            .await,
        )
        .await,
    )
    .expect("json");
    assert_eq!(m["client_id_metadata_document_supported"], true);
}

#[tokio::test]
async fn under_review_a_new_document_client_waits_until_a_reviewer_approves_it() {
    let docs = DocServer::start().await;
    docs.publish_claude_like();
    let (t, admin) = server(true, "review", "").await;
    let res = t
        .get(
            &authorize(&docs.url(), "http://localhost:51000/callback"),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(body(res).await.contains("awaiting approval"));
    let queue = t
        .state
        .core
        .review_queue(&admin, "default", authz::clients::ReviewState::Pending)
        .await
        .expect("queue");
    assert_eq!(queue.len(), 1);
    assert_eq!(
        queue[0].client.registration.kind,
        authz::clients::RegistrationKind::MetadataDocument
    );
    t.state
        .core
        .approve_client(
            &admin,
            "default",
            &docs.url(),
            "Claude Code",
            None,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("approve");
    assert_eq!(
        t.get(
            &authorize(&docs.url(), "http://localhost:51000/callback"),
            None
        )
        .await
        .status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn documents_that_lie_or_redirect_are_refused_on_an_error_page() {
    let docs = DocServer::start().await;
    let (t, _) = server(true, "any", "").await;
    for (status, doc, why) in [
        (
            200,
            serde_json::json!({"client_id": "https://claude.ai/other", "client_name": "X", "redirect_uris": ["http://localhost/cb"]}),
            "does not name itself",
        ),
        (
            200,
            serde_json::json!({"client_id": docs.url(), "client_name": "X", "redirect_uris": ["http://localhost/cb"], "client_secret": "s"}),
            "secret",
        ),
        (
            200,
            serde_json::json!({"client_id": docs.url(), "client_name": "x".repeat(6000), "redirect_uris": ["http://localhost/cb"]}),
            "5 KB",
        ),
        (302, serde_json::json!({}), "could not be fetched"),
    ] {
        docs.publish(status, doc);
        // A fresh server each time: nothing cached from the previous document.
        let (t, _) = server(true, "any", "").await;
        let res = t
            .get(&authorize(&docs.url(), "http://localhost/cb"), None)
            .await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{why}");
        let html = body(res).await;
        assert!(html.contains(why), "{why}: {html}");
    }
    drop(t);
}

#[tokio::test]
async fn ssrf_targets_are_never_fetched() {
    let docs = DocServer::start().await;
    docs.publish_claude_like();
    // Without the development flag, loopback and private addresses are refused up front.
    let (t, _) = server(false, "any", "").await;
    for target in [
        docs.url(),
        docs.url().replace("http://", "https://"),
        "https://10.0.0.1/client.json".to_owned(),
        "https://169.254.169.254/latest/meta-data".to_owned(),
        "https://[::1]/client.json".to_owned(),
        "https://localhost/client.json".to_owned(),
    ] {
        let res = t
            .get(&authorize(&target, "http://localhost/cb"), None)
            .await;
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{target}");
        assert!(location(&res).is_empty());
    }
    assert_eq!(docs.hits(), 0);
}

#[tokio::test]
async fn listed_domains_only_and_refusal() {
    let docs = DocServer::start().await;
    docs.publish_claude_like();
    let (t, _) = server(true, "allow_list", "claude.ai vscode.dev").await;
    let res = t
        .get(&authorize(&docs.url(), "http://localhost/cb"), None)
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(body(res).await.contains("only from listed domains"));
    let (t, admin) = server(true, "disabled", "").await;
    let res = t
        .get(&authorize(&docs.url(), "http://localhost/cb"), None)
        .await;
    assert!(
        body(res)
            .await
            .contains("does not accept applications identified by a URL")
    );
    assert_eq!(docs.hits(), 0);
    let m: serde_json::Value = serde_json::from_str(
        &body(
            t.get(
                "/.well-known/oauth-authorization-server/realms/default",
                None,
            )
            .await,
        )
        .await,
    )
    .expect("json");
    assert_eq!(m["client_id_metadata_document_supported"], false);
    assert!(
        t.state
            .core
            .set_registration_policy(
                &admin,
                "default",
                &authz::realms::RegistrationInput {
                    policy: ("review").into(),
                    max_dynamic_clients: "".into(),
                    metadata_document_policy: ("allow_list").into(),
                    metadata_document_domains: ("").into(),
                    ..Default::default()
                },
                &authz::RequestMeta::default()
            )
            .await
            .is_err(),
        "allow_list needs a domain"
    );
}

#[tokio::test]
async fn a_document_client_left_pending_expires_and_registers_anew_when_used_again() {
    let docs = DocServer::start().await;
    docs.publish_claude_like();
    let (t, admin, clock) = server_at(true, "review", "").await;
    let url = authorize(&docs.url(), "http://localhost:51000/callback");
    assert_eq!(t.get(&url, None).await.status(), StatusCode::BAD_REQUEST);
    let state = |t: &TestServer| {
        let (t, admin, id) = (t.state.core.clone(), admin.clone(), docs.url());
        async move {
            t.get_client(&admin, "default", &id)
                .await
                .expect("client")
                .client
                .registration
                .review
        }
    };
    assert_eq!(state(&t).await, authz::clients::ReviewState::Pending);
    // Nobody reviewed it for the realm's unused-client lifetime: it expires (and stops
    // counting against the realm's limit)...
    clock.advance(authz::realms::DEFAULT_UNUSED_CLIENT_TTL_SECS + 1);
    assert_eq!(
        t.state
            .core
            .purge_expired()
            .await
            .expect("purge")
            .clients_expired,
        1
    );
    assert_eq!(state(&t).await, authz::clients::ReviewState::Expired);
    // ...and the next use registers it again, waiting for review as a new one would.
    let res = t.get(&url, None).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(body(res).await.contains("awaiting approval"));
    assert_eq!(state(&t).await, authz::clients::ReviewState::Pending);
    let queue = t
        .state
        .core
        .review_queue(&admin, "default", authz::clients::ReviewState::Pending)
        .await
        .expect("queue");
    assert_eq!(queue.len(), 1);
    assert_eq!(
        queue[0].client.registration.reviewed_by.as_deref(),
        Some("system")
    );
    assert!(
        !queue[0].client.is_verified(),
        "a decision of the system verifies nothing"
    );
}

#[tokio::test]
async fn a_metadata_document_gets_machine_access_only_from_a_trusted_host_and_after_review() {
    use authz::keys::{Signer, SigningAlg, generate};
    let docs = DocServer::start().await;
    // `any`: interactive documents work at once; machine access is another matter.
    let (t, admin, clock) = server_at(true, "any", "").await;
    let core = &t.state.core;
    let meta = authz::RequestMeta::default();
    let key = generate(SigningAlg::ES256).expect("key");
    let mut jwk = key.public_jwk.clone();
    jwk.insert("kid".into(), "k".into());
    let url = docs.url();
    docs.publish(
        200,
        serde_json::json!({
            "client_id": url,
            "client_name": "Nightly reports",
            "redirect_uris": ["http://127.0.0.1/callback"],
            "grant_types": ["authorization_code", "client_credentials"],
            "token_endpoint_auth_method": "private_key_jwt",
            "jwks": {"keys": [jwk.clone()]},
        }),
    );
    let (tr, u) = (&t, url.as_str());
    let open = move || async move {
        tr.get(&authorize(u, "http://127.0.0.1/callback"), None)
            .await
    };
    let res = open().await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let page = body(res).await;
    assert!(
        page.contains("interactive application") && page.contains("machine access"),
        "{page}"
    );
    let stored = core
        .review_queue(&admin, "default", authz::clients::ReviewState::Approved)
        .await
        .expect("queue");
    assert!(
        stored.iter().all(|i| i.client.client_id.as_str() != url),
        "nothing stored on a single GET"
    );

    // The host trusted for machine access: the client registers, and waits for review even
    // though the realm trusts any document for interactive use.
    let (a, m) = (&admin, &meta);
    let trust = move |hosts: &'static str| async move {
        core.set_registration_policy(
            a,
            "default",
            &authz::realms::RegistrationInput {
                metadata_document_machine_domains: hosts.into(),
                ..Default::default()
            },
            m,
        )
        .await
    };
    trust("127.0.0.1").await.expect("trust");
    let res = open().await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(body(res).await.contains("awaiting approval"));
    let signer = Signer::from_pkcs8("k", SigningAlg::ES256, &key.pkcs8).expect("signer");
    let token = |jti: &'static str| {
        let now = authz::clock::Clock::now(&clock);
        let assertion = signer
            .sign(
                "JWT",
                &serde_json::json!({"iss": url, "sub": url, "aud": "http://127.0.0.1:3000/realms/default", "jti": jti, "exp": now + 60}),
            )
            .expect("sign");
        let form = format!(
            "grant_type=client_credentials&resource={}&client_id={}&client_assertion_type={}&client_assertion={assertion}",
            enc(PAY),
            enc(&url),
            enc(authz::tokens::JWT_BEARER_ASSERTION)
        );
        t.send(
            Request::post("/realms/default/token")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from(form))
                .expect("request"),
        )
    };
    let res = token("j1").await;
    assert_eq!(
        res.status(),
        StatusCode::BAD_REQUEST,
        "pending: no machine token"
    );
    assert!(body(res).await.contains("unauthorized_client"));
    core.approve_client_with_access(
        &admin,
        "default",
        &url,
        "Reports bot of the data team",
        None,
        &[authz::clients::AccessChoice {
            resource: "pay".into(),
            scopes: None,
        }],
        &meta,
    )
    .await
    .expect("approve with access");
    let res = token("j2").await;
    assert_eq!(res.status(), StatusCode::OK, "approved and trusted");
    // Trust withdrawn: no more machine tokens, whatever was approved.
    trust("-").await.expect("withdraw");
    let res = token("j3").await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(
        body(res)
            .await
            .contains("trusts its host for machine access")
    );

    // Trusted again, the host widens its document: a reviewed machine client goes back to
    // review, whatever the realm's policy for interactive documents.
    trust("127.0.0.1").await.expect("trust again");
    assert_eq!(token("j4").await.status(), StatusCode::OK);
    docs.publish(
        200,
        serde_json::json!({
            "client_id": url,
            "client_name": "Nightly reports (all data)",
            "redirect_uris": ["http://127.0.0.1/callback"],
            "grant_types": ["authorization_code", "client_credentials"],
            "token_endpoint_auth_method": "private_key_jwt",
            "jwks": {"keys": [jwk]},
        }),
    );
    clock.advance(601);
    open().await;
    let stored = core
        .get_client(&admin, "default", &url)
        .await
        .expect("client");
    assert_eq!(
        stored.client.registration.review,
        authz::clients::ReviewState::Pending,
        "{:?}",
        stored.client
    );
    let res = token("j5").await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST, "pending again");
}

#[tokio::test]
async fn an_instance_holding_an_older_copy_never_writes_it_back() {
    let docs = DocServer::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let shared = format!("sqlite://{}", dir.path().join("shared.db").display());
    let key = authz::keys::MasterKey::generate().to_base64();
    let clock = authz::clock::FixedClock::at(time::OffsetDateTime::now_utc().unix_timestamp());
    // Two instances on one database, each with its own document cache.
    let instance = || {
        let (shared, key) = (shared.clone(), key.clone());
        TestServer::with(
            move |c| {
                c.dev.allow_loopback_client_urls = true;
                c.database.url = Some(shared);
                c.keys.master_key = Some(key);
            },
            Arc::new(clock.clone()),
        )
    };
    let a = instance().await;
    let b = instance().await;
    a.user("root@example.com", "admin").await;
    let admin = a.principal("root@example.com").await;
    a.state
        .core
        .create_resource(
            &admin,
            "default",
            &ResourceInput {
                slug: "pay".into(),
                display_name: "Payments".into(),
                uri: PAY.into(),
                scopes: "tools:call".into(),
                enabled: true,
                ..Default::default()
            },
            &authz::RequestMeta::default(),
        )
        .await
        .expect("resource");
    a.state
        .core
        .set_registration_policy(
            &admin,
            "default",
            &authz::realms::RegistrationInput {
                metadata_document_policy: "any".into(),
                ..Default::default()
            },
            &authz::RequestMeta::default(),
        )
        .await
        .expect("policy");
    let url = docs.url();
    let publish = |name: &str| {
        docs.publish(
            200,
            serde_json::json!({
                "client_id": url,
                "client_name": name,
                "redirect_uris": ["http://127.0.0.1/callback"],
                "grant_types": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_method": "none"
            }),
        );
    };
    async fn open(t: &TestServer, url: &str) -> StatusCode {
        t.get(&authorize(url, "http://127.0.0.1/callback"), None)
            .await
            .status()
    }
    let (ar, adm, u) = (&a, &admin, url.as_str());
    let stored_name = move || async move {
        ar.state
            .core
            .get_client(adm, "default", u)
            .await
            .expect("client")
            .client
            .name
    };
    // A registers the application; five minutes later B reads the same document.
    publish("Notes v1");
    assert_eq!(open(&a, &url).await, StatusCode::OK);
    clock.advance(300);
    assert_eq!(open(&b, &url).await, StatusCode::OK);
    // The publisher changes it; A's copy is older than its max-age and A stores the change.
    publish("Notes v2");
    clock.advance(301);
    assert_eq!(open(&a, &url).await, StatusCode::OK);
    assert_eq!(stored_name().await, "Notes v2");
    // B's copy is still within its max-age but older than what is stored: B fetches again
    // instead of writing its copy back.
    assert_eq!(open(&b, &url).await, StatusCode::OK);
    assert_eq!(
        stored_name().await,
        "Notes v2",
        "no flip back to the older copy"
    );
}
