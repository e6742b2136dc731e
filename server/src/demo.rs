//! `portcullis demo`: the MCP authorization handshake, end to end, on this machine.
//!
//! Starts Portcullis on a throwaway SQLite database and a loopback port, seeds an agent, a
//! client bound to it and two MCP resources, starts an MCP server (the official Rust SDK,
//! `rmcp`, behind `portcullis-guard`) on another loopback port, then plays an MCP client: the
//! five steps of the handshake (401 → protected-resource metadata → authorization-server
//! metadata → token for this resource → tool call that returns the caller's identity) and the
//! negative test (a token for another resource is refused), printing each request and answer.
//! Nothing outside the temporary directory is touched; it is removed at the end.
use crate::config::Config;
use anyhow::{Context as _, bail};
use authz::integration::bearer_params;
use authz::{Principal, RequestMeta};
use base64::Engine as _;
use portcullis_guard::{Caller, Guard};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::Extension;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};
use serde_json::{Value, json};

const SCOPE: &str = "tools:call";
const PROTOCOL: &str = "2025-11-25";

/// The demo's MCP server: one tool that answers with who called.
#[derive(Clone)]
struct Demo {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Demo {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Who called: the verified identity from the access token")]
    async fn whoami(&self, Extension(parts): Extension<axum::http::request::Parts>) -> String {
        let Some(caller) = Caller::from_extensions(&parts.extensions) else {
            return "nobody".to_owned();
        };
        json!({
            "nhi": caller.agent().is_some_and(|a| a.nhi),
            "agent_name": caller.agent().map(|a| &a.agent_name),
            "agent_owner": caller.agent().map(|a| &a.agent_owner),
            "audience": caller.audience(),
            "roles": caller.roles(),
            "client_id": caller.client_id(),
            "scopes": caller.scopes().collect::<Vec<_>>(),
        })
        .to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Demo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("portcullis-demo", "1.0.0"))
    }
}

/// What the demo prints as it goes.
pub struct Transcript<'a> {
    out: &'a mut (dyn FnMut(&str) + Send),
    failures: usize,
}

impl Transcript<'_> {
    fn line(&mut self, s: &str) {
        (self.out)(s);
    }

    fn check(&mut self, ok: bool, yes: &str, no: &str) {
        if ok {
            self.line(&format!("   ✓ {yes}"));
        } else {
            self.failures += 1;
            self.line(&format!("   ✗ {no}"));
        }
    }
}

/// The demo was stopped by Ctrl-C or SIGTERM (exit status 130, as shells report an interrupt).
#[derive(Debug, thiserror::Error)]
#[error("Interrupted")]
pub struct Interrupted;

/// Runs the demo, writing each line to `out`.
///
/// # Errors
/// When something cannot start, or a step does not behave as the MCP authorization spec says.
pub async fn run(out: &mut (dyn FnMut(&str) + Send)) -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!(
        "portcullis-demo-{}-{}",
        std::process::id(),
        authz::keys::new_kid()
    ));
    // Interrupted (Ctrl-C, SIGTERM), the demo still removes its directory on the way out.
    let result = tokio::select! {
        r = run_in(&dir, out) => r,
        () = crate::shutdown_signal() => Err(Interrupted.into()),
    };
    let _ = std::fs::remove_dir_all(&dir);
    result
}

async fn run_in(dir: &std::path::Path, out: &mut (dyn FnMut(&str) + Send)) -> anyhow::Result<()> {
    let mut t = Transcript { out, failures: 0 };
    // The token endpoint's HTTP client below needs a TLS provider even for http.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let as_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let mcp_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let (as_addr, mcp_addr) = (as_listener.local_addr()?, mcp_listener.local_addr()?);
    let public = format!("http://{as_addr}");
    let mcp_url = format!("http://{mcp_addr}/mcp");
    let other_url = format!("http://{mcp_addr}/other-mcp");

    // Portcullis, on its own temporary database: no configuration file or environment is read.
    let mut config = Config {
        public_url: public.clone(),
        data_dir: dir.to_path_buf(),
        ..Config::default()
    };
    config.http.bind = as_addr;
    config.dev.allow_http_loopback_resources = true;
    let state = crate::AppState::init(config)
        .await
        .context("Failed to start Portcullis on a temporary database")?;
    let core = state.core.clone();
    let issuer =
        core.issuer(&authz::realms::RealmName::parse("default").map_err(anyhow::Error::msg)?);
    let secret = seed(&core, &mcp_url, &other_url).await?;
    tokio::spawn(async move {
        let app =
            crate::router(state).into_make_service_with_connect_info::<std::net::SocketAddr>();
        if let Err(e) = axum::serve(as_listener, app).await {
            tracing::error!(error = %e, "The demo's authorization server stopped");
        }
    });

    // The MCP server: rmcp behind portcullis-guard, as the console's Rust snippet builds it.
    let guard = Guard::builder(&issuer, &mcp_url)?
        .required_scopes([SCOPE])
        .resource_name("Demo MCP server")
        .build()?;
    let mcp = StreamableHttpService::new(
        || Ok(Demo::new()),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default()
            .with_allowed_hosts([guard.resource_host()])
            .with_legacy_session_mode(false)
            .with_json_response(true),
    );
    let app = axum::Router::new()
        .route_service(guard.resource_path(), mcp)
        .layer(guard.layer())
        .merge(guard.metadata_router());
    tokio::spawn(async move {
        if let Err(e) = axum::serve(mcp_listener, app).await {
            tracing::error!(error = %e, "The demo's MCP server stopped");
        }
    });

    t.line("Portcullis MCP authorization demo");
    t.line(&format!(
        "   authorization server  {issuer}  (temporary SQLite database)"
    ));
    t.line(&format!(
        "   MCP server            {mcp_url}  (rmcp + portcullis-guard)"
    ));
    t.line("   seeded                agent demo-agent (owner owner@example.com; roles mcp:tools tools:call,");
    t.line("                         which bound the scopes of its tokens),");
    t.line(&format!(
        "                         client demo-client bound to it, granted {mcp_url} and {other_url}"
    ));
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(std::time::Duration::from_secs(10))
        .build()?;
    let client = Client {
        http: &http,
        mcp_url: &mcp_url,
    };

    // 1. No token.
    t.line("");
    t.line("1. Call the MCP server without a token");
    t.line(&format!("   → POST {mcp_url}  (initialize)"));
    let res = client.mcp(None, &initialize()).await?;
    let challenge = header(&res, "www-authenticate");
    t.line(&format!(
        "   ← {}  WWW-Authenticate: {challenge}",
        res.status()
    ));
    let params = bearer_params(&challenge).unwrap_or_default();
    let param = |k: &str| {
        params
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let metadata_url = param("resource_metadata");
    t.check(
        res.status() == 401 && !metadata_url.is_empty(),
        "401: the server wants a bearer token and says where its metadata is",
        "expected 401 with WWW-Authenticate: Bearer resource_metadata=…",
    );

    // 2. Protected-resource metadata.
    t.line("");
    t.line("2. Read the protected-resource metadata (RFC 9728)");
    t.line(&format!("   → GET {metadata_url}"));
    let prm = json_of(http.get(&metadata_url).send().await?).await;
    t.line(&format!("   ← {prm}"));
    let as_issuer = prm["authorization_servers"][0]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    t.check(
        prm["resource"] == json!(mcp_url) && as_issuer == issuer,
        &format!("the resource is this server; its authorization server is {as_issuer}"),
        "the metadata must name this server and the realm",
    );

    // 3. Authorization-server metadata.
    t.line("");
    t.line("3. Read the authorization server's metadata (RFC 8414)");
    let as_metadata_url = format!(
        "{public}/.well-known/oauth-authorization-server{}",
        as_issuer.trim_start_matches(&public)
    );
    t.line(&format!("   → GET {as_metadata_url}"));
    let asm = json_of(http.get(&as_metadata_url).send().await?).await;
    let token_endpoint = asm["token_endpoint"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    t.line(&format!(
        "   ← issuer {}, token_endpoint {token_endpoint}, jwks_uri {}",
        text(&asm["issuer"]),
        text(&asm["jwks_uri"])
    ));
    t.check(
        asm["issuer"] == json!(as_issuer) && !token_endpoint.is_empty(),
        "the issuer is the one the metadata named",
        "the issuer must match exactly (RFC 8414 §3.3)",
    );

    // 4. A token for this resource.
    t.line("");
    t.line("4. Get a token for this server (client_credentials with resource, RFC 8707)");
    t.line(
        "   (VS Code, Claude Code and other interactive clients register themselves and use the",
    );
    t.line(
        "   authorization code flow with PKCE instead; the token is bound to the server alike.)",
    );
    t.line(&format!(
        "   → POST {token_endpoint}  grant_type=client_credentials resource={mcp_url} scope={SCOPE}"
    ));
    let (status, token) = client.token(&token_endpoint, &secret, &mcp_url).await?;
    let claims = payload(&token);
    t.line(&format!(
        "   ← {status}  an RFC 9068 JWT: aud={} sub={} nhi={} agent_name={} scope={}",
        text(&claims["aud"]),
        text(&claims["sub"]),
        text(&claims["nhi"]),
        text(&claims["agent_name"]),
        text(&claims["scope"])
    ));
    t.check(
        status == 200 && claims["aud"] == json!(mcp_url),
        "a token bound to this one server",
        "expected a token whose aud is the MCP server",
    );

    // 5. The tool call.
    t.line("");
    t.line("5. Call the whoami tool with it");
    t.line(&format!(
        "   → POST {mcp_url}  (initialize, then tools/call whoami; Authorization: Bearer …)"
    ));
    let init = client.mcp(Some(&token), &initialize()).await?;
    let call = client.mcp(Some(&token), &tool_call()).await?;
    let (init_status, call_status) = (init.status(), call.status());
    let answer = json_of(call).await;
    let who: Value = answer["result"]["content"][0]["text"]
        .as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default();
    t.line(&format!("   ← {call_status}  {who}"));
    t.check(
        init_status == 200
            && call_status == 200
            && who["nhi"] == json!(true)
            && who["agent_name"] == json!("demo-agent")
            && who["agent_owner"] == json!("owner@example.com")
            && who["audience"] == json!(mcp_url),
        "the server sees who called: an agent (nhi), its name, owner, audience and roles",
        "the tool should answer with the caller's identity",
    );

    // 6. Negative: a token for another resource.
    t.line("");
    t.line("6. Negative test: a token for another resource");
    let (status, other) = client.token(&token_endpoint, &secret, &other_url).await?;
    t.line(&format!(
        "   → token for {other_url}: {status}, aud={}",
        text(&payload(&other)["aud"])
    ));
    t.line(&format!("   → POST {mcp_url}  with it"));
    let res = client.mcp(Some(&other), &initialize()).await?;
    t.line(&format!(
        "   ← {}  WWW-Authenticate: {}",
        res.status(),
        header(&res, "www-authenticate")
    ));
    t.check(
        status == 200 && res.status() == 401,
        "refused: a token for one MCP server is useless at another",
        "a token for another resource must get 401",
    );

    t.line("");
    if t.failures == 0 {
        t.line("Every step behaved as the MCP authorization spec says.");
        t.line("Next: protect your own server. Run `portcullis serve` (`cargo xtask serve` in a checkout),");
        t.line("create the first admin as it says, sign in, and open Integration →");
        t.line(
            "Protect your MCP server (then Check an MCP server, or `portcullis check-mcp URL`).",
        );
        Ok(())
    } else {
        bail!("{} step(s) did not behave as expected", t.failures)
    }
}

/// Seeds the agent, the client bound to it and the two resources; returns the client's secret.
async fn seed(core: &authz::Core, mcp_url: &str, other_url: &str) -> anyhow::Result<String> {
    let (cli, meta) = (Principal::cli(), RequestMeta::default());
    let err = |e: authz::Error| anyhow::anyhow!("{e}");
    for (slug, name, uri) in [
        ("demo-mcp", "Demo MCP server", mcp_url),
        ("other-mcp", "Another MCP server", other_url),
    ] {
        let input = authz::resources::ResourceInput {
            slug: slug.into(),
            display_name: name.into(),
            uri: uri.into(),
            scopes: SCOPE.into(),
            token_ttl_secs: String::new(),
            signing_alg: String::new(),
            enabled: true,
        };
        core.create_resource(&cli, "default", &input, &meta)
            .await
            .map_err(err)?;
    }
    let agent = authz::agents::AgentInput {
        name: "demo-agent".into(),
        owner: "owner@example.com".into(),
        description: "Made by portcullis demo".into(),
        roles: format!("mcp:tools {SCOPE}"),
        expires_at: String::new(),
    };
    core.create_agent(&cli, "default", &agent, &meta)
        .await
        .map_err(err)?;
    let metadata = authz::clients::ClientForm {
        name: "Demo client".into(),
        auth_method: "client_secret_basic".into(),
        scope: SCOPE.into(),
        ..Default::default()
    }
    .into_metadata()
    .map_err(err)?;
    let (_, secret) = core
        .create_client(&cli, "default", "demo-client", &metadata, &meta)
        .await
        .map_err(err)?;
    for slug in ["demo-mcp", "other-mcp"] {
        core.grant_access(&cli, "default", "demo-client", slug, Some(SCOPE), &meta)
            .await
            .map_err(err)?;
    }
    core.bind_client_to_agent(&cli, "default", "demo-client", Some("demo-agent"), &meta)
        .await
        .map_err(err)?;
    Ok(secret
        .context("a confidential client has a secret")?
        .expose()
        .to_owned())
}

struct Client<'a> {
    http: &'a reqwest::Client,
    mcp_url: &'a str,
}

impl Client<'_> {
    async fn mcp(&self, token: Option<&str>, body: &Value) -> anyhow::Result<reqwest::Response> {
        let mut req = self
            .http
            .post(self.mcp_url)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", PROTOCOL)
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        Ok(req.send().await?)
    }

    async fn token(
        &self,
        endpoint: &str,
        secret: &str,
        resource: &str,
    ) -> anyhow::Result<(u16, String)> {
        let res = self
            .http
            .post(endpoint)
            .basic_auth("demo-client", Some(secret))
            .form(&[
                ("grant_type", "client_credentials"),
                ("resource", resource),
                ("scope", SCOPE),
            ])
            .send()
            .await?;
        let status = res.status().as_u16();
        let body = json_of(res).await;
        Ok((
            status,
            body["access_token"].as_str().unwrap_or_default().to_owned(),
        ))
    }
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": PROTOCOL, "capabilities": {},
        "clientInfo": {"name": "portcullis-demo", "version": env!("CARGO_PKG_VERSION")}}})
}

fn tool_call() -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}})
}

/// A JSON value as printed: strings without quotes.
fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
}

/// A response's JSON body (`null` when it has none).
async fn json_of(res: reqwest::Response) -> Value {
    let bytes = res.bytes().await.unwrap_or_default();
    serde_json::from_slice(&bytes).unwrap_or_default()
}

fn header(res: &reqwest::Response, name: &str) -> String {
    res.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// The claims of a JWT, unverified: only to print what the server verifies.
fn payload(token: &str) -> Value {
    token
        .split('.')
        .nth(1)
        .and_then(|p| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(p)
                .ok()
        })
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}
