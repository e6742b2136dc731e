//! Client configurations (VS Code, Claude Code, the MCP Inspector) and the short names they use.
use super::snippet::pretty;

pub(super) fn url_encode(s: &str) -> String {
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

pub(super) fn vscode_config(slug: &str, resource: &str) -> String {
    pretty(&serde_json::json!({
        "servers": { slug: { "type": "http", "url": resource } }
    }))
}
