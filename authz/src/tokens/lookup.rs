//! Cached lookups of the token path: the serving realm, a client with its secrets, a resource
//! by URI or id, an agent, a client's access grants. See [`crate::cache`] for how entries are invalidated.
use crate::access::Grant;
use crate::agents::{Agent, AgentId};
use crate::clients::{Client, ClientId, ClientSecret};
use crate::core::Core;
use crate::error::{Error, Result, StorageError};
use crate::ids::{ClientRowId, ResourceId};
use crate::realms::{Realm, RealmId, RealmName};
use crate::resources::{Resource, ResourceUri};

impl Core {
    /// A realm that serves protocol requests: unknown, malformed and disabled realm names are
    /// `NotFound`. Cached by the parsed name.
    pub(crate) async fn serving_realm(&self, name: &str) -> Result<Realm> {
        let parsed = RealmName::parse(name)
            .map_err(|_| Error::not_found("realm", name.chars().take(63).collect::<String>()))?;
        let (generation, now) = (self.store.generation(), self.now());
        let realm = match self.cache.realms.get(&parsed, generation, now) {
            Some(r) => r,
            None => {
                let r = self
                    .store
                    .find_realm_by_name(&parsed)
                    .await?
                    .ok_or_else(|| Error::not_found("realm", parsed.as_str()))?;
                self.cache
                    .realms
                    .put(parsed.clone(), r.clone(), generation, now);
                r
            }
        };
        if realm.enabled {
            Ok(realm)
        } else {
            Err(Error::not_found("realm", parsed.as_str()))
        }
    }

    /// A client and its secrets.
    pub(crate) async fn cached_client(
        &self,
        realm_id: &RealmId,
        client_id: &ClientId,
    ) -> Result<Option<(Client, Vec<ClientSecret>)>> {
        let (generation, now) = (self.store.generation(), self.now());
        let key = (realm_id.clone(), client_id.clone());
        if let Some(hit) = self.cache.clients.get(&key, generation, now) {
            return Ok(Some(hit));
        }
        let Some(client) = self.store.find_client(realm_id, client_id).await? else {
            return Ok(None);
        };
        let secrets = self.store.list_client_secrets(&client.id).await?;
        self.cache
            .clients
            .put(key, (client.clone(), secrets.clone()), generation, now);
        Ok(Some((client, secrets)))
    }

    /// A resource by canonical URI.
    pub(crate) async fn cached_resource(
        &self,
        realm_id: &RealmId,
        uri: &ResourceUri,
    ) -> Result<Option<Resource>> {
        let load = || self.store.find_resource_by_uri(realm_id, uri);
        self.cached_resource_with(realm_id, uri.as_str(), load)
            .await
    }

    /// A resource by id (the realm's default resource).
    pub(crate) async fn cached_resource_by_id(
        &self,
        realm_id: &RealmId,
        id: &ResourceId,
    ) -> Result<Option<Resource>> {
        let load = || self.store.find_resource_by_id(realm_id, id);
        self.cached_resource_with(realm_id, id.as_str(), load).await
    }

    /// Looks `key` up in the resource cache, else awaits `load()` and caches a hit. Ids (`res_…`)
    /// and canonical URIs (`http…`) never collide, so both share one map.
    async fn cached_resource_with<F>(
        &self,
        realm_id: &RealmId,
        key: &str,
        load: impl FnOnce() -> F,
    ) -> Result<Option<Resource>>
    where
        F: std::future::Future<Output = std::result::Result<Option<Resource>, StorageError>>,
    {
        let (generation, now) = (self.store.generation(), self.now());
        let key = (realm_id.clone(), key.to_owned());
        if let Some(hit) = self.cache.resources.get(&key, generation, now) {
            return Ok(Some(hit));
        }
        let found = load().await?;
        if let Some(r) = &found {
            self.cache.resources.put(key, r.clone(), generation, now);
        }
        Ok(found)
    }

    /// An agent by id.
    pub(crate) async fn cached_agent(&self, id: &AgentId) -> Result<Option<Agent>> {
        let (generation, now) = (self.store.generation(), self.now());
        if let Some(a) = self.cache.agents.get(id, generation, now) {
            return Ok(Some(a));
        }
        let found = self.store.find_agent_by_id(id).await?;
        if let Some(a) = &found {
            self.cache
                .agents
                .put(id.clone(), a.clone(), generation, now);
        }
        Ok(found)
    }

    /// A client's grant for a resource, if it has one.
    pub(crate) async fn cached_grant(
        &self,
        client: &ClientRowId,
        resource: &ResourceId,
    ) -> Result<Option<Grant>> {
        let (generation, now) = (self.store.generation(), self.now());
        let grants = match self.cache.grants.get(client, generation, now) {
            Some(g) => g,
            None => {
                let g: std::sync::Arc<[Grant]> =
                    self.store.list_client_grants(client).await?.into();
                self.cache
                    .grants
                    .put(client.clone(), g.clone(), generation, now);
                g
            }
        };
        Ok(grants.iter().find(|g| &g.resource == resource).cloned())
    }
}
