//! Refusals: redirect-URI bypasses, PKCE downgrades, prompts, counted refusals, cross-site forms, sign-in errors.
use super::*;

#[tokio::test]
async fn redirect_uri_bypasses_get_an_error_page_and_never_a_redirect() {
    let f = flow().await;
    for bad in [
        "http://127.0.0.1:53682/callback/",
        "http://127.0.0.1:53682/Callback",
        "HTTP://127.0.0.1:53682/callback",
        " http://127.0.0.1:53682/callback",
        "http://127.0.0.1.evil.example/callback",
        "http://localhost:53682/callback",
        "http://127.0.0.1@evil.example/callback",
        "http://127.0.0.1%40evil.example/callback",
        "http://127.0.0.1%25@evil.example/callback",
        "https://vscode.dev/redirect/..;/evil",
        "https://vscode.dev\\@evil.example/redirect",
        "https://vscode.dev/redirect#frag",
        "https://vscode.dev.evil.example/redirect",
        "https://evil.example/redirect",
        "javascript:alert(1)",
        "data:text/html,hi",
        "JavaScript://vscode.dev/redirect",
    ] {
        let url = authorize_url("").replace(&enc(REDIRECT), &enc(bad));
        let (status, loc, html) = f.get(&mut Browser::default(), &url).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert!(loc.is_empty(), "{bad} must not redirect");
        assert!(
            html.contains("not one this application registered"),
            "{bad}: {html}"
        );
    }
    // The registered https one works, and so does the loopback one on any port.
    let url = authorize_url("").replace(&enc(REDIRECT), &enc("https://vscode.dev/redirect"));
    assert_eq!(f.get(&mut Browser::default(), &url).await.0, StatusCode::OK);
    // Unknown client: an error page too.
    let url = authorize_url("").replace("client_id=vscode", "client_id=nobody");
    let (status, loc, html) = f.get(&mut Browser::default(), &url).await;
    assert_eq!((status, loc.as_str()), (StatusCode::BAD_REQUEST, ""));
    assert!(html.contains("not registered"));
}

#[tokio::test]
async fn pkce_downgrades_are_refused_back_at_the_client() {
    let f = flow().await;
    for (from, to) in [
        ("&code_challenge_method=S256", ""),
        (
            "&code_challenge_method=S256",
            "&code_challenge_method=plain",
        ),
        (&format!("&code_challenge={CHALLENGE}") as &str, ""),
        ("response_type=code", "response_type=token"),
    ] {
        let url = authorize_url("").replace(from, to);
        let (status, loc, _) = f.get(&mut Browser::default(), &url).await;
        assert_eq!(status, StatusCode::FOUND, "{to}");
        let q = query_of(&loc);
        assert!(
            matches!(
                q["error"].as_str(),
                "invalid_request" | "unsupported_response_type"
            ),
            "{q:?}"
        );
        assert_eq!(q["iss"], ISSUER);
        assert_eq!(q["state"], "xyz");
    }
}

#[tokio::test]
async fn prompt_none_and_deny_answer_the_client_with_iss() {
    let f = flow().await;
    let (status, loc, _) = f
        .get(&mut Browser::default(), &authorize_url("&prompt=none"))
        .await;
    assert_eq!(status, StatusCode::FOUND);
    let q = query_of(&loc);
    assert_eq!(
        (q["error"].as_str(), q["iss"].as_str()),
        ("login_required", ISSUER)
    );

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
    let (status, loc, _) = f
        .post(
            &mut b,
            &format!("step=consent&decision=deny&ticket={}", ticket_of(&html)),
        )
        .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let q = query_of(&loc);
    assert_eq!(
        (q["error"].as_str(), q["state"].as_str(), q["iss"].as_str()),
        ("access_denied", "xyz", ISSUER)
    );
    // Signed in now, but never agreed: prompt=none says so.
    let (_, loc, _) = f.get(&mut b, &authorize_url("&prompt=none")).await;
    assert_eq!(query_of(&loc)["error"], "consent_required");
}

fn series(text: &str, name_and_labels: &str) -> f64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name_and_labels)?.trim().parse().ok())
        .unwrap_or(0.0)
}

/// An error sent back to the client is counted as a refusal with its code (the core says which,
/// the adapter does not read it back out of the redirect), a code as an answer.
#[tokio::test]
async fn refusals_sent_back_to_the_client_are_counted_with_their_code() {
    let f = flow().await;
    let metrics = || async { body(f.t.get("/metrics", None).await).await };
    // Codes outside RFC 6749 §5.2's list (`login_required`) are labelled `other`.
    let refused = "portcullis_oauth_requests_total{endpoint=\"authorize\",outcome=\"refused\",error=\"other\"}";
    let denied = "portcullis_oauth_requests_total{endpoint=\"authorize\",outcome=\"refused\",error=\"access_denied\"}";
    let ok = "portcullis_oauth_requests_total{endpoint=\"authorize\",outcome=\"ok\",error=\"\"}";
    let before = metrics().await;
    let (status, loc, _) = f
        .get(&mut Browser::default(), &authorize_url("&prompt=none"))
        .await;
    assert_eq!(status, StatusCode::FOUND);
    assert_eq!(query_of(&loc)["error"], "login_required");
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
    let (_, loc, _) = f
        .post(
            &mut b,
            &format!("step=consent&decision=deny&ticket={}", ticket_of(&html)),
        )
        .await;
    assert_eq!(query_of(&loc)["error"], "access_denied");
    let loc = f.consent(&mut Browser::default(), "").await;
    assert!(query_of(&loc).contains_key("code"), "{loc}");
    let after = metrics().await;
    for name in [refused, denied, ok] {
        let grew = series(&after, name) - series(&before, name);
        assert!(grew >= 1.0, "{name} grew by {grew}:\n{after}");
    }
}

/// Both kinds of page form go through one check: a post a browser marks as cross-site is
/// refused with the page's error, however valid its ticket or token.
#[tokio::test]
async fn page_forms_posted_cross_site_are_refused() {
    let f = flow().await;
    let cross_site = |path: &str, form: String, b: &Browser| {
        let mut req = Request::post(path)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header("sec-fetch-site", "cross-site");
        if let Some(c) = b.header() {
            req = req.header(header::COOKIE, c);
        }
        f.t.send(req.body(Body::from(form)).expect("request"))
    };
    let mut b = Browser::default();
    let (_, _, html) = f.get(&mut b, &authorize_url("")).await;
    let sign_in = format!(
        "step=login&ticket={}&email={}&password={}",
        ticket_of(&html),
        enc(PERSON),
        enc(PASSWORD)
    );
    let res = cross_site("/realms/default/authorize", sign_in.clone(), &b).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(
        body(res)
            .await
            .contains("expired or was opened in another browser")
    );
    // The same form from the page itself signs in.
    let (status, _, html) = f.post(&mut b, &sign_in).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("name=\"ticket\""), "the consent page: {html}");

    let mut fresh = Browser::default();
    let (_, _, html) = f.get(&mut fresh, "/realms/default/account").await;
    let login = format!(
        "step=login&csrf={}&email={}&password={}",
        csrf_of(&html),
        enc(PERSON),
        enc(PASSWORD)
    );
    let res = cross_site("/realms/default/account", login.clone(), &fresh).await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(body(res).await.contains("The form expired"));
    let html = f
        .post_account(&mut fresh, &login, "/realms/default/account")
        .await;
    assert!(html.contains("<title>Connected apps</title>"), "{html}");
}

/// Every ordering of every non-empty subset of `values`.
fn arrangements<'a>(values: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut out = vec![];
    for (i, v) in values.iter().enumerate() {
        let mut rest = values.to_vec();
        rest.remove(i);
        out.push(vec![*v]);
        for tail in arrangements(&rest) {
            out.push([vec![*v], tail].concat());
        }
    }
    out
}

#[tokio::test]
async fn every_prompt_that_includes_consent_asks_for_consent() {
    let f = flow().await;
    let mut b = Browser::default();
    // Agreed before, to an https redirect: without a prompt the code comes back at once.
    let url = |prompt: &str| {
        authorize_url(&format!("&scope=tools%3Acall&prompt={}", enc(prompt)))
            .replace(&enc(REDIRECT), &enc("https://vscode.dev/redirect"))
    };
    f.consent_at(&mut b, &url(""), PERSON, "Visual Studio Code")
        .await;
    let combinations = arrangements(&["login", "consent", "select_account"]);
    assert_eq!(combinations.len(), 15);
    for values in combinations {
        let prompt = values.join(" ");
        let (status, loc, html) = f.get(&mut b, &url(&prompt)).await;
        let html = if values.contains(&"login") {
            assert_eq!(status, StatusCode::OK, "prompt={prompt}: {loc}");
            assert!(html.contains("Sign in to continue"), "prompt={prompt}");
            let form = format!(
                "step=login&ticket={}&email={}&password={}",
                ticket_of(&html),
                enc(PERSON),
                enc(PASSWORD)
            );
            let (status, loc, html) = f.post(&mut b, &form).await;
            if !values.contains(&"consent") {
                assert_eq!(status, StatusCode::SEE_OTHER, "prompt={prompt}: {html}");
                assert!(query_of(&loc).contains_key("code"), "prompt={prompt}");
                continue;
            }
            assert_eq!(status, StatusCode::OK, "prompt={prompt}: {loc}");
            html
        } else if values.contains(&"consent") {
            assert_eq!(status, StatusCode::OK, "prompt={prompt}: {loc}");
            html
        } else {
            assert_eq!(status, StatusCode::FOUND, "prompt={prompt}");
            assert!(query_of(&loc).contains_key("code"), "prompt={prompt}");
            continue;
        };
        assert!(
            html.contains("wants to act for you"),
            "prompt={prompt} shows the consent page"
        );
    }
    // `none` stands alone, and alone it answers with the remembered consent.
    let (status, loc, _) = f.get(&mut b, &url("none")).await;
    assert_eq!(status, StatusCode::FOUND);
    assert!(query_of(&loc).contains_key("code"));
    for prompt in ["none consent", "login none"] {
        let (status, loc, _) = f.get(&mut b, &url(prompt)).await;
        assert_eq!(status, StatusCode::FOUND, "{prompt}");
        assert_eq!(query_of(&loc)["error"], "invalid_request", "{prompt}");
    }
}

#[tokio::test]
async fn sign_in_errors_stay_on_the_page_and_forged_posts_do_nothing() {
    let f = flow().await;
    let mut b = Browser::default();
    let (_, _, html) = f.get(&mut b, &authorize_url("")).await;
    let ticket = ticket_of(&html);
    let (status, _, html) = f
        .post(
            &mut b,
            &format!(
                "step=login&ticket={ticket}&email={}&password=wrong-password",
                enc(PERSON)
            ),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("do not match"), "{html}");
    assert!(html.contains(PERSON), "the email is kept");
    // The same ticket from another browser (no binding cookie, or another one) is refused.
    let form = format!(
        "step=login&ticket={ticket}&email={}&password={}",
        enc(PERSON),
        enc(PASSWORD)
    );
    let (status, loc, html) = f.post(&mut Browser::default(), &form).await;
    assert_eq!((status, loc.as_str()), (StatusCode::BAD_REQUEST, ""));
    assert!(html.contains("expired or was opened in another browser"));
    let mut other = Browser(vec![("portcullis_authz".into(), "f".repeat(64))]);
    let (status, _, _) = f.post(&mut other, &form).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // A tampered ticket too.
    let (status, _, _) = f
        .post(&mut b, &form.replace(&ticket, &format!("{ticket}A")))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Consent cannot be posted without signing in.
    let (status, _, _) = f
        .post(
            &mut b,
            &format!("step=consent&decision=approve&ticket={ticket}"),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Pages are not framed and not cached.
    let res = f.t.get(&authorize_url(""), None).await;
    let h = res.headers();
    assert!(
        h["content-security-policy"]
            .to_str()
            .expect("csp")
            .contains("frame-ancestors 'none'")
    );
    assert_eq!(h["cache-control"], "no-store");
}
