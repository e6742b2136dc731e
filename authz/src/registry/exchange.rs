//! The registry as the organisation's consent: a person or agent gets tokens for a server the
//! latest release approves with `auth.mode = portcullis` and gives to one of their rings or
//! units.
use super::model::{GroupKind, MemberKind};
use crate::core::Core;
use crate::error::Result;
use crate::realms::Realm;
use crate::resources::{Resource, ResourceUri};
use crate::scope::ScopeSet;
use portcullis_manifest::{Auth, Transport};

/// What the latest release gives a member at one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RegistryConsent {
    /// The server's registry id.
    pub server: String,
    /// The release's id.
    pub release: String,
    /// The scopes the release names for it (empty: the resource's own).
    pub scopes: ScopeSet,
}

impl Core {
    /// The registry server at `resource` that the latest release gives `member` (through
    /// the rings and units they are in now), when Portcullis is its authorization server.
    ///
    /// # Errors
    /// Storage failure; `Internal` when the stored release no longer passes its checks.
    pub(crate) async fn registry_consent(
        &self,
        realm: &Realm,
        resource: &Resource,
        member: (MemberKind, &str),
    ) -> Result<Option<RegistryConsent>> {
        let Some(served) = self.latest_served_registry(realm).await? else {
            return Ok(None);
        };
        let allow_http = self.config().allow_http_loopback;
        let at_resource = |s: &&portcullis_manifest::Server| match (&s.transport, &s.auth) {
            (Transport::Remote { url, .. }, Auth::Portcullis { .. }) => {
                ResourceUri::parse(url, allow_http).is_ok_and(|u| u == resource.uri)
            }
            _ => false,
        };
        if !served.policy.servers.iter().any(|s| at_resource(&s)) {
            return Ok(None);
        }
        let (mut rings, mut units) = (Vec::new(), Vec::new());
        for (kind, id) in self.store.groups_of(&realm.id, member).await? {
            match kind {
                GroupKind::Ring => rings.push(id),
                GroupKind::Unit => units.push(id),
            }
        }
        let given = served
            .policy
            .servers_for(&rings, &units)
            .into_iter()
            .find(at_resource);
        Ok(given.map(|s| RegistryConsent {
            server: s.id.clone(),
            release: served.id.clone(),
            scopes: match &s.auth {
                Auth::Portcullis { scopes } => {
                    ScopeSet::parse(&scopes.join(" ")).unwrap_or_default()
                }
                _ => ScopeSet::default(),
            },
        }))
    }
}
