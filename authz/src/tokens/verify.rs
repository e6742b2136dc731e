//! Verification of this realm's access tokens, and whether the identities behind one are
//! still alive.
use crate::agents::AgentStatus;
use crate::clients::{Client, ClientId};
use crate::core::Core;
use crate::error::Result;
use crate::ids::{AgentId, ResourceId};
use crate::keys::decode_unverified;
use crate::realms::Realm;
use crate::resources::ResourceUri;
use portcullis_claims::{ACCESS_TOKEN_TYP, AccessTokenClaims};

impl Core {
    /// Verifies an access token issued by this realm: signature by a published key, `typ`,
    /// `iss`, and claims of the expected shape. Expiry, revocation and liveness are checked by
    /// the callers that need them. `None` for anything else.
    pub(crate) async fn verify_access_token(
        &self,
        realm: &Realm,
        token: &str,
    ) -> Result<Option<AccessTokenClaims>> {
        use sha2::Digest as _;
        let key = (
            realm.id.clone(),
            <[u8; 32]>::from(sha2::Sha256::digest(token)),
        );
        let (generation, now) = (self.store.generation(), self.now());
        if let Some(claims) = self.cache.verified.get(&key, generation, now) {
            return Ok(Some((*claims).clone()));
        }
        let verified = self.verify_signed_access_token(realm, token).await?;
        if let Some(claims) = &verified {
            self.cache
                .verified
                .put(key, std::sync::Arc::new(claims.clone()), generation, now);
        }
        Ok(verified)
    }

    /// [`Core::verify_access_token`] without the cache.
    async fn verify_signed_access_token(
        &self,
        realm: &Realm,
        token: &str,
    ) -> Result<Option<AccessTokenClaims>> {
        let Ok((header, _)) = decode_unverified(token) else {
            return Ok(None);
        };
        if header.typ.as_deref() != Some(ACCESS_TOKEN_TYP) {
            return Ok(None);
        }
        let keys = self.realm_keys(realm, None).await?;
        let Some(verifier) = header.kid.as_deref().and_then(|kid| keys.verifier(kid)) else {
            return Ok(None);
        };
        let Ok((_, claims)) = verifier.verify(token) else {
            return Ok(None);
        };
        let Ok(claims) = serde_json::from_value::<AccessTokenClaims>(claims) else {
            return Ok(None);
        };
        Ok((claims.iss == self.issuer(&realm.name)).then_some(claims))
    }

    /// An access token of this realm that a client may present as its own credential: verified,
    /// unexpired, unrevoked, and alive (see [`Core::token_is_alive`]); with the client it was
    /// issued to. `None` for anything else.
    pub(crate) async fn live_access_token(
        &self,
        realm: &Realm,
        token: &str,
    ) -> Result<Option<(AccessTokenClaims, Client)>> {
        let Some(claims) = self.verify_access_token(realm, token).await? else {
            return Ok(None);
        };
        if claims.exp <= self.now() || self.is_revoked(&realm.id, &claims.jti).await? {
            return Ok(None);
        }
        let Some(client) = self.token_client(realm, &claims).await? else {
            return Ok(None);
        };
        if !self.token_is_alive(realm, &claims, &client).await? {
            return Ok(None);
        }
        Ok(Some((claims, client)))
    }

    /// The client a verified token was issued to, if that very client (same row) still
    /// exists.
    pub(crate) async fn token_client(
        &self,
        realm: &Realm,
        claims: &AccessTokenClaims,
    ) -> Result<Option<Client>> {
        let Ok(client_id) = ClientId::parse(&claims.client_id) else {
            return Ok(None);
        };
        Ok(self
            .cached_client(&realm.id, &client_id)
            .await?
            .map(|(c, _)| c)
            .filter(|c| c.id.as_str() == claims.origin.client))
    }

    /// Whether a verified, unexpired, unrevoked token is still backed by every identity it was
    /// minted from: the same client row, enabled; the same resource row, enabled, and still
    /// granted to the client with every scope the token carries; and, when it
    /// carries an agent, the client still bound to that agent by the same binding and the agent
    /// active now, with the owner and (at least) the roles the token names.
    pub(crate) async fn token_is_alive(
        &self,
        realm: &Realm,
        claims: &AccessTokenClaims,
        client: &Client,
    ) -> Result<bool> {
        // Minted before the client was last revoked (or expired): dead for good, even if an
        // administrator restored it since.
        if !client.is_active() || claims.origin.epoch != client.registration.token_epoch {
            return Ok(false);
        }
        let resource = match ResourceUri::parse(&claims.aud, true) {
            Ok(uri) => self.cached_resource(&realm.id, &uri).await?,
            Err(_) => None,
        };
        let Some(resource) =
            resource.filter(|r| r.enabled && r.id.as_str() == claims.origin.resource)
        else {
            return Ok(false);
        };
        if claims.origin.subject.is_some() {
            return self.exchanged_token_is_alive(realm, claims, client).await;
        }
        // A person's token: alive while its family is (not revoked by a replay, a reuse, a
        // revoked consent or a disabled person), for this client and resource.
        if let Some(family) = &claims.origin.family {
            let now = self.now();
            // The person (or console account) must still be able to sign in.
            if self.live_subject(realm, &claims.sub).await?.is_none() {
                return Ok(false);
            }
            return Ok(self
                .store
                .find_family(&crate::authorize::FamilyId::from_stored(family.as_str()))
                .await?
                .is_some_and(|f| {
                    f.is_live(now)
                        && f.client_pk == client.id
                        && f.resource_id == resource.id
                        && claims.sub == f.subject
                        && claims.scopes().all(|s| f.scopes.contains(s))
                })
                && (resource.policy.consent != crate::resources::ConsentPolicy::GrantedClients
                    || self
                        .cached_grant(&client.id, &resource.id)
                        .await?
                        .is_some_and(|g| claims.scopes().all(|s| g.scopes.contains(s)))));
        }
        // Still granted (or open to it), with every scope the token carries.
        let grant = self.cached_grant(&client.id, &resource.id).await?;
        let granted = super::grants::machine_scopes(client, &resource, grant.as_ref());
        if !granted.is_some_and(|g| claims.scopes().all(|s| g.contains(s))) {
            return Ok(false);
        }
        let bound = client.agent.as_ref();
        let binding_same = bound.map(|b| b.binding_id.as_str()) == claims.origin.binding.as_deref();
        let agent_same = bound.map(|b| b.agent_id.as_str())
            == claims.agent.as_ref().map(|a| a.agent_id.as_str());
        if !binding_same || !agent_same {
            return Ok(false);
        }
        match &claims.agent {
            None => Ok(true),
            Some(a) => {
                let now = self.now();
                Ok(self
                    .cached_agent(&AgentId::from_stored(a.agent_id.as_str()))
                    .await?
                    .is_some_and(|agent| {
                        // Active, and still what the token says it is: the same owner, every
                        // role it carries, and every scope it grants within those roles.
                        agent.status(now) == AgentStatus::Active
                            && agent.owner == a.agent_owner
                            && a.roles.iter().all(|r| agent.roles.contains(r))
                            && claims.scopes().all(|s| agent.roles.contains(s))
                    }))
            }
        }
    }

    /// Whether an exchanged token (RFC 8693) is still backed by everything it was minted from:
    /// the calling client bound as it was (its agent active), and every token of its exchange
    /// chain unrevoked, with its client (same row, active, same epoch and binding, its agent
    /// active), its resource enabled, and — for a person's — the person able to sign in and
    /// the authorization (family) it came from live. Revoking the person's sign-in, a subject
    /// token or a client in the chain ends it at once.
    async fn exchanged_token_is_alive(
        &self,
        realm: &Realm,
        claims: &AccessTokenClaims,
        client: &Client,
    ) -> Result<bool> {
        if !self
            .bound_as_minted(client, claims.origin.binding.as_deref())
            .await?
        {
            return Ok(false);
        }
        let now = self.now();
        for s in claims.origin.subjects() {
            if self.is_revoked(&realm.id, &s.jti).await? {
                return Ok(false);
            }
            let Ok(client_id) = ClientId::parse(&s.client_id) else {
                return Ok(false);
            };
            let Some((c, _)) = self.cached_client(&realm.id, &client_id).await? else {
                return Ok(false);
            };
            if c.id.as_str() != s.origin.client
                || !c.is_active()
                || c.registration.token_epoch != s.origin.epoch
                || !self
                    .bound_as_minted(&c, s.origin.binding.as_deref())
                    .await?
            {
                return Ok(false);
            }
            let resource = self
                .cached_resource_by_id(
                    &realm.id,
                    &ResourceId::from_stored(s.origin.resource.as_str()),
                )
                .await?;
            if !resource.is_some_and(|r| r.enabled) {
                return Ok(false);
            }
            if let Some(family) = &s.origin.family {
                if self.live_subject(realm, &claims.sub).await?.is_none() {
                    return Ok(false);
                }
                let live = self
                    .store
                    .find_family(&crate::authorize::FamilyId::from_stored(family.as_str()))
                    .await?
                    .is_some_and(|f| {
                        f.is_live(now)
                            && f.client_pk == c.id
                            && f.resource_id.as_str() == s.origin.resource
                            && f.subject == claims.sub
                    });
                if !live {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Whether `client` is bound to an agent by the binding a token names (or to none when it
    /// names none), and that agent is active now.
    async fn bound_as_minted(&self, client: &Client, binding: Option<&str>) -> Result<bool> {
        let bound = client.agent.as_ref();
        if bound.map(|b| b.binding_id.as_str()) != binding {
            return Ok(false);
        }
        match bound {
            None => Ok(true),
            Some(b) => {
                let now = self.now();
                Ok(self
                    .cached_agent(&b.agent_id)
                    .await?
                    .is_some_and(|a| a.status(now) == AgentStatus::Active))
            }
        }
    }
}
