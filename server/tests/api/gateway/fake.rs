//! The test MCP server the gateway tests call through the gateway: built with the official
//! Rust SDK (`rmcp`), its tools changeable at run time, every call recorded.
use super::*;

/// What an upstream received for one call.
#[derive(Debug, Clone)]
pub(super) struct Seen {
    pub(super) tool: String,
    pub(super) authorization: Option<String>,
    pub(super) meta: Value,
}

/// A test MCP server: its tools can change at run time; it records every call.
#[derive(Clone, Default)]
pub(super) struct Upstream {
    pub(super) tools: Arc<Mutex<Vec<Tool>>>,
    pub(super) seen: Arc<Mutex<Vec<Seen>>>,
    pub(super) calls: Arc<AtomicUsize>,
    pub(super) hang: Arc<AtomicBool>,
    /// Sessions of clients on older versions, and `subscriptions/listen` streams of those on
    /// 2026-07-28: where a change of tools is announced.
    pub(super) peers: Arc<Mutex<Vec<Peer<RoleServer>>>>,
    pub(super) listeners: Arc<Mutex<Vec<rmcp::service::SubscriptionSink>>>,
}

impl ServerHandler for Upstream {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.peers.lock().expect("peers").push(context.peer);
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(requested.clone())
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        self.listeners
            .lock()
            .expect("listeners")
            .push(context.sink().clone());
        context.cancelled().await;
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            self.tools.lock().expect("tools").clone(),
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let authorization = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|p| p.headers.get(header::AUTHORIZATION))
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        self.seen.lock().expect("seen").push(Seen {
            tool: request.name.to_string(),
            authorization,
            // rmcp hands the request's `_meta` to the handler in its context.
            meta: serde_json::to_value(&context.meta).unwrap_or_default(),
        });
        if self.hang.load(Ordering::SeqCst) {
            tokio::time::sleep(std::time::Duration::from_secs(30)).await;
        }
        Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text(format!(
                "{} ran with {}",
                request.name,
                Value::Object(request.arguments.unwrap_or_default())
            )),
        ])))
    }
}

impl Upstream {
    pub(super) fn set_tools(&self, tools: Vec<Tool>) {
        *self.tools.lock().expect("tools") = tools;
    }

    pub(super) async fn announce_change(&self) {
        let peers = self.peers.lock().expect("peers").clone();
        for p in peers {
            let _ = p.notify_tool_list_changed().await;
        }
        let listeners = self.listeners.lock().expect("listeners").clone();
        for l in listeners {
            let _ = l.notify_tool_list_changed().await;
        }
    }

    /// How many clients listen on a 2026-07-28 `subscriptions/listen` stream.
    pub(super) fn listening(&self) -> usize {
        self.listeners.lock().expect("listeners").len()
    }
}

pub(super) fn tool(name: &str, description: &str, read_only: bool) -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {"q": {"type": "string", "maxLength": 50}, "api_token": {"type": "string"}},
        "required": ["q"],
        "additionalProperties": false
    });
    let Value::Object(schema) = schema else {
        unreachable!()
    };
    let mut annotations = ToolAnnotations::new();
    annotations.read_only_hint = Some(read_only);
    annotations.open_world_hint = Some(false);
    Tool::new(name.to_owned(), description.to_owned(), Arc::new(schema))
        .with_annotations(annotations)
}

/// Serves `upstream` at `http://127.0.0.1:<port>/mcp`; the URL.
pub(super) async fn serve_upstream(upstream: Upstream) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let service = StreamableHttpService::new(
        move || Ok(upstream.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let app = Router::new().nest_service("/mcp", service);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/mcp")
}
