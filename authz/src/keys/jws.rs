//! JWS compact serialisation (RFC 7515) for the three supported algorithms.
use super::model::SigningAlg;
use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{
    self, ECDSA_P256_SHA256_FIXED, ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair,
    RsaKeyPair, UnparsedPublicKey,
};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;

/// Why a JWS was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwsError {
    /// Not three base64url parts of a JSON header and payload.
    #[error("malformed token")]
    Malformed,
    /// The header names an algorithm we do not accept (including `none`).
    #[error("unsupported algorithm")]
    UnsupportedAlg,
    /// The header names no key we know.
    #[error("unknown key")]
    UnknownKey,
    /// The signature does not verify.
    #[error("bad signature")]
    BadSignature,
    /// The header lists critical extensions (`crit`, RFC 7515 §4.1.11); this implementation
    /// understands none, so it must refuse the token.
    #[error("unsupported critical header")]
    Critical,
}

/// The protected header members Portcullis reads.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Header {
    /// Algorithm.
    pub alg: String,
    /// Media type, e.g. `at+jwt`.
    #[serde(default)]
    pub typ: Option<String>,
    /// Key id.
    #[serde(default)]
    pub kid: Option<String>,
    /// Whether the header has a `crit` member at all (any value, `null` included, makes the
    /// token unacceptable here).
    #[serde(skip)]
    pub has_crit: bool,
    /// Whether the header carries or points at a key of its own (`jwk`, `jku`, `x5c`, `x5u`):
    /// a token that brings its own key proves nothing, so assertions with one are refused.
    #[serde(skip)]
    pub embeds_key: bool,
}

/// Splits and decodes a compact JWS without checking its signature.
///
/// # Errors
/// `Malformed` for anything that is not `header.payload.signature` with JSON parts.
pub fn decode_unverified(token: &str) -> Result<(Header, serde_json::Value), JwsError> {
    let mut parts = token.split('.');
    let (Some(h), Some(p), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(JwsError::Malformed);
    };
    let raw: serde_json::Map<String, serde_json::Value> = URL_SAFE_NO_PAD
        .decode(h)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or(JwsError::Malformed)?;
    let has_crit = raw.contains_key("crit");
    let embeds_key = ["jwk", "jku", "x5c", "x5u"]
        .iter()
        .any(|k| raw.contains_key(*k));
    let mut header: Header =
        serde_json::from_value(serde_json::Value::Object(raw)).map_err(|_| JwsError::Malformed)?;
    header.has_crit = has_crit;
    header.embeds_key = embeds_key;
    let claims: serde_json::Value = URL_SAFE_NO_PAD
        .decode(p)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .filter(serde_json::Value::is_object)
        .ok_or(JwsError::Malformed)?;
    Ok((header, claims))
}

enum SignerKey {
    Ec(EcdsaKeyPair),
    Rsa(RsaKeyPair),
    Ed(Ed25519KeyPair),
}

/// Signs JWTs with one private key. Cheap to share behind an `Arc`.
pub struct Signer {
    kid: String,
    alg: SigningAlg,
    key: SignerKey,
    rng: SystemRandom,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Signer")
            .field("kid", &self.kid)
            .field("alg", &self.alg)
            .finish_non_exhaustive()
    }
}

impl Signer {
    /// Loads a PKCS#8 private key.
    ///
    /// # Errors
    /// When the key does not match `alg` or is malformed.
    pub fn from_pkcs8(kid: &str, alg: SigningAlg, pkcs8: &[u8]) -> Result<Self, String> {
        let rng = SystemRandom::new();
        let bad = |_| format!("Signing key {kid} is not a valid {alg} key");
        let key = match alg {
            SigningAlg::ES256 => SignerKey::Ec(
                EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8).map_err(bad)?,
            ),
            SigningAlg::RS256 => SignerKey::Rsa(RsaKeyPair::from_pkcs8(pkcs8).map_err(bad)?),
            SigningAlg::EdDSA => SignerKey::Ed(Ed25519KeyPair::from_pkcs8(pkcs8).map_err(bad)?),
        };
        Ok(Self {
            kid: kid.to_owned(),
            alg,
            key,
            rng,
        })
    }

    /// Key id.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// Algorithm.
    pub fn alg(&self) -> SigningAlg {
        self.alg
    }

    /// Signs `claims` with header `{"alg","typ","kid"}`.
    ///
    /// # Errors
    /// Only if the claims do not serialise or the underlying signer fails.
    pub fn sign(&self, typ: &str, claims: &impl serde::Serialize) -> Result<String, String> {
        let header = serde_json::json!({"alg": self.alg.as_str(), "typ": typ, "kid": self.kid});
        let mut out = URL_SAFE_NO_PAD.encode(header.to_string());
        out.push('.');
        out.push_str(
            &URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).map_err(|e| e.to_string())?),
        );
        let sig = self.sign_input(out.as_bytes())?;
        out.push('.');
        out.push_str(&URL_SAFE_NO_PAD.encode(sig));
        Ok(out)
    }

    /// The raw signature over a JWS signing input (`header.payload`, both base64url), for JWSs
    /// this type does not assemble itself (a registry release's detached payload).
    ///
    /// # Errors
    /// Only if the underlying signer fails.
    pub fn sign_input(&self, input: &[u8]) -> Result<Vec<u8>, String> {
        Ok(match &self.key {
            SignerKey::Ec(k) => k
                .sign(&self.rng, input)
                .map_err(|_| "ECDSA signing failed".to_owned())?
                .as_ref()
                .to_vec(),
            SignerKey::Ed(k) => k.sign(input).as_ref().to_vec(),
            SignerKey::Rsa(k) => {
                let mut sig = vec![0u8; k.public_modulus_len()];
                k.sign(&signature::RSA_PKCS1_SHA256, &self.rng, input, &mut sig)
                    .map_err(|_| "RSA signing failed".to_owned())?;
                sig
            }
        })
    }
}

#[derive(Debug, Clone)]
enum VerifyKey {
    Ec(Vec<u8>),
    Rsa { n: Vec<u8>, e: Vec<u8> },
    Ed(Vec<u8>),
}

/// Verifies JWSs with one public key.
#[derive(Debug, Clone)]
pub struct Verifier {
    kid: String,
    alg: SigningAlg,
    key: VerifyKey,
}

fn member(jwk: &serde_json::Value, name: &str) -> Result<Vec<u8>, String> {
    jwk.get(name)
        .and_then(serde_json::Value::as_str)
        .and_then(|s| URL_SAFE_NO_PAD.decode(s).ok())
        .ok_or_else(|| format!("JWK member \"{name}\" is missing or not base64url"))
}

impl Verifier {
    /// Builds a verifier from a public JWK with `kid`; `alg` is taken from the JWK or derived
    /// from its key type.
    ///
    /// # Errors
    /// For unsupported key types or malformed members.
    pub fn from_jwk(jwk: &serde_json::Value) -> Result<Self, String> {
        let kid = jwk
            .get("kid")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let kty = jwk
            .get("kty")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default();
        let crv = jwk
            .get("crv")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default();
        let (alg, key) = match (kty, crv) {
            ("EC", "P-256") => {
                let (x, y) = (member(jwk, "x")?, member(jwk, "y")?);
                if x.len() != 32 || y.len() != 32 {
                    return Err("EC P-256 coordinates must be 32 bytes".into());
                }
                let mut point = vec![4u8];
                point.extend_from_slice(&x);
                point.extend_from_slice(&y);
                (SigningAlg::ES256, VerifyKey::Ec(point))
            }
            ("RSA", _) => (
                SigningAlg::RS256,
                VerifyKey::Rsa {
                    n: member(jwk, "n")?,
                    e: member(jwk, "e")?,
                },
            ),
            ("OKP", "Ed25519") => (SigningAlg::EdDSA, VerifyKey::Ed(member(jwk, "x")?)),
            _ => return Err(format!("Unsupported JWK key type \"{kty}\" {crv}")),
        };
        if let Some(declared) = jwk.get("alg").and_then(serde_json::Value::as_str)
            && declared != alg.as_str()
        {
            return Err(format!(
                "JWK alg \"{declared}\" does not match its key type"
            ));
        }
        Ok(Self { kid, alg, key })
    }

    /// Key id.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// Algorithm.
    pub fn alg(&self) -> SigningAlg {
        self.alg
    }

    /// Verifies the signature and returns header and claims. The header's `alg` must equal this
    /// key's algorithm exactly (no `none`, no algorithm confusion), and it must name no critical
    /// extension.
    ///
    /// # Errors
    /// `Malformed`, `UnsupportedAlg`, `Critical` or `BadSignature`.
    pub fn verify(&self, token: &str) -> Result<(Header, serde_json::Value), JwsError> {
        let (header, claims) = decode_unverified(token)?;
        if header.alg != self.alg.as_str() {
            return Err(JwsError::UnsupportedAlg);
        }
        if header.has_crit {
            return Err(JwsError::Critical);
        }
        let dot = token.rfind('.').ok_or(JwsError::Malformed)?;
        let (signed, sig) = (&token[..dot], &token[dot + 1..]);
        let sig = URL_SAFE_NO_PAD
            .decode(sig)
            .map_err(|_| JwsError::Malformed)?;
        let ok = match &self.key {
            VerifyKey::Ec(point) => UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point)
                .verify(signed.as_bytes(), &sig)
                .is_ok(),
            VerifyKey::Ed(x) => UnparsedPublicKey::new(&signature::ED25519, x)
                .verify(signed.as_bytes(), &sig)
                .is_ok(),
            VerifyKey::Rsa { n, e } => signature::RsaPublicKeyComponents { n, e }
                .verify(
                    &signature::RSA_PKCS1_2048_8192_SHA256,
                    signed.as_bytes(),
                    &sig,
                )
                .is_ok(),
        };
        if ok {
            Ok((header, claims))
        } else {
            Err(JwsError::BadSignature)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Signer;
    use crate::keys::{SigningAlg, generate};
    use portcullis_manifest::policy::PolicyInput;
    use portcullis_manifest::release::{MANIFEST_SCHEMA, Manifest, SignedRelease, verify_release};

    /// A release the server signs is a release a laptop accepts: signed here with a realm key
    /// of each algorithm, verified by `portcullis-manifest` with the published JWK alone.
    #[test]
    fn releases_signed_with_realm_keys_verify_with_the_published_jwks() {
        let issuer = "https://auth.example.com/realms/acme";
        let manifest = Manifest {
            schema: MANIFEST_SCHEMA.into(),
            issuer: issuer.into(),
            sequence: 1,
            published_at: 1_790_000_000,
            previous: None,
            policy: PolicyInput::default(),
        };
        for alg in [SigningAlg::ES256, SigningAlg::RS256, SigningAlg::EdDSA] {
            let key = generate(alg).expect("key");
            let kid = format!("k-{}", alg.as_str());
            let signer = Signer::from_pkcs8(&kid, alg, &key.pkcs8).expect("signer");
            let release = SignedRelease::sign(&manifest, alg.as_str(), &kid, |input| {
                signer.sign_input(input)
            })
            .expect("signed");
            let mut jwk = key.public_jwk.clone();
            jwk.insert("kid".into(), kid.clone().into());
            jwk.insert("use".into(), "sig".into());
            jwk.insert("alg".into(), alg.as_str().into());
            let jwks = serde_json::json!({"keys": [jwk]});
            let document = serde_json::to_vec(&release).expect("json");
            let verified = verify_release(&document, &jwks, issuer)
                .unwrap_or_else(|e| panic!("{}: {e}", alg.as_str()));
            assert_eq!(verified.id, release.id);
        }
    }
}
