//! Token exchange (RFC 8693) through the real token endpoint: a person's sign-in traded for a
//! five-minute token at a registry server given to their ring, the refusals (outside the ring,
//! unpublished, disabled, foreign, tampered, expired, revoked, wider, someone else's actor
//! token), delegation chains of depth 1 and 2, and tokens that die with the sign-in.
use super::authorize::{
    Browser, CHALLENGE, Flow, PAY, PERSON, REDIRECT, VERIFIER, claims, flow, query_of,
};
use super::*;
use authz::clients::ClientForm;
use authz::registry::{GroupKind, MemberKind, Published};

const MAIL: &str = "https://mail.example.com/mcp";
const EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const AT: &str = "urn:ietf:params:oauth:token-type:access_token";

/// The interactive flow's realm with a confidential laptop client that may exchange tokens,
/// a release that gives the mail server (`auth.mode = portcullis`) to ring0, and Ada in it.
struct Setup {
    f: Flow,
    laptop_secret: String,
    release: String,
}

async fn setup() -> Setup {
    let f = flow().await;
    let core = &f.t.state.core;
    let (_, secret) = register_client(
        core,
        &f.admin,
        "laptop",
        ClientForm {
            name: "Laptop".into(),
            auth_method: "client_secret_post".into(),
            redirect_uris: REDIRECT.into(),
            token_exchange: Some(true),
            ..Default::default()
        },
    )
    .await
    .expect("laptop client");
    let release = publish(&f, &[("mail", MAIL)]).await;
    core.add_registry_member(
        &f.admin,
        "default",
        (GroupKind::Ring, "ring0"),
        (MemberKind::Person, PERSON),
        &authz::RequestMeta::default(),
    )
    .await
    .expect("member");
    Setup {
        f,
        laptop_secret: secret.expect("confidential").expose().to_owned(),
        release,
    }
}

/// Publishes a release with these remote servers (Portcullis authorizes them, `tools:call`),
/// each given to ring0; its id.
async fn publish(f: &Flow, servers: &[(&str, &str)]) -> String {
    let core = &f.t.state.core;
    let m = authz::RequestMeta::default();
    let revision = core
        .registry(&f.admin, "default")
        .await
        .expect("registry")
        .registry
        .revision;
    let policy: portcullis_manifest::policy::PolicyInput =
        serde_json::from_value(serde_json::json!({
            "mode": "allowlist",
            "rings": ["ring0", "ring1"],
            "servers": servers.iter().map(|(id, url)| serde_json::json!({
                "id": id,
                "url": url,
                "auth": {"mode": "portcullis", "scopes": ["tools:call"]},
                "rings": ["ring0"],
            })).collect::<Vec<_>>(),
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

impl Setup {
    /// Ada signs in with the laptop client (`tools:call` at the payments server, with a
    /// refresh token): the access and refresh tokens.
    async fn sign_in(&self) -> (String, String) {
        let url = format!(
            "/realms/default/authorize?response_type=code&client_id=laptop&redirect_uri={}&code_challenge={CHALLENGE}&code_challenge_method=S256&state=s&resource={}&scope=tools%3Acall+offline_access",
            enc(REDIRECT),
            enc(PAY)
        );
        let loc = self
            .f
            .consent_at(&mut Browser::default(), &url, PERSON, "Laptop")
            .await;
        let code = query_of(&loc)["code"].clone();
        let (status, json) = self
            .f
            .token(&format!(
                "grant_type=authorization_code&client_id=laptop&client_secret={}&code={}&redirect_uri={}&code_verifier={VERIFIER}",
                enc(&self.laptop_secret),
                enc(&code),
                enc(REDIRECT)
            ))
            .await;
        assert_eq!(status, StatusCode::OK, "{json}");
        (
            json["access_token"].as_str().expect("at").to_owned(),
            json["refresh_token"].as_str().expect("rt").to_owned(),
        )
    }

    /// The laptop exchanges `subject` for a token at `resource`, with `extra` parameters.
    async fn exchange(
        &self,
        subject: &str,
        resource: &str,
        extra: &str,
    ) -> (StatusCode, serde_json::Value) {
        self.exchange_as(
            &format!(
                "client_id=laptop&client_secret={}",
                enc(&self.laptop_secret)
            ),
            subject,
            resource,
            extra,
        )
        .await
    }

    async fn exchange_as(
        &self,
        credentials: &str,
        subject: &str,
        resource: &str,
        extra: &str,
    ) -> (StatusCode, serde_json::Value) {
        self.f
            .token(&format!(
                "grant_type={}&{credentials}&subject_token={}&subject_token_type={}&resource={}{extra}",
                enc(EXCHANGE),
                enc(subject),
                enc(AT),
                enc(resource)
            ))
            .await
    }

    /// Introspection of `token` with `credentials` (form-encoded client authentication).
    async fn active(&self, credentials: &str, token: &str) -> bool {
        let res = self
            .f
            .t
            .post_form(
                "/realms/default/introspect",
                &format!("{credentials}&token={}", enc(token)),
                None,
            )
            .await;
        assert_eq!(res.status(), StatusCode::OK);
        let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
        json["active"].as_bool().expect("active")
    }

    fn laptop(&self) -> String {
        format!(
            "client_id=laptop&client_secret={}",
            enc(&self.laptop_secret)
        )
    }

    /// Introspection credentials for the resource `slug`, allowed to exchange tokens onward:
    /// form-encoded client authentication.
    async fn resource_server(&self, slug: &str) -> String {
        let core = &self.f.t.state.core;
        let m = authz::RequestMeta::default();
        let (client, secret) = core
            .create_resource_server_credentials(&self.f.admin, "default", slug, &m)
            .await
            .expect("credentials");
        core.set_client_token_exchange(
            &self.f.admin,
            "default",
            client.client_id.as_str(),
            true,
            &m,
        )
        .await
        .expect("token exchange on");
        // client_secret_basic: in the header, so post it through `send`.
        format!("{}:{}", client.client_id, secret.expose())
    }

    /// Posts `form` to `path` with `Authorization: Basic` of `basic` (`id:secret`).
    async fn post_basic(
        &self,
        path: &str,
        basic: &str,
        form: String,
    ) -> (StatusCode, serde_json::Value) {
        use base64::Engine as _;
        let res = self
            .f
            .t
            .send(
                Request::post(path)
                    .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                    .header(
                        header::AUTHORIZATION,
                        format!(
                            "Basic {}",
                            base64::engine::general_purpose::STANDARD.encode(basic)
                        ),
                    )
                    .body(Body::from(form))
                    .expect("request"),
            )
            .await;
        let status = res.status();
        (
            status,
            serde_json::from_str(&body(res).await).expect("json"),
        )
    }

    async fn exchange_basic(
        &self,
        basic: &str,
        subject: &str,
        resource: &str,
        extra: &str,
    ) -> (StatusCode, serde_json::Value) {
        self.post_basic(
            "/realms/default/token",
            basic,
            format!(
                "grant_type={}&subject_token={}&subject_token_type={}&resource={}{extra}",
                enc(EXCHANGE),
                enc(subject),
                enc(AT),
                enc(resource)
            ),
        )
        .await
    }

    /// Introspection of `token` by a resource server (`Authorization: Basic`).
    async fn active_basic(&self, basic: &str, token: &str) -> bool {
        let (status, json) = self
            .post_basic(
                "/realms/default/introspect",
                basic,
                format!("token={}", enc(token)),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{json}");
        json["active"].as_bool().expect("active")
    }

    async fn audit(&self, action: &str) -> Vec<authz::audit::AuditEvent> {
        self.f
            .t
            .audit(authz::audit::AuditFilter {
                action: Some(action.into()),
                ..Default::default()
            })
            .await
    }
}

fn refused(got: &(StatusCode, serde_json::Value), error: &str) {
    assert_eq!(got.0, StatusCode::BAD_REQUEST, "{}", got.1);
    assert_eq!(got.1["error"], error, "{}", got.1);
    assert!(
        got.1["error_description"]
            .as_str()
            .is_some_and(|d| !d.is_empty())
    );
}

#[tokio::test]
async fn a_person_gets_a_five_minute_token_for_a_registry_server_given_to_their_ring() {
    let s = setup().await;
    let (subject, _) = s.sign_in().await;
    let (status, json) = s.exchange(&subject, MAIL, "").await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["issued_token_type"], AT, "RFC 8693 §2.2.1");
    assert_eq!(json["token_type"], "Bearer");
    assert_eq!(json["scope"], "tools:call");
    assert!(json.get("refresh_token").is_none());
    assert!(
        json["expires_in"]
            .as_i64()
            .is_some_and(|e| e > 0 && e <= 300)
    );
    let token = json["access_token"].as_str().expect("token");
    let c = claims(token);
    assert_eq!(c["aud"], MAIL, "exactly the one server");
    assert_eq!(c["sub"], s.f.person.as_str(), "the person, not the client");
    assert_eq!(c["client_id"], "laptop");
    assert_eq!(c["mcp_server"], "mail");
    assert_eq!(c["mcp_release"], s.release.as_str());
    assert!(
        c.get("act").is_none(),
        "the client exchanged its own token: nobody else acts"
    );
    assert!(c["exp"].as_i64().expect("exp") - c["iat"].as_i64().expect("iat") <= 300);
    assert!(s.active(&s.laptop(), token).await);
    let events = s.audit("token.exchange").await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].actor, "laptop");
    assert_eq!(events[0].details["aud"], MAIL);
    assert_eq!(events[0].details["mcp_server"], "mail");

    // Never past the subject token: with 100 s left, the new one ends with it.
    s.f.clock.advance(200);
    let (status, json) = s.exchange(&subject, MAIL, "").await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let later = claims(json["access_token"].as_str().expect("token"));
    assert_eq!(later["exp"], claims(&subject)["exp"]);
    assert_eq!(json["expires_in"], 100);

    // The sign-in ends (the laptop logs out: its refresh token is revoked): every token
    // exchanged from it is inactive at once.
    let (subject2, _) = s.sign_in().await;
    let (status, json) = s.exchange(&subject2, MAIL, "").await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let exchanged = json["access_token"].as_str().expect("token").to_owned();
    assert!(s.active(&s.laptop(), &exchanged).await);
    let res =
        s.f.t
            .post_form(
                "/realms/default/revoke",
                &format!("{}&token={}", s.laptop(), enc(&subject2)),
                None,
            )
            .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        !s.active(&s.laptop(), &exchanged).await,
        "revoking the subject token ends what was exchanged from it"
    );
}

#[tokio::test]
async fn revoking_the_persons_sign_in_ends_the_exchanged_tokens() {
    let s = setup().await;
    let (subject, refresh) = s.sign_in().await;
    let (_, json) = s.exchange(&subject, MAIL, "").await;
    let exchanged = json["access_token"].as_str().expect("token").to_owned();
    assert!(s.active(&s.laptop(), &exchanged).await);
    let res =
        s.f.t
            .post_form(
                "/realms/default/revoke",
                &format!("{}&token={}", s.laptop(), enc(&refresh)),
                None,
            )
            .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        !s.active(&s.laptop(), &exchanged).await,
        "the family is revoked"
    );
    refused(&s.exchange(&subject, MAIL, "").await, "invalid_grant");
}

#[tokio::test]
async fn exchanges_beyond_what_a_direct_request_could_get_are_refused_and_audited() {
    let s = setup().await;
    let core = &s.f.t.state.core;
    let m = authz::RequestMeta::default();
    let (subject, _) = s.sign_in().await;

    // Wider than the subject token and the release.
    refused(
        &s.exchange(&subject, MAIL, "&scope=tools%3Acall+tools%3Aread")
            .await,
        "invalid_scope",
    );
    // No audience games, one resource, and never Portcullis itself.
    refused(
        &s.exchange(&subject, MAIL, &format!("&audience={}", enc(MAIL)))
            .await,
        "invalid_target",
    );
    refused(
        &s.exchange(&subject, MAIL, &format!("&resource={}", enc(PAY)))
            .await,
        "invalid_target",
    );
    refused(
        &s.exchange(&subject, "https://unknown.example.com/mcp", "")
            .await,
        "invalid_target",
    );
    // Malformed requests.
    refused(
        &s.f.token(&format!(
            "grant_type={}&{}&resource={}",
            enc(EXCHANGE),
            s.laptop(),
            enc(MAIL)
        ))
        .await,
        "invalid_request",
    );
    refused(
        &s.exchange(
            &subject,
            MAIL,
            &format!(
                "&requested_token_type={}",
                enc("urn:ietf:params:oauth:token-type:refresh_token")
            ),
        )
        .await,
        "invalid_request",
    );

    // A tampered, a foreign and an expired subject.
    let mut tampered = subject.clone();
    let last = tampered.pop().expect("char");
    tampered.push(if last == 'A' { 'B' } else { 'A' });
    refused(&s.exchange(&tampered, MAIL, "").await, "invalid_grant");
    let foreign = foreign_token(&s.f).await;
    refused(&s.exchange(&foreign, MAIL, "").await, "invalid_grant");

    // Outside the ring: Ada leaves ring0.
    core.remove_registry_member(
        &s.f.admin,
        "default",
        (GroupKind::Ring, "ring0"),
        (MemberKind::Person, PERSON),
        &m,
    )
    .await
    .expect("remove");
    refused(&s.exchange(&subject, MAIL, "").await, "invalid_target");
    core.add_registry_member(
        &s.f.admin,
        "default",
        (GroupKind::Ring, "ring0"),
        (MemberKind::Person, PERSON),
        &m,
    )
    .await
    .expect("back");
    assert_eq!(s.exchange(&subject, MAIL, "").await.0, StatusCode::OK);

    // A server only in the draft (unpublished) gives nothing.
    core.create_resource(
        &s.f.admin,
        "default",
        &authz::resources::ResourceInput {
            slug: "calendar".into(),
            display_name: "Calendar".into(),
            uri: "https://calendar.example.com/mcp".into(),
            scopes: "tools:call".into(),
            enabled: true,
            ..Default::default()
        },
        &m,
    )
    .await
    .expect("resource");
    refused(
        &s.exchange(&subject, "https://calendar.example.com/mcp", "")
            .await,
        "invalid_target",
    );

    // A disabled resource.
    core.set_resource_enabled(&s.f.admin, "default", "email-mcp", false, &m)
        .await
        .expect("disable");
    refused(&s.exchange(&subject, MAIL, "").await, "invalid_target");
    core.set_resource_enabled(&s.f.admin, "default", "email-mcp", true, &m)
        .await
        .expect("enable");

    // Another client's token: neither issued to the laptop nor addressed to it.
    let (vscode_token, _) = {
        let code = s.f.code().await;
        let (_, json) = s.f.redeem(&code).await;
        (json["access_token"].as_str().expect("at").to_owned(), ())
    };
    refused(&s.exchange(&vscode_token, MAIL, "").await, "invalid_grant");
    // The public client may not use the grant at all.
    let got = s
        .exchange_as("client_id=vscode", &vscode_token, MAIL, "")
        .await;
    assert_eq!(got.1["error"], "unauthorized_client", "{}", got.1);

    // An actor token naming someone else.
    let (_, bot_secret) = register_granted_client(
        core,
        &s.f.admin,
        "bot",
        ClientForm {
            name: "Bot".into(),
            auth_method: "client_secret_post".into(),
            scope: "tools:call".into(),
            ..Default::default()
        },
    )
    .await
    .expect("bot");
    let (_, json) =
        s.f.token(&format!(
            "grant_type=client_credentials&client_id=bot&client_secret={}&resource={}",
            enc(bot_secret.expect("secret").expose()),
            enc(MAIL)
        ))
        .await;
    let bots = json["access_token"].as_str().expect("bot token").to_owned();
    refused(
        &s.exchange(
            &subject,
            MAIL,
            &format!("&actor_token={}&actor_token_type={}", enc(&bots), enc(AT)),
        )
        .await,
        "invalid_grant",
    );

    // Expired.
    s.f.clock.advance(301);
    refused(&s.exchange(&subject, MAIL, "").await, "invalid_grant");

    let denied = s.audit("token.exchange_denied").await;
    assert!(denied.len() >= 10, "{}", denied.len());
    assert!(
        denied
            .iter()
            .all(|e| e.details["reason"].as_str().is_some_and(|r| !r.is_empty()))
    );
    assert!(
        denied
            .iter()
            .any(|e| e.details["error"] == "invalid_target" && e.actor == "laptop")
    );
}

#[tokio::test]
async fn servers_calling_onward_are_recorded_as_actors_and_chains_are_bounded() {
    let s = setup().await;
    let calendar = "https://calendar.example.com/mcp";
    s.f.t
        .state
        .core
        .create_resource(
            &s.f.admin,
            "default",
            &authz::resources::ResourceInput {
                slug: "calendar".into(),
                display_name: "Calendar".into(),
                uri: calendar.into(),
                scopes: "tools:call".into(),
                enabled: true,
                ..Default::default()
            },
            &authz::RequestMeta::default(),
        )
        .await
        .expect("resource");
    publish(
        &s.f,
        &[("mail", MAIL), ("calendar", calendar), ("pay", PAY)],
    )
    .await;
    let (subject, refresh) = s.sign_in().await;
    // The payments server got Ada's token and calls the mail server for her.
    let payments = s.resource_server("payments-mcp").await;
    let (status, json) = s.exchange_basic(&payments, &subject, MAIL, "").await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let one = json["access_token"].as_str().expect("token").to_owned();
    let c = claims(&one);
    assert_eq!(c["sub"], s.f.person.as_str());
    assert_eq!(c["client_id"], "payments-mcp-introspect");
    assert_eq!(
        c["act"],
        serde_json::json!({"sub": "payments-mcp-introspect"})
    );
    // The mail server calls the calendar: depth 2, the most recent actor outermost.
    let mail = s.resource_server("email-mcp").await;
    let (status, json) = s.exchange_basic(&mail, &one, calendar, "").await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let two = json["access_token"].as_str().expect("token").to_owned();
    assert_eq!(
        claims(&two)["act"],
        serde_json::json!({"sub": "email-mcp-introspect", "act": {"sub": "payments-mcp-introspect"}})
    );
    // A server cannot trade a token addressed to another server.
    refused(
        &s.exchange_basic(&mail, &subject, calendar, "").await,
        "invalid_grant",
    );
    // The calendar's own resource server sees the chain's token as active…
    let calendar_rs = s.resource_server("calendar").await;
    assert!(s.active_basic(&calendar_rs, &two).await);
    assert!(
        !s.active_basic(&payments, &two).await,
        "neither issued to the payments server nor addressed to it"
    );
    // Depth 3 and 4 go through; a fifth actor is refused with the limit named.
    let (status, json) = s.exchange_basic(&calendar_rs, &two, PAY, "").await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let three = json["access_token"].as_str().expect("token").to_owned();
    let (status, json) = s.exchange_basic(&payments, &three, MAIL, "").await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let four = json["access_token"].as_str().expect("token").to_owned();
    let chain = claims(&four)["act"].clone();
    assert_eq!(chain["sub"], "payments-mcp-introspect");
    assert_eq!(chain["act"]["act"]["act"]["sub"], "payments-mcp-introspect");
    let (status, json) = s.exchange_basic(&mail, &four, calendar, "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json["error"], "invalid_grant");
    assert!(
        json["error_description"]
            .as_str()
            .is_some_and(|d| d.contains("at most 4")),
        "{json}"
    );
    // …until Ada's sign-in ends: the whole delegation ends with it.
    let res =
        s.f.t
            .post_form(
                "/realms/default/revoke",
                &format!("{}&token={}", s.laptop(), enc(&refresh)),
                None,
            )
            .await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(!s.active_basic(&calendar_rs, &two).await);
    refused(
        &s.exchange_basic(&mail, &one, calendar, "").await,
        "invalid_grant",
    );
    let events = s.audit("token.exchange").await;
    assert_eq!(events.len(), 4);
    assert_eq!(
        events[0].details["act"]["act"]["sub"],
        "calendar-introspect"
    );
}

#[tokio::test]
async fn a_machine_client_exchanges_with_its_own_actor_token_only() {
    let s = setup().await;
    let core = &s.f.t.state.core;
    let (_, secret) = register_granted_client(
        core,
        &s.f.admin,
        "bot",
        ClientForm {
            name: "Bot".into(),
            auth_method: "client_secret_post".into(),
            scope: "tools:call".into(),
            token_exchange: Some(true),
            ..Default::default()
        },
    )
    .await
    .expect("bot");
    let creds = format!(
        "client_id=bot&client_secret={}",
        enc(secret.expect("s").expose())
    );
    let (_, json) =
        s.f.token(&format!(
            "grant_type=client_credentials&{creds}&resource={}",
            enc(PAY)
        ))
        .await;
    let own = json["access_token"].as_str().expect("token").to_owned();
    let (status, json) = s
        .exchange_as(
            &creds,
            &own,
            MAIL,
            &format!("&actor_token={}&actor_token_type={}", enc(&own), enc(AT)),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let c = claims(json["access_token"].as_str().expect("token"));
    assert_eq!(c["sub"], "bot");
    assert_eq!(c["act"], serde_json::json!({"sub": "bot"}));
    assert!(
        c.get("mcp_server").is_none(),
        "its own grant allowed it, not the registry"
    );
    // A person's token is no actor token.
    let (ada, _) = s.sign_in().await;
    refused(
        &s.exchange_as(
            &creds,
            &own,
            MAIL,
            &format!("&actor_token={}&actor_token_type={}", enc(&ada), enc(AT)),
        )
        .await,
        "invalid_grant",
    );
    // Without a grant for the target (and no agent the registry gives it to): refused.
    core.revoke_access(
        &s.f.admin,
        "default",
        "bot",
        "email-mcp",
        &authz::RequestMeta::default(),
    )
    .await
    .expect("revoke access");
    refused(
        &s.exchange_as(&creds, &own, MAIL, "").await,
        "invalid_target",
    );
}

#[tokio::test]
async fn discovery_and_registration_know_the_grant() {
    let s = setup().await;
    let res =
        s.f.t
            .get(
                "/.well-known/oauth-authorization-server/realms/default",
                None,
            )
            .await;
    let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert!(
        json["grant_types_supported"]
            .as_array()
            .expect("grants")
            .iter()
            .any(|g| g == EXCHANGE),
        "{json}"
    );
    // A public client cannot register it; a confidential one can.
    let err = register_client(
        &s.f.t.state.core,
        &s.f.admin,
        "public-exchanger",
        ClientForm {
            name: "Public".into(),
            auth_method: "none".into(),
            token_exchange: Some(true),
            ..Default::default()
        },
    )
    .await
    .expect_err("public");
    assert!(err.to_string().contains("token exchange"), "{err}");
    let (client, _) = register_client(
        &s.f.t.state.core,
        &s.f.admin,
        "exchanger",
        ClientForm {
            name: "Exchanger".into(),
            auth_method: "client_secret_basic".into(),
            token_exchange: Some(true),
            ..Default::default()
        },
    )
    .await
    .expect("confidential");
    assert!(
        client
            .grant_types
            .contains(&authz::clients::GrantType::TokenExchange)
    );
}

/// A live access token of another realm ("other": its own resource, client and keys).
async fn foreign_token(f: &Flow) -> String {
    let core = &f.t.state.core;
    let m = authz::RequestMeta::default();
    core.create_realm(&f.admin, "other", "Other", &m)
        .await
        .expect("realm");
    core.create_resource(
        &f.admin,
        "other",
        &authz::resources::ResourceInput {
            slug: "mail".into(),
            display_name: "Mail".into(),
            uri: MAIL.into(),
            scopes: "tools:call".into(),
            enabled: true,
            ..Default::default()
        },
        &m,
    )
    .await
    .expect("resource");
    let (_, secret) = core
        .create_client(
            &f.admin,
            "other",
            "laptop",
            &ClientForm {
                name: "Laptop elsewhere".into(),
                auth_method: "client_secret_post".into(),
                scope: "tools:call".into(),
                ..Default::default()
            }
            .into_metadata()
            .expect("metadata"),
            &m,
        )
        .await
        .expect("client");
    core.grant_access(&f.admin, "other", "laptop", "mail", Some("tools:call"), &m)
        .await
        .expect("grant");
    let res =
        f.t.post_form(
            "/realms/other/token",
            &format!(
                "grant_type=client_credentials&client_id=laptop&client_secret={}&resource={}",
                enc(secret.expect("secret").expose()),
                enc(MAIL)
            ),
            None,
        )
        .await;
    let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    json["access_token"].as_str().expect("token").to_owned()
}

/// What a server receives cannot be traded on by anyone naming the client it was issued to: an
/// exchanged token is never exchanged again by that client, and the public CLI trades only its
/// sign-in token; clients cannot turn the grant on for themselves; a server calling onward for
/// a machine client never gets more than that client could.
#[tokio::test]
async fn received_tokens_cannot_be_traded_on_and_self_registration_cannot_opt_in() {
    let s = setup().await;
    let core = &s.f.t.state.core;
    let m = authz::RequestMeta::default();
    publish(&s.f, &[("mail", MAIL), ("pay", PAY)]).await;
    let (subject, _) = s.sign_in().await;
    let (status, json) = s.exchange(&subject, MAIL, "").await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let at_mail = json["access_token"].as_str().expect("token").to_owned();
    // The mail server got `at_mail`; naming the laptop, it cannot trade it for the payments
    // server (the laptop exchanges its original token instead).
    refused(&s.exchange(&at_mail, PAY, "").await, "invalid_grant");

    // The public CLI: a token it got for the payments server (not its registry sign-in) is
    // not exchangeable, whoever presents it.
    let url = format!(
        "/realms/default/authorize?response_type=code&client_id=portcullis-cli&redirect_uri={}&code_challenge={CHALLENGE}&code_challenge_method=S256&state=s&resource={}",
        enc(REDIRECT),
        enc(PAY)
    );
    let loc =
        s.f.consent_at(&mut Browser::default(), &url, PERSON, "Portcullis CLI")
            .await;
    let (status, json) = s
        .f
        .token(&format!(
            "grant_type=authorization_code&client_id=portcullis-cli&code={}&redirect_uri={}&code_verifier={VERIFIER}",
            enc(&query_of(&loc)["code"]),
            enc(REDIRECT)
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let cli_pay = json["access_token"].as_str().expect("token").to_owned();
    let got = s
        .exchange_as("client_id=portcullis-cli", &cli_pay, MAIL, "")
        .await;
    refused(&got, "invalid_grant");
    assert!(
        got.1["error_description"]
            .as_str()
            .is_some_and(|d| d.contains("sign-in token")),
        "{}",
        got.1
    );

    // Self-registration cannot ask for token exchange or the device grant.
    for grant in [EXCHANGE, "urn:ietf:params:oauth:grant-type:device_code"] {
        let reg = s
            .f
            .register_openly(format!(
                r#"{{"client_name":"Sneaky","token_endpoint_auth_method":"client_secret_basic","grant_types":["client_credentials","{grant}"]}}"#
            ))
            .await;
        assert_eq!(reg["error"], "invalid_client_metadata", "{reg}");
    }

    // A server calling onward for a machine client: the client's own access bounds it.
    let (_, bot_secret) = register_granted_client(
        core,
        &s.f.admin,
        "bot",
        ClientForm {
            name: "Bot".into(),
            auth_method: "client_secret_post".into(),
            scope: "tools:call".into(),
            ..Default::default()
        },
    )
    .await
    .expect("bot");
    core.revoke_access(&s.f.admin, "default", "bot", "email-mcp", &m)
        .await
        .expect("no mail for the bot");
    let (_, json) =
        s.f.token(&format!(
            "grant_type=client_credentials&client_id=bot&client_secret={}&resource={}",
            enc(bot_secret.expect("secret").expose()),
            enc(PAY)
        ))
        .await;
    let bots = json["access_token"].as_str().expect("bot token").to_owned();
    let payments = s.resource_server("payments-mcp").await;
    refused(
        &s.exchange_basic(&payments, &bots, MAIL, "").await,
        "invalid_target",
    );
}

/// Delivery with the helper `portcullis-cli` writes the realm's own CLI command for each
/// server Portcullis authorizes.
#[tokio::test]
async fn delivery_names_the_realms_cli_as_the_token_helper() {
    let s = setup().await;
    let d =
        s.f.t
            .state
            .core
            .deliver_registry(
                &s.f.admin,
                "default",
                &authz::registry::DeliveryRequest {
                    target: portcullis_manifest::render::Target::current(
                        portcullis_manifest::render::Harness::Codex,
                    ),
                    group: (GroupKind::Ring, "ring0".into()),
                    release: None,
                    options: portcullis_manifest::render::Options {
                        token_helper: Some("portcullis-cli".into()),
                    },
                },
            )
            .await
            .expect("delivered");
    let config = d
        .rendered
        .files
        .iter()
        .find(|f| f.name == "config.toml")
        .expect("config.toml");
    assert!(
        config.contents.contains(&format!(
            "http_headers_helper = \"portcullis-cli token --server http://127.0.0.1:3000 --realm default --resource {MAIL} --format headers\""
        )),
        "{}",
        config.contents
    );
}
