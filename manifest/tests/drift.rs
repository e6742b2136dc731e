//! Drift against a crafted home (tests/fixtures/drift-home): every harness's user config, with
//! approved, drifted, unapproved and disabled servers, and secrets planted in arguments,
//! environment, headers, URL paths, queries and user info that no output may repeat.
use portcullis_manifest::Policy;
use portcullis_manifest::drift::{
    Configured, ConfiguredTransport, DriftFinding, FindingKind, Harness, TransportKind, compare,
    configured,
};
use portcullis_manifest::policy::{PolicyInput, Unit};
use portcullis_manifest::server::{CommandInput, PackageInput, ServerInput};

const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn policy(mode: &str) -> Policy {
    let ring0 = || vec!["ring0".to_owned()];
    let package = |kind: &str, identifier: &str, version: Option<&str>| PackageInput {
        kind: kind.into(),
        identifier: identifier.into(),
        version: version.map(str::to_owned),
    };
    let input = PolicyInput {
        mode: mode.into(),
        servers: vec![
            ServerInput {
                id: "wiki".into(),
                url: Some("https://wiki.example.com/mcp".into()),
                rings: ring0(),
                ..Default::default()
            },
            ServerInput {
                id: "playwright".into(),
                package: Some(package("npm", "@playwright/mcp", Some("0.0.82"))),
                rings: ring0(),
                ..Default::default()
            },
            ServerInput {
                id: "fetch".into(),
                package: Some(package("pypi", "mcp-server-fetch", Some("1.2.0"))),
                units: vec!["eng".into()],
                ..Default::default()
            },
            ServerInput {
                id: "tools".into(),
                package: Some(package(
                    "oci",
                    &format!("ghcr.io/acme/tools@sha256:{DIGEST}"),
                    None,
                )),
                units: vec!["payments".into()],
                ..Default::default()
            },
            ServerInput {
                id: "local".into(),
                command: Some(CommandInput {
                    path: "/opt/acme/bin/acme-mcp".into(),
                    args: vec!["--stdio".into()],
                    sha256: Some(DIGEST.into()),
                }),
                rings: ring0(),
                ..Default::default()
            },
            ServerInput {
                id: "other".into(),
                url: Some("https://other.example.com/mcp".into()),
                rings: vec!["ring1".into()],
                ..Default::default()
            },
        ],
        rings: vec!["ring0".into(), "ring1".into()],
        units: vec![
            Unit {
                id: "eng".into(),
                parent: None,
            },
            Unit {
                id: "payments".into(),
                parent: Some("eng".into()),
            },
        ],
    };
    let (policy, findings) = Policy::check(&input);
    policy.unwrap_or_else(|| panic!("{findings:?}"))
}

fn fixture(rel: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/drift-home/{rel}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every file of the crafted home, parsed.
fn home() -> Vec<Configured> {
    let mut all = Vec::new();
    for harness in Harness::ALL {
        for rel in harness.user_config_files() {
            let label = format!("~/{rel}");
            all.extend(configured(harness, &label, &fixture(rel)).expect(rel));
        }
    }
    all
}

fn drift(mode: &str) -> Vec<DriftFinding> {
    let policy = policy(mode);
    let servers = policy.servers_for(&["ring0".into()], &["payments".into()]);
    compare(&servers, &home())
}

fn summary(
    f: &DriftFinding,
) -> (
    FindingKind,
    Harness,
    &str,
    &str,
    TransportKind,
    Option<&str>,
) {
    (
        f.kind,
        f.harness,
        f.source.as_str(),
        f.name.as_str(),
        f.transport,
        f.host.as_deref(),
    )
}

#[test]
fn the_crafted_home_has_exactly_the_planted_findings() {
    use FindingKind::{Unapproved, VersionDrift};
    use TransportKind::{Http, Sse, Stdio, Unknown};
    let findings = drift("allowlist");
    let mut got: Vec<_> = findings.iter().map(summary).collect();
    got.sort();
    let mut want = vec![
        (
            Unapproved,
            Harness::ClaudeCode,
            "~/.claude.json",
            "scratch",
            Stdio,
            None,
        ),
        (
            VersionDrift,
            Harness::ClaudeCode,
            "~/.claude.json (projects[\"/w\"])",
            "playwright",
            Stdio,
            None,
        ),
        (
            Unapproved,
            Harness::ClaudeCode,
            "~/.claude.json (projects[\"/w\"])",
            "leaky",
            Sse,
            Some("leaky.example.net"),
        ),
        (
            VersionDrift,
            Harness::Codex,
            "~/.codex/config.toml",
            "fetch",
            Stdio,
            None,
        ),
        (
            VersionDrift,
            Harness::Codex,
            "~/.codex/config.toml",
            "wiki",
            Http,
            Some("wiki.example.com"),
        ),
        (
            Unapproved,
            Harness::Gemini,
            "~/.gemini/settings.json",
            "sse-thing",
            Sse,
            Some("sse.example.org"),
        ),
        (
            Unapproved,
            Harness::Copilot,
            "~/.copilot/mcp-config.json",
            "other",
            Http,
            Some("other.example.com"),
        ),
        (
            Unapproved,
            Harness::Cursor,
            "~/.cursor/mcp.json",
            "bad",
            Unknown,
            None,
        ),
        (
            VersionDrift,
            Harness::OpenCode,
            "~/.config/opencode/opencode.jsonc (mcp.servers)",
            "local",
            Stdio,
            None,
        ),
    ];
    want.sort();
    assert_eq!(got, want);
    // The mode changes what harnesses block, not what drift is.
    assert_eq!(drift("warn"), findings);
}

#[test]
fn fix_hints_name_the_approved_definition_and_the_file() {
    let findings = drift("allowlist");
    let fix = |name: &str, source: &str| {
        findings
            .iter()
            .find(|f| f.name == name && f.source.starts_with(source))
            .map(|f| f.fix.clone())
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert_eq!(
        fix("scratch", "~/.claude.json"),
        "Remove it from ~/.claude.json or ask an admin to approve it."
    );
    assert_eq!(
        fix("leaky", "~/.claude.json"),
        "Remove it from ~/.claude.json (projects[\"/w\"]) or ask an admin to approve it."
    );
    assert_eq!(
        fix("playwright", "~/.claude.json"),
        "Pin it to the approved npm package @playwright/mcp@0.0.82 (`npx -y @playwright/mcp@0.0.82`) in ~/.claude.json (projects[\"/w\"]), or remove it."
    );
    assert_eq!(
        fix("wiki", "~/.codex"),
        "Point it at the approved URL https://wiki.example.com/mcp in ~/.codex/config.toml, or remove it."
    );
    assert_eq!(
        fix("local", "~/.config"),
        "Replace it with the approved definition (the command /opt/acme/bin/acme-mcp with the arguments the registry lists) in ~/.config/opencode/opencode.jsonc (mcp.servers), or remove it."
    );
}

#[test]
fn no_planted_secret_reaches_a_finding_or_a_debug_print() {
    let findings = drift("allowlist");
    let json = serde_json::to_string(&findings).expect("json");
    let debug = format!("{findings:?} {:?}", home());
    for out in [&json, &debug] {
        assert!(!out.contains("SECRET"), "{out}");
        // Nor a URL path, a command or an argument.
        for word in ["/mcp/", "srv.js", "npx\"", "node", "--stdio", "/sse"] {
            assert!(!out.contains(word), "{word} in {out}");
        }
    }
    let value: serde_json::Value = serde_json::from_str(&json).expect("json");
    for f in value.as_array().expect("array") {
        let mut keys: Vec<&str> = f
            .as_object()
            .expect("object")
            .keys()
            .map(|k| k.as_str())
            .collect();
        keys.sort_unstable();
        keys.retain(|k| *k != "host");
        assert_eq!(
            keys,
            [
                "definition_sha256",
                "fix",
                "harness",
                "kind",
                "name",
                "source",
                "transport"
            ]
        );
        assert_eq!(f["definition_sha256"].as_str().map(str::len), Some(64));
    }
}

#[test]
fn disabled_servers_are_skipped_in_every_harness_that_can_disable_one() {
    let disabled: Vec<(Harness, String)> = home()
        .into_iter()
        .filter(|c| c.disabled)
        .map(|c| (c.harness, c.name))
        .collect();
    assert_eq!(
        disabled,
        [
            (Harness::ClaudeCode, "off".to_owned()),
            (Harness::Codex, "cleanup".to_owned()),
            (Harness::Gemini, "excluded-one".to_owned()),
            (Harness::OpenCode, "gone".to_owned()),
            (Harness::OpenCode, "dead".to_owned()),
        ]
    );
    // Copilot CLI and Cursor have no per-server switch: a "disabled" key there changes nothing.
    for harness in [Harness::Copilot, Harness::Cursor] {
        let parsed = configured(
            harness,
            "f",
            br#"{"mcpServers": {"x": {"command": "x", "disabled": true}}}"#,
        )
        .expect("parses");
        assert!(!parsed[0].disabled, "{harness:?}");
    }
    // An OpenCode toggle of a server defined elsewhere is no definition.
    assert!(!home().iter().any(|c| c.name == "inherited"));
    // Gemini's mcp.allowed blocks every name it does not list.
    let only = br#"{"mcp": {"allowed": ["wiki"]}, "mcpServers": {"wiki": {"httpUrl": "https://wiki.example.com/mcp"}, "x": {"command": "x"}}}"#;
    let parsed = configured(Harness::Gemini, "g", only).expect("parses");
    assert_eq!(
        parsed
            .iter()
            .map(|c| (c.name.as_str(), c.disabled))
            .collect::<Vec<_>>(),
        [("wiki", false), ("x", true)]
    );
}

#[test]
fn harnesses_are_named_alike_in_json_and_text() {
    for h in Harness::ALL {
        assert_eq!(serde_json::to_value(h).expect("json"), h.as_str());
    }
}

#[test]
fn transports_are_read_the_way_each_harness_reads_them() {
    let remote = |h, bytes: &[u8]| {
        let c = configured(h, "f", bytes).expect("parses");
        match &c[0].transport {
            t @ ConfiguredTransport::Remote { .. } => (t.kind(), t.host().map(str::to_owned)),
            other => panic!("{other:?}"),
        }
    };
    let host = Some("h.example.com".to_owned());
    // Gemini: httpUrl is streamable HTTP, url is SSE unless `type: http`.
    assert_eq!(
        remote(
            Harness::Gemini,
            br#"{"mcpServers":{"a":{"httpUrl":"https://h.example.com/m"}}}"#
        ),
        (TransportKind::Http, host.clone())
    );
    assert_eq!(
        remote(
            Harness::Gemini,
            br#"{"mcpServers":{"a":{"url":"https://h.example.com/m"}}}"#
        ),
        (TransportKind::Sse, host.clone())
    );
    assert_eq!(
        remote(
            Harness::Gemini,
            br#"{"mcpServers":{"a":{"url":"https://h.example.com/m","type":"http"}}}"#
        ),
        (TransportKind::Http, host.clone())
    );
    // Claude Code: streamable-http is http.
    assert_eq!(
        remote(
            Harness::ClaudeCode,
            br#"{"mcpServers":{"a":{"type":"streamable-http","url":"https://h.example.com/m"}}}"#
        ),
        (TransportKind::Http, host.clone())
    );
    assert_eq!(
        remote(
            Harness::Copilot,
            br#"{"mcpServers":{"a":{"type":"sse","url":"https://h.example.com:443/m"}}}"#
        ),
        (TransportKind::Sse, host)
    );
}

#[test]
fn a_name_approved_elsewhere_or_for_others_is_not_approved_here() {
    let policy = policy("allowlist");
    // Someone in ring1 only gets `other`, not `wiki`.
    let servers = policy.servers_for(&["ring1".into()], &[]);
    let home = configured(
        Harness::Cursor,
        "~/.cursor/mcp.json",
        br#"{"mcpServers": {"wiki": {"url": "https://wiki.example.com/mcp"}, "other": {"url": "https://OTHER.example.com/mcp/"}}}"#,
    )
    .expect("parses");
    let findings = compare(&servers, &home);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(
        (findings[0].kind, findings[0].name.as_str()),
        (FindingKind::Unapproved, "wiki")
    );
}

#[test]
fn malformed_files_are_errors_that_quote_nothing() {
    let cases: [(Harness, &[u8]); 6] = [
        (
            Harness::Codex,
            b"[mcp_servers.x]\ncommand = \"x\"\nargs = [\"SECRET-broken\"\n",
        ),
        (
            Harness::ClaudeCode,
            b"{\"mcpServers\": {\"x\": {\"command\": \"SECRET-broken\" \"args\": []}}}",
        ),
        (Harness::Gemini, b"[\"SECRET-broken\"]"),
        (Harness::Cursor, b"{\"mcpServers\": [\"SECRET-broken\"]}"),
        (
            Harness::OpenCode,
            b"{\"mcp\": {\"servers\": \"SECRET-broken\"}}",
        ),
        (Harness::Copilot, b"\xff\xfe SECRET-broken"),
    ];
    for (harness, bytes) in cases {
        let error = configured(harness, "f", bytes).expect_err("malformed");
        assert!(!error.contains("SECRET"), "{error}");
        assert!(!error.is_empty());
    }
    assert_eq!(
        configured(
            Harness::Codex,
            "f",
            b"a = 1\n[mcp_servers.x]\nargs = [\"SECRET\"\n"
        )
        .expect_err("malformed"),
        "not valid TOML (line 4, column 1)"
    );
    // An empty or absent section is no server and no error.
    for (harness, bytes) in [
        (Harness::Codex, &b"model = \"x\""[..]),
        (Harness::ClaudeCode, b"{}"),
        (Harness::OpenCode, b"{\"mcp\": {}}"),
    ] {
        assert_eq!(configured(harness, "f", bytes), Ok(vec![]));
    }
}

#[test]
fn two_hundred_servers_compare_in_linear_time() {
    let policy = policy("allowlist");
    let servers = policy.servers_for(&["ring0".into()], &["payments".into()]);
    let entries: Vec<String> = (0..200)
        .map(|i| format!(r#""s{i}": {{"type": "http", "url": "https://h{i}.example.com/mcp"}}"#))
        .collect();
    let bytes = format!("{{\"mcpServers\": {{{}}}}}", entries.join(","));
    let home = configured(Harness::ClaudeCode, "~/.claude.json", bytes.as_bytes()).expect("parses");
    assert_eq!(compare(&servers, &home).len(), 200);
}
