//! OpenID Connect on the authorization code flow: `openid` in `scope` brings an ID token for
//! the client (RS256, the realm's published key), with the request's `nonce`, the person's email
//! and name when asked, and a new one on every refresh; what the client learns is agreed to on
//! the consent page like any scope.
use super::*;

/// The header and claims of a JWT, after checking its signature against the realm's JWKS.
async fn verified(f: &Flow, jwt: &str) -> (serde_json::Value, serde_json::Value) {
    let res = f.t.get("/realms/default/jwks", None).await;
    let jwks: serde_json::Value = serde_json::from_str(&body(res).await).expect("jwks");
    let header: serde_json::Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(jwt.split('.').next().expect("header"))
            .expect("b64"),
    )
    .expect("json");
    let jwk = jwks["keys"]
        .as_array()
        .expect("keys")
        .iter()
        .find(|k| k["kid"] == header["kid"])
        .expect("the ID token's key is published");
    let (_, c) = authz::keys::Verifier::from_jwk(jwk)
        .expect("verifier")
        .verify(jwt)
        .expect("the signature verifies");
    (header, c)
}

#[tokio::test]
async fn openid_brings_an_id_token_with_the_nonce_email_and_name_and_refresh_renews_it() {
    let f = flow().await;
    let mut b = Browser::default();
    let (status, _, html) = f
        .get(
            &mut b,
            &authorize_url(
                "&scope=tools%3Acall+openid+email+profile+offline_access&nonce=n-0S6_WzA2Mj",
            ),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let form = format!(
        "step=login&ticket={}&email={}&password={}",
        ticket_of(&html),
        enc(PERSON),
        enc(PASSWORD)
    );
    let (_, _, consent) = f.post(&mut b, &form).await;
    for line in [
        "Know who you are",
        "See your email address",
        "See your name",
        "Call tools",
    ] {
        assert!(
            consent.contains(line),
            "the consent page says {line}: {consent}"
        );
    }
    let (status, loc, _) = f
        .post(
            &mut b,
            &format!(
                "step=consent&decision=approve&ticket={}",
                ticket_of(&consent)
            ),
        )
        .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let (status, json) = f.redeem(&query_of(&loc)["code"]).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["scope"], "tools:call", "the access token's scope");
    let id_token = json["id_token"].as_str().expect("an ID token");
    let (header, c) = verified(&f, id_token).await;
    assert_eq!(
        header["alg"], "RS256",
        "what relying parties expect by default"
    );
    assert_eq!(header["typ"], "JWT");
    assert_eq!(c["iss"], ISSUER);
    assert_eq!(c["sub"], f.person.as_str(), "the sub of the access token");
    assert_eq!(c["aud"], "vscode");
    assert_eq!(c["azp"], "vscode");
    assert_eq!(c["nonce"], "n-0S6_WzA2Mj");
    assert_eq!(c["email"], PERSON);
    assert_eq!(c["email_verified"], true, "admins set people's addresses");
    assert!(c["name"].is_string());
    let (iat, exp) = (
        c["iat"].as_i64().expect("iat"),
        c["exp"].as_i64().expect("exp"),
    );
    assert_eq!(exp - iat, authz::tokens::ID_TOKEN_TTL_SECS);
    assert!(c["auth_time"].as_i64().expect("auth_time") <= iat);

    // A refresh answers with a new ID token of the same person, without the nonce.
    f.clock.advance(60);
    let (status, refreshed) = f
        .refresh(json["refresh_token"].as_str().expect("refresh token"))
        .await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");
    let again = refreshed["id_token"].as_str().expect("a new ID token");
    assert_ne!(again, id_token);
    let (_, c2) = verified(&f, again).await;
    assert_eq!(c2["sub"], c["sub"]);
    assert_eq!(
        c2["auth_time"], c["auth_time"],
        "when they signed in, not the refresh"
    );
    assert!(c2.get("nonce").is_none(), "OpenID Connect Core §12.2");
    assert_eq!(c2["email"], PERSON);
}

#[tokio::test]
async fn without_openid_there_is_no_id_token_and_email_alone_asks_for_nothing() {
    let f = flow().await;
    let loc = f
        .consent(
            &mut Browser::default(),
            "&scope=tools%3Acall+email&nonce=abc",
        )
        .await;
    let (status, json) = f.redeem(&query_of(&loc)["code"]).await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert!(json.get("id_token").is_none(), "{json}");
}

#[tokio::test]
async fn a_consent_without_identity_is_asked_again_when_the_client_wants_an_id_token() {
    let f = flow().await;
    f.consent(&mut Browser::default(), "&scope=tools%3Acall")
        .await;
    // Same person, a new browser: agreed to tools:call, not to telling who they are.
    let mut b = Browser::default();
    let (_, _, html) = f
        .get(&mut b, &authorize_url("&scope=tools%3Acall+openid+email"))
        .await;
    let form = format!(
        "step=login&ticket={}&email={}&password={}",
        ticket_of(&html),
        enc(PERSON),
        enc(PASSWORD)
    );
    let (status, _, html) = f.post(&mut b, &form).await;
    assert_eq!(status, StatusCode::OK, "the consent page, not a redirect");
    assert!(html.contains("See your email address"), "{html}");
    let (_, loc, _) = f
        .post(
            &mut b,
            &format!("step=consent&decision=approve&ticket={}", ticket_of(&html)),
        )
        .await;
    assert!(f.redeem(&query_of(&loc)["code"]).await.1["id_token"].is_string());
}

#[tokio::test]
async fn a_nonce_longer_than_255_characters_is_refused() {
    let f = flow().await;
    let nonce = "n".repeat(256);
    let (status, loc, _) = f
        .get(
            &mut Browser::default(),
            &authorize_url(&format!("&scope=tools%3Acall+openid&nonce={nonce}")),
        )
        .await;
    assert!(status.is_redirection(), "{status}");
    let q = query_of(&loc);
    assert_eq!(q["error"], "invalid_request", "{loc}");
    assert!(q["error_description"].contains("nonce"), "{loc}");
}

#[tokio::test]
async fn discovery_offers_openid_and_rs256_id_tokens() {
    let f = flow().await;
    for path in [
        "/.well-known/openid-configuration/realms/default",
        "/.well-known/oauth-authorization-server/realms/default",
    ] {
        let m: serde_json::Value =
            serde_json::from_str(&body(f.t.get(path, None).await).await).expect("json");
        let scopes = m["scopes_supported"].as_array().expect("scopes");
        for s in ["openid", "email", "profile", "offline_access"] {
            assert!(scopes.contains(&s.into()), "{path}: {s}");
        }
        assert_eq!(
            m["id_token_signing_alg_values_supported"],
            serde_json::json!(["RS256"])
        );
        assert_eq!(m["subject_types_supported"], serde_json::json!(["public"]));
        assert!(
            m["claims_supported"]
                .as_array()
                .expect("claims")
                .contains(&"nonce".into())
        );
    }
}
