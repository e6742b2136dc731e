//! The MCP gateway as the console shows it (`api::gateway`, `pages::gateway`).
use super::Moment;
use serde::{Deserialize, Serialize};

/// One registry server behind the gateway.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpstreamView {
    /// Registry id.
    pub id: String,
    /// Title.
    pub title: String,
    /// Its URL (empty: it runs on laptops, not behind a URL).
    pub url: String,
    /// How the gateway authenticates there, in words.
    pub auth: String,
    /// The provider profile it follows, in words (empty: none), and whether it is a preview.
    pub profile: Option<(String, bool)>,
    /// Why the gateway cannot reach it, if it cannot (for anyone).
    pub unreachable: Option<String>,
    /// `up`, `degraded`, `circuit_open`, or `not called yet`.
    pub availability: String,
    /// Calls since the server process started.
    pub calls: u64,
    /// Failed calls since then.
    pub errors: u64,
    /// The last call's latency.
    pub last_latency_ms: u64,
    /// The last failure's kind.
    pub last_error: Option<String>,
    /// The last call.
    pub last_call: Option<Moment>,
    /// Tools offered now.
    pub offered: Vec<String>,
    /// Tools waiting for acceptance.
    pub waiting: usize,
    /// For a server with its own OAuth: the client secret the gateway holds for it.
    pub client_secret: Option<ClientSecretView>,
}

/// The client secret the gateway holds for one server's authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientSecretView {
    /// `unset`, `set`, or `stale` (given for another client id or authorization server than
    /// the registry names now: never sent).
    pub state: String,
    /// Who set it (administrators only), and when.
    pub set_by: Option<String>,
    pub set: Option<Moment>,
    /// For a stale one: the client id and authorization server it was given for.
    pub given_for: Option<String>,
    /// The registry names the server's client id and authorization server (a secret can be
    /// set).
    pub settable: bool,
    /// The provider needs one (Google's web application clients).
    pub needed: bool,
    /// The redirect URI to register at the server's authorization server.
    pub callback_url: String,
}

/// One field of a tool definition that changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldChangeView {
    /// The Tool object's key.
    pub field: String,
    /// As accepted (`None`: absent).
    pub accepted: Option<String>,
    /// As listed now (`None`: absent).
    pub listed: Option<String>,
}

/// A tool waiting for acceptance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PinView {
    /// Registry server.
    pub server: String,
    /// Tool name.
    pub tool: String,
    /// `new`, `changed` or `removed`.
    pub state: String,
    /// SHA-256 of the definition listed now (empty: removed): what accepting it accepts.
    pub sha256: String,
    /// What differs from the accepted definition.
    pub changes: Vec<FieldChangeView>,
    /// When the server listed it so.
    pub seen: Moment,
    /// What the listed definition says it does (`read`, `write`, `external`; empty: removed),
    /// and its risk (`low`, `medium`, `high`): what accepting it lets agents do.
    pub side_effect_class: String,
    pub risk: String,
}

/// A call waiting for a person, or one that waited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApprovalView {
    /// `apr_…`.
    pub id: String,
    /// `<server>.<tool>`.
    pub capability: String,
    /// The calling agent's name.
    pub agent: Option<String>,
    /// The token's subject.
    pub subject: String,
    /// The calling client.
    pub client_id: String,
    /// `write` or `external`.
    pub side_effect_class: String,
    /// `medium` or `high`.
    pub risk: String,
    /// The arguments, secret-looking values hidden.
    pub arguments: String,
    /// When it was asked.
    pub requested: Moment,
    /// When it lapses (denied).
    pub expires: Moment,
    /// `pending`, `approved`, `denied`, `used` or `expired`.
    pub status: String,
    /// Who decided, when, and why.
    pub decided_by: Option<String>,
    pub decided: Option<Moment>,
    pub reason: Option<String>,
}

/// The Gateway page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatewayView {
    /// Whether it is on.
    pub enabled: bool,
    /// Its URL.
    pub url: String,
    /// The scope its tokens carry.
    pub scope: String,
    /// The release its servers come from.
    pub release: Option<i64>,
    /// The servers.
    pub upstreams: Vec<UpstreamView>,
    /// Tools waiting for acceptance.
    pub pins: Vec<PinView>,
    /// Calls waiting for a person (empty when the viewer may not decide).
    pub approvals: Vec<ApprovalView>,
    /// The latest calls no longer waiting (at most 20).
    pub decided: Vec<ApprovalView>,
    /// Whether the viewer may decide calls.
    pub can_decide: bool,
    /// Whether the viewer may accept tools and turn the gateway on.
    pub can_manage: bool,
    /// Whether the viewer may attach servers to agents.
    pub can_attach: bool,
    /// Agents whose toolsets can be viewed.
    pub agents: Vec<String>,
}

/// One server in an agent's toolset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolsetServerView {
    /// Registry id.
    pub id: String,
    /// The capabilities it gives the agent (`<server>.<tool>`).
    pub capabilities: Vec<String>,
    /// Why it gives nothing, if so.
    pub excluded: Option<String>,
    /// Whether it is attached to the agent.
    pub attached: bool,
}
