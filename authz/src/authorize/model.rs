//! Authorization types: what the authorization endpoint accepts, and what it and the token
//! endpoint store (sign-in sessions, remembered consent, codes, refresh-token families).
use crate::clients::RedirectKind;
use crate::clock::UnixTime;
use crate::ids::{ClientRowId, RealmId, ResourceId};
pub use crate::ids::{ConsentId, FamilyId};
use crate::people::Subject;
use crate::scope::ScopeSet;

/// Longest an authorization code lives (OAuth 2.1 §4.1.2 recommends at most ten minutes; MCP
/// clients redeem at once).
pub const CODE_TTL_SECS: i64 = 60;
/// How long a sign-in at an authorization endpoint lasts.
pub const LOGIN_SESSION_TTL_SECS: i64 = 8 * 3600;
/// How long a rotated refresh token still answers with its successor (a client that sent it
/// twice at once, or lost the first answer), before a reuse revokes the family.
pub const REFRESH_GRACE_SECS: i64 = 30;
/// How long an authorization request may sit on the sign-in or consent page.
pub const TICKET_TTL_SECS: i64 = 15 * 60;
/// How long a device code (and its user code) lives (RFC 8628 §3.2 `expires_in`).
pub const DEVICE_CODE_TTL_SECS: i64 = 10 * 60;
/// The polling interval a device starts with (RFC 8628 §3.2 `interval`); each `slow_down`
/// adds [`DEVICE_SLOW_DOWN_SECS`].
pub const DEVICE_POLL_INTERVAL_SECS: i64 = 5;
/// What a poll too soon adds to the interval (RFC 8628 §3.5).
pub const DEVICE_SLOW_DOWN_SECS: i64 = 5;
/// Live device codes one client may hold at once.
///
/// A public client (anyone can name one) cannot fill the table, and with 60 requests per
/// source per 15 minutes it takes about a hundred sources to hold a realm's CLI at the cap.
pub const MAX_LIVE_DEVICE_CODES_PER_CLIENT: i64 = 5_000;
/// The user code's alphabet (RFC 8628 §6.1): twenty consonants, no vowels (no words), nothing
/// that reads as a digit; case does not matter when typed.
pub const USER_CODE_ALPHABET: &[u8; 20] = b"BCDFGHJKLMNPQRSTVWXZ";
/// Characters in a user code (20^8 ≈ 2^34.6 codes), shown as two groups of four.
pub const USER_CODE_LEN: usize = 8;

/// Longest `state` echoed back.
pub const MAX_STATE_LEN: usize = 1024;

/// The `prompt` parameter (OpenID Connect Core §3.1.2.1), as MCP clients send it: a set of
/// values, each of which is honoured (`login consent` signs in again *and* asks again).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Prompt {
    /// `none`: never show a page; answer `login_required` / `consent_required` instead.
    pub none: bool,
    /// `login`: sign in again even with a session.
    pub login: bool,
    /// `consent`: ask for consent even when it was given before.
    pub consent: bool,
}

impl Prompt {
    /// Parses `prompt` (space-separated values; `none` alone; `select_account` is accepted and
    /// means nothing here: a realm page signs one account in at a time).
    ///
    /// # Errors
    /// A message for an unsupported or contradictory value.
    pub fn parse(s: Option<&str>) -> Result<Self, &'static str> {
        let mut out = Prompt::default();
        let mut count = 0;
        for v in s.unwrap_or_default().split(' ').filter(|v| !v.is_empty()) {
            count += 1;
            match v {
                "none" => out.none = true,
                "login" => out.login = true,
                "consent" => out.consent = true,
                "select_account" => {}
                _ => return Err("prompt must be none, login or consent."),
            }
        }
        if out.none && count > 1 {
            return Err("prompt=none cannot be combined with other values.");
        }
        Ok(out)
    }
}

/// A sign-in at a realm's authorization endpoint (its own cookie, apart from the console's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginSession {
    /// SHA-256 of the cookie value.
    pub id_hash: Vec<u8>,
    /// Realm.
    pub realm_id: RealmId,
    /// Who signed in (`psn_…` or `usr_…`).
    pub subject: String,
    /// When they entered their password.
    pub auth_time: UnixTime,
    /// End of the session.
    pub expires_at: UnixTime,
}

/// A remembered consent: `subject` lets the client act for them at the resource with these
/// scopes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consent {
    /// Id.
    pub id: ConsentId,
    /// Realm.
    pub realm_id: RealmId,
    /// The person (or console account).
    pub subject: String,
    /// The client.
    pub client_pk: ClientRowId,
    /// The resource.
    pub resource_id: ResourceId,
    /// Scopes agreed to (with `offline_access` when they let it stay connected).
    pub scopes: ScopeSet,
    /// First given.
    pub created_at: UnixTime,
    /// Last widened.
    pub updated_at: UnixTime,
}

/// A consent with the names a person or admin recognises it by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectedApp {
    /// The consent.
    pub consent: Consent,
    /// The client's `client_id`.
    pub client_id: String,
    /// The client's name.
    pub client_name: String,
    /// The resource's name.
    pub resource_name: String,
    /// The resource's URI.
    pub resource_uri: String,
    /// When a token was last refreshed or issued under it, if ever.
    pub last_used_at: Option<UnixTime>,
}

/// What an OpenID Connect request (`openid` in `scope`) asks to learn about the person: an ID
/// token for the client, with their email (`email`) and name (`profile`) in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct OpenId {
    /// `email` was asked for.
    pub email: bool,
    /// `profile` was asked for.
    pub profile: bool,
}

impl OpenId {
    /// Longest `nonce` accepted (it is stored with the code and echoed in the ID token).
    pub const MAX_NONCE_LEN: usize = 255;

    /// What `scopes` ask for, if `openid` is among them (`email` and `profile` count only
    /// with it, OpenID Connect Core §5.4).
    pub fn of(scopes: &ScopeSet) -> Option<Self> {
        scopes.contains("openid").then(|| Self {
            email: scopes.contains("email"),
            profile: scopes.contains("profile"),
        })
    }

    /// As a `scope` value: `openid`, then `email` and `profile` when asked.
    pub fn scope(self) -> String {
        let mut s = "openid".to_owned();
        if self.email {
            s.push_str(" email");
        }
        if self.profile {
            s.push_str(" profile");
        }
        s
    }

    /// As stored (its [`OpenId::scope`]); `None` for a column that holds none.
    pub fn from_stored(s: Option<&str>) -> Option<Self> {
        s.and_then(|s| Self::of(&ScopeSet::parse(s).ok()?))
    }
}

/// An issued authorization code (hash only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationCode {
    /// SHA-256 of the code.
    pub code_hash: Vec<u8>,
    /// The family its redemption starts (so a replay revokes exactly that).
    pub family_id: FamilyId,
    /// Realm.
    pub realm_id: RealmId,
    /// Who signed in.
    pub subject: String,
    /// The client it was issued to.
    pub client_pk: ClientRowId,
    /// The resource its tokens are for.
    pub resource_id: ResourceId,
    /// The redirect URI it was sent to (the token request must repeat it).
    pub redirect_uri: String,
    /// The PKCE S256 challenge.
    pub code_challenge: String,
    /// Granted scopes.
    pub scopes: ScopeSet,
    /// Whether a refresh token comes with it.
    pub offline: bool,
    /// Whether an ID token comes with it, and what it says.
    pub openid: Option<OpenId>,
    /// The authorization request's `nonce`, echoed in the ID token.
    pub nonce: Option<String>,
    /// When the subject signed in.
    pub auth_time: UnixTime,
    /// Issued.
    pub created_at: UnixTime,
    /// Unusable from then.
    pub expires_at: UnixTime,
    /// First redemption.
    pub redeemed_at: Option<UnixTime>,
}

/// Everything one authorization produced: its refresh tokens, and the access tokens minted
/// from them (which name it), revoked together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenFamily {
    /// Id (carried in its access tokens).
    pub id: FamilyId,
    /// Realm.
    pub realm_id: RealmId,
    /// Who signed in.
    pub subject: String,
    /// The client.
    pub client_pk: ClientRowId,
    /// The resource.
    pub resource_id: ResourceId,
    /// Scopes: a refresh may narrow them, never widen.
    pub scopes: ScopeSet,
    /// Whether it has refresh tokens.
    pub offline: bool,
    /// Whether its token responses carry an ID token, and what it says.
    pub openid: Option<OpenId>,
    /// When the subject signed in.
    pub auth_time: UnixTime,
    /// Created (the code's redemption).
    pub created_at: UnixTime,
    /// Absolute end: no refresh token of the family outlives it.
    pub expires_at: UnixTime,
    /// Revoked, if it was.
    pub revoked_at: Option<UnixTime>,
    /// Why (`code_replay`, `refresh_reuse`, `consent_revoked`, `person_disabled`, …).
    pub revoked_reason: Option<String>,
}

impl TokenFamily {
    /// Whether its tokens may still be used at `now`.
    pub fn is_live(&self, now: UnixTime) -> bool {
        self.revoked_at.is_none() && now < self.expires_at
    }
}

/// Where a device authorization stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceState {
    /// Nobody has answered yet.
    Pending,
    /// A person allowed it: an authorization code waits for the device's next poll.
    Approved,
    /// A person refused it.
    Denied,
}

impl DeviceState {
    /// Stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Approved => "approved",
            Self::Denied => "denied",
        }
    }

    /// Reads the stored name.
    ///
    /// # Errors
    /// An unknown name.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "pending" => Ok(Self::Pending),
            "approved" => Ok(Self::Approved),
            "denied" => Ok(Self::Denied),
            other => Err(format!("unknown device state {other:?}")),
        }
    }
}

/// A device authorization (RFC 8628): the device code's hash, the user code, what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceCode {
    /// SHA-256 of the device code.
    pub device_code_hash: Vec<u8>,
    /// The user code, normalised (upper case, no separator).
    pub user_code: String,
    /// Realm.
    pub realm_id: RealmId,
    /// The client that asked.
    pub client_pk: ClientRowId,
    /// Its `client_id`.
    pub client_id: String,
    /// The resource its tokens are for.
    pub resource_id: ResourceId,
    /// Scopes asked for (already cut to what the client may get there).
    pub scopes: ScopeSet,
    /// Whether a refresh token comes with it.
    pub offline: bool,
    /// Issued.
    pub created_at: UnixTime,
    /// Unusable from then.
    pub expires_at: UnixTime,
    /// Seconds the device must wait between polls.
    pub interval_secs: i64,
    /// Last poll.
    pub last_poll_at: Option<UnixTime>,
    /// Answered or not.
    pub state: DeviceState,
    /// Who answered.
    pub subject: Option<String>,
    /// The authorization code an approval stored (its hash), redeemed by the next poll.
    pub code_hash: Option<Vec<u8>>,
}

/// The device authorization response (RFC 8628 §3.2).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DeviceAuthorization {
    /// The device code (secret: only the device holds it).
    pub device_code: String,
    /// The user code, as shown to people (`WDJB-MJHT`).
    pub user_code: String,
    /// The verification page.
    pub verification_uri: String,
    /// The verification page with the user code filled in (for a QR code or a link).
    pub verification_uri_complete: String,
    /// Seconds until both codes expire.
    pub expires_in: i64,
    /// Seconds to wait between polls.
    pub interval: i64,
}

/// A device authorization request's parameters (the client authenticates as at the token
/// endpoint).
#[derive(Debug, Clone, Default)]
pub struct DeviceAuthorizationRequest {
    /// `scope`.
    pub scope: Option<String>,
    /// Every `resource` sent.
    pub resource: Vec<String>,
}

/// Formats a normalised user code for people: two groups of four.
pub fn display_user_code(code: &str) -> String {
    if code.len() == USER_CODE_LEN && code.is_ascii() {
        format!("{}-{}", &code[..4], &code[4..])
    } else {
        code.to_owned()
    }
}

/// Normalises a typed user code: case and separators (spaces, dashes) do not matter. `None`
/// when what is left cannot be a user code.
pub fn normalise_user_code(typed: &str) -> Option<String> {
    if typed.len() > 64 {
        return None;
    }
    let code: String = typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    (code.len() == USER_CODE_LEN && code.bytes().all(|b| USER_CODE_ALPHABET.contains(&b)))
        .then_some(code)
}

/// A refresh token (hash only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshToken {
    /// SHA-256 of the token.
    pub token_hash: Vec<u8>,
    /// Its family.
    pub family_id: FamilyId,
    /// Issued.
    pub created_at: UnixTime,
    /// Idle end: unusable from then.
    pub expires_at: UnixTime,
    /// When it was exchanged for its successor.
    pub rotated_at: Option<UnixTime>,
    /// The answer that exchange gave, sealed with a key derived from this token (so only its
    /// holder can read it), returned again within the grace window.
    pub successor: Option<Vec<u8>>,
}

/// An authorization request's parameters, as sent.
#[derive(Debug, Clone, Default)]
pub struct AuthorizeParams {
    /// `response_type`.
    pub response_type: Option<String>,
    /// `client_id`.
    pub client_id: Option<String>,
    /// `redirect_uri`.
    pub redirect_uri: Option<String>,
    /// `scope`.
    pub scope: Option<String>,
    /// `state`.
    pub state: Option<String>,
    /// `code_challenge`.
    pub code_challenge: Option<String>,
    /// `code_challenge_method`.
    pub code_challenge_method: Option<String>,
    /// Every `resource` sent.
    pub resource: Vec<String>,
    /// `prompt`.
    pub prompt: Option<String>,
    /// `nonce` (OpenID Connect): echoed in the ID token.
    pub nonce: Option<String>,
    /// Names of parameters sent more than once (RFC 6749 §3.1: an error).
    pub repeated: Vec<String>,
}

/// What the browser is shown next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthorizeStep {
    /// Go back to the client with a code, to a redirect URI that matched.
    Redirect(String),
    /// Go back to the client with an error (RFC 6749 §4.1.2.1), to a redirect URI that
    /// matched: `location` carries `error` and `error_description`, which are given here as
    /// data too, so that nobody parses them back out of the URL.
    Refused {
        /// The redirect URI with `error`, `error_description`, `state` and `iss`.
        location: String,
        /// The `error` code (`access_denied`, `invalid_scope`, …).
        error: &'static str,
        /// The `error_description`.
        description: String,
    },
    /// Sign in.
    Login(LoginPage),
    /// Prove the local account before a sign-in provider's identity is linked to it.
    Link(crate::broker::LinkPage),
    /// Agree or refuse.
    Consent(ConsentPage),
    /// The client waits for a security review: nobody can sign in to it yet (a page, never a
    /// redirect: nobody vouched for where it redirects).
    AwaitingReview(ReviewPage),
    /// The device verification page: type (or confirm) the code the device shows.
    DeviceEntry(DeviceEntryPage),
    /// A device authorization was answered: the person goes back to their device.
    DeviceDone(DeviceDonePage),
}

/// The device verification page (RFC 8628 §3.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceEntryPage {
    /// The realm's display name.
    pub realm: String,
    /// The code to fill in (from `verification_uri_complete`, or typed last).
    pub user_code: String,
    /// Why the last attempt failed.
    pub error: Option<String>,
    /// The form's token, bound to the browser and its sign-in session.
    pub form_token: String,
}

/// After a device authorization was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceDonePage {
    /// The realm's display name.
    pub realm: String,
    /// The client's name.
    pub client_name: String,
    /// Allowed (or refused).
    pub approved: bool,
}

/// What the page of a client waiting for review shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewPage {
    /// The realm's display name.
    pub realm: String,
    /// The client's name (it chose it itself).
    pub client_name: String,
    /// Its `client_id`.
    pub client_id: String,
    /// The console's review queue, where a security reviewer approves it.
    pub queue_url: String,
}

/// What the sign-in page shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginPage {
    /// The realm's display name.
    pub realm: String,
    /// The client asking.
    pub client_name: String,
    /// Registered by an administrator or approved by a reviewer (its name is then vouched
    /// for; otherwise it chose it itself).
    pub client_verified: bool,
    /// The sealed request, posted back with the form.
    pub ticket: String,
    /// Why the last attempt failed.
    pub error: Option<String>,
    /// The email typed last.
    pub email: String,
    /// The realm's sign-in providers (buttons).
    pub providers: Vec<crate::broker::SignInButton>,
    /// Whether the page takes the local password.
    pub password: bool,
}

/// What the consent page shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsentPage {
    /// The realm's display name.
    pub realm: String,
    /// The client's name (as it registered it).
    pub client_name: String,
    /// Its `client_id`.
    pub client_id: String,
    /// Its logo URL, shown by the browser (never fetched by the server).
    pub logo_uri: Option<String>,
    /// Registered by an administrator or approved by a reviewer (not self-registered).
    pub verified: bool,
    /// Where the browser goes afterwards: scheme, host and port in full.
    pub redirect_origin: String,
    /// What kind of place that is (loopback and app schemes are warned about).
    pub redirect_kind: RedirectKind,
    /// The resource's name.
    pub resource_name: String,
    /// The resource's URI.
    pub resource_uri: String,
    /// The scopes, each with its words.
    pub scopes: Vec<(String, String)>,
    /// Whether the client stays connected (gets a refresh token).
    pub offline: bool,
    /// Who is signed in.
    pub subject_name: String,
    /// Their email.
    pub subject_email: String,
    /// The sealed request.
    pub ticket: String,
    /// For a device authorization: the user code the person must find on their device.
    pub device_user_code: Option<String>,
    /// What agreeing leads to beyond the resource shown (the realm's own CLI at the
    /// registry goes on to get tokens for the servers the registry gives the person).
    pub purpose: Option<String>,
}

/// A new sign-in session: the cookie value to set.
#[derive(Clone, PartialEq, Eq)]
pub struct NewLoginSession(pub String);

impl std::fmt::Debug for NewLoginSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NewLoginSession([redacted])")
    }
}

/// What a person asks of their account page at a realm (its `Debug` never shows the password).
#[derive(Clone, PartialEq, Eq)]
pub enum AccountAction {
    /// Show the page, after what the last post did if anything (post/redirect/get).
    Show(Option<AccountDone>),
    /// Sign in.
    SignIn {
        /// Email.
        email: String,
        /// Password.
        password: String,
    },
    /// Disconnect one of their apps (a consent id).
    Disconnect(String),
    /// Disconnect their own account at a gateway upstream (a registry server id).
    DisconnectServer(String),
    /// Sign out.
    SignOut,
    /// Sign in through one of the realm's providers (its id).
    Upstream(String),
}

impl std::fmt::Debug for AccountAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Show(done) => f.debug_tuple("Show").field(done).finish(),
            Self::SignIn { email, .. } => f
                .debug_struct("SignIn")
                .field("email", email)
                .field("password", &"[redacted]")
                .finish(),
            Self::Disconnect(id) => f.debug_tuple("Disconnect").field(id).finish(),
            Self::DisconnectServer(id) => f.debug_tuple("DisconnectServer").field(id).finish(),
            Self::SignOut => f.write_str("SignOut"),
            Self::Upstream(id) => f.debug_tuple("Upstream").field(id).finish(),
        }
    }
}

/// What an account post did, carried to the page shown after it (post/redirect/get): a reload
/// shows the page again instead of posting the form twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountDone {
    /// Signed in.
    SignedIn,
    /// An app was disconnected.
    Disconnected,
    /// The app was disconnected already.
    AlreadyDisconnected,
    /// Signed out.
    SignedOut,
    /// Their account at a gateway upstream was disconnected.
    ServerDisconnected,
}

impl AccountDone {
    /// Its name in the page's address (`?done=`), for what the next page tells.
    pub fn as_str(self) -> Option<&'static str> {
        match self {
            Self::SignedIn | Self::SignedOut => None,
            Self::Disconnected => Some("disconnected"),
            Self::AlreadyDisconnected => Some("already-disconnected"),
            Self::ServerDisconnected => Some("server-disconnected"),
        }
    }

    /// Reads [`Self::as_str`] back; anything else is nothing.
    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Disconnected,
            Self::AlreadyDisconnected,
            Self::ServerDisconnected,
        ]
        .into_iter()
        .find(|d| d.as_str() == Some(s))
    }
}

/// The answer to an account action: a page to show, or (after a change) the address of the
/// page to show next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountStep {
    /// Show this page.
    Page(AccountPage),
    /// Done: set the cookie and send the browser to the account page (303).
    Done {
        /// What was done.
        done: AccountDone,
        /// The sign-in cookie.
        cookie: SessionCookie,
    },
    /// Send the browser to a sign-in provider (303), with the pending sign-in for its cookie.
    Upstream {
        /// The provider's authorization URL.
        url: String,
        /// The sealed pending sign-in.
        pending: String,
    },
}

/// The account page: what it shows and the token its next form carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountPage {
    /// The realm's display name.
    pub realm: String,
    /// The next form's token, bound to the browser and the session the page shows.
    pub form_token: String,
    /// What the page shows.
    pub view: AccountView,
}

/// The sign-in cookie after an account action.
#[derive(Clone, PartialEq, Eq)]
pub enum SessionCookie {
    /// Leave it as the browser has it.
    Keep,
    /// A new sign-in session (its cookie value).
    Set(NewLoginSession),
    /// Remove it.
    Clear,
}

impl std::fmt::Debug for SessionCookie {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Keep => f.write_str("Keep"),
            Self::Set(s) => write!(f, "Set({s:?})"),
            Self::Clear => f.write_str("Clear"),
        }
    }
}

/// What the account page shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountView {
    /// The sign-in form.
    SignIn {
        /// Why the last attempt failed.
        error: Option<AccountSignInError>,
        /// The email to fill in again.
        email: String,
        /// The realm's sign-in providers (buttons).
        providers: Vec<crate::broker::SignInButton>,
        /// Whether the page takes the password.
        password: bool,
    },
    /// The person's connected apps.
    Apps {
        /// The person.
        subject: Subject,
        /// Their apps.
        apps: Vec<ConnectedApp>,
        /// Their own accounts at gateway upstreams with their own authorization servers.
        servers: Vec<crate::gateway::ConnectionView>,
        /// What the last action did.
        notice: Option<AccountNotice>,
    },
}

/// Why an account sign-in failed, for the person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountSignInError {
    /// Email and password do not match.
    WrongPassword,
    /// Too many attempts.
    Throttled,
    /// The sign-in provider could not be reached.
    ProviderUnreachable,
}

/// What the last account post did, in the page's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccountNotice {
    /// The app is disconnected; tokens verified locally live up to this many seconds more.
    Disconnected {
        /// The realm's longest local-verification horizon, in seconds.
        horizon_secs: i64,
    },
    /// It was disconnected already.
    AlreadyDisconnected,
    /// The gateway forgot their tokens for an upstream.
    ServerDisconnected,
}

/// How a sign-in at a realm's provider starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamStart {
    /// Send the browser to the provider; `pending` goes into the browser's cookie.
    Redirect {
        /// The provider's authorization URL.
        url: String,
        /// The sealed [`PendingUpstream`].
        pending: String,
    },
    /// The provider could not be reached: the sign-in page again, with the error.
    Page(Box<AuthorizeStep>),
}
