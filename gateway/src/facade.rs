//! The facade: exactly two tools, `search_capabilities` and `execute_capability`.
//!
//! Search returns the capabilities the caller may use now: each server of the latest release
//! the core gives it (rings, units, attachments), each tool the server lists exactly as an
//! administrator accepted it and its tool rules allow, with the accepted definition's input
//! schema and the server's availability. Execute runs only a name that search could return,
//! byte for byte; anything else is `-32008 tool_not_found`, whatever the spelling.
mod approval;
mod credentials;

use crate::Gateway;
use crate::breaker::Availability;
use crate::context::{CallContext, new_run_id, traceparent};
use crate::names::{capability_name, resolve};
use crate::upstream::UpstreamError;
use approval::{Gate, Round};
use authz::gateway::{CallRecord, GatewayCaller, GatewayServer, PinnedDefinition};
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Instant;

/// JSON-RPC error code for a name outside the caller's toolset.
pub const TOOL_NOT_FOUND: i32 = -32008;
/// Most subject ids one call may name.
const MAX_SUBJECT_IDS: usize = 20;
/// Longest query, server filter or subject id.
const MAX_TEXT: usize = 200;

/// The MCP server every realm's gateway endpoint serves.
#[derive(Clone)]
pub struct Facade {
    gateway: Gateway,
}

/// What one server gives the caller now.
struct Offers {
    offers: Vec<(String, Offer)>,
    availability: Availability,
    /// Why it gives nothing now, when it could not be listed.
    problem: Option<String>,
    /// Where the calling person connects their own account at it, when they have not.
    connect_url: Option<String>,
    /// Its tools waiting for an administrator.
    waiting: usize,
}

/// One capability the caller may use.
#[derive(Debug, Clone)]
struct Offer {
    server: GatewayServer,
    tool: String,
    definition: PinnedDefinition,
    value: Value,
    availability: Availability,
}

impl Offer {
    /// Annotations count only because an administrator accepted them with the definition.
    fn side_effect_class(&self) -> &'static str {
        authz::gateway::side_effect_class(&self.value)
    }

    fn meta_hint(&self, key: &str) -> Option<&Value> {
        self.value.get("_meta").and_then(|m| m.get(key))
    }

    fn describe(&self) -> Value {
        let class = self.side_effect_class();
        let risk = authz::gateway::risk(&self.value);
        let mut described = json!({
            "name": capability_name(&self.server.server.id, &self.tool),
            "server": self.server.server.id,
            "title": self.value.get("title").or_else(|| self.value.get("annotations").and_then(|a| a.get("title"))),
            "description": self.value.get("description"),
            "input_schema": self.value.get("inputSchema"),
            "side_effect_class": class,
            "cost_hint": self.meta_hint("cost_hint").and_then(Value::as_u64).unwrap_or(1),
            "requires_subject_id": self.meta_hint("requires_subject_id").and_then(Value::as_bool).unwrap_or(false),
            "risk": risk,
            "availability": self.availability.as_str(),
        });
        // A provider profile's tools say so; a preview's contract may change.
        if let Some(profile) = self.server.server.profile {
            described["profile"] = json!(profile.as_str());
            described["preview"] = json!(profile.preview());
        }
        described
    }
}

fn caller(context: &RequestContext<RoleServer>) -> Result<GatewayCaller, ErrorData> {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|p| p.extensions.get::<GatewayCaller>())
        .cloned()
        .ok_or_else(|| ErrorData::internal_error("The request was not authenticated.", None))
}

fn tool(name: &'static str, description: &'static str, schema: Value) -> Tool {
    let schema = match schema {
        Value::Object(o) => o,
        _ => serde_json::Map::new(),
    };
    Tool::new(name, description, Arc::new(schema))
}

fn text_result(value: &Value, is_error: bool) -> CallToolResult {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    let mut r = if is_error {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    };
    r.structured_content = Some(value.clone());
    r
}

fn string_arg(
    args: &serde_json::Map<String, Value>,
    key: &str,
) -> Result<Option<String>, ErrorData> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.chars().count() <= MAX_TEXT => Ok(Some(s.clone())),
        Some(Value::String(_)) => Err(ErrorData::invalid_params(
            format!("{key}: at most {MAX_TEXT} characters."),
            None,
        )),
        Some(_) => Err(ErrorData::invalid_params(
            format!("{key} must be a string."),
            None,
        )),
    }
}

impl Facade {
    pub(crate) fn new(gateway: Gateway) -> Self {
        Self { gateway }
    }

    /// The capabilities one server gives the caller: its tools as it lists them now (through
    /// the caller's connection, which also records what changed), kept when accepted and
    /// allowed. Unreachable, it gives nothing.
    async fn offers(&self, caller: &GatewayCaller, server: &GatewayServer) -> Offers {
        let inner = &self.gateway.inner;
        let unavailable = |availability: Availability, reason: &str| Offers {
            offers: Vec::new(),
            availability,
            problem: Some(reason.to_owned()),
            connect_url: None,
            waiting: 0,
        };
        let Some(url) = server.url.as_deref() else {
            return unavailable(Availability::Up, "not reachable by URL");
        };
        if !inner.upstreams.admit(url) {
            return unavailable(
                Availability::CircuitOpen,
                "it failed repeatedly; the gateway stopped calling it for a while",
            );
        }
        let started = Instant::now();
        let now = inner.core.now();
        let key = self.connection_key(caller, server).await;
        let listed = async {
            let key = key.as_ref().map_err(Clone::clone)?;
            let conn = inner
                .upstreams
                .connection(key, url, now, || self.token(caller, server, url))
                .await?;
            inner.upstreams.tools(&conn).await
        }
        .await;
        let tools = match listed {
            Ok(t) => {
                inner
                    .upstreams
                    .record(url, Ok(()), started.elapsed(), inner.core.now());
                t
            }
            Err(e) => {
                inner
                    .upstreams
                    .record(url, Err(&e), started.elapsed(), inner.core.now());
                if let Ok(key) = &key {
                    inner.upstreams.drop_connection(key, url);
                }
                if e == UpstreamError::TokenRefused {
                    self.token_refused(caller, server).await;
                }
                if let UpstreamError::NotConnected(connect) = &e {
                    return Offers {
                        connect_url: Some(connect.clone()),
                        ..unavailable(Availability::Up, &e.message())
                    };
                }
                tracing::warn!(server = %server.server.id, error = e.kind(), "gateway: listing an upstream's tools failed");
                return unavailable(inner.upstreams.availability(url), &e.message());
            }
        };
        let pins = match inner
            .core
            .observe_gateway_tools(&caller.realm, &server.server.id, &tools)
            .await
        {
            Ok(p) => p,
            Err(e) => {
                tracing::error!(error = %e, "gateway: recording tool pins failed");
                return unavailable(Availability::Degraded, "the gateway failed; try again");
            }
        };
        let availability = inner.upstreams.availability(url);
        let offers = pins
            .iter()
            .filter(|p| server.server.tools.allows(&p.tool))
            .filter_map(|p| {
                let def = p.offered()?;
                let value: Value = serde_json::from_str(&def.canonical).ok()?;
                Some((
                    capability_name(&server.server.id, &p.tool),
                    Offer {
                        server: server.clone(),
                        tool: p.tool.clone(),
                        definition: def.clone(),
                        value,
                        availability,
                    },
                ))
            })
            .collect();
        Offers {
            offers,
            availability,
            problem: None,
            connect_url: None,
            waiting: pins
                .iter()
                .filter(|p| p.state() != authz::gateway::PinState::Accepted)
                .count(),
        }
    }

    async fn search(
        &self,
        caller: &GatewayCaller,
        args: &serde_json::Map<String, Value>,
    ) -> Result<CallToolResult, ErrorData> {
        let query = string_arg(args, "query")?.map(|q| q.to_lowercase());
        let only = string_arg(args, "server")?;
        let toolset = self
            .gateway
            .inner
            .core
            .gateway_toolset(caller)
            .await
            .map_err(internal)?;
        let mut capabilities = Vec::new();
        let mut unavailable = Vec::new();
        let mut waiting_review = Vec::new();
        for server in toolset.servers.iter().filter(|s| s.excluded.is_none()) {
            if only.as_deref().is_some_and(|o| o != server.server.id) {
                continue;
            }
            let Offers {
                offers,
                availability,
                problem,
                connect_url,
                waiting,
            } = self.offers(caller, server).await;
            if let Some(problem) = problem {
                let mut entry = json!({"server": server.server.id, "availability": availability.as_str(), "reason": problem});
                if let Some(url) = connect_url {
                    entry["connect_url"] = json!(url);
                }
                unavailable.push(entry);
            }
            if waiting > 0 {
                waiting_review.push(json!({"server": server.server.id, "tools": waiting}));
            }
            for (name, offer) in offers {
                let described = offer.describe();
                let matches = query.as_deref().is_none_or(|q| {
                    name.to_lowercase().contains(q)
                        || described["description"]
                            .as_str()
                            .is_some_and(|d| d.to_lowercase().contains(q))
                });
                if matches {
                    capabilities.push(described);
                }
            }
        }
        Ok(text_result(
            &json!({
                "release": toolset.release,
                "capabilities": capabilities,
                "unavailable": unavailable,
                "waiting_for_review": waiting_review,
            }),
            false,
        ))
    }

    async fn execute(
        &self,
        caller: &GatewayCaller,
        args: &serde_json::Map<String, Value>,
        round: &Round,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
        let inner = &self.gateway.inner;
        let (name, arguments, subject_ids) = match parse_call(args) {
            Ok(call) => call,
            Err(e) => return Err(self.malformed(caller, args, e).await),
        };
        let name = &name;
        let parts = context.extensions.get::<http::request::Parts>();
        let header = |h: &str| {
            parts
                .and_then(|p| p.headers.get(h))
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let incoming_trace = context
            .meta
            .0
            .0
            .get("traceparent")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| header("traceparent"));
        let ctx = CallContext {
            // Upstreams (and the audit row) get an id derived from the session, never the
            // session id itself, which would let its holder use the session.
            session_id: crate::context::session_ref(
                header("mcp-session-id")
                    .filter(|s| s.len() <= 128)
                    .as_deref()
                    .unwrap_or(&caller.claims.jti),
            ),
            agent_id: caller.agent.as_ref().map(|a| a.id.to_string()),
            run_id: new_run_id(),
            subject_ids,
            traceparent: traceparent(incoming_trace.as_deref()),
        };
        let mut record = CallRecord {
            name: name.chars().take(200).collect(),
            decision: "not_found",
            outcome: "tool_not_found".into(),
            session_id: Some(ctx.session_id.clone()),
            run_id: Some(ctx.run_id.clone()),
            subject_ids: ctx.subject_ids.clone(),
            traceparent: Some(ctx.traceparent.clone()),
            ..Default::default()
        };
        let toolset = inner.core.gateway_toolset(caller).await.map_err(internal)?;
        // Only the server the name's prefix names is listed: the name must then be one of
        // its offers exactly.
        let prefix = name.split_once('.').map(|(s, _)| s);
        let server = toolset
            .servers
            .iter()
            .find(|s| s.excluded.is_none() && Some(s.server.id.as_str()) == prefix);
        let found = match server {
            Some(s) => Some(self.offers(caller, s).await),
            None => None,
        };
        // The server cannot be listed now: a name it was offering is unavailable, not unknown;
        // for a person who has not connected their account there, any name its rules allow
        // (its tools cannot be listed for them before).
        if let (
            Some(s),
            Some(Offers {
                problem: Some(problem),
                availability,
                connect_url,
                ..
            }),
        ) = (server, &found)
            && name.split_once('.').is_some_and(|(_, tool)| {
                s.server.tools.allows(tool)
                    && (connect_url.is_some()
                        || toolset
                            .pin(&s.server.id, tool)
                            .is_some_and(|p| p.accepted.is_some()))
            })
        {
            record.decision = "allowed";
            record.outcome = "unavailable".into();
            record.upstream_status = Some(availability.as_str().into());
            record.latency_ms = elapsed_ms(started);
            let answer = match connect_url {
                Some(url) => {
                    record.outcome = "not_connected".into();
                    json!({"error": "not_connected", "connect_url": url, "message": format!("{problem} Nothing was sent.")})
                }
                None => {
                    json!({"error": "unavailable", "availability": availability.as_str(), "message": format!("The server is unavailable now ({problem}). Nothing was sent.")})
                }
            };
            self.audit(caller, &s.server.id, &record).await;
            return Ok(CallToolResponse::Complete(text_result(&answer, true)));
        }
        let offers = found.map(|o| o.offers).unwrap_or_default();
        let audit_server = server.map_or("-", |s| s.server.id.as_str()).to_owned();
        let Some(offer) = resolve(name, &offers).cloned() else {
            record.latency_ms = elapsed_ms(started);
            self.audit(caller, &audit_server, &record).await;
            return Err(ErrorData::new(
                ErrorCode(TOOL_NOT_FOUND),
                "tool_not_found",
                Some(
                    json!({"name": record.name, "hint": "Use an exact name that search_capabilities returned."}),
                ),
            ));
        };
        let schema = offer
            .value
            .get("inputSchema")
            .cloned()
            .unwrap_or(json!({"type": "object"}));
        if let Err(errors) = inner.schemas.check(
            &offer.definition.sha256,
            &schema,
            &arguments,
            inner.config.max_argument_bytes,
        ) {
            record.decision = "denied";
            record.outcome = "invalid_arguments".into();
            record.latency_ms = elapsed_ms(started);
            self.audit(caller, &audit_server, &record).await;
            return Ok(CallToolResponse::Complete(text_result(
                &json!({"error": "invalid_arguments", "errors": errors, "hint": "Nothing was sent: fix the arguments to match input_schema."}),
                true,
            )));
        }
        // Budgets and rate limits, before anything waits or is sent.
        let cost = offer.describe()["cost_hint"].as_u64().unwrap_or(1);
        if let Err(wait) = inner.limits.spend(
            &caller.key(),
            name,
            cost,
            (
                inner.config.budget_per_minute,
                inner.config.calls_per_tool_per_minute,
            ),
            Instant::now(),
        ) {
            record.decision = "denied";
            record.outcome = "rate_limited".into();
            record.latency_ms = elapsed_ms(started);
            self.audit(caller, &audit_server, &record).await;
            return Ok(CallToolResponse::Complete(text_result(
                &json!({"error": "rate_limited", "retry_after_secs": wait, "message": "Too many calls (or too costly) this minute. Nothing was sent; try again later."}),
                true,
            )));
        }
        let class = offer.side_effect_class();
        if class != "read"
            && let Gate::Answer(answer) = self
                .gate(
                    caller,
                    &offer,
                    (&arguments, &ctx),
                    round,
                    &mut record,
                    started,
                )
                .await?
        {
            self.audit(caller, &audit_server, &record).await;
            return Ok(answer);
        }
        record.decision = "allowed";
        let url = offer.server.url.clone().unwrap_or_default();
        let mut params = CallToolRequestParams::new(offer.tool.clone());
        params.arguments = arguments.as_object().cloned();
        params.meta = Some(rmcp::model::RequestMetaObject(rmcp::model::MetaObject(
            ctx.meta(),
        )));
        // Only a read is tried again: a write might have happened before the failure.
        let attempts = if class == "read" {
            1 + inner.config.read_retries
        } else {
            1
        };
        let mut outcome = Err(UpstreamError::Failed("not called".into()));
        for _ in 0..attempts {
            if !inner.upstreams.admit(&url) {
                outcome = Err(UpstreamError::CircuitOpen);
                break;
            }
            let call_started = Instant::now();
            let now = inner.core.now();
            let key = self.connection_key(caller, &offer.server).await;
            let result = async {
                let key = key.as_ref().map_err(Clone::clone)?;
                let conn = inner
                    .upstreams
                    .connection(key, &url, now, || self.token(caller, &offer.server, &url))
                    .await?;
                inner.upstreams.call(&conn, params.clone()).await
            }
            .await;
            inner.upstreams.record(
                &url,
                result.as_ref().map(|_| ()),
                call_started.elapsed(),
                inner.core.now(),
            );
            match result {
                Ok(r) => {
                    outcome = Ok(r);
                    break;
                }
                Err(e @ (UpstreamError::NoToken(_) | UpstreamError::NotConnected(_))) => {
                    outcome = Err(e);
                    break;
                }
                Err(e) => {
                    if let Ok(key) = &key {
                        inner.upstreams.drop_connection(key, &url);
                    }
                    if e == UpstreamError::TokenRefused {
                        // Not tried again: the next call gets a fresh token.
                        self.token_refused(caller, &offer.server).await;
                        outcome = Err(e);
                        break;
                    }
                    outcome = Err(e);
                }
            }
        }
        record.latency_ms = elapsed_ms(started);
        let result = match outcome {
            Ok(r) => {
                record.outcome = if r.is_error == Some(true) {
                    "tool_error"
                } else {
                    "ok"
                }
                .into();
                record.upstream_status = Some("ok".into());
                let mut out = CallToolResult::success(r.content);
                out.is_error = r.is_error;
                out.structured_content = r.structured_content;
                inner.redactor.result(&mut out);
                out
            }
            Err(e) => {
                record.outcome = e.kind().into();
                record.upstream_status = Some(e.kind().into());
                text_result(&json!({"error": e.kind(), "message": e.message()}), true)
            }
        };
        self.audit(caller, &audit_server, &record).await;
        Ok(CallToolResponse::Complete(result))
    }

    /// Audits a malformed `execute_capability` (refused before anything else) and passes
    /// its error on.
    async fn malformed(
        &self,
        caller: &GatewayCaller,
        args: &serde_json::Map<String, Value>,
        e: ErrorData,
    ) -> ErrorData {
        let record = CallRecord {
            name: args
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .chars()
                .take(MAX_TEXT)
                .collect(),
            decision: "denied",
            outcome: "invalid_params".into(),
            ..Default::default()
        };
        self.audit(caller, "-", &record).await;
        e
    }

    async fn audit(&self, caller: &GatewayCaller, server: &str, record: &CallRecord) {
        if let Err(e) = self
            .gateway
            .inner
            .core
            .record_gateway_call(caller, server, record)
            .await
        {
            tracing::error!(error = %e, "gateway: the call's audit row was not written");
        }
    }
}

/// A failure of this process (storage): logged here, never described to the caller.
/// `execute_capability`'s parameters: the name, the arguments (an object) and the subjects.
fn parse_call(
    args: &serde_json::Map<String, Value>,
) -> Result<(String, Value, Vec<String>), ErrorData> {
    let Some(Value::String(name)) = args.get("name") else {
        return Err(ErrorData::invalid_params(
            "name must be a capability's exact name (a string).",
            None,
        ));
    };
    let arguments = match args.get("arguments") {
        None | Some(Value::Null) => Value::Object(serde_json::Map::new()),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(_) => {
            return Err(ErrorData::invalid_params(
                "arguments must be an object.",
                None,
            ));
        }
    };
    let subject_ids: Vec<String> = match args.get("subject_ids") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) if a.len() <= MAX_SUBJECT_IDS => a
            .iter()
            .map(|v| {
                v.as_str()
                    .filter(|s| !s.is_empty() && s.len() <= MAX_TEXT)
                    .map(str::to_owned)
            })
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    "subject_ids: non-empty strings of at most 200 characters.",
                    None,
                )
            })?,
        Some(_) => {
            return Err(ErrorData::invalid_params(
                format!("subject_ids: an array of at most {MAX_SUBJECT_IDS} strings."),
                None,
            ));
        }
    };
    Ok((name.clone(), arguments, subject_ids))
}

fn internal(e: authz::Error) -> ErrorData {
    tracing::error!(error = %e, "gateway: the request failed");
    ErrorData::internal_error("The gateway failed; try again.", None)
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

impl ServerHandler for Facade {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("portcullis-gateway", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Call search_capabilities to find what you may use (exact names, input schemas, side effects), then execute_capability with one exact name and arguments matching its input_schema.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![
            tool(
                "search_capabilities",
                "Lists the capabilities you may use: exact name (<server>.<tool>), description, input_schema, side_effect_class (read | write | external), cost_hint, requires_subject_id, risk and availability. Optionally narrowed by a query (matched against names and descriptions) or one server.",
                json!({
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "maxLength": MAX_TEXT, "description": "Words to look for in names and descriptions."},
                        "server": {"type": "string", "maxLength": MAX_TEXT, "description": "Only this server's capabilities."}
                    },
                    "additionalProperties": false
                }),
            ),
            tool(
                "execute_capability",
                "Runs one capability by the exact name search_capabilities returned, with arguments matching its input_schema. Capabilities that change things wait for a person's approval.",
                json!({
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "The exact capability name, <server>.<tool>."},
                        "arguments": {"type": "object", "description": "Arguments matching the capability's input_schema."},
                        "subject_ids": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_SUBJECT_IDS, "description": "The data subjects (people) the call concerns, passed on to the tool."},
                        "approval_id": {"type": "string", "maxLength": MAX_TEXT, "description": "For a capability that changes things: the approval_id a previous call returned, once a person approved it."}
                    },
                    "required": ["name"],
                    "additionalProperties": false
                }),
            ),
        ])
        // The same two tools for everyone, always: clients on 2026-07-28 may cache them.
        .with_ttl_ms(3_600_000)
        .with_cache_scope(CacheScope::Public))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let caller = caller(&context)?;
        let args = request.arguments.clone().unwrap_or_default();
        let result = match request.name.as_ref() {
            "search_capabilities" => CallToolResponse::Complete(self.search(&caller, &args).await?),
            "execute_capability" => {
                let round = match Round::of(&request, &args, &context) {
                    Ok(round) => round,
                    Err(e) => return Err(self.malformed(&caller, &args, e).await),
                };
                self.execute(&caller, &args, &round, &context).await?
            }
            other => {
                return Err(ErrorData::new(
                    ErrorCode(TOOL_NOT_FOUND),
                    "tool_not_found",
                    Some(
                        json!({"name": other.chars().take(200).collect::<String>(), "hint": "This server has two tools: search_capabilities and execute_capability."}),
                    ),
                ));
            }
        };
        Ok(result)
    }
}
