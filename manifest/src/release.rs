//! A published release: the manifest, its id (the SHA-256 of its canonical JSON) and the
//! realm's signature over that canonical JSON.
//!
//! The signature is a JWS (RFC 7515) with a detached payload (Appendix F): `header..signature`,
//! the payload being the manifest's RFC 8785 bytes, so whoever verifies recomputes those bytes
//! from the manifest rather than trusting a second copy of it. Verification needs only the
//! realm's published JWKS; the key is found by the header's `kid`, and the algorithm follows
//! from the key (a header cannot choose another one).
use crate::canonical::{release_id, to_canonical};
use crate::policy::{Policy, PolicyInput};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

/// The manifest format this crate writes and reads.
pub const MANIFEST_SCHEMA: &str = "portcullis.registry.manifest/1";
/// The JWS `typ` of a release signature.
pub const SIGNATURE_TYPE: &str = "portcullis-registry+jws";
/// Largest release document read.
pub const MAX_RELEASE_BYTES: usize = 16 * 1024 * 1024;

/// What a release says: the realm's checked policy at publication, and where it stands in the
/// realm's history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Manifest {
    /// [`MANIFEST_SCHEMA`].
    pub schema: String,
    /// The realm's issuer: a release of one realm is never taken for another's.
    pub issuer: String,
    /// The realm's release number (1, 2, …).
    pub sequence: u64,
    /// When it was published (Unix seconds).
    pub published_at: i64,
    /// The id of the release it follows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    /// The policy.
    pub policy: PolicyInput,
}

/// A release as served: `{ "id", "manifest", "signature" }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignedRelease {
    /// SHA-256 of the manifest's canonical JSON, lowercase hex.
    pub id: String,
    /// The manifest.
    pub manifest: serde_json::Value,
    /// JWS with detached payload: `header..signature`.
    pub signature: String,
}

impl SignedRelease {
    /// The release of `manifest` signed by `sign`, which gets the JWS signing input
    /// (`header.payload`, both base64url) and returns the raw signature bytes. `alg` and `kid`
    /// name the key (`ES256`, `RS256` or `EdDSA`).
    ///
    /// # Errors
    /// When the manifest cannot be serialised or `sign` fails.
    pub fn sign(
        manifest: &Manifest,
        alg: &str,
        kid: &str,
        sign: impl FnOnce(&[u8]) -> Result<Vec<u8>, String>,
    ) -> Result<SignedRelease, String> {
        let value = serde_json::to_value(manifest).map_err(|e| e.to_string())?;
        let canonical = to_canonical(&value)?;
        let header = serde_json::json!({"alg": alg, "kid": kid, "typ": SIGNATURE_TYPE});
        let header = URL_SAFE_NO_PAD.encode(to_canonical(&header)?);
        let input = format!("{header}.{}", URL_SAFE_NO_PAD.encode(&canonical));
        let signature = URL_SAFE_NO_PAD.encode(sign(input.as_bytes())?);
        Ok(SignedRelease {
            id: release_id(&canonical),
            manifest: value,
            signature: format!("{header}..{signature}"),
        })
    }
}

/// Why a release is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerifyError {
    /// Not a release document (or too large).
    Malformed(String),
    /// Its id is not the hash of its content: it was changed after publication.
    IdMismatch {
        /// The id it claims.
        claimed: String,
        /// The hash of what it holds.
        computed: String,
    },
    /// The signature is not the realm's over this content.
    BadSignature(String),
    /// Signed, but for another realm.
    WrongIssuer {
        /// The manifest's issuer.
        found: String,
    },
    /// Signed, but its policy does not pass the checks (a newer format, or a bug).
    InvalidPolicy(String),
}

impl std::fmt::Display for VerifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VerifyError::Malformed(m) => write!(f, "not a release: {m}"),
            VerifyError::IdMismatch { claimed, computed } => write!(
                f,
                "the release's content does not match its id (claims {claimed}, content hashes to {computed}): it was changed after it was published"
            ),
            VerifyError::BadSignature(m) => {
                write!(f, "the signature is not the realm's over this content: {m}")
            }
            VerifyError::WrongIssuer { found } => write!(
                f,
                "the release names issuer {found}, not this realm's: it is another realm's, or the server's public URL changed since it was published (an admin publishes again)"
            ),
            VerifyError::InvalidPolicy(m) => write!(f, "the release's policy is invalid: {m}"),
        }
    }
}

impl std::error::Error for VerifyError {}

/// A release that passed every check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// Its id.
    pub id: String,
    /// Its manifest.
    pub manifest: Manifest,
    /// The manifest's policy, checked.
    pub policy: Policy,
}

/// Verifies a release document against the realm's JWKS: its id is the hash of its content,
/// the signature is a key of `jwks` over that content, and it is `issuer`'s.
///
/// # Errors
/// Which check failed.
pub fn verify_release(
    document: &[u8],
    jwks: &serde_json::Value,
    issuer: &str,
) -> Result<Verified, VerifyError> {
    if document.len() > MAX_RELEASE_BYTES {
        return Err(VerifyError::Malformed("larger than 16 MiB".into()));
    }
    let release: SignedRelease =
        serde_json::from_slice(document).map_err(|e| VerifyError::Malformed(e.to_string()))?;
    let canonical = to_canonical(&release.manifest).map_err(VerifyError::Malformed)?;
    let computed = release_id(&canonical);
    if !constant_time_eq(computed.as_bytes(), release.id.as_bytes()) {
        return Err(VerifyError::IdMismatch {
            claimed: release.id.chars().take(64).collect(),
            computed,
        });
    }
    verify_signature(&release.signature, &canonical, jwks)?;
    let manifest: Manifest = serde_json::from_value(release.manifest)
        .map_err(|e| VerifyError::Malformed(format!("manifest: {e}")))?;
    if manifest.schema != MANIFEST_SCHEMA {
        return Err(VerifyError::Malformed(format!(
            "manifest format {} (this version reads {MANIFEST_SCHEMA})",
            manifest.schema.chars().take(80).collect::<String>()
        )));
    }
    if manifest.issuer != issuer {
        return Err(VerifyError::WrongIssuer {
            found: manifest.issuer.chars().take(200).collect(),
        });
    }
    let (policy, findings) = Policy::check(&manifest.policy);
    let policy = policy.ok_or_else(|| {
        VerifyError::InvalidPolicy(
            findings
                .errors
                .iter()
                .take(3)
                .map(|f| format!("{}: {}", f.field, f.message))
                .collect::<Vec<_>>()
                .join("; "),
        )
    })?;
    Ok(Verified {
        id: computed,
        manifest,
        policy,
    })
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn verify_signature(
    signature: &str,
    canonical: &[u8],
    jwks: &serde_json::Value,
) -> Result<(), VerifyError> {
    use jsonwebtoken::jwk::{Jwk, JwkSet};
    use jsonwebtoken::{Algorithm, DecodingKey};
    let bad = |m: &str| VerifyError::BadSignature(m.to_owned());
    let Some((header_b64, rest)) = signature.split_once('.') else {
        return Err(bad("not a JWS"));
    };
    let Some(signature_b64) = rest.strip_prefix('.') else {
        return Err(bad("not a JWS with a detached payload (header..signature)"));
    };
    let header: serde_json::Value = URL_SAFE_NO_PAD
        .decode(header_b64)
        .ok()
        .and_then(|h| serde_json::from_slice(&h).ok())
        .ok_or_else(|| bad("the header is not base64url JSON"))?;
    if header.get("crit").is_some() {
        return Err(bad("critical header extensions are not understood"));
    }
    if header.get("typ").and_then(|t| t.as_str()) != Some(SIGNATURE_TYPE) {
        return Err(bad("not a release signature (typ)"));
    }
    let kid = header
        .get("kid")
        .and_then(|k| k.as_str())
        .ok_or_else(|| bad("the header names no key (kid)"))?;
    let set: JwkSet = serde_json::from_value(jwks.clone())
        .map_err(|e| VerifyError::BadSignature(format!("the JWKS does not parse: {e}")))?;
    let jwk: &Jwk = set
        .keys
        .iter()
        .find(|k| k.common.key_id.as_deref() == Some(kid))
        .ok_or_else(|| VerifyError::BadSignature(format!("no key {kid} in the realm's JWKS")))?;
    // The key decides the algorithm; a header naming another one is refused.
    let alg = match &jwk.algorithm {
        jsonwebtoken::jwk::AlgorithmParameters::EllipticCurve(p)
            if p.curve == jsonwebtoken::jwk::EllipticCurve::P256 =>
        {
            Algorithm::ES256
        }
        jsonwebtoken::jwk::AlgorithmParameters::RSA(_) => Algorithm::RS256,
        jsonwebtoken::jwk::AlgorithmParameters::OctetKeyPair(p)
            if p.curve == jsonwebtoken::jwk::EllipticCurve::Ed25519 =>
        {
            Algorithm::EdDSA
        }
        _ => return Err(bad("the key's type is not one Portcullis signs with")),
    };
    let named = header
        .get("alg")
        .and_then(|a| a.as_str())
        .unwrap_or_default();
    let expected = match alg {
        Algorithm::ES256 => "ES256",
        Algorithm::RS256 => "RS256",
        _ => "EdDSA",
    };
    if named != expected {
        return Err(bad("the header's alg does not match the key"));
    }
    let key = DecodingKey::from_jwk(jwk).map_err(|e| VerifyError::BadSignature(e.to_string()))?;
    let input = format!("{header_b64}.{}", URL_SAFE_NO_PAD.encode(canonical));
    match jsonwebtoken::crypto::verify(signature_b64, input.as_bytes(), &key, alg) {
        Ok(true) => Ok(()),
        Ok(false) | Err(_) => Err(bad("the signature does not verify")),
    }
}
