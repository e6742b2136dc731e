//! Releases: signed over their canonical content, verified with the realm's JWKS alone.
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use portcullis_manifest::policy::PolicyInput;
use portcullis_manifest::release::{
    MANIFEST_SCHEMA, Manifest, SignedRelease, VerifyError, verify_release,
};
use portcullis_manifest::server::ServerInput;

/// A throwaway P-256 key for these tests only.
const KEY_PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgMSbhRp7C30wVz3mp
Ho9vXoN7wZB66trmRWzsSvvZrE6hRANCAARtEqI8/LuwIM3mf9Eitz3OyiQXgEOb
vRfU7dqZjx6BRGB4MsgS9I1lW3C2T6Ih5ioVc4t0/4MBlXkzMffxqlPC
-----END PRIVATE KEY-----";
const ISSUER: &str = "https://auth.example.com/realms/acme";

fn jwks() -> serde_json::Value {
    serde_json::json!({"keys": [{
        "kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig", "alg": "ES256",
        "x": "bRKiPPy7sCDN5n_RIrc9zsokF4BDm70X1O3amY8egUQ",
        "y": "YHgyyBL0jWVbcLZPoiHmKhVzi3T_gwGVeTMx9_GqU8I"
    }]})
}

fn manifest() -> Manifest {
    Manifest {
        schema: MANIFEST_SCHEMA.into(),
        issuer: ISSUER.into(),
        sequence: 1,
        published_at: 1_790_000_000,
        previous: None,
        policy: PolicyInput {
            mode: "allowlist".into(),
            servers: vec![ServerInput {
                id: "wiki".into(),
                url: Some("https://wiki.example.com/mcp".into()),
                rings: vec!["ring0".into()],
                ..Default::default()
            }],
            rings: vec!["ring0".into()],
            units: vec![],
        },
    }
}

fn es256(input: &[u8]) -> Result<Vec<u8>, String> {
    let key =
        jsonwebtoken::EncodingKey::from_ec_pem(KEY_PEM.as_bytes()).map_err(|e| e.to_string())?;
    let b64 = jsonwebtoken::crypto::sign(input, &key, jsonwebtoken::Algorithm::ES256)
        .map_err(|e| e.to_string())?;
    URL_SAFE_NO_PAD.decode(b64).map_err(|e| e.to_string())
}

fn signed(m: &Manifest, alg: &str, kid: &str) -> SignedRelease {
    SignedRelease::sign(m, alg, kid, es256).expect("signed")
}

fn bytes(r: &SignedRelease) -> Vec<u8> {
    serde_json::to_vec_pretty(r).expect("json")
}

#[test]
fn a_signed_release_verifies_with_the_jwks_alone_however_it_is_laid_out() {
    let release = signed(&manifest(), "ES256", "k1");
    assert_eq!(release.id.len(), 64);
    assert!(release.signature.contains(".."), "detached payload");
    let verified = verify_release(&bytes(&release), &jwks(), ISSUER).expect("verifies");
    assert_eq!(verified.id, release.id);
    assert_eq!(verified.manifest, manifest());
    assert_eq!(verified.policy.servers[0].id, "wiki");
    // Compact, pretty, keys in another order: the same content, the same id.
    let compact = serde_json::to_vec(&release).expect("json");
    assert!(verify_release(&compact, &jwks(), ISSUER).is_ok());
}

#[test]
fn a_tampered_release_is_refused_saying_which_check_failed() {
    let release = signed(&manifest(), "ES256", "k1");
    // Content changed, id left: the id no longer matches.
    let mut changed = release.clone();
    changed.manifest["policy"]["servers"][0]["url"] = "https://evil.example.com/mcp".into();
    assert!(matches!(
        verify_release(&bytes(&changed), &jwks(), ISSUER),
        Err(VerifyError::IdMismatch { .. })
    ));
    // Content changed and the id recomputed: the signature does not cover it.
    let canonical = portcullis_manifest::canonical::to_canonical(&changed.manifest).expect("c");
    changed.id = portcullis_manifest::canonical::release_id(&canonical);
    assert!(matches!(
        verify_release(&bytes(&changed), &jwks(), ISSUER),
        Err(VerifyError::BadSignature(_))
    ));
    // Another realm's release.
    assert!(matches!(
        verify_release(
            &bytes(&release),
            &jwks(),
            "https://auth.example.com/realms/other"
        ),
        Err(VerifyError::WrongIssuer { .. })
    ));
    // A key the realm does not publish, or a header naming another algorithm.
    let unknown = signed(&manifest(), "ES256", "k2");
    assert!(matches!(
        verify_release(&bytes(&unknown), &jwks(), ISSUER),
        Err(VerifyError::BadSignature(m)) if m.contains("no key k2")
    ));
    let confused = signed(&manifest(), "RS256", "k1");
    assert!(matches!(
        verify_release(&bytes(&confused), &jwks(), ISSUER),
        Err(VerifyError::BadSignature(m)) if m.contains("alg")
    ));
    // The payload attached instead of detached.
    let mut attached = release.clone();
    let (h, s) = attached.signature.split_once("..").expect("detached");
    attached.signature = format!("{h}.e30.{s}");
    assert!(matches!(
        verify_release(&bytes(&attached), &jwks(), ISSUER),
        Err(VerifyError::BadSignature(_))
    ));
    assert!(matches!(
        verify_release(b"{}", &jwks(), ISSUER),
        Err(VerifyError::Malformed(_))
    ));
}

#[test]
fn a_release_whose_policy_does_not_check_is_refused_even_when_signed() {
    let mut m = manifest();
    m.policy.servers[0].url = Some("http://wiki.example.com/mcp".into());
    let release = signed(&m, "ES256", "k1");
    assert!(matches!(
        verify_release(&bytes(&release), &jwks(), ISSUER),
        Err(VerifyError::InvalidPolicy(p)) if p.contains("servers[0].url")
    ));
}
