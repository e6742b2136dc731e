//! Session-level server functions: who am I, realm switch, first-admin setup, password reset.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::session::SessionInfo;
use leptos::prelude::*;

/// The signed-in user and realm selection; `None` when not signed in.
#[server(prefix = "/api", endpoint = "session/get", client = crate::tab::TabClient)]
pub async fn get_session() -> Result<Option<SessionInfo>, AppError> {
    let req = ssr::request().await?;
    let Some(p) = req.principal else {
        return Ok(None);
    };
    let core = ssr::core()?;
    let session = ssr::session().await?;
    let selected = ssr::selected_realm(&core, &session).await?;
    let realms = core.list_realms(&p).await?;
    let views: Vec<_> = realms
        .iter()
        .map(|r| ssr::realms::realm_view(&core, r))
        .collect();
    let realm = views
        .iter()
        .find(|r| r.name == selected)
        .or_else(|| {
            views
                .iter()
                .find(|r| r.name == authz::realms::DEFAULT_REALM)
        })
        .cloned()
        .ok_or(AppError::Internal)?;
    let pending_reviews = core.pending_review_count(&p).await?;
    let release_waiting = p.role.can(authz::policy::Permission::ApproveReleases)
        && core.registry_request_waiting(&p, &realm.name).await?;
    let gateway_waiting = core.gateway_waiting_count(&p, &realm.name).await?;
    let horizon = core.local_token_horizon(&realm.name).await?;
    // Told once: the page after the switch shows it, a reload no longer does.
    let switched = session
        .remove::<(String, bool)>(ssr::SWITCHED_FROM)
        .await
        .ok()
        .flatten()
        .filter(|(from, _)| *from != realm.name);
    let switched_by_link = switched.as_ref().is_some_and(|(_, by_link)| *by_link);
    let switched_from = switched.map(|(from, _)| from);
    Ok(Some(SessionInfo {
        pending_reviews,
        release_waiting,
        gateway_waiting,
        revocation_note: authz::tokens::local_verification_note(horizon),
        switched_from,
        switched_by_link,
        user_id: p.user_id.to_string(),
        email: p.email.clone(),
        display_name: p.display_name.clone(),
        role: p.role.as_str().to_owned(),
        can: abilities(p.role),
        realm,
        realms: views,
    }))
}

/// What the signed-in role may see and do (nothing when signed out).
#[server(prefix = "/api", endpoint = "session/abilities", client = crate::tab::TabClient)]
pub async fn get_abilities() -> Result<crate::types::session::Abilities, AppError> {
    let req = ssr::request().await?;
    Ok(req.principal.map(|p| abilities(p.role)).unwrap_or_default())
}

/// What the request's signed-in role may see and do, read synchronously from the request the
/// sign-in middleware resolved (nothing when signed out): the layout knows it before it builds
/// the page.
#[cfg(feature = "ssr")]
pub fn request_abilities() -> crate::types::session::Abilities {
    use_context::<axum::http::request::Parts>()
        .and_then(|parts| {
            parts
                .extensions
                .get::<ssr::ConsoleRequest>()
                .and_then(|c| c.principal.as_ref().map(|p| p.role))
        })
        .map(abilities)
        .unwrap_or_default()
}

/// What `role` may see and do, for the screens.
#[cfg(feature = "ssr")]
fn abilities(role: authz::policy::Role) -> crate::types::session::Abilities {
    use authz::policy::Permission::*;
    crate::types::session::Abilities {
        manage_users: role.can(ManageUsers),
        manage_realms: role.can(ManageRealms),
        view_audit: role.can(ViewAudit),
        view_resources: role.can(ViewResources),
        manage_resources: role.can(ManageResources),
        submit_resources: role.can(SubmitResources),
        view_clients: role.can(ViewClients),
        manage_clients: role.can(ManageClients),
        view_agents: role.can(ViewAgents),
        manage_agents: role.can(ManageAgents),
        manage_keys: role.can(ManageKeys),
        view_people: role.can(ViewPeople),
        manage_people: role.can(ManagePeople),
        review_clients: role.can(ReviewClients),
        view_registry: role.can(ViewRegistry),
        manage_registry: role.can(ManageRegistry),
        approve_releases: role.can(ApproveReleases),
    }
}

/// Switches the console to another realm.
#[server(prefix = "/api", endpoint = "session/realm", client = crate::tab::TabClient)]
pub async fn select_realm(name: String) -> Result<(), AppError> {
    let (core, p, _) = ssr::context().await?;
    let realm = core.get_realm(&p, &name).await?;
    let session = ssr::session().await?;
    let before = ssr::selected_realm(&core, &session).await.ok();
    ssr::select_realm(&session, &realm).await?;
    // The page the switcher loads next says so (other tabs will ask to reload).
    match before.filter(|b| *b != realm.name.as_str()) {
        Some(before) => ssr::note_switch(&session, &before, false).await,
        None => Ok(()),
    }
}

/// The sign-in providers the sign-in page offers (anyone may see them).
#[server(prefix = "/api", endpoint = "session/providers", client = crate::tab::TabClient)]
pub async fn get_sign_in_providers() -> Result<crate::types::session::SignInOptions, AppError> {
    let core = ssr::core()?;
    let providers = core
        .sign_in_providers()
        .await?
        .into_iter()
        .map(|p| crate::types::session::SignInProvider {
            id: p.id.to_string(),
            button_text: p.button_text,
        })
        .collect();
    Ok(crate::types::session::SignInOptions {
        providers,
        password_break_glass_only: core.password_sign_in_break_glass_only().await?,
    })
}

/// Whether a first-admin setup link is still usable.
#[server(prefix = "/api", endpoint = "setup/status", client = crate::tab::TabClient)]
pub async fn setup_link_status(token: String) -> Result<bool, AppError> {
    Ok(ssr::core()?.setup_link_is_valid(&token).await?)
}

/// Creates the first admin through the setup link and signs them in.
#[server(prefix = "/api", endpoint = "setup/complete", client = crate::tab::TabClient)]
pub async fn complete_setup(
    token: String,
    email: String,
    display_name: String,
    password: String,
    confirm: String,
) -> Result<String, AppError> {
    ssr::confirmed(&password, &confirm)?;
    let core = ssr::core()?;
    let req = ssr::request().await?;
    let p = core
        .complete_setup(&token, &email, &display_name, &password, &req.meta)
        .await?;
    let session = ssr::session().await?;
    // A second factor required for admins (set with the CLI before setup): set up now.
    match core.second_factor_step(&p, false, None).await? {
        Some(mut pending) => {
            pending.next = "/".to_owned();
            ssr::second_factor::hold(&session, &pending).await?;
            Ok("/login/second-factor".to_owned())
        }
        None => {
            ssr::start_session(&session, &p, core.now()).await?;
            Ok("/".to_owned())
        }
    }
}

/// The email a password-reset link is for.
#[server(prefix = "/api", endpoint = "reset/status", client = crate::tab::TabClient)]
pub async fn reset_link_status(token: String) -> Result<String, AppError> {
    Ok(ssr::core()?.reset_link_email(&token).await?)
}

/// Sets a new password through a one-time link.
#[server(prefix = "/api", endpoint = "reset/complete", client = crate::tab::TabClient)]
pub async fn complete_password_reset(
    token: String,
    password: String,
    confirm: String,
) -> Result<(), AppError> {
    ssr::confirmed(&password, &confirm)?;
    let req = ssr::request().await?;
    Ok(ssr::core()?
        .reset_password(&token, &password, &req.meta)
        .await?)
}
