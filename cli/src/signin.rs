//! Signing a person in and handing harnesses short-lived tokens: `login`, `token`, `status`,
//! `logout`.
//!
//! `login` signs the person in to a realm as its first-party client `portcullis-cli`
//! (authorization code + PKCE on a loopback redirect, or the device grant with `--device`) for
//! the realm's registry, and keeps the refresh credential in the OS credential store (or a
//! private file, see [`crate::vault`]). `token --resource URL` trades that sign-in for a
//! five-minute token at one MCP server (token exchange, RFC 8693), cached until shortly before
//! it expires; it never opens a browser: when the sign-in is gone it says to run `login` and
//! exits 3.
use crate::Failure;
use crate::args::{parse, realm, server_url, shown};
use crate::http::{self, Http, MAX_DOCUMENT_BYTES};
use crate::vault::{self, Secret, Vault};
use oauth2::basic::{BasicClient, BasicTokenResponse};
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, CsrfToken, DeviceAuthorizationUrl, PkceCodeChallenge,
    RedirectUrl, RefreshToken, RequestTokenError, TokenResponse as _, TokenUrl,
};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The realm's first-party client.
const CLIENT_ID: &str = "portcullis-cli";
/// Tokens are used until this many seconds before they expire.
const EXPIRY_MARGIN_SECS: u64 = 30;
/// How long the loopback sign-in waits for the browser.
const LOOPBACK_WAIT_SECS: u64 = 300;
/// RFC 8693 token type of an access token.
const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Exit status 3: a sign-in is needed.
fn sign_in_needed(message: String) -> Failure {
    Failure { code: 3, message }
}

// ---------------------------------------------------------------------------------------------
// Sessions: which realms this person is signed in to (no secrets; those are in the vault).

/// One sign-in, as `status` shows it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Session {
    /// The Portcullis base URL.
    pub server: String,
    /// The realm.
    pub realm: String,
    /// The realm's issuer (the vault's key).
    pub issuer: String,
    /// Who signed in (`sub` of their token).
    pub subject: String,
    /// Where the refresh credential is: `keyring` or `file`.
    pub vault: String,
    /// When (Unix seconds).
    pub signed_in_at: u64,
    /// `browser` or `device`.
    pub via: String,
}

fn sessions_path() -> Result<PathBuf, Failure> {
    Ok(vault::config_dir()?.join("sessions.json"))
}

fn load_sessions() -> Result<Vec<Session>, Failure> {
    let path = sessions_path()?;
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            Failure::error(format!(
                "Failed to read {}: {e} (log in again)",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(vec![]),
        Err(e) => Err(Failure::error(format!(
            "Failed to read {}: {e}",
            path.display()
        ))),
    }
}

fn save_sessions(list: &[Session]) -> Result<(), Failure> {
    let bytes = serde_json::to_vec_pretty(list)
        .map_err(|e| Failure::error(format!("Failed to serialise the sessions: {e}")))?;
    vault::write_private(&sessions_path()?, &bytes)
}

/// The server and realm a command names, or the one sign-in there is.
fn pick(server: Option<&str>, realm_name: Option<&str>) -> Result<Session, Failure> {
    let sessions = load_sessions()?;
    let base = server
        .map(|s| server_url(s).map(|u| u.as_str().trim_end_matches('/').to_owned()))
        .transpose()?;
    let found: Vec<&Session> = sessions
        .iter()
        .filter(|s| base.as_ref().is_none_or(|b| *b == s.server))
        .filter(|s| realm_name.is_none_or(|r| r == s.realm))
        .collect();
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(sign_in_needed(match (server, realm_name) {
            (Some(s), Some(r)) => format!(
                "You are not signed in to realm {r} at {s}. Run: portcullis-cli login --server {s} --realm {r}"
            ),
            _ => "You are not signed in. Run: portcullis-cli login --server URL --realm REALM"
                .to_owned(),
        })),
        _ => Err(Failure::error(
            "You are signed in to more than one realm: name one with --server and --realm.",
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// The realm's endpoints.

#[derive(Debug, Deserialize)]
struct Metadata {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    #[serde(default)]
    device_authorization_endpoint: Option<String>,
    #[serde(default)]
    revocation_endpoint: Option<String>,
}

/// A realm as the CLI talks to it.
struct Realm {
    server: String,
    realm: String,
    issuer: String,
    local: bool,
    meta: Metadata,
}

impl Realm {
    async fn discover(server: &str, realm_name: &str) -> Result<Self, Failure> {
        let url = server_url(server)?;
        let realm_name = realm(realm_name)?.to_owned();
        let base = url.as_str().trim_end_matches('/').to_owned();
        let issuer = format!("{base}/realms/{realm_name}");
        let local = http::is_loopback(&url);
        let client = Http::new(local)?;
        let res = client
            .get(
                &parse(&format!("{issuer}/.well-known/openid-configuration"))?,
                reqwest::header::HeaderMap::new(),
                MAX_DOCUMENT_BYTES,
                "realm's metadata",
            )
            .await?;
        if res.status != 200 {
            let hint = if base.contains("/realms/") {
                " --server is the Portcullis base URL, without /realms/…."
            } else {
                " Is the realm name right?"
            };
            return Err(Failure::error(format!(
                "{issuer} answered HTTP {} for its metadata.{hint}",
                res.status
            )));
        }
        let meta: Metadata = serde_json::from_slice(&res.body)
            .map_err(|e| Failure::error(format!("The realm's metadata is not valid: {e}")))?;
        if meta.issuer != issuer {
            return Err(Failure::error(format!(
                "The metadata names issuer {}, not {issuer}: refused.",
                shown(&meta.issuer)
            )));
        }
        for endpoint in [&meta.authorization_endpoint, &meta.token_endpoint]
            .into_iter()
            .chain(meta.device_authorization_endpoint.iter())
            .chain(meta.revocation_endpoint.iter())
        {
            http::check_url(&parse(endpoint)?).map_err(Failure::error)?;
        }
        Ok(Realm {
            server: base,
            realm: realm_name,
            issuer,
            local,
            meta,
        })
    }

    /// The audience of the sign-in token: the realm's registry.
    fn registry(&self) -> String {
        format!("{}/registry", self.issuer)
    }

    fn oauth(&self) -> Result<reqwest::Client, Failure> {
        http::oauth_client(self.local)
    }

    fn token_url(&self) -> Result<TokenUrl, Failure> {
        TokenUrl::new(self.meta.token_endpoint.clone())
            .map_err(|e| Failure::error(format!("Bad token endpoint: {e}")))
    }

    fn login_again(&self) -> String {
        format!(
            "Run: portcullis-cli login --server {} --realm {}",
            self.server, self.realm
        )
    }
}

/// An OAuth error answer in one line.
fn oauth_failure<E: std::error::Error, T: oauth2::ErrorResponseType + std::fmt::Display>(
    what: &str,
    e: RequestTokenError<E, oauth2::StandardErrorResponse<T>>,
) -> (Option<String>, String) {
    match e {
        RequestTokenError::ServerResponse(r) => {
            let code = r.error().to_string();
            let line = format!(
                "{what} was refused: {code}{}",
                r.error_description()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            );
            (Some(code), line)
        }
        RequestTokenError::Request(e) => (None, format!("{what} failed: {e}")),
        RequestTokenError::Parse(e, _) => (None, format!("{what}: the answer is not valid ({e})")),
        RequestTokenError::Other(e) => (None, format!("{what} failed: {e}")),
    }
}

/// The `sub` of a JWT, read without verifying (only to tell the person who they are).
fn subject_of(jwt: &str) -> String {
    use base64::Engine as _;
    jwt.split('.')
        .nth(1)
        .and_then(|p| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(p)
                .ok()
        })
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .and_then(|v| v["sub"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// The token cache: one 0600 file per realm and resource.

/// A cached token (no `Debug`: it holds the token).
#[derive(Clone, Serialize, Deserialize)]
struct Cached {
    resource: String,
    access_token: String,
    expires_at: u64,
    #[serde(default)]
    scope: Option<String>,
}

fn token_dir(issuer: &str, cache_dir: Option<&std::path::Path>) -> Result<PathBuf, Failure> {
    let name = vault::file_name(issuer);
    Ok(crate::cache::root(cache_dir)?
        .join("tokens")
        .join(name.trim_end_matches(".json")))
}

fn cached(dir: &std::path::Path, resource: &str) -> Option<Cached> {
    let bytes = std::fs::read(dir.join(vault::file_name(resource))).ok()?;
    let c: Cached = serde_json::from_slice(&bytes).ok()?;
    (c.resource == resource && c.expires_at > now() + EXPIRY_MARGIN_SECS).then_some(c)
}

fn keep(dir: &std::path::Path, c: &Cached) -> Result<(), Failure> {
    let bytes = serde_json::to_vec(c)
        .map_err(|e| Failure::error(format!("Failed to serialise a token: {e}")))?;
    vault::write_private(&dir.join(vault::file_name(&c.resource)), &bytes)
}

// ---------------------------------------------------------------------------------------------
// login

/// `login`'s arguments.
#[derive(Debug, clap::Args)]
pub struct LoginArgs {
    /// Portcullis base URL (https; http only to this machine).
    #[arg(long, value_name = "URL")]
    server: String,
    /// The realm.
    #[arg(long, value_name = "REALM")]
    realm: String,
    /// Sign in on another device: print a code to enter in a browser there (for machines
    /// without one).
    #[arg(long)]
    device: bool,
    /// Print the sign-in URL instead of opening a browser.
    #[arg(long)]
    no_browser: bool,
    /// Cache directory (default: $XDG_CACHE_HOME/portcullis or ~/.cache/portcullis).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
}

/// Runs `login`.
///
/// # Errors
/// The realm cannot be reached, the person refused, or the credential cannot be stored.
pub async fn login(args: LoginArgs) -> Result<(), Failure> {
    let realm = Realm::discover(&args.server, &args.realm).await?;
    let vault = Vault::choose()?;
    let http = realm.oauth()?;
    let registry = realm.registry();
    let (tokens, via) = if args.device {
        (device_login(&realm, &http, &registry).await, "device")
    } else {
        (
            loopback_login(&realm, &http, &registry, args.no_browser).await,
            "browser",
        )
    };
    let tokens = tokens.map_err(|f| {
        if f.message.contains("invalid_target") {
            Failure::error(format!(
                "Realm {} takes no sign-ins from portcullis-cli yet: its registry is not served with bearer access (an administrator runs: portcullis registry settings --realm {} --access bearer).",
                realm.realm, realm.realm
            ))
        } else {
            f
        }
    })?;
    let refresh = tokens.refresh_token().ok_or_else(|| {
        Failure::error(
            "The realm gave no refresh token: the Portcullis CLI client may not stay signed in.",
        )
    })?;
    vault.save(
        &realm.issuer,
        &Secret {
            refresh_token: refresh.secret().clone(),
        },
    )?;
    let access = tokens.access_token().secret().clone();
    let subject = subject_of(&access);
    keep(
        &token_dir(&realm.issuer, args.cache_dir.as_deref())?,
        &Cached {
            resource: registry,
            access_token: access,
            expires_at: now() + tokens.expires_in().map_or(60, |d| d.as_secs()),
            scope: None,
        },
    )?;
    let mut sessions = load_sessions()?;
    sessions.retain(|s| s.issuer != realm.issuer);
    sessions.push(Session {
        server: realm.server.clone(),
        realm: realm.realm.clone(),
        issuer: realm.issuer.clone(),
        subject: subject.clone(),
        vault: vault.kind().to_owned(),
        signed_in_at: now(),
        via: via.to_owned(),
    });
    save_sessions(&sessions)?;
    println!(
        "Signed in to {} as {subject}. Your sign-in is kept in {vault}.",
        realm.issuer
    );
    Ok(())
}

async fn device_login(
    realm: &Realm,
    http: &reqwest::Client,
    registry: &str,
) -> Result<BasicTokenResponse, Failure> {
    let endpoint = realm
        .meta
        .device_authorization_endpoint
        .clone()
        .ok_or_else(|| {
            Failure::error("This server does not offer the device grant; sign in without --device.")
        })?;
    let client = BasicClient::new(ClientId::new(CLIENT_ID.into()))
        .set_token_uri(realm.token_url()?)
        .set_device_authorization_url(
            DeviceAuthorizationUrl::new(endpoint)
                .map_err(|e| Failure::error(format!("Bad device endpoint: {e}")))?,
        );
    let details: oauth2::StandardDeviceAuthorizationResponse = client
        .exchange_device_code()
        .add_extra_param("resource", registry)
        .request_async(http)
        .await
        .map_err(|e| Failure::error(oauth_failure("The device sign-in", e).1))?;
    eprintln!(
        "To sign in, open {} and enter the code {}",
        details.verification_uri().as_str(),
        details.user_code().secret()
    );
    if let Some(complete) = details.verification_uri_complete() {
        eprintln!("(or open {} directly)", complete.secret());
    }
    eprintln!("Waiting for you to approve…");
    client
        .exchange_device_access_token(&details)
        .request_async(http, tokio::time::sleep, None)
        .await
        .map_err(|e| Failure::error(oauth_failure("The sign-in", e).1))
}

async fn loopback_login(
    realm: &Realm,
    http: &reqwest::Client,
    registry: &str,
    no_browser: bool,
) -> Result<BasicTokenResponse, Failure> {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| Failure::error(format!("Failed to listen on a loopback port: {e}")))?;
    let port = listener
        .local_addr()
        .map_err(|e| Failure::error(format!("Failed to listen on a loopback port: {e}")))?
        .port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    let client = BasicClient::new(ClientId::new(CLIENT_ID.into()))
        .set_auth_uri(
            AuthUrl::new(realm.meta.authorization_endpoint.clone())
                .map_err(|e| Failure::error(format!("Bad authorization endpoint: {e}")))?,
        )
        .set_token_uri(realm.token_url()?)
        .set_redirect_uri(
            RedirectUrl::new(redirect).map_err(|e| Failure::error(format!("Bad redirect: {e}")))?,
        );
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (url, state) = client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_extra_param("resource", registry)
        .url();
    eprintln!("Sign in to {} in your browser:\n  {url}", realm.issuer);
    if !no_browser {
        open_browser(url.as_str());
    }
    let wait = async {
        loop {
            let (mut stream, _) = listener
                .accept()
                .await
                .map_err(|e| Failure::error(format!("The loopback listener failed: {e}")))?;
            let mut buf = vec![0u8; 8192];
            let mut read = 0;
            // A connection that sends nothing cannot hold the listener.
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), async {
                while read < buf.len() {
                    let n = stream.read(&mut buf[read..]).await.unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    read += n;
                    if buf[..read].windows(4).any(|w| w == b"\r\n\r\n") {
                        break;
                    }
                }
            })
            .await;
            let head = String::from_utf8_lossy(&buf[..read]).into_owned();
            let target = head
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("GET "))
                .and_then(|l| l.split(' ').next())
                .unwrap_or_default()
                .to_owned();
            let Some(query) = target.strip_prefix("/callback?") else {
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    )
                    .await;
                continue;
            };
            let params: std::collections::HashMap<String, String> =
                url::form_urlencoded::parse(query.as_bytes())
                    .into_owned()
                    .collect();
            // Not this sign-in's answer (another program on this machine): ignored.
            if params.get("state").map(String::as_str) != Some(state.secret()) {
                let _ = stream
                    .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .await;
                continue;
            }
            // RFC 9207: the realm names itself in every answer; another issuer's is refused.
            let outcome = if params.get("iss").map(String::as_str) != Some(realm.issuer.as_str()) {
                Err("The answer does not come from this realm (iss): refused.".to_owned())
            } else if let Some(error) = params.get("error") {
                Err(format!(
                    "The sign-in was refused: {error}{}",
                    params
                        .get("error_description")
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default()
                ))
            } else {
                params
                    .get("code")
                    .cloned()
                    .ok_or_else(|| "The answer carries no code.".to_owned())
            };
            let page = match &outcome {
                Ok(_) => "Signed in. You can close this tab and go back to your terminal.",
                Err(_) => "The sign-in did not complete. Go back to your terminal.",
            };
            let body = format!(
                "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Portcullis CLI</title></head><body><p>{page}</p></body></html>"
            );
            let _ = stream
                .write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n{body}",
                        body.len()
                    )
                    .as_bytes(),
                )
                .await;
            return outcome.map_err(Failure::error);
        }
    };
    let code = tokio::time::timeout(std::time::Duration::from_secs(LOOPBACK_WAIT_SECS), wait)
        .await
        .map_err(|_| Failure::error("Gave up waiting for the browser after five minutes."))??;
    client
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(verifier)
        .add_extra_param("resource", registry)
        .request_async(http)
        .await
        .map_err(|e| Failure::error(oauth_failure("The sign-in", e).1))
}

/// Opens `url` in the person's browser, if it can (they have the URL printed either way).
fn open_browser(url: &str) {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(target_os = "windows") {
        let mut c = std::process::Command::new("rundll32");
        c.arg("url.dll,FileProtocolHandler");
        c
    } else {
        std::process::Command::new("xdg-open")
    };
    let _ = command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

// ---------------------------------------------------------------------------------------------
// token

/// How `token` prints the token.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Format {
    /// A JSON object of HTTP headers (what Claude Code's `headersHelper` and Codex's
    /// `http_headers_helper` read).
    Headers,
    /// The token with its lifetime, as JSON.
    Json,
    /// The token alone.
    Raw,
    /// `export NAME=token`, for a harness reading the token from the environment.
    Env,
}

/// `token`'s arguments.
#[derive(Debug, clap::Args)]
pub struct TokenArgs {
    /// The MCP server's URL (its resource identifier).
    #[arg(long, value_name = "URL")]
    resource: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "headers")]
    format: Format,
    /// The variable `--format env` sets.
    #[arg(long, value_name = "NAME", default_value = "PORTCULLIS_TOKEN")]
    env_name: String,
    /// Portcullis base URL (default: the one you are signed in to).
    #[arg(long, value_name = "URL")]
    server: Option<String>,
    /// The realm (default: the one you are signed in to).
    #[arg(long, value_name = "REALM")]
    realm: Option<String>,
    /// Cache directory (default: $XDG_CACHE_HOME/portcullis or ~/.cache/portcullis).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
}

/// A token exchange answer (no `Debug`: it holds the token).
#[derive(Deserialize)]
struct Exchanged {
    access_token: String,
    expires_in: u64,
    #[serde(default)]
    scope: Option<String>,
}

/// Runs `token`: prints a fresh token for one MCP server.
///
/// # Errors
/// Exit 3 when the sign-in is gone (run `login`); 2 when the server refuses the resource or
/// cannot be reached.
pub async fn token(args: TokenArgs) -> Result<(), Failure> {
    let valid_env = !args.env_name.is_empty()
        && !args.env_name.starts_with(|c: char| c.is_ascii_digit())
        && args
            .env_name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !valid_env {
        return Err(Failure::error(format!(
            "--env-name {}: letters, digits and '_' only.",
            shown(&args.env_name)
        )));
    }
    let resource = parse(args.resource.trim())?;
    http::check_url(&resource).map_err(Failure::error)?;
    let resource = resource.to_string();
    let session = pick(args.server.as_deref(), args.realm.as_deref())?;
    let dir = token_dir(&session.issuer, args.cache_dir.as_deref())?;
    let token = match cached(&dir, &resource) {
        Some(c) => c,
        None => {
            let realm = Realm::discover(&session.server, &session.realm).await?;
            let subject = sign_in_token(&realm, &session, &dir).await?;
            let fresh = exchange(&realm, &subject, &resource).await?;
            keep(&dir, &fresh)?;
            fresh
        }
    };
    let out = match args.format {
        Format::Headers => {
            serde_json::json!({"Authorization": format!("Bearer {}", token.access_token)})
                .to_string()
        }
        Format::Json => serde_json::json!({
            "access_token": token.access_token,
            "token_type": "Bearer",
            "expires_in": token.expires_at.saturating_sub(now()),
            "expires_at": token.expires_at,
            "resource": token.resource,
            "scope": token.scope,
        })
        .to_string(),
        Format::Raw => token.access_token.clone(),
        Format::Env => format!("export {}={}", args.env_name, token.access_token),
    };
    println!("{out}");
    Ok(())
}

/// The sign-in token (audience: the realm's registry), cached or refreshed with the stored
/// refresh credential (whose successor replaces it).
async fn sign_in_token(
    realm: &Realm,
    session: &Session,
    dir: &std::path::Path,
) -> Result<String, Failure> {
    let registry = realm.registry();
    if let Some(c) = cached(dir, &registry) {
        return Ok(c.access_token);
    }
    let vault = Vault::recorded(&session.vault)?;
    let Some(secret) = vault.load(&realm.issuer)? else {
        return Err(sign_in_needed(format!(
            "Your sign-in at {} is gone from {vault}. {}",
            realm.issuer,
            realm.login_again()
        )));
    };
    let client =
        BasicClient::new(ClientId::new(CLIENT_ID.into())).set_token_uri(realm.token_url()?);
    let tokens = client
        .exchange_refresh_token(&RefreshToken::new(secret.refresh_token))
        .add_extra_param("resource", &registry)
        .request_async(&realm.oauth()?)
        .await
        .map_err(|e| match oauth_failure("Refreshing your sign-in", e) {
            (Some(code), line)
                if code == "invalid_grant"
                    || code == "invalid_client"
                    || code == "unauthorized_client" =>
            {
                sign_in_needed(format!("{line}. {}", realm.login_again()))
            }
            (_, line) => Failure::error(line),
        })?;
    if let Some(next) = tokens.refresh_token() {
        vault.save(
            &realm.issuer,
            &Secret {
                refresh_token: next.secret().clone(),
            },
        )?;
    }
    let access = tokens.access_token().secret().clone();
    keep(
        dir,
        &Cached {
            resource: registry,
            access_token: access.clone(),
            expires_at: now() + tokens.expires_in().map_or(60, |d| d.as_secs()),
            scope: None,
        },
    )?;
    Ok(access)
}

/// The sign-in token of the person signed in to `realm` at `server` (audience: the realm's
/// registry), for reading the registry; `None` when nobody is signed in there.
///
/// # Errors
/// The sign-in has ended (exit 3), or the realm cannot be reached.
pub(crate) async fn registry_token(
    server: &str,
    realm_name: &str,
    cache_dir: Option<&std::path::Path>,
) -> Result<Option<String>, Failure> {
    let Some(session) = load_sessions()?
        .into_iter()
        .find(|s| s.server == server && s.realm == realm_name)
    else {
        return Ok(None);
    };
    let dir = token_dir(&session.issuer, cache_dir)?;
    let realm = Realm::discover(&session.server, &session.realm).await?;
    sign_in_token(&realm, &session, &dir).await.map(Some)
}

/// Token exchange (RFC 8693): the sign-in token for a token at `resource`.
async fn exchange(realm: &Realm, subject: &str, resource: &str) -> Result<Cached, Failure> {
    let res = realm
        .oauth()?
        .post(&realm.meta.token_endpoint)
        .form(&[
            (
                "grant_type",
                "urn:ietf:params:oauth:grant-type:token-exchange",
            ),
            ("client_id", CLIENT_ID),
            ("subject_token", subject),
            ("subject_token_type", ACCESS_TOKEN_TYPE),
            ("requested_token_type", ACCESS_TOKEN_TYPE),
            ("resource", resource),
        ])
        .send()
        .await
        .map_err(|e| Failure::error(format!("Failed to reach {}: {e}", realm.issuer)))?;
    let status = res.status().as_u16();
    let body = res
        .bytes()
        .await
        .map_err(|e| Failure::error(format!("Failed to read the answer: {e}")))?;
    if status == 200 {
        let t: Exchanged = serde_json::from_slice(&body)
            .map_err(|e| Failure::error(format!("The token answer is not valid: {e}")))?;
        return Ok(Cached {
            resource: resource.to_owned(),
            access_token: t.access_token,
            expires_at: now() + t.expires_in,
            scope: t.scope,
        });
    }
    let err: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let code = err["error"].as_str().unwrap_or("error");
    let description = err["error_description"].as_str().unwrap_or_default();
    let line = format!(
        "No token for {resource}: {code}{}",
        if description.is_empty() {
            String::new()
        } else {
            format!(" ({description})")
        }
    );
    if code == "invalid_grant" || code == "invalid_client" || status == 401 {
        return Err(sign_in_needed(format!(
            "Your sign-in at {} has ended (signed out, revoked, expired or disabled). {}",
            realm.issuer,
            realm.login_again()
        )));
    }
    if code == "invalid_target" {
        return Err(Failure::error(format!(
            "No token for {resource}: the registry's current release does not give this server to you (or it is not an MCP server of realm {}). {description}",
            realm.realm
        )));
    }
    Err(Failure::error(line))
}

// ---------------------------------------------------------------------------------------------
// logout and status

/// `logout`'s arguments.
#[derive(Debug, clap::Args)]
pub struct LogoutArgs {
    /// Portcullis base URL (default: the one you are signed in to).
    #[arg(long, value_name = "URL")]
    server: Option<String>,
    /// The realm (default: the one you are signed in to).
    #[arg(long, value_name = "REALM")]
    realm: Option<String>,
    /// Cache directory (default: $XDG_CACHE_HOME/portcullis or ~/.cache/portcullis).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
}

/// Runs `logout`: revokes the sign-in at the realm, then forgets it and its cached tokens.
///
/// # Errors
/// Not signed in; the credential store fails.
pub async fn logout(args: LogoutArgs) -> Result<(), Failure> {
    if load_sessions()?.is_empty() {
        println!("Not signed in anywhere: nothing to sign out of.");
        return Ok(());
    }
    let session = pick(args.server.as_deref(), args.realm.as_deref())?;
    let vault = Vault::recorded(&session.vault)?;
    let revoked = match vault.load(&session.issuer)? {
        Some(secret) => revoke(&session, secret.refresh_token).await,
        None => Ok(()),
    };
    vault.forget(&session.issuer)?;
    let dir = token_dir(&session.issuer, args.cache_dir.as_deref())?;
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(Failure::error(format!(
                "Failed to remove {}: {e}",
                dir.display()
            )));
        }
    }
    let mut sessions = load_sessions()?;
    sessions.retain(|s| s.issuer != session.issuer);
    save_sessions(&sessions)?;
    match revoked {
        Ok(()) => {
            println!(
                "Signed out of {}: the sign-in is revoked and forgotten here.",
                session.issuer
            );
            Ok(())
        }
        Err(why) => Err(Failure::error(format!(
            "Forgot the sign-in here, but could not revoke it at {} ({why}); it ends on its own when unused.",
            session.issuer
        ))),
    }
}

/// Revokes the refresh token (RFC 7009; sent by hand: the `oauth2` crate refuses an http
/// endpoint, which a server on this machine has).
async fn revoke(session: &Session, refresh: String) -> Result<(), String> {
    let realm = Realm::discover(&session.server, &session.realm)
        .await
        .map_err(|f| f.message)?;
    let Some(endpoint) = realm.meta.revocation_endpoint.clone() else {
        return Err("the realm has no revocation endpoint".into());
    };
    let res = realm
        .oauth()
        .map_err(|f| f.message)?
        .post(&endpoint)
        .form(&[
            ("token", refresh.as_str()),
            ("token_type_hint", "refresh_token"),
            ("client_id", CLIENT_ID),
        ])
        .send()
        .await
        .map_err(|e| e.to_string())?;
    match res.status().as_u16() {
        200 => Ok(()),
        status => Err(format!("HTTP {status}")),
    }
}

/// `status`'s arguments.
#[derive(Debug, clap::Args)]
pub struct StatusArgs {
    /// Print as JSON.
    #[arg(long)]
    json: bool,
    /// Cache directory (default: $XDG_CACHE_HOME/portcullis or ~/.cache/portcullis).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
}

/// Runs `status`: who is signed in where, the cached tokens and their lifetimes, and the
/// cached release.
///
/// # Errors
/// When the files cannot be read.
pub fn status(args: &StatusArgs) -> Result<u8, Failure> {
    let sessions = load_sessions()?;
    let release = crate::cache::load(&crate::cache::root(args.cache_dir.as_deref())?)?;
    let mut report = Vec::new();
    for s in &sessions {
        let dir = token_dir(&s.issuer, args.cache_dir.as_deref())?;
        let mut tokens: Vec<serde_json::Value> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|e| std::fs::read(e.path()).ok())
            .filter_map(|b| serde_json::from_slice::<Cached>(&b).ok())
            .map(|c| {
                serde_json::json!({
                    "resource": c.resource,
                    "expires_in": c.expires_at.saturating_sub(now()),
                })
            })
            .collect();
        tokens.sort_by(|a, b| a["resource"].as_str().cmp(&b["resource"].as_str()));
        report.push(serde_json::json!({
            "server": s.server,
            "realm": s.realm,
            "subject": s.subject,
            "credential_store": s.vault,
            "signed_in_at": s.signed_in_at,
            "via": s.via,
            "tokens": tokens,
        }));
    }
    let release = release.map(|r| {
        serde_json::json!({
            "server": r.server,
            "realm": r.realm,
            "release": r.release_id,
            "sequence": r.sequence,
            "pulled_at": r.pulled_at,
        })
    });
    if args.json {
        println!(
            "{}",
            serde_json::json!({"sessions": report, "release": release})
        );
        return Ok(0);
    }
    if report.is_empty() {
        println!("Not signed in. Run: portcullis-cli login --server URL --realm REALM");
    }
    for r in &report {
        println!(
            "Signed in to realm {} at {} as {} ({} ago, by {}); sign-in kept in the {}.",
            r["realm"].as_str().unwrap_or_default(),
            r["server"].as_str().unwrap_or_default(),
            r["subject"].as_str().unwrap_or_default(),
            ago(r["signed_in_at"].as_u64().unwrap_or_default()),
            r["via"].as_str().unwrap_or_default(),
            if r["credential_store"] == "keyring" {
                "OS credential store"
            } else {
                "private file"
            },
        );
        for t in r["tokens"].as_array().into_iter().flatten() {
            let left = t["expires_in"].as_u64().unwrap_or_default();
            println!(
                "  {} — {}",
                t["resource"].as_str().unwrap_or_default(),
                if left == 0 {
                    "expired".to_owned()
                } else {
                    format!("expires in {}", duration(left))
                }
            );
        }
    }
    match &release {
        Some(r) => println!(
            "Cached release #{} of realm {} ({}), pulled {} ago.",
            r["sequence"],
            r["realm"].as_str().unwrap_or_default(),
            &r["release"].as_str().unwrap_or_default()
                [..12.min(r["release"].as_str().unwrap_or_default().len())],
            ago(r["pulled_at"].as_u64().unwrap_or_default())
        ),
        None => println!("No release cached: run portcullis-cli pull."),
    }
    Ok(0)
}

fn duration(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs} s"),
        60..3600 => format!("{} min", secs / 60),
        3600..86_400 => format!("{} h", secs / 3600),
        _ => format!("{} days", secs / 86_400),
    }
}

fn ago(at: u64) -> String {
    duration(now().saturating_sub(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_used_until_shortly_before_it_expires() {
        let dir = tempfile::tempdir().expect("dir");
        let fresh = Cached {
            resource: "https://mail.example.com/mcp".into(),
            access_token: "t".into(),
            expires_at: now() + 300,
            scope: None,
        };
        keep(dir.path(), &fresh).expect("keep");
        assert!(cached(dir.path(), &fresh.resource).is_some());
        assert!(cached(dir.path(), "https://other.example.com/mcp").is_none());
        keep(
            dir.path(),
            &Cached {
                expires_at: now() + EXPIRY_MARGIN_SECS,
                ..fresh.clone()
            },
        )
        .expect("keep");
        assert!(
            cached(dir.path(), &fresh.resource).is_none(),
            "about to expire"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(dir.path().join(vault::file_name(&fresh.resource)))
                .expect("file")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn the_subject_is_read_from_the_token_payload() {
        use base64::Engine as _;
        let payload =
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(br#"{"sub":"psn_1"}"#);
        assert_eq!(subject_of(&format!("h.{payload}.s")), "psn_1");
        assert_eq!(subject_of("garbage"), "");
    }
}
