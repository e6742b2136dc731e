//! Brokering: a realm's people sign in at its authorization endpoint through the realm's own
//! OpenID Connect provider (the test IdP), through the real router. A first sign-in creates the
//! person just in time, with the roles, units and rings their groups map to, and those follow
//! the groups at every sign-in; a person who already has the email is linked only after
//! entering their password; a disabled provider blocks its people's sign-ins and refreshes;
//! forged or replayed callbacks sign nobody in; and with password sign-in off the page offers
//! the providers only.
use super::authorize::{
    Browser, CHALLENGE, Flow, PAY, PERSON, REDIRECT, claims, csrf_of, flow_with, query_of,
    ticket_of,
};
use super::idp::{CLIENT_ID, CLIENT_SECRET, Idp};
use super::*;
use authz::registry::{GroupKind, MemberKind, Published};
use authz::sso::SsoProviderInput;

const MAIL: &str = "https://mail.example.com/mcp";
const MAPPING: &str =
    "engineering -> unit:platform\nengineering -> role:mcp-user\n* -> ring:everyone";

struct Setup {
    f: Flow,
    idp: Idp,
    provider: String,
}

/// The interactive flow's realm with a release that gives the mail server to unit `platform`,
/// and a sign-in provider (the test IdP) whose `engineering` group maps to that unit and the
/// role `mcp-user`, and everyone to ring `everyone`.
async fn setup() -> Setup {
    let f = flow_with(|c| {
        c.dev.allow_loopback_client_urls = true;
        c.dev.allow_http_loopback_resources = true;
    })
    .await;
    let core = &f.t.state.core;
    let m = authz::RequestMeta::default();
    publish_platform(core, &f.admin).await;
    let idp = Idp::start().await;
    let provider = core
        .create_realm_provider(
            &f.admin,
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
    Setup {
        f,
        idp,
        provider: provider.id.to_string(),
    }
}

/// Publishes a release that gives the mail server (Portcullis authorizes it) to unit
/// `platform`, with ring `everyone`.
async fn publish_platform(core: &authz::Core, admin: &authz::Principal) {
    let m = authz::RequestMeta::default();
    let revision = core
        .registry(admin, "default")
        .await
        .expect("registry")
        .registry
        .revision;
    let policy: portcullis_manifest::policy::PolicyInput =
        serde_json::from_value(serde_json::json!({
            "mode": "allowlist",
            "rings": ["everyone"],
            "units": [{"id": "platform"}],
            "servers": [{
                "id": "mail",
                "url": MAIL,
                "auth": {"mode": "portcullis", "scopes": ["tools:call"]},
                "units": ["platform"],
            }],
        }))
        .expect("policy");
    core.replace_registry_draft(admin, "default", revision, &policy, &m)
        .await
        .expect("draft");
    match core
        .publish_registry(admin, "default", revision + 1, &m)
        .await
        .expect("publish")
    {
        Published::Release(_) => {}
        Published::AwaitingApproval(_) => panic!("no approval asked"),
    }
}

/// What the IdP's token endpoint answers next: a good ID token for `sub` in `engineering`,
/// with the claims in `over` replaced.
fn mint(idp: &Idp, sub: &str, over: serde_json::Value) -> super::idp::Mint {
    let (issuer, sub) = (idp.issuer.clone(), sub.to_owned());
    let key = idp.key.lock().expect("lock");
    let signer =
        authz::keys::Signer::from_pkcs8(&key.1, authz::keys::SigningAlg::ES256, &key.0.pkcs8)
            .expect("signer");
    drop(key);
    Box::new(move |nonce| {
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let mut c = serde_json::json!({
            "iss": issuer, "sub": sub, "aud": CLIENT_ID, "nonce": nonce,
            "iat": now, "exp": now + 300,
            "email": format!("{sub}@corp.example"), "email_verified": true, "name": sub,
            "groups": ["engineering"],
        });
        if let (Some(c), Some(over)) = (c.as_object_mut(), over.as_object()) {
            for (k, v) in over {
                c.insert(k.clone(), v.clone());
            }
        }
        Idp::answer(&signer.sign("JWT", &c).expect("sign"))
    })
}

fn authorize_url(scope: &str) -> String {
    format!(
        "/realms/default/authorize?response_type=code&client_id=vscode&redirect_uri={}&code_challenge={CHALLENGE}&code_challenge_method=S256&state=xyz&resource={}&scope={}",
        enc(REDIRECT),
        enc(PAY),
        enc(scope)
    )
}

impl Setup {
    /// Opens the sign-in page, presses the provider's button, lets the IdP sign in `sub` with
    /// these claims over the good ones, and follows its callback: the page it leads to.
    async fn through_idp(
        &self,
        b: &mut Browser,
        sub: &str,
        over: serde_json::Value,
    ) -> (StatusCode, String, String) {
        let (status, _, html) = self
            .f
            .get(b, &authorize_url("tools:call offline_access"))
            .await;
        assert_eq!(status, StatusCode::OK, "{html}");
        assert!(html.contains("Sign in with Corp"), "{html}");
        let (status, loc, html) = self
            .f
            .post(
                b,
                &format!(
                    "step=upstream&ticket={}&provider={}",
                    ticket_of(&html),
                    self.provider
                ),
            )
            .await;
        assert_eq!(status, StatusCode::SEE_OTHER, "{html}");
        assert!(
            loc.starts_with(&format!("{}/authorize?", self.idp.issuer)),
            "{loc}"
        );
        let q = query_of(&loc);
        assert_eq!(q["code_challenge_method"], "S256");
        assert_eq!(
            q["redirect_uri"],
            format!(
                "http://127.0.0.1:3000/realms/default/upstream/{}/callback",
                self.provider
            )
        );
        *self.idp.nonce.lock().expect("lock") = q["nonce"].clone();
        let mint = mint(&self.idp, sub, over);
        *self.idp.next.lock().expect("lock") = Some(mint);
        self.f
            .get(
                b,
                &format!(
                    "/realms/default/upstream/{}/callback?code=c1&state={}",
                    self.provider,
                    enc(&q["state"])
                ),
            )
            .await
    }

    /// Agrees on the consent page and redeems the code: the token response.
    async fn agree(&self, b: &mut Browser, consent: &str) -> serde_json::Value {
        assert!(consent.contains("wants to act for you"), "{consent}");
        let (status, loc, _) = self
            .f
            .post(
                b,
                &format!(
                    "step=consent&decision=approve&ticket={}",
                    ticket_of(consent)
                ),
            )
            .await;
        assert_eq!(status, StatusCode::SEE_OTHER);
        let (status, json) = self.f.redeem(&query_of(&loc)["code"]).await;
        assert_eq!(status, StatusCode::OK, "{json}");
        json
    }

    async fn person(&self, email: &str) -> authz::people::Person {
        self.f
            .t
            .state
            .core
            .list_people(
                &self.f.admin,
                "default",
                Some(email),
                authz::paging::Page::from_params("", "", 50),
            )
            .await
            .expect("people")
            .items
            .into_iter()
            .find(|p| p.email.as_str() == email)
            .expect("the person")
    }

    async fn groups(&self, email: &str) -> Vec<(GroupKind, String)> {
        self.f
            .t
            .state
            .core
            .registry_groups_of(&self.f.admin, "default", (MemberKind::Person, email))
            .await
            .expect("groups")
    }
}

#[tokio::test]
async fn a_first_sign_in_creates_the_person_and_their_groups_follow_the_directory() {
    let s = setup().await;
    let mut b = Browser::default();
    let (status, _, html) = s.through_idp(&mut b, "grace", serde_json::json!({})).await;
    assert_eq!(status, StatusCode::OK, "{html}");
    let tokens = s.agree(&mut b, &html).await;
    let grace = s.person("grace@corp.example").await;
    assert_eq!(
        claims(tokens["access_token"].as_str().expect("at"))["sub"],
        grace.id.to_string()
    );
    assert!(grace.password_hash.is_none() && grace.linked);
    assert_eq!(grace.provider_name.as_deref(), Some("Corp"));
    assert_eq!(grace.roles.to_string(), "mcp-user");
    assert_eq!(
        s.groups("grace@corp.example").await,
        vec![
            (GroupKind::Ring, "everyone".to_owned()),
            (GroupKind::Unit, "platform".to_owned())
        ]
    );

    // Out of engineering at the IdP: the next sign-in takes the unit and the role away, and
    // keeps a role an admin gave that the mapping does not name.
    let core = &s.f.t.state.core;
    core.update_person(
        &s.f.admin,
        "default",
        grace.id.as_str(),
        &authz::people::PersonInput {
            email: grace.email.to_string(),
            display_name: "Grace Hopper".into(),
            roles: "mcp-user auditor".into(),
        },
        &authz::RequestMeta::default(),
    )
    .await
    .expect("update");
    let mut b = Browser::default();
    let (status, _, html) = s
        .through_idp(&mut b, "grace", serde_json::json!({"groups": ["sales"]}))
        .await;
    // Straight to consent (it asks again for a refresh token): no password, no link page.
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("wants to act for you"), "{html}");
    let grace = s.person("grace@corp.example").await;
    assert_eq!(grace.roles.to_string(), "auditor");
    assert_eq!(
        s.groups("grace@corp.example").await,
        vec![(GroupKind::Ring, "everyone".to_owned())]
    );
    let updates =
        s.f.t
            .audit(authz::audit::AuditFilter {
                action: Some("person.update".into()),
                ..Default::default()
            })
            .await;
    let latest = &updates[0];
    assert_eq!(
        latest.details["removed"],
        serde_json::json!(["unit:platform"])
    );
    assert_eq!(latest.details["via"], "Corp");
    assert_eq!(latest.details["roles"]["after"], "auditor");
}

/// Someone the provider created has no password: their account page signs them in through
/// the provider too, where they see and disconnect their apps.
#[tokio::test]
async fn people_from_the_provider_sign_in_to_their_account_page_through_it() {
    let s = setup().await;
    let mut b = Browser::default();
    let (_, _, html) = s.through_idp(&mut b, "grace", serde_json::json!({})).await;
    s.agree(&mut b, &html).await;
    let mut b = Browser::default();
    let (status, _, page) = s.f.get(&mut b, "/realms/default/account").await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("Sign in with Corp"), "{page}");
    let (status, loc, _) =
        s.f.post_to(
            &mut b,
            "/realms/default/account",
            &format!(
                "step=upstream&provider={}&csrf={}",
                s.provider,
                enc(&csrf_of(&page))
            ),
        )
        .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let q = query_of(&loc);
    *s.idp.nonce.lock().expect("lock") = q["nonce"].clone();
    *s.idp.next.lock().expect("lock") = Some(mint(&s.idp, "grace", serde_json::json!({})));
    let (status, loc, _) =
        s.f.get(
            &mut b,
            &format!(
                "/realms/default/upstream/{}/callback?code=c1&state={}",
                s.provider,
                enc(&q["state"])
            ),
        )
        .await;
    assert_eq!(status, StatusCode::FOUND);
    assert_eq!(loc, "/realms/default/account");
    let (status, _, page) = s.f.get(&mut b, &loc).await;
    assert_eq!(status, StatusCode::OK);
    assert!(page.contains("grace@corp.example"), "{page}");
    assert!(
        page.contains("Visual Studio Code"),
        "the app she connected: {page}"
    );
    // A refusal from the account page is an error page saying why.
    let mut b = Browser::default();
    let (_, _, page) = s.f.get(&mut b, "/realms/default/account").await;
    let (_, loc, _) =
        s.f.post_to(
            &mut b,
            "/realms/default/account",
            &format!(
                "step=upstream&provider={}&csrf={}",
                s.provider,
                enc(&csrf_of(&page))
            ),
        )
        .await;
    let q = query_of(&loc);
    *s.idp.nonce.lock().expect("lock") = q["nonce"].clone();
    *s.idp.next.lock().expect("lock") = Some(mint(
        &s.idp,
        "eve",
        serde_json::json!({"email_verified": false}),
    ));
    let (status, _, page) =
        s.f.get(
            &mut b,
            &format!(
                "/realms/default/upstream/{}/callback?code=c1&state={}",
                s.provider,
                enc(&q["state"])
            ),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        page.contains("did not share a verified email address"),
        "{page}"
    );
}

#[tokio::test]
async fn an_existing_person_is_linked_only_after_entering_their_password() {
    let s = setup().await;
    let mut b = Browser::default();
    // The IdP vouches for Ada's email, but that alone links nothing.
    let (status, _, html) = s
        .through_idp(&mut b, "ada", serde_json::json!({"email": PERSON}))
        .await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("Connect Corp to your account"), "{html}");
    assert!(!html.contains("wants to act for you"));
    assert!(!s.person(PERSON).await.linked);
    let link = {
        let at = html.find("name=\"link\" value=\"").expect("link field");
        let rest = &html[at + "name=\"link\" value=\"".len()..];
        rest[..rest.find('"').expect("end")].to_owned()
    };
    let (status, _, page) =
        s.f.post(&mut b, &format!("step=link&link={link}&password=wrong"))
            .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(page.contains("That password is not right."), "{page}");
    assert!(!s.person(PERSON).await.linked);
    // Another browser cannot use the page.
    let (status, _, _) =
        s.f.post(
            &mut Browser::default(),
            &format!("step=link&link={link}&password={}", enc(PASSWORD)),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(!s.person(PERSON).await.linked);
    let (status, _, page) =
        s.f.post(
            &mut b,
            &format!("step=link&link={link}&password={}", enc(PASSWORD)),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    s.agree(&mut b, &page).await;
    let ada = s.person(PERSON).await;
    assert!(ada.linked && ada.password_hash.is_some());
    assert_eq!(ada.provider_name.as_deref(), Some("Corp"));
    // From now on the provider signs her in directly.
    let (status, _, html) = s
        .through_idp(
            &mut Browser::default(),
            "ada",
            serde_json::json!({"email": PERSON}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("wants to act for you"), "{html}");
    let links =
        s.f.t
            .audit(authz::audit::AuditFilter {
                action: Some("person.link".into()),
                ..Default::default()
            })
            .await;
    assert_eq!(links.len(), 1);
}

#[tokio::test]
async fn a_disabled_provider_blocks_its_people_sign_ins_and_refreshes() {
    let s = setup().await;
    let mut b = Browser::default();
    let (_, _, html) = s.through_idp(&mut b, "grace", serde_json::json!({})).await;
    let tokens = s.agree(&mut b, &html).await;
    let rt = tokens["refresh_token"].as_str().expect("refresh token");
    let core = &s.f.t.state.core;
    let m = authz::RequestMeta::default();
    core.set_realm_provider_enabled(&s.f.admin, "default", &s.provider, false, &m)
        .await
        .expect("disable");
    let (status, json) = s.f.refresh(rt).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{json}");
    assert_eq!(json["error"], "invalid_grant");
    // The button is gone, and the session the provider started no longer signs her in.
    let (status, _, html) = s.f.get(&mut b, &authorize_url("tools:call")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!html.contains("Sign in with Corp"), "{html}");
    assert!(html.contains("Sign in to continue"), "{html}");
    let (status, _, page) =
        s.f.post(
            &mut b,
            &format!(
                "step=upstream&ticket={}&provider={}",
                ticket_of(&html),
                s.provider
            ),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{page}");
    assert!(!s.person("grace@corp.example").await.disabled);
    // Enabled again: her sign-ins work, but what was issued before stays revoked (a provider
    // disabled for a compromise leaves nothing behind).
    core.set_realm_provider_enabled(&s.f.admin, "default", &s.provider, true, &m)
        .await
        .expect("enable");
    let (status, json) = s.f.refresh(rt).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{json}");
    let (status, _, html) = s
        .through_idp(&mut Browser::default(), "grace", serde_json::json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("wants to act for you"), "{html}");
    // People come from it: it cannot be removed.
    let e = core
        .delete_realm_provider(&s.f.admin, "default", &s.provider, &m)
        .await
        .expect_err("people come from it");
    assert!(e.to_string().contains("1 people"), "{e}");
}

#[tokio::test]
async fn forged_or_replayed_callbacks_sign_nobody_in() {
    let s = setup().await;
    // Another client's ID token: the page says it failed, and the audit log says why.
    let mut b = Browser::default();
    let (status, _, html) = s
        .through_idp(&mut b, "mallory", serde_json::json!({"aud": "other-app"}))
        .await;
    assert_eq!(status, StatusCode::OK, "{html}");
    assert!(html.contains("Signing in with Corp did not work"), "{html}");
    assert!(!b.has("portcullis_login"));
    // An email the IdP does not vouch for makes nobody.
    let mut b = Browser::default();
    let (_, _, html) = s
        .through_idp(&mut b, "eve", serde_json::json!({"email_verified": false}))
        .await;
    assert!(
        html.contains("did not share a verified email address"),
        "{html}"
    );
    let failures =
        s.f.t
            .audit(authz::audit::AuditFilter {
                action: Some("authorize.login".into()),
                ..Default::default()
            })
            .await;
    assert!(
        failures.iter().any(|e| e.details["reason"]
            .as_str()
            .is_some_and(|r| r.contains("audience"))),
        "{failures:?}"
    );
    // A callback without the browser's pending sign-in, or with another state, is refused.
    let (status, _, html) =
        s.f.get(
            &mut Browser::default(),
            &format!(
                "/realms/default/upstream/{}/callback?code=c&state=x",
                s.provider
            ),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{html}");
    assert!(html.contains("expired"), "{html}");
    let mut b = Browser::default();
    let (_, _, html) = s.f.get(&mut b, &authorize_url("tools:call")).await;
    let (_, loc, _) =
        s.f.post(
            &mut b,
            &format!(
                "step=upstream&ticket={}&provider={}",
                ticket_of(&html),
                s.provider
            ),
        )
        .await;
    let state = query_of(&loc)["state"].clone();
    let (status, _, _) =
        s.f.get(
            &mut b,
            &format!(
                "/realms/default/upstream/{}/callback?code=c&state={}x",
                s.provider,
                enc(&state)
            ),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // The pending sign-in was used up by that callback: the right state no longer works.
    let (status, _, _) =
        s.f.get(
            &mut b,
            &format!(
                "/realms/default/upstream/{}/callback?code=c&state={}",
                s.provider,
                enc(&state)
            ),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let people =
        s.f.t
            .state
            .core
            .list_people(
                &s.f.admin,
                "default",
                None,
                authz::paging::Page::from_params("", "", 50),
            )
            .await
            .expect("people");
    assert_eq!(people.items.len(), 1, "only Ada");
}

#[tokio::test]
async fn with_password_sign_in_off_the_page_offers_the_providers_only() {
    let s = setup().await;
    let core = &s.f.t.state.core;
    let m = authz::RequestMeta::default();
    core.set_realm_password_sign_in(&s.f.admin, "default", false, &m)
        .await
        .expect("off");
    let mut b = Browser::default();
    let (_, _, html) = s.f.get(&mut b, &authorize_url("tools:call")).await;
    assert!(html.contains("Sign in with Corp"), "{html}");
    assert!(!html.contains("name=\"password\""), "{html}");
    let (status, _, html) =
        s.f.post(
            &mut b,
            &format!(
                "step=login&ticket={}&email={}&password={}",
                ticket_of(&html),
                enc(PERSON),
                enc(PASSWORD)
            ),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("do not match"), "{html}");
    // Ada has the email already and cannot prove it now: told what her administrator can do.
    let (_, _, html) = s
        .through_idp(
            &mut Browser::default(),
            "ada",
            serde_json::json!({"email": PERSON}),
        )
        .await;
    assert!(
        html.contains("takes its password") && html.contains("password sign-in is off"),
        "{html}"
    );
    // Its only provider cannot be disabled while password sign-in is off.
    let e = core
        .set_realm_provider_enabled(&s.f.admin, "default", &s.provider, false, &m)
        .await
        .expect_err("the only way in");
    assert!(
        e.to_string().contains("only enabled sign-in provider"),
        "{e}"
    );
    // A mapping naming a unit the registry does not have is refused on the field.
    let e = core
        .update_realm_provider(
            &s.f.admin,
            "default",
            &s.provider,
            &SsoProviderInput {
                display_name: "Corp".into(),
                issuer: s.idp.issuer.clone(),
                client_id: CLIENT_ID.into(),
                group_mapping: "engineering -> unit:platfrom".into(),
                ..Default::default()
            },
            &m,
        )
        .await
        .expect_err("typo");
    assert!(e.to_string().contains("no unit platfrom"), "{e}");
}

mod laptop;
