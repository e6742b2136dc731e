//! Each harness's user config, read from its bytes into [`Configured`] servers.
//!
//! JSON files may carry comments and trailing commas (Gemini and OpenCode accept JSONC; the
//! others are read the same way, which only ever finds more). Error messages give a line and
//! column, never the text around them: a malformed file can still hold credentials.
use super::matching::host_of;
use super::model::{Configured, ConfiguredTransport, Harness, Redacted};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The MCP servers configured in one user config file of `harness`; `label` names the file in
/// findings (`~/.claude.json`).
///
/// # Errors
/// When the file is not UTF-8, not JSON (or JSONC) or TOML as the harness expects, or its MCP
/// section is not a map. The message gives a position, never the file's text.
pub fn configured(harness: Harness, label: &str, bytes: &[u8]) -> Result<Vec<Configured>, String> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if harness == Harness::Codex {
        return codex(label, bytes);
    }
    let root = json(bytes)?;
    let Value::Object(root) = root else {
        return Err("not a JSON object".into());
    };
    let mut out = Vec::new();
    let entry = |name: &str, v: &Value, source: &str, disabled: bool| {
        let (transport, off) = json_transport(harness, v);
        Configured {
            harness,
            source: source.to_owned(),
            name: name.to_owned(),
            transport,
            disabled: disabled || off,
            definition_sha256: definition_sha256(v),
        }
    };
    match harness {
        Harness::ClaudeCode => {
            for (name, v) in section(&root, "mcpServers")? {
                out.push(entry(name, v, label, false));
            }
            let projects = match root.get("projects") {
                None | Some(Value::Null) => None,
                Some(Value::Object(p)) => Some(p),
                Some(_) => return Err("projects is not an object".into()),
            };
            for (path, project) in projects.into_iter().flatten() {
                let Value::Object(project) = project else {
                    continue;
                };
                let source = format!("{label} (projects[{}])", Value::from(path.as_str()));
                let off = names(project.get("disabledMcpServers"));
                for (name, v) in section(project, "mcpServers")
                    .map_err(|e| format!("projects[{}]: {e}", Value::from(path.as_str())))?
                {
                    out.push(entry(name, v, &source, off.contains(&name.as_str())));
                }
            }
        }
        Harness::Gemini => {
            let mcp = root.get("mcp");
            let allowed = names(mcp.and_then(|m| m.get("allowed")));
            let excluded = names(mcp.and_then(|m| m.get("excluded")));
            for (name, v) in section(&root, "mcpServers")? {
                let blocked = excluded.contains(&name.as_str())
                    || (!allowed.is_empty() && !allowed.contains(&name.as_str()));
                out.push(entry(name, v, label, blocked));
            }
        }
        Harness::Copilot | Harness::Cursor => {
            for (name, v) in section(&root, "mcpServers")? {
                out.push(entry(name, v, label, false));
            }
        }
        Harness::OpenCode => {
            let mcp = section(&root, "mcp")?;
            let v2 = mcp
                .iter()
                .find(|(k, _)| *k == "servers")
                .filter(|(_, v)| !is_opencode1_entry(v));
            if let Some((_, servers)) = v2 {
                let Value::Object(servers) = servers else {
                    return Err("mcp.servers is not an object".into());
                };
                let source = format!("{label} (mcp.servers)");
                for (name, v) in servers {
                    if !is_toggle(v) {
                        out.push(entry(name, v, &source, false));
                    }
                }
            }
            for (name, v) in mcp {
                let layout2_key = matches!(name.as_str(), "servers" | "timeout");
                if (layout2_key && !is_opencode1_entry(v)) || is_toggle(v) {
                    continue;
                }
                out.push(entry(name, v, label, false));
            }
        }
        Harness::Codex => unreachable!("read as TOML above"),
    }
    Ok(out)
}

/// The entries of `root[key]`, a map (absent or null: none).
fn section<'a>(
    root: &'a Map<String, Value>,
    key: &str,
) -> Result<Vec<(&'a String, &'a Value)>, String> {
    match root.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(m)) => Ok(m.iter().collect()),
        Some(_) => Err(format!("{key} is not an object")),
    }
}

/// The strings of a JSON array (anything else: none).
fn names(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// OpenCode 1 `{ "enabled": bool }` alone: a toggle of a server defined elsewhere.
fn is_toggle(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.len() == 1 && o.get("enabled").is_some_and(Value::is_boolean))
}

/// Whether a value under `mcp` is an OpenCode 1 server (`type` local or remote) or toggle,
/// rather than OpenCode 2's `servers` map or `timeout`.
fn is_opencode1_entry(v: &Value) -> bool {
    is_toggle(v)
        || matches!(
            v.get("type").and_then(Value::as_str),
            Some("local" | "remote")
        )
}

/// How an entry is reached, and whether the entry itself turns it off.
fn json_transport(harness: Harness, v: &Value) -> (ConfiguredTransport, bool) {
    let Value::Object(o) = v else {
        return (ConfiguredTransport::Unknown, false);
    };
    let text = |k: &str| o.get(k).and_then(Value::as_str);
    let kind = text("type");
    let remote = |url: &str, sse: bool| ConfiguredTransport::Remote {
        host: host_of(url),
        sse,
        url: Redacted(url.to_owned()),
    };
    let stdio = || match (text("command"), o.get("args")) {
        (Some(c), None | Some(Value::Null)) => ConfiguredTransport::Stdio {
            argv: Redacted(vec![c.to_owned()]),
        },
        (Some(c), Some(Value::Array(args))) => {
            let mut argv = vec![c.to_owned()];
            for a in args {
                match a.as_str() {
                    Some(a) => argv.push(a.to_owned()),
                    None => return ConfiguredTransport::Unknown,
                }
            }
            ConfiguredTransport::Stdio {
                argv: Redacted(argv),
            }
        }
        _ => ConfiguredTransport::Unknown,
    };
    match harness {
        Harness::OpenCode => {
            let off = o.get("enabled") == Some(&Value::Bool(false))
                || o.get("disabled") == Some(&Value::Bool(true));
            let t = match (kind, text("url"), o.get("command")) {
                (Some("remote"), Some(url), _) => remote(url, false),
                (Some("local"), _, Some(Value::Array(argv))) => {
                    let argv: Option<Vec<String>> =
                        argv.iter().map(|a| a.as_str().map(str::to_owned)).collect();
                    match argv {
                        Some(argv) if !argv.is_empty() => ConfiguredTransport::Stdio {
                            argv: Redacted(argv),
                        },
                        _ => ConfiguredTransport::Unknown,
                    }
                }
                _ => ConfiguredTransport::Unknown,
            };
            (t, off)
        }
        // Gemini CLI: httpUrl (streamable), else url (SSE unless `type: http`), else command.
        Harness::Gemini => {
            let t = match (text("httpUrl"), text("url")) {
                (Some(url), _) => remote(url, false),
                (None, Some(url)) => remote(url, kind != Some("http")),
                (None, None) => stdio(),
            };
            (t, false)
        }
        // Claude Code, Copilot CLI, Cursor: `type` when given, else whichever is there.
        _ => {
            let t = match (kind, text("url")) {
                (Some("http" | "streamable-http"), Some(url)) => remote(url, false),
                (Some("sse"), Some(url)) => remote(url, true),
                (Some("stdio" | "local") | None, _) if o.contains_key("command") => stdio(),
                (_, Some(url)) => remote(url, false),
                _ => ConfiguredTransport::Unknown,
            };
            (t, false)
        }
    }
}

fn codex(label: &str, bytes: &[u8]) -> Result<Vec<Configured>, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = position(bytes, e.valid_up_to());
        format!("not UTF-8 (line {line}, column {column})")
    })?;
    let root: toml::Table = toml::from_str(text).map_err(|e| match e.span() {
        Some(span) => {
            let (line, column) = position(bytes, span.start);
            format!("not valid TOML (line {line}, column {column})")
        }
        None => "not valid TOML".to_owned(),
    })?;
    let servers = match root.get("mcp_servers") {
        None => return Ok(Vec::new()),
        Some(toml::Value::Table(t)) => t,
        Some(_) => return Err("mcp_servers is not a table".into()),
    };
    let mut out = Vec::with_capacity(servers.len());
    for (name, v) in servers {
        let json = serde_json::to_value(v).unwrap_or(Value::Null);
        let (transport, disabled) = match v {
            toml::Value::Table(t) => {
                let text = |k: &str| t.get(k).and_then(toml::Value::as_str);
                let transport = match (text("url"), text("command"), t.get("args")) {
                    (Some(url), _, _) => ConfiguredTransport::Remote {
                        host: host_of(url),
                        sse: false,
                        url: Redacted(url.to_owned()),
                    },
                    (None, Some(c), args) => {
                        let args: Option<Vec<String>> = match args {
                            None => Some(Vec::new()),
                            Some(toml::Value::Array(a)) => {
                                a.iter().map(|x| x.as_str().map(str::to_owned)).collect()
                            }
                            Some(_) => None,
                        };
                        match args {
                            Some(args) => ConfiguredTransport::Stdio {
                                argv: Redacted(std::iter::once(c.to_owned()).chain(args).collect()),
                            },
                            None => ConfiguredTransport::Unknown,
                        }
                    }
                    _ => ConfiguredTransport::Unknown,
                };
                (
                    transport,
                    t.get("enabled").and_then(toml::Value::as_bool) == Some(false),
                )
            }
            _ => (ConfiguredTransport::Unknown, false),
        };
        out.push(Configured {
            harness: Harness::Codex,
            source: label.to_owned(),
            name: name.clone(),
            transport,
            disabled,
            definition_sha256: definition_sha256(&json),
        });
    }
    Ok(out)
}

/// JSON, or failing that JSONC (comments, trailing commas); the error is the strict parser's
/// position.
fn json(bytes: &[u8]) -> Result<Value, String> {
    match serde_json::from_slice(bytes) {
        Ok(v) => Ok(v),
        Err(strict) => serde_json::from_slice(&strip_jsonc(bytes)).map_err(|_| {
            if strict.is_eof() {
                "not valid JSON (it ends early)".to_owned()
            } else {
                format!(
                    "not valid JSON (line {}, column {})",
                    strict.line(),
                    strict.column()
                )
            }
        }),
    }
}

/// Comments and trailing commas blanked out (lines and columns kept).
fn strip_jsonc(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let (mut i, mut in_string) = (0, false);
    while i < out.len() {
        let b = out[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match (b, out.get(i + 1)) {
            (b'"', _) => in_string = true,
            (b'/', Some(b'/')) => {
                while i < out.len() && out[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
                continue;
            }
            (b'/', Some(b'*')) => {
                let end = out[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(out.len(), |p| i + 2 + p + 2);
                for c in &mut out[i..end] {
                    if *c != b'\n' {
                        *c = b' ';
                    }
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    // Trailing commas, now that comments are blank.
    let (mut i, mut in_string) = (0, false);
    while i < out.len() {
        let b = out[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b',' {
            let next = out[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
            if matches!(next, Some(b'}' | b']')) {
                out[i] = b' ';
            }
        }
        i += 1;
    }
    out
}

/// 1-based line and column (in bytes) of `offset`.
fn position(bytes: &[u8], offset: usize) -> (usize, usize) {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let column = before.len()
        - before
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    (line, column)
}

/// SHA-256 of the RFC 8785 form of a definition (of its plain JSON if it has none).
fn definition_sha256(v: &Value) -> String {
    let bytes = crate::canonical::to_canonical(v)
        .or_else(|_| serde_json::to_vec(v).map_err(|e| e.to_string()))
        .unwrap_or_default();
    hex::encode(Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonc_comments_and_trailing_commas_are_blanked() {
        let src =
            b"{ // a \"comment\"\n \"a\": \"x // not a comment\", /* b\n */ \"b\": [1, 2,], }";
        let v: Value = serde_json::from_slice(&strip_jsonc(src)).expect("parses");
        assert_eq!(v["a"], "x // not a comment");
        assert_eq!(v["b"], serde_json::json!([1, 2]));
        assert_eq!(strip_jsonc(src).len(), src.len());
    }

    #[test]
    fn positions_are_one_based() {
        assert_eq!(position(b"ab\ncd", 0), (1, 1));
        assert_eq!(position(b"ab\ncd", 4), (2, 2));
    }
}
