//! The registry's stored types: a realm's draft and settings, its immutable releases, the
//! publish requests that wait for a second person, and who is in each ring and unit.
//!
//! The policy itself (servers, rings, units, mode) and its rules live in the
//! `portcullis-manifest` crate, which the laptop CLI shares; this module only stores it.
use crate::clock::UnixTime;
use crate::realms::RealmId;
use portcullis_manifest::diff::Diff;
use portcullis_manifest::policy::PolicyInput;

/// Who may read a realm's registry over HTTP (the MCP Registry API and the signed releases).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApiAccess {
    /// Nobody: the endpoints answer 404 (the default).
    #[default]
    Off,
    /// Callers with a Portcullis access token of the realm whose audience is the registry.
    Bearer,
    /// Anyone.
    Public,
}

impl ApiAccess {
    /// Every value, in display order.
    pub const ALL: [ApiAccess; 3] = [ApiAccess::Off, ApiAccess::Bearer, ApiAccess::Public];

    /// Stored and wire form.
    pub fn as_str(self) -> &'static str {
        match self {
            ApiAccess::Off => "off",
            ApiAccess::Bearer => "bearer",
            ApiAccess::Public => "public",
        }
    }

    /// Parses the stored and wire form.
    ///
    /// # Errors
    /// A message fit for the user for any other value.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        match s.trim() {
            "off" => Ok(ApiAccess::Off),
            "bearer" => Ok(ApiAccess::Bearer),
            "public" => Ok(ApiAccess::Public),
            _ => Err("Registry access must be off, bearer or public."),
        }
    }
}

/// A realm's registry: the draft being edited and how the registry is governed and served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registry {
    /// The realm.
    pub realm_id: RealmId,
    /// The draft policy (always one that passes its checks).
    pub draft: PolicyInput,
    /// Bumped by every change; an edit names the revision it started from.
    pub revision: i64,
    /// Publishing (and rolling back) waits for a second person's approval.
    pub require_approval: bool,
    /// Who may read the registry over HTTP.
    pub api_access: ApiAccess,
    /// Last change.
    pub updated_at: UnixTime,
    /// Who made it.
    pub updated_by: String,
}

/// A published release, as stored: never changed after it is inserted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRelease {
    /// The realm.
    pub realm_id: RealmId,
    /// 1, 2, … per realm.
    pub sequence: i64,
    /// SHA-256 of the manifest's canonical JSON (lowercase hex).
    pub id: String,
    /// The signed release document exactly as served (`{"id","manifest","signature"}`).
    pub document: String,
    /// When it was published.
    pub published_at: UnixTime,
    /// Who asked for it.
    pub published_by: String,
    /// Who approved it, when the realm requires approval.
    pub approved_by: Option<String>,
    /// The release whose content it publishes again (a roll back).
    pub rollback_of: Option<i64>,
    /// How many servers it holds.
    pub servers: i64,
    /// What it changed against the release before, in words (`2 added, 1 changed`).
    pub changes: String,
}

impl StoredRelease {
    /// Everything but the document, as listed.
    pub fn head(&self) -> ReleaseHead {
        ReleaseHead {
            sequence: self.sequence,
            id: self.id.clone(),
            published_at: self.published_at,
            published_by: self.published_by.clone(),
            approved_by: self.approved_by.clone(),
            rollback_of: self.rollback_of,
            servers: self.servers,
            changes: self.changes.clone(),
        }
    }
}

/// A release as listed: what it is, without its document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseHead {
    /// 1, 2, …
    pub sequence: i64,
    /// Content id.
    pub id: String,
    /// When.
    pub published_at: UnixTime,
    /// Who asked.
    pub published_by: String,
    /// Who approved.
    pub approved_by: Option<String>,
    /// The release it rolled back to.
    pub rollback_of: Option<i64>,
    /// Servers in it.
    pub servers: i64,
    /// What it changed, in words.
    pub changes: String,
}

/// Settings a request would set (turning approval off needs a second person).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SettingsChange {
    /// Releases wait for a second person.
    pub require_approval: bool,
    /// Who may read the registry over HTTP.
    pub api_access: ApiAccess,
}

/// What happened to a publish request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestStatus {
    /// Waits for a second person.
    Pending,
    /// Approved and published.
    Published,
    /// Refused by the approver.
    Rejected,
    /// Taken back by its author (or an admin).
    Withdrawn,
}

impl RequestStatus {
    /// Stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            RequestStatus::Pending => "pending",
            RequestStatus::Published => "published",
            RequestStatus::Rejected => "rejected",
            RequestStatus::Withdrawn => "withdrawn",
        }
    }

    /// Parses the stored form.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "pending" => RequestStatus::Pending,
            "published" => RequestStatus::Published,
            "rejected" => RequestStatus::Rejected,
            "withdrawn" => RequestStatus::Withdrawn,
            _ => return None,
        })
    }
}

/// A publish (or roll back) that waits for a second person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublishRequest {
    /// Its id.
    pub id: String,
    /// The realm.
    pub realm_id: RealmId,
    /// The policy it would publish (the draft when it was asked for).
    pub policy: PolicyInput,
    /// The release whose content it publishes again.
    pub rollback_of: Option<i64>,
    /// The latest release when it was asked for (0: none): it is approved only while that is
    /// still the latest.
    pub base_sequence: i64,
    /// A settings change instead of a release.
    pub settings: Option<SettingsChange>,
    /// Who asked.
    pub requested_by: String,
    /// When.
    pub requested_at: UnixTime,
    /// Where it stands.
    pub status: RequestStatus,
    /// Who decided (approved, rejected or withdrew).
    pub decided_by: Option<String>,
    /// When.
    pub decided_at: Option<UnixTime>,
    /// The approver's reason for a rejection.
    pub reason: Option<String>,
    /// The release it became.
    pub release_sequence: Option<i64>,
}

/// A ring or a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupKind {
    /// A ring (a rollout stage: canary, everyone, …).
    Ring,
    /// A unit (part of the organisation; members of a unit get what units above it get).
    Unit,
}

impl GroupKind {
    /// Stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            GroupKind::Ring => "ring",
            GroupKind::Unit => "unit",
        }
    }

    /// Parses the stored form.
    ///
    /// # Errors
    /// A message fit for the user for any other value.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        match s.trim() {
            "ring" => Ok(GroupKind::Ring),
            "unit" => Ok(GroupKind::Unit),
            _ => Err("A group is a ring or a unit."),
        }
    }
}

/// Who can be in a ring or unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberKind {
    /// A console user (by email when added; stored by id).
    User,
    /// A person of the realm.
    Person,
    /// An agent of the realm.
    Agent,
}

impl MemberKind {
    /// Stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            MemberKind::User => "user",
            MemberKind::Person => "person",
            MemberKind::Agent => "agent",
        }
    }

    /// Parses the stored form.
    ///
    /// # Errors
    /// A message fit for the user for any other value.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        match s.trim() {
            "user" => Ok(MemberKind::User),
            "person" => Ok(MemberKind::Person),
            "agent" => Ok(MemberKind::Agent),
            _ => Err("A member is a user, a person or an agent."),
        }
    }
}

/// The rings and units a token's holder is in (`GET …/registry/me`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MemberGroups {
    /// The token's subject.
    pub subject: String,
    /// Ring ids.
    pub rings: Vec<String>,
    /// Unit ids.
    pub units: Vec<String>,
}

/// One membership.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    /// The realm.
    pub realm_id: RealmId,
    /// Ring or unit.
    pub group_kind: GroupKind,
    /// The ring's or unit's id.
    pub group_id: String,
    /// What the member is.
    pub member_kind: MemberKind,
    /// Its id (user, person or agent id).
    pub member_id: String,
    /// When it was added.
    pub added_at: UnixTime,
    /// Who added it.
    pub added_by: String,
}

/// A member as listed: the membership and the member's name for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberView {
    /// The membership.
    pub membership: Membership,
    /// Email (users, people) or name (agents).
    pub name: String,
}

/// A release as listed and shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReleaseSummary {
    /// 1, 2, …
    pub sequence: i64,
    /// Content id.
    pub id: String,
    /// When.
    pub published_at: UnixTime,
    /// Who asked.
    pub published_by: String,
    /// Who approved.
    pub approved_by: Option<String>,
    /// The release it rolled back to.
    pub rollback_of: Option<i64>,
    /// Servers in it.
    pub servers: usize,
    /// What changed against the release before (everything, for the first).
    pub diff: Diff,
}

/// The registry page: the draft, its checks, and how it stands against the latest release.
#[derive(Debug, Clone)]
pub struct RegistryView {
    /// The registry (draft and settings).
    pub registry: Registry,
    /// Warnings the draft's checks raise (it has no errors: drafts are always valid).
    pub warnings: Vec<portcullis_manifest::Finding>,
    /// The latest release.
    pub latest: Option<ReleaseSummary>,
    /// The draft against the latest release (everything added when there is none).
    pub unpublished: Diff,
    /// The request waiting for approval.
    pub pending: Option<PublishRequest>,
    /// What the waiting request would publish, against the latest release (what an approver
    /// reviews: not the draft, which may have changed since).
    pub pending_diff: Option<Diff>,
    /// The waiting request's digest (SHA-256 of its policy's canonical JSON): an approval
    /// names it, so what is approved is what was shown.
    pub pending_digest: Option<String>,
    /// The issuer the latest release names, when it is not the realm's issuer now (the
    /// server's public URL changed since): laptops refuse it until it is published again.
    pub stale_issuer: Option<String>,
    /// The last request, when it was rejected and nothing was asked for or published since:
    /// its author sees who rejected it and why.
    pub rejected: Option<PublishRequest>,
    /// Where the realm's registry is served (`{issuer}/registry`: the signed releases under
    /// `/releases`, the MCP Registry API under `/v0.1`).
    pub base_url: String,
}

/// The draft's mode, rings and units, as an editor sets them together.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GroupsInput {
    /// `allowlist` or `warn`.
    pub mode: String,
    /// Ring ids.
    pub rings: Vec<String>,
    /// Units with their parents.
    pub units: Vec<portcullis_manifest::policy::Unit>,
}

/// What a settings change did.
#[derive(Debug, Clone)]
pub enum SettingsOutcome {
    /// Saved.
    Saved(Registry),
    /// Turning approval off waits for a second person.
    AwaitingApproval(PublishRequest),
}

/// What an approval did.
#[derive(Debug, Clone)]
pub enum Approved {
    /// A release was published.
    Release(ReleaseSummary),
    /// The settings asked for were saved.
    Settings(Registry),
}

/// What a publish did.
#[derive(Debug, Clone)]
pub enum Published {
    /// A new release.
    Release(ReleaseSummary),
    /// A request now waits for a second person.
    AwaitingApproval(PublishRequest),
}

/// The largest signed release a realm publishes (the laptop CLI reads at most this much).
pub const MAX_RELEASE_BYTES: usize = portcullis_manifest::release::MAX_RELEASE_BYTES;

/// The most members one ring or unit lists.
pub const MAX_MEMBERS_LISTED: u32 = 5_000;

/// What a draft edit returns: the new revision and what the checks warn about.
#[derive(Debug, Clone)]
pub struct SavedDraft {
    /// The draft's revision now.
    pub revision: i64,
    /// Warnings about the edited part (a server's fields, unprefixed) or the whole draft.
    pub warnings: Vec<portcullis_manifest::Finding>,
}

/// Which release to serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseSelector<'a> {
    /// The newest.
    Latest,
    /// By content id (64 lowercase hex digits).
    Id(&'a str),
}

/// The latest release, parsed for the MCP Registry API.
#[derive(Debug, Clone)]
pub struct ServedRegistry {
    /// Its id (the API's ETag).
    pub id: String,
    /// Its policy: the approved servers and who gets them.
    pub policy: portcullis_manifest::Policy,
    /// What the API says about each server's release.
    pub info: portcullis_manifest::registry_api::ReleaseInfo,
}

/// Where an imported `server.json` comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportSource {
    /// The document itself (a file the operator named).
    Document(Vec<u8>),
    /// A name in the configured MCP registry (`io.github.acme/wiki`), or an `https://` URL of
    /// a `server.json` or a Registry API answer.
    Fetch(String),
}

/// The URL of a name's latest version in the registry at `base`.
pub fn registry_url(base: &str, name: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    let base = base
        .strip_suffix("/v0.1")
        .or_else(|| base.strip_suffix("/v0"))
        .unwrap_or(base);
    let encoded: String = url::form_urlencoded::byte_serialize(name.as_bytes()).collect();
    format!("{base}/v0.1/servers/{encoded}/versions/latest")
}

/// What to render.
#[derive(Debug, Clone)]
pub struct DeliveryRequest {
    /// The harness and its version.
    pub target: portcullis_manifest::render::Target,
    /// The ring or unit whose members get the files.
    pub group: (GroupKind, String),
    /// A release number (`None`: the latest).
    pub release: Option<i64>,
    /// The credential helper for servers Portcullis authorizes.
    pub options: portcullis_manifest::render::Options,
}

/// A rendered delivery and what it came from.
#[derive(Debug, Clone)]
pub struct Delivery {
    /// The release rendered.
    pub sequence: i64,
    /// Its id.
    pub release_id: String,
    /// How many of its servers the group gets.
    pub servers: usize,
    /// Files, warnings and notes.
    pub rendered: portcullis_manifest::render::Rendered,
}

/// One server of the draft as its page shows it.
#[derive(Debug, Clone)]
pub struct RegistryServer {
    /// The registry (revision, rings, units).
    pub registry: Registry,
    /// The server as the draft has it.
    pub server: portcullis_manifest::server::ServerInput,
    /// Whether the latest release has a server with its id.
    pub is_published: bool,
    /// What its checks warn about (fields unprefixed).
    pub warnings: Vec<portcullis_manifest::Finding>,
    /// Its fields against the latest release (empty when unchanged or not published).
    pub changes: Vec<portcullis_manifest::diff::FieldChange>,
    /// What the last releases did to it, newest first.
    pub history: Vec<ServerRelease>,
    /// For a remote server Portcullis authorizes: the realm's resource for its URL, or `None`
    /// when there is none yet. `None` for any other server.
    pub resource: Option<Option<LinkedResource>>,
}

/// The realm's resource at a registry server's URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkedResource {
    /// Its slug.
    pub slug: String,
    /// Whether it is the server's audience now.
    pub standing: ResourceStanding,
}

/// Where a resource stands: only an enabled, admin-made resource is a server's audience.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceStanding {
    /// Enabled: tokens are issued for it.
    Enabled,
    /// Disabled by an admin.
    Disabled,
    /// A developer's submission waiting for an admin (by whom).
    Submitted(String),
    /// A developer's submission an admin rejected.
    Rejected,
}

impl ResourceStanding {
    /// In one word.
    pub fn as_str(&self) -> &'static str {
        match self {
            ResourceStanding::Enabled => "enabled",
            ResourceStanding::Disabled => "disabled",
            ResourceStanding::Submitted(_) => "submitted",
            ResourceStanding::Rejected => "rejected",
        }
    }
}

/// What a release did to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerEvent {
    /// It appeared.
    Added,
    /// Some of its fields changed.
    Changed,
    /// It was taken out.
    Removed,
}

impl ServerEvent {
    /// In words.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerEvent::Added => "added",
            ServerEvent::Changed => "changed",
            ServerEvent::Removed => "removed",
        }
    }
}

/// One release in a server's history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerRelease {
    /// The release.
    pub sequence: i64,
    /// When it was published.
    pub published_at: UnixTime,
    /// What it did to the server.
    pub event: ServerEvent,
    /// The fields it changed.
    pub fields: Vec<portcullis_manifest::diff::FieldChange>,
}

/// The cached diffs of releases: (realm, sequence) → (release id, what it changed).
pub type ReleaseDiffs = std::collections::HashMap<
    (RealmId, i64),
    (String, std::sync::Arc<portcullis_manifest::diff::Diff>),
>;

/// The most release diffs kept (all realms together).
pub const MAX_CACHED_DIFFS: usize = 4_096;
