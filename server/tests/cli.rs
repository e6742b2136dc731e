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
fn portcullis(data: &std::path::Path, args: &[&str]) -> Result<String, String> {
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
        ""
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
        "email-mcp\thttps://mail.example.com/mcp\ttools:call tools:read\n\
         payments-mcp\thttps://pay.example.com/mcp\ttools:read\n"
    );
    assert_eq!(
        run(&["resources", "access", "--id", "payments-mcp"]).expect("list"),
        "bot\tBot\ttools:read\tenabled\n"
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
        ""
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
