// An MCP server on the official Rust SDK, protected by portcullis-guard. The constants name the
// realm and server of Portcullis's browser tests: set them to yours.
use portcullis_guard::{Caller, Guard};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::Extension;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

const ISSUER: &str = "http://127.0.0.1:3100/realms/default";
const RESOURCE: &str = "http://127.0.0.1:18961/mcp";
const SCOPES: &[&str] = &["tools:call"];
const NAME: &str = "Snippet test server";

#[derive(Clone)]
struct Server {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Server {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Who the token is for")]
    async fn whoami(&self, Extension(parts): Extension<http::request::Parts>) -> String {
        // The guard let the request in and left the verified caller in its extensions.
        let Some(caller) = Caller::from_extensions(&parts.extensions) else {
            return "nobody".to_owned();
        };
        serde_json::json!({
            "sub": caller.subject(),
            "client_id": caller.client_id(),
            "scopes": caller.scopes().collect::<Vec<_>>(),
            "agent": caller.agent(),
            // Set when another server exchanged the token to call this one for the subject
            // (RFC 8693 `act`, most recent first), and when the registry's release allowed it.
            "acting": caller.actors().map(|a| a.sub.as_str()).collect::<Vec<_>>(),
            "mcp_server": caller.mcp_server(),
        })
        .to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(NAME, "1.0.0"))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The guard logs why the realm cannot be reached (RUST_LOG=debug: why a token is refused).
    tracing_subscriber::fmt::init();
    // Verifies each token's signature (the realm's JWKS, cached), typ, iss, exp, aud (this
    // server and no other) and scopes; serves the RFC 9728 metadata at the path-inserted and
    // the root well-known URLs; answers 401 and 403.
    let mut guard = Guard::builder(ISSUER, RESOURCE)?
        .required_scopes(SCOPES.iter().copied())
        .resource_name(NAME);
    // Opt-in: with the resource's introspection credentials (Portcullis: the resource's page,
    // Introspection credentials) each token is also confirmed with the realm (RFC 7662), so a
    // revoked token is refused at once, or within 30 s if it was used just before, instead of
    // working until it expires. It costs at most one request to the realm per token per 30 s, and calls
    // fail (503) while the realm cannot be reached.
    let set = |name| std::env::var(name).ok().filter(|v: &String| !v.is_empty());
    match (
        set("INTROSPECTION_CLIENT_ID"),
        set("INTROSPECTION_CLIENT_SECRET"),
    ) {
        (Some(id), Some(secret)) => guard = guard.introspection(id, secret),
        (None, None) => {}
        // Half configured (a secret store failed?): refuse to start rather than skip the checks.
        _ => {
            return Err(
                "Set both INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET, or neither."
                    .into(),
            );
        }
    }
    let guard = guard.build()?;
    let config = StreamableHttpServerConfig::default()
        // DNS-rebinding protection: requests must name this server's host.
        .with_allowed_hosts([guard.resource_host()])
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let mcp = StreamableHttpService::new(
        || Ok(Server::new()),
        LocalSessionManager::default().into(),
        config,
    );
    let app = axum::Router::new()
        .route_service(guard.resource_path(), mcp)
        .layer(guard.layer())
        // The metadata is public: merged outside the guard's layer.
        .merge(guard.metadata_router());
    let port: u16 = std::env::var("PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(18961);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("MCP server for {RESOURCE} on port {port}");
    axum::serve(listener, app).await?;
    Ok(())
}
