//! The sign-in step after the password or provider, kept in the server-side session; and
//! second-factor view types.
use super::{SESSION_SSO, SESSION_USER, session_failed, start_session};
use crate::error::AppError;
use crate::types::second_factor::{EnrolmentView, SecondFactorView};
use authz::Principal;
use authz::second_factor::{Enrolment, PendingSecondFactor, SecondFactorStatus, TotpSetup};
use tower_sessions::Session;

/// Session key: a sign-in whose first factor passed, waiting for its second.
pub const SESSION_PENDING: &str = "second_factor";
/// Session key: the authenticator the signed-in account is setting up on its Account page.
pub const SESSION_SETUP: &str = "totp_setup";

/// Puts a sign-in on hold for its second factor: a new session id, nobody signed in, the
/// waiting sign-in recorded.
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn hold(session: &Session, pending: &PendingSecondFactor) -> Result<(), AppError> {
    session.cycle_id().await.map_err(session_failed)?;
    session
        .remove_value(SESSION_USER)
        .await
        .map_err(session_failed)?;
    session
        .remove_value(SESSION_SSO)
        .await
        .map_err(session_failed)?;
    session
        .insert(SESSION_PENDING, pending)
        .await
        .map_err(session_failed)
}

/// The sign-in waiting in this session, if any.
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn held(session: &Session) -> Result<Option<PendingSecondFactor>, AppError> {
    session
        .get::<PendingSecondFactor>(SESSION_PENDING)
        .await
        .map_err(session_failed)
}

/// Stores the waiting sign-in back (it now holds the authenticator it sets up).
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn keep_held(session: &Session, pending: &PendingSecondFactor) -> Result<(), AppError> {
    session
        .insert(SESSION_PENDING, pending)
        .await
        .map_err(session_failed)
}

/// The authenticator this browser's account is setting up on its Account page.
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn setup(session: &Session) -> Result<Option<TotpSetup>, AppError> {
    session
        .get::<TotpSetup>(SESSION_SETUP)
        .await
        .map_err(session_failed)
}

/// Keeps (or, with `None`, forgets) the authenticator being set up.
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn keep_setup(session: &Session, setup: Option<&TotpSetup>) -> Result<(), AppError> {
    match setup {
        Some(s) => session
            .insert(SESSION_SETUP, s)
            .await
            .map_err(session_failed),
        None => session
            .remove_value(SESSION_SETUP)
            .await
            .map(drop)
            .map_err(session_failed),
    }
}

/// Drops the waiting sign-in (it finished, or can no longer).
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn drop_held(session: &Session) -> Result<(), AppError> {
    session
        .remove_value(SESSION_PENDING)
        .await
        .map(drop)
        .map_err(session_failed)
}

/// Signs in the account whose second factor passed: a new session with the provider sign-in
/// it came through, if any.
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn release(
    session: &Session,
    pending: &PendingSecondFactor,
    principal: &Principal,
    now: i64,
) -> Result<(), AppError> {
    drop_held(session).await?;
    start_session(session, principal, now).await?;
    if let Some(sso) = &pending.sso {
        session
            .insert(SESSION_SSO, sso)
            .await
            .map_err(session_failed)?;
    }
    Ok(())
}

/// The enrolment view: the secret grouped by four for typing.
pub fn enrolment_view(e: &Enrolment) -> EnrolmentView {
    EnrolmentView {
        secret: e
            .secret
            .as_bytes()
            .chunks(4)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join(" "),
        uri: e.uri.clone(),
        // Inline in the page: the XML declaration has no place there.
        qr_svg: e
            .qr_svg
            .find("<svg")
            .map_or_else(|| e.qr_svg.clone(), |at| e.qr_svg[at..].to_owned()),
    }
}

/// An account's second factor as the console shows it.
pub fn status_view(now: i64, s: &SecondFactorStatus) -> SecondFactorView {
    SecondFactorView {
        since: s.since.map(|t| super::moment(now, t)),
        recovery_codes_left: s.recovery_codes_left,
        required: s.required,
        has_password: s.has_password,
    }
}
