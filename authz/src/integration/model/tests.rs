use super::rust::{crate_name, raw_literal, wrap_long_constants};
use super::*;

fn realm() -> AuthorizationServer {
    let issuer = "https://auth.example.com/realms/acme".to_owned();
    AuthorizationServer {
        realm: "Acme".into(),
        metadata_url: "https://auth.example.com/.well-known/oauth-authorization-server/realms/acme"
            .into(),
        openid_configuration_url: format!("{issuer}/.well-known/openid-configuration"),
        jwks_uri: format!("{issuer}/jwks"),
        token_endpoint: format!("{issuer}/token"),
        authorization_endpoint: format!("{issuer}/authorize"),
        registration_endpoint: Some(format!("{issuer}/connect/register")),
        introspection_endpoint: format!("{issuer}/introspect"),
        revocation_endpoint: format!("{issuer}/revoke"),
        scopes_supported: vec!["tools:call".into(), "tools:read".into()],
        metadata_documents: true,
        issuer,
    }
}

fn input(url: &str, scopes: &str) -> ProtectInput {
    ProtectInput {
        server_url: url.into(),
        resource_name: "Payments MCP".into(),
        scopes: scopes.into(),
        documentation_url: "https://docs.example.com/payments-mcp".into(),
    }
}

#[test]
fn challenges_offer_least_privilege_and_never_offline_access() {
    let p = protect(
        &realm(),
        &input(
            "https://mcp.example.com/mcp",
            "tools:call offline_access files:write",
        ),
        false,
    )
    .expect("generated");
    assert_eq!(p.scopes, ["files:write", "tools:call"]);
    assert_eq!(p.scope_notes.len(), 1, "{:?}", p.scope_notes);
    assert!(p.scope_notes[0].starts_with("offline_access is left out"));
    assert_eq!(p.new_scopes, ["files:write"]);
    for a in &p.artifacts {
        if matches!(a.id, "challenge" | "step-up" | "metadata") {
            assert!(!a.text.contains("offline_access"), "{}: {}", a.id, a.text);
        }
    }
    let challenge = &p
        .artifacts
        .iter()
        .find(|a| a.id == "challenge")
        .expect("401")
        .text;
    assert_eq!(
        challenge,
        "HTTP/1.1 401 Unauthorized\nWWW-Authenticate: Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"files:write tools:call\""
    );
    // No scopes typed: the challenge names none.
    let p = protect(&realm(), &input("https://mcp.example.com/mcp", ""), false).expect("generated");
    assert!(!p.artifacts.iter().any(|a| a.text.contains("scope=\"")));
}

#[test]
fn bad_input_is_refused_on_its_field() {
    let field = |i: ProtectInput| protect(&realm(), &i, false).expect_err("refused").field;
    assert_eq!(field(input("ftp://x/y", "")), "server_url");
    assert_eq!(field(input("https://x.example.com/mcp", "a\"b")), "scopes");
    let mut i = input("https://x.example.com/mcp", "");
    i.documentation_url = "javascript:alert(1)".into();
    assert_eq!(field(i), "documentation_url");
    let mut i = input("https://x.example.com/mcp", "");
    i.resource_name = "x".repeat(101);
    assert_eq!(field(i), "resource_name");
}

#[test]
fn registration_and_document_blocks_follow_the_realm() {
    let mut server = realm();
    server.registration_endpoint = None;
    server.metadata_documents = false;
    let p = protect(
        &server,
        &input("https://mcp.example.com/mcp", "tools:call"),
        false,
    )
    .expect("generated");
    let ids: Vec<_> = p.artifacts.iter().map(|a| a.id).collect();
    assert!(
        !ids.contains(&"register") && !ids.contains(&"metadata-document"),
        "{ids:?}"
    );
}

#[test]
fn hostile_input_stays_data_in_every_language() {
    let mut i = input("https://mcp.example.com/mcp", "tools:call");
    i.resource_name = "Pay'\"`${process.exit()}\\ mcp".into();
    let p = protect(&realm(), &i, false).expect("generated");
    let text = |id| {
        p.artifacts
            .iter()
            .find(|a| a.id == id)
            .expect(id)
            .text
            .clone()
    };
    // JSON string literals in code, single-quoted words in shell.
    assert!(text("typescript").contains(r#"resourceName: "Pay'\"`${process.exit()}\\ mcp""#));
    assert!(text("python").contains(r#"    "Pay'\"`${process.exit()}\\ mcp","#));
    assert!(
        text("claude-code").starts_with("claude mcp add --transport http pay-process-exit-mcp ")
    );
    let register = text("register");
    assert!(
        register.contains(r#""client_name": "Pay'\''\"`${process.exit()}\\ mcp client""#),
        "{register}"
    );
}

/// The browser tests build `end2end/rust-server` (`Cargo.toml`, `src/main.rs`) in an empty
/// directory outside this repository and run it against their Portcullis (port 3100): it must be
/// exactly what the console generates for it. `PORTCULLIS_UPDATE_EXAMPLE=1 cargo test -p authz
/// rust_snippet` rewrites it.
#[test]
fn the_rust_snippet_is_the_crate_the_browser_tests_build() {
    let issuer = "http://127.0.0.1:3100/realms/default".to_owned();
    let server = AuthorizationServer {
        realm: "Default".into(),
        metadata_url: "http://127.0.0.1:3100/.well-known/oauth-authorization-server/realms/default"
            .into(),
        jwks_uri: format!("{issuer}/jwks"),
        issuer,
        ..realm()
    };
    let p = protect(
        &server,
        &ProtectInput {
            server_url: "http://127.0.0.1:18961/mcp".into(),
            resource_name: "Snippet test server".into(),
            scopes: "tools:call".into(),
            documentation_url: String::new(),
        },
        true,
    )
    .expect("generated");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../end2end/rust-server");
    for (id, file) in [("rust-dependencies", "Cargo.toml"), ("rust", "src/main.rs")] {
        let text = &p.artifacts.iter().find(|a| a.id == id).expect(id).text;
        let path = format!("{dir}/{file}");
        if std::env::var_os("PORTCULLIS_UPDATE_EXAMPLE").is_some() {
            std::fs::create_dir_all(format!("{dir}/src")).expect("the crate's directory");
            std::fs::write(&path, text).expect("write the crate");
        }
        let saved = std::fs::read_to_string(&path).expect("the crate");
        assert!(
            *text == saved,
            "end2end/rust-server/{file} is not what the generator writes; run PORTCULLIS_UPDATE_EXAMPLE=1 cargo test -p authz rust_snippet"
        );
    }
}

#[test]
fn the_rust_snippet_names_the_locked_versions() {
    let lock = include_str!("../../../../Cargo.lock");
    for (name, version, _, _) in RUST_CRATES {
        let version = version.trim_start_matches('=');
        assert!(
            lock.contains(&format!("name = \"{name}\"\nversion = \"{version}\"\n")),
            "{name} {version} is not the locked version"
        );
    }
}

#[test]
fn the_rust_crate_is_named_as_cargo_allows() {
    assert_eq!(crate_name("payments-mcp"), "payments-mcp");
    for (short, name) in [
        ("test", "mcp-test"),
        ("fn", "mcp-fn"),
        ("3d-tools", "mcp-3d-tools"),
    ] {
        assert_eq!(crate_name(short), name);
    }
}

#[test]
fn long_constants_wrap_as_rustfmt_does_and_keep_every_quote() {
    let long = format!(
        "const A: &[&str] = &[\"{}\\\"\", \"b\\\", \\\"c\"];\nconst B: &str = \"{}\";\nconst C: &str = \"short\";\n",
        "x".repeat(90),
        "y".repeat(90)
    );
    assert_eq!(
        wrap_long_constants(&long),
        format!(
            "const A: &[&str] = &[\n    \"{}\\\"\",\n    \"b\\\", \\\"c\",\n];\nconst B: &str =\n    \"{}\";\nconst C: &str = \"short\";\n",
            "x".repeat(90),
            "y".repeat(90)
        )
    );
}

#[test]
fn the_documentation_url_is_carried_as_parsed() {
    let mut i = input("https://mcp.example.com/mcp", "");
    i.documentation_url = "https://Docs.Example.com/a\"##b c".into();
    let p = protect(&realm(), &i, false).expect("generated");
    let metadata = &p
        .artifacts
        .iter()
        .find(|a| a.id == "metadata")
        .expect("metadata")
        .text;
    assert!(
        metadata.contains(r#""resource_documentation": "https://docs.example.com/a%22##b%20c""#),
        "{metadata}"
    );
}

#[test]
fn raw_literals_never_end_early() {
    assert_eq!(raw_literal("{}"), "r#\"{}\"#");
    assert_eq!(raw_literal("a\"#b\"##c"), "r###\"a\"#b\"##c\"###");
}

#[test]
fn names_cannot_break_out_of_comments_or_literals() {
    let mut server = realm();
    server.realm = "Acme\n}; process.exit(1); //\u{2028}x".into();
    let mut i = input("https://mcp.example.com/mcp", "tools:call");
    i.resource_name = "Pay\"); std::process::exit(1); (\"".into();
    let p = protect(&server, &i, false).expect("generated");
    for id in ["typescript", "python", "rust"] {
        let text = &p.artifacts.iter().find(|a| a.id == id).expect(id).text;
        // Python reads an encoding declaration on line 1 or 2 (PEP 263): line 1 declares
        // UTF-8, so no name on line 2 ("… coding: utf-7") can choose another one.
        let naming = if id == "python" {
            assert_eq!(text.lines().next(), Some("# -*- coding: utf-8 -*-"));
            text.lines().nth(1)
        } else {
            text.lines().next()
        }
        .expect("the line naming the realm");
        assert!(
            naming.contains("Acme }; process.exit(1); // x"),
            "{id}: {naming}"
        );
    }
    let rust = &p
        .artifacts
        .iter()
        .find(|a| a.id == "rust")
        .expect("rust")
        .text;
    assert!(
        rust.contains(r#"const NAME: &str = "Pay\"); std::process::exit(1); (\"";"#),
        "{rust}"
    );
}

#[test]
fn every_artifact_as_generated() {
    let p = protect(
        &realm(),
        &input("https://mcp.example.com/mcp", "tools:call"),
        false,
    )
    .expect("generated");
    for a in &p.artifacts {
        insta::assert_snapshot!(
            a.id,
            format!(
                "{}\n{}\n{} {}\n\n{}",
                a.title, a.explanation, a.reference.0, a.reference.1, a.text
            )
        );
    }
}
