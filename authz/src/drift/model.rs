//! Drift's types: a stored report, a device's row in the list, the realm's summary.
use crate::realms::RealmId;
use portcullis_manifest::drift::{DriftReport, FindingKind};

/// Most devices per person: a new one beyond this takes the place of a stale one (no report
/// for [`STALE_AFTER_SECS`]), or is refused.
pub const MAX_DEVICES: u32 = 20;
/// Shortest time between two reports of one device, in seconds.
pub const REPORT_INTERVAL_SECS: u64 = 60;
/// A device not heard from for this long is stale, in seconds (a week).
pub const STALE_AFTER_SECS: i64 = 7 * 86_400;
/// Devices per page of the list.
pub const DRIFT_PAGE: u32 = 50;
/// Server names in the realm's "most common findings".
pub const TOP_FINDINGS: u32 = 10;

/// Who reported: a person of the realm or a console user signed in at its pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reporter {
    /// A console user (`usr_…`).
    User,
    /// A person of the realm.
    Person,
}

/// A report as stored: the latest of one device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredDriftReport {
    /// The realm.
    pub realm_id: RealmId,
    /// The person's or user's id (the token's `sub`).
    pub subject: String,
    /// Which of the two the subject is.
    pub reporter: Reporter,
    /// The device's name.
    pub device: String,
    /// When it arrived (Unix seconds).
    pub received_at: i64,
    /// The report.
    pub report: DriftReport,
}

/// Where a page of devices starts: after this device in the list's order (newest report
/// first, then subject and device).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftCursor {
    /// The last row's report time.
    pub received_at: i64,
    /// Its subject.
    pub subject: String,
    /// Its device.
    pub device: String,
}

impl DriftCursor {
    /// The cursor as one opaque string (`received_at:subject:device`).
    pub fn encode(&self) -> String {
        format!("{}:{}:{}", self.received_at, self.subject, self.device)
    }

    /// Reads [`DriftCursor::encode`]'s form; `None` when it is not one.
    pub fn decode(s: &str) -> Option<DriftCursor> {
        let mut parts = s.splitn(3, ':');
        let received_at = parts.next()?.parse().ok()?;
        let subject = parts.next()?.to_owned();
        let device = parts.next()?.to_owned();
        Some(DriftCursor {
            received_at,
            subject,
            device,
        })
    }
}

/// Which devices to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriftQuery {
    /// A substring of the person's email or the device's name.
    pub search: Option<String>,
    /// Exactly this person's (or console user's) devices, by id.
    pub subject: Option<String>,
    /// Only devices whose last report found something.
    pub drifting_only: bool,
    /// Start after this device (the next page).
    pub after: Option<DriftCursor>,
}

/// A device's row: its owner and its last report in numbers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftRow {
    /// The person's or user's id.
    pub subject: String,
    /// Their email (the id when they have none any more).
    pub email: String,
    /// The device's name.
    pub device: String,
    /// When its last report arrived.
    pub received_at: i64,
    /// The release it compared with.
    pub release_id: String,
    /// That release's sequence number.
    pub release_sequence: i64,
    /// Findings in the report (with those left out of it).
    pub findings: u64,
    /// Files it could not read.
    pub problems: u64,
}

/// The realm's devices in numbers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DriftSummary {
    /// Devices that have reported.
    pub devices: u64,
    /// People (and console users) they belong to.
    pub people: u64,
    /// Devices whose last report found something.
    pub drifting: u64,
    /// Devices whose last report compared with the latest release.
    pub on_latest: u64,
    /// Devices not heard from for [`STALE_AFTER_SECS`].
    pub stale: u64,
}

/// A server name found on several people's devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftTally {
    /// What is wrong with it.
    pub kind: FindingKind,
    /// The name it is configured under.
    pub name: String,
    /// On the devices of how many people.
    pub people: u64,
    /// A server of the latest release has this id now (reports made before it may still
    /// name it).
    pub in_latest: bool,
}

/// The drift screen: the summary, the most common findings and a page of devices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftOverview {
    /// The realm in numbers.
    pub summary: DriftSummary,
    /// The latest release's id and sequence, if one was published.
    pub latest: Option<(String, i64)>,
    /// The server names found on the devices of the most people.
    pub top: Vec<DriftTally>,
    /// The page of devices.
    pub rows: Vec<DriftRow>,
    /// Where the next page starts, when there is one.
    pub next: Option<DriftCursor>,
}

/// One device's last report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftDevice {
    /// Its row.
    pub row: DriftRow,
    /// The report as it came.
    pub report: DriftReport,
    /// The latest release's id and sequence, if one was published.
    pub latest: Option<(String, i64)>,
    /// The rings its person is in now (the report says what the laptop pulled for).
    pub rings_now: Vec<String>,
    /// The units its person is in now.
    pub units_now: Vec<String>,
}

/// What a reporting laptop is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftReceipt {
    /// When the report was stored.
    pub received_at: i64,
    /// Whether it compared with the realm's latest release (if not: pull again).
    pub latest: bool,
}
