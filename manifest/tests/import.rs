//! Importing real `server.json` documents (fixtures/server-json, see SOURCES.md there) and
//! malformed ones written for the cases real documents do not show.
use portcullis_manifest::import::{Prefer, import};
use portcullis_manifest::{Server, Transport};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/server-json/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn imported(name: &str, prefer: Prefer) -> portcullis_manifest::import::Imported {
    import(&fixture(name), prefer).unwrap_or_else(|f| panic!("{name}: {f:?}"))
}

#[test]
fn every_real_document_imports_or_says_why_not() {
    let dir = format!("{}/tests/fixtures/server-json", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        seen += 1;
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let result = import(&std::fs::read(&path).expect("read"), Prefer::Default);
        if name.starts_with("INVALID") {
            assert!(result.is_err(), "{name}");
        } else {
            let i = result.unwrap_or_else(|f| panic!("{name}: {f:?}"));
            assert!(!i.server.id.is_empty(), "{name}");
            assert!(i.server.registry_name.is_some(), "{name}");
        }
    }
    assert!(seen >= 10, "{seen} fixtures");
}

#[test]
fn a_remote_with_a_required_secret_header_references_the_users_own() {
    let i = imported("apify.json", Prefer::Default);
    assert_eq!(i.server.id, "apify-mcp-server");
    assert_eq!(i.server.url.as_deref(), Some("https://mcp.apify.com/"));
    assert_eq!(
        i.server.headers.get("Authorization").map(String::as_str),
        Some("Bearer ${APIFY_MCP_SERVER_AUTHORIZATION}")
    );
    assert!(
        i.notes
            .iter()
            .any(|n| n.contains("APIFY_MCP_SERVER_AUTHORIZATION")),
        "{:?}",
        i.notes
    );
    let (server, f) = Server::check(&i.server);
    assert!(server.is_some(), "{f:?}");
    assert!(
        f.warnings
            .iter()
            .any(|w| w.message.contains("delivered to nobody"))
    );
}

#[test]
fn streamable_http_is_taken_before_sse_and_a_package_on_request() {
    let i = imported("rootly-pypi-http-sse.json", Prefer::Default);
    assert_eq!(i.server.url.as_deref(), Some("https://mcp.rootly.com/mcp"));
    assert_eq!(i.server.url_transport, None);
    assert_eq!(i.offered, ["remote", "remote", "pypi"]);
    let i = imported("rootly-pypi-http-sse.json", Prefer::Pypi);
    let package = i.server.package.clone().expect("package");
    assert_eq!(
        (
            package.kind.as_str(),
            package.identifier.as_str(),
            package.version.as_deref()
        ),
        ("pypi", "rootly-mcp-server", Some("2.2.9"))
    );
    assert_eq!(
        i.server.env.get("ROOTLY_API_TOKEN").map(String::as_str),
        Some("${ROOTLY_API_TOKEN}")
    );
    assert!(Server::check(&i.server).0.is_some());
}

#[test]
fn optional_secrets_are_left_out_and_said_so() {
    let i = imported("neon-remote-headers.json", Prefer::Default);
    assert!(i.server.headers.is_empty(), "{:?}", i.server.headers);
    assert!(
        i.notes
            .iter()
            .any(|n| n.contains("optional secret header Authorization")),
        "{:?}",
        i.notes
    );
    assert_eq!(i.server.title, "Neon");
}

#[test]
fn arguments_and_extra_packages_are_noted_not_dropped_silently() {
    let i = imported("kubernetes-npm-pypi-oci.json", Prefer::Oci);
    assert!(
        i.notes
            .iter()
            .any(|n| n.contains("runtime arguments are not carried")),
        "{:?}",
        i.notes
    );
    assert!(
        i.notes.iter().any(|n| n.contains("digest")),
        "{:?}",
        i.notes
    );
    // The image is named by a tag: the draft says what to fix on its field.
    let (_, f) = Server::check(&i.server);
    assert!(f.error_on("package.identifier").is_some(), "{f:?}");
    let i = imported("memorylens-npm-nuget.json", Prefer::Default);
    assert_eq!(i.offered, ["npm", "nuget"]);
    assert_eq!(i.server.package.expect("npm").kind, "npm");
    assert!(matches!(
        import(&fixture("memorylens-npm-nuget.json"), Prefer::Oci),
        Err(f) if f.errors[0].message.contains("offers npm, nuget")
    ));
}

#[test]
fn unrendered_templates_import_with_a_note_and_fail_the_check() {
    let i = imported("github-mcp-server.json", Prefer::Default);
    assert_eq!(
        i.server.url.as_deref(),
        Some("https://api.githubcopilot.com/mcp")
    );
    assert!(
        i.notes.iter().any(|n| n.contains("${VERSION}")),
        "{:?}",
        i.notes
    );
    let (_, f) = Server::check(&i.server);
    assert!(
        f.error_on("version")
            .is_some_and(|m| m.contains("template")),
        "{f:?}"
    );
    let i = imported("hypermnesic-remote-variables.json", Prefer::Default);
    assert!(
        i.notes.iter().any(|n| n.contains("placeholders (host)")),
        "{:?}",
        i.notes
    );
}

#[test]
fn a_pinned_image_with_required_environment_is_ready_to_check() {
    let i = imported("malformed/oci-digest.json", Prefer::Default);
    assert_eq!(i.server.id, "pinned-image");
    assert_eq!(
        i.server.env.get("EXAMPLE_TOKEN").map(String::as_str),
        Some("${EXAMPLE_TOKEN}")
    );
    assert!(!i.server.env.contains_key("EXAMPLE_REGION"));
    let (server, f) = Server::check(&i.server);
    let server = server.unwrap_or_else(|| panic!("{f:?}"));
    let Transport::Package(p) = server.transport else {
        panic!("a package")
    };
    assert_eq!(p.launch().0, "docker");
}

#[test]
fn malformed_documents_are_refused_on_their_field() {
    for (file, field, says) in [
        (
            "malformed/no-transport.json",
            "packages[0].transport",
            "required",
        ),
        (
            "malformed/transport-string.json",
            "packages[0].transport",
            "object",
        ),
        (
            "malformed/remote-without-url.json",
            "remotes[0].url",
            "required",
        ),
        ("malformed/bad-name.json", "name", "io.github.owner/server"),
        (
            "malformed/nothing-to-run.json",
            "packages",
            "nothing to run",
        ),
        (
            "INVALID-grabzit-wrong-package-keys.json",
            "packages[0].registryType",
            "required",
        ),
    ] {
        let f = import(&fixture(file), Prefer::Default).expect_err(file);
        let message = f
            .error_on(field)
            .unwrap_or_else(|| panic!("{file}: no error on {field}: {f:?}"));
        assert!(message.contains(says), "{file}: {message}");
    }
    // Ranges and tags import (the document is well formed) and fail the check on the field.
    for (file, field) in [
        ("malformed/version-range.json", "package.version"),
        ("malformed/package-latest.json", "package.version"),
    ] {
        let i = imported(file, Prefer::Default);
        let (_, f) = Server::check(&i.server);
        assert!(f.error_on(field).is_some(), "{file}: {f:?}");
    }
    assert!(import(b"not json", Prefer::Default).is_err());
    assert!(import(&vec![b' '; 1024 * 1024 + 1], Prefer::Default).is_err());
}

#[test]
fn a_registry_api_answer_is_read_as_its_server() {
    let doc = fixture("apify.json");
    let wrapped = format!(
        r#"{{"server": {}, "_meta": {{"io.modelcontextprotocol.registry/official": {{"status": "active", "isLatest": true}}}}}}"#,
        String::from_utf8(doc).expect("utf-8")
    );
    let i = import(wrapped.as_bytes(), Prefer::Default).expect("wrapped");
    assert_eq!(
        i.server.registry_name.as_deref(),
        Some("com.apify/apify-mcp-server")
    );
}
