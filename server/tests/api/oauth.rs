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

mod agents;
mod client_keys;
mod console;
mod errors;
mod grants;
mod introspection;
