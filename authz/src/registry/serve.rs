//! Reading a realm's published registry over HTTP: the signed releases (for `portcullis-cli`)
//! and the MCP Registry API (for VS Code and Copilot). Who may read is the realm's
//! [`ApiAccess`]: nobody (the endpoints do not exist), holders of a Portcullis access token
//! whose audience is the registry, or anyone.
use super::model::{
    ApiAccess, GroupKind, MemberGroups, MemberKind, ReleaseSelector, ServedRegistry, StoredRelease,
};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::realms::Realm;
use portcullis_manifest::Policy;
use portcullis_manifest::registry_api::ReleaseInfo;
use portcullis_manifest::release::{Manifest, SignedRelease};

impl Core {
    /// A published release document, when the caller may read the realm's registry.
    ///
    /// # Errors
    /// `NotFound` (realm; access off; no such release), `OAuth(invalid_token)` (bearer access
    /// and no valid token), storage failure.
    pub async fn served_release(
        &self,
        realm_name: &str,
        which: ReleaseSelector<'_>,
        bearer: Option<&str>,
    ) -> Result<StoredRelease> {
        let realm = self.registry_reader(realm_name, bearer).await?;
        let found = match which {
            ReleaseSelector::Latest => self.store.latest_release(&realm.id).await?,
            ReleaseSelector::Id(id) if is_release_id(id) => {
                self.store.release_by_id(&realm.id, id).await?
            }
            ReleaseSelector::Id(_) => None,
        };
        found.ok_or_else(|| Error::not_found("release", realm_name))
    }

    /// The latest release's servers for the MCP Registry API, when the caller may read.
    ///
    /// # Errors
    /// As [`Core::served_release`]; `Internal` when a stored release no longer passes its
    /// checks.
    pub async fn served_registry(
        &self,
        realm_name: &str,
        bearer: Option<&str>,
    ) -> Result<std::sync::Arc<ServedRegistry>> {
        let realm = self.registry_reader(realm_name, bearer).await?;
        self.latest_served_registry(&realm)
            .await?
            .ok_or_else(|| Error::not_found("release", realm_name))
    }

    /// The realm's latest release, parsed once per release and cached; `None` before the first
    /// publication.
    ///
    /// # Errors
    /// `Internal` when a stored release no longer passes its checks; storage failure.
    pub(crate) async fn latest_served_registry(
        &self,
        realm: &Realm,
    ) -> Result<Option<std::sync::Arc<ServedRegistry>>> {
        let (generation, now) = (self.store.generation(), self.now());
        let head = match self.cache.release_heads.get(&realm.id, generation, now) {
            Some(head) => head,
            None => {
                let Some(head) = self.store.latest_release_head(&realm.id).await? else {
                    return Ok(None);
                };
                self.cache
                    .release_heads
                    .put(realm.id.clone(), head.clone(), generation, now);
                head
            }
        };
        let cached = self
            .served_registries
            .lock()
            .ok()
            .and_then(|c| c.get(&realm.id).cloned())
            .filter(|s| s.id == head.id);
        if let Some(served) = cached {
            return Ok(Some(served));
        }
        let Some(release) = self.store.release_by_id(&realm.id, &head.id).await? else {
            return Ok(None);
        };
        let signed: SignedRelease = serde_json::from_str(&release.document)
            .map_err(|e| Error::Internal(format!("release {}: {e}", release.sequence)))?;
        let manifest: Manifest = serde_json::from_value(signed.manifest)
            .map_err(|e| Error::Internal(format!("release {}: {e}", release.sequence)))?;
        let (policy, _) = Policy::check(&manifest.policy);
        let policy = policy.ok_or_else(|| {
            Error::Internal(format!("release {} fails its checks", release.sequence))
        })?;
        let published = time::OffsetDateTime::from_unix_timestamp(release.published_at)
            .ok()
            .and_then(|t| {
                t.format(&time::format_description::well_known::Rfc3339)
                    .ok()
            })
            .unwrap_or_default();
        let served = std::sync::Arc::new(ServedRegistry {
            id: release.id,
            policy,
            info: ReleaseInfo {
                sequence: manifest.sequence,
                published_at: published,
                namespace: ReleaseInfo::namespace_of(&manifest.issuer),
            },
        });
        if let Ok(mut cache) = self.served_registries.lock() {
            cache.insert(realm.id.clone(), served.clone());
        }
        Ok(Some(served))
    }

    /// The id of the release `which` names, when the caller may read it: the cheap answer to
    /// `If-None-Match` (no document is loaded). For an id, the id itself once it is well formed
    /// (releases never change).
    ///
    /// # Errors
    /// As [`Core::served_release`].
    pub async fn served_release_id(
        &self,
        realm_name: &str,
        which: ReleaseSelector<'_>,
        bearer: Option<&str>,
    ) -> Result<String> {
        let realm = self.registry_reader(realm_name, bearer).await?;
        match which {
            ReleaseSelector::Latest => Ok(self
                .store
                .latest_release_head(&realm.id)
                .await?
                .ok_or_else(|| Error::not_found("release", realm_name))?
                .id),
            ReleaseSelector::Id(id) if is_release_id(id) => Ok(id.to_owned()),
            ReleaseSelector::Id(_) => Err(Error::not_found("release", realm_name)),
        }
    }

    /// The realm, when the caller may read its registry.
    async fn registry_reader(&self, realm_name: &str, bearer: Option<&str>) -> Result<Realm> {
        let realm = self.serving_realm(realm_name).await?;
        let registry = self.registry_of(&realm).await?;
        match registry.api_access {
            ApiAccess::Off => Err(Error::not_found("registry", realm_name)),
            ApiAccess::Public => Ok(realm),
            ApiAccess::Bearer => {
                let token = bearer.ok_or_else(bearer_required)?;
                self.registry_bearer(&realm, token).await?;
                Ok(realm)
            }
        }
    }

    /// The rings and units the holder of a registry token is in now (a person, a console
    /// account or an agent, by the token's subject): what `portcullis-cli pull` renders for
    /// them. Always needs the token, whoever may read the registry.
    ///
    /// # Errors
    /// `NotFound` (realm, or registry access off), `OAuth(invalid_token)`, storage failure.
    pub async fn registry_groups_of_bearer(
        &self,
        realm_name: &str,
        bearer: Option<&str>,
    ) -> Result<MemberGroups> {
        let realm = self.serving_realm(realm_name).await?;
        if self.registry_of(&realm).await?.api_access == ApiAccess::Off {
            return Err(Error::not_found("registry", realm_name));
        }
        let claims = self
            .registry_bearer(&realm, bearer.ok_or_else(bearer_required)?)
            .await?;
        // A machine token's subject is its client; its agent is the member.
        let (member, subject) = if let Some(agent) = &claims.agent {
            (MemberKind::Agent, agent.agent_id.clone())
        } else if claims.sub.starts_with("usr_") {
            (MemberKind::User, claims.sub.clone())
        } else {
            (MemberKind::Person, claims.sub.clone())
        };
        let mut out = MemberGroups {
            subject: claims.sub.clone(),
            ..MemberGroups::default()
        };
        for (kind, id) in self.store.groups_of(&realm.id, (member, &subject)).await? {
            match kind {
                GroupKind::Ring => out.rings.push(id),
                GroupKind::Unit => out.units.push(id),
            }
        }
        Ok(out)
    }

    /// The claims of `token` when it is a live access token of `realm` for its registry.
    ///
    /// # Errors
    /// `OAuth(invalid_token)` otherwise; storage failure.
    pub(crate) async fn registry_bearer(
        &self,
        realm: &Realm,
        token: &str,
    ) -> Result<portcullis_claims::AccessTokenClaims> {
        let claims = self
            .verify_access_token(realm, token)
            .await?
            .ok_or_else(bearer_required)?;
        let audience = self.registry_audience(&realm.name);
        if claims.aud != audience
            || claims.exp <= self.now()
            || self.is_revoked(&realm.id, &claims.jti).await?
        {
            return Err(bearer_required());
        }
        let client = self
            .token_client(realm, &claims)
            .await?
            .ok_or_else(bearer_required)?;
        if !self.token_is_alive(realm, &claims, &client).await? {
            return Err(bearer_required());
        }
        Ok(claims)
    }
}

/// The refusal of a request without a live registry token.
fn bearer_required() -> Error {
    Error::oauth(
        OAuthErrorCode::InvalidToken,
        "An access token of this realm for the registry is required.",
    )
}

/// 64 lowercase hex digits.
fn is_release_id(id: &str) -> bool {
    id.len() == 64 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
