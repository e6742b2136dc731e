//! The interactive flow through the real router: authorization endpoint (sign-in, consent,
//! remembered consent, prompts), code exchange with PKCE, refresh rotation and reuse detection,
//! and the redirect-URI, PKCE and replay attacks of RFC 9700.
use super::*;
use authz::clients::ClientForm;
use authz::resources::ResourceInput;
use base64::Engine as _;

pub(super) const PAY: &str = "https://pay.example.com/";
pub(super) const ISSUER: &str = "http://127.0.0.1:3000/realms/default";
pub(super) const REDIRECT: &str = "http://127.0.0.1:53682/callback";
/// RFC 7636 Appendix B.
pub(super) const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
pub(super) const CHALLENGE: &str = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
pub(super) const PERSON: &str = "ada@example.com";

pub(super) struct Flow {
    pub(super) t: TestServer,
    pub(super) clock: authz::clock::FixedClock,
    pub(super) admin: authz::Principal,
    pub(super) person: String,
}

/// A browser: the cookies Portcullis set on it.
#[derive(Default, Clone)]
pub(super) struct Browser(Vec<(String, String)>);

impl Browser {
    /// Whether the browser holds a (non-empty) cookie `name`.
    pub(super) fn has(&self, name: &str) -> bool {
        self.0.iter().any(|(k, v)| k == name && !v.is_empty())
    }

    fn header(&self) -> Option<String> {
        (!self.0.is_empty()).then(|| {
            self.0
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("; ")
        })
    }

    fn keep(&mut self, res: &Response<Body>) {
        for v in res.headers().get_all(header::SET_COOKIE) {
            let v = v.to_str().expect("ascii");
            assert!(v.contains("HttpOnly") && v.contains("SameSite=Lax"), "{v}");
            assert!(v.contains("Path=/realms/default/"), "{v}");
            let (k, rest) = v.split_once('=').expect("cookie");
            let value = rest.split(';').next().unwrap_or_default().to_owned();
            self.0.retain(|(n, _)| n != k);
            self.0.push((k.to_owned(), value));
        }
    }
}

pub(super) fn ticket_of(html: &str) -> String {
    let at = html
        .find("name=\"ticket\" value=\"")
        .expect("a ticket in the page");
    let rest = &html[at + "name=\"ticket\" value=\"".len()..];
    rest[..rest.find('"').expect("end")].to_owned()
}

pub(super) fn query_of(location: &str) -> std::collections::HashMap<String, String> {
    let q = location.split_once('?').map(|(_, q)| q).unwrap_or_default();
    url::form_urlencoded::parse(q.as_bytes())
        .into_owned()
        .collect()
}

pub(super) async fn flow() -> Flow {
    flow_with(|_| {}).await
}

/// [`flow`] on a server configured by `configure` too.
pub(super) async fn flow_with(configure: impl FnOnce(&mut server::config::Config)) -> Flow {
    let clock = authz::clock::FixedClock::at(time::OffsetDateTime::now_utc().unix_timestamp());
    let t = TestServer::with(configure, Arc::new(clock.clone())).await;
    t.user("root@example.com", "admin").await;
    let admin = t.principal("root@example.com").await;
    let core = &t.state.core;
    let meta = authz::RequestMeta::default();
    for (slug, uri) in [
        ("payments-mcp", PAY),
        ("email-mcp", "https://mail.example.com/mcp"),
    ] {
        core.create_resource(
            &admin,
            "default",
            &ResourceInput {
                slug: slug.into(),
                display_name: slug.into(),
                uri: uri.into(),
                scopes: "tools:call tools:read".into(),
                enabled: true,
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("resource");
    }
    register_client(
        core,
        &admin,
        "vscode",
        ClientForm {
            name: "Visual Studio Code".into(),
            auth_method: "none".into(),
            redirect_uris: "http://127.0.0.1/callback https://vscode.dev/redirect".into(),
            ..Default::default()
        },
    )
    .await
    .expect("public client");
    let person = core
        .create_person(
            &admin,
            "default",
            &authz::people::PersonInput {
                email: PERSON.into(),
                display_name: "Ada Lovelace".into(),
                roles: String::new(),
            },
            Some(PASSWORD),
            &meta,
        )
        .await
        .expect("person");
    Flow {
        t,
        clock,
        admin,
        person: person.id.to_string(),
    }
}

fn authorize_url(extra: &str) -> String {
    format!(
        "/realms/default/authorize?response_type=code&client_id=vscode&redirect_uri={}&code_challenge={CHALLENGE}&code_challenge_method=S256&state=xyz&resource={}{extra}",
        enc(REDIRECT),
        enc(PAY)
    )
}

impl Flow {
    pub(super) async fn get(&self, b: &mut Browser, path: &str) -> (StatusCode, String, String) {
        let res = self.t.get(path, b.header().as_deref()).await;
        b.keep(&res);
        let (status, loc) = (res.status(), location(&res));
        (status, loc, body(res).await)
    }

    pub(super) async fn post(&self, b: &mut Browser, form: &str) -> (StatusCode, String, String) {
        self.post_to(b, "/realms/default/authorize", form).await
    }

    pub(super) async fn post_to(
        &self,
        b: &mut Browser,
        path: &str,
        form: &str,
    ) -> (StatusCode, String, String) {
        let res = self.t.post_form(path, form, b.header().as_deref()).await;
        b.keep(&res);
        let (status, loc) = (res.status(), location(&res));
        (status, loc, body(res).await)
    }

    /// Posts an account form that changes something: the answer is a 303 to the account page
    /// (post/redirect/get, so a reload never posts twice); the page it leads to.
    async fn post_account(&self, b: &mut Browser, form: &str, then: &str) -> String {
        let (status, loc, html) = self.post_to(b, "/realms/default/account", form).await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{html}");
        assert_eq!(loc, then);
        let (status, _, html) = self.get(b, &loc).await;
        assert_eq!(status, StatusCode::OK);
        // A reload shows the same page and posts nothing.
        let (status, _, again) = self.get(b, &loc).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(csrf_of(&again), csrf_of(&html));
        html
    }

    /// Signs in and agrees; the redirect back to the client.
    async fn consent(&self, b: &mut Browser, extra: &str) -> String {
        self.consent_as(b, extra, PERSON).await
    }

    async fn consent_as(&self, b: &mut Browser, extra: &str, email: &str) -> String {
        self.consent_at(b, &authorize_url(extra), email, "Visual Studio Code")
            .await
    }

    /// Opens `url`, signs in as `email` on the page that names `client`, and agrees; the
    /// redirect back to the client.
    pub(super) async fn consent_at(
        &self,
        b: &mut Browser,
        url: &str,
        email: &str,
        client: &str,
    ) -> String {
        let (status, _, html) = self.get(b, url).await;
        assert_eq!(status, StatusCode::OK, "{html}");
        assert!(
            html.contains(&format!("Sign in to continue to {client}")),
            "{html}"
        );
        let form = format!(
            "step=login&ticket={}&email={}&password={}",
            ticket_of(&html),
            enc(email),
            enc(PASSWORD)
        );
        let (status, loc, html) = self.post(b, &form).await;
        if status == StatusCode::SEE_OTHER {
            // Agreed to before (by this person, in another browser).
            return loc;
        }
        assert_eq!(status, StatusCode::OK, "{html}");
        assert!(html.contains("wants to act for you"), "{html}");
        let (status, loc, _) = self
            .post(
                b,
                &format!("step=consent&decision=approve&ticket={}", ticket_of(&html)),
            )
            .await;
        assert_eq!(status, StatusCode::SEE_OTHER);
        loc
    }

    /// Opens registration in the realm and registers `json` as a client would (RFC 7591).
    pub(super) async fn register_openly(&self, json: impl Into<Body>) -> serde_json::Value {
        self.t
            .state
            .core
            .set_registration_policy(
                &self.admin,
                "default",
                &authz::realms::RegistrationInput {
                    policy: "open".into(),
                    ..Default::default()
                },
                &authz::RequestMeta::default(),
            )
            .await
            .expect("open");
        let res = self
            .t
            .send(
                Request::post("/realms/default/connect/register")
                    .header(header::CONTENT_TYPE, "application/json")
                    .body(json.into())
                    .expect("request"),
            )
            .await;
        serde_json::from_str(&body(res).await).expect("json")
    }

    pub(super) async fn token(&self, form: &str) -> (StatusCode, serde_json::Value) {
        let res = self
            .t
            .send(
                Request::post("/realms/default/token")
                    .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                    .body(Body::from(form.to_owned()))
                    .expect("request"),
            )
            .await;
        let status = res.status();
        let text = body(res).await;
        (status, serde_json::from_str(&text).expect("JSON body"))
    }

    pub(super) async fn redeem(&self, code: &str) -> (StatusCode, serde_json::Value) {
        self.token(&format!(
            "grant_type=authorization_code&client_id=vscode&code={}&redirect_uri={}&code_verifier={VERIFIER}",
            enc(code),
            enc(REDIRECT)
        ))
        .await
    }

    pub(super) async fn refresh(&self, rt: &str) -> (StatusCode, serde_json::Value) {
        self.token(&format!(
            "grant_type=refresh_token&client_id=vscode&refresh_token={}",
            enc(rt)
        ))
        .await
    }

    /// A code for a fresh browser, with `offline_access`.
    pub(super) async fn code(&self) -> String {
        let loc = self
            .consent(
                &mut Browser::default(),
                "&scope=tools%3Acall+offline_access",
            )
            .await;
        query_of(&loc)["code"].clone()
    }
}

pub(super) fn claims(token: &str) -> serde_json::Value {
    let payload = token.split('.').nth(1).expect("jwt");
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(payload)
            .expect("b64"),
    )
    .expect("json")
}

#[tokio::test]
async fn a_person_signs_in_consents_and_the_client_gets_audience_bound_tokens() {
    let f = flow().await;
    let mut b = Browser::default();
    let loc = f
        .consent(&mut b, "&scope=tools%3Acall+openid+offline_access")
        .await;
    assert!(loc.starts_with(&format!("{REDIRECT}?")), "{loc}");
    let q = query_of(&loc);
    assert_eq!(q["state"], "xyz");
    assert_eq!(q["iss"], ISSUER, "RFC 9207");
    let (status, json) = f.redeem(&q["code"]).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert!(json["expires_in"].is_i64());
    assert_eq!(json["token_type"], "Bearer");
    assert_eq!(
        json["scope"], "tools:call",
        "openid is dropped, offline_access is not a resource scope"
    );
    let at = json["access_token"].as_str().expect("access token");
    let c = claims(at);
    assert_eq!(c["sub"], f.person.as_str());
    assert_eq!(c["aud"], PAY);
    assert_eq!(c["client_id"], "vscode");
    assert_eq!(c["iss"], ISSUER);
    assert!(c.get("nhi").is_none(), "a person, not an agent");
    let rt = json["refresh_token"]
        .as_str()
        .expect("offline_access gives a refresh token");
    assert!(rt.starts_with("prt_"));

    // Remembered consent: the same browser goes straight back with a code to the client's https
    // redirect; to loopback (any local program could be listening) the person confirms again
    // (RFC 8252 §8.6).
    let https = authorize_url("&scope=tools%3Acall")
        .replace(&enc(REDIRECT), &enc("https://vscode.dev/redirect"));
    let (status, loc, _) = f.get(&mut b, &https).await;
    assert_eq!(status, StatusCode::FOUND);
    let q = query_of(&loc);
    assert!(q.contains_key("code") && q["iss"] == ISSUER);
    let (status, _, html) = f.get(&mut b, &authorize_url("&scope=tools%3Acall")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("wants to act for you"), "loopback asks again");
    // ... unless asked again.
    let (status, _, html) = f.get(&mut b, &authorize_url("&prompt=consent")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("wants to act for you"));
    let (_, _, html) = f.get(&mut b, &authorize_url("&prompt=login")).await;
    assert!(html.contains("Sign in to continue"));
    // Wider scopes than agreed to ask again.
    let (status, _, html) = f
        .get(&mut b, &authorize_url("&scope=tools%3Acall+tools%3Aread"))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("Call tools") && html.contains("Read tools"),
        "scopes in words"
    );
}

#[tokio::test]
async fn without_a_scope_the_token_gets_the_resources_scopes() {
    let f = flow().await;
    let loc = f.consent(&mut Browser::default(), "").await;
    let (status, json) = f.redeem(&query_of(&loc)["code"]).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["scope"], "tools:call tools:read");
    assert!(
        json["refresh_token"].is_string(),
        "a client registered for refresh tokens gets one without asking for offline_access"
    );
    // A scope no resource offers is refused back at the client.
    let (status, loc, _) = f
        .get(&mut Browser::default(), &authorize_url("&scope=admin"))
        .await;
    assert_eq!(status, StatusCode::FOUND);
    let q = query_of(&loc);
    assert_eq!(q["error"], "invalid_scope");
    assert_eq!((q["state"].as_str(), q["iss"].as_str()), ("xyz", ISSUER));
}

#[tokio::test]
async fn a_bare_origin_resource_names_the_same_resource_with_or_without_a_slash() {
    let f = flow().await;
    let url = authorize_url("").replace(&enc(PAY), &enc("https://pay.example.com"));
    let (status, _, html) = f.get(&mut Browser::default(), &url).await;
    assert_eq!(status, StatusCode::OK, "{html}");
}

#[tokio::test]
async fn a_code_is_single_use_and_its_replay_revokes_what_it_produced() {
    let f = flow().await;
    let code = f.code().await;
    let (status, first) = f.redeem(&code).await;
    assert_eq!(status, StatusCode::OK);
    let (status, again) = f.redeem(&code).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(again["error"], "invalid_grant");
    assert!(again["error_description"].is_string());
    let (status, json) = f
        .refresh(first["refresh_token"].as_str().expect("rt"))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
    let events =
        f.t.state
            .core
            .list_audit(
                &f.admin,
                None,
                authz::audit::AuditFilter {
                    action: Some("token.code_replay".into()),
                    ..Default::default()
                },
                authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 10),
            )
            .await
            .expect("audit")
            .items;
    assert_eq!(events.len(), 1, "the replay is audited");
}

#[tokio::test]
async fn codes_are_bound_to_their_verifier_redirect_client_and_minute() {
    let f = flow().await;
    let code = f.code().await;
    let other_verifier = "x".repeat(43);
    for form in [
        format!(
            "grant_type=authorization_code&client_id=vscode&code={code}&redirect_uri={}&code_verifier={other_verifier}",
            enc(REDIRECT)
        ),
        format!(
            "grant_type=authorization_code&client_id=vscode&code={code}&redirect_uri={}",
            enc(REDIRECT)
        ),
        format!(
            "grant_type=authorization_code&client_id=vscode&code={code}&redirect_uri={}&code_verifier={VERIFIER}",
            enc("http://127.0.0.1:1/callback")
        ),
        format!(
            "grant_type=authorization_code&client_id=vscode&code={code}&code_verifier={VERIFIER}"
        ),
    ] {
        let (status, json) = f.token(&form).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{form}");
        assert!(
            matches!(
                json["error"].as_str(),
                Some("invalid_grant" | "invalid_request")
            ),
            "{form}: {json}"
        );
    }
    // A different resource than the request named.
    let (status, json) = f
        .token(&format!(
            "grant_type=authorization_code&client_id=vscode&code={code}&redirect_uri={}&code_verifier={VERIFIER}&resource={}",
            enc(REDIRECT),
            enc("https://mail.example.com/mcp")
        ))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );
    // None of that used the code up; a minute later it is gone.
    f.clock.advance(61);
    let (status, json) = f.redeem(&code).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
    // Another client cannot redeem someone else's code.
    let code = f.code().await;
    register_client(
        &f.t.state.core,
        &f.admin,
        "other",
        ClientForm {
            name: "Other".into(),
            auth_method: "none".into(),
            redirect_uris: "http://127.0.0.1/callback".into(),
            ..Default::default()
        },
    )
    .await
    .expect("client");
    let (status, json) = f
        .token(&format!(
            "grant_type=authorization_code&client_id=other&code={code}&redirect_uri={}&code_verifier={VERIFIER}",
            enc(REDIRECT)
        ))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
    let (status, _) = f.redeem(&code).await;
    assert_eq!(status, StatusCode::OK, "the rightful client still can");
}

#[tokio::test]
async fn refresh_tokens_rotate_with_a_grace_window_then_reuse_revokes_the_family() {
    let f = flow().await;
    let (_, first) = f.redeem(&f.code().await).await;
    let rt1 = first["refresh_token"].as_str().expect("rt").to_owned();
    let (status, second) = f.refresh(&rt1).await;
    assert_eq!(status, StatusCode::OK, "{second}");
    let rt2 = second["refresh_token"]
        .as_str()
        .expect("rotated")
        .to_owned();
    assert_ne!(rt1, rt2);
    assert_eq!(
        claims(second["access_token"].as_str().expect("at"))["sub"],
        f.person.as_str()
    );
    // The same rotated token at once (a retry, two tabs): the same answer.
    let (status, retry) = f.refresh(&rt1).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(retry["refresh_token"], rt2.as_str());
    assert_eq!(retry["access_token"], second["access_token"]);
    // A refresh may narrow scopes, never widen them or move to another resource.
    let (status, json) = f
        .token(&format!(
            "grant_type=refresh_token&client_id=vscode&refresh_token={}&scope=tools%3Aread",
            enc(&rt2)
        ))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_scope"))
    );
    let (status, json) = f
        .token(&format!(
            "grant_type=refresh_token&client_id=vscode&refresh_token={}&resource={}",
            enc(&rt2),
            enc("https://mail.example.com/mcp")
        ))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );
    // After the grace window, reusing the rotated token revokes the whole family.
    f.clock.advance(31);
    let (status, json) = f.refresh(&rt1).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
    let (status, _) = f.refresh(&rt2).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "the family is revoked");
}

#[tokio::test]
async fn refresh_tokens_expire_when_idle_and_end_with_a_disabled_person() {
    let f = flow().await;
    let (_, first) = f.redeem(&f.code().await).await;
    let rt = first["refresh_token"].as_str().expect("rt").to_owned();
    let (status, next) = f.refresh(&rt).await;
    assert_eq!(status, StatusCode::OK);
    let rt = next["refresh_token"].as_str().expect("rt").to_owned();
    f.t.state
        .core
        .set_person_disabled(
            &f.admin,
            "default",
            &f.person,
            true,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("disable");
    let (status, _) = f.refresh(&rt).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    let f = flow().await;
    let (_, first) = f.redeem(&f.code().await).await;
    f.clock
        .advance(authz::realms::DEFAULT_REFRESH_IDLE_TTL_SECS + 1);
    let (status, _) = f
        .refresh(first["refresh_token"].as_str().expect("rt"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "idle lifetime");
}

#[tokio::test]
async fn concurrent_refreshes_of_one_token_get_the_same_new_pair() {
    let f = flow().await;
    let (_, first) = f.redeem(&f.code().await).await;
    let rt = first["refresh_token"].as_str().expect("rt").to_owned();
    // Two requests racing with the same token (two windows of one app waking up at once).
    let ((s1, a), (s2, b), (s3, c)) = tokio::join!(f.refresh(&rt), f.refresh(&rt), f.refresh(&rt));
    assert_eq!(
        (s1, s2, s3),
        (StatusCode::OK, StatusCode::OK, StatusCode::OK),
        "{a} {b} {c}"
    );
    assert_eq!(a["refresh_token"], b["refresh_token"]);
    assert_eq!(b["refresh_token"], c["refresh_token"]);
    assert_eq!(
        a["access_token"], c["access_token"],
        "one rotation, one answer"
    );
    let (status, _) = f.refresh(a["refresh_token"].as_str().expect("rt")).await;
    assert_eq!(status, StatusCode::OK, "and the family lives on");
}

#[tokio::test]
async fn the_realms_refresh_lifetimes_are_set_in_days_and_apply_to_new_sign_ins() {
    let f = flow().await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let input = |idle: &str, max: &str| authz::realms::RealmInput {
        name: "default".into(),
        display_name: "Default".into(),
        token_ttl_secs: "300".into(),
        refresh_idle_days: idle.into(),
        refresh_max_days: max.into(),
    };
    for (idle, max, field) in [
        ("0", "", "refresh_idle_days"),
        ("1.5", "", "refresh_idle_days"),
        ("", "366", "refresh_max_days"),
        ("30", "7", "refresh_idle_days"),
    ] {
        let e = core
            .update_realm(&f.admin, "default", &input(idle, max), &meta)
            .await
            .expect_err("refused");
        assert!(
            matches!(&e, authz::Error::InvalidField { field: got, .. } if *got == field),
            "{idle}/{max}: {e:?}"
        );
    }
    let realm = core
        .update_realm(&f.admin, "default", &input("1", "2"), &meta)
        .await
        .expect("saved");
    assert_eq!(
        (realm.refresh_idle_ttl_secs, realm.refresh_max_ttl_secs),
        (86_400, 172_800)
    );
    let (_, first) = f.redeem(&f.code().await).await;
    let mut rt = first["refresh_token"].as_str().expect("rt").to_owned();
    // Used every 20 hours, it lives on until the absolute lifetime ends it.
    for _ in 0..2 {
        f.clock.advance(20 * 3600);
        let (status, next) = f.refresh(&rt).await;
        assert_eq!(status, StatusCode::OK, "{next}");
        rt = next["refresh_token"].as_str().expect("rt").to_owned();
    }
    f.clock.advance(9 * 3600);
    let (status, _) = f.refresh(&rt).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "past two days since sign-in"
    );
    // Idle a day and a second: expired.
    let (_, first) = f.redeem(&f.code().await).await;
    f.clock.advance(86_401);
    let (status, _) = f
        .refresh(first["refresh_token"].as_str().expect("rt"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "idle a day");
}

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

#[tokio::test]
async fn console_admins_sign_in_as_people_of_the_default_realm() {
    let f = flow().await;
    let mut b = Browser::default();
    let (_, _, html) = f.get(&mut b, &authorize_url("")).await;
    let (status, _, html) = f
        .post(
            &mut b,
            &format!(
                "step=login&ticket={}&email={}&password={}",
                ticket_of(&html),
                enc("root@example.com"),
                enc(PASSWORD)
            ),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("wants to act for you"), "{html}");
}

#[tokio::test]
async fn disabling_a_console_account_ends_its_app_sign_ins_for_good() {
    let f = flow().await;
    f.t.user("ops@example.com", "admin").await;
    let ops = f.t.principal("ops@example.com").await;
    let loc = f
        .consent_as(
            &mut Browser::default(),
            "&scope=tools%3Acall+offline_access",
            "ops@example.com",
        )
        .await;
    let (status, json) = f.redeem(&query_of(&loc)["code"]).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let rt = json["refresh_token"].as_str().expect("rt").to_owned();
    let meta = authz::RequestMeta::default();
    let core = &f.t.state.core;
    core.set_user_disabled(&f.admin, &ops.user_id, true, &meta)
        .await
        .expect("disable");
    core.set_user_disabled(&f.admin, &ops.user_id, false, &meta)
        .await
        .expect("enable again");
    let (status, json) = f.refresh(&rt).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant")),
        "enabling the account again does not revive its old sign-ins"
    );
}

#[tokio::test]
async fn metadata_advertises_the_code_flow() {
    let f = flow().await;
    let res =
        f.t.get(
            "/.well-known/oauth-authorization-server/realms/default",
            None,
        )
        .await;
    let m: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(m["authorization_endpoint"], format!("{ISSUER}/authorize"));
    assert_eq!(m["response_types_supported"], serde_json::json!(["code"]));
    assert_eq!(
        m["code_challenge_methods_supported"],
        serde_json::json!(["S256"])
    );
    assert_eq!(m["authorization_response_iss_parameter_supported"], true);
    let scopes = m["scopes_supported"].as_array().expect("scopes");
    assert!(scopes.contains(&"offline_access".into()));
    assert!(!scopes.contains(&"openid".into()), "only real scopes");
    for g in ["authorization_code", "refresh_token", "client_credentials"] {
        assert!(
            m["grant_types_supported"]
                .as_array()
                .expect("grants")
                .contains(&g.into())
        );
    }
    assert!(
        m["token_endpoint_auth_methods_supported"]
            .as_array()
            .expect("m")
            .contains(&"none".into())
    );
}

pub(super) fn csrf_of(html: &str) -> String {
    let at = html.find("name=\"csrf\" value=\"").expect("a csrf field");
    let rest = &html[at + "name=\"csrf\" value=\"".len()..];
    rest[..rest.find('"').expect("end")].to_owned()
}

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

async fn set_policy(f: &Flow, consent: &str, roles: &str, defaults: &str, open: bool) {
    f.t.state
        .core
        .set_resource_policy(
            &f.admin,
            "default",
            "payments-mcp",
            &authz::resources::AccessPolicyInput {
                consent: consent.into(),
                people_roles: roles.into(),
                default_scopes: defaults.into(),
                open_to_self_registered: open,
            },
            &authz::RequestMeta::default(),
        )
        .await
        .expect("policy");
}

#[tokio::test]
async fn resource_policies_decide_which_clients_and_people_get_tokens() {
    let f = flow().await;
    let meta = authz::RequestMeta::default();
    // Only granted clients: an ungranted client is refused back at the client.
    set_policy(&f, "granted_clients", "", "", false).await;
    let (status, loc, _) = f.get(&mut Browser::default(), &authorize_url("")).await;
    assert_eq!(status, StatusCode::FOUND);
    assert_eq!(query_of(&loc)["error"], "access_denied");
    f.t.state
        .core
        .grant_access(
            &f.admin,
            "default",
            "vscode",
            "payments-mcp",
            Some("tools:read"),
            &meta,
        )
        .await
        .expect("grant");
    let loc = f.consent(&mut Browser::default(), "").await;
    let (_, json) = f.redeem(&query_of(&loc)["code"]).await;
    assert_eq!(json["scope"], "tools:read", "within the grant");

    // People roles: Ada holds none, so she may not use it; with the role she may.
    set_policy(&f, "any_client", "finance", "tools:call", false).await;
    let mut b = Browser::default();
    let (_, _, html) = f.get(&mut b, &authorize_url("")).await;
    let (status, loc, _) = f
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
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(query_of(&loc)["error"], "access_denied");
    f.t.state
        .core
        .update_person(
            &f.admin,
            "default",
            &f.person,
            &authz::people::PersonInput {
                display_name: "Ada".into(),
                roles: "finance".into(),
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("roles");
    // Default scopes: a request without scope gets only them.
    let loc = f.consent(&mut Browser::default(), "").await;
    let (_, json) = f.redeem(&query_of(&loc)["code"]).await;
    assert_eq!(json["scope"], "tools:call");
    // Losing the role ends refreshes.
    let rt = json["refresh_token"].as_str().expect("rt").to_owned();
    f.t.state
        .core
        .update_person(
            &f.admin,
            "default",
            &f.person,
            &authz::people::PersonInput {
                display_name: "Ada".into(),
                roles: String::new(),
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("roles");
    assert_eq!(f.refresh(&rt).await.0, StatusCode::BAD_REQUEST);
    // Default scopes must be scopes the resource accepts.
    assert!(
        f.t.state
            .core
            .set_resource_policy(
                &f.admin,
                "default",
                "payments-mcp",
                &authz::resources::AccessPolicyInput {
                    consent: "any_client".into(),
                    default_scopes: "admin".into(),
                    ..Default::default()
                },
                &meta
            )
            .await
            .is_err()
    );
}

#[tokio::test]
async fn self_registered_machine_clients_get_tokens_only_where_the_resource_is_open() {
    let f = flow().await;
    let reg = f.register_openly(r#"{"client_name":"Nightly job","grant_types":["client_credentials"],"scope":"tools:read"}"#).await;
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!(
            "{}:{}",
            reg["client_id"].as_str().expect("id"),
            reg["client_secret"].as_str().expect("secret")
        ))
    );
    let ask = || async {
        let res =
            f.t.send(
                Request::post("/realms/default/token")
                    .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                    .header(header::AUTHORIZATION, &basic)
                    .body(Body::from(format!(
                        "grant_type=client_credentials&resource={}",
                        enc(PAY)
                    )))
                    .expect("request"),
            )
            .await;
        let s = res.status();
        (
            s,
            serde_json::from_str::<serde_json::Value>(&body(res).await).expect("json"),
        )
    };
    let (status, json) = ask().await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );
    set_policy(&f, "any_client", "", "", true).await;
    let (status, json) = ask().await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["scope"], "tools:read", "within what it registered");
}

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
