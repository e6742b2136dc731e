//! The core façade: construction, configuration and the helpers every domain shares.
//!
//! Operations live with their domain (`realms::ops`, `clients::ops`, `tokens::grants`, …), each
//! as methods on [`Core`]. Each takes the acting [`crate::Principal`] (or none, for sign-in and
//! protocol requests), checks the policy, validates input into domain types, and makes one store
//! call that commits the change together with its audit event.
use crate::cache::LookupCache;
use crate::clock::{Clock, SystemClock, UnixTime};
use crate::fetch::{DocumentCache, Fetcher, NoFetcher};
use crate::keys::{KeyRing, MasterKey};
use crate::realms::{self, RealmName};
use crate::secret::PasswordHasher;
use crate::storage::DynStore;
use crate::throttle::Throttle;
use std::sync::Arc;

/// Configuration of the core, passed in by the server.
#[derive(Debug, Clone)]
pub struct CoreConfig {
    /// Public base URL (scheme, host, optional path; no trailing slash needed).
    pub public_url: String,
    /// Lifetime of the first-admin setup link.
    pub setup_link_ttl_secs: i64,
    /// Lifetime of password-reset and new-user links.
    pub reset_link_ttl_secs: i64,
    /// Key-encryption key for signing keys at rest.
    pub master_key: MasterKey,
    /// Accept `http://` resource URIs on loopback hosts (development).
    pub allow_http_loopback: bool,
    /// Let client URLs (`jwks_uri`) point at loopback hosts, over http or https (development
    /// and tests; SSRF protection refuses them otherwise).
    pub allow_loopback_fetch: bool,
    /// Password hashes computed at once (Argon2 on blocking threads); default one per core.
    pub password_hash_permits: usize,
    /// The MCP registry `portcullis registry import <name>` reads from (its API base; a base
    /// ending in `/v0` or `/v0.1` is taken as the registry's root).
    pub registry_import_base: String,
    /// How long a gateway call that can change things waits for a person (then denied), and
    /// how long an approved call may then be run.
    pub gateway_approval_ttl_secs: i64,
}

/// The official MCP Registry.
pub const DEFAULT_REGISTRY_IMPORT_BASE: &str = "https://registry.modelcontextprotocol.io";

impl Default for CoreConfig {
    fn default() -> Self {
        Self {
            public_url: "http://127.0.0.1:3000".to_owned(),
            setup_link_ttl_secs: 24 * 3600,
            reset_link_ttl_secs: 24 * 3600,
            master_key: MasterKey::generate(),
            allow_http_loopback: false,
            allow_loopback_fetch: false,
            password_hash_permits: std::thread::available_parallelism()
                .map_or(1, std::num::NonZero::get),
            registry_import_base: DEFAULT_REGISTRY_IMPORT_BASE.to_owned(),
            gateway_approval_ttl_secs: crate::gateway::APPROVAL_TTL_SECS,
        }
    }
}

/// The authorization core. Cheap to clone.
#[derive(Clone)]
pub struct Core {
    pub(crate) store: DynStore,
    clock: Arc<dyn Clock>,
    config: Arc<CoreConfig>,
    pub(crate) login_throttle: Arc<Throttle>,
    /// Second-factor codes, apart from other counters: a flood of other keys (many sources)
    /// cannot evict an account's count of wrong codes.
    pub(crate) second_factor_throttle: Arc<Throttle>,
    pub(crate) client_throttle: Arc<Throttle>,
    pub(crate) hasher: Arc<PasswordHasher>,
    pub(crate) keyring: Arc<KeyRing>,
    pub(crate) cache: Arc<LookupCache>,
    /// Striped locks serialising refreshes of people's upstream tokens (the gateway).
    pub(crate) gateway_refresh_locks: Arc<[Arc<tokio::sync::Mutex<()>>]>,
    pub(crate) fetcher: Arc<dyn Fetcher>,
    /// Sends e-mail about decisions (nothing unless the server has SMTP settings).
    pub(crate) mailer: Arc<dyn crate::mail::Mailer>,
    /// Messages on their way at once ([`crate::mail::MAX_SENDING`]).
    pub(crate) mail_slots: Arc<tokio::sync::Semaphore>,
    pub(crate) documents: Arc<DocumentCache>,
    pub(crate) token_use: Arc<crate::access::usage::TokenUse>,
    /// Each realm's latest release, parsed and checked, by release id: the MCP Registry API
    /// answers from it instead of parsing the document on every request.
    pub(crate) served_registries: Arc<
        std::sync::Mutex<
            std::collections::HashMap<crate::realms::RealmId, Arc<crate::registry::ServedRegistry>>,
        >,
    >,
    /// What each release changed against the one before, by realm and sequence, with the
    /// release's id (releases never change): history pages diff each pair once.
    pub(crate) release_diffs: Arc<std::sync::Mutex<crate::registry::ReleaseDiffs>>,
    /// The batch writer of the token path's audit rows (token exchange).
    pub(crate) audit_batch: Arc<crate::audit::AuditBatcher>,
    /// The batch reader of revocations on the token path (verification of presented tokens).
    pub(crate) revocations: Arc<crate::tokens::RevocationReader>,
    /// Discovered metadata of the console's sign-in providers.
    pub(crate) sso_metadata: Arc<crate::sso::MetadataCache>,
    /// The MCP gateway's upstream health, as this process saw it.
    pub(crate) gateway_health: Arc<crate::gateway::HealthBoard>,
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Core")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Core {
    /// A core on the system clock.
    pub fn new(store: DynStore, config: CoreConfig) -> Self {
        Self::with_clock(store, config, Arc::new(SystemClock))
    }

    /// A core on the given clock (tests).
    pub fn with_clock(store: DynStore, config: CoreConfig, clock: Arc<dyn Clock>) -> Self {
        Self {
            store,
            clock,
            hasher: Arc::new(PasswordHasher::new(config.password_hash_permits)),
            config: Arc::new(config),
            login_throttle: Arc::default(),
            second_factor_throttle: Arc::default(),
            client_throttle: Arc::default(),
            keyring: Arc::default(),
            cache: Arc::default(),
            gateway_refresh_locks: (0..64).map(|_| Arc::default()).collect(),
            fetcher: Arc::new(NoFetcher),
            mailer: Arc::new(crate::mail::NoMail),
            mail_slots: Arc::new(tokio::sync::Semaphore::new(crate::mail::MAX_SENDING)),
            documents: Arc::default(),
            token_use: Arc::default(),
            served_registries: Arc::default(),
            release_diffs: Arc::default(),
            audit_batch: Arc::new(crate::audit::audit_batcher()),
            revocations: Arc::new(crate::tokens::revocation_reader()),
            sso_metadata: Arc::default(),
            gateway_health: Arc::default(),
        }
    }

    /// This core, fetching client documents (a `private_key_jwt` client's `jwks_uri`) with
    /// `fetcher`. Without one, clients with a `jwks_uri` cannot authenticate.
    #[must_use]
    pub fn with_fetcher(mut self, fetcher: Arc<dyn Fetcher>) -> Self {
        self.fetcher = fetcher;
        self
    }

    /// Replaces the mailer (by default nothing is sent).
    pub fn with_mailer(mut self, mailer: Arc<dyn crate::mail::Mailer>) -> Self {
        self.mailer = mailer;
        self
    }

    /// The board the MCP gateway reports its upstreams' health on.
    pub fn gateway_health(&self) -> Arc<crate::gateway::HealthBoard> {
        self.gateway_health.clone()
    }

    /// The configuration.
    pub fn config(&self) -> &CoreConfig {
        &self.config
    }

    /// Now, from the injected clock.
    pub fn now(&self) -> UnixTime {
        self.clock.now()
    }

    /// The issuer of a realm.
    pub fn issuer(&self, realm: &RealmName) -> String {
        realms::issuer(&self.config.public_url, realm)
    }

    /// The console's security review queue, where a reviewer decides the clients that wait.
    pub fn review_queue_url(&self) -> String {
        format!("{}/review", self.base_url())
    }

    /// The public URL without a trailing slash.
    pub(crate) fn base_url(&self) -> &str {
        self.config.public_url.trim_end_matches('/')
    }
}
