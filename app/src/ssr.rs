//! Server-side glue for server functions: context, session and principal (ssr only).
use crate::error::AppError;
use authz::{Core, Principal, RequestMeta};
use leptos::prelude::*;
use tower_sessions::Session;

/// Session key holding the signed-in user's id.
pub const SESSION_USER: &str = "uid";
/// Session key holding the Unix time of sign-in (for the absolute expiry).
pub const SESSION_AUTH_AT: &str = "auth_at";
/// Session key holding the account's credential version at sign-in: when the password changes,
/// sessions holding an older version end.
pub const SESSION_CREDENTIALS: &str = "cred";
/// Session key holding the realm selected in the console.
pub const SESSION_REALM: &str = "realm_id";

/// What the server's middleware resolved for this request.
#[derive(Debug, Clone, Default)]
pub struct ConsoleRequest {
    /// The signed-in user, if any (disabled users and expired sessions resolve to none).
    pub principal: Option<Principal>,
    /// Request id and client IP.
    pub meta: RequestMeta,
}

/// Sets the HTTP status of the current server-function response.
pub fn set_status(status: axum::http::StatusCode) {
    if let Some(opts) = use_context::<leptos_axum::ResponseOptions>() {
        opts.set_status(status);
    }
}

/// The core from context.
///
/// # Errors
/// `Internal` if the server did not provide it.
pub fn core() -> Result<Core, AppError> {
    use_context::<Core>().ok_or(AppError::Internal)
}

/// The resolved request.
///
/// # Errors
/// `Internal` if the middleware did not run.
pub async fn request() -> Result<ConsoleRequest, AppError> {
    leptos_axum::extract::<axum::Extension<ConsoleRequest>>()
        .await
        .map(|e| e.0)
        .map_err(|_| AppError::Internal)
}

/// Core, signed-in principal and request facts.
///
/// # Errors
/// `Unauthenticated` without a session.
pub async fn context() -> Result<(Core, Principal, RequestMeta), AppError> {
    let req = request().await?;
    let Some(p) = req.principal else {
        set_status(axum::http::StatusCode::UNAUTHORIZED);
        return Err(AppError::Unauthenticated);
    };
    Ok((core()?, p, req.meta))
}

/// The session.
///
/// # Errors
/// `Internal` if the session layer is missing.
pub async fn session() -> Result<Session, AppError> {
    leptos_axum::extract::<Session>()
        .await
        .map_err(|_| AppError::Internal)
}

fn session_failed(e: tower_sessions::session::Error) -> AppError {
    tracing::error!(error = %e, "Session store failed");
    AppError::Internal
}

/// Starts an authenticated session: rotates the session id, then records the user, the time
/// and the account's credential version.
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn start_session(session: &Session, p: &Principal, now: i64) -> Result<(), AppError> {
    session
        .insert(SESSION_USER, p.user_id.as_str())
        .await
        .map_err(session_failed)?;
    session
        .insert(SESSION_AUTH_AT, now)
        .await
        .map_err(session_failed)?;
    renew_session(session, p).await
}

/// Rotates the session id and records the principal's current credential version (after the
/// signed-in user changed their own password; sign-in time, and so the absolute expiry, stay).
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn renew_session(session: &Session, p: &Principal) -> Result<(), AppError> {
    session.cycle_id().await.map_err(session_failed)?;
    session
        .insert(SESSION_CREDENTIALS, p.credential_version)
        .await
        .map_err(session_failed)
}

/// The name of the realm selected in this session (default `default`).
///
/// The session remembers the realm's id, so a rename (in this session or another) keeps it
/// selected, and a new realm that takes an old name is never selected by mistake.
///
/// # Errors
/// `Internal` when the session store or the store fails.
pub async fn selected_realm(core: &Core, session: &Session) -> Result<String, AppError> {
    let id = session
        .get::<String>(SESSION_REALM)
        .await
        .map_err(session_failed)?;
    let name = match id {
        Some(id) => {
            core.realm_name(&authz::realms::RealmId::from_stored(id))
                .await?
        }
        None => None,
    };
    Ok(name.map_or_else(
        || authz::realms::DEFAULT_REALM.to_owned(),
        |n| n.to_string(),
    ))
}

/// Remembers the selected realm (by id).
///
/// # Errors
/// `Internal` when the session store fails.
pub async fn select_realm(session: &Session, realm: &authz::realms::Realm) -> Result<(), AppError> {
    session
        .insert(SESSION_REALM, realm.id.as_str())
        .await
        .map_err(session_failed)
}

/// View conversions from core types.
pub fn realm_view(core: &Core, r: &authz::realms::Realm) -> crate::types::RealmView {
    crate::types::RealmView {
        name: r.name.to_string(),
        display_name: r.display_name.clone(),
        enabled: r.enabled,
        issuer: core.issuer(&r.name),
        token_ttl_secs: r.token_ttl_secs,
        refresh_idle_days: authz::realms::as_days(r.refresh_idle_ttl_secs),
        refresh_max_days: authz::realms::as_days(r.refresh_max_ttl_secs),
        unused_client_days: authz::realms::as_days(r.unused_client_ttl_secs),
        client_secret_days: authz::realms::as_days(r.client_secret_ttl_secs),
        registration_policy: r.registration_policy.as_str().to_owned(),
        max_dynamic_clients: r.max_dynamic_clients,
        metadata_document_policy: r.metadata_document_policy.as_str().to_owned(),
        metadata_document_domains: r.metadata_document_domains.join(" "),
        registrations_per_source: r.registrations_per_source,
        trusted_networks: r
            .trusted_networks
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" "),
        registrations_per_trusted_network: r.registrations_per_trusted_network,
        metadata_document_machine_domains: r.metadata_document_machine_domains.join(" "),
        created_at: authz::clock::rfc3339(r.created_at),
    }
}

/// `t` as the console shows it, relative to `now`.
pub fn moment(now: i64, t: i64) -> crate::types::Moment {
    crate::types::Moment {
        at: authz::clock::rfc3339(t),
        ago: authz::clock::ago(now, t),
    }
}

/// View of a user.
pub fn user_view(u: &authz::accounts::User, now: i64) -> crate::types::UserView {
    crate::types::UserView {
        id: u.id.to_string(),
        email: u.email.to_string(),
        display_name: u.display_name.clone(),
        role: u.role.as_str().to_owned(),
        disabled: u.disabled,
        has_password: u.password_hash.is_some(),
        created: moment(now, u.created_at),
    }
}

/// View of an audit event.
pub fn audit_view(e: &authz::audit::AuditEvent, now: i64) -> crate::types::AuditView {
    crate::types::AuditView {
        id: e.id,
        time: authz::clock::rfc3339(e.occurred_at),
        ago: authz::clock::ago(now, e.occurred_at),
        realm: e.realm.clone(),
        actor: e.actor.clone(),
        action: e.action.clone(),
        target: e.target.clone(),
        outcome: e.outcome.as_str().to_owned(),
        request_id: e.request_id.clone().unwrap_or_default(),
        client_ip: e.client_ip.clone().unwrap_or_default(),
        details: e.details.to_string(),
    }
}

/// A slice of the audit log as the console pages it (`paged`: not the newest page).
pub fn audit_page(
    found: &authz::audit::AuditSlice,
    now: i64,
    paged: bool,
) -> crate::types::AuditPage {
    crate::types::AuditPage {
        newer: found
            .newer
            .then(|| found.items.first().map(|e| e.id))
            .flatten(),
        older: found
            .older
            .then(|| found.items.last().map(|e| e.id))
            .flatten(),
        items: found.items.iter().map(|e| audit_view(e, now)).collect(),
        total: found.total,
        total_exact: found.total_exact,
        paged,
        about: String::new(),
    }
}

/// Parses the console's audit filter into the core's.
///
/// # Errors
/// `Invalid` for a malformed time.
pub fn audit_filter(q: &crate::types::AuditQuery) -> Result<authz::audit::AuditFilter, AppError> {
    authz::audit::AuditFilter::from_input(&q.action, &q.actor, &q.target, &q.about, &q.from, &q.to)
        .map_err(|m| invalid(&m))
}

/// Rejects input that failed parsing in a server function (HTTP 422).
pub fn invalid(msg: &str) -> AppError {
    set_status(axum::http::StatusCode::UNPROCESSABLE_ENTITY);
    AppError::Invalid(msg.to_owned())
}

/// A console-side check that failed on one field (422), e.g. a password confirmation.
pub fn field_error(field: &str, msg: &str) -> AppError {
    set_status(axum::http::StatusCode::UNPROCESSABLE_ENTITY);
    AppError::Field {
        field: field.to_owned(),
        message: msg.to_owned(),
    }
}

/// The password and its confirmation agree, else a message on the confirmation.
///
/// # Errors
/// `Field` on `confirm`.
pub fn confirmed(password: &str, confirm: &str) -> Result<(), AppError> {
    if password == confirm {
        Ok(())
    } else {
        Err(field_error("confirm", "The two passwords do not match."))
    }
}

/// Core, principal, request facts and the realm selected in the console.
///
/// # Errors
/// `Unauthenticated` without a session; `Internal` when the session store fails.
pub async fn realm_context() -> Result<(Core, Principal, RequestMeta, String), AppError> {
    let (core, p, meta) = context().await?;
    let realm = selected_realm(&core, &session().await?).await?;
    Ok((core, p, meta, realm))
}

/// View of a resource.
pub fn resource_view(r: &authz::resources::Resource) -> crate::types::ResourceView {
    crate::types::ResourceView {
        slug: r.slug.clone(),
        display_name: r.display_name.clone(),
        uri: r.uri.to_string(),
        scopes: r.scopes.to_string(),
        token_ttl_secs: r.token_ttl_secs,
        signing_alg: r
            .signing_alg
            .map(|a| a.as_str().to_owned())
            .unwrap_or_default(),
        enabled: r.enabled,
        consent: r.policy.consent.as_str().to_owned(),
        people_roles: r.policy.people_roles.to_string(),
        default_scopes: r.policy.default_scopes.to_string(),
        open_to_self_registered: r.policy.open_to_self_registered,
        submitted_by: r.submitted_by.clone(),
        rejection: r.rejection.clone(),
    }
}

/// A grant just made, as the client's page shows it.
pub fn granted_view(
    g: authz::access::GrantedResource,
    now: authz::clock::UnixTime,
) -> crate::types::AccessView {
    access_view(
        &authz::access::ResourceAccess {
            resource: g.resource,
            grant: Some(g.grant),
        },
        now,
    )
}

/// A resource and a client's access to it.
pub fn access_view(
    a: &authz::access::ResourceAccess,
    now: authz::clock::UnixTime,
) -> crate::types::AccessView {
    let last = a.grant.as_ref().and_then(|g| g.last_used_at);
    crate::types::AccessView {
        last_used_at: last.map(authz::clock::rfc3339).unwrap_or_default(),
        last_used: last.map(|t| authz::clock::ago(now, t)).unwrap_or_default(),
        resource: resource_view(&a.resource),
        scopes: a
            .grant
            .as_ref()
            .map(|g| {
                g.scopes
                    .intersection(&a.resource.scopes)
                    .iter()
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        lapsed: a
            .grant
            .as_ref()
            .map(|g| {
                g.scopes
                    .difference(&a.resource.scopes)
                    .iter()
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        granted: a.grant.is_some(),
        updated_at: a
            .grant
            .as_ref()
            .map(|g| authz::clock::rfc3339(g.updated_at))
            .unwrap_or_default(),
    }
}

/// A grant on a resource's page.
pub fn grant_view(
    g: &authz::access::GrantedClient,
    now: authz::clock::UnixTime,
) -> crate::types::GrantView {
    let last = g.grant.last_used_at;
    crate::types::GrantView {
        last_used_at: last.map(authz::clock::rfc3339).unwrap_or_default(),
        last_used: last.map(|t| authz::clock::ago(now, t)).unwrap_or_default(),
        client_id: g.client_id.to_string(),
        name: g.name.clone(),
        enabled: g.enabled,
        scopes: g.grant.scopes.iter().map(str::to_owned).collect(),
        lapsed: g.lapsed.iter().map(str::to_owned).collect(),
        agent: g
            .agent
            .as_ref()
            .map(|(name, _)| name.clone())
            .unwrap_or_default(),
        token_scopes: g.token_scopes().iter().map(str::to_owned).collect(),
        created_at: authz::clock::rfc3339(g.grant.created_at),
        updated_at: authz::clock::rfc3339(g.grant.updated_at),
    }
}

/// A client's registration as its edit form shows it.
pub fn client_form_view(c: &authz::clients::Client) -> crate::types::ClientFormView {
    let m = &c.metadata;
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    crate::types::ClientFormView {
        name: c.name.clone(),
        scope: c.scope.to_string(),
        contacts: m.contacts.join(", "),
        jwks: m
            .jwks
            .as_ref()
            .map(|j| format!("{j:#}"))
            .unwrap_or_default(),
        jwks_uri: text(&m.jwks_uri),
        redirect_uris: m.redirect_uris.join("\n"),
        client_uri: text(&m.client_uri),
        logo_uri: text(&m.logo_uri),
        software_id: text(&m.software_id),
        software_version: text(&m.software_version),
    }
}

/// View of a client.
pub fn client_view(c: &authz::clients::Client, now: i64) -> crate::types::ClientView {
    crate::types::ClientView {
        client_id: c.client_id.to_string(),
        name: c.name.clone(),
        auth_method: c.auth_method.as_str().to_owned(),
        scope: c.scope.to_string(),
        grant_types: c
            .grant_types
            .iter()
            .map(|g| g.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        contacts: c.metadata.contacts.join(", "),
        resource_server: c.resource_server_for.is_some(),
        enabled: c.enabled,
        registration: c.registration.kind.as_str().to_owned(),
        review: c.registration.review.as_str().to_owned(),
        decision: c
            .registration
            .reviewed_by
            .clone()
            .zip(c.registration.review_reason.clone()),
        created: moment(now, c.created_at),
        version: c.updated_at,
    }
}

/// View of the keys fetched from a client's `jwks_uri`.
pub fn remote_keys_view(k: &authz::clients::RemoteKeys) -> crate::types::RemoteKeysView {
    let t = |v: Option<i64>| v.map(authz::clock::rfc3339).unwrap_or_default();
    crate::types::RemoteKeysView {
        kids: k.kids.clone(),
        fetched_at: t(k.fetched_at),
        fresh_until: t(k.fresh_until),
        last_error: k.last_error.clone().unwrap_or_default(),
    }
}

/// View of a signing key.
pub fn key_view(k: &authz::keys::KeyInfo, now: i64) -> crate::types::KeyView {
    let t = |v: Option<i64>| v.map(authz::clock::rfc3339).unwrap_or_default();
    crate::types::KeyView {
        kid: k.kid.clone(),
        alg: k.alg.as_str().to_owned(),
        state: k.state.to_owned(),
        published: k.published,
        created: moment(now, k.created_at),
        activated_at: t(k.activated_at),
        retired_at: t(k.retired_at),
        publish_until: k.publish_until.map(|u| moment(now, u)),
    }
}

/// View of an agent.
pub fn agent_view(a: &authz::agents::AgentSummary, now: i64) -> crate::types::AgentView {
    let expires = a.agent.expires_at;
    crate::types::AgentView {
        expires: expires
            .map(|t| authz::clock::ago(now, t))
            .unwrap_or_default(),
        expires_input: expires
            .map(|t| authz::clock::rfc3339(t).chars().take(16).collect())
            .unwrap_or_default(),
        name: a.agent.name.clone(),
        owner: a.agent.owner.clone(),
        description: a.agent.description.clone(),
        roles: a.agent.roles.to_string(),
        expires_at: a
            .agent
            .expires_at
            .map(authz::clock::rfc3339)
            .unwrap_or_default(),
        status: a.status.as_str().to_owned(),
        mcp_capable: a.agent.is_mcp_capable(),
        clients: a.clients.clone(),
    }
}

/// The cookie in which a failed sign-in hands the typed email back to the sign-in page.
pub const LOGIN_EMAIL_COOKIE: &str = "portcullis_login_email";

/// `Set-Cookie` for [`LOGIN_EMAIL_COOKIE`]: the email, or a removal when `email` is empty.
///
/// At most 254 bytes, hex-encoded so any character survives. Scoped to `/login`, five minutes,
/// HttpOnly, `SameSite=Strict`, `__Secure-` on https; not in the URL, where it would land in access logs and history.
pub fn login_email_cookie(email: &str, secure: bool) -> String {
    use std::fmt::Write;
    let email = email.trim();
    let email = &email[..email.floor_char_boundary(254)];
    let mut value = String::with_capacity(email.len() * 2);
    for b in email.bytes() {
        let _ = write!(value, "{b:02x}");
    }
    let max_age = if value.is_empty() { 0 } else { 300 };
    format!(
        "{}{LOGIN_EMAIL_COOKIE}={value}; Path=/login; Max-Age={max_age}; HttpOnly; SameSite=Strict{}",
        if secure { "__Secure-" } else { "" },
        if secure { "; Secure" } else { "" }
    )
}

/// The email a failed sign-in left in [`LOGIN_EMAIL_COOKIE`], when rendering the sign-in page.
pub fn login_email() -> Option<String> {
    let parts = use_context::<axum::http::request::Parts>()?;
    // Over https only the prefixed cookie, which no plain-http page or sibling host can set.
    let secure =
        use_context::<Core>().is_some_and(|c| c.config().public_url.starts_with("https://"));
    let name = if secure {
        format!("__Secure-{LOGIN_EMAIL_COOKIE}")
    } else {
        LOGIN_EMAIL_COOKIE.to_owned()
    };
    let hex = parts
        .headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == name)?
        .1;
    if hex.len() > 508 || hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok().filter(|e| !e.is_empty())
}

/// View of a realm's person.
pub fn person_view(p: &authz::people::Person, now: i64) -> crate::types::PersonView {
    crate::types::PersonView {
        id: p.id.to_string(),
        email: p.email.to_string(),
        display_name: p.display_name.clone(),
        roles: p.roles.to_string(),
        disabled: p.disabled,
        has_password: p.password_hash.is_some(),
        created: moment(now, p.created_at),
    }
}

/// View of a connected app.
pub fn connected_app_view(
    a: &authz::authorize::ConnectedApp,
    now: i64,
) -> crate::types::ConnectedAppView {
    crate::types::ConnectedAppView {
        id: a.consent.id.to_string(),
        subject: a.consent.subject.clone(),
        client_id: a.client_id.clone(),
        client_name: a.client_name.clone(),
        resource_name: a.resource_name.clone(),
        resource_uri: a.resource_uri.clone(),
        scopes: a
            .consent
            .scopes
            .iter()
            .filter(|s| *s != "offline_access")
            .map(str::to_owned)
            .collect(),
        offline: a.consent.scopes.contains("offline_access"),
        updated: moment(now, a.consent.updated_at),
        last_used: a.last_used_at.map(|t| moment(now, t)),
    }
}

/// View of a client in the review queue.
pub fn review_item_view(i: &authz::clients::ReviewItem, now: i64) -> crate::types::ReviewItemView {
    let c = &i.client;
    let r = &c.registration;
    let software = match (&c.metadata.software_id, &c.metadata.software_version) {
        (Some(id), Some(v)) => Some(format!("{id} {v}")),
        (Some(id), None) => Some(id.clone()),
        (None, Some(v)) => Some(format!("version {v}")),
        (None, None) => None,
    };
    crate::types::ReviewItemView {
        client_id: c.client_id.to_string(),
        name: c.name.clone(),
        kind: r.kind.as_str().to_owned(),
        state: r.review.as_str().to_owned(),
        auth_method: c.auth_method.as_str().to_owned(),
        grant_types: c
            .grant_types
            .iter()
            .map(|g| g.as_str().to_owned())
            .collect(),
        scope: c.scope.to_string(),
        redirect_uris: c.metadata.redirect_uris.clone(),
        redirect_hosts: i.redirect_hosts.clone(),
        loopback_only: i.loopback_only,
        private_use: i.private_use,
        software,
        client_uri: c.metadata.client_uri.clone(),
        source_ip: r.source_ip.clone(),
        same_source: i.same_source,
        similar_names: i.similar_names.clone(),
        created: moment(now, c.created_at),
        version: c.updated_at,
        decision: match (&r.reviewed_by, &r.review_reason, r.reviewed_at) {
            (Some(by), Some(why), Some(at)) => Some((by.clone(), why.clone(), moment(now, at))),
            _ => None,
        },
        last_token: r.last_token_at.map(|t| moment(now, t)),
    }
}

/// View of what "Protect your MCP server" generated.
pub fn protection_view(p: &authz::integration::Protection) -> crate::types::ProtectionView {
    crate::types::ProtectionView {
        resource: p.resource.clone(),
        name: p.name.clone(),
        changes: p.changes.clone(),
        scopes: p.scopes.clone(),
        scope_notes: p.scope_notes.clone(),
        new_scopes: p.new_scopes.clone(),
        artifacts: p
            .artifacts
            .iter()
            .map(|a| crate::types::ArtifactView {
                id: a.id.to_owned(),
                title: a.title.to_owned(),
                explanation: a.explanation.clone(),
                reference_label: a.reference.0.to_owned(),
                reference_url: a.reference.1.to_owned(),
                language: a.language.to_owned(),
                text: a.text.clone(),
            })
            .collect(),
        registered: p.registered.as_ref().map(registered_view),
        client_review: p.client_review.map(|r| (r.waiting, r.can_review)),
    }
}

/// A resource registered or submitted from the generator.
pub fn registered_view(r: &authz::integration::RegisteredResource) -> crate::types::RegisteredView {
    crate::types::RegisteredView {
        slug: r.slug.clone(),
        display_name: r.display_name.clone(),
        enabled: r.enabled,
        submitted_by: r.submitted_by.clone(),
        rejection: r.rejection.clone(),
    }
}

/// "Check an MCP server", as the console shows it.
pub fn check_view(c: &authz::integration::McpCheck) -> crate::types::McpCheckView {
    use authz::integration::Verdict;
    crate::types::McpCheckView {
        url: c.url.clone(),
        passed: c.passed(),
        steps: c
            .steps
            .iter()
            .map(|s| crate::types::CheckStepView {
                id: s.id.to_owned(),
                title: s.title.to_owned(),
                verdict: match s.verdict {
                    Verdict::Pass => "pass",
                    Verdict::Warn => "warn",
                    Verdict::Fail => "fail",
                    Verdict::Skipped => "skipped",
                }
                .to_owned(),
                reason: s.reason.clone(),
                exchanges: s
                    .exchanges
                    .iter()
                    .map(|e| (e.request.clone(), e.response.clone()))
                    .collect(),
            })
            .collect(),
    }
}
