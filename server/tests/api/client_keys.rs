//! `private_key_jwt` clients that publish their keys at a `jwks_uri`: fetched over real HTTP
//! from a server the test runs, cached, refetched when an assertion names a new key (at most
//! once a minute), kept through fetch failures, and never fetched from private addresses.
use super::*;
use authz::clients::ClientForm;
use authz::fetch::{FetchError, Fetcher as _};
use authz::keys::{Signer, SigningAlg, generate};
use authz::resources::ResourceInput;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

const PAY: &str = "https://pay.example.com/mcp";
const ISSUER: &str = "http://127.0.0.1:3000/realms/default";

/// What the client's key server answers, and how often it was asked.
#[derive(Clone)]
struct KeyServer {
    answer: Arc<Mutex<(u16, String)>>,
    hits: Arc<AtomicUsize>,
}

impl KeyServer {
    async fn start() -> (Self, std::net::SocketAddr) {
        let ks = KeyServer {
            answer: Arc::new(Mutex::new((200, String::new()))),
            hits: Arc::default(),
        };
        let state = ks.clone();
        let app = axum::Router::new().route(
            "/jwks",
            axum::routing::get(move || {
                let s = state.clone();
                async move {
                    s.hits.fetch_add(1, Ordering::SeqCst);
                    let (status, body) = s.answer.lock().expect("lock").clone();
                    (
                        StatusCode::from_u16(status).expect("status"),
                        [
                            (header::CACHE_CONTROL, "max-age=600"),
                            (header::LOCATION, "http://169.254.169.254/latest"),
                        ],
                        body,
                    )
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move { axum::serve(listener, app).await });
        (ks, addr)
    }

    fn publish(&self, status: u16, body: String) {
        *self.answer.lock().expect("lock") = (status, body);
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

fn client(jwks: &str, jwks_uri: &str) -> ClientForm {
    ClientForm {
        name: "Remote keys".into(),
        auth_method: "private_key_jwt".into(),
        scope: "tools:call".into(),
        jwks: jwks.into(),
        jwks_uri: jwks_uri.into(),
        ..Default::default()
    }
}

#[tokio::test]
async fn keys_at_a_jwks_uri_are_fetched_cached_and_refetched_on_rotation() {
    let clock = authz::clock::FixedClock::at(time::OffsetDateTime::now_utc().unix_timestamp());
    let t = TestServer::with(
        |c| c.dev.allow_loopback_client_urls = true,
        Arc::new(clock.clone()),
    )
    .await;
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    let core = &t.state.core;
    let resource = ResourceInput {
        slug: "pay".into(),
        display_name: "Pay".into(),
        uri: PAY.into(),
        scopes: "tools:call".into(),
        enabled: true,
        ..Default::default()
    };
    core.create_resource(&cli, "default", &resource, &meta)
        .await
        .expect("resource");

    let (keys, addr) = KeyServer::start().await;
    let jwk = |kid: &str, key: &authz::keys::GeneratedKey| {
        let mut jwk = key.public_jwk.clone();
        jwk.insert("kid".into(), kid.into());
        serde_json::Value::Object(jwk)
    };
    let (k1, k2) = (
        generate(SigningAlg::ES256).expect("key"),
        generate(SigningAlg::ES256).expect("key"),
    );
    keys.publish(
        200,
        serde_json::json!({"keys": [jwk("k1", &k1)]}).to_string(),
    );
    let url = format!("http://{addr}/jwks");

    // Registration: exactly one of jwks / jwks_uri.
    let err = register_granted_client(core, &cli, "remote", client("{\"keys\":[]}", &url))
        .await
        .expect_err("both");
    assert!(err.to_string().contains("not both"), "{err}");
    let (c, secret) = register_granted_client(core, &cli, "remote", client("", &url))
        .await
        .expect("client");
    assert!(secret.is_none());
    assert_eq!(c.metadata.jwks_uri.as_deref(), Some(url.as_str()));
    assert_eq!(keys.hits(), 0, "nothing is fetched at registration");

    let jti = AtomicUsize::new(0);
    let token = |kid: &str, key: &authz::keys::GeneratedKey| {
        let signer = Signer::from_pkcs8(kid, SigningAlg::ES256, &key.pkcs8).expect("signer");
        let now = authz::clock::Clock::now(&clock);
        let claims = serde_json::json!({
            "iss": "remote", "sub": "remote", "aud": ISSUER, "iat": now, "exp": now + 60,
            "jti": format!("jti-{}", jti.fetch_add(1, Ordering::SeqCst)),
        });
        let assertion = signer.sign("JWT", &claims).expect("sign");
        let form = format!(
            "grant_type=client_credentials&resource={}&client_assertion_type={}&client_assertion={assertion}",
            enc(PAY),
            enc(authz::tokens::JWT_BEARER_ASSERTION)
        );
        let req = Request::post("/realms/default/token")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(form))
            .expect("request");
        let t = &t;
        async move {
            let res = t.send(req).await;
            let status = res.status();
            let json: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
            match status {
                StatusCode::OK => Ok(()),
                _ => Err(json["error"].as_str().unwrap_or_default().to_owned()),
            }
        }
    };

    let cli = &cli;
    let status = |refresh: bool| async move {
        let keys = if refresh {
            core.refresh_client_keys(cli, "default", "remote").await
        } else {
            core.get_client(cli, "default", "remote")
                .await
                .map(|d| d.remote_keys)
        };
        keys.expect("status").expect("a jwks_uri client")
    };
    let before = status(false).await;
    assert_eq!(
        (before.kids.len(), before.fetched_at),
        (0, None),
        "not fetched yet"
    );
    let t0 = authz::clock::Clock::now(&clock);
    assert_eq!(token("k1", &k1).await, Ok(()));
    assert_eq!(token("k1", &k1).await, Ok(()));
    assert_eq!(keys.hits(), 1, "the JWKS is cached");
    let s = status(false).await;
    assert_eq!(s.kids, ["k1"]);
    assert_eq!(
        (s.fetched_at, s.fresh_until, s.last_error),
        (Some(t0), Some(t0 + 600), None),
        "max-age=600 honoured"
    );

    // The client rotates to k2. Within a minute of the last fetch, no refetch: refused.
    keys.publish(
        200,
        serde_json::json!({"keys": [jwk("k1", &k1), jwk("k2", &k2)]}).to_string(),
    );
    assert_eq!(token("k2", &k2).await, Err("invalid_client".into()));
    assert_eq!(keys.hits(), 1, "unknown kids refetch at most once a minute");
    clock.advance(61);
    assert_eq!(token("k2", &k2).await, Ok(()), "refetched for the new kid");
    assert_eq!(keys.hits(), 2);
    assert_eq!(token("nope", &k2).await, Err("invalid_client".into()));
    assert_eq!(
        keys.hits(),
        2,
        "an unknown kid right after a fetch does not refetch"
    );

    // After max-age (600 s) the document is refetched; if that fails, the last good one is used.
    keys.publish(500, "oops".into());
    clock.advance(601);
    assert_eq!(
        token("k1", &k1).await,
        Ok(()),
        "stale keys survive a failed fetch"
    );
    assert_eq!(keys.hits(), 3);
    let s = status(false).await;
    assert_eq!(s.kids, ["k1", "k2"], "the last good keys are still in use");
    assert_eq!(
        s.last_error.as_deref(),
        Some("failed: HTTP status 500 Internal Server Error")
    );
    // An admin can fetch now, whatever the cache says.
    let s = status(true).await;
    assert_eq!(keys.hits(), 4, "fetched on request");
    assert!(s.last_error.is_some());
    // A document that is not a valid public JWKS is not taken either.
    keys.publish(
        200,
        serde_json::json!({"keys": [{"kty": "oct", "k": "AAAA"}]}).to_string(),
    );
    clock.advance(61);
    assert_eq!(token("k1", &k1).await, Ok(()));
    assert_eq!(keys.hits(), 5);
    let error = status(false).await.last_error.expect("refused document");
    assert!(error.contains("not a public JWK Set"), "{error}");
    // The client dropped k1: once refetched, k1 no longer works.
    keys.publish(
        200,
        serde_json::json!({"keys": [jwk("k2", &k2)]}).to_string(),
    );
    clock.advance(601);
    assert_eq!(token("k1", &k1).await, Err("invalid_client".into()));
    assert_eq!(token("k2", &k2).await, Ok(()));
    assert_eq!(keys.hits(), 6);
    assert_eq!(status(false).await.kids, ["k2"]);
}

#[tokio::test]
async fn the_fetcher_refuses_private_addresses_redirects_and_large_documents() {
    let (keys, addr) = KeyServer::start().await;
    let url = |s: &str| url::Url::parse(s).expect("url");
    let strict = server::fetch::HttpFetcher::new(false).expect("fetcher");
    // SSRF: loopback by IP literal and by a name that resolves to it, without the dev setting.
    for target in [
        format!("https://127.0.0.1:{}/jwks", addr.port()),
        format!("https://localhost:{}/jwks", addr.port()),
        "https://[::1]/jwks".to_owned(),
        "https://169.254.169.254/latest/meta-data".to_owned(),
    ] {
        let err = strict.fetch_json(&url(&target)).await.expect_err(&target);
        assert!(matches!(err, FetchError::Refused(_)), "{target}: {err:?}");
    }
    assert!(matches!(
        strict
            .fetch_json(&url(&format!("http://{addr}/jwks")))
            .await,
        Err(FetchError::Refused(_))
    ));
    assert_eq!(keys.hits(), 0, "nothing reached the private address");

    let dev = server::fetch::HttpFetcher::new(true).expect("fetcher");
    let jwks = url(&format!("http://{addr}/jwks"));
    keys.publish(200, r#"{"keys": []}"#.into());
    let ok = dev.fetch_json(&jwks).await.expect("fetch");
    assert_eq!(ok.body, serde_json::json!({"keys": []}));
    assert_eq!(ok.max_age_secs, Some(600));
    // Redirects are not followed (the Location points at the metadata service).
    keys.publish(302, String::new());
    assert_eq!(
        dev.fetch_json(&jwks).await,
        Err(FetchError::Failed("HTTP status 302 Found".into()))
    );
    keys.publish(200, format!("{{\"pad\": \"{}\"}}", "a".repeat(70_000)));
    assert_eq!(
        dev.fetch_json(&jwks).await,
        Err(FetchError::Failed("document too large".into()))
    );
    keys.publish(200, "<html>".into());
    assert_eq!(
        dev.fetch_json(&jwks).await,
        Err(FetchError::Failed("not a JSON document".into()))
    );
    // Private addresses stay refused even in development.
    assert!(matches!(
        dev.fetch_json(&url("http://10.0.0.1/jwks")).await,
        Err(FetchError::Refused(_))
    ));
}

#[tokio::test]
async fn jwks_uris_must_be_public_https_urls() {
    let t = TestServer::new().await;
    let cli = authz::Principal::cli();
    for bad in [
        "http://keys.example.com/jwks",
        "https://127.0.0.1/jwks",
        "https://localhost/jwks",
        "https://10.0.0.7/jwks",
        "https://keys.example.com/jwks#x",
    ] {
        let err = register_granted_client(&t.state.core, &cli, "remote", client("", bad))
            .await
            .expect_err(bad);
        assert!(
            matches!(
                err,
                authz::Error::InvalidField {
                    field: "jwks_uri",
                    ..
                }
            ),
            "{bad}: {err:?}"
        );
    }
    register_granted_client(
        &t.state.core,
        &cli,
        "remote",
        client("", "https://keys.example.com/.well-known/jwks.json"),
    )
    .await
    .expect("public https URL");
}
