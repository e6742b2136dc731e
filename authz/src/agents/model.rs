//! Agent types: the stored agent, its status, checked input, list filters.
use crate::clock::UnixTime;
pub use crate::ids::AgentId;
use crate::ids::RealmId;
use crate::scope::ScopeSet;

/// Whether an agent may act now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentStatus {
    /// May act.
    Active,
    /// Switched off by an admin.
    Disabled,
    /// Past its expiry.
    Expired,
}

impl AgentStatus {
    /// Display form.
    pub fn as_str(self) -> &'static str {
        match self {
            AgentStatus::Active => "active",
            AgentStatus::Disabled => "disabled",
            AgentStatus::Expired => "expired",
        }
    }
}

/// A stored agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// Opaque id, carried in tokens as `agent_id`.
    pub id: AgentId,
    /// Realm.
    pub realm_id: RealmId,
    /// Unique name within the realm.
    pub name: String,
    /// Owner's email.
    pub owner: String,
    /// What it is for.
    pub description: String,
    /// Roles; also the ceiling of scopes its clients are granted.
    pub roles: ScopeSet,
    /// Expiry, if any.
    pub expires_at: Option<UnixTime>,
    /// Disabled flag.
    pub disabled: bool,
    /// Creation time.
    pub created_at: UnixTime,
    /// Last change.
    pub updated_at: UnixTime,
}

impl Agent {
    /// Status at `now`.
    pub fn status(&self, now: UnixTime) -> AgentStatus {
        if self.disabled {
            AgentStatus::Disabled
        } else if self.expires_at.is_some_and(|t| t <= now) {
            AgentStatus::Expired
        } else {
            AgentStatus::Active
        }
    }

    /// MCP-capable: holds `mcp` or an `mcp:*` role.
    pub fn is_mcp_capable(&self) -> bool {
        self.roles
            .iter()
            .any(|r| r == "mcp" || r.starts_with("mcp:"))
    }
}

/// Input for creating or changing an agent, as typed by an admin.
#[derive(Debug, Clone, Default)]
pub struct AgentInput {
    /// Name (ignored on update).
    pub name: String,
    /// Owner's email.
    pub owner: String,
    /// Description.
    pub description: String,
    /// Roles, space-separated.
    pub roles: String,
    /// Expiry (`YYYY-MM-DDTHH:MM` UTC), empty for none.
    pub expires_at: String,
}

/// The changeable fields of an agent, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentFields {
    /// Owner's email.
    pub owner: String,
    /// Description (at most 500 characters).
    pub description: String,
    /// Roles.
    pub roles: ScopeSet,
    /// Expiry.
    pub expires_at: Option<UnixTime>,
}

impl AgentFields {
    /// Checks typed input at `now` (an expiry must lie after it), every field.
    ///
    /// # Errors
    /// `InvalidField` for one field that breaks a rule, `Findings` for several.
    pub fn parse(input: &AgentInput, now: UnixTime) -> crate::error::Result<Self> {
        let mut checks = crate::error::FieldChecks::default();
        let fields = Self::check(input, now, &mut checks);
        fields.ok_or_else(|| checks.failed())
    }

    /// Checks typed input, noting each field's problem in `checks`; `None` when one was noted.
    pub(crate) fn check(
        input: &AgentInput,
        now: UnixTime,
        checks: &mut crate::error::FieldChecks,
    ) -> Option<Self> {
        let owner = checks.take("owner", crate::accounts::Email::parse(&input.owner));
        let roles = checks.take(
            "roles",
            ScopeSet::parse(&input.roles).map_err(|e| format!("Roles: {e}")),
        );
        let expires_at = match input.expires_at.trim() {
            "" => Some(None),
            s => checks
                .take(
                    "expires_at",
                    crate::clock::parse_console_time(s).and_then(|t| {
                        if t <= now {
                            Err("The expiry is in the past. Pick a later time (UTC), or leave it empty for an agent that does not expire.".to_owned())
                        } else {
                            Ok(t)
                        }
                    }),
                )
                .map(Some),
        };
        Some(Self {
            owner: owner?.to_string(),
            description: input.description.trim().chars().take(500).collect(),
            roles: roles?,
            expires_at: expires_at?,
        })
    }
}

/// Which agents a list shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AgentFilter<'a> {
    /// Only agents holding `mcp` or an `mcp:*` role.
    pub mcp_only: bool,
    /// Only agents expiring within this many seconds (and not yet expired); the Agents list
    /// uses [`EXPIRING_SOON_SECS`].
    pub expiring_within: Option<i64>,
    /// Only agents that may act now (enabled, not expired).
    pub active_only: bool,
    /// Only agents whose name or owner contains this (case-insensitive).
    pub query: Option<&'a str>,
    /// Only agents this owner (an email, exactly) owns.
    pub owner: Option<&'a str>,
}

/// An agent with the clients bound to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSummary {
    /// The agent.
    pub agent: Agent,
    /// Status now.
    pub status: AgentStatus,
    /// `client_id`s of bound clients.
    pub clients: Vec<String>,
}

/// Agents expiring within this many seconds count as "expiring soon".
pub const EXPIRING_SOON_SECS: i64 = 7 * 24 * 3600;

/// An agent name: 1–63 of `a-z`, `0-9`, `-`, `_`, `.`.
///
/// # Errors
/// A message fit for the user.
pub fn parse_agent_name(s: &str) -> Result<String, &'static str> {
    let s = s.trim().to_ascii_lowercase();
    if s.is_empty() || s.len() > 63 {
        return Err("Agent name must be 1–63 characters.");
    }
    if !s
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'))
    {
        return Err("Agent name may contain only letters, digits, '-', '_' and '.'.");
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(roles: &str, expires_at: Option<i64>, disabled: bool) -> Agent {
        Agent {
            id: AgentId::generate(),
            realm_id: RealmId::generate(),
            name: "bot".into(),
            owner: "o@example.com".into(),
            description: String::new(),
            roles: ScopeSet::parse(roles).expect("valid"),
            expires_at,
            disabled,
            created_at: 0,
            updated_at: 0,
        }
    }

    #[test]
    fn status_and_capability() {
        assert_eq!(
            agent("mcp:tools", None, false).status(5),
            AgentStatus::Active
        );
        assert_eq!(
            agent("mcp:tools", Some(5), false).status(5),
            AgentStatus::Expired
        );
        assert_eq!(
            agent("mcp:tools", Some(5), true).status(1),
            AgentStatus::Disabled
        );
        assert!(agent("mcp:tools", None, false).is_mcp_capable());
        assert!(agent("mcp", None, false).is_mcp_capable());
        assert!(!agent("mcpx reports", None, false).is_mcp_capable());
        assert!(parse_agent_name("Reports.Bot_1").is_ok());
        assert!(parse_agent_name("has space").is_err());
    }
}
