//! The registry's draft: read it, edit it (servers, mode, rings, units, the whole policy), and
//! its settings (approval, HTTP access).
use super::model::{
    ApiAccess, GroupsInput, MAX_RELEASE_BYTES, Registry, RegistryView, RequestStatus, SavedDraft,
    SettingsChange, SettingsOutcome,
};
use super::releases::{release_manifest, request_digest};
use crate::audit::{AuditSubject, RequestMeta, action, changes};
use crate::core::Core;
use crate::error::StorageError;
use crate::error::{Error, Result};
use crate::policy::{Permission, Principal};
use crate::realms::Realm;
use crate::storage::STALE_DRAFT;
use portcullis_manifest::diff::diff;
use portcullis_manifest::policy::{Policy, PolicyInput};
use portcullis_manifest::server::ServerInput;
use portcullis_manifest::{Finding, Findings};

impl Core {
    /// The realm's registry row, or the empty registry a realm starts with (revision 0, not
    /// stored until the first change).
    pub(crate) async fn registry_of(&self, realm: &Realm) -> Result<Registry> {
        Ok(self
            .store
            .find_registry(&realm.id)
            .await?
            .unwrap_or_else(|| Registry {
                realm_id: realm.id.clone(),
                draft: PolicyInput {
                    mode: "allowlist".into(),
                    ..PolicyInput::default()
                },
                revision: 0,
                require_approval: false,
                api_access: ApiAccess::Off,
                updated_at: 0,
                updated_by: String::new(),
            }))
    }

    /// The registry page: the draft with its warnings, the latest release, what the draft
    /// would change, and the request that waits for approval.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    pub async fn registry(&self, p: &Principal, realm_name: &str) -> Result<RegistryView> {
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let registry = self.registry_of(&realm).await?;
        let (_, findings) = Policy::check(&registry.draft);
        let latest = self.store.latest_release(&realm.id).await?;
        let latest_manifest = latest.as_ref().map(release_manifest).transpose()?;
        let issuer = self.issuer(&realm.name);
        let stale_issuer = latest_manifest
            .as_ref()
            .map(|m| m.issuer.clone())
            .filter(|i| *i != issuer);
        let latest_policy = latest_manifest.map(|m| m.policy);
        let unpublished = diff(latest_policy.as_ref(), &registry.draft);
        let latest = match latest {
            Some(r) => Some(self.summarise(&realm, r).await?),
            None => None,
        };
        let pending = self.store.pending_request(&realm.id).await?;
        let pending_diff = pending
            .as_ref()
            .map(|r| diff(latest_policy.as_ref(), &r.policy));
        let pending_digest = pending
            .as_ref()
            .map(|r| request_digest(&r.policy))
            .transpose()?;
        let rejected = match (&pending, &latest) {
            (Some(_), _) => None,
            (None, latest) => self
                .store
                .last_rejected_request(&realm.id)
                .await?
                .filter(|r| r.status == RequestStatus::Rejected)
                .filter(|r| {
                    latest
                        .as_ref()
                        .is_none_or(|l| r.decided_at.unwrap_or(0) >= l.published_at)
                }),
        };
        Ok(RegistryView {
            rejected,
            base_url: self.registry_audience(&realm.name),
            pending,
            pending_diff,
            pending_digest,
            warnings: naming_servers(&registry.draft, findings.warnings),
            stale_issuer,
            unpublished,
            latest,
            registry,
        })
    }

    /// Whether a release (or settings change) waits for a second person: the sidebar's cue
    /// for those who may approve.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    pub async fn registry_request_waiting(&self, p: &Principal, realm_name: &str) -> Result<bool> {
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        Ok(self.store.pending_request(&realm.id).await?.is_some())
    }

    /// Adds a server to the draft, or replaces the one whose id is `replacing` (which may be
    /// renamed). Nothing is written when the server or the draft it makes fails its checks.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm; `replacing` not in the draft), `Findings` (fields of
    /// the server, unprefixed, or of the draft), `Conflict` (the draft changed since
    /// `revision`), storage failure.
    pub async fn save_registry_server(
        &self,
        p: &Principal,
        realm_name: &str,
        revision: i64,
        replacing: Option<&str>,
        input: &ServerInput,
        meta: &RequestMeta,
    ) -> Result<SavedDraft> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let registry = self.draft_at(&realm, revision).await?;
        let (_, own) = portcullis_manifest::Server::check(input);
        if !own.is_ok() {
            return Err(Error::Findings(own.errors));
        }
        let mut draft = registry.draft.clone();
        let position = match replacing {
            Some(id) => Some(
                draft
                    .servers
                    .iter()
                    .position(|s| s.id == id)
                    .ok_or_else(|| Error::not_found("registry server", id))?,
            ),
            None => None,
        };
        let before = position.map(|i| draft.servers[i].clone());
        match position {
            Some(i) => draft.servers[i] = input.clone(),
            None => draft.servers.push(input.clone()),
        }
        let index = position.unwrap_or(draft.servers.len() - 1);
        let checked = check_draft(&draft, Some(index))?;
        let id = input.id.trim().to_owned();
        let after = checked
            .servers
            .iter()
            .find(|s| s.id == id)
            .cloned()
            .unwrap_or_else(|| input.clone());
        let details = serde_json::json!({
            "server": id,
            "renamed_from": replacing.filter(|r| *r != id),
            "changes": changes(
                &before.map(|b| serde_json::to_value(b).unwrap_or_default()).unwrap_or_default(),
                &serde_json::to_value(&after).unwrap_or_default(),
            ),
        });
        let action_subject = AuditSubject::RegistryServer(id);
        let revision = self
            .write_draft(&realm, registry, checked, p, action_subject, details, meta)
            .await?;
        Ok(SavedDraft {
            revision,
            warnings: own.warnings,
        })
    }

    /// As [`Core::save_registry_server`], from an editor that read the server as `base` at
    /// `revision`: a draft that changed since in other servers only is no conflict (two people
    /// editing two servers both save); a changed `base`, or any change for an editor that does
    /// not say what it read, still is.
    ///
    /// # Errors
    /// As [`Core::save_registry_server`].
    #[allow(clippy::too_many_arguments)]
    pub async fn edit_registry_server(
        &self,
        p: &Principal,
        realm_name: &str,
        revision: i64,
        replacing: Option<&str>,
        base: Option<&ServerInput>,
        input: &ServerInput,
        meta: &RequestMeta,
    ) -> Result<SavedDraft> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let current = self.registry_of(&realm).await?;
        let untouched = match replacing {
            // A new server conflicts only with one of the same id, which the checks refuse.
            None => true,
            Some(id) => {
                base.is_some_and(|b| current.draft.servers.iter().find(|s| s.id == id) == Some(b))
            }
        };
        let revision = if current.revision != revision && untouched {
            current.revision
        } else {
            revision
        };
        self.save_registry_server(p, realm_name, revision, replacing, input, meta)
            .await
    }

    /// Removes a server from the draft.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, server), `Conflict` (stale revision), storage failure.
    pub async fn delete_registry_server(
        &self,
        p: &Principal,
        realm_name: &str,
        revision: i64,
        id: &str,
        meta: &RequestMeta,
    ) -> Result<SavedDraft> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let registry = self.draft_at(&realm, revision).await?;
        let mut draft = registry.draft.clone();
        let before = draft.servers.len();
        draft.servers.retain(|s| s.id != id);
        if draft.servers.len() == before {
            return Err(Error::not_found("registry server", id));
        }
        let checked = check_draft(&draft, None)?;
        let details = serde_json::json!({"server": id, "removed": true});
        let revision = self
            .write_draft(
                &realm,
                registry,
                checked,
                p,
                AuditSubject::RegistryServer(id.to_owned()),
                details,
                meta,
            )
            .await?;
        Ok(SavedDraft {
            revision,
            warnings: Vec::new(),
        })
    }

    /// Sets the draft's mode, rings and units. A ring or unit a server still names cannot be
    /// removed (the error names the server's field).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `Findings`, `Conflict` (stale revision), storage
    /// failure.
    pub async fn save_registry_groups(
        &self,
        p: &Principal,
        realm_name: &str,
        revision: i64,
        groups: &GroupsInput,
        meta: &RequestMeta,
    ) -> Result<SavedDraft> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let registry = self.draft_at(&realm, revision).await?;
        let draft = PolicyInput {
            mode: groups.mode.clone(),
            rings: groups.rings.clone(),
            units: groups.units.clone(),
            servers: registry.draft.servers.clone(),
        };
        let checked = check_draft(&draft, None)?;
        let details = changes(
            &serde_json::json!({"mode": registry.draft.mode, "rings": registry.draft.rings, "units": registry.draft.units}),
            &serde_json::json!({"mode": checked.mode, "rings": checked.rings, "units": checked.units}),
        );
        let revision = self
            .write_draft(
                &realm,
                registry,
                checked,
                p,
                AuditSubject::Registry,
                details,
                meta,
            )
            .await?;
        Ok(SavedDraft {
            revision,
            warnings: Vec::new(),
        })
    }

    /// Replaces the whole draft (`portcullis registry apply`): nothing is written unless the
    /// whole policy passes its checks.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `Findings` (paths into the policy), `Conflict` (stale
    /// revision), storage failure.
    pub async fn replace_registry_draft(
        &self,
        p: &Principal,
        realm_name: &str,
        revision: i64,
        policy: &PolicyInput,
        meta: &RequestMeta,
    ) -> Result<SavedDraft> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let registry = self.draft_at(&realm, revision).await?;
        let (checked, findings) = Policy::check(policy);
        let checked = checked.ok_or_else(|| Error::Findings(findings.errors.clone()))?;
        let input = checked.to_input();
        let d = diff(Some(&registry.draft), &input);
        let details = serde_json::json!({"replaced": true, "summary": d.summary()});
        let revision = self
            .write_draft(
                &realm,
                registry,
                input,
                p,
                AuditSubject::Registry,
                details,
                meta,
            )
            .await?;
        Ok(SavedDraft {
            revision,
            warnings: findings.warnings,
        })
    }

    /// Sets whether releases wait for a second person, and who may read the registry over
    /// HTTP. Turning on `bearer` creates the registry's own protected resource (its URL is
    /// the token audience) when the realm has none.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    pub async fn set_registry_settings(
        &self,
        p: &Principal,
        realm_name: &str,
        require_approval: bool,
        api_access: ApiAccess,
        meta: &RequestMeta,
    ) -> Result<SettingsOutcome> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let registry = self.registry_of(&realm).await?;
        // The two-person rule cannot be switched off by one person.
        if registry.require_approval && !require_approval {
            let draft = registry.draft.clone();
            let change = SettingsChange {
                require_approval,
                api_access,
            };
            let request = self
                .request_release(p, &realm, draft, None, Some(change), meta)
                .await?;
            return Ok(SettingsOutcome::AwaitingApproval(request));
        }
        self.apply_settings(p, &realm, require_approval, api_access, meta)
            .await
            .map(SettingsOutcome::Saved)
    }

    /// Writes the registry's settings (checked by the caller).
    pub(super) async fn apply_settings(
        &self,
        p: &Principal,
        realm: &Realm,
        require_approval: bool,
        api_access: ApiAccess,
        meta: &RequestMeta,
    ) -> Result<Registry> {
        if api_access == ApiAccess::Bearer {
            self.ensure_registry_resource(p, realm, meta).await?;
        }
        let registry = self.registry_of(realm).await?;
        let expected = (registry.revision > 0).then_some(registry.revision);
        let details = changes(
            &serde_json::json!({"require_approval": registry.require_approval, "api_access": registry.api_access.as_str()}),
            &serde_json::json!({"require_approval": require_approval, "api_access": api_access.as_str()}),
        );
        let next = Registry {
            require_approval,
            api_access,
            revision: registry.revision + 1,
            updated_at: self.now(),
            updated_by: p.email.clone(),
            ..registry
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::REGISTRY_SETTINGS,
            AuditSubject::Registry,
            meta,
        );
        event.details = details;
        self.store
            .save_registry(&next, expected, &event)
            .await
            .map_err(stale)?;
        Ok(next)
    }

    /// The URL whose tokens read the realm's registry when its access is `bearer`.
    pub fn registry_audience(&self, realm: &crate::realms::RealmName) -> String {
        format!("{}/registry", self.issuer(realm))
    }

    pub(super) async fn ensure_registry_resource(
        &self,
        p: &Principal,
        realm: &Realm,
        meta: &RequestMeta,
    ) -> Result<()> {
        let uri = self.registry_audience(&realm.name);
        let parsed = crate::resources::ResourceUri::parse(&uri, self.config().allow_http_loopback)
            .map_err(|m| {
                Error::invalid(format!(
                    "The registry's URL {uri} is not a resource URI: {m}"
                ))
            })?;
        if let Some(existing) = self.store.find_resource_by_uri(&realm.id, &parsed).await? {
            // A developer's waiting submission, or a disabled resource, is no audience an
            // admin chose for the registry.
            if existing.submitted_by.is_some() || !existing.enabled {
                return Err(Error::Conflict(
                    format!(
                        "Resource {} has the registry's URL but is {}: enable it (or delete it) first.",
                        existing.slug,
                        if existing.submitted_by.is_some() {
                            "a developer's submission waiting for an admin"
                        } else {
                            "disabled"
                        }
                    )
                    .into(),
                ));
            }
            return Ok(());
        }
        let input = crate::resources::ResourceInput {
            slug: "mcp-registry".into(),
            display_name: "MCP server registry".into(),
            uri,
            scopes: "registry:read".into(),
            token_ttl_secs: String::new(),
            signing_alg: String::new(),
            enabled: true,
        };
        self.create_resource(p, realm.name.as_str(), &input, meta)
            .await
            .map(|_| ())
    }

    /// The registry, checked to be at `revision` (the one the editor read).
    pub(super) async fn draft_at(&self, realm: &Realm, revision: i64) -> Result<Registry> {
        let registry = self.registry_of(realm).await?;
        if registry.revision != revision {
            return Err(stale_revision(revision, registry.revision));
        }
        Ok(registry)
    }

    /// Stores a checked draft as the next revision with its audit event.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn write_draft(
        &self,
        realm: &Realm,
        registry: Registry,
        draft: PolicyInput,
        p: &Principal,
        subject: AuditSubject,
        details: serde_json::Value,
        meta: &RequestMeta,
    ) -> Result<i64> {
        // Plain http (loopback only, as the manifest allows) only where Portcullis itself runs
        // in development: a production gateway never calls this machine's services.
        if !self.config().allow_http_loopback
            && let Some(i) = draft.servers.iter().position(|s| {
                s.url
                    .as_deref()
                    .is_some_and(|u| u.trim().starts_with("http://"))
            })
        {
            return Err(Error::Findings(vec![portcullis_manifest::Finding {
                field: format!("servers[{i}].url"),
                message: "Plain http (on loopback) is for development only: set dev.allow_http_loopback_resources, or use https.".into(),
            }]));
        }
        let expected = (registry.revision > 0).then_some(registry.revision);
        let next = Registry {
            draft,
            revision: registry.revision + 1,
            updated_at: self.now(),
            updated_by: p.email.clone(),
            ..registry
        };
        let mut event = self.event(&realm.id, &p.email, action::REGISTRY_UPDATE, subject, meta);
        event.details = details;
        self.store
            .save_registry(&next, expected, &event)
            .await
            .map_err(stale)?;
        Ok(next.revision)
    }
}

/// Checks a draft whole. With `server`, the errors under `servers[server].` are given without
/// that prefix (they are the edited server's fields); others keep their path.
pub(super) fn check_draft(draft: &PolicyInput, server: Option<usize>) -> Result<PolicyInput> {
    // A release holds the draft and is read by every laptop: half of its limit for the draft.
    let size = serde_json::to_vec(draft).map_or(usize::MAX, |v| v.len());
    if size > MAX_RELEASE_BYTES / 2 {
        return Err(Error::invalid(format!(
            "The registry would be {size} bytes; at most {} (remove servers, or shorten them).",
            MAX_RELEASE_BYTES / 2
        )));
    }
    let (checked, findings): (Option<Policy>, Findings) = Policy::check(draft);
    match checked {
        Some(p) => Ok(p.to_input()),
        None => {
            let prefix = server.map(|i| format!("servers[{i}]."));
            let errors = match server {
                Some(_) => findings.errors,
                None => naming_servers(draft, findings.errors),
            };
            Err(Error::Findings(
                errors
                    .into_iter()
                    .map(
                        |f| match prefix.as_deref().and_then(|p| f.field.strip_prefix(p)) {
                            Some(rest) => Finding {
                                field: rest.to_owned(),
                                message: f.message,
                            },
                            None => f,
                        },
                    )
                    .collect(),
            ))
        }
    }
}

/// Findings about `servers[i]…` say which server they are about: with hundreds of servers an
/// index alone tells nobody which one to fix.
pub(super) fn naming_servers(draft: &PolicyInput, findings: Vec<Finding>) -> Vec<Finding> {
    findings
        .into_iter()
        .map(|f| {
            let id = f
                .field
                .strip_prefix("servers[")
                .and_then(|rest| rest.split_once(']'))
                .and_then(|(i, _)| i.parse::<usize>().ok())
                .and_then(|i| draft.servers.get(i))
                .map(|s| s.id.trim())
                .filter(|id| !id.is_empty());
            match id {
                Some(id) => Finding {
                    message: format!("server {id}: {}", f.message),
                    field: f.field,
                },
                None => f,
            }
        })
        .collect()
}

pub(super) fn stale(e: StorageError) -> Error {
    match e {
        StorageError::Precondition(STALE_DRAFT) => Error::Conflict(
            "The registry changed while you edited it: reload, and make your change again.".into(),
        ),
        other => other.into(),
    }
}

pub(super) fn stale_revision(yours: i64, now: i64) -> Error {
    Error::Conflict(
        format!(
            "The registry changed since you opened it (revision {yours}, now {now}): reload, and make your change again."
        )
        .into(),
    )
}
