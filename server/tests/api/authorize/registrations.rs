//! Consent pages, self-registered clients and what their changes end.
use super::*;

#[tokio::test]
async fn a_consent_page_answers_once_and_only_while_signed_in() {
    let f = flow().await;
    let mut b = Browser::default();
    let (_, _, html) = f.get(&mut b, &authorize_url("")).await;
    let (_, _, html) = f
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
    let form = format!("step=consent&decision=approve&ticket={}", ticket_of(&html));
    // Signed out in between (another tab): the page no longer answers.
    let signed_in = b.clone();
    b.0.retain(|(k, _)| k != "portcullis_login");
    let (status, loc, html) = f.post(&mut b, &form).await;
    assert_eq!((status, loc.as_str()), (StatusCode::BAD_REQUEST, ""));
    assert!(html.contains("no longer signed in"), "{html}");
    let mut b = signed_in;
    let (status, _, _) = f.post(&mut b, &form).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let (status, loc, html) = f.post(&mut b, &form).await;
    assert_eq!(
        (status, loc.as_str()),
        (StatusCode::BAD_REQUEST, ""),
        "a second answer gives no second code"
    );
    assert!(html.contains("already answered"));
}

#[tokio::test]
async fn a_self_registered_client_never_gets_an_error_redirect_before_anyone_interacts() {
    let f = flow().await;
    let reg = f.register_openly(r#"{"client_name":"Redirector","redirect_uris":["https://evil.example/cb"],"token_endpoint_auth_method":"none"}"#).await;
    let id = reg["client_id"].as_str().expect("id");
    let url = format!(
        "/realms/default/authorize?client_id={id}&redirect_uri={}&response_type=token",
        enc("https://evil.example/cb")
    );
    let (status, loc, html) = f.get(&mut Browser::default(), &url).await;
    assert_eq!(
        (status, loc.as_str()),
        (StatusCode::BAD_REQUEST, ""),
        "an error page, not a redirect"
    );
    assert!(html.contains("response_type=code"), "{html}");
}

#[tokio::test]
async fn a_signed_in_person_following_a_link_is_never_bounced_to_an_unverified_client() {
    let f = flow().await;
    // Self-registered under the open policy: approved, but nobody verified it.
    let reg = f.register_openly(r#"{"client_name":"Lure","redirect_uris":["https://evil.example/landing"],"token_endpoint_auth_method":"none"}"#).await;
    let lure = reg["client_id"].as_str().expect("id").to_owned();
    // The person is signed in (at a verified client, a moment ago).
    let mut b = Browser::default();
    f.consent(&mut b, "").await;
    let link = format!(
        "/realms/default/authorize?response_type=code&client_id={lure}&redirect_uri={}&code_challenge={CHALLENGE}&code_challenge_method=S256&resource={}&prompt=none",
        enc("https://evil.example/landing"),
        enc(PAY)
    );
    let (status, location, html) = f.get(&mut b, &link).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "a page, not a redirect: {location}"
    );
    assert!(location.is_empty(), "{location}");
    assert!(html.contains("not agreed"), "{html}");
    // Without prompt=none the person sees the consent page and decides there.
    let (status, _, html) = f.get(&mut b, &link.replace("&prompt=none", "")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("Self-registered: not reviewed"), "{html}");
}

#[tokio::test]
async fn a_self_registered_client_that_changes_its_registration_is_agreed_to_again() {
    let f = flow().await;
    let registration = |name: &str| {
        serde_json::json!({
            "client_name": name,
            "redirect_uris": ["https://app.example/cb"],
            "grant_types": ["authorization_code"],
            "token_endpoint_auth_method": "client_secret_basic",
        })
        .to_string()
    };
    let reg = f.register_openly(registration("Web app")).await;
    let id = reg["client_id"].as_str().expect("id").to_owned();
    let rat = reg["registration_access_token"]
        .as_str()
        .expect("rat")
        .to_owned();
    let link = format!(
        "/realms/default/authorize?response_type=code&client_id={id}&redirect_uri={}&code_challenge={CHALLENGE}&code_challenge_method=S256&resource={}",
        enc("https://app.example/cb"),
        enc(PAY)
    );
    let mut b = Browser::default();
    f.consent_at(&mut b, &link, PERSON, "Web app").await;
    let (status, _, _) = f.get(&mut b, &link).await;
    assert_eq!(status, StatusCode::FOUND, "remembered");
    // The client renames itself (RFC 7592): the person agreed to it as it was.
    let res =
        f.t.send(
            Request::put(format!("/realms/default/connect/register/{id}"))
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::AUTHORIZATION, format!("Bearer {rat}"))
                .body(Body::from(registration("Your bank (official)")))
                .expect("request"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let (status, _, html) = f.get(&mut b, &link).await;
    assert_eq!(status, StatusCode::OK, "asked again");
    assert!(
        html.contains("Your bank (official) wants to act for you"),
        "{html}"
    );
}

#[tokio::test]
async fn a_code_dies_with_the_consent_the_client_and_the_password_it_was_issued_under() {
    let f = flow().await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let dead = |(status, json): (StatusCode, serde_json::Value)| {
        assert_eq!(
            (status, json["error"].as_str()),
            (StatusCode::BAD_REQUEST, Some("invalid_grant")),
            "{json}"
        );
    };
    // The person disconnects the app between the code and its redemption.
    let code = f.code().await;
    let apps = core
        .connected_apps(&f.admin, "default", Some(&f.person))
        .await
        .expect("apps");
    core.revoke_connected_app(&f.admin, "default", apps[0].consent.id.as_str(), &meta)
        .await
        .expect("disconnect");
    dead(f.redeem(&code).await);
    // The client is disabled and enabled again.
    let code = f.code().await;
    for on in [false, true] {
        core.set_client_enabled(&f.admin, "default", "vscode", on, &meta)
            .await
            .expect("toggle");
    }
    dead(f.redeem(&code).await);
    // The person's password changes.
    let code = f.code().await;
    core.set_person_password(
        &f.admin,
        "default",
        &f.person,
        "another long password",
        &meta,
    )
    .await
    .expect("password");
    dead(f.redeem(&code).await);
    core.set_person_password(&f.admin, "default", &f.person, PASSWORD, &meta)
        .await
        .expect("password back");
    // The client is revoked (and restored: the code stays dead).
    let code = f.code().await;
    core.revoke_client(&f.admin, "default", "vscode", "Compromised", None, &meta)
        .await
        .expect("revoke");
    core.restore_client(&f.admin, "default", "vscode", "Fixed", None, &meta)
        .await
        .expect("restore");
    dead(f.redeem(&code).await);
    // The person is disabled.
    let code = f.code().await;
    core.set_person_disabled(&f.admin, "default", &f.person, true, &meta)
        .await
        .expect("disable");
    dead(f.redeem(&code).await);
    // And the control: an untouched code works.
    core.set_person_disabled(&f.admin, "default", &f.person, false, &meta)
        .await
        .expect("enable");
    let code = f.code().await;
    assert_eq!(f.redeem(&code).await.0, StatusCode::OK);
}

#[tokio::test]
async fn a_changed_registration_ends_the_refresh_tokens_and_codes_people_agreed_to() {
    let f = flow().await;
    let registration = |version: &str| {
        serde_json::json!({
            "client_name": "Notes app",
            "redirect_uris": ["https://app.example/cb"],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none",
            "software_version": version,
        })
        .to_string()
    };
    let reg = f.register_openly(registration("1.0")).await;
    let id = reg["client_id"].as_str().expect("id").to_owned();
    let rat = reg["registration_access_token"]
        .as_str()
        .expect("rat")
        .to_owned();
    let link = format!(
        "/realms/default/authorize?response_type=code&client_id={id}&redirect_uri={}&code_challenge={CHALLENGE}&code_challenge_method=S256&resource={}&scope=tools%3Acall+offline_access",
        enc("https://app.example/cb"),
        enc(PAY)
    );
    let redeem = |code: String| {
        let form = format!(
            "grant_type=authorization_code&client_id={id}&code={}&redirect_uri={}&code_verifier={VERIFIER}",
            enc(&code),
            enc("https://app.example/cb")
        );
        let f = &f;
        async move { f.token(&form).await }
    };
    let mut b = Browser::default();
    let loc = f.consent_at(&mut b, &link, PERSON, "Notes app").await;
    let (status, tokens) = redeem(query_of(&loc)["code"].clone()).await;
    assert_eq!(status, StatusCode::OK, "{tokens}");
    let rt = tokens["refresh_token"].as_str().expect("rt").to_owned();
    // A second code, not redeemed yet (agreed to before: no question).
    let (status, loc, _) = f.get(&mut b, &link).await;
    assert_eq!(status, StatusCode::FOUND);
    let pending_code = query_of(&loc)["code"].clone();
    // The person is on a consent page (in another browser) when the client changes.
    let mut other = Browser::default();
    let (_, _, html) = f.get(&mut other, &format!("{link}&prompt=consent")).await;
    let form = format!(
        "step=login&ticket={}&email={}&password={}",
        ticket_of(&html),
        enc(PERSON),
        enc(PASSWORD)
    );
    let (status, _, consent_page) = f.post(&mut other, &form).await;
    assert_eq!(status, StatusCode::OK, "{consent_page}");
    assert!(
        consent_page.contains("wants to act for you"),
        "{consent_page}"
    );
    // The client changes only its version (RFC 7592): it leaves the person's connected apps,
    // so nothing they agreed to may keep working unseen.
    let res =
        f.t.send(
            Request::put(format!("/realms/default/connect/register/{id}"))
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::AUTHORIZATION, format!("Bearer {rat}"))
                .body(Body::from(registration("1.1")))
                .expect("request"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let apps =
        f.t.state
            .core
            .connected_apps(&f.admin, "default", Some(&f.person))
            .await
            .expect("apps");
    assert!(apps.is_empty(), "{apps:?}");
    let (status, json) = f
        .token(&format!(
            "grant_type=refresh_token&client_id={id}&refresh_token={}",
            enc(&rt)
        ))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant")),
        "{json}"
    );
    let (status, json) = redeem(pending_code).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant")),
        "{json}"
    );
    // Agreeing on the page made before the change gives nothing: it showed another client.
    let (status, _, html) = f
        .post(
            &mut other,
            &format!(
                "step=consent&decision=approve&ticket={}",
                ticket_of(&consent_page)
            ),
        )
        .await;
    assert_ne!(status, StatusCode::SEE_OTHER, "{html}");
    assert!(html.contains("changed its registration"), "{html}");
    // Asked again, the person agrees to it as it is now, and it works.
    let loc = f
        .consent_at(&mut Browser::default(), &link, PERSON, "Notes app")
        .await;
    let (status, json) = redeem(query_of(&loc)["code"].clone()).await;
    assert_eq!(status, StatusCode::OK, "{json}");
}
