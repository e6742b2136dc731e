//! Per-person upstream OAuth (`auth.mode = oauth`): the upstream has its own authorization
//! server (here a second realm of the same Portcullis, reached over real loopback HTTP and
//! found through the upstream's RFC 9728 metadata). Each person connects their own account
//! once — the gateway runs authorization code with PKCE as that server's client — and their
//! calls carry their own token, refreshed when it runs out. Another person, unconnected, is
//! told where to connect and never gets the first person's token; an agent acting for nobody
//! does not reach the server at all.
use super::*;
use crate::authorize::{CHALLENGE, VERIFIER};
use authz::resources::ResourceInput;

mod secrets;

/// The upstream's authorization server: a realm of its own.
const AS_REALM: &str = "docs-as";
const APP_REDIRECT: &str = "http://127.0.0.1/callback";

/// One browser's cookies (the tests keep one per realm, as paths would).
#[derive(Default)]
struct Jar(Vec<(String, String)>);

impl Jar {
    fn header(&self) -> Option<String> {
        (!self.0.is_empty()).then(|| {
            self.0
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("; ")
        })
    }

    fn keep(&mut self, res: &axum::http::Response<Body>) {
        for v in res.headers().get_all(header::SET_COOKIE) {
            let v = v.to_str().expect("ascii");
            let (k, rest) = v.split_once('=').expect("cookie");
            let value = rest.split(';').next().unwrap_or_default().to_owned();
            self.0.retain(|(n, _)| n != k);
            if !value.is_empty() {
                self.0.push((k.to_owned(), value));
            }
        }
    }
}

struct Fixture {
    t: TestServer,
    clock: authz::clock::FixedClock,
    origin: String,
    gateway_url: String,
    docs: Upstream,
    docs_url: String,
    admin: authz::Principal,
    /// The people's ids at the upstream's authorization server, by email.
    at_as: std::collections::HashMap<String, String>,
}

impl Fixture {
    /// A path of this server from a URL it gave (absolute or not).
    fn path<'a>(&self, url: &'a str) -> &'a str {
        url.strip_prefix(&self.origin).unwrap_or(url)
    }

    async fn get(&self, jar: &mut Jar, url: &str) -> (StatusCode, String, String) {
        let res = self.t.get(self.path(url), jar.header().as_deref()).await;
        jar.keep(&res);
        let (status, loc) = (res.status(), location(&res));
        (status, loc, body(res).await)
    }

    async fn post(&self, jar: &mut Jar, path: &str, form: &str) -> (StatusCode, String, String) {
        let res = self.t.post_form(path, form, jar.header().as_deref()).await;
        jar.keep(&res);
        let (status, loc) = (res.status(), location(&res));
        (status, loc, body(res).await)
    }

    /// Opens the authorization request `url` of `realm`, signs in as `email` and agrees; the
    /// redirect back to the client.
    async fn sign_in_and_agree(
        &self,
        jar: &mut Jar,
        realm: &str,
        url: &str,
        email: &str,
    ) -> String {
        let (status, loc, html) = self.get(jar, url).await;
        assert_eq!(status, StatusCode::OK, "{loc} {html}");
        let path = format!("/realms/{realm}/authorize");
        let form = format!(
            "step=login&ticket={}&email={}&password={}",
            crate::authorize::ticket_of(&html),
            enc(email),
            enc(PASSWORD)
        );
        let (status, loc, html) = self.post(jar, &path, &form).await;
        if status == StatusCode::SEE_OTHER {
            return loc;
        }
        assert_eq!(status, StatusCode::OK, "{html}");
        let form = format!(
            "step=consent&decision=approve&ticket={}",
            crate::authorize::ticket_of(&html)
        );
        let (status, loc, html) = self.post(jar, &path, &form).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{html}");
        loc
    }

    /// `email` signs in at the gateway's realm in `jar` and gets a gateway token for the app.
    async fn person_token(&self, jar: &mut Jar, email: &str) -> String {
        let url = format!(
            "/realms/default/authorize?response_type=code&client_id=app&redirect_uri={}&code_challenge={CHALLENGE}&code_challenge_method=S256&state=s&resource={}&scope=mcp",
            enc(APP_REDIRECT),
            enc(&self.gateway_url)
        );
        let back = self.sign_in_and_agree(jar, "default", &url, email).await;
        let code = crate::authorize::query_of(&back)["code"].clone();
        let res = self
            .t
            .post_form(
                "/realms/default/token",
                &format!(
                    "grant_type=authorization_code&client_id=app&code={}&redirect_uri={}&code_verifier={VERIFIER}",
                    enc(&code),
                    enc(APP_REDIRECT)
                ),
                None,
            )
            .await;
        let status = res.status();
        let json: Value = serde_json::from_str(&body(res).await).expect("json");
        assert_eq!(status, StatusCode::OK, "{json}");
        json["access_token"].as_str().expect("token").to_owned()
    }

    /// An MCP client of the gateway with `token`.
    async fn client(&self, token: String) -> RunningService<RoleClient, ()> {
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(self.gateway_url.clone())
                .auth_header(token),
        );
        ().serve(transport).await.expect("connect to the gateway")
    }

    /// The person in `jar` (signed in at the gateway's realm) connects their account at the
    /// docs server, signing in there as `email` in a browser of its own.
    async fn connect(&self, jar: &mut Jar, connect_url: &str, email: &str) {
        let (status, html) = self
            .try_connect(jar, connect_url, email, "portcullis-gateway")
            .await;
        assert_eq!(status, StatusCode::OK, "{html}");
        assert!(html.contains("data-testid=\"connected\""), "{html}");
    }

    /// [`Fixture::connect`] as the gateway's client `client_id` there, up to the page the
    /// callback shows (its status and text).
    async fn try_connect(
        &self,
        jar: &mut Jar,
        connect_url: &str,
        email: &str,
        client_id: &str,
    ) -> (StatusCode, String) {
        // The link shows who is signed in and where they connect; only the form goes on.
        let (status, _, html) = self.get(jar, connect_url).await;
        assert_eq!(status, StatusCode::OK, "{html}");
        assert!(html.contains(email), "{html}");
        let csrf = crate::authorize::csrf_of(&html);
        let (status, to_as, html) = self
            .post(
                jar,
                "/realms/default/gateway/connect",
                &format!("csrf={}&server=docs", enc(&csrf)),
            )
            .await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{html}");
        let asked = crate::authorize::query_of(&to_as);
        assert!(
            to_as.starts_with(&format!("{}/realms/{AS_REALM}/authorize?", self.origin)),
            "{to_as}"
        );
        assert_eq!(asked["client_id"], client_id);
        assert_eq!(
            asked["resource"], self.docs_url,
            "RFC 8707: the upstream itself"
        );
        assert_eq!(asked["code_challenge_method"], "S256");
        assert_eq!(asked["scope"], "docs:read offline_access");
        assert_eq!(
            asked["redirect_uri"],
            format!("{}/gateway/callback/docs", self.issuer()),
            "each server its own callback"
        );
        let mut at_as = Jar::default();
        let back = self
            .sign_in_and_agree(&mut at_as, AS_REALM, &to_as, email)
            .await;
        let (status, _, html) = self.get(jar, &back).await;
        (status, html)
    }

    fn issuer(&self) -> String {
        format!("{}/realms/default", self.origin)
    }

    /// The `sub` of every token the docs server received.
    fn upstream_subjects(&self) -> Vec<String> {
        self.docs
            .seen
            .lock()
            .expect("seen")
            .iter()
            .map(|s| {
                let bearer = s.authorization.as_deref().expect("a token");
                let token = bearer.strip_prefix("Bearer ").expect("bearer");
                jwt_claims(token)["sub"].as_str().expect("sub").to_owned()
            })
            .collect()
    }
}

/// Serves the docs server at `/mcp`, with RFC 9728 metadata naming `issuer`.
async fn serve_docs(docs: Upstream, listener: tokio::net::TcpListener, issuer: String) {
    let addr = listener.local_addr().expect("addr");
    let service = StreamableHttpService::new(
        move || Ok(docs.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let metadata = json!({
        "resource": format!("http://{addr}/mcp"),
        "authorization_servers": [issuer],
    });
    let app = Router::new().nest_service("/mcp", service).route(
        "/.well-known/oauth-protected-resource/mcp",
        axum::routing::get(move || {
            let m = metadata.clone();
            async move { axum::Json(m) }
        }),
    );
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
}

async fn fixture() -> Fixture {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let origin = format!("http://{addr}");
    let clock = authz::clock::FixedClock::at(time::OffsetDateTime::now_utc().unix_timestamp());
    let t = TestServer::with(
        |c| {
            c.public_url = origin.clone();
            // The upstream and its authorization server are on this machine.
            c.dev.allow_loopback_client_urls = true;
        },
        Arc::new(clock.clone()),
    )
    .await;
    let app = t
        .router
        .clone()
        .into_make_service_with_connect_info::<std::net::SocketAddr>();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    t.user("root@example.com", "admin").await;
    let admin = t.principal("root@example.com").await;
    let core = &t.state.core;
    let meta = authz::RequestMeta::default();

    let docs = Upstream::default();
    docs.set_tools(vec![tool("read", "Read a document", true)]);
    let docs_listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let docs_url = format!("http://{}/mcp", docs_listener.local_addr().expect("addr"));
    serve_docs(
        docs.clone(),
        docs_listener,
        format!("{origin}/realms/{AS_REALM}"),
    )
    .await;

    // The upstream's authorization server: its realm, the server as its resource, the
    // gateway as a pre-registered public client, and the same two people.
    core.create_realm(&admin, AS_REALM, "Docs accounts", &meta)
        .await
        .expect("realm");
    core.create_resource(
        &admin,
        AS_REALM,
        &ResourceInput {
            slug: "docs".into(),
            display_name: "Docs".into(),
            uri: docs_url.clone(),
            scopes: "docs:read".into(),
            enabled: true,
            ..Default::default()
        },
        &meta,
    )
    .await
    .expect("docs resource");
    core.create_client(
        &admin,
        AS_REALM,
        "portcullis-gateway",
        &ClientForm {
            name: "Portcullis gateway".into(),
            auth_method: "none".into(),
            redirect_uris: format!("{origin}/realms/default/gateway/callback/docs"),
            ..Default::default()
        }
        .into_metadata()
        .expect("metadata"),
        &meta,
    )
    .await
    .expect("gateway client");
    core.grant_access(
        &admin,
        AS_REALM,
        "portcullis-gateway",
        "docs",
        Some("docs:read"),
        &meta,
    )
    .await
    .expect("grant");

    // The gateway's realm: the gateway, an app people use it with, and the registry.
    let info = core
        .enable_gateway(&admin, "default", &meta)
        .await
        .expect("gateway on");
    register_client(
        core,
        &admin,
        "app",
        ClientForm {
            name: "Agent app".into(),
            auth_method: "none".into(),
            redirect_uris: APP_REDIRECT.into(),
            ..Default::default()
        },
    )
    .await
    .expect("app");
    core.grant_access(&admin, "default", "app", "mcp-gateway", Some("mcp"), &meta)
        .await
        .expect("grant");
    let mut at_as = std::collections::HashMap::new();
    for realm in ["default", AS_REALM] {
        for (email, name) in [
            ("ada@example.com", "Ada Lovelace"),
            ("bob@example.com", "Bob Builder"),
        ] {
            let person = core
                .create_person(
                    &admin,
                    realm,
                    &authz::people::PersonInput {
                        email: email.into(),
                        display_name: name.into(),
                        roles: String::new(),
                    },
                    Some(PASSWORD),
                    &meta,
                )
                .await
                .expect("person");
            if realm == AS_REALM {
                at_as.insert(email.to_owned(), person.id.to_string());
            }
        }
    }
    let revision = core
        .registry(&admin, "default")
        .await
        .expect("registry")
        .registry
        .revision;
    let policy: portcullis_manifest::policy::PolicyInput = serde_json::from_value(json!({
        "mode": "allowlist",
        "rings": ["ring0"],
        "servers": [{
            "id": "docs",
            "title": "Team docs",
            "url": docs_url,
            "auth": {"mode": "oauth", "clientId": "portcullis-gateway", "scopes": ["docs:read", "offline_access"]},
            "rings": ["ring0"],
        }],
    }))
    .expect("policy");
    core.replace_registry_draft(&admin, "default", revision, &policy, &meta)
        .await
        .expect("draft");
    assert!(matches!(
        core.publish_registry(&admin, "default", revision + 1, &meta)
            .await
            .expect("publish"),
        Published::Release(_)
    ));
    for email in ["ada@example.com", "bob@example.com"] {
        core.add_registry_member(
            &admin,
            "default",
            (GroupKind::Ring, "ring0"),
            (MemberKind::Person, email),
            &meta,
        )
        .await
        .expect("member");
    }
    core.create_agent(
        &admin,
        "default",
        &AgentInput {
            name: "nightly".into(),
            owner: "ada@example.com".into(),
            description: String::new(),
            roles: "mcp".into(),
            expires_at: String::new(),
        },
        &meta,
    )
    .await
    .expect("agent");
    core.add_registry_member(
        &admin,
        "default",
        (GroupKind::Ring, "ring0"),
        (MemberKind::Agent, "nightly"),
        &meta,
    )
    .await
    .expect("agent member");
    core.attach_gateway_server(&admin, "default", "nightly", "docs", &meta)
        .await
        .expect("attach");
    Fixture {
        t,
        clock,
        origin,
        gateway_url: info.url,
        docs,
        docs_url,
        admin,
        at_as,
    }
}

fn unavailable_entry(found: &Value, server: &str) -> Value {
    found["unavailable"]
        .as_array()
        .expect("unavailable")
        .iter()
        .find(|u| u["server"] == server)
        .cloned()
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn each_person_calls_an_oauth_upstream_with_their_own_connected_account() {
    let f = fixture().await;
    let core = &f.t.state.core;
    let connect_url = format!("{}/gateway/connect/docs", f.issuer());

    // The gateway's own Client ID Metadata Document names exactly its callback.
    let (status, _, doc) = f
        .get(&mut Jar::default(), "/realms/default/gateway/client/docs")
        .await;
    assert_eq!(status, StatusCode::OK);
    let doc: Value = serde_json::from_str(&doc).expect("json");
    assert_eq!(
        doc["client_id"],
        format!("{}/gateway/client/docs", f.issuer())
    );
    assert_eq!(
        doc["redirect_uris"],
        json!([format!("{}/gateway/callback/docs", f.issuer())])
    );
    let (status, _, _) = f
        .get(
            &mut Jar::default(),
            "/realms/default/gateway/client/nothing",
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(doc["token_endpoint_auth_method"], "none");

    // Ada has not connected: search says where to, and a call sends nothing.
    let mut ada_browser = Jar::default();
    let ada = f
        .client(f.person_token(&mut ada_browser, "ada@example.com").await)
        .await;
    let found = search(&ada).await;
    assert_eq!(names(&found), Vec::<String>::new());
    let entry = unavailable_entry(&found, "docs");
    assert_eq!(entry["connect_url"], connect_url, "{found}");
    assert!(
        entry["reason"]
            .as_str()
            .is_some_and(|r| r.contains(&connect_url)),
        "{entry}"
    );

    // A call names the server's tool: not connected, and where to (nothing is sent).
    let r = execute(&ada, "docs.read", json!({"q": "first"}))
        .await
        .expect("a result");
    assert_eq!(
        r.structured_content.expect("structured")["connect_url"],
        connect_url
    );

    // Signed out, the link says to sign in, and the account page sends the person back.
    let mut fresh = Jar::default();
    let (status, _, html) = f.get(&mut fresh, &connect_url).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{html}");
    let (_, _, html) = f.get(&mut fresh, "/realms/default/account").await;
    let csrf = crate::authorize::csrf_of(&html);
    let (status, loc, _) = f
        .post(
            &mut fresh,
            "/realms/default/account",
            &format!(
                "csrf={}&step=login&email={}&password={}",
                enc(&csrf),
                enc("bob@example.com"),
                enc(PASSWORD)
            ),
        )
        .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let (status, back, _) = f.get(&mut fresh, &loc).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(back, f.path(&connect_url));
    let (status, _, html) = f.get(&mut fresh, &back).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("bob@example.com"), "{html}");
    // Once: the account page is the account page again.
    let (status, _, _) = f.get(&mut fresh, "/realms/default/account").await;
    assert_eq!(status, StatusCode::OK);

    // The link without a sign-in at the realm: a page saying to sign in first.
    let (status, _, html) = f.get(&mut Jar::default(), &connect_url).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{html}");
    assert!(html.contains("connect-sign-in"), "{html}");
    // A form posted from elsewhere (no token bound to this browser and sign-in) starts nothing.
    let (status, loc, _) = f
        .post(
            &mut ada_browser,
            "/realms/default/gateway/connect",
            "csrf=forged&server=docs",
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{loc}");

    // Ada connects (signed in at the realm already, from getting her token).
    f.connect(&mut ada_browser, &connect_url, "ada@example.com")
        .await;
    let ada_at_as = f.at_as["ada@example.com"].clone();

    // Listed through Ada's account, the tool waits for an administrator, then runs as Ada.
    assert_eq!(names(&search(&ada).await), Vec::<String>::new());
    core.accept_tool_pins(
        &f.admin,
        "default",
        "docs",
        &[],
        &authz::RequestMeta::default(),
    )
    .await
    .expect("accept");
    assert_eq!(names(&search(&ada).await), ["docs.read"]);
    let r = execute(&ada, "docs.read", json!({"q": "roadmap"}))
        .await
        .expect("call");
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert_eq!(f.upstream_subjects(), std::slice::from_ref(&ada_at_as));
    let first = f.docs.seen.lock().expect("seen")[0].authorization.clone();
    let claims = jwt_claims(
        first
            .as_deref()
            .expect("token")
            .trim_start_matches("Bearer "),
    );
    assert_eq!(claims["aud"], f.docs_url, "a token for the upstream itself");
    assert_eq!(claims["iss"], format!("{}/realms/{AS_REALM}", f.origin));

    // Bob, unconnected, is told where to connect; nothing reaches the server for him, and
    // Ada's token never serves him.
    let mut bob_browser = Jar::default();
    let bob = f
        .client(f.person_token(&mut bob_browser, "bob@example.com").await)
        .await;
    assert_eq!(names(&search(&bob).await), Vec::<String>::new());
    let r = execute(&bob, "docs.read", json!({"q": "salaries"}))
        .await
        .expect("a result, not an error");
    assert_eq!(r.is_error, Some(true));
    let said = r.structured_content.expect("structured");
    assert_eq!(said["error"], "not_connected", "{said}");
    assert_eq!(said["connect_url"], connect_url);
    assert_eq!(f.upstream_subjects(), std::slice::from_ref(&ada_at_as));

    // Bob's browser cannot finish Ada's connection, nor start one for Ada.
    let (status, _, html) = f
        .get(
            &mut bob_browser,
            &format!(
                "{}?code=stolen&state=stolen",
                f.path(&format!("{}/gateway/callback/docs", f.issuer()))
            ),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{html}");

    // Bob connects his own account, and his calls carry his own token.
    f.connect(&mut bob_browser, &connect_url, "bob@example.com")
        .await;
    let bob_at_as = f.at_as["bob@example.com"].clone();
    let r = execute(&bob, "docs.read", json!({"q": "plans"}))
        .await
        .expect("call");
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let r = execute(&ada, "docs.read", json!({"q": "again"}))
        .await
        .expect("call");
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert_eq!(
        f.upstream_subjects(),
        [ada_at_as.clone(), bob_at_as.clone(), ada_at_as.clone()]
    );

    // When Ada's upstream token runs out, the gateway refreshes it: a new token, still hers.
    let lifetime = claims["exp"].as_i64().expect("exp") - claims["iat"].as_i64().expect("iat");
    f.clock.advance(lifetime - 20);
    let r = execute(&ada, "docs.read", json!({"q": "later"}))
        .await
        .expect("call");
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let seen = f.docs.seen.lock().expect("seen").clone();
    let last = seen.last().expect("a call").authorization.clone();
    assert_ne!(last, first, "a refreshed token");
    let renewed = jwt_claims(
        last.as_deref()
            .expect("token")
            .trim_start_matches("Bearer "),
    );
    assert_eq!(renewed["sub"], ada_at_as);
    assert!(renewed["exp"].as_i64() > claims["exp"].as_i64());

    // Each connection and disconnection is audited; Ada disconnects from her account page.
    let (status, _, page) = f.get(&mut ada_browser, "/realms/default/account").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("data-testid=\"connected-server\""), "{page}");
    assert!(page.contains("Team docs"), "{page}");
    let csrf = crate::authorize::csrf_of(&page);
    let (status, loc, _) = f
        .post(
            &mut ada_browser,
            "/realms/default/account",
            &format!("csrf={}&step=disconnect-server&server=docs", enc(&csrf)),
        )
        .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(loc, "/realms/default/account?done=server-disconnected");
    // At once, though the gateway's connection holds a token that is still valid.
    let calls = f.upstream_subjects().len();
    let r = execute(&ada, "docs.read", json!({"q": "after"}))
        .await
        .expect("a result");
    assert_eq!(
        r.structured_content.expect("structured")["error"],
        "not_connected"
    );
    assert_eq!(f.upstream_subjects().len(), calls, "nothing sent");
    // The tokens would go back to the authorization server that gave them (RFC 7009), which
    // revokes over https only: this one is on loopback http (the request itself is checked by
    // authz's `revocation_goes_to_the_servers_endpoint_as_its_client`).
    let disconnects = core
        .list_audit(
            &f.admin,
            Some("default"),
            authz::audit::AuditFilter {
                action: Some("gateway.disconnect".into()),
                ..Default::default()
            },
            authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 10),
        )
        .await
        .expect("audit");
    assert_eq!(
        disconnects.items[0].details["upstream_revocation"], "not_https",
        "{:?}",
        disconnects.items[0].details
    );
    let events = core
        .list_audit(
            &f.admin,
            Some("default"),
            authz::audit::AuditFilter {
                action: Some("gateway.connect".into()),
                ..Default::default()
            },
            authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 10),
        )
        .await
        .expect("audit");
    assert_eq!(events.items.len(), 2, "one row per connection");
}

#[tokio::test]
async fn an_agent_acting_for_nobody_never_reaches_an_oauth_upstream() {
    let f = fixture().await;
    let toolset =
        f.t.state
            .core
            .agent_toolset(&f.admin, "default", "nightly")
            .await
            .expect("toolset");
    let docs = toolset
        .servers
        .iter()
        .find(|s| s.server.id == "docs")
        .expect("docs");
    assert_eq!(docs.excluded, Some(authz::gateway::Exclusion::PersonOnly));
    assert!(
        docs.excluded
            .as_ref()
            .is_some_and(|e| e.reason().contains("acts for no person"))
    );
}

#[tokio::test]
async fn a_registry_change_never_sends_a_persons_token_to_another_server() {
    let f = fixture().await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let connect_url = format!("{}/gateway/connect/docs", f.issuer());
    let mut jar = Jar::default();
    let ada = f
        .client(f.person_token(&mut jar, "ada@example.com").await)
        .await;
    search(&ada).await;
    f.connect(&mut jar, &connect_url, "ada@example.com").await;
    search(&ada).await;
    core.accept_tool_pins(&f.admin, "default", "docs", &[], &meta)
        .await
        .expect("accept");
    let r = execute(&ada, "docs.read", json!({"q": "x"}))
        .await
        .expect("call");
    assert_ne!(r.is_error, Some(true), "{r:?}");

    // The same server id now names another host: Ada's tokens were given for the old one.
    let collector = Upstream::default();
    collector.set_tools(vec![tool("read", "Read a document", true)]);
    let collector_url = serve_upstream(collector.clone()).await;
    let revision = core
        .registry(&f.admin, "default")
        .await
        .expect("registry")
        .registry
        .revision;
    let policy: portcullis_manifest::policy::PolicyInput = serde_json::from_value(json!({
        "mode": "allowlist",
        "rings": ["ring0"],
        "servers": [{
            "id": "docs",
            "url": collector_url,
            "auth": {"mode": "oauth", "clientId": "portcullis-gateway", "scopes": ["docs:read"]},
            "rings": ["ring0"],
        }],
    }))
    .expect("policy");
    core.replace_registry_draft(&f.admin, "default", revision, &policy, &meta)
        .await
        .expect("draft");
    core.publish_registry(&f.admin, "default", revision + 1, &meta)
        .await
        .expect("publish");
    let found = search(&ada).await;
    assert_eq!(
        unavailable_entry(&found, "docs")["connect_url"],
        connect_url,
        "{found}"
    );
    assert!(
        collector.seen.lock().expect("seen").is_empty()
            && collector.calls.load(Ordering::SeqCst) == 0,
        "nothing reached the new host"
    );
    let disconnected = core
        .list_audit(
            &f.admin,
            Some("default"),
            authz::audit::AuditFilter {
                action: Some("gateway.disconnect".into()),
                ..Default::default()
            },
            authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 10),
        )
        .await
        .expect("audit");
    assert_eq!(disconnected.items.len(), 1);
    assert_eq!(
        disconnected.items[0].details["upstream_revocation"], "not_https",
        "handed back where they were given (an https endpoint there revokes them): {:?}",
        disconnected.items[0].details
    );
}
