//! The official MCP Registry API v0.1, answered from a release.
//!
//! VS Code and GitHub Copilot can be pointed at a registry URL and then offer only its
//! servers: each approved server becomes a `server.json` (schema 2025-12-11), listed with
//! cursor paging and search (`GET /v0.1/servers`) and fetched by name and version
//! (`GET /v0.1/servers/{name}/versions/{version}`). Pure: the HTTP side is the server's.
use crate::secrets::{Part, parts};
use crate::server::{Auth, PackageType, Server, Transport};
use serde_json::{Value, json};

/// The schema every document declares.
pub const SERVER_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
/// Default and largest page.
pub const DEFAULT_LIMIT: usize = 30;
/// Largest page.
pub const MAX_LIMIT: usize = 100;
/// Where Portcullis puts what the schema has no field for (tool rules, auth mode, its id).
pub const META_KEY: &str = "dev.portcullis/registry";

/// What the release says about itself, for every listed server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseInfo {
    /// The release's number in the realm (versions of servers without one).
    pub sequence: u64,
    /// When it was published (RFC 3339).
    pub published_at: String,
    /// The realm issuer's host, reversed, names servers not from the MCP Registry
    /// (`com.example.auth/wiki`).
    pub namespace: String,
}

impl ReleaseInfo {
    /// The namespace for an issuer URL: its host reversed (`auth.example.com` →
    /// `com.example.auth`).
    pub fn namespace_of(issuer: &str) -> String {
        let host = url::Url::parse(issuer)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_else(|| "local".into());
        let reversed: Vec<&str> = host.split('.').rev().collect();
        let ns: String = reversed
            .join(".")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        if ns.is_empty() { "local".into() } else { ns }
    }
}

/// The registry name of a server: its MCP Registry name, else `namespace/id`.
pub fn name_of(server: &Server, info: &ReleaseInfo) -> String {
    server.registry.as_ref().map_or_else(
        || format!("{}/{}", info.namespace, server.id),
        |(n, _)| n.clone(),
    )
}

/// The version a server is listed under: its MCP Registry version, else its package's, else
/// `0.0.<release>`.
pub fn version_of(server: &Server, info: &ReleaseInfo) -> String {
    if let Some((_, v)) = &server.registry {
        return v.clone();
    }
    match &server.transport {
        Transport::Package(p) if !p.version.is_empty() => p.version.clone(),
        _ => format!("0.0.{}", info.sequence),
    }
}

/// Whether the API lists the server: a command on a laptop has no `server.json` form.
pub fn listed(server: &Server) -> bool {
    !matches!(server.transport, Transport::Command(_))
}

/// A header or variable value as `server.json` writes it: `${VAR}` becomes `{VAR}` with a
/// variable entry each user fills in.
fn input(name: &str, value: &str) -> Value {
    let pieces = parts(value).unwrap_or_default();
    let vars: Vec<&str> = pieces
        .iter()
        .filter_map(|p| match p {
            Part::Var(v) => Some(*v),
            Part::Literal(_) => None,
        })
        .collect();
    if vars.is_empty() {
        return json!({"name": name, "value": value});
    }
    let template: String = pieces
        .iter()
        .map(|p| match p {
            Part::Literal(s) => (*s).to_owned(),
            Part::Var(v) => format!("{{{v}}}"),
        })
        .collect();
    let variables: serde_json::Map<String, Value> = vars
        .iter()
        .map(|v| {
            (
                (*v).to_owned(),
                json!({"description": format!("Your own {v}"), "isRequired": true, "isSecret": true}),
            )
        })
        .collect();
    json!({"name": name, "value": template, "isRequired": true, "isSecret": true, "variables": variables})
}

/// A server's `server.json` (2025-12-11), with what the schema cannot say (tool rules, auth
/// mode, the Portcullis id) under `_meta["io.modelcontextprotocol.registry/publisher-provided"]`.
pub fn server_json(server: &Server, info: &ReleaseInfo) -> Value {
    let description: String = if server.title.is_empty() {
        format!("{} (approved by your organisation)", server.id)
    } else {
        server.title.clone()
    }
    .chars()
    .take(100)
    .collect();
    let mut doc = json!({
        "$schema": SERVER_SCHEMA,
        "name": name_of(server, info),
        "description": description,
        "version": version_of(server, info),
    });
    if !server.title.is_empty() {
        doc["title"] = server.title.chars().take(100).collect::<String>().into();
    }
    match &server.transport {
        Transport::Remote { url, sse } => {
            let mut remote = json!({
                "type": if *sse { "sse" } else { "streamable-http" },
                "url": url,
            });
            if !server.headers.is_empty() {
                remote["headers"] = server
                    .headers
                    .iter()
                    .map(|(k, v)| input(k, v))
                    .collect::<Vec<_>>()
                    .into();
            }
            doc["remotes"] = json!([remote]);
        }
        Transport::Package(p) => {
            let mut package = json!({
                "registryType": p.kind.as_str(),
                "identifier": p.identifier,
                "transport": {"type": "stdio"},
            });
            if p.kind != PackageType::Oci {
                package["version"] = p.version.clone().into();
            }
            if !server.env.is_empty() {
                package["environmentVariables"] = server
                    .env
                    .iter()
                    .map(|(k, v)| input(k, v))
                    .collect::<Vec<_>>()
                    .into();
            }
            doc["packages"] = json!([package]);
        }
        Transport::Command(_) => {}
    }
    let auth = match &server.auth {
        Auth::None => json!({"mode": "none"}),
        Auth::OAuth {
            client_id,
            client_metadata_url,
            issuer,
            scopes,
        } => {
            json!({"mode": "oauth", "clientId": client_id, "clientMetadataUrl": client_metadata_url, "issuer": issuer, "scopes": scopes})
        }
        Auth::Enterprise {
            identity_issuer,
            scopes,
        } => json!({"mode": "enterprise", "identityIssuer": identity_issuer, "scopes": scopes}),
        Auth::Portcullis { scopes } => json!({"mode": "portcullis", "scopes": scopes}),
    };
    doc["_meta"] = json!({
        "io.modelcontextprotocol.registry/publisher-provided": {
            META_KEY: {
                "id": server.id,
                "tools": {"allow": server.tools.allow, "deny": server.tools.deny},
                "auth": auth,
            }
        }
    });
    doc
}

/// One entry of a list or a version answer: `{server, _meta}`.
fn entry(server: &Server, info: &ReleaseInfo) -> Value {
    json!({
        "server": server_json(server, info),
        "_meta": {
            "io.modelcontextprotocol.registry/official": {
                "status": "active",
                "publishedAt": info.published_at,
                "updatedAt": info.published_at,
                "isLatest": true,
            }
        }
    })
}

/// A `GET /v0.1/servers` query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    /// The `nextCursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size (1–100; default 30).
    pub limit: Option<usize>,
    /// Case-insensitive part of the name.
    pub search: Option<String>,
    /// `latest` or an exact version.
    pub version: Option<String>,
}

/// A list answer: the servers after the cursor whose name matches, by name.
pub fn list(servers: &[Server], info: &ReleaseInfo, q: &ListQuery) -> Value {
    let limit = q.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let search = q
        .search
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_lowercase);
    let mut named: Vec<(String, &Server)> = servers
        .iter()
        .filter(|s| listed(s))
        .map(|s| (name_of(s, info), s))
        .filter(|(n, _)| search.as_ref().is_none_or(|q| n.to_lowercase().contains(q)))
        .filter(|(_, s)| match q.version.as_deref() {
            None | Some("" | "latest") => true,
            Some(v) => version_of(s, info) == v,
        })
        .filter(|(n, _)| q.cursor.as_ref().is_none_or(|c| n.as_str() > c.as_str()))
        .collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    let more = named.len() > limit;
    named.truncate(limit);
    let mut metadata = json!({"count": named.len()});
    if more && let Some((last, _)) = named.last() {
        metadata["nextCursor"] = last.clone().into();
    }
    json!({
        "servers": named.iter().map(|(_, s)| entry(s, info)).collect::<Vec<_>>(),
        "metadata": metadata,
    })
}

/// A `GET /v0.1/servers/{name}/versions/{version}` answer (`latest`, or the version
/// listed); `None` when there is no such server or version.
pub fn version(servers: &[Server], info: &ReleaseInfo, name: &str, version: &str) -> Option<Value> {
    servers
        .iter()
        .filter(|s| listed(s))
        .find(|s| name_of(s, info) == name)
        .filter(|s| version == "latest" || version_of(s, info) == version)
        .map(|s| entry(s, info))
}

/// A `GET /v0.1/servers/{name}/versions` answer: the one version a release holds.
pub fn versions(servers: &[Server], info: &ReleaseInfo, name: &str) -> Option<Value> {
    version(servers, info, name, "latest")
        .map(|e| json!({"servers": [e], "metadata": {"count": 1}}))
}
