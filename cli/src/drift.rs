//! `drift`: reads the harnesses' user configs, compares them with the cached release for the
//! rings and units it was pulled for, and reports. Never edits a file; a file that cannot be
//! read or parsed is a `problem` in the report, never the end of it. With `--report` the
//! findings also go to the realm (names, hosts and hashes only), signed in as the person.
use crate::Failure;
use crate::cache;
use portcullis_manifest::drift::{
    Configured, DriftFinding, DriftReport, FindingKind, Harness, ReportedProblem, compare,
    configured,
};
use portcullis_manifest::release::verify_release;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Largest config file read (`~/.claude.json` keeps history and grows).
const MAX_CONFIG_BYTES: u64 = 64 * 1024 * 1024;

/// `drift`'s arguments.
#[derive(Debug, clap::Args)]
pub struct DriftArgs {
    /// The home directory whose configs are read (default: $HOME, and the harnesses' own
    /// variables such as CLAUDE_CONFIG_DIR and CODEX_HOME).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Cache directory (default: $XDG_CACHE_HOME/portcullis or ~/.cache/portcullis).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// Also send the findings to the realm the release came from (names, transports, hosts and
    /// hashes of the definitions; never a command, argument or URL path), signed in with
    /// `portcullis-cli login`. A device reports at most once a minute.
    #[arg(long)]
    report: bool,
    /// The name the report goes under (default: this computer's host name).
    #[arg(long, value_name = "NAME", requires = "report")]
    device: Option<String>,
}

/// The report, as `--json` prints it.
#[derive(Debug, Clone, Serialize)]
struct Report {
    release: ReleaseInfo,
    /// When the release was last pulled or confirmed (Unix seconds; 0: unknown).
    pulled_at: u64,
    rings: Vec<String>,
    units: Vec<String>,
    /// How many servers the release approves for these rings and units.
    approved: usize,
    files: Vec<FileRead>,
    findings: Vec<DriftFinding>,
    problems: Vec<Problem>,
    drift: bool,
}

#[derive(Debug, Clone, Serialize)]
struct ReleaseInfo {
    id: String,
    sequence: u64,
    issuer: String,
    mode: &'static str,
}

#[derive(Debug, Clone, Serialize)]
struct FileRead {
    harness: Harness,
    source: String,
    /// `read`, `absent` or `problem`.
    state: &'static str,
    servers: usize,
}

/// A file that could not be read or parsed.
#[derive(Debug, Clone, Serialize)]
struct Problem {
    harness: Harness,
    source: String,
    message: String,
}

/// Runs `drift`: 0 when nothing drifted, 1 when something did.
///
/// # Errors
/// No cached release, or one that no longer verifies (exit status 2); with `--report`, not
/// signed in (3) or the report refused (2).
pub async fn run(args: DriftArgs) -> Result<u8, Failure> {
    let device = if args.report {
        Some(device_name(args.device.as_deref())?)
    } else {
        None
    };
    let root = cache::root(args.cache_dir.as_deref())?;
    let state = cache::load(&root)?.ok_or_else(|| {
        Failure::error(format!(
            "No release cached in {}: run `portcullis-cli pull --server URL --realm REALM` first.",
            root.display()
        ))
    })?;
    let path = root.join(&state.release);
    let bytes = std::fs::read(&path).map_err(|e| {
        Failure::error(format!(
            "Failed to read {}: {e} (pull again)",
            path.display()
        ))
    })?;
    // Checked again: the cache is a file anyone with this account can change.
    let verified = verify_release(&bytes, &state.jwks, &state.issuer).map_err(|e| {
        Failure::error(format!(
            "The cached release {} does not verify: {e}. Pull again.",
            path.display()
        ))
    })?;
    if verified.id != state.release_id {
        return Err(Failure::error(format!(
            "The cached release {} is not the one pulled last. Pull again.",
            path.display()
        )));
    }
    let approved = verified.policy.servers_for(&state.rings, &state.units);

    let (files, servers, problems) = read_home(args.home.as_deref())?;
    let mut findings = compare(&approved, &servers);
    // A server approved for rings or units this laptop did not pull for: say so, rather than
    // send the person to ask for an approval that exists.
    for f in &mut findings {
        if f.kind != FindingKind::Unapproved {
            continue;
        }
        if let Some(s) = verified.policy.servers.iter().find(|s| s.id == f.name) {
            let groups: Vec<String> = s
                .rings
                .iter()
                .map(|r| format!("ring {r}"))
                .chain(s.units.iter().map(|u| format!("unit {u}")))
                .collect();
            f.fix = format!(
                "{} is approved for {}, not for the rings and units this laptop pulled for: if you are in one, pull again with --ring/--unit; otherwise remove it from {}.",
                s.id,
                if groups.is_empty() {
                    "nobody yet".to_owned()
                } else {
                    groups.join(", ")
                },
                f.source
            );
        }
    }
    let report = Report {
        release: ReleaseInfo {
            id: verified.id.clone(),
            sequence: verified.manifest.sequence,
            issuer: state.issuer.clone(),
            mode: verified.policy.mode.as_str(),
        },
        pulled_at: state.pulled_at,
        rings: state.rings.clone(),
        units: state.units.clone(),
        approved: approved.len(),
        files,
        drift: !findings.is_empty(),
        findings,
        problems,
    };
    if args.json {
        let out = serde_json::to_string_pretty(&report)
            .map_err(|e| Failure::error(format!("Failed to serialise the report: {e}")))?;
        println!("{out}");
    } else {
        print!("{}", text(&report));
    }
    if let Some(device) = device {
        let sent = send(
            &state,
            (&root, args.cache_dir.as_deref()),
            device,
            report.clone(),
        )
        .await?;
        // On stderr with --json: stdout stays one JSON document.
        if args.json {
            eprintln!("{sent}");
        } else {
            println!("{sent}");
        }
    }
    Ok(u8::from(report.drift))
}

/// The device's name: `--device`, else the host name (without `.local`).
fn device_name(given: Option<&str>) -> Result<String, Failure> {
    let name = match given {
        Some(d) => d.trim().to_owned(),
        None => whoami::fallible::hostname()
            .map_err(|e| {
                Failure::error(format!(
                    "This computer's host name cannot be read ({e}): pass --device NAME."
                ))
            })?
            .trim()
            .trim_end_matches(".local")
            .to_owned(),
    };
    if name.is_empty()
        || name.chars().count() > portcullis_manifest::drift::MAX_DEVICE
        || name.chars().any(char::is_control)
    {
        return Err(Failure::error(format!(
            "--device: a name of 1 to {} characters, no control characters.",
            portcullis_manifest::drift::MAX_DEVICE
        )));
    }
    Ok(name)
}

/// This device's key for the definition fingerprints a report carries: 32 random bytes, made
/// once and kept readable by this account alone.
fn device_key(root: &Path) -> Result<[u8; 32], Failure> {
    let path = root.join("drift").join("device.key");
    let stored = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| hex::decode(t.trim()).ok())
        .and_then(|b| <[u8; 32]>::try_from(b).ok());
    if let Some(key) = stored {
        return Ok(key);
    }
    let mut key = [0u8; 32];
    getrandom::getrandom(&mut key)
        .map_err(|e| Failure::error(format!("No randomness for the device key: {e}")))?;
    crate::vault::write_private(&path, hex::encode(key).as_bytes())?;
    Ok(key)
}

/// A definition's fingerprint as reports carry it: its SHA-256 keyed with the device's key,
/// so the same definition is recognised from one report of this device to the next, while
/// whoever reads the report cannot test guesses of the values it covers (an environment
/// value, an argument) against it.
fn fingerprint(key: &[u8; 32], definition_sha256: &str) -> String {
    use sha2::Digest as _;
    let mut h = sha2::Sha256::new();
    h.update(key);
    h.update(definition_sha256.as_bytes());
    hex::encode(h.finalize())
}

/// Sends the report to the realm the release was pulled from; what happened, in words.
async fn send(
    state: &cache::State,
    (root, cache_dir): (&Path, Option<&Path>),
    device: String,
    mut r: Report,
) -> Result<String, Failure> {
    let Some(token) = crate::signin::registry_token(&state.server, &state.realm, cache_dir).await?
    else {
        return Err(Failure {
            code: 3,
            message: format!(
                "Not signed in to realm {} at {}: run `portcullis-cli login --server {} --realm {}`, then report again.",
                state.realm, state.server, state.server, state.realm
            ),
        });
    };
    let key = device_key(root)?;
    for f in &mut r.findings {
        f.definition_sha256 = fingerprint(&key, &f.definition_sha256);
    }
    let files_read = r.files.iter().filter(|f| f.state == "read").count();
    let problems = r
        .problems
        .into_iter()
        .map(|p| ReportedProblem {
            harness: p.harness,
            source: p.source,
            message: p.message,
        })
        .collect();
    let body = DriftReport::new(
        device.clone(),
        (r.release.id, r.release.sequence),
        (r.rings, r.units),
        r.approved,
        files_read,
        r.findings,
        problems,
    );
    let url = url::Url::parse(&format!(
        "{}/realms/{}/registry/drift",
        state.server, state.realm
    ))
    .map_err(|e| Failure::error(format!("The cached server URL is not valid: {e}")))?;
    let client = crate::http::Http::new(crate::http::is_loopback(&url))?;
    let res = client
        .post_json(&url, &token, &body, "drift report")
        .await?;
    let answer: serde_json::Value = serde_json::from_slice(&res.body).unwrap_or_default();
    match res.status {
        200 => Ok(format!(
            "Report sent for device {device}{}.",
            if answer["latest_release"].as_bool() == Some(false) {
                " (compared with an older release: pull again)"
            } else {
                ""
            }
        )),
        404 => Err(Failure::error(format!(
            "Realm {} at {} does not take reports: it does not serve its registry over HTTP any more (an administrator turned access off), or the realm is gone.",
            state.realm, state.server
        ))),
        401 => Err(Failure {
            code: 3,
            message: format!(
                "The realm refused the sign-in: run `portcullis-cli login --server {} --realm {}`, then report again.",
                state.server, state.realm
            ),
        }),
        status => Err(Failure::error(format!(
            "The realm did not take the report ({status}): {}",
            plain(
                answer["error_description"]
                    .as_str()
                    .unwrap_or("no reason given")
            )
        ))),
    }
}

type Read = (Vec<FileRead>, Vec<Configured>, Vec<Problem>);

/// Every harness's user config files.
fn read_home(home: Option<&Path>) -> Result<Read, Failure> {
    let (home, from_env) = match home {
        Some(h) => (h.to_owned(), false),
        None => (
            std::env::var_os("HOME")
                .or_else(|| std::env::var_os("USERPROFILE"))
                .map(PathBuf::from)
                .ok_or_else(|| Failure::error("No home directory: set HOME or pass --home."))?,
            true,
        ),
    };
    let (mut files, mut servers, mut problems) = (Vec::new(), Vec::new(), Vec::new());
    for harness in Harness::ALL {
        for rel in harness.user_config_files() {
            let (path, source) = locate(harness, rel, &home, from_env);
            let read = std::fs::metadata(&path).and_then(|m| {
                if m.len() > MAX_CONFIG_BYTES {
                    Err(std::io::Error::other("larger than 64 MiB"))
                } else {
                    std::fs::read(&path)
                }
            });
            let parsed = match read {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    files.push(FileRead {
                        harness,
                        source,
                        state: "absent",
                        servers: 0,
                    });
                    continue;
                }
                Err(e) => Err(format!("cannot be read: {e}")),
                Ok(bytes) => configured(harness, &source, &bytes),
            };
            match parsed {
                Ok(found) => {
                    files.push(FileRead {
                        harness,
                        source,
                        state: "read",
                        servers: found.len(),
                    });
                    servers.extend(found);
                }
                Err(message) => {
                    files.push(FileRead {
                        harness,
                        source: source.clone(),
                        state: "problem",
                        servers: 0,
                    });
                    problems.push(Problem {
                        harness,
                        source,
                        message,
                    });
                }
            }
        }
    }
    Ok((files, servers, problems))
}

/// Where a harness's file is and how reports name it: under the home directory, or where the
/// harness's own environment variable points (only without `--home`).
fn locate(harness: Harness, rel: &str, home: &Path, from_env: bool) -> (PathBuf, String) {
    let var = |k: &str| {
        std::env::var_os(k)
            .map(PathBuf::from)
            .filter(|p| from_env && p.is_absolute())
    };
    let redirected = match harness {
        Harness::ClaudeCode => var("CLAUDE_CONFIG_DIR").map(|d| (d, "$CLAUDE_CONFIG_DIR", rel)),
        Harness::Codex => var("CODEX_HOME").map(|d| (d, "$CODEX_HOME", "config.toml")),
        Harness::Copilot => var("COPILOT_HOME").map(|d| (d, "$COPILOT_HOME", "mcp-config.json")),
        Harness::OpenCode => var("XDG_CONFIG_HOME").map(|d| {
            let file = rel.strip_prefix(".config/").unwrap_or(rel);
            (d, "$XDG_CONFIG_HOME", file)
        }),
        Harness::Gemini | Harness::Cursor => None,
    };
    match redirected {
        Some((dir, name, file)) => (dir.join(file), format!("{name}/{file}")),
        None => (home.join(rel), format!("~/{rel}")),
    }
}

/// The report in words, one finding per line plus its fix.
fn text(r: &Report) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let mode = match r.release.mode {
        "warn" => "warn: nothing is blocked, drift is reported",
        _ => "allowlist: harnesses that can enforce it block unapproved servers",
    };
    let _ = writeln!(
        out,
        "Release {} (#{}) of {}, mode {mode}.",
        &r.release.id[..12],
        r.release.sequence,
        plain(&r.release.issuer)
    );
    if r.pulled_at > 0 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let age = now.saturating_sub(r.pulled_at);
        let (n, unit) = match age {
            0..3600 => (age / 60, "minute"),
            3600..86_400 => (age / 3600, "hour"),
            _ => (age / 86_400, "day"),
        };
        if age < 60 {
            let _ = writeln!(out, "Pulled just now.");
        } else {
            let _ = writeln!(
                out,
                "Pulled {n} {unit}{} ago: pull again for a newer release.",
                if n == 1 { "" } else { "s" }
            );
        }
    }
    let _ = writeln!(
        out,
        "For rings [{}] and units [{}]: {} approved server{}.",
        plain(&r.rings.join(", ")),
        plain(&r.units.join(", ")),
        r.approved,
        if r.approved == 1 { "" } else { "s" }
    );
    for f in &r.findings {
        let kind = match f.kind {
            FindingKind::Unapproved => "unapproved   ",
            FindingKind::VersionDrift => "version-drift",
        };
        let host = f
            .host
            .as_deref()
            .map(|h| format!(", {}", plain(h)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{kind} {} {} ({}{host}) in {}, definition sha256 {}\n  fix: {}",
            f.harness.as_str(),
            plain(&f.name),
            f.transport.as_str(),
            plain(&f.source),
            &f.definition_sha256[..16],
            plain(&f.fix)
        );
    }
    for p in &r.problems {
        let _ = writeln!(
            out,
            "problem       {} {}: {}",
            p.harness.as_str(),
            plain(&p.source),
            plain(&p.message)
        );
    }
    let absent = r.files.iter().filter(|f| f.state == "absent").count();
    let _ = writeln!(
        out,
        "{} finding{}, {} problem{}; {} config files, {absent} absent.",
        r.findings.len(),
        if r.findings.len() == 1 { "" } else { "s" },
        r.problems.len(),
        if r.problems.len() == 1 { "" } else { "s" },
        r.files.len()
    );
    out
}

/// A name from a user's file, safe for a terminal: control characters and bidirectional
/// overrides (which could make a line read as something else) escaped.
fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let bidi = matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if c.is_control() || bidi {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_cannot_move_the_terminal() {
        assert_eq!(
            super::plain("a\u{1b}[2Jb\u{202e}c"),
            "a\\u{1b}[2Jb\\u{202e}c"
        );
        assert_eq!(super::plain("projects[\"/w\"]"), "projects[\"/w\"]");
    }
}
