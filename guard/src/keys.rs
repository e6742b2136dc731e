//! The realm's signing keys: public JWKs (RFC 7517) parsed once into verification keys.
use aws_lc_rs::signature::{
    ECDSA_P256_SHA256_FIXED, ED25519, ParsedPublicKey, RSA_PKCS1_2048_8192_SHA256,
};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use std::collections::HashMap;
use std::sync::Arc;

/// The most keys taken from one JWK Set: a realm publishes a handful (active, next, retired).
pub(crate) const MAX_KEYS: usize = 32;

/// A JWS algorithm Portcullis signs access tokens with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Alg {
    Es256,
    Rs256,
    EdDsa,
}

impl Alg {
    pub(crate) fn parse(s: &str) -> Option<Self> {
        match s {
            "ES256" => Some(Self::Es256),
            "RS256" => Some(Self::Rs256),
            "EdDSA" => Some(Self::EdDsa),
            _ => None,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Es256 => "ES256",
            Self::Rs256 => "RS256",
            Self::EdDsa => "EdDSA",
        }
    }
}

/// One public key, parsed once, with the only algorithm it verifies.
pub(crate) struct Key {
    pub(crate) alg: Alg,
    key: ParsedPublicKey,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key").field("alg", &self.alg).finish()
    }
}

#[derive(serde::Deserialize)]
struct Jwk {
    kty: String,
    kid: Option<String>,
    #[serde(rename = "use")]
    use_: Option<String>,
    alg: Option<String>,
    crv: Option<String>,
    x: Option<String>,
    y: Option<String>,
    n: Option<String>,
    e: Option<String>,
}

fn member(v: Option<&String>, name: &str) -> Result<Vec<u8>, String> {
    v.and_then(|s| URL_SAFE_NO_PAD.decode(s).ok())
        .ok_or_else(|| format!("member {name} is missing or not base64url"))
}

impl Key {
    /// The key of a public JWK and its `kid`; the algorithm follows from the key type (a
    /// declared `alg` must agree), so a token can never pick another one.
    fn from_jwk(jwk: &Jwk) -> Result<(String, Self), String> {
        let kid = jwk.kid.clone().ok_or("no kid")?;
        let (alg, key) = match (jwk.kty.as_str(), jwk.crv.as_deref()) {
            ("EC", Some("P-256")) => {
                let (x, y) = (member(jwk.x.as_ref(), "x")?, member(jwk.y.as_ref(), "y")?);
                if x.len() != 32 || y.len() != 32 {
                    return Err("P-256 coordinates must be 32 bytes".into());
                }
                let point = [&[4u8][..], &x, &y].concat();
                (
                    Alg::Es256,
                    ParsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point),
                )
            }
            ("RSA", _) => {
                let (n, e) = (member(jwk.n.as_ref(), "n")?, member(jwk.e.as_ref(), "e")?);
                // Parsed from DER: a key built from its components verified markedly slower
                // (measured: 67% of the raw rate against 85%, BENCHMARKS.md).
                (
                    Alg::Rs256,
                    ParsedPublicKey::new(&RSA_PKCS1_2048_8192_SHA256, rsa_public_key_der(&n, &e)),
                )
            }
            ("OKP", Some("Ed25519")) => (
                Alg::EdDsa,
                ParsedPublicKey::new(&ED25519, member(jwk.x.as_ref(), "x")?),
            ),
            (kty, crv) => return Err(format!("unsupported key type {kty} {crv:?}")),
        };
        if jwk.alg.as_deref().is_some_and(|a| a != alg.as_str()) {
            return Err("alg does not match the key type".into());
        }
        let key = key.map_err(|_| "the key does not parse".to_owned())?;
        Ok((kid, Self { alg, key }))
    }

    /// Whether `signature` is this key's over `message`.
    pub(crate) fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        self.key.verify_sig(message, signature).is_ok()
    }
}

/// DER of a PKCS#1 `RSAPublicKey` (RFC 8017 §A.1.1): `SEQUENCE { INTEGER n, INTEGER e }`.
fn rsa_public_key_der(n: &[u8], e: &[u8]) -> Vec<u8> {
    fn length(out: &mut Vec<u8>, len: usize) {
        if len < 0x80 {
            out.push(len as u8);
        } else {
            let bytes: Vec<u8> = len
                .to_be_bytes()
                .into_iter()
                .skip_while(|b| *b == 0)
                .collect();
            out.push(0x80 | bytes.len() as u8);
            out.extend(bytes);
        }
    }
    fn integer(out: &mut Vec<u8>, magnitude: &[u8]) {
        let magnitude = match magnitude.iter().position(|b| *b != 0) {
            Some(i) => &magnitude[i..],
            None => &[0][..],
        };
        // A leading one bit would read as negative.
        let pad = magnitude[0] & 0x80 != 0;
        out.push(0x02);
        length(out, magnitude.len() + usize::from(pad));
        if pad {
            out.push(0);
        }
        out.extend_from_slice(magnitude);
    }
    let mut body = Vec::with_capacity(n.len() + e.len() + 16);
    integer(&mut body, n);
    integer(&mut body, e);
    let mut out = Vec::with_capacity(body.len() + 4);
    out.push(0x30);
    length(&mut out, body.len());
    out.extend(body);
    out
}

/// The usable signing keys of one JWK Set, by `kid`.
#[derive(Debug, Default)]
pub(crate) struct KeySet {
    keys: HashMap<String, Arc<Key>>,
}

impl KeySet {
    /// The signing keys of a JWK Set document: keys for other uses, of other types, without a
    /// `kid` or malformed are left out; at most [`MAX_KEYS`] are read.
    ///
    /// # Errors
    /// When the document is not a JWK Set or has no usable key.
    pub(crate) fn parse(doc: &serde_json::Value) -> Result<Self, String> {
        let list = doc
            .get("keys")
            .and_then(serde_json::Value::as_array)
            .ok_or("not a JWK Set (no keys array)")?;
        let mut keys = HashMap::new();
        for v in list.iter().take(MAX_KEYS) {
            let Ok(jwk) = serde_json::from_value::<Jwk>(v.clone()) else {
                continue;
            };
            if jwk.use_.as_deref().is_some_and(|u| u != "sig") {
                continue;
            }
            match Key::from_jwk(&jwk) {
                Ok((kid, key)) => {
                    keys.insert(kid, Arc::new(key));
                }
                Err(why) => tracing::debug!(jwk.kid = ?jwk.kid, "Skipped a JWK: {why}"),
            }
        }
        if keys.is_empty() {
            return Err("no usable signing key (ES256, RS256 or EdDSA with a kid)".into());
        }
        Ok(Self { keys })
    }

    pub(crate) fn get(&self, kid: &str) -> Option<&Arc<Key>> {
        self.keys.get(kid)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rsa_keys_are_encoded_as_pkcs1_der() {
        assert_eq!(
            rsa_public_key_der(&[0x00, 0x81, 0x02], &[0x01, 0x00, 0x01]),
            [
                0x30, 0x0a, 0x02, 0x03, 0x00, 0x81, 0x02, 0x02, 0x03, 0x01, 0x00, 0x01
            ]
        );
        let long = rsa_public_key_der(&[0x7f; 256], &[3]);
        assert_eq!(
            &long[..8],
            &[0x30, 0x82, 0x01, 0x07, 0x02, 0x82, 0x01, 0x00]
        );
    }

    #[test]
    fn only_usable_signing_keys_are_kept() {
        let ec = json!({"kty": "EC", "crv": "P-256", "kid": "a",
            "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"});
        let set = KeySet::parse(&json!({"keys": [
            ec,
            {"kty": "EC", "crv": "P-256", "kid": "enc", "use": "enc", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "crv": "P-256", "kid": "liar", "alg": "RS256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
            {"kty": "EC", "crv": "P-384", "kid": "p384", "x": "AA", "y": "AA"},
            "not a key",
        ]}))
        .expect("one usable key");
        assert!(set.get("a").is_some_and(|k| k.alg == Alg::Es256));
        for kid in ["enc", "liar", "hmac", "p384"] {
            assert!(set.get(kid).is_none(), "{kid}");
        }
        assert!(KeySet::parse(&json!({"keys": []})).is_err());
        assert!(KeySet::parse(&json!({"keys": [{"kty": "oct", "kid": "x", "k": "AA"}]})).is_err());
        assert!(KeySet::parse(&json!([1])).is_err());
    }
}
