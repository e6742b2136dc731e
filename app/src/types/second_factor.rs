//! Second factors (`api::second_factor`): the sign-in step, the account's authenticator app
//! and recovery codes, and which roles require one.
use super::Moment;
use serde::{Deserialize, Serialize};

/// What the person scans or types into their authenticator app (shown to them only).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnrolmentView {
    /// The secret, base32, grouped by four for typing.
    pub secret: String,
    /// The `otpauth://` URI (a link for phones, where the app is on the same device).
    pub uri: String,
    /// The QR code as an SVG document (made by the server from the URI).
    pub qr_svg: String,
}

impl std::fmt::Debug for EnrolmentView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EnrolmentView([redacted])")
    }
}

/// A sign-in waiting for its second step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChallengeView {
    /// The account's email.
    pub email: String,
    /// The account must set up an authenticator app now (its role requires one).
    pub enrolment: Option<EnrolmentView>,
}

/// A console account's second factor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecondFactorView {
    /// Since when an authenticator app is set up, if it is.
    pub since: Option<Moment>,
    /// Unused recovery codes.
    pub recovery_codes_left: u32,
    /// The account's role requires a second factor.
    pub required: bool,
    /// Setting one up asks for the account's password.
    pub has_password: bool,
}

/// After a second step that handed out recovery codes: the codes (shown once) and where to go.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedInWithCodes {
    /// The recovery codes.
    pub codes: Vec<String>,
    /// Where the sign-in goes on to (a checked local path).
    pub next: String,
}

impl std::fmt::Debug for SignedInWithCodes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SignedInWithCodes([redacted])")
    }
}
