//! Key generation: fresh key pairs and key ids.
use super::model::SigningAlg;
use aws_lc_rs::signature::{
    ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _,
};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// Freshly generated key material: the PKCS#8 private key and the public JWK (without `kid`).
pub struct GeneratedKey {
    /// PKCS#8 DER of the private key.
    pub pkcs8: Vec<u8>,
    /// Public JWK members (`kty`, `crv`/`n`/`e`, `x`/`y`).
    pub public_jwk: serde_json::Map<String, serde_json::Value>,
}

impl std::fmt::Debug for GeneratedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeneratedKey")
            .field("public_jwk", &self.public_jwk)
            .finish_non_exhaustive()
    }
}

fn b64(bytes: &[u8]) -> serde_json::Value {
    serde_json::Value::String(URL_SAFE_NO_PAD.encode(bytes))
}

/// Generates a new key pair for `alg`.
///
/// # Errors
/// Only if the system random source fails.
pub fn generate(alg: SigningAlg) -> Result<GeneratedKey, String> {
    let rng = aws_lc_rs::rand::SystemRandom::new();
    let mut jwk = serde_json::Map::new();
    let pkcs8 = match alg {
        SigningAlg::ES256 => {
            let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
                .map_err(|_| "Failed to generate an EC key".to_owned())?;
            let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, doc.as_ref())
                .map_err(|_| "Failed to load a generated EC key".to_owned())?;
            // Uncompressed point: 0x04 || x || y.
            let point = pair.public_key().as_ref();
            jwk.insert("kty".into(), "EC".into());
            jwk.insert("crv".into(), "P-256".into());
            jwk.insert("x".into(), b64(&point[1..33]));
            jwk.insert("y".into(), b64(&point[33..65]));
            doc.as_ref().to_vec()
        }
        SigningAlg::EdDSA => {
            let doc = Ed25519KeyPair::generate_pkcs8(&rng)
                .map_err(|_| "Failed to generate an Ed25519 key".to_owned())?;
            let pair = Ed25519KeyPair::from_pkcs8(doc.as_ref())
                .map_err(|_| "Failed to load a generated Ed25519 key".to_owned())?;
            jwk.insert("kty".into(), "OKP".into());
            jwk.insert("crv".into(), "Ed25519".into());
            jwk.insert("x".into(), b64(pair.public_key().as_ref()));
            doc.as_ref().to_vec()
        }
        SigningAlg::RS256 => {
            use aws_lc_rs::encoding::{AsDer as _, Pkcs8V1Der};
            let key = aws_lc_rs::rsa::KeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048)
                .map_err(|_| "Failed to generate an RSA key".to_owned())?;
            let public = key.public_key();
            jwk.insert("kty".into(), "RSA".into());
            jwk.insert(
                "n".into(),
                b64(public.modulus().big_endian_without_leading_zero()),
            );
            jwk.insert(
                "e".into(),
                b64(public.exponent().big_endian_without_leading_zero()),
            );
            let der: Pkcs8V1Der<'static> = key
                .as_der()
                .map_err(|_| "Failed to encode an RSA key".to_owned())?;
            der.as_ref().to_vec()
        }
    };
    Ok(GeneratedKey {
        pkcs8,
        public_jwk: jwk,
    })
}

/// A new random key id (`kid`), URL-safe.
pub fn new_kid() -> String {
    let mut b = [0u8; 12];
    rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut b);
    URL_SAFE_NO_PAD.encode(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::{Signer, Verifier};

    #[test]
    fn generated_keys_sign_and_their_public_jwk_verifies() {
        for alg in SigningAlg::ALL {
            let key = generate(alg).expect("generate");
            let signer = Signer::from_pkcs8("k1", alg, &key.pkcs8).expect("load");
            let token = signer
                .sign("at+jwt", &serde_json::json!({"sub": "agent", "n": 1}))
                .expect("sign");
            let mut jwk = key.public_jwk.clone();
            jwk.insert("kid".into(), "k1".into());
            jwk.insert("alg".into(), alg.as_str().into());
            let verifier = Verifier::from_jwk(&serde_json::Value::Object(jwk)).expect("verifier");
            let (header, claims) = verifier.verify(&token).expect("verify");
            assert_eq!(header.alg, alg.as_str());
            assert_eq!(header.typ.as_deref(), Some("at+jwt"));
            assert_eq!(claims["sub"], "agent");
            // A flipped bit in the payload breaks the signature.
            let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
            parts[1] = URL_SAFE_NO_PAD.encode(br#"{"sub":"mallory","n":1}"#);
            assert!(verifier.verify(&parts.join(".")).is_err(), "{alg}");
        }
    }

    #[test]
    fn algorithms_parse_strictly() {
        for alg in SigningAlg::ALL {
            assert_eq!(SigningAlg::parse(alg.as_str()), Ok(alg));
        }
        for bad in ["none", "HS256", "es256", ""] {
            assert!(SigningAlg::parse(bad).is_err(), "{bad}");
        }
    }
}
