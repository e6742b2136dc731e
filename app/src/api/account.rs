//! The signed-in user's own account.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use leptos::prelude::*;

/// Changes the signed-in user's password.
#[server(prefix = "/api", endpoint = "account/password", client = crate::tab::TabClient)]
pub async fn change_password(
    current: String,
    password: String,
    confirm: String,
) -> Result<(), AppError> {
    let (core, p, meta) = ssr::context().await?;
    ssr::confirmed(&password, &confirm)?;
    let p = core
        .change_own_password(&p, &current, &password, &meta)
        .await?;
    // Other sessions of the account end (their credential version is stale); this one gets a
    // new id and the new version.
    ssr::renew_session(&ssr::session().await?, &p).await
}
