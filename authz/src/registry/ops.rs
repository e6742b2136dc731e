//! Registry operations: read the registry, edit its draft (servers, mode, rings, units),
//! govern it (approval, HTTP access), publish and roll back (signed releases, through a second
//! person when the realm asks for it), and manage who is in each ring and unit.
use super::model::{
    ApiAccess, Approved, GroupKind, GroupsInput, MAX_MEMBERS_LISTED, MAX_RELEASE_BYTES, MemberKind,
    MemberView, Membership, PublishRequest, Published, Registry, RegistryView, ReleaseHead,
    ReleaseSummary, RequestStatus, SavedDraft, SettingsChange, SettingsOutcome, StoredRelease,
};
use crate::audit::{AuditSubject, RequestMeta, action, changes};
use crate::core::Core;
use crate::error::StorageError;
use crate::error::{Error, Result};
use crate::keys::SigningAlg;
use crate::policy::{Permission, Principal};
use crate::realms::Realm;
use crate::storage::{REQUEST_DECIDED, ReleaseEffects, SEQUENCE_TAKEN, STALE_DRAFT};
use portcullis_manifest::diff::diff;
use portcullis_manifest::policy::{Policy, PolicyInput};
use portcullis_manifest::release::{MANIFEST_SCHEMA, Manifest, SignedRelease};
use portcullis_manifest::server::ServerInput;
use portcullis_manifest::{Finding, Findings};

/// The algorithm releases are signed with (every realm can publish it; the CLI verifies all
/// three the realm may publish).
const RELEASE_ALG: SigningAlg = SigningAlg::ES256;

/// Longest reason a rejection keeps.
const MAX_REASON_CHARS: usize = 500;

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
        Ok(RegistryView {
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
    async fn apply_settings(
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

    async fn ensure_registry_resource(
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

    /// Publishes the draft as a new release, or, when the realm requires approval, asks for
    /// it (the request carries the draft as it is now).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `Conflict` (stale revision; nothing to publish; a
    /// request waits already), storage or signing failure.
    pub async fn publish_registry(
        &self,
        p: &Principal,
        realm_name: &str,
        revision: i64,
        meta: &RequestMeta,
    ) -> Result<Published> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let registry = self.draft_at(&realm, revision).await?;
        let latest = self.store.latest_release(&realm.id).await?;
        let issuer = self.issuer(&realm.name);
        if let Some(latest) = &latest
            && let manifest = release_manifest(latest)?
            && manifest.policy == registry.draft
            && manifest.issuer == issuer
        {
            return Err(Error::Conflict(
                format!(
                    "The draft is release {} already: change it first.",
                    latest.sequence
                )
                .into(),
            ));
        }
        if registry.require_approval {
            let request = self
                .request_release(p, &realm, registry.draft.clone(), None, None, meta)
                .await?;
            return Ok(Published::AwaitingApproval(request));
        }
        let release = self
            .release(
                &realm,
                registry.draft.clone(),
                &p.email,
                None,
                None,
                None,
                meta,
            )
            .await?;
        Ok(Published::Release(release))
    }

    /// Publishes an old release's content again as a new release (and makes it the draft:
    /// unpublished edits are dropped), or asks for approval to.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, release), `Conflict` (it is the latest already; a
    /// request waits already), storage or signing failure.
    pub async fn rollback_registry(
        &self,
        p: &Principal,
        realm_name: &str,
        sequence: i64,
        meta: &RequestMeta,
    ) -> Result<Published> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let old = self
            .store
            .release_by_sequence(&realm.id, sequence)
            .await?
            .ok_or_else(|| Error::not_found("release", sequence.to_string()))?;
        let latest = self.store.latest_release(&realm.id).await?;
        if latest.as_ref().is_some_and(|l| l.sequence == sequence) {
            return Err(Error::Conflict(
                format!("Release {sequence} is the latest release already.").into(),
            ));
        }
        let policy = release_policy(&old)?;
        let registry = self.registry_of(&realm).await?;
        if registry.require_approval {
            let request = self
                .request_release(p, &realm, policy, Some(sequence), None, meta)
                .await?;
            return Ok(Published::AwaitingApproval(request));
        }
        let release = self
            .release(&realm, policy, &p.email, None, Some(sequence), None, meta)
            .await?;
        Ok(Published::Release(release))
    }

    /// Approves a waiting request: it is published now, by its author, approved by `p`, who
    /// must be someone else.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, request), `Conflict` (one's own request; decided
    /// already), storage or signing failure.
    pub async fn approve_registry_request(
        &self,
        p: &Principal,
        realm_name: &str,
        request_id: &str,
        digest: &str,
        meta: &RequestMeta,
    ) -> Result<Approved> {
        p.require(Permission::ApproveReleases)?;
        let realm = self.find_realm(realm_name).await?;
        let request = self.pending(&realm, request_id).await?;
        if request.requested_by == p.email {
            return Err(Error::Conflict(
                "You asked for this release: a security reviewer or another admin approves it."
                    .into(),
            ));
        }
        // What is approved is what the approver was shown.
        if digest.trim() != request_digest(&request.policy)? {
            return Err(Error::Conflict(
                "This is not the content you reviewed (its digest differs): look at the request again."
                    .into(),
            ));
        }
        let latest = self
            .store
            .latest_release_head(&realm.id)
            .await?
            .map_or(0, |h| h.sequence);
        if latest != request.base_sequence {
            return Err(Error::Conflict(
                format!(
                    "Release {latest} was published after this request was made: it is withdrawn and asked for again."
                )
                .into(),
            ));
        }
        if let Some(change) = request.settings {
            let mut event = self.event(
                &realm.id,
                &p.email,
                action::REGISTRY_SETTINGS,
                AuditSubject::Registry,
                meta,
            );
            event.details = serde_json::json!({"request": request.id, "requested_by": request.requested_by, "approved": true});
            self.store
                .close_request(
                    &request.id,
                    RequestStatus::Published,
                    &p.email,
                    self.now(),
                    None,
                    &event,
                )
                .await
                .map_err(|e| match e {
                    StorageError::NotFound => {
                        Error::Conflict("The request was decided meanwhile.".into())
                    }
                    other => other.into(),
                })?;
            let requester = Principal {
                email: request.requested_by.clone(),
                ..p.clone()
            };
            let saved = self
                .apply_settings(
                    &requester,
                    &realm,
                    change.require_approval,
                    change.api_access,
                    meta,
                )
                .await?;
            return Ok(Approved::Settings(saved));
        }
        self.release(
            &realm,
            request.policy.clone(),
            &request.requested_by,
            Some(&p.email),
            request.rollback_of,
            Some((&request.id, request.base_sequence)),
            meta,
        )
        .await
        .map(Approved::Release)
    }

    /// Rejects a waiting request, with the reason its author sees.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, request), `Invalid` (no reason), `Conflict` (one's
    /// own request), storage failure.
    pub async fn reject_registry_request(
        &self,
        p: &Principal,
        realm_name: &str,
        request_id: &str,
        reason: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ApproveReleases)?;
        let reason = reason.trim();
        if reason.is_empty() {
            return Err(Error::field("reason", "Say why, for the person who asked."));
        }
        if reason.chars().count() > MAX_REASON_CHARS || reason.chars().any(char::is_control) {
            return Err(Error::field(
                "reason",
                format!("At most {MAX_REASON_CHARS} characters, on one line."),
            ));
        }
        let realm = self.find_realm(realm_name).await?;
        let request = self.pending(&realm, request_id).await?;
        if request.requested_by == p.email {
            return Err(Error::Conflict(
                "You asked for this release: withdraw it instead.".into(),
            ));
        }
        self.close(
            &realm,
            &request,
            RequestStatus::Rejected,
            p,
            Some(reason),
            meta,
        )
        .await
    }

    /// Withdraws a waiting request (its author, or any admin).
    ///
    /// # Errors
    /// `Forbidden` (someone else's, without admin rights), `NotFound`, storage failure.
    pub async fn withdraw_registry_request(
        &self,
        p: &Principal,
        realm_name: &str,
        request_id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let request = self.pending(&realm, request_id).await?;
        self.close(&realm, &request, RequestStatus::Withdrawn, p, None, meta)
            .await
    }

    /// Releases newest first, each with what it changed: at most `limit` (≤ 100) older than
    /// `before`, and how many there are.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    pub async fn registry_releases(
        &self,
        p: &Principal,
        realm_name: &str,
        before: Option<i64>,
        limit: u32,
    ) -> Result<(Vec<ReleaseHead>, u64)> {
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        Ok(self
            .store
            .list_releases(&realm.id, before, limit.clamp(1, 100))
            .await?)
    }

    /// One release: what it changed and its signed document.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, storage failure.
    pub async fn registry_release(
        &self,
        p: &Principal,
        realm_name: &str,
        sequence: i64,
    ) -> Result<(ReleaseSummary, StoredRelease)> {
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let r = self
            .store
            .release_by_sequence(&realm.id, sequence)
            .await?
            .ok_or_else(|| Error::not_found("release", sequence.to_string()))?;
        Ok((self.summarise(&realm, r.clone()).await?, r))
    }

    /// The members of a ring or unit (at most [`MAX_MEMBERS_LISTED`]), and how many members
    /// every ring and unit has.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    pub async fn registry_members(
        &self,
        p: &Principal,
        realm_name: &str,
        group: (GroupKind, &str),
    ) -> Result<Vec<MemberView>> {
        // Members are people's emails: for those who may see the realm's people.
        p.require(Permission::ViewRegistry)?;
        p.require(Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        let members = self
            .store
            .list_members(&realm.id, group, MAX_MEMBERS_LISTED)
            .await?;
        if members.is_empty() {
            // A group nobody has ever heard of is a typo, not an empty group.
            self.group_exists(&realm, group).await?;
        }
        Ok(members)
    }

    /// How many members each ring and unit has.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    pub async fn registry_member_counts(
        &self,
        p: &Principal,
        realm_name: &str,
    ) -> Result<Vec<(GroupKind, String, u64)>> {
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        Ok(self.store.count_members(&realm.id).await?)
    }

    /// Adds a member to a ring or unit of the draft or the latest release: a console user or
    /// a person of the realm by email, an agent by name.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, group, member), `Conflict` (a member already), storage
    /// failure.
    pub async fn add_registry_member(
        &self,
        p: &Principal,
        realm_name: &str,
        group: (GroupKind, &str),
        member: (MemberKind, &str),
        meta: &RequestMeta,
    ) -> Result<Membership> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        self.group_exists(&realm, group).await?;
        let member_id = self.member_id(&realm, member).await?;
        let m = Membership {
            realm_id: realm.id.clone(),
            group_kind: group.0,
            group_id: group.1.to_owned(),
            member_kind: member.0,
            member_id,
            added_at: self.now(),
            added_by: p.email.clone(),
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::REGISTRY_MEMBER_ADD,
            AuditSubject::RegistryGroup(group.0.as_str(), group.1.to_owned()),
            meta,
        );
        event.details =
            serde_json::json!({"member_kind": member.0.as_str(), "member": member.1.trim()});
        self.store
            .insert_member(&m, &event)
            .await
            .map_err(|e| crate::error::map_conflict(e, "Already a member."))?;
        Ok(m)
    }

    /// Removes a member from a ring or unit.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, member, membership), storage failure.
    pub async fn remove_registry_member(
        &self,
        p: &Principal,
        realm_name: &str,
        group: (GroupKind, &str),
        member: (MemberKind, &str),
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let member_id = self.member_id(&realm, member).await?;
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::REGISTRY_MEMBER_REMOVE,
            AuditSubject::RegistryGroup(group.0.as_str(), group.1.to_owned()),
            meta,
        );
        event.details =
            serde_json::json!({"member_kind": member.0.as_str(), "member": member.1.trim()});
        self.store
            .delete_member(&realm.id, group, (member.0, &member_id), &event)
            .await
            .map_err(|e| match e {
                StorageError::NotFound => Error::not_found("membership", member.1.trim()),
                other => other.into(),
            })
    }

    /// The rings and units a member is in directly (units below them give it nothing more;
    /// units above them are added by the release's unit tree).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, member), storage failure.
    pub async fn registry_groups_of(
        &self,
        p: &Principal,
        realm_name: &str,
        member: (MemberKind, &str),
    ) -> Result<Vec<(GroupKind, String)>> {
        p.require(Permission::ViewRegistry)?;
        p.require(Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        let id = self.member_id(&realm, member).await?;
        Ok(self.store.groups_of(&realm.id, (member.0, &id)).await?)
    }

    // --- internals ---

    /// The registry, checked to be at `revision` (the one the editor read).
    async fn draft_at(&self, realm: &Realm, revision: i64) -> Result<Registry> {
        let registry = self.registry_of(realm).await?;
        if registry.revision != revision {
            return Err(stale_revision(revision, registry.revision));
        }
        Ok(registry)
    }

    /// Stores a checked draft as the next revision with its audit event.
    #[allow(clippy::too_many_arguments)]
    async fn write_draft(
        &self,
        realm: &Realm,
        registry: Registry,
        draft: PolicyInput,
        p: &Principal,
        subject: AuditSubject,
        details: serde_json::Value,
        meta: &RequestMeta,
    ) -> Result<i64> {
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

    async fn request_release(
        &self,
        p: &Principal,
        realm: &Realm,
        policy: PolicyInput,
        rollback_of: Option<i64>,
        settings: Option<SettingsChange>,
        meta: &RequestMeta,
    ) -> Result<PublishRequest> {
        let base_sequence = self
            .store
            .latest_release_head(&realm.id)
            .await?
            .map_or(0, |h| h.sequence);
        let request = PublishRequest {
            id: crate::ids::RegistryRequestId::generate()
                .as_str()
                .to_owned(),
            realm_id: realm.id.clone(),
            policy,
            rollback_of,
            base_sequence,
            settings,
            requested_by: p.email.clone(),
            requested_at: self.now(),
            status: RequestStatus::Pending,
            decided_by: None,
            decided_at: None,
            reason: None,
            release_sequence: None,
        };
        let latest = self.store.latest_release(&realm.id).await?;
        let latest_policy = latest.as_ref().map(release_policy).transpose()?;
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::REGISTRY_REQUEST,
            AuditSubject::Registry,
            meta,
        );
        event.details = serde_json::json!({
            "request": request.id,
            "rollback_of": rollback_of,
            "settings": settings,
            "digest": request_digest(&request.policy)?,
            "summary": diff(latest_policy.as_ref(), &request.policy).summary(),
        });
        match self.store.insert_request(&request, &event).await {
            Ok(()) => Ok(request),
            Err(StorageError::Conflict(_)) => {
                let (who, id) = self
                    .store
                    .pending_request(&realm.id)
                    .await?
                    .map(|r| (r.requested_by, r.id))
                    .unwrap_or_default();
                Err(Error::Conflict(
                    format!(
                        "A release asked for by {who} (request {id}) waits for approval: it is approved, rejected or withdrawn first."
                    )
                    .into(),
                ))
            }
            Err(e) => Err(e.into()),
        }
    }

    async fn pending(&self, realm: &Realm, id: &str) -> Result<PublishRequest> {
        self.store
            .find_request(&realm.id, id)
            .await?
            .filter(|r| r.status == RequestStatus::Pending)
            .ok_or_else(|| Error::not_found("pending release request", id))
    }

    async fn close(
        &self,
        realm: &Realm,
        request: &PublishRequest,
        status: RequestStatus,
        p: &Principal,
        reason: Option<&str>,
        meta: &RequestMeta,
    ) -> Result<()> {
        let verb = match status {
            RequestStatus::Rejected => action::REGISTRY_REJECT,
            _ => action::REGISTRY_WITHDRAW,
        };
        let mut event = self.event(&realm.id, &p.email, verb, AuditSubject::Registry, meta);
        event.details = serde_json::json!({"request": request.id, "requested_by": request.requested_by, "reason": reason});
        self.store
            .close_request(&request.id, status, &p.email, self.now(), reason, &event)
            .await
            .map_err(|e| match e {
                StorageError::NotFound => {
                    Error::Conflict("The request was decided meanwhile.".into())
                }
                other => other.into(),
            })
    }

    /// Signs and stores `policy` as the realm's next release. A concurrent publish taking the
    /// sequence number first makes this one build the next (a few times at most).
    #[allow(clippy::too_many_arguments)]
    async fn release(
        &self,
        realm: &Realm,
        policy: PolicyInput,
        published_by: &str,
        approved_by: Option<&str>,
        rollback_of: Option<i64>,
        request: Option<(&str, i64)>,
        meta: &RequestMeta,
    ) -> Result<ReleaseSummary> {
        let keys = self.realm_keys(realm, Some(RELEASE_ALG)).await?;
        let signer = keys
            .signer(RELEASE_ALG)
            .cloned()
            .ok_or_else(|| Error::Internal("no active release signing key".into()))?;
        for _ in 0..5 {
            let latest = self.store.latest_release(&realm.id).await?;
            // An approved request publishes only over the release it was asked against.
            if let Some((_, base)) = request
                && latest.as_ref().map_or(0, |l| l.sequence) != base
            {
                return Err(Error::Conflict(
                    "Another release was published after this request was made: it is withdrawn and asked for again."
                        .into(),
                ));
            }
            let latest_policy = latest.as_ref().map(release_policy).transpose()?;
            let now = self.now();
            let manifest = Manifest {
                schema: MANIFEST_SCHEMA.into(),
                issuer: self.issuer(&realm.name),
                sequence: latest
                    .as_ref()
                    .map_or(1, |l| l.sequence + 1)
                    .try_into()
                    .unwrap_or(1),
                published_at: now,
                previous: latest.as_ref().map(|l| l.id.clone()),
                policy: policy.clone(),
            };
            let signed =
                SignedRelease::sign(&manifest, RELEASE_ALG.as_str(), signer.kid(), |input| {
                    signer.sign_input(input)
                })
                .map_err(Error::Internal)?;
            let document =
                serde_json::to_string(&signed).map_err(|e| Error::Internal(e.to_string()))?;
            if document.len() > MAX_RELEASE_BYTES {
                return Err(Error::invalid(format!(
                    "The release would be {} bytes; at most {MAX_RELEASE_BYTES}.",
                    document.len()
                )));
            }
            let sequence = i64::try_from(manifest.sequence).unwrap_or(i64::MAX);
            let stored = StoredRelease {
                realm_id: realm.id.clone(),
                sequence,
                id: signed.id.clone(),
                document,
                published_at: now,
                published_by: published_by.to_owned(),
                approved_by: approved_by.map(str::to_owned),
                rollback_of,
                servers: i64::try_from(policy.servers.len()).unwrap_or(i64::MAX),
                changes: String::new(),
            };
            let d = diff(latest_policy.as_ref(), &policy);
            let stored = StoredRelease {
                changes: d.summary(),
                ..stored
            };
            let verb = if rollback_of.is_some() {
                action::REGISTRY_ROLLBACK
            } else {
                action::REGISTRY_PUBLISH
            };
            let actor = approved_by.unwrap_or(published_by);
            let mut event = self.event(
                &realm.id,
                actor,
                verb,
                AuditSubject::Release(sequence),
                meta,
            );
            event.details = serde_json::json!({
                "id": stored.id,
                "servers": policy.servers.len(),
                "summary": d.summary(),
                "published_by": published_by,
                "approved_by": approved_by,
                "rollback_of": rollback_of,
                "request": request.map(|(id, _)| id),
            });
            // A roll back makes the draft what it publishes.
            let current = if rollback_of.is_some() {
                Some(self.registry_of(realm).await?)
            } else {
                None
            };
            let draft = current.as_ref().map(|r| {
                (
                    Registry {
                        draft: policy.clone(),
                        revision: r.revision + 1,
                        updated_at: now,
                        updated_by: actor.to_owned(),
                        ..r.clone()
                    },
                    r.revision,
                )
            });
            if draft.as_ref().is_some_and(|(_, expected)| *expected == 0) {
                // No registry row yet cannot happen with an older release to roll back to.
                return Err(Error::Internal("a roll back without a registry".into()));
            }
            let effects = ReleaseEffects {
                draft: draft.as_ref().map(|(r, e)| (r, *e)),
                request: request.map(|(id, _)| id),
            };
            match self.store.insert_release(&stored, effects, &event).await {
                Ok(()) => {
                    return Ok(ReleaseSummary {
                        sequence,
                        id: stored.id,
                        published_at: now,
                        published_by: published_by.to_owned(),
                        approved_by: approved_by.map(str::to_owned),
                        rollback_of,
                        servers: policy.servers.len(),
                        diff: d,
                    });
                }
                Err(StorageError::Precondition(SEQUENCE_TAKEN | STALE_DRAFT)) => continue,
                Err(StorageError::Precondition(REQUEST_DECIDED)) => {
                    return Err(Error::Conflict("The request was decided meanwhile.".into()));
                }
                Err(e) => return Err(e.into()),
            }
        }
        Err(Error::Conflict(
            "Other releases were being published at the same time: try again.".into(),
        ))
    }

    /// A stored release as listed: its counts and what it changed against the one before.
    async fn summarise(&self, realm: &Realm, r: StoredRelease) -> Result<ReleaseSummary> {
        let policy = release_policy(&r)?;
        let before = if r.sequence > 1 {
            match self
                .store
                .release_by_sequence(&realm.id, r.sequence - 1)
                .await?
            {
                Some(prev) => Some(release_policy(&prev)?),
                None => None,
            }
        } else {
            None
        };
        Ok(ReleaseSummary {
            sequence: r.sequence,
            servers: policy.servers.len(),
            diff: diff(before.as_ref(), &policy),
            id: r.id,
            published_at: r.published_at,
            published_by: r.published_by,
            approved_by: r.approved_by,
            rollback_of: r.rollback_of,
        })
    }

    async fn group_exists(&self, realm: &Realm, group: (GroupKind, &str)) -> Result<()> {
        let named = |p: &PolicyInput| match group.0 {
            GroupKind::Ring => p.rings.iter().any(|r| r == group.1),
            GroupKind::Unit => p.units.iter().any(|u| u.id == group.1),
        };
        let registry = self.registry_of(realm).await?;
        if named(&registry.draft) {
            return Ok(());
        }
        if let Some(latest) = self.store.latest_release(&realm.id).await?
            && named(&release_policy(&latest)?)
        {
            return Ok(());
        }
        Err(Error::not_found(
            if group.0 == GroupKind::Ring {
                "ring"
            } else {
                "unit"
            },
            group.1.chars().take(63).collect::<String>(),
        ))
    }

    /// A member's stored id from what an admin types: an email (console users, people) or an
    /// agent's name.
    async fn member_id(&self, realm: &Realm, member: (MemberKind, &str)) -> Result<String> {
        let typed = member.1.trim();
        let not_found = || {
            Error::not_found(
                match member.0 {
                    MemberKind::User => "console user",
                    MemberKind::Person => "person",
                    MemberKind::Agent => "agent",
                },
                typed.chars().take(254).collect::<String>(),
            )
        };
        match member.0 {
            MemberKind::User => {
                let admin = self.admin_realm().await?;
                let email = crate::accounts::Email::parse(typed).map_err(|_| not_found())?;
                Ok(self
                    .store
                    .find_user_by_email(&admin.id, &email)
                    .await?
                    .ok_or_else(not_found)?
                    .id
                    .as_str()
                    .to_owned())
            }
            MemberKind::Person => Ok(self
                .store
                .find_person_by_email(
                    &realm.id,
                    &crate::accounts::Email::parse(typed).map_err(|_| not_found())?,
                )
                .await?
                .ok_or_else(not_found)?
                .id
                .as_str()
                .to_owned()),
            MemberKind::Agent => {
                let name = crate::agents::parse_agent_name(typed).map_err(|_| not_found())?;
                Ok(self
                    .store
                    .find_agent(&realm.id, &name)
                    .await?
                    .ok_or_else(not_found)?
                    .id
                    .as_str()
                    .to_owned())
            }
        }
    }
}

/// Checks a draft whole. With `server`, the errors under `servers[server].` are given without
/// that prefix (they are the edited server's fields); others keep their path.
fn check_draft(draft: &PolicyInput, server: Option<usize>) -> Result<PolicyInput> {
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

/// A request's digest: the SHA-256 of its policy's canonical JSON (RFC 8785), lowercase hex.
pub(crate) fn request_digest(policy: &PolicyInput) -> Result<String> {
    let bytes = portcullis_manifest::canonical::to_canonical(policy).map_err(Error::Internal)?;
    Ok(portcullis_manifest::canonical::release_id(&bytes))
}

/// Findings about `servers[i]…` say which server they are about: with hundreds of servers an
/// index alone tells nobody which one to fix.
fn naming_servers(draft: &PolicyInput, findings: Vec<Finding>) -> Vec<Finding> {
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

/// The policy a stored release carries.
pub(crate) fn release_policy(r: &StoredRelease) -> Result<PolicyInput> {
    Ok(release_manifest(r)?.policy)
}

/// The manifest a stored release carries.
pub(crate) fn release_manifest(r: &StoredRelease) -> Result<Manifest> {
    let signed: SignedRelease = serde_json::from_str(&r.document).map_err(|e| {
        Error::Storage(StorageError::Corrupt(format!(
            "release {}: {e}",
            r.sequence
        )))
    })?;
    let manifest: Manifest = serde_json::from_value(signed.manifest).map_err(|e| {
        Error::Storage(StorageError::Corrupt(format!(
            "release {}: {e}",
            r.sequence
        )))
    })?;
    Ok(manifest)
}

fn stale(e: StorageError) -> Error {
    match e {
        StorageError::Precondition(STALE_DRAFT) => Error::Conflict(
            "The registry changed while you edited it: reload, and make your change again.".into(),
        ),
        other => other.into(),
    }
}

fn stale_revision(yours: i64, now: i64) -> Error {
    Error::Conflict(
        format!(
            "The registry changed since you opened it (revision {yours}, now {now}): reload, and make your change again."
        )
        .into(),
    )
}
