//! The `portcullis` binary as a shell user runs it.

/// `portcullis … | head` stops reading early: the command ends with success and no panic.
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader); // every write now fails with EPIPE, as after `head` exits
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_portcullis"))
        .arg("print-config")
        .env("PORTCULLIS_DATA_DIR", dir.path())
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("run portcullis");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
