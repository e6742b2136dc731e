//! Confirming tokens with the realm's introspection endpoint (RFC 7662), for servers that must
//! notice a revocation before the token expires. Answers are cached per token for a short time,
//! and concurrent requests with one token share one question to the realm.
use crate::client::HttpError;
use crate::realm::Realm;
use portcullis_claims::AccessTokenClaims;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The most answers kept: beyond it, expired ones go, then all of them.
const MAX_ENTRIES: usize = 10_000;

pub(crate) struct Introspector {
    client_id: String,
    client_secret: String,
    ttl: Duration,
    answers: Mutex<HashMap<String, (bool, Instant)>>,
    /// Tokens (by `jti`) being asked about now: a request with one of them waits its turn and
    /// then finds the answer cached.
    asking: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// Takes a token's entry out of `asking` when its question is done or abandoned.
struct Asking<'a> {
    map: &'a Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    jti: &'a str,
    turn: Arc<tokio::sync::Mutex<()>>,
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        if map
            .get(self.jti)
            .is_some_and(|t| Arc::ptr_eq(t, &self.turn))
        {
            map.remove(self.jti);
        }
    }
}

impl std::fmt::Debug for Introspector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Introspector")
            .field("client_id", &self.client_id)
            .field("client_secret", &"[redacted]")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl Introspector {
    pub(crate) fn new(client_id: String, client_secret: String, ttl: Duration) -> Self {
        Self {
            client_id,
            client_secret,
            ttl,
            answers: Mutex::new(HashMap::new()),
            asking: Mutex::new(HashMap::new()),
        }
    }

    fn cached(&self, jti: &str) -> Option<bool> {
        self.answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(jti)
            .and_then(|&(active, until)| (Instant::now() < until).then_some(active))
    }

    /// Whether the realm says the (verified) token is active.
    pub(crate) async fn is_active(
        &self,
        realm: &Realm,
        token: &str,
        claims: &AccessTokenClaims,
        now_unix: i64,
    ) -> Result<bool, HttpError> {
        if let Some(active) = self.cached(&claims.jti) {
            return Ok(active);
        }
        let turn = Arc::clone(
            self.asking
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(claims.jti.clone())
                .or_default(),
        );
        let _asking = Asking {
            map: &self.asking,
            jti: &claims.jti,
            turn: Arc::clone(&turn),
        };
        let _turn = turn.lock().await;
        // Another request may have asked while this one waited.
        if let Some(active) = self.cached(&claims.jti) {
            return Ok(active);
        }
        let endpoint = realm
            .endpoints()
            .await
            .and_then(|e| e.introspection_endpoint.clone())
            .ok_or_else(|| HttpError("the realm has no introspection endpoint".into()))?;
        let json = realm
            .http()
            .post_form(
                &endpoint,
                (&self.client_id, &self.client_secret),
                &[("token", token), ("token_type_hint", "access_token")],
            )
            .await?;
        let active = json.body.get("active") == Some(&serde_json::Value::Bool(true));
        let now = Instant::now();
        let left = Duration::from_secs(u64::try_from(claims.exp - now_unix).unwrap_or(0));
        let keep = self.ttl.min(left);
        if !keep.is_zero() {
            let mut answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
            if answers.len() >= MAX_ENTRIES {
                answers.retain(|_, (_, until)| *until > now);
                if answers.len() >= MAX_ENTRIES {
                    answers.clear();
                }
            }
            answers.insert(claims.jti.clone(), (active, now + keep));
        }
        Ok(active)
    }
}
