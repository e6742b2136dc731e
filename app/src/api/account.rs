//! The signed-in user's own account.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use leptos::prelude::*;

/// The provider the signed-in account signs in with, or the ones it could connect.
#[server(prefix = "/api", endpoint = "account/sign-in", client = crate::tab::TabClient)]
pub async fn my_sign_in()
-> Result<(Option<String>, Vec<crate::types::session::SignInProvider>), AppError> {
    let (core, p, _) = ssr::context().await?;
    let (linked, providers) = core.own_sign_in(&p).await?;
    Ok((
        linked,
        providers
            .into_iter()
            .map(|s| crate::types::session::SignInProvider {
                id: s.id.to_string(),
                button_text: s.display_name,
            })
            .collect(),
    ))
}

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
