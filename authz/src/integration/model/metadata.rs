//! The RFC 9728 protected-resource metadata and the URLs it is served at.
use super::protection::AuthorizationServer;
use super::snippet::pretty;
use crate::resources::ResourceUri;

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
pub(super) fn metadata_json(
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
