//! Drift report persistence: the latest report of each device (replaced in place), its
//! findings as rows for the realm's summary.
use crate::audit::NewAuditEvent;
use crate::drift::{
    DriftCursor, DriftQuery, DriftRow, DriftSummary, DriftTally, StoredDriftReport,
};
use crate::error::StorageError;
use crate::realms::RealmId;
use async_trait::async_trait;
use portcullis_manifest::drift::{DriftReport, FindingKind};

/// What became of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Saved {
    /// Stored in place of the device's previous report.
    Stored,
    /// The device's previous report is newer than the interval allows: nothing written.
    TooSoon,
    /// A new device of a person who has as many as allowed, none of them stale: nothing
    /// written.
    TooManyDevices,
}

/// Drift report persistence.
#[async_trait]
pub trait DriftStore: Send + Sync {
    /// Stores the report in place of the device's previous one, unless that one arrived after
    /// `not_before`. A device new to its person takes the place of their device heard from
    /// longest ago when they have `max_devices` already and that one is older than
    /// `stale_before`; otherwise it is refused. Findings are stored once per kind and name.
    async fn save_drift_report(
        &self,
        r: &StoredDriftReport,
        not_before: i64,
        (max_devices, stale_before): (u32, i64),
    ) -> Result<Saved, StorageError>;
    /// The sequence number of the realm's release `id`, if it is one.
    async fn release_sequence(
        &self,
        realm_id: &RealmId,
        id: &str,
    ) -> Result<Option<i64>, StorageError>;
    /// Devices, newest report first, after `after`: those whose person's email or whose name
    /// contains `q.search`, of `q.subject` alone when given, only those with findings when
    /// `q.drifting_only`; at most `limit`.
    async fn list_drift_reports(
        &self,
        realm_id: &RealmId,
        q: &DriftQuery,
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
    /// The `limit` server names found on the devices of the most people.
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
pub(super) const INSERT_FINDINGS: &str =
    "INSERT INTO drift_findings (realm_id, subject, device, kind, name) ";
pub(super) const DEVICE_EXISTS: &str =
    "SELECT COUNT(*) FROM drift_reports WHERE realm_id = $1 AND subject = $2 AND device = $3";
/// The subject's devices: how many, and the one heard from longest ago.
pub(super) const DEVICES_OF: &str = "SELECT device, received_at FROM drift_reports WHERE realm_id = $1 AND subject = $2 ORDER BY received_at, device";
pub(super) const RELEASE_SEQUENCE: &str =
    "SELECT sequence FROM registry_releases WHERE realm_id = $1 AND id = $2";
pub(super) const ROW_COLUMNS: &str = "d.subject, COALESCE(u.email, p.email, d.subject) AS email, d.device, d.received_at, d.release_id, d.release_sequence, d.findings, d.problems";
pub(super) const ROW_FROM: &str = "FROM drift_reports d LEFT JOIN users u ON u.id = d.user_id LEFT JOIN people p ON p.id = d.person_id";
pub(super) const SUMMARY: &str = "SELECT COUNT(*), COUNT(DISTINCT subject), \
    COALESCE(SUM(CASE WHEN findings > 0 THEN 1 ELSE 0 END), 0), \
    COALESCE(SUM(CASE WHEN release_id = $2 THEN 1 ELSE 0 END), 0), \
    COALESCE(SUM(CASE WHEN received_at < $3 THEN 1 ELSE 0 END), 0) \
    FROM drift_reports WHERE realm_id = $1";
/// People, not devices: one person's many devices cannot push a name up.
pub(super) const TALLY: &str = "SELECT kind, name, COUNT(DISTINCT subject) AS people FROM drift_findings \
    WHERE realm_id = $1 GROUP BY kind, name ORDER BY people DESC, name, kind LIMIT $2";
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
                DriftCursor, DriftQuery, DriftRow, DriftSummary, DriftTally, Reporter, StoredDriftReport,
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
                    (max_devices, stale_before): (u32, i64),
                ) -> Result<Saved, StorageError> {
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
                    let (known,): (i64,) = sqlx::query_as(DEVICE_EXISTS)
                        .bind(realm)
                        .bind(&r.subject)
                        .bind(&r.device)
                        .fetch_one(&mut *tx)
                        .await?;
                    if known == 0 {
                        let devices: Vec<(String, i64)> = sqlx::query_as(DEVICES_OF)
                            .bind(realm)
                            .bind(&r.subject)
                            .fetch_all(&mut *tx)
                            .await?;
                        if devices.len() >= max_devices as usize {
                            match devices.first() {
                                Some((oldest, at)) if *at < stale_before => {
                                    sqlx::query(DELETE_REPORT)
                                        .bind(realm)
                                        .bind(&r.subject)
                                        .bind(oldest)
                                        .execute(&mut *tx)
                                        .await?;
                                }
                                _ => {
                                    tx.rollback().await?;
                                    return Ok(Saved::TooManyDevices);
                                }
                            }
                        }
                    }
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
                        return Ok(Saved::TooSoon);
                    }
                    sqlx::query(DELETE_FINDINGS)
                        .bind(realm)
                        .bind(&r.subject)
                        .bind(&r.device)
                        .execute(&mut *tx)
                        .await?;
                    let distinct: std::collections::BTreeSet<(&str, &str)> = r
                        .report
                        .findings
                        .iter()
                        .map(|f| (f.kind.as_str(), f.name.as_str()))
                        .collect();
                    if !distinct.is_empty() {
                        let mut qb = sqlx::QueryBuilder::<$db>::new(INSERT_FINDINGS);
                        qb.push_values(distinct, |mut row, (kind, name)| {
                            row.push_bind(realm.to_owned())
                                .push_bind(r.subject.clone())
                                .push_bind(r.device.clone())
                                .push_bind(kind.to_owned())
                                .push_bind(name.to_owned());
                        });
                        qb.build().execute(&mut *tx).await?;
                    }
                    tx.commit().await?;
                    Ok(Saved::Stored)
                }

                async fn release_sequence(
                    &self,
                    realm_id: &RealmId,
                    id: &str,
                ) -> Result<Option<i64>, StorageError> {
                    Ok(sqlx::query_as::<_, (i64,)>(RELEASE_SEQUENCE)
                        .bind(realm_id.as_str())
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await?
                        .map(|(s,)| s))
                }

                async fn list_drift_reports(
                    &self,
                    realm_id: &RealmId,
                    q: &DriftQuery,
                    after: Option<&DriftCursor>,
                    limit: u32,
                ) -> Result<Vec<DriftRow>, StorageError> {
                    let mut qb = sqlx::QueryBuilder::<$db>::new(format!(
                        "SELECT {ROW_COLUMNS} {ROW_FROM} WHERE d.realm_id = "
                    ));
                    qb.push_bind(realm_id.as_str().to_owned());
                    if let Some(text) = q.search.as_deref() {
                        push_text_search(&mut qb, text, &["u.email", "p.email", "d.device"], None);
                    }
                    if let Some(subject) = &q.subject {
                        qb.push(" AND d.subject = ").push_bind(subject.clone());
                    }
                    if q.drifting_only {
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
                        .map(|(kind, name, people)| {
                            Ok(DriftTally {
                                kind: kind_from(&kind)?,
                                name,
                                people: u64::try_from(people).unwrap_or(0),
                                in_latest: false,
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
