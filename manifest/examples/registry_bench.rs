//! The registry's pure work at scale, for `cargo xtask bench registry`: a policy of 500 servers
//! (remote with headers and Portcullis auth, npm, PyPI, OCI, pinned and unpinned commands, tool
//! rules, OAuth), checked, rendered for six harnesses, serialised as canonical JSON and signed,
//! then verified as a laptop does. Prints a Markdown table of medians.
//!
//! `--policy-out PATH` also writes the policy as JSON (what `portcullis registry apply` reads).
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use portcullis_manifest::policy::{Policy, PolicyInput, Unit};
use portcullis_manifest::release::{MANIFEST_SCHEMA, Manifest, SignedRelease, verify_release};
use portcullis_manifest::render::{Harness, Options, Target, render};
use portcullis_manifest::server::{AuthInput, CommandInput, PackageInput, ServerInput, Tools};
use std::time::{Duration, Instant};

/// A throwaway P-256 key for this benchmark only.
const KEY_PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgMSbhRp7C30wVz3mp
Ho9vXoN7wZB66trmRWzsSvvZrE6hRANCAARtEqI8/LuwIM3mf9Eitz3OyiQXgEOb
vRfU7dqZjx6BRGB4MsgS9I1lW3C2T6Ih5ioVc4t0/4MBlXkzMffxqlPC
-----END PRIVATE KEY-----";
const ISSUER: &str = "https://auth.example.com/realms/acme";
const SERVERS: usize = 500;
const RUNS: usize = 21;

fn server(i: usize) -> ServerInput {
    let id = format!("server-{i:04}-long-descriptive");
    let mut s = ServerInput {
        id: id.clone(),
        title: format!("Server {i} of the organisation's approved set"),
        rings: vec![["ring0", "ring1", "everyone"][i % 3].into()],
        units: if i.is_multiple_of(4) {
            vec!["payments".into()]
        } else {
            vec![]
        },
        tools: Tools {
            allow: if i.is_multiple_of(7) {
                vec!["search".into(), "fetch".into()]
            } else {
                vec![]
            },
            deny: if i.is_multiple_of(2) {
                vec!["delete_everything".into()]
            } else {
                vec![]
            },
        },
        ..ServerInput::default()
    };
    match i % 5 {
        0 => {
            s.url = Some(format!("https://mcp-{i}.internal.acme.example/mcp"));
            s.headers = [("X-Team".to_owned(), "${TEAM_ID}".to_owned())].into();
            s.auth = Some(AuthInput {
                mode: "portcullis".into(),
                scopes: vec!["tools:call".into()],
                ..AuthInput::default()
            });
        }
        1 => {
            s.package = Some(PackageInput {
                kind: "npm".into(),
                identifier: format!("@acme/mcp-server-{i}"),
                version: Some(format!("1.{}.{}", i % 10, i % 3)),
            });
            s.env = [("API_KEY".to_owned(), "${ACME_API_KEY}".to_owned())].into();
        }
        2 => {
            s.package = Some(PackageInput {
                kind: "pypi".into(),
                identifier: format!("acme-mcp-{i}"),
                version: Some(format!("0.{i}.0")),
            });
        }
        3 => {
            s.package = Some(PackageInput {
                kind: "oci".into(),
                identifier: format!("ghcr.io/acme/mcp-{i}@sha256:{}", "ab".repeat(32)),
                version: None,
            });
        }
        _ => {
            s.url = Some(format!("https://remote-{i}.saas.example/mcp"));
            s.auth = Some(AuthInput {
                mode: "oauth".into(),
                client_id: Some(format!("acme-client-{i}")),
                issuer: Some("https://login.saas.example".into()),
                scopes: vec!["read".into(), "write".into()],
                ..AuthInput::default()
            });
            if i % 10 == 9 {
                s.url = None;
                s.auth = None;
                s.command = Some(CommandInput {
                    path: "/opt/acme/bin/mcp-tool".into(),
                    args: vec!["--stdio".into()],
                    sha256: (i % 20 == 9).then(|| "cd".repeat(32)),
                });
            }
        }
    }
    s
}

/// The benchmark policy.
pub fn policy() -> PolicyInput {
    PolicyInput {
        mode: "allowlist".into(),
        servers: (0..SERVERS).map(server).collect(),
        rings: vec!["ring0".into(), "ring1".into(), "everyone".into()],
        units: vec![
            Unit {
                id: "eng".into(),
                parent: None,
            },
            Unit {
                id: "payments".into(),
                parent: Some("eng".into()),
            },
        ],
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(f: impl Fn() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(RUNS);
    let mut last = None;
    for _ in 0..RUNS {
        let t = Instant::now();
        let out = f();
        times.push(t.elapsed());
        last = Some(out);
    }
    (median(times), last.expect("ran"))
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

fn es256(input: &[u8]) -> Result<Vec<u8>, String> {
    let key =
        jsonwebtoken::EncodingKey::from_ec_pem(KEY_PEM.as_bytes()).map_err(|e| e.to_string())?;
    let b64 = jsonwebtoken::crypto::sign(input, &key, jsonwebtoken::Algorithm::ES256)
        .map_err(|e| e.to_string())?;
    URL_SAFE_NO_PAD.decode(b64).map_err(|e| e.to_string())
}

fn main() {
    let input = policy();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--policy-out" {
            let path = args.next().expect("--policy-out PATH");
            std::fs::write(&path, serde_json::to_vec_pretty(&input).expect("json"))
                .expect("write policy");
        }
    }
    let (_, findings) = Policy::check(&input);
    assert!(
        findings.is_ok(),
        "the benchmark policy is invalid: {:?}",
        &findings.errors[..findings.errors.len().min(5)]
    );
    let (check, policy) = time(|| {
        Policy::check(&input)
            .0
            .expect("the benchmark policy is valid")
    });
    let everyone: Vec<String> = policy.rings.clone();
    let units = vec!["payments".to_owned()];
    let servers = policy.servers_for(&everyone, &units);
    assert_eq!(servers.len(), SERVERS);
    let opts = Options {
        token_helper: Some("portcullis-cli token --server https://auth.example.com --realm default --resource {url} --format headers".into()),
    };
    println!("\nRegistry, {SERVERS} servers, median of {RUNS} runs, one core\n");
    println!("| step | time |");
    println!("|---|---|");
    println!("| check the policy | {} |", ms(check));
    let mut all = Duration::ZERO;
    for h in Harness::ALL {
        let target = Target::current(h);
        let (d, rendered) = time(|| render(&target, &policy, &servers, &opts));
        assert!(!rendered.files.is_empty());
        all += d;
        println!("| render {} | {} |", h.as_str(), ms(d));
    }
    println!("| render all six harnesses (goal ≤ 50 ms) | {} |", ms(all));
    let manifest = Manifest {
        schema: MANIFEST_SCHEMA.into(),
        issuer: ISSUER.into(),
        sequence: 2,
        published_at: 1_790_000_000,
        previous: Some("0".repeat(64)),
        policy: policy.to_input(),
    };
    let (sign, release) =
        time(|| SignedRelease::sign(&manifest, "ES256", "k1", es256).expect("signed"));
    println!(
        "| canonical JSON + SHA-256 + ES256 signature (publish) | {} |",
        ms(sign)
    );
    let document = serde_json::to_vec(&release).expect("json");
    let jwks = serde_json::json!({"keys": [{
        "kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig", "alg": "ES256",
        "x": "bRKiPPy7sCDN5n_RIrc9zsokF4BDm70X1O3amY8egUQ",
        "y": "YHgyyBL0jWVbcLZPoiHmKhVzi3T_gwGVeTMx9_GqU8I"
    }]});
    let (verify, _) = time(|| verify_release(&document, &jwks, ISSUER).expect("verifies"));
    println!(
        "| verify a pulled release (id, signature, checks) | {} |",
        ms(verify)
    );
    println!("| release size | {} KiB |", document.len() / 1024);
}
