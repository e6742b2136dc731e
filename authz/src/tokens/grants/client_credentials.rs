//! The `client_credentials` grant (RFC 6749 §4.4): an access token whose `aud` is exactly one
//! registered resource (RFC 8707) that the client holds an access grant for, with at most the
//! grant's scopes.
use super::super::model::{TokenRequest, TokenResponse};
use crate::agents::{Agent, AgentStatus};
use crate::clients::Client;
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::realms::Realm;
use crate::resources::{Resource, ResourceUri};
use crate::scope::ScopeSet;

impl Core {
    /// Runs the grant for an authenticated client that may use it.
    pub(super) async fn client_credentials(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
    ) -> Result<TokenResponse> {
        // A client identified by a URL is interactive unless the realm trusts its host for
        // machine access (a trust taken back later stops it here too).
        if client.registration.kind == crate::clients::RegistrationKind::MetadataDocument
            && !crate::clients::trusted_for_machine_access(realm, client.client_id.as_str())
        {
            return Err(Error::oauth(
                OAuthErrorCode::UnauthorizedClient,
                "A client identified by a URL may use client_credentials only when the realm trusts its host for machine access.",
            ));
        }
        let resource = self.requested_resource(realm, &req.resource).await?;
        let requested =
            ScopeSet::parse(req.scope.as_deref().unwrap_or_default()).map_err(|_| {
                Error::oauth(
                    OAuthErrorCode::InvalidScope,
                    "The scope parameter is malformed.",
                )
            })?;
        let grant = self.cached_grant(&client.id, &resource.id).await?;
        let granted_scopes =
            machine_scopes(client, &resource, grant.as_ref()).ok_or_else(|| {
                Error::oauth(
                    OAuthErrorCode::InvalidTarget,
                    "This client has not been granted access to the resource.",
                )
            })?;
        let agent = self.active_agent_of(client).await?;
        let mut allowed = granted_scopes.intersection(&resource.scopes);
        if let Some(a) = &agent {
            allowed = allowed.intersection(&a.roles);
        }
        let granted = if requested.is_empty() {
            allowed
        } else {
            requested.intersection(&allowed)
        };
        if granted.is_empty() {
            // Say which limit bit: an agent's roles cap what its clients get, and that is
            // the limit an administrator most often forgets (the gateway's `mcp` included).
            let by_agent = agent.as_ref().filter(|a| {
                let wanted = if requested.is_empty() {
                    granted_scopes.intersection(&resource.scopes)
                } else {
                    requested.intersection(&granted_scopes.intersection(&resource.scopes))
                };
                !wanted.is_empty() && wanted.intersection(&a.roles).is_empty()
            });
            return Err(Error::oauth(
                OAuthErrorCode::InvalidScope,
                match by_agent {
                    Some(a) => format!(
                        "This client acts for agent {}, whose roles ({}) include none of the scopes asked for; an administrator can add them to the agent's roles.",
                        a.name,
                        if a.roles.is_empty() {
                            "none".to_owned()
                        } else {
                            a.roles.to_string()
                        }
                    ),
                    None => {
                        "None of the requested scopes may be granted for this resource.".to_owned()
                    }
                },
            ));
        }
        let issued = self
            .mint_access_token(realm, client, &resource, agent.as_ref(), &granted, None)
            .await?;
        self.token_use.record(&client.id, &resource.id, self.now());
        Ok(issued)
    }

    /// The one enabled resource a token request is for: its `resource` parameter, or the
    /// realm's default resource when it sent none.
    ///
    /// # Errors
    /// `OAuth(invalid_target)`.
    pub(crate) async fn requested_resource(
        &self,
        realm: &Realm,
        resource: &[String],
    ) -> Result<Resource> {
        let target = |msg: &'static str| Error::oauth(OAuthErrorCode::InvalidTarget, msg);
        let found = match resource {
            [] => match &realm.default_resource_id {
                Some(id) => self.cached_resource_by_id(&realm.id, id).await?,
                None => return Err(target("The resource parameter is required.")),
            },
            [one] => {
                let uri = ResourceUri::parse(one, self.config().allow_http_loopback)
                    .map_err(|_| target("The resource parameter is not a valid resource URI."))?;
                self.cached_resource(&realm.id, &uri).await?
            }
            _ => return Err(target("Exactly one resource parameter is allowed.")),
        };
        found
            .filter(|r| r.enabled)
            .ok_or_else(|| target("The resource is unknown or disabled."))
    }

    /// The agent a client acts for, which must be active; `None` for clients without one.
    ///
    /// # Errors
    /// `OAuth(unauthorized_client)` when the agent is disabled, expired or gone.
    pub(crate) async fn active_agent_of(&self, client: &Client) -> Result<Option<Agent>> {
        let Some(binding) = &client.agent else {
            return Ok(None);
        };
        let now = self.now();
        self.cached_agent(&binding.agent_id)
            .await?
            .filter(|a| a.status(now) == AgentStatus::Active)
            .map(Some)
            .ok_or_else(|| {
                Error::oauth(
                    OAuthErrorCode::UnauthorizedClient,
                    "The agent this client acts for is disabled or expired.",
                )
            })
    }
}

/// The scopes a machine client may get at a resource: its grant's, else — for a self-registered
/// client at a resource open to them — the resource's within what the client registered.
pub(crate) fn machine_scopes(
    client: &Client,
    resource: &Resource,
    grant: Option<&crate::access::Grant>,
) -> Option<ScopeSet> {
    if let Some(g) = grant {
        return Some(g.scopes.clone());
    }
    let self_registered = client.registration.kind != crate::clients::RegistrationKind::Admin;
    if self_registered && resource.policy.open_to_self_registered {
        return Some(if client.scope.is_empty() {
            resource.scopes.clone()
        } else {
            client.scope.intersection(&resource.scopes)
        });
    }
    None
}
