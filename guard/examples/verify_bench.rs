//! Verifications per second through `Guard::verify` next to the raw signature-verify rate of
//! the same key, on one core, for each algorithm Portcullis signs with.
//!
//! `cargo xtask bench guard` (or `cargo run --release -p portcullis-guard --example
//! verify_bench`). The guard's work on top of the signature: splitting and decoding the token,
//! the header and `typ`/`alg`/`kid` checks, the key lookup in the shared cache, the claims
//! (typed, as Portcullis issues them), `iss`, `aud`, `exp` and the required scopes.
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{
    self, ECDSA_P256_SHA256_FIXED, ECDSA_P256_SHA256_FIXED_SIGNING, ED25519, EcdsaKeyPair,
    Ed25519KeyPair, KeyPair as _, ParsedPublicKey, RSA_PKCS1_2048_8192_SHA256, RsaKeyPair,
};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use portcullis_guard::Guard;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const ISSUER: &str = "https://id.example.com/realms/acme";
const RESOURCE: &str = "https://mcp.example.com/mcp";
const SECONDS: Duration = Duration::from_secs(3);

/// Signs a message with a key.
type Sign = Box<dyn Fn(&[u8]) -> Vec<u8>>;

/// One key: its public JWK, a way to sign, and the raw verification of a signature.
struct Key {
    alg: &'static str,
    jwk: Value,
    sign: Sign,
    public: ParsedPublicKey,
}

fn keys() -> Vec<Key> {
    let rng = SystemRandom::new();
    let ec = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("ec");
    let ec = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, ec.as_ref()).expect("ec");
    let point = ec.public_key().as_ref().to_vec();
    let ed = Ed25519KeyPair::generate().expect("ed25519");
    let ed_public = ed.public_key().as_ref().to_vec();
    let rsa = RsaKeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048).expect("rsa");
    let rsa_public = rsa.public_key().as_ref().to_vec();
    let n = rsa
        .public_key()
        .modulus()
        .big_endian_without_leading_zero()
        .to_vec();
    let e = rsa
        .public_key()
        .exponent()
        .big_endian_without_leading_zero()
        .to_vec();
    vec![
        Key {
            alg: "ES256",
            jwk: json!({"kty": "EC", "crv": "P-256", "kid": "bench", "x": B64.encode(&point[1..33]), "y": B64.encode(&point[33..])}),
            public: ParsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point).expect("key"),
            sign: Box::new(move |m| {
                ec.sign(&SystemRandom::new(), m)
                    .expect("sign")
                    .as_ref()
                    .to_vec()
            }),
        },
        Key {
            alg: "RS256",
            jwk: json!({"kty": "RSA", "kid": "bench", "n": B64.encode(&n), "e": B64.encode(&e)}),
            public: ParsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, &rsa_public).expect("key"),
            sign: Box::new(move |m| {
                let mut sig = vec![0; rsa.public_modulus_len()];
                rsa.sign(
                    &signature::RSA_PKCS1_SHA256,
                    &SystemRandom::new(),
                    m,
                    &mut sig,
                )
                .expect("sign");
                sig
            }),
        },
        Key {
            alg: "EdDSA",
            jwk: json!({"kty": "OKP", "crv": "Ed25519", "kid": "bench", "x": B64.encode(&ed_public)}),
            public: ParsedPublicKey::new(&ED25519, &ed_public).expect("key"),
            sign: Box::new(move |m| ed.sign(m).as_ref().to_vec()),
        },
    ]
}

/// A token shaped like Portcullis's: an agent's, with its roles.
fn token(key: &Key) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("time")
        .as_secs();
    let claims = json!({
        "iss": ISSUER, "sub": "reports-bot", "aud": RESOURCE, "client_id": "reports-bot",
        "scope": "tools:call tools:read", "iat": now, "exp": now + 3600,
        "jti": "at_3q2+7w9-benchmark-token-id", "nhi": true, "agent_id": "agt_01JBENCH",
        "agent_name": "reports", "agent_owner": "owner@example.com", "roles": ["mcp:tools", "tools:call"],
        "portcullis": {"client": "cli_01JBENCH", "resource": "res_01JBENCH", "binding": "bnd_01JBENCH"},
    });
    let input = format!(
        "{}.{}",
        B64.encode(json!({"alg": key.alg, "typ": "at+jwt", "kid": "bench"}).to_string()),
        B64.encode(claims.to_string())
    );
    let sig = (key.sign)(input.as_bytes());
    format!("{input}.{}", B64.encode(sig))
}

/// Calls `f` for `SECONDS`, in batches; the rate per second.
fn rate(mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut n = 0u64;
    while start.elapsed() < SECONDS {
        for _ in 0..64 {
            f();
        }
        n += 64;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    println!("| alg | raw verify/s (1 core) | Guard::verify/s (1 core) | guard ÷ raw |");
    println!("|---|---|---|---|");
    for key in keys() {
        let token = token(&key);
        let dot = token.rfind('.').expect("three parts");
        let (input, sig) = (
            &token.as_bytes()[..dot],
            B64.decode(&token[dot + 1..]).expect("b64"),
        );
        let raw = rate(|| {
            assert!(key.public.verify_sig(input, &sig).is_ok());
        });
        let guard = Guard::builder(ISSUER, RESOURCE)
            .expect("guard")
            .required_scopes(["tools:call"])
            .jwks(json!({"keys": [key.jwk.clone()]}))
            .build()
            .expect("guard");
        let guarded = rt.block_on(async {
            let start = Instant::now();
            let mut n = 0u64;
            while start.elapsed() < SECONDS {
                for _ in 0..64 {
                    assert!(guard.verify(&token).await.is_ok());
                }
                n += 64;
            }
            n as f64 / start.elapsed().as_secs_f64()
        });
        println!(
            "| {} | {raw:.0} | {guarded:.0} | {:.0}% |",
            key.alg,
            100.0 * guarded / raw
        );
    }
}
