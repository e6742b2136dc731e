//! Gateway types: tool pins, attachments, the caller, and what a caller's toolset holds.
use crate::agents::Agent;
use crate::clock::UnixTime;
use crate::ids::RealmId;
use crate::realms::Realm;
use portcullis_claims::AccessTokenClaims;
use sha2::{Digest as _, Sha256};

/// The gateway resource's slug in each realm.
pub const GATEWAY_RESOURCE_SLUG: &str = "mcp-gateway";
/// The scope a token for the gateway carries.
pub const GATEWAY_SCOPE: &str = "mcp";
/// Longest tool definition (canonical JSON) the gateway pins: anything larger is refused.
pub const MAX_TOOL_DEFINITION_BYTES: usize = 64 * 1024;
/// Most tools one server may list; the rest are never offered.
pub const MAX_TOOLS_PER_SERVER: usize = 500;
/// Longest tool name kept.
pub const MAX_TOOL_NAME_LEN: usize = 128;

/// One definition of a tool: its RFC 8785 canonical JSON and that text's SHA-256.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedDefinition {
    /// The whole Tool object, canonical.
    pub canonical: String,
    /// Lowercase hex SHA-256 of `canonical`.
    pub sha256: String,
}

impl PinnedDefinition {
    /// The definition of a Tool object (as the server listed it).
    ///
    /// # Errors
    /// A message when it cannot be made canonical or is too large.
    pub fn of(tool: &serde_json::Value) -> Result<Self, String> {
        let bytes = portcullis_manifest::canonical::to_canonical(tool)?;
        if bytes.len() > MAX_TOOL_DEFINITION_BYTES {
            return Err(format!(
                "The definition is {} bytes; at most {MAX_TOOL_DEFINITION_BYTES} are pinned.",
                bytes.len()
            ));
        }
        let sha256 = hex::encode(Sha256::digest(&bytes));
        let canonical = String::from_utf8(bytes).map_err(|e| e.to_string())?;
        Ok(Self { canonical, sha256 })
    }
}

/// Where a tool's pin stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PinState {
    /// Listed exactly as accepted: offered.
    Accepted,
    /// Listed, never accepted: hidden.
    New,
    /// Listed with a definition other than the accepted one: hidden.
    Changed,
    /// Accepted, no longer listed: an administrator acknowledges it.
    Removed,
}

impl PinState {
    /// Display form.
    pub fn as_str(self) -> &'static str {
        match self {
            PinState::Accepted => "accepted",
            PinState::New => "new",
            PinState::Changed => "changed",
            PinState::Removed => "removed",
        }
    }
}

/// One tool of one registry server: as listed now and as accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolPin {
    /// Realm.
    pub realm_id: RealmId,
    /// The registry server's id.
    pub server_id: String,
    /// The tool's name as the server lists it.
    pub tool: String,
    /// What the server lists now (`None`: no longer listed).
    pub seen: Option<PinnedDefinition>,
    /// When it was last listed (or found gone).
    pub seen_at: UnixTime,
    /// What an administrator accepted (`None`: never).
    pub accepted: Option<PinnedDefinition>,
    /// Who accepted it.
    pub accepted_by: Option<String>,
    /// When.
    pub accepted_at: Option<UnixTime>,
}

impl ToolPin {
    /// Where it stands.
    pub fn state(&self) -> PinState {
        match (&self.seen, &self.accepted) {
            (Some(s), Some(a)) if s.sha256 == a.sha256 => PinState::Accepted,
            (Some(_), Some(_)) => PinState::Changed,
            (Some(_), None) => PinState::New,
            (None, _) => PinState::Removed,
        }
    }

    /// The accepted definition when the server lists exactly it now.
    pub fn offered(&self) -> Option<&PinnedDefinition> {
        (self.state() == PinState::Accepted)
            .then_some(self.accepted.as_ref())
            .flatten()
    }

    /// What differs between the accepted and the listed definition, field by field (top-level
    /// keys of the Tool object): `(field, accepted, listed)`, `None` where one side lacks it.
    pub fn diff(&self) -> Vec<FieldChange> {
        let parse = |d: &Option<PinnedDefinition>| {
            d.as_ref()
                .and_then(|d| serde_json::from_str::<serde_json::Value>(&d.canonical).ok())
                .and_then(|v| v.as_object().cloned())
                .unwrap_or_default()
        };
        let (before, after) = (parse(&self.accepted), parse(&self.seen));
        let mut keys: Vec<&String> = before.keys().chain(after.keys()).collect();
        keys.sort();
        keys.dedup();
        keys.into_iter()
            .filter(|k| before.get(*k) != after.get(*k))
            .map(|k| FieldChange {
                field: k.clone(),
                accepted: before.get(k).map(pretty),
                listed: after.get(k).map(pretty),
            })
            .collect()
    }
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// One field of a tool definition that changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldChange {
    /// The Tool object's key (`description`, `inputSchema`, …).
    pub field: String,
    /// As accepted (`None`: absent).
    pub accepted: Option<String>,
    /// As listed now (`None`: absent).
    pub listed: Option<String>,
}

/// A registry server attached to an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The registry server's id.
    pub server_id: String,
    /// Who attached it.
    pub attached_by: String,
    /// When.
    pub attached_at: UnixTime,
}

/// The verified caller of a realm's gateway.
#[derive(Debug, Clone)]
pub struct GatewayCaller {
    /// The realm.
    pub realm: Realm,
    /// The access token's claims (audience: the gateway).
    pub claims: AccessTokenClaims,
    /// The token itself: the subject of each exchange for an upstream (never sent upstream).
    pub token: String,
    /// The agent the token names, loaded.
    pub agent: Option<Agent>,
}

impl GatewayCaller {
    /// A key that is the same for every token of one caller (realm, subject, agent, client):
    /// what an upstream connection, an MCP session and an approval are kept under.
    pub fn key(&self) -> String {
        format!(
            "{}\u{1f}{}\u{1f}{}\u{1f}{}",
            self.realm.id.as_str(),
            self.claims.sub,
            self.agent.as_ref().map_or("", |a| a.id.as_str()),
            self.claims.client_id
        )
    }

    /// The person the token stands for, when it is a person's.
    pub fn person(&self) -> Option<&str> {
        self.claims
            .origin
            .root_family()
            .is_some()
            .then_some(self.claims.sub.as_str())
    }
}

/// Why a registry server gives the caller no tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exclusion {
    /// The latest release does not give it to the caller's rings or units.
    NotForCaller,
    /// The calling agent has not been attached to it.
    NotAttached,
    /// It runs on laptops (a package or a command), not behind a URL.
    NotRemote,
    /// Its authentication mode is not one the gateway uses yet.
    AuthMode(&'static str),
    /// Each person connects their own account at it (`auth.mode = oauth`): a caller acting for
    /// no person has none.
    PersonOnly,
}

impl Exclusion {
    /// What the console and the audit say.
    pub fn reason(&self) -> String {
        match self {
            Exclusion::NotForCaller => {
                "The latest release does not give this server to the caller's rings or units."
                    .into()
            }
            Exclusion::NotAttached => "Not attached to this agent.".into(),
            Exclusion::NotRemote => {
                "Runs on laptops (a package or a command): the gateway reaches only servers behind a URL.".into()
            }
            Exclusion::AuthMode(mode) => format!(
                "auth.mode = {mode}: the gateway reaches servers with auth.mode portcullis, oauth or none."
            ),
            Exclusion::PersonOnly => "auth.mode = oauth: each person connects their own account at this server, and this caller acts for no person.".into(),
        }
    }
}

/// How the gateway authenticates to one upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpstreamAuth {
    /// No credential.
    None,
    /// A token exchanged for the caller, with the gateway as actor.
    Portcullis,
    /// The token of the calling person's own account at the server's authorization server.
    OAuth,
}

/// One person's connection to an upstream with its own authorization server: their tokens,
/// sealed under the master key for exactly this realm, person and server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamConnection {
    /// The realm.
    pub realm_id: RealmId,
    /// The person (or console account) whose account it is.
    pub subject: String,
    /// The registry server.
    pub server_id: String,
    /// The authorization server that issued the tokens.
    pub issuer: String,
    /// The tokens and where to refresh them, sealed.
    pub sealed_tokens: Vec<u8>,
    /// When the access token expires (Unix seconds).
    pub access_expires_at: i64,
    /// The scopes granted (space-separated; what the server answered, else what was asked).
    pub scope: String,
    /// When the person connected.
    pub connected_at: i64,
    /// When the tokens were last refreshed (or connected).
    pub refreshed_at: i64,
}

/// The client secret an administrator gave the gateway for one server's authorization server.
///
/// The gateway is a confidential client there (Google's web application clients, for one).
/// Sealed under the master key for exactly this realm and server, with the client id and the
/// authorization server it was issued for: it is sent only there, and only while the registry
/// still names both.
#[derive(Clone, PartialEq, Eq)]
pub struct UpstreamClientSecret {
    /// The realm.
    pub realm_id: RealmId,
    /// The registry server.
    pub server_id: String,
    /// The client id the secret belongs to (the registry's `auth.clientId`).
    pub client_id: String,
    /// The authorization server that issued it (the registry's `auth.issuer`).
    pub issuer: String,
    /// The server's URL then: the tokens it gets go there.
    pub resource: String,
    /// The secret, sealed.
    pub sealed_secret: Vec<u8>,
    /// Who set it.
    pub set_by: String,
    /// When (Unix seconds).
    pub set_at: i64,
}

impl std::fmt::Debug for UpstreamClientSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamClientSecret")
            .field("realm_id", &self.realm_id)
            .field("server_id", &self.server_id)
            .field("client_id", &self.client_id)
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("set_by", &self.set_by)
            .field("set_at", &self.set_at)
            .finish_non_exhaustive()
    }
}

/// Whether the gateway holds a client secret for a server with its own authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientSecretState {
    /// None: the gateway is a public client there (PKCE only).
    Unset,
    /// One, sent with each token request.
    Set {
        /// Who set it.
        set_by: String,
        /// When (Unix seconds).
        set_at: i64,
    },
    /// One given for another client id, authorization server or URL than the registry names
    /// now: never sent.
    Stale {
        /// Who set it.
        set_by: String,
        /// When (Unix seconds).
        set_at: i64,
        /// The client id and authorization server it was given for.
        client_id: String,
        issuer: String,
    },
}

/// One of a person's upstream connections, as their account page lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionView {
    /// The registry server.
    pub server_id: String,
    /// Its title in the registry (else its id).
    pub title: String,
    /// The authorization server.
    pub issuer: String,
    /// Scopes granted.
    pub scope: String,
    /// When the person connected.
    pub connected_at: i64,
}

/// What the connect link shows, and where its confirmed form sends the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectStart {
    /// Nobody is signed in at the realm: sign in on the account page first.
    SignIn {
        /// The account page.
        account_url: String,
    },
    /// Ask the person to confirm (a form posted with the account form token).
    Confirm(ConnectConfirm),
    /// To the upstream's authorization endpoint, with the sealed pending connection for a
    /// cookie of the browser.
    Redirect {
        /// The authorization request.
        location: String,
        /// The sealed pending connection.
        pending: String,
    },
}

/// The page asking a person to confirm connecting their account at a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectConfirm {
    /// The realm's display name.
    pub realm: String,
    /// The registry server (posted back).
    pub server_id: String,
    /// Its title.
    pub server: String,
    /// The host of its URL.
    pub host: String,
    /// Who is signed in (name and email).
    pub person: String,
    /// The authorization server of the connection it replaces, if any.
    pub replaces: Option<String>,
    /// The account form token the form carries.
    pub form_token: String,
    /// The person's account page (to sign out, or disconnect).
    pub account_url: String,
}

/// What the browser that comes back from an upstream's authorization server carries.
#[derive(Debug, Clone, Copy)]
pub struct ConnectBrowser<'a> {
    /// Its sign-in session cookie at the realm.
    pub session: Option<&'a str>,
    /// Its binding cookie.
    pub browser: &'a str,
    /// Its sealed pending connection.
    pub pending: Option<&'a str>,
}

/// A finished connection, for the page that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connected {
    /// The realm's display name.
    pub realm: String,
    /// The server's title.
    pub server: String,
}

/// One registry server as the caller's gateway sees it.
#[derive(Debug, Clone)]
pub struct GatewayServer {
    /// The registry's entry.
    pub server: portcullis_manifest::Server,
    /// The URL it is reached at (remote servers only).
    pub url: Option<String>,
    /// How the gateway authenticates there.
    pub auth: UpstreamAuth,
    /// Why it gives the caller nothing, if it does not.
    pub excluded: Option<Exclusion>,
}

/// What the caller may reach: the latest release's servers, each with its pins.
#[derive(Debug, Clone, Default)]
pub struct Toolset {
    /// The release (sequence) it comes from; `None` when nothing is published.
    pub release: Option<i64>,
    /// Every server of the release.
    pub servers: Vec<GatewayServer>,
    /// Every pin of the realm.
    pub pins: Vec<ToolPin>,
    /// The servers attached to the agent, when the toolset is an agent's.
    pub attached: Vec<String>,
}

impl Toolset {
    /// The pin of one tool.
    pub fn pin(&self, server: &str, tool: &str) -> Option<&ToolPin> {
        self.pins
            .iter()
            .find(|p| p.server_id == server && p.tool == tool)
    }
}

/// What the gateway records of one call (one audit row).
#[derive(Debug, Clone, Default)]
pub struct CallRecord {
    /// The capability's exact name (`<server>.<tool>`), as asked for (cut to 200 characters).
    pub name: String,
    /// `allowed`, `denied` or `not_found`.
    pub decision: &'static str,
    /// `ok`, `tool_error`, `upstream_error`, `invalid_arguments`, `timeout`, …
    pub outcome: String,
    /// Milliseconds the gateway took.
    pub latency_ms: u64,
    /// The upstream's HTTP status or error kind, if it was reached.
    pub upstream_status: Option<String>,
    /// The `_meta` ids the upstream received.
    pub session_id: Option<String>,
    /// The run id.
    pub run_id: Option<String>,
    /// The subjects the call is about.
    pub subject_ids: Vec<String>,
    /// W3C traceparent.
    pub traceparent: Option<String>,
    /// The approval the call asked for or ran with.
    pub approval_id: Option<String>,
}

/// What a realm's gateway is: where clients reach it and what their tokens carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayInfo {
    /// Its URL (the resource tokens name).
    pub url: String,
    /// The resource's slug.
    pub resource_slug: String,
    /// The scope tokens carry.
    pub scope: String,
    /// Whether it is on (its resource exists and is enabled).
    pub enabled: bool,
}

/// Why the gateway refuses a request before any tool is involved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GatewayRefusal {
    /// No such realm, or its gateway is off.
    NotFound,
    /// No token, or not a live token for the gateway: answered 401.
    InvalidToken(&'static str),
    /// The token lacks the gateway's scope: answered 403.
    InsufficientScope,
}

/// How long an approval waits for a person, and how long an approved call may then be run,
/// unless the gateway is configured otherwise.
pub const APPROVAL_TTL_SECS: i64 = 15 * 60;
/// Most approvals one caller may have waiting at once.
pub const MAX_PENDING_APPROVALS: usize = 20;

/// Where an approval stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalStatus {
    /// Waiting for a person.
    Pending,
    /// Approved, not yet run.
    Approved,
    /// Denied by a person.
    Denied,
    /// Run (an approval runs one call once).
    Used,
    /// Nobody decided in time, or the approved call was not run in time: denied.
    Expired,
}

impl ApprovalStatus {
    /// Stored and display form.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalStatus::Pending => "pending",
            ApprovalStatus::Approved => "approved",
            ApprovalStatus::Denied => "denied",
            ApprovalStatus::Used => "used",
            ApprovalStatus::Expired => "expired",
        }
    }

    /// The stored form read back.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "pending" => ApprovalStatus::Pending,
            "approved" => ApprovalStatus::Approved,
            "denied" => ApprovalStatus::Denied,
            "used" => ApprovalStatus::Used,
            "expired" => ApprovalStatus::Expired,
            _ => return None,
        })
    }
}

/// One call waiting for (or decided by) a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approval {
    /// `apr_…`: what the caller passes back.
    pub id: String,
    /// Realm.
    pub realm_id: RealmId,
    /// The caller ([`GatewayCaller::key`]): only they may run it.
    pub caller_key: String,
    /// The token's subject (a person, or the agent's client).
    pub sub: String,
    /// The calling agent.
    pub agent_id: Option<String>,
    /// The calling client.
    pub client_id: String,
    /// The registry server.
    pub server_id: String,
    /// Its tool.
    pub tool: String,
    /// The call's digest ([`call_digest`]): the approval runs exactly this call.
    pub arguments_sha256: String,
    /// The arguments with secret-looking values hidden, for the approver.
    pub arguments_preview: String,
    /// `write` or `external`.
    pub side_effect_class: String,
    /// `medium` or `high`.
    pub risk: String,
    /// As stored (see [`Approval::status_at`]).
    pub status: ApprovalStatus,
    /// When the caller asked.
    pub requested_at: UnixTime,
    /// When it lapses: undecided, or approved and not run.
    pub expires_at: UnixTime,
    /// Who decided.
    pub decided_by: Option<String>,
    /// When.
    pub decided_at: Option<UnixTime>,
    /// Why (the approver's words).
    pub reason: Option<String>,
}

impl Approval {
    /// Where it stands at `now`: waiting or approved past its expiry is expired.
    pub fn status_at(&self, now: UnixTime) -> ApprovalStatus {
        match self.status {
            ApprovalStatus::Pending | ApprovalStatus::Approved if self.expires_at <= now => {
                ApprovalStatus::Expired
            }
            s => s,
        }
    }

    /// `<server>.<tool>`.
    pub fn capability(&self) -> String {
        format!("{}.{}", self.server_id, self.tool)
    }
}

/// The digest an approval binds its call by: the exact arguments (numbers as sent, keys in
/// order), the subjects the call names and the accepted definition it runs against.
pub fn call_digest(
    arguments: &serde_json::Value,
    subject_ids: &[String],
    definition_sha256: &str,
) -> String {
    let call = serde_json::json!({
        "arguments": arguments,
        "subject_ids": subject_ids,
        "definition": definition_sha256,
    });
    hex::encode(Sha256::digest(
        serde_json::to_vec(&call).unwrap_or_default(),
    ))
}

/// Largest arguments (as JSON) a call that waits for approval may carry: the approver sees
/// all of them, never a cut.
pub const MAX_APPROVAL_ARGUMENT_BYTES: usize = 16 * 1024;

/// Whether an object key names something secret (its value is never shown): one of its words
/// (split at `_`, `-`, `.`, spaces and camelCase) is a secret's name.
fn secret_key(key: &str) -> bool {
    const SECRET: &[&str] = &[
        "password",
        "passwd",
        "passphrase",
        "pwd",
        "secret",
        "token",
        "key",
        "apikey",
        "auth",
        "authorization",
        "credential",
        "credentials",
        "cookie",
        "session",
        "private",
        "otp",
        "pin",
        "cvv",
        "ssn",
        "bearer",
        "signature",
    ];
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            words.push(std::mem::take(&mut word));
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    words.push(word);
    words.iter().any(|w| SECRET.contains(&w.as_str()))
}

/// A call's arguments for the person approving it, whole, with the values of keys that name
/// secrets (`password`, `api_key`, `authToken`, …) replaced by `"[redacted]"`.
pub fn redacted_preview(value: &serde_json::Value) -> String {
    fn walk(v: &serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match v {
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, v)| {
                        let shown = if secret_key(k) {
                            Value::String("[redacted]".into())
                        } else {
                            walk(v)
                        };
                        (k.clone(), shown)
                    })
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(walk).collect()),
            other => other.clone(),
        }
    }
    serde_json::to_string_pretty(&walk(value)).unwrap_or_default()
}

/// What a tool can do, from its definition's annotations.
///
/// `read` (read-only), `write` (changes things in a closed world) or `external` (reaches the
/// outside world). MCP's defaults apply when a hint is absent: not read-only, open world.
pub fn side_effect_class(tool: &serde_json::Value) -> &'static str {
    let hint = |k: &str| {
        tool.get("annotations")
            .and_then(|a| a.get(k))
            .and_then(serde_json::Value::as_bool)
    };
    if hint("readOnlyHint") == Some(true) {
        "read"
    } else if hint("openWorldHint") != Some(false) {
        "external"
    } else {
        "write"
    }
}

/// How much a call of the tool can hurt.
///
/// `low` (reads), `high` (may destroy: MCP's default), `medium` (changes things, marked not
/// destructive).
pub fn risk(tool: &serde_json::Value) -> &'static str {
    let destructive = tool
        .get("annotations")
        .and_then(|a| a.get("destructiveHint"))
        .and_then(serde_json::Value::as_bool)
        != Some(false);
    match side_effect_class(tool) {
        "read" => "low",
        _ if destructive => "high",
        _ => "medium",
    }
}

/// What a caller's approval id says about the call it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redeemed {
    /// Approved: the call runs now (the approval is used up).
    Run,
    /// Still waiting for a person, until this time (Unix seconds; then it lapses, denied).
    Waiting(i64),
    /// Denied, or lapsed.
    Refused(ApprovalStatus),
    /// No such approval for this caller and this exact call.
    Unknown,
}

/// Most upstreams the health board remembers.
const MAX_BOARD_ENTRIES: usize = 10_000;

/// One upstream's health as this process last saw it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpstreamStatus {
    /// `up`, `degraded` or `circuit_open`.
    pub availability: String,
    /// Calls since the process started.
    pub calls: u64,
    /// Failed calls since the process started.
    pub errors: u64,
    /// The last call's latency.
    pub last_latency_ms: u64,
    /// The last failure's kind.
    pub last_error: Option<String>,
    /// When it was last called.
    pub last_call_at: Option<UnixTime>,
}

/// The gateway's upstream health, by URL: written by the gateway, read by the console.
#[derive(Debug, Default)]
pub struct HealthBoard {
    upstreams: std::sync::Mutex<std::collections::BTreeMap<String, UpstreamStatus>>,
}

impl HealthBoard {
    /// Records an upstream's status.
    pub fn set(&self, url: &str, status: UpstreamStatus) {
        let mut map = self
            .upstreams
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if map.len() >= MAX_BOARD_ENTRIES && !map.contains_key(url) {
            return;
        }
        map.insert(url.to_owned(), status);
    }

    /// An upstream's status, if it was called.
    pub fn get(&self, url: &str) -> Option<UpstreamStatus> {
        self.upstreams
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(url)
            .cloned()
    }
}

/// One registry server on the console's Gateway page.
#[derive(Debug, Clone)]
pub struct GatewayUpstream {
    /// The server of the latest release.
    pub server: GatewayServer,
    /// Its health, when this process has called it.
    pub status: Option<UpstreamStatus>,
    /// Its tools offered now (accepted, allowed).
    pub offered: Vec<String>,
    /// Its tools waiting for an administrator.
    pub waiting: usize,
    /// For a server with its own authorization server (`auth.mode = oauth`): whether the
    /// gateway holds a client secret for it.
    pub client_secret: Option<ClientSecretState>,
    /// For such a server: the redirect URI to register at its authorization server.
    pub callback_url: Option<String>,
}

/// Everything the console's Gateway page shows.
#[derive(Debug, Clone)]
pub struct GatewayOverview {
    /// Where it is and whether it is on.
    pub info: GatewayInfo,
    /// The release its servers come from.
    pub release: Option<i64>,
    /// Each server of that release.
    pub upstreams: Vec<GatewayUpstream>,
    /// Tools waiting for acceptance (new, changed, removed).
    pub pins_waiting: Vec<ToolPin>,
    /// Calls waiting for a person (those this person may decide), with agent names.
    pub approvals: Vec<(Approval, Option<String>)>,
    /// The latest calls no longer waiting (decided, used or lapsed; at most 20), the same way.
    pub decided: Vec<(Approval, Option<String>)>,
    /// Every agent's name, for the toolset view.
    pub agents: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_looking_keys_are_hidden_by_word_not_by_substring() {
        let shown = redacted_preview(&json!({
            "api_key": "k1", "authToken": "t1", "Password": "p1", "nested": [{"client-secret": "s1"}],
            "keyword": "kept", "author": "kept", "shipping_address": "kept", "footprint": "kept",
            "note": "x".repeat(5000),
        }));
        for hidden in ["k1", "t1", "p1", "s1"] {
            assert!(!shown.contains(hidden), "{hidden}: {shown}");
        }
        assert_eq!(shown.matches("kept").count(), 4, "{shown}");
        assert!(shown.contains(&"x".repeat(5000)), "never cut");
    }

    #[test]
    fn a_call_digest_binds_exact_numbers_subjects_and_the_definition() {
        let d = |a: serde_json::Value, s: &[&str], def: &str| {
            call_digest(
                &a,
                &s.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>(),
                def,
            )
        };
        let base = d(json!({"id": 9_007_199_254_740_993_u64}), &["p1"], "def1");
        assert_ne!(
            base,
            d(json!({"id": 9_007_199_254_740_992_u64}), &["p1"], "def1")
        );
        assert_ne!(
            base,
            d(json!({"id": 9_007_199_254_740_993_u64}), &["p2"], "def1")
        );
        assert_ne!(
            base,
            d(json!({"id": 9_007_199_254_740_993_u64}), &["p1"], "def2")
        );
        assert_eq!(
            base,
            d(json!({"id": 9_007_199_254_740_993_u64}), &["p1"], "def1")
        );
    }
}
