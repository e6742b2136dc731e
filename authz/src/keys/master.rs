//! The master key that seals private signing keys at rest (AES-256-GCM).
use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use aws_lc_rs::rand::{SecureRandom as _, SystemRandom};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

/// A 256-bit key-encryption key. `Debug` never prints it.
#[derive(Clone)]
pub struct MasterKey([u8; 32]);

impl std::fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MasterKey([redacted])")
    }
}

impl MasterKey {
    /// A new random key.
    ///
    /// # Panics
    /// Only if the system random source fails.
    pub fn generate() -> Self {
        let mut k = [0u8; 32];
        SystemRandom::new()
            .fill(&mut k)
            .expect("system randomness is available");
        Self(k)
    }

    /// Parses a base64-encoded 32-byte key.
    ///
    /// # Errors
    /// When the text is not base64 of exactly 32 bytes.
    pub fn from_base64(s: &str) -> Result<Self, String> {
        let bytes = STANDARD
            .decode(s.trim())
            .map_err(|_| "The master key must be base64.".to_owned())?;
        let k: [u8; 32] = bytes
            .try_into()
            .map_err(|_| "The master key must be 32 bytes (44 base64 characters).".to_owned())?;
        Ok(Self(k))
    }

    /// The key as base64, for writing the generated key file.
    pub fn to_base64(&self) -> String {
        STANDARD.encode(self.0)
    }

    /// A key for one purpose, derived from this one (tickets of the authorization endpoint),
    /// so that nothing sealed for one purpose opens as another.
    pub(crate) fn derive(&self, purpose: &str) -> Self {
        Self::from_secret(&self.0, purpose)
    }

    /// A key derived from a high-entropy secret a caller holds (a refresh token): what is
    /// sealed with it opens only for whoever presents that secret.
    pub(crate) fn from_secret(secret: &[u8], purpose: &str) -> Self {
        use sha2::Digest as _;
        let mut h = sha2::Sha256::new();
        h.update(purpose.as_bytes());
        h.update([0u8]);
        h.update(secret);
        Self(h.finalize().into())
    }

    /// HMAC-SHA256 of `message` under this key.
    pub(crate) fn mac(&self, message: &[u8]) -> [u8; 32] {
        let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, &self.0);
        let tag = aws_lc_rs::hmac::sign(&key, message);
        let mut out = [0u8; 32];
        out.copy_from_slice(tag.as_ref());
        out
    }

    fn key(&self) -> LessSafeKey {
        LessSafeKey::new(
            UnboundKey::new(&AES_256_GCM, &self.0).expect("32 bytes is an AES-256 key"),
        )
    }

    /// Encrypts `plaintext`, bound to `aad`; output is `nonce || ciphertext || tag`.
    ///
    /// # Errors
    /// Only if the random source or cipher fails.
    pub fn seal(&self, plaintext: &[u8], aad: &[u8]) -> Result<Vec<u8>, String> {
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .map_err(|_| "randomness failed".to_owned())?;
        let mut buf = plaintext.to_vec();
        self.key()
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(aad),
                &mut buf,
            )
            .map_err(|_| "Failed to seal a key".to_owned())?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&buf);
        Ok(out)
    }

    /// Decrypts what [`MasterKey::seal`] produced with the same `aad`.
    ///
    /// # Errors
    /// When the key, the associated data or the ciphertext is wrong.
    pub fn open(&self, sealed: &[u8], aad: &[u8]) -> Result<Vec<u8>, String> {
        if sealed.len() < NONCE_LEN {
            return Err("sealed key too short".into());
        }
        let (nonce, ct) = sealed.split_at(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| "bad nonce".to_owned())?;
        let mut buf = ct.to_vec();
        let plain = self
            .key()
            .open_in_place(nonce, Aad::from(aad), &mut buf)
            .map_err(|_| "Failed to open a sealed key: wrong master key?".to_owned())?;
        Ok(plain.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_open_round_trip_and_binding() {
        let k = MasterKey::generate();
        let sealed = k.seal(b"private", b"kid-1").expect("seal");
        assert_eq!(k.open(&sealed, b"kid-1").expect("open"), b"private");
        assert!(k.open(&sealed, b"kid-2").is_err(), "bound to its aad");
        assert!(
            MasterKey::generate().open(&sealed, b"kid-1").is_err(),
            "bound to its key"
        );
        let again = MasterKey::from_base64(&k.to_base64()).expect("parse");
        assert_eq!(again.open(&sealed, b"kid-1").expect("open"), b"private");
        assert!(MasterKey::from_base64("c2hvcnQ=").is_err());
        assert_eq!(format!("{k:?}"), "MasterKey([redacted])");
    }
}
