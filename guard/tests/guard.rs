//! The guard against a stand-in realm on loopback: metadata, JWKS and introspection with
//! counters and switches, tokens signed here.
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _,
};
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::routing::{get, post};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use http::{Request, StatusCode, header};
use http_body_util::BodyExt as _;
use portcullis_guard::{AccessTokenClaims, AgentClaims, Caller, Guard, Rejection};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tower::ServiceExt as _;

const RESOURCE: &str = "http://127.0.0.1:9/mcp";

/// A key the stand-in realm signs with.
struct Signer {
    kid: String,
    key: EcdsaKeyPair,
}

impl Signer {
    fn new(kid: &str) -> Self {
        let rng = SystemRandom::new();
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("key");
        Self {
            kid: kid.into(),
            key: EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref())
                .expect("key"),
        }
    }

    fn jwk(&self) -> Value {
        let point = self.key.public_key().as_ref();
        json!({"kty": "EC", "crv": "P-256", "kid": self.kid, "alg": "ES256", "use": "sig",
            "x": B64.encode(&point[1..33]), "y": B64.encode(&point[33..])})
    }

    fn sign_raw(&self, header: &Value, claims: &Value) -> String {
        let signing_input = format!(
            "{}.{}",
            B64.encode(header.to_string()),
            B64.encode(claims.to_string())
        );
        let sig = self
            .key
            .sign(&SystemRandom::new(), signing_input.as_bytes())
            .expect("sign");
        format!("{signing_input}.{}", B64.encode(sig.as_ref()))
    }

    fn sign(&self, claims: &Value) -> String {
        self.sign_raw(
            &json!({"alg": "ES256", "typ": "at+jwt", "kid": self.kid}),
            claims,
        )
    }
}

#[derive(Default)]
struct Switches {
    jwks: Mutex<Value>,
    jwks_fetches: AtomicUsize,
    /// How long the JWK Set takes to arrive, in milliseconds.
    jwks_delay_ms: AtomicU64,
    discoveries: AtomicUsize,
    down: AtomicBool,
    other_issuer: AtomicBool,
    revoked: Mutex<HashSet<String>>,
    introspections: AtomicUsize,
    /// How long an introspection answer takes, in milliseconds.
    introspect_delay_ms: AtomicU64,
}

/// The stand-in realm, serving on loopback.
struct TestRealm {
    issuer: String,
    switches: Arc<Switches>,
    signer: Signer,
}

async fn metadata(State((issuer, s)): State<(String, Arc<Switches>)>) -> axum::Json<Value> {
    s.discoveries.fetch_add(1, Ordering::SeqCst);
    let named = if s.other_issuer.load(Ordering::SeqCst) {
        format!("{issuer}-other")
    } else {
        issuer.clone()
    };
    axum::Json(json!({
        "issuer": named,
        "jwks_uri": format!("{issuer}/jwks"),
        "introspection_endpoint": format!("{issuer}/introspect"),
    }))
}

async fn jwks(
    State((_, s)): State<(String, Arc<Switches>)>,
) -> Result<axum::Json<Value>, StatusCode> {
    s.jwks_fetches.fetch_add(1, Ordering::SeqCst);
    let delay = s.jwks_delay_ms.load(Ordering::SeqCst);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    if s.down.load(Ordering::SeqCst) {
        return Err(StatusCode::SERVICE_UNAVAILABLE);
    }
    Ok(axum::Json(s.jwks.lock().expect("lock").clone()))
}

async fn introspect(
    State((_, s)): State<(String, Arc<Switches>)>,
    headers: http::HeaderMap,
    body: String,
) -> Result<axum::Json<Value>, StatusCode> {
    s.introspections.fetch_add(1, Ordering::SeqCst);
    let delay = s.introspect_delay_ms.load(Ordering::SeqCst);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    if s.down.load(Ordering::SeqCst) {
        return Err(StatusCode::SERVICE_UNAVAILABLE);
    }
    let expected = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode("mcp-introspect:s3cret")
    );
    if headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        != Some(expected.as_str())
    {
        return Err(StatusCode::UNAUTHORIZED);
    }
    let token = url::form_urlencoded::parse(body.as_bytes())
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    let payload: Value = token
        .split('.')
        .nth(1)
        .and_then(|p| B64.decode(p).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let jti = payload["jti"].as_str().unwrap_or_default();
    let active = !s.revoked.lock().expect("lock").contains(jti);
    Ok(axum::Json(json!({ "active": active })))
}

impl TestRealm {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let issuer = format!(
            "http://{}/realms/test",
            listener.local_addr().expect("addr")
        );
        let signer = Signer::new("key-1");
        let switches = Arc::new(Switches::default());
        *switches.jwks.lock().expect("lock") = json!({"keys": [signer.jwk()]});
        let app = Router::new()
            .route(
                "/.well-known/oauth-authorization-server/realms/test",
                get(metadata),
            )
            .route("/realms/test/jwks", get(jwks))
            .route("/realms/test/introspect", post(introspect))
            .with_state((issuer.clone(), switches.clone()));
        tokio::spawn(async move { axum::serve(listener, app).await.expect("serve") });
        Self {
            issuer,
            switches,
            signer,
        }
    }

    fn claims(&self) -> Value {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("time")
            .as_secs();
        serde_json::to_value(AccessTokenClaims {
            iss: self.issuer.clone(),
            sub: "reports-bot".into(),
            aud: RESOURCE.into(),
            client_id: "reports-bot".into(),
            scope: "tools:call tools:read".into(),
            iat: now as i64,
            exp: now as i64 + 300,
            jti: format!("at_{}", B64.encode(SystemRandom::new().random_bytes16())),
            agent: Some(AgentClaims {
                nhi: true,
                agent_id: "agt_1".into(),
                agent_name: "Reports".into(),
                agent_owner: "owner@example.com".into(),
                roles: vec!["mcp:tools".into()],
            }),
            act: None,
            mcp_server: None,
            mcp_release: None,
            origin: serde_json::from_value(json!({"client": "cli_1", "resource": "res_1"}))
                .expect("origin"),
        })
        .expect("claims")
    }

    fn token(&self) -> String {
        self.signer.sign(&self.claims())
    }

    fn guard(&self) -> portcullis_guard::GuardBuilder {
        Guard::builder(&self.issuer, RESOURCE)
            .expect("builder")
            .required_scopes(["tools:call"])
    }

    fn fetches(&self) -> usize {
        self.switches.jwks_fetches.load(Ordering::SeqCst)
    }
}

trait Random16 {
    fn random_bytes16(&self) -> [u8; 16];
}

impl Random16 for SystemRandom {
    fn random_bytes16(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        aws_lc_rs::rand::SecureRandom::fill(self, &mut b).expect("random");
        b
    }
}

async fn whoami(caller: Caller) -> axum::Json<Value> {
    axum::Json(json!({
        "sub": caller.subject(),
        "client_id": caller.client_id(),
        "aud": caller.audience(),
        "scopes": caller.scopes().collect::<Vec<_>>(),
        "agent": caller.agent().map(|a| &a.agent_name),
        "owner": caller.agent().map(|a| &a.agent_owner),
        "roles": caller.roles(),
        "actors": caller.actors().map(|a| &a.sub).collect::<Vec<_>>(),
        "mcp_server": caller.mcp_server(),
        "mcp_release": caller.mcp_release(),
    }))
}

fn app(guard: &Guard) -> Router {
    Router::new()
        .route("/mcp", post(whoami))
        .route(
            "/admin",
            post(whoami).layer(guard.layer_requiring(["admin:write"]).expect("scopes")),
        )
        .layer(guard.layer())
        .merge(guard.metadata_router())
}

async fn call(
    app: &Router,
    method: &str,
    path: &str,
    token: Option<&str>,
) -> (StatusCode, http::HeaderMap, String) {
    let mut req = Request::builder().method(method).uri(path);
    if let Some(t) = token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    let res = app
        .clone()
        .oneshot(req.body(Body::empty()).expect("request"))
        .await
        .expect("infallible");
    let (parts, body) = res.into_parts();
    let body = body.collect().await.expect("body").to_bytes();
    (
        parts.status,
        parts.headers,
        String::from_utf8_lossy(&body).into_owned(),
    )
}

fn www(h: &http::HeaderMap) -> &str {
    h.get(header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_valid_token_reaches_the_handler_with_its_verified_caller() {
    let realm = TestRealm::start().await;
    let guard = realm.guard().build().expect("guard");
    let (status, _, body) = call(&app(&guard), "POST", "/mcp", Some(&realm.token())).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let who: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(
        who,
        json!({"sub": "reports-bot", "client_id": "reports-bot", "aud": RESOURCE,
            "scopes": ["tools:call", "tools:read"], "agent": "Reports",
            "owner": "owner@example.com", "roles": ["mcp:tools"], "actors": [],
            "mcp_server": null, "mcp_release": null})
    );
    assert_eq!(realm.fetches(), 1);
}

#[tokio::test]
async fn an_exchanged_token_shows_its_delegation_chain_and_registry_server() {
    let realm = TestRealm::start().await;
    let guard = realm.guard().build().expect("guard");
    let mut claims = realm.claims();
    claims["act"] = json!({"sub": "mail-mcp", "act": {"sub": "claude-code", "agent_id": "agt_9"}});
    claims["mcp_server"] = json!("mail");
    claims["mcp_release"] = json!("rel_7");
    let token = realm.signer.sign(&claims);
    let (status, _, body) = call(&app(&guard), "POST", "/mcp", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let who: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(who["actors"], json!(["mail-mcp", "claude-code"]));
    assert_eq!(who["mcp_server"], "mail");
    assert_eq!(who["mcp_release"], "rel_7");
}

#[tokio::test]
async fn no_token_gets_exactly_the_challenge_clients_discover_from() {
    let realm = TestRealm::start().await;
    let guard = realm.guard().build().expect("guard");
    for auth in [None, Some("Basic cmVwb3J0czpzZWNyZXQ=")] {
        let mut req = Request::post("/mcp");
        if let Some(a) = auth {
            req = req.header(header::AUTHORIZATION, a);
        }
        let res = app(&guard)
            .oneshot(req.body(Body::empty()).expect("request"))
            .await
            .expect("infallible");
        assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            www(res.headers()),
            "Bearer resource_metadata=\"http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp\", scope=\"tools:call\""
        );
    }
    // Nothing was fetched to say so.
    assert_eq!(realm.fetches(), 0);
}

#[tokio::test]
async fn tokens_that_are_not_for_this_resource_or_not_access_tokens_are_refused() {
    let realm = TestRealm::start().await;
    let guard = realm.guard().build().expect("guard");
    let app = app(&guard);
    let mut cases: Vec<(&str, String)> = Vec::new();
    let with = |f: &dyn Fn(&mut Value)| {
        let mut c = realm.claims();
        f(&mut c);
        realm.signer.sign(&c)
    };
    cases.push((
        "another resource",
        with(&|c| c["aud"] = json!("http://127.0.0.1:9/other")),
    ));
    cases.push((
        "a trailing slash is another resource",
        with(&|c| c["aud"] = json!("http://127.0.0.1:9/mcp/")),
    ));
    cases.push(("an audience list", with(&|c| c["aud"] = json!([RESOURCE]))));
    cases.push((
        "another issuer",
        with(&|c| c["iss"] = json!("http://127.0.0.1:9/realms/other")),
    ));
    cases.push((
        "expired beyond the leeway",
        with(&|c| c["exp"] = json!(c["iat"].as_i64().unwrap_or(0) - 400)),
    ));
    cases.push((
        "no exp",
        with(&|c| {
            c.as_object_mut().map(|o| o.remove("exp"));
        }),
    ));
    let header = |h: Value| realm.signer.sign_raw(&h, &realm.claims());
    cases.push((
        "an ID token",
        header(json!({"alg": "ES256", "typ": "JWT", "kid": "key-1"})),
    ));
    cases.push(("no typ", header(json!({"alg": "ES256", "kid": "key-1"}))));
    cases.push((
        "a critical header",
        header(json!({"alg": "ES256", "typ": "at+jwt", "kid": "key-1", "crit": ["exp"]})),
    ));
    cases.push(("no kid", header(json!({"alg": "ES256", "typ": "at+jwt"}))));
    cases.push((
        "HS256",
        header(json!({"alg": "HS256", "typ": "at+jwt", "kid": "key-1"})),
    ));
    let unsigned = format!(
        "{}.{}.",
        B64.encode(json!({"alg": "none", "typ": "at+jwt", "kid": "key-1"}).to_string()),
        B64.encode(realm.claims().to_string())
    );
    cases.push(("alg none", unsigned));
    // An EdDSA signature presented under the EC key's kid (algorithm confusion).
    let ed = Ed25519KeyPair::generate().expect("ed25519");
    let input = format!(
        "{}.{}",
        B64.encode(json!({"alg": "EdDSA", "typ": "at+jwt", "kid": "key-1"}).to_string()),
        B64.encode(realm.claims().to_string())
    );
    cases.push((
        "another algorithm than the key's",
        format!("{input}.{}", B64.encode(ed.sign(input.as_bytes()).as_ref())),
    ));
    let good = realm.token();
    let mut parts: Vec<&str> = good.split('.').collect();
    let forged = B64.encode(
        realm
            .claims()
            .to_string()
            .replace("tools:call tools:read", "tools:call admin:write"),
    );
    parts[1] = &forged;
    cases.push(("a changed payload", parts.join(".")));
    cases.push((
        "another realm's key",
        Signer::new("key-1").sign(&realm.claims()),
    ));
    cases.push(("an unknown key", Signer::new("key-9").sign(&realm.claims())));
    cases.push(("four parts", format!("{good}.x")));
    cases.push(("not base64", "a.b.c".into()));
    for (why, token) in cases {
        let (status, headers, _) = call(&app, "POST", "/mcp", Some(&token)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{why}");
        assert!(
            www(&headers).starts_with("Bearer error=\"invalid_token\", error_description=\"")
                && www(&headers).ends_with(", resource_metadata=\"http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp\""),
            "{why}: {}",
            www(&headers)
        );
    }
    // Within the leeway a just-expired token still passes.
    let fresh = with(&|c| c["exp"] = json!(c["iat"].as_i64().unwrap_or(0) - 10));
    assert_eq!(
        call(&app, "POST", "/mcp", Some(&fresh)).await.0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_token_without_a_needed_scope_gets_the_step_up_challenge() {
    let realm = TestRealm::start().await;
    let guard = realm.guard().build().expect("guard");
    let app = app(&guard);
    let (status, headers, _) = call(&app, "POST", "/admin", Some(&realm.token())).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        www(&headers),
        "Bearer error=\"insufficient_scope\", error_description=\"The token lacks a scope this request needs.\", resource_metadata=\"http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp\", scope=\"admin:write\""
    );
    let mut c = realm.claims();
    c["scope"] = json!("tools:read");
    let (status, headers, _) = call(&app, "POST", "/mcp", Some(&realm.signer.sign(&c))).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(
        www(&headers).ends_with("scope=\"tools:call\""),
        "{}",
        www(&headers)
    );
}

#[tokio::test]
async fn a_new_key_is_fetched_when_a_token_names_it() {
    let realm = TestRealm::start().await;
    let guard = realm
        .guard()
        .min_refetch_interval(Duration::ZERO)
        .build()
        .expect("guard");
    assert!(guard.verify(&realm.token()).await.is_ok());
    let next = Signer::new("key-2");
    *realm.switches.jwks.lock().expect("lock") = json!({"keys": [realm.signer.jwk(), next.jwk()]});
    assert!(guard.verify(&next.sign(&realm.claims())).await.is_ok());
    assert_eq!(realm.fetches(), 2);
    // Known keys fetch nothing.
    assert!(guard.verify(&realm.token()).await.is_ok());
    assert_eq!(realm.fetches(), 2);
}

#[tokio::test]
async fn unknown_keys_cannot_make_the_guard_fetch_on_every_request() {
    let realm = TestRealm::start().await;
    let guard = realm.guard().build().expect("guard");
    assert!(guard.verify(&realm.token()).await.is_ok());
    for i in 0..20 {
        let token = Signer::new(&format!("random-{i}")).sign(&realm.claims());
        assert!(matches!(
            guard.verify(&token).await,
            Err(Rejection::InvalidToken(_))
        ));
    }
    assert_eq!(
        realm.fetches(),
        1,
        "one fetch per interval, however many unknown kids"
    );
}

#[tokio::test]
async fn concurrent_first_requests_share_one_fetch() {
    let realm = TestRealm::start().await;
    let guard = realm.guard().build().expect("guard");
    let token = realm.token();
    let all = (0..32).map(|_| {
        let (g, t) = (guard.clone(), token.clone());
        tokio::spawn(async move { g.verify(&t).await.is_ok() })
    });
    for ok in futures_join(all).await {
        assert!(ok);
    }
    assert_eq!(realm.fetches(), 1);
}

/// Spawned all at once (collected before the first is awaited), then joined.
async fn futures_join(handles: impl Iterator<Item = tokio::task::JoinHandle<bool>>) -> Vec<bool> {
    let handles: Vec<_> = handles.collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.expect("task"));
    }
    out
}

#[tokio::test]
async fn stale_keys_stay_in_use_while_the_realm_is_down_and_refresh_in_the_background() {
    let realm = TestRealm::start().await;
    let guard = realm
        .guard()
        .key_cache_ttl(Duration::ZERO)
        .min_refetch_interval(Duration::ZERO)
        .build()
        .expect("guard");
    assert!(guard.verify(&realm.token()).await.is_ok());
    assert_eq!(realm.fetches(), 1);
    // Stale: answered at once with the keys at hand, refreshed behind the request.
    assert!(guard.verify(&realm.token()).await.is_ok());
    wait_for(|| realm.fetches() >= 2).await;
    realm.switches.down.store(true, Ordering::SeqCst);
    for _ in 0..3 {
        assert!(
            guard.verify(&realm.token()).await.is_ok(),
            "stale-while-error"
        );
    }
    // Past max_stale there is nothing to verify with: 503, not 401.
    let strict = realm
        .guard()
        .key_cache_ttl(Duration::ZERO)
        .max_stale(Duration::ZERO)
        .build()
        .expect("guard");
    let (status, headers, _) = call(&app(&strict), "POST", "/mcp", Some(&realm.token())).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(headers.get(header::RETRY_AFTER).is_some());
    assert!(headers.get(header::WWW_AUTHENTICATE).is_none());
}

async fn wait_for(done: impl Fn() -> bool) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while !done() {
            tokio::task::yield_now().await;
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("in time");
}

#[tokio::test]
async fn metadata_for_another_issuer_is_refused() {
    let realm = TestRealm::start().await;
    realm.switches.other_issuer.store(true, Ordering::SeqCst);
    let guard = realm.guard().build().expect("guard");
    assert_eq!(
        guard.verify(&realm.token()).await.err(),
        Some(Rejection::Unavailable)
    );
    assert!(
        guard
            .refresh_keys()
            .await
            .expect_err("refused")
            .contains("issuer")
    );
    assert_eq!(realm.fetches(), 0);
}

#[tokio::test]
async fn introspection_confirms_tokens_and_caches_the_answer() {
    let realm = TestRealm::start().await;
    let count = || realm.switches.introspections.load(Ordering::SeqCst);
    let cached = realm
        .guard()
        .introspection("mcp-introspect", "s3cret")
        .build()
        .expect("guard");
    let token = realm.token();
    let jti = serde_json::from_slice::<Value>(
        &B64.decode(token.split('.').nth(1).expect("payload"))
            .expect("b64"),
    )
    .expect("json")["jti"]
        .as_str()
        .expect("jti")
        .to_owned();
    assert!(cached.verify(&token).await.is_ok());
    assert!(cached.verify(&token).await.is_ok());
    assert_eq!(count(), 1, "the second answer comes from the cache");
    realm.switches.revoked.lock().expect("lock").insert(jti);
    let every_time = realm
        .guard()
        .introspection("mcp-introspect", "s3cret")
        .introspection_cache_ttl(Duration::ZERO)
        .build()
        .expect("guard");
    assert_eq!(
        every_time.verify(&token).await.err(),
        Some(Rejection::InvalidToken("The token has been revoked."))
    );
    // Wrong credentials or a realm that does not answer: fail closed, as unavailable.
    let wrong = realm
        .guard()
        .introspection("mcp-introspect", "wrong")
        .build()
        .expect("guard");
    assert_eq!(
        wrong.verify(&realm.token()).await.err(),
        Some(Rejection::Unavailable)
    );
}

#[tokio::test]
async fn concurrent_requests_with_one_token_share_one_introspection() {
    let realm = TestRealm::start().await;
    let count = || realm.switches.introspections.load(Ordering::SeqCst);
    let guard = realm
        .guard()
        .introspection("mcp-introspect", "s3cret")
        .build()
        .expect("guard");
    // Keys fetched first, so that the requests below meet at the introspection.
    assert!(guard.verify(&realm.token()).await.is_ok());
    realm
        .switches
        .introspect_delay_ms
        .store(200, Ordering::SeqCst);
    let token = realm.token();
    let all = (0..16).map(|_| {
        let (g, t) = (guard.clone(), token.clone());
        tokio::spawn(async move { g.verify(&t).await.is_ok() })
    });
    for ok in futures_join(all).await {
        assert!(ok);
    }
    assert_eq!(count(), 2, "one question for the sixteen requests");
    // A request that goes away while asking does not leave the others waiting for it.
    let other = realm.token();
    let _ = tokio::time::timeout(Duration::from_millis(50), guard.verify(&other)).await;
    assert!(guard.verify(&other).await.is_ok());
    assert_eq!(count(), 4);
    // A failure is shared as well: the requests waiting for the question fail with it at once
    // rather than asking again one after another.
    realm.switches.down.store(true, Ordering::SeqCst);
    let token = realm.token();
    let all = (0..16).map(|_| {
        let (g, t) = (guard.clone(), token.clone());
        tokio::spawn(async move { g.verify(&t).await.err() == Some(Rejection::Unavailable) })
    });
    for unavailable in futures_join(all).await {
        assert!(unavailable);
    }
    assert_eq!(count(), 5, "one question for the sixteen failures");
}

#[tokio::test]
async fn the_metadata_is_public_at_both_well_known_urls() {
    let realm = TestRealm::start().await;
    let guard = realm
        .guard()
        .resource_name("Payments MCP")
        .resource_documentation("https://docs.example.com/payments")
        .build()
        .expect("guard");
    let app = app(&guard);
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let (status, headers, body) = call(&app, "GET", path, None).await;
        assert_eq!(status, StatusCode::OK, "{path}");
        assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
        assert_eq!(headers[header::CONTENT_TYPE], "application/json");
        assert_eq!(
            serde_json::from_str::<Value>(&body).expect("json"),
            json!({
                "resource": RESOURCE,
                "authorization_servers": [realm.issuer],
                "scopes_supported": ["tools:call"],
                "bearer_methods_supported": ["header"],
                "resource_name": "Payments MCP",
                "resource_documentation": "https://docs.example.com/payments",
            })
        );
        assert_eq!(
            call(&app, "OPTIONS", path, None).await.0,
            StatusCode::NO_CONTENT
        );
    }
    // The guarded route needs a token whatever the method (preflights are a CORS layer's).
    assert_eq!(
        call(&app, "OPTIONS", "/mcp", None).await.0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_handler_outside_the_layer_cannot_pretend_to_have_a_caller() {
    let app: Router = Router::new().route("/open", post(whoami));
    assert_eq!(
        call(&app, "POST", "/open", None).await.0,
        StatusCode::INTERNAL_SERVER_ERROR
    );
}

#[tokio::test]
async fn pinned_keys_need_no_realm() {
    let realm = TestRealm::start().await;
    let guard = realm
        .guard()
        .jwks(json!({"keys": [realm.signer.jwk()]}))
        .build()
        .expect("guard");
    assert!(guard.verify(&realm.token()).await.is_ok());
    let other = Signer::new("key-2").sign(&realm.claims());
    assert!(matches!(
        guard.verify(&other).await,
        Err(Rejection::InvalidToken(_))
    ));
    assert_eq!(realm.fetches(), 0);
    assert!(matches!(
        realm.guard().jwks(json!({"keys": []})).build(),
        Err(portcullis_guard::ConfigError::Jwks(_))
    ));
}

#[tokio::test]
async fn requests_during_a_fetch_wait_for_its_keys() {
    let realm = TestRealm::start().await;
    realm.switches.jwks_delay_ms.store(300, Ordering::SeqCst);
    let guard = realm.guard().build().expect("guard");
    // The first request starts the fetch and goes away; the fetch goes on without it.
    let _ = tokio::time::timeout(Duration::ZERO, guard.verify(&realm.token())).await;
    // Too soon for a fetch of its own, the next request waits for that one's keys.
    assert!(guard.verify(&realm.token()).await.is_ok());
    assert_eq!(realm.fetches(), 1);
}

#[tokio::test]
async fn requests_that_go_away_cannot_make_the_guard_fetch_again() {
    let realm = TestRealm::start().await;
    let guard = realm.guard().build().expect("guard");
    // Each verification is dropped at its first pause (a client that disconnects): the fetch
    // it started still counts, and still finishes.
    for i in 0..20 {
        let token = Signer::new(&format!("gone-{i}")).sign(&realm.claims());
        let _ = tokio::time::timeout(Duration::ZERO, guard.verify(&token)).await;
    }
    // A request arriving while that fetch is under way waits for its keys.
    assert!(guard.verify(&realm.token()).await.is_ok());
    assert_eq!(
        realm.fetches(),
        1,
        "one fetch per interval, cancelled or not"
    );
    assert_eq!(realm.switches.discoveries.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn rs256_tokens_verify_with_the_realms_rsa_key() {
    use aws_lc_rs::signature::RsaKeyPair;
    let realm = TestRealm::start().await;
    let rsa = RsaKeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048).expect("rsa");
    let public = rsa.public_key();
    let jwk = json!({"kty": "RSA", "kid": "rsa-1", "alg": "RS256",
        "n": B64.encode(public.modulus().big_endian_without_leading_zero()),
        "e": B64.encode(public.exponent().big_endian_without_leading_zero())});
    *realm.switches.jwks.lock().expect("lock") = json!({"keys": [realm.signer.jwk(), jwk]});
    let input = format!(
        "{}.{}",
        B64.encode(json!({"alg": "RS256", "typ": "at+jwt", "kid": "rsa-1"}).to_string()),
        B64.encode(realm.claims().to_string())
    );
    let mut sig = vec![0; rsa.public_modulus_len()];
    rsa.sign(
        &aws_lc_rs::signature::RSA_PKCS1_SHA256,
        &SystemRandom::new(),
        input.as_bytes(),
        &mut sig,
    )
    .expect("sign");
    let guard = realm.guard().build().expect("guard");
    assert!(
        guard
            .verify(&format!("{input}.{}", B64.encode(&sig)))
            .await
            .is_ok()
    );
    sig[10] ^= 1;
    assert!(matches!(
        guard.verify(&format!("{input}.{}", B64.encode(&sig))).await,
        Err(Rejection::InvalidToken(_))
    ));
}

#[tokio::test]
async fn unbounded_durations_mean_forever_not_a_panic() {
    let realm = TestRealm::start().await;
    let guard = realm
        .guard()
        .key_cache_ttl(Duration::MAX)
        .max_stale(Duration::MAX)
        .leeway(Duration::MAX)
        .build()
        .expect("guard");
    assert!(guard.verify(&realm.token()).await.is_ok());
    assert!(guard.verify(&realm.token()).await.is_ok());
    assert_eq!(realm.fetches(), 1);
}

#[tokio::test]
async fn step_up_scopes_must_be_scope_tokens() {
    let realm = TestRealm::start().await;
    let guard = realm.guard().build().expect("guard");
    for bad in ["a\"b", "a b", "x\r\ny", ""] {
        assert!(
            matches!(
                guard.layer_requiring([bad]),
                Err(portcullis_guard::ConfigError::Scope(_))
            ),
            "{bad:?}"
        );
    }
}
