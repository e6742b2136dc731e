//! The registry as the console shows it, and the server form read back into the policy's
//! input (lists one per line, headers `Name: value`, environment `NAME=value`).
use super::moment;
use crate::error::{AppError, FieldProblem};
use crate::types::registry::{
    DeliveredFile, DeliveryView, DiffView, FieldChangeView, FindingView, HarnessChoice, MemberRow,
    RejectionView, ReleasePage, ReleaseView, RequestView, ResourceLink, ServerChangeView,
    ServerDetail, ServerForm, ServerReleaseView, ServerRow, UnitView,
};
use authz::registry::{PublishRequest, ReleaseHead};
use portcullis_manifest::diff::{Diff, FieldChange};
use portcullis_manifest::import::Prefer;
use portcullis_manifest::server::{AuthInput, CommandInput, PackageInput, ServerInput, Tools};
use portcullis_manifest::{Finding, policy::Unit};
use std::collections::BTreeMap;

/// The registry screen.
pub fn registry_view(
    v: &authz::registry::RegistryView,
    viewer: &str,
    now: i64,
) -> crate::types::registry::RegistryView {
    let r = &v.registry;
    let warnings = findings(&v.warnings);
    let servers = v
        .registry
        .draft
        .servers
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let prefix = format!("servers[{i}].");
            let own = v
                .warnings
                .iter()
                .filter(|f| f.field.starts_with(&prefix))
                .map(|f| f.message.clone())
                .collect();
            let state = if v.unpublished.added.contains(&s.id) {
                "new"
            } else if v.unpublished.changed.iter().any(|c| c.id == s.id) {
                "changed"
            } else {
                "published"
            };
            server_row(s, own, state)
        })
        .collect();
    crate::types::registry::RegistryView {
        revision: r.revision,
        mode: r.draft.mode.clone(),
        require_approval: r.require_approval,
        api_access: r.api_access.as_str().to_owned(),
        api_url: format!("{}/v0.1/servers", v.base_url),
        release_url: format!("{}/releases/latest", v.base_url),
        updated: (r.updated_at > 0).then(|| (moment(now, r.updated_at), r.updated_by.clone())),
        servers,
        rings: r.draft.rings.clone(),
        units: units(&r.draft.units),
        warnings,
        latest: v.latest.as_ref().map(|l| ReleaseView {
            sequence: l.sequence,
            id: l.id.clone(),
            published: moment(now, l.published_at),
            published_by: l.published_by.clone(),
            approved_by: l.approved_by.clone(),
            rollback_of: l.rollback_of,
            servers: i64::try_from(l.servers).unwrap_or(i64::MAX),
            changes: l.diff.summary(),
        }),
        unpublished: diff_with_content(&v.unpublished, &v.registry.draft),
        pending: v.pending.as_ref().map(|p| {
            let mut view = request_view(
                p,
                v.pending_diff.as_ref(),
                v.pending_digest.clone().unwrap_or_default(),
                viewer,
                now,
            );
            view.draft_differs = p.settings.is_none() && p.policy != r.draft;
            view
        }),
        stale_issuer: v.stale_issuer.clone(),
        rejected: v.rejected.as_ref().map(|r| RejectionView {
            by: r.decided_by.clone().unwrap_or_default(),
            reason: r.reason.clone().unwrap_or_default(),
            at: moment(now, r.decided_at.unwrap_or(r.requested_at)),
            what: request_what(r),
        }),
        removed: v.unpublished.removed.clone(),
    }
}

/// What a request asks for, in words.
fn request_what(r: &PublishRequest) -> String {
    match (r.settings, r.rollback_of) {
        (Some(_), _) => "a settings change".to_owned(),
        (None, Some(n)) => format!("a roll back to release {n}"),
        (None, None) => "a release".to_owned(),
    }
}

/// A server as listed.
pub fn server_row(s: &ServerInput, warnings: Vec<String>, state: &str) -> ServerRow {
    let (transport, target, version) = if let Some(url) = &s.url {
        ("remote".to_owned(), url.clone(), String::new())
    } else if let Some(p) = &s.package {
        let version = match (&p.version, p.identifier.split_once("@sha256:")) {
            (Some(v), _) => v.clone(),
            (None, Some((_, digest))) => format!("sha256:{digest}"),
            (None, None) => String::new(),
        };
        (p.kind.clone(), p.identifier.clone(), version)
    } else if let Some(c) = &s.command {
        ("command".to_owned(), c.path.clone(), String::new())
    } else {
        (String::new(), String::new(), String::new())
    };
    ServerRow {
        id: s.id.clone(),
        title: s.title.clone(),
        transport,
        target,
        registry_name: s.registry_name.clone().unwrap_or_default(),
        version,
        auth: s
            .auth
            .as_ref()
            .map_or_else(|| "none".to_owned(), |a| a.mode.clone()),
        rings: s.rings.clone(),
        units: s.units.clone(),
        warnings,
        state: state.to_owned(),
    }
}

/// Units as shown.
pub fn units(units: &[Unit]) -> Vec<UnitView> {
    units
        .iter()
        .map(|u| UnitView {
            id: u.id.clone(),
            parent: u.parent.clone().unwrap_or_default(),
        })
        .collect()
}

/// Findings as shown.
pub fn findings(found: &[Finding]) -> Vec<FindingView> {
    found
        .iter()
        .map(|f| FindingView {
            field: f.field.clone(),
            message: f.message.clone(),
        })
        .collect()
}

/// Field changes as shown.
pub fn field_changes(changes: &[FieldChange]) -> Vec<FieldChangeView> {
    changes
        .iter()
        .map(|c| FieldChangeView {
            field: c.field.clone(),
            from: c.from.clone(),
            to: c.to.clone(),
        })
        .collect()
}

/// A diff as shown.
pub fn diff_view(d: &Diff) -> DiffView {
    DiffView {
        summary: if d.is_empty() {
            String::new()
        } else {
            d.summary()
        },
        mode: d.mode.clone(),
        added: d.added.clone(),
        added_fields: Vec::new(),
        removed: d.removed.clone(),
        changed: d
            .changed
            .iter()
            .map(|c| ServerChangeView {
                id: c.id.clone(),
                fields: field_changes(&c.fields),
            })
            .collect(),
        rings_added: d.rings_added.clone(),
        rings_removed: d.rings_removed.clone(),
        units_added: d.units_added.clone(),
        units_removed: d.units_removed.clone(),
        units_moved: field_changes(&d.units_moved),
    }
}

/// A diff of content about to be published, with every field of each server it adds (the
/// ids alone would let an approver approve what they never saw).
pub fn diff_with_content(d: &Diff, policy: &portcullis_manifest::policy::PolicyInput) -> DiffView {
    let mut view = diff_view(d);
    view.added_fields = d
        .added
        .iter()
        .filter_map(|id| policy.servers.iter().find(|s| s.id == *id))
        .map(|s| {
            let empty = ServerInput {
                id: s.id.clone(),
                ..ServerInput::default()
            };
            let one = |s: &ServerInput| portcullis_manifest::policy::PolicyInput {
                servers: vec![s.clone()],
                ..Default::default()
            };
            let fields = portcullis_manifest::diff::diff(Some(&one(&empty)), &one(s))
                .changed
                .into_iter()
                .flat_map(|c| c.fields)
                .collect::<Vec<_>>();
            ServerChangeView {
                id: s.id.clone(),
                fields: field_changes(&fields),
            }
        })
        .collect();
    view
}

/// A release as listed.
pub fn release_view(h: &ReleaseHead, now: i64) -> ReleaseView {
    ReleaseView {
        sequence: h.sequence,
        id: h.id.clone(),
        published: moment(now, h.published_at),
        published_by: h.published_by.clone(),
        approved_by: h.approved_by.clone(),
        rollback_of: h.rollback_of,
        servers: h.servers,
        changes: h.changes.clone(),
    }
}

/// A waiting request.
pub fn request_view(
    r: &PublishRequest,
    d: Option<&Diff>,
    digest: String,
    viewer: &str,
    now: i64,
) -> RequestView {
    RequestView {
        id: r.id.clone(),
        requested_by: r.requested_by.clone(),
        requested: moment(now, r.requested_at),
        rollback_of: r.rollback_of,
        settings: r
            .settings
            .map(|s| (s.require_approval, s.api_access.as_str().to_owned())),
        diff: d
            .map(|d| diff_with_content(d, &r.policy))
            .unwrap_or_default(),
        digest,
        mine: r.requested_by == viewer,
        draft_differs: false,
    }
}

/// A server as the form edits it.
pub fn server_form(s: &ServerInput) -> ServerForm {
    let package = s.package.clone().unwrap_or_default();
    let command = s.command.clone().unwrap_or_default();
    let auth = s.auth.clone().unwrap_or_default();
    ServerForm {
        id: s.id.clone(),
        title: s.title.clone(),
        transport: if s.url.is_some() {
            "remote"
        } else if s.package.is_some() {
            "package"
        } else if s.command.is_some() {
            "command"
        } else {
            ""
        }
        .to_owned(),
        url: s.url.clone().unwrap_or_default(),
        url_transport: s.url_transport.clone().unwrap_or_default(),
        profile: s.profile.clone().unwrap_or_default(),
        package_type: package.kind,
        package_identifier: package.identifier,
        package_version: package.version.unwrap_or_default(),
        command_path: command.path,
        command_args: command.args.join("\n"),
        command_sha256: command.sha256.unwrap_or_default(),
        registry_name: s.registry_name.clone().unwrap_or_default(),
        version: s.version.clone().unwrap_or_default(),
        headers: s
            .headers
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join("\n"),
        env: s
            .env
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("\n"),
        tools_allow: s.tools.allow.join(" "),
        tools_deny: s.tools.deny.join(" "),
        auth_mode: if auth.mode.is_empty() {
            "none".to_owned()
        } else {
            auth.mode
        },
        auth_client_id: auth.client_id.unwrap_or_default(),
        auth_client_metadata_url: auth.client_metadata_url.unwrap_or_default(),
        auth_issuer: auth.issuer.unwrap_or_default(),
        auth_identity_issuer: auth.identity_issuer.unwrap_or_default(),
        auth_scopes: auth.scopes.join(" "),
        rings: s.rings.clone(),
        units: s.units.clone(),
    }
}

/// The policy's input from the form: only the chosen transport's fields and the chosen auth
/// mode's fields are kept (the others may hold what the editor typed before switching).
///
/// # Errors
/// `Fields` naming each header or environment line that is not `Name: value` / `NAME=value`,
/// or a name given twice.
pub fn server_input(f: &ServerForm) -> Result<ServerInput, AppError> {
    let text = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let mut problems = Vec::new();
    let headers = pairs(&f.headers, ':', "headers", "Name: value", &mut problems);
    let env = pairs(&f.env, '=', "env", "NAME=value", &mut problems);
    let transport = f.transport.trim();
    let auth_mode = f.auth_mode.trim();
    let oauth = auth_mode == "oauth";
    let input = ServerInput {
        id: f.id.trim().to_owned(),
        title: f.title.trim().to_owned(),
        url: (transport == "remote").then(|| f.url.trim().to_owned()),
        url_transport: text(&f.url_transport).filter(|_| transport == "remote"),
        profile: text(&f.profile).filter(|_| transport == "remote"),
        package: (transport == "package").then(|| PackageInput {
            kind: f.package_type.trim().to_owned(),
            identifier: f.package_identifier.trim().to_owned(),
            version: text(&f.package_version),
        }),
        command: (transport == "command").then(|| CommandInput {
            path: f.command_path.trim().to_owned(),
            args: f
                .command_args
                .lines()
                .map(|l| l.trim_end_matches('\r').to_owned())
                .filter(|l| !l.trim().is_empty())
                .collect(),
            sha256: text(&f.command_sha256),
        }),
        registry_name: text(&f.registry_name),
        version: text(&f.version),
        headers,
        env,
        tools: Tools {
            allow: words(&f.tools_allow),
            deny: words(&f.tools_deny),
        },
        auth: (!auth_mode.is_empty() && auth_mode != "none").then(|| AuthInput {
            mode: auth_mode.to_owned(),
            client_id: text(&f.auth_client_id).filter(|_| oauth),
            client_metadata_url: text(&f.auth_client_metadata_url).filter(|_| oauth),
            issuer: text(&f.auth_issuer).filter(|_| oauth),
            identity_issuer: text(&f.auth_identity_issuer).filter(|_| auth_mode == "enterprise"),
            scopes: words(&f.auth_scopes),
        }),
        rings: f.rings.iter().map(|r| r.trim().to_owned()).collect(),
        units: f.units.iter().map(|u| u.trim().to_owned()).collect(),
    };
    if problems.is_empty() {
        return Ok(input);
    }
    // Every other field's errors too, from the lines that did read: one round trip.
    let (_, found) = portcullis_manifest::Server::check(&input);
    problems.extend(found.errors.into_iter().map(|f| FieldProblem {
        field: f.field,
        message: f.message,
    }));
    crate::status::set_status(axum::http::StatusCode::UNPROCESSABLE_ENTITY);
    Err(AppError::Fields(form_problems(problems)))
}

/// `Name<sep>value` lines into a map; a problem per line that is not one, or repeats a name.
fn pairs(
    text: &str,
    sep: char,
    field: &str,
    shape: &str,
    problems: &mut Vec<FieldProblem>,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match line.split_once(sep) {
            Some((name, value)) if !name.trim().is_empty() => {
                let name = name.trim().to_owned();
                if out.insert(name.clone(), value.trim().to_owned()).is_some() {
                    problems.push(FieldProblem {
                        field: field.to_owned(),
                        message: format!("Line {}: {name} is given twice.", n + 1),
                    });
                }
            }
            _ => problems.push(FieldProblem {
                field: field.to_owned(),
                message: format!("Line {}: write {shape}.", n + 1),
            }),
        }
    }
    out
}

/// The draft's findings with a name-bearing path prefixed to the message where the form has
/// one input for many values (`headers.X-Api-Key` → "X-Api-Key: …", `command.args[2]` →
/// "Argument 3: …").
pub fn form_problems(found: Vec<FieldProblem>) -> Vec<FieldProblem> {
    found
        .into_iter()
        .map(|p| {
            let named = ["headers.", "env."]
                .iter()
                .find_map(|prefix| p.field.strip_prefix(prefix))
                .map(str::to_owned)
                .or_else(|| {
                    p.field
                        .strip_prefix("command.args[")
                        .and_then(|rest| rest.strip_suffix(']'))
                        .and_then(|i| i.parse::<usize>().ok())
                        .map(|i| format!("Argument {}", i + 1))
                });
            match named {
                Some(name) if !p.message.contains(&name) => FieldProblem {
                    message: format!("{name}: {}", p.message),
                    field: p.field,
                },
                _ => p,
            }
        })
        .collect()
}

/// A core error of a server edit, with the form's messages naming their header, variable or
/// argument.
pub fn form_error(e: authz::Error) -> AppError {
    match AppError::from(e) {
        AppError::Fields(found) => AppError::Fields(form_problems(found)),
        other => other,
    }
}

/// One server's page.
pub fn server_detail(s: &authz::registry::RegistryServer, now: i64) -> ServerDetail {
    let state = if !s.is_published {
        "new"
    } else if s.changes.is_empty() {
        "published"
    } else {
        "changed"
    };
    let warnings = s.warnings.iter().map(|f| f.message.clone()).collect();
    let (checked, _) = portcullis_manifest::Server::check(&s.server);
    let launch = checked.and_then(|c| match c.transport {
        portcullis_manifest::Transport::Package(p) => Some(p.launch()),
        portcullis_manifest::Transport::Command(c) => Some((c.path, c.args)),
        portcullis_manifest::Transport::Remote { .. } => None,
    });
    ServerDetail {
        revision: s.registry.revision,
        row: server_row(&s.server, warnings, state),
        form: server_form(&s.server),
        original: serde_json::to_string(&server_form(&s.server)).unwrap_or_default(),
        launch: launch.map(|(program, args)| {
            std::iter::once(program)
                .chain(args)
                .collect::<Vec<_>>()
                .join(" ")
        }),
        changes: field_changes(&s.changes),
        releases: s
            .history
            .iter()
            .map(|h| ServerReleaseView {
                sequence: h.sequence,
                published: moment(now, h.published_at),
                what: h.event.as_str().to_owned(),
                fields: field_changes(&h.fields),
            })
            .collect(),
        resource: s.resource.as_ref().map(|linked| match linked {
            Some(r) => ResourceLink {
                slug: Some(r.slug.clone()),
                standing: r.standing.as_str().to_owned(),
                submitted_by: match &r.standing {
                    authz::registry::ResourceStanding::Submitted(by) => by.clone(),
                    _ => String::new(),
                },
            },
            None => ResourceLink {
                slug: None,
                standing: String::new(),
                submitted_by: String::new(),
            },
        }),
        rings: s.registry.draft.rings.clone(),
        units: units(&s.registry.draft.units),
    }
}

/// What to import and which transport to prefer.
///
/// # Errors
/// `Field` on `source` when neither a source nor a document is given, or both; on `prefer`
/// for an unknown preference.
pub fn import_request(
    source: String,
    document: String,
    prefer: &str,
) -> Result<(authz::registry::ImportSource, Prefer), AppError> {
    use authz::registry::ImportSource;
    let prefer = match prefer.trim() {
        "" | "default" => Prefer::Default,
        "remote" => Prefer::Remote,
        "npm" => Prefer::Npm,
        "pypi" => Prefer::Pypi,
        "oci" => Prefer::Oci,
        _ => {
            return Err(super::field_error(
                "prefer",
                "Prefer the remote, npm, pypi or oci.",
            ));
        }
    };
    let source = match (source.trim(), document.trim()) {
        ("", "") => {
            return Err(super::field_error(
                "source",
                "Give a name (io.github.acme/wiki), an https URL, or paste a server.json.",
            ));
        }
        (s, "") => ImportSource::Fetch(s.to_owned()),
        ("", _) => ImportSource::Document(document.into_bytes()),
        _ => {
            return Err(super::field_error(
                "source",
                "Give a name or URL, or paste a document: not both.",
            ));
        }
    };
    Ok((source, prefer))
}

/// What a publish or roll back did, in words.
pub fn published_message(done: &authz::registry::Published) -> String {
    match done {
        authz::registry::Published::Release(r) => format!(
            "Release {} published ({}).",
            r.sequence,
            if r.diff.is_empty() {
                "nothing changed".to_owned()
            } else {
                r.diff.summary()
            }
        ),
        authz::registry::Published::AwaitingApproval(_) => {
            "Asked for approval: a second person approves it before it is published.".into()
        }
    }
}

/// A page of releases.
pub fn release_page(heads: &[ReleaseHead], total: u64, now: i64) -> ReleasePage {
    ReleasePage {
        items: heads.iter().map(|h| release_view(h, now)).collect(),
        total,
        older: heads
            .last()
            .filter(|h| {
                h.sequence > 1 && heads.len() >= crate::api::registry::RELEASES_PAGE as usize
            })
            .map(|h| h.sequence),
    }
}

/// The mode, rings (one per line) and units (one path per line, `engineering/platform`: a
/// unit under its parent) of the groups form.
///
/// # Errors
/// `Field` on `units` for a path whose parent is not on an earlier line, or a unit given
/// twice under different parents.
pub fn groups_input(
    mode: String,
    rings: &str,
    units: &str,
) -> Result<authz::registry::GroupsInput, AppError> {
    let rings = rings
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|r| !r.is_empty())
        .map(str::to_owned)
        .collect();
    use portcullis_manifest::policy::MAX_GROUPS;
    if units.lines().count() > MAX_GROUPS {
        return Err(super::field_error(
            "units",
            &format!("At most {MAX_GROUPS} units."),
        ));
    }
    let mut out: Vec<Unit> = Vec::new();
    // Each unit's parent, to look up in constant time.
    let mut parents: std::collections::HashMap<String, Option<String>> =
        std::collections::HashMap::new();
    for (n, line) in units.lines().enumerate() {
        let parts: Vec<&str> = line.split('/').map(str::trim).collect();
        if parts.iter().all(|p| p.is_empty()) {
            continue;
        }
        if parts.iter().any(|p| p.is_empty()) {
            return Err(super::field_error(
                "units",
                &format!("Line {}: write a unit as its path, parent/child.", n + 1),
            ));
        }
        let id = parts[parts.len() - 1].to_owned();
        let parent = (parts.len() > 1).then(|| parts[parts.len() - 2].to_owned());
        if let Some(p) = &parent
            && !parents.contains_key(p)
        {
            return Err(super::field_error(
                "units",
                &format!("Line {}: {p} is not on an earlier line.", n + 1),
            ));
        }
        match parents.get(&id) {
            Some(known) if *known == parent => {}
            Some(_) => {
                return Err(super::field_error(
                    "units",
                    &format!("Line {}: {id} is already under another unit.", n + 1),
                ));
            }
            None => {
                parents.insert(id.clone(), parent.clone());
                out.push(Unit { id, parent });
            }
        }
    }
    Ok(authz::registry::GroupsInput {
        mode: mode.trim().to_owned(),
        rings,
        units: out,
    })
}

/// Members as listed.
pub fn member_rows(members: &[authz::registry::MemberView], now: i64) -> Vec<MemberRow> {
    members
        .iter()
        .map(|m| MemberRow {
            kind: m.membership.member_kind.as_str().to_owned(),
            name: m.name.clone(),
            added: moment(now, m.membership.added_at),
            added_by: m.membership.added_by.clone(),
        })
        .collect()
}

/// The harnesses, in the order screens list them.
pub fn harnesses() -> Vec<HarnessChoice> {
    use portcullis_manifest::harness::Harness;
    Harness::ALL
        .iter()
        .map(|h| HarnessChoice {
            id: h.as_str().to_owned(),
            name: match h {
                Harness::ClaudeCode => "Claude Code",
                Harness::Codex => "Codex CLI",
                Harness::Gemini => "Gemini CLI",
                Harness::Copilot => "GitHub Copilot CLI",
                Harness::Cursor => "Cursor",
                Harness::OpenCode => "OpenCode",
            }
            .to_owned(),
            version: h.current_version().to_owned(),
        })
        .collect()
}

/// The delivery the form asks for.
///
/// # Errors
/// `Field` on the input at fault.
pub fn delivery_request(
    harness: &str,
    version: &str,
    group: &str,
    release: &str,
    token_helper: &str,
) -> Result<authz::registry::DeliveryRequest, AppError> {
    use authz::registry::GroupKind;
    let target =
        portcullis_manifest::render::Target::parse(harness, Some(version)).map_err(|m| {
            let field = if portcullis_manifest::harness::Harness::parse(harness).is_none() {
                "harness"
            } else {
                "version"
            };
            super::field_error(field, &m)
        })?;
    let (kind, id) = group
        .split_once(':')
        .and_then(|(k, id)| Some((GroupKind::parse(k).ok()?, id.trim().to_owned())))
        .filter(|(_, id)| !id.is_empty())
        .ok_or_else(|| super::field_error("group", "Pick a ring or a unit."))?;
    let release = match release.trim() {
        "" | "latest" => None,
        n => Some(n.parse::<i64>().ok().filter(|n| *n > 0).ok_or_else(|| {
            super::field_error(
                "release",
                "A release number (1, 2, …), or empty for the latest.",
            )
        })?),
    };
    let helper = token_helper.trim();
    if helper.chars().count() > 1024 || helper.chars().any(char::is_control) {
        return Err(super::field_error(
            "token_helper",
            "One line of at most 1024 characters.",
        ));
    }
    Ok(authz::registry::DeliveryRequest {
        target,
        group: (kind, id),
        release,
        options: portcullis_manifest::render::Options {
            token_helper: Some(helper.to_owned()).filter(|h| !h.is_empty()),
        },
    })
}

/// At most ten names, then how many more.
fn shortened(names: &[&str]) -> String {
    match names.len() {
        0..=10 => names.join(", "),
        n => format!("{}, and {} more", names[..10].join(", "), n - 10),
    }
}

/// A delivery as shown.
pub fn delivery_view(d: &authz::registry::Delivery) -> DeliveryView {
    use portcullis_manifest::render::{Os, Scope};
    DeliveryView {
        sequence: d.sequence,
        release_id: d.release_id.clone(),
        servers: d.servers,
        files: d
            .rendered
            .files
            .iter()
            .map(|f| DeliveredFile {
                name: f.name.to_owned(),
                scope: match f.scope {
                    Scope::Managed => "managed",
                    Scope::User => "user",
                }
                .to_owned(),
                paths: f
                    .paths
                    .iter()
                    .map(|(os, path)| {
                        let os = match os {
                            Os::Linux => "Linux",
                            Os::MacOs => "macOS",
                            Os::Windows => "Windows",
                        };
                        (os.to_owned(), (*path).to_owned())
                    })
                    .collect(),
                media_type: f.media_type.to_owned(),
                contents: f.contents.clone(),
            })
            .collect(),
        warnings: d
            .rendered
            .grouped_warnings()
            .into_iter()
            .map(|w| FindingView {
                field: match w.servers.as_slice() {
                    [] => w.field.to_owned(),
                    [one] => format!("{one}.{}", w.field),
                    many => format!("{} ({} servers: {})", w.field, many.len(), shortened(many)),
                },
                message: w.message.to_owned(),
            })
            .collect(),
        notes: d.rendered.notes.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::{server_form, server_input};
    use crate::error::AppError;
    use crate::types::registry::ServerForm;

    #[test]
    fn the_form_round_trips_a_server() {
        let form = ServerForm {
            id: "wiki".into(),
            title: "Wiki".into(),
            transport: "remote".into(),
            url: "https://wiki.example.com/mcp".into(),
            headers: "X-Api-Key: ${WIKI_KEY}\nX-Team: data".into(),
            tools_allow: "search, read".into(),
            tools_deny: "delete".into(),
            auth_mode: "oauth".into(),
            auth_client_id: "cid".into(),
            auth_identity_issuer: "ignored for oauth".into(),
            auth_scopes: "wiki:read".into(),
            rings: vec!["canary".into()],
            // Typed before switching to a URL: not kept.
            package_type: "npm".into(),
            package_identifier: "left-over".into(),
            ..ServerForm::default()
        };
        let input = server_input(&form).unwrap();
        assert!(input.package.is_none());
        assert_eq!(input.headers.len(), 2);
        assert_eq!(input.tools.allow, ["search", "read"]);
        let auth = input.auth.as_ref().unwrap();
        assert_eq!(auth.identity_issuer, None);
        let back = server_form(&input);
        assert_eq!(back.headers, "X-Api-Key: ${WIKI_KEY}\nX-Team: data");
        assert_eq!(back.tools_allow, "search read");
        assert_eq!(back.package_identifier, "");
        assert_eq!(server_input(&back).unwrap(), input);
    }

    #[test]
    fn malformed_lines_name_their_line() {
        let form = ServerForm {
            id: "Bad_Id".into(),
            transport: "command".into(),
            command_path: "/opt/wiki".into(),
            env: "TOKEN=${T}\njust words\nTOKEN=again".into(),
            ..ServerForm::default()
        };
        let Err(AppError::Fields(problems)) = server_input(&form) else {
            panic!("accepted");
        };
        let on = |field: &str| -> Vec<&str> {
            problems
                .iter()
                .filter(|p| p.field == field)
                .map(|p| p.message.as_str())
                .collect()
        };
        assert_eq!(
            on("env"),
            ["Line 2: write NAME=value.", "Line 3: TOKEN is given twice."]
        );
        // The other fields' errors come in the same answer.
        assert_eq!(on("id").len(), 1, "{problems:?}");
    }
}
