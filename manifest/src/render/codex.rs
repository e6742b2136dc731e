//! Codex: server definitions in the system `config.toml`, and in allowlist mode an
//! enforced `requirements.toml` naming each server's identity.
//!
//! Codex does no `${VAR}` interpolation: a variable reaches a server through `env_vars`
//! (forwarded by name), `env_http_headers` (header from a variable) or
//! `bearer_token_env_var`; anything else is warned. Only keys the chosen version reads are
//! written, since a misspelled or unknown key must never stand in for a deny list.
//! `requirements.toml` matches a remote server by its exact URL and a local one by its
//! program alone, so a local server's version cannot be pinned there.
use super::{
    Ctx, Field, Os, Out, Scope, launch, pin_field, plan_auth, toml_file, warn_sha256, warn_unshown,
};
use crate::policy::Mode;
use crate::secrets::{Part, parts};
use crate::server::{Server, Transport};
use toml::{Table, Value};

const NAME: &str = "Codex";
/// The first version known to read `http_headers_helper` (checked in its binary).
pub(crate) const HELPER_SINCE: &str = "0.171.0";

/// The variable Codex reads a server's token from (`PORTCULLIS_TOKEN_WIKI`).
fn token_env_name(id: &str) -> String {
    let mut name = String::from("PORTCULLIS_TOKEN_");
    name.extend(id.chars().map(|c| {
        if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        }
    }));
    name
}

fn strings(list: &[String]) -> Value {
    Value::Array(list.iter().map(|s| Value::String(s.clone())).collect())
}

pub(super) fn render(
    ctx: &Ctx<'_>,
    servers: &[&Server],
    out: &mut Out,
) -> Vec<super::RenderedFile> {
    let mut config = Table::new();
    let mut identities = Table::new();
    for s in servers {
        let Some((table, identity)) = server(ctx, s, out) else {
            continue;
        };
        config.insert(s.id.clone(), Value::Table(table));
        let mut t = Table::new();
        t.insert("identity".into(), Value::Table(identity));
        identities.insert(s.id.clone(), Value::Table(t));
    }
    let mut files = Vec::new();
    if ctx.mode == Mode::Allowlist {
        let mut req = Table::new();
        req.insert("mcp_servers".into(), Value::Table(identities));
        files.push(toml_file(
            "requirements.toml",
            Scope::Managed,
            vec![
                (Os::Linux, "/etc/codex/requirements.toml"),
                (Os::MacOs, "/etc/codex/requirements.toml"),
                (
                    Os::Windows,
                    r"C:\ProgramData\OpenAI\Codex\requirements.toml",
                ),
            ],
            &req,
        ));
        out.note("requirements.toml disables every server whose name and identity are not listed; a remote server's url must match config.toml's exactly, so install both as rendered. Cloud and MDM requirements, where set, take precedence field by field.");
    }
    let mut root = Table::new();
    root.insert("mcp_servers".into(), Value::Table(config));
    files.push(toml_file(
        "config.toml",
        Scope::Managed,
        vec![
            (Os::Linux, "/etc/codex/config.toml"),
            (Os::MacOs, "/etc/codex/config.toml"),
        ],
        &root,
    ));
    out.note("config.toml is Codex's system layer: users' own config.toml can change these definitions; merge the [mcp_servers] tables into an existing /etc/codex/config.toml. Windows has no system layer: merge them into %USERPROFILE%\\.codex\\config.toml.");
    files
}

/// A server's `[mcp_servers.<id>]` table and its requirements identity, or `None` when
/// Codex cannot run it as approved.
fn server(ctx: &Ctx<'_>, s: &Server, out: &mut Out) -> Option<(Table, Table)> {
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
    let helper_ok = if ctx.version.at_least(HELPER_SINCE) {
        Ok(())
    } else {
        Err("Codex reads http_headers_helper from 0.171.0")
    };
    // Before the header helper, Codex can still read a bearer token from a variable: the
    // person sets it from `portcullis-cli token --format env` before starting Codex.
    let env_fallback = (helper_ok.is_err()
        && ctx.opts.token_helper.is_some()
        && matches!(auth, crate::server::Auth::Portcullis { .. }))
    .then(|| token_env_name(id));
    let plan = plan_auth(ctx, id, transport, auth, helper_ok, NAME, out);
    let mut t = Table::new();
    let mut identity = Table::new();
    match transport {
        Transport::Remote { url, sse: true } => {
            out.warn(
                Some(id),
                Field::UrlTransport.as_str(),
                format!(
                    "Codex speaks streamable HTTP only, not SSE: {url} is not delivered to Codex."
                ),
            );
            return None;
        }
        Transport::Remote { url, sse: false } => {
            t.insert("url".into(), Value::String(url.clone()));
            identity.insert("url".into(), Value::String(url.clone()));
            remote_headers(headers, id, &mut t, out);
            if let Some(h) = plan.helper {
                t.insert("http_headers_helper".into(), Value::String(h));
            }
            if let Some(var) = env_fallback {
                let how = if super::helper::shell_safe(url) {
                    format!(
                        ", e.g. eval \"$(portcullis-cli token --resource {url} --format env --env-name {var})\""
                    )
                } else {
                    " with portcullis-cli token --format env".to_owned()
                };
                out.warn(
                    Some(id),
                    Field::AuthMode.as_str(),
                    format!(
                        "Codex before 0.171.0 reads the token from ${var} instead (bearer_token_env_var): set it before starting Codex{how}; the token lasts minutes, so prefer Codex 0.171.0 or later."
                    ),
                );
                t.insert("bearer_token_env_var".into(), Value::String(var));
            }
            if let Some(c) = plan.client_id {
                let mut oauth = Table::new();
                oauth.insert("client_id".into(), Value::String(c.to_owned()));
                t.insert("oauth".into(), Value::Table(oauth));
            }
            if !plan.scopes.is_empty() {
                t.insert("scopes".into(), strings(plan.scopes));
            }
            if let Some(issuer) = plan.issuer {
                out.warn(
                    Some(id),
                    Field::AuthIssuer.as_str(),
                    format!("Codex takes an issuer only with auth = \"ema_auth\"; it finds {issuer} from the server's RFC 9728 metadata."),
                );
            }
        }
        Transport::Package(_) | Transport::Command(_) => {
            let (command, args) = launch(transport).unwrap_or_default();
            if let Some(i) = args.iter().position(|a| super::has_ref(a)) {
                out.warn(
                    Some(id),
                    format!("{}[{i}]", Field::CommandArgs.as_str()),
                    "Codex does no ${VAR} interpolation in arguments: this server is not delivered to Codex.",
                );
                return None;
            }
            identity.insert("command".into(), Value::String(command.clone()));
            out.warn(
                Some(id),
                pin_field(transport).as_str(),
                format!("requirements.toml matches a local server by its program only (command = \"{command}\"): any version or arguments pass there. The pinned command line is in config.toml, which users can override."),
            );
            t.insert("command".into(), Value::String(command));
            t.insert("args".into(), strings(&args));
            local_env(env, id, &mut t, out);
            if let Transport::Command(c) = transport {
                warn_sha256(out, id, c.sha256.as_ref(), NAME);
            }
        }
    }
    warn_unshown(out, id, title, registry.as_ref(), NAME);
    if !tools.allow.is_empty() {
        t.insert("enabled_tools".into(), strings(&tools.allow));
    }
    if !tools.deny.is_empty() {
        // Applied after enabled_tools: deny wins.
        t.insert("disabled_tools".into(), strings(&tools.deny));
    }
    Some((t, identity))
}

/// Headers as Codex can take them: fixed (`http_headers`), a whole value from a variable
/// (`env_http_headers`), or `Bearer ${VAR}` as `bearer_token_env_var`.
fn remote_headers(
    headers: &std::collections::BTreeMap<String, String>,
    id: &str,
    t: &mut Table,
    out: &mut Out,
) {
    let (mut fixed, mut from_env) = (Table::new(), Table::new());
    for (k, v) in headers {
        if super::refused_secret(k, v, id, Field::Headers, out) {
            continue;
        }
        let pieces = parts(v).unwrap_or_default();
        match pieces.as_slice() {
            [Part::Literal("Bearer "), Part::Var(var)]
                if k.eq_ignore_ascii_case("authorization")
                    && !t.contains_key("bearer_token_env_var") =>
            {
                t.insert(
                    "bearer_token_env_var".into(),
                    Value::String((*var).to_owned()),
                );
            }
            [Part::Var(var)] => {
                from_env.insert(k.clone(), Value::String((*var).to_owned()));
            }
            p if p.iter().all(|x| matches!(x, Part::Literal(_))) => {
                fixed.insert(k.clone(), Value::String(v.clone()));
            }
            _ => out.warn(
                Some(id),
                format!("{}.{k}", Field::Headers.as_str()),
                "Not rendered for Codex: it reads a header whole from a variable (env_http_headers) or a bearer token (bearer_token_env_var), not fixed text around ${VAR}.",
            ),
        }
    }
    if !fixed.is_empty() {
        t.insert("http_headers".into(), Value::Table(fixed));
    }
    if !from_env.is_empty() {
        t.insert("env_http_headers".into(), Value::Table(from_env));
    }
}

/// Environment as Codex can take it: fixed values (`env`), or a variable of the same name
/// forwarded from the user's environment (`env_vars`).
fn local_env(
    env: &std::collections::BTreeMap<String, String>,
    id: &str,
    t: &mut Table,
    out: &mut Out,
) {
    let (mut fixed, mut forward) = (Table::new(), Vec::new());
    for (k, v) in env {
        if super::refused_secret(k, v, id, Field::Env, out) {
            continue;
        }
        let pieces = parts(v).unwrap_or_default();
        match pieces.as_slice() {
            [Part::Var(var)] if var == k => forward.push(Value::String(k.clone())),
            p if p.iter().all(|x| matches!(x, Part::Literal(_))) => {
                fixed.insert(k.clone(), Value::String(v.clone()));
            }
            _ => out.warn(
                Some(id),
                format!("{}.{k}", Field::Env.as_str()),
                "Not rendered for Codex: it forwards a variable under its own name (env_vars), and does no ${VAR} interpolation.",
            ),
        }
    }
    if !fixed.is_empty() {
        t.insert("env".into(), Value::Table(fixed));
    }
    if !forward.is_empty() {
        t.insert("env_vars".into(), Value::Array(forward));
    }
}
