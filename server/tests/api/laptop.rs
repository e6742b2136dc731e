//! `portcullis-cli login` in a browser, over a real listener: the CLI prints the authorization
//! URL (`--no-browser`), a person signs in and agrees, the realm redirects to the CLI's loopback
//! port, and the CLI redeems the code with PKCE; then `token` trades the sign-in for a token at
//! a resource the person agreed to, and `logout` revokes it.
use super::registry::laptop_cli;
use super::*;
use std::io::{BufRead as _, BufReader};

/// The cookies a response sets, merged into `jar` (`name=value`).
pub(super) fn keep_cookies(jar: &mut Vec<(String, String)>, res: &reqwest::Response) {
    for v in res.headers().get_all(reqwest::header::SET_COOKIE) {
        let v = v.to_str().expect("ascii");
        let (name, rest) = v.split_once('=').expect("cookie");
        let value = rest.split(';').next().unwrap_or_default().to_owned();
        jar.retain(|(n, _)| n != name);
        jar.push((name.to_owned(), value));
    }
}

pub(super) fn cookie_header(jar: &[(String, String)]) -> String {
    jar.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("; ")
}

pub(super) fn field(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let at = html.find(&marker).expect("the field in the page");
    let rest = &html[at + marker.len()..];
    rest[..rest.find('"').expect("end")].to_owned()
}

/// `portcullis-cli` with `args`, its home (and file credential store) in `home`.
pub(super) fn cli_in(home: &std::path::Path, args: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(laptop_cli());
    c.args(args)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env("PORTCULLIS_CLI_CREDENTIALS", "file");
    c
}

/// Starts `portcullis-cli login --no-browser` and reads the sign-in URL it prints.
pub(super) async fn start_login(mut login: std::process::Command) -> (std::process::Child, String) {
    let mut login = login
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run portcullis-cli");
    let stderr = login.stderr.take().expect("stderr");
    let url = tokio::task::spawn_blocking(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .find_map(|l| l.trim().starts_with("http").then(|| l.trim().to_owned()))
            .expect("the sign-in URL")
    })
    .await
    .expect("read");
    (login, url)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_signs_in_through_the_browser_on_a_loopback_redirect() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let t = TestServer::with(
        |c| {
            c.public_url = format!("http://{addr}");
            c.dev.allow_http_loopback_resources = true;
        },
        Arc::new(authz::clock::SystemClock),
    )
    .await;
    let router = t.router.clone();
    tokio::spawn(async move { axum::serve(listener, router).await });
    t.user("root@example.com", "admin").await;
    let admin = t.principal("root@example.com").await;
    let core = &t.state.core;
    let m = authz::RequestMeta::default();
    core.create_person(
        &admin,
        "default",
        &authz::people::PersonInput {
            email: "ada@example.com".into(),
            display_name: "Ada Lovelace".into(),
            roles: String::new(),
        },
        Some(PASSWORD),
        &m,
    )
    .await
    .expect("person");
    // The registry takes sign-ins: its resource is the sign-in token's audience.
    core.set_registry_settings(
        &admin,
        "default",
        false,
        authz::registry::ApiAccess::Bearer,
        &m,
    )
    .await
    .expect("bearer");
    let server = format!("http://{addr}");
    let issuer = format!("{server}/realms/default");
    let home = tempfile::tempdir().expect("home");
    let cli = |args: &[&str]| cli_in(home.path(), args);
    let (login, url) = start_login(cli(&[
        "login",
        "--server",
        &server,
        "--realm",
        "default",
        "--no-browser",
    ]))
    .await;
    assert!(url.starts_with(&format!("{issuer}/authorize?")), "{url}");
    let query: std::collections::HashMap<String, String> = url::Url::parse(&url)
        .expect("url")
        .query_pairs()
        .into_owned()
        .collect();
    assert_eq!(query["client_id"], "portcullis-cli");
    assert_eq!(query["code_challenge_method"], "S256");
    assert_eq!(query["resource"], format!("{issuer}/registry"));
    assert!(query["redirect_uri"].starts_with("http://127.0.0.1:"));

    // The person, in a browser: sign in, agree, and follow the redirect to the CLI.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let mut jar = Vec::new();
    let res = http.get(&url).send().await.expect("authorize");
    keep_cookies(&mut jar, &res);
    let page = res.text().await.expect("page");
    assert!(
        page.contains("Sign in to continue to Portcullis CLI"),
        "{page}"
    );
    let post = |form: String, jar: &[(String, String)]| {
        http.post(format!("{issuer}/authorize"))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("origin", &server)
            .header("cookie", cookie_header(jar))
            .body(form)
            .send()
    };
    let res = post(
        format!(
            "step=login&ticket={}&email=ada%40example.com&password={}",
            enc(&field(&page, "ticket")),
            enc(PASSWORD)
        ),
        &jar,
    )
    .await
    .expect("sign in");
    keep_cookies(&mut jar, &res);
    let page = res.text().await.expect("consent page");
    assert!(
        page.contains("consent-warning"),
        "loopback is warned about: {page}"
    );
    let res = post(
        format!(
            "step=consent&decision=approve&ticket={}",
            enc(&field(&page, "ticket"))
        ),
        &jar,
    )
    .await
    .expect("consent");
    assert_eq!(res.status(), reqwest::StatusCode::SEE_OTHER);
    let back = res.headers()[reqwest::header::LOCATION]
        .to_str()
        .expect("location")
        .to_owned();
    assert!(back.starts_with(&query["redirect_uri"]), "{back}");
    let answer = http.get(&back).send().await.expect("the CLI's listener");
    assert!(answer.text().await.expect("page").contains("Signed in"));
    let out = tokio::task::spawn_blocking(move || login.wait_with_output())
        .await
        .expect("join")
        .expect("login");
    assert!(out.status.success());
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(said.contains("Signed in to"), "{said}");
    assert!(said.contains("a file only you can read"), "{said}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = home.path().join(".config/portcullis/credentials");
        let mode = |p: &std::path::Path| {
            std::fs::metadata(p).expect("exists").permissions().mode() & 0o777
        };
        assert_eq!(mode(&dir), 0o700);
        for f in std::fs::read_dir(&dir).expect("dir").flatten() {
            assert_eq!(mode(&f.path()), 0o600);
        }
    }

    // A token for the registry (the person agreed to the CLI there), then logout ends it.
    let registry = format!("{issuer}/registry");
    let run = |args: &[&str]| cli(args).output().expect("run");
    let token = run(&["token", "--resource", &registry, "--format", "json"]);
    assert!(
        token.status.success(),
        "{}",
        String::from_utf8_lossy(&token.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&token.stdout).expect("json");
    assert_eq!(json["resource"], registry.as_str());
    let status = run(&["status", "--json"]);
    let status: serde_json::Value = serde_json::from_slice(&status.stdout).expect("status");
    assert_eq!(status["sessions"][0]["via"], "browser");
    let logout = run(&["logout"]);
    assert!(
        logout.status.success(),
        "{}",
        String::from_utf8_lossy(&logout.stderr)
    );
    let after = run(&[
        "token",
        "--resource",
        &registry,
        "--server",
        &server,
        "--realm",
        "default",
    ]);
    assert_eq!(after.status.code(), Some(3));
}
