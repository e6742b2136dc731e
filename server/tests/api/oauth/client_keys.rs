//! Signing-key rotation, client-secret rotation, and `private_key_jwt` client assertions.
use super::*;

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
