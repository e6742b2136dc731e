//! Identity chaining from the command line (`portcullis trusting-servers`): the authorization
//! servers that accept a realm's ID-JAGs.
use super::{list, portcullis, row};

/// An operator lists a trusting server for a confidential client (known there by another id),
/// sees it in the list and as JSON, narrows its scopes, is refused a public client, disables
/// and removes it.
#[test]
fn trusting_servers_are_managed_from_the_command_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |args: &[&str]| portcullis(dir.path(), args);
    run(&["migrate"]).expect("migrate");
    run(&[
        "clients",
        "create",
        "--client-id",
        "desk",
        "--name",
        "Service desk",
        "--scope",
        "tools:call",
    ])
    .expect("client");
    // Nothing named that can ask yet: the client must exist.
    let err = run(&[
        "trusting-servers",
        "add",
        "--issuer",
        "https://as.tickets.example",
        "--resource",
        "https://tickets.example/mcp",
        "--client",
        "nobody",
    ])
    .expect_err("unknown client");
    assert!(err.contains("No client \"nobody\""), "{err}");
    let added = run(&[
        "trusting-servers",
        "add",
        "--issuer",
        "https://as.tickets.example",
        "--name",
        "Tickets",
        "--resource",
        "https://tickets.example/mcp",
        "--resource",
        "https://wiki.example/mcp",
        "--client",
        "desk=0oa8f5j3",
    ])
    .expect("add");
    assert!(added.contains("desk -> 0oa8f5j3"), "{added}");
    assert!(
        added.contains("/realms/default, keys ") && added.contains("/realms/default/jwks"),
        "what to give the other server: {added}"
    );
    let listed = list(dir.path(), &["trusting-servers", "list"]);
    let (cells, json) = row(&listed, listed.0[0][0].as_str());
    assert!(cells[0].starts_with("tas_"), "{cells:?}");
    assert_eq!(json["issuer"], "https://as.tickets.example");
    assert_eq!(
        json["resources"],
        serde_json::json!(["https://tickets.example/mcp", "https://wiki.example/mcp"])
    );
    assert_eq!(json["scopes"], "as asked");
    assert_eq!(json["clients"], "desk -> 0oa8f5j3");
    assert_eq!(json["enabled"], true);
    run(&[
        "trusting-servers",
        "update",
        "https://as.tickets.example",
        "--scopes",
        "tickets:read",
    ])
    .expect("update");
    let listed = list(dir.path(), &["trusting-servers", "list"]);
    assert_eq!(listed.1[0]["scopes"], "tickets:read");
    assert_eq!(listed.1[0]["clients"], "desk -> 0oa8f5j3", "kept");
    run(&["trusting-servers", "disable", "https://as.tickets.example"]).expect("disable");
    assert_eq!(
        list(dir.path(), &["trusting-servers", "list"]).1[0]["enabled"],
        false
    );
    run(&["trusting-servers", "remove", "https://as.tickets.example"]).expect("remove");
    assert!(list(dir.path(), &["trusting-servers", "list"]).0.is_empty());
    let err = run(&["trusting-servers", "remove", "https://as.tickets.example"]).expect_err("gone");
    assert!(err.contains("not found"), "{err}");
}
