//! `portcullis-cli` against a loopback HTTP server serving a realm's metadata, JWKS and a
//! release signed with a test key; `drift` against the crafted home of
//! manifest/tests/fixtures/drift-home, whose planted secrets must appear nowhere.
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use portcullis_manifest::release::{MANIFEST_SCHEMA, Manifest, SignedRelease};
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

/// The realm's key (the one in its JWKS).
const KEY_PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgMSbhRp7C30wVz3mp
Ho9vXoN7wZB66trmRWzsSvvZrE6hRANCAARtEqI8/LuwIM3mf9Eitz3OyiQXgEOb
vRfU7dqZjx6BRGB4MsgS9I1lW3C2T6Ih5ioVc4t0/4MBlXkzMffxqlPC
-----END PRIVATE KEY-----";
/// Another key, not the realm's.
const OTHER_KEY_PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg9xA6WasjFBZCVTA8
jg2EU3vrgJhIM6qnXsZVgJd9jk2hRANCAAQbEza42iitafrap76Uglcl0PLgnOjM
A8qgqQh6QAV5lGwAFr4JOegFvnbocex44h0ObG8p+IE/gv8neL3VxBoF
-----END PRIVATE KEY-----";
const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const TOKEN: &str = "tok-SECRET-bearer";

fn jwks() -> serde_json::Value {
    serde_json::json!({"keys": [{
        "kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig", "alg": "ES256",
        "x": "bRKiPPy7sCDN5n_RIrc9zsokF4BDm70X1O3amY8egUQ",
        "y": "YHgyyBL0jWVbcLZPoiHmKhVzi3T_gwGVeTMx9_GqU8I"
    }]})
}

fn manifest(issuer: &str, sequence: u64) -> Manifest {
    let policy = serde_json::json!({
        "mode": "allowlist",
        "rings": ["ring0", "ring1"],
        "units": [{"id": "eng"}, {"id": "payments", "parent": "eng"}],
        "servers": [
            {"id": "wiki", "url": "https://wiki.example.com/mcp", "rings": ["ring0"]},
            {"id": "playwright", "package": {"type": "npm", "identifier": "@playwright/mcp", "version": "0.0.82"}, "rings": ["ring0"]},
            {"id": "fetch", "package": {"type": "pypi", "identifier": "mcp-server-fetch", "version": "1.2.0"}, "units": ["eng"]},
            {"id": "tools", "package": {"type": "oci", "identifier": format!("ghcr.io/acme/tools@sha256:{DIGEST}")}, "units": ["payments"]},
            {"id": "local", "command": {"path": "/opt/acme/bin/acme-mcp", "args": ["--stdio"], "sha256": DIGEST}, "rings": ["ring0"]},
            {"id": "other", "url": "https://other.example.com/mcp", "auth": {"mode": "portcullis"}, "rings": ["ring1"]}
        ]
    });
    Manifest {
        schema: MANIFEST_SCHEMA.into(),
        issuer: issuer.into(),
        sequence,
        published_at: 1_790_000_000,
        previous: None,
        policy: serde_json::from_value(policy).expect("policy"),
    }
}

fn signer(pem: &'static str) -> impl Fn(&[u8]) -> Result<Vec<u8>, String> {
    move |input| {
        let key =
            jsonwebtoken::EncodingKey::from_ec_pem(pem.as_bytes()).map_err(|e| e.to_string())?;
        let b64 = jsonwebtoken::crypto::sign(input, &key, jsonwebtoken::Algorithm::ES256)
            .map_err(|e| e.to_string())?;
        URL_SAFE_NO_PAD.decode(b64).map_err(|e| e.to_string())
    }
}

fn signed(m: &Manifest) -> SignedRelease {
    SignedRelease::sign(m, "ES256", "k1", signer(KEY_PEM)).expect("signed")
}

fn bytes(r: &SignedRelease) -> Vec<u8> {
    serde_json::to_vec_pretty(r).expect("json")
}

/// What the test server serves, and what it was asked.
#[derive(Default)]
struct Served {
    metadata_issuer: Option<String>,
    release: Option<(String, Vec<u8>)>,
    require_token: bool,
    requests: Vec<(String, Vec<(String, String)>)>,
}

/// A loopback HTTP/1.1 server, one thread per connection, `Connection: close`.
struct Realm {
    base: String,
    served: Arc<Mutex<Served>>,
}

impl Realm {
    fn start() -> Realm {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let served = Arc::new(Mutex::new(Served::default()));
        let (s, b) = (served.clone(), base.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (s, b) = (s.clone(), b.clone());
                std::thread::spawn(move || answer(stream, &s, &b));
            }
        });
        Realm { base, served }
    }

    fn issuer(&self) -> String {
        format!("{}/realms/acme", self.base)
    }

    fn serve(&self, release: &SignedRelease) {
        self.served.lock().expect("lock").release = Some((release.id.clone(), bytes(release)));
    }

    fn requests(&self) -> Vec<(String, Vec<(String, String)>)> {
        self.served.lock().expect("lock").requests.clone()
    }
}

fn answer(stream: std::net::TcpStream, served: &Mutex<Served>, base: &str) {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split(' ').nth(1).unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).is_err() || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.trim_end().split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let header = |k: &str| headers.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let mut s = served.lock().expect("lock");
    s.requests.push((path.clone(), headers.clone()));
    let issuer = format!("{base}/realms/acme");
    let (status, etag, body): (&str, Option<String>, Vec<u8>) = match path.as_str() {
        "/.well-known/oauth-authorization-server/realms/acme" => {
            let meta = serde_json::json!({
                "issuer": s.metadata_issuer.clone().unwrap_or(issuer.clone()),
                "jwks_uri": format!("{issuer}/protocol/jwks"),
            });
            ("200 OK", None, meta.to_string().into_bytes())
        }
        "/realms/acme/protocol/jwks" => ("200 OK", None, jwks().to_string().into_bytes()),
        "/realms/acme/registry/releases/latest" => {
            let authorized = header("authorization") == Some(format!("Bearer {TOKEN}"));
            match &s.release {
                _ if s.require_token && !authorized => ("401 Unauthorized", None, Vec::new()),
                None => ("404 Not Found", None, Vec::new()),
                Some((id, _)) if header("if-none-match") == Some(format!("\"{id}\"")) => {
                    ("304 Not Modified", Some(id.clone()), Vec::new())
                }
                Some((id, body)) => ("200 OK", Some(id.clone()), body.clone()),
            }
        }
        _ => ("404 Not Found", None, Vec::new()),
    };
    drop(s);
    let etag = etag
        .map(|e| format!("ETag: \"{e}\"\r\n"))
        .unwrap_or_default();
    let mut stream = reader.into_inner();
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\n{etag}Content-Length: {}\r\nConnection: close\r\n\r\n",
        if status.starts_with("304") {
            0
        } else {
            body.len()
        }
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
}

/// One run of the binary: exit status, stdout, stderr.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn cli(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_portcullis-cli"));
    cmd.args(args);
    for k in [
        "XDG_CACHE_HOME",
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "COPILOT_HOME",
        "XDG_CONFIG_HOME",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "http_proxy",
        "https_proxy",
        "ALL_PROXY",
    ] {
        cmd.env_remove(k);
    }
    cmd.envs(env.iter().copied());
    let out = cmd.output().expect("runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn pull(realm: &Realm, cache: &Path, extra: &[&str]) -> Run {
    let mut args = vec![
        "pull",
        "--server",
        &realm.base,
        "--realm",
        "acme",
        "--cache-dir",
        path(cache),
    ];
    args.extend_from_slice(extra);
    cli(&args, &[])
}

fn drift(home: &Path, cache: &Path, json: bool) -> Run {
    let mut args = vec!["drift", "--home", path(home), "--cache-dir", path(cache)];
    if json {
        args.push("--json");
    }
    cli(&args, &[])
}

fn cached_release(cache: &Path, realm: &Realm) -> Vec<u8> {
    let host = realm.base.trim_start_matches("http://").replace(':', "_");
    std::fs::read(cache.join(host).join("acme/release.json")).expect("cached release")
}

/// A copy of the crafted home.
fn crafted_home() -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("mkdir");
        for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
            let target = to.join(entry.file_name());
            if entry.file_type().expect("type").is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).expect("copy");
            }
        }
    }
    let home = tempfile::tempdir().expect("home");
    let fixture: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "manifest",
        "tests",
        "fixtures",
        "drift-home",
    ]
    .iter()
    .collect();
    copy(&fixture, home.path());
    home
}

fn assert_no_secret(run: &Run) {
    for out in [&run.stdout, &run.stderr] {
        assert!(!out.contains("SECRET"), "{out}");
        for private in [
            "srv.js",
            "/opt/acme/bin/acme-mcp --stdio",
            "/sse",
            "?key",
            "Bearer",
        ] {
            assert!(!out.contains(private), "{private} in {out}");
        }
    }
}

#[test]
fn pull_verifies_and_caches_then_drift_finds_exactly_the_planted_findings() {
    let realm = Realm::start();
    let release = signed(&manifest(&realm.issuer(), 1));
    realm.serve(&release);
    let cache = tempfile::tempdir().expect("cache");

    let run = pull(
        &realm,
        cache.path(),
        &["--ring", "ring0", "--unit", "payments"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.starts_with(&format!(
            "Release {} (#1, allowlist) verified: 5 of 6 servers for you",
            &release.id[..12]
        )),
        "{}",
        run.stdout
    );
    assert_eq!(cached_release(cache.path(), &realm), bytes(&release));
    let state: serde_json::Value =
        serde_json::from_slice(&std::fs::read(cache.path().join("state.json")).expect("state"))
            .expect("json");
    assert_eq!(state["release_id"], release.id.as_str());
    assert_eq!(state["rings"], serde_json::json!(["ring0"]));
    assert_eq!(state["units"], serde_json::json!(["payments"]));

    let home = crafted_home();
    let run = drift(home.path(), cache.path(), true);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_no_secret(&run);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("json report");
    assert_eq!(report["release"]["mode"], "allowlist");
    assert_eq!(report["drift"], true);
    assert_eq!(report["approved"], 5);
    assert_eq!(report["problems"], serde_json::json!([]));
    let mut found: Vec<String> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {} {}",
                f["kind"].as_str().expect("kind"),
                f["harness"].as_str().expect("harness"),
                f["name"].as_str().expect("name"),
                f["transport"].as_str().expect("transport"),
                f["host"].as_str().unwrap_or("-")
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            "unapproved claude-code leaky sse leaky.example.net",
            "unapproved claude-code scratch stdio -",
            "unapproved copilot other http other.example.com",
            "unapproved cursor bad unknown -",
            "unapproved gemini sse-thing sse sse.example.org",
            "version-drift claude-code playwright stdio -",
            "version-drift codex fetch stdio -",
            "version-drift codex wiki http wiki.example.com",
            "version-drift opencode local stdio -",
        ]
    );
    let files = report["files"].as_array().expect("files");
    assert_eq!(files.len(), 7);
    assert!(files.iter().all(|f| f["state"] == "read"), "{files:?}");

    let run = drift(home.path(), cache.path(), false);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_no_secret(&run);
    assert!(run.stdout.contains("mode allowlist"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("9 findings, 0 problems; 7 config files, 0 absent."),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(
            "  fix: Remove it from ~/.claude.json (projects[\"/w\"]) or ask an admin to approve it."
        ),
        "{}",
        run.stdout
    );
}

#[test]
fn a_changed_or_foreign_release_is_refused_naming_the_check_and_the_cache_is_kept() {
    let realm = Realm::start();
    let release = signed(&manifest(&realm.issuer(), 1));
    realm.serve(&release);
    let cache = tempfile::tempdir().expect("cache");
    assert_eq!(pull(&realm, cache.path(), &["--ring", "ring0"]).code, 0);

    // Content changed after signing, id left.
    let mut tampered = signed(&manifest(&realm.issuer(), 2));
    tampered.manifest["policy"]["servers"][0]["url"] = "https://evil.example.com/mcp".into();
    realm.serve(&tampered);
    let run = pull(&realm, cache.path(), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("Refused the release (id-mismatch)"),
        "{}",
        run.stderr
    );
    assert_eq!(cached_release(cache.path(), &realm), bytes(&release));

    // Changed and re-signed with a key that is not the realm's (same kid).
    let forged = SignedRelease::sign(
        &manifest(&realm.issuer(), 2),
        "ES256",
        "k1",
        signer(OTHER_KEY_PEM),
    )
    .expect("signed");
    realm.serve(&forged);
    let run = pull(&realm, cache.path(), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("Refused the release (bad-signature)"),
        "{}",
        run.stderr
    );
    assert_eq!(cached_release(cache.path(), &realm), bytes(&release));

    // Signed by the realm's key, but for another realm.
    let foreign = signed(&manifest(&format!("{}/realms/other", realm.base), 2));
    realm.serve(&foreign);
    let run = pull(&realm, cache.path(), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("Refused the release (wrong-issuer)"),
        "{}",
        run.stderr
    );
    assert_eq!(cached_release(cache.path(), &realm), bytes(&release));

    // An older release than the cached one: a replay.
    realm.serve(&signed(&manifest(&realm.issuer(), 3)));
    assert_eq!(pull(&realm, cache.path(), &[]).code, 0);
    realm.serve(&release);
    let run = pull(&realm, cache.path(), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("Refused the release (rollback)"),
        "{}",
        run.stderr
    );

    // drift still works on what was kept, with the rings of the first pull.
    let empty = tempfile::tempdir().expect("home");
    let run = drift(empty.path(), cache.path(), false);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("(#3)"), "{}", run.stdout);
    assert!(run.stdout.contains("For rings [ring0]"), "{}", run.stdout);

    // With the state gone (another realm pulled in between), the cached release still counts.
    std::fs::remove_file(cache.path().join("state.json")).expect("rm");
    let run = pull(&realm, cache.path(), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("Refused the release (rollback)"),
        "{}",
        run.stderr
    );
}

#[test]
fn another_realms_metadata_is_refused() {
    let realm = Realm::start();
    realm.serve(&signed(&manifest(&realm.issuer(), 1)));
    realm.served.lock().expect("lock").metadata_issuer =
        Some(format!("{}/realms/other", realm.base));
    let cache = tempfile::tempdir().expect("cache");
    let run = pull(&realm, cache.path(), &[]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("Refused: the metadata at") && run.stderr.contains("realms/other"),
        "{}",
        run.stderr
    );
    assert!(!cache.path().join("state.json").exists());
}

#[test]
fn an_unchanged_release_is_answered_304_and_the_cache_kept() {
    let realm = Realm::start();
    let release = signed(&manifest(&realm.issuer(), 1));
    realm.serve(&release);
    let cache = tempfile::tempdir().expect("cache");
    assert_eq!(pull(&realm, cache.path(), &[]).code, 0);
    let run = pull(&realm, cache.path(), &["--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let summary: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(summary["changed"], false);
    assert_eq!(summary["release"], release.id.as_str());
    let asked: Vec<_> = realm
        .requests()
        .into_iter()
        .filter(|(p, _)| p.ends_with("/releases/latest"))
        .collect();
    assert_eq!(asked.len(), 2);
    assert!(
        asked[1]
            .1
            .contains(&("if-none-match".into(), format!("\"{}\"", release.id))),
        "{asked:?}"
    );
    assert_eq!(cached_release(cache.path(), &realm), bytes(&release));
}

#[test]
fn the_token_comes_from_the_environment_goes_only_to_the_registry_and_is_never_printed() {
    let realm = Realm::start();
    realm.serve(&signed(&manifest(&realm.issuer(), 1)));
    realm.served.lock().expect("lock").require_token = true;
    let cache = tempfile::tempdir().expect("cache");

    let run = pull(&realm, cache.path(), &[]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("--token-env"), "{}", run.stderr);

    let run = pull(&realm, cache.path(), &["--token-env", "PCT_TOKEN"]);
    assert_eq!(run.code, 2, "unset variable: {}", run.stderr);

    realm.served.lock().expect("lock").requests.clear();
    let args = [
        "pull",
        "--server",
        &realm.base,
        "--realm",
        "acme",
        "--cache-dir",
        path(cache.path()),
        "--token-env",
        "PCT_TOKEN",
    ];
    let run = cli(&args, &[("PCT_TOKEN", TOKEN)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains(TOKEN) && !run.stderr.contains(TOKEN));
    // The release and the question which rings and units are the holder's: the registry's
    // endpoints only (never the JWKS).
    for (p, headers) in realm.requests() {
        let sent = headers.iter().any(|(k, _)| k == "authorization");
        let registry = p.ends_with("/releases/latest") || p.ends_with("/registry/me");
        assert_eq!(sent, registry, "{p}");
    }
    let state = std::fs::read_to_string(cache.path().join("state.json")).expect("state");
    assert!(!state.contains(TOKEN));
}

#[test]
fn drift_reports_unreadable_and_malformed_files_and_exits_by_what_it_found() {
    let realm = Realm::start();
    realm.serve(&signed(&manifest(&realm.issuer(), 1)));
    let cache = tempfile::tempdir().expect("cache");
    let home = tempfile::tempdir().expect("home");

    // Nothing cached yet.
    let run = drift(home.path(), cache.path(), false);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("No release cached"), "{}", run.stderr);

    assert_eq!(pull(&realm, cache.path(), &["--ring", "ring0"]).code, 0);
    // No configs at all: clean.
    let run = drift(home.path(), cache.path(), false);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("0 findings, 0 problems; 7 config files, 7 absent.")
    );

    // A directory where a file should be, and a malformed file with a secret on the bad line.
    std::fs::create_dir_all(home.path().join(".cursor/mcp.json")).expect("dir");
    std::fs::create_dir_all(home.path().join(".codex")).expect("dir");
    std::fs::write(
        home.path().join(".codex/config.toml"),
        "[mcp_servers.x]\nargs = [\"SECRET-malformed\"\n",
    )
    .expect("write");
    std::fs::write(
        home.path().join(".claude.json"),
        r#"{"mcpServers": {"wiki": {"type": "http", "url": "https://wiki.example.com/mcp/"}}}"#,
    )
    .expect("write");
    let run = drift(home.path(), cache.path(), true);
    assert_eq!(run.code, 0, "problems are no drift: {}", run.stderr);
    assert_no_secret(&run);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let problems: Vec<(&str, &str)> = report["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| {
            (
                p["source"].as_str().expect("s"),
                p["harness"].as_str().expect("h"),
            )
        })
        .collect();
    assert_eq!(
        problems,
        [
            ("~/.codex/config.toml", "codex"),
            ("~/.cursor/mcp.json", "cursor")
        ]
    );

    // A cache changed on disk is not trusted.
    let host = realm.base.trim_start_matches("http://").replace(':', "_");
    let file = cache.path().join(host).join("acme/release.json");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, text.replace("wiki.example.com", "wiki.example.net")).expect("write");
    let run = drift(home.path(), cache.path(), false);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("does not verify"), "{}", run.stderr);
}

#[test]
fn plain_http_is_refused_except_to_this_machine() {
    let cache = tempfile::tempdir().expect("cache");
    let run = cli(
        &[
            "pull",
            "--server",
            "http://registry.example.com",
            "--realm",
            "acme",
            "--cache-dir",
            path(cache.path()),
        ],
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("https only"), "{}", run.stderr);
    let run = cli(
        &[
            "pull",
            "--server",
            "https://x.example.com",
            "--realm",
            "../etc",
        ],
        &[],
    );
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("not a realm name"), "{}", run.stderr);
}

/// `--apply` installs the named harnesses' managed files, rendered from the verified release for
/// the pulled rings, at their system paths (under `--root` here), and nothing else; an unknown
/// harness is refused before anything is fetched.
#[test]
fn apply_installs_only_the_named_harnesses_managed_files() {
    let realm = Realm::start();
    let release = signed(&manifest(&realm.issuer(), 1));
    realm.serve(&release);
    let cache = tempfile::tempdir().expect("cache");
    let root = tempfile::tempdir().expect("root");
    let run = pull(
        &realm,
        cache.path(),
        &[
            "--ring",
            "ring0",
            "--apply",
            "claude-code",
            "--apply",
            "codex",
            "--root",
            path(root.path()),
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let claude = std::fs::read_to_string(root.path().join("etc/claude-code/managed-mcp.json"))
        .expect("claude-code's managed file");
    serde_json::from_str::<serde_json::Value>(&claude).expect("valid JSON");
    assert!(
        root.path().join("etc/codex/config.toml").exists(),
        "{}",
        run.stdout
    );
    assert!(
        !root.path().join("etc/gemini-cli").exists(),
        "gemini was not named"
    );
    assert!(run.stdout.contains("claude-code: wrote"), "{}", run.stdout);

    // Servers Portcullis authorizes get this program's own token command as their helper.
    let run = pull(
        &realm,
        cache.path(),
        &[
            "--ring",
            "ring1",
            "--apply",
            "claude-code",
            "--apply",
            "codex",
            "--token-helper",
            "portcullis-cli",
            "--root",
            path(root.path()),
        ],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let helper = format!(
        "portcullis-cli token --server {} --realm {} --resource https://other.example.com/mcp --format headers",
        realm.issuer().rsplit_once("/realms/").expect("issuer").0,
        realm.issuer().rsplit_once("/realms/").expect("issuer").1,
    );
    let claude: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.path().join("etc/claude-code/managed-mcp.json"))
            .expect("claude-code's managed file"),
    )
    .expect("json");
    assert_eq!(
        claude["mcpServers"]["other"]["headersHelper"],
        helper.as_str()
    );
    let codex = std::fs::read_to_string(root.path().join("etc/codex/config.toml")).expect("codex");
    assert!(
        codex.contains(&format!("http_headers_helper = \"{helper}\"")),
        "{codex}"
    );

    let before = realm.requests().len();
    let run = pull(&realm, cache.path(), &["--apply", "vim"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--apply"), "{}", run.stderr);
    assert_eq!(realm.requests().len(), before, "nothing fetched");
}
