//! The registry over HTTP: import real `server.json` documents, publish, serve the signed
//! release (verified with the realm's JWKS alone, ETag and 304), the MCP Registry API v0.1
//! (paging, search, names with a slash, the official schema), and who may read it.
use super::*;
use authz::registry::{ApiAccess, ImportSource, Published};
use portcullis_manifest::import::Prefer;
use portcullis_manifest::release::verify_release;

const ISSUER: &str = "https://id.example.com/realms/default";

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../manifest/tests/fixtures/server-json/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

async fn server() -> TestServer {
    TestServer::with(
        |c| c.public_url = "https://id.example.com".into(),
        Arc::new(authz::clock::SystemClock),
    )
    .await
}

async fn get(t: &TestServer, path: &str, headers: &[(&str, &str)]) -> Response<Body> {
    let mut req = Request::get(path);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    t.send(req.body(Body::empty()).expect("request")).await
}

/// Imports the fixtures into the draft (each taking the transport the document offers first),
/// gives them to ring0 and publishes release 1.
async fn published(t: &TestServer) -> String {
    let core = &t.state.core;
    let p = authz::Principal::cli();
    let m = authz::RequestMeta::default();
    let mut policy = portcullis_manifest::policy::PolicyInput {
        mode: "allowlist".into(),
        rings: vec!["ring0".into()],
        ..Default::default()
    };
    for name in [
        "apify.json",
        "neon-remote-headers.json",
        "context7.json",
        "qiskit-ibm-runtime.json",
    ] {
        let mut imported = core
            .import_registry_server(
                &p,
                "default",
                ImportSource::Document(fixture(name)),
                Prefer::Default,
            )
            .await
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        imported.server.rings = vec!["ring0".into()];
        policy.servers.push(imported.server);
    }
    core.replace_registry_draft(&p, "default", 0, &policy, &m)
        .await
        .expect("draft");
    match core
        .publish_registry(&p, "default", 1, &m)
        .await
        .expect("publish")
    {
        Published::Release(r) => r.id,
        Published::AwaitingApproval(_) => panic!("no approval asked"),
    }
}

#[tokio::test]
async fn a_published_release_is_served_signed_and_cacheable() {
    let t = server().await;
    let id = published(&t).await;
    // Off by default: nothing is served.
    let res = get(&t, "/realms/default/registry/releases/latest", &[]).await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res = get(&t, "/realms/default/registry/v0.1/servers", &[]).await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    t.state
        .core
        .set_registry_settings(
            &authz::Principal::cli(),
            "default",
            false,
            ApiAccess::Public,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("public");

    let res = get(&t, "/realms/default/registry/releases/latest", &[]).await;
    assert_eq!(res.status(), StatusCode::OK);
    let etag = res.headers()[header::ETAG]
        .to_str()
        .expect("etag")
        .to_owned();
    assert_eq!(etag, format!("\"{id}\""));
    assert_eq!(res.headers()[header::CACHE_CONTROL], "private, no-cache");
    let document = body(res).await;
    let jwks: serde_json::Value =
        serde_json::from_str(&body(get(&t, "/realms/default/jwks", &[]).await).await)
            .expect("jwks");
    let verified = verify_release(document.as_bytes(), &jwks, ISSUER).expect("verifies");
    assert_eq!(verified.id, id);
    assert_eq!(verified.policy.servers.len(), 4);
    // A tampered copy is refused by the same check.
    let tampered = document.replacen("ring0", "ring9", 1);
    assert!(verify_release(tampered.as_bytes(), &jwks, ISSUER).is_err());

    // The client has it: 304, no body.
    let res = get(
        &t,
        "/realms/default/registry/releases/latest",
        &[("if-none-match", &etag)],
    )
    .await;
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    assert!(body(res).await.is_empty());
    // By id: the same bytes, cacheable for good.
    let res = get(&t, &format!("/realms/default/registry/releases/{id}"), &[]).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        res.headers()[header::CACHE_CONTROL],
        "private, max-age=31536000, immutable"
    );
    assert_eq!(body(res).await, document);
    for bad in ["0".repeat(64), "not-an-id".into()] {
        let res = get(&t, &format!("/realms/default/registry/releases/{bad}"), &[]).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{bad}");
    }
    let res = get(&t, "/realms/nowhere/registry/releases/latest", &[]).await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_mcp_registry_api_serves_the_latest_release() {
    let t = server().await;
    published(&t).await;
    t.state
        .core
        .set_registry_settings(
            &authz::Principal::cli(),
            "default",
            false,
            ApiAccess::Public,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("public");
    let schema: serde_json::Value =
        serde_json::from_slice(&fixture("../server.schema.2025-12-11.json")).expect("schema");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let json = |res: String| serde_json::from_str::<serde_json::Value>(&res).expect("json");

    // A browser (VS Code web) may call it.
    let res = get(
        &t,
        "/realms/default/registry/v0.1/servers?limit=2",
        &[("origin", "https://vscode.dev")],
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
    let page = json(body(res).await);
    assert_eq!(page["metadata"]["count"], 2);
    let cursor = page["metadata"]["nextCursor"]
        .as_str()
        .expect("more")
        .to_owned();
    let mut names: Vec<String> = page["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .map(|e| {
            assert!(validator.is_valid(&e["server"]), "{}", e["server"]);
            e["server"]["name"].as_str().expect("name").to_owned()
        })
        .collect();
    let res = get(
        &t,
        &format!(
            "/realms/default/registry/v0.1/servers?limit=2&cursor={}",
            enc(&cursor)
        ),
        &[],
    )
    .await;
    let next = json(body(res).await);
    names.extend(
        next["servers"]
            .as_array()
            .expect("servers")
            .iter()
            .map(|e| e["server"]["name"].as_str().expect("name").to_owned()),
    );
    assert_eq!(names.len(), 4, "{names:?}");
    assert!(next["metadata"].get("nextCursor").is_none());

    // Search, and one server by its name (with its slash encoded or not).
    let res = get(
        &t,
        "/realms/default/registry/v0.1/servers?search=qiskit",
        &[],
    )
    .await;
    let found = json(body(res).await);
    assert_eq!(found["metadata"]["count"], 1);
    let name = found["servers"][0]["server"]["name"]
        .as_str()
        .expect("name")
        .to_owned();
    assert!(name.contains('/'), "{name}");
    for path in [
        format!(
            "/realms/default/registry/v0.1/servers/{}/versions/latest",
            name.replace('/', "%2F")
        ),
        format!("/realms/default/registry/v0.1/servers/{name}/versions/latest"),
        format!(
            "/realms/default/registry/v0/servers/{}/versions/latest",
            name.replace('/', "%2F")
        ),
    ] {
        let res = get(&t, &path, &[]).await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let one = json(body(res).await);
        assert!(validator.is_valid(&one["server"]));
        assert_eq!(one["server"]["name"], name.as_str());
    }
    let version = found["servers"][0]["server"]["version"]
        .as_str()
        .expect("version")
        .to_owned();
    let res = get(
        &t,
        &format!(
            "/realms/default/registry/v0.1/servers/{}/versions/{version}",
            name.replace('/', "%2F")
        ),
        &[],
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    let res = get(
        &t,
        &format!(
            "/realms/default/registry/v0.1/servers/{}/versions/9.9.9-nope",
            name.replace('/', "%2F")
        ),
        &[],
    )
    .await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res = get(
        &t,
        &format!(
            "/realms/default/registry/v0.1/servers/{}/versions",
            name.replace('/', "%2F")
        ),
        &[],
    )
    .await;
    assert_eq!(json(body(res).await)["metadata"]["count"], 1);
    // Answered from the cached release: a client that has it gets 304.
    let res = get(&t, "/realms/default/registry/v0.1/servers", &[]).await;
    let etag = res.headers()[header::ETAG]
        .to_str()
        .expect("etag")
        .to_owned();
    let res = get(
        &t,
        "/realms/default/registry/v0.1/servers",
        &[("if-none-match", &etag)],
    )
    .await;
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    let res = get(&t, "/realms/default/registry/v0.1/servers?limit=1000", &[]).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn bearer_access_takes_a_realm_token_for_the_registry_only() {
    let t = server().await;
    published(&t).await;
    let core = &t.state.core;
    let p = authz::Principal::cli();
    let m = authz::RequestMeta::default();
    core.set_registry_settings(&p, "default", false, ApiAccess::Bearer, &m)
        .await
        .expect("bearer");
    // Another resource, to get a token the registry must refuse.
    core.create_resource(
        &p,
        "default",
        &authz::resources::ResourceInput {
            slug: "wiki".into(),
            display_name: "Wiki".into(),
            uri: "https://wiki.example.com/mcp".into(),
            scopes: "registry:read".into(),
            enabled: true,
            ..Default::default()
        },
        &m,
    )
    .await
    .expect("resource");
    let (_, secret) = register_granted_client(
        core,
        &p,
        "laptops",
        authz::clients::ClientForm {
            name: "Laptops".into(),
            auth_method: "client_secret_post".into(),
            scope: "registry:read".into(),
            ..Default::default()
        },
    )
    .await
    .expect("client");
    let secret = secret.expect("confidential").expose().to_owned();
    let t = &t;
    let token = |resource: &'static str| {
        let secret = secret.clone();
        async move {
            let res = t
                .post_form(
                    "/realms/default/token",
                    &format!(
                        "grant_type=client_credentials&client_id=laptops&client_secret={}&resource={}",
                        enc(&secret),
                        enc(resource)
                    ),
                    None,
                )
                .await;
            let text = body(res).await;
            let json: serde_json::Value = serde_json::from_str(&text).expect("json");
            json["access_token"]
                .as_str()
                .unwrap_or_else(|| panic!("{text}"))
                .to_owned()
        }
    };
    let for_registry = token("https://id.example.com/realms/default/registry").await;
    let for_wiki = token("https://wiki.example.com/mcp").await;

    let res = get(t, "/realms/default/registry/releases/latest", &[]).await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        res.headers()[header::WWW_AUTHENTICATE],
        "Bearer error=\"invalid_token\""
    );
    let wrong = format!("Bearer {for_wiki}");
    let res = get(
        t,
        "/realms/default/registry/v0.1/servers",
        &[("authorization", &wrong)],
    )
    .await;
    assert_eq!(
        res.status(),
        StatusCode::UNAUTHORIZED,
        "a token for another audience"
    );
    let right = format!("Bearer {for_registry}");
    let res = get(
        t,
        "/realms/default/registry/releases/latest",
        &[("authorization", &right)],
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()[header::VARY], "Authorization");
    let res = get(
        t,
        "/realms/default/registry/v0.1/servers",
        &[("authorization", &right)],
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    // A revoked client's token stops at once.
    core.set_client_enabled(&p, "default", "laptops", false, &m)
        .await
        .expect("disable");
    let res = get(
        t,
        "/realms/default/registry/releases/latest",
        &[("authorization", &right)],
    )
    .await;
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
}

/// A stand-in MCP registry on this machine: the document by name, a same-host redirect to it,
/// a redirect off the host, and a document over 1 MiB.
async fn stand_in_registry() -> std::net::SocketAddr {
    use axum::routing::get;
    let doc = serde_json::json!({
        "server": serde_json::from_slice::<serde_json::Value>(&fixture("qiskit-ibm-runtime.json")).expect("json"),
        "_meta": {},
    })
    .to_string();
    let app = axum::Router::new()
        .route(
            "/v0.1/servers/{name}/versions/latest",
            get(move |axum::extract::Path(name): axum::extract::Path<String>| {
                let doc = doc.clone();
                async move {
                    if name == "io.github.Qiskit/qiskit-ibm-runtime-mcp-server" {
                        (StatusCode::OK, doc)
                    } else {
                        (StatusCode::NOT_FOUND, String::new())
                    }
                }
            }),
        )
        .route(
            "/moved",
            get(|| async {
                (
                    StatusCode::FOUND,
                    [(header::LOCATION, "/v0.1/servers/io.github.Qiskit%2Fqiskit-ibm-runtime-mcp-server/versions/latest")],
                )
            }),
        )
        .route(
            "/away",
            get(|| async { (StatusCode::FOUND, [(header::LOCATION, "http://169.254.169.254/latest")]) }),
        )
        .route("/big", get(|| async { "x".repeat(1024 * 1024 + 1) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

#[tokio::test]
async fn import_fetches_read_only_within_its_limits() {
    let addr = stand_in_registry().await;
    let t = TestServer::with(
        |c| {
            c.dev.allow_loopback_client_urls = true;
            c.registry.import_base = format!("http://{addr}/v0");
        },
        Arc::new(authz::clock::SystemClock),
    )
    .await;
    let core = &t.state.core;
    let p = authz::Principal::cli();
    let import = |source: String| {
        core.import_registry_server(&p, "default", ImportSource::Fetch(source), Prefer::Default)
    };
    let by_name = import("io.github.Qiskit/qiskit-ibm-runtime-mcp-server".into())
        .await
        .expect("by name");
    assert_eq!(
        by_name.server.registry_name.as_deref(),
        Some("io.github.Qiskit/qiskit-ibm-runtime-mcp-server")
    );
    assert_eq!(
        by_name
            .server
            .package
            .as_ref()
            .expect("pypi")
            .version
            .as_deref(),
        Some("0.6.1")
    );
    let moved = import(format!("http://{addr}/moved"))
        .await
        .expect("same-host redirect");
    assert_eq!(moved.server, by_name.server);
    for (source, expected) in [
        (format!("http://{addr}/away"), "another host"),
        (format!("http://{addr}/big"), "larger than"),
        ("io.github.nobody/nothing".to_owned(), "404"),
        ("not a name".to_owned(), "source"),
    ] {
        let err = import(source.clone()).await.expect_err(&source);
        assert!(
            matches!(&err, authz::Error::InvalidField { field: "source", message } if message.contains(expected))
                || (expected == "source"
                    && matches!(
                        err,
                        authz::Error::InvalidField {
                            field: "source",
                            ..
                        }
                    )),
            "{source}: {err:?}"
        );
    }
    // Without the development setting, this machine is out of reach.
    let strict = server().await;
    let err = strict
        .state
        .core
        .import_registry_server(
            &p,
            "default",
            ImportSource::Fetch(format!("http://{addr}/moved")),
            Prefer::Default,
        )
        .await
        .expect_err("loopback refused");
    assert!(
        matches!(
            err,
            authz::Error::InvalidField {
                field: "source",
                ..
            }
        ),
        "{err:?}"
    );
}

/// A command's exit status, stdout and stderr.
type Ran = (Option<i32>, String, String);

/// `target/debug/portcullis-cli`, which `cargo test --workspace` builds with the rest.
pub(super) fn laptop_cli() -> std::path::PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let bin = target.join("debug/portcullis-cli");
    assert!(
        bin.exists(),
        "{} is missing: `cargo test --workspace` builds it (or `cargo build -p portcullis-cli`)",
        bin.display()
    );
    bin
}

/// The round trip a laptop makes: a release published here is pulled and verified by
/// `portcullis-cli` over HTTP; a release changed in the database is refused and the cached one
/// kept; drift against a crafted home finds exactly the planted servers, and no planted secret
/// appears in its output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_laptop_pulls_verifies_and_finds_drift() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let t = TestServer::with(
        |c| c.public_url = format!("http://{addr}"),
        Arc::new(authz::clock::SystemClock),
    )
    .await;
    let router = t.router.clone();
    tokio::spawn(async move { axum::serve(listener, router).await });
    published(&t).await;
    t.state
        .core
        .set_registry_settings(
            &authz::Principal::cli(),
            "default",
            false,
            ApiAccess::Public,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("public");
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("cache");
    let server_url = format!("http://{addr}");
    let cli = |args: &[&str]| {
        let out = std::process::Command::new(laptop_cli())
            .args(args)
            .env("HOME", dir.path())
            .output()
            .expect("run portcullis-cli");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let pull = |cli: &dyn Fn(&[&str]) -> Ran, cache: &std::path::Path| {
        cli(&[
            "pull",
            "--server",
            &server_url,
            "--realm",
            "default",
            "--ring",
            "ring0",
            "--cache-dir",
            cache.to_str().expect("path"),
        ])
    };
    let (code, out, err) = tokio::task::block_in_place(|| pull(&cli, &cache));
    assert_eq!(code, Some(0), "{out}{err}");

    // Someone with database access changes the release: the laptop refuses it and keeps its cache.
    let changed = t
        .state
        .core
        .served_release("default", authz::registry::ReleaseSelector::Latest, None)
        .await
        .expect("release")
        .document
        .replace("ring0", "ring9");
    let sql = "UPDATE registry_releases SET document = $1";
    match &t.state.db {
        authz::storage::Database::Sqlite(pool) => {
            sqlx::query(sql)
                .bind(&changed)
                .execute(pool)
                .await
                .expect("tamper");
        }
        authz::storage::Database::Postgres(pool) => {
            sqlx::query(sql)
                .bind(&changed)
                .execute(pool)
                .await
                .expect("tamper");
        }
    }
    // A laptop that has the release is told it is unchanged (its ETag is the id) and keeps its
    // verified copy; a laptop without it gets the changed one and refuses it.
    let (code, out, err) = tokio::task::block_in_place(|| pull(&cli, &cache));
    assert_eq!(code, Some(0), "{out}{err}");
    let fresh = dir.path().join("fresh-cache");
    let (code, out, err) = tokio::task::block_in_place(|| pull(&cli, &fresh));
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(err.contains("does not match its id"), "{err}");

    // A home with one approved server as released, one at another version, one unapproved; each
    // carrying secrets drift must never print.
    let claude = serde_json::json!({
        "mcpServers": {
            "qiskit-ibm-runtime-mcp-server": {"command": "uvx", "args": ["qiskit-ibm-runtime-mcp-server==0.6.1"]},
        },
        "projects": {"/work/secret-project": {"mcpServers": {
            "shadow": {"type": "http", "url": "https://evil.example.com/path-SECRET-PATH?k=SECRET-QUERY", "headers": {"Authorization": "Bearer SECRET-HEADER"}},
        }}},
    });
    std::fs::write(dir.path().join(".claude.json"), claude.to_string()).expect("write");
    std::fs::create_dir_all(dir.path().join(".cursor")).expect("mkdir");
    let cursor = serde_json::json!({"mcpServers": {
        "qiskit-ibm-runtime-mcp-server": {"command": "uvx", "args": ["qiskit-ibm-runtime-mcp-server==0.5.0", "--token", "SECRET-ARG"], "env": {"IBM_KEY": "SECRET-ENV"}},
    }});
    std::fs::write(dir.path().join(".cursor/mcp.json"), cursor.to_string()).expect("write");
    let (code, out, err) = tokio::task::block_in_place(|| {
        cli(&[
            "drift",
            "--home",
            dir.path().to_str().expect("path"),
            "--cache-dir",
            cache.to_str().expect("path"),
            "--json",
        ])
    });
    assert_eq!(code, Some(1), "{out}{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("json");
    let findings = report["findings"].as_array().expect("findings");
    let kinds: Vec<(String, String)> = findings
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap_or_default().to_owned(),
                f["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(kinds.len(), 2, "{out}");
    assert!(
        kinds.contains(&("unapproved".into(), "shadow".into())),
        "{out}"
    );
    assert!(
        kinds.contains(&(
            "version-drift".into(),
            "qiskit-ibm-runtime-mcp-server".into()
        )),
        "{out}"
    );
    for secret in [
        "SECRET-PATH",
        "SECRET-QUERY",
        "SECRET-HEADER",
        "SECRET-ARG",
        "SECRET-ENV",
    ] {
        assert!(
            !out.contains(secret) && !err.contains(secret),
            "{secret} leaked: {out}{err}"
        );
    }
    // Reporting needs a sign-in: without one, the findings are still printed, then one line
    // says how to sign in (exit 3).
    let (code, out, err) = tokio::task::block_in_place(|| {
        cli(&[
            "drift",
            "--home",
            dir.path().to_str().expect("path"),
            "--cache-dir",
            cache.to_str().expect("path"),
            "--report",
            "--device",
            "ada-mbp",
        ])
    });
    assert_eq!(code, Some(3), "{out}{err}");
    assert!(out.contains("version-drift"), "{out}");
    assert!(err.contains("portcullis-cli login --server"), "{err}");
}
