//! Who may do what: roles, permissions and the authenticated principal.
//!
//! Every [`crate::Core`] operation checks its permission here; the console hides what a role
//! cannot do, but hiding is never the protection.
use serde::{Deserialize, Serialize};

/// A console role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Manages everything.
    Admin,
    /// Reviews and revokes; reads the audit log.
    SecurityReviewer,
    /// Reads what is needed to protect their own MCP server.
    Developer,
}

impl Role {
    /// All roles, in display order.
    pub const ALL: [Role; 3] = [Role::Admin, Role::SecurityReviewer, Role::Developer];

    /// Stored and wire form.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::SecurityReviewer => "security_reviewer",
            Role::Developer => "developer",
        }
    }

    /// Parses the stored and wire form.
    ///
    /// # Errors
    /// A message fit for the user for any other value.
    pub fn parse(s: &str) -> Result<Self, &'static str> {
        match s.trim() {
            "admin" => Ok(Role::Admin),
            "security_reviewer" => Ok(Role::SecurityReviewer),
            "developer" => Ok(Role::Developer),
            _ => Err("Role must be admin, security_reviewer or developer."),
        }
    }

    /// Whether this role grants `p`.
    pub fn can(self, p: Permission) -> bool {
        use Permission::*;
        match self {
            Role::Admin => true,
            // Reviewers read what they review; developers read the resources they protect.
            Role::SecurityReviewer => matches!(
                p,
                ViewRealms
                    | ViewAudit
                    | ManageOwnAccount
                    | ViewResources
                    | ViewClients
                    | ViewAgents
                    | ViewPeople
                    | ReviewClients
                    | ViewRegistry
                    | ApproveReleases
            ),
            Role::Developer => matches!(
                p,
                ViewRealms | ManageOwnAccount | ViewResources | SubmitResources | ViewRegistry
            ),
        }
    }
}

/// An operation class checked by the policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// See realms and their issuers.
    ViewRealms,
    /// Create, rename, enable and disable realms.
    ManageRealms,
    /// List, create and change console users.
    ManageUsers,
    /// Read and export the audit log.
    ViewAudit,
    /// Change one's own password.
    ManageOwnAccount,
    /// Rotate and list signing keys.
    ManageKeys,
    /// See protected resources and their settings.
    ViewResources,
    /// Create, change and delete protected resources.
    ManageResources,
    /// Submit a protected resource for an admin to enable (developers, from "Protect your MCP
    /// server").
    SubmitResources,
    /// See clients, their registration and their grants.
    ViewClients,
    /// Create, change and delete clients; grant and revoke their access.
    ManageClients,
    /// See agents and the clients bound to them.
    ViewAgents,
    /// Create, change and delete agents; bind clients to them.
    ManageAgents,
    /// Approve, reject and revoke clients (the security-review queue).
    ReviewClients,
    /// See a realm's people and the apps they connected.
    ViewPeople,
    /// Create, change and disable a realm's people; revoke anyone's connected apps.
    ManagePeople,
    /// See the MCP server registry: approved servers, releases, rings and units.
    ViewRegistry,
    /// Edit the registry's draft, rings, units and members; publish and roll back.
    ManageRegistry,
    /// Approve or reject a release that waits for a second person.
    ApproveReleases,
}

/// The authenticated console user on whose behalf an operation runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// User id.
    pub user_id: crate::ids::UserId,
    /// Email (also the audit actor).
    pub email: String,
    /// Display name.
    pub display_name: String,
    /// Role.
    pub role: Role,
    /// The account's credential version when this principal was resolved: a session remembers
    /// it at sign-in and ends when it changes (password changed or reset).
    pub credential_version: i64,
}

impl Principal {
    /// The operator at the command line. It has database access already, so it holds the admin
    /// role; its audit actor is `cli`.
    pub fn cli() -> Self {
        Self {
            user_id: crate::ids::UserId::from_stored("cli"),
            email: "cli".into(),
            display_name: "Command line".into(),
            role: Role::Admin,
            credential_version: 0,
        }
    }

    /// Checks that the principal's role grants `p`.
    ///
    /// # Errors
    /// [`crate::error::Error::Forbidden`] otherwise.
    pub fn require(&self, p: Permission) -> Result<(), crate::error::Error> {
        if self.role.can(p) {
            Ok(())
        } else {
            Err(crate::error::Error::Forbidden)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix() {
        assert!(Role::Admin.can(Permission::ManageUsers));
        assert!(!Role::SecurityReviewer.can(Permission::ManageUsers));
        assert!(Role::SecurityReviewer.can(Permission::ViewAudit));
        assert!(!Role::Developer.can(Permission::ViewAudit));
        assert!(!Role::Developer.can(Permission::ManageRealms));
        assert!(Role::Developer.can(Permission::ManageOwnAccount));
        // Read-only views: reviewers see what they review, developers see resources.
        for p in [
            Permission::ViewResources,
            Permission::ViewClients,
            Permission::ViewAgents,
        ] {
            assert!(Role::SecurityReviewer.can(p));
        }
        assert!(Role::Developer.can(Permission::ViewResources));
        assert!(!Role::Developer.can(Permission::ViewClients));
        assert!(!Role::Developer.can(Permission::ViewAgents));
        for p in [
            Permission::ManageResources,
            Permission::ManageClients,
            Permission::ManageAgents,
            Permission::ManageKeys,
        ] {
            assert!(!Role::SecurityReviewer.can(p));
            assert!(!Role::Developer.can(p));
        }
        for r in Role::ALL {
            assert_eq!(Role::parse(r.as_str()), Ok(r));
        }
    }
}
