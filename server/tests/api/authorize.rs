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

pub(super) fn authorize_url(extra: &str) -> String {
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
        "the access token's scope: openid asks for an ID token, offline_access for a refresh token"
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

mod apps;
mod openid;
mod policy;
mod refresh;
mod refusals;
mod registrations;
