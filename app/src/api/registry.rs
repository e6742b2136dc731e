//! The MCP server registry of the selected realm: the draft and its servers, publishing and
//! approval, releases, rings and units with their members, deliveries to harnesses.
use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::ssr;
use crate::types::registry::{
    DeliveryView, DriftDeviceView, DriftView, GroupView, HarnessChoice, ImportedView, MemberRow,
    RegistryView, ReleaseDetail, ReleasePage, SavedView, ServerDetail, ServerForm,
};
use leptos::prelude::*;

/// Releases per page of the history.
pub const RELEASES_PAGE: u32 = 20;

/// The registry: the draft's servers, its warnings, and how it stands against the latest
/// release.
#[server(prefix = "/api", endpoint = "registry/get", client = crate::tab::TabClient)]
pub async fn registry_overview() -> Result<RegistryView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let v = core.registry(&p, &realm).await?;
    Ok(ssr::registry::registry_view(&v, &p.email, core.now()))
}

/// One server of the draft, with its history and the resource it is.
#[server(prefix = "/api", endpoint = "registry/server", client = crate::tab::TabClient)]
pub async fn registry_server(id: String) -> Result<ServerDetail, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let s = core.registry_server(&p, &realm, &id).await?;
    Ok(ssr::registry::server_detail(&s, core.now()))
}

/// Adds a server to the draft (`replacing` empty) or replaces the server `replacing`;
/// `original` is the JSON of the form as the editor read it.
#[server(prefix = "/api", endpoint = "registry/save-server", client = crate::tab::TabClient)]
pub async fn save_registry_server(
    revision: i64,
    replacing: String,
    form: ServerForm,
    #[server(default)] original: String,
) -> Result<SavedView, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let input = ssr::registry::server_input(&form)?;
    // What the editor started from (the page's JSON of the form); unreadable: nothing.
    let base = serde_json::from_str::<ServerForm>(&original)
        .ok()
        .and_then(|f| ssr::registry::server_input(&f).ok());
    let replacing = Some(replacing.trim()).filter(|r| !r.is_empty());
    let saved = core
        .edit_registry_server(
            &p,
            &realm,
            revision,
            replacing,
            base.as_ref(),
            &input,
            &meta,
        )
        .await
        .map_err(ssr::registry::form_error)?;
    Ok(SavedView {
        id: input.id,
        revision: saved.revision,
        warnings: ssr::registry::findings(&saved.warnings),
    })
}

/// Removes a server from the draft.
#[server(prefix = "/api", endpoint = "registry/delete-server", client = crate::tab::TabClient)]
pub async fn delete_registry_server(revision: i64, id: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    core.delete_registry_server(&p, &realm, revision, &id, &meta)
        .await?;
    Ok(())
}

/// Reads a `server.json` (a name in the configured MCP registry, an https URL, or the pasted
/// document) into a draft entry for the form; nothing is saved.
#[server(prefix = "/api", endpoint = "registry/import", client = crate::tab::TabClient)]
pub async fn import_registry_server(
    source: String,
    document: String,
    prefer: String,
) -> Result<ImportedView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let (source, prefer) = ssr::registry::import_request(source, document, &prefer)?;
    let imported = core
        .import_registry_server(&p, &realm, source, prefer)
        .await?;
    Ok(ImportedView {
        form: ssr::registry::server_form(&imported.server),
        notes: imported.notes,
    })
}

/// Publishes the draft (or asks for approval): what happened, in words.
#[server(prefix = "/api", endpoint = "registry/publish", client = crate::tab::TabClient)]
pub async fn publish_registry(revision: i64) -> Result<String, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let done = core.publish_registry(&p, &realm, revision, &meta).await?;
    Ok(ssr::registry::published_message(&done))
}

/// Publishes an old release's content again (or asks for approval to).
#[server(prefix = "/api", endpoint = "registry/rollback", client = crate::tab::TabClient)]
pub async fn rollback_registry(sequence: i64) -> Result<String, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let done = core.rollback_registry(&p, &realm, sequence, &meta).await?;
    Ok(ssr::registry::published_message(&done))
}

/// Approves the waiting request whose content has `digest`.
#[server(prefix = "/api", endpoint = "registry/approve", client = crate::tab::TabClient)]
pub async fn approve_registry_request(id: String, digest: String) -> Result<String, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let done = core
        .approve_registry_request(&p, &realm, &id, &digest, &meta)
        .await?;
    Ok(match done {
        authz::registry::Approved::Release(r) => format!("Release {} published.", r.sequence),
        authz::registry::Approved::Settings(_) => "The registry's settings were changed.".into(),
    })
}

/// Rejects the waiting request, with the reason its author sees.
#[server(prefix = "/api", endpoint = "registry/reject", client = crate::tab::TabClient)]
pub async fn reject_registry_request(id: String, reason: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core
        .reject_registry_request(&p, &realm, &id, &reason, &meta)
        .await?)
}

/// Withdraws the waiting request.
#[server(prefix = "/api", endpoint = "registry/withdraw", client = crate::tab::TabClient)]
pub async fn withdraw_registry_request(id: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core
        .withdraw_registry_request(&p, &realm, &id, &meta)
        .await?)
}

/// Releases, newest first, older than `before`.
#[server(prefix = "/api", endpoint = "registry/releases", client = crate::tab::TabClient)]
pub async fn registry_releases(before: Option<i64>) -> Result<ReleasePage, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let (heads, total) = core
        .registry_releases(&p, &realm, before, RELEASES_PAGE)
        .await?;
    Ok(ssr::registry::release_page(&heads, total, core.now()))
}

/// One release, with what it changed.
#[server(prefix = "/api", endpoint = "registry/release", client = crate::tab::TabClient)]
pub async fn registry_release(sequence: i64) -> Result<ReleaseDetail, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let (summary, stored) = core.registry_release(&p, &realm, sequence).await?;
    Ok(ReleaseDetail {
        release: ssr::registry::release_view(&stored.head(), core.now()),
        diff: ssr::registry::diff_view(&summary.diff),
        bytes: stored.document.len(),
    })
}

/// Sets whether releases wait for a second person and who may read the registry over HTTP.
#[server(prefix = "/api", endpoint = "registry/settings", client = crate::tab::TabClient)]
pub async fn set_registry_settings(
    #[server(default)] require_approval: Option<String>,
    api_access: String,
) -> Result<String, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let access = authz::registry::ApiAccess::parse(&api_access)
        .map_err(|m| ssr::field_error("api_access", m))?;
    let done = core
        .set_registry_settings(&p, &realm, require_approval.is_some(), access, &meta)
        .await?;
    Ok(match done {
        authz::registry::SettingsOutcome::Saved(_) => "Registry settings saved.".into(),
        authz::registry::SettingsOutcome::AwaitingApproval(_) => {
            "Turning approval off waits for a second person's approval.".into()
        }
    })
}

/// Sets the draft's mode, rings and units (units one path per line: `engineering/platform`).
#[server(prefix = "/api", endpoint = "registry/groups", client = crate::tab::TabClient)]
pub async fn save_registry_groups(
    revision: i64,
    mode: String,
    rings: String,
    units: String,
) -> Result<i64, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let groups = ssr::registry::groups_input(mode, &rings, &units)?;
    Ok(core
        .save_registry_groups(&p, &realm, revision, &groups, &meta)
        .await?
        .revision)
}

/// How many members each ring and unit has.
#[server(prefix = "/api", endpoint = "registry/group-counts", client = crate::tab::TabClient)]
pub async fn registry_group_counts() -> Result<Vec<GroupView>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let counts = core.registry_member_counts(&p, &realm).await?;
    Ok(counts
        .into_iter()
        .map(|(kind, id, members)| GroupView {
            kind: kind.as_str().to_owned(),
            id,
            parent: String::new(),
            members,
            servers: 0,
        })
        .collect())
}

/// The members of a ring or unit (`kind` is `ring` or `unit`).
#[server(prefix = "/api", endpoint = "registry/members", client = crate::tab::TabClient)]
pub async fn registry_members(kind: String, id: String) -> Result<Vec<MemberRow>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let kind = authz::registry::GroupKind::parse(&kind).map_err(ssr::invalid)?;
    let members = core.registry_members(&p, &realm, (kind, &id)).await?;
    Ok(ssr::registry::member_rows(&members, core.now()))
}

/// Adds a member (a console user or person by email, an agent by name) to a ring or unit.
#[server(prefix = "/api", endpoint = "registry/add-member", client = crate::tab::TabClient)]
pub async fn add_registry_member(
    kind: String,
    id: String,
    member_kind: String,
    member: String,
) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let kind = authz::registry::GroupKind::parse(&kind).map_err(ssr::invalid)?;
    let member_kind = authz::registry::MemberKind::parse(&member_kind)
        .map_err(|m| ssr::field_error("member_kind", m))?;
    core.add_registry_member(&p, &realm, (kind, &id), (member_kind, &member), &meta)
        .await
        .map_err(|e| match AppError::from(e) {
            AppError::NotFound(m) | AppError::Conflict(m) => ssr::field_error("member", &m),
            other => other,
        })?;
    Ok(())
}

/// Removes a member from a ring or unit.
#[server(prefix = "/api", endpoint = "registry/remove-member", client = crate::tab::TabClient)]
pub async fn remove_registry_member(
    kind: String,
    id: String,
    member_kind: String,
    member: String,
) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    let kind = authz::registry::GroupKind::parse(&kind).map_err(ssr::invalid)?;
    let member_kind = authz::registry::MemberKind::parse(&member_kind).map_err(ssr::invalid)?;
    Ok(core
        .remove_registry_member(&p, &realm, (kind, &id), (member_kind, &member), &meta)
        .await?)
}

/// The harnesses the registry delivers to, with the version rendered for by default.
#[server(prefix = "/api", endpoint = "registry/harnesses", client = crate::tab::TabClient)]
pub async fn registry_harnesses() -> Result<Vec<HarnessChoice>, AppError> {
    ssr::context().await?;
    Ok(ssr::registry::harnesses())
}

/// A release rendered for a ring or unit (`group` is `ring:ID` or `unit:ID`) into one
/// harness's files.
#[server(prefix = "/api", endpoint = "registry/deliver", client = crate::tab::TabClient)]
pub async fn deliver_registry(
    harness: String,
    version: String,
    group: String,
    release: String,
    token_helper: String,
) -> Result<DeliveryView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let request =
        ssr::registry::delivery_request(&harness, &version, &group, &release, &token_helper)?;
    let delivery = core
        .deliver_registry(&p, &realm, &request)
        .await
        .map_err(|e| match AppError::from(e) {
            AppError::NotFound(m) if m.starts_with("release") => ssr::field_error("release", &m),
            AppError::NotFound(m) => ssr::field_error("group", &m),
            other => other,
        })?;
    Ok(ssr::registry::delivery_view(&delivery))
}

/// Creates the protected resource a remote server Portcullis authorizes is; its slug.
#[server(prefix = "/api", endpoint = "registry/create-resource", client = crate::tab::TabClient)]
pub async fn create_registry_resource(id: String) -> Result<String, AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core
        .create_registry_resource(&p, &realm, &id, &meta)
        .await?
        .slug)
}

/// The registry servers that are the resource `slug` (at its URL, for the resource's page).
#[server(prefix = "/api", endpoint = "registry/entries-for", client = crate::tab::TabClient)]
pub async fn registry_entries_for(slug: String) -> Result<Vec<String>, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let resource = core.resource(&p, &realm, &slug).await?;
    Ok(core
        .registry_entries_for(&p, &realm, resource.uri.as_str())
        .await?)
}

/// The realm's drift: numbers, most common findings, a page of devices (`q`: email or device
/// substring; `subject`: one person's devices, by id; `after`: the page's cursor).
#[server(prefix = "/api", endpoint = "registry/drift", client = crate::tab::TabClient)]
pub async fn registry_drift(
    q: String,
    #[server(default)] subject: String,
    drifting: bool,
    after: String,
) -> Result<DriftView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    // An email or a device name: longer than that is not a search.
    let q: String = q.chars().take(200).collect();
    let query = authz::drift::DriftQuery {
        search: Some(q).filter(|q| !q.trim().is_empty()),
        subject: Some(subject).filter(|s| !s.is_empty()),
        drifting_only: drifting,
        after: if after.is_empty() {
            None
        } else {
            Some(
                authz::drift::DriftCursor::decode(&after)
                    .ok_or_else(|| ssr::invalid("This page link is not valid any more."))?,
            )
        },
    };
    let v = core.registry_drift(&p, &realm, &query).await?;
    Ok(ssr::drift::drift_view(&v, core.now()))
}

/// One device's last report.
#[server(prefix = "/api", endpoint = "registry/drift-device", client = crate::tab::TabClient)]
pub async fn registry_drift_device(
    subject: String,
    device: String,
) -> Result<DriftDeviceView, AppError> {
    let (core, p, _, realm) = ssr::realm_context().await?;
    let d = core
        .registry_drift_device(&p, &realm, (&subject, &device))
        .await?;
    Ok(ssr::drift::drift_device_view(&d, core.now()))
}

/// Forgets a device's report (it comes back with its next report).
#[server(prefix = "/api", endpoint = "registry/forget-drift", client = crate::tab::TabClient)]
pub async fn forget_drift_device(subject: String, device: String) -> Result<(), AppError> {
    let (core, p, meta, realm) = ssr::realm_context().await?;
    Ok(core
        .forget_drift_device(&p, &realm, (&subject, &device), &meta)
        .await?)
}
