//! Enterprise-managed authorization: a client trades an ID-JAG its enterprise IdP issued
//! (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`) for an access token of the
//! person it names. The IdP here is a key the test holds, published inline, so that it can
//! forge every kind of bad assertion.
use super::*;
use authz::clients::ClientForm;
use authz::federation::TrustedIssuerInput;
use authz::keys::{GeneratedKey, Signer, SigningAlg, generate};
use authz::resources::ResourceInput;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use std::sync::atomic::{AtomicUsize, Ordering};

const PAY: &str = "https://pay.example.com/mcp";
const MAIL: &str = "https://mail.example.com/mcp";
const ISSUER: &str = "http://127.0.0.1:3000/realms/default";
const IDP: &str = "https://idp.example.com";
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// The test's identity provider: one ES256 key.
struct Idp {
    key: GeneratedKey,
    jti: AtomicUsize,
}

impl Idp {
    fn new() -> Self {
        Self {
            key: generate(SigningAlg::ES256).expect("key"),
            // Every IdP of a test numbers its assertions apart (a jti is unique per issuer).
            jti: AtomicUsize::new(rand::random::<u32>() as usize),
        }
    }

    fn jwks(&self) -> String {
        let mut jwk = self.key.public_jwk.clone();
        jwk.insert("kid".into(), "idp-1".into());
        serde_json::json!({"keys": [jwk]}).to_string()
    }

    /// Good claims for `sub`, issued now, for client `app` and the pay server.
    fn claims(&self, sub: &str, now: i64) -> serde_json::Value {
        serde_json::json!({
            "iss": IDP, "sub": sub, "aud": ISSUER, "client_id": "app",
            "jti": format!("idjag-{}", self.jti.fetch_add(1, Ordering::SeqCst)),
            "iat": now, "exp": now + 300,
            "resource": PAY, "scope": "tools:read tools:call",
            "email": format!("{sub}@example.com"), "email_verified": true, "name": "Grace Hopper",
        })
    }

    fn sign(&self, claims: &serde_json::Value) -> String {
        Signer::from_pkcs8("idp-1", SigningAlg::ES256, &self.key.pkcs8)
            .expect("signer")
            .sign("oauth-id-jag+jwt", claims)
            .expect("sign")
    }

    /// Signs `claims` under an arbitrary header.
    fn sign_with_header(&self, header: &serde_json::Value, claims: &serde_json::Value) -> String {
        let signer =
            Signer::from_pkcs8("idp-1", SigningAlg::ES256, &self.key.pkcs8).expect("signer");
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let sig = signer.sign_input(input.as_bytes()).expect("sign");
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig))
    }
}

/// A server with the pay and mail servers, a confidential client `app` (and `other`), a public
/// client `cli-app`, and the IdP trusted for `app` with `settings`.
async fn setup(
    idp: &Idp,
    settings: impl FnOnce(&mut TrustedIssuerInput),
) -> (TestServer, String, String) {
    let t = TestServer::with(
        |c| c.dev.allow_loopback_client_urls = true,
        Arc::new(authz::clock::SystemClock),
    )
    .await;
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    let core = &t.state.core;
    for (slug, uri) in [("pay", PAY), ("mail", MAIL)] {
        core.create_resource(
            &cli,
            "default",
            &ResourceInput {
                slug: slug.into(),
                display_name: slug.into(),
                uri: uri.into(),
                scopes: "tools:read tools:call admin".into(),
                enabled: true,
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("resource");
    }
    let confidential = |name: &str| ClientForm {
        name: name.into(),
        auth_method: "client_secret_basic".into(),
        ..Default::default()
    };
    let (_, app_secret) = register_client(core, &cli, "app", confidential("Agent app"))
        .await
        .expect("app");
    let (_, other_secret) = register_client(core, &cli, "other", confidential("Other app"))
        .await
        .expect("other");
    register_client(
        core,
        &cli,
        "cli-app",
        ClientForm {
            name: "Public app".into(),
            auth_method: "none".into(),
            redirect_uris: "http://127.0.0.1/callback".into(),
            ..Default::default()
        },
    )
    .await
    .expect("public client");
    let mut input = TrustedIssuerInput {
        issuer: IDP.into(),
        display_name: "Corporate IdP".into(),
        jwks: idp.jwks(),
        clients: "app".into(),
        ..Default::default()
    };
    settings(&mut input);
    core.create_trusted_issuer(&cli, "default", &input, &meta)
        .await
        .expect("trusted issuer");
    (
        t,
        format!("app:{}", app_secret.expect("secret").expose()),
        format!("other:{}", other_secret.expect("secret").expose()),
    )
}

/// Posts a jwt-bearer grant with `assertion` (and `extra` form fields) as `basic` (`id:secret`,
/// or a bare id for no authentication): the status and the JSON answer.
async fn present(
    t: &TestServer,
    basic: Option<&str>,
    assertion: &str,
    extra: &str,
) -> (StatusCode, serde_json::Value) {
    let mut form = format!(
        "grant_type={}&assertion={assertion}{extra}",
        enc(JWT_BEARER)
    );
    let mut req = Request::post("/realms/default/token")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    match basic {
        Some(b) if b.contains(':') => {
            req = req.header(
                header::AUTHORIZATION,
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(b)
                ),
            );
        }
        Some(id) => form.push_str(&format!("&client_id={}", enc(id))),
        None => {}
    }
    let res = t.send(req.body(Body::from(form)).expect("request")).await;
    let status = res.status();
    (
        status,
        serde_json::from_str(&body(res).await).expect("json"),
    )
}

/// The default realm's audit events of `action`, newest first.
async fn events(t: &TestServer, action: &str) -> Vec<authz::audit::AuditEvent> {
    t.audit(authz::audit::AuditFilter {
        action: Some(action.into()),
        ..Default::default()
    })
    .await
}

/// The field a form error names.
fn field_of(e: authz::Error) -> &'static str {
    match e {
        authz::Error::InvalidField { field, .. } | authz::Error::Taken { field, .. } => field,
        other => panic!("not a field error: {other:?}"),
    }
}

fn now() -> i64 {
    time::OffsetDateTime::now_utc().unix_timestamp()
}

fn claims_of(token: &str) -> serde_json::Value {
    authz::keys::decode_unverified(token).expect("jwt").1
}

#[tokio::test]
async fn the_metadata_advertises_the_id_jag_profile_and_the_grant() {
    let t = TestServer::new().await;
    let res = t
        .get(
            "/.well-known/oauth-authorization-server/realms/default",
            None,
        )
        .await;
    let meta: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(
        meta["authorization_grant_profiles_supported"],
        serde_json::json!(["urn:ietf:params:oauth:grant-profile:id-jag"])
    );
    assert!(
        meta["grant_types_supported"]
            .as_array()
            .expect("list")
            .iter()
            .any(|g| g == JWT_BEARER)
    );
}

#[tokio::test]
async fn an_id_jag_buys_a_token_for_the_person_once() {
    let idp = Idp::new();
    let (t, app, _) = setup(&idp, |i| i.create_people = true).await;

    // First sign-in: the person is created just in time and linked to (iss, sub).
    let first = idp.sign(&idp.claims("grace", now()));
    let (status, answer) = present(&t, Some(&app), &first, "&scope=tools%3Acall+admin").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["token_type"], "Bearer");
    assert!(
        answer.get("refresh_token").is_none(),
        "no refresh token: {answer}"
    );
    assert_eq!(answer["scope"], "tools:call", "requested ∩ claimed");
    let token = claims_of(answer["access_token"].as_str().expect("token"));
    assert_eq!(token["aud"], PAY);
    assert_eq!(token["client_id"], "app");
    assert_eq!(token["iss"], ISSUER);
    let sub = token["sub"].as_str().expect("sub").to_owned();
    assert!(sub.starts_with("psn_"), "{sub}");
    let person = t
        .state
        .core
        .person(&authz::Principal::cli(), "default", &sub)
        .await
        .expect("person");
    assert_eq!(person.email.as_str(), "grace@example.com");
    assert_eq!(person.display_name, "Grace Hopper");
    assert!(person.password_hash.is_none(), "no local password");
    assert!(person.linked, "shown as coming from the identity provider");

    // The token is live (introspection), with no scopes asked: every claimed one.
    let second = idp.sign(&idp.claims("grace", now()));
    let (status, answer) = present(&t, Some(&app), &second, "").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["scope"], "tools:call tools:read");
    let again = claims_of(answer["access_token"].as_str().expect("token"));
    assert_eq!(again["sub"], sub.as_str(), "the same person, by link");

    // A replayed assertion is refused, and the refusal is audited with its reason.
    let (status, answer) = present(&t, Some(&app), &first, "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(answer["error"], "invalid_grant");
    assert!(
        answer["error_description"]
            .as_str()
            .is_some_and(|d| d.contains("used before")),
        "{answer}"
    );
    let denied = events(&t, "token.id_jag_denied").await;
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0].details["issuer"], IDP);
    let granted = events(&t, "token.id_jag").await;
    assert_eq!(granted.len(), 2);
    assert_eq!(granted[1].details["person_was"], "created");
    assert_eq!(granted[0].details["person_was"], "linked");
    let created = events(&t, "person.create").await;
    assert_eq!(
        created[0].actor,
        authz::audit::AuditSubject::TrustedIssuer(IDP.into()).target()
    );

    // Disabling the person ends the token and refuses new assertions.
    let access = answer_token(&t, &app, &idp, "grace").await;
    t.state
        .core
        .set_person_disabled(
            &authz::Principal::cli(),
            "default",
            &sub,
            true,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("disable");
    assert!(!introspect_active(&t, &app, &access).await);
    let (status, answer) =
        present(&t, Some(&app), &idp.sign(&idp.claims("grace", now())), "").await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
}

/// A fresh token for `sub`, checked live.
async fn answer_token(t: &TestServer, app: &str, idp: &Idp, sub: &str) -> String {
    let (status, answer) = present(t, Some(app), &idp.sign(&idp.claims(sub, now())), "").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let token = answer["access_token"].as_str().expect("token").to_owned();
    assert!(introspect_active(t, app, &token).await);
    token
}

async fn introspect_active(t: &TestServer, basic: &str, token: &str) -> bool {
    let req = Request::post("/realms/default/introspect")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(
            header::AUTHORIZATION,
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(basic)
            ),
        )
        .body(Body::from(format!("token={token}")))
        .expect("request");
    let res = t.send(req).await;
    let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    json["active"] == true
}

/// The error code and description a bad assertion gets.
async fn refused(t: &TestServer, basic: &str, assertion: &str, extra: &str) -> (String, String) {
    let (status, answer) = present(t, Some(basic), assertion, extra).await;
    assert_ne!(status, StatusCode::OK, "accepted: {answer}");
    (
        answer["error"].as_str().unwrap_or_default().to_owned(),
        answer["error_description"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

#[tokio::test]
async fn forged_and_misaddressed_assertions_are_invalid_grants() {
    let idp = Idp::new();
    let n = now();
    let with = |change: serde_json::Value| {
        let mut c = idp.claims("grace", n);
        for (k, v) in change.as_object().expect("object") {
            if v.is_null() {
                c.as_object_mut().expect("object").remove(k);
            } else {
                c[k] = v.clone();
            }
        }
        c
    };
    let stranger = generate(SigningAlg::ES256).expect("key");
    let forged = Signer::from_pkcs8("idp-1", SigningAlg::ES256, &stranger.pkcs8)
        .expect("signer")
        .sign("oauth-id-jag+jwt", &idp.claims("grace", n))
        .expect("sign");
    let cases: Vec<(&str, String, &str)> = vec![
        ("wrong aud", idp.sign(&with(serde_json::json!({"aud": "https://other.example.com"}))), "aud"),
        ("two audiences", idp.sign(&with(serde_json::json!({"aud": [ISSUER, "https://other.example.com"]}))), "aud"),
        ("another client's", idp.sign(&with(serde_json::json!({"client_id": "other"}))), "another client"),
        ("untrusted issuer", idp.sign(&with(serde_json::json!({"iss": "https://evil.example.com"}))), "not trusted"),
        ("expired", idp.sign(&with(serde_json::json!({"iat": n - 900, "exp": n - 600}))), "expired"),
        ("without jti", idp.sign(&with(serde_json::json!({"jti": null}))), "required claim"),
        ("without resource", idp.sign(&with(serde_json::json!({"resource": null}))), "names no resource"),
        ("without scope", idp.sign(&with(serde_json::json!({"scope": null}))), "None of the scopes"),
        ("a day long", idp.sign(&with(serde_json::json!({"iat": n - 86_000, "exp": n + 60}))), "lives too long"),
        ("signed by another key", forged, "signature"),
        ("typ JWT", Signer::from_pkcs8("idp-1", SigningAlg::ES256, &idp.key.pkcs8).expect("signer").sign("JWT", &idp.claims("grace", n)).expect("sign"), "typ"),
        (
            "its own key embedded",
            idp.sign_with_header(
                &serde_json::json!({"alg": "ES256", "typ": "oauth-id-jag+jwt", "jwk": idp.key.public_jwk}),
                &idp.claims("grace", n),
            ),
            "its own key",
        ),
    ];
    // A fresh server every few cases: refusals count on the client's throttle (10).
    for chunk in cases.chunks(7) {
        let (t, app, _) = setup(&idp, |i| i.create_people = true).await;
        for (what, assertion, why) in chunk {
            let (code, description) = refused(&t, &app, assertion, "").await;
            assert_eq!(code, "invalid_grant", "{what}: {description}");
            assert!(description.contains(why), "{what}: {description}");
        }
        // Nothing of this made a person.
        let people = t
            .state
            .core
            .list_people(
                &authz::Principal::cli(),
                "default",
                None,
                authz::paging::Page::first(10),
            )
            .await
            .expect("people");
        assert!(people.items.is_empty());
    }
}

#[tokio::test]
async fn algorithms_targets_and_clients_are_bounded() {
    let idp = Idp::new();
    let (t, app, other) = setup(&idp, |i| i.create_people = true).await;
    let n = now();
    // alg none: never, whatever the issuer allows.
    let unsigned = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"oauth-id-jag+jwt"}"#),
        URL_SAFE_NO_PAD.encode(idp.claims("grace", n).to_string())
    );
    let (code, description) = refused(&t, &app, &unsigned, "").await;
    assert_eq!(code, "invalid_grant", "{description}");
    assert!(description.contains("algorithm"), "{description}");

    // A resource outside the assertion: invalid_target, and the assertion stays unused.
    let good = idp.sign(&idp.claims("grace", n));
    let (code, _) = refused(&t, &app, &good, &format!("&resource={}", enc(MAIL))).await;
    assert_eq!(code, "invalid_target");
    let (status, answer) = present(&t, Some(&app), &good, &format!("&resource={}", enc(PAY))).await;
    assert_eq!(status, StatusCode::OK, "{answer}");

    // A client the issuer does not list, even when the assertion names it: refused before the
    // assertion is read, and the client is not told which issuers exist.
    let mut theirs = idp.claims("grace", n);
    theirs["client_id"] = "other".into();
    let (code, description) = refused(&t, &other, &idp.sign(&theirs), "").await;
    assert_eq!(code, "invalid_grant");
    assert!(
        description.contains("not trusted for this client"),
        "{description}"
    );

    // No client authentication, or a public client: invalid_client.
    let (status, answer) = present(&t, None, &idp.sign(&idp.claims("grace", n)), "").await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("invalid_client"))
    );
    let mut public = idp.claims("grace", n);
    public["client_id"] = "cli-app".into();
    let (status, answer) = present(&t, Some("cli-app"), &idp.sign(&public), "").await;
    assert_eq!(answer["error"], "invalid_client", "{status} {answer}");

    // No assertion at all.
    let (status, answer) = present(&t, Some(&app), "", "").await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_request"))
    );

    // Disabling the issuer revokes what its assertions bought, and refuses new ones.
    let bought = answer_token(&t, &app, &idp, "grace").await;
    t.state
        .core
        .set_trusted_issuer_enabled(
            &authz::Principal::cli(),
            "default",
            IDP,
            false,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("disable");
    assert!(!introspect_active(&t, &app, &bought).await);
    let (code, description) = refused(&t, &app, &idp.sign(&idp.claims("grace", n)), "").await;
    assert_eq!(code, "invalid_grant");
    assert!(
        description.contains("not trusted for this client"),
        "{description}"
    );
    let denied = events(&t, "token.id_jag_denied").await;
    assert!(
        denied[0].details["reason"]
            .as_str()
            .is_some_and(|r| r.contains("disabled")),
        "the audit row says why: {}",
        denied[0].details
    );
}

#[tokio::test]
async fn unlinked_people_are_linked_by_email_or_created_only_when_the_issuer_says_so() {
    let idp = Idp::new();
    let (t, app, _) = setup(&idp, |_| {}).await;
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    let core = &t.state.core;
    let ada = core
        .create_person(
            &cli,
            "default",
            &authz::people::PersonInput {
                email: "ada@example.com".into(),
                display_name: "Ada".into(),
                roles: String::new(),
            },
            None,
            &meta,
        )
        .await
        .expect("person");
    // Neither linking nor creating: refused, nothing written.
    let (code, description) = refused(&t, &app, &idp.sign(&idp.claims("ada", now())), "").await;
    assert_eq!(code, "invalid_grant");
    assert!(
        description.contains("not a person this realm accepts"),
        "the client is not told whether the email belongs to anyone: {description}"
    );

    // Creating only: an existing person's email is never taken over silently.
    let update = |create: bool, link: bool| TrustedIssuerInput {
        issuer: IDP.into(),
        jwks: idp.jwks(),
        clients: "app".into(),
        create_people: create,
        link_by_email: link,
        ..Default::default()
    };
    core.update_trusted_issuer(&cli, "default", IDP, &update(true, false), &meta)
        .await
        .expect("update");
    let (code, description) = refused(&t, &app, &idp.sign(&idp.claims("ada", now())), "").await;
    assert_eq!(code, "invalid_grant");
    assert!(
        description.contains("not a person this realm accepts"),
        "{description}"
    );
    // Nor in place of a console account (the default realm is the administration realm).
    t.user("boss@example.com", "admin").await;
    let (code, _) = refused(&t, &app, &idp.sign(&idp.claims("boss", now())), "").await;
    assert_eq!(code, "invalid_grant");
    let reasons: Vec<String> = events(&t, "token.id_jag_denied")
        .await
        .iter()
        .map(|e| e.details["reason"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(reasons[0].contains("console account"), "{reasons:?}");
    assert!(
        reasons[1].contains("may not link people by email"),
        "{reasons:?}"
    );
    assert!(
        reasons[2].contains("neither link nor create"),
        "{reasons:?}"
    );

    // An email the IdP does not say it verified names nobody, nor does a non-ASCII one.
    core.update_trusted_issuer(&cli, "default", IDP, &update(false, true), &meta)
        .await
        .expect("update");
    for (flag, email) in [
        (serde_json::json!(false), "ada@example.com"),
        (serde_json::Value::Null, "ada@example.com"),
        (serde_json::json!(true), "\u{212a}ada@example.com"),
    ] {
        let mut unverified = idp.claims("ada", now());
        unverified["email_verified"] = flag;
        unverified["email"] = email.into();
        let (code, description) = refused(&t, &app, &idp.sign(&unverified), "").await;
        assert_eq!(code, "invalid_grant");
        assert!(description.contains("verified email"), "{description}");
    }

    // Linking by email: Ada, linked (audited), and by link afterwards even when the IdP's email
    // changes.
    let (status, answer) = present(&t, Some(&app), &idp.sign(&idp.claims("ada", now())), "").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        claims_of(answer["access_token"].as_str().expect("token"))["sub"],
        ada.id.as_str()
    );
    let mut renamed = idp.claims("ada", now());
    renamed["email"] = "ada.lovelace@example.com".into();
    let (status, answer) = present(&t, Some(&app), &idp.sign(&renamed), "").await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(
        claims_of(answer["access_token"].as_str().expect("token"))["sub"],
        ada.id.as_str()
    );
    let links = events(&t, "person.link").await;
    assert_eq!(links.len(), 1);
    assert_eq!(
        links[0].target,
        authz::audit::AuditSubject::Person(ada.id.to_string()).target()
    );

    // Another subject of the same IdP with Ada's email is not linked to her a second time.
    let (code, _) = refused(
        &t,
        &app,
        &idp.sign(&{
            let mut c = idp.claims("ada-2", now());
            c["email"] = "ada@example.com".into();
            c
        }),
        "",
    )
    .await;
    assert_eq!(code, "invalid_grant");
}

#[tokio::test]
async fn trusted_issuers_are_checked_when_configured() {
    let idp = Idp::new();
    let (t, _, _) = setup(&idp, |_| {}).await;
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    let core = &t.state.core;
    let input = |issuer: &str, clients: &str| TrustedIssuerInput {
        issuer: issuer.into(),
        jwks: idp.jwks(),
        clients: clients.into(),
        ..Default::default()
    };
    let err = core
        .create_trusted_issuer(&cli, "default", &input(IDP, "app"), &meta)
        .await
        .expect_err("twice");
    assert_eq!(field_of(err), "issuer");
    let err = core
        .create_trusted_issuer(&cli, "default", &input(ISSUER, "app"), &meta)
        .await
        .expect_err("itself");
    assert_eq!(field_of(err), "issuer");
    let err = core
        .create_trusted_issuer(
            &cli,
            "default",
            &input("https://b.example.com", "cli-app"),
            &meta,
        )
        .await
        .expect_err("public client");
    assert_eq!(field_of(err), "clients");
    let err = core
        .create_trusted_issuer(
            &cli,
            "default",
            &input("https://b.example.com", "ghost"),
            &meta,
        )
        .await
        .expect_err("unknown client");
    assert_eq!(field_of(err), "clients");
    let developer = {
        t.user("dev@example.com", "developer").await;
        t.principal("dev@example.com").await
    };
    assert!(matches!(
        core.create_trusted_issuer(
            &developer,
            "default",
            &input("https://b.example.com", "app"),
            &meta
        )
        .await,
        Err(authz::Error::Forbidden)
    ));
    let err = core
        .update_trusted_issuer(
            &cli,
            "default",
            IDP,
            &input("https://moved.example.com", "app"),
            &meta,
        )
        .await
        .expect_err("links are by issuer: it never changes");
    assert_eq!(field_of(err), "issuer");
    let listed = core
        .list_trusted_issuers(&cli, "default")
        .await
        .expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].display_name, "Corporate IdP");
}

#[tokio::test]
async fn unlinking_an_identity_revokes_what_it_bought_and_stops_it_acting_as_the_person() {
    let idp = Idp::new();
    let (t, app, _) = setup(&idp, |i| i.create_people = true).await;
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    let token = answer_token(&t, &app, &idp, "grace").await;
    let sub = claims_of(&token)["sub"].as_str().expect("sub").to_owned();
    let links = t
        .state
        .core
        .person_identities(&cli, "default", &sub)
        .await
        .expect("links");
    assert_eq!(
        links
            .iter()
            .map(|l| (l.issuer.as_str(), l.subject.as_str()))
            .collect::<Vec<_>>(),
        [(IDP, "grace")]
    );
    t.state
        .core
        .unlink_person_identity(&cli, "default", &sub, (IDP, "grace"), &meta)
        .await
        .expect("unlink");
    assert!(
        !introspect_active(&t, &app, &token).await,
        "what it bought is revoked"
    );
    let again = t
        .state
        .core
        .unlink_person_identity(&cli, "default", &sub, (IDP, "grace"), &meta)
        .await
        .expect_err("unlinked already");
    assert!(matches!(again, authz::Error::NotFound { .. }), "{again:?}");
    // The IdP may create people but not take over Grace's email: refused now.
    let (code, _) = refused(&t, &app, &idp.sign(&idp.claims("grace", now())), "").await;
    assert_eq!(code, "invalid_grant");
    let unlinks = events(&t, "person.unlink").await;
    assert_eq!(unlinks.len(), 1);
    assert_eq!(
        unlinks[0].target,
        authz::audit::AuditSubject::Person(sub.to_string()).target()
    );

    // An administrator links the identity again by hand: its assertions act as Grace again.
    let core = &t.state.core;
    let err = core
        .link_person_identity(
            &cli,
            "default",
            &sub,
            ("https://evil.example.com", "grace"),
            &meta,
        )
        .await
        .expect_err("not a trusted provider");
    assert_eq!(field_of(err), "issuer");
    let err = core
        .link_person_identity(&cli, "default", &sub, (IDP, " "), &meta)
        .await
        .expect_err("no subject");
    assert_eq!(field_of(err), "subject");
    core.link_person_identity(&cli, "default", &sub, (IDP, "grace"), &meta)
        .await
        .expect("link");
    let again = answer_token(&t, &app, &idp, "grace").await;
    assert_eq!(claims_of(&again)["sub"], sub.as_str());
    let other = core
        .create_person(
            &cli,
            "default",
            &authz::people::PersonInput {
                email: "ada@example.com".into(),
                display_name: "Ada".into(),
                roles: String::new(),
            },
            None,
            &meta,
        )
        .await
        .expect("person");
    let err = core
        .link_person_identity(&cli, "default", other.id.as_str(), (IDP, "grace"), &meta)
        .await
        .expect_err("linked to Grace already");
    assert_eq!(field_of(err), "subject");

    // Renaming the provider leaves its tokens alone; new keys (the old may be compromised)
    // revoke them.
    let settings = |jwks: String| TrustedIssuerInput {
        issuer: IDP.into(),
        display_name: "Renamed IdP".into(),
        jwks,
        clients: "app".into(),
        create_people: true,
        ..Default::default()
    };
    core.update_trusted_issuer(&cli, "default", IDP, &settings(idp.jwks()), &meta)
        .await
        .expect("rename");
    assert!(introspect_active(&t, &app, &again).await);
    let rotated = Idp::new();
    core.update_trusted_issuer(&cli, "default", IDP, &settings(rotated.jwks()), &meta)
        .await
        .expect("new keys");
    assert!(
        !introspect_active(&t, &app, &again).await,
        "revoked with the old keys"
    );
    let fresh = answer_token(&t, &app, &rotated, "grace").await;
    assert_eq!(claims_of(&fresh)["sub"], sub.as_str());
}

#[tokio::test]
async fn keys_at_a_jwks_url_are_fetched_checked_and_used() {
    let idp = Idp::new();
    let (t, app, _) = setup(&idp, |i| i.create_people = true).await;
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    let core = &t.state.core;
    // The IdP publishes its keys over HTTP on loopback (a development setting allows it).
    let published = Arc::new(std::sync::Mutex::new(idp.jwks()));
    let served = published.clone();
    let app_router = axum::Router::new().route(
        "/keys",
        axum::routing::get(move || {
            let body = served.lock().expect("lock").clone();
            async move { ([(header::CONTENT_TYPE, "application/json")], body) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app_router).await });
    let by_url = TrustedIssuerInput {
        issuer: IDP.into(),
        jwks_uri: format!("http://{addr}/keys"),
        clients: "app".into(),
        create_people: true,
        ..Default::default()
    };
    core.update_trusted_issuer(&cli, "default", IDP, &by_url, &meta)
        .await
        .expect("keys by URL");
    assert_eq!(
        core.check_trusted_issuer_keys(&cli, "default", IDP)
            .await
            .expect("check"),
        ["idp-1 (ES256)"]
    );
    let token = answer_token(&t, &app, &idp, "grace").await;
    assert!(
        claims_of(&token)["sub"]
            .as_str()
            .is_some_and(|s| s.starts_with("psn_"))
    );
    // A document that is not a JWK Set: the check says why.
    *published.lock().expect("lock") = "{\"nope\": true}".into();
    let err = core
        .check_trusted_issuer_keys(&cli, "default", IDP)
        .await
        .expect_err("not a JWK Set");
    assert!(err.to_string().contains("JWK Set"), "{err}");
}
