//! No password, secret, one-time link or token ever reaches a log line, at any level.
//!
//! Its own test binary: the capturing subscriber is the process-wide default, so no event from
//! any thread can bypass it.
#[path = "support/mod.rs"]
mod support;

use std::io::Write;
use std::sync::Mutex;
use support::*;

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Capture {
    type Writer = Capture;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

#[tokio::test]
async fn no_secret_or_token_reaches_the_logs() {
    let capture = Capture::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(capture.clone())
        .with_ansi(false)
        .finish();
    tracing::subscriber::set_global_default(subscriber)
        .expect("the only subscriber in this binary");

    let t = TestServer::new().await;
    // What `serve` does at first start: the link goes into a banner, never into the log.
    let banner = server::setup_banner(&t.state.core, &t.state.config.data_dir)
        .await
        .expect("banner")
        .expect("no users yet");
    let file = t.state.config.data_dir.join("setup-link");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&file)
            .expect("written")
            .permissions()
            .mode();
        assert_eq!(
            mode & 0o777,
            0o600,
            "only the service's user may read the link"
        );
    }
    let setup = banner
        .split("token=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the banner holds the link")
        .to_owned();
    assert!(
        std::fs::read_to_string(&file)
            .expect("file")
            .contains(&setup),
        "the same link is in the file"
    );
    let form = format!(
        "token={setup}&email=root%40example.com&display_name=Root&password={0}&confirm={0}",
        enc(PASSWORD)
    );
    assert_eq!(
        t.post_form("/api/setup/complete", &form, None)
            .await
            .status(),
        StatusCode::OK
    );
    let admin = t.login("root@example.com").await;
    t.post_form(
        "/login",
        "email=root%40example.com&password=a-wrong-password-value",
        None,
    )
    .await;

    let res = t
        .post_form(
            "/api/users/create",
            "email=bob%40example.com&display_name=Bob&role=developer",
            Some(&admin),
        )
        .await;
    let link: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    let reset_token = link["url"]
        .as_str()
        .expect("url")
        .split("token=")
        .nth(1)
        .expect("token")
        .to_owned();

    let form = "slug=pay&display_name=Pay&uri=https%3A%2F%2Fpay.example.com%2Fmcp&scopes=tools%3Acall&token_ttl_secs=&signing_alg=";
    assert_eq!(
        t.post_form("/api/resources/create", form, Some(&admin))
            .await
            .status(),
        StatusCode::OK
    );
    let res = t
        .post_form(
            "/api/clients/create",
            "client_id=bot&name=Bot&auth_method=client_secret_post&scope=tools%3Acall&contacts=&jwks=",
            Some(&admin),
        )
        .await;
    let issued: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    let secret = issued["secret"].as_str().expect("secret").to_owned();
    let res = t
        .post_form(
            "/api/access/grant",
            "client_id=bot&resource=pay&scopes=tools%3Acall",
            Some(&admin),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);

    let token_form = format!(
        "grant_type=client_credentials&resource=https%3A%2F%2Fpay.example.com%2Fmcp&client_id=bot&client_secret={secret}"
    );
    let res = t
        .send(
            Request::post("/realms/default/token")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from(token_form))
                .expect("request"),
        )
        .await;
    let token: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    let access_token = token["access_token"].as_str().expect("token").to_owned();
    let wrong =
        "grant_type=client_credentials&resource=x&client_id=bot&client_secret=wrong-secret-value";
    // Untrusted input in log lines is shortened: a 2 KiB client_id never appears whole.
    let long_id = format!("attacker-{}", "z".repeat(200));
    for (path, form) in [
        ("/realms/default/token", wrong.to_owned()),
        (
            "/realms/default/token",
            format!("grant_type=client_credentials&client_id={long_id}&client_secret=nope"),
        ),
        (
            "/realms/default/introspect",
            format!("client_id=bot&client_secret={secret}&token={access_token}"),
        ),
        (
            "/realms/default/revoke",
            format!("client_id=bot&client_secret={secret}&token={access_token}"),
        ),
    ] {
        t.send(
            Request::post(path)
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from(form))
                .expect("request"),
        )
        .await;
    }
    // A refusal quoting a parameter cannot forge a log line.
    let forged = serde_json::json!({
        "client_name": "x",
        "redirect_uris": ["https://a.example/\nFORGED level=ERROR"],
        "token_endpoint_auth_method": "none",
    });
    let res = t
        .send(
            Request::post("/realms/default/connect/register")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(forged.to_string()))
                .expect("request"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);

    let logs = String::from_utf8_lossy(&capture.0.lock().expect("lock")).into_owned();
    assert!(
        logs.contains("request"),
        "the capture saw the request log lines"
    );
    let signature = access_token.rsplit('.').next().expect("signature");
    assert!(
        logs.contains("attacker-zzz"),
        "the failed client is logged…"
    );
    assert!(!logs.contains(&long_id), "…but not in full");
    assert!(
        !logs.contains("\nFORGED"),
        "a newline from a request ended a log line"
    );
    // Each refusal is one structured line: endpoint, realm, client, error code, reason.
    let refusal = logs
        .lines()
        .find(|l| l.contains("protocol request refused") && l.contains("\"bot\""))
        .expect("the wrong secret's refusal is logged");
    for part in ["token", "default", "invalid_client", "reason"] {
        assert!(refusal.contains(part), "{part} missing: {refusal}");
    }
    for (what, needle) in [
        ("password", PASSWORD),
        ("wrong password", "a-wrong-password-value"),
        ("setup token", setup.as_str()),
        ("reset token", reset_token.as_str()),
        ("client secret", secret.as_str()),
        ("wrong client secret", "wrong-secret-value"),
        ("access token", access_token.as_str()),
        ("access token signature", signature),
    ] {
        assert!(!logs.contains(needle), "the {what} appeared in the logs");
    }
}
