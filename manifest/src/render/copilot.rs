//! GitHub Copilot CLI: an allowlist in the managed `managed-settings.json`, definitions in
//! each user's `mcp-config.json`.
//!
//! Managed settings cannot define servers or limit tools, so the per-user file carries the
//! definitions and the tool allowlist (`tools`), and what only that file says is warned as
//! unenforced. Each allowlist entry has exactly one of `serverUrl`, `serverCommand`,
//! `serverName`: an entry with two makes Copilot drop the whole file.
use super::{
    Ctx, Field, Os, Out, Scope, allowed_minus_denied, json_file, launch, plan_auth, warn_sha256,
    warn_unshown,
};
use crate::policy::Mode;
use crate::server::{Server, Transport};
use serde_json::{Map, Value, json};

const NAME: &str = "Copilot CLI";
const UNVERIFIED: &str = "Written as ${VAR}: Copilot CLI's expansion of variables in mcp-config.json is not documented; check that the value reaches the server.";

pub(super) fn render(
    ctx: &Ctx<'_>,
    servers: &[&Server],
    out: &mut Out,
) -> Vec<super::RenderedFile> {
    let mut defs = Map::new();
    let mut allowed = Vec::with_capacity(servers.len());
    for s in servers {
        let (e, allow) = entry(ctx, s, out);
        defs.insert(s.id.clone(), e);
        allowed.push(allow);
    }
    let mut files = Vec::new();
    if ctx.mode == Mode::Allowlist {
        files.push(json_file(
            "managed-settings.json",
            Scope::Managed,
            vec![
                (Os::Linux, "/etc/github-copilot/managed-settings.json"),
                (
                    Os::MacOs,
                    "/Library/Application Support/GitHubCopilot/managed-settings.json",
                ),
                (
                    Os::Windows,
                    r"C:\Program Files\GitHubCopilot\managed-settings.json",
                ),
            ],
            &json!({ "allowedMcpServers": allowed }),
        ));
        out.note("Copilot CLI blocks every server matching no allowedMcpServers entry (the built-in GitHub MCP server always runs); the organisation's \"MCP servers in Copilot\" policy must be on for any server to run. MDM and server-delivered managed settings take precedence over this file.");
    }
    files.push(json_file(
        "mcp-config.json",
        Scope::User,
        vec![
            (Os::Linux, "~/.copilot/mcp-config.json"),
            (Os::MacOs, "~/.copilot/mcp-config.json"),
            (Os::Windows, r"%USERPROFILE%\.copilot\mcp-config.json"),
        ],
        &json!({ "mcpServers": defs }),
    ));
    out.note("mcp-config.json is each user's own file: merge these servers into it (or pass it with --additional-mcp-config).");
    files
}

fn entry(ctx: &Ctx<'_>, s: &Server, out: &mut Out) -> (Value, Value) {
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
    let plan = plan_auth(
        ctx,
        id,
        transport,
        auth,
        Err("Copilot CLI runs no header helper"),
        NAME,
        out,
    );
    let mut e = Map::new();
    let allow = match transport {
        Transport::Remote { url, sse } => {
            e.insert("type".into(), if *sse { "sse" } else { "http" }.into());
            e.insert("url".into(), url.clone().into());
            if !headers.is_empty() {
                e.insert(
                    "headers".into(),
                    unverified_refs(headers, Field::Headers, id, out),
                );
            }
            if let Some(c) = plan.client_id {
                e.insert("oauthClientId".into(), c.into());
                if !plan.scopes.is_empty() {
                    e.insert("oauthScopes".into(), plan.scopes.into());
                }
            } else if !plan.scopes.is_empty() {
                out.warn(
                    Some(id),
                    Field::AuthScopes.as_str(),
                    format!(
                        "Copilot CLI takes scopes only with a client id: {} is not rendered, and the server's defaults apply.",
                        plan.scopes.join(" ")
                    ),
                );
            }
            if let Some(issuer) = plan.issuer {
                out.warn(
                    Some(id),
                    Field::AuthIssuer.as_str(),
                    format!("Copilot CLI takes no issuer; it finds {issuer} from the server's RFC 9728 metadata."),
                );
            }
            json!({ "serverUrl": url })
        }
        Transport::Package(_) | Transport::Command(_) => {
            let (command, args) = launch(transport).unwrap_or_default();
            e.insert("type".into(), "local".into());
            e.insert("command".into(), command.clone().into());
            e.insert("args".into(), args.clone().into());
            if let Some(i) = args.iter().position(|a| super::has_ref(a)) {
                out.warn(
                    Some(id),
                    format!("{}[{i}]", Field::CommandArgs.as_str()),
                    UNVERIFIED,
                );
            }
            if !env.is_empty() {
                e.insert("env".into(), unverified_refs(env, Field::Env, id, out));
            }
            if let Transport::Command(c) = transport {
                warn_sha256(out, id, c.sha256.as_ref(), NAME);
            }
            let mut argv = Vec::with_capacity(args.len() + 1);
            argv.push(command);
            argv.extend(args);
            json!({ "serverCommand": argv })
        }
    };
    let listed = if tools.allow.is_empty() {
        vec!["*".to_owned()]
    } else {
        // Deny wins: the allowlist is what allow leaves.
        allowed_minus_denied(tools)
    };
    if !tools.allow.is_empty() {
        out.warn(
            Some(id),
            Field::ToolsAllow.as_str(),
            "Managed settings cannot limit tools: only the user's own mcp-config.json lists them, so the user can widen the list.",
        );
    }
    if !tools.deny.is_empty() {
        out.warn(
            Some(id),
            Field::ToolsDeny.as_str(),
            if tools.allow.is_empty() {
                format!(
                    "Copilot CLI's per-server tool list is an allowlist: {} cannot be denied while every other tool is allowed, and managed settings cannot deny tools. Not enforced.",
                    tools.deny.join(", ")
                )
            } else {
                "Left out of the user's tool list; managed settings cannot deny tools, so the user can add them back.".to_owned()
            },
        );
    }
    e.insert("tools".into(), listed.into());
    (Value::Object(e), allow)
}

/// Values as written (`${VAR}`), warning for each that references a variable: how Copilot
/// CLI expands a hand-written mcp-config.json was not verified.
fn unverified_refs(
    map: &std::collections::BTreeMap<String, String>,
    field: Field,
    id: &str,
    out: &mut Out,
) -> Value {
    let mut m = Map::new();
    for (k, v) in map {
        if super::refused_secret(k, v, id, field, out) {
            continue;
        }
        if super::has_ref(v) {
            out.warn(Some(id), format!("{}.{k}", field.as_str()), UNVERIFIED);
        }
        m.insert(k.clone(), Value::String(v.clone()));
    }
    m.into()
}
