//! Approvals: a gateway call that can change things waits for a person, bound to its caller
//! and the exact call, runs once, and lapses when nobody decides.
use super::model::{Approval, ApprovalStatus, GatewayCaller, MAX_PENDING_APPROVALS, Redeemed};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result, StorageError};
use crate::policy::{Permission, Principal};

impl Core {
    /// Records a call that can change things as waiting for a person, who sees it with its
    /// arguments redacted; it lapses (denied) when undecided for the configured time. The
    /// same call asked again while it waits gets the waiting approval back, not another.
    ///
    /// # Errors
    /// `Conflict` when the caller has [`MAX_PENDING_APPROVALS`] waiting already; `Invalid`
    /// when the arguments are too large for a person to read.
    pub async fn request_gateway_approval(
        &self,
        caller: &GatewayCaller,
        (server_id, tool): (&str, &str),
        (arguments, subject_ids, definition_sha256): (&serde_json::Value, &[String], &str),
        (side_effect_class, risk): (&str, &str),
    ) -> Result<Approval> {
        let size = serde_json::to_vec(arguments).map_or(usize::MAX, |v| v.len());
        if size > super::model::MAX_APPROVAL_ARGUMENT_BYTES {
            return Err(Error::invalid(format!(
                "The arguments are {size} bytes; a call that waits for approval carries at most {} (the approver reads all of them).",
                super::model::MAX_APPROVAL_ARGUMENT_BYTES
            )));
        }
        let now = self.now();
        let ttl_secs = self.config().gateway_approval_ttl_secs;
        let key = caller.key();
        let digest = super::model::call_digest(arguments, subject_ids, definition_sha256);
        let waiting = self
            .store
            .pending_approvals_of(
                &caller.realm.id,
                &key,
                now,
                i64::try_from(MAX_PENDING_APPROVALS).unwrap_or(i64::MAX),
            )
            .await?;
        // The same call asked again (an agent retrying, a client that stopped polling) waits
        // on the request already made: one call, one approval for a person to decide.
        if let Some(same) = waiting
            .iter()
            .find(|a| a.server_id == server_id && a.tool == tool && a.arguments_sha256 == digest)
        {
            return Ok(same.clone());
        }
        if waiting.len() >= MAX_PENDING_APPROVALS {
            return Err(Error::Conflict(
                format!("{MAX_PENDING_APPROVALS} of your calls wait for approval already; wait for a decision first.").into(),
            ));
        }
        let approval = Approval {
            id: crate::secret::new_id("apr"),
            realm_id: caller.realm.id.clone(),
            caller_key: key,
            sub: caller.claims.sub.clone(),
            agent_id: caller.agent.as_ref().map(|a| a.id.to_string()),
            client_id: caller.claims.client_id.clone(),
            server_id: server_id.to_owned(),
            tool: tool.to_owned(),
            arguments_sha256: digest,
            arguments_preview: super::model::redacted_preview(arguments),
            side_effect_class: side_effect_class.to_owned(),
            risk: risk.to_owned(),
            status: ApprovalStatus::Pending,
            requested_at: now,
            expires_at: now + ttl_secs.max(1),
            decided_by: None,
            decided_at: None,
            reason: None,
        };
        let mut event = self.event(
            &caller.realm.id,
            &caller.claims.client_id,
            action::GATEWAY_APPROVAL_REQUEST,
            AuditSubject::RegistryServer(server_id.to_owned()),
            &RequestMeta::default(),
        );
        event.related = caller
            .agent
            .as_ref()
            .map(|a| AuditSubject::Agent(a.name.clone()).target());
        event.details = serde_json::json!({
            "approval": approval.id,
            "capability": approval.capability(),
            "sub": approval.sub,
            "agent_id": approval.agent_id,
            "side_effect_class": approval.side_effect_class,
            "risk": approval.risk,
            "arguments_sha256": approval.arguments_sha256,
            "expires_at": approval.expires_at,
        });
        self.store.insert_approval(&approval, &event).await?;
        Ok(approval)
    }

    /// What an approval id passed back with a call says: run it (the approval is used up, so
    /// it runs once), keep waiting, or refuse. Only the caller who asked, for exactly the same
    /// capability, arguments and subjects, against the same accepted definition, redeems it.
    ///
    /// # Errors
    /// Storage failure.
    pub async fn redeem_gateway_approval(
        &self,
        caller: &GatewayCaller,
        id: &str,
        (server_id, tool): (&str, &str),
        (arguments, subject_ids, definition_sha256): (&serde_json::Value, &[String], &str),
    ) -> Result<Redeemed> {
        let call = (arguments, subject_ids, definition_sha256);
        let Some(a) = self
            .own_approval(caller, id, (server_id, tool), call)
            .await?
        else {
            return Ok(Redeemed::Unknown);
        };
        let now = self.now();
        Ok(match a.status_at(now) {
            ApprovalStatus::Pending => Redeemed::Waiting(a.expires_at),
            ApprovalStatus::Approved if self.store.use_approval(&a.id, now).await? => Redeemed::Run,
            ApprovalStatus::Approved => Redeemed::Refused(ApprovalStatus::Used),
            other => Redeemed::Refused(other),
        })
    }

    /// The caller stops waiting for a call (the person at the client declined to go on): a
    /// waiting approval is denied, so nobody approves what its caller gave up. Only the caller
    /// who asked, for exactly the same call, withdraws it; whether it was theirs and waiting.
    ///
    /// # Errors
    /// Storage failure.
    pub async fn withdraw_gateway_approval(
        &self,
        caller: &GatewayCaller,
        id: &str,
        (server_id, tool): (&str, &str),
        (arguments, subject_ids, definition_sha256): (&serde_json::Value, &[String], &str),
    ) -> Result<bool> {
        let call = (arguments, subject_ids, definition_sha256);
        let Some(mut a) = self
            .own_approval(caller, id, (server_id, tool), call)
            .await?
        else {
            return Ok(false);
        };
        let now = self.now();
        if a.status_at(now) != ApprovalStatus::Pending {
            return Ok(false);
        }
        a.status = ApprovalStatus::Denied;
        a.decided_by = Some(caller.claims.client_id.clone());
        a.decided_at = Some(now);
        a.reason = Some("The caller stopped waiting.".into());
        let mut event = self.event(
            &caller.realm.id,
            &caller.claims.client_id,
            action::GATEWAY_APPROVAL_DENY,
            AuditSubject::RegistryServer(a.server_id.clone()),
            &RequestMeta::default(),
        );
        event.details = serde_json::json!({
            "approval": a.id,
            "capability": a.capability(),
            "sub": a.sub,
            "agent_id": a.agent_id,
            "reason": a.reason,
            "withdrawn": true,
        });
        match self.store.decide_approval(&a, now, &event).await {
            Ok(()) => Ok(true),
            // Decided or lapsed meanwhile: nothing left to withdraw.
            Err(StorageError::Conflict(_)) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// Approval `id`, if it is `caller`'s and for exactly this call (same capability,
    /// arguments, subjects and accepted definition); `None` for anything else.
    async fn own_approval(
        &self,
        caller: &GatewayCaller,
        id: &str,
        (server_id, tool): (&str, &str),
        (arguments, subject_ids, definition_sha256): (&serde_json::Value, &[String], &str),
    ) -> Result<Option<Approval>> {
        if id.len() > 64 {
            return Ok(None);
        }
        Ok(self
            .store
            .find_approval(&caller.realm.id, id)
            .await?
            .filter(|a| {
                a.caller_key == caller.key()
                    && a.server_id == server_id
                    && a.tool == tool
                    && super::model::call_digest(arguments, subject_ids, definition_sha256)
                        == a.arguments_sha256
            }))
    }

    /// A realm's gateway approvals `p` may decide, newest first: those waiting now, or every
    /// one (at most 500), each with its agent's name. Reviewers and admins see every call;
    /// anyone else the calls of the agents they own.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn list_gateway_approvals(
        &self,
        p: &Principal,
        realm_name: &str,
        waiting_only: bool,
    ) -> Result<Vec<(Approval, Option<String>)>> {
        p.require(Permission::ViewRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let now = self.now();
        let list = self
            .store
            .list_approvals(&realm.id, waiting_only.then_some(now), 500)
            .await?;
        let mut out = Vec::with_capacity(list.len());
        for a in list {
            let agent = self.approval_agent(&a).await?;
            if may_decide(p, agent.as_ref(), &a) {
                out.push((a, agent.map(|agent| agent.name)));
            }
        }
        Ok(out)
    }

    /// The agent a call was made for, if any (and still there).
    async fn approval_agent(&self, a: &Approval) -> Result<Option<crate::agents::Agent>> {
        match &a.agent_id {
            Some(id) => {
                self.cached_agent(&crate::ids::AgentId::from_stored(id.as_str()))
                    .await
            }
            None => Ok(None),
        }
    }

    /// Approves or denies a waiting call. Approved, it may be run once within the approval's
    /// time (counted again from now).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm or approval), `Conflict` (decided already or lapsed),
    /// `InvalidField` (`reason`: over 500 characters).
    pub async fn decide_gateway_approval(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        approve: bool,
        reason: &str,
        meta: &RequestMeta,
    ) -> Result<Approval> {
        let ttl_secs = self.config().gateway_approval_ttl_secs;
        p.require(Permission::ViewRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let reason = reason.trim();
        if reason.chars().count() > 500 {
            return Err(Error::field("reason", "At most 500 characters."));
        }
        let mut a = self
            .store
            .find_approval(&realm.id, id)
            .await?
            .ok_or_else(|| Error::not_found("approval", id.chars().take(64).collect::<String>()))?;
        if !may_decide(p, self.approval_agent(&a).await?.as_ref(), &a) {
            return Err(Error::Forbidden);
        }
        let now = self.now();
        if a.status_at(now) != ApprovalStatus::Pending {
            return Err(Error::Conflict(
                format!("This call is {} already.", a.status_at(now).as_str()).into(),
            ));
        }
        a.status = if approve {
            ApprovalStatus::Approved
        } else {
            ApprovalStatus::Denied
        };
        a.decided_by = Some(p.email.clone());
        a.decided_at = Some(now);
        a.reason = (!reason.is_empty()).then(|| reason.to_owned());
        if approve {
            a.expires_at = now + ttl_secs.max(1);
        }
        let mut event = self.event(
            &realm.id,
            &p.email,
            if approve {
                action::GATEWAY_APPROVAL_APPROVE
            } else {
                action::GATEWAY_APPROVAL_DENY
            },
            AuditSubject::RegistryServer(a.server_id.clone()),
            meta,
        );
        event.details = serde_json::json!({
            "approval": a.id,
            "capability": a.capability(),
            "sub": a.sub,
            "agent_id": a.agent_id,
            "reason": a.reason,
        });
        self.store
            .decide_approval(&a, now, &event)
            .await
            .map_err(|e| match e {
                StorageError::Conflict(m) => Error::Conflict(m.into()),
                other => Error::Storage(other),
            })?;
        Ok(a)
    }

    /// How many gateway calls wait for `p`'s decision in a realm (every one for reviewers,
    /// their agents' for owners): the console's badge.
    ///
    /// # Errors
    /// `NotFound` (realm), storage failure.
    pub async fn gateway_waiting_count(&self, p: &Principal, realm_name: &str) -> Result<usize> {
        if p.role.can(Permission::ReviewClients) {
            let realm = self.find_realm(realm_name).await?;
            return Ok(self
                .store
                .list_approvals(&realm.id, Some(self.now()), 100)
                .await?
                .len());
        }
        Ok(self
            .list_gateway_approvals(p, realm_name, true)
            .await?
            .len())
    }
}

/// Whether `p` may decide call `a`, made for `agent`: reviewers and admins any call; an
/// agent's owner (the e-mail address on it, compared without case) the calls that agent made
/// on its own (no person behind the token, whose data an owner has no business reading) and
/// that are not destructive (`high` risk: a security reviewer's second pair of eyes).
fn may_decide(p: &Principal, agent: Option<&crate::agents::Agent>, a: &Approval) -> bool {
    p.role.can(Permission::ReviewClients)
        || (a.sub == a.client_id
            && a.risk != "high"
            && agent.is_some_and(|agent| {
                !agent.owner.is_empty() && agent.owner.eq_ignore_ascii_case(&p.email)
            }))
}
