//! Protocol endpoints, checked with an independent JOSE implementation (`jsonwebtoken` on
//! RustCrypto), never with the signer's own code.
use super::*;
use authz::clients::ClientForm;
use authz::resources::ResourceInput;
use base64::Engine as _;

const PAY: &str = "https://pay.example.com/mcp";
const MAIL: &str = "https://mail.example.com/mcp";
const ISSUER: &str = "http://127.0.0.1:3000/realms/default";

struct Fixture {
    t: TestServer,
    clock: authz::clock::FixedClock,
    /// client_secret_basic client `bot` with its secret.
    secret: String,
}

async fn fixture() -> Fixture {
    let clock = authz::clock::FixedClock::at(time::OffsetDateTime::now_utc().unix_timestamp());
    let t = TestServer::with(|_| {}, Arc::new(clock.clone())).await;
    t.user("ada@example.com", "admin").await;
    let admin = t.principal("ada@example.com").await;
    let core = &t.state.core;
    let meta = authz::RequestMeta::default();
    for (slug, uri, alg) in [
        ("payments-mcp", PAY, ""),
        ("email-mcp", MAIL, ""),
        ("rsa-mcp", "https://rsa.example.com/", "RS256"),
        ("ed-mcp", "https://ed.example.com/", "EdDSA"),
    ] {
        let input = ResourceInput {
            slug: slug.into(),
            display_name: slug.into(),
            uri: uri.into(),
            scopes: "tools:call tools:read".into(),
            signing_alg: alg.into(),
            enabled: true,
            ..Default::default()
        };
        core.create_resource(&admin, "default", &input, &meta)
            .await
            .expect("resource");
    }
    let (_, secret) = register_granted_client(
        core,
        &admin,
        "bot",
        ClientForm {
            name: "Bot".into(),
            auth_method: "client_secret_basic".into(),
            scope: "tools:call tools:read admin".into(),
            ..Default::default()
        },
    )
    .await
    .expect("client");
    register_granted_client(
        core,
        &admin,
        "poster",
        ClientForm {
            name: "Poster".into(),
            auth_method: "client_secret_post".into(),
            scope: "tools:read".into(),
            ..Default::default()
        },
    )
    .await
    .expect("client");
    Fixture {
        t,
        clock,
        secret: secret.expect("confidential").expose().to_owned(),
    }
}

fn basic(id: &str, secret: &str) -> String {
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", enc(id), enc(secret)))
    )
}

impl Fixture {
    async fn post(
        &self,
        path: &str,
        auth: Option<&str>,
        form: &str,
    ) -> (StatusCode, HeaderMapOwned, serde_json::Value) {
        let mut b =
            Request::post(path).header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some(a) = auth {
            b = b.header(header::AUTHORIZATION, a);
        }
        let res = self
            .t
            .send(b.body(Body::from(form.to_owned())).expect("request"))
            .await;
        let status = res.status();
        let headers = res.headers().clone();
        let text = body(res).await;
        (
            status,
            headers,
            serde_json::from_str(&text).unwrap_or(serde_json::Value::String(text)),
        )
    }

    async fn token(&self, form: &str) -> (StatusCode, HeaderMapOwned, serde_json::Value) {
        self.post(
            "/realms/default/token",
            Some(&basic("bot", &self.secret)),
            form,
        )
        .await
    }

    async fn access_token(&self, resource: &str) -> String {
        let (status, _, json) = self
            .token(&format!(
                "grant_type=client_credentials&resource={}",
                enc(resource)
            ))
            .await;
        assert_eq!(status, StatusCode::OK, "{json}");
        json["access_token"].as_str().expect("token").to_owned()
    }

    async fn jwks(&self) -> serde_json::Value {
        let res = self.t.get("/realms/default/jwks", None).await;
        serde_json::from_str(&body(res).await).expect("json")
    }

    async fn introspect(&self, token: &str) -> serde_json::Value {
        let (status, _, json) = self
            .post(
                "/realms/default/introspect",
                Some(&basic("bot", &self.secret)),
                &format!("token={}", enc(token)),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{json}");
        json
    }
}

type HeaderMapOwned = axum::http::HeaderMap;

/// Verifies like an MCP server configured for `audience` would, with an independent library.
fn verify_for(
    jwks: &serde_json::Value,
    token: &str,
    audience: &str,
) -> Result<serde_json::Value, String> {
    let header = jsonwebtoken::decode_header(token).map_err(|e| e.to_string())?;
    if header.typ.as_deref() != Some("at+jwt") {
        return Err("typ".into());
    }
    let set: jsonwebtoken::jwk::JwkSet =
        serde_json::from_value(jwks.clone()).map_err(|e| e.to_string())?;
    let kid = header.kid.ok_or("kid")?;
    let jwk = set.find(&kid).ok_or("unknown kid")?;
    let key = jsonwebtoken::DecodingKey::from_jwk(jwk).map_err(|e| e.to_string())?;
    let mut v = jsonwebtoken::Validation::new(header.alg);
    v.set_audience(&[audience]);
    v.set_issuer(&[ISSUER]);
    v.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    jsonwebtoken::decode::<serde_json::Value>(token, &key, &v)
        .map(|d| d.claims)
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn discovery_is_identical_at_every_path_and_lists_what_exists() {
    let f = fixture().await;
    let mut docs = Vec::new();
    for path in [
        "/.well-known/oauth-authorization-server/realms/default",
        "/.well-known/openid-configuration/realms/default",
        "/realms/default/.well-known/openid-configuration",
    ] {
        let res = f.t.get(path, None).await;
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(res.headers()[header::CACHE_CONTROL], "public, max-age=300");
        docs.push(body(res).await);
    }
    assert!(docs.windows(2).all(|w| w[0] == w[1]));
    let doc: serde_json::Value = serde_json::from_str(&docs[0]).expect("json");
    assert_eq!(doc["issuer"], ISSUER, "byte-identical issuer");
    assert_eq!(doc["token_endpoint"], format!("{ISSUER}/token"));
    assert_eq!(doc["jwks_uri"], format!("{ISSUER}/jwks"));
    assert_eq!(
        doc["grant_types_supported"],
        serde_json::json!([
            "authorization_code",
            "client_credentials",
            "refresh_token",
            "urn:ietf:params:oauth:grant-type:token-exchange",
            "urn:ietf:params:oauth:grant-type:device_code",
            "urn:ietf:params:oauth:grant-type:jwt-bearer"
        ])
    );
    assert_eq!(
        doc["scopes_supported"],
        serde_json::json!([
            "tools:call",
            "tools:read",
            "offline_access",
            "openid",
            "email",
            "profile"
        ]),
        "the resources' scopes, offline_access and OpenID Connect's"
    );
    assert_eq!(doc["authorization_endpoint"], format!("{ISSUER}/authorize"));
    assert_eq!(
        doc["registration_endpoint"],
        format!("{ISSUER}/connect/register"),
        "registration is open for review by default"
    );
    assert_eq!(doc["client_id_metadata_document_supported"], true);
    assert_eq!(
        f.t.get("/.well-known/oauth-authorization-server/realms/nope", None)
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn browser_clients_get_cors_on_metadata_jwks_and_token() {
    let f = fixture().await;
    let preflight = Request::builder()
        .method("OPTIONS")
        .uri("/realms/default/token")
        .header(header::ORIGIN, "https://app.example")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "mcp-protocol-version, authorization",
        )
        .body(Body::empty())
        .expect("request");
    let res = f.t.send(preflight).await;
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
    let allowed = res.headers()["access-control-allow-headers"]
        .to_str()
        .expect("ascii")
        .to_ascii_lowercase();
    assert!(allowed.contains("mcp-protocol-version"), "{allowed}");
    let res =
        f.t.send(
            Request::get("/realms/default/jwks")
                .header(header::ORIGIN, "https://app.example")
                .body(Body::empty())
                .expect("req"),
        )
        .await;
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
}

#[tokio::test]
async fn client_credentials_token_is_bound_to_one_audience() {
    let f = fixture().await;
    let (status, headers, json) = f
        .token(&format!(
            "grant_type=client_credentials&scope=tools%3Acall+admin&resource={}",
            enc("HTTPS://PAY.example.com/mcp/")
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(headers[header::CACHE_CONTROL], "no-store");
    assert_eq!(json["token_type"], "Bearer");
    assert_eq!(json["expires_in"], 300);
    assert_eq!(json["scope"], "tools:call", "requested ∩ client ∩ resource");
    let token = json["access_token"].as_str().expect("token");
    let jwks = f.jwks().await;
    let claims = verify_for(&jwks, token, PAY).expect("valid at payments-mcp");
    assert_eq!(claims["aud"], PAY, "canonical form");
    assert_eq!(claims["sub"], "bot");
    assert_eq!(claims["client_id"], "bot");
    assert!(claims["jti"].as_str().is_some_and(|j| !j.is_empty()));
    assert_eq!(
        claims["exp"].as_i64().expect("exp") - claims["iat"].as_i64().expect("iat"),
        300
    );
    let header = jsonwebtoken::decode_header(token).expect("header");
    assert_eq!(header.alg, jsonwebtoken::Algorithm::ES256);
    // The same token is useless at another MCP server.
    let err = verify_for(&jwks, token, MAIL).expect_err("wrong audience");
    assert!(err.contains("InvalidAudience"), "{err}");
}

#[tokio::test]
async fn token_lifetimes_follow_the_realm_default_unless_the_resource_sets_its_own() {
    let f = fixture().await;
    let core = &f.t.state.core;
    let admin = f.t.principal("ada@example.com").await;
    let meta = authz::RequestMeta::default();
    let lifetime = |json: &serde_json::Value| json["expires_in"].as_i64().expect("expires_in");
    let pay = format!("grant_type=client_credentials&resource={}", enc(PAY));
    let mail = format!("grant_type=client_credentials&resource={}", enc(MAIL));
    // email-mcp sets its own lifetime; payments-mcp follows the realm.
    let mut input = ResourceInput {
        display_name: "email-mcp".into(),
        uri: MAIL.into(),
        scopes: "tools:call tools:read".into(),
        token_ttl_secs: "120".into(),
        enabled: true,
        ..Default::default()
    };
    core.update_resource(&admin, "default", "email-mcp", &input, &meta)
        .await
        .expect("override");
    let realm = |ttl: &str| authz::realms::RealmInput {
        name: "default".into(),
        display_name: "Default".into(),
        token_ttl_secs: ttl.into(),
        ..Default::default()
    };
    core.update_realm(&admin, "default", &realm("900"), &meta)
        .await
        .expect("realm default");
    let (_, _, json) = f.token(&pay).await;
    assert_eq!(lifetime(&json), 900, "the realm's default: {json}");
    let claims = verify_for(
        &f.jwks().await,
        json["access_token"].as_str().expect("t"),
        PAY,
    )
    .expect("valid");
    assert_eq!(
        claims["exp"].as_i64().expect("exp") - claims["iat"].as_i64().expect("iat"),
        900
    );
    let (_, _, json) = f.token(&mail).await;
    assert_eq!(lifetime(&json), 120, "the resource's own: {json}");
    // Clearing the override makes the resource follow the realm again.
    input.token_ttl_secs = String::new();
    core.update_resource(&admin, "default", "email-mcp", &input, &meta)
        .await
        .expect("clear");
    let (_, _, json) = f.token(&mail).await;
    assert_eq!(lifetime(&json), 900, "{json}");
    // Out-of-range lifetimes are refused on the field and change nothing.
    for bad in ["29", "3601", "five", ""] {
        let err = core
            .update_realm(&admin, "default", &realm(bad), &meta)
            .await
            .expect_err(bad);
        assert!(
            matches!(
                err,
                authz::Error::InvalidField {
                    field: "token_ttl_secs",
                    ..
                }
            ),
            "{bad}: {err:?}"
        );
    }
    let (_, _, json) = f.token(&pay).await;
    assert_eq!(lifetime(&json), 900);
}

#[tokio::test]
async fn a_realm_default_resource_is_the_audience_when_resource_is_omitted() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let (core, meta) = (&f.t.state.core, authz::RequestMeta::default());
    let omitted = "grant_type=client_credentials&scope=tools%3Aread";
    let (status, _, json) = f.token(omitted).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(json["error"], "invalid_target", "required by default");

    let set = core
        .set_default_resource(&admin, "default", Some("email-mcp"), &meta)
        .await
        .expect("set default");
    assert_eq!(set.map(|r| r.slug), Some("email-mcp".to_owned()));
    let (status, _, json) = f.token(omitted).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let token = json["access_token"].as_str().expect("token");
    let claims = verify_for(&f.jwks().await, token, MAIL).expect("aud is the default");
    assert_eq!(claims["aud"], MAIL);
    // An explicit resource still wins.
    let explicit = f.access_token(PAY).await;
    verify_for(&f.jwks().await, &explicit, PAY).expect("explicit resource");

    // A disabled default gives no token, never one without an audience.
    core.set_resource_enabled(&admin, "default", "email-mcp", false, &meta)
        .await
        .expect("disable");
    let (status, _, json) = f.token(omitted).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );

    // Deleting the default resource makes `resource` required again.
    core.delete_resource(&admin, "default", "email-mcp", &meta)
        .await
        .expect("delete");
    assert!(
        core.default_resource(&admin, "default")
            .await
            .expect("read")
            .is_none()
    );
    let (status, _, json) = f.token(omitted).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );

    core.set_default_resource(&admin, "default", Some("payments-mcp"), &meta)
        .await
        .expect("set again");
    core.set_default_resource(&admin, "default", None, &meta)
        .await
        .expect("clear");
    let (status, _, json) = f.token(omitted).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );
    let missing = core
        .set_default_resource(&admin, "default", Some("nope"), &meta)
        .await
        .expect_err("unknown resource");
    assert!(
        matches!(missing, authz::Error::NotFound { .. }),
        "{missing:?}"
    );
}

#[tokio::test]
async fn rs256_and_eddsa_resources_get_tokens_an_independent_verifier_accepts() {
    let f = fixture().await;
    for (uri, alg) in [
        ("https://rsa.example.com/", jsonwebtoken::Algorithm::RS256),
        ("https://ed.example.com/", jsonwebtoken::Algorithm::EdDSA),
    ] {
        let token = f.access_token(uri).await;
        assert_eq!(
            jsonwebtoken::decode_header(&token).expect("header").alg,
            alg
        );
        verify_for(&f.jwks().await, &token, uri).expect("verifies");
    }
    let jwks = f.jwks().await;
    for key in jwks["keys"].as_array().expect("keys") {
        assert!(
            key.get("d").is_none() && key.get("p").is_none(),
            "no private members: {key}"
        );
        assert_eq!(key["use"], "sig");
        assert!(key["kid"].is_string() && key["alg"].is_string());
    }
    assert_eq!(
        jwks["keys"].as_array().map(Vec::len),
        Some(6),
        "active + next for three algorithms"
    );
}

#[tokio::test]
async fn client_secret_post_works_and_methods_are_not_interchangeable() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let poster =
        f.t.state
            .core
            .rotate_client_secret(&admin, "default", "poster", 0, &Default::default())
            .await
            .expect("secret");
    let form = format!(
        "grant_type=client_credentials&resource={}&client_id=poster&client_secret={}",
        enc(PAY),
        poster.expose()
    );
    let (status, _, json) = f.post("/realms/default/token", None, &form).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["scope"], "tools:read");
    // bot registered client_secret_basic: posting its secret in the body is refused.
    let form = format!(
        "grant_type=client_credentials&resource={}&client_id=bot&client_secret={}",
        enc(PAY),
        f.secret
    );
    let (status, headers, json) = f.post("/realms/default/token", None, &form).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(json["error"], "invalid_client");
    assert_eq!(headers[header::WWW_AUTHENTICATE], "Basic realm=\"default\"");
}

#[tokio::test]
async fn token_errors_follow_the_rfcs() {
    let f = fixture().await;
    let cases: Vec<(String, Option<String>, StatusCode, &str)> = vec![
        (
            "grant_type=client_credentials".to_owned(),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_target",
        ),
        (
            format!(
                "grant_type=client_credentials&resource={}&resource={}",
                enc(PAY),
                enc(MAIL)
            ),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_target",
        ),
        (
            format!(
                "grant_type=client_credentials&resource={}",
                enc("https://unknown.example.com/")
            ),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_target",
        ),
        (
            format!(
                "grant_type=client_credentials&resource={}",
                enc("http://pay.example.com/mcp")
            ),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_target",
        ),
        (
            format!(
                "grant_type=client_credentials&resource={}&scope=nope",
                enc(PAY)
            ),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_scope",
        ),
        (
            format!("grant_type=password&resource={}", enc(PAY)),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
        ),
        (
            format!("resource={}", enc(PAY)),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            format!(
                "grant_type=client_credentials&grant_type=client_credentials&resource={}",
                enc(PAY)
            ),
            Some(basic("bot", &f.secret)),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            format!("grant_type=client_credentials&resource={}", enc(PAY)),
            None,
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
        (
            format!("grant_type=client_credentials&resource={}", enc(PAY)),
            Some(basic("bot", "wrong")),
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
        (
            format!("grant_type=client_credentials&resource={}", enc(PAY)),
            Some(basic("ghost", &f.secret)),
            StatusCode::UNAUTHORIZED,
            "invalid_client",
        ),
    ];
    for (form, auth, status, code) in cases {
        let (got, headers, json) = f
            .post("/realms/default/token", auth.as_deref(), &form)
            .await;
        assert_eq!(
            (got, json["error"].as_str()),
            (status, Some(code)),
            "{form}: {json}"
        );
        assert!(json["error_description"].is_string(), "{json}");
        assert_eq!(headers[header::CACHE_CONTROL], "no-store");
    }
    let res =
        f.t.send(
            Request::post("/realms/default/token")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from("{}"))
                .expect("request"),
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    // A disabled resource and a disabled client get nothing.
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    core.set_resource_enabled(
        &admin,
        "default",
        "payments-mcp",
        false,
        &Default::default(),
    )
    .await
    .expect("disable");
    assert_eq!(
        f.token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await
        .2["error"],
        "invalid_target"
    );
    core.set_resource_enabled(&admin, "default", "payments-mcp", true, &Default::default())
        .await
        .expect("enable");
    core.set_client_enabled(&admin, "default", "bot", false, &Default::default())
        .await
        .expect("disable");
    assert_eq!(
        f.token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await
        .0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn failed_client_authentication_is_throttled_but_never_a_correct_one() {
    let f = fixture().await;
    let form = format!("grant_type=client_credentials&resource={}", enc(PAY));
    for _ in 0..10 {
        assert_eq!(
            f.post("/realms/default/token", Some(&basic("bot", "wrong")), &form)
                .await
                .0,
            StatusCode::UNAUTHORIZED
        );
    }
    // Failures beyond the limit are told to wait, never told `invalid_client` (MCP clients
    // delete their registration on that)...
    let (status, headers, json) = f
        .post("/realms/default/token", Some(&basic("bot", "wrong")), &form)
        .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{json}");
    assert_eq!(json["error"], "temporarily_unavailable");
    assert!(headers.contains_key(header::RETRY_AFTER));
    assert!(headers.get(header::WWW_AUTHENTICATE).is_none());
    // ...while the client with its correct secret keeps getting tokens.
    assert_eq!(f.token(&form).await.0, StatusCode::OK);
    f.clock.advance(15 * 60);
    assert_eq!(
        f.post("/realms/default/token", Some(&basic("bot", "wrong")), &form)
            .await
            .0,
        StatusCode::UNAUTHORIZED,
        "a new window"
    );
}

#[tokio::test]
async fn introspection_and_revocation() {
    let f = fixture().await;
    let token = f.access_token(PAY).await;
    let active = f.introspect(&token).await;
    assert_eq!(active["active"], true, "{active}");
    assert_eq!(active["aud"], PAY);
    assert_eq!(active["client_id"], "bot");
    assert_eq!(active["scope"], "tools:call tools:read");

    // Forged and malformed tokens are simply inactive.
    let (h, p, _) = {
        let mut it = token.split('.');
        (
            it.next().expect("h"),
            it.next().expect("p"),
            it.next().expect("s"),
        )
    };
    let none_header =
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"at+jwt"}"#);
    let wrong_typ = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(r#"{"alg":"ES256","typ":"JWT","kid":"x"}"#);
    // Algorithm confusion: an HS256 MAC keyed with the published public key, naming its kid.
    let kid = jsonwebtoken::decode_header(&token)
        .expect("header")
        .kid
        .expect("kid");
    let jwks = f.jwks().await;
    let public = jwks["keys"]
        .as_array()
        .and_then(|keys| keys.iter().find(|k| k["kid"] == kid.as_str()))
        .expect("published key")
        .to_string();
    let hs_header = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(format!(r#"{{"alg":"HS256","typ":"at+jwt","kid":"{kid}"}}"#));
    let mac = aws_lc_rs::hmac::sign(
        &aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, public.as_bytes()),
        format!("{hs_header}.{p}").as_bytes(),
    );
    let hmac_token = format!(
        "{hs_header}.{p}.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(mac.as_ref())
    );
    for forged in [
        hmac_token,
        format!("{none_header}.{p}."),
        format!("{wrong_typ}.{p}.AAAA"),
        format!("{h}.{p}.AAAA"),
        "garbage".into(),
    ] {
        assert_eq!(
            f.introspect(&forged).await,
            serde_json::json!({"active": false}),
            "{forged}"
        );
    }

    // Revocation by another client is refused; by the owner it sticks.
    let (status, _, json) = f
        .post(
            "/realms/default/revoke",
            Some(&basic("bot", &f.secret)),
            &format!("token={token}&token_type_hint=access_token"),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(f.introspect(&token).await["active"], false);
    let (status, _, _) = f
        .post(
            "/realms/default/revoke",
            Some(&basic("bot", &f.secret)),
            "token=garbage",
        )
        .await;
    assert_eq!(status, StatusCode::OK, "unknown tokens are not an error");

    // Disabling the client deactivates its tokens; expiry too.
    let other = f.access_token(PAY).await;
    f.clock.advance(301);
    assert_eq!(f.introspect(&other).await["active"], false, "expired");
    let fresh = f.access_token(PAY).await;
    let admin = f.t.principal("ada@example.com").await;
    f.t.state
        .core
        .set_client_enabled(&admin, "default", "poster", false, &Default::default())
        .await
        .expect("disable");
    assert_eq!(
        f.introspect(&fresh).await["active"],
        true,
        "another client's change does not matter"
    );
    f.t.state
        .core
        .delete_resource(&admin, "default", "payments-mcp", &Default::default())
        .await
        .expect("delete");
    assert_eq!(
        f.introspect(&fresh).await["active"],
        false,
        "resource deleted"
    );
}

#[tokio::test]
async fn rotation_never_breaks_verification() {
    let f = fixture().await;
    let before = f.access_token(PAY).await;
    let jwks_before = f.jwks().await;
    let kid_before = jsonwebtoken::decode_header(&before)
        .expect("header")
        .kid
        .expect("kid");
    let admin = f.t.principal("ada@example.com").await;
    f.t.state
        .core
        .rotate_signing_keys(&admin, "default", &Default::default())
        .await
        .expect("rotate");
    let after = f.access_token(PAY).await;
    let kid_after = jsonwebtoken::decode_header(&after)
        .expect("header")
        .kid
        .expect("kid");
    assert_ne!(kid_before, kid_after);
    // A verifier that cached the JWKS before the rotation already knows the new key (it was
    // published as `next`), and the fresh JWKS still holds the retired one.
    verify_for(&jwks_before, &after, PAY).expect("new token, old cached JWKS");
    let jwks_after = f.jwks().await;
    verify_for(&jwks_after, &before, PAY).expect("old token, new JWKS");
    verify_for(&jwks_after, &after, PAY).expect("new token, new JWKS");
    assert_eq!(f.introspect(&before).await["active"], true);
    // Once its last token has expired, the retired key leaves the JWKS.
    f.clock
        .advance(authz::tokens::MAX_TOKEN_TTL_SECS + authz::keys::LEEWAY_SECS + 31);
    let late = f.jwks().await;
    assert!(
        late["keys"]
            .as_array()
            .expect("keys")
            .iter()
            .all(|k| k["kid"] != kid_before.as_str()),
        "{late}"
    );
}

#[tokio::test]
async fn rotated_secrets_overlap_then_expire() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let new =
        f.t.state
            .core
            .rotate_client_secret(&admin, "default", "bot", 600, &Default::default())
            .await
            .expect("rotate");
    let form = format!("grant_type=client_credentials&resource={}", enc(PAY));
    assert_eq!(
        f.post(
            "/realms/default/token",
            Some(&basic("bot", &f.secret)),
            &form
        )
        .await
        .0,
        StatusCode::OK,
        "old secret in overlap"
    );
    assert_eq!(
        f.post(
            "/realms/default/token",
            Some(&basic("bot", new.expose())),
            &form
        )
        .await
        .0,
        StatusCode::OK
    );
    f.clock.advance(600);
    assert_eq!(
        f.post(
            "/realms/default/token",
            Some(&basic("bot", &f.secret)),
            &form
        )
        .await
        .0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        f.post(
            "/realms/default/token",
            Some(&basic("bot", new.expose())),
            &form
        )
        .await
        .0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn agent_identity_is_carried_in_tokens_and_enforced() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let now = authz::clock::Clock::now(&f.clock);
    let input = authz::agents::AgentInput {
        name: "reports-bot".into(),
        owner: "owner@example.com".into(),
        description: "Nightly reports".into(),
        roles: "tools:call mcp:tools".into(),
        expires_at: authz::clock::rfc3339(now + 3600),
    };
    let agent = core
        .create_agent(&admin, "default", &input, &meta)
        .await
        .expect("agent");
    core.bind_client_to_agent(&admin, "default", "bot", Some("reports-bot"), &meta)
        .await
        .expect("bind");

    let (status, _, json) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["scope"], "tools:call", "limited by the agent's roles");
    let claims = verify_for(
        &f.jwks().await,
        json["access_token"].as_str().expect("token"),
        PAY,
    )
    .expect("valid");
    assert_eq!(claims["nhi"], true);
    assert_eq!(claims["agent_id"], agent.id.as_str());
    assert_eq!(claims["agent_name"], "reports-bot");
    assert_eq!(claims["agent_owner"], "owner@example.com");
    assert_eq!(
        claims["roles"],
        serde_json::json!(["mcp:tools", "tools:call"])
    );
    let token = json["access_token"].as_str().expect("token").to_owned();
    assert_eq!(f.introspect(&token).await["active"], true);

    // A disabled agent: no new tokens, existing ones inactive.
    core.set_agent_disabled(&admin, "default", "reports-bot", true, &meta)
        .await
        .expect("disable");
    let (status, _, json) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("unauthorized_client"))
    );
    assert_eq!(f.introspect(&token).await["active"], false);

    // An expired agent: the same.
    core.set_agent_disabled(&admin, "default", "reports-bot", false, &meta)
        .await
        .expect("enable");
    assert_eq!(f.introspect(&token).await["active"], true);
    f.clock.advance(3600);
    let (status, _, _) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Unbound, the client is a plain client again.
    core.bind_client_to_agent(&admin, "default", "bot", None, &meta)
        .await
        .expect("unbind");
    let (status, _, json) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    let claims = verify_for(
        &f.jwks().await,
        json["access_token"].as_str().expect("token"),
        PAY,
    )
    .expect("valid");
    assert!(claims.get("nhi").is_none());
    let mcp = authz::agents::AgentFilter {
        mcp_only: true,
        ..Default::default()
    };
    let listed = core
        .list_agents(&admin, "default", mcp, authz::paging::Page::first(10))
        .await
        .expect("list");
    assert_eq!(listed.items.len(), 1, "MCP-capable filter keeps it");
    assert_eq!(listed.items[0].status, authz::agents::AgentStatus::Expired);
}

#[tokio::test]
async fn snapshots_of_metadata_jwks_and_error_bodies() {
    let f = fixture().await;
    let res =
        f.t.get(
            "/.well-known/oauth-authorization-server/realms/default",
            None,
        )
        .await;
    let metadata: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    insta::assert_json_snapshot!("authorization_server_metadata", metadata);

    // Every key is redacted but its shape is asserted as it is redacted.
    let jwks = f.jwks().await;
    insta::assert_json_snapshot!("jwks_es256_shape", jwks, {
        ".keys[].kid" => insta::dynamic_redaction(|v, _| {
            assert_eq!(v.as_str().map(str::len), Some(16), "kid is 12 random bytes, base64url");
            "[kid]"
        }),
        ".keys[].x" => insta::dynamic_redaction(|v, _| {
            assert_eq!(v.as_str().map(str::len), Some(43), "P-256 x coordinate");
            "[x]"
        }),
        ".keys[].y" => insta::dynamic_redaction(|v, _| {
            assert_eq!(v.as_str().map(str::len), Some(43), "P-256 y coordinate");
            "[y]"
        }),
    });

    let mut errors = Vec::new();
    for (name, form, auth) in [
        (
            "missing resource",
            "grant_type=client_credentials".to_owned(),
            Some(basic("bot", &f.secret)),
        ),
        (
            "two resources",
            format!(
                "grant_type=client_credentials&resource={}&resource={}",
                enc(PAY),
                enc(MAIL)
            ),
            Some(basic("bot", &f.secret)),
        ),
        (
            "unknown resource",
            format!(
                "grant_type=client_credentials&resource={}",
                enc("https://x.example.com/")
            ),
            Some(basic("bot", &f.secret)),
        ),
        (
            "bad scope",
            format!(
                "grant_type=client_credentials&resource={}&scope=nope",
                enc(PAY)
            ),
            Some(basic("bot", &f.secret)),
        ),
        (
            "unsupported grant",
            "grant_type=password".to_owned(),
            Some(basic("bot", &f.secret)),
        ),
        (
            "missing grant",
            String::new(),
            Some(basic("bot", &f.secret)),
        ),
        (
            "repeated parameter",
            "grant_type=a&grant_type=b".to_owned(),
            Some(basic("bot", &f.secret)),
        ),
        (
            "no client authentication",
            format!("grant_type=client_credentials&resource={}", enc(PAY)),
            None,
        ),
        (
            "wrong secret",
            format!("grant_type=client_credentials&resource={}", enc(PAY)),
            Some(basic("bot", "wrong")),
        ),
    ] {
        let (status, headers, json) = f
            .post("/realms/default/token", auth.as_deref(), &form)
            .await;
        errors.push(serde_json::json!({
            "case": name,
            "status": status.as_u16(),
            "www_authenticate": headers.get(header::WWW_AUTHENTICATE).and_then(|v| v.to_str().ok()),
            "cache_control": headers.get(header::CACHE_CONTROL).and_then(|v| v.to_str().ok()),
            "body": json,
        }));
    }
    insta::assert_json_snapshot!("token_error_bodies", errors);
}

#[tokio::test]
async fn private_key_jwt_clients_authenticate_with_single_use_assertions() {
    use authz::keys::{Signer, SigningAlg, generate};
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let key = generate(SigningAlg::ES256).expect("key");
    let mut jwk = key.public_jwk.clone();
    jwk.insert("kid".into(), "client-key-1".into());
    let input = |jwks: String| ClientForm {
        name: "Signer".into(),
        auth_method: "private_key_jwt".into(),
        scope: "tools:call".into(),
        jwks,
        ..Default::default()
    };
    // Private keys and missing keys are refused at registration; nothing is written.
    let mut private = key.public_jwk.clone();
    private.insert("d".into(), "AAAA".into());
    for bad in [
        String::new(),
        serde_json::json!({"keys": [private]}).to_string(),
        "{}".into(),
    ] {
        assert!(matches!(
            register_granted_client(core, &admin, "signer", input(bad)).await,
            Err(authz::Error::InvalidField { field: "jwks", .. })
        ));
    }
    let (_, secret) = register_granted_client(
        core,
        &admin,
        "signer",
        input(serde_json::json!({"keys": [jwk]}).to_string()),
    )
    .await
    .expect("client");
    assert!(secret.is_none(), "no secret for a key-authenticated client");

    let signer = Signer::from_pkcs8("client-key-1", SigningAlg::ES256, &key.pkcs8).expect("signer");
    let other_key = generate(SigningAlg::ES256).expect("key");
    let impostor =
        Signer::from_pkcs8("client-key-1", SigningAlg::ES256, &other_key.pkcs8).expect("signer");
    let now = authz::clock::Clock::now(&f.clock);
    let claims = |jti: &str, iss: &str, aud: &str, exp: i64| serde_json::json!({"iss": iss, "sub": iss, "aud": aud, "exp": exp, "iat": now, "jti": jti});
    let request = |assertion: &str, extra: &str| {
        format!(
            "grant_type=client_credentials&resource={}&client_assertion_type={}&client_assertion={assertion}{extra}",
            enc(PAY),
            enc(authz::tokens::JWT_BEARER_ASSERTION)
        )
    };
    let token_endpoint = format!("{ISSUER}/token");

    let good = signer
        .sign("JWT", &claims("j1", "signer", ISSUER, now + 120))
        .expect("sign");
    let (status, _, json) = f
        .post("/realms/default/token", None, &request(&good, ""))
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    verify_for(
        &f.jwks().await,
        json["access_token"].as_str().expect("token"),
        PAY,
    )
    .expect("valid token");
    let (status, _, json) = f
        .post("/realms/default/token", None, &request(&good, ""))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("invalid_client")),
        "replayed jti"
    );

    let to_endpoint = signer
        .sign("JWT", &claims("j2", "signer", &token_endpoint, now + 120))
        .expect("sign");
    assert_eq!(
        f.post(
            "/realms/default/token",
            None,
            &request(&to_endpoint, "&client_id=signer")
        )
        .await
        .0,
        StatusCode::OK
    );

    let none_header = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(r#"{"alg":"none"}"#);
    let none_payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(claims("j9", "signer", ISSUER, now + 60).to_string());
    let refused = [
        (
            "wrong audience",
            signer
                .sign(
                    "JWT",
                    &claims("j3", "signer", "https://elsewhere.example", now + 60),
                )
                .expect("sign"),
        ),
        (
            "exp too far ahead",
            signer
                .sign("JWT", &claims("j4", "signer", ISSUER, now + 361))
                .expect("sign"),
        ),
        (
            "expired",
            signer
                .sign("JWT", &claims("j5", "signer", ISSUER, now - 60))
                .expect("sign"),
        ),
        (
            "other issuer",
            signer
                .sign("JWT", &claims("j6", "bot", ISSUER, now + 60))
                .expect("sign"),
        ),
        (
            "other key",
            impostor
                .sign("JWT", &claims("j7", "signer", ISSUER, now + 60))
                .expect("sign"),
        ),
        ("alg none", format!("{none_header}.{none_payload}.")),
    ];
    for (case, assertion) in refused {
        let (status, _, json) = f
            .post(
                "/realms/default/token",
                None,
                &request(&assertion, "&client_id=signer"),
            )
            .await;
        assert_eq!(
            (status, json["error"].as_str()),
            (StatusCode::UNAUTHORIZED, Some("invalid_client")),
            "{case}"
        );
    }
    let fresh = signer
        .sign("JWT", &claims("j8", "signer", ISSUER, now + 60))
        .expect("sign");
    let (status, _, json) = f
        .post(
            "/realms/default/token",
            None,
            &request(&fresh, "&client_secret=x&client_id=signer"),
        )
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_request")),
        "two methods"
    );
    let form = format!(
        "grant_type=client_credentials&resource={}&client_assertion_type=urn%3Ax&client_assertion={fresh}",
        enc(PAY)
    );
    assert_eq!(
        f.post("/realms/default/token", None, &form).await.0,
        StatusCode::BAD_REQUEST
    );
}

impl Fixture {
    /// Introspects `token` with Basic credentials of `client`.
    async fn introspect_as(&self, client: &str, secret: &str, token: &str) -> serde_json::Value {
        let (status, _, json) = self
            .post(
                "/realms/default/introspect",
                Some(&basic(client, secret)),
                &format!("token={}", enc(token)),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{json}");
        json
    }

    /// Introspection credentials for a resource: (client_id, secret).
    async fn resource_server(&self, slug: &str) -> (String, String) {
        let admin = self.t.principal("ada@example.com").await;
        let (client, secret) = self
            .t
            .state
            .core
            .create_resource_server_credentials(&admin, "default", slug, &Default::default())
            .await
            .expect("credentials");
        (client.client_id.to_string(), secret.expose().to_owned())
    }
}

#[tokio::test]
async fn introspection_is_for_the_token_owner_and_its_resource_server_only() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let pay_token = f.access_token(PAY).await;
    let mail_token = f.access_token(MAIL).await;
    // Another confidential client learns nothing about bot's tokens.
    let poster =
        f.t.state
            .core
            .rotate_client_secret(&admin, "default", "poster", 0, &Default::default())
            .await
            .expect("secret");
    let (status, _, json) = f
        .post(
            "/realms/default/introspect",
            None,
            &format!(
                "client_id=poster&client_secret={}&token={}",
                poster.expose(),
                enc(&pay_token)
            ),
        )
        .await;
    assert_eq!(
        (status, json),
        (StatusCode::OK, serde_json::json!({"active": false}))
    );
    // A public client may not introspect at all.
    register_granted_client(
        &f.t.state.core,
        &admin,
        "app",
        ClientForm {
            name: "App".into(),
            auth_method: "none".into(),
            ..Default::default()
        },
    )
    .await
    .expect("public client");
    let (status, _, json) = f
        .post(
            "/realms/default/introspect",
            None,
            &format!("client_id=app&token={}", enc(&pay_token)),
        )
        .await;
    assert_eq!(
        (status, json),
        (StatusCode::OK, serde_json::json!({"active": false}))
    );
    // The MCP server of payments-mcp introspects tokens minted for it, and only those.
    let (rs, rs_secret) = f.resource_server("payments-mcp").await;
    assert_eq!(rs, "payments-mcp-introspect");
    let seen = f.introspect_as(&rs, &rs_secret, &pay_token).await;
    assert_eq!(
        (seen["active"].clone(), seen["aud"].clone()),
        (true.into(), PAY.into())
    );
    assert!(
        seen.get("portcullis").is_none(),
        "private claims stay private"
    );
    assert_eq!(
        f.introspect_as(&rs, &rs_secret, &mail_token).await,
        serde_json::json!({"active": false})
    );
    // Its credentials get no tokens, and a second set is refused.
    let (status, _, json) = f
        .post(
            "/realms/default/token",
            Some(&basic(&rs, &rs_secret)),
            &format!("grant_type=client_credentials&resource={}", enc(PAY)),
        )
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("unauthorized_client"))
    );
    let again = f
        .t
        .state
        .core
        .create_resource_server_credentials(&admin, "default", "payments-mcp", &Default::default())
        .await;
    assert!(matches!(again, Err(authz::Error::Conflict(_))), "{again:?}");
}

#[tokio::test]
async fn a_resource_shows_its_introspection_credentials_and_their_history() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::audit::RequestMeta::default();
    let shown = core
        .resource_server_credentials(&admin, "default", "payments-mcp")
        .await
        .expect("none yet");
    assert_eq!(shown.client, None);
    assert!(
        shown
            .introspection_endpoint
            .ends_with("/realms/default/introspect"),
        "{}",
        shown.introspection_endpoint
    );
    let (rs, _) = f.resource_server("payments-mcp").await;
    core.rotate_client_secret(&admin, "default", &rs, 0, &meta)
        .await
        .expect("rotate");
    let shown = core
        .resource_server_credentials(&admin, "default", "payments-mcp")
        .await
        .expect("shown")
        .client
        .expect("credentials");
    assert_eq!(
        (shown.client.client_id.as_str(), shown.secrets.len()),
        (rs.as_str(), 2),
        "the client and both secrets (the first one expired by the rotation)"
    );
    assert_eq!(
        core.resource_server_credentials(&admin, "default", "email-mcp")
            .await
            .expect("other")
            .client,
        None,
        "another resource's credentials are not this one's"
    );
    // The resource's history shows what happened to its credentials.
    core.delete_client(&admin, "default", &rs, &meta)
        .await
        .expect("delete");
    let history = core
        .audit_of(
            &admin,
            "default",
            &authz::audit::AuditSubject::Resource("payments-mcp".into()),
            authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 10),
        )
        .await
        .expect("history");
    let about_credentials: Vec<_> = history
        .items
        .iter()
        .filter(|e| e.target == authz::audit::AuditSubject::Client(rs.to_string()).target())
        .map(|e| e.action.as_str())
        .collect();
    assert_eq!(
        about_credentials,
        ["client.delete", "client.secret_rotate", "client.create"]
    );
    // A developer (who may read resources, not clients) does not see them.
    f.t.user("dev@example.com", "developer").await;
    let developer = f.t.principal("dev@example.com").await;
    let refused = core
        .resource_server_credentials(&developer, "default", "payments-mcp")
        .await;
    assert!(
        matches!(refused, Err(authz::Error::Forbidden)),
        "{refused:?}"
    );
}

#[tokio::test]
async fn deleted_and_recreated_clients_and_resources_do_not_revive_tokens() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let (rs, rs_secret) = f.resource_server("payments-mcp").await;
    let token = f.access_token(PAY).await;
    assert_eq!(
        f.introspect_as(&rs, &rs_secret, &token).await["active"],
        true
    );
    // The client goes, and a client with the same client_id comes.
    core.delete_client(&admin, "default", "bot", &Default::default())
        .await
        .expect("delete");
    let (_, secret) = register_granted_client(
        core,
        &admin,
        "bot",
        ClientForm {
            name: "Bot again".into(),
            auth_method: "client_secret_basic".into(),
            scope: "tools:call tools:read".into(),
            ..Default::default()
        },
    )
    .await
    .expect("same client_id again");
    let secret = secret.expect("secret").expose().to_owned();
    assert_eq!(
        f.introspect_as(&rs, &rs_secret, &token).await["active"],
        false
    );
    assert_eq!(
        f.introspect_as("bot", &secret, &token).await["active"],
        false,
        "nor does the new client own it"
    );
    // The resource goes, and one with the same URI comes.
    let fresh = {
        let (status, _, json) = f
            .post(
                "/realms/default/token",
                Some(&basic("bot", &secret)),
                &format!("grant_type=client_credentials&resource={}", enc(PAY)),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{json}");
        json["access_token"].as_str().expect("token").to_owned()
    };
    assert_eq!(
        f.introspect_as("bot", &secret, &fresh).await["active"],
        true
    );
    core.delete_resource(&admin, "default", "payments-mcp", &Default::default())
        .await
        .expect("delete");
    let input = ResourceInput {
        slug: "payments-mcp".into(),
        display_name: "Payments again".into(),
        uri: PAY.into(),
        scopes: "tools:call tools:read".into(),
        enabled: true,
        ..Default::default()
    };
    core.create_resource(&admin, "default", &input, &Default::default())
        .await
        .expect("same URI again");
    assert_eq!(
        f.introspect_as("bot", &secret, &fresh).await["active"],
        false
    );
}

#[tokio::test]
async fn an_agent_page_shows_its_clients_and_past_expiries_are_refused() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let now = authz::clock::Clock::now(&f.clock);
    let input = |expires: i64| authz::agents::AgentInput {
        name: "reports".into(),
        owner: "owner@example.com".into(),
        roles: "tools:call".into(),
        expires_at: authz::clock::rfc3339(expires),
        ..Default::default()
    };
    for at in [now - 60, now] {
        let err = core
            .create_agent(&admin, "default", &input(at), &meta)
            .await
            .expect_err("past expiry");
        assert!(
            matches!(&err, authz::Error::InvalidField { field, message } if *field == "expires_at" && message.contains("in the past")),
            "{err:?}"
        );
    }
    core.create_agent(&admin, "default", &input(now + 3600), &meta)
        .await
        .expect("agent");
    let err = core
        .update_agent(&admin, "default", "reports", &input(now - 1), &meta)
        .await
        .expect_err("past expiry on update");
    assert!(matches!(err, authz::Error::InvalidField { .. }), "{err:?}");

    // The picker shows which agent a client acts for, so a move can be confirmed.
    let choices = core
        .client_choices(&admin, "default", "bot", 10)
        .await
        .expect("choices");
    assert_eq!(choices.len(), 1);
    assert_eq!(choices[0].agent, None);
    core.bind_client_to_agent(&admin, "default", "bot", Some("reports"), &meta)
        .await
        .expect("bind");
    let choices = core
        .client_choices(&admin, "default", "bot", 10)
        .await
        .expect("choices");
    assert_eq!(choices[0].agent.as_deref(), Some("reports"));
    let agent = core
        .agent(&admin, "default", "reports")
        .await
        .expect("agent");
    assert_eq!(agent.clients, vec!["bot".to_owned()]);
    assert_eq!(agent.status, authz::agents::AgentStatus::Active);

    // A token names the agent's owner and roles: changing either ends it at introspection.
    let change = |owner: &str, roles: &str| authz::agents::AgentInput {
        name: "reports".into(),
        owner: owner.into(),
        roles: roles.into(),
        expires_at: authz::clock::rfc3339(now + 3600),
        ..Default::default()
    };
    let token = f.access_token(PAY).await;
    assert_eq!(f.introspect(&token).await["active"], true);
    core.update_agent(
        &admin,
        "default",
        "reports",
        &change("owner@example.com", "tools:call"),
        &meta,
    )
    .await
    .expect("unchanged identity");
    assert_eq!(
        f.introspect(&token).await["active"],
        true,
        "same owner and roles"
    );
    core.update_agent(
        &admin,
        "default",
        "reports",
        &change("new@example.com", "tools:call"),
        &meta,
    )
    .await
    .expect("new owner");
    assert_eq!(f.introspect(&token).await["active"], false, "owner changed");
    let token = f.access_token(PAY).await;
    assert_eq!(f.introspect(&token).await["active"], true);
    core.update_agent(
        &admin,
        "default",
        "reports",
        &change("new@example.com", "other"),
        &meta,
    )
    .await
    .expect("roles narrowed");
    assert_eq!(
        f.introspect(&token).await["active"],
        false,
        "a role it carries is gone"
    );
    assert!(matches!(
        core.agent(&admin, "default", "nobody").await,
        Err(authz::Error::NotFound { .. })
    ));
}

#[tokio::test]
async fn agent_tokens_die_with_their_binding_and_never_outlive_the_agent() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let now = authz::clock::Clock::now(&f.clock);
    let agent = |name: &str, expires: i64| authz::agents::AgentInput {
        name: name.into(),
        owner: "owner@example.com".into(),
        roles: "tools:call tools:read".into(),
        expires_at: authz::clock::rfc3339(expires),
        ..Default::default()
    };
    core.create_agent(&admin, "default", &agent("reports", now + 100), &meta)
        .await
        .expect("agent");
    let bind =
        |a: Option<&'static str>| core.bind_client_to_agent(&admin, "default", "bot", a, &meta);
    bind(Some("reports")).await.expect("bind");
    // The agent expires in 100 s, before the resource's 300 s lifetime.
    let (status, _, json) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(
        json["expires_in"], 100,
        "never later than the agent's expiry"
    );
    let first = json["access_token"].as_str().expect("token").to_owned();
    let claims = verify_for(&f.jwks().await, &first, PAY).expect("valid");
    assert_eq!(claims["exp"].as_i64(), Some(now + 100));
    assert_eq!(f.introspect(&first).await["active"], true);
    // Unbinding ends it; binding the same agent again does not bring it back.
    bind(None).await.expect("unbind");
    assert_eq!(f.introspect(&first).await["active"], false, "unbound");
    bind(Some("reports")).await.expect("rebind");
    assert_eq!(
        f.introspect(&first).await["active"],
        false,
        "rebound: a new binding"
    );
    let second = f.access_token(PAY).await;
    assert_eq!(f.introspect(&second).await["active"], true);
    // Deleting the agent ends its tokens, and an agent created again under the same name and
    // bound again does not revive them.
    core.delete_agent(&admin, "default", "reports", &meta)
        .await
        .expect("delete");
    assert_eq!(f.introspect(&second).await["active"], false);
    core.create_agent(&admin, "default", &agent("reports", now + 3600), &meta)
        .await
        .expect("same name again");
    bind(Some("reports")).await.expect("bind the new agent");
    assert_eq!(f.introspect(&second).await["active"], false);
    // Moving the client to another agent ends the old agent's tokens too.
    let third = f.access_token(PAY).await;
    core.create_agent(&admin, "default", &agent("other", now + 3600), &meta)
        .await
        .expect("agent");
    bind(Some("other")).await.expect("move");
    assert_eq!(f.introspect(&third).await["active"], false);
    // A client that was plain when its token was minted and is bound later: the token does
    // not pick up an identity it was not issued with.
    bind(None).await.expect("unbind");
    let plain = f.access_token(PAY).await;
    bind(Some("other")).await.expect("bind");
    assert_eq!(f.introspect(&plain).await["active"], false);
}

#[tokio::test]
async fn client_assertions_allow_skew_fractional_dates_and_refuse_critical_headers() {
    use authz::keys::{Signer, SigningAlg, generate};
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let key = generate(SigningAlg::ES256).expect("key");
    let mut jwk = key.public_jwk.clone();
    jwk.insert("kid".into(), "k".into());
    register_granted_client(
        &f.t.state.core,
        &admin,
        "signer",
        ClientForm {
            name: "Signer".into(),
            auth_method: "private_key_jwt".into(),
            scope: "tools:call".into(),
            jwks: serde_json::json!({"keys": [jwk]}).to_string(),
            ..Default::default()
        },
    )
    .await
    .expect("client");
    let signer = Signer::from_pkcs8("k", SigningAlg::ES256, &key.pkcs8).expect("signer");
    let now = authz::clock::Clock::now(&f.clock);
    let f = &f;
    let send = move |assertion: String| {
        let form = format!(
            "grant_type=client_credentials&resource={}&client_id=signer&client_assertion_type={}&client_assertion={assertion}",
            enc(PAY),
            enc(authz::tokens::JWT_BEARER_ASSERTION)
        );
        async move { f.post("/realms/default/token", None, &form).await }
    };
    let base = |jti: &str| serde_json::json!({"iss": "signer", "sub": "signer", "aud": ISSUER, "jti": jti, "exp": now + 60});
    let with = |jti: &str, extra: serde_json::Value| {
        let mut c = base(jti);
        c.as_object_mut()
            .expect("object")
            .extend(extra.as_object().expect("object").clone());
        signer.sign("JWT", &c).expect("sign")
    };
    let ok = [
        (
            "fractional dates",
            with(
                "a1",
                serde_json::json!({"exp": now as f64 + 60.5, "iat": now as f64 - 0.25}),
            ),
        ),
        (
            "exp 30 s past (skew)",
            with("a2", serde_json::json!({"exp": now - 30})),
        ),
        (
            "nbf within the skew",
            with("a3", serde_json::json!({"nbf": now + 30})),
        ),
    ];
    for (case, assertion) in ok {
        let (status, _, json) = send(assertion).await;
        assert_eq!(status, StatusCode::OK, "{case}: {json}");
    }
    let refused = [
        (
            "not valid before a minute from now",
            with("r1", serde_json::json!({"nbf": now + 120})),
        ),
        (
            "issued in the future",
            with(
                "r2",
                serde_json::json!({"iat": now + 120, "exp": now + 200}),
            ),
        ),
        (
            "a date as a string",
            with("r3", serde_json::json!({"exp": (now + 60).to_string()})),
        ),
    ];
    for (case, assertion) in refused {
        let (status, _, json) = send(assertion).await;
        assert_eq!(
            (status, json["error"].as_str()),
            (StatusCode::UNAUTHORIZED, Some("invalid_client")),
            "{case}"
        );
    }
    // A `crit` header names an extension this server does not implement: refused, however
    // well signed.
    let header = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(r#"{"alg":"ES256","kid":"k","crit":["exp"],"exp":1}"#);
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(base("c1").to_string());
    let signing_input = format!("{header}.{payload}");
    let pair = aws_lc_rs::signature::EcdsaKeyPair::from_pkcs8(
        &aws_lc_rs::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        &key.pkcs8,
    )
    .expect("key");
    let sig = pair
        .sign(
            &aws_lc_rs::rand::SystemRandom::new(),
            signing_input.as_bytes(),
        )
        .expect("sign");
    let critical = format!(
        "{signing_input}.{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sig.as_ref())
    );
    let (status, _, json) = send(critical).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("invalid_client"))
    );
}

/// Access grants: a client gets tokens only for the resources it is granted, with at most the
/// grant's scopes; narrowing or revoking a grant stops new tokens and kills live ones at once.
#[tokio::test]
async fn tokens_only_for_granted_resources_with_granted_scopes() {
    let f = fixture().await;
    let core = &f.t.state.core;
    let admin = f.t.principal("ada@example.com").await;
    let meta = authz::RequestMeta::default();
    let (_, secret) = register_client(
        core,
        &admin,
        "fresh",
        ClientForm {
            name: "Fresh".into(),
            auth_method: "client_secret_basic".into(),
            scope: "tools:call tools:read".into(),
            ..Default::default()
        },
    )
    .await
    .expect("client");
    let secret = secret.expect("confidential").expose().to_owned();
    let auth = basic("fresh", &secret);
    let ask = |scope: &'static str| {
        let (f, auth) = (&f, auth.clone());
        async move {
            let scope = if scope.is_empty() {
                String::new()
            } else {
                format!("&scope={}", enc(scope))
            };
            f.post(
                "/realms/default/token",
                Some(&auth),
                &format!("grant_type=client_credentials&resource={}{scope}", enc(PAY)),
            )
            .await
        }
    };

    // A new client has no grants: its registered scopes alone open nothing.
    let (status, _, json) = ask("").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{json}");
    assert_eq!(json["error"], "invalid_target");
    assert!(
        json["error_description"]
            .as_str()
            .is_some_and(|d| d.contains("not been granted")),
        "{json}"
    );

    // Scopes the resource does not accept, or none at all, are refused on the field.
    for bad in ["tools:call admin", " "] {
        let err = core
            .grant_access(&admin, "default", "fresh", "payments-mcp", Some(bad), &meta)
            .await
            .expect_err("refused");
        assert!(
            matches!(
                err,
                authz::Error::InvalidField {
                    field: "scopes",
                    ..
                }
            ),
            "{err:?}"
        );
    }
    core.grant_access(
        &admin,
        "default",
        "fresh",
        "payments-mcp",
        Some("tools:read"),
        &meta,
    )
    .await
    .expect("grant");
    let (status, _, json) = ask("").await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(
        json["scope"], "tools:read",
        "the grant's scopes, not the client's"
    );
    // When it last got a token is noted in memory and written by the periodic flush.
    let last_used = || async {
        core.resource_access(
            &admin,
            "default",
            "payments-mcp",
            "fresh",
            authz::paging::Page::first(10),
        )
        .await
        .expect("list")
        .items[0]
            .grant
            .last_used_at
    };
    assert_eq!(last_used().await, None, "nothing written per token");
    assert!(core.flush_token_use().await.expect("flush") >= 1);
    assert_eq!(last_used().await, Some(authz::clock::Clock::now(&f.clock)));
    assert_eq!(
        core.flush_token_use().await.expect("flush"),
        0,
        "written once"
    );
    let (status, _, json) = ask("tools:call").await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_scope")),
        "{json}"
    );
    // Only the granted resource.
    let (status, _, json) = f
        .post(
            "/realms/default/token",
            Some(&auth),
            &format!("grant_type=client_credentials&resource={}", enc(MAIL)),
        )
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );

    // Widen, take a token with both scopes, then narrow: that token dies, new ones are narrow.
    core.grant_access(&admin, "default", "fresh", "payments-mcp", None, &meta)
        .await
        .expect("widen");
    let (_, _, json) = ask("").await;
    assert_eq!(
        json["scope"], "tools:call tools:read",
        "None grants every scope"
    );
    let wide = json["access_token"].as_str().expect("token").to_owned();
    let (_, _, json) = ask("tools:read").await;
    let narrow = json["access_token"].as_str().expect("token").to_owned();
    assert_eq!(
        f.introspect_as("fresh", &secret, &wide).await["active"],
        true
    );
    core.grant_access(
        &admin,
        "default",
        "fresh",
        "payments-mcp",
        Some("tools:read"),
        &meta,
    )
    .await
    .expect("narrow");
    assert_eq!(
        f.introspect_as("fresh", &secret, &wide).await["active"],
        false,
        "a scope no longer granted"
    );
    assert_eq!(
        f.introspect_as("fresh", &secret, &narrow).await["active"],
        true
    );

    // Revoke: no new tokens, and live ones introspect inactive.
    core.revoke_access(&admin, "default", "fresh", "payments-mcp", &meta)
        .await
        .expect("revoke");
    assert_eq!(
        f.introspect_as("fresh", &secret, &narrow).await["active"],
        false
    );
    let (_, _, json) = ask("").await;
    assert_eq!(json["error"], "invalid_target");
    let again = core
        .revoke_access(&admin, "default", "fresh", "payments-mcp", &meta)
        .await
        .expect_err("nothing to revoke");
    assert!(matches!(again, authz::Error::NotFound { .. }), "{again:?}");

    // Introspection credentials get no grants.
    f.resource_server("payments-mcp").await;
    let err = core
        .grant_access(
            &admin,
            "default",
            "payments-mcp-introspect",
            "payments-mcp",
            None,
            &meta,
        )
        .await
        .expect_err("refused");
    assert!(
        matches!(
            err,
            authz::Error::InvalidField {
                field: "client",
                ..
            }
        ),
        "{err:?}"
    );

    // Every change is audited on the client.
    let actions: Vec<String> = core
        .list_audit(
            &admin,
            None,
            authz::audit::AuditFilter {
                target: Some("client:fresh".into()),
                ..Default::default()
            },
            authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 20),
        )
        .await
        .expect("audit")
        .items
        .into_iter()
        .map(|e| e.action)
        .collect();
    assert_eq!(
        actions,
        [
            "access.revoke",
            "access.update",
            "access.update",
            "access.grant",
            "client.create"
        ]
    );

    // Both lists answer "who can reach what".
    let listed = core
        .resource_access(
            &admin,
            "default",
            "payments-mcp",
            "",
            authz::paging::Page::first(10),
        )
        .await
        .expect("list");
    let ids: Vec<_> = listed.items.iter().map(|g| g.client_id.as_str()).collect();
    assert_eq!(ids, ["bot", "poster"]);
    let fresh = core
        .client_access(&admin, "default", "fresh")
        .await
        .expect("list");
    let slugs: Vec<_> = fresh.iter().map(|a| a.resource.slug.as_str()).collect();
    assert_eq!(
        slugs,
        ["ed-mcp", "email-mcp", "payments-mcp", "rsa-mcp"],
        "every resource"
    );
    assert!(
        fresh.iter().all(|a| a.grant.is_none()),
        "none granted any more"
    );
    let bots = core
        .client_access(&admin, "default", "bot")
        .await
        .expect("list");
    assert!(bots.iter().all(|a| a.grant.is_some()));

    // A resource that stops accepting a granted scope: its page shows what tokens get, and the
    // scope set apart as no longer accepted.
    let input = ResourceInput {
        display_name: "Payments".into(),
        uri: PAY.into(),
        scopes: "tools:call".into(),
        enabled: true,
        ..Default::default()
    };
    core.update_resource(
        &admin,
        "default",
        "payments-mcp",
        &input,
        &Default::default(),
    )
    .await
    .expect("narrow");
    let shown = core
        .resource_access(
            &admin,
            "default",
            "payments-mcp",
            "bot",
            authz::paging::Page::first(10),
        )
        .await
        .expect("list");
    let bot = shown
        .items
        .iter()
        .find(|g| g.client_id.as_str() == "bot")
        .expect("bot");
    assert_eq!(bot.grant.scopes.to_string(), "tools:call");
    assert_eq!(bot.lapsed.to_string(), "tools:read");
}

#[tokio::test]
async fn the_overview_counts_what_the_role_may_see_and_lists_the_endpoints() {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let o = core
        .realm_overview(&admin, "default")
        .await
        .expect("overview");
    let url = |label: &str| {
        o.endpoints
            .iter()
            .find(|e| e.label.starts_with(label))
            .map(|e| e.url.clone())
            .expect("endpoint")
    };
    assert!(url("Issuer").ends_with("/realms/default"));
    assert!(
        url("Authorization server metadata")
            .ends_with("/.well-known/oauth-authorization-server/realms/default")
    );
    assert_eq!(url("Token"), format!("{}/token", url("Issuer")));
    let authorize = o
        .endpoints
        .iter()
        .find(|e| e.label == "Authorization")
        .expect("authorize");
    assert_eq!(authorize.url, format!("{}/authorize", url("Issuer")));
    assert_eq!(
        url("Registration"),
        format!("{}/connect/register", url("Issuer"))
    );
    assert_eq!(o.resources, Some(4));
    assert!(o.clients.is_some_and(|c| c >= 1));
    assert_eq!(o.grants_used, Some(0), "no token yet");
    assert!(o.grants.is_some_and(|g| g >= 1));
    // The endpoints it lists answer.
    for path in [
        url("Authorization server metadata"),
        url("OpenID"),
        url("JWKS"),
    ] {
        let path = path
            .split_once("://")
            .and_then(|(_, rest)| rest.split_once('/'))
            .map(|(_, p)| format!("/{p}"))
            .expect("path");
        assert_eq!(
            f.t.get(&path, None).await.status(),
            StatusCode::OK,
            "{path}"
        );
    }
    // A token ticks the last step once its use is written.
    f.access_token(PAY).await;
    core.flush_token_use().await.expect("flush");
    let o = core
        .realm_overview(&admin, "default")
        .await
        .expect("overview");
    assert_eq!(o.grants_used, Some(1));
    // A developer sees resources only.
    f.t.user("dev@example.com", "developer").await;
    let dev = f.t.principal("dev@example.com").await;
    let o = core
        .realm_overview(&dev, "default")
        .await
        .expect("overview");
    assert_eq!(
        (o.resources, o.clients, o.agents, o.grants),
        (Some(4), None, None, None)
    );
}

#[tokio::test]
async fn histories_list_the_events_that_concern_an_object_not_only_those_that_target_it() {
    use authz::audit::{AuditCursor, AuditFilter, AuditSubject, AuditWindow};
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let now = authz::clock::Clock::now(&f.clock);
    let window = || AuditWindow::page(AuditCursor::Newest, 50);
    let actions = |slice: authz::audit::AuditSlice| {
        slice
            .items
            .into_iter()
            .map(|e| (e.action, e.target))
            .collect::<Vec<_>>()
    };
    for name in ["night-bot", "day-bot"] {
        let input = authz::agents::AgentInput {
            name: name.into(),
            owner: "owner@example.com".into(),
            roles: "tools:call".into(),
            expires_at: authz::clock::rfc3339(now + 3600),
            ..Default::default()
        };
        core.create_agent(&admin, "default", &input, &meta)
            .await
            .expect("agent");
    }
    // Bound, moved, unbound: each agent's history shows the binding changes that concern it.
    for to in [Some("night-bot"), Some("day-bot"), None] {
        core.bind_client_to_agent(&admin, "default", "bot", to, &meta)
            .await
            .expect("bind");
    }
    let of = |subject: AuditSubject| {
        let admin = admin.clone();
        async move {
            actions(
                core.audit_of(&admin, "default", &subject, window())
                    .await
                    .expect("history"),
            )
        }
    };
    let bound = ("client.update".to_owned(), "client:bot".to_owned());
    assert_eq!(
        of(AuditSubject::Agent("night-bot".into())).await,
        [
            bound.clone(),
            ("agent.create".into(), "agent:night-bot".into())
        ],
        "bound to it (the move away shows on the agent it moved to)"
    );
    assert_eq!(
        of(AuditSubject::Agent("day-bot".into())).await,
        [
            bound.clone(),
            bound.clone(),
            ("agent.create".into(), "agent:day-bot".into())
        ],
        "moved to it, then unbound from it"
    );
    // A resource's history shows the grants of it.
    core.revoke_access(&admin, "default", "bot", "email-mcp", &meta)
        .await
        .expect("revoke");
    let email = of(AuditSubject::Resource("email-mcp".into())).await;
    assert_eq!(
        email.first(),
        Some(&("access.revoke".to_owned(), "client:bot".to_owned()))
    );
    assert!(
        email.contains(&("access.grant".to_owned(), "client:poster".to_owned())),
        "{email:?}"
    );
    assert_eq!(
        email.last(),
        Some(&(
            "resource.create".to_owned(),
            "resource:email-mcp".to_owned()
        ))
    );
    // "About" is exact: client:bo is not client:bot.
    let filter = AuditFilter::from_input("", "", "", "client:bo", "", "").expect("filter");
    let found = core
        .list_audit(&admin, Some("default"), filter, window())
        .await
        .expect("list");
    assert!(found.items.is_empty(), "{:?}", actions(found));
}

#[tokio::test]
async fn a_resource_lists_each_clients_agent_and_what_its_tokens_carry_and_a_second_grant_is_refused()
 {
    let f = fixture().await;
    let admin = f.t.principal("ada@example.com").await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let now = authz::clock::Clock::now(&f.clock);
    let input = authz::agents::AgentInput {
        name: "reader-bot".into(),
        owner: "owner@example.com".into(),
        roles: "mcp tools:read".into(),
        expires_at: authz::clock::rfc3339(now + 3600),
        ..Default::default()
    };
    core.create_agent(&admin, "default", &input, &meta)
        .await
        .expect("agent");
    core.bind_client_to_agent(&admin, "default", "bot", Some("reader-bot"), &meta)
        .await
        .expect("bind");
    let page = core
        .resource_access(
            &admin,
            "default",
            "payments-mcp",
            "",
            authz::paging::Page::first(20),
        )
        .await
        .expect("grants");
    let bot = page
        .items
        .iter()
        .find(|g| g.client_id.as_str() == "bot")
        .expect("bot");
    assert_eq!(bot.grant.scopes.to_string(), "tools:call tools:read");
    assert_eq!(
        bot.agent.as_ref().map(|(n, _)| n.as_str()),
        Some("reader-bot")
    );
    assert_eq!(
        bot.token_scopes().to_string(),
        "tools:read",
        "cut to the agent's roles"
    );
    let poster = page
        .items
        .iter()
        .find(|g| g.client_id.as_str() == "poster")
        .expect("poster");
    assert!(poster.agent.is_none());
    assert_eq!(poster.token_scopes(), poster.grant.scopes);
    // What the page says is what a token gets.
    let (_, _, json) = f
        .token(&format!(
            "grant_type=client_credentials&resource={}",
            enc(PAY)
        ))
        .await;
    assert_eq!(json["scope"], "tools:read", "{json}");

    // "Grant a client" never replaces a grant; changing scopes is its own, deliberate act.
    let err = core
        .add_access(
            &admin,
            "default",
            "bot",
            "payments-mcp",
            Some("tools:call"),
            &meta,
        )
        .await
        .expect_err("already granted");
    assert!(
        matches!(&err, authz::Error::Taken { field: "client", message } if message.contains("tools:call tools:read")),
        "{err:?}"
    );
    let page = core
        .resource_access(
            &admin,
            "default",
            "payments-mcp",
            "bot",
            authz::paging::Page::first(20),
        )
        .await
        .expect("grants");
    assert_eq!(
        page.items[0].grant.scopes.to_string(),
        "tools:call tools:read",
        "unchanged"
    );
}

#[tokio::test]
async fn writes_are_seen_by_the_next_request_here_and_within_the_cache_lifetime_elsewhere() {
    let f = fixture().await;
    let core = &f.t.state.core;
    let admin = f.t.principal("ada@example.com").await;
    let meta = authz::RequestMeta::default();
    let form = format!("grant_type=client_credentials&resource={}", enc(PAY));
    // A second instance on the same database, on the same clock.
    let other =
        server::AppState::init_with_clock((*f.t.state.config).clone(), Arc::new(f.clock.clone()))
            .await
            .expect("second instance");
    let other_token = |form: String| {
        let router = server::router(other.clone());
        let auth = basic("bot", &f.secret);
        async move {
            let res = router
                .oneshot(
                    Request::post("/realms/default/token")
                        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                        .header(header::AUTHORIZATION, auth)
                        .body(Body::from(form))
                        .expect("request"),
                )
                .await
                .expect("response");
            res.status()
        }
    };
    // Both instances have the token path's lookups cached.
    assert_eq!(f.token(&form).await.0, StatusCode::OK);
    assert_eq!(other_token(form.clone()).await, StatusCode::OK);

    // Without the clock moving, this instance sees each write at once.
    core.revoke_access(&admin, "default", "bot", "payments-mcp", &meta)
        .await
        .expect("revoke");
    let (status, _, json) = f.token(&form).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );
    core.grant_access(
        &admin,
        "default",
        "bot",
        "payments-mcp",
        Some("tools:call"),
        &meta,
    )
    .await
    .expect("grant");
    let (status, _, json) = f.token(&form).await;
    assert_eq!(
        (status, json["scope"].as_str()),
        (StatusCode::OK, Some("tools:call"))
    );
    let lifetime = ResourceInput {
        slug: "payments-mcp".into(),
        display_name: "payments-mcp".into(),
        uri: PAY.into(),
        scopes: "tools:call tools:read".into(),
        token_ttl_secs: "120".into(),
        enabled: true,
        ..Default::default()
    };
    core.update_resource(&admin, "default", "payments-mcp", &lifetime, &meta)
        .await
        .expect("setting");
    assert_eq!(
        f.token(&form).await.2["expires_in"],
        120,
        "a setting applies at once"
    );
    core.set_client_enabled(&admin, "default", "bot", false, &meta)
        .await
        .expect("disable");
    assert_ne!(f.token(&form).await.0, StatusCode::OK);

    // The other instance follows within the cache lifetime (documented), not before it has to.
    assert_eq!(
        other_token(form.clone()).await,
        StatusCode::OK,
        "its cache is still fresh: this test would not see it follow otherwise"
    );
    f.clock.advance(authz::cache::TTL_SECS);
    assert_ne!(other_token(form.clone()).await, StatusCode::OK);
}
