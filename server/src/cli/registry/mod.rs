//! `registry` commands: the realm's MCP server registry — import, edit and inspect the draft,
//! publish and roll back releases (through a second person when the realm asks), approve or
//! reject what waits, govern access, and manage who is in each ring and unit. Each is one core
//! call, audited as `cli`.
mod files;
mod show;

use super::support::core_error;
use super::table::{Cell, ListFormat, Table};
use authz::registry::{ApiAccess, GroupKind, ImportSource, MemberKind, Published};
use clap::{Args, Subcommand};
use files::{parse_policy, write_plain_file};
use portcullis_manifest::import::Prefer;
use show::{findings, print_diff, published, settings_line, time};
use std::path::PathBuf;

/// A ring or a unit, named by exactly one flag.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct GroupArg {
    /// A ring id.
    #[arg(long)]
    ring: Option<String>,
    /// A unit id.
    #[arg(long)]
    unit: Option<String>,
}

impl GroupArg {
    fn get(&self) -> (GroupKind, &str) {
        match (&self.ring, &self.unit) {
            (Some(r), _) => (GroupKind::Ring, r),
            (_, Some(u)) => (GroupKind::Unit, u),
            _ => (GroupKind::Ring, ""),
        }
    }
}

/// A member, named by exactly one flag.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct MemberArg {
    /// A console user, by email.
    #[arg(long)]
    user: Option<String>,
    /// A person of the realm, by email.
    #[arg(long)]
    person: Option<String>,
    /// An agent of the realm, by name.
    #[arg(long)]
    agent: Option<String>,
}

impl MemberArg {
    fn get(&self) -> (MemberKind, &str) {
        match (&self.user, &self.person, &self.agent) {
            (Some(u), _, _) => (MemberKind::User, u),
            (_, Some(p), _) => (MemberKind::Person, p),
            (_, _, Some(a)) => (MemberKind::Agent, a),
            _ => (MemberKind::Agent, ""),
        }
    }
}

/// `registry` subcommands.
#[derive(Debug, Subcommand)]
pub enum RegistryCommand {
    /// The draft (its servers and warnings), the latest release, what publishing would change,
    /// and what waits for approval.
    Show {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// Read an MCP Registry `server.json` (a name in the configured registry, an https URL, or
    /// a file) into a pinned entry; print it and what it cannot carry, and with `--save` add
    /// it to the draft.
    Import {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// `io.github.acme/wiki-mcp`, `https://…/server.json`, or a file path.
        source: String,
        /// Which transport to take: remote, npm, pypi or oci (default: remote, else npm, PyPI,
        /// OCI).
        #[arg(long, default_value = "", hide_default_value = true)]
        prefer: String,
        /// The id to give it (default: from its name).
        #[arg(long)]
        id: Option<String>,
        /// Rings that get it (repeatable).
        #[arg(long = "ring")]
        rings: Vec<String>,
        /// Units that get it (repeatable).
        #[arg(long = "unit")]
        units: Vec<String>,
        /// The exact version to pin, where the document's is a template (`${VERSION}`) or wrong:
        /// sets the registry version and the package's.
        #[arg(long)]
        version: Option<String>,
        /// Add it to the draft (otherwise only print it).
        #[arg(long)]
        save: bool,
    },
    /// Print the draft (with its revision) or a release's policy as JSON, to edit and `apply`.
    Export {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// A release number instead of the draft.
        #[arg(long)]
        release: Option<i64>,
    },
    /// Replace the draft with a policy file (JSON, as `export` prints it); nothing is written
    /// unless all of it passes its checks, and not when the draft changed since it was exported.
    Apply {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The policy file: `export`'s output (`{"revision", "policy"}`), or a bare policy.
        #[arg(long)]
        file: PathBuf,
        /// The draft revision the file was made from, for a bare policy (`export` records it).
        #[arg(long)]
        revision: Option<i64>,
    },
    /// What publishing would change (the draft against the latest release), or what release N
    /// changed, server by server and field by field.
    Changes {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// A release number instead of the draft.
        #[arg(long)]
        release: Option<i64>,
    },
    /// Remove a server from the draft.
    Remove {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The server's id.
        #[arg(long)]
        id: String,
    },
    /// Publish the draft as a signed release (or ask for approval, when the realm requires it).
    Publish {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
    },
    /// List releases, newest first, with what each changed.
    Releases {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// At most this many.
        #[arg(long, default_value_t = 20)]
        limit: u32,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Publish an old release's content again as a new release (the draft becomes it).
    Rollback {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The release number to go back to.
        #[arg(long)]
        to: i64,
    },
    /// Approve the release that waits (published at once, approved by `cli`).
    Approve {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The request id (`registry show` prints it).
        #[arg(long)]
        request: String,
        /// The digest of the content you reviewed (`registry show` prints it with the
        /// request's changes): what is approved is what was shown.
        #[arg(long)]
        digest: String,
    },
    /// Reject the release that waits, saying why.
    Reject {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The request id.
        #[arg(long)]
        request: String,
        /// Why, for the person who asked.
        #[arg(long)]
        reason: String,
    },
    /// Withdraw the release that waits.
    Withdraw {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// The request id.
        #[arg(long)]
        request: String,
    },
    /// Whether releases wait for a second person, and who may read the registry over HTTP.
    Settings {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// Releases wait for a security reviewer's or another admin's approval.
        #[arg(long)]
        require_approval: Option<bool>,
        /// off (default), bearer (an access token of the realm for the registry) or public.
        #[arg(long)]
        access: Option<String>,
    },
    /// Render a release for a ring or unit into one harness's configuration files: managed
    /// files (an administrator installs them) under `OUT/managed/`, per-user files under
    /// `OUT/user/`, with what the harness cannot express printed beside them.
    Render {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        /// claude-code, codex, gemini, copilot, cursor or opencode.
        #[arg(long)]
        harness: String,
        /// The oldest harness version to render for (default: the current one).
        #[arg(long)]
        harness_version: Option<String>,
        #[command(flatten)]
        group: GroupArg,
        /// A release number (default: the latest).
        #[arg(long)]
        release: Option<i64>,
        /// A command printing a JSON object of headers for servers Portcullis authorizes
        /// (`{url}` becomes the server's URL, `{id}` its id), such as `portcullis-cli token
        /// --server https://auth.example.com --realm default --resource {url} --format headers`;
        /// without it those servers use the harness's own OAuth sign-in.
        #[arg(long)]
        token_helper: Option<String>,
        /// The directory to write into (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
    /// List the members of a ring or unit.
    Members {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        #[command(flatten)]
        group: GroupArg,
        #[command(flatten)]
        format: ListFormat,
    },
    /// Add a console user, a person or an agent to a ring or unit.
    AddMember {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        #[command(flatten)]
        group: GroupArg,
        #[command(flatten)]
        member: MemberArg,
    },
    /// Remove a member from a ring or unit.
    RemoveMember {
        /// Realm name.
        #[arg(long, default_value = "default")]
        realm: String,
        #[command(flatten)]
        group: GroupArg,
        #[command(flatten)]
        member: MemberArg,
    },
}

/// The draft's revision now: what an edit at the command line starts from (it reads and writes
/// in one go, so nobody else's edit can come between unnoticed: the core checks it).
async fn draft_revision(core: &authz::Core, realm: &str) -> anyhow::Result<i64> {
    Ok(core
        .registry(&authz::Principal::cli(), realm)
        .await
        .map_err(core_error)?
        .registry
        .revision)
}

pub(super) async fn registry(core: &authz::Core, command: RegistryCommand) -> anyhow::Result<()> {
    let cli = authz::Principal::cli();
    let meta = authz::RequestMeta::default();
    match command {
        RegistryCommand::Show { realm } => {
            let v = core.registry(&cli, &realm).await.map_err(core_error)?;
            let r = &v.registry;
            say!(
                "Draft revision {}: mode {}, {} server(s), rings [{}], units [{}]",
                r.revision,
                if r.draft.mode.is_empty() {
                    "allowlist"
                } else {
                    &r.draft.mode
                },
                r.draft.servers.len(),
                r.draft.rings.join(", "),
                r.draft
                    .units
                    .iter()
                    .map(|u| u.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            for s in &r.draft.servers {
                say!("  {}", s.id);
            }
            for w in &v.warnings {
                say!("warning: {}: {}", w.field, w.message);
            }
            say!("{}", settings_line(r));
            match &v.latest {
                Some(l) => say!(
                    "Latest release: {} ({}), {} by {}",
                    l.sequence,
                    &l.id[..12],
                    time(l.published_at),
                    l.published_by
                ),
                None => say!("No release yet."),
            }
            say!("Unpublished: {}", v.unpublished.summary());
            print_diff(&v.unpublished)?;
            if let Some(old) = &v.stale_issuer {
                say!(
                    "warning: the latest release names issuer {old}, not this realm's issuer now: laptops refuse it; publish again (the server's public_url changed)."
                );
            }
            if let Some(p) = &v.pending {
                say!(
                    "Waiting for approval: request {} by {} at {}{}",
                    p.id,
                    p.requested_by,
                    time(p.requested_at),
                    match &p.settings {
                        Some(s) => format!(
                            " — settings: approval {}, HTTP access {}",
                            if s.require_approval {
                                "required"
                            } else {
                                "off"
                            },
                            s.api_access.as_str()
                        ),
                        None => String::new(),
                    }
                );
                if let Some(d) = &v.pending_diff {
                    say!("It publishes: {}", d.summary());
                    print_diff(d)?;
                }
                if let Some(digest) = &v.pending_digest {
                    say!(
                        "Approve what you reviewed: portcullis registry approve --request {} --digest {digest}",
                        p.id
                    );
                }
            }
        }
        RegistryCommand::Import {
            realm,
            source,
            prefer,
            id,
            rings,
            units,
            version,
            save,
        } => {
            let prefer = Prefer::parse(&prefer).map_err(|m| anyhow::anyhow!("--prefer {m}"))?;
            let from = if source.starts_with("https://") || source.starts_with("http://") {
                ImportSource::Fetch(source.clone())
            } else if std::path::Path::new(&source).is_file() {
                let bytes = std::fs::read(&source)
                    .map_err(|e| anyhow::anyhow!("Cannot read {source}: {e}"))?;
                ImportSource::Document(bytes)
            } else {
                ImportSource::Fetch(source.clone())
            };
            let mut imported = core
                .import_registry_server(&cli, &realm, from, prefer)
                .await
                .map_err(findings)?;
            if let Some(id) = id {
                imported.server.id = id;
            }
            if let Some(v) = version {
                imported.server.version = Some(v.clone());
                if let Some(p) = imported.server.package.as_mut()
                    && p.version.is_some()
                {
                    p.version = Some(v);
                }
            }
            let given = !rings.is_empty() || !units.is_empty();
            imported.server.rings = rings;
            imported.server.units = units;
            // The entry on stdout (valid JSON, to edit and apply); notes on stderr.
            say!("{}", serde_json::to_string_pretty(&imported.server)?);
            for note in imported
                .notes
                .iter()
                .filter(|n| !(given && n.starts_with("No ring or unit gets it")))
            {
                eprintln!("note: {note}");
            }
            if save {
                let revision = draft_revision(core, &realm).await?;
                let saved = core
                    .save_registry_server(&cli, &realm, revision, None, &imported.server, &meta)
                    .await
                    .map_err(findings)?;
                for w in &saved.warnings {
                    say!("warning: {}: {}", w.field, w.message);
                }
                say!(
                    "Added {} to the draft (revision {}); `portcullis registry publish` releases it.",
                    imported.server.id,
                    saved.revision
                );
            }
        }
        RegistryCommand::Export { realm, release } => match release {
            None => {
                let r = core
                    .registry(&cli, &realm)
                    .await
                    .map_err(core_error)?
                    .registry;
                let out = serde_json::json!({"revision": r.revision, "policy": r.draft});
                say!("{}", serde_json::to_string_pretty(&out)?);
            }
            Some(n) => {
                let (_, stored) = core
                    .registry_release(&cli, &realm, n)
                    .await
                    .map_err(core_error)?;
                let doc: serde_json::Value = serde_json::from_str(&stored.document)?;
                say!(
                    "{}",
                    serde_json::to_string_pretty(&doc["manifest"]["policy"])?
                );
            }
        },
        RegistryCommand::Changes { realm, release } => {
            let diff = match release {
                None => {
                    core.registry(&cli, &realm)
                        .await
                        .map_err(core_error)?
                        .unpublished
                }
                Some(n) => {
                    core.registry_release(&cli, &realm, n)
                        .await
                        .map_err(core_error)?
                        .0
                        .diff
                }
            };
            say!("{}", diff.summary());
            print_diff(&diff)?;
        }
        RegistryCommand::Apply {
            realm,
            file,
            revision,
        } => {
            let text = std::fs::read(&file)
                .map_err(|e| anyhow::anyhow!("Cannot read {}: {e}", file.display()))?;
            let (policy, from_file) = parse_policy(&text)
                .map_err(|e| anyhow::anyhow!("{} is not a policy: {e}", file.display()))?;
            let current = draft_revision(core, &realm).await?;
            let revision = match (revision.or(from_file), current) {
                (Some(r), _) => r,
                // A realm without a draft yet: nothing to overwrite.
                (None, 0) => 0,
                (None, _) => anyhow::bail!(
                    "Name the draft revision {} was made from (`registry export` records it; or --revision N; the draft is at {current}).",
                    file.display()
                ),
            };
            let saved = core
                .replace_registry_draft(&cli, &realm, revision, &policy, &meta)
                .await
                .map_err(findings)?;
            for w in &saved.warnings {
                say!("warning: {}: {}", w.field, w.message);
            }
            say!("Draft replaced (revision {}).", saved.revision);
        }
        RegistryCommand::Remove { realm, id } => {
            let revision = draft_revision(core, &realm).await?;
            let saved = core
                .delete_registry_server(&cli, &realm, revision, &id, &meta)
                .await
                .map_err(findings)?;
            say!("Removed {id} from the draft (revision {}).", saved.revision);
        }
        RegistryCommand::Publish { realm } => {
            let revision = draft_revision(core, &realm).await?;
            let p = core
                .publish_registry(&cli, &realm, revision, &meta)
                .await
                .map_err(core_error)?;
            say!("{}", published(p));
        }
        RegistryCommand::Releases {
            realm,
            limit,
            format,
        } => {
            let (list, _) = core
                .registry_releases(&cli, &realm, None, limit)
                .await
                .map_err(core_error)?;
            let mut table = Table::new(
                format,
                [
                    "sequence",
                    "id",
                    "published_at",
                    "published_by",
                    "approved_by",
                    "servers",
                    "changes",
                ],
            );
            for r in list {
                table.row([
                    Cell::from(r.sequence),
                    Cell::from(r.id),
                    Cell::from(time(r.published_at)),
                    Cell::from(r.published_by),
                    Cell::from(r.approved_by),
                    Cell::from(r.servers),
                    Cell::from(r.changes),
                ])?;
            }
            table.finish()?;
        }
        RegistryCommand::Rollback { realm, to } => {
            let p = core
                .rollback_registry(&cli, &realm, to, &meta)
                .await
                .map_err(core_error)?;
            say!("{}", published(p));
        }
        RegistryCommand::Approve {
            realm,
            request,
            digest,
        } => {
            let r = core
                .approve_registry_request(&cli, &realm, &request, &digest, &meta)
                .await
                .map_err(|e| match e {
                    authz::Error::Conflict(m) if m.starts_with("You asked") => anyhow::anyhow!(
                        "{m} Releases asked for at the command line (as `cli`) are approved in the console by a security reviewer or an admin."
                    ),
                    other => core_error(other),
                })?;
            match r {
                authz::registry::Approved::Release(r) => {
                    say!("{}", published(Published::Release(r)));
                }
                authz::registry::Approved::Settings(r) => {
                    say!("Settings saved. {}", settings_line(&r))
                }
            }
        }
        RegistryCommand::Reject {
            realm,
            request,
            reason,
        } => {
            core.reject_registry_request(&cli, &realm, &request, &reason, &meta)
                .await
                .map_err(core_error)?;
            say!("Rejected request {request}.");
        }
        RegistryCommand::Withdraw { realm, request } => {
            core.withdraw_registry_request(&cli, &realm, &request, &meta)
                .await
                .map_err(core_error)?;
            say!("Withdrew request {request}.");
        }
        RegistryCommand::Settings {
            realm,
            require_approval,
            access,
        } => {
            let current = core
                .registry(&cli, &realm)
                .await
                .map_err(core_error)?
                .registry;
            let access = match access {
                Some(a) => ApiAccess::parse(&a).map_err(|m| anyhow::anyhow!("--access: {m}"))?,
                None => current.api_access,
            };
            let r = core
                .set_registry_settings(
                    &cli,
                    &realm,
                    require_approval.unwrap_or(current.require_approval),
                    access,
                    &meta,
                )
                .await
                .map_err(core_error)?;
            let r = match r {
                authz::registry::SettingsOutcome::Saved(r) => r,
                authz::registry::SettingsOutcome::AwaitingApproval(req) => {
                    say!(
                        "Turning approval off waits for a security reviewer or another admin (request {}).",
                        req.id
                    );
                    return Ok(());
                }
            };
            say!("{}", settings_line(&r));
            if r.api_access == ApiAccess::Bearer {
                let realm_name =
                    authz::realms::RealmName::parse(&realm).map_err(|m| anyhow::anyhow!("{m}"))?;
                say!(
                    "Readers need an access token of realm {realm} for {} (the resource mcp-registry): people sign in with portcullis-cli login (no grant needed); grant other clients that read it access to it.",
                    core.registry_audience(&realm_name)
                );
            }
        }
        RegistryCommand::Render {
            realm,
            harness,
            harness_version,
            group,
            release,
            token_helper,
            out,
        } => {
            let target =
                portcullis_manifest::render::Target::parse(&harness, harness_version.as_deref())
                    .map_err(|m| {
                        if portcullis_manifest::render::Harness::parse(&harness).is_some() {
                            anyhow::anyhow!("--harness-version: {m}")
                        } else {
                            anyhow::anyhow!("--harness: {m}")
                        }
                    })?;
            let (kind, id) = group.get();
            let request = authz::registry::DeliveryRequest {
                target,
                group: (kind, id.to_owned()),
                release,
                options: portcullis_manifest::render::Options { token_helper },
            };
            let d = core
                .deliver_registry(&cli, &realm, &request)
                .await
                .map_err(core_error)?;
            say!(
                "Release {} ({}): {} server(s) for {} {id}, rendered for {harness}.",
                d.sequence,
                &d.release_id[..12],
                d.servers,
                kind.as_str()
            );
            for f in &d.rendered.files {
                let scope = match f.scope {
                    portcullis_manifest::render::Scope::Managed => "managed",
                    portcullis_manifest::render::Scope::User => "user",
                };
                let dir = out.join(scope);
                std::fs::create_dir_all(&dir)
                    .map_err(|e| anyhow::anyhow!("Cannot create {}: {e}", dir.display()))?;
                let path = dir.join(f.name);
                write_plain_file(&dir, &path, &f.contents)?;
                say!("wrote {}", path.display());
                for (os, install) in &f.paths {
                    say!(
                        "  install on {}: {install}",
                        serde_json::to_value(os)?.as_str().unwrap_or_default()
                    );
                }
            }
            // One line per field and message, naming every server it concerns.
            for w in d.rendered.grouped_warnings() {
                let (field, message, servers) = (w.field, w.message, w.servers);
                match servers.as_slice() {
                    [] => say!("warning: {field}: {message}"),
                    [one] => say!("warning: {one}: {field}: {message}"),
                    many => say!(
                        "warning: {field}: {message} ({} servers: {})",
                        many.len(),
                        many.join(", ")
                    ),
                }
            }
            for n in &d.rendered.notes {
                say!("note: {n}");
            }
        }
        RegistryCommand::Members {
            realm,
            group,
            format,
        } => {
            let members = core
                .registry_members(&cli, &realm, group.get())
                .await
                .map_err(core_error)?;
            let mut table = Table::new(format, ["kind", "name", "added_at", "added_by"]);
            for m in members {
                table.row([
                    Cell::from(m.membership.member_kind.as_str()),
                    Cell::from(m.name),
                    Cell::from(time(m.membership.added_at)),
                    Cell::from(m.membership.added_by),
                ])?;
            }
            table.finish()?;
        }
        RegistryCommand::AddMember {
            realm,
            group,
            member,
        } => {
            core.add_registry_member(&cli, &realm, group.get(), member.get(), &meta)
                .await
                .map_err(core_error)?;
            let (kind, id) = group.get();
            say!("Added {} to {} {id}.", member.get().1.trim(), kind.as_str());
        }
        RegistryCommand::RemoveMember {
            realm,
            group,
            member,
        } => {
            core.remove_registry_member(&cli, &realm, group.get(), member.get(), &meta)
                .await
                .map_err(core_error)?;
            let (kind, id) = group.get();
            say!(
                "Removed {} from {} {id}.",
                member.get().1.trim(),
                kind.as_str()
            );
        }
    }
    Ok(())
}
