//! What a developer copies to protect their own MCP server with a realm: the RFC 9728
//! protected-resource metadata and where to serve it, the `401` and `403` challenges, a
//! registration command, token and call commands, client configurations and server snippets.
//! Pure functions of the realm's endpoints and the developer's input; the console only renders
//! them, and tests run what they produce.
use crate::resources::ResourceUri;

/// The MCP protocol revision the generated calls announce.
pub const MCP_PROTOCOL_VERSION: &str = "2025-11-25";
/// The official TypeScript SDK version the TypeScript snippet is written and tested against.
pub const TS_SDK_VERSION: &str = "1.32.2";
/// The `jose` version the TypeScript snippet verifies tokens with.
pub const JOSE_VERSION: &str = "6.2.18";
/// The `express` version the TypeScript snippet serves with.
pub const EXPRESS_VERSION: &str = "5.2.1";
/// The official Python SDK (`mcp` on PyPI) version the Python snippet is written against.
pub const PYTHON_SDK_VERSION: &str = "2.3.0";
/// The `uvicorn` version the Python snippet serves with.
pub const UVICORN_VERSION: &str = "0.54.0";
/// The `PyJWT` version the Python snippet verifies tokens with.
pub const PYJWT_VERSION: &str = "2.15.1";
/// The crates the Rust snippet is written and tested against: name, version, features.
///
/// The versions are the workspace's `Cargo.lock` ones. `portcullis-guard` and `rmcp` are pinned
/// exactly (the snippet uses their API); the others at least at the tested version.
pub const RUST_CRATES: &[(&str, &str, &[&str])] = &[
    ("portcullis-guard", "=0.1.0", &[]),
    (
        "rmcp",
        "=3.11.0",
        &["server", "macros", "transport-streamable-http-server"],
    ),
    ("axum", "0.8.9", &[]),
    ("tokio", "1.54.1", &["macros", "rt-multi-thread", "net"]),
    ("http", "1.5.0", &[]),
    ("serde_json", "1.0.154", &[]),
    ("tracing-subscriber", "0.3.23", &["env-filter"]),
];

/// The realm's MCP side at a glance (Integration → MCP authorization): what is protected, who
/// may call it, and the endpoints to configure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpOverview {
    /// Issuer, discovery documents, JWKS and the other endpoints.
    pub endpoints: Vec<crate::overview::Endpoint>,
    /// Agents holding `mcp` or an `mcp:*` role (for roles that may not see the realm's
    /// agents, only those they own; then `own_only` is set).
    pub mcp_agents: u64,
    /// The agents counted and listed are only the caller's own (a developer's view).
    pub own_only: bool,
    /// Of them, those that may act now.
    pub active: u64,
    /// Of them, those expiring within the window.
    pub expiring: u64,
    /// The window, in days.
    pub window_days: i64,
    /// Protected resources (MCP servers) an admin registered or enabled.
    pub resources: u64,
    /// Of them, those developers submitted, waiting for an admin.
    pub submitted: u64,
    /// Clients waiting for review (`None` for roles that do not review).
    pub pending_reviews: Option<u64>,
    /// How many agents the list shows in all (its pages).
    pub listed: u64,
    /// One page of the MCP-capable agents picked.
    pub agents: Vec<crate::agents::AgentSummary>,
}

/// The default window of "expiring soon" on the MCP authorization screen.
pub const DEFAULT_EXPIRY_WINDOW_DAYS: i64 = 14;

/// The realm as an MCP server sees it: its issuer and endpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationServer {
    /// The realm's display name.
    pub realm: String,
    /// `iss` of its tokens.
    pub issuer: String,
    /// RFC 8414 metadata URL.
    pub metadata_url: String,
    /// OpenID Connect discovery URL.
    pub openid_configuration_url: String,
    /// JWKS.
    pub jwks_uri: String,
    /// Token endpoint.
    pub token_endpoint: String,
    /// Authorization endpoint.
    pub authorization_endpoint: String,
    /// Dynamic client registration endpoint (RFC 7591), when registration is open in some way.
    pub registration_endpoint: Option<String>,
    /// Introspection endpoint (RFC 7662).
    pub introspection_endpoint: String,
    /// Revocation endpoint (RFC 7009).
    pub revocation_endpoint: String,
    /// Every scope the realm's resources accept.
    pub scopes_supported: Vec<String>,
    /// Whether clients identified by a metadata-document URL are accepted.
    pub metadata_documents: bool,
}

/// What the developer typed into the generator.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtectInput {
    /// The MCP server's URL (its endpoint, e.g. `https://mcp.example.com/mcp`).
    pub server_url: String,
    /// A name for people (`resource_name`).
    pub resource_name: String,
    /// Scopes, space-separated (empty: none required).
    pub scopes: String,
    /// Where the server's documentation lives (`resource_documentation`).
    pub documentation_url: String,
}

/// One copyable block.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Artifact {
    /// Stable id (`metadata`, `challenge`, …), for tests and anchors.
    pub id: &'static str,
    /// Heading.
    pub title: &'static str,
    /// One line on what it is and where it goes.
    pub explanation: String,
    /// The specification it follows: label and link.
    pub reference: (&'static str, &'static str),
    /// `json`, `http`, `shell`, `typescript`, `python`, `text`.
    pub language: &'static str,
    /// The text to copy.
    pub text: String,
}

/// Everything generated for one MCP server.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Protection {
    /// The server URL in canonical form: the `resource` and the tokens' `aud`.
    pub resource: String,
    /// The name typed (`resource_name`; may be empty).
    pub name: String,
    /// What canonicalisation changed, in words (empty when nothing did).
    pub changes: Vec<String>,
    /// The scopes the challenges offer.
    pub scopes: Vec<String>,
    /// Why some typed scopes are not offered.
    pub scope_notes: Vec<String>,
    /// Offered scopes no resource of the realm accepts yet (tokens carry them only once the
    /// server is registered with them).
    pub new_scopes: Vec<String>,
    /// The artifacts, in reading order.
    pub artifacts: Vec<Artifact>,
    /// The realm's resource with this URL, if one is registered (or submitted) already.
    pub registered: Option<RegisteredResource>,
    /// Set when the realm has self-registered clients wait for a security review (the
    /// zero-config path: MCP clients register themselves, then wait).
    pub client_review: Option<ClientReviewNote>,
}

/// Where self-registered clients of the realm wait for review, for the generator's page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ClientReviewNote {
    /// Clients waiting now.
    pub waiting: u64,
    /// Whether the viewer reviews them (else a reviewer has to).
    pub can_review: bool,
}

/// A resource of the realm that has the generator's server URL.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RegisteredResource {
    /// Its id (slug).
    pub slug: String,
    /// Its name.
    pub display_name: String,
    /// Whether tokens are issued for it.
    pub enabled: bool,
    /// The developer who submitted it, until an admin decides.
    pub submitted_by: Option<String>,
    /// Why an admin rejected the submission.
    pub rejection: Option<String>,
}

impl From<&crate::resources::Resource> for RegisteredResource {
    fn from(r: &crate::resources::Resource) -> Self {
        Self {
            slug: r.slug.clone(),
            display_name: r.display_name.clone(),
            enabled: r.enabled,
            submitted_by: r.submitted_by.clone(),
            rejection: r.rejection.clone(),
        }
    }
}

/// A field the input got wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// `server_url`, `scopes`, `documentation_url`, `resource_name`.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

fn input_error(field: &'static str, message: impl Into<String>) -> InputError {
    InputError {
        field,
        message: message.into(),
    }
}

/// The server URL in canonical form, with what changed in words.
///
/// # Errors
/// Why the URL cannot name a resource.
pub fn canonical_server_url(
    input: &str,
    allow_http_loopback: bool,
) -> Result<(ResourceUri, Vec<String>), String> {
    let typed = input.trim();
    if typed.is_empty() {
        return Err(
            "Enter the URL your MCP server answers at, like https://mcp.example.com/mcp.".into(),
        );
    }
    let uri = ResourceUri::parse(typed, allow_http_loopback)?;
    if url::Url::parse(uri.as_str()).is_ok_and(|u| {
        u.path()
            .split('/')
            .any(|seg| seg.starts_with(':') || seg.starts_with('*'))
    }) {
        return Err("A path segment starting with ':' or '*' reads as a route parameter in the generated servers (Express, axum); give that segment another name.".into());
    }
    let mut changes = Vec::new();
    if let Ok(raw) = url::Url::parse(typed) {
        let written_host = typed
            .split_once("://")
            .map(|(_, rest)| rest.split(['/', ':', '?', '#']).next().unwrap_or_default())
            .unwrap_or_default();
        if written_host != raw.host_str().unwrap_or_default() {
            changes.push(format!(
                "The host is written {} (hosts are case-insensitive).",
                raw.host_str().unwrap_or_default()
            ));
        }
        if typed
            .split_once("://")
            .is_some_and(|(s, _)| s != raw.scheme())
        {
            changes.push("The scheme is written in lower case.".into());
        }
        let default_port = match raw.scheme() {
            "https" => 443,
            _ => 80,
        };
        // The port as written: digits right after the host, up to the path.
        let written_port = typed
            .split_once("://")
            .and_then(|(_, rest)| rest.split(['/', '?', '#']).next())
            .and_then(|authority| authority.rsplit_once(':'))
            .filter(|(host, _)| !host.ends_with('[') && !host.is_empty())
            .and_then(|(_, port)| port.parse::<u16>().ok());
        if written_port == Some(default_port) {
            changes.push(format!("The default port :{default_port} is left out."));
        }
        let path = raw.path();
        if path != "/" && path.ends_with('/') {
            changes.push(
                "The trailing slash is dropped: clients that send the URL with or without it name the same resource.".into(),
            );
        }
        if path == "/" && !typed.ends_with('/') {
            changes.push("A bare origin is written with a trailing slash.".into());
        }
    }
    Ok((uri, changes))
}

/// Where the metadata must be served: the path-inserted URL first (RFC 9728 §3.1, what MCP
/// clients try first), then the root one (what clients fall back to).
pub fn metadata_urls(resource: &ResourceUri) -> Vec<String> {
    let s = resource.as_str();
    let (origin, path) = match s
        .find("://")
        .and_then(|i| s[i + 3..].find('/').map(|j| i + 3 + j))
    {
        Some(at) => (&s[..at], &s[at..]),
        None => (s, "/"),
    };
    let root = format!("{origin}/.well-known/oauth-protected-resource");
    if path == "/" {
        vec![root]
    } else {
        vec![format!("{root}{path}"), root]
    }
}

/// Generates every artifact for `input` against `server`.
///
/// # Errors
/// An [`InputError`] naming the field.
pub fn protect(
    server: &AuthorizationServer,
    input: &ProtectInput,
    allow_http_loopback: bool,
) -> Result<Protection, InputError> {
    let (resource, changes) = canonical_server_url(&input.server_url, allow_http_loopback)
        .map_err(|m| input_error("server_url", m))?;
    let name = input.resource_name.trim();
    if !name.is_empty() {
        // The rules of every name people see (no invisible or direction characters).
        crate::realms::parse_display_name(name, "The name")
            .map_err(|m| input_error("resource_name", m))?;
    }
    let docs = input.documentation_url.trim();
    if !docs.is_empty()
        && !url::Url::parse(docs).is_ok_and(|u| u.scheme() == "https" && u.host().is_some())
    {
        return Err(input_error(
            "documentation_url",
            "The documentation URL must be an absolute https URL.",
        ));
    }
    let OfferedScopes {
        offered: scopes,
        notes: scope_notes,
        new: new_scopes,
    } = offered_scopes(&input.scopes, &server.scopes_supported)?;
    let urls = metadata_urls(&resource);
    let r = resource.as_str();
    let shown_name = if name.is_empty() {
        "My MCP server"
    } else {
        name
    };
    let slug = config_name(shown_name);
    let snippet = Snippet {
        server,
        resource: r,
        scopes: &scopes,
        name: shown_name,
        challenge: challenge(&urls[0], &scopes, None),
    };
    let mut artifacts = vec![
        Artifact {
            id: "metadata",
            title: "Protected Resource Metadata",
            explanation: if urls.len() > 1 {
                format!(
                    "Serve this JSON at {} (and, for older clients, at {}). It names the resource and this realm as its authorization server.",
                    urls[0], urls[1]
                )
            } else {
                format!(
                    "Serve this JSON at {}. It names the resource and this realm as its authorization server.",
                    urls[0]
                )
            },
            reference: ("RFC 9728 §2", "https://www.rfc-editor.org/rfc/rfc9728#section-2"),
            language: "json",
            text: metadata_json(server, r, &scopes, name, docs),
        },
        Artifact {
            id: "metadata-urls",
            title: "Where the metadata is served",
            explanation: if urls.len() > 1 {
                "The path-inserted URL is what MCP clients ask first; the root URL is their fallback. Answer both with the same document.".into()
            } else {
                "A server at the root of its origin has one well-known URL.".into()
            },
            reference: ("RFC 9728 §3.1", "https://www.rfc-editor.org/rfc/rfc9728#section-3.1"),
            language: "text",
            text: urls.join("\n"),
        },
        Artifact {
            id: "challenge",
            title: "401 for a request without a valid token",
            explanation: "Answer every request without a valid bearer token like this; clients discover everything else from the header.".into(),
            reference: ("RFC 9728 §5.1", "https://www.rfc-editor.org/rfc/rfc9728#section-5.1"),
            language: "http",
            text: format!(
                "HTTP/1.1 401 Unauthorized\nWWW-Authenticate: {}",
                challenge(&urls[0], &scopes, None)
            ),
        },
        Artifact {
            id: "step-up",
            title: "403 when the token lacks a scope",
            explanation: "When a valid token lacks the scope a tool needs, ask for it; the client gets a new token with it (step-up).".into(),
            reference: ("RFC 6750 §3.1", "https://www.rfc-editor.org/rfc/rfc6750#section-3.1"),
            language: "http",
            text: format!(
                "HTTP/1.1 403 Forbidden\nWWW-Authenticate: {}",
                challenge(
                    &urls[0],
                    &scopes,
                    Some("The token lacks a scope this request needs.")
                )
            ),
        },
    ];
    if let Some(endpoint) = &server.registration_endpoint {
        artifacts.push(Artifact {
            id: "register",
            title: "Register a client (Dynamic Client Registration)",
            explanation: "What an MCP client sends when it registers itself; run it to register one by hand (a desktop or CLI app on a loopback callback).".into(),
            reference: ("RFC 7591 §3.1", "https://www.rfc-editor.org/rfc/rfc7591#section-3.1"),
            language: "shell",
            text: register_command(endpoint, &format!("{shown_name} client"), &scopes),
        });
    }
    if server.metadata_documents {
        artifacts.push(Artifact {
            id: "metadata-document",
            title: "Client ID Metadata Document",
            explanation: "Instead of registering, a client can use an https URL as its client_id and publish this document there.".into(),
            reference: (
                "OAuth Client ID Metadata Document",
                "https://datatracker.ietf.org/doc/draft-ietf-oauth-client-id-metadata-document/",
            ),
            language: "json",
            text: metadata_document_example(&format!("{shown_name} client")),
        });
    }
    artifacts.extend([
        Artifact {
            id: "token",
            title: "Get a token for this server (client credentials)",
            explanation: "A machine client with access to the resource gets a token whose aud is this server and nothing else.".into(),
            reference: ("RFC 8707 §2", "https://www.rfc-editor.org/rfc/rfc8707#section-2"),
            language: "shell",
            text: token_command(&server.token_endpoint, r, &scopes),
        },
        Artifact {
            id: "call",
            title: "Call the server with it",
            explanation: "An MCP initialize request with the token; without the header the server answers with the 401 above.".into(),
            reference: ("RFC 6750 §2.1", "https://www.rfc-editor.org/rfc/rfc6750#section-2.1"),
            language: "shell",
            text: call_command(r),
        },
        Artifact {
            id: "typescript",
            title: "TypeScript server (official MCP SDK)",
            explanation: format!(
                "A complete server: it serves the metadata, answers the 401, and verifies each token's signature (the realm's JWKS), typ, iss, exp and aud. npm install @modelcontextprotocol/sdk@{TS_SDK_VERSION} jose@{JOSE_VERSION} express@{EXPRESS_VERSION}; run with node server.mjs."
            ),
            reference: ("MCP authorization", "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization"),
            language: "typescript",
            text: typescript_server(&snippet),
        },
        Artifact {
            id: "rust-dependencies",
            title: "Rust server: Cargo.toml dependencies",
            explanation: "The crates of the Rust server below, at the versions it is tested with (Rust 1.88 or later; AWS-LC needs a C compiler). portcullis-guard comes from a checkout of Portcullis until it is published.".into(),
            reference: ("The Cargo Book: dependencies", "https://doc.rust-lang.org/cargo/reference/specifying-dependencies.html"),
            language: "toml",
            text: rust_dependencies(),
        },
        Artifact {
            id: "rust",
            title: "Rust server (official MCP SDK, rmcp)",
            explanation: "A complete server on axum: portcullis-guard verifies each token's signature (the realm's JWKS, cached), typ, iss, exp, aud and scopes, serves the metadata and answers the 401 and 403; the tool reads the verified caller. cargo run, with the dependencies above.".into(),
            reference: ("MCP authorization", "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization"),
            language: "rust",
            text: rust_server(&snippet),
        },
        Artifact {
            id: "python",
            title: "Python server (official MCP SDK)",
            explanation: format!(
                "The same in Python: pip install mcp=={PYTHON_SDK_VERSION} PyJWT[crypto]=={PYJWT_VERSION} uvicorn=={UVICORN_VERSION}; run with python server.py."
            ),
            reference: ("MCP authorization", "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization"),
            language: "python",
            text: python_server(&snippet),
        },
        Artifact {
            id: "vscode",
            title: "VS Code (.vscode/mcp.json)",
            explanation: "VS Code discovers this realm from the 401 and signs the user in.".into(),
            reference: ("VS Code MCP servers", "https://code.visualstudio.com/docs/copilot/customization/mcp-servers"),
            language: "json",
            text: vscode_config(&slug, r),
        },
        Artifact {
            id: "claude-code",
            title: "Claude Code",
            explanation: "Adds the server; Claude Code signs in with this realm on first use (/mcp).".into(),
            reference: ("Claude Code MCP", "https://docs.anthropic.com/en/docs/claude-code/mcp"),
            language: "shell",
            text: format!("claude mcp add --transport http {slug} {}", shell_quote(r)),
        },
        Artifact {
            id: "inspector",
            title: "MCP Inspector",
            explanation: "Start the Inspector (npx @modelcontextprotocol/inspector) and open this URL, keeping the MCP_PROXY_AUTH_TOKEN parameter of the link it prints; its OAuth flow runs against this realm.".into(),
            reference: ("MCP Inspector", "https://modelcontextprotocol.io/docs/tools/inspector"),
            language: "text",
            text: format!(
                "http://localhost:6274/?transport=streamable-http&serverUrl={}",
                url_encode(r)
            ),
        },
    ]);
    Ok(Protection {
        resource: r.to_owned(),
        name: name.to_owned(),
        changes,
        scopes,
        scope_notes,
        new_scopes,
        artifacts,
        registered: None,
        client_review: None,
    })
}

/// What the typed scopes become.
struct OfferedScopes {
    /// What the challenges offer: the typed scopes without `offline_access`.
    offered: Vec<String>,
    /// Why a typed scope is left out.
    notes: Vec<String>,
    /// Offered scopes no resource of the realm accepts yet.
    new: Vec<String>,
}

/// The scopes the challenges offer: what the developer typed, without `offline_access`
/// (which the authorization server's metadata lists, never a resource's), and which of them no
/// resource of the realm accepts yet.
fn offered_scopes(typed: &str, realm: &[String]) -> Result<OfferedScopes, InputError> {
    let set = crate::scope::ScopeSet::parse(typed).map_err(|m| input_error("scopes", m))?;
    let mut out = OfferedScopes {
        offered: Vec::new(),
        notes: Vec::new(),
        new: Vec::new(),
    };
    for s in set.iter() {
        if s == "offline_access" {
            out.notes.push("offline_access is left out: it is a request for refresh tokens, listed in the authorization server's metadata, never a resource's scope.".to_owned());
            continue;
        }
        if !realm.iter().any(|r| r == s) {
            out.new.push(s.to_owned());
        }
        out.offered.push(s.to_owned());
    }
    Ok(out)
}

fn challenge(metadata_url: &str, scopes: &[String], insufficient: Option<&str>) -> String {
    let mut parts = Vec::new();
    if let Some(description) = insufficient {
        parts.push("error=\"insufficient_scope\"".to_owned());
        parts.push(format!("error_description=\"{description}\""));
    }
    parts.push(format!("resource_metadata=\"{metadata_url}\""));
    if !scopes.is_empty() {
        parts.push(format!("scope=\"{}\"", scopes.join(" ")));
    }
    format!("Bearer {}", parts.join(", "))
}

fn metadata_json(
    server: &AuthorizationServer,
    resource: &str,
    scopes: &[String],
    name: &str,
    docs: &str,
) -> String {
    let mut m = serde_json::Map::new();
    m.insert("resource".into(), resource.into());
    m.insert(
        "authorization_servers".into(),
        serde_json::json!([server.issuer]),
    );
    if !scopes.is_empty() {
        m.insert("scopes_supported".into(), serde_json::json!(scopes));
    }
    m.insert(
        "bearer_methods_supported".into(),
        serde_json::json!(["header"]),
    );
    if !name.is_empty() {
        m.insert("resource_name".into(), name.into());
    }
    if !docs.is_empty() {
        m.insert("resource_documentation".into(), docs.into());
    }
    pretty(&serde_json::Value::Object(m))
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// `'…'` for a POSIX shell: safe for any text.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn url_encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// A short name for client configurations (and resource ids): lower-case letters, digits and
/// `-`, at most 40 characters.
pub(crate) fn config_name(name: &str) -> String {
    short_name(name, 40)
}

/// `name` as lower-case letters, digits and `-`, at most `max` characters, cut between words
/// when it is longer (and no shorter than half of `max`); `mcp-server` when nothing is left.
pub(crate) fn short_name(name: &str, max: usize) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    let out = if out.len() > max {
        let cut = out[..=max]
            .rfind('-')
            .filter(|i| *i >= max / 2)
            .unwrap_or(max);
        out[..cut].trim_end_matches('-')
    } else {
        out
    };
    if out.is_empty() {
        "mcp-server".into()
    } else {
        out.to_owned()
    }
}

fn register_command(endpoint: &str, name: &str, scopes: &[String]) -> String {
    let mut body = serde_json::json!({
        "client_name": name,
        "application_type": "native",
        "redirect_uris": ["http://127.0.0.1:33418/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    });
    if !scopes.is_empty() {
        body["scope"] = scopes.join(" ").into();
    }
    format!(
        "curl -sS -X POST {} \\\n  -H 'Content-Type: application/json' \\\n  -d {}",
        shell_quote(endpoint),
        shell_quote(&pretty(&body))
    )
}

fn metadata_document_example(name: &str) -> String {
    pretty(&serde_json::json!({
        "client_id": "https://app.example.com/oauth/client.json",
        "client_name": name,
        "client_uri": "https://app.example.com",
        "redirect_uris": ["http://127.0.0.1:33418/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }))
}

fn token_command(endpoint: &str, resource: &str, scopes: &[String]) -> String {
    let mut out = format!(
        "curl -sS {} \\\n  -u \"$CLIENT_ID:$CLIENT_SECRET\" \\\n  -d grant_type=client_credentials \\\n  --data-urlencode resource={}",
        shell_quote(endpoint),
        shell_quote(resource)
    );
    if !scopes.is_empty() {
        out.push_str(&format!(
            " \\\n  --data-urlencode scope={}",
            shell_quote(&scopes.join(" "))
        ));
    }
    out
}

fn call_command(resource: &str) -> String {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": MCP_PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "curl", "version": "1.0.0"},
        },
    });
    format!(
        "curl -sS -X POST {} \\\n  -H \"Authorization: Bearer $TOKEN\" \\\n  -H 'Content-Type: application/json' \\\n  -H 'Accept: application/json, text/event-stream' \\\n  -H 'MCP-Protocol-Version: {MCP_PROTOCOL_VERSION}' \\\n  -d {}",
        shell_quote(resource),
        shell_quote(&body.to_string())
    )
}

fn vscode_config(slug: &str, resource: &str) -> String {
    pretty(&serde_json::json!({
        "servers": { slug: { "type": "http", "url": resource } }
    }))
}

/// A JSON string literal (valid in TypeScript and Python alike).
fn lit(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

fn lit_list(items: &[String]) -> String {
    serde_json::Value::from(items.to_vec()).to_string()
}

/// What a server snippet is generated from.
struct Snippet<'a> {
    server: &'a AuthorizationServer,
    resource: &'a str,
    scopes: &'a [String],
    name: &'a str,
    /// The exact `WWW-Authenticate` value for a request without a token.
    challenge: String,
}

fn typescript_server(s: &Snippet<'_>) -> String {
    let Snippet {
        server,
        resource,
        scopes,
        name,
        challenge,
    } = s;
    let port = listen_port(resource);
    format!(
        r#"// server.mjs: an MCP server protected by {realm} (Portcullis).
import express from 'express';
import {{ McpServer }} from '@modelcontextprotocol/sdk/server/mcp.js';
import {{ StreamableHTTPServerTransport }} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {{ mcpAuthMetadataRouter, getOAuthProtectedResourceMetadataUrl }} from '@modelcontextprotocol/sdk/server/auth/router.js';
import {{ requireBearerAuth }} from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {{ InvalidTokenError }} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import {{ createRemoteJWKSet, jwtVerify }} from 'jose';

const ISSUER = {issuer};
const RESOURCE = new URL({resource});
const SCOPES = {scopes};
const CHALLENGE = {challenge};
const PORT = Number(process.env.PORT ?? {port});

const oauthMetadata = await (await fetch({metadata_url})).json();
const jwks = createRemoteJWKSet(new URL(oauthMetadata.jwks_uri));

const app = express();
app.use(express.json());
// RFC 9728 metadata at /.well-known/oauth-protected-resource{{path}}.
app.use(mcpAuthMetadataRouter({{ oauthMetadata, resourceServerUrl: RESOURCE, scopesSupported: SCOPES, resourceName: {name} }}));

const verifier = {{
  async verifyAccessToken(token) {{
    try {{
      // Signature (the realm's keys), typ, iss, exp and aud: a token for another server fails here.
      const {{ payload }} = await jwtVerify(token, jwks, {{ issuer: ISSUER, audience: RESOURCE.href, typ: 'at+jwt' }});
      return {{
        token,
        clientId: String(payload.client_id),
        scopes: String(payload.scope ?? '').split(' ').filter(Boolean),
        expiresAt: payload.exp,
        resource: RESOURCE,
        extra: {{ sub: payload.sub, agent: payload.agent }},
      }};
    }} catch (e) {{
      throw new InvalidTokenError(`Token rejected: ${{e.message}}`);
    }}
  }},
}};
// A request without a token: the challenge clients discover everything from (RFC 9728 §5.1;
// no error code, RFC 6750 §3.1). A bad token: 401 with invalid_token; too few scopes: 403.
const challenge = (req, res, next) =>
  req.headers.authorization ? next() : res.set('WWW-Authenticate', CHALLENGE).status(401).end();
const auth = requireBearerAuth({{ verifier, requiredScopes: SCOPES, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(RESOURCE) }});

app.post(RESOURCE.pathname, challenge, auth, async (req, res) => {{
  const server = new McpServer({{ name: {name}, version: '1.0.0' }});
  server.registerTool('whoami', {{ description: 'Who the token is for' }}, async (extra) => ({{
    content: [{{ type: 'text', text: JSON.stringify({{ client_id: extra.authInfo?.clientId, scopes: extra.authInfo?.scopes, ...extra.authInfo?.extra }}) }}],
  }}));
  const transport = new StreamableHTTPServerTransport({{ sessionIdGenerator: undefined }});
  res.on('close', () => {{ transport.close(); server.close(); }});
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}});

app.listen(PORT, () => console.log(`MCP server for ${{RESOURCE.href}} on port ${{PORT}}`));
"#,
        realm = comment_text(&server.realm),
        issuer = lit(&server.issuer),
        resource = lit(resource),
        scopes = lit_list(scopes),
        challenge = lit(challenge),
        metadata_url = lit(&server.metadata_url),
        name = lit(name),
    )
}

fn rust_dependencies() -> String {
    let mut out = String::from("[dependencies]\n");
    for (name, version, features) in RUST_CRATES {
        if *name == "portcullis-guard" {
            out.push_str(&format!(
                "# portcullis-guard ships in Portcullis's repository (guard/): point the path at your\n# checkout. Once it is on crates.io: {name} = \"{version}\"\n{name} = {{ path = \"../portcullis/guard\" }}\n"
            ));
        } else if features.is_empty() {
            out.push_str(&format!("{name} = \"{version}\"\n"));
        } else {
            out.push_str(&format!(
                "{name} = {{ version = \"{version}\", features = [{}] }}\n",
                features
                    .iter()
                    .map(|f| format!("\"{f}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    out
}

fn rust_server(s: &Snippet<'_>) -> String {
    let Snippet {
        server,
        resource,
        scopes,
        name,
        ..
    } = s;
    let port = listen_port(resource);
    let loopback = url::Url::parse(resource)
        .ok()
        .and_then(|u| u.host_str().map(crate::resources::is_loopback))
        .unwrap_or(false);
    let host = if loopback { "127.0.0.1" } else { "0.0.0.0" };
    let scopes = scopes
        .iter()
        .map(|s| format!("{s:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        r#"// src/main.rs: an MCP server protected by {realm} (Portcullis), with the official Rust SDK.
use portcullis_guard::{{Caller, Guard}};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::Extension;
use rmcp::model::{{Implementation, ServerCapabilities, ServerConfig}};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{{StreamableHttpServerConfig, StreamableHttpService}};
use rmcp::{{ServerHandler, tool, tool_handler, tool_router}};

const ISSUER: &str = {issuer:?};
const RESOURCE: &str = {resource:?};
const SCOPES: &[&str] = &[{scopes}];
const NAME: &str = {name:?};

#[derive(Clone)]
struct Server {{
    tool_router: ToolRouter<Self>,
}}

#[tool_router]
impl Server {{
    fn new() -> Self {{
        Self {{
            tool_router: Self::tool_router(),
        }}
    }}

    #[tool(description = "Who the token is for")]
    async fn whoami(&self, Extension(parts): Extension<http::request::Parts>) -> String {{
        // The guard let the request in and left the verified caller in its extensions.
        let Some(caller) = Caller::from_extensions(&parts.extensions) else {{
            return "nobody".to_owned();
        }};
        serde_json::json!({{
            "sub": caller.subject(),
            "client_id": caller.client_id(),
            "scopes": caller.scopes().collect::<Vec<_>>(),
            "agent": caller.agent(),
        }})
        .to_string()
    }}
}}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {{
    fn get_info(&self) -> ServerConfig {{
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(NAME, "1.0.0"))
    }}
}}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {{
    // The guard logs why the realm cannot be reached (RUST_LOG=debug: why a token is refused).
    tracing_subscriber::fmt::init();
    // Verifies each token's signature (the realm's JWKS, cached), typ, iss, exp, aud (this
    // server and no other) and scopes; serves the RFC 9728 metadata; answers 401 and 403.
    let guard = Guard::builder(ISSUER, RESOURCE)?
        .required_scopes(SCOPES.iter().copied())
        .resource_name(NAME)
        .build()?;
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
        .unwrap_or({port});
    let listener = tokio::net::TcpListener::bind(({host:?}, port)).await?;
    println!("MCP server for {{RESOURCE}} on port {{port}}");
    axum::serve(listener, app).await?;
    Ok(())
}}
"#,
        realm = comment_text(&server.realm),
        issuer = server.issuer,
    )
}

/// Text safe inside a one-line comment of any of the snippet languages: no line breaks (nor
/// JavaScript's U+2028/U+2029) or other control characters.
fn comment_text(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

fn python_server(s: &Snippet<'_>) -> String {
    let Snippet {
        server,
        resource,
        scopes,
        name,
        challenge,
    } = s;
    let port = listen_port(resource);
    format!(
        r#"# server.py: an MCP server protected by {realm} (Portcullis).
import os
from urllib.parse import urlsplit

import jwt
import uvicorn
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

ISSUER = {issuer}
RESOURCE = {resource}
SCOPES = {scopes}
CHALLENGE = {challenge}
PATH = urlsplit(RESOURCE).path
JWKS = jwt.PyJWKClient({jwks_uri}, cache_keys=True)


class RealmTokenVerifier(TokenVerifier):
    """Checks signature (the realm's keys), typ, iss, exp and aud: a token for another server fails."""

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            if jwt.get_unverified_header(token).get("typ") != "at+jwt":
                return None
            key = JWKS.get_signing_key_from_jwt(token).key
            claims = jwt.decode(
                token,
                key,
                algorithms=["ES256", "RS256", "EdDSA"],
                audience=RESOURCE,
                issuer=ISSUER,
                options={{"require": ["exp", "iss", "aud"]}},
            )
        except jwt.PyJWTError:
            return None
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id")),
            scopes=str(claims.get("scope", "")).split(),
            expires_at=claims.get("exp"),
            resource=RESOURCE,
            subject=claims.get("sub"),
            claims=claims,
        )


mcp = MCPServer(
    {name},
    token_verifier=RealmTokenVerifier(),
    # Serves the RFC 9728 metadata and answers 401 with WWW-Authenticate: Bearer resource_metadata="…".
    auth=AuthSettings(
        issuer_url=ISSUER,
        resource_server_url=RESOURCE,
        required_scopes=SCOPES,
        validate_token_resource=True,
    ),
)


@mcp.tool()
def whoami() -> str:
    """Who the token is for."""
    t = get_access_token()
    return f"client {{t.client_id}} with scopes {{' '.join(t.scopes)}}" if t else "nobody"


class Challenge:
    """A request without a token gets the challenge clients discover everything from (RFC 9728
    section 5.1; no error code, RFC 6750 section 3.1). A bad token: 401 with invalid_token."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if (scope["type"] == "http" and scope["path"] == PATH
                and b"authorization" not in dict(scope["headers"])):
            await send({{"type": "http.response.start", "status": 401,
                        "headers": [(b"www-authenticate", CHALLENGE.encode())]}})
            await send({{"type": "http.response.body", "body": b""}})
            return
        await self.app(scope, receive, send)


if __name__ == "__main__":
    app = mcp.streamable_http_app(streamable_http_path=PATH)
    print(f"MCP server for {{RESOURCE}}", flush=True)
    uvicorn.run(Challenge(app), host="127.0.0.1", port=int(os.environ.get("PORT", {port})))
"#,
        realm = comment_text(&server.realm),
        issuer = lit(&server.issuer),
        resource = lit(resource),
        scopes = lit_list(scopes),
        jwks_uri = lit(&server.jwks_uri),
        challenge = lit(challenge),
        name = lit(name),
    )
}

/// The port the snippet listens on by default: the one the server's URL names, else 8080
/// (behind the proxy that terminates TLS for the public URL).
fn listen_port(resource: &str) -> u16 {
    url::Url::parse(resource)
        .ok()
        .and_then(|u| u.port())
        .unwrap_or(8080)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn realm() -> AuthorizationServer {
        let issuer = "https://auth.example.com/realms/acme".to_owned();
        AuthorizationServer {
            realm: "Acme".into(),
            metadata_url:
                "https://auth.example.com/.well-known/oauth-authorization-server/realms/acme".into(),
            openid_configuration_url: format!("{issuer}/.well-known/openid-configuration"),
            jwks_uri: format!("{issuer}/jwks"),
            token_endpoint: format!("{issuer}/token"),
            authorization_endpoint: format!("{issuer}/authorize"),
            registration_endpoint: Some(format!("{issuer}/connect/register")),
            introspection_endpoint: format!("{issuer}/introspect"),
            revocation_endpoint: format!("{issuer}/revoke"),
            scopes_supported: vec!["tools:call".into(), "tools:read".into()],
            metadata_documents: true,
            issuer,
        }
    }

    fn input(url: &str, scopes: &str) -> ProtectInput {
        ProtectInput {
            server_url: url.into(),
            resource_name: "Payments MCP".into(),
            scopes: scopes.into(),
            documentation_url: "https://docs.example.com/payments-mcp".into(),
        }
    }

    #[test]
    fn the_server_url_is_canonical_and_every_change_is_explained() {
        let (uri, changes) =
            canonical_server_url(" HTTPS://MCP.Example.com:443/mcp/ ", false).expect("valid");
        assert_eq!(uri.as_str(), "https://mcp.example.com/mcp");
        assert_eq!(changes.len(), 4, "{changes:?}");
        assert!(changes[0].contains("mcp.example.com"));
        let (uri, changes) = canonical_server_url("https://mcp.example.com", false).expect("valid");
        assert_eq!(uri.as_str(), "https://mcp.example.com/");
        assert_eq!(changes, ["A bare origin is written with a trailing slash."]);
        let (_, changes) =
            canonical_server_url("https://mcp.example.com/mcp", false).expect("valid");
        assert!(changes.is_empty(), "{changes:?}");
        // Only a default port is left out, and only then said to be.
        for kept in [
            "http://localhost:8080/mcp",
            "http://127.0.0.1:8000/mcp",
            "https://mcp.example.com:4430/mcp",
            "http://[::1]:80443/mcp",
        ] {
            if let Ok((_, changes)) = canonical_server_url(kept, true) {
                assert!(changes.is_empty(), "{kept}: {changes:?}");
            }
        }
        let (uri, changes) = canonical_server_url("http://localhost:80/mcp", true).expect("valid");
        assert_eq!(uri.as_str(), "http://localhost/mcp");
        assert_eq!(changes, ["The default port :80 is left out."]);
        // Route-parameter look-alikes cannot be served by the generated servers.
        let e = canonical_server_url("https://mcp.example.com/:tenant/mcp", false)
            .expect_err("refused");
        assert!(e.contains("route parameter"), "{e}");
        for (bad, why) in [
            ("", "Enter the URL"),
            ("mcp.example.com/mcp", "not an absolute URI"),
            ("http://mcp.example.com/mcp", "https"),
            ("https://mcp.example.com/mcp?x=1", "query"),
            ("https://u:p@mcp.example.com/mcp", "user info"),
        ] {
            let e = canonical_server_url(bad, false).expect_err(bad);
            assert!(e.contains(why), "{bad}: {e}");
        }
        assert!(
            canonical_server_url("http://127.0.0.1:8931/mcp", true).is_ok(),
            "dev loopback"
        );
    }

    #[test]
    fn metadata_is_served_path_inserted_then_at_the_root() {
        let uri = |s| ResourceUri::parse(s, true).expect("valid");
        assert_eq!(
            metadata_urls(&uri("https://mcp.example.com/tenants/a/mcp")),
            [
                "https://mcp.example.com/.well-known/oauth-protected-resource/tenants/a/mcp",
                "https://mcp.example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            metadata_urls(&uri("http://127.0.0.1:8931/")),
            ["http://127.0.0.1:8931/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn challenges_offer_least_privilege_and_never_offline_access() {
        let p = protect(
            &realm(),
            &input(
                "https://mcp.example.com/mcp",
                "tools:call offline_access files:write",
            ),
            false,
        )
        .expect("generated");
        assert_eq!(p.scopes, ["files:write", "tools:call"]);
        assert_eq!(p.scope_notes.len(), 1, "{:?}", p.scope_notes);
        assert!(p.scope_notes[0].starts_with("offline_access is left out"));
        assert_eq!(p.new_scopes, ["files:write"]);
        for a in &p.artifacts {
            if matches!(a.id, "challenge" | "step-up" | "metadata") {
                assert!(!a.text.contains("offline_access"), "{}: {}", a.id, a.text);
            }
        }
        let challenge = &p
            .artifacts
            .iter()
            .find(|a| a.id == "challenge")
            .expect("401")
            .text;
        assert_eq!(
            challenge,
            "HTTP/1.1 401 Unauthorized\nWWW-Authenticate: Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"files:write tools:call\""
        );
        // No scopes typed: the challenge names none.
        let p =
            protect(&realm(), &input("https://mcp.example.com/mcp", ""), false).expect("generated");
        assert!(!p.artifacts.iter().any(|a| a.text.contains("scope=\"")));
    }

    #[test]
    fn bad_input_is_refused_on_its_field() {
        let field = |i: ProtectInput| protect(&realm(), &i, false).expect_err("refused").field;
        assert_eq!(field(input("ftp://x/y", "")), "server_url");
        assert_eq!(field(input("https://x.example.com/mcp", "a\"b")), "scopes");
        let mut i = input("https://x.example.com/mcp", "");
        i.documentation_url = "javascript:alert(1)".into();
        assert_eq!(field(i), "documentation_url");
        let mut i = input("https://x.example.com/mcp", "");
        i.resource_name = "x".repeat(101);
        assert_eq!(field(i), "resource_name");
    }

    #[test]
    fn registration_and_document_blocks_follow_the_realm() {
        let mut server = realm();
        server.registration_endpoint = None;
        server.metadata_documents = false;
        let p = protect(
            &server,
            &input("https://mcp.example.com/mcp", "tools:call"),
            false,
        )
        .expect("generated");
        let ids: Vec<_> = p.artifacts.iter().map(|a| a.id).collect();
        assert!(
            !ids.contains(&"register") && !ids.contains(&"metadata-document"),
            "{ids:?}"
        );
    }

    #[test]
    fn hostile_input_stays_data_in_every_language() {
        let mut i = input("https://mcp.example.com/mcp", "tools:call");
        i.resource_name = "Pay'\"`${process.exit()}\\ mcp".into();
        let p = protect(&realm(), &i, false).expect("generated");
        let text = |id| {
            p.artifacts
                .iter()
                .find(|a| a.id == id)
                .expect(id)
                .text
                .clone()
        };
        // JSON string literals in code, single-quoted words in shell.
        assert!(text("typescript").contains(r#"resourceName: "Pay'\"`${process.exit()}\\ mcp""#));
        assert!(text("python").contains(r#"    "Pay'\"`${process.exit()}\\ mcp","#));
        assert!(
            text("claude-code")
                .starts_with("claude mcp add --transport http pay-process-exit-mcp ")
        );
        let register = text("register");
        assert!(
            register.contains(r#""client_name": "Pay'\''\"`${process.exit()}\\ mcp client""#),
            "{register}"
        );
    }

    /// The browser tests run `guard/examples/mcp_server.rs` as the generated Rust server against
    /// their Portcullis (port 3100): it must be exactly what the console generates for it.
    /// `PORTCULLIS_UPDATE_EXAMPLE=1 cargo test -p authz rust_snippet` rewrites it.
    #[test]
    fn the_rust_snippet_is_the_guards_example() {
        let issuer = "http://127.0.0.1:3100/realms/default".to_owned();
        let server = AuthorizationServer {
            realm: "Default".into(),
            metadata_url:
                "http://127.0.0.1:3100/.well-known/oauth-authorization-server/realms/default".into(),
            jwks_uri: format!("{issuer}/jwks"),
            issuer,
            ..realm()
        };
        let p = protect(
            &server,
            &ProtectInput {
                server_url: "http://127.0.0.1:18961/mcp".into(),
                resource_name: "Snippet test server".into(),
                scopes: "tools:call".into(),
                documentation_url: String::new(),
            },
            true,
        )
        .expect("generated");
        let rust = &p
            .artifacts
            .iter()
            .find(|a| a.id == "rust")
            .expect("rust")
            .text;
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../guard/examples/mcp_server.rs"
        );
        if std::env::var_os("PORTCULLIS_UPDATE_EXAMPLE").is_some() {
            std::fs::write(path, rust).expect("write the example");
        }
        let example = std::fs::read_to_string(path).expect("the example");
        assert!(
            *rust == example,
            "guard/examples/mcp_server.rs is not what the generator writes; run PORTCULLIS_UPDATE_EXAMPLE=1 cargo test -p authz rust_snippet"
        );
    }

    #[test]
    fn the_rust_snippet_names_the_locked_versions() {
        let lock = include_str!("../../../Cargo.lock");
        let guard = include_str!("../../../guard/Cargo.toml");
        for (name, version, _) in RUST_CRATES {
            let version = version.trim_start_matches('=');
            if *name == "portcullis-guard" {
                assert!(
                    guard.contains(&format!("\nversion = \"{version}\"\n")),
                    "{name}"
                );
            } else {
                assert!(
                    lock.contains(&format!("name = \"{name}\"\nversion = \"{version}\"\n")),
                    "{name} {version} is not the locked version"
                );
            }
        }
    }

    #[test]
    fn names_cannot_break_out_of_comments_or_literals() {
        let mut server = realm();
        server.realm = "Acme\n}; process.exit(1); //\u{2028}x".into();
        let mut i = input("https://mcp.example.com/mcp", "tools:call");
        i.resource_name = "Pay\"); std::process::exit(1); (\"".into();
        let p = protect(&server, &i, false).expect("generated");
        for id in ["typescript", "python", "rust"] {
            let text = &p.artifacts.iter().find(|a| a.id == id).expect(id).text;
            let first = text.lines().next().expect("a first line");
            assert!(
                first.contains("Acme }; process.exit(1); // x"),
                "{id}: {first}"
            );
        }
        let rust = &p
            .artifacts
            .iter()
            .find(|a| a.id == "rust")
            .expect("rust")
            .text;
        assert!(
            rust.contains(r#"const NAME: &str = "Pay\"); std::process::exit(1); (\"";"#),
            "{rust}"
        );
    }

    #[test]
    fn every_artifact_as_generated() {
        let p = protect(
            &realm(),
            &input("https://mcp.example.com/mcp", "tools:call"),
            false,
        )
        .expect("generated");
        for a in &p.artifacts {
            insta::assert_snapshot!(
                a.id,
                format!(
                    "{}\n{}\n{} {}\n\n{}",
                    a.title, a.explanation, a.reference.0, a.reference.1, a.text
                )
            );
        }
    }
}
