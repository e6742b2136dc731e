//! OpenCode: the managed `opencode.json`, loaded last over the user's configuration.
//!
//! It has no allowlist: servers users add still run (warned in allowlist mode). Version 1
//! keeps servers under `mcp.<name>` with `enabled` and camelCase OAuth, and denies tools
//! with `permission` rules (`<server>_<tool>`); version 2 moved servers to
//! `mcp.servers.<name>` with `disabled` and snake_case OAuth. Values reference the user's
//! environment as `{env:VAR}`, substituted into the raw text, so fixed text containing
//! `{env:` or `{file:` is refused rather than written.
use super::Harness;
use super::{
    Ctx, Field, Os, Out, Refs, Scope, expands, json_file, launch, plan_auth, translate,
    translate_map, warn_sha256, warn_unshown,
};
use crate::policy::Mode;
use crate::server::{Server, Transport};
use serde_json::{Map, Value, json};

const NAME: &str = "OpenCode";

pub(super) fn render(
    ctx: &Ctx<'_>,
    servers: &[&Server],
    out: &mut Out,
) -> Vec<super::RenderedFile> {
    let v2 = ctx.version.major() >= 2;
    if ctx.mode == Mode::Allowlist {
        out.warn(
            None,
            Field::Mode.as_str(),
            "OpenCode has no allowlist: servers users add themselves still run. The managed file only delivers these and overrides users' servers of the same name.",
        );
    }
    let mut defs = Map::new();
    let mut permission = Map::new();
    for s in servers {
        if let Some(e) = entry(ctx, v2, s, &mut permission, out) {
            defs.insert(s.id.clone(), e);
        }
    }
    let root = if v2 {
        json!({ "mcp": { "servers": defs } })
    } else {
        let mut root = Map::new();
        root.insert("$schema".into(), "https://opencode.ai/config.json".into());
        root.insert("mcp".into(), defs.into());
        if !permission.is_empty() {
            root.insert("permission".into(), permission.into());
        }
        Value::Object(root)
    };
    out.note("OpenCode loads the managed opencode.json last, over the user's configuration: merge these keys into one you already deploy there.");
    vec![json_file(
        "opencode.json",
        Scope::Managed,
        vec![
            (Os::Linux, "/etc/opencode/opencode.json"),
            (
                Os::MacOs,
                "/Library/Application Support/opencode/opencode.json",
            ),
            (Os::Windows, r"C:\ProgramData\opencode\opencode.json"),
        ],
        &root,
    )]
}

fn entry(
    ctx: &Ctx<'_>,
    v2: bool,
    s: &Server,
    permission: &mut Map<String, Value>,
    out: &mut Out,
) -> Option<Value> {
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
        Err("OpenCode runs no header helper"),
        NAME,
        out,
    );
    let mut e = Map::new();
    match transport {
        Transport::Remote { url, sse } => {
            e.insert("type".into(), "remote".into());
            e.insert("url".into(), url.clone().into());
            if *sse {
                out.warn(
                    Some(id),
                    Field::UrlTransport.as_str(),
                    "OpenCode has no transport setting: it tries streamable HTTP and falls back to SSE.",
                );
            }
            let h = translate_map(headers, Refs::OpenCode, id, Field::Headers, NAME, out);
            if !h.is_empty() {
                e.insert("headers".into(), h.into());
            }
            let mut oauth = Map::new();
            if let Some(c) = plan.client_id {
                oauth.insert(if v2 { "client_id" } else { "clientId" }.into(), c.into());
            }
            if !plan.scopes.is_empty() {
                oauth.insert("scope".into(), plan.scopes.join(" ").into());
            }
            if !oauth.is_empty() {
                e.insert("oauth".into(), oauth.into());
            }
            if let Some(issuer) = plan.issuer {
                out.warn(
                    Some(id),
                    Field::AuthIssuer.as_str(),
                    format!("OpenCode takes no issuer; it finds {issuer} from the server's RFC 9728 metadata."),
                );
            }
        }
        Transport::Package(_) | Transport::Command(_) => {
            let (command, args) = launch(transport).unwrap_or_default();
            if expands(&command, Refs::OpenCode) {
                out.warn(
                    Some(id),
                    Field::CommandPath.as_str(),
                    "Not delivered to OpenCode: it would read {env:…} or {file:…} in the program's path.",
                );
                return None;
            }
            let mut argv = Vec::with_capacity(args.len() + 1);
            argv.push(command);
            for (i, a) in args.iter().enumerate() {
                match translate(a, Refs::OpenCode) {
                    Ok(a) => argv.push(a),
                    Err(why) => {
                        out.warn(
                            Some(id),
                            format!("{}[{i}]", Field::CommandArgs.as_str()),
                            format!("Not delivered to OpenCode: {why}."),
                        );
                        return None;
                    }
                }
            }
            e.insert("type".into(), "local".into());
            e.insert("command".into(), argv.into());
            let v = translate_map(env, Refs::OpenCode, id, Field::Env, NAME, out);
            if !v.is_empty() {
                e.insert("environment".into(), v.into());
            }
            if let Transport::Command(c) = transport {
                warn_sha256(out, id, c.sha256.as_ref(), NAME);
            }
        }
    }
    // Explicit, so a user's configuration cannot leave it switched off unnoticed.
    if v2 {
        e.insert("disabled".into(), false.into());
    } else {
        e.insert("enabled".into(), true.into());
    }
    if !tools.allow.is_empty() {
        out.warn(
            Some(id),
            Field::ToolsAllow.as_str(),
            format!(
                "OpenCode's permission rules are not known to let only some tools through (which of {id}_*: deny and {id}_<tool>: allow wins was not verified): tools other than {} are not blocked.",
                tools.allow.join(", ")
            ),
        );
    }
    if !tools.deny.is_empty() {
        if v2 {
            out.warn(
                Some(id),
                Field::ToolsDeny.as_str(),
                format!(
                    "OpenCode 2's permissions shape was not verified: {} not denied here.",
                    tools.deny.join(", ")
                ),
            );
        } else {
            for t in &tools.deny {
                if let Some(name) = Harness::OpenCode.tool_name(id, t) {
                    permission.insert(name, "deny".into());
                }
            }
        }
    }
    Some(Value::Object(e))
}
