//! Claude Code: `managed-mcp.json` and `managed-settings.json` in its managed directory.
//!
//! Allowlist mode delivers every server in `managed-mcp.json`, which takes exclusive control
//! (only its servers load), and lists each by URL or exact command line in
//! `allowedMcpServers` with `allowManagedMcpServersOnly`: from 2.1.259 an entry with `${VAR}`
//! must still match that list. Warn mode must not block what users add, so it cannot use
//! `managed-mcp.json`: from 2.1.259 https servers without a helper or `${VAR}` go to
//! `managedMcpServers`, the rest to a per-user file. Tool denies are `permissions.deny`
//! rules (`mcp__<server>__<tool>`) in both. `deniedMcpServers` is not rendered: the policy
//! denies no server, it approves some, and the allowlist keeps the rest out.
use super::{
    Ctx, Field, Harness, Os, Out, Refs, Scope, json_file, launch, plan_auth, translate_map,
    warn_sha256, warn_unshown,
};
use crate::policy::Mode;
use crate::server::{Server, Transport};
use serde_json::{Map, Value, json};

const NAME: &str = "Claude Code";
/// The version that added `managedMcpServers` and stopped filtering org-delivered servers
/// through the allowlist.
pub(crate) const MANAGED_SERVERS_SINCE: &str = "2.1.259";

fn managed(file: &'static str) -> Vec<(Os, &'static str)> {
    match file {
        "managed-mcp.json" => vec![
            (Os::Linux, "/etc/claude-code/managed-mcp.json"),
            (
                Os::MacOs,
                "/Library/Application Support/ClaudeCode/managed-mcp.json",
            ),
            (Os::Windows, r"C:\Program Files\ClaudeCode\managed-mcp.json"),
        ],
        _ => vec![
            (Os::Linux, "/etc/claude-code/managed-settings.json"),
            (
                Os::MacOs,
                "/Library/Application Support/ClaudeCode/managed-settings.json",
            ),
            (
                Os::Windows,
                r"C:\Program Files\ClaudeCode\managed-settings.json",
            ),
        ],
    }
}

/// One server's entry and what the settings need to know about it.
struct Entry {
    value: Value,
    /// Its `allowedMcpServers` entry: exactly one of `serverUrl` or `serverCommand`.
    allow: Value,
    /// Whether `managedMcpServers` accepts it (https, no helper, no `${VAR}`).
    pushable: bool,
}

pub(super) fn render(
    ctx: &Ctx<'_>,
    servers: &[&Server],
    out: &mut Out,
) -> Vec<super::RenderedFile> {
    let can_push = ctx.version.at_least(MANAGED_SERVERS_SINCE);
    let (mut exclusive, mut pushed, mut user) = (Map::new(), Map::new(), Map::new());
    let mut allowed = Vec::with_capacity(servers.len());
    let mut deny = Vec::new();
    for s in servers {
        let e = entry(ctx, s, &mut deny, out);
        allowed.push(e.allow);
        match ctx.mode {
            Mode::Allowlist => {
                exclusive.insert(s.id.clone(), e.value);
            }
            Mode::Warn if can_push && e.pushable => {
                pushed.insert(s.id.clone(), e.value);
            }
            Mode::Warn => {
                user.insert(s.id.clone(), e.value);
            }
        }
    }
    let mut files = Vec::new();
    let mut settings = Map::new();
    if ctx.mode == Mode::Allowlist {
        files.push(json_file(
            "managed-mcp.json",
            Scope::Managed,
            managed("managed-mcp.json"),
            &json!({ "mcpServers": exclusive }),
        ));
        settings.insert("allowManagedMcpServersOnly".into(), true.into());
        settings.insert("allowedMcpServers".into(), allowed.into());
        out.note("managed-mcp.json takes exclusive control: only its servers load, and claude.ai connectors are off unless allowAllClaudeAiMcps is set.");
    }
    if !pushed.is_empty() {
        settings.insert("managedMcpServers".into(), pushed.into());
    }
    if !deny.is_empty() {
        settings.insert("permissions".into(), json!({ "deny": deny }));
    }
    if !settings.is_empty() {
        files.push(json_file(
            "managed-settings.json",
            Scope::Managed,
            managed("managed-settings.json"),
            &Value::Object(settings),
        ));
        out.note("Claude Code reads one managed-settings.json: merge these keys into the one you deploy, and keep it valid JSON (an invalid file silently removes every MCP server).");
    }
    if !user.is_empty() {
        let ids: Vec<&str> = user.keys().map(String::as_str).collect();
        out.note(format!(
            "Warn mode: {} cannot be pushed without blocking the servers users add (managed-mcp.json takes exclusive control{}), so they are in a per-user file: start Claude Code with --mcp-config ~/.claude/portcullis.mcp.json, or add each with claude mcp add-json --scope user.",
            ids.join(", "),
            if can_push {
                "; managedMcpServers takes only https servers without a header helper or ${VAR}"
            } else {
                "; managedMcpServers needs 2.1.259"
            }
        ));
        files.push(json_file(
            "portcullis.mcp.json",
            Scope::User,
            vec![
                (Os::Linux, "~/.claude/portcullis.mcp.json"),
                (Os::MacOs, "~/.claude/portcullis.mcp.json"),
                (Os::Windows, r"%USERPROFILE%\.claude\portcullis.mcp.json"),
            ],
            &json!({ "mcpServers": user }),
        ));
    }
    files
}

fn entry(ctx: &Ctx<'_>, s: &Server, deny: &mut Vec<String>, out: &mut Out) -> Entry {
    let Server {
        id,
        title,
        transport,
        registry,
        headers,
        env,
        tools,
        auth,
        // Chosen before rendering: `servers` is what the ring or unit gets.
        rings: _,
        units: _,
        // Its effect (the tools it allows) is in `tools`.
        profile: _,
    } = s;
    warn_unshown(out, id, title, registry.as_ref(), NAME);
    for t in &tools.deny {
        deny.extend(Harness::ClaudeCode.tool_name(id, t));
    }
    if !tools.allow.is_empty() {
        out.warn(
            Some(id),
            Field::ToolsAllow.as_str(),
            format!(
                "Claude Code's permission rules can deny tools but not limit a server to some: tools other than {} are not blocked. Name the ones to keep out in tools.deny.",
                tools.allow.join(", ")
            ),
        );
    }
    let plan = plan_auth(ctx, id, transport, auth, Ok(()), NAME, out);
    let mut e = Map::new();
    let (allow, pushable) = match transport {
        Transport::Remote { url, sse } => {
            e.insert("type".into(), if *sse { "sse" } else { "http" }.into());
            e.insert("url".into(), url.clone().into());
            let h = translate_map(headers, Refs::Braced, id, Field::Headers, NAME, out);
            let has_var = h.values().any(|v| v.as_str().is_some_and(super::has_ref));
            if !h.is_empty() {
                e.insert("headers".into(), h.into());
            }
            if let Some(helper) = &plan.helper {
                e.insert("headersHelper".into(), helper.clone().into());
            }
            let mut oauth = Map::new();
            if let Some(c) = plan.client_id {
                oauth.insert("clientId".into(), c.into());
            }
            if !plan.scopes.is_empty() {
                // One space-separated string, not an array.
                oauth.insert("scopes".into(), plan.scopes.join(" ").into());
            }
            if !oauth.is_empty() {
                e.insert("oauth".into(), oauth.into());
            }
            (
                json!({ "serverUrl": url }),
                plan.helper.is_none() && !has_var,
            )
        }
        Transport::Package(_) | Transport::Command(_) => {
            let (command, args) = launch(transport).unwrap_or_default();
            e.insert("type".into(), "stdio".into());
            e.insert("command".into(), command.clone().into());
            e.insert("args".into(), args.clone().into());
            let v = translate_map(env, Refs::Braced, id, Field::Env, NAME, out);
            if !v.is_empty() {
                e.insert("env".into(), v.into());
            }
            if let Transport::Command(c) = transport {
                warn_sha256(out, id, c.sha256.as_ref(), NAME);
            }
            if ctx.mode == Mode::Allowlist && args.iter().any(|a| super::has_ref(a)) {
                out.warn(
                    Some(id),
                    Field::CommandArgs.as_str(),
                    "An argument references ${VAR}: whether Claude Code matches allowedMcpServers' serverCommand before or after expanding it was not verified; if after, the server is blocked.",
                );
            }
            let mut argv = Vec::with_capacity(args.len() + 1);
            argv.push(command);
            argv.extend(args);
            (json!({ "serverCommand": argv }), false)
        }
    };
    if let Some(issuer) = plan.issuer {
        out.warn(
            Some(id),
            Field::AuthIssuer.as_str(),
            format!(
                "Claude Code takes no issuer; it finds the authorization server ({issuer}) from the server's RFC 9728 metadata."
            ),
        );
    }
    Entry {
        value: Value::Object(e),
        allow,
        pushable,
    }
}
