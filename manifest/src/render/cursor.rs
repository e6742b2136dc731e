//! Cursor: no managed MCP file exists (servers and their allowlist are set in the team
//! dashboard), so only a per-user `mcp.json` is rendered, for those who want it.
//!
//! Values reference the user's environment as `${env:VAR}`; a pre-registered OAuth client
//! goes in `auth.{CLIENT_ID, scopes}`.
use super::{
    Ctx, Field, Os, Out, Refs, Scope, json_file, launch, plan_auth, translate, translate_map,
    warn_sha256, warn_unshown,
};
use crate::policy::Mode;
use crate::server::{Server, Transport};
use serde_json::{Map, Value, json};

const NAME: &str = "Cursor";

pub(super) fn render(
    ctx: &Ctx<'_>,
    servers: &[&Server],
    out: &mut Out,
) -> Vec<super::RenderedFile> {
    out.warn(
        None,
        Field::Mode.as_str(),
        match ctx.mode {
            Mode::Allowlist => "Cursor has no managed MCP file: nothing here is enforced, and servers users add still run. Set the allowlist in the team dashboard (Enterprise: MCP server trust management).",
            Mode::Warn => "Cursor has no managed MCP file: the servers are delivered only to users who install mcp.json themselves.",
        },
    );
    let mut defs = Map::new();
    for s in servers {
        if let Some(e) = entry(ctx, s, out) {
            defs.insert(s.id.clone(), e);
        }
    }
    out.note("mcp.json is each user's own file: merge these servers into ~/.cursor/mcp.json.");
    vec![json_file(
        "mcp.json",
        Scope::User,
        vec![
            (Os::Linux, "~/.cursor/mcp.json"),
            (Os::MacOs, "~/.cursor/mcp.json"),
            (Os::Windows, r"%USERPROFILE%\.cursor\mcp.json"),
        ],
        &json!({ "mcpServers": defs }),
    )]
}

fn entry(ctx: &Ctx<'_>, s: &Server, out: &mut Out) -> Option<Value> {
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
        Err("Cursor runs no header helper"),
        NAME,
        out,
    );
    let mut e = Map::new();
    match transport {
        Transport::Remote { url, sse } => {
            e.insert("url".into(), url.clone().into());
            if *sse {
                out.warn(
                    Some(id),
                    Field::UrlTransport.as_str(),
                    "Cursor has no transport setting: it tries streamable HTTP and falls back to SSE.",
                );
            }
            let h = translate_map(headers, Refs::CursorEnv, id, Field::Headers, NAME, out);
            if !h.is_empty() {
                e.insert("headers".into(), h.into());
            }
            match (plan.client_id, plan.scopes.is_empty()) {
                (Some(c), _) => {
                    let mut a = Map::new();
                    a.insert("CLIENT_ID".into(), c.into());
                    if !plan.scopes.is_empty() {
                        a.insert("scopes".into(), plan.scopes.into());
                    }
                    e.insert("auth".into(), a.into());
                }
                (None, false) => out.warn(
                    Some(id),
                    Field::AuthScopes.as_str(),
                    format!(
                        "Cursor takes scopes with a client id only; without one it asks for every scope the server supports, not just {}.",
                        plan.scopes.join(" ")
                    ),
                ),
                (None, true) => {}
            }
            if let Some(issuer) = plan.issuer {
                out.warn(
                    Some(id),
                    Field::AuthIssuer.as_str(),
                    format!("Cursor takes no issuer; it finds {issuer} from the server's RFC 9728 metadata."),
                );
            }
        }
        Transport::Package(_) | Transport::Command(_) => {
            let (command, args) = launch(transport).unwrap_or_default();
            let mut written = Vec::with_capacity(args.len());
            for a in &args {
                // Arguments passed the model's value check, so they translate.
                written.push(translate(a, Refs::CursorEnv).unwrap_or_else(|_| a.clone()));
            }
            e.insert("command".into(), command.into());
            e.insert("args".into(), written.into());
            let v = translate_map(env, Refs::CursorEnv, id, Field::Env, NAME, out);
            if !v.is_empty() {
                e.insert("env".into(), v.into());
            }
            if let Transport::Command(c) = transport {
                warn_sha256(out, id, c.sha256.as_ref(), NAME);
            }
        }
    }
    for (field, list) in [
        (Field::ToolsAllow, &tools.allow),
        (Field::ToolsDeny, &tools.deny),
    ] {
        if !list.is_empty() {
            out.warn(
                Some(id),
                field.as_str(),
                format!(
                    "Cursor's mcp.json has no tool rules (only the dashboard and each user's CLI permissions do): {} not enforced.",
                    list.join(", ")
                ),
            );
        }
    }
    Some(Value::Object(e))
}
