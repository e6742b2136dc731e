//! Connected apps on the account page, and clients without the refresh grant.
use super::*;

#[tokio::test]
async fn people_see_and_disconnect_their_connected_apps_and_the_tokens_die() {
    let f = flow().await;
    let mut b = Browser::default();
    let loc = f
        .consent(&mut b, "&scope=tools%3Acall+offline_access")
        .await;
    let (_, tokens) = f.redeem(&query_of(&loc)["code"]).await;
    let rt = tokens["refresh_token"].as_str().expect("rt").to_owned();
    // The sign-in session of the flow opens the account page.
    let (status, _, html) = f.get(&mut b, "/realms/default/account").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("Visual Studio Code") && html.contains("Stay connected"),
        "{html}"
    );
    let consent = {
        let at = html.find("name=\"consent\" value=\"").expect("consent id");
        let rest = &html[at + "name=\"consent\" value=\"".len()..];
        rest[..rest.find('"').expect("end")].to_owned()
    };
    // A post without the form token does nothing.
    let res =
        f.t.post_form(
            "/realms/default/account",
            &format!("step=revoke&consent={consent}"),
            b.header().as_deref(),
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let form = format!("step=revoke&consent={consent}&csrf={}", csrf_of(&html));
    let html = f
        .post_account(&mut b, &form, "/realms/default/account?done=disconnected")
        .await;
    assert!(
        html.contains("Disconnected") && html.contains("No app can act for you"),
        "{html}"
    );
    // Posting it again (a stale tab) says so, and changes nothing.
    let form = format!("step=revoke&consent={consent}&csrf={}", csrf_of(&html));
    let html = f
        .post_account(
            &mut b,
            &form,
            "/realms/default/account?done=already-disconnected",
        )
        .await;
    assert!(html.contains("already disconnected"), "{html}");
    let (status, _) = f.refresh(&rt).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "its refresh token died with the consent"
    );
    // Without a session the page asks to sign in, and signing in works without a flow.
    let mut fresh = Browser::default();
    let (_, _, html) = f.get(&mut fresh, "/realms/default/account").await;
    assert!(html.contains("Sign in to your account"));
    let form = format!(
        "step=login&csrf={}&email={}&password={}",
        csrf_of(&html),
        enc(PERSON),
        enc(PASSWORD)
    );
    let html = f
        .post_account(&mut fresh, &form, "/realms/default/account")
        .await;
    assert!(
        html.contains("Ada Lovelace") && html.contains("<title>Connected apps</title>"),
        "{html}"
    );
    // Signing out ends the sign-in: the page asks to sign in again.
    let form = format!("step=logout&csrf={}", csrf_of(&html));
    let html = f
        .post_account(&mut fresh, &form, "/realms/default/account")
        .await;
    assert!(html.contains("Sign in to your account"), "{html}");
    // Admins see and revoke anyone's.
    let loc = f.consent(&mut Browser::default(), "").await;
    assert!(query_of(&loc).contains_key("code"));
    let apps =
        f.t.state
            .core
            .connected_apps(&f.admin, "default", None)
            .await
            .expect("apps");
    assert_eq!(apps.len(), 1);
    f.t.state
        .core
        .revoke_connected_app(
            &f.admin,
            "default",
            apps[0].consent.id.as_str(),
            &authz::RequestMeta::default(),
        )
        .await
        .expect("revoke");
    assert!(
        f.t.state
            .core
            .connected_apps(&f.admin, "default", None)
            .await
            .expect("apps")
            .is_empty()
    );
}

#[tokio::test]
async fn a_client_without_the_refresh_grant_gets_no_refresh_token_even_with_offline_access() {
    let f = flow().await;
    let metadata = authz::clients::ClientMetadata {
        client_name: Some("One-shot".into()),
        token_endpoint_auth_method: Some("none".into()),
        grant_types: Some(vec!["authorization_code".into()]),
        redirect_uris: vec!["http://127.0.0.1/callback".into()],
        ..Default::default()
    };
    f.t.state
        .core
        .create_client(
            &f.admin,
            "default",
            "once",
            &metadata,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("client");
    let mut b = Browser::default();
    let url = authorize_url("&scope=tools%3Acall+offline_access")
        .replace("client_id=vscode", "client_id=once");
    let (_, _, html) = f.get(&mut b, &url).await;
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
    assert!(
        !html.contains("consent-offline"),
        "nothing says it stays connected"
    );
    let (_, loc, _) = f
        .post(
            &mut b,
            &format!("step=consent&decision=approve&ticket={}", ticket_of(&html)),
        )
        .await;
    let (status, json) = f
        .token(&format!(
            "grant_type=authorization_code&client_id=once&code={}&redirect_uri={}&code_verifier={VERIFIER}",
            enc(&query_of(&loc)["code"]),
            enc(REDIRECT)
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert!(json.get("refresh_token").is_none());
}
