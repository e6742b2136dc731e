//! Harness renders: every field renders or warns in every harness, golden files pin each
//! shape, rendered files parse back and follow the vendors' schemas, and the behaviour the
//! vendor facts demand holds (deny wins, allowlist vs warn, one key per Copilot entry, …).
use portcullis_manifest::policy::{PolicyInput, Unit};
use portcullis_manifest::render::{Field, Harness, Options, Os, Rendered, Scope, Target, render};
use portcullis_manifest::secrets::looks_like_credential;
use portcullis_manifest::server::{AuthInput, CommandInput, PackageInput};
use portcullis_manifest::{Mode, Policy, Server, ServerInput};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const HELPER: &str = "portcullis-cli token --server https://auth.example.com --realm default --resource {url} --format headers";

fn helper() -> Options {
    Options {
        token_helper: Some(HELPER.into()),
    }
}

fn remote(id: &str, url: &str) -> ServerInput {
    ServerInput {
        id: id.into(),
        url: Some(url.into()),
        rings: vec!["ring0".into()],
        ..Default::default()
    }
}

fn package(id: &str, kind: &str, identifier: &str, version: Option<&str>) -> ServerInput {
    ServerInput {
        id: id.into(),
        package: Some(PackageInput {
            kind: kind.into(),
            identifier: identifier.into(),
            version: version.map(Into::into),
        }),
        rings: vec!["ring0".into()],
        ..Default::default()
    }
}

fn command(id: &str, path: &str, args: &[&str], sha256: Option<String>) -> ServerInput {
    ServerInput {
        id: id.into(),
        command: Some(CommandInput {
            path: path.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            sha256,
        }),
        rings: vec!["ring0".into()],
        ..Default::default()
    }
}

fn auth(mode: &str) -> AuthInput {
    AuthInput {
        mode: mode.into(),
        ..Default::default()
    }
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// The fixture: one server of every kind the registry approves.
fn fixture_servers() -> Vec<ServerInput> {
    let mut wiki = remote("wiki", "https://wiki.example.com/mcp");
    wiki.title = "Team wiki".into();
    wiki.headers.insert("X-Tenant".into(), "acme".into());
    wiki.auth = Some(AuthInput {
        scopes: strings(&["wiki.read", "wiki.write"]),
        ..auth("portcullis")
    });
    wiki.tools.allow = strings(&["search", "fetch", "delete_page"]);
    wiki.tools.deny = strings(&["delete_page"]);
    wiki.rings.push("ring1".into());

    let mut tickets = remote("tickets", "https://tickets.example.com/mcp");
    tickets
        .headers
        .insert("Authorization".into(), "Bearer ${TICKETS_TOKEN}".into());
    tickets
        .headers
        .insert("X-Workspace".into(), "${TICKETS_WORKSPACE}".into());
    tickets.tools.deny = strings(&["delete_ticket"]);
    tickets.units = vec!["payments".into()];

    let mut events = remote("events", "https://events.example.com/sse");
    events.url_transport = Some("sse".into());
    events.auth = Some(AuthInput {
        client_id: Some("portcullis-events".into()),
        issuer: Some("https://login.example.com".into()),
        scopes: strings(&["events.read"]),
        ..auth("oauth")
    });

    let mut playwright = package("playwright", "npm", "@playwright/mcp", Some("0.0.82"));
    playwright.registry_name = Some("io.github.microsoft/playwright-mcp".into());
    playwright.version = Some("0.0.82".into());
    playwright
        .env
        .insert("PLAYWRIGHT_TOKEN".into(), "${PLAYWRIGHT_TOKEN}".into());
    playwright.tools.deny = strings(&["browser_install"]);

    let mut git = package("git", "pypi", "mcp-server-git", Some("2025.1.14"));
    git.env
        .insert("GIT_AUTHOR_NAME".into(), "${USER_NAME}".into());
    git.env.insert("LOG_LEVEL".into(), "info".into());

    let scanner = package(
        "scanner",
        "oci",
        &format!("ghcr.io/acme/scanner@sha256:{}", "ab".repeat(32)),
        None,
    );
    let acme = command(
        "acme-local",
        "/opt/acme/bin/acme-mcp",
        &["--stdio"],
        Some("cd".repeat(32)),
    );
    let dev = command(
        "dev-tools",
        "dev-mcp",
        &["serve", "--root", "${HOME}"],
        None,
    );
    vec![wiki, tickets, events, playwright, git, scanner, acme, dev]
}

fn policy(mode: &str, servers: Vec<ServerInput>) -> Policy {
    let input = PolicyInput {
        mode: mode.into(),
        servers,
        rings: strings(&["ring0", "ring1"]),
        units: vec![
            Unit {
                id: "finance".into(),
                parent: None,
            },
            Unit {
                id: "payments".into(),
                parent: Some("finance".into()),
            },
        ],
    };
    let (p, f) = Policy::check(&input);
    p.unwrap_or_else(|| panic!("fixture refused: {:?}", f.errors))
}

fn ring0(p: &Policy) -> Vec<&Server> {
    p.servers_for(&["ring0".into()], &["payments".into()])
}

fn target(h: Harness, version: Option<&str>) -> Target {
    Target {
        harness: h,
        version: version.map(Into::into),
    }
}

fn file<'a>(r: &'a Rendered, name: &str) -> &'a str {
    r.files
        .iter()
        .find(|f| f.name == name)
        .map(|f| f.contents.as_str())
        .unwrap_or_else(|| {
            panic!(
                "no {name} in {:?}",
                r.files.iter().map(|f| f.name).collect::<Vec<_>>()
            )
        })
}

fn json(r: &Rendered, name: &str) -> Value {
    serde_json::from_str(file(r, name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn toml_value(r: &Rendered, name: &str) -> toml::Table {
    file(r, name)
        .parse()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn warned(r: &Rendered, server: Option<&str>, field: Field) -> bool {
    r.warnings
        .iter()
        .any(|w| w.server.as_deref() == server && field.names(&w.field))
}

// ---------------------------------------------------------------------------------------
// Nothing silently dropped.

/// A server that sets `field`, and the same server without it (or with another value).
fn field_case(field: Field) -> (ServerInput, ServerInput, Options) {
    let base = remote("probe", "https://probe.example.com/mcp");
    let local = package("probe", "npm", "probe-mcp", Some("1.0.0"));
    let cmd = command("probe", "/opt/probe/bin/probe", &[], None);
    let oauth_base = || {
        let mut s = base.clone();
        s.auth = Some(AuthInput {
            client_id: Some("probe-client".into()),
            ..auth("oauth")
        });
        s
    };
    let no = Options::default();
    let mut m;
    // No `_` arm: a new field does not compile until it has a case here.
    match field {
        Field::Id => {
            m = base.clone();
            m.id = "renamed".into();
        }
        Field::Title => {
            m = base.clone();
            m.title = "Probe for people".into();
        }
        Field::Url => {
            m = base.clone();
            m.url = Some("https://elsewhere.example.com/mcp".into());
        }
        Field::UrlTransport => {
            m = base.clone();
            m.url_transport = Some("sse".into());
        }
        Field::PackageIdentifier => {
            m = local.clone();
            m.package.as_mut().expect("package").identifier = "@acme/probe".into();
            return (local, m, no);
        }
        Field::PackageVersion => {
            m = local.clone();
            m.package.as_mut().expect("package").version = Some("1.0.1".into());
            return (local, m, no);
        }
        Field::CommandPath => {
            m = cmd.clone();
            m.command.as_mut().expect("command").path = "/opt/other/bin/probe".into();
            return (cmd, m, no);
        }
        Field::CommandArgs => {
            m = cmd.clone();
            m.command.as_mut().expect("command").args = strings(&["--stdio"]);
            return (cmd, m, no);
        }
        Field::CommandSha256 => {
            m = cmd.clone();
            m.command.as_mut().expect("command").sha256 = Some("ef".repeat(32));
            return (cmd, m, no);
        }
        Field::Registry => {
            m = local.clone();
            m.registry_name = Some("io.github.acme/probe".into());
            m.version = Some("1.0.0".into());
            return (local, m, no);
        }
        Field::Headers => {
            m = base.clone();
            m.headers.insert("X-Tenant".into(), "acme".into());
        }
        Field::Env => {
            m = local.clone();
            m.env.insert("LOG_LEVEL".into(), "debug".into());
            return (local, m, no);
        }
        Field::ToolsAllow => {
            m = base.clone();
            m.tools.allow = strings(&["search"]);
        }
        Field::ToolsDeny => {
            m = base.clone();
            m.tools.deny = strings(&["delete_page"]);
        }
        Field::AuthMode => {
            m = base.clone();
            m.auth = Some(auth("portcullis"));
            return (base, m, helper());
        }
        Field::AuthClientId => {
            m = oauth_base();
            return (base, m, no);
        }
        Field::AuthClientMetadataUrl => {
            m = base.clone();
            m.auth = Some(AuthInput {
                client_metadata_url: Some("https://acme.example.com/mcp-client.json".into()),
                ..auth("oauth")
            });
        }
        Field::AuthIssuer => {
            let b = oauth_base();
            m = b.clone();
            m.auth.as_mut().expect("auth").issuer = Some("https://login.example.com".into());
            return (b, m, no);
        }
        Field::AuthIdentityIssuer => {
            m = base.clone();
            m.auth = Some(AuthInput {
                identity_issuer: Some("https://idp.example.com".into()),
                ..auth("enterprise")
            });
        }
        Field::AuthScopes => {
            let b = oauth_base();
            m = b.clone();
            m.auth.as_mut().expect("auth").scopes = strings(&["probe.read"]);
            return (b, m, no);
        }
        Field::Rings | Field::Units | Field::Mode => {
            // Checked on the policy, below.
            m = base.clone();
        }
    }
    (base, m, no)
}

fn render_one(h: Harness, mode: &str, s: ServerInput, opts: &Options) -> Rendered {
    let p = policy(mode, vec![s]);
    let servers: Vec<&Server> = p.servers.iter().collect();
    render(&Target::current(h), &p, &servers, opts)
}

fn contents(r: &Rendered) -> Vec<(&'static str, &str)> {
    r.files
        .iter()
        .map(|f| (f.name, f.contents.as_str()))
        .collect()
}

#[test]
fn every_field_renders_or_warns_in_every_harness() {
    let mut failures = Vec::new();
    for field in Field::ALL {
        for h in Harness::ALL {
            for mode in ["allowlist", "warn"] {
                let ok = match field {
                    Field::Rings | Field::Units => {
                        // Chosen before rendering: the server reaches exactly the ring or
                        // unit named, and its render.
                        let mut s = remote("probe", "https://probe.example.com/mcp");
                        let (rings, units): (Vec<String>, Vec<String>) = if field == Field::Rings {
                            s.rings = strings(&["ring1"]);
                            (strings(&["ring1"]), vec![])
                        } else {
                            s.rings = vec![];
                            s.units = strings(&["finance"]);
                            (vec![], strings(&["payments"]))
                        };
                        let p = policy(mode, vec![s]);
                        let got = p.servers_for(&rings, &units);
                        let none = p.servers_for(&strings(&["ring0"]), &[]);
                        let r = render(&Target::current(h), &p, &got, &Options::default());
                        got.len() == 1
                            && none.is_empty()
                            && r.files.iter().any(|f| f.contents.contains("probe"))
                    }
                    Field::Mode => {
                        let s = remote("probe", "https://probe.example.com/mcp");
                        let a = render_one(h, "allowlist", s.clone(), &Options::default());
                        let w = render_one(h, "warn", s, &Options::default());
                        contents(&a) != contents(&w) || warned(&a, None, Field::Mode)
                    }
                    _ => {
                        let (base, modified, opts) = field_case(field);
                        let id = modified.id.clone();
                        let b = render_one(h, mode, base, &opts);
                        let m = render_one(h, mode, modified, &opts);
                        contents(&b) != contents(&m) || warned(&m, Some(&id), field)
                    }
                };
                if !ok {
                    failures.push(format!("{} × {} ({mode})", field.as_str(), h.as_str()));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "neither rendered nor warned: {failures:#?}"
    );
}

#[test]
fn a_portcullis_server_without_a_helper_gets_no_credential_and_a_note() {
    let mut s = remote("wiki", "https://wiki.example.com/mcp");
    s.auth = Some(auth("portcullis"));
    for h in Harness::ALL {
        let r = render_one(h, "allowlist", s.clone(), &Options::default());
        assert!(
            r.notes
                .iter()
                .any(|n| n.contains("RFC 9728") && n.contains("wiki")),
            "{}: {:?}",
            h.as_str(),
            r.notes
        );
        for f in &r.files {
            assert!(!f.contents.contains("portcullis-cli"), "{}", f.contents);
            assert!(
                !f.contents.to_lowercase().contains("helper"),
                "{}",
                f.contents
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Golden files.

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/render")
}

/// The warnings and notes of a render, one per line, as the Deliver screen lists them.
fn report(r: &Rendered) -> String {
    let mut s = String::from("# Warnings\n");
    for w in &r.warnings {
        s.push_str(&format!(
            "- [{}] {}: {}\n",
            w.server.as_deref().unwrap_or("*"),
            w.field,
            w.message
        ));
    }
    s.push_str("\n# Notes\n");
    for n in &r.notes {
        s.push_str(&format!("- {n}\n"));
    }
    s.push_str("\n# Files\n");
    for f in &r.files {
        let scope = match f.scope {
            Scope::Managed => "managed",
            Scope::User => "user",
        };
        s.push_str(&format!("- {} ({scope}, {})\n", f.name, f.media_type));
        for (os, path) in &f.paths {
            let os = match os {
                Os::Linux => "linux",
                Os::MacOs => "macos",
                Os::Windows => "windows",
            };
            s.push_str(&format!("  - {os}: {path}\n"));
        }
    }
    s
}

/// Every golden target: each harness at its current version, and the versions whose shape
/// differs.
const GOLDEN_TARGETS: &[(Harness, Option<&str>)] = &[
    (Harness::ClaudeCode, None),
    (Harness::ClaudeCode, Some("2.1.240")),
    (Harness::Codex, None),
    (Harness::Codex, Some("0.170.0")),
    (Harness::Gemini, None),
    (Harness::Copilot, None),
    (Harness::Cursor, None),
    (Harness::OpenCode, None),
    (Harness::OpenCode, Some("2")),
];

#[test]
fn golden_files_pin_each_shape() {
    let update = std::env::var_os("UPDATE_GOLDENS").is_some();
    let mut mismatches = Vec::new();
    for (h, version) in GOLDEN_TARGETS {
        for mode in ["allowlist", "warn"] {
            let p = policy(mode, fixture_servers());
            let r = render(&target(*h, *version), &p, &ring0(&p), &helper());
            let dir = golden_dir()
                .join(match version {
                    Some(v) => format!("{}-{v}", h.as_str()),
                    None => h.as_str().to_owned(),
                })
                .join(mode);
            let mut expected: BTreeMap<String, String> = r
                .files
                .iter()
                .map(|f| (f.name.to_owned(), f.contents.clone()))
                .collect();
            expected.insert("REPORT.md".into(), report(&r));
            if update {
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).expect("golden dir");
                for (name, text) in &expected {
                    std::fs::write(dir.join(name), text).expect("write golden");
                }
                continue;
            }
            let mut found: BTreeMap<String, String> = BTreeMap::new();
            for entry in std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDENS=1)", dir.display()))
            {
                let path = entry.expect("entry").path();
                let name = path
                    .file_name()
                    .expect("name")
                    .to_string_lossy()
                    .into_owned();
                found.insert(name, std::fs::read_to_string(&path).expect("read golden"));
            }
            for (name, text) in &expected {
                if found.get(name) != Some(text) {
                    mismatches.push(format!("{}/{name}", dir.display()));
                }
            }
            for name in found.keys().filter(|n| !expected.contains_key(*n)) {
                mismatches.push(format!("{}/{name} (no longer rendered)", dir.display()));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "goldens differ (UPDATE_GOLDENS=1 rewrites them; review the diff): {mismatches:#?}"
    );
}

// ---------------------------------------------------------------------------------------
// Valid files.

fn all_renders() -> Vec<(String, Rendered)> {
    let mut out = Vec::new();
    for (h, version) in GOLDEN_TARGETS {
        for mode in ["allowlist", "warn"] {
            for opts in [helper(), Options::default()] {
                let p = policy(mode, fixture_servers());
                let r = render(&target(*h, *version), &p, &ring0(&p), &opts);
                out.push((format!("{}@{version:?} {mode}", h.as_str()), r));
            }
        }
    }
    out
}

#[test]
fn every_file_parses_back_and_ends_in_a_newline() {
    for (what, r) in all_renders() {
        assert!(!r.files.is_empty(), "{what}");
        for f in &r.files {
            assert!(f.contents.ends_with('\n'), "{what} {}", f.name);
            assert!(!f.paths.is_empty(), "{what} {}: no install path", f.name);
            match f.media_type {
                "application/json" => {
                    serde_json::from_str::<Value>(&f.contents)
                        .unwrap_or_else(|e| panic!("{what} {}: {e}", f.name));
                }
                "application/toml" => {
                    f.contents
                        .parse::<toml::Table>()
                        .unwrap_or_else(|e| panic!("{what} {}: {e}", f.name));
                }
                other => panic!("{what} {}: {other}", f.name),
            }
        }
    }
}

fn schema(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs/registry/harness-schemas")
        .join(file);
    serde_json::from_slice(&std::fs::read(&path).expect("schema")).expect("schema json")
}

#[test]
fn gemini_settings_follow_the_vendor_schema() {
    let validator =
        jsonschema::validator_for(&schema("gemini-cli.settings.schema.json")).expect("validator");
    for (what, r) in all_renders()
        .iter()
        .filter(|(w, _)| w.starts_with("gemini"))
    {
        let doc = json(r, "settings.json");
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{what}: {errors:?}\n{doc:#}");
    }
    // The schema is strict about server entries: an unknown key is refused.
    let bad = serde_json::json!({"mcpServers": {"x": {"httpUrl": "https://x", "tools": []}}});
    assert!(!validator.is_valid(&bad));
}

#[test]
fn codex_servers_follow_the_vendor_schema() {
    let mut defs = schema("codex-config.schema.mcp-excerpt.json")["definitions"].clone();
    let strict = jsonschema::validator_for(&serde_json::json!({
        "definitions": defs.clone(),
        "$ref": "#/definitions/RawMcpServerConfig"
    }))
    .expect("validator");
    // 0.171.0 reads http_headers_helper, which the schema snapshot predates (its $comment).
    defs["RawMcpServerConfig"]["properties"]["http_headers_helper"] =
        serde_json::json!({"type": "string"});
    let current = jsonschema::validator_for(&serde_json::json!({
        "definitions": defs,
        "$ref": "#/definitions/RawMcpServerConfig"
    }))
    .expect("validator");
    for (what, r) in all_renders().iter().filter(|(w, _)| w.starts_with("codex")) {
        let config = toml_value(r, "config.toml");
        let servers = config["mcp_servers"].as_table().expect("mcp_servers");
        assert!(!servers.is_empty(), "{what}");
        let validator = if what.contains("0.170.0") {
            &strict
        } else {
            &current
        };
        for (id, s) in servers {
            let doc = serde_json::to_value(s).expect("json");
            let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{what} {id}: {errors:?}\n{doc:#}");
        }
    }
    assert!(!strict.is_valid(&serde_json::json!({"url": "https://x", "disabled_tool": ["a"]})));
}

/// Claude Code's zod rules from the 2.1.332 binary, as far as the render uses them.
fn check_claude(what: &str, r: &Rendered) {
    if let Some(f) = r.files.iter().find(|f| f.name == "managed-settings.json") {
        let doc: Value = serde_json::from_str(&f.contents).expect("json");
        for key in ["allowedMcpServers", "deniedMcpServers"] {
            for e in doc[key].as_array().into_iter().flatten() {
                let o = e.as_object().expect("entry");
                assert_eq!(o.len(), 1, "{what}: {e}");
                let (k, v) = o.iter().next().expect("key");
                match k.as_str() {
                    "serverUrl" => assert!(v.is_string()),
                    "serverCommand" => assert!(!v.as_array().expect("argv").is_empty()),
                    "serverName" => assert!(v.is_string()),
                    other => panic!("{what}: {other}"),
                }
            }
        }
        for (id, s) in doc["managedMcpServers"].as_object().into_iter().flatten() {
            assert!(
                matches!(s["type"].as_str(), Some("http" | "sse")),
                "{what} {id}"
            );
            assert!(s["url"].as_str().expect("url").starts_with("https://"));
            for k in ["command", "args", "env", "headersHelper"] {
                assert!(s.get(k).is_none(), "{what} {id}: {k}");
            }
            assert!(!s.to_string().contains("${"), "{what} {id}");
        }
        for rule in doc["permissions"]["deny"].as_array().into_iter().flatten() {
            assert!(rule.as_str().expect("rule").starts_with("mcp__"), "{what}");
        }
    }
    for name in ["managed-mcp.json", "portcullis.mcp.json"] {
        let Some(f) = r.files.iter().find(|f| f.name == name) else {
            continue;
        };
        let doc: Value = serde_json::from_str(&f.contents).expect("json");
        for (id, s) in doc["mcpServers"].as_object().expect("servers") {
            match s["type"].as_str() {
                Some("stdio") => {
                    assert!(!s["command"].as_str().expect("command").is_empty());
                    assert!(s["args"].is_array());
                }
                Some("http" | "sse") => {
                    assert!(s["url"].is_string(), "{what} {id}");
                    if let Some(o) = s.get("oauth") {
                        assert!(o.get("scopes").is_none_or(Value::is_string), "{what} {id}");
                    }
                }
                other => panic!("{what} {id}: type {other:?}"),
            }
        }
    }
}

#[test]
fn claude_files_are_exactly_valid() {
    for (what, r) in all_renders()
        .iter()
        .filter(|(w, _)| w.starts_with("claude"))
    {
        check_claude(what, r);
    }
}

// ---------------------------------------------------------------------------------------
// Behaviour.

#[test]
fn deny_wins_in_every_harness_that_can_deny() {
    let p = policy("allowlist", fixture_servers());
    let servers = ring0(&p);
    let r = |h| render(&Target::current(h), &p, &servers, &helper());
    // wiki allows search, fetch and delete_page, and denies delete_page.
    let claude = json(&r(Harness::ClaudeCode), "managed-settings.json");
    assert!(
        claude["permissions"]["deny"]
            .as_array()
            .expect("deny")
            .contains(&"mcp__wiki__delete_page".into())
    );
    let codex = toml_value(&r(Harness::Codex), "config.toml");
    let wiki = &codex["mcp_servers"]["wiki"];
    assert_eq!(
        wiki["disabled_tools"].as_array().expect("disabled").len(),
        1
    );
    let gemini = json(&r(Harness::Gemini), "settings.json");
    assert_eq!(
        gemini["mcpServers"]["wiki"]["excludeTools"][0],
        "delete_page"
    );
    let copilot = json(&r(Harness::Copilot), "mcp-config.json");
    assert_eq!(
        copilot["mcpServers"]["wiki"]["tools"],
        serde_json::json!(["search", "fetch"])
    );
    let opencode = json(&r(Harness::OpenCode), "opencode.json");
    assert_eq!(opencode["permission"]["wiki_delete_page"], "deny");
    assert_eq!(opencode["permission"]["tickets_delete_ticket"], "deny");
}

#[test]
fn allowlist_mode_blocks_what_warn_mode_leaves() {
    let a = policy("allowlist", fixture_servers());
    let w = policy("warn", fixture_servers());
    let both = |h| {
        (
            render(&Target::current(h), &a, &ring0(&a), &helper()),
            render(&Target::current(h), &w, &ring0(&w), &helper()),
        )
    };
    let (ca, cw) = both(Harness::ClaudeCode);
    let settings = json(&ca, "managed-settings.json");
    assert_eq!(settings["allowManagedMcpServersOnly"], true);
    assert_eq!(
        settings["allowedMcpServers"]
            .as_array()
            .expect("allowed")
            .len(),
        8
    );
    assert!(
        cw.files.iter().all(|f| f.name != "managed-mcp.json"),
        "warn mode must not take exclusive control"
    );
    let settings = json(&cw, "managed-settings.json");
    assert!(settings.get("allowedMcpServers").is_none());
    assert!(settings.get("allowManagedMcpServersOnly").is_none());
    assert!(
        settings["permissions"]["deny"].is_array(),
        "tool denies hold in warn mode too"
    );

    let (xa, xw) = both(Harness::Codex);
    assert!(xa.files.iter().any(|f| f.name == "requirements.toml"));
    assert!(xw.files.iter().all(|f| f.name != "requirements.toml"));

    let (ga, gw) = both(Harness::Gemini);
    assert!(json(&ga, "settings.json")["mcp"]["allowed"].is_array());
    assert!(json(&gw, "settings.json").get("mcp").is_none());

    let (pa, pw) = both(Harness::Copilot);
    assert!(pa.files.iter().any(|f| f.name == "managed-settings.json"));
    assert!(pw.files.iter().all(|f| f.name != "managed-settings.json"));

    let (oa, ow) = both(Harness::OpenCode);
    assert!(
        warned(&oa, None, Field::Mode),
        "OpenCode cannot block: say so"
    );
    assert!(!warned(&ow, None, Field::Mode));
}

#[test]
fn copilot_allowlist_entries_have_exactly_one_key() {
    let p = policy("allowlist", fixture_servers());
    let r = render(
        &Target::current(Harness::Copilot),
        &p,
        &ring0(&p),
        &helper(),
    );
    let doc = json(&r, "managed-settings.json");
    let entries = doc["allowedMcpServers"].as_array().expect("entries");
    assert_eq!(entries.len(), 8);
    for e in entries {
        let o = e.as_object().expect("object");
        assert_eq!(o.len(), 1, "{e}");
        assert!(
            ["serverUrl", "serverCommand", "serverName"]
                .contains(&o.keys().next().expect("k").as_str())
        );
    }
    assert!(
        entries.contains(
            &serde_json::json!({"serverCommand": ["npx", "-y", "@playwright/mcp@0.0.82"]})
        )
    );
    assert!(entries.contains(&serde_json::json!({"serverUrl": "https://wiki.example.com/mcp"})));
    // Tool rules live only in the user's file: warned as unenforced.
    assert!(warned(&r, Some("wiki"), Field::ToolsAllow));
    assert!(warned(&r, Some("tickets"), Field::ToolsDeny));
}

#[test]
fn claude_pushes_only_plain_https_servers_and_only_from_2_1_259() {
    let mut plain = remote("plain", "https://plain.example.com/mcp");
    plain.headers.insert("X-Tenant".into(), "acme".into());
    let mut var = remote("var", "https://var.example.com/mcp");
    var.headers
        .insert("Authorization".into(), "Bearer ${VAR_TOKEN}".into());
    let mut helped = remote("helped", "https://helped.example.com/mcp");
    helped.auth = Some(auth("portcullis"));
    let local = package("local", "npm", "local-mcp", Some("1.0.0"));
    let p = policy("warn", vec![plain, var, helped, local]);
    let servers: Vec<&Server> = p.servers.iter().collect();
    let now = render(
        &target(Harness::ClaudeCode, Some("2.1.259")),
        &p,
        &servers,
        &helper(),
    );
    let pushed = json(&now, "managed-settings.json")["managedMcpServers"].clone();
    assert_eq!(
        pushed
            .as_object()
            .expect("pushed")
            .keys()
            .collect::<Vec<_>>(),
        ["plain"]
    );
    let user = json(&now, "portcullis.mcp.json");
    for id in ["var", "helped", "local"] {
        assert!(user["mcpServers"].get(id).is_some(), "{id}");
    }
    assert_eq!(
        user["mcpServers"]["helped"]["headersHelper"],
        "portcullis-cli token --server https://auth.example.com --realm default --resource https://helped.example.com/mcp --format headers"
    );
    let before = render(
        &target(Harness::ClaudeCode, Some("2.1.258")),
        &p,
        &servers,
        &helper(),
    );
    assert!(
        before
            .files
            .iter()
            .all(|f| !f.contents.contains("managedMcpServers"))
    );
    assert_eq!(
        json(&before, "portcullis.mcp.json")["mcpServers"]
            .as_object()
            .expect("servers")
            .len(),
        4
    );
    // Allowlist mode: everything in managed-mcp.json, each listed, scopes one string.
    let p = policy("allowlist", fixture_servers());
    let r = render(
        &Target::current(Harness::ClaudeCode),
        &p,
        &ring0(&p),
        &helper(),
    );
    let mcp = json(&r, "managed-mcp.json");
    assert_eq!(
        mcp["mcpServers"]["events"]["oauth"]["scopes"],
        "events.read"
    );
    assert_eq!(
        mcp["mcpServers"]["wiki"]["oauth"]["scopes"],
        "wiki.read wiki.write"
    );
    assert_eq!(mcp["mcpServers"]["events"]["type"], "sse");
    assert_eq!(
        mcp["mcpServers"]["tickets"]["headers"]["Authorization"],
        "Bearer ${TICKETS_TOKEN}"
    );
}

#[test]
fn codex_warns_per_local_server_that_requirements_cannot_pin_its_version() {
    let p = policy("allowlist", fixture_servers());
    let r = render(&Target::current(Harness::Codex), &p, &ring0(&p), &helper());
    assert!(warned(&r, Some("playwright"), Field::PackageVersion));
    assert!(warned(&r, Some("git"), Field::PackageVersion));
    assert!(warned(&r, Some("scanner"), Field::PackageIdentifier));
    assert!(warned(&r, Some("acme-local"), Field::CommandArgs));
    assert!(!warned(&r, Some("wiki"), Field::PackageVersion));
    let req = toml_value(&r, "requirements.toml");
    assert_eq!(
        req["mcp_servers"]["playwright"]["identity"]["command"].as_str(),
        Some("npx")
    );
    assert_eq!(
        req["mcp_servers"]["wiki"]["identity"]["url"].as_str(),
        Some("https://wiki.example.com/mcp")
    );
    let config = toml_value(&r, "config.toml");
    let servers = config["mcp_servers"].as_table().expect("servers");
    // The URL in config.toml is the identity's, exactly.
    assert_eq!(
        servers["wiki"]["url"].as_str(),
        Some("https://wiki.example.com/mcp")
    );
    assert_eq!(
        servers["wiki"]["http_headers_helper"].as_str(),
        Some(
            "portcullis-cli token --server https://auth.example.com --realm default --resource https://wiki.example.com/mcp --format headers"
        )
    );
    assert_eq!(
        servers["tickets"]["bearer_token_env_var"].as_str(),
        Some("TICKETS_TOKEN")
    );
    assert_eq!(
        servers["tickets"]["env_http_headers"]["X-Workspace"].as_str(),
        Some("TICKETS_WORKSPACE")
    );
    assert_eq!(
        servers["playwright"]["env_vars"][0].as_str(),
        Some("PLAYWRIGHT_TOKEN")
    );
    // SSE and an argument with ${VAR} cannot run in Codex: not delivered, and said.
    assert!(!servers.contains_key("events") && warned(&r, Some("events"), Field::UrlTransport));
    assert!(
        !servers.contains_key("dev-tools") && warned(&r, Some("dev-tools"), Field::CommandArgs)
    );
    assert!(
        warned(&r, Some("git"), Field::Env),
        "${{USER_NAME}} under another name"
    );
    // Before 0.171.0 there is no helper key to write.
    let old = render(
        &target(Harness::Codex, Some("0.170.0")),
        &p,
        &ring0(&p),
        &helper(),
    );
    assert!(!file(&old, "config.toml").contains("http_headers_helper"));
    assert!(warned(&old, Some("wiki"), Field::AuthMode));
}

#[test]
fn gemini_uses_http_url_for_streamable_http_and_url_for_sse() {
    let p = policy("allowlist", fixture_servers());
    let r = render(&Target::current(Harness::Gemini), &p, &ring0(&p), &helper());
    let doc = json(&r, "settings.json");
    let s = &doc["mcpServers"];
    assert_eq!(s["wiki"]["httpUrl"], "https://wiki.example.com/mcp");
    assert!(s["wiki"].get("url").is_none());
    assert_eq!(s["events"]["url"], "https://events.example.com/sse");
    assert!(s["events"].get("httpUrl").is_none());
    assert_eq!(s["events"]["oauth"]["clientId"], "portcullis-events");
    assert_eq!(s["events"]["oauth"]["issuer"], "https://login.example.com");
    assert_eq!(
        s["events"]["oauth"]["scopes"],
        serde_json::json!(["events.read"])
    );
    assert!(
        warned(&r, Some("wiki"), Field::AuthMode),
        "no helper in Gemini CLI"
    );
    assert!(
        r.notes.iter().any(|n| n.contains("trusted")),
        "{:?}",
        r.notes
    );
    let allowed = doc["mcp"]["allowed"].as_array().expect("allowed");
    assert_eq!(allowed.len(), s.as_object().expect("servers").len());
}

#[test]
fn opencode_one_and_two_have_their_own_shapes() {
    let p = policy("allowlist", fixture_servers());
    let one = json(
        &render(
            &target(Harness::OpenCode, Some("1")),
            &p,
            &ring0(&p),
            &helper(),
        ),
        "opencode.json",
    );
    assert_eq!(one["$schema"], "https://opencode.ai/config.json");
    assert_eq!(
        one["mcp"]["events"]["oauth"]["clientId"],
        "portcullis-events"
    );
    assert_eq!(one["mcp"]["events"]["enabled"], true);
    assert_eq!(
        one["mcp"]["tickets"]["headers"]["Authorization"],
        "Bearer {env:TICKETS_TOKEN}"
    );
    assert_eq!(
        one["mcp"]["playwright"]["command"],
        serde_json::json!(["npx", "-y", "@playwright/mcp@0.0.82"])
    );
    let two_r = render(
        &target(Harness::OpenCode, Some("2.0.0")),
        &p,
        &ring0(&p),
        &helper(),
    );
    let two = json(&two_r, "opencode.json");
    assert!(two["mcp"].get("events").is_none());
    assert_eq!(
        two["mcp"]["servers"]["events"]["oauth"]["client_id"],
        "portcullis-events"
    );
    assert_eq!(two["mcp"]["servers"]["events"]["disabled"], false);
    assert!(two["mcp"]["servers"]["events"].get("enabled").is_none());
    assert!(warned(&two_r, Some("wiki"), Field::ToolsDeny));
}

#[test]
fn cursor_says_it_has_no_managed_file_and_renders_a_user_one() {
    let p = policy("allowlist", fixture_servers());
    let r = render(&Target::current(Harness::Cursor), &p, &ring0(&p), &helper());
    assert!(warned(&r, None, Field::Mode));
    assert!(r.files.iter().all(|f| f.scope == Scope::User));
    let doc = json(&r, "mcp.json");
    assert_eq!(
        doc["mcpServers"]["events"]["auth"],
        serde_json::json!({"CLIENT_ID": "portcullis-events", "scopes": ["events.read"]})
    );
    assert_eq!(
        doc["mcpServers"]["tickets"]["headers"]["Authorization"],
        "Bearer ${env:TICKETS_TOKEN}"
    );
    assert_eq!(doc["mcpServers"]["dev-tools"]["args"][2], "${env:HOME}");
}

#[test]
fn tool_names_follow_each_harness_and_split_back_unambiguously() {
    let cases = [
        (Harness::ClaudeCode, "mcp__pay-2__refund_all"),
        (Harness::Codex, "mcp__pay-2__refund_all"),
        (Harness::Gemini, "mcp_pay-2_refund_all"),
        (Harness::Copilot, "pay-2-refund_all"),
        (Harness::OpenCode, "pay-2_refund_all"),
    ];
    for (h, name) in cases {
        assert_eq!(h.tool_name("pay-2", "refund_all").as_deref(), Some(name));
    }
    assert_eq!(Harness::Cursor.tool_name("pay-2", "refund_all"), None);
    // Every id is valid where a tool rule's name is built from it; the id has no '_', so
    // the first '_' (after the prefix) ends it in Gemini and OpenCode.
    for id in ["wiki", "pay-2", "a"] {
        assert!(portcullis_manifest::names::check_id(id).is_ok());
        for tool in ["search", "delete_page", "x-y"] {
            assert!(portcullis_manifest::names::check_tool(id, tool).is_ok());
            let g = Harness::Gemini.tool_name(id, tool).expect("gemini");
            let (sid, t) = g["mcp_".len()..].split_once('_').expect("split");
            assert_eq!((sid, t), (id, tool));
            let o = Harness::OpenCode.tool_name(id, tool).expect("opencode");
            assert_eq!(o.split_once('_'), Some((id, tool)));
        }
    }
}

#[test]
fn no_output_holds_a_secret_looking_literal() {
    fn strings_of(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => a.iter().for_each(|x| strings_of(x, out)),
            Value::Object(o) => o.iter().for_each(|(k, x)| {
                out.push(k.clone());
                strings_of(x, out);
            }),
            _ => {}
        }
    }
    // Launch lines derived from pinned packages (name==version) are not credentials.
    let p = policy("allowlist", fixture_servers());
    let launched: Vec<String> = p
        .servers
        .iter()
        .filter_map(|s| match &s.transport {
            portcullis_manifest::Transport::Package(p) => Some(p.launch().1),
            _ => None,
        })
        .flatten()
        .collect();
    for (what, r) in all_renders() {
        for f in &r.files {
            let value: Value = if f.media_type == "application/toml" {
                serde_json::to_value(f.contents.parse::<toml::Table>().expect("toml"))
                    .expect("json")
            } else {
                serde_json::from_str(&f.contents).expect("json")
            };
            let mut all = Vec::new();
            strings_of(&value, &mut all);
            for s in all.iter().filter(|s| !launched.contains(s)) {
                assert!(!looks_like_credential(s), "{what} {}: {s}", f.name);
            }
        }
    }
}

#[test]
fn a_literal_credential_is_never_written_even_if_a_server_holds_one() {
    let mut p = policy(
        "allowlist",
        vec![remote("wiki", "https://wiki.example.com/mcp")],
    );
    // A checked server cannot hold one; its fields are public, so the renderer checks again.
    let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    p.servers[0]
        .headers
        .insert("Authorization".into(), format!("Bearer {token}"));
    let servers: Vec<&Server> = p.servers.iter().collect();
    for h in Harness::ALL {
        let r = render(&Target::current(h), &p, &servers, &Options::default());
        assert!(
            r.files.iter().all(|f| !f.contents.contains(token)),
            "{}",
            h.as_str()
        );
        assert!(warned(&r, Some("wiki"), Field::Headers), "{}", h.as_str());
    }
}

#[test]
fn fixed_text_a_harness_would_expand_is_refused_not_written() {
    let mut s = remote("shop", "https://shop.example.com/mcp");
    s.title = "Pay $USER".into();
    s.headers.insert("X-Note".into(), "costs $HOME".into());
    s.headers.insert("X-File".into(), "{file:~/.netrc}".into());
    let gemini = render_one(Harness::Gemini, "allowlist", s.clone(), &Options::default());
    let text = file(&gemini, "settings.json");
    assert!(!text.contains("$HOME") && !text.contains("$USER"), "{text}");
    assert!(warned(&gemini, Some("shop"), Field::Title));
    assert!(gemini.warnings.iter().any(|w| w.field == "headers.X-Note"));
    let opencode = render_one(Harness::OpenCode, "allowlist", s, &Options::default());
    assert!(!file(&opencode, "opencode.json").contains("{file:"));
    assert!(
        opencode
            .warnings
            .iter()
            .any(|w| w.field == "headers.X-File")
    );
}

#[test]
fn harnesses_serialize_as_they_are_named() {
    for h in Harness::ALL {
        assert_eq!(serde_json::to_value(h).expect("json"), h.as_str());
    }
}

#[test]
fn every_harness_renders_the_empty_audience_validly() {
    for h in Harness::ALL {
        for mode in ["allowlist", "warn"] {
            let p = policy(mode, vec![]);
            let r = render(&Target::current(h), &p, &[], &Options::default());
            for f in &r.files {
                if f.media_type == "application/json" {
                    serde_json::from_str::<Value>(&f.contents).expect("json");
                } else {
                    f.contents.parse::<toml::Table>().expect("toml");
                }
            }
            if h == Harness::ClaudeCode && mode == "allowlist" {
                // An empty managed-mcp.json turns MCP off: what an empty allowlist means.
                assert_eq!(
                    json(&r, "managed-mcp.json")["mcpServers"],
                    serde_json::json!({})
                );
            }
        }
    }
}

#[test]
fn targets_and_harnesses_parse() {
    for h in Harness::ALL {
        assert_eq!(Harness::parse(h.as_str()), Some(h));
    }
    assert_eq!(Harness::parse("vim"), None);
    let t = Target::parse("claude-code", Some("2.1.259")).expect("target");
    assert_eq!(t.version.as_deref(), Some("2.1.259"));
    assert!(Target::parse("claude-code", Some("latest")).is_err());
    assert!(Target::parse("emacs", None).is_err());
    assert_eq!(
        Target::parse("opencode", Some("")).expect("t").version,
        None
    );
}

#[test]
fn five_hundred_servers_render_in_every_harness() {
    let servers: Vec<ServerInput> = (0..500)
        .map(|i| {
            let mut s = if i % 2 == 0 {
                remote(&format!("s{i}"), &format!("https://s{i}.example.com/mcp"))
            } else {
                package(&format!("s{i}"), "npm", &format!("pkg-{i}"), Some("1.0.0"))
            };
            s.tools.deny = strings(&["drop"]);
            s
        })
        .collect();
    let p = policy("allowlist", servers);
    let all: Vec<&Server> = p.servers.iter().collect();
    let started = std::time::Instant::now();
    for h in Harness::ALL {
        let r = render(&Target::current(h), &p, &all, &helper());
        assert!(
            r.files.iter().any(|f| f.contents.contains("s499")),
            "{}",
            h.as_str()
        );
    }
    // Generous for an unoptimised build on a shared machine; the target is 50 ms optimised.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let _ = Mode::Allowlist;
}

#[test]
fn a_helper_naming_a_url_a_shell_would_read_is_not_rendered() {
    for h in [Harness::ClaudeCode, Harness::Codex] {
        let safe = render_one(
            h,
            "allowlist",
            ServerInput {
                auth: Some(auth("portcullis")),
                ..remote("wiki", "https://wiki.example.com/mcp")
            },
            &helper(),
        );
        assert!(!warned(&safe, Some("wiki"), Field::AuthMode), "{h:?}");
        let odd = render_one(
            h,
            "allowlist",
            ServerInput {
                auth: Some(auth("portcullis")),
                ..remote("wiki", "https://wiki.example.com/a;b&c|d")
            },
            &helper(),
        );
        assert!(warned(&odd, Some("wiki"), Field::AuthMode), "{h:?}");
        assert!(
            odd.files.iter().all(|f| !f.contents.contains("--resource")),
            "{h:?}"
        );
    }
}
