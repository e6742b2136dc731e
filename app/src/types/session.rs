//! The signed-in user's session and what their role may do (`api::session`, the layout).
use super::realms::RealmView;
use serde::{Deserialize, Serialize};

/// The signed-in user and the console's realm selection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// User id.
    pub user_id: String,
    /// Email.
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// Role (`admin`, `security_reviewer`, `developer`).
    pub role: String,
    /// What the user's role may see and do.
    pub can: Abilities,
    /// The selected realm.
    pub realm: RealmView,
    /// All realms, for the switcher.
    pub realms: Vec<RealmView>,
    /// Clients waiting for review in every realm (for reviewers).
    pub pending_reviews: u64,
    /// A registry release waits for a second person (for those who may approve).
    pub release_waiting: bool,
    /// Gateway calls waiting for a person in the selected realm (for those who may decide).
    #[serde(default)]
    pub gateway_waiting: usize,
    /// What revoking anything in the selected realm cannot reach, in words: access tokens that
    /// resource servers verify themselves live until they expire (with the realm's bound).
    pub revocation_note: String,
    /// The realm the console switched away from just before this page (its name), once.
    #[serde(default)]
    pub switched_from: Option<String>,
    /// Whether a console link (`/go/…`) made that switch, rather than the realm switcher.
    #[serde(default)]
    pub switched_by_link: bool,
}

/// What a role may see and do in the console: screens and controls it may not use are not shown.
/// The core checks every operation again; this only shapes the screens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[allow(clippy::struct_excessive_bools)]
pub struct Abilities {
    /// Console users.
    pub manage_users: bool,
    /// Create and change realms.
    pub manage_realms: bool,
    /// The audit log and each object's history.
    pub view_audit: bool,
    /// See resources.
    pub view_resources: bool,
    /// Create, change and delete resources.
    pub manage_resources: bool,
    /// Submit a resource for an admin to enable (developers).
    pub submit_resources: bool,
    /// See clients and their grants.
    pub view_clients: bool,
    /// Create, change and delete clients; grant and revoke access.
    pub manage_clients: bool,
    /// See agents.
    pub view_agents: bool,
    /// Create, change and delete agents.
    pub manage_agents: bool,
    /// Signing keys.
    pub manage_keys: bool,
    /// See the realm's people and their connected apps.
    pub view_people: bool,
    /// Create, change and disable people; revoke anyone's connected apps.
    pub manage_people: bool,
    /// The security-review queue: approve, reject, revoke clients.
    pub review_clients: bool,
    /// See the MCP server registry, its releases and deliveries.
    pub view_registry: bool,
    /// Edit the registry's draft, publish, roll back, rings and units.
    pub manage_registry: bool,
    /// Approve or reject someone else's release.
    pub approve_releases: bool,
}

/// What the sign-in page offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignInOptions {
    /// The providers' buttons.
    pub providers: Vec<SignInProvider>,
    /// Whether password sign-in is for break-glass admins only.
    pub password_break_glass_only: bool,
}

/// A sign-in provider's button on the sign-in page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignInProvider {
    /// Its id (in the sign-in link).
    pub id: String,
    /// The button's text.
    pub button_text: String,
}
