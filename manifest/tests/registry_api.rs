//! The Registry API v0.1 answered from a release: every document follows the official
//! server.json schema (2025-12-11), paging and search behave as the official registry's.
use portcullis_manifest::registry_api::{
    ListQuery, ReleaseInfo, list, server_json, version, versions,
};
use portcullis_manifest::server::{CommandInput, PackageInput};
use portcullis_manifest::{Server, ServerInput};

fn info() -> ReleaseInfo {
    ReleaseInfo {
        sequence: 7,
        published_at: "2026-12-03T12:00:00Z".into(),
        namespace: ReleaseInfo::namespace_of("https://auth.example.com/realms/acme"),
    }
}

fn servers() -> Vec<Server> {
    let ring = vec!["ring0".to_owned()];
    let mut wiki = ServerInput {
        id: "wiki".into(),
        title: "Team wiki".into(),
        url: Some("https://wiki.example.com/mcp".into()),
        rings: ring.clone(),
        ..Default::default()
    };
    wiki.headers
        .insert("Authorization".into(), "Bearer ${WIKI_TOKEN}".into());
    wiki.headers.insert("X-Tenant".into(), "acme".into());
    let mut playwright = ServerInput {
        id: "playwright".into(),
        registry_name: Some("io.github.microsoft/playwright-mcp".into()),
        version: Some("0.0.82".into()),
        package: Some(PackageInput {
            kind: "npm".into(),
            identifier: "@playwright/mcp".into(),
            version: Some("0.0.82".into()),
        }),
        rings: ring.clone(),
        ..Default::default()
    };
    playwright
        .env
        .insert("PLAYWRIGHT_TOKEN".into(), "${PLAYWRIGHT_TOKEN}".into());
    playwright.tools.deny = vec!["browser_install".into()];
    let image = ServerInput {
        id: "scanner".into(),
        package: Some(PackageInput {
            kind: "oci".into(),
            identifier: format!("ghcr.io/acme/scanner@sha256:{}", "ab".repeat(32)),
            version: None,
        }),
        rings: ring.clone(),
        ..Default::default()
    };
    let git = ServerInput {
        id: "git".into(),
        package: Some(PackageInput {
            kind: "pypi".into(),
            identifier: "mcp-server-git".into(),
            version: Some("2025.1.14".into()),
        }),
        rings: ring.clone(),
        ..Default::default()
    };
    let local = ServerInput {
        id: "local".into(),
        command: Some(CommandInput {
            path: "/opt/acme/bin/mcp".into(),
            args: vec![],
            sha256: Some("cd".repeat(32)),
        }),
        rings: ring,
        ..Default::default()
    };
    [wiki, playwright, image, git, local]
        .iter()
        .map(|i| Server::check(i).0.unwrap_or_else(|| panic!("{i:?}")))
        .collect()
}

fn schema() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/server.schema.2025-12-11.json"
    );
    let schema: serde_json::Value =
        serde_json::from_slice(&std::fs::read(path).expect("schema")).expect("json");
    jsonschema::validator_for(&schema).expect("validator")
}

#[test]
fn every_served_document_follows_the_official_schema() {
    let validator = schema();
    for s in servers() {
        let doc = server_json(&s, &info());
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}\n{doc:#}", s.id);
    }
    // The schema's checks are real: a document without a version is refused.
    let mut broken = server_json(&servers()[0], &info());
    broken.as_object_mut().expect("object").remove("version");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn documents_reference_secrets_and_carry_what_the_schema_cannot() {
    let all = servers();
    let wiki = server_json(&all[0], &info());
    assert_eq!(wiki["name"], "com.example.auth/wiki");
    assert_eq!(wiki["version"], "0.0.7");
    let headers = &wiki["remotes"][0]["headers"];
    assert_eq!(headers[0]["value"], "Bearer {WIKI_TOKEN}");
    assert_eq!(headers[0]["variables"]["WIKI_TOKEN"]["isSecret"], true);
    assert_eq!(
        headers[1],
        serde_json::json!({"name": "X-Tenant", "value": "acme"})
    );
    let playwright = server_json(&all[1], &info());
    assert_eq!(playwright["name"], "io.github.microsoft/playwright-mcp");
    assert_eq!(playwright["packages"][0]["version"], "0.0.82");
    let meta = &playwright["_meta"]["io.modelcontextprotocol.registry/publisher-provided"]["dev.portcullis/registry"];
    assert_eq!(meta["tools"]["deny"][0], "browser_install");
    assert_eq!(meta["auth"]["mode"], "none");
    let image = server_json(&all[2], &info());
    assert!(
        image["packages"][0].get("version").is_none(),
        "an image is pinned by its digest"
    );
}

#[test]
fn lists_page_by_cursor_search_and_leave_out_commands() {
    let all = servers();
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["servers"]
            .as_array()
            .expect("servers")
            .iter()
            .map(|e| e["server"]["name"].as_str().expect("name").to_owned())
            .collect()
    };
    let everything = list(&all, &info(), &ListQuery::default());
    assert_eq!(
        names(&everything),
        [
            "com.example.auth/git",
            "com.example.auth/scanner",
            "com.example.auth/wiki",
            "io.github.microsoft/playwright-mcp"
        ],
        "by name; the command server has no server.json form"
    );
    assert_eq!(everything["metadata"]["count"], 4);
    assert!(everything["metadata"].get("nextCursor").is_none());
    let first = list(
        &all,
        &info(),
        &ListQuery {
            limit: Some(3),
            ..Default::default()
        },
    );
    assert_eq!(names(&first).len(), 3);
    let cursor = first["metadata"]["nextCursor"]
        .as_str()
        .expect("cursor")
        .to_owned();
    let second = list(
        &all,
        &info(),
        &ListQuery {
            limit: Some(3),
            cursor: Some(cursor),
            ..Default::default()
        },
    );
    assert_eq!(names(&second), ["io.github.microsoft/playwright-mcp"]);
    assert!(second["metadata"].get("nextCursor").is_none());
    let searched = list(
        &all,
        &info(),
        &ListQuery {
            search: Some("PLAY".into()),
            ..Default::default()
        },
    );
    assert_eq!(names(&searched), ["io.github.microsoft/playwright-mcp"]);
    // Limits are clamped like the official registry's (1 to 100).
    let zero = list(
        &all,
        &info(),
        &ListQuery {
            limit: Some(0),
            ..Default::default()
        },
    );
    assert_eq!(names(&zero).len(), 1);
}

#[test]
fn versions_are_found_by_latest_or_exact_version() {
    let all = servers();
    let name = "io.github.microsoft/playwright-mcp";
    assert!(version(&all, &info(), name, "latest").is_some());
    let exact = version(&all, &info(), name, "0.0.82").expect("exact");
    assert_eq!(
        exact["_meta"]["io.modelcontextprotocol.registry/official"]["isLatest"],
        true
    );
    assert!(version(&all, &info(), name, "0.0.81").is_none());
    assert!(version(&all, &info(), "com.example.auth/local", "latest").is_none());
    assert_eq!(
        versions(&all, &info(), name).expect("versions")["metadata"]["count"],
        1
    );
}
