//! Drift operations: a laptop's report comes in; the console reads the realm's devices.
use super::model::{
    DRIFT_PAGE, DriftDevice, DriftOverview, DriftQuery, DriftReceipt, MAX_DEVICES,
    REPORT_INTERVAL_SECS, Reporter, STALE_AFTER_SECS, StoredDriftReport, TOP_FINDINGS,
};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result, StorageError};
use crate::policy::{Permission, Principal};
use crate::registry::{ApiAccess, GroupKind, MemberKind};
use crate::storage::Saved;
use portcullis_manifest::drift::DriftReport;

impl Core {
    /// Stores a device's drift report (`body`: its JSON), sent by the realm's `portcullis-cli`
    /// with its person's registry sign-in token (`portcullis-cli login`), in place of the
    /// device's previous one.
    ///
    /// # Errors
    /// `NotFound` (realm; its registry is not served over HTTP), `OAuth(invalid_token)` (no
    /// live registry sign-in of a person through the realm's CLI), `Invalid` (not a report, a
    /// field over its limit, not a release of this realm, too many devices), `Throttled` (the
    /// device reported less than a minute ago, or the person too often), storage failure.
    pub async fn report_drift(
        &self,
        realm_name: &str,
        bearer: Option<&str>,
        body: &[u8],
    ) -> Result<DriftReceipt> {
        let realm = self.serving_realm(realm_name).await?;
        if self.registry_of(&realm).await?.api_access == ApiAccess::Off {
            return Err(Error::not_found("registry", realm_name));
        }
        let token = bearer.ok_or_else(person_required)?;
        let claims = self.registry_bearer(&realm, token).await?;
        // A person's (or console user's) own sign-in through the realm's CLI: machine
        // credentials have no laptop, and other apps the person let read the registry (an
        // editor, a self-registered client) do not speak for their devices.
        if claims.origin.root_family().is_none()
            || claims.origin.subject.is_some()
            || claims.act.is_some()
            || !crate::clients::is_first_party(&claims.client_id)
        {
            return Err(person_required());
        }
        let now = self.now();
        // Counted before the body is read: a person (or whoever holds their token) cannot make
        // the server parse and store reports faster than this, whatever devices they name.
        self.login_throttle
            .drift_report(&realm.id, &claims.sub, now)
            .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
        let mut report: DriftReport = serde_json::from_slice(body)
            .map_err(|e| Error::invalid(format!("The body is not a drift report: {e}")))?;
        report.check().map_err(Error::invalid)?;
        // The release it compared with, as this realm numbered it (never the laptop's word).
        let sequence = self
            .store
            .release_sequence(&realm.id, &report.release)
            .await?
            .ok_or_else(|| {
                Error::invalid("release: not a release of this realm (pull again, then report).")
            })?;
        report.sequence = u64::try_from(sequence).unwrap_or_default();
        let latest = self
            .store
            .latest_release_head(&realm.id)
            .await?
            .is_some_and(|head| head.id == report.release);
        let reporter = if claims.sub.starts_with("usr_") {
            Reporter::User
        } else {
            Reporter::Person
        };
        let stored = StoredDriftReport {
            realm_id: realm.id.clone(),
            subject: claims.sub,
            reporter,
            device: report.device.clone(),
            received_at: now,
            report,
        };
        let interval = i64::try_from(REPORT_INTERVAL_SECS).unwrap_or(i64::MAX);
        match self
            .store
            .save_drift_report(
                &stored,
                now - interval,
                (MAX_DEVICES, now - STALE_AFTER_SECS),
            )
            .await?
        {
            Saved::Stored => Ok(DriftReceipt {
                received_at: now,
                latest,
            }),
            Saved::TooSoon => Err(Error::Throttled {
                retry_after_secs: REPORT_INTERVAL_SECS,
            }),
            Saved::TooManyDevices => Err(Error::invalid(format!(
                "device: you have {MAX_DEVICES} devices reporting and none is stale (a week without a report): report under one of their names, or ask an administrator to forget one."
            ))),
        }
    }

    /// The realm's drift: its devices in numbers, the most common findings and a page of
    /// devices, newest report first.
    ///
    /// # Errors
    /// `Forbidden` (people's emails: for those who may see the registry and the realm's
    /// people), `NotFound` (realm), storage failure.
    pub async fn registry_drift(
        &self,
        p: &Principal,
        realm_name: &str,
        q: &DriftQuery,
    ) -> Result<DriftOverview> {
        p.require(Permission::ViewRegistry)?;
        p.require(Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        let latest = self
            .store
            .latest_release_head(&realm.id)
            .await?
            .map(|h| (h.id, h.sequence));
        let summary = self
            .store
            .drift_summary(
                &realm.id,
                latest.as_ref().map(|l| l.0.as_str()),
                self.now() - STALE_AFTER_SECS,
            )
            .await?;
        let mut top = self.store.drift_tally(&realm.id, TOP_FINDINGS).await?;
        if let Some(served) = self.latest_served_registry(&realm).await? {
            for t in &mut top {
                t.in_latest = served.policy.servers.iter().any(|s| s.id == t.name);
            }
        }
        let query = DriftQuery {
            search: q
                .search
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
            ..q.clone()
        };
        let mut rows = self
            .store
            .list_drift_reports(&realm.id, &query, q.after.as_ref(), DRIFT_PAGE + 1)
            .await?;
        let more = rows.len() > DRIFT_PAGE as usize;
        rows.truncate(DRIFT_PAGE as usize);
        let next = more
            .then(|| rows.last())
            .flatten()
            .map(|r| super::model::DriftCursor {
                received_at: r.received_at,
                subject: r.subject.clone(),
                device: r.device.clone(),
            });
        Ok(DriftOverview {
            summary,
            latest,
            top,
            rows,
            next,
        })
    }

    /// One device's last report.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, device), storage failure.
    pub async fn registry_drift_device(
        &self,
        p: &Principal,
        realm_name: &str,
        (subject, device): (&str, &str),
    ) -> Result<DriftDevice> {
        p.require(Permission::ViewRegistry)?;
        p.require(Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        let (row, report) = self
            .store
            .find_drift_report(&realm.id, subject, device)
            .await?
            .ok_or_else(|| Error::not_found("device", device))?;
        let latest = self
            .store
            .latest_release_head(&realm.id)
            .await?
            .map(|h| (h.id, h.sequence));
        let member = if subject.starts_with("usr_") {
            MemberKind::User
        } else {
            MemberKind::Person
        };
        let (mut rings_now, mut units_now) = (Vec::new(), Vec::new());
        for (kind, id) in self.store.groups_of(&realm.id, (member, subject)).await? {
            match kind {
                GroupKind::Ring => rings_now.push(id),
                GroupKind::Unit => units_now.push(id),
            }
        }
        Ok(DriftDevice {
            row,
            report,
            latest,
            rings_now,
            units_now,
        })
    }

    /// Forgets a device's report (a laptop given back): it reappears with its next report.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, device), storage failure.
    pub async fn forget_drift_device(
        &self,
        p: &Principal,
        realm_name: &str,
        (subject, device): (&str, &str),
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageRegistry)?;
        p.require(Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        let who = if subject.starts_with("usr_") {
            AuditSubject::User(subject.to_owned())
        } else {
            AuditSubject::Person(subject.to_owned())
        };
        let mut event = self.event(&realm.id, &p.email, action::DRIFT_FORGET, who, meta);
        event.details = serde_json::json!({ "device": device });
        self.store
            .delete_drift_report(&realm.id, subject, device, &event)
            .await
            .map_err(|e| match e {
                StorageError::NotFound => Error::not_found("device", device),
                other => other.into(),
            })
    }
}

/// The refusal of a report without a person's registry sign-in.
fn person_required() -> Error {
    Error::oauth(
        OAuthErrorCode::InvalidToken,
        "A person's registry sign-in is required: run `portcullis-cli login`.",
    )
}
