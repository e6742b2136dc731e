//! Single sign-on from the command line: the console's providers (`portcullis sso`) and a
//! realm's providers for its people (`portcullis idp`).
use super::portcullis;
use std::process::Command;

/// An operator adds a console sign-in provider with its secret from a file (never an argument),
/// lists it (the secret shown only as set), changes one group list, turns password sign-in off
/// once a break-glass admin exists, and removes the provider.
#[test]
fn console_sign_in_providers_are_managed_from_the_command_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| portcullis(dir.path(), args);
    run(&["migrate"]).expect("migrate");
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "the-client-secret-from-the-idp\n").expect("secret file");
    let added = run(&[
        "sso",
        "add",
        "--name",
        "Acme Okta",
        "--issuer",
        "https://acme.okta.example",
        "--client-id",
        "0oa1portcullis",
        "--client-secret-file",
        secret.to_str().expect("path"),
        "--admin-group",
        "platform-admins",
        "--developer-group",
        "engineering",
    ])
    .expect("add");
    assert!(added.contains("/login/sso/sso_"), "{added}");
    let id = added
        .split_whitespace()
        .find_map(|w| w.strip_prefix('(').and_then(|w| w.strip_suffix(").")))
        .expect("id")
        .to_owned();
    let listed = run(&["sso", "list"]).expect("list");
    assert!(
        listed.contains("Acme Okta") && listed.contains("\tset\t"),
        "{listed}"
    );
    assert!(!listed.contains("the-client-secret"), "{listed}");
    // No rule at all: refused, nothing changed.
    let err = run(&[
        "sso",
        "update",
        &id,
        "--admin-group",
        "",
        "--developer-group",
        "",
    ])
    .expect_err("no rules");
    assert!(err.contains("at least one group"), "{err}");
    run(&[
        "sso",
        "update",
        &id,
        "--developer-group",
        "engineering",
        "--developer-group",
        "contractors",
    ])
    .expect("update");
    assert!(
        run(&["sso", "list"])
            .expect("list")
            .contains("engineering, contractors")
    );
    // Password sign-in off needs a break-glass admin first.
    let err = run(&["sso", "password-sign-in", "break-glass-only"]).expect_err("no break-glass");
    assert!(err.contains("break-glass"), "{err}");
    let password = dir.path().join("password");
    std::fs::write(&password, "a-long-break-glass-password\n").expect("password file");
    let created = Command::new(env!("CARGO_BIN_EXE_portcullis"))
        .args([
            "admin",
            "create",
            "--email",
            "root@example.com",
            "--name",
            "Root",
            "--role",
            "admin",
        ])
        .env("PORTCULLIS_DATA_DIR", dir.path())
        .stdin(std::fs::File::open(&password).expect("open"))
        .output()
        .expect("admin create");
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    run(&["sso", "break-glass", "root@example.com"]).expect("break-glass");
    run(&["sso", "password-sign-in", "break-glass-only"]).expect("off");
    let err = run(&["sso", "break-glass", "root@example.com", "--off"]).expect_err("last one");
    assert!(err.contains("would leave none"), "{err}");
    run(&["sso", "password-sign-in", "everyone"]).expect("on");
    // amr / acr values that prove a second factor, listed.
    run(&[
        "sso",
        "update",
        &id,
        "--second-factor-amr",
        "mfa",
        "--second-factor-acr",
        "phr",
    ])
    .expect("amr/acr");
    assert!(
        run(&["sso", "list"])
            .expect("list")
            .contains("\tmfa\tphr\t"),
        "amr and acr listed"
    );
    run(&["sso", "remove", &id]).expect("remove");
    assert!(!run(&["sso", "list"]).expect("list").contains("Acme Okta"));

    // Which roles need a second factor: shown, set, cleared only by an explicit `none`.
    assert!(
        run(&["sso", "second-factor"])
            .expect("show")
            .contains("No role requires")
    );
    assert!(
        run(&[
            "sso",
            "second-factor",
            "--require",
            "admin,security_reviewer"
        ])
        .expect("set")
        .contains("admin, security_reviewer")
    );
    for bad in ["", "admins", "admin,none"] {
        let err = run(&["sso", "second-factor", "--require", bad]).expect_err(bad);
        assert!(err.contains("none"), "{bad}: {err}");
    }
    assert!(
        run(&["sso", "second-factor"])
            .expect("show")
            .contains("admin, security_reviewer")
    );
    run(&["sso", "second-factor", "--require", "none"]).expect("none");
    // Resetting an authenticator needs one to reset.
    let err = run(&["sso", "reset-second-factor", "root@example.com"]).expect_err("nothing");
    assert!(err.contains("no authenticator app"), "{err}");
}

#[test]
fn a_realms_sign_in_providers_are_managed_from_the_command_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| portcullis(dir.path(), args);
    run(&["migrate"]).expect("migrate");
    let secret = dir.path().join("secret");
    std::fs::write(&secret, "the-people-client-secret\n").expect("secret file");
    // A mapping naming a unit the registry does not have is refused.
    let err = run(&[
        "idp",
        "add",
        "--realm",
        "default",
        "--name",
        "Acme Okta",
        "--issuer",
        "https://acme.okta.example",
        "--client-id",
        "0oa1people",
        "--map",
        "engineering -> unit:platform",
    ])
    .expect_err("no such unit");
    assert!(err.contains("no unit platform"), "{err}");
    let mapping = dir.path().join("mapping");
    std::fs::write(
        &mapping,
        "# the directory\n* -> role:mcp-user\nsecops -> role:auditor\n",
    )
    .expect("mapping file");
    let added = run(&[
        "idp",
        "add",
        "--realm",
        "default",
        "--name",
        "Acme Okta",
        "--issuer",
        "https://acme.okta.example",
        "--client-id",
        "0oa1people",
        "--client-secret-file",
        secret.to_str().expect("path"),
        "--mapping-file",
        mapping.to_str().expect("path"),
    ])
    .expect("add");
    assert!(added.contains("/realms/default/upstream/sso_"), "{added}");
    let id = added
        .split_whitespace()
        .find_map(|w| w.strip_prefix('(').and_then(|w| w.strip_suffix(')')))
        .expect("id")
        .to_owned();
    let listed = run(&["idp", "list", "--realm", "default"]).expect("list");
    assert!(
        listed.contains("* -> role:mcp-user; secops -> role:auditor"),
        "{listed}"
    );
    assert!(
        listed.contains("\tset\t") && !listed.contains("the-people-client"),
        "{listed}"
    );
    // Not a console provider: `sso` neither lists nor changes it.
    assert!(!run(&["sso", "list"]).expect("list").contains("Acme Okta"));
    assert!(run(&["sso", "disable", &id]).is_err());
    // A bad rule names its line.
    let err = run(&[
        "idp",
        "update",
        &id,
        "--realm",
        "default",
        "--map",
        "engineering",
    ])
    .expect_err("bad rule");
    assert!(err.contains("Line 1"), "{err}");
    run(&[
        "idp",
        "update",
        &id,
        "--realm",
        "default",
        "--map",
        "* -> ring:everyone",
    ])
    .expect_err("no such ring");
    run(&["idp", "password-sign-in", "--realm", "default", "off"]).expect("off");
    let err = run(&["idp", "disable", &id, "--realm", "default"]).expect_err("the only way in");
    assert!(err.contains("password sign-in is off"), "{err}");
    run(&["idp", "password-sign-in", "--realm", "default", "on"]).expect("on");
    run(&["idp", "disable", &id, "--realm", "default"]).expect("disable");
    assert!(
        run(&["idp", "list", "--realm", "default"])
            .expect("list")
            .contains("disabled")
    );
    run(&["idp", "remove", &id, "--realm", "default"]).expect("remove");
    assert!(
        !run(&["idp", "list", "--realm", "default"])
            .expect("list")
            .contains("Acme Okta")
    );
}
