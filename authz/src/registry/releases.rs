//! Releases: publish and roll back (through a second person when the realm asks), approve,
//! reject and withdraw what waits, and list what was published.
use super::model::{
    Approved, MAX_RELEASE_BYTES, PublishRequest, Published, Registry, ReleaseHead, ReleaseSummary,
    RequestStatus, SettingsChange, StoredRelease,
};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::StorageError;
use crate::error::{Error, Result};
use crate::keys::SigningAlg;
use crate::policy::{Permission, Principal};
use crate::realms::Realm;
use crate::storage::{REQUEST_DECIDED, ReleaseEffects, SEQUENCE_TAKEN, STALE_DRAFT};
use portcullis_manifest::diff::diff;
use portcullis_manifest::policy::PolicyInput;
use portcullis_manifest::release::{MANIFEST_SCHEMA, Manifest, SignedRelease};

/// The algorithm releases are signed with (every realm can publish it; the CLI verifies all
/// three the realm may publish).
const RELEASE_ALG: SigningAlg = SigningAlg::ES256;

/// Longest reason a rejection keeps.
const MAX_REASON_CHARS: usize = 500;

impl Core {
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

    pub(super) async fn request_release(
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

    pub(super) async fn pending(&self, realm: &Realm, id: &str) -> Result<PublishRequest> {
        self.store
            .find_request(&realm.id, id)
            .await?
            .filter(|r| r.status == RequestStatus::Pending)
            .ok_or_else(|| Error::not_found("pending release request", id))
    }

    pub(super) async fn close(
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
    pub(super) async fn release(
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
    pub(super) async fn summarise(
        &self,
        realm: &Realm,
        r: StoredRelease,
    ) -> Result<ReleaseSummary> {
        let diff = self.release_diff(realm, r.sequence, &r.id).await?;
        Ok(ReleaseSummary {
            sequence: r.sequence,
            servers: usize::try_from(r.servers).unwrap_or(0),
            diff: (*diff).clone(),
            id: r.id,
            published_at: r.published_at,
            published_by: r.published_by,
            approved_by: r.approved_by,
            rollback_of: r.rollback_of,
        })
    }

    /// What release `sequence` (whose id is `id`) changed against the one before: computed
    /// once per release, since releases never change.
    pub(super) async fn release_diff(
        &self,
        realm: &Realm,
        sequence: i64,
        id: &str,
    ) -> Result<std::sync::Arc<portcullis_manifest::diff::Diff>> {
        let key = (realm.id.clone(), sequence);
        let cached = self
            .release_diffs
            .lock()
            .ok()
            .and_then(|c| c.get(&key).filter(|(i, _)| i == id).map(|(_, d)| d.clone()));
        if let Some(d) = cached {
            return Ok(d);
        }
        let newer = self
            .store
            .release_by_sequence(&realm.id, sequence)
            .await?
            .ok_or_else(|| Error::not_found("release", sequence.to_string()))?;
        let before = if sequence > 1 {
            match self
                .store
                .release_by_sequence(&realm.id, sequence - 1)
                .await?
            {
                Some(prev) => Some(release_policy(&prev)?),
                None => None,
            }
        } else {
            None
        };
        let d = std::sync::Arc::new(diff(before.as_ref(), &release_policy(&newer)?));
        if let Ok(mut cache) = self.release_diffs.lock() {
            if cache.len() >= super::model::MAX_CACHED_DIFFS {
                cache.clear();
            }
            cache.insert(key, (newer.id, d.clone()));
        }
        Ok(d)
    }
}

/// A request's digest: the SHA-256 of its policy's canonical JSON (RFC 8785), lowercase hex.
pub(crate) fn request_digest(policy: &PolicyInput) -> Result<String> {
    let bytes = portcullis_manifest::canonical::to_canonical(policy).map_err(Error::Internal)?;
    Ok(portcullis_manifest::canonical::release_id(&bytes))
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
