//! The authorization server as the guard knows it: its endpoints, discovered from the issuer
//! (RFC 8414), and its signing keys, fetched and cached.
//!
//! Keys are fetched on first use, kept fresh for the JWK Set's `max-age` (or the configured
//! time), refetched when a token names an unknown `kid` — at most once per
//! `min_refetch_interval`, whoever asks — and kept in use while the authorization server cannot
//! be reached, up to `max_stale` past their freshness (stale-while-error). A stale key set is
//! refreshed in the background while requests go on with it. A request that finds no usable
//! key while a fetch is under way waits for that fetch rather than failing.
use crate::client::{Http, HttpError};
use crate::config::{DEFAULT_KEY_TTL, MAX_KEY_TTL, MIN_KEY_TTL};
use crate::keys::{Key, KeySet};
use crate::metadata::split_origin;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

/// Endpoints read from the realm's metadata.
#[derive(Debug)]
pub(crate) struct Endpoints {
    pub(crate) jwks_uri: String,
    pub(crate) introspection_endpoint: Option<String>,
}

/// What a key lookup found.
#[derive(Debug)]
pub(crate) enum Lookup {
    Found(Arc<Key>),
    /// The realm's current keys do not include it.
    Unknown,
    /// No usable keys: the realm could not be reached (or its keys are too stale).
    Unavailable,
}

pub(crate) struct CachePolicy {
    pub(crate) ttl: Option<Duration>,
    pub(crate) min_refetch: Duration,
    pub(crate) max_stale: Duration,
}

#[derive(Default)]
struct State {
    endpoints: Option<Arc<Endpoints>>,
    keys: Arc<KeySet>,
    /// When the keys were fetched, and for how long they are fresh.
    fetched: Option<(Instant, Duration)>,
    /// When a fetch was last attempted, successful or not.
    attempted: Option<Instant>,
    /// Counts attempts, so a request that waited for another's fetch does not fetch again.
    generation: u64,
    /// When discovery alone (pinned keys, introspection) was last attempted.
    discovery_attempted: Option<Instant>,
}

pub(crate) struct Realm {
    pub(crate) issuer: String,
    http: Http,
    policy: CachePolicy,
    /// Keys given at build time: never fetched.
    pinned: bool,
    state: RwLock<State>,
    refresh: Arc<tokio::sync::Mutex<()>>,
}

impl Realm {
    pub(crate) fn new(
        issuer: String,
        http: Http,
        policy: CachePolicy,
        pinned: Option<KeySet>,
    ) -> Self {
        let pinned_keys = pinned.is_some();
        let state = State {
            keys: Arc::new(pinned.unwrap_or_default()),
            ..State::default()
        };
        Self {
            issuer,
            http,
            policy,
            pinned: pinned_keys,
            state: RwLock::new(state),
            refresh: Arc::new(tokio::sync::Mutex::new(())),
        }
    }

    fn state(&self) -> std::sync::RwLockReadGuard<'_, State> {
        self.state.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn lookup(&self, kid: &str, now: Instant) -> Lookup {
        let s = self.state();
        if s.keys.is_empty() {
            return Lookup::Unavailable;
        }
        let too_stale = |(at, fresh): (Instant, Duration)| {
            at.checked_add(fresh)
                .and_then(|t| t.checked_add(self.policy.max_stale))
                .is_some_and(|t| now > t)
        };
        if !self.pinned && s.fetched.is_none_or(too_stale) {
            return Lookup::Unavailable;
        }
        s.keys
            .get(kid)
            .cloned()
            .map_or(Lookup::Unknown, Lookup::Found)
    }

    /// The key `kid` names, fetching the realm's keys when needed (see the module docs).
    pub(crate) async fn key(self: &Arc<Self>, kid: &str) -> Lookup {
        let now = Instant::now();
        let found = self.lookup(kid, now);
        if self.pinned {
            return found;
        }
        let (fresh, may_fetch, generation) = {
            let s = self.state();
            (
                s.fetched
                    .is_some_and(|(at, fresh)| at.checked_add(fresh).is_none_or(|t| now < t)),
                self.may_fetch(s.attempted, now),
                s.generation,
            )
        };
        match found {
            Lookup::Found(_) if fresh => found,
            Lookup::Found(_) => {
                // Stale but usable: answer with it and refresh in the background.
                if may_fetch && let Ok(lock) = Arc::clone(&self.refresh).try_lock_owned() {
                    self.spawn_fetch(lock);
                }
                found
            }
            Lookup::Unknown | Lookup::Unavailable if may_fetch => {
                let lock = Arc::clone(&self.refresh).lock_owned().await;
                if self.state().generation == generation {
                    // The fetch runs on its own task holding the lock: a caller that goes
                    // away (a dropped request) cannot cancel it, and it counts as an attempt
                    // from the moment it starts.
                    let _finished = self.spawn_fetch(lock).await;
                } else {
                    drop(lock);
                }
                self.lookup(kid, Instant::now())
            }
            Lookup::Unknown | Lookup::Unavailable => {
                // Too soon for a fetch of our own, but one may be under way (started by a
                // request that has since gone away, or by a background refresh): its answer
                // is the one this request is waiting for.
                if self.refresh.try_lock().is_err() {
                    drop(self.refresh.lock().await);
                }
                // Looked up again either way: a fetch may have ended since the first look.
                self.lookup(kid, Instant::now())
            }
        }
    }

    fn may_fetch(&self, attempted: Option<Instant>, now: Instant) -> bool {
        attempted.is_none_or(|t| now.duration_since(t) >= self.policy.min_refetch)
    }

    /// Marks an attempt and fetches the keys on a task of its own, which holds `lock` until
    /// done.
    fn spawn_fetch(
        self: &Arc<Self>,
        lock: tokio::sync::OwnedMutexGuard<()>,
    ) -> tokio::task::JoinHandle<()> {
        {
            let mut s = self.state.write().unwrap_or_else(PoisonError::into_inner);
            s.attempted = Some(Instant::now());
            s.generation += 1;
        }
        let realm = Arc::clone(self);
        tokio::spawn(async move {
            // A failure is logged there; keys at hand stay in use.
            let _logged = realm.fetch_keys().await;
            drop(lock);
        })
    }

    /// The realm's endpoints, discovering them if no fetch has yet (at most once per
    /// `min_refetch_interval` while discovery fails).
    pub(crate) async fn endpoints(&self) -> Option<Arc<Endpoints>> {
        if let Some(e) = self.state().endpoints.clone() {
            return Some(e);
        }
        let _lock = self.refresh.lock().await;
        let now = Instant::now();
        {
            let s = self.state();
            if let Some(e) = s.endpoints.clone() {
                return Some(e);
            }
            if !self.may_fetch(s.discovery_attempted, now) {
                return None;
            }
        }
        self.state
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .discovery_attempted = Some(now);
        match self.discover().await {
            Ok(e) => {
                let e = Arc::new(e);
                self.state
                    .write()
                    .unwrap_or_else(PoisonError::into_inner)
                    .endpoints = Some(Arc::clone(&e));
                Some(e)
            }
            Err(e) => {
                tracing::warn!(issuer = %self.issuer, "Failed to discover the authorization server: {e}");
                None
            }
        }
    }

    /// Fetches the keys now (discovering the endpoints first if needed).
    pub(crate) async fn fetch_keys(&self) -> Result<(), HttpError> {
        let result = self.try_fetch_keys().await;
        let mut s = self.state.write().unwrap_or_else(PoisonError::into_inner);
        match result {
            Ok((endpoints, keys, max_age)) => {
                let fresh = self.policy.ttl.unwrap_or_else(|| {
                    max_age.map_or(DEFAULT_KEY_TTL, |a| a.clamp(MIN_KEY_TTL, MAX_KEY_TTL))
                });
                s.endpoints = Some(endpoints);
                s.keys = Arc::new(keys);
                s.fetched = Some((Instant::now(), fresh));
                Ok(())
            }
            Err(e) => {
                tracing::warn!(issuer = %self.issuer, "Failed to fetch the realm's signing keys: {e}");
                Err(e)
            }
        }
    }

    /// [`Realm::fetch_keys`] now, as an attempt like any other (`Guard::refresh_keys`).
    pub(crate) async fn refresh_now(self: &Arc<Self>) -> Result<(), HttpError> {
        let _lock = self.refresh.lock().await;
        {
            let mut s = self.state.write().unwrap_or_else(PoisonError::into_inner);
            s.attempted = Some(Instant::now());
            s.generation += 1;
        }
        self.fetch_keys().await
    }

    async fn try_fetch_keys(
        &self,
    ) -> Result<(Arc<Endpoints>, KeySet, Option<Duration>), HttpError> {
        let known = self.state().endpoints.clone();
        let endpoints = match known {
            Some(e) => e,
            None => Arc::new(self.discover().await?),
        };
        let json = self.http.get_json(&endpoints.jwks_uri).await?;
        let keys = KeySet::parse(&json.body).map_err(HttpError)?;
        Ok((endpoints, keys, json.max_age))
    }

    /// RFC 8414 §3: the metadata at the issuer's path-inserted well-known URL (then the OpenID
    /// Connect one), which must name exactly this issuer (§3.3).
    async fn discover(&self) -> Result<Endpoints, HttpError> {
        let (origin, path) = split_origin(&self.issuer);
        let path = path.trim_end_matches('/');
        let urls = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!(
                "{}/.well-known/openid-configuration",
                self.issuer.trim_end_matches('/')
            ),
        ];
        let mut last = HttpError("no metadata URL".into());
        for url in urls {
            match self.http.get_json(&url).await {
                Ok(json) => return self.endpoints_of(&json.body),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    fn endpoints_of(&self, m: &serde_json::Value) -> Result<Endpoints, HttpError> {
        let text = |name: &str| m.get(name).and_then(serde_json::Value::as_str);
        if text("issuer") != Some(self.issuer.as_str()) {
            return Err(HttpError(format!(
                "the metadata names issuer {:?}, not {:?}",
                text("issuer").unwrap_or_default(),
                self.issuer
            )));
        }
        let jwks_uri = text("jwks_uri")
            .ok_or_else(|| HttpError("the metadata has no jwks_uri".into()))?
            .to_owned();
        let introspection_endpoint = text("introspection_endpoint").map(str::to_owned);
        // Keys of an https issuer come over https, and the introspection secret goes over it.
        if self.issuer.starts_with("https://")
            && (!jwks_uri.starts_with("https://")
                || introspection_endpoint
                    .as_deref()
                    .is_some_and(|e| !e.starts_with("https://")))
        {
            return Err(HttpError(
                "the jwks_uri or introspection_endpoint is not https".into(),
            ));
        }
        Ok(Endpoints {
            jwks_uri,
            introspection_endpoint,
        })
    }

    pub(crate) fn http(&self) -> &Http {
        &self.http
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_https_realm_names_https_endpoints_only() {
        let realm = Realm::new(
            "https://id.example.com/realms/acme".into(),
            Http::new().expect("client"),
            CachePolicy {
                ttl: None,
                min_refetch: Duration::ZERO,
                max_stale: Duration::ZERO,
            },
            None,
        );
        let with = |jwks: &str, introspection: &str| {
            realm.endpoints_of(&serde_json::json!({
                "issuer": "https://id.example.com/realms/acme",
                "jwks_uri": jwks,
                "introspection_endpoint": introspection,
            }))
        };
        assert!(
            with(
                "https://id.example.com/jwks",
                "https://id.example.com/introspect"
            )
            .is_ok()
        );
        assert!(
            with(
                "http://id.example.com/jwks",
                "https://id.example.com/introspect"
            )
            .is_err()
        );
        assert!(
            with(
                "https://id.example.com/jwks",
                "http://id.example.com/introspect"
            )
            .is_err()
        );
        assert!(
            realm
                .endpoints_of(&serde_json::json!({"issuer": "https://id.example.com/realms/other", "jwks_uri": "https://id.example.com/jwks"}))
                .is_err()
        );
    }
}
