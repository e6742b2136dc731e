//! Shell commands: register a client (RFC 7591), the Client ID Metadata Document a client may
//! publish instead, get a token (RFC 8707) and call the server with it.
use super::snippet::pretty;

/// The MCP protocol revision the generated calls announce.
pub const MCP_PROTOCOL_VERSION: &str = "2025-11-25";

/// `'…'` for a POSIX shell: safe for any text.
pub(super) fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

pub(super) fn register_command(endpoint: &str, name: &str, scopes: &[String]) -> String {
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

pub(super) fn metadata_document_example(name: &str) -> String {
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

pub(super) fn token_command(endpoint: &str, resource: &str, scopes: &[String]) -> String {
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

pub(super) fn call_command(resource: &str) -> String {
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
