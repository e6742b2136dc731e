//! Drift reports as the console shows them.
use super::moment;
use crate::types::registry::{
    DriftDeviceView, DriftFindingView, DriftProblemView, DriftRowView, DriftTallyView, DriftView,
};
use authz::drift::{DriftDevice, DriftOverview, DriftRow, STALE_AFTER_SECS};

fn row_view(r: &DriftRow, latest: Option<&str>, now: i64) -> DriftRowView {
    DriftRowView {
        subject: r.subject.clone(),
        email: r.email.clone(),
        device: r.device.clone(),
        received: moment(now, r.received_at),
        release_sequence: r.release_sequence,
        latest: latest == Some(r.release_id.as_str()),
        stale: r.received_at < now - STALE_AFTER_SECS,
        findings: r.findings,
        problems: r.problems,
    }
}

/// The Drift screen.
pub fn drift_view(v: &DriftOverview, now: i64) -> DriftView {
    let latest = v.latest.as_ref().map(|(id, _)| id.as_str());
    DriftView {
        devices: v.summary.devices,
        people: v.summary.people,
        drifting: v.summary.drifting,
        on_latest: v.summary.on_latest,
        stale: v.summary.stale,
        latest_sequence: v.latest.as_ref().map(|(_, s)| *s),
        top: v
            .top
            .iter()
            .map(|t| DriftTallyView {
                kind: t.kind.as_str().to_owned(),
                name: t.name.clone(),
                people: t.people,
                in_latest: t.in_latest,
            })
            .collect(),
        rows: v.rows.iter().map(|r| row_view(r, latest, now)).collect(),
        next: v.next.as_ref().map(|c| c.encode()).unwrap_or_default(),
    }
}

/// One device's page.
pub fn drift_device_view(d: &DriftDevice, now: i64) -> DriftDeviceView {
    let r = &d.report;
    DriftDeviceView {
        row: row_view(&d.row, d.latest.as_ref().map(|(id, _)| id.as_str()), now),
        latest_sequence: d.latest.as_ref().map(|(_, s)| *s),
        rings: r.rings.clone(),
        units: r.units.clone(),
        rings_now: d.rings_now.clone(),
        units_now: d.units_now.clone(),
        approved: r.approved,
        files_read: r.files_read,
        findings: r
            .findings
            .iter()
            .map(|f| DriftFindingView {
                kind: f.kind.as_str().to_owned(),
                harness: f.harness.as_str().to_owned(),
                source: f.source.clone(),
                name: f.name.clone(),
                transport: f.transport.as_str().to_owned(),
                host: f.host.clone().unwrap_or_default(),
                definition_sha256: f.definition_sha256.clone(),
                fix: f.fix.clone(),
            })
            .collect(),
        omitted_findings: r.omitted_findings,
        problems: r
            .problems
            .iter()
            .map(|p| DriftProblemView {
                harness: p.harness.as_str().to_owned(),
                source: p.source.clone(),
                message: p.message.clone(),
            })
            .collect(),
        omitted_problems: r.omitted_problems,
    }
}
