//! Every artefact for one MCP server, in reading order.
use super::challenge::challenge;
use super::clients::{config_name, url_encode, vscode_config};
use super::commands::{
    call_command, metadata_document_example, register_command, shell_quote, token_command,
};
use super::metadata::{metadata_json, metadata_urls};
use super::protection::{
    Artifact, AuthorizationServer, InputError, ProtectInput, Protection, input_error,
};
use super::python::{PYJWT_VERSION, PYTHON_SDK_VERSION, UVICORN_VERSION, python_server};
use super::rust::{crate_name, rust_manifest, rust_server};
use super::server_url::canonical_server_url;
use super::snippet::Snippet;
use super::typescript::{EXPRESS_VERSION, JOSE_VERSION, TS_SDK_VERSION, typescript_server};

/// What the servers' opt-in introspection does and costs, said under each of them.
const INTROSPECTION_NOTE: &str = "Revocation: without more, a revoked token works until its exp, since the server checks tokens itself. Opt in by setting INTROSPECTION_CLIENT_ID and INTROSPECTION_CLIENT_SECRET to the resource's introspection credentials (an admin creates them on the resource's page, Introspection credentials, or with portcullis resources credentials --id <resource>; developers ask an admin): each token is then also confirmed with the realm (RFC 7662), and a revoked one is refused at once (within 30 s if it was used just before). It costs at most one request to the realm per token per 30 s while the token is used, and calls fail while the realm cannot be reached.";

/// Where the generated servers listen and which requests they answer, in words.
fn listening(resource: &str) -> String {
    let url = url::Url::parse(resource).ok();
    let host = url.as_ref().and_then(|u| u.host_str()).unwrap_or_default();
    let port = super::snippet::listen_port(resource);
    if crate::resources::is_loopback(host) {
        format!("It listens on {host}, port {port} (PORT changes it).")
    } else {
        format!(
            "It listens on plain HTTP, port {port} (PORT changes it), behind the proxy that serves {resource} over TLS, and answers only requests naming {host} (DNS-rebinding protection): tokens are for {resource}, so call it there, not at localhost."
        )
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
    // The URL as parsed (percent-encoded, IDNA host): what the metadata and snippets carry.
    let docs = match input.documentation_url.trim() {
        "" => String::new(),
        typed => match url::Url::parse(typed) {
            Ok(u) if u.scheme() == "https" && u.host().is_some() => u.to_string(),
            _ => {
                return Err(input_error(
                    "documentation_url",
                    "The documentation URL must be an absolute https URL.",
                ));
            }
        },
    };
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
    let metadata = metadata_json(server, r, &scopes, name, &docs);
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
            text: metadata.clone(),
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
                "A complete server: it serves the metadata (at both well-known URLs), answers the 401, and verifies each token's signature (the realm's JWKS), typ, iss, exp and aud. npm install @modelcontextprotocol/sdk@{TS_SDK_VERSION} jose@{JOSE_VERSION} express@{EXPRESS_VERSION}; run with node server.mjs. {INTROSPECTION_NOTE}"
            ),
            reference: ("MCP authorization", "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization"),
            language: "typescript",
            text: typescript_server(&snippet),
        },
        Artifact {
            id: "rust-dependencies",
            title: "Rust server: Cargo.toml",
            explanation: "The Rust server's crate, tested with these versions (rmcp exactly, the others at least these): put this Cargo.toml and src/main.rs below in an empty directory and cargo run (Rust 1.88 or later, and a C compiler for rustls' ring). Everything comes from crates.io.".into(),
            reference: ("The Cargo Book: dependencies", "https://doc.rust-lang.org/cargo/reference/specifying-dependencies.html"),
            language: "toml",
            text: rust_manifest(&crate_name(&slug)),
        },
        Artifact {
            id: "rust",
            title: "Rust server (official MCP SDK, rmcp): src/main.rs",
            explanation: format!("A complete server on axum: it verifies each token's signature (the realm's JWKS, cached, with jsonwebtoken), typ, iss, exp, aud and scopes, serves the metadata (at both well-known URLs) and answers the 401 and 403; the tool reads the verified caller. {} {INTROSPECTION_NOTE}", listening(r)),
            reference: ("MCP authorization", "https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization"),
            language: "rust",
            text: rust_server(&snippet, &urls, &metadata),
        },
        Artifact {
            id: "python",
            title: "Python server (official MCP SDK)",
            explanation: format!(
                "The same in Python: pip install mcp=={PYTHON_SDK_VERSION} PyJWT[crypto]=={PYJWT_VERSION} uvicorn=={UVICORN_VERSION}; run with python server.py. {INTROSPECTION_NOTE}"
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
