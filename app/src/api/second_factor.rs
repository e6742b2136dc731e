//! Second factors: the sign-in step after the password or provider, the signed-in account's
//! authenticator app and recovery codes, an admin's reset, and which roles require one.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::second_factor::{
    ChallengeView, EnrolmentView, SecondFactorView, SignedInWithCodes,
};
use leptos::prelude::*;

/// What a wrong or throttled code says, on the code field.
#[cfg(feature = "ssr")]
fn code_error(e: authz::Error) -> AppError {
    use axum::http::StatusCode;
    let (status, message) = match e {
        authz::Error::InvalidCredentials => (StatusCode::UNPROCESSABLE_ENTITY, {
            "That code is not right. Type the newest code your app shows (codes change every 30 seconds, and each works once).".to_owned()
        }),
        authz::Error::Throttled { retry_after_secs } => (
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "Too many wrong codes. Try again in {} minute(s).",
                retry_after_secs.div_ceil(60)
            ),
        ),
        other => return other.into(),
    };
    crate::status::set_status(status);
    AppError::Field {
        field: "code".into(),
        message,
    }
}

/// A refusal the page shows (the sign-in expired, or is of another kind).
#[cfg(feature = "ssr")]
fn refused(message: &str) -> AppError {
    crate::status::set_status(axum::http::StatusCode::UNPROCESSABLE_ENTITY);
    AppError::Invalid(message.to_owned())
}

/// The sign-in waiting in this browser for its second step, if any (with the authenticator
/// to set up when the account must enrol now).
#[server(prefix = "/api", endpoint = "second-factor/challenge", client = crate::tab::TabClient)]
pub async fn second_factor_challenge() -> Result<Option<ChallengeView>, AppError> {
    let core = ssr::core()?;
    let session = ssr::session().await?;
    let Some(mut pending) = ssr::second_factor::held(&session).await? else {
        return Ok(None);
    };
    let user = authz::ids::UserId::from_stored(&pending.user_id);
    let Some(p) = core.principal(&user).await? else {
        ssr::second_factor::drop_held(&session).await?;
        return Ok(None);
    };
    let enrolment = if pending.enrol {
        match core.sign_in_enrolment(&mut pending).await {
            Ok(e) => {
                ssr::second_factor::keep_held(&session, &pending).await?;
                Some(ssr::second_factor::enrolment_view(&e))
            }
            Err(authz::Error::InvalidLink) => {
                ssr::second_factor::drop_held(&session).await?;
                return Ok(None);
            }
            Err(e) => return Err(e.into()),
        }
    } else if pending.expired(core.now()) {
        ssr::second_factor::drop_held(&session).await?;
        return Ok(None);
    } else {
        None
    };
    Ok(Some(ChallengeView {
        email: p.email,
        enrolment,
    }))
}

/// Finishes a sign-in that must set up an authenticator app: the first code confirms it, the
/// session starts, and the recovery codes come back (shown once).
#[server(prefix = "/api", endpoint = "second-factor/enrol", client = crate::tab::TabClient)]
pub async fn confirm_sign_in_enrolment(code: String) -> Result<SignedInWithCodes, AppError> {
    let core = ssr::core()?;
    let req = ssr::request().await?;
    let session = ssr::session().await?;
    let Some(pending) = ssr::second_factor::held(&session).await? else {
        return Err(refused("This sign-in has expired. Please sign in again."));
    };
    if !pending.enrol {
        return Err(refused(
            "This account has an authenticator app: type its code.",
        ));
    }
    let (principal, codes) = match core.finish_second_factor(&pending, &code, &req.meta).await {
        Ok(done) => done,
        Err(authz::Error::InvalidLink) => {
            ssr::second_factor::drop_held(&session).await?;
            return Err(refused("This sign-in has expired. Please sign in again."));
        }
        Err(e) => return Err(code_error(e)),
    };
    ssr::second_factor::release(&session, &pending, &principal, core.now()).await?;
    Ok(SignedInWithCodes {
        codes: codes.unwrap_or_default(),
        next: pending.next.clone(),
    })
}

/// The signed-in account's second factor.
#[server(prefix = "/api", endpoint = "account/second-factor", client = crate::tab::TabClient)]
pub async fn my_second_factor() -> Result<SecondFactorView, AppError> {
    let (core, p, _) = ssr::context().await?;
    let status = core.own_second_factor(&p).await?;
    Ok(ssr::second_factor::status_view(core.now(), &status))
}

/// Starts setting up an authenticator app for the signed-in account (after its password, when
/// it has one); the secret stays in this browser's session until the first code confirms it.
#[server(prefix = "/api", endpoint = "account/second-factor/start", client = crate::tab::TabClient)]
pub async fn start_my_enrolment(
    #[server(default)] password: String,
) -> Result<EnrolmentView, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let (e, setup) = core.start_own_enrolment(&p, &password, &meta).await?;
    ssr::second_factor::keep_setup(&ssr::session().await?, Some(&setup)).await?;
    Ok(ssr::second_factor::enrolment_view(&e))
}

/// Confirms the signed-in account's new authenticator app with its first code.
#[server(prefix = "/api", endpoint = "account/second-factor/confirm", client = crate::tab::TabClient)]
pub async fn confirm_my_enrolment(code: String) -> Result<Vec<String>, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let session = ssr::session().await?;
    let setup = ssr::second_factor::setup(&session).await?;
    let codes = core
        .confirm_own_enrolment(&p, setup.as_ref(), &code, &meta)
        .await
        .map_err(code_error)?;
    ssr::second_factor::keep_setup(&session, None).await?;
    Ok(codes)
}

/// New recovery codes for the signed-in account (the old ones stop working).
#[server(prefix = "/api", endpoint = "account/second-factor/codes", client = crate::tab::TabClient)]
pub async fn new_my_recovery_codes(code: String) -> Result<Vec<String>, AppError> {
    let (core, p, meta) = ssr::context().await?;
    core.new_own_recovery_codes(&p, &code, &meta)
        .await
        .map_err(code_error)
}

/// Removes the signed-in account's authenticator app and recovery codes.
#[server(prefix = "/api", endpoint = "account/second-factor/remove", client = crate::tab::TabClient)]
pub async fn remove_my_second_factor(code: String) -> Result<(), AppError> {
    let (core, p, meta) = ssr::context().await?;
    core.remove_own_second_factor(&p, &code, &meta)
        .await
        .map_err(code_error)
}

/// A console account's second factor, for admins.
#[server(prefix = "/api", endpoint = "users/second-factor", client = crate::tab::TabClient)]
pub async fn user_second_factor(id: String) -> Result<SecondFactorView, AppError> {
    let (core, p, _) = ssr::context().await?;
    let status = core
        .user_second_factor(&p, &authz::ids::UserId::from_stored(id))
        .await?;
    Ok(ssr::second_factor::status_view(core.now(), &status))
}

/// Resets a console account's authenticator app (lost phone and codes); its sessions end.
#[server(prefix = "/api", endpoint = "users/second-factor/reset", client = crate::tab::TabClient)]
pub async fn reset_user_second_factor(id: String) -> Result<(), AppError> {
    let (core, p, meta) = ssr::context().await?;
    core.reset_second_factor(&p, &authz::ids::UserId::from_stored(id), &meta)
        .await
        .map(drop)
        .map_err(Into::into)
}

/// Which roles must sign in with a second factor (role names).
#[server(prefix = "/api", endpoint = "sso/second-factor", client = crate::tab::TabClient)]
pub async fn second_factor_roles() -> Result<Vec<String>, AppError> {
    let (core, p, _) = ssr::context().await?;
    Ok(core
        .second_factor_policy(&p)
        .await?
        .roles
        .iter()
        .map(|r| r.as_str().to_owned())
        .collect())
}

/// Sets which roles must sign in with a second factor (checkboxes named by role).
#[server(prefix = "/api", endpoint = "sso/second-factor/set", client = crate::tab::TabClient)]
pub async fn set_second_factor_roles(
    #[server(default)] admin: String,
    #[server(default)] security_reviewer: String,
    #[server(default)] developer: String,
) -> Result<(), AppError> {
    use authz::policy::Role;
    let (core, p, meta) = ssr::context().await?;
    let roles: Vec<Role> = [
        (Role::Admin, admin),
        (Role::SecurityReviewer, security_reviewer),
        (Role::Developer, developer),
    ]
    .into_iter()
    .filter(|(_, on)| on == "on")
    .map(|(r, _)| r)
    .collect();
    core.set_second_factor_policy(&p, &roles, &meta)
        .await
        .map(drop)
        .map_err(Into::into)
}
