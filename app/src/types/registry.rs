//! The MCP server registry (`api::registry`, `pages::registry`): the draft, its servers,
//! releases and the requests that wait for a second person, rings and units, deliveries.
use super::Moment;
use serde::{Deserialize, Serialize};

/// The registry screen: the draft's servers and how the draft stands against the latest
/// release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryView {
    /// The draft's revision (an edit names it).
    pub revision: i64,
    /// `allowlist` or `warn`.
    pub mode: String,
    /// Releases wait for a second person.
    pub require_approval: bool,
    /// Who may read the registry over HTTP: `off`, `bearer` or `public`.
    pub api_access: String,
    /// The MCP Registry API's base URL.
    pub api_url: String,
    /// The URL of the latest signed release.
    pub release_url: String,
    /// Last change to the draft, and by whom.
    pub updated: Option<(Moment, String)>,
    /// The draft's servers, in order.
    pub servers: Vec<ServerRow>,
    /// Ring ids.
    pub rings: Vec<String>,
    /// Units with their parents.
    pub units: Vec<UnitView>,
    /// Warnings about the whole draft (each naming its server).
    pub warnings: Vec<FindingView>,
    /// The latest release.
    pub latest: Option<ReleaseView>,
    /// The draft against the latest release.
    pub unpublished: DiffView,
    /// The request that waits for approval.
    pub pending: Option<RequestView>,
    /// The issuer the latest release names, when it is no longer the realm's.
    pub stale_issuer: Option<String>,
    /// The last request, rejected, with nothing asked for or published since.
    pub rejected: Option<RejectionView>,
    /// Servers the draft removes (still on laptops until published).
    pub removed: Vec<String>,
}

/// A rejected request, for its author.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RejectionView {
    /// Who rejected it.
    pub by: String,
    /// Why.
    pub reason: String,
    /// When.
    pub at: Moment,
    /// What it asked for, in words.
    pub what: String,
}

/// One server of the draft, as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRow {
    /// Id (a slug).
    pub id: String,
    /// Title (may be empty).
    pub title: String,
    /// `remote`, `npm`, `pypi`, `oci` or `command`.
    pub transport: String,
    /// The URL, package name or program.
    pub target: String,
    /// Its name in an MCP registry (may be empty).
    pub registry_name: String,
    /// The pinned version (or image digest, or empty for a URL or command).
    pub version: String,
    /// `none`, `oauth`, `enterprise` or `portcullis`.
    pub auth: String,
    /// Rings that get it.
    pub rings: Vec<String>,
    /// Units that get it.
    pub units: Vec<String>,
    /// What its checks warn about.
    pub warnings: Vec<String>,
    /// `published` (as in the latest release), `new` or `changed`.
    pub state: String,
}

/// A unit of the organisation and the unit above it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitView {
    /// Id.
    pub id: String,
    /// Parent id (empty at the top).
    pub parent: String,
}

/// A warning or error, naming its field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindingView {
    /// Path into the input (`package.version`, `servers[2].url`).
    pub field: String,
    /// In words.
    pub message: String,
}

/// One field that changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldChangeView {
    /// Field path.
    pub field: String,
    /// Before (`None`: not set).
    pub from: Option<String>,
    /// After.
    pub to: Option<String>,
}

/// What changed in one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerChangeView {
    /// Server id.
    pub id: String,
    /// Its changed fields.
    pub fields: Vec<FieldChangeView>,
}

/// The difference between two policies, field by field.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiffView {
    /// In words (`2 added, 1 changed`); empty when nothing changed.
    pub summary: String,
    /// The mode, before and after.
    pub mode: Option<(String, String)>,
    /// Servers added.
    pub added: Vec<String>,
    /// Every field of each added server (what an approver reviews), when the diff is of
    /// content someone is about to publish; empty in a release's history.
    pub added_fields: Vec<ServerChangeView>,
    /// Servers removed.
    pub removed: Vec<String>,
    /// Servers changed.
    pub changed: Vec<ServerChangeView>,
    /// Rings added.
    pub rings_added: Vec<String>,
    /// Rings removed.
    pub rings_removed: Vec<String>,
    /// Units added.
    pub units_added: Vec<String>,
    /// Units removed.
    pub units_removed: Vec<String>,
    /// Units moved under another parent.
    pub units_moved: Vec<FieldChangeView>,
}

impl DiffView {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.summary.is_empty()
    }
}

/// A published release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseView {
    /// 1, 2, …
    pub sequence: i64,
    /// Content id (SHA-256, hex).
    pub id: String,
    /// When.
    pub published: Moment,
    /// Who asked for it.
    pub published_by: String,
    /// Who approved it.
    pub approved_by: Option<String>,
    /// The release whose content it published again.
    pub rollback_of: Option<i64>,
    /// Servers in it.
    pub servers: i64,
    /// What it changed, in words.
    pub changes: String,
}

/// A page of releases, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleasePage {
    /// The releases.
    pub items: Vec<ReleaseView>,
    /// How many there are.
    pub total: u64,
    /// The `before` of the next page (older), if any.
    pub older: Option<i64>,
}

/// One release with what it changed, field by field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReleaseDetail {
    /// The release.
    pub release: ReleaseView,
    /// What it changed against the release before.
    pub diff: DiffView,
    /// The signed document's size in bytes.
    pub bytes: usize,
}

/// A publish, roll back or settings change that waits for a second person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestView {
    /// Its id.
    pub id: String,
    /// Who asked.
    pub requested_by: String,
    /// When.
    pub requested: Moment,
    /// The release it would publish again.
    pub rollback_of: Option<i64>,
    /// A settings change instead of a release: (require approval, API access).
    pub settings: Option<(bool, String)>,
    /// What it would publish against the latest release.
    pub diff: DiffView,
    /// The digest an approval names.
    pub digest: String,
    /// The viewer asked for it (they may withdraw it, not approve it).
    pub mine: bool,
    /// The draft has changed since it was asked for (what is approved is the request's
    /// content, shown here).
    pub draft_differs: bool,
}

/// A server as the form edits it: every field a string (lists one per line or
/// space-separated, as the form says).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ServerForm {
    /// Id.
    pub id: String,
    /// Title.
    pub title: String,
    /// `remote`, `package` or `command`.
    pub transport: String,
    /// Remote: URL.
    pub url: String,
    /// Remote: `streamable-http` (empty) or `sse`.
    pub url_transport: String,
    /// Remote: a provider profile (`notion`, `gmail-preview`), or empty.
    pub profile: String,
    /// Package: `npm`, `pypi` or `oci`.
    pub package_type: String,
    /// Package: name or image reference.
    pub package_identifier: String,
    /// Package: exact version.
    pub package_version: String,
    /// Command: program.
    pub command_path: String,
    /// Command: arguments, one per line.
    pub command_args: String,
    /// Command: SHA-256 of the program.
    pub command_sha256: String,
    /// Name in an MCP registry.
    pub registry_name: String,
    /// Version in that registry.
    pub version: String,
    /// Headers, one `Name: value` per line.
    pub headers: String,
    /// Environment, one `NAME=value` per line.
    pub env: String,
    /// Tools allowed, space-separated (empty: all).
    pub tools_allow: String,
    /// Tools denied, space-separated.
    pub tools_deny: String,
    /// `none`, `oauth`, `enterprise` or `portcullis`.
    pub auth_mode: String,
    /// OAuth client id.
    pub auth_client_id: String,
    /// OAuth Client ID Metadata Document URL.
    pub auth_client_metadata_url: String,
    /// OAuth authorization server.
    pub auth_issuer: String,
    /// Enterprise identity provider.
    pub auth_identity_issuer: String,
    /// Scopes, space-separated.
    pub auth_scopes: String,
    /// Rings that get it.
    pub rings: Vec<String>,
    /// Units that get it.
    pub units: Vec<String>,
}

/// One server of the draft with everything its page shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerDetail {
    /// The draft's revision.
    pub revision: i64,
    /// As listed.
    pub row: ServerRow,
    /// As the form edits it.
    pub form: ServerForm,
    /// The form as read, in JSON: a save says what it started from, so edits of other
    /// servers since are no conflict.
    pub original: String,
    /// The command line a laptop runs (packages and commands).
    pub launch: Option<String>,
    /// Its fields against the latest release (empty when unchanged or new).
    pub changes: Vec<FieldChangeView>,
    /// Releases that changed it, newest first (at most the last 20 releases are read).
    pub releases: Vec<ServerReleaseView>,
    /// The protected resource it is (a URL whose auth mode is `portcullis`); `None` for
    /// other servers.
    pub resource: Option<ResourceLink>,
    /// The realm's rings and units, for the form.
    pub rings: Vec<String>,
    /// Units.
    pub units: Vec<UnitView>,
}

/// The resource a remote server Portcullis authorizes is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceLink {
    /// The realm's resource for its URL, `None` when there is none yet.
    pub slug: Option<String>,
    /// `enabled` (the server's audience), `disabled`, `submitted` (a developer's submission
    /// waiting for an admin: not the audience) or `rejected`; empty without a resource.
    pub standing: String,
    /// Who submitted it.
    pub submitted_by: String,
}

/// What one release did to one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerReleaseView {
    /// The release.
    pub sequence: i64,
    /// When.
    pub published: Moment,
    /// `added`, `changed` or `removed`.
    pub what: String,
    /// The fields changed.
    pub fields: Vec<FieldChangeView>,
}

/// What a draft edit did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedView {
    /// The server's id (after a save).
    pub id: String,
    /// The draft's revision now.
    pub revision: i64,
    /// What the checks warn about.
    pub warnings: Vec<FindingView>,
}

/// An imported `server.json`, ready for the form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedView {
    /// The draft entry.
    pub form: ServerForm,
    /// What the document says that the entry cannot carry.
    pub notes: Vec<String>,
}

/// A ring or unit with how many members it has.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupView {
    /// `ring` or `unit`.
    pub kind: String,
    /// Id.
    pub id: String,
    /// A unit's parent.
    pub parent: String,
    /// Members.
    pub members: u64,
    /// Servers of the draft that name it.
    pub servers: usize,
}

/// The rings and units screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupsView {
    /// The draft's revision.
    pub revision: i64,
    /// `allowlist` or `warn`.
    pub mode: String,
    /// Rings, then units.
    pub groups: Vec<GroupView>,
}

/// A member of a ring or unit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberRow {
    /// `user`, `person` or `agent`.
    pub kind: String,
    /// Email or agent name.
    pub name: String,
    /// When added.
    pub added: Moment,
    /// By whom.
    pub added_by: String,
}

/// A harness the Deliver screen renders for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HarnessChoice {
    /// Its id (`claude-code`, …).
    pub id: String,
    /// Its name.
    pub name: String,
    /// The version rendered for when none is given.
    pub version: String,
}

/// A rendered delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryView {
    /// The release rendered.
    pub sequence: i64,
    /// Its id.
    pub release_id: String,
    /// Servers the group gets.
    pub servers: usize,
    /// The files.
    pub files: Vec<DeliveredFile>,
    /// What the harness cannot express.
    pub warnings: Vec<FindingView>,
    /// Notes for whoever installs the files.
    pub notes: Vec<String>,
}

/// One rendered file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveredFile {
    /// File name.
    pub name: String,
    /// `managed` (administrators install it) or `user`.
    pub scope: String,
    /// Where it goes on each system: (system, path).
    pub paths: Vec<(String, String)>,
    /// MIME type.
    pub media_type: String,
    /// The file.
    pub contents: String,
}

/// The Drift screen: the realm's devices in numbers, the most common findings and a page of
/// devices, newest report first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftView {
    /// Devices that have reported.
    pub devices: u64,
    /// People they belong to.
    pub people: u64,
    /// Devices whose last report found something.
    pub drifting: u64,
    /// Devices whose last report compared with the latest release.
    pub on_latest: u64,
    /// Devices not heard from for a week.
    pub stale: u64,
    /// The latest release's sequence (none published: `None`).
    pub latest_sequence: Option<i64>,
    /// The server names found on the devices of the most people.
    pub top: Vec<DriftTallyView>,
    /// The page of devices.
    pub rows: Vec<DriftRowView>,
    /// The next page's cursor (empty: this is the last page).
    pub next: String,
}

/// A server name found on several people's devices.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftTallyView {
    /// `unapproved` or `version-drift`.
    pub kind: String,
    /// The name it is configured under.
    pub name: String,
    /// On the devices of how many people.
    pub people: u64,
    /// A server of the latest release has this id now.
    pub in_latest: bool,
}

/// A device and its last report in numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftRowView {
    /// Its person's (or console user's) id.
    pub subject: String,
    /// Their email.
    pub email: String,
    /// The device's name.
    pub device: String,
    /// When its last report arrived.
    pub received: Moment,
    /// The release it compared with.
    pub release_sequence: i64,
    /// Whether that is the latest release.
    pub latest: bool,
    /// Not heard from for a week.
    pub stale: bool,
    /// Findings.
    pub findings: u64,
    /// Files it could not read.
    pub problems: u64,
}

/// One device's last report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftDeviceView {
    /// Its row.
    pub row: DriftRowView,
    /// The latest release's sequence.
    pub latest_sequence: Option<i64>,
    /// The rings it pulled for (the laptop's word).
    pub rings: Vec<String>,
    /// The units it pulled for (the laptop's word).
    pub units: Vec<String>,
    /// The rings its person is in now.
    pub rings_now: Vec<String>,
    /// The units its person is in now.
    pub units_now: Vec<String>,
    /// Servers the release approves for them.
    pub approved: u32,
    /// Config files read.
    pub files_read: u32,
    /// What drifted.
    pub findings: Vec<DriftFindingView>,
    /// Findings the laptop left out of the report.
    pub omitted_findings: u32,
    /// Files it could not read.
    pub problems: Vec<DriftProblemView>,
    /// Problems left out.
    pub omitted_problems: u32,
}

/// One drifted server on a device.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftFindingView {
    /// `unapproved` or `version-drift`.
    pub kind: String,
    /// The harness (`claude-code`, …).
    pub harness: String,
    /// The file and scope.
    pub source: String,
    /// Its name there.
    pub name: String,
    /// `http`, `sse`, `stdio` or `unknown`.
    pub transport: String,
    /// A remote server's host (empty for others).
    pub host: String,
    /// SHA-256 of its definition.
    pub definition_sha256: String,
    /// What to do about it.
    pub fix: String,
}

/// A config file a device could not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriftProblemView {
    /// The harness.
    pub harness: String,
    /// The file.
    pub source: String,
    /// What went wrong.
    pub message: String,
}
