//! Console user administration.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::users::{IssuedLink, UserPage, UserView};
use leptos::prelude::*;

/// One page of users matching `query`.
#[server(prefix = "/api", endpoint = "users/list", client = crate::tab::TabClient)]
pub async fn list_users(
    query: String,
    after: String,
    before: String,
) -> Result<UserPage, AppError> {
    let (core, p, _) = ssr::context().await?;
    let found = core
        .list_users(&p, &query, ssr::key_page(&after, &before))
        .await?;
    Ok(ssr::keyed(&found, |u| ssr::users::user_view(u, core.now())))
}

/// One user.
#[server(prefix = "/api", endpoint = "users/get", client = crate::tab::TabClient)]
pub async fn get_user(id: String) -> Result<UserView, AppError> {
    let (core, p, _) = ssr::context().await?;
    Ok(ssr::users::user_view(
        &core.user(&p, &authz::ids::UserId::from_stored(id)).await?,
        core.now(),
    ))
}

/// Creates a user and returns their one-time set-password link.
#[server(prefix = "/api", endpoint = "users/create", client = crate::tab::TabClient)]
pub async fn create_user(
    email: String,
    display_name: String,
    role: String,
) -> Result<IssuedLink, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let (user, token) = core
        .create_user(&p, &email, &display_name, &role, &meta)
        .await?;
    Ok(IssuedLink {
        email: user.email.to_string(),
        url: core.reset_url(&token),
    })
}

/// Changes a user's role.
#[server(prefix = "/api", endpoint = "users/role", client = crate::tab::TabClient)]
pub async fn set_user_role(id: String, role: String) -> Result<UserView, AppError> {
    let (core, p, meta) = ssr::context().await?;
    Ok(ssr::users::user_view(
        &core
            .set_user_role(&p, &authz::ids::UserId::from_stored(id), &role, &meta)
            .await?,
        core.now(),
    ))
}

/// Marks an admin as break-glass, or no longer.
#[server(prefix = "/api", endpoint = "users/break-glass", client = crate::tab::TabClient)]
pub async fn set_user_break_glass(id: String, on: bool) -> Result<UserView, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let u = core
        .set_user_break_glass(&p, &authz::ids::UserId::from_stored(id), on, &meta)
        .await?;
    Ok(ssr::users::user_view(&u, core.now()))
}

/// Disables or re-enables a console user.
#[server(prefix = "/api", endpoint = "users/disabled", client = crate::tab::TabClient)]
pub async fn set_user_disabled(id: String, disabled: bool) -> Result<UserView, AppError> {
    let (core, p, meta) = ssr::context().await?;
    Ok(ssr::users::user_view(
        &core
            .set_user_disabled(&p, &authz::ids::UserId::from_stored(id), disabled, &meta)
            .await?,
        core.now(),
    ))
}

/// Issues a one-time password-reset link.
#[server(prefix = "/api", endpoint = "users/reset-link", client = crate::tab::TabClient)]
pub async fn issue_reset_link(id: String) -> Result<IssuedLink, AppError> {
    let (core, p, meta) = ssr::context().await?;
    let (user, token) = core
        .issue_password_reset(&p, &authz::ids::UserId::from_stored(id), &meta)
        .await?;
    Ok(IssuedLink {
        email: user.email.to_string(),
        url: core.reset_url(&token),
    })
}
