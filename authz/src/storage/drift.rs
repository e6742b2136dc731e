//! Drift report persistence: the latest report of each device (replaced in place), its
//! findings as rows for the realm's summary.
use crate::audit::NewAuditEvent;
use crate::drift::{DriftCursor, DriftRow, DriftSummary, DriftTally, StoredDriftReport};
use crate::error::StorageError;
use crate::realms::RealmId;
use async_trait::async_trait;
use portcullis_manifest::drift::{DriftReport, FindingKind};

/// Drift report persistence.
#[async_trait]
pub trait DriftStore: Send + Sync {
    /// Stores the report in place of the device's previous one, unless that one arrived after
    /// `not_before` (then `false`, nothing written); then keeps the subject's `max_devices`
    /// most recently heard devices and forgets the others.
    async fn save_drift_report(
        &self,
        r: &StoredDriftReport,
        not_before: i64,
        max_devices: u32,
    ) -> Result<bool, StorageError>;
    /// Devices, newest report first, after `after`: those whose person's email or whose name
    /// contains `search`, only those with findings when `drifting_only`; at most `limit`.
    async fn list_drift_reports(
        &self,
        realm_id: &RealmId,
        search: Option<&str>,
        drifting_only: bool,
        after: Option<&DriftCursor>,
        limit: u32,
    ) -> Result<Vec<DriftRow>, StorageError>;
    /// The realm's devices in numbers (`latest`: the latest release's id; `stale_before`: a
    /// report older than this is stale).
    async fn drift_summary(
        &self,
        realm_id: &RealmId,
        latest: Option<&str>,
        stale_before: i64,
    ) -> Result<DriftSummary, StorageError>;
    /// The `limit` server names found on the most devices.
    async fn drift_tally(
        &self,
        realm_id: &RealmId,
        limit: u32,
    ) -> Result<Vec<DriftTally>, StorageError>;
    /// One device's row and report.
    async fn find_drift_report(
        &self,
        realm_id: &RealmId,
        subject: &str,
        device: &str,
    ) -> Result<Option<(DriftRow, DriftReport)>, StorageError>;
    /// Forgets one device's report, with its audit event; `NotFound` when there is none.
    async fn delete_drift_report(
        &self,
        realm_id: &RealmId,
        subject: &str,
        device: &str,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
}

/// Upserts a device's report unless its previous one is newer than `$12`.
pub(super) const UPSERT_REPORT: &str = "INSERT INTO drift_reports (realm_id, subject, device, user_id, person_id, received_at, release_id, release_sequence, findings, problems, report) \
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
    ON CONFLICT (realm_id, subject, device) DO UPDATE SET received_at = excluded.received_at, release_id = excluded.release_id, \
    release_sequence = excluded.release_sequence, findings = excluded.findings, problems = excluded.problems, report = excluded.report \
    WHERE drift_reports.received_at <= $12";
pub(super) const DELETE_FINDINGS: &str =
    "DELETE FROM drift_findings WHERE realm_id = $1 AND subject = $2 AND device = $3";
pub(super) const INSERT_FINDING: &str = "INSERT INTO drift_findings (realm_id, subject, device, kind, name) VALUES ($1, $2, $3, $4, $5)";
/// Keeps the subject's `$3` most recently heard devices.
pub(super) const PRUNE_DEVICES: &str = "DELETE FROM drift_reports WHERE realm_id = $1 AND subject = $2 AND device NOT IN \
    (SELECT device FROM drift_reports WHERE realm_id = $1 AND subject = $2 ORDER BY received_at DESC, device LIMIT $3)";
pub(super) const ROW_COLUMNS: &str = "d.subject, COALESCE(u.email, p.email, d.subject) AS email, d.device, d.received_at, d.release_id, d.release_sequence, d.findings, d.problems";
pub(super) const ROW_FROM: &str = "FROM drift_reports d LEFT JOIN users u ON u.id = d.user_id LEFT JOIN people p ON p.id = d.person_id";
pub(super) const SUMMARY: &str = "SELECT COUNT(*), COUNT(DISTINCT subject), \
    COALESCE(SUM(CASE WHEN findings > 0 THEN 1 ELSE 0 END), 0), \
    COALESCE(SUM(CASE WHEN release_id = $2 THEN 1 ELSE 0 END), 0), \
    COALESCE(SUM(CASE WHEN received_at < $3 THEN 1 ELSE 0 END), 0) \
    FROM drift_reports WHERE realm_id = $1";
pub(super) const TALLY: &str = "SELECT kind, name, COUNT(DISTINCT subject || '/' || device) AS devices FROM drift_findings \
    WHERE realm_id = $1 GROUP BY kind, name ORDER BY devices DESC, name, kind LIMIT $2";
pub(super) const DELETE_REPORT: &str =
    "DELETE FROM drift_reports WHERE realm_id = $1 AND subject = $2 AND device = $3";

/// `(subject, email, device, received_at, release_id, release_sequence, findings, problems)`.
pub(super) type DriftRowTuple = (String, String, String, i64, String, i64, i64, i64);

pub(super) fn row_from(r: DriftRowTuple) -> DriftRow {
    let count = |n: i64| u64::try_from(n).unwrap_or(0);
    DriftRow {
        subject: r.0,
        email: r.1,
        device: r.2,
        received_at: r.3,
        release_id: r.4,
        release_sequence: r.5,
        findings: count(r.6),
        problems: count(r.7),
    }
}

pub(super) fn kind_from(s: &str) -> Result<FindingKind, StorageError> {
    match s {
        "unapproved" => Ok(FindingKind::Unapproved),
        "version-drift" => Ok(FindingKind::VersionDrift),
        other => Err(StorageError::Corrupt(format!("finding kind {other}"))),
    }
}

pub(super) fn report_json(r: &DriftReport) -> Result<String, StorageError> {
    serde_json::to_string(r).map_err(|e| StorageError::Corrupt(e.to_string()))
}

pub(super) fn report_from(json: &str) -> Result<DriftReport, StorageError> {
    serde_json::from_str(json).map_err(|e| StorageError::Corrupt(format!("drift report: {e}")))
}

/// Implements [`DriftStore`] for one backend's store.
macro_rules! drift_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::drift::{
                DriftCursor, DriftRow, DriftSummary, DriftTally, Reporter, StoredDriftReport,
            };
            use $crate::error::StorageError;
            use $crate::realms::RealmId;
            use $crate::storage::drift::*;
            use portcullis_manifest::drift::DriftReport;

            #[async_trait::async_trait]
            impl DriftStore for $store {
                async fn save_drift_report(
                    &self,
                    r: &StoredDriftReport,
                    not_before: i64,
                    max_devices: u32,
                ) -> Result<bool, StorageError> {
                    let (user, person) = match r.reporter {
                        Reporter::User => (Some(r.subject.as_str()), None),
                        Reporter::Person => (None, Some(r.subject.as_str())),
                    };
                    let findings = u64::from(r.report.omitted_findings)
                        + r.report.findings.len() as u64;
                    let problems = u64::from(r.report.omitted_problems)
                        + r.report.problems.len() as u64;
                    let realm = r.realm_id.as_str();
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(UPSERT_REPORT)
                        .bind(realm)
                        .bind(&r.subject)
                        .bind(&r.device)
                        .bind(user)
                        .bind(person)
                        .bind(r.received_at)
                        .bind(&r.report.release)
                        .bind(i64::try_from(r.report.sequence).unwrap_or(i64::MAX))
                        .bind(i64::try_from(findings).unwrap_or(i64::MAX))
                        .bind(i64::try_from(problems).unwrap_or(i64::MAX))
                        .bind(report_json(&r.report)?)
                        .bind(not_before)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                    sqlx::query(DELETE_FINDINGS)
                        .bind(realm)
                        .bind(&r.subject)
                        .bind(&r.device)
                        .execute(&mut *tx)
                        .await?;
                    for f in &r.report.findings {
                        sqlx::query(INSERT_FINDING)
                            .bind(realm)
                            .bind(&r.subject)
                            .bind(&r.device)
                            .bind(f.kind.as_str())
                            .bind(&f.name)
                            .execute(&mut *tx)
                            .await?;
                    }
                    sqlx::query(PRUNE_DEVICES)
                        .bind(realm)
                        .bind(&r.subject)
                        .bind(i64::from(max_devices))
                        .execute(&mut *tx)
                        .await?;
                    tx.commit().await?;
                    Ok(true)
                }

                async fn list_drift_reports(
                    &self,
                    realm_id: &RealmId,
                    search: Option<&str>,
                    drifting_only: bool,
                    after: Option<&DriftCursor>,
                    limit: u32,
                ) -> Result<Vec<DriftRow>, StorageError> {
                    let mut qb = sqlx::QueryBuilder::<$db>::new(format!(
                        "SELECT {ROW_COLUMNS} {ROW_FROM} WHERE d.realm_id = "
                    ));
                    qb.push_bind(realm_id.as_str().to_owned());
                    if let Some(q) = search {
                        push_text_search(&mut qb, q, &["u.email", "p.email", "d.device"], None);
                    }
                    if drifting_only {
                        qb.push(" AND d.findings > 0");
                    }
                    if let Some(c) = after {
                        qb.push(" AND (d.received_at < ")
                            .push_bind(c.received_at)
                            .push(" OR (d.received_at = ")
                            .push_bind(c.received_at)
                            .push(" AND (d.subject > ")
                            .push_bind(c.subject.clone())
                            .push(" OR (d.subject = ")
                            .push_bind(c.subject.clone())
                            .push(" AND d.device > ")
                            .push_bind(c.device.clone())
                            .push("))))");
                    }
                    qb.push(" ORDER BY d.received_at DESC, d.subject, d.device LIMIT ")
                        .push_bind(i64::from(limit));
                    Ok(qb
                        .build_query_as::<DriftRowTuple>()
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(row_from)
                        .collect())
                }

                async fn drift_summary(
                    &self,
                    realm_id: &RealmId,
                    latest: Option<&str>,
                    stale_before: i64,
                ) -> Result<DriftSummary, StorageError> {
                    let r: (i64, i64, i64, i64, i64) = sqlx::query_as(SUMMARY)
                        .bind(realm_id.as_str())
                        .bind(latest)
                        .bind(stale_before)
                        .fetch_one(&self.pool)
                        .await?;
                    let count = |n: i64| u64::try_from(n).unwrap_or(0);
                    Ok(DriftSummary {
                        devices: count(r.0),
                        people: count(r.1),
                        drifting: count(r.2),
                        on_latest: count(r.3),
                        stale: count(r.4),
                    })
                }

                async fn drift_tally(
                    &self,
                    realm_id: &RealmId,
                    limit: u32,
                ) -> Result<Vec<DriftTally>, StorageError> {
                    let rows: Vec<(String, String, i64)> = sqlx::query_as(TALLY)
                        .bind(realm_id.as_str())
                        .bind(i64::from(limit))
                        .fetch_all(&self.pool)
                        .await?;
                    rows.into_iter()
                        .map(|(kind, name, devices)| {
                            Ok(DriftTally {
                                kind: kind_from(&kind)?,
                                name,
                                devices: u64::try_from(devices).unwrap_or(0),
                            })
                        })
                        .collect()
                }

                async fn find_drift_report(
                    &self,
                    realm_id: &RealmId,
                    subject: &str,
                    device: &str,
                ) -> Result<Option<(DriftRow, DriftReport)>, StorageError> {
                    let sql = format!(
                        "SELECT {ROW_COLUMNS}, d.report {ROW_FROM} WHERE d.realm_id = $1 AND d.subject = $2 AND d.device = $3"
                    );
                    let found: Option<(
                        String,
                        String,
                        String,
                        i64,
                        String,
                        i64,
                        i64,
                        i64,
                        String,
                    )> = sqlx::query_as(&sql)
                        .bind(realm_id.as_str())
                        .bind(subject)
                        .bind(device)
                        .fetch_optional(&self.pool)
                        .await?;
                    found
                        .map(|r| {
                            let report = report_from(&r.8)?;
                            Ok((row_from((r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7)), report))
                        })
                        .transpose()
                }

                async fn delete_drift_report(
                    &self,
                    realm_id: &RealmId,
                    subject: &str,
                    device: &str,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(DELETE_REPORT)
                        .bind(realm_id.as_str())
                        .bind(subject)
                        .bind(device)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    self.commit_uncached(tx, event).await
                }
            }
        };
    };
}
