//! The device authorization grant (RFC 8628) through the real router: the device endpoint, the
//! verification page over the shared sign-in and consent pages, every polling answer, single
//! use, and the approvals that die before the device collects them.
use super::authorize::{Browser, Flow, ISSUER, PAY, PERSON, claims, csrf_of, flow, ticket_of};
use super::*;
use authz::clients::ClientForm;

const DEVICE: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// A flow with a public client that may use the device grant.
async fn setup() -> Flow {
    let f = flow().await;
    register_client(
        &f.t.state.core,
        &f.admin,
        "tv-cli",
        ClientForm {
            name: "TV command line".into(),
            auth_method: "none".into(),
            device_code: Some(true),
            ..Default::default()
        },
    )
    .await
    .expect("device client");
    f
}

async fn device_authorization(f: &Flow, form: &str) -> (StatusCode, serde_json::Value) {
    let res =
        f.t.post_form("/realms/default/device_authorization", form, None)
            .await;
    let status = res.status();
    (
        status,
        serde_json::from_str(&body(res).await).expect("json"),
    )
}

/// Codes for the TV client at the payments server.
async fn start(f: &Flow) -> serde_json::Value {
    let (status, json) = device_authorization(
        f,
        &format!("client_id=tv-cli&scope=tools%3Acall&resource={}", enc(PAY)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    json
}

async fn poll(f: &Flow, client: &str, device_code: &str) -> (StatusCode, serde_json::Value) {
    f.token(&format!(
        "grant_type={}&client_id={client}&device_code={}",
        enc(DEVICE),
        enc(device_code)
    ))
    .await
}

fn error_of(answer: &(StatusCode, serde_json::Value)) -> &str {
    assert_eq!(answer.0, StatusCode::BAD_REQUEST, "{}", answer.1);
    answer.1["error"].as_str().expect("error")
}

/// The path (and query) of an absolute URL of the test server.
fn path_of(url: &str) -> &str {
    url.strip_prefix("http://127.0.0.1:3000").expect("our URL")
}

/// Types `typed` on the verification page in `b`; the page that follows.
async fn enter(f: &Flow, b: &mut Browser, typed: &str) -> (StatusCode, String) {
    let (status, _, html) = f.get(b, "/realms/default/device").await;
    assert_eq!(status, StatusCode::OK, "{html}");
    let (status, _, html) = f
        .post_to(
            b,
            "/realms/default/device",
            &format!("csrf={}&user_code={}", csrf_of(&html), enc(typed)),
        )
        .await;
    (status, html)
}

/// Enters `user_code`, signs in as Ada and answers the consent page; the last page.
async fn answer(f: &Flow, user_code: &str, approve: bool) -> String {
    let mut b = Browser::default();
    let (status, html) = enter(f, &mut b, user_code).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(
        html.contains("Sign in to continue to TV command line"),
        "{html}"
    );
    let (status, _, html) = f
        .post(
            &mut b,
            &format!(
                "step=login&ticket={}&email={}&password={}",
                ticket_of(&html),
                enc(PERSON),
                enc(PASSWORD)
            ),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{html}");
    let decision = if approve { "approve" } else { "deny" };
    let (status, _, done) = f
        .post(
            &mut b,
            &format!(
                "step=consent&decision={decision}&ticket={}",
                ticket_of(&html)
            ),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    done
}

#[tokio::test]
async fn a_device_is_approved_in_the_browser_and_collects_its_tokens_once() {
    let f = setup().await;
    let codes = start(&f).await;
    let user_code = codes["user_code"].as_str().expect("user code").to_owned();
    assert_eq!(user_code.len(), 9);
    assert_eq!(&user_code[4..5], "-");
    assert!(
        user_code
            .chars()
            .filter(|c| *c != '-')
            .all(|c| "BCDFGHJKLMNPQRSTVWXZ".contains(c)),
        "{user_code}"
    );
    assert_eq!(codes["verification_uri"], format!("{ISSUER}/device"));
    assert_eq!(
        codes["verification_uri_complete"],
        format!("{ISSUER}/device?user_code={user_code}")
    );
    assert_eq!(codes["expires_in"], 600);
    assert_eq!(codes["interval"], 5);
    let device_code = codes["device_code"]
        .as_str()
        .expect("device code")
        .to_owned();

    // Nobody answered yet; a second poll at once is too soon and the interval grows.
    assert_eq!(
        error_of(&poll(&f, "tv-cli", &device_code).await),
        "authorization_pending"
    );
    let fast = poll(&f, "tv-cli", &device_code).await;
    assert_eq!(error_of(&fast), "slow_down");
    assert!(
        fast.1["error_description"]
            .as_str()
            .is_some_and(|d| d.contains("10 seconds")),
        "{}",
        fast.1
    );
    // Another client cannot use the code.
    register_client(
        &f.t.state.core,
        &f.admin,
        "other-cli",
        ClientForm {
            name: "Other".into(),
            auth_method: "none".into(),
            device_code: Some(true),
            ..Default::default()
        },
    )
    .await
    .expect("other client");
    assert_eq!(
        error_of(&poll(&f, "other-cli", &device_code).await),
        "invalid_grant"
    );

    // The link with the code fills it in; the person still confirms it, signs in, and sees
    // the code again next to what the client asks.
    let mut b = Browser::default();
    let (status, _, html) = f
        .get(
            &mut b,
            path_of(codes["verification_uri_complete"].as_str().expect("uri")),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(&format!("value=\"{user_code}\"")), "{html}");
    // Typed in lower case with a space instead of the dash: the same code.
    let typed = user_code.to_lowercase().replace('-', " ");
    let (status, html) = enter(&f, &mut b, &typed).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    let (status, _, html) = f
        .post(
            &mut b,
            &format!(
                "step=login&ticket={}&email={}&password={}",
                ticket_of(&html),
                enc(PERSON),
                enc(PASSWORD)
            ),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("wants to act for you"), "{html}");
    assert!(html.contains(&user_code), "the consent page shows the code");
    assert!(html.contains("consent-warning"), "{html}");
    let ticket = ticket_of(&html);
    let (status, _, done) = f
        .post(
            &mut b,
            &format!("step=consent&decision=approve&ticket={ticket}"),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert!(done.contains("Device connected"), "{done}");
    // The same page cannot answer twice.
    let (status, _, _) = f
        .post(
            &mut b,
            &format!("step=consent&decision=deny&ticket={ticket}"),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // The device collects its tokens: for the person, at the one server, with a refresh token.
    f.clock.advance(11);
    let (status, json) = poll(&f, "tv-cli", &device_code).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let c = claims(json["access_token"].as_str().expect("token"));
    assert_eq!(c["sub"], f.person.as_str());
    assert_eq!(c["aud"], PAY);
    assert_eq!(c["client_id"], "tv-cli");
    assert_eq!(c["scope"], "tools:call");
    let refresh = json["refresh_token"].as_str().expect("refresh").to_owned();
    let (status, _) = f
        .token(&format!(
            "grant_type=refresh_token&client_id=tv-cli&refresh_token={}",
            enc(&refresh)
        ))
        .await;
    assert_eq!(status, StatusCode::OK);

    // Once only: a second collection is refused and ends what the first produced.
    assert_eq!(
        error_of(&poll(&f, "tv-cli", &device_code).await),
        "invalid_grant"
    );
    let (status, json) = f
        .token(&format!(
            "grant_type=refresh_token&client_id=tv-cli&refresh_token={}",
            enc(&refresh)
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{json}");

    let issued =
        f.t.audit(authz::audit::AuditFilter {
            action: Some("authorize.code".into()),
            ..Default::default()
        })
        .await;
    assert!(issued.iter().any(|e| e.details["device"] == true));
}

#[tokio::test]
async fn polling_answers_refusal_expiry_and_withdrawn_approvals() {
    let f = setup().await;
    let core = &f.t.state.core;
    let m = authz::RequestMeta::default();

    // Refused.
    let codes = start(&f).await;
    let done = answer(&f, codes["user_code"].as_str().expect("uc"), false).await;
    assert!(done.contains("Access refused"), "{done}");
    let refused = poll(&f, "tv-cli", codes["device_code"].as_str().expect("dc")).await;
    assert_eq!(error_of(&refused), "access_denied");

    // Expired, and its user code with it.
    let codes = start(&f).await;
    f.clock.advance(601);
    assert_eq!(
        error_of(&poll(&f, "tv-cli", codes["device_code"].as_str().expect("dc")).await),
        "expired_token"
    );
    let (status, html) = enter(
        &f,
        &mut Browser::default(),
        codes["user_code"].as_str().expect("uc"),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(html.contains("not valid or has expired"), "{html}");

    // Approved, then the person is disabled before the device collects: withdrawn.
    let codes = start(&f).await;
    answer(&f, codes["user_code"].as_str().expect("uc"), true).await;
    core.set_person_disabled(&f.admin, "default", &f.person, true, &m)
        .await
        .expect("disable");
    assert_eq!(
        error_of(&poll(&f, "tv-cli", codes["device_code"].as_str().expect("dc")).await),
        "access_denied"
    );
    core.set_person_disabled(&f.admin, "default", &f.person, false, &m)
        .await
        .expect("enable");

    // Approved, then the client is disabled: the device can no longer even ask.
    let codes = start(&f).await;
    answer(&f, codes["user_code"].as_str().expect("uc"), true).await;
    core.set_client_enabled(&f.admin, "default", "tv-cli", false, &m)
        .await
        .expect("disable client");
    let (status, json) = poll(&f, "tv-cli", codes["device_code"].as_str().expect("dc")).await;
    assert_ne!(status, StatusCode::OK, "{json}");

    // A garbage code, a missing one.
    core.set_client_enabled(&f.admin, "default", "tv-cli", true, &m)
        .await
        .expect("enable client");
    assert_eq!(error_of(&poll(&f, "tv-cli", "nope").await), "invalid_grant");
    let (status, json) = f
        .token(&format!("grant_type={}&client_id=tv-cli", enc(DEVICE)))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json["error"], "invalid_request");
}

#[tokio::test]
async fn the_device_endpoint_checks_the_client_the_resource_and_the_scopes() {
    let f = setup().await;
    // A client that did not opt in.
    let (status, json) =
        device_authorization(&f, &format!("client_id=vscode&resource={}", enc(PAY))).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json["error"], "unauthorized_client");
    // Unknown client.
    let (status, json) =
        device_authorization(&f, &format!("client_id=nobody&resource={}", enc(PAY))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(json["error"], "invalid_client");
    // Not a resource of the realm.
    let (status, json) = device_authorization(
        &f,
        &format!(
            "client_id=tv-cli&resource={}",
            enc("https://elsewhere.example/")
        ),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json["error"], "invalid_target");
    // A scope the resource does not have.
    let (status, json) = device_authorization(
        &f,
        &format!("client_id=tv-cli&scope=admin%3Aall&resource={}", enc(PAY)),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json["error"], "invalid_scope");

    // Discovery lists the endpoint and the grant.
    let res =
        f.t.get(
            "/.well-known/oauth-authorization-server/realms/default",
            None,
        )
        .await;
    let meta: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(
        meta["device_authorization_endpoint"],
        format!("{ISSUER}/device_authorization")
    );
    assert!(
        meta["grant_types_supported"]
            .as_array()
            .expect("grants")
            .iter()
            .any(|g| g == DEVICE)
    );
}

#[tokio::test]
async fn wrong_user_codes_are_throttled_per_source() {
    let f = setup().await;
    let codes = start(&f).await;
    let mut b = Browser::default();
    for i in 0..10 {
        let (status, html) = enter(&f, &mut b, &format!("BCDF-GHJ{}", ["K", "L"][i % 2])).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert!(html.contains("not valid or has expired"), "{html}");
    }
    // Now even the right code waits: guessing gets no more tries.
    let (status, html) = enter(&f, &mut b, codes["user_code"].as_str().expect("uc")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(html.contains("Too many wrong codes"), "{html}");
    // A forged post (no csrf) is refused before any lookup.
    let (status, _, _) = f
        .post_to(
            &mut b,
            "/realms/default/device",
            &format!("user_code={}", codes["user_code"].as_str().expect("uc")),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn every_realm_has_the_portcullis_cli_which_can_be_disabled_but_not_deleted() {
    let f = setup().await;
    let core = &f.t.state.core;
    let m = authz::RequestMeta::default();
    core.create_realm(&f.admin, "acme", "Acme", &m)
        .await
        .expect("realm");
    for realm in ["default", "acme"] {
        let cli = core
            .get_client(&f.admin, realm, "portcullis-cli")
            .await
            .expect("the CLI client");
        assert_eq!(cli.client.auth_method.as_str(), "none");
        assert!(
            cli.client
                .grant_types
                .contains(&authz::clients::GrantType::TokenExchange)
        );
    }
    assert!(
        core.delete_client(&f.admin, "default", "portcullis-cli", &m)
            .await
            .is_err()
    );
    assert!(
        core.update_client(
            &f.admin,
            "default",
            "portcullis-cli",
            &ClientForm {
                name: "Mine now".into(),
                ..Default::default()
            }
            .into_metadata()
            .expect("metadata"),
            &m,
        )
        .await
        .is_err()
    );
    // It signs people in with the device grant out of the box; disabled, it cannot.
    let (status, json) = device_authorization(
        &f,
        &format!("client_id=portcullis-cli&resource={}", enc(PAY)),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    core.set_client_enabled(&f.admin, "default", "portcullis-cli", false, &m)
        .await
        .expect("disable");
    let (status, _) = device_authorization(
        &f,
        &format!("client_id=portcullis-cli&resource={}", enc(PAY)),
    )
    .await;
    assert_ne!(status, StatusCode::OK);
}
