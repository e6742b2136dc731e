//! Console single sign-on against a test identity provider that forges what a real one never
//! would: ID tokens for another client, from another issuer, with another nonce, expired, signed
//! by another key, unsigned or signed with the client secret, with a wrong `at_hash`; answers
//! naming another issuer (RFC 9207); callbacks with the wrong `state` or for another provider.
//! Every one is refused and nobody is signed in. (Real sign-ins through node-oidc-provider are in
//! the browser tests.)
use super::idp::{CLIENT_ID, CLIENT_SECRET, Forgery, Idp, Mint};
use super::*;
use authz::keys::{Signer, SigningAlg, generate};
use authz::sso::{SsoCallback, SsoProviderInput, SsoRefusal};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

async fn setup() -> (TestServer, Idp, String) {
    let t = TestServer::with(
        |c| {
            c.dev.allow_loopback_client_urls = true;
            c.dev.allow_http_loopback_resources = true;
        },
        Arc::new(authz::clock::SystemClock),
    )
    .await;
    let idp = Idp::start().await;
    let provider = t
        .state
        .core
        .create_sso_provider(
            &authz::Principal::cli(),
            &SsoProviderInput {
                display_name: "Corp".into(),
                issuer: idp.issuer.clone(),
                client_id: CLIENT_ID.into(),
                client_secret: CLIENT_SECRET.into(),
                admin_groups: "admins".into(),
                ..Default::default()
            },
            &authz::RequestMeta::default(),
        )
        .await
        .expect("provider");
    (t, idp, provider.id.to_string())
}

/// Starts a sign-in, lets the IdP answer with what `mint` makes of its nonce, and finishes it
/// with the right `state` (or `state`, `iss` and `provider` as given).
async fn sign_in(
    t: &TestServer,
    idp: &Idp,
    provider: &str,
    mint: Mint,
    tweak: impl FnOnce(&mut SsoCallback, &mut String),
) -> Result<authz::Principal, SsoRefusal> {
    sign_in_session(t, idp, provider, mint, tweak)
        .await
        .map(|(p, _)| p)
}

/// [`sign_in`], with what the session keeps of the provider sign-in.
async fn sign_in_session(
    t: &TestServer,
    idp: &Idp,
    provider: &str,
    mint: Mint,
    tweak: impl FnOnce(&mut SsoCallback, &mut String),
) -> Result<(authz::Principal, authz::sso::SsoSession), SsoRefusal> {
    let core = &t.state.core;
    let (url, pending) = core
        .start_sso_sign_in(provider, "/")
        .await
        .expect("start")
        .expect("provider reachable");
    let url = url::Url::parse(&url).expect("url");
    let param = |k: &str| {
        url.query_pairs()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    assert_eq!(param("code_challenge_method"), "S256");
    assert_eq!(param("client_id"), CLIENT_ID);
    assert!(param("scope").split(' ').any(|s| s == "openid"));
    assert_eq!(param("nonce"), pending.nonce);
    *idp.acr_values.lock().expect("lock") = param("acr_values");
    *idp.nonce.lock().expect("lock") = pending.nonce.clone();
    *idp.next.lock().expect("lock") = Some(mint);
    let mut callback = SsoCallback {
        code: Some("code-1".into()),
        state: Some(param("state")),
        iss: None,
        error: None,
    };
    let mut at = provider.to_owned();
    tweak(&mut callback, &mut at);
    // Each attempt from its own address: failed ones count on the sign-in throttle per source.
    let meta = authz::RequestMeta {
        client_ip: Some(std::net::IpAddr::from(rand::random::<[u8; 4]>())),
        ..Default::default()
    };
    core.finish_sso_sign_in(&at, Some(pending), &callback, None, &meta)
        .await
        .expect("storage")
}

fn refused(outcome: Result<authz::Principal, SsoRefusal>, what: &str) -> String {
    match outcome {
        Err(SsoRefusal::Provider(reason)) => reason,
        other => panic!("{what}: expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn forged_id_tokens_and_answers_are_refused() {
    let (t, idp, provider) = setup().await;
    let idp = Arc::new(idp);
    let forge = |f: Forgery| -> Mint {
        let idp = idp.clone();
        Box::new(move |nonce| f(&idp, nonce))
    };
    let cases: [(&str, Forgery, &str); 9] = [
        (
            "another client's token",
            |i, n| {
                let mut c = i.claims("mallory", n);
                c["aud"] = "other-app".into();
                Idp::answer(&i.sign(&c))
            },
            "audience",
        ),
        (
            "two audiences, azp another",
            |i, n| {
                let mut c = i.claims("mallory", n);
                c["aud"] = serde_json::json!([CLIENT_ID, "other-app"]);
                c["azp"] = "other-app".into();
                Idp::answer(&i.sign(&c))
            },
            "",
        ),
        (
            "another issuer",
            |i, n| {
                let mut c = i.claims("mallory", n);
                c["iss"] = "https://evil.example".into();
                Idp::answer(&i.sign(&c))
            },
            "issuer",
        ),
        (
            "another nonce",
            |i, _| Idp::answer(&i.sign(&i.claims("mallory", "replayed-nonce"))),
            "nonce",
        ),
        (
            "expired",
            |i, n| {
                let mut c = i.claims("mallory", n);
                c["exp"] = (time::OffsetDateTime::now_utc().unix_timestamp() - 3600).into();
                c["iat"] = (time::OffsetDateTime::now_utc().unix_timestamp() - 7200).into();
                Idp::answer(&i.sign(&c))
            },
            "expire",
        ),
        (
            "another key",
            |i, n| {
                let other = generate(SigningAlg::ES256).expect("key");
                let token = Signer::from_pkcs8("idp-1", SigningAlg::ES256, &other.pkcs8)
                    .expect("signer")
                    .sign("JWT", &i.claims("mallory", n))
                    .expect("sign");
                Idp::answer(&token)
            },
            "signature",
        ),
        (
            "unsigned (alg none)",
            |i, n| {
                let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"none","typ":"JWT"}"#);
                let body = URL_SAFE_NO_PAD.encode(i.claims("mallory", n).to_string());
                Idp::answer(&format!("{header}.{body}."))
            },
            "",
        ),
        (
            "signed with the client secret (HS256)",
            |i, n| {
                use aws_lc_rs::hmac;
                let header = URL_SAFE_NO_PAD.encode(r#"{"alg":"HS256","typ":"JWT"}"#);
                let body = URL_SAFE_NO_PAD.encode(i.claims("mallory", n).to_string());
                let input = format!("{header}.{body}");
                let key = hmac::Key::new(hmac::HMAC_SHA256, CLIENT_SECRET.as_bytes());
                let sig = URL_SAFE_NO_PAD.encode(hmac::sign(&key, input.as_bytes()).as_ref());
                Idp::answer(&format!("{input}.{sig}"))
            },
            "",
        ),
        (
            "a wrong at_hash",
            |i, n| {
                let mut c = i.claims("mallory", n);
                c["at_hash"] = "AAAAAAAAAAAAAAAAAAAAAA".into();
                Idp::answer(&i.sign(&c))
            },
            "at_hash",
        ),
    ];
    for (what, f, says) in cases {
        let reason = refused(
            sign_in(&t, &idp, &provider, forge(f), |_, _| {}).await,
            what,
        );
        assert!(
            reason.to_lowercase().contains(says),
            "{what}: {reason:?} should mention {says:?}"
        );
    }
    // An answer without an ID token.
    let reason = refused(
        sign_in(
            &t,
            &idp,
            &provider,
            Box::new(|_| serde_json::json!({"access_token": "at", "token_type": "Bearer"})),
            |_, _| {},
        )
        .await,
        "no ID token",
    );
    assert!(reason.contains("ID token"), "{reason}");
    // The answer names another issuer (RFC 9207): a mix-up.
    let good = forge(|i, n| Idp::answer(&i.sign(&i.claims("grace", n))));
    let reason = refused(
        sign_in(&t, &idp, &provider, good, |c, _| {
            c.iss = Some("https://evil.example".into())
        })
        .await,
        "iss parameter",
    );
    assert!(reason.contains("another issuer"), "{reason}");
    // The provider refused.
    let good = forge(|i, n| Idp::answer(&i.sign(&i.claims("grace", n))));
    let reason = refused(
        sign_in(&t, &idp, &provider, good, |c, _| {
            c.code = None;
            c.error = Some("access_denied".into());
        })
        .await,
        "error",
    );
    assert!(reason.contains("access_denied"), "{reason}");
    // Wrong state, or a callback for another provider: expired, nothing else said.
    for tweak in [
        (|c: &mut SsoCallback, _: &mut String| c.state = Some("guessed".into()))
            as fn(&mut SsoCallback, &mut String),
        |c, _| c.state = None,
        |_, at| *at = "sso_0000".into(),
    ] {
        let good = forge(|i, n| Idp::answer(&i.sign(&i.claims("grace", n))));
        assert_eq!(
            sign_in(&t, &idp, &provider, good, tweak).await.err(),
            Some(SsoRefusal::Expired)
        );
    }
    // Nobody was signed in, nor created.
    let users = t
        .state
        .core
        .list_users(
            &authz::Principal::cli(),
            "corp.example",
            authz::paging::Page::default(),
        )
        .await
        .expect("users");
    assert!(users.items.is_empty(), "{:?}", users.items);
    // The honest answer signs in, as an admin (group "admins").
    let good = forge(|i, n| Idp::answer(&i.sign(&i.claims("grace", n))));
    let p = sign_in(&t, &idp, &provider, good, |_, _| {})
        .await
        .expect("signed in");
    assert_eq!(
        (p.email.as_str(), p.role),
        ("grace@corp.example", authz::policy::Role::Admin)
    );
}

#[tokio::test]
async fn pending_sign_ins_are_sealed() {
    let (t, _idp, provider) = setup().await;
    let core = &t.state.core;
    let (_, pending) = core
        .start_sso_sign_in(&provider, "/users")
        .await
        .expect("start")
        .expect("reachable");
    let sealed = core.seal_sso_pending(&pending).expect("seal");
    assert!(!sealed.contains(&pending.nonce) && !sealed.contains(&pending.pkce_verifier));
    assert_eq!(core.open_sso_pending(&sealed), Some(pending));
    // One changed character, or a cookie of another server (another master key): nothing.
    let mut bytes = sealed.into_bytes();
    bytes[10] = if bytes[10] == b'A' { b'B' } else { b'A' };
    assert_eq!(
        core.open_sso_pending(&String::from_utf8(bytes).expect("utf8")),
        None
    );
    let other = TestServer::new().await;
    let (_, mine) = core
        .start_sso_sign_in(&provider, "/")
        .await
        .expect("start")
        .expect("reachable");
    assert_eq!(
        other
            .state
            .core
            .open_sso_pending(&core.seal_sso_pending(&mine).expect("seal")),
        None
    );
    assert_eq!(core.open_sso_pending(&"A".repeat(5000)), None);
}

#[tokio::test]
async fn password_sign_in_off_holds_at_the_console_and_the_realm_sign_in() {
    let (t, _idp, _provider) = setup().await;
    let core = &t.state.core;
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    let root = core
        .create_user_with_password("root@example.com", "Root", "admin", "a-long-root-password")
        .await
        .expect("root");
    let dev = core
        .create_user_with_password("dev@example.com", "Dev", "developer", "a-long-dev-password")
        .await
        .expect("dev");
    // A developer cannot be break-glass; an admin can; then password sign-in goes off.
    assert!(
        core.set_user_break_glass(&cli, &dev.id, true, &meta)
            .await
            .is_err()
    );
    core.set_user_break_glass(&cli, &root.id, true, &meta)
        .await
        .expect("root is break-glass");
    core.set_password_sign_in(&cli, true, &meta)
        .await
        .expect("off");
    // The developer's right and wrong passwords get the same answer, at the console and at the
    // administration realm's sign-in (which console accounts also use).
    for password in ["a-long-dev-password", "wrong-password-123"] {
        assert!(matches!(
            core.login("dev@example.com", password, &meta).await,
            Err(authz::Error::Forbidden)
        ));
        assert!(matches!(
            core.account_sign_in("default", "dev@example.com", password, &meta)
                .await,
            Err(authz::Error::InvalidCredentials)
        ));
    }
    core.login("root@example.com", "a-long-root-password", &meta)
        .await
        .expect("break-glass at the console");
    core.account_sign_in("default", "root@example.com", "a-long-root-password", &meta)
        .await
        .expect("break-glass at the realm");
    // Demoting a break-glass admin (another one exists) takes the mark away with the role.
    let other = core
        .create_user_with_password("ops@example.com", "Ops", "admin", "a-long-ops-password")
        .await
        .expect("ops");
    core.set_user_break_glass(&cli, &other.id, true, &meta)
        .await
        .expect("second break-glass");
    core.set_user_role(&cli, &root.id, "developer", &meta)
        .await
        .expect("demote");
    assert!(matches!(
        core.login("root@example.com", "a-long-root-password", &meta)
            .await,
        Err(authz::Error::Forbidden)
    ));
    core.set_user_role(&cli, &root.id, "admin", &meta)
        .await
        .expect("promote again");
    assert!(
        matches!(
            core.login("root@example.com", "a-long-root-password", &meta)
                .await,
            Err(authz::Error::Forbidden)
        ),
        "promotion does not bring the mark back"
    );
    // The last break-glass admin cannot be demoted while password sign-in is off.
    assert!(
        core.set_user_role(&cli, &other.id, "developer", &meta)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn emails_count_only_when_the_provider_vouches_for_them() {
    let (t, idp, provider) = setup().await;
    let idp = Arc::new(idp);
    let with = |verified: serde_json::Value, email: &'static str| -> Mint {
        let idp = idp.clone();
        Box::new(move |nonce| {
            let mut c = idp.claims("kelvin", nonce);
            c["email"] = email.into();
            c["email_verified"] = verified.clone();
            Idp::answer(&idp.sign(&c))
        })
    };
    // Not verified, not marked, or a lookalike (Kelvin sign): no account.
    for (verified, email) in [
        (serde_json::json!(false), "kelvin@corp.example"),
        (serde_json::Value::Null, "kelvin@corp.example"),
        (serde_json::json!(true), "\u{212a}elvin@corp.example"),
    ] {
        assert_eq!(
            sign_in(&t, &idp, &provider, with(verified, email), |_, _| {})
                .await
                .err(),
            Some(SsoRefusal::NoEmail)
        );
    }
    // With "trust its emails", an unmarked one counts; an unverified one still never does.
    let core = &t.state.core;
    let cli = authz::Principal::cli();
    let current = core.list_sso_providers(&cli).await.expect("list").remove(0);
    core.update_sso_provider(
        &cli,
        &provider,
        &SsoProviderInput {
            display_name: current.display_name.clone(),
            issuer: current.issuer.clone(),
            client_id: current.client_id.clone(),
            admin_groups: "admins".into(),
            trust_email: true,
            ..Default::default()
        },
        &authz::RequestMeta::default(),
    )
    .await
    .expect("trust emails");
    assert_eq!(
        sign_in(
            &t,
            &idp,
            &provider,
            with(serde_json::json!(false), "kelvin@corp.example"),
            |_, _| {}
        )
        .await
        .err(),
        Some(SsoRefusal::NoEmail)
    );
    let p = sign_in(
        &t,
        &idp,
        &provider,
        with(serde_json::Value::Null, "kelvin@corp.example"),
        |_, _| {},
    )
    .await
    .expect("signed in");
    assert_eq!(p.email, "kelvin@corp.example");
    // The issuer never changes.
    let err = core
        .update_sso_provider(
            &cli,
            &provider,
            &SsoProviderInput {
                display_name: "Corp".into(),
                issuer: "https://other.example".into(),
                client_id: CLIENT_ID.into(),
                admin_groups: "admins".into(),
                ..Default::default()
            },
            &authz::RequestMeta::default(),
        )
        .await
        .expect_err("issuer is fixed");
    assert!(err.to_string().contains("cannot change"), "{err}");
}

#[tokio::test]
async fn replayed_callbacks_from_one_address_are_throttled() {
    let (t, idp, provider) = setup().await;
    let core = &t.state.core;
    let meta = authz::RequestMeta {
        client_ip: Some("203.0.113.7".parse().expect("ip")),
        ..Default::default()
    };
    // Anyone can start a sign-in and replay its callback with junk: after five failures of one
    // pending sign-in from one address the callback is refused before the provider is asked or
    // an audit row written.
    let (url, pending) = core
        .start_sso_sign_in(&provider, "/")
        .await
        .expect("start")
        .expect("reachable");
    let state = url::Url::parse(&url)
        .expect("url")
        .query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned());
    *idp.next.lock().expect("lock") =
        Some(Box::new(|_| serde_json::json!({"error": "invalid_grant"})));
    let callback = SsoCallback {
        code: Some("junk".into()),
        state,
        ..Default::default()
    };
    let mut outcomes = Vec::new();
    for _ in 0..7 {
        outcomes.push(
            core.finish_sso_sign_in(&provider, Some(pending.clone()), &callback, None, &meta)
                .await
                .expect("storage")
                .err(),
        );
    }
    assert!(
        outcomes[..5]
            .iter()
            .all(|o| matches!(o, Some(SsoRefusal::Provider(_)))),
        "{outcomes:?}"
    );
    assert!(
        outcomes[5..]
            .iter()
            .all(|o| *o == Some(SsoRefusal::Throttled)),
        "{outcomes:?}"
    );
}

#[tokio::test]
async fn a_rotated_provider_key_is_fetched_again() {
    let (t, idp, provider) = setup().await;
    let idp = Arc::new(idp);
    let honest = |idp: &Arc<Idp>| -> Mint {
        let idp = idp.clone();
        Box::new(move |nonce| Idp::answer(&idp.sign(&idp.claims("grace", nonce))))
    };
    // The first sign-in caches the provider's metadata and keys.
    sign_in(&t, &idp, &provider, honest(&idp), |_, _| {})
        .await
        .expect("first sign-in");
    // The provider rotates to a key the cache does not know: the keys are fetched again.
    idp.rotate("idp-2");
    let p = sign_in(&t, &idp, &provider, honest(&idp), |_, _| {})
        .await
        .expect("signed in after the rotation");
    assert_eq!(p.email, "grace@corp.example");
}

#[tokio::test]
async fn a_provider_set_up_for_it_proves_the_second_factor_with_amr_or_acr() {
    let (t, idp, provider) = setup().await;
    let idp = Arc::new(idp);
    let core = &t.state.core;
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    core.set_second_factor_policy(&cli, &[authz::policy::Role::Admin], &meta)
        .await
        .expect("admins need a second factor");
    let with = |sub: &'static str,
                group: &'static str,
                amr: serde_json::Value,
                acr: serde_json::Value|
     -> Mint {
        let idp = idp.clone();
        Box::new(move |nonce| {
            let mut c = idp.claims(sub, nonce);
            c["groups"] = serde_json::json!([group]);
            if !amr.is_null() {
                c["amr"] = amr.clone();
            }
            if !acr.is_null() {
                c["acr"] = acr.clone();
            }
            Idp::answer(&idp.sign(&c))
        })
    };
    let null = serde_json::Value::Null;
    // A provider not set up for it: the admin signs in there, and the second factor is left to
    // Portcullis (an authenticator app, set up now).
    let (admin, session) = sign_in_session(
        &t,
        &idp,
        &provider,
        with("root", "admins", serde_json::json!(["mfa"]), null.clone()),
        |_, _| {},
    )
    .await
    .expect("signed in at the provider");
    assert!(!session.second_factor);
    assert!(idp.acr_values.lock().expect("lock").is_empty());
    let step = core
        .second_factor_step(&admin, session.second_factor, Some(session))
        .await
        .expect("step")
        .expect("a second step");
    assert!(step.enrol);

    // Set up to prove it with amr "mfa" or acr "phr" (asked for as acr_values).
    let current = core.list_sso_providers(&cli).await.expect("list").remove(0);
    core.update_sso_provider(
        &cli,
        &provider,
        &SsoProviderInput {
            display_name: current.display_name.clone(),
            issuer: current.issuer.clone(),
            client_id: current.client_id.clone(),
            admin_groups: "admins".into(),
            developer_groups: "devs".into(),
            second_factor_amr: "mfa".into(),
            second_factor_acr: "phr".into(),
            ..Default::default()
        },
        &meta,
    )
    .await
    .expect("update");
    for (amr, acr) in [
        (null.clone(), null.clone()),
        (serde_json::json!(["pwd", "otp"]), null.clone()),
        (null.clone(), serde_json::json!("urn:weak")),
    ] {
        assert_eq!(
            sign_in_session(
                &t,
                &idp,
                &provider,
                with("root", "admins", amr, acr),
                |_, _| {}
            )
            .await
            .err(),
            Some(SsoRefusal::NoSecondFactor)
        );
    }
    assert_eq!(*idp.acr_values.lock().expect("lock"), "phr");
    let refusals = t
        .audit(authz::audit::AuditFilter {
            action: Some("session.login".into()),
            ..Default::default()
        })
        .await
        .into_iter()
        .filter(|e| {
            e.details["reason"]
                .as_str()
                .is_some_and(|r| r.contains("requires a second factor"))
        })
        .count();
    assert_eq!(refusals, 3);
    for (amr, acr) in [
        (serde_json::json!(["pwd", "mfa"]), null.clone()),
        (null.clone(), serde_json::json!("phr")),
    ] {
        let (admin, session) = sign_in_session(
            &t,
            &idp,
            &provider,
            with("root", "admins", amr, acr),
            |_, _| {},
        )
        .await
        .expect("proved at the provider");
        assert!(session.second_factor);
        assert_eq!(
            core.second_factor_step(&admin, true, Some(session))
                .await
                .expect("step"),
            None
        );
    }
    // A role that needs none signs in without it.
    let (dev, session) = sign_in_session(
        &t,
        &idp,
        &provider,
        with("dev", "devs", null.clone(), null.clone()),
        |_, _| {},
    )
    .await
    .expect("developer");
    assert_eq!(dev.role, authz::policy::Role::Developer);
    assert_eq!(
        core.second_factor_step(&dev, session.second_factor, Some(session))
            .await
            .expect("step"),
        None
    );
}
