use super::*;

#[tokio::test]
async fn health_readiness_and_metrics() {
    let t = TestServer::new().await;
    let res = t.get("/healthz", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        res.headers().contains_key("x-request-id"),
        "request id echoed"
    );
    assert_eq!(t.get("/readyz", None).await.status(), StatusCode::OK);
    let res = t.get("/metrics", None).await;
    assert_eq!(res.status(), StatusCode::OK);
    let text = body(res).await;
    assert!(text.contains("http_requests_total"), "{text}");
    assert!(text.contains("route=\"/healthz\""), "{text}");
    assert!(
        text.contains("http_request_duration_seconds_bucket"),
        "{text}"
    );
    assert!(text.contains("db_pool_connections"), "{text}");
    assert!(
        text.contains("# HELP http_requests_total HTTP requests answered"),
        "each metric says what it counts: {text}"
    );
}

#[tokio::test]
async fn metric_labels_are_bounded_whatever_the_method() {
    let t = TestServer::new().await;
    for method in ["FOO", "BAR-1", "X-RANDOM-9"] {
        t.send(
            Request::builder()
                .method(method)
                .uri("/healthz")
                .body(Body::empty())
                .expect("request"),
        )
        .await;
    }
    let text = body(t.get("/metrics", None).await).await;
    assert!(text.contains("method=\"OTHER\""), "{text}");
    for method in ["FOO", "BAR-1", "X-RANDOM-9"] {
        assert!(
            !text.contains(method),
            "a label per method would grow without bound"
        );
    }
}

#[tokio::test]
async fn readiness_fails_when_the_database_is_gone() {
    let t = TestServer::new().await;
    t.state.db.close().await;
    assert_eq!(
        t.get("/readyz", None).await.status(),
        StatusCode::SERVICE_UNAVAILABLE
    );
}

#[tokio::test]
async fn security_headers_and_incoming_request_id() {
    let t = TestServer::new().await;
    let res = t
        .send(
            Request::get("/healthz")
                .header("x-request-id", "abc-123")
                .body(Body::empty())
                .expect("req"),
        )
        .await;
    assert_eq!(res.headers()["x-request-id"], "abc-123");
    assert_eq!(res.headers()["x-frame-options"], "DENY");
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    assert_eq!(res.headers()["referrer-policy"], "no-referrer");
    assert!(
        res.headers()["content-security-policy"]
            .to_str()
            .expect("ascii")
            .contains("frame-ancestors 'none'")
    );
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let t = TestServer::new().await;
    let big = format!("email=a&password={}", "x".repeat(200 * 1024));
    assert_eq!(
        t.post_form("/login", &big, None).await.status(),
        StatusCode::PAYLOAD_TOO_LARGE
    );
}

#[test]
fn unknown_config_keys_are_rejected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("portcullis.toml");
    std::fs::write(
        &path,
        "public_url = \"https://id.example.com\"\nbogus = 1\n",
    )
    .expect("write");
    let err = Config::load(Some(&path))
        .expect_err("unknown key")
        .to_string();
    assert!(err.contains("bogus"), "{err}");
    std::fs::write(&path, "[http]\nbind = \"0.0.0.0:8080\"\n").expect("write");
    let c = Config::load(Some(&path)).expect("valid file");
    assert_eq!(c.http.bind.port(), 8080);
    assert!(Config::load(Some(&dir.path().join("missing.toml"))).is_err());
}

#[tokio::test]
async fn cli_migrates_and_validates_the_configuration() {
    use clap::Parser as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let site = dir.path().join("site");
    let path = dir.path().join("portcullis.toml");
    std::fs::write(
        &path,
        format!(
            "data_dir = {:?}\n[console]\nsite_dir = {:?}\n",
            data.display().to_string(),
            site.display().to_string()
        ),
    )
    .expect("write");
    let cli = |cmd: &str| {
        server::cli::Cli::parse_from(["portcullis", "--config", &path.display().to_string(), cmd])
    };
    let err = server::cli::run(cli("validate-config"))
        .await
        .expect_err("serve would refuse a console that was never built");
    assert!(err.to_string().contains("console.site_dir"), "{err}");
    std::fs::create_dir_all(site.join("pkg")).expect("mkdir");
    std::fs::write(site.join("pkg").join("app.js"), "").expect("write");
    server::cli::run(cli("validate-config"))
        .await
        .expect("valid");
    server::cli::run(cli("migrate")).await.expect("migrate");
    let db = authz::storage::Database::connect(
        &format!("sqlite://{}", data.join("portcullis.db").display()),
        1,
    )
    .await
    .expect("connect");
    let authz::storage::Database::Sqlite(pool) = &db else {
        panic!("sqlite")
    };
    let tables: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('realms', 'users', 'audit_events')",
    )
    .fetch_one(pool)
    .await
    .expect("query");
    assert_eq!(tables, 3);
    db.close().await;

    std::fs::write(&path, "public_url = \"not a url\"\n").expect("write");
    let err = server::cli::run(cli("validate-config"))
        .await
        .expect_err("invalid");
    assert!(err.to_string().contains("public_url"), "{err}");
}

#[tokio::test]
async fn cli_registers_resources_and_clients_and_rotates_keys() {
    use clap::Parser as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("portcullis.toml");
    let data = dir.path().join("data").display().to_string();
    std::fs::write(&path, format!("data_dir = {data:?}\n")).expect("write");
    let config = path.display().to_string();
    let run = |args: &[&str]| {
        let mut argv = vec!["portcullis", "--config", config.as_str()];
        argv.extend_from_slice(args);
        server::cli::run(server::cli::Cli::parse_from(argv))
    };
    run(&[
        "resources",
        "create",
        "--id",
        "payments-mcp",
        "--name",
        "Payments",
        "--uri",
        "https://pay.example.com/mcp/",
        "--scopes",
        "tools:call",
    ])
    .await
    .expect("resource");
    let err = run(&[
        "resources",
        "create",
        "--id",
        "bad_id",
        "--name",
        "X",
        "--uri",
        "https://x.example.com",
        "--scopes",
        "a",
    ])
    .await
    .expect_err("bad slug");
    assert!(err.to_string().contains("no '_'"), "{err}");
    run(&["resources", "set-default", "--id", "payments-mcp"])
        .await
        .expect("set default");
    run(&["resources", "set-default", "--id", "nope"])
        .await
        .expect_err("unknown resource");
    run(&[
        "clients",
        "create",
        "--client-id",
        "bot",
        "--name",
        "Bot",
        "--scope",
        "tools:call",
        "--redirect-uris",
        "https://app.example.com/cb http://127.0.0.1:9/cb",
        "--software-version",
        "1.2.3",
    ])
    .await
    .expect("client");
    // The lifecycle of clients, resources and agents from the CLI.
    run(&[
        "agents",
        "create",
        "--name",
        "reports",
        "--owner",
        "ada@example.com",
        "--roles",
        "tools:call mcp:tools",
    ])
    .await
    .expect("agent");
    run(&["agents", "bind", "--client-id", "bot", "--agent", "reports"])
        .await
        .expect("bind");
    run(&["agents", "list", "--mcp"])
        .await
        .expect("list agents");
    run(&["agents", "disable", "--name", "reports"])
        .await
        .expect("disable agent");
    run(&["clients", "list"]).await.expect("list clients");
    run(&["clients", "disable", "--client-id", "bot"])
        .await
        .expect("disable client");
    run(&["resources", "disable", "--id", "payments-mcp"])
        .await
        .expect("disable resource");
    run(&["clients", "delete", "--client-id", "nope"])
        .await
        .expect_err("unknown client");
    run(&["keys", "rotate"]).await.expect("rotate");
    run(&["keys", "rotate"]).await.expect("rotate again");
    run(&["keys", "list"]).await.expect("list");

    let state = AppState::init(Config::load(Some(&path)).expect("config"))
        .await
        .expect("init");
    let cli = authz::Principal::cli();
    let resources = state
        .core
        .list_resources(&cli, "default")
        .await
        .expect("resources");
    assert_eq!(resources[0].uri.as_str(), "https://pay.example.com/mcp");
    assert!(!resources[0].enabled, "disabled from the CLI");
    let mcp = authz::agents::AgentFilter {
        mcp_only: true,
        ..Default::default()
    };
    let agents = state
        .core
        .list_agents(&cli, "default", mcp, authz::paging::Page::first(10))
        .await
        .expect("agents")
        .items;
    assert_eq!(agents.len(), 1);
    assert_eq!(agents[0].clients, ["bot"]);
    assert_eq!(agents[0].status, authz::agents::AgentStatus::Disabled);
    let bot = state
        .core
        .get_client(&cli, "default", "bot")
        .await
        .expect("client");
    assert!(!bot.client.enabled);
    assert_eq!(
        bot.client.metadata.redirect_uris,
        ["https://app.example.com/cb", "http://127.0.0.1:9/cb"]
    );
    assert_eq!(
        bot.client.metadata.software_version.as_deref(),
        Some("1.2.3")
    );
    let default = state.core.default_resource(&cli, "default").await;
    assert_eq!(
        default.expect("default").map(|r| r.slug),
        Some("payments-mcp".to_owned())
    );
    for args in [
        &["clients", "enable", "--client-id", "bot"][..],
        &["resources", "enable", "--id", "payments-mcp"],
        &["agents", "enable", "--name", "reports"],
        &["agents", "unbind", "--client-id", "bot"],
        &["agents", "delete", "--name", "reports"],
    ] {
        run(args).await.expect("lifecycle");
    }
    let bot = state.core.get_client(&cli, "default", "bot").await;
    let bot = bot.expect("client");
    assert!(bot.client.enabled && bot.agent.is_none());
    let resources = state.core.list_resources(&cli, "default").await;
    assert!(resources.expect("resources")[0].enabled);
    let agents = state
        .core
        .list_agents(
            &cli,
            "default",
            Default::default(),
            authz::paging::Page::first(10),
        )
        .await;
    assert!(agents.expect("agents").items.is_empty());
    run(&["clients", "delete", "--client-id", "bot"])
        .await
        .expect("delete client");
    run(&["resources", "delete", "--id", "payments-mcp"])
        .await
        .expect("delete resource");
    let resources = state.core.list_resources(&cli, "default").await;
    assert!(resources.expect("resources").is_empty());
    let default = state.core.default_resource(&cli, "default").await;
    assert_eq!(default.expect("default"), None, "deleted with its resource");
    let keys = state
        .core
        .list_signing_keys(&cli, "default")
        .await
        .expect("keys");
    let count = |s: &str| keys.iter().filter(|k| k.state == s).count();
    assert_eq!(
        (count("active"), count("next"), count("retired")),
        (1, 1, 2)
    );
    assert!(
        dir.path().join("data/master.key").exists(),
        "master key generated on first use"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(dir.path().join("data/master.key"))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[tokio::test]
async fn serve_without_migrating_refuses_a_stale_schema_and_accepts_a_current_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = Config {
        data_dir: dir.path().to_owned(),
        database: server::config::DatabaseConfig {
            migrate_on_start: false,
            ..Default::default()
        },
        ..Config::default()
    };
    let err = AppState::init(config.clone())
        .await
        .err()
        .expect("a fresh database has no schema");
    assert!(
        format!("{err:#}").contains("schema is not current"),
        "{err:#}"
    );
    let db = server::connect(&config).await.expect("connect");
    server::prepare_schema(&db).await.expect("migrate");
    db.close().await;
    let state = AppState::init(config).await.expect("current schema");
    assert_eq!(
        state.core.ready().await.expect("ready"),
        authz::keys::MasterKeyCheck::Matches
    );
}

#[tokio::test]
async fn instances_sharing_a_database_refuse_to_serve_with_another_master_key() {
    use axum::response::IntoResponse as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("sqlite://{}", dir.path().join("shared.db").display());
    let instance = |name: &str| Config {
        data_dir: dir.path().join(name),
        database: server::config::DatabaseConfig {
            url: Some(url.clone()),
            ..Default::default()
        },
        ..Config::default()
    };
    let readyz = |state: AppState| async move {
        let response = server::ops::readyz(axum::extract::State(state))
            .await
            .into_response();
        let status = response.status();
        let body = http_body_util::BodyExt::collect(response.into_body())
            .await
            .expect("body")
            .to_bytes();
        (status, String::from_utf8_lossy(&body).into_owned())
    };
    let first = AppState::init(instance("first"))
        .await
        .expect("the first instance sets the check value");
    // A signing key sealed under the first instance's master key.
    first
        .core
        .signer_for_benchmark(
            &authz::Principal::cli(),
            "default",
            authz::keys::SigningAlg::ES256,
        )
        .await
        .expect("key pair");
    // The key copied, as the message says: a second instance serves.
    std::fs::create_dir_all(dir.path().join("copied")).expect("dir");
    std::fs::copy(
        dir.path().join("first/master.key"),
        dir.path().join("copied/master.key"),
    )
    .expect("copy the key");
    let copied = AppState::init(instance("copied"))
        .await
        .expect("the same master key serves");
    assert_eq!(readyz(copied).await.0, StatusCode::OK);

    // A fresh data directory generates another key: start-up refuses, naming what to copy where.
    let err = AppState::init(instance("other"))
        .await
        .err()
        .expect("another master key is refused");
    let message = format!("{err:#}");
    let other_dir = dir.path().join("other").display().to_string();
    assert!(
        message.contains("is not the key that sealed the signing keys")
            && message.contains(&other_dir)
            && message.contains("copy master.key"),
        "{message}"
    );

    // A database from before check values is checked against its signing keys.
    let pool = sqlx::SqlitePool::connect(&url).await.expect("pool");
    sqlx::query("DELETE FROM master_key_check")
        .execute(&pool)
        .await
        .expect("forget the check value");
    assert!(
        AppState::init(instance("other")).await.is_err(),
        "the oldest signing key does not open under another key"
    );
    assert_eq!(readyz(first.clone()).await.0, StatusCode::OK);

    // The database swapped under a running instance (a restore from another deployment):
    // readiness says so.
    let foreign = authz::keys::MasterKey::generate()
        .seal(
            b"portcullis master key check v1",
            b"portcullis-master-key-check",
        )
        .expect("seal");
    sqlx::query("INSERT INTO master_key_check (id, sealed, created_at) VALUES (1, $1, 0)")
        .bind(foreign)
        .execute(&pool)
        .await
        .expect("a foreign check value");
    let (status, body) = readyz(first).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(body.contains("master key mismatch"), "{body}");
}

#[tokio::test]
async fn metrics_can_take_a_bearer_token_or_their_own_listener() {
    let token = "a-long-random-metrics-token";
    let t = TestServer::with(
        |c| c.metrics.bearer_token = Some(token.into()),
        Arc::new(authz::clock::SystemClock),
    )
    .await;
    let scrape = |bearer: Option<&str>| {
        let mut req = Request::get("/metrics");
        if let Some(b) = bearer {
            req = req.header(header::AUTHORIZATION, format!("Bearer {b}"));
        }
        t.send(req.body(Body::empty()).expect("request"))
    };
    assert_eq!(scrape(None).await.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        scrape(Some("a-long-random-metrics-tokeN")).await.status(),
        StatusCode::UNAUTHORIZED
    );
    let res = scrape(Some(token)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(body(res).await.contains("http_requests_total"));
    // Health stays open for probes.
    assert_eq!(t.get("/readyz", None).await.status(), StatusCode::OK);

    // On a listener of their own, the public one does not serve them.
    let t = TestServer::with(
        |c| c.metrics.bind = Some("127.0.0.1:0".parse().expect("addr")),
        Arc::new(authz::clock::SystemClock),
    )
    .await;
    assert_eq!(
        t.get("/metrics", None).await.status(),
        StatusCode::NOT_FOUND
    );
    // A short token is refused at start-up, naming the setting.
    let e = Config {
        metrics: server::config::MetricsConfig {
            bearer_token: Some("short".into()),
            bind: None,
        },
        ..Config::default()
    }
    .validate()
    .expect_err("short token")
    .to_string();
    assert!(e.contains("metrics.bearer_token"), "{e}");
}
