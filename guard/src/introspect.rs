//! Confirming tokens with the realm's introspection endpoint (RFC 7662), for servers that must
//! notice a revocation before the token expires. Answers are cached per token for a short time,
//! and concurrent requests with one token share one question and its outcome, failures
//! included.
use crate::client::HttpError;
use crate::realm::Realm;
use portcullis_claims::AccessTokenClaims;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::OnceCell;

/// The most answers kept: beyond it, expired ones go, then all of them.
const MAX_ENTRIES: usize = 10_000;

/// One question to the realm, whose outcome every request asking meanwhile shares.
type Question = Arc<OnceCell<Result<bool, HttpError>>>;

pub(crate) struct Introspector {
    client_id: String,
    client_secret: String,
    ttl: Duration,
    answers: Mutex<HashMap<String, (bool, Instant)>>,
    /// Tokens (by `jti`) being asked about now. Entries are cloned only under this lock.
    asking: Mutex<HashMap<String, Question>>,
}

/// A request's share in a question: when it ends (answered or abandoned), the question leaves
/// `asking` once answered or once no other request waits for it. Abandoned with others
/// waiting, one of them asks in its place.
struct Share<'a> {
    map: &'a Mutex<HashMap<String, Question>>,
    jti: &'a str,
    question: Question,
}

impl Drop for Share<'_> {
    fn drop(&mut self) {
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let ours = map
            .get(self.jti)
            .is_some_and(|q| Arc::ptr_eq(q, &self.question));
        // Two holders: the map and this share.
        if ours && (self.question.initialized() || Arc::strong_count(&self.question) <= 2) {
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

    /// Whether the realm says the (verified) token is active.
    pub(crate) async fn is_active(
        &self,
        realm: &Realm,
        token: &str,
        claims: &AccessTokenClaims,
        now_unix: i64,
    ) -> Result<bool, HttpError> {
        if let Some(&(active, until)) = self
            .answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&claims.jti)
            && Instant::now() < until
        {
            return Ok(active);
        }
        let share = Share {
            map: &self.asking,
            jti: &claims.jti,
            question: Arc::clone(
                self.asking
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .entry(claims.jti.clone())
                    .or_default(),
            ),
        };
        share
            .question
            .get_or_init(|| self.ask(realm, token, claims, now_unix))
            .await
            .clone()
    }

    /// Asks the realm, and keeps the answer for the cache time (never past `exp`).
    async fn ask(
        &self,
        realm: &Realm,
        token: &str,
        claims: &AccessTokenClaims,
        now_unix: i64,
    ) -> Result<bool, HttpError> {
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
        let left = Duration::from_secs(u64::try_from(claims.exp - now_unix).unwrap_or(0));
        self.remember(&claims.jti, active, Instant::now(), left);
        Ok(active)
    }

    /// Keeps an answer for the cache time, never longer than the token has `left`, and never
    /// more than [`MAX_ENTRIES`] answers: expired ones go first, then all of them.
    fn remember(&self, jti: &str, active: bool, now: Instant, left: Duration) {
        let keep = self.ttl.min(left);
        if keep.is_zero() {
            return;
        }
        let mut answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        if answers.len() >= MAX_ENTRIES {
            answers.retain(|_, (_, until)| *until > now);
            if answers.len() >= MAX_ENTRIES {
                answers.clear();
            }
        }
        answers.insert(jti.to_owned(), (active, now + keep));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(i: &Introspector, jti: &str) -> Option<(bool, Instant)> {
        i.answers.lock().expect("lock").get(jti).copied()
    }

    #[test]
    fn answers_are_kept_for_the_cache_time_never_past_exp_and_bounded() {
        let i = Introspector::new("id".into(), "secret".into(), Duration::from_secs(30));
        let now = Instant::now();
        i.remember("long", true, now, Duration::from_secs(3600));
        assert_eq!(
            kept(&i, "long"),
            Some((true, now + Duration::from_secs(30)))
        );
        // The token expires in 5 s: its answer goes with it.
        i.remember("short", true, now, Duration::from_secs(5));
        assert_eq!(
            kept(&i, "short"),
            Some((true, now + Duration::from_secs(5)))
        );
        // Expired already: not kept at all.
        i.remember("gone", true, now, Duration::ZERO);
        assert_eq!(kept(&i, "gone"), None);
        // A zero cache time asks every time.
        let every_time = Introspector::new("id".into(), "secret".into(), Duration::ZERO);
        every_time.remember("t", false, now, Duration::from_secs(3600));
        assert_eq!(kept(&every_time, "t"), None);
        // Full: the expired answers go first, the live ones stay.
        {
            let mut answers = i.answers.lock().expect("lock");
            for n in 0..MAX_ENTRIES {
                answers.insert(format!("old{n}"), (true, now));
            }
        }
        let later = now + Duration::from_secs(1);
        i.remember("new", false, later, Duration::from_secs(3600));
        assert_eq!(i.answers.lock().expect("lock").len(), 3);
        assert!(kept(&i, "long").is_some() && kept(&i, "short").is_some());
        assert_eq!(
            kept(&i, "new"),
            Some((false, later + Duration::from_secs(30)))
        );
        // Full of live answers: all of them go.
        {
            let mut answers = i.answers.lock().expect("lock");
            for n in 0..MAX_ENTRIES {
                answers.insert(format!("live{n}"), (true, later + Duration::from_secs(30)));
            }
        }
        i.remember("newer", true, later, Duration::from_secs(3600));
        assert_eq!(i.answers.lock().expect("lock").len(), 1);
    }
}
