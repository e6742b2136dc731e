//! The `portcullis` binary as a shell user runs it.
use std::process::{Command, Output, Stdio};

/// Runs `portcullis args…` on the data directory with stdout into a pipe nobody reads (as
/// after `| head` exits: every write fails with EPIPE).
fn into_closed_pipe(data: &std::path::Path, args: &[&str]) -> (Output, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_portcullis"))
        .args(args)
        .env("PORTCULLIS_DATA_DIR", data)
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .expect("run portcullis");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (out, stderr)
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, stderr) = into_closed_pipe(dir.path(), &["print-config"]);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
}

/// A one-time secret that cannot be written is a failure: the script must not go on believing
/// it has credentials.
#[test]
fn a_secret_that_cannot_be_delivered_fails_the_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let migrate = Command::new(env!("CARGO_BIN_EXE_portcullis"))
        .arg("migrate")
        .env("PORTCULLIS_DATA_DIR", dir.path())
        .output()
        .expect("migrate");
    assert!(migrate.status.success(), "{migrate:?}");
    let create = [
        "clients",
        "create",
        "--client-id",
        "bot",
        "--name",
        "Bot",
        "--scope",
        "tools:call",
    ];
    let (out, stderr) = into_closed_pipe(dir.path(), &create);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("rotate"), "says what to do: {stderr}");
}

/// Runs `portcullis args…` on the data directory; stdout on success, else a panic with stderr.
pub(crate) fn portcullis(data: &std::path::Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_portcullis"))
        .args(args)
        .env("PORTCULLIS_DATA_DIR", data)
        .output()
        .expect("run portcullis");
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// An operator answers "who may reach payments-mcp, with which scopes" and changes it.
#[test]
fn access_is_granted_listed_and_revoked_from_the_command_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| portcullis(dir.path(), args);
    run(&["migrate"]).expect("migrate");
    for (id, uri) in [
        ("payments-mcp", "https://pay.example.com/mcp"),
        ("email-mcp", "https://mail.example.com/mcp"),
    ] {
        run(&[
            "resources",
            "create",
            "--id",
            id,
            "--name",
            id,
            "--uri",
            uri,
            "--scopes",
            "tools:call tools:read",
        ])
        .expect("resource");
    }
    run(&[
        "clients",
        "create",
        "--client-id",
        "bot",
        "--name",
        "Bot",
        "--scope",
        "tools:call",
    ])
    .expect("client");
    assert_eq!(
        run(&["clients", "access", "--client-id", "bot"]).expect("list"),
        "resource\turi\tscopes\n"
    );

    let said = run(&[
        "clients",
        "grant",
        "--client-id",
        "bot",
        "--resource",
        "payments-mcp",
        "--scopes",
        "tools:read",
    ])
    .expect("grant");
    assert!(said.contains("with scopes: tools:read"), "{said}");
    run(&[
        "clients",
        "grant",
        "--client-id",
        "bot",
        "--resource",
        "email-mcp",
    ])
    .expect("grant");
    assert_eq!(
        run(&["clients", "access", "--client-id", "bot"]).expect("list"),
        "resource\turi\tscopes\n\
         email-mcp\thttps://mail.example.com/mcp\ttools:call tools:read\n\
         payments-mcp\thttps://pay.example.com/mcp\ttools:read\n"
    );
    let (_, json) = list(dir.path(), &["clients", "access", "--client-id", "bot"]);
    assert_eq!(
        json,
        serde_json::json!([
            {"resource": "email-mcp", "uri": "https://mail.example.com/mcp", "scopes": "tools:call tools:read"},
            {"resource": "payments-mcp", "uri": "https://pay.example.com/mcp", "scopes": "tools:read"},
        ])
    );
    assert_eq!(
        run(&["resources", "access", "--id", "payments-mcp"]).expect("list"),
        "client_id\tname\tscopes\tenabled\nbot\tBot\ttools:read\tenabled\n"
    );
    let (_, json) = list(dir.path(), &["resources", "access", "--id", "payments-mcp"]);
    assert_eq!(
        json,
        serde_json::json!([{"client_id": "bot", "name": "Bot", "scopes": "tools:read", "enabled": true}])
    );
    let refused = run(&[
        "clients",
        "grant",
        "--client-id",
        "bot",
        "--resource",
        "payments-mcp",
        "--scopes",
        "admin",
    ])
    .expect_err("unknown scope");
    assert!(refused.contains("does not accept admin"), "{refused}");

    run(&[
        "clients",
        "revoke",
        "--client-id",
        "bot",
        "--resource",
        "payments-mcp",
    ])
    .expect("revoke");
    assert_eq!(
        run(&["resources", "access", "--id", "payments-mcp"]).expect("list"),
        "client_id\tname\tscopes\tenabled\n"
    );
    assert_eq!(
        run(&["resources", "access", "--id", "payments-mcp", "--json"]).expect("list"),
        "[]\n"
    );
    let again = run(&[
        "clients",
        "revoke",
        "--client-id",
        "bot",
        "--resource",
        "payments-mcp",
    ])
    .expect_err("nothing to revoke");
    assert!(again.contains("not found"), "{again}");
}

/// A list both ways: the text (header row first, then rows split at tabs, each as wide as the
/// header) and the `--json` array, pretty-printed, whose objects have exactly the header's
/// keys in its order.
fn list(data: &std::path::Path, args: &[&str]) -> (Vec<Vec<String>>, serde_json::Value) {
    let text = portcullis(data, args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header row").split('\t').collect();
    assert!(
        header
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|c| c.is_ascii_lowercase() || c == '_')),
        "{args:?}: lower_snake_case column names: {header:?}"
    );
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect();
    for row in &rows {
        assert_eq!(
            row.len(),
            header.len(),
            "{args:?}: {row:?} under {header:?}"
        );
    }
    let json_args = [args, &["--json"]].concat();
    let json = portcullis(data, &json_args).unwrap_or_else(|e| panic!("{json_args:?}: {e}"));
    let array: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json_args:?}: {e}: {json}"));
    let objects = array.as_array().expect("a JSON array");
    assert_eq!(objects.len(), rows.len(), "{json}");
    for object in objects {
        let object = object.as_object().expect("objects");
        let keys: std::collections::BTreeSet<&str> = object.keys().map(String::as_str).collect();
        assert_eq!(keys, header.iter().copied().collect(), "{json}");
        // In the header's order, and one member a line.
        let at = |key: &str| json.find(&format!("\"{key}\":")).expect("key");
        assert!(header.windows(2).all(|w| at(w[0]) < at(w[1])), "{json}");
    }
    assert!(
        objects.is_empty() || json.contains("\n  {\n    \""),
        "pretty: {json}"
    );
    (rows, array)
}

/// The row whose first column is `key`, and its JSON object.
fn row<'a>(
    (rows, json): &'a (Vec<Vec<String>>, serde_json::Value),
    key: &str,
) -> (&'a [String], &'a serde_json::Value) {
    let i = rows
        .iter()
        .position(|r| r[0] == key)
        .unwrap_or_else(|| panic!("no row {key}: {rows:?}"));
    (&rows[i], &json[i])
}

/// Every list prints a header row and takes `--json`: realms and signing keys.
#[test]
fn realms_and_keys_list_with_a_header_row_and_as_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| portcullis(dir.path(), args);
    run(&["migrate"]).expect("migrate");
    let realms = list(dir.path(), &["realms", "list"]);
    let (text, json) = row(&realms, "default");
    assert_eq!(text[2], "enabled");
    assert_eq!(json["enabled"], true);
    let lifetimes = &json["lifetimes"];
    let access = lifetimes["access_token_secs"].as_i64().expect("a number");
    let idle = lifetimes["refresh_idle_days"].as_i64().expect("a number");
    let max = lifetimes["refresh_max_days"].as_i64().expect("a number");
    assert_eq!(
        text[3],
        format!("access {access} s, refresh idle {idle} d / max {max} d")
    );
    assert!(text[4].ends_with("/realms/default"), "{text:?}");
    assert_eq!(json["issuer"], text[4].as_str());
    assert_eq!(json["display_name"], text[1].as_str());

    run(&["keys", "rotate"]).expect("rotate");
    let keys = list(dir.path(), &["keys", "list"]);
    assert!(keys.0.len() >= 2, "{keys:?}");
    for (text, json) in keys.0.iter().zip(keys.1.as_array().expect("array")) {
        assert_eq!(json["kid"], text[0].as_str());
        assert_eq!(json["alg"], text[1].as_str());
        assert_eq!(json["state"], text[2].as_str());
        let published = json["published"].as_bool().expect("a boolean");
        assert_eq!(
            text[3],
            if published {
                "published"
            } else {
                "unpublished"
            }
        );
    }
    let err = run(&["keys", "list", "--realm", "nope", "--json"]).expect_err("no such realm");
    assert!(err.contains("not found"), "{err}");
}

/// Every list prints a header row and takes `--json`: resources, clients and agents.
#[test]
fn resources_clients_and_agents_list_with_a_header_row_and_as_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| portcullis(dir.path(), args);
    run(&["migrate"]).expect("migrate");
    assert_eq!(
        run(&["resources", "list"]).expect("empty"),
        "id\turi\tscopes\tenabled\tdefault\n"
    );
    assert_eq!(
        run(&["resources", "list", "--json"]).expect("empty"),
        "[]\n"
    );
    for (id, uri) in [
        ("payments-mcp", "https://pay.example.com/mcp"),
        ("email-mcp", "https://mail.example.com/mcp"),
    ] {
        run(&[
            "resources",
            "create",
            "--id",
            id,
            "--name",
            id,
            "--uri",
            uri,
            "--scopes",
            "tools:call tools:read",
        ])
        .expect("resource");
    }
    run(&["resources", "set-default", "--id", "payments-mcp"]).expect("default");
    run(&["resources", "disable", "--id", "email-mcp"]).expect("disable");
    let resources = list(dir.path(), &["resources", "list"]);
    let (text, json) = row(&resources, "payments-mcp");
    assert_eq!(
        text,
        [
            "payments-mcp",
            "https://pay.example.com/mcp",
            "tools:call tools:read",
            "enabled",
            "default"
        ]
    );
    assert_eq!(
        *json,
        serde_json::json!({"id": "payments-mcp", "uri": "https://pay.example.com/mcp",
            "scopes": "tools:call tools:read", "enabled": true, "default": true})
    );
    let (text, json) = row(&resources, "email-mcp");
    assert_eq!(text[3..], ["disabled", "-"]);
    assert_eq!(
        (&json["enabled"], &json["default"]),
        (&false.into(), &false.into())
    );

    run(&[
        "clients",
        "create",
        "--client-id",
        "bot",
        "--name",
        "Bot",
        "--scope",
        "tools:call",
    ])
    .expect("client");
    let clients = list(dir.path(), &["clients", "list"]);
    let (text, json) = row(&clients, "bot");
    assert_eq!(
        text,
        [
            "bot",
            "Bot",
            "client_secret_basic",
            "tools:call",
            "enabled",
            "approved"
        ]
    );
    assert_eq!(
        *json,
        serde_json::json!({"client_id": "bot", "name": "Bot",
            "auth_method": "client_secret_basic", "scope": "tools:call", "enabled": true,
            "review": "approved"})
    );

    run(&[
        "agents",
        "create",
        "--name",
        "reports",
        "--owner",
        "ada@example.com",
        "--roles",
        "tools:call mcp:tools",
    ])
    .expect("agent");
    run(&["agents", "bind", "--client-id", "bot", "--agent", "reports"]).expect("bind");
    let agents = list(dir.path(), &["agents", "list", "--mcp"]);
    let (text, json) = row(&agents, "reports");
    assert_eq!(
        text,
        [
            "reports",
            "ada@example.com",
            "mcp:tools tools:call",
            "active",
            "bot"
        ]
    );
    assert_eq!(
        *json,
        serde_json::json!({"name": "reports", "owner": "ada@example.com",
            "roles": "mcp:tools tools:call", "status": "active", "clients": ["bot"]})
    );
    assert_eq!(
        run(&["agents", "list", "--search", "nobody"]).expect("none"),
        "name\towner\troles\tstatus\tclients\n"
    );
    // An update changes what it names and keeps the rest.
    run(&[
        "agents",
        "update",
        "--name",
        "reports",
        "--roles",
        "mcp tools:call",
    ])
    .expect("update");
    let agents = list(dir.path(), &["agents", "list"]);
    let (text, _) = row(&agents, "reports");
    assert_eq!(
        text,
        [
            "reports",
            "ada@example.com",
            "mcp tools:call",
            "active",
            "bot"
        ]
    );
    assert!(
        run(&["agents", "update", "--name", "nobody", "--roles", "mcp"]).is_err(),
        "an unknown agent is an error"
    );
}

/// Every list prints a header row and takes `--json`: people and the review queue; a list
/// into a closed pipe still ends quietly.
#[tokio::test]
async fn people_and_the_review_queue_list_with_a_header_row_and_as_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| portcullis(dir.path(), args);
    run(&["migrate"]).expect("migrate");
    assert_eq!(
        run(&["people", "list"]).expect("empty"),
        "id\temail\tdisplay_name\troles\tenabled\n"
    );
    assert_eq!(run(&["people", "list", "--json"]).expect("empty"), "[]\n");
    assert_eq!(
        run(&["registration", "pending"]).expect("empty"),
        "client_id\tname\tredirect_hosts\tsource_ip\tcreated_at\n"
    );
    assert_eq!(
        run(&["registration", "pending", "--json"]).expect("empty"),
        "[]\n"
    );
    for args in [
        &["people", "list"][..],
        &["registration", "pending", "--json"],
    ] {
        let (out, stderr) = into_closed_pipe(dir.path(), args);
        assert!(out.status.success(), "{args:?}: {:?}: {stderr}", out.status);
    }

    run(&[
        "people",
        "add",
        "--email",
        "ada@example.com",
        "--name",
        "Ada",
        "--roles",
        "reader",
    ])
    .expect("add");
    let people = list(dir.path(), &["people", "list"]);
    let (text, json) = (&people.0[0], &people.1[0]);
    assert!(text[0].starts_with("psn_"), "{text:?}");
    assert_eq!(text[1..], ["ada@example.com", "Ada", "reader", "enabled"]);
    assert_eq!(
        *json,
        serde_json::json!({"id": text[0], "email": "ada@example.com", "display_name": "Ada",
            "roles": "reader", "enabled": true})
    );
    run(&["people", "disable", &text[0]]).expect("disable");
    let people = list(dir.path(), &["people", "list", "--search", "ada"]);
    assert_eq!(
        (people.0[0][4].as_str(), &people.1[0]["enabled"]),
        ("disabled", &false.into())
    );

    // A client registers itself (the realm reviews by default) and waits in the queue.
    let state = server::AppState::init(server::config::Config {
        data_dir: dir.path().to_owned(),
        ..Default::default()
    })
    .await
    .expect("init");
    let metadata: authz::clients::ClientMetadata = serde_json::from_value(serde_json::json!({
        "client_name": "Helper",
        "redirect_uris": ["https://app.example.com/cb"],
    }))
    .expect("metadata");
    let meta = authz::RequestMeta {
        client_ip: Some([203, 0, 113, 7].into()),
        ..Default::default()
    };
    let registered = state
        .core
        .register_client_dynamically("default", &metadata, None, &meta)
        .await
        .expect("register");
    state.db.close().await;
    let client_id = registered.client_id.to_string();
    let queue = list(dir.path(), &["registration", "pending"]);
    let (text, json) = row(&queue, &client_id);
    assert_eq!(
        text[1..4],
        ["Helper", "app.example.com", "from 203.0.113.7"]
    );
    assert_eq!(
        json["redirect_hosts"],
        serde_json::json!(["app.example.com"])
    );
    assert_eq!(json["source_ip"], "203.0.113.7");
    assert_eq!(json["created_at"], text[4].as_str());
    assert!(text[4].ends_with('Z'), "RFC 3339: {text:?}");
}

/// Runs `portcullis args…` on the data directory; its stdout and stderr, after a success.
fn portcullis_with_stderr(data: &std::path::Path, args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_portcullis"))
        .args(args)
        .env("PORTCULLIS_DATA_DIR", data)
        .output()
        .expect("run portcullis");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

/// A developer whose client waits for review sees it in the CLI output, with the reviewer
/// queue's console URL; the list itself (stdout) stays a list.
#[tokio::test]
async fn a_client_awaiting_review_is_pointed_at_the_review_queue() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| portcullis_with_stderr(dir.path(), args);
    run(&["migrate"]);
    run(&[
        "clients",
        "create",
        "--client-id",
        "admin-made",
        "--name",
        "Admin made",
        "--scope",
        "tools:call",
    ]);
    for args in [&["clients", "list"][..], &["registration", "pending"]] {
        let (_, stderr) = run(args);
        assert!(
            !stderr.contains("security review"),
            "nothing waits: {stderr}"
        );
    }

    let state = server::AppState::init(server::config::Config {
        data_dir: dir.path().to_owned(),
        ..Default::default()
    })
    .await
    .expect("init");
    let metadata: authz::clients::ClientMetadata = serde_json::from_value(serde_json::json!({
        "client_name": "Helper",
        "redirect_uris": ["https://app.example.com/cb"],
    }))
    .expect("metadata");
    let registered = state
        .core
        .register_client_dynamically("default", &metadata, None, &Default::default())
        .await
        .expect("register");
    let queue_url = state.core.review_queue_url();
    state.db.close().await;
    assert!(queue_url.ends_with("/review"), "{queue_url}");
    let client_id = registered.client_id.to_string();

    for args in [
        &["clients", "list"][..],
        &["clients", "list", "--json"],
        &["registration", "pending"],
    ] {
        let (stdout, stderr) = run(args);
        assert!(stdout.contains(&client_id), "{args:?}: {stdout}");
        assert!(
            stderr.contains("1 client waits for a security review") && stderr.contains(&queue_url),
            "{args:?}: {stderr}"
        );
    }
    let (stdout, _) = run(&["clients", "list", "--json"]);
    serde_json::from_str::<serde_json::Value>(&stdout).expect("stdout stays JSON");
    let (_, stderr) = run(&["registration", "pending", "--state", "approved"]);
    assert!(!stderr.contains("security review"), "{stderr}");
}

/// `portcullis demo` interrupted halfway (Ctrl-C) still removes its temporary directory.
#[cfg(unix)]
#[test]
fn an_interrupted_demo_leaves_nothing_behind() {
    use std::io::BufRead as _;
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut child = Command::new(env!("CARGO_BIN_EXE_portcullis"))
        .arg("demo")
        .env("TMPDIR", tmp.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run portcullis demo");
    let pid = child.id().to_string();
    let signal = |name: &str| {
        let ok = Command::new("kill")
            .args([name, &pid])
            .status()
            .expect("kill")
            .success();
        assert!(ok, "kill {name}");
    };
    // Its servers run on their database once it names the authorization server; held there,
    // it is interrupted.
    let mut lines = std::io::BufReader::new(child.stdout.take().expect("stdout")).lines();
    assert!(
        lines.any(|l| l.expect("line").contains("authorization server")),
        "the demo starts"
    );
    signal("-STOP");
    let entries = || {
        std::fs::read_dir(tmp.path())
            .expect("read tmp")
            .filter(|e| {
                e.as_ref().is_ok_and(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with("portcullis-demo-")
                })
            })
            .count()
    };
    assert_eq!(entries(), 1, "the demo's directory, while it runs");
    signal("-INT");
    signal("-CONT");
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("Interrupted"), "{stderr}");
    assert_eq!(entries(), 0, "nothing left behind");
    drop(lines);
}

#[path = "cli/chaining.rs"]
mod chaining;
#[path = "cli/registry.rs"]
mod registry;
#[path = "cli/sso.rs"]
mod sso;
