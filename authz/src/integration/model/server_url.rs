//! The MCP server's URL as the developer typed it, made canonical: the `resource` of the
//! metadata and the `aud` of the tokens.
use crate::resources::ResourceUri;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
