//! The policy model's rules, each refused on the field it concerns.
use portcullis_manifest::policy::{PolicyInput, Unit};
use portcullis_manifest::server::{AuthInput, CommandInput, PackageInput};
use portcullis_manifest::{Auth, Mode, Policy, Server, ServerInput, Transport};

fn remote(id: &str, url: &str) -> ServerInput {
    ServerInput {
        id: id.into(),
        url: Some(url.into()),
        rings: vec!["ring0".into()],
        ..Default::default()
    }
}

fn npm(id: &str, identifier: &str, version: &str) -> ServerInput {
    ServerInput {
        id: id.into(),
        package: Some(PackageInput {
            kind: "npm".into(),
            identifier: identifier.into(),
            version: Some(version.into()),
        }),
        rings: vec!["ring0".into()],
        ..Default::default()
    }
}

/// The error on `field`, or a panic listing what was found.
fn error_on(input: &ServerInput, field: &str) -> String {
    let (server, f) = Server::check(input);
    assert!(server.is_none(), "accepted: {input:?}");
    f.error_on(field)
        .unwrap_or_else(|| panic!("no error on {field}: {f:?}"))
        .to_owned()
}

#[test]
fn a_remote_server_is_canonical_and_round_trips() {
    let (server, f) = Server::check(&remote("wiki", "https://MCP-Wiki.Example.com:443/mcp/"));
    assert!(f.errors.is_empty(), "{f:?}");
    let server = server.expect("server");
    assert_eq!(
        server.transport,
        Transport::Remote {
            url: "https://mcp-wiki.example.com/mcp".into(),
            sse: false
        }
    );
    assert_eq!(server.auth, Auth::None);
    let (again, _) = Server::check(&server.to_input());
    assert_eq!(again, Some(server));
    for (url, why) in [
        ("http://wiki.example.com/mcp", "https"),
        ("https://wiki.example.com/mcp?x=1", "query"),
        ("https://user:pw@wiki.example.com/mcp", "password"),
        ("not a url", "not a URL"),
    ] {
        assert!(error_on(&remote("wiki", url), "url").contains(why), "{url}");
    }
}

#[test]
fn exactly_one_transport() {
    let mut both = remote("wiki", "https://wiki.example.com/mcp");
    both.package = npm("x", "wiki-mcp", "1.0.0").package;
    assert!(error_on(&both, "transport").contains("Exactly one"));
    let none = ServerInput {
        id: "wiki".into(),
        ..Default::default()
    };
    assert!(error_on(&none, "transport").contains("url, a package or a command"));
}

#[test]
fn packages_are_pinned_and_launched_the_same_way_everywhere() {
    let (server, f) = Server::check(&npm("playwright", "@playwright/mcp", "0.0.82"));
    assert!(f.errors.is_empty(), "{f:?}");
    let Some(Server {
        transport: Transport::Package(p),
        ..
    }) = server
    else {
        panic!("a package")
    };
    assert_eq!(
        p.launch(),
        (
            "npx".into(),
            vec!["-y".into(), "@playwright/mcp@0.0.82".into()]
        )
    );
    for version in ["latest", "^0.0.82", "0.0.x", "${VERSION}", ""] {
        assert!(
            !error_on(
                &npm("playwright", "@playwright/mcp", version),
                "package.version"
            )
            .is_empty(),
            "{version:?}"
        );
    }
    assert!(error_on(&npm("p", "Not A Package", "1.0.0"), "package.identifier").contains("npm"));
    let pypi = ServerInput {
        package: Some(PackageInput {
            kind: "pypi".into(),
            identifier: "mcp-server-git".into(),
            version: Some("2025.1.14".into()),
        }),
        ..npm("git", "", "")
    };
    let (server, _) = Server::check(&pypi);
    let Some(Server {
        transport: Transport::Package(p),
        ..
    }) = server
    else {
        panic!("a package")
    };
    assert_eq!(
        p.launch(),
        ("uvx".into(), vec!["mcp-server-git==2025.1.14".into()])
    );
    let digest = "2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";
    let oci = |identifier: String, version: Option<&str>| ServerInput {
        package: Some(PackageInput {
            kind: "oci".into(),
            identifier,
            version: version.map(str::to_owned),
        }),
        ..npm("img", "", "")
    };
    let (server, f) = Server::check(&oci(format!("ghcr.io/acme/img:1.2@sha256:{digest}"), None));
    assert!(f.errors.is_empty(), "{f:?}");
    let Some(Server {
        transport: Transport::Package(p),
        ..
    }) = server
    else {
        panic!("a package")
    };
    assert_eq!(
        p.launch().1.last(),
        Some(&format!("ghcr.io/acme/img:1.2@sha256:{digest}"))
    );
    assert!(
        error_on(
            &oci("ghcr.io/acme/img:1.2".into(), None),
            "package.identifier"
        )
        .contains("digest")
    );
    assert!(
        error_on(
            &oci(format!("ghcr.io/acme/img@sha256:{digest}"), Some("1.2")),
            "package.version"
        )
        .contains("digest")
    );
    let cargo = ServerInput {
        package: Some(PackageInput {
            kind: "cargo".into(),
            identifier: "x".into(),
            version: Some("1.0.0".into()),
        }),
        ..npm("x", "", "")
    };
    assert!(error_on(&cargo, "package.type").contains("npm, pypi or oci"));
}

#[test]
fn a_bare_command_is_accepted_with_a_warning_and_a_pinned_one_without() {
    let command = |sha256: Option<&str>| ServerInput {
        id: "local".into(),
        command: Some(CommandInput {
            path: "/opt/acme/bin/acme-mcp".into(),
            args: vec!["--stdio".into()],
            sha256: sha256.map(str::to_owned),
        }),
        units: vec!["payments".into()],
        ..Default::default()
    };
    let (server, f) = Server::check(&command(None));
    assert!(server.is_some());
    assert!(
        f.warnings.iter().any(|w| w.field == "command.sha256"),
        "{f:?}"
    );
    let (server, f) = Server::check(&command(Some(&"AB".repeat(32))));
    assert!(server.is_some() && f.warnings.is_empty(), "{f:?}");
    assert!(error_on(&command(Some("abc")), "command.sha256").contains("64 hex"));
    let mut secret_arg = command(None);
    secret_arg.command.as_mut().expect("command").args =
        vec!["--token=ghp_abcdefghijklmnopqrstuvwxyz0123".into()];
    assert!(error_on(&secret_arg, "command.args[0]").contains("credential"));
}

#[test]
fn headers_and_environment_reference_secrets_never_carry_them() {
    let mut s = remote("wiki", "https://wiki.example.com/mcp");
    s.headers
        .insert("Authorization".into(), "Bearer ${WIKI_TOKEN}".into());
    s.headers.insert("X-Tenant".into(), "acme".into());
    let (server, f) = Server::check(&s);
    assert!(server.is_some(), "{f:?}");
    s.headers.insert(
        "Authorization".into(),
        "Bearer hunter2-but-longer-123456".into(),
    );
    assert!(error_on(&s, "headers.Authorization").contains("${NAME}"));
    let mut s = remote("wiki", "https://wiki.example.com/mcp");
    s.env.insert("TOKEN".into(), "${TOKEN}".into());
    assert!(error_on(&s, "env").contains("headers"));
    let mut s = npm("p", "p-mcp", "1.0.0");
    s.env.insert("bad-name".into(), "x".into());
    assert!(error_on(&s, "env.bad-name").contains("environment variable name"));
}

#[test]
fn tool_rules_and_ids_hold_in_every_harness() {
    let mut s = remote("wiki", "https://wiki.example.com/mcp");
    s.tools.allow = vec!["search".into(), "fetch".into()];
    s.tools.deny = vec!["delete_page".into()];
    let (server, _) = Server::check(&s);
    let tools = server.expect("server").tools;
    assert!(tools.allows("search") && !tools.allows("delete_page") && !tools.allows("other"));
    s.tools.deny = vec!["search".into(), "search".into()];
    assert!(error_on(&s, "tools.deny[1]").contains("twice"));
    s.tools.deny = vec!["delete page".into()];
    assert!(!error_on(&s, "tools.deny[0]").is_empty());
    assert!(!error_on(&remote("my_wiki", "https://wiki.example.com/mcp"), "id").is_empty());
}

#[test]
fn authentication_modes() {
    let with = |auth: AuthInput| ServerInput {
        auth: Some(auth),
        ..remote("wiki", "https://wiki.example.com/mcp")
    };
    let (server, f) = Server::check(&with(AuthInput {
        mode: "oauth".into(),
        client_id: Some("portcullis-wiki".into()),
        issuer: Some("https://login.example.com".into()),
        scopes: vec!["wiki.read".into()],
        ..Default::default()
    }));
    assert!(
        matches!(server.map(|s| s.auth), Some(Auth::OAuth { .. })),
        "{f:?}"
    );
    let both = with(AuthInput {
        mode: "oauth".into(),
        client_id: Some("a".into()),
        client_metadata_url: Some("https://example.com/client.json".into()),
        ..Default::default()
    });
    assert!(!error_on(&both, "auth.clientMetadataUrl").is_empty());
    let enterprise = with(AuthInput {
        mode: "enterprise".into(),
        ..Default::default()
    });
    assert!(error_on(&enterprise, "auth.identityIssuer").contains("identity provider"));
    assert!(
        error_on(
            &with(AuthInput {
                mode: "magic".into(),
                ..Default::default()
            }),
            "auth.mode"
        )
        .contains("portcullis")
    );
    // Portcullis authorizes URLs: a package is no audience.
    let package = ServerInput {
        auth: Some(AuthInput {
            mode: "portcullis".into(),
            ..Default::default()
        }),
        ..npm("p", "p-mcp", "1.0.0")
    };
    assert!(error_on(&package, "auth.mode").contains("remote servers only"));
    let (server, _) = Server::check(&with(AuthInput {
        mode: "portcullis".into(),
        scopes: vec!["tools:call".into()],
        ..Default::default()
    }));
    assert_eq!(
        server.map(|s| s.auth),
        Some(Auth::Portcullis {
            scopes: vec!["tools:call".into()]
        })
    );
}

#[test]
fn a_policy_fails_closed_on_an_unknown_mode_and_checks_what_servers_name() {
    let input = PolicyInput {
        mode: "permissive".into(),
        servers: vec![
            remote("wiki", "https://wiki.example.com/mcp"),
            ServerInput {
                units: vec!["payments-eu".into(), "nowhere".into()],
                rings: vec![],
                ..remote("wiki", "https://wiki2.example.com/mcp")
            },
        ],
        rings: vec!["ring0".into()],
        units: vec![
            Unit {
                id: "payments".into(),
                parent: None,
            },
            Unit {
                id: "payments-eu".into(),
                parent: Some("payments".into()),
            },
        ],
    };
    let (policy, f) = Policy::check(&input);
    assert!(policy.is_none());
    assert!(f.error_on("mode").is_some_and(|m| m.contains("allowlist")));
    assert_eq!(Mode::parse("permissive").0, Mode::Allowlist);
    assert!(
        f.error_on("servers[1].id")
            .is_some_and(|m| m.contains("servers[0]"))
    );
    assert!(
        f.error_on("servers[1].units[1]")
            .is_some_and(|m| m.contains("no such unit"))
    );
    // Fixed, it resolves who gets what: a unit's members get what the units above it get.
    let mut fixed = input.clone();
    fixed.mode = "allowlist".into();
    fixed.servers[1].id = "wiki-eu".into();
    fixed.servers[1].units = vec!["payments".into()];
    let (policy, f) = Policy::check(&fixed);
    let policy = policy.unwrap_or_else(|| panic!("{f:?}"));
    let ids = |servers: Vec<&Server>| servers.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
    assert_eq!(
        ids(policy.servers_for(&[], &["payments-eu".into()])),
        ["wiki-eu"]
    );
    assert_eq!(ids(policy.servers_for(&["ring0".into()], &[])), ["wiki"]);
    assert!(policy.servers_for(&[], &[]).is_empty());
    // A unit may not be its own ancestor.
    let mut cycle = fixed.clone();
    cycle.units[0].parent = Some("payments-eu".into());
    let (_, f) = Policy::check(&cycle);
    assert!(
        f.errors.iter().any(|e| e.message.contains("own ancestor")),
        "{f:?}"
    );
}

/// What a harness would read as a wildcard, an option or an expansion never gets into a
/// policy (security review of issue 20: M1, M2, L3).
#[test]
fn wildcards_options_and_expansions_are_refused() {
    for url in [
        "https://*/*",
        "https://*.example.com/mcp",
        "https://mcp.example.com/*",
        "https://mcp.example.com/${PATH}",
    ] {
        let m = error_on(&remote("wiki", url), "url");
        assert!(!m.is_empty(), "{url}");
    }
    let m = error_on(&npm("x", "-y", "1.0.0"), "package.identifier");
    assert!(m.contains("not an option"), "{m}");
    let oauth = |client_id: &str, scope: &str, issuer: &str| ServerInput {
        auth: Some(AuthInput {
            mode: "oauth".into(),
            client_id: Some(client_id.into()),
            issuer: Some(issuer.into()),
            scopes: vec![scope.into()],
            ..Default::default()
        }),
        ..remote("wiki", "https://mcp.example.com/mcp")
    };
    error_on(
        &oauth("{file:~/.ssh/id_rsa}", "read", "https://as.example.com"),
        "auth.clientId",
    );
    error_on(
        &oauth(
            "acme",
            "{env:AWS_SECRET_ACCESS_KEY}",
            "https://as.example.com",
        ),
        "auth.scopes[0]",
    );
    error_on(
        &oauth("acme", "read", "https://as.example.com/$HOME"),
        "auth.issuer",
    );
    let (ok, f) = Server::check(&oauth(
        "acme-client",
        "tools:read",
        "https://as.example.com",
    ));
    assert!(ok.is_some(), "{f:?}");
}

#[test]
fn an_oauth_issuer_is_https_or_plain_http_on_loopback_for_a_loopback_server() {
    let with = |url: &str, issuer: &str| ServerInput {
        auth: Some(AuthInput {
            mode: "oauth".into(),
            client_id: Some("gateway".into()),
            issuer: Some(issuer.into()),
            ..Default::default()
        }),
        ..remote("docs", url)
    };
    for (url, fine) in [
        (
            "https://docs.example.com/mcp",
            "https://accounts.example.com",
        ),
        (
            "http://127.0.0.1:8081/mcp",
            "http://127.0.0.1:8080/realms/docs",
        ),
        ("http://localhost:8081/mcp", "http://localhost:9000"),
    ] {
        let (server, f) = Server::check(&with(url, fine));
        assert!(server.is_some() && f.errors.is_empty(), "{fine}: {f:?}");
    }
    for (url, refused) in [
        (
            "https://docs.example.com/mcp",
            "http://accounts.example.com",
        ),
        // Laptops and the gateway would take any local process on that port for the
        // authorization server of a remote server.
        ("https://docs.example.com/mcp", "http://127.0.0.1:8080"),
        ("http://127.0.0.1:8081/mcp", "ftp://127.0.0.1"),
        ("http://127.0.0.1:8081/mcp", "accounts"),
    ] {
        assert!(
            error_on(&with(url, refused), "auth.issuer").contains("https"),
            "{refused}"
        );
    }
}
