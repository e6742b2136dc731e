//! Drift operations: a laptop's report comes in; the console reads the realm's devices.
use super::model::{
    DRIFT_PAGE, DriftDevice, DriftOverview, DriftQuery, DriftReceipt, MAX_DEVICES,
    REPORT_INTERVAL_SECS, Reporter, STALE_AFTER_SECS, StoredDriftReport, TOP_FINDINGS,
};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result, StorageError};
use crate::policy::{Permission, Principal};
use crate::registry::ApiAccess;
use portcullis_manifest::drift::DriftReport;

impl Core {
    /// Stores a device's drift report, sent with its person's registry sign-in token
    /// (`portcullis-cli login`), in place of the device's previous one.
    ///
    /// # Errors
    /// `NotFound` (realm; its registry is not served over HTTP), `OAuth(invalid_token)` (no
    /// live registry token of a person), `Invalid` (a field over its limit, in words),
    /// `Throttled` (the device reported less than a minute ago), storage failure.
    pub async fn report_drift(
        &self,
        realm_name: &str,
        bearer: Option<&str>,
        report: DriftReport,
    ) -> Result<DriftReceipt> {
        let realm = self.serving_realm(realm_name).await?;
        if self.registry_of(&realm).await?.api_access == ApiAccess::Off {
            return Err(Error::not_found("registry", realm_name));
        }
        let token = bearer.ok_or_else(person_required)?;
        let claims = self.registry_bearer(&realm, token).await?;
        // A person's (or console user's) sign-in: machine credentials have no laptop.
        if claims.origin.root_family().is_none() {
            return Err(person_required());
        }
        report.check().map_err(Error::invalid)?;
        let reporter = if claims.sub.starts_with("usr_") {
            Reporter::User
        } else {
            Reporter::Person
        };
        let now = self.now();
        let latest = self
            .store
            .latest_release_head(&realm.id)
            .await?
            .is_some_and(|head| head.id == report.release);
        let stored = StoredDriftReport {
            realm_id: realm.id.clone(),
            subject: claims.sub,
            reporter,
            device: report.device.clone(),
            received_at: now,
            report,
        };
        let interval = i64::try_from(REPORT_INTERVAL_SECS).unwrap_or(i64::MAX);
        let saved = self
            .store
            .save_drift_report(&stored, now - interval, MAX_DEVICES)
            .await?;
        if !saved {
            return Err(Error::Throttled {
                retry_after_secs: REPORT_INTERVAL_SECS,
            });
        }
        Ok(DriftReceipt {
            received_at: now,
            latest,
        })
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
        let top = self.store.drift_tally(&realm.id, TOP_FINDINGS).await?;
        let search = q.search.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let mut rows = self
            .store
            .list_drift_reports(
                &realm.id,
                search,
                q.drifting_only,
                q.after.as_ref(),
                DRIFT_PAGE + 1,
            )
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
        Ok(DriftDevice {
            row,
            report,
            latest,
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
