//! Gemini CLI: the system `settings.json`, which overrides every other settings file.
//!
//! A system server entry replaces a user's of the same name whole, and `mcp.allowed`
//! (names only) is replaced rather than merged, so in allowlist mode the names listed are
//! exactly the servers defined here. Remote servers need `httpUrl` for streamable HTTP
//! (a bare `url` means SSE). Gemini expands `$VAR` and `${VAR}` anywhere in the file, so
//! fixed text that would expand is refused rather than written.
use super::{
    Ctx, Field, Os, Out, Refs, Scope, expands, json_file, launch, plan_auth, translate,
    translate_map, warn_sha256,
};
use crate::policy::Mode;
use crate::server::{Server, Transport};
use serde_json::{Map, Value, json};

const NAME: &str = "Gemini CLI";

pub(super) fn render(
    ctx: &Ctx<'_>,
    servers: &[&Server],
    out: &mut Out,
) -> Vec<super::RenderedFile> {
    let mut defs = Map::new();
    for s in servers {
        if let Some(e) = entry(ctx, s, out) {
            defs.insert(s.id.clone(), e);
        }
    }
    let mut root = Map::new();
    if ctx.mode == Mode::Allowlist {
        if defs.is_empty() {
            out.warn(
                None,
                Field::Mode.as_str(),
                "No server is approved here, and Gemini CLI reads an empty mcp.allowed as no restriction: servers users add still run.",
            );
        }
        let names: Vec<&String> = defs.keys().collect();
        root.insert("mcp".into(), json!({ "allowed": names }));
    }
    root.insert("mcpServers".into(), Value::Object(defs));
    out.note("Gemini CLI reads system settings only from a root-owned file in a directory no one else can write (otherwise it skips the file); merge these keys into an existing system settings.json. In a folder the user has not trusted, every MCP server is off.");
    vec![json_file(
        "settings.json",
        Scope::Managed,
        vec![
            (Os::Linux, "/etc/gemini-cli/settings.json"),
            (
                Os::MacOs,
                "/Library/Application Support/GeminiCli/settings.json",
            ),
            (Os::Windows, r"C:\ProgramData\gemini-cli\settings.json"),
        ],
        &Value::Object(root),
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
    let plan = plan_auth(
        ctx,
        id,
        transport,
        auth,
        Err("Gemini CLI cannot run a header helper"),
        NAME,
        out,
    );
    let mut e = Map::new();
    // Gemini expands `$` references anywhere in the file: fixed text must not hold one.
    let program = launch(transport).map(|(c, _)| c);
    let fixed = [
        (Field::Url, transport_url(transport)),
        (Field::CommandPath, program.as_deref()),
    ];
    for (field, text) in fixed {
        if text.is_some_and(|t| expands(t, Refs::Dollar)) {
            out.warn(
                Some(id),
                field.as_str(),
                "Not delivered to Gemini CLI: it would expand the '$' in it as a reference to the user's environment.",
            );
            return None;
        }
    }
    match transport {
        Transport::Remote { url, sse } => {
            e.insert(
                if *sse { "url" } else { "httpUrl" }.into(),
                url.clone().into(),
            );
            let h = translate_map(headers, Refs::Dollar, id, Field::Headers, NAME, out);
            if !h.is_empty() {
                e.insert("headers".into(), h.into());
            }
            let mut oauth = Map::new();
            if let Some(c) = plan.client_id {
                oauth.insert("clientId".into(), c.into());
            }
            if let Some(i) = plan.issuer {
                oauth.insert("issuer".into(), i.into());
            }
            if !plan.scopes.is_empty() {
                oauth.insert("scopes".into(), plan.scopes.into());
            }
            if !oauth.is_empty() {
                oauth.insert("enabled".into(), true.into());
                e.insert("oauth".into(), oauth.into());
            }
        }
        Transport::Package(_) | Transport::Command(_) => {
            let (command, args) = launch(transport).unwrap_or_default();
            let mut written = Vec::with_capacity(args.len());
            for (i, a) in args.iter().enumerate() {
                match translate(a, Refs::Dollar) {
                    Ok(a) => written.push(a),
                    Err(why) => {
                        out.warn(
                            Some(id),
                            format!("{}[{i}]", Field::CommandArgs.as_str()),
                            format!("Not delivered to Gemini CLI: {why}."),
                        );
                        return None;
                    }
                }
            }
            e.insert("command".into(), command.into());
            e.insert("args".into(), written.into());
            let v = translate_map(env, Refs::Dollar, id, Field::Env, NAME, out);
            if !v.is_empty() {
                e.insert("env".into(), v.into());
            }
            if let Transport::Command(c) = transport {
                warn_sha256(out, id, c.sha256.as_ref(), NAME);
            }
        }
    }
    // The title, and where the server came from in the MCP Registry.
    let description = match (title.is_empty(), registry) {
        (_, None) => title.clone(),
        (true, Some((name, version))) => format!("{name} {version}"),
        (false, Some((name, version))) => format!("{title} ({name} {version})"),
    };
    if expands(&description, Refs::Dollar) {
        out.warn(
            Some(id),
            Field::Title.as_str(),
            "Not rendered for Gemini CLI: it would expand the '$' in it as a reference to the user's environment.",
        );
    } else if !description.is_empty() {
        e.insert("description".into(), description.into());
    }
    if !tools.allow.is_empty() {
        e.insert("includeTools".into(), tools.allow.clone().into());
    }
    if !tools.deny.is_empty() {
        // Gemini applies excludeTools over includeTools: deny wins.
        e.insert("excludeTools".into(), tools.deny.clone().into());
    }
    // Never `trust`: it would skip the user's confirmations for every tool.
    Some(Value::Object(e))
}

fn transport_url(transport: &Transport) -> Option<&str> {
    match transport {
        Transport::Remote { url, .. } => Some(url),
        Transport::Package(_) | Transport::Command(_) => None,
    }
}
