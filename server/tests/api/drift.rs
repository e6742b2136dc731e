//! Drift reports over HTTP (`POST /realms/{realm}/registry/drift`): only with a person's live
//! registry sign-in, checked against the report's limits, one a minute per device, the latest
//! per device kept; what the console then reads, and forgetting a device (audited).
use super::authorize::{Browser, CHALLENGE, Flow, ISSUER, PERSON, VERIFIER, flow_with, query_of};
use super::*;
use authz::drift::DriftQuery;
use authz::registry::{ApiAccess, Published};

const CLI_REDIRECT: &str = "http://127.0.0.1:49152/callback";

/// Publishes a release with one server at `url`: its id.
async fn publish(f: &Flow, url: &str) -> String {
    let core = &f.t.state.core;
    let m = authz::RequestMeta::default();
    let revision = core
        .registry(&f.admin, "default")
        .await
        .expect("registry")
        .registry
        .revision;
    let policy = serde_json::from_value(serde_json::json!({
        "mode": "allowlist",
        "rings": ["ring0"],
        "servers": [{"id": "mail", "url": url, "rings": ["ring0"]}],
    }))
    .expect("policy");
    core.replace_registry_draft(&f.admin, "default", revision, &policy, &m)
        .await
        .expect("draft");
    match core
        .publish_registry(&f.admin, "default", revision + 1, &m)
        .await
        .expect("publish")
    {
        Published::Release(r) => r.id,
        Published::AwaitingApproval(_) => panic!("no approval asked"),
    }
}

/// A registry sign-in of Ada through `client` (redirecting to `redirect`), whose consent
/// page names `name`: the access token.
async fn sign_in(f: &Flow, (client, redirect, name): (&str, &str, &str)) -> String {
    let url = format!(
        "/realms/default/authorize?response_type=code&client_id={client}&redirect_uri={}&code_challenge={CHALLENGE}&code_challenge_method=S256&state=s&resource={}",
        enc(redirect),
        enc(&format!("{ISSUER}/registry"))
    );
    let loc = f
        .consent_at(&mut Browser::default(), &url, PERSON, name)
        .await;
    let code = query_of(&loc)["code"].clone();
    let (status, json) = f
        .token(&format!(
            "grant_type=authorization_code&client_id={client}&code={}&redirect_uri={}&code_verifier={VERIFIER}",
            enc(&code),
            enc(redirect)
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    json["access_token"].as_str().expect("token").to_owned()
}

/// A realm whose registry takes sign-ins and has one release; Ada signed in with the realm's
/// CLI: her registry token and the release's id.
async fn setup() -> (Flow, String, String) {
    // The test server's issuer is http on loopback: its registry URL is a resource only so.
    let f = flow_with(|c| c.dev.allow_http_loopback_resources = true).await;
    let core = &f.t.state.core;
    let m = authz::RequestMeta::default();
    core.set_registry_settings(&f.admin, "default", false, ApiAccess::Bearer, &m)
        .await
        .expect("bearer");
    let release = publish(&f, "https://mail.example.com/mcp").await;
    let token = sign_in(&f, ("portcullis-cli", CLI_REDIRECT, "Portcullis CLI")).await;
    (f, token, release)
}

fn report(device: &str, release: &str, host: &str) -> serde_json::Value {
    serde_json::json!({
        "device": device,
        "release": release,
        "sequence": 1,
        "rings": ["ring0"],
        "units": [],
        "approved": 1,
        "files_read": 3,
        "findings": [{
            "kind": "unapproved",
            "harness": "claude-code",
            "source": "~/.claude.json",
            "name": "shadow",
            "transport": "http",
            "host": host,
            "definition_sha256": "ab".repeat(32),
            "fix": "Remove it from ~/.claude.json or ask an admin to approve it.",
        }],
        "problems": [],
    })
}

async fn post(
    f: &Flow,
    token: Option<&str>,
    payload: impl Into<Body>,
) -> (StatusCode, axum::http::HeaderMap, serde_json::Value) {
    let mut req = Request::post("/realms/default/registry/drift")
        .header(header::CONTENT_TYPE, "application/json");
    if let Some(t) = token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    let res = f.t.send(req.body(payload.into()).expect("request")).await;
    let (status, headers) = (res.status(), res.headers().clone());
    let text = body(res).await;
    (
        status,
        headers,
        serde_json::from_str(&text).unwrap_or_default(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persons_laptop_reports_drift_and_the_console_reads_it() {
    let (f, token, release) = setup().await;
    let good = report("ada-mbp", &release, "evil.example.com").to_string();

    // No token, a forged one: 401 with the challenge; nothing stored.
    for t in [None, Some("not-a-token")] {
        let (status, headers, json) = post(&f, t, good.clone()).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{json}");
        assert!(headers.contains_key(header::WWW_AUTHENTICATE));
    }

    // Ada's report is stored; a second within the minute is refused with Retry-After.
    let (status, _, json) = post(&f, Some(&token), good.clone()).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["latest_release"], true);
    let (status, headers, json) = post(&f, Some(&token), good.clone()).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{json}");
    assert_eq!(headers[header::RETRY_AFTER], "60");

    // Bad reports are named by field; unknown fields (a command line) and big bodies refused.
    f.clock.advance(61);
    let (status, _, json) = post(
        &f,
        Some(&token),
        report("ada-mbp", &release, "evil.example.com/p?token=SECRET").to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{json}");
    assert_eq!(
        json["error_description"],
        "findings[0].host: a host, without a path or user."
    );
    let mut smuggled = report("ada-mbp", &release, "evil.example.com");
    smuggled["findings"][0]["command"] = "npx --token SECRET".into();
    let (status, _, json) = post(&f, Some(&token), smuggled.to_string()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{json}");
    let huge = format!("{{\"device\": \"{}\"}}", "x".repeat(2 * 1024 * 1024));
    let (status, _, _) = post(&f, Some(&token), huge).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);

    // A release id the realm never published is refused; after a new release, a second device
    // of hers reports against it (the first stays on the older one).
    let (status, _, json) = post(
        &f,
        Some(&token),
        report("ada-desktop", &"0".repeat(64), "evil.example.com").to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{json}");
    assert!(
        json["error_description"]
            .as_str()
            .unwrap_or_default()
            .starts_with("release:"),
        "{json}"
    );
    let second = publish(&f, "https://mail.example.com/v2/mcp").await;
    let (status, _, json) = post(
        &f,
        Some(&token),
        report("ada-desktop", &second, "evil.example.com").to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["latest_release"], true);

    // Another app Ada let read the registry (VS Code) does not speak for her devices.
    let editor = sign_in(
        &f,
        (
            "vscode",
            "http://127.0.0.1:53682/callback",
            "Visual Studio Code",
        ),
    )
    .await;
    let (status, _, json) = post(&f, Some(&editor), good.clone()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{json}");

    // The console: two devices of one person, both drifting, one on the latest release; the
    // most common finding on both; the device's own report with its fix hint.
    let core = &f.t.state.core;
    let seen = core
        .registry_drift(&f.admin, "default", &DriftQuery::default())
        .await
        .expect("drift");
    assert_eq!(
        (
            seen.summary.devices,
            seen.summary.people,
            seen.summary.drifting,
            seen.summary.on_latest
        ),
        (2, 1, 2, 1)
    );
    assert_eq!(seen.top[0].name, "shadow");
    assert_eq!(seen.top[0].people, 1, "one person's two devices count once");
    assert_eq!(seen.rows[0].device, "ada-desktop", "newest first");
    assert_eq!(seen.rows[0].email, PERSON);
    let device = core
        .registry_drift_device(&f.admin, "default", (f.person.as_str(), "ada-mbp"))
        .await
        .expect("device");
    assert_eq!(
        device.report.findings[0].host.as_deref(),
        Some("evil.example.com")
    );
    assert!(device.report.findings[0].fix.starts_with("Remove it"));

    // A developer may not read people's devices; forgetting is audited.
    f.t.user("dev@example.com", "developer").await;
    let developer = f.t.principal("dev@example.com").await;
    assert!(matches!(
        core.registry_drift(&developer, "default", &DriftQuery::default())
            .await,
        Err(authz::Error::Forbidden)
    ));
    core.forget_drift_device(
        &f.admin,
        "default",
        (f.person.as_str(), "ada-desktop"),
        &authz::RequestMeta::default(),
    )
    .await
    .expect("forget");
    let events =
        f.t.audit(authz::audit::AuditFilter {
            action: Some("registry.drift_forget".into()),
            ..Default::default()
        })
        .await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].details["device"], "ada-desktop");

    // A person's devices: at most 20, a new one refused while none is stale (her real laptop is
    // never pushed out); and 30 reports a quarter hour from all her devices together.
    let mut statuses = Vec::new();
    for i in 0..40 {
        let (status, _, json) = post(
            &f,
            Some(&token),
            report(&format!("spare-{i}"), &release, "evil.example.com").to_string(),
        )
        .await;
        if status == StatusCode::BAD_REQUEST {
            assert!(
                json["error_description"]
                    .as_str()
                    .unwrap_or_default()
                    .starts_with("device: you have 20 devices"),
                "{json}"
            );
        }
        statuses.push(status.as_u16());
    }
    let count = |s: u16| statuses.iter().filter(|&&x| x == s).count();
    assert_eq!(
        (count(200), count(400), count(429)),
        (19, 5, 16),
        "{statuses:?}"
    );
    assert!(
        core.registry_drift_device(&f.admin, "default", (f.person.as_str(), "ada-mbp"))
            .await
            .is_ok(),
        "her laptop's report is kept"
    );

    // Signing out ends the reports: the revoked sign-in is refused.
    let (status, _, _) = post(
        &f,
        None,
        report("ada-mbp", &release, "evil.example.com").to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let res =
        f.t.post_form(
            "/realms/default/revoke",
            &format!("client_id=portcullis-cli&token={}", enc(&token)),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    f.clock.advance(61);
    let (status, _, json) = post(&f, Some(&token), good).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{json}");

    // With the registry off there is nothing to report to.
    core.set_registry_settings(
        &f.admin,
        "default",
        false,
        ApiAccess::Off,
        &authz::RequestMeta::default(),
    )
    .await
    .expect("off");
    let (status, _, _) = post(
        &f,
        Some(&token),
        report("ada-mbp", &release, "evil.example.com").to_string(),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
