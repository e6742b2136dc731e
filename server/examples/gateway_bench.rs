//! `cargo xtask bench gateway`: what the MCP gateway adds to a tool call.
//!
//! One process, loopback HTTP, SQLite: an upstream MCP server built with `rmcp` (one read-only
//! tool that echoes its arguments), Portcullis serving the realm's gateway in front of it, and
//! `rmcp` clients. It measures, one call at a time, `tools/call` on the upstream directly and
//! `execute_capability` through the gateway (token check, toolset, pinned-schema validation,
//! the upstream call with its `_meta`, redaction, the audit row), and reports the difference of
//! their percentiles; then calls per second with concurrent clients both ways; then the
//! resident memory 1,000 open gateway sessions take.
//!
//! Run it in release (`cargo xtask bench gateway` does): a debug build measures the debug build.
use anyhow::{Context as _, bail};
use authz::agents::AgentInput;
use authz::registry::{GroupKind, MemberKind};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleClient, RoleServer, ServerHandler, ServiceExt as _};
use serde_json::{Value, json};
use server::AppState;
use server::config::Config;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Sequential calls measured each way (after [`WARMUP`] unmeasured ones).
const CALLS: usize = 5_000;
const WARMUP: usize = 500;
/// Concurrent clients in the throughput run, and how long it lasts each way.
const CLIENTS: usize = 16;
const THROUGHPUT_FOR: Duration = Duration::from_secs(10);
/// Gateway sessions opened for the memory figure.
const SESSIONS: usize = 1_000;

/// The upstream: one read-only tool answering with its arguments.
#[derive(Clone)]
struct Echo;

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let Value::Object(schema) = json!({
            "type": "object",
            "properties": {"q": {"type": "string", "maxLength": 200}, "limit": {"type": "integer", "minimum": 1, "maximum": 100}},
            "required": ["q"],
            "additionalProperties": false
        }) else {
            unreachable!("an object literal")
        };
        let mut annotations = ToolAnnotations::new();
        annotations.read_only_hint = Some(true);
        annotations.open_world_hint = Some(false);
        Ok(ListToolsResult::with_all_items(vec![
            Tool::new("search", "Search the notes", Arc::new(schema)).with_annotations(annotations),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(Value::Object(request.arguments.unwrap_or_default()).to_string()),
        ])))
    }
}

async fn serve(router: axum::Router) -> anyhow::Result<std::net::SocketAddr> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await;
    });
    Ok(addr)
}

fn rss_kib() -> anyhow::Result<u64> {
    let status = std::fs::read_to_string("/proc/self/status")?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .context("no VmRSS in /proc/self/status")
}

async fn connect(url: &str, token: Option<&str>) -> anyhow::Result<RunningService<RoleClient, ()>> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_owned());
    if let Some(t) = token {
        config = config.auth_header(t.to_owned());
    }
    Ok(
        ().serve(StreamableHttpClientTransport::from_config(config))
            .await?,
    )
}

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    let mut p = CallToolRequestParams::new(name.to_owned());
    p.arguments = arguments.as_object().cloned();
    p
}

/// One call either way: straight to the upstream's tool, or through `execute_capability`.
#[derive(Clone, Copy)]
enum Way {
    Direct,
    Gateway,
}

impl Way {
    fn request(self, i: usize) -> CallToolRequestParams {
        let args = json!({"q": format!("quarterly report {i}"), "limit": 10});
        match self {
            Way::Direct => params("search", args),
            Way::Gateway => params(
                "execute_capability",
                json!({"name": "notes.search", "arguments": args}),
            ),
        }
    }
}

async fn call(client: &RunningService<RoleClient, ()>, way: Way, i: usize) -> anyhow::Result<()> {
    let r = client.call_tool(way.request(i)).await?;
    if r.is_error == Some(true) {
        bail!("the call failed: {r:?}");
    }
    Ok(())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

async fn latencies(
    client: &RunningService<RoleClient, ()>,
    way: Way,
) -> anyhow::Result<Vec<Duration>> {
    for i in 0..WARMUP {
        call(client, way, i).await?;
    }
    let mut took = Vec::with_capacity(CALLS);
    for i in 0..CALLS {
        let start = Instant::now();
        call(client, way, i).await?;
        took.push(start.elapsed());
    }
    took.sort();
    Ok(took)
}

async fn throughput(url: &str, token: Option<&str>, way: Way) -> anyhow::Result<f64> {
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(Arc::new(connect(url, token).await?));
    }
    let until = Instant::now() + THROUGHPUT_FOR;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for c in &clients {
        let c = c.clone();
        tasks.push(tokio::spawn(async move {
            let mut n = 0usize;
            while Instant::now() < until {
                call(&c, way, n).await?;
                n += 1;
            }
            anyhow::Ok(n)
        }));
    }
    let mut total = 0;
    for t in tasks {
        total += t.await??;
    }
    Ok(total as f64 / start.elapsed().as_secs_f64())
}

/// Opens a gateway session with plain HTTP (initialize, then initialized) and lists its tools,
/// keeping nothing but the session id on the client side.
async fn open_session(http: &reqwest::Client, url: &str, token: &str) -> anyhow::Result<String> {
    let post = |body: Value, session: Option<&str>| {
        let mut req = http
            .post(url)
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(s) = session {
            req = req.header("mcp-session-id", s);
        }
        req.send()
    };
    let res = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"}}}),
        None,
    )
    .await?
    .error_for_status()?;
    let session = res
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .context("no session id")?
        .to_owned();
    res.bytes().await?;
    post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(&session),
    )
    .await?
    .error_for_status()?;
    post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        Some(&session),
    )
    .await?
    .error_for_status()?
    .bytes()
    .await?;
    Ok(session)
}

/// Where the gateway's time goes: its core steps alone, in this process, per call.
async fn breakdown(
    core: &authz::Core,
    token: &str,
    upstream: &RunningService<RoleClient, ()>,
) -> anyhow::Result<()> {
    let caller = core
        .gateway_caller("default", Some(token))
        .await
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let tools: Vec<Value> = upstream
        .list_all_tools()
        .await?
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<_, _>>()?;
    let record = authz::gateway::CallRecord {
        name: "notes.search".into(),
        decision: "allowed",
        outcome: "ok".into(),
        ..Default::default()
    };
    let mut rows: Vec<(&str, Duration)> = Vec::new();
    // Times `$step` (an expression awaited each round): the mean of CALLS after WARMUP.
    macro_rules! time {
        ($label:expr, $step:expr) => {{
            for _ in 0..WARMUP {
                $step;
            }
            let start = Instant::now();
            for _ in 0..CALLS {
                $step;
            }
            rows.push(($label, start.elapsed() / u32::try_from(CALLS)?));
        }};
    }
    time!(
        "the caller: token, realm, gateway resource, agent",
        core.gateway_caller("default", Some(token))
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))?
    );
    time!(
        "its toolset: release, groups, attachments, pins",
        core.gateway_toolset(&caller).await?
    );
    time!(
        "the upstream's listing against the pins",
        core.observe_gateway_tools(&caller.realm, "notes", &tools)
            .await?
    );
    time!(
        "the audit row",
        core.record_gateway_call(&caller, "notes", &record).await?
    );
    println!();
    println!("Where the gateway's time goes (its core steps alone, mean per call):");
    println!();
    println!("| step | µs |");
    println!("|---|---|");
    for (label, d) in rows {
        println!("| {label} | {:.0} |", d.as_secs_f64() * 1e6);
    }
    Ok(())
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let dir = tempfile::tempdir()?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    drop(listener);
    let mut config = Config {
        data_dir: dir.path().join("data"),
        public_url: format!("http://{addr}"),
        console: server::config::ConsoleConfig {
            site_dir: dir.path().join("site"),
        },
        ..Config::default()
    };
    config.http.bind = addr;
    // Limits sized for a benchmark, not for one agent.
    config.gateway.budget_per_minute = u64::MAX / 2;
    config.gateway.calls_per_tool_per_minute = u64::MAX / 2;
    let state = AppState::init(config).await?;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let app = server::router(state.clone());
    tokio::spawn(async move {
        let _ = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .await;
    });

    let upstream = StreamableHttpService::new(
        || Ok(Echo),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let upstream_url = format!(
        "http://{}/mcp",
        serve(axum::Router::new().nest_service("/mcp", upstream)).await?
    );

    // The realm: its gateway, the upstream as a resource and a registry server, an agent with
    // the server attached and its tool accepted, and the agent's client.
    let core = &state.core;
    let meta = authz::RequestMeta::default();
    let admin = authz::Principal::cli();
    let gateway_url = core.enable_gateway(&admin, "default", &meta).await?.url;
    core.create_resource(
        &admin,
        "default",
        &authz::resources::ResourceInput {
            slug: "notes".into(),
            display_name: "Notes".into(),
            uri: upstream_url.clone(),
            scopes: "tools:call".into(),
            enabled: true,
            ..Default::default()
        },
        &meta,
    )
    .await?;
    let revision = core.registry(&admin, "default").await?.registry.revision;
    let policy: portcullis_manifest::policy::PolicyInput = serde_json::from_value(json!({
        "mode": "allowlist",
        "rings": ["ring0"],
        "servers": [{"id": "notes", "url": upstream_url,
            "auth": {"mode": "portcullis", "scopes": ["tools:call"]}, "rings": ["ring0"]}],
    }))?;
    core.replace_registry_draft(&admin, "default", revision, &policy, &meta)
        .await?;
    core.publish_registry(&admin, "default", revision + 1, &meta)
        .await?;
    core.create_agent(
        &admin,
        "default",
        &AgentInput {
            name: "bench".into(),
            owner: "owner@example.com".into(),
            description: String::new(),
            roles: "mcp tools:call".into(),
            expires_at: String::new(),
        },
        &meta,
    )
    .await?;
    core.add_registry_member(
        &admin,
        "default",
        (GroupKind::Ring, "ring0"),
        (MemberKind::Agent, "bench"),
        &meta,
    )
    .await?;
    core.attach_gateway_server(&admin, "default", "bench", "notes", &meta)
        .await?;
    let form = authz::clients::ClientForm {
        name: "bench-bot".into(),
        auth_method: "client_secret_post".into(),
        scope: "mcp tools:call".into(),
        ..Default::default()
    };
    let (_, secret) = core
        .create_client(
            &admin,
            "default",
            "bench-bot",
            &form.into_metadata()?,
            &meta,
        )
        .await?;
    let secret = secret.context("a confidential client")?.expose().to_owned();
    core.grant_access(
        &admin,
        "default",
        "bench-bot",
        "mcp-gateway",
        Some("mcp"),
        &meta,
    )
    .await?;
    core.bind_client_to_agent(&admin, "default", "bench-bot", Some("bench"), &meta)
        .await?;
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .build()?;
    let form = format!(
        "grant_type=client_credentials&client_id=bench-bot&client_secret={}&resource={}&scope=mcp",
        url::form_urlencoded::byte_serialize(secret.as_bytes()).collect::<String>(),
        url::form_urlencoded::byte_serialize(gateway_url.as_bytes()).collect::<String>(),
    );
    let token: Value = serde_json::from_slice(
        &http
            .post(format!("http://{addr}/realms/default/token"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .await?
            .error_for_status()?
            .bytes()
            .await?,
    )?;
    let token = token["access_token"]
        .as_str()
        .context("no access token")?
        .to_owned();

    let gateway = connect(&gateway_url, Some(&token)).await?;
    // The first search lists the upstream's tools; an administrator accepts them.
    gateway
        .call_tool(params("search_capabilities", json!({})))
        .await?;
    core.accept_tool_pins(&admin, "default", "notes", &[], &meta)
        .await?;
    let found = gateway
        .call_tool(params("search_capabilities", json!({})))
        .await?;
    if !serde_json::to_string(&found.structured_content)?.contains("notes.search") {
        bail!("the gateway does not offer notes.search: {found:?}");
    }
    let direct = connect(&upstream_url, None).await?;

    // Memory first, before the load runs warm the allocator's free lists.
    let before = rss_kib()?;
    let mut sessions = Vec::with_capacity(SESSIONS);
    for _ in 0..SESSIONS {
        sessions.push(open_session(&http, &gateway_url, &token).await?);
    }
    let after = rss_kib()?;
    println!();
    println!(
        "Memory: {SESSIONS} open gateway sessions (initialized, tools listed): {:.1} MiB resident more ({:.1} KiB each); {:.1} MiB in all",
        after.saturating_sub(before) as f64 / 1024.0,
        after.saturating_sub(before) as f64 / SESSIONS as f64,
        after as f64 / 1024.0
    );

    println!("MCP gateway: {CALLS} sequential calls each way after {WARMUP} warm-up calls");
    let d = latencies(&direct, Way::Direct).await?;
    let g = latencies(&gateway, Way::Gateway).await?;
    println!();
    println!("| | p50 ms | p90 ms | p99 ms | max ms |");
    println!("|---|---|---|---|---|");
    for (label, v) in [("upstream directly", &d), ("through the gateway", &g)] {
        println!(
            "| {label} | {} | {} | {} | {} |",
            ms(percentile(v, 0.5)),
            ms(percentile(v, 0.9)),
            ms(percentile(v, 0.99)),
            ms(v[v.len() - 1])
        );
    }
    let added = |p: f64| percentile(&g, p).saturating_sub(percentile(&d, p));
    println!(
        "| **added by the gateway** | **{}** | {} | **{}** | |",
        ms(added(0.5)),
        ms(added(0.9)),
        ms(added(0.99))
    );
    breakdown(&state.core, &token, &direct).await?;
    drop(direct);
    drop(gateway);

    println!();
    println!(
        "Throughput: {CLIENTS} concurrent clients for {}s each way",
        THROUGHPUT_FOR.as_secs()
    );
    let direct_rate = throughput(&upstream_url, None, Way::Direct).await?;
    let gateway_rate = throughput(&gateway_url, Some(&token), Way::Gateway).await?;
    println!();
    println!("| | calls/s |");
    println!("|---|---|");
    println!("| upstream directly | {direct_rate:.0} |");
    println!("| through the gateway | {gateway_rate:.0} |");

    Ok(())
}
