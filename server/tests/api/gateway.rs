//! The MCP gateway end to end, over real loopback HTTP: Portcullis serving the facade, two
//! upstream MCP servers built with the official Rust SDK (`rmcp`), and agents calling through
//! an `rmcp` client with Portcullis tokens.
//!
//! Two agents with different attachments search exactly their toolsets; tools wait for an
//! administrator's acceptance and hide again when their definition changes; arguments that
//! break the pinned schema never reach the upstream; the upstream receives a token exchanged
//! for itself (never the caller's) and the `_meta` ids the audit row also holds; no spelling of
//! a name reaches a tool outside the toolset; writes wait for approval; a hanging upstream
//! trips its breaker and search reports it.
use super::*;
use authz::agents::AgentInput;
use authz::clients::ClientForm;
use authz::registry::{GroupKind, MemberKind, Published};
use base64::Engine as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, Peer, RoleClient, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Value, json};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const TRACE: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

mod fake;
use fake::*;

struct Gateway {
    t: TestServer,
    clock: authz::clock::FixedClock,
    url: String,
    notes: Upstream,
    notes_url: String,
    tickets: Upstream,
    admin: authz::Principal,
    secrets: Mutex<std::collections::HashMap<String, String>>,
}

const AGENTS: [(&str, &[&str]); 2] = [("alpha", &["notes", "tickets"]), ("beta", &["notes"])];

async fn setup() -> Gateway {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let clock = authz::clock::FixedClock::at(time::OffsetDateTime::now_utc().unix_timestamp());
    let t = TestServer::with(
        |c| {
            c.public_url = format!("http://{addr}");
            c.gateway.call_timeout_secs = 1;
            c.gateway.breaker_failures = 2;
            c.gateway.breaker_open_secs = 600;
            c.gateway.approval_timeout_secs = 600;
            c.gateway.calls_per_tool_per_minute = 8;
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
    t.user("ada@example.com", "admin").await;
    let admin = t.principal("ada@example.com").await;
    let core = &t.state.core;
    let meta = authz::RequestMeta::default();

    let notes = Upstream::default();
    notes.set_tools(vec![
        tool("search", "Search notes", true),
        tool("delete_note", "Delete a note", false),
    ]);
    let notes_url = serve_upstream(notes.clone()).await;
    let tickets = Upstream::default();
    tickets.set_tools(vec![
        tool("list", "List tickets", true),
        tool("purge", "Purge every ticket", true),
    ]);
    let tickets_url = serve_upstream(tickets.clone()).await;

    let info = core
        .enable_gateway(&admin, "default", &meta)
        .await
        .expect("gateway on");
    // Notes takes Portcullis tokens: it is a resource of the realm.
    core.create_resource(
        &admin,
        "default",
        &authz::resources::ResourceInput {
            slug: "notes".into(),
            display_name: "Notes".into(),
            uri: notes_url.clone(),
            scopes: "tools:call".into(),
            enabled: true,
            ..Default::default()
        },
        &meta,
    )
    .await
    .expect("notes resource");
    let revision = core
        .registry(&admin, "default")
        .await
        .expect("registry")
        .registry
        .revision;
    let policy: portcullis_manifest::policy::PolicyInput = serde_json::from_value(json!({
        "mode": "allowlist",
        "rings": ["ring0", "ring1"],
        "servers": [
            {"id": "notes", "url": notes_url, "auth": {"mode": "portcullis", "scopes": ["tools:call"]}, "rings": ["ring0"]},
            {"id": "tickets", "url": tickets_url, "tools": {"deny": ["purge"]}, "rings": ["ring0"]},
            {"id": "wiki", "url": "https://wiki.example.com/mcp", "rings": ["ring1"]},
        ],
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
    for (agent, servers) in AGENTS {
        core.create_agent(
            &admin,
            "default",
            &AgentInput {
                name: agent.into(),
                owner: "owner@example.com".into(),
                description: String::new(),
                roles: "mcp tools:call".into(),
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
            (MemberKind::Agent, agent),
            &meta,
        )
        .await
        .expect("member");
        for s in servers {
            core.attach_gateway_server(&admin, "default", agent, s, &meta)
                .await
                .expect("attach");
        }
    }
    Gateway {
        t,
        clock,
        url: info.url,
        notes,
        notes_url,
        tickets,
        admin,
        secrets: Mutex::default(),
    }
}

impl Gateway {
    /// A client_credentials token for the agent's bot, at `resource`.
    async fn token(&self, agent: &str, resource: &str, scope: &str) -> String {
        let core = &self.t.state.core;
        let client_id = format!("{agent}-bot");
        let known = self
            .secrets
            .lock()
            .expect("secrets")
            .get(&client_id)
            .cloned();
        let secret = match known {
            Some(s) => s,
            None => {
                let (_, secret) = register_client(
                    core,
                    &self.admin,
                    &client_id,
                    ClientForm {
                        name: client_id.clone(),
                        auth_method: "client_secret_post".into(),
                        scope: "mcp tools:call".into(),
                        ..Default::default()
                    },
                )
                .await
                .expect("client");
                core.grant_access(
                    &self.admin,
                    "default",
                    &client_id,
                    "mcp-gateway",
                    Some("mcp"),
                    &authz::RequestMeta::default(),
                )
                .await
                .expect("grant");
                core.bind_client_to_agent(
                    &self.admin,
                    "default",
                    &client_id,
                    Some(agent),
                    &authz::RequestMeta::default(),
                )
                .await
                .expect("bind");
                let secret = secret.expect("confidential").expose().to_owned();
                self.secrets
                    .lock()
                    .expect("secrets")
                    .insert(client_id.clone(), secret.clone());
                secret
            }
        };
        let res = self
            .t
            .post_form(
                "/realms/default/token",
                &format!(
                    "grant_type=client_credentials&client_id={client_id}&client_secret={}&resource={}&scope={}",
                    enc(&secret),
                    enc(resource),
                    enc(scope)
                ),
                None,
            )
            .await;
        let status = res.status();
        let json: Value = serde_json::from_str(&body(res).await).expect("json");
        assert_eq!(status, StatusCode::OK, "{json}");
        json["access_token"].as_str().expect("token").to_owned()
    }

    /// An MCP client of the gateway for `agent`.
    async fn client(&self, agent: &str) -> RunningService<RoleClient, ()> {
        let token = self.token(agent, &self.url, "mcp").await;
        // The test's own client (rmcp's default reqwest) needs the process's TLS provider.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(self.url.clone()).auth_header(token),
        );
        ().serve(transport).await.expect("connect to the gateway")
    }

    async fn accept(&self, server: &str) -> usize {
        self.t
            .state
            .core
            .accept_tool_pins(
                &self.admin,
                "default",
                server,
                &[],
                &authz::RequestMeta::default(),
            )
            .await
            .expect("accept")
    }
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    args: Value,
) -> Result<CallToolResult, rmcp::ServiceError> {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = args.as_object().cloned();
    client.call_tool(params).await
}

async fn search(client: &RunningService<RoleClient, ()>) -> Value {
    let r = call(client, "search_capabilities", json!({}))
        .await
        .expect("search");
    assert_ne!(r.is_error, Some(true), "{r:?}");
    r.structured_content.expect("structured")
}

fn names(found: &Value) -> Vec<String> {
    let mut n: Vec<String> = found["capabilities"]
        .as_array()
        .expect("capabilities")
        .iter()
        .map(|c| c["name"].as_str().expect("name").to_owned())
        .collect();
    n.sort();
    n
}

async fn execute(
    client: &RunningService<RoleClient, ()>,
    name: &str,
    arguments: Value,
) -> Result<CallToolResult, rmcp::ServiceError> {
    call(
        client,
        "execute_capability",
        json!({"name": name, "arguments": arguments}),
    )
    .await
}

fn not_found(r: Result<CallToolResult, rmcp::ServiceError>) -> bool {
    matches!(r, Err(rmcp::ServiceError::McpError(e)) if e.code.0 == -32008 && e.message == "tool_not_found")
}

fn jwt_claims(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("payload");
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .expect("base64"),
    )
    .expect("claims")
}

#[tokio::test]
async fn the_facade_offers_exactly_two_tools_and_each_agent_its_accepted_toolset() {
    let g = setup().await;
    let alpha = g.client("alpha").await;
    let tools = alpha.list_all_tools().await.expect("tools");
    let mut listed: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    listed.sort_unstable();
    assert_eq!(listed, ["execute_capability", "search_capabilities"]);

    // Nothing is accepted yet: every tool waits, hidden.
    assert_eq!(names(&search(&alpha).await), Vec::<String>::new());
    assert_eq!(g.accept("notes").await, 2);
    assert_eq!(
        g.accept("tickets").await,
        2,
        "purge is pinned, though denied"
    );
    assert_eq!(
        names(&search(&alpha).await),
        ["notes.delete_note", "notes.search", "tickets.list"],
        "tickets.purge is denied by the server's tool rules"
    );
    let beta = g.client("beta").await;
    assert_eq!(
        names(&search(&beta).await),
        ["notes.delete_note", "notes.search"],
        "beta is attached to notes only"
    );

    // Each capability carries its pinned schema and the risk signals an admin accepted.
    let found = search(&alpha).await;
    let search_cap = found["capabilities"]
        .as_array()
        .expect("caps")
        .iter()
        .find(|c| c["name"] == "notes.search")
        .expect("notes.search")
        .clone();
    assert_eq!(search_cap["side_effect_class"], "read");
    assert_eq!(search_cap["risk"], "low");
    assert_eq!(search_cap["availability"], "up");
    assert_eq!(search_cap["input_schema"]["required"], json!(["q"]));
    assert!(
        search_cap.get("url").is_none() && !found.to_string().contains("127.0.0.1"),
        "no upstream URL leaks: {found}"
    );

    // The console's and CLI's view of an agent agrees, and says why the rest is excluded.
    let toolset =
        g.t.state
            .core
            .agent_toolset(&g.admin, "default", "beta")
            .await
            .expect("toolset");
    let reason = |id: &str| {
        toolset
            .servers
            .iter()
            .find(|s| s.server.id == id)
            .and_then(|s| s.excluded.clone())
    };
    assert_eq!(reason("notes"), None);
    assert_eq!(
        reason("tickets"),
        Some(authz::gateway::Exclusion::NotAttached)
    );
    assert_eq!(
        reason("wiki"),
        Some(authz::gateway::Exclusion::NotForCaller)
    );
}

#[tokio::test]
async fn a_read_reaches_the_upstream_with_an_exchanged_token_and_the_meta_ids() {
    let g = setup().await;
    let alpha = g.client("alpha").await;
    search(&alpha).await;
    g.accept("notes").await;
    let mut params = CallToolRequestParams::new("execute_capability");
    params.arguments =
        json!({"name": "notes.search", "arguments": {"q": "budget"}, "subject_ids": ["person-42"]})
            .as_object()
            .cloned();
    params.meta = Some(rmcp::model::RequestMetaObject(rmcp::model::MetaObject(
        json!({"traceparent": TRACE})
            .as_object()
            .cloned()
            .expect("meta"),
    )));
    let r = alpha.call_tool(params).await.expect("call");
    assert_ne!(r.is_error, Some(true), "{r:?}");
    let text = format!("{:?}", r.content);
    assert!(text.contains("search ran with"), "{text}");

    let seen = g.notes.seen.lock().expect("seen").clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].tool, "search");
    let auth = seen[0].authorization.clone().expect("a token");
    let token = auth.strip_prefix("Bearer ").expect("bearer");
    let claims = jwt_claims(token);
    assert_eq!(claims["aud"], g.notes_url, "its own audience");
    assert_eq!(claims["scope"], "tools:call");
    assert_eq!(
        claims["act"]["sub"], "mcp-gateway-introspect",
        "the gateway acts"
    );
    assert_eq!(claims["agent_name"], "alpha");
    assert!(claims["exp"].as_i64().expect("exp") - claims["iat"].as_i64().expect("iat") <= 300);
    // _meta: the session, agent, run and subject ids, and the caller's trace continued.
    let meta = &seen[0].meta;
    let agent_id =
        g.t.state
            .core
            .list_gateway_attachments(&g.admin, "default", "alpha")
            .await
            .map(|_| ())
            .ok();
    assert!(agent_id.is_some());
    assert!(
        meta["session_id"].as_str().is_some_and(|s| !s.is_empty()),
        "{meta}"
    );
    assert!(
        meta["agent_id"]
            .as_str()
            .is_some_and(|s| s.starts_with("agt_")),
        "{meta}"
    );
    assert!(
        meta["run_id"]
            .as_str()
            .is_some_and(|s| s.starts_with("run_")),
        "{meta}"
    );
    assert_eq!(meta["subject_ids"], json!(["person-42"]));
    let trace = meta["traceparent"].as_str().expect("traceparent");
    assert!(
        trace.starts_with("00-4bf92f3577b34da6a3ce929d0e0e4736-") && trace != TRACE,
        "{trace}"
    );

    // One audit row for the call, with the same ids.
    let rows =
        g.t.audit(authz::audit::AuditFilter {
            action: Some("gateway.call".into()),
            ..Default::default()
        })
        .await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    let d = &rows[0].details;
    assert_eq!(d["capability"], "notes.search");
    assert_eq!(d["decision"], "allowed");
    assert_eq!(d["outcome"], "ok");
    assert_eq!(d["run_id"], meta["run_id"]);
    assert_eq!(d["session_id"], meta["session_id"]);
    assert_eq!(d["traceparent"], meta["traceparent"]);
    assert_eq!(d["subject_ids"], json!(["person-42"]));
    assert_eq!(d["agent_id"], meta["agent_id"]);
    assert_eq!(rows[0].target, "registry_server:notes");

    // The token exchange that minted the upstream token is audited too.
    let exchanges =
        g.t.audit(authz::audit::AuditFilter {
            action: Some("token.exchange".into()),
            ..Default::default()
        })
        .await;
    assert_eq!(
        exchanges.len(),
        1,
        "one token for the connection: {exchanges:?}"
    );

    // A credential in what the upstream returns never reaches the agent.
    let leaked = "eyJhbGciOiJF.eyJzdWIiOiJh.c2lnbmF0dXJl";
    let r = execute(&alpha, "notes.search", json!({"q": leaked}))
        .await
        .expect("call");
    let text = format!("{:?}", r.content);
    assert!(
        text.contains("[redacted]") && !text.contains(leaked),
        "{text}"
    );
}

#[tokio::test]
async fn only_live_tokens_for_the_gateway_with_its_scope_are_served() {
    let g = setup().await;
    let post = |auth: Option<String>| {
        let mut b = Request::post("/realms/default/mcp")
            .header(header::HOST, "127.0.0.1")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        if let Some(a) = auth {
            b = b.header(header::AUTHORIZATION, a);
        }
        b.body(Body::from(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        ))
        .expect("request")
    };
    let res = g.t.send(post(None)).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let challenge = res.headers()[header::WWW_AUTHENTICATE]
        .to_str()
        .expect("ascii")
        .to_owned();
    let prm = format!(
        "{}/.well-known/oauth-protected-resource/realms/default/mcp",
        g.t.state.config.public_url()
    );
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"{prm}\", scope=\"mcp\"")
    );
    let res =
        g.t.get(
            "/.well-known/oauth-protected-resource/realms/default/mcp",
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let metadata: Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(metadata["resource"], g.url);
    assert_eq!(
        metadata["authorization_servers"],
        json!([format!("{}/realms/default", g.t.state.config.public_url())])
    );
    assert_eq!(metadata["scopes_supported"], json!(["mcp"]));

    // A token for another resource (the notes server itself) is no token for the gateway.
    g.token("alpha", &g.url, "mcp").await;
    g.t.state
        .core
        .grant_access(
            &g.admin,
            "default",
            "alpha-bot",
            "notes",
            Some("tools:call"),
            &authz::RequestMeta::default(),
        )
        .await
        .expect("grant");
    let other = g.token("alpha", &g.notes_url, "tools:call").await;
    let res = g.t.send(post(Some(format!("Bearer {other}")))).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(
        res.headers()[header::WWW_AUTHENTICATE]
            .to_str()
            .expect("ascii")
            .contains("error=\"invalid_token\"")
    );
    let res = g.t.send(post(Some("Bearer not-a-token".into()))).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let good = g.token("alpha", &g.url, "mcp").await;
    let res = g.t.send(post(Some(format!("Bearer {good}")))).await;
    let status = res.status();
    assert_eq!(status, StatusCode::OK, "{}", body(res).await);

    // A session is its opener's alone: another caller naming it is told it does not exist.
    let opened = g.t.send(post(Some(format!("Bearer {good}")))).await;
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .expect("session")
        .to_owned();
    let beta = g.token("beta", &g.url, "mcp").await;
    let list = |token: &str, session: &str| {
        Request::post("/realms/default/mcp")
            .header(header::HOST, "127.0.0.1")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header(header::AUTHORIZATION, format!("Bearer {token}"))
            .header("mcp-session-id", session)
            .header("mcp-protocol-version", "2025-06-18")
            .body(Body::from(
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
            ))
            .expect("request")
    };
    assert_eq!(
        g.t.send(list(&beta, &session)).await.status(),
        StatusCode::NOT_FOUND
    );
    let delete = Request::delete("/realms/default/mcp")
        .header(header::HOST, "127.0.0.1")
        .header(header::AUTHORIZATION, format!("Bearer {beta}"))
        .header("mcp-session-id", session.as_str())
        .body(Body::empty())
        .expect("request");
    assert_eq!(g.t.send(delete).await.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        g.t.send(list(&good, "made-up-session")).await.status(),
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        g.t.send(list(&good, &session)).await.status(),
        StatusCode::OK,
        "its opener still uses it"
    );

    // A realm whose gateway is off has none.
    let res =
        g.t.send(
            Request::post("/realms/nowhere/mcp")
                .body(Body::empty())
                .expect("r"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res =
        g.t.get(
            "/.well-known/oauth-protected-resource/realms/nowhere/mcp",
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

mod calls;
mod connect;
mod profiles;
mod refusals;
mod rounds;
