//! The registry from the command line.
use super::{list, portcullis};

/// An operator imports servers from `server.json` files, publishes, changes one, publishes
/// again, lists the history, rolls back, and manages a ring's members — all at the command
/// line; a policy that fails its checks names every field and writes nothing.
#[test]
fn the_registry_from_the_command_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| portcullis(dir.path(), args);
    run(&["migrate"]).expect("migrate");
    let fixtures = format!(
        "{}/../manifest/tests/fixtures/server-json",
        env!("CARGO_MANIFEST_DIR")
    );
    let draft = run(&["registry", "show"]).expect("show");
    assert!(draft.contains("Draft revision 0"), "{draft}");
    assert!(draft.contains("No release yet."), "{draft}");
    // A ring must exist before a server names it: apply a policy with the ring first.
    let policy = dir.path().join("policy.json");
    std::fs::write(
        &policy,
        r#"{"mode": "allowlist", "rings": ["ring0"], "servers": []}"#,
    )
    .expect("write");
    run(&[
        "registry",
        "apply",
        "--file",
        policy.to_str().expect("path"),
    ])
    .expect("apply");
    for file in ["neon-remote-headers.json", "qiskit-ibm-runtime.json"] {
        let out = run(&[
            "registry",
            "import",
            &format!("{fixtures}/{file}"),
            "--ring",
            "ring0",
            "--save",
        ])
        .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(out.contains("Added "), "{out}");
    }
    let out = run(&["registry", "publish"]).expect("publish");
    assert!(out.starts_with("Published release 1"), "{out}");
    let err = run(&["registry", "publish"]).expect_err("nothing changed");
    assert!(err.contains("release 1 already"), "{err}");
    // Change one server through export → edit → apply.
    let exported = run(&["registry", "export"]).expect("export");
    let changed = exported.replace("0.6.1", "0.6.2");
    assert_ne!(changed, exported);
    std::fs::write(&policy, &changed).expect("write");
    run(&[
        "registry",
        "apply",
        "--file",
        policy.to_str().expect("path"),
    ])
    .expect("apply");
    let out = run(&["registry", "publish"]).expect("publish 2");
    assert!(out.contains("1 changed"), "{out}");
    let (rows, json) = list(dir.path(), &["registry", "releases"]);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][0], "2");
    assert_eq!(json[0]["sequence"], 2);
    assert_eq!(json[0]["changes"], "1 changed");
    let out = run(&["registry", "rollback", "--to", "1"]).expect("roll back");
    assert!(out.starts_with("Published release 3"), "{out}");
    assert!(
        run(&["registry", "export"])
            .expect("export")
            .contains("0.6.1")
    );
    // A bad policy: every problem named, nothing written.
    let exported: serde_json::Value =
        serde_json::from_str(&run(&["registry", "export"]).expect("export")).expect("json");
    let revision = exported["revision"]
        .as_i64()
        .expect("export records its revision");
    let write = |text: String| std::fs::write(&policy, text).expect("write");
    let apply = || {
        run(&[
            "registry",
            "apply",
            "--file",
            policy.to_str().expect("path"),
        ])
    };
    write(format!(
        r#"{{"revision": {revision}, "policy": {{"mode": "open", "servers": [{{"id": "Bad_Id", "url": "http://x.example.com/mcp"}}, {{"id": "pinned", "package": {{"type": "npm", "identifier": "x", "version": "1.2"}}}}]}}}}"#
    ));
    let err = apply().expect_err("invalid");
    for field in [
        "mode:",
        "servers[0].id:",
        "servers[0].url:",
        "servers[1].package.version:",
    ] {
        assert!(err.contains(field), "{field} in {err}");
    }
    assert!(err.contains("range"), "npm 1.2 floats: {err}");
    // A misspelled key is refused with its path, not dropped.
    let mut typo = exported.clone();
    typo["policy"]["servers"][0]["tools"] = serde_json::json!({"denied": ["delete"]});
    write(typo.to_string());
    let err = apply().expect_err("unknown key");
    assert!(
        err.contains("policy.servers[0].tools") && err.contains("denied"),
        "{err}"
    );
    // A bare policy names the revision it was made from; a stale one is refused.
    write(exported["policy"].to_string());
    let err = apply().expect_err("no revision");
    assert!(err.contains("--revision"), "{err}");
    let stale = serde_json::json!({"revision": revision - 1, "policy": exported["policy"]});
    write(stale.to_string());
    let err = apply().expect_err("stale");
    assert!(err.contains("changed since you opened it"), "{err}");
    // What publishing would change, field by field.
    let mut edited = exported.clone();
    edited["policy"]["servers"][1]["tools"] = serde_json::json!({"deny": ["delete"]});
    write(edited.to_string());
    apply().expect("apply");
    let changes = run(&["registry", "changes"]).expect("changes");
    assert!(
        changes.contains("tools.deny: (none) → [\"delete\"]"),
        "{changes}"
    );
    assert!(
        run(&["registry", "export"])
            .expect("export")
            .contains("0.6.1")
    );
    // Members of a ring: an agent by name.
    run(&[
        "agents",
        "create",
        "--name",
        "night-bot",
        "--owner",
        "ada@example.com",
        "--roles",
        "mcp",
    ])
    .expect("agent");
    run(&[
        "registry",
        "add-member",
        "--ring",
        "ring0",
        "--agent",
        "night-bot",
    ])
    .expect("add");
    let (rows, _) = list(dir.path(), &["registry", "members", "--ring", "ring0"]);
    assert_eq!(rows[0][..2], ["agent", "night-bot"]);
    let err = run(&[
        "registry",
        "add-member",
        "--ring",
        "ring0",
        "--unit",
        "x",
        "--agent",
        "night-bot",
    ])
    .expect_err("two groups");
    assert!(err.contains("cannot be used with"), "{err}");
    run(&[
        "registry",
        "settings",
        "--access",
        "public",
        "--require-approval",
        "true",
    ])
    .expect("settings");
    let out = run(&["registry", "show"]).expect("show");
    assert!(
        out.contains("Approval: required; HTTP access: public"),
        "{out}"
    );
}
