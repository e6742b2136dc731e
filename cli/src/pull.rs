//! `pull`: the realm's metadata (RFC 8414) for its issuer and JWKS, then its latest release,
//! verified (id = hash of the content, signature by a key of the JWKS, the realm's issuer)
//! before it replaces the cached one.
use crate::Failure;
use crate::args::{parse, realm, server_url, shown};
use crate::cache::{self, State};
use crate::http::{self, Http, MAX_DOCUMENT_BYTES};
use portcullis_manifest::release::{MAX_RELEASE_BYTES, Verified, VerifyError, verify_release};
use portcullis_manifest::render::{Harness, Options, Os, Scope, Target, render};
use reqwest::header::HeaderMap;
use serde::Serialize;
use std::path::PathBuf;
use url::Url;

/// `pull`'s arguments.
#[derive(Debug, clap::Args)]
pub struct PullArgs {
    /// Portcullis base URL (https; http only to this machine).
    #[arg(long, value_name = "URL")]
    server: String,
    /// The realm.
    #[arg(long, value_name = "REALM")]
    realm: String,
    /// A ring you are in (repeat for more; default: the rings and units the server says are
    /// yours when you are signed in, else those of the last pull).
    #[arg(long = "ring", value_name = "RING")]
    rings: Vec<String>,
    /// A unit you are in (repeat for more; default: as for --ring).
    #[arg(long = "unit", value_name = "UNIT")]
    units: Vec<String>,
    /// The environment variable holding a bearer token for the registry, if it wants one.
    #[arg(long, value_name = "NAME")]
    token_env: Option<String>,
    /// Cache directory (default: $XDG_CACHE_HOME/portcullis or ~/.cache/portcullis).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Also install this harness's managed files (claude-code, codex, gemini, copilot,
    /// opencode; repeat for more) at their system paths, rendered from the verified release
    /// for your rings and units. Only the harnesses named are touched; per-user files are
    /// never written.
    #[arg(long = "apply", value_name = "HARNESS")]
    apply: Vec<String>,
    /// With --apply: the command Claude Code and Codex run for the headers of servers
    /// Portcullis authorizes. `portcullis-cli` means this program's own `token` (each person
    /// signs in once with `portcullis-cli login`); anything else is a command line where
    /// `{url}` becomes the server's URL and `{id}` its id. Without it those servers use the
    /// harness's own MCP sign-in.
    #[arg(long, value_name = "COMMAND")]
    token_helper: Option<String>,
    /// Install under this directory instead of `/` (packaging, tests).
    #[arg(
        long,
        value_name = "DIR",
        default_value = "/",
        hide_default_value = true
    )]
    root: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// What `pull --json` prints.
#[derive(Debug, Serialize)]
struct Summary<'a> {
    release: &'a str,
    sequence: u64,
    issuer: &'a str,
    mode: &'static str,
    changed: bool,
    rings: &'a [String],
    units: &'a [String],
    servers: Vec<&'a str>,
    cache: String,
}

/// Runs `pull`.
///
/// # Errors
/// Which step failed: a bad argument, the network, the metadata, or the release's check
/// (named: its id, its signature, its issuer); the cache is then left as it was.
pub async fn run(args: PullArgs) -> Result<(), Failure> {
    // Named harnesses are checked before anything is fetched.
    let apply = args
        .apply
        .iter()
        .map(|h| {
            Harness::parse(h).ok_or_else(|| {
                Failure::error(format!(
                    "--apply {}: one of claude-code, codex, gemini, copilot, cursor, opencode.",
                    shown(h)
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let server = server_url(&args.server)?;
    let realm = realm(&args.realm)?;
    let base = server.as_str().trim_end_matches('/').to_owned();
    let issuer = format!("{base}/realms/{realm}");
    let token = match &args.token_env {
        Some(name) => Some(token_from(name)?),
        // Signed in to this realm (`portcullis-cli login`): the sign-in reads the registry.
        None => crate::signin::registry_token(&base, realm, args.cache_dir.as_deref()).await?,
    };
    let client = Http::new(http::is_loopback(&server))?;

    let jwks = realm_jwks(&client, &issuer).await?;

    let root = cache::root(args.cache_dir.as_deref())?;
    let previous = cache::load(&root)?.filter(|s| s.server == base && s.realm == realm);
    let release_file = cache::release_file(&server, realm);
    let release_path = root.join(&release_file);
    // The cached release, if it still verifies with the realm's keys: offered as If-None-Match.
    let cached: Option<Verified> = std::fs::read(&release_path)
        .ok()
        .and_then(|bytes| verify_release(&bytes, &jwks, &issuer).ok());

    let mut headers = HeaderMap::new();
    if let Some(token) = &token {
        headers.extend(http::header("authorization", &format!("Bearer {token}"))?);
    }
    if let Some(c) = &cached {
        headers.extend(http::header("if-none-match", &format!("\"{}\"", c.id))?);
    }
    let url = parse(&format!("{issuer}/registry/releases/latest"))?;
    let res = client
        .get(&url, headers, MAX_RELEASE_BYTES, "release")
        .await?;
    let (verified, changed) = match (res.status, &cached) {
        (304, Some(cached)) => (cached.clone(), false),
        (304, None) => {
            return Err(Failure::error(
                "The server answered 304 Not Modified to a request for a release not cached.",
            ));
        }
        (200, _) => {
            let verified = verify_release(&res.body, &jwks, &issuer).map_err(refused)?;
            // Against the last pull of this realm, and against the release cached for it
            // (which outlives a pull of another realm in between).
            let floors = previous
                .iter()
                .map(|p| (p.sequence, p.release_id.as_str()))
                .chain(cached.iter().map(|c| (c.manifest.sequence, c.id.as_str())));
            for (sequence, id) in floors {
                not_older(sequence, id, &verified, &release_path)?;
            }
            cache::write_atomic(&release_path, &res.body)?;
            (verified, true)
        }
        (401 | 403, _) => {
            return Err(Failure {
                code: 3,
                message: format!(
                    "The registry refused the request ({}): {}",
                    res.status,
                    if token.is_some() {
                        "the token is not valid for it"
                    } else {
                        "it wants a token: sign in with portcullis-cli login --server URL --realm REALM (pull then uses it), or pass --token-env NAME, NAME holding a token"
                    }
                ),
            });
        }
        (404, _) => {
            return Err(Failure::error(format!(
                "Realm {realm} has published no release, or does not serve its registry."
            )));
        }
        (status, _) => {
            return Err(Failure::error(format!(
                "Failed to fetch the release ({url}): HTTP {status}"
            )));
        }
    };

    let given = !(args.rings.is_empty() && args.units.is_empty());
    // With a token and no --ring or --unit, the server says which rings and units are yours
    // now (those your groups at your identity provider give you, for instance).
    let mine = match &token {
        Some(token) if !given => my_groups(&client, &issuer, token).await?,
        _ => None,
    };
    let (rings, units) = match (mine, &previous, given) {
        (Some(m), _, false) => (m.rings, m.units),
        (None, Some(p), false) => (p.rings.clone(), p.units.clone()),
        _ => (args.rings.clone(), args.units.clone()),
    };
    if rings.is_empty() && units.is_empty() {
        eprintln!(
            "portcullis-cli: note: no --ring or --unit given: no server is for you, and drift reports every configured server as unapproved."
        );
    }
    for (what, list, known) in [
        ("ring", &rings, &verified.policy.rings),
        (
            "unit",
            &units,
            &verified.policy.units.iter().map(|u| u.id.clone()).collect(),
        ),
    ] {
        for g in list.iter().filter(|g| !known.contains(g)) {
            eprintln!("portcullis-cli: warning: the release has no {what} {g}.");
        }
    }
    cache::save(
        &root,
        &State {
            server: base,
            realm: realm.to_owned(),
            issuer: issuer.clone(),
            release: release_file,
            release_id: verified.id.clone(),
            sequence: verified.manifest.sequence,
            jwks,
            rings: rings.clone(),
            units: units.clone(),
            pulled_at: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        },
    )?;

    let servers = verified.policy.servers_for(&rings, &units);
    let summary = Summary {
        release: &verified.id,
        sequence: verified.manifest.sequence,
        issuer: &issuer,
        mode: verified.policy.mode.as_str(),
        changed,
        rings: &rings,
        units: &units,
        servers: servers.iter().map(|s| s.id.as_str()).collect(),
        cache: release_path.display().to_string(),
    };
    if args.json {
        let out = serde_json::to_string_pretty(&summary)
            .map_err(|e| Failure::error(format!("Failed to serialise the summary: {e}")))?;
        println!("{out}");
    } else {
        println!(
            "Release {} (#{}, {}) {}: {} of {} servers for you; cached at {}.",
            &verified.id[..12],
            summary.sequence,
            summary.mode,
            if changed { "verified" } else { "unchanged" },
            servers.len(),
            verified.policy.servers.len(),
            summary.cache
        );
    }
    let token_helper = match args.token_helper.as_deref().map(str::trim) {
        None => None,
        Some("portcullis-cli") => Some(
            portcullis_manifest::render::portcullis_cli_helper(summary_server(&issuer), realm)
                .ok_or_else(|| {
                    Failure::error(
                        "--token-helper portcullis-cli: the server URL or realm has characters a shell would read; give the command line instead.",
                    )
                })?,
        ),
        Some(other) => Some(other.to_owned()),
    };
    if token_helper.is_some() && apply.is_empty() {
        eprintln!(
            "portcullis-cli: note: --token-helper applies to --apply; nothing was installed."
        );
    }
    let options = Options { token_helper };
    for h in apply {
        install(h, &verified, &servers, &args.root, &options)?;
    }
    Ok(())
}

/// The server's base URL from a realm's issuer (`…/realms/{realm}`).
fn summary_server(issuer: &str) -> &str {
    issuer
        .rsplit_once("/realms/")
        .map_or(issuer, |(base, _)| base)
}

/// This operating system, as the renderers name install paths.
fn this_os() -> Os {
    if cfg!(target_os = "macos") {
        Os::MacOs
    } else if cfg!(windows) {
        Os::Windows
    } else {
        Os::Linux
    }
}

/// Writes `harness`'s managed files for `servers` at their install paths under `root`.
fn install(
    harness: Harness,
    verified: &Verified,
    servers: &[&portcullis_manifest::Server],
    root: &std::path::Path,
    options: &Options,
) -> Result<(), Failure> {
    let rendered = render(
        &Target::current(harness),
        &verified.policy,
        servers,
        options,
    );
    let os = this_os();
    let mut wrote = 0;
    for f in rendered.files.iter().filter(|f| f.scope == Scope::Managed) {
        let Some((_, path)) = f.paths.iter().find(|(o, _)| *o == os) else {
            continue;
        };
        let target = root.join(path.trim_start_matches('/'));
        cache::write_atomic(&target, f.contents.as_bytes())?;
        println!("{}: wrote {}", harness.as_str(), target.display());
        wrote += 1;
    }
    if wrote == 0 {
        eprintln!(
            "portcullis-cli: note: {} has no managed file on this system; nothing was installed for it.",
            harness.as_str()
        );
    }
    if !rendered.warnings.is_empty() {
        eprintln!(
            "portcullis-cli: note: {}: {} thing(s) the harness cannot express (portcullis registry render shows them).",
            harness.as_str(),
            rendered.warnings.len()
        );
    }
    Ok(())
}

/// The realm's JWKS, from the `jwks_uri` of its RFC 8414 metadata, once the metadata's
/// issuer is the one asked for.
async fn realm_jwks(client: &Http, issuer: &str) -> Result<serde_json::Value, Failure> {
    // RFC 8414 §3.1: the well-known segment goes between the host and the issuer's path.
    let mut url = parse(issuer)?;
    url.set_path(&format!(
        "/.well-known/oauth-authorization-server{}",
        url.path().trim_end_matches('/')
    ));
    let meta = json(client, &url, "realm's metadata").await?;
    let found = meta
        .get("issuer")
        .and_then(|i| i.as_str())
        .unwrap_or_default();
    if found != issuer {
        return Err(Failure::error(format!(
            "Refused: the metadata at {url} is for issuer {}, not {issuer}.",
            shown(found)
        )));
    }
    let jwks_uri = meta
        .get("jwks_uri")
        .and_then(|j| j.as_str())
        .ok_or_else(|| Failure::error(format!("The metadata at {url} has no jwks_uri.")))?;
    let jwks_url = parse(jwks_uri)?;
    // Plain http to this machine is for a server on this machine, not one named by another.
    if jwks_url.scheme() != "https" && url.scheme() == "https" {
        return Err(Failure::error(format!(
            "Refused: the metadata at {url} names a jwks_uri that is not https."
        )));
    }
    let jwks = json(client, &jwks_url, "realm's JWKS").await?;
    if !jwks.get("keys").is_some_and(serde_json::Value::is_array) {
        return Err(Failure::error(format!("{jwks_url} is not a JWKS.")));
    }
    Ok(jwks)
}

async fn json(client: &Http, url: &Url, what: &str) -> Result<serde_json::Value, Failure> {
    let res = client
        .get(url, HeaderMap::new(), MAX_DOCUMENT_BYTES, what)
        .await?;
    if res.status != 200 {
        return Err(Failure::error(format!(
            "Failed to fetch the {what} ({url}): HTTP {}",
            res.status
        )));
    }
    serde_json::from_slice(&res.body)
        .map_err(|e| Failure::error(format!("The {what} ({url}) is not JSON: {e}")))
}

/// The check that refused a release, named.
fn refused(e: VerifyError) -> Failure {
    let check = match &e {
        VerifyError::Malformed(_) => "malformed",
        VerifyError::IdMismatch { .. } => "id-mismatch",
        VerifyError::BadSignature(_) => "bad-signature",
        VerifyError::WrongIssuer { .. } => "wrong-issuer",
        VerifyError::InvalidPolicy(_) => "invalid-policy",
    };
    Failure::error(format!(
        "Refused the release ({check}): {e}. The cache was left as it was."
    ))
}

/// A release never replaces a later one (a replayed old release would bring back servers
/// since removed), nor another with the same number.
fn not_older(
    sequence: u64,
    id: &str,
    new: &Verified,
    path: &std::path::Path,
) -> Result<(), Failure> {
    let seq = new.manifest.sequence;
    if seq < sequence || (seq == sequence && new.id != id) {
        return Err(Failure::error(format!(
            "Refused the release (rollback): the server offers release #{seq} ({}), the cache holds #{sequence} ({}). If the realm's registry was reset on purpose, delete {} and pull again.",
            &new.id[..12],
            id.get(..12).unwrap_or_default(),
            path.display()
        )));
    }
    Ok(())
}

/// The bearer token, from the environment (a flag's value would be in the shell history and
/// the process list).
fn token_from(name: &str) -> Result<String, Failure> {
    match std::env::var(name) {
        Ok(t) if !t.trim().is_empty() => Ok(t.trim().to_owned()),
        _ => Err(Failure::error(format!(
            "--token-env {}: that environment variable is not set.",
            shown(name)
        ))),
    }
}

/// The rings and units the server says the token's holder is in.
#[derive(Debug, serde::Deserialize)]
struct MyGroups {
    #[serde(default)]
    rings: Vec<String>,
    #[serde(default)]
    units: Vec<String>,
}

/// Asks the realm which rings and units the token's holder is in; `None` when the server does
/// not say (an older server, or a token it does not take).
async fn my_groups(client: &Http, issuer: &str, token: &str) -> Result<Option<MyGroups>, Failure> {
    let url = parse(&format!("{issuer}/registry/me"))?;
    let headers = http::header("authorization", &format!("Bearer {token}"))?;
    let res = client
        .get(&url, headers, 64 * 1024, "rings and units")
        .await?;
    if res.status != 200 {
        return Ok(None);
    }
    serde_json::from_slice(&res.body).map(Some).map_err(|e| {
        Failure::error(format!(
            "The server's answer about your rings and units is not valid: {e}"
        ))
    })
}
