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
