//! Second-factor types: the per-role policy, an account's authenticator (TOTP, RFC 6238),
//! recovery codes, and a sign-in waiting for its second factor.
use crate::clock::UnixTime;
use crate::ids::UserId;
use crate::policy::Role;
use crate::sso::SsoSession;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Recovery codes handed out at a time.
pub const RECOVERY_CODES: usize = 10;
/// Digits of a TOTP code.
pub const TOTP_DIGITS: u8 = 6;
/// Seconds per TOTP time step.
pub const TOTP_STEP_SECS: u64 = 30;
/// Steps accepted either side of now (clock drift between the phone and the server).
pub const TOTP_SKEW_STEPS: u8 = 1;
/// Bytes of a TOTP secret (160 bits, RFC 4226's recommendation).
pub const TOTP_SECRET_BYTES: usize = 20;
/// Seconds a sign-in may wait for its second factor.
pub const PENDING_TTL_SECS: i64 = 10 * 60;
/// Seconds an enrolment may wait for its first code before it starts over with a new secret.
pub const ENROLMENT_TTL_SECS: i64 = 30 * 60;
/// The issuer label shown in authenticator apps.
pub const TOTP_ISSUER: &str = "Portcullis";

/// Recovery codes as handed to their owner, once (`abcd-efgh-ijkl-mnop`).
pub type RecoveryCodes = Vec<String>;

/// Which roles must sign in with a second factor.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecondFactorPolicy {
    /// The roles, in [`Role::ALL`] order.
    pub roles: Vec<Role>,
}

impl SecondFactorPolicy {
    /// Parses the stored form (space-separated role names); unknown names are dropped.
    pub fn from_stored(s: &str) -> Self {
        let named: Vec<Role> = s
            .split_whitespace()
            .filter_map(|r| Role::parse(r).ok())
            .collect();
        Self::of(&named)
    }

    /// The policy requiring exactly these roles.
    pub fn of(roles: &[Role]) -> Self {
        Self {
            roles: Role::ALL
                .into_iter()
                .filter(|r| roles.contains(r))
                .collect(),
        }
    }

    /// The stored form.
    pub fn to_stored(&self) -> String {
        self.roles
            .iter()
            .map(|r| r.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether `role` must sign in with a second factor.
    pub fn requires(&self, role: Role) -> bool {
        self.roles.contains(&role)
    }
}

/// An account's stored authenticator.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredTotp {
    /// The account.
    pub user_id: UserId,
    /// The secret, sealed with the master key.
    pub sealed_secret: Vec<u8>,
    /// When the first code confirmed it (set up).
    pub confirmed_at: UnixTime,
    /// The newest time step accepted (a code is accepted once).
    pub last_step: i64,
}

impl std::fmt::Debug for StoredTotp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredTotp")
            .field("user_id", &self.user_id)
            .field("confirmed_at", &self.confirmed_at)
            .finish_non_exhaustive()
    }
}

/// An account's second factor, as its owner and admins see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecondFactorStatus {
    /// Since when an authenticator app is set up, if it is.
    pub since: Option<UnixTime>,
    /// Unused recovery codes.
    pub recovery_codes_left: u32,
    /// Whether the account's role must sign in with one.
    pub required: bool,
    /// Whether the account has a password (setting up an app asks for it).
    pub has_password: bool,
}

/// What the person scans or types into their authenticator app. Shown to them only.
#[derive(Clone, PartialEq, Eq)]
pub struct Enrolment {
    /// The secret, base32 (for typing it in).
    pub secret: String,
    /// The `otpauth://` URI the QR code holds.
    pub uri: String,
    /// The QR code, as an SVG document.
    pub qr_svg: String,
}

impl std::fmt::Debug for Enrolment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Enrolment([redacted])")
    }
}

/// An authenticator being set up: its secret, sealed with the master key, kept in the server-side
/// session of the browser that started the setup (and only there), until the app's first code
/// confirms it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TotpSetup {
    /// The account.
    pub user_id: String,
    /// The secret, sealed with the master key.
    pub sealed_secret: Vec<u8>,
    /// When the setup started.
    pub created_at: UnixTime,
}

impl TotpSetup {
    /// Whether it is too old to confirm at `now` (the person starts again with a new secret).
    pub fn expired(&self, now: UnixTime) -> bool {
        now >= self.created_at + ENROLMENT_TTL_SECS || now < self.created_at - 60
    }
}

impl std::fmt::Debug for TotpSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TotpSetup")
            .field("user_id", &self.user_id)
            .field("created_at", &self.created_at)
            .finish_non_exhaustive()
    }
}

/// A sign-in whose first factor (password or provider) succeeded and whose second is due. Kept
/// in the browser's server-side session, never in the browser.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingSecondFactor {
    /// The account.
    pub user_id: String,
    /// Its credential version at the first factor: a password change meanwhile ends it.
    pub credential_version: i64,
    /// The account has no authenticator yet and must set one up now.
    pub enrol: bool,
    /// The authenticator this sign-in is setting up (made when the page first shows it).
    pub setup: Option<TotpSetup>,
    /// The provider sign-in that was the first factor, if any (for signing out there later).
    pub sso: Option<SsoSession>,
    /// Where to go afterwards (the server checks it).
    pub next: String,
    /// When the first factor succeeded.
    pub started_at: UnixTime,
}

impl std::fmt::Debug for PendingSecondFactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingSecondFactor")
            .field("user_id", &self.user_id)
            .field("enrol", &self.enrol)
            .field("started_at", &self.started_at)
            .finish_non_exhaustive()
    }
}

impl PendingSecondFactor {
    /// Whether it is too old to finish at `now`.
    pub fn expired(&self, now: UnixTime) -> bool {
        now >= self.started_at + PENDING_TTL_SECS || now < self.started_at - 60
    }
}

/// How a second factor was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecondFactorKind {
    /// A code from the authenticator app.
    Totp,
    /// A recovery code.
    RecoveryCode,
}

impl SecondFactorKind {
    /// Audit form.
    pub fn as_str(self) -> &'static str {
        match self {
            SecondFactorKind::Totp => "totp",
            SecondFactorKind::RecoveryCode => "recovery_code",
        }
    }
}

/// What a typed code is, by its shape: six digits are an app code; sixteen base32 letters
/// (dashes and spaces ignored) a recovery code; anything else neither.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypedCode {
    /// Six digits.
    Totp(String),
    /// A recovery code, normalised (lower case, no separators).
    Recovery(String),
    /// Neither shape.
    Invalid,
}

impl TypedCode {
    /// Classifies what was typed.
    pub fn parse(input: &str) -> Self {
        let compact: String = input
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .collect();
        if compact.len() == usize::from(TOTP_DIGITS) && compact.bytes().all(|b| b.is_ascii_digit())
        {
            return TypedCode::Totp(compact);
        }
        // Base32 has no 0, 1 or 8: read as the letters they are mistaken for.
        let lower: String = compact
            .to_ascii_lowercase()
            .chars()
            .map(|c| match c {
                '0' => 'o',
                '1' => 'l',
                '8' => 'b',
                c => c,
            })
            .collect();
        if lower.len() == 16
            && lower
                .bytes()
                .all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b))
        {
            return TypedCode::Recovery(lower);
        }
        TypedCode::Invalid
    }
}

/// The stored form of a (normalised) recovery code: SHA-256, hex. The codes carry 80 random
/// bits, so a fast hash is enough.
pub fn recovery_code_hash(normalised: &str) -> String {
    hex::encode(Sha256::digest(normalised.as_bytes()))
}

/// Formats a normalised recovery code for reading: `abcd-efgh-ijkl-mnop`.
pub fn display_recovery_code(normalised: &str) -> String {
    normalised
        .as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join("-")
}

/// A new recovery code (80 random bits, base32 lower case), normalised.
pub fn new_recovery_code() -> String {
    use rand::RngCore;
    const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    bytes
        .iter()
        .map(|b| char::from(ALPHABET[usize::from(b & 31)]))
        .collect()
}

/// The RFC 6238 generator for a secret: SHA-1, six digits, 30-second steps, one step of skew —
/// what every authenticator app does.
///
/// # Errors
/// When the secret is too short or the account name holds a `:`.
pub fn totp(secret: Vec<u8>, account: &str) -> Result<totp_rs::Totp, String> {
    totp_rs::Builder::new()
        .with_algorithm(totp_rs::Algorithm::SHA1)
        .with_digits(TOTP_DIGITS)
        .with_skew(u16::from(TOTP_SKEW_STEPS))
        .with_step_duration(TOTP_STEP_SECS)
        .with_secret(secret)
        .with_issuer(Some(TOTP_ISSUER))
        .with_account_name(account.replace(':', "_"))
        .build()
        .map_err(|e| format!("building a TOTP generator: {e}"))
}

/// The enrolment view of a secret: base32, the `otpauth://` URI and its QR code.
///
/// # Errors
/// When the generator or the QR code cannot be built.
pub fn enrolment(secret: &[u8], account: &str) -> Result<Enrolment, String> {
    let t = totp(secret.to_vec(), account)?;
    let uri = t
        .to_url()
        .map_err(|e| format!("building the otpauth URI: {e}"))?;
    let code = qrcode::QrCode::with_error_correction_level(uri.as_bytes(), qrcode::EcLevel::M)
        .map_err(|e| format!("building the QR code: {e}"))?;
    let qr_svg = code
        .render::<qrcode::render::svg::Color<'_>>()
        .min_dimensions(200, 200)
        .quiet_zone(true)
        .build();
    Ok(Enrolment {
        secret: t.secret().to_base32(),
        uri,
        qr_svg,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_round_trips_in_role_order_and_drops_unknown_names() {
        let p = SecondFactorPolicy::from_stored("developer nobody admin admin");
        assert_eq!(p.roles, vec![Role::Admin, Role::Developer]);
        assert_eq!(p.to_stored(), "admin developer");
        assert!(p.requires(Role::Admin));
        assert!(!p.requires(Role::SecurityReviewer));
        assert_eq!(SecondFactorPolicy::from_stored("").roles, vec![]);
    }

    #[test]
    fn typed_codes_are_told_apart_by_shape() {
        assert_eq!(
            TypedCode::parse(" 123 456 "),
            TypedCode::Totp("123456".into())
        );
        assert_eq!(
            TypedCode::parse("ABCD-efgh-2345-6723"),
            TypedCode::Recovery("abcdefgh23456723".into())
        );
        assert_eq!(
            TypedCode::parse("f1i1 0k8a 2345 6723"),
            TypedCode::Recovery("flilokba23456723".into())
        );
        for bad in [
            "12345",
            "1234567",
            "abcd",
            "abcd-efgh-ijkl-mno9",
            "١٢٣٤٥٦",
            "",
        ] {
            assert_eq!(TypedCode::parse(bad), TypedCode::Invalid, "{bad}");
        }
    }

    #[test]
    fn recovery_codes_are_random_base32_and_hash_stably() {
        let a = new_recovery_code();
        assert_eq!(
            TypedCode::parse(&display_recovery_code(&a)),
            TypedCode::Recovery(a.clone())
        );
        assert_ne!(a, new_recovery_code());
        assert_eq!(recovery_code_hash(&a), recovery_code_hash(&a));
        assert_eq!(recovery_code_hash(&a).len(), 64);
    }

    /// RFC 6238 appendix B, SHA-1, truncated to six digits.
    #[test]
    fn codes_match_the_rfc_test_vectors() {
        let t = totp(b"12345678901234567890".to_vec(), "ada@example.com").unwrap();
        assert_eq!(t.generate(59).to_string(), "287082");
        assert_eq!(t.generate(1_111_111_109).to_string(), "081804");
        assert_eq!(t.generate(2_000_000_000).to_string(), "279037");
        // One step of skew either side, no more.
        assert_eq!(t.check("287082", 59 + 30), Some(1));
        assert_eq!(t.check("287082", 59 + 60), None);
    }

    #[test]
    fn enrolment_shows_the_secret_as_uri_and_qr_code() {
        let e = enrolment(b"12345678901234567890", "ada:x@example.com").unwrap();
        assert_eq!(e.secret, "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
        assert!(
            e.uri
                .starts_with("otpauth://totp/Portcullis:ada_x%40example.com?"),
            "{}",
            e.uri
        );
        assert!(e.uri.contains("secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"));
        assert!(e.qr_svg.starts_with("<?xml") && e.qr_svg.contains("<svg"));
        assert_eq!(format!("{e:?}"), "Enrolment([redacted])");
    }
}
