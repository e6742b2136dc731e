//! The directory on a laptop: `portcullis-cli` signed in through the realm's provider pulls
//! the servers its groups' units give.
use super::super::laptop::{cli_in, cookie_header, field, keep_cookies, start_login};
use super::*;
use super::{CLIENT_ID, CLIENT_SECRET, Idp, MAPPING, mint, publish_platform};

/// The directory decides what reaches a laptop: a person who signs in to `portcullis-cli`
/// through the realm's provider, in a group mapped to unit `platform`, pulls a release in
/// which the server given to that unit is theirs — without naming any ring or unit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_mapped_to_a_unit_puts_its_server_in_the_persons_cli_release() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let t = TestServer::with(
        |c| {
            c.public_url = format!("http://{addr}");
            c.dev.allow_http_loopback_resources = true;
            c.dev.allow_loopback_client_urls = true;
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
    core.set_registry_settings(
        &admin,
        "default",
        false,
        authz::registry::ApiAccess::Bearer,
        &m,
    )
    .await
    .expect("bearer");
    publish_platform(core, &admin).await;
    let idp = Idp::start().await;
    let provider = core
        .create_realm_provider(
            &admin,
            "default",
            &SsoProviderInput {
                display_name: "Corp".into(),
                issuer: idp.issuer.clone(),
                client_id: CLIENT_ID.into(),
                client_secret: CLIENT_SECRET.into(),
                group_mapping: MAPPING.into(),
                ..Default::default()
            },
            &m,
        )
        .await
        .expect("provider");
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

    // The person, in a browser: the provider's button, the IdP, back, agree, to the CLI.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let mut jar = Vec::new();
    let res = http.get(&url).send().await.expect("authorize");
    keep_cookies(&mut jar, &res);
    let page = res.text().await.expect("page");
    assert!(page.contains("Sign in with Corp"), "{page}");
    let res = http
        .post(format!("{issuer}/authorize"))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", &server)
        .header("cookie", cookie_header(&jar))
        .body(format!(
            "step=upstream&provider={}&ticket={}",
            provider.id,
            enc(&field(&page, "ticket"))
        ))
        .send()
        .await
        .expect("button");
    assert_eq!(res.status(), reqwest::StatusCode::SEE_OTHER);
    keep_cookies(&mut jar, &res);
    let to_idp = res.headers()[reqwest::header::LOCATION]
        .to_str()
        .expect("location")
        .to_owned();
    let q = query_of(&to_idp);
    *idp.nonce.lock().expect("lock") = q["nonce"].clone();
    *idp.next.lock().expect("lock") = Some(mint(&idp, "grace", serde_json::json!({})));
    let res = http
        .get(format!(
            "{}?code=c1&state={}",
            q["redirect_uri"],
            enc(&q["state"])
        ))
        .header("cookie", cookie_header(&jar))
        .send()
        .await
        .expect("callback");
    keep_cookies(&mut jar, &res);
    let page = res.text().await.expect("consent page");
    assert!(page.contains("wants to act for you"), "{page}");
    let res = http
        .post(format!("{issuer}/authorize"))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("origin", &server)
        .header("cookie", cookie_header(&jar))
        .body(format!(
            "step=consent&decision=approve&ticket={}",
            enc(&field(&page, "ticket"))
        ))
        .send()
        .await
        .expect("consent");
    assert_eq!(res.status(), reqwest::StatusCode::SEE_OTHER);
    let back = res.headers()[reqwest::header::LOCATION]
        .to_str()
        .expect("location")
        .to_owned();
    let answer = http.get(&back).send().await.expect("the CLI's listener");
    assert!(answer.text().await.expect("page").contains("Signed in"));
    let out = tokio::task::spawn_blocking(move || login.wait_with_output())
        .await
        .expect("join")
        .expect("login");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The pull names no ring or unit: the server says Grace is in unit platform.
    let pull = cli(&["pull", "--server", &server, "--realm", "default", "--json"]);
    let out = tokio::task::spawn_blocking(move || {
        let mut pull = pull;
        pull.output()
    })
    .await
    .expect("join")
    .expect("pull");
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_str(&said).expect("json");
    assert_eq!(summary["units"], serde_json::json!(["platform"]), "{said}");
    assert_eq!(summary["servers"], serde_json::json!(["mail"]), "{said}");
}
