//! A test OpenID Connect provider on loopback that forges what a real one never would: its
//! token endpoint answers whatever ID token the test mints from the sign-in's nonce.
use super::*;
use authz::keys::{GeneratedKey, Signer, SigningAlg, generate};
use std::sync::Mutex;

pub(super) const CLIENT_ID: &str = "portcullis";
pub(super) const CLIENT_SECRET: &str = "a-client-secret-of-thirty-two-bytes!";

/// What the test IdP's token endpoint answers next: an ID token made from the nonce the
/// authorization request carried.
pub(super) type Mint = Box<dyn Fn(&str) -> serde_json::Value + Send + Sync>;

/// A token response the test IdP makes from the nonce.
pub(super) type Forgery = fn(&Idp, &str) -> serde_json::Value;

pub(super) struct Idp {
    pub(super) issuer: String,
    /// The signing key and its `kid`; [`Idp::rotate`] replaces them and the published JWKS.
    pub(super) key: Mutex<(GeneratedKey, String)>,
    pub(super) jwks: Arc<Mutex<String>>,
    pub(super) next: Arc<Mutex<Option<Mint>>>,
    /// The nonce of the sign-in under way, as the token endpoint needs it.
    pub(super) nonce: Arc<Mutex<String>>,
    /// The `acr_values` the last authorization request asked for.
    pub(super) acr_values: Mutex<String>,
}

impl Idp {
    /// Starts the IdP on loopback: discovery, keys and a token endpoint that answers `next`.
    pub(super) async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let issuer = format!("http://{}", listener.local_addr().expect("addr"));
        let key = generate(SigningAlg::ES256).expect("key");
        let jwks = Arc::new(Mutex::new(Self::jwks_of(&key, "idp-1")));
        let served_jwks = jwks.clone();
        let discovery = serde_json::json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{issuer}/authorize"),
            "token_endpoint": format!("{issuer}/token"),
            "jwks_uri": format!("{issuer}/jwks"),
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        })
        .to_string();
        let next: Arc<Mutex<Option<Mint>>> = Arc::default();
        let nonce: Arc<Mutex<String>> = Arc::default();
        let (served_next, served_nonce) = (next.clone(), nonce.clone());
        let json = |body: String| ([(header::CONTENT_TYPE, "application/json")], body);
        let app = axum::Router::new()
            .route(
                "/.well-known/openid-configuration",
                axum::routing::get(move || async move { json(discovery) }),
            )
            .route(
                "/jwks",
                axum::routing::get(move || {
                    let body = served_jwks.lock().expect("lock").clone();
                    async move { json(body) }
                }),
            )
            .route(
                "/token",
                axum::routing::post(move || {
                    let (next, nonce) = (served_next.clone(), served_nonce.clone());
                    async move {
                        let n = nonce.lock().expect("lock").clone();
                        let body = next.lock().expect("lock").as_ref().map(|mint| mint(&n));
                        json(body.unwrap_or_default().to_string())
                    }
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            issuer,
            key: Mutex::new((key, "idp-1".into())),
            jwks,
            next,
            nonce,
            acr_values: Mutex::default(),
        }
    }

    pub(super) fn jwks_of(key: &GeneratedKey, kid: &str) -> String {
        let mut jwk = key.public_jwk.clone();
        jwk.insert("kid".into(), kid.into());
        jwk.insert("use".into(), "sig".into());
        jwk.insert("alg".into(), "ES256".into());
        serde_json::json!({"keys": [jwk]}).to_string()
    }

    /// Rotates to a new key with a new `kid`, published at once (the old one is gone).
    pub(super) fn rotate(&self, kid: &str) {
        let key = generate(SigningAlg::ES256).expect("key");
        *self.jwks.lock().expect("lock") = Self::jwks_of(&key, kid);
        *self.key.lock().expect("lock") = (key, kid.into());
    }

    pub(super) fn sign(&self, claims: &serde_json::Value) -> String {
        let (key, kid) = &*self.key.lock().expect("lock");
        Signer::from_pkcs8(kid, SigningAlg::ES256, &key.pkcs8)
            .expect("signer")
            .sign("JWT", claims)
            .expect("sign")
    }

    /// Good claims for `sub` in group `admins`.
    pub(super) fn claims(&self, sub: &str, nonce: &str) -> serde_json::Value {
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        serde_json::json!({
            "iss": self.issuer, "sub": sub, "aud": CLIENT_ID, "nonce": nonce,
            "iat": now, "exp": now + 300,
            "email": format!("{sub}@corp.example"), "email_verified": true, "name": sub,
            "groups": ["admins"],
        })
    }

    /// A token response around `id_token`.
    pub(super) fn answer(id_token: &str) -> serde_json::Value {
        serde_json::json!({"access_token": "at-1", "token_type": "Bearer", "expires_in": 300, "id_token": id_token})
    }
}
