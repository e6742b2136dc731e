//! Import from the official MCP Registry's `server.json` (schema 2025-12-11).
//!
//! A document becomes a pinned draft entry, with notes for everything a registry entry cannot
//! carry (arguments, the environment a user must set, secret headers, who gets it). Nothing is
//! fetched here: the caller hands over the document (read from a file, or fetched read-only
//! from a registry).
use crate::field::Findings;
use crate::names::{check_exact_version, shown};
use crate::server::{PackageInput, ServerInput, canonical_url};
use serde_json::Value;
use std::collections::BTreeMap;

/// Largest document accepted (the official registry's own limit is far below it).
pub const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;

/// Which of the document's transports to take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefer {
    /// A remote (streamable HTTP first), else a package in the order npm, PyPI, OCI.
    Default,
    /// The remote.
    Remote,
    /// The npm package.
    Npm,
    /// The PyPI package.
    Pypi,
    /// The OCI image.
    Oci,
}

impl Prefer {
    /// Parses `remote`, `npm`, `pypi` or `oci` (empty: [`Prefer::Default`]).
    ///
    /// # Errors
    /// The message for the user.
    pub fn parse(s: &str) -> Result<Prefer, String> {
        Ok(match s.trim() {
            "" => Prefer::Default,
            "remote" => Prefer::Remote,
            "npm" => Prefer::Npm,
            "pypi" => Prefer::Pypi,
            "oci" => Prefer::Oci,
            other => {
                return Err(format!("{}: remote, npm, pypi or oci.", shown(other)));
            }
        })
    }
}

/// What an import produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    /// The draft entry (check it with [`crate::Server::check`]; an editor shows what is left
    /// to fix, such as an image without its digest).
    pub server: ServerInput,
    /// What the entry does not carry, and what to do about it, one sentence each.
    pub notes: Vec<String>,
    /// The transports the document offers, as `remote`, `npm`, `pypi`, `oci` or the
    /// registry type it names (the one taken included).
    pub offered: Vec<String>,
}

/// Reads a `server.json` into a draft entry.
///
/// # Errors
/// Every problem with the document, each naming its field (`packages[0].transport`); nothing is
/// produced from a document that does not follow the schema.
pub fn import(document: &[u8], prefer: Prefer) -> Result<Imported, Findings> {
    let mut f = Findings::default();
    if document.len() > MAX_DOCUMENT_BYTES {
        f.error("", "The document is larger than 1 MiB.");
        return Err(f);
    }
    let doc: Value = match serde_json::from_slice(document) {
        Ok(v) => v,
        Err(e) => {
            f.error("", format!("Not JSON: {e}."));
            return Err(f);
        }
    };
    // A Registry API answer wraps the document: {"server": {…}, "_meta": {…}}.
    let doc = match doc.get("server") {
        Some(inner) if inner.is_object() && doc.get("name").is_none() => inner.clone(),
        _ => doc,
    };
    if !doc.is_object() {
        f.error("", "A server.json is a JSON object.");
        return Err(f);
    }
    let name = required_str(&doc, "name", &mut f);
    let version = required_str(&doc, "version", &mut f);
    if let Some(n) = &name
        && let Err(m) = crate::names::check_registry_name(n)
    {
        f.error("name", m);
    }
    let remotes = list(&doc, "remotes", &mut f);
    let packages = list(&doc, "packages", &mut f);
    if remotes.is_empty() && packages.is_empty() && f.is_ok() {
        f.error(
            "packages",
            "The document offers neither a package nor a remote: there is nothing to run.",
        );
    }
    // Variables each user sets are named after the server (`NEON_AUTHORIZATION`).
    let id = suggested_id(name.as_deref().unwrap_or("server"));
    let prefix = id.to_ascii_uppercase().replace('-', "_");
    let mut offered = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    for (i, r) in remotes.iter().enumerate() {
        if let Some(c) = remote(i, r, &prefix, &mut f) {
            offered.push("remote".to_owned());
            candidates.push(c);
        }
    }
    for (i, p) in packages.iter().enumerate() {
        if let Some(c) = package(i, p, &prefix, &mut f) {
            offered.push(c.kind.clone());
            candidates.push(c);
        }
    }
    if !f.is_ok() {
        return Err(f);
    }
    let (Some(name), Some(version)) = (name, version) else {
        return Err(f);
    };
    let rank = |c: &Candidate| -> usize {
        let order: &[&str] = match prefer {
            Prefer::Default => &["remote", "npm", "pypi", "oci"],
            Prefer::Remote => &["remote"],
            Prefer::Npm => &["npm"],
            Prefer::Pypi => &["pypi"],
            Prefer::Oci => &["oci"],
        };
        let base = order
            .iter()
            .position(|k| *k == c.kind)
            .unwrap_or(usize::MAX / 2);
        // Streamable HTTP before SSE.
        base * 2 + usize::from(c.server.url_transport.is_some())
    };
    let Some(chosen) = candidates
        .into_iter()
        .filter(|c| c.runnable && rank(c) < usize::MAX / 2)
        .min_by_key(rank)
    else {
        f.error(
            "packages",
            match prefer {
                Prefer::Default => format!(
                    "Nothing here can be pinned and run by a harness: the document offers {} (supported: remotes, npm, pypi, oci).",
                    offered.join(", ")
                ),
                _ => format!(
                    "The document offers no such transport; it offers {}.",
                    offered.join(", ")
                ),
            },
        );
        return Err(f);
    };
    let mut server = chosen.server;
    let mut notes = chosen.notes;
    server.id = id;
    server.title = doc
        .get("title")
        .and_then(Value::as_str)
        .map(|t| t.chars().filter(|c| !c.is_control()).take(100).collect())
        .unwrap_or_default();
    server.registry_name = Some(name.clone());
    server.version = Some(version.clone());
    if let Err(m) = check_exact_version(&version, "registry") {
        notes.push(format!(
            "The document's version {} is not an exact version ({m}): correct it before publishing.",
            shown(&version)
        ));
    }
    let choosable = |o: &str| matches!(o, "remote" | "npm" | "pypi" | "oci");
    let others: Vec<&str> = offered
        .iter()
        .map(String::as_str)
        .filter(|o| *o != chosen.kind && choosable(o))
        .collect();
    let unusable: Vec<&str> = offered
        .iter()
        .map(String::as_str)
        .filter(|o| *o != chosen.kind && !choosable(o))
        .collect();
    if !others.is_empty() {
        notes.push(format!(
            "Taken: {}. The document also offers {} (import again preferring one of them to pin it instead).",
            chosen.kind,
            others.join(", ")
        ));
    }
    if !unusable.is_empty() {
        notes.push(format!(
            "Not importable: {} (the registry pins remote servers and npm, PyPI and OCI packages).",
            unusable.join(", ")
        ));
    }
    notes.push("No ring or unit gets it yet: choose who gets it before publishing.".to_owned());
    Ok(Imported {
        server,
        notes,
        offered,
    })
}

/// One transport the document offers, as a draft.
struct Candidate {
    kind: String,
    /// Whether a launch command can be derived for it (not for nuget or mcpb).
    runnable: bool,
    server: ServerInput,
    notes: Vec<String>,
}

fn required_str(doc: &Value, key: &str, f: &mut Findings) -> Option<String> {
    match doc.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Some(Value::String(_)) | None => {
            f.error(key, format!("{key} is required."));
            None
        }
        Some(_) => {
            f.error(key, format!("{key} is a string."));
            None
        }
    }
}

fn list<'a>(doc: &'a Value, key: &str, f: &mut Findings) -> Vec<&'a Value> {
    match doc.get(key) {
        None | Some(Value::Null) => vec![],
        Some(Value::Array(items)) if items.len() <= 100 => items.iter().collect(),
        Some(Value::Array(_)) => {
            f.error(key, "At most 100 entries.");
            vec![]
        }
        Some(_) => {
            f.error(key, format!("{key} is a list."));
            vec![]
        }
    }
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str).map(str::trim)
}

fn flag(v: &Value, key: &str) -> bool {
    // Booleans in the schema; strings in some documents.
    match v.get(key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "true",
        _ => false,
    }
}

fn remote(i: usize, r: &Value, prefix: &str, f: &mut Findings) -> Option<Candidate> {
    let field = |k: &str| format!("remotes[{i}].{k}");
    let kind = text(r, "type");
    let sse = match kind {
        Some("streamable-http") => false,
        Some("sse") => true,
        Some(other) => {
            f.error(
                field("type"),
                format!("{}: streamable-http or sse.", shown(other)),
            );
            return None;
        }
        None => {
            f.error(field("type"), "type is required.");
            return None;
        }
    };
    let Some(url) = text(r, "url") else {
        f.error(field("url"), "url is required.");
        return None;
    };
    let mut notes = Vec::new();
    let url = if url.contains('{') {
        notes.push(format!(
            "The remote URL {} has placeholders ({}): fill them in before publishing.",
            shown(url),
            placeholders(url).join(", ")
        ));
        url.to_owned()
    } else {
        match canonical_url(url) {
            Ok(u) => u,
            Err(m) => {
                notes.push(format!("The remote URL: {m}"));
                url.to_owned()
            }
        }
    };
    let mut headers = BTreeMap::new();
    for (j, h) in list(r, "headers", f).into_iter().enumerate() {
        let field = format!("remotes[{i}].headers[{j}]");
        if let Some((name, value)) = input_value(h, (&field, "header", prefix), f, &mut notes) {
            headers.insert(name, value);
        }
    }
    Some(Candidate {
        kind: "remote".into(),
        runnable: true,
        server: ServerInput {
            url: Some(url),
            url_transport: sse.then(|| "sse".to_owned()),
            headers,
            ..Default::default()
        },
        notes,
    })
}

fn package(i: usize, p: &Value, prefix: &str, f: &mut Findings) -> Option<Candidate> {
    let field = |k: &str| format!("packages[{i}].{k}");
    let Some(kind) = text(p, "registryType") else {
        f.error(field("registryType"), "registryType is required.");
        return None;
    };
    let Some(identifier) = text(p, "identifier") else {
        f.error(field("identifier"), "identifier is required.");
        return None;
    };
    let transport = match p.get("transport") {
        Some(t) if t.is_object() => t,
        Some(_) => {
            f.error(field("transport"), "transport is an object with a type.");
            return None;
        }
        None => {
            f.error(field("transport"), "transport is required.");
            return None;
        }
    };
    let mut notes = Vec::new();
    match text(transport, "type") {
        Some("stdio") => {}
        Some(t @ ("streamable-http" | "sse")) => notes.push(format!(
            "The package serves {t} at {} once started: harnesses are given the command that starts it and talk to it over standard input and output; check that it supports that.",
            text(transport, "url").map_or_else(|| "a local URL".to_owned(), shown)
        )),
        Some(other) => {
            f.error(field("transport.type"), format!("{}: stdio, streamable-http or sse.", shown(other)));
            return None;
        }
        None => {
            f.error(field("transport.type"), "type is required.");
            return None;
        }
    }
    let version = text(p, "version").map(str::to_owned);
    let kind = kind.to_ascii_lowercase();
    let package = match kind.as_str() {
        "npm" | "pypi" => PackageInput {
            kind: kind.clone(),
            identifier: identifier.to_owned(),
            version,
        },
        "oci" => {
            if !identifier.contains("@sha256:") {
                notes.push(format!(
                    "The image {} is named by a tag, which can be moved to other content: add its digest (docker buildx imagetools inspect {}) as image@sha256:… before publishing.",
                    shown(identifier),
                    identifier
                ));
            }
            if version.is_some() {
                notes.push("The image's version is left out: its digest pins it.".to_owned());
            }
            PackageInput {
                kind: kind.clone(),
                identifier: identifier.to_owned(),
                version: None,
            }
        }
        _ => {
            // nuget, mcpb and others: offered, never taken (no launch command is derived).
            return Some(Candidate {
                kind,
                runnable: false,
                server: ServerInput::default(),
                notes: vec![],
            });
        }
    };
    for key in ["runtimeArguments", "packageArguments"] {
        let args = list(p, key, f);
        if !args.is_empty() {
            let names: Vec<String> = args
                .iter()
                .filter_map(|a| text(a, "name").or_else(|| text(a, "valueHint")))
                .map(str::to_owned)
                .take(8)
                .collect();
            notes.push(format!(
                "{} {} not carried (the entry runs the package as published){}.",
                args.len(),
                if key == "runtimeArguments" {
                    "runtime arguments are"
                } else {
                    "package arguments are"
                },
                if names.is_empty() {
                    String::new()
                } else {
                    format!(": {}", names.join(", "))
                }
            ));
        }
    }
    let mut env = BTreeMap::new();
    for (j, e) in list(p, "environmentVariables", f).into_iter().enumerate() {
        let field = format!("packages[{i}].environmentVariables[{j}]");
        if let Some((name, value)) = input_value(e, (&field, "variable", prefix), f, &mut notes) {
            env.insert(name, value);
        }
    }
    Some(Candidate {
        kind,
        runnable: true,
        server: ServerInput {
            package: Some(package),
            env,
            ..Default::default()
        },
        notes,
    })
}

/// A header or environment variable of the document: its name and the value the entry
/// carries (`${VAR}` for what each user supplies), or `None` when the entry leaves it out.
fn input_value(
    v: &Value,
    (field, what, prefix): (&str, &str, &str),
    f: &mut Findings,
    notes: &mut Vec<String>,
) -> Option<(String, String)> {
    let Some(name) = text(v, "name").filter(|n| !n.is_empty()) else {
        f.error(format!("{field}.name"), "name is required.");
        return None;
    };
    let description = text(v, "description").unwrap_or_default();
    let about = if description.is_empty() {
        String::new()
    } else {
        format!(" ({})", description.chars().take(120).collect::<String>())
    };
    let secret = flag(v, "isSecret");
    let required = flag(v, "isRequired");
    let fixed = text(v, "value").filter(|s| !s.contains('{'));
    if let (Some(value), false) = (fixed, secret) {
        return Some((name.to_owned(), value.to_owned()));
    }
    if required {
        // Each user supplies their own: a variable passes through under its own name, a
        // header comes from a variable named after the server and the header.
        let var = if what == "variable" {
            name.to_owned()
        } else {
            variable(prefix, name)
        };
        notes.push(format!(
            "{} {what} {name}{about}: each user sets {var} in their environment.",
            if secret { "The secret" } else { "The required" },
        ));
        let value = if what == "header" && name.eq_ignore_ascii_case("authorization") {
            format!("Bearer ${{{var}}}")
        } else {
            format!("${{{var}}}")
        };
        return Some((name.to_owned(), value));
    }
    notes.push(format!(
        "The optional {}{what} {name}{about} is left out{}.",
        if secret { "secret " } else { "" },
        if secret {
            format!(
                " (add it as ${{{}}} if your people use it)",
                if what == "variable" {
                    name.to_owned()
                } else {
                    variable(prefix, name)
                }
            )
        } else {
            String::new()
        }
    ));
    None
}

/// The variable a user sets for a header or variable of a server: `NEON_AUTHORIZATION` for
/// the `Authorization` header of `neon`; a variable already named after the server keeps its
/// name.
fn variable(prefix: &str, name: &str) -> String {
    let var: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if var.starts_with(&format!("{prefix}_")) || var == prefix {
        var
    } else {
        format!("{prefix}_{var}")
    }
}

fn placeholders(s: &str) -> Vec<String> {
    s.split('{')
        .skip(1)
        .filter_map(|p| p.split_once('}').map(|(n, _)| n.to_owned()))
        .collect()
}

/// An id for a registry name: the part after `/`, lowercased, other characters as hyphens,
/// at most 32 characters (`io.github.microsoft/playwright-mcp` → `playwright-mcp`).
pub fn suggested_id(name: &str) -> String {
    let base = name.rsplit('/').next().unwrap_or(name);
    let mut id = String::new();
    for c in base.chars() {
        let c = if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '-'
        };
        if !(c == '-' && (id.is_empty() || id.ends_with('-'))) {
            id.push(c);
        }
    }
    let mut id: String = id.chars().take(crate::names::MAX_ID_CHARS).collect();
    while id.ends_with('-') {
        id.pop();
    }
    if id.is_empty() {
        "server".to_owned()
    } else {
        id
    }
}
