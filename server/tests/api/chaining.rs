//! Identity chaining through the real router, both ways: realm `default` is the person's
//! identity provider, realm `tickets` the authorization server of another MCP server that
//! trusts it. A confidential client signs Ada in with OpenID Connect at `default`, trades her ID
//! token there for an ID-JAG for `tickets` (token exchange), and presents it at `tickets`
//! (jwt-bearer) for an access token to the tickets MCP server — then every way that must fail.
use super::authorize::{Browser, Flow, ISSUER, PERSON, REDIRECT, VERIFIER, flow_with, query_of};
use super::*;
use authz::clients::ClientForm;
use authz::resources::ResourceInput;

const TICKETS: &str = "https://tickets.example.com/mcp";
const TICKETS_AS: &str = "http://127.0.0.1:3000/realms/tickets";
const EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

struct Chain {
    f: Flow,
    /// `desk`'s secret at `default`.
    desk: String,
    /// `other`'s secret at `default` (a client `tickets` does not list).
    other: String,
    /// `desk-there`'s secret at `tickets`.
    there: String,
}

fn confidential(name: &str) -> ClientForm {
    ClientForm {
        name: name.into(),
        auth_method: "client_secret_post".into(),
        redirect_uris: REDIRECT.into(),
        ..Default::default()
    }
}

/// Both realms: `desk` at `default` (listed for `tickets` as `desk-there`), `tickets` trusting
/// `default`'s ID-JAGs for `desk-there`, creating people just in time.
async fn chain() -> Chain {
    let f = flow_with(|c| {
        c.dev.allow_http_loopback_resources = true;
        c.dev.allow_loopback_client_urls = true;
    })
    .await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let (_, desk) = register_client(core, &f.admin, "desk", confidential("Service desk"))
        .await
        .expect("desk");
    let (_, other) = register_client(core, &f.admin, "other", confidential("Other app"))
        .await
        .expect("other");
    core.create_realm(&f.admin, "tickets", "Tickets", &meta)
        .await
        .expect("realm");
    core.create_resource(
        &f.admin,
        "tickets",
        &ResourceInput {
            slug: "tickets-mcp".into(),
            display_name: "Tickets".into(),
            uri: TICKETS.into(),
            scopes: "tickets:read tickets:write".into(),
            enabled: true,
            ..Default::default()
        },
        &meta,
    )
    .await
    .expect("resource");
    let (_, there) = core
        .create_client(
            &f.admin,
            "tickets",
            "desk-there",
            &ClientForm {
                name: "Service desk".into(),
                auth_method: "client_secret_post".into(),
                ..Default::default()
            }
            .into_metadata()
            .expect("metadata"),
            &meta,
        )
        .await
        .expect("client there");
    core.create_trusting_server(
        &f.admin,
        "default",
        &authz::chaining::TrustingServerInput {
            issuer: TICKETS_AS.into(),
            display_name: "Tickets".into(),
            resources: TICKETS.into(),
            scopes: "tickets:read".into(),
            clients: "desk -> desk-there".into(),
        },
        &meta,
    )
    .await
    .expect("trusting server");
    Chain {
        f,
        desk: desk.expect("secret").expose().to_owned(),
        other: other.expect("secret").expose().to_owned(),
        there: there.expect("secret").expose().to_owned(),
    }
}

impl Chain {
    /// Ada signs in to `client` with `openid email`; its token response.
    async fn sign_in(&self, client: &str, secret: &str) -> serde_json::Value {
        let url = format!(
            "/realms/default/authorize?response_type=code&client_id={client}&redirect_uri={}&code_challenge={}&code_challenge_method=S256&state=s&resource={}&scope=tools%3Acall+openid+email&nonce=n1",
            enc(REDIRECT),
            super::authorize::CHALLENGE,
            enc(super::authorize::PAY),
        );
        let name = if client == "desk" {
            "Service desk"
        } else {
            "Other app"
        };
        let loc = self
            .f
            .consent_at(&mut Browser::default(), &url, PERSON, name)
            .await;
        let (status, json) = self
            .f
            .token(&format!(
                "grant_type=authorization_code&client_id={client}&client_secret={}&code={}&redirect_uri={}&code_verifier={VERIFIER}",
                enc(secret),
                enc(&query_of(&loc)["code"]),
                enc(REDIRECT)
            ))
            .await;
        assert_eq!(status, StatusCode::OK, "{json}");
        json
    }

    /// Token exchange at `default` as `desk`: `subject` (an ID token unless `extra` says
    /// otherwise) for an ID-JAG, with `extra` form fields.
    async fn exchange(&self, subject: &str, extra: &str) -> (StatusCode, serde_json::Value) {
        self.exchange_as(("desk", &self.desk), subject, extra).await
    }

    async fn exchange_as(
        &self,
        (client, secret): (&str, &str),
        subject: &str,
        extra: &str,
    ) -> (StatusCode, serde_json::Value) {
        self.f
            .token(&format!(
                "grant_type={}&client_id={client}&client_secret={}&requested_token_type={}&subject_token={}&subject_token_type={}{extra}",
                enc(EXCHANGE),
                enc(secret),
                enc(ID_JAG),
                enc(subject),
                enc(ID_TOKEN),
            ))
            .await
    }

    /// The jwt-bearer grant at `tickets` as `desk-there`.
    async fn present(&self, assertion: &str) -> (StatusCode, serde_json::Value) {
        let res = self
            .f
            .t
            .send(
                Request::post("/realms/tickets/token")
                    .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                    .body(Body::from(format!(
                        "grant_type={}&client_id=desk-there&client_secret={}&assertion={}",
                        enc(JWT_BEARER),
                        enc(&self.there),
                        enc(assertion)
                    )))
                    .expect("request"),
            )
            .await;
        let status = res.status();
        (
            status,
            serde_json::from_str(&body(res).await).expect("json"),
        )
    }

    /// `tickets` trusts `default`: its issuer, with the keys it publishes now.
    async fn trust_default(&self) {
        let jwks = body(self.f.t.get("/realms/default/jwks", None).await).await;
        self.f
            .t
            .state
            .core
            .create_trusted_issuer(
                &self.f.admin,
                "tickets",
                &authz::federation::TrustedIssuerInput {
                    issuer: ISSUER.into(),
                    display_name: "Company directory".into(),
                    jwks,
                    clients: "desk-there".into(),
                    create_people: true,
                    ..Default::default()
                },
                &authz::RequestMeta::default(),
            )
            .await
            .expect("trusted issuer");
    }
}

const FOR_TICKETS: &str = "&audience=http%3A%2F%2F127.0.0.1%3A3000%2Frealms%2Ftickets&resource=https%3A%2F%2Ftickets.example.com%2Fmcp";

#[tokio::test]
async fn an_id_token_becomes_an_id_jag_that_the_trusting_realm_trades_for_an_access_token() {
    let c = chain().await;
    let signed_in = c.sign_in("desk", &c.desk).await;
    let id_token = signed_in["id_token"].as_str().expect("an ID token");
    let (status, json) = c.exchange(id_token, FOR_TICKETS).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["issued_token_type"], ID_JAG);
    assert_eq!(json["token_type"], "N_A");
    assert_eq!(json["expires_in"], 300);
    assert_eq!(
        json["scope"], "tickets:read",
        "the listed scopes when none asked"
    );
    assert!(json.get("refresh_token").is_none());
    let jag = json["access_token"].as_str().expect("the ID-JAG");
    let header = super::authorize::claims(&format!("x.{}", jag.split('.').next().expect("header")));
    assert_eq!(header["typ"], "oauth-id-jag+jwt");
    let claims = super::authorize::claims(jag);
    assert_eq!(claims["iss"], ISSUER);
    assert_eq!(claims["sub"], c.f.person.as_str());
    assert_eq!(claims["aud"], TICKETS_AS);
    assert_eq!(claims["client_id"], "desk-there", "the id it has there");
    assert_eq!(claims["resource"], TICKETS);
    assert_eq!(claims["email"], PERSON, "the ID token carried the email");
    assert!(
        claims["jti"]
            .as_str()
            .is_some_and(|j| j.starts_with("jag_"))
    );

    // The other side: `tickets` trusts `default` and trades the ID-JAG once.
    c.trust_default().await;
    let (status, token) = c.present(jag).await;
    assert_eq!(status, StatusCode::OK, "{token}");
    let at = super::authorize::claims(token["access_token"].as_str().expect("access token"));
    assert_eq!(at["aud"], TICKETS);
    assert_eq!(at["iss"], TICKETS_AS);
    assert_eq!(at["client_id"], "desk-there");
    assert_eq!(at["scope"], "tickets:read");
    assert!(
        at["sub"]
            .as_str()
            .is_some_and(|s| s.starts_with("psn_") && s != c.f.person),
        "a person of `tickets`, made just in time: {at}"
    );
    let (status, again) = c.present(jag).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(again["error"], "invalid_grant", "a replayed jti: {again}");
    // `default` never accepts its own ID-JAG.
    let res =
        c.f.t
            .send(
                Request::post("/realms/default/token")
                    .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                    .body(Body::from(format!(
                        "grant_type={}&client_id=desk&client_secret={}&assertion={}",
                        enc(JWT_BEARER),
                        enc(&c.desk),
                        enc(jag)
                    )))
                    .expect("request"),
            )
            .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    assert!(body(res).await.contains("invalid_grant"));

    // Audited at the identity provider: what was issued, for whom, for where.
    let events =
        c.f.t
            .audit(authz::audit::AuditFilter {
                action: Some("token.id_jag_issue".into()),
                ..Default::default()
            })
            .await;
    let e = events.first().expect("an audit row");
    assert_eq!(e.target, format!("trusting_as:{TICKETS_AS}"));
    assert_eq!(e.details["client_id_there"], "desk-there");
    assert_eq!(e.details["sub"], c.f.person.as_str());
}

#[tokio::test]
async fn every_bad_exchange_is_refused_with_its_error_code() {
    let c = chain().await;
    let desk = c.sign_in("desk", &c.desk).await;
    let id_token = desk["id_token"].as_str().expect("ID token").to_owned();
    let expect = |(status, json): (StatusCode, serde_json::Value), code: &str, what: &str| {
        assert_eq!(json["error"], code, "{what}: {json}");
        assert!(status.is_client_error(), "{what}: {status}");
    };
    expect(
        c.exchange(
            &id_token,
            "&resource=https%3A%2F%2Ftickets.example.com%2Fmcp",
        )
        .await,
        "invalid_request",
        "no audience",
    );
    expect(
        c.exchange(
            &id_token,
            "&audience=https%3A%2F%2Fas.elsewhere.example&resource=https%3A%2F%2Ftickets.example.com%2Fmcp",
        )
        .await,
        "invalid_target",
        "an authorization server the realm does not list",
    );
    expect(
        c.exchange(
            &id_token,
            "&audience=http%3A%2F%2F127.0.0.1%3A3000%2Frealms%2Ftickets&resource=https%3A%2F%2Fwiki.example.com%2Fmcp",
        )
        .await,
        "invalid_target",
        "a resource it does not list",
    );
    expect(
        c.exchange(&id_token, &format!("{FOR_TICKETS}&scope=tickets%3Awrite"))
            .await,
        "invalid_scope",
        "a scope beyond the listed ones",
    );
    expect(
        c.exchange(
            desk["access_token"].as_str().expect("access token"),
            FOR_TICKETS,
        )
        .await,
        "invalid_grant",
        "an access token passed off as an ID token",
    );
    // Another client's ID token, and a client the server does not list.
    let other = c.sign_in("other", &c.other).await;
    let other_id = other["id_token"].as_str().expect("ID token");
    expect(
        c.exchange(other_id, FOR_TICKETS).await,
        "invalid_grant",
        "an ID token issued to another client",
    );
    expect(
        c.exchange_as(("other", &c.other), other_id, FOR_TICKETS)
            .await,
        "unauthorized_client",
        "a client no trusting server lists",
    );
    // A public client cannot ask at all.
    let (status, json) = c
        .f
        .token(&format!(
            "grant_type={}&client_id=vscode&requested_token_type={}&subject_token={}&subject_token_type={}{FOR_TICKETS}",
            enc(EXCHANGE),
            enc(ID_JAG),
            enc(&id_token),
            enc(ID_TOKEN),
        ))
        .await;
    expect((status, json), "unauthorized_client", "a public client");
    // Disabled, the server gets nothing; enabled again, it does.
    let core = &c.f.t.state.core;
    let meta = authz::RequestMeta::default();
    core.set_trusting_server_enabled(&c.f.admin, "default", TICKETS_AS, false, &meta)
        .await
        .expect("disable");
    expect(
        c.exchange(&id_token, FOR_TICKETS).await,
        "unauthorized_client",
        "the client's only trusting server disabled",
    );
    core.set_trusting_server_enabled(&c.f.admin, "default", TICKETS_AS, true, &meta)
        .await
        .expect("enable");
    assert_eq!(c.exchange(&id_token, FOR_TICKETS).await.0, StatusCode::OK);
    // Revoked and restored, the client's earlier sign-ins are over: its ID token buys nothing.
    let meta = authz::RequestMeta::default();
    core.revoke_client(&c.f.admin, "default", "desk", "test", None, &meta)
        .await
        .expect("revoke");
    core.restore_client(&c.f.admin, "default", "desk", "test", None, &meta)
        .await
        .expect("restore");
    let (status, json) = c.exchange(&id_token, FOR_TICKETS).await;
    expect(
        (status, json.clone()),
        "invalid_grant",
        "an ID token of a revoked sign-in",
    );
    assert!(
        json["error_description"]
            .as_str()
            .is_some_and(|d| d.contains("has ended")),
        "{json}"
    );
    let fresh = c.sign_in("desk", &c.desk).await;
    let id_token = fresh["id_token"].as_str().expect("ID token").to_owned();
    assert_eq!(c.exchange(&id_token, FOR_TICKETS).await.0, StatusCode::OK);
    // The ID token expires after fifteen minutes, and with it the exchange.
    c.f.clock.advance(authz::tokens::ID_TOKEN_TTL_SECS);
    expect(
        c.exchange(&id_token, FOR_TICKETS).await,
        "invalid_grant",
        "an expired ID token",
    );
    // Each refusal is audited with its reason.
    let denied =
        c.f.t
            .audit(authz::audit::AuditFilter {
                action: Some("token.exchange_denied".into()),
                ..Default::default()
            })
            .await;
    assert!(denied.len() >= 8, "{}", denied.len());
    assert!(
        denied
            .iter()
            .all(|e| e.details["reason"].as_str().is_some_and(|r| !r.is_empty()))
    );
}

#[tokio::test]
async fn discovery_lists_id_jag_as_an_identity_chaining_token_type() {
    let c = chain().await;
    let m: serde_json::Value = serde_json::from_str(
        &body(
            c.f.t
                .get(
                    "/.well-known/oauth-authorization-server/realms/default",
                    None,
                )
                .await,
        )
        .await,
    )
    .expect("json");
    assert_eq!(
        m["identity_chaining_requested_token_types_supported"],
        serde_json::json!([ID_JAG])
    );
}

#[tokio::test]
async fn a_client_deleted_and_created_again_under_the_same_id_is_not_listed_until_saved_again() {
    let mut c = chain().await;
    let core = &c.f.t.state.core;
    let meta = authz::RequestMeta::default();
    core.delete_client(&c.f.admin, "default", "desk", &meta)
        .await
        .expect("delete");
    let (_, secret) = register_client(core, &c.f.admin, "desk", confidential("Service desk"))
        .await
        .expect("again");
    c.desk = secret.expect("secret").expose().to_owned();
    let id_token = c.sign_in("desk", &c.desk).await["id_token"]
        .as_str()
        .expect("ID token")
        .to_owned();
    let (status, json) = c.exchange(&id_token, FOR_TICKETS).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        json["error"], "unauthorized_client",
        "another client now: {json}"
    );
    // An administrator saving the entry lists the client that has the id now.
    let server = core
        .list_trusting_servers(&c.f.admin, "default")
        .await
        .expect("list")
        .remove(0);
    core.update_trusting_server(
        &c.f.admin,
        "default",
        server.id.as_str(),
        &authz::chaining::TrustingServerInput {
            issuer: server.issuer.clone(),
            display_name: server.display_name.clone(),
            resources: server.resources.join(" "),
            scopes: server.scopes.to_string(),
            clients: authz::chaining::client_links_text(&server.clients),
        },
        &meta,
    )
    .await
    .expect("saved again");
    assert_eq!(c.exchange(&id_token, FOR_TICKETS).await.0, StatusCode::OK);
}
