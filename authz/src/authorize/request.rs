//! The authorization request: which client asks and where to answer it, the checks of its
//! parameters (response type, PKCE, state, prompt, nonce) and the resource and scopes it may get.
use super::checks::{ScopeRequest, check_challenge, redirect_matches};
use super::model::{AuthorizeParams, MAX_STATE_LEN, OpenId, Prompt, TICKET_TTL_SECS};
use super::ops::{Refusal, refuse};
use super::ticket::{Ticket, browser_hash, page_error};
use crate::audit::RequestMeta;
use crate::clients::{Client, ClientId, GrantType, ReviewState};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::realms::Realm;
use crate::resources::Resource;
use crate::scope::ScopeSet;

impl Core {
    /// The client and the redirect URI to answer at; errors here are never redirected.
    pub(super) async fn authorize_client(
        &self,
        realm: &Realm,
        params: &AuthorizeParams,
        meta: &RequestMeta,
    ) -> Result<(Client, String)> {
        for name in ["client_id", "redirect_uri"] {
            if params.repeated.iter().any(|r| r == name) {
                return Err(page_error("A parameter was sent more than once."));
            }
        }
        let Some(raw) = params.client_id.as_deref().filter(|c| !c.is_empty()) else {
            return Err(page_error("The request has no client_id."));
        };
        let unknown = || {
            Error::oauth(
                OAuthErrorCode::InvalidClient,
                "This application is not registered here.",
            )
        };
        let client_id = ClientId::parse(raw).map_err(|_| unknown())?;
        let client = if crate::clients::is_metadata_document_id(raw) {
            Some(self.metadata_document_client(realm, raw, meta).await?)
        } else {
            self.cached_client(&realm.id, &client_id)
                .await?
                .map(|(c, _)| c)
        };
        let client = client
            .filter(|c| c.resource_server_for.is_none())
            .ok_or_else(unknown)?;
        let Some(presented) = params.redirect_uri.as_deref().filter(|u| !u.is_empty()) else {
            return Err(page_error("The request has no redirect_uri."));
        };
        if !client
            .metadata
            .redirect_uris
            .iter()
            .any(|r| redirect_matches(r, presented))
        {
            return Err(page_error(
                "The redirect_uri is not one this application registered.",
            ));
        }
        if !client.enabled {
            return Err(Error::oauth(
                OAuthErrorCode::UnauthorizedClient,
                "This application has been disabled by an administrator.",
            ));
        }
        match client.registration.review {
            // A waiting client gets its own page (`authorize` shows it).
            ReviewState::Approved | ReviewState::Pending => {}
            ReviewState::Rejected => {
                return Err(Error::oauth(
                    OAuthErrorCode::UnauthorizedClient,
                    "The security team did not approve this application.",
                ));
            }
            ReviewState::Revoked => {
                return Err(Error::oauth(
                    OAuthErrorCode::UnauthorizedClient,
                    "This application's access has been revoked.",
                ));
            }
            ReviewState::Expired => {
                return Err(Error::oauth(
                    OAuthErrorCode::UnauthorizedClient,
                    "This application's registration expired after going unused. Remove the server from the app and add it again so that it registers anew.",
                ));
            }
        }
        Ok((client, presented.to_owned()))
    }

    /// Checks everything else, into a ticket.
    pub(super) async fn check_request(
        &self,
        realm: &Realm,
        client: &Client,
        redirect_uri: &str,
        params: &AuthorizeParams,
        browser: &str,
    ) -> std::result::Result<Ticket, Refusal> {
        if let Some(name) = params.repeated.first() {
            return Err(refuse(
                "invalid_request",
                format!("{name} was sent more than once."),
            ));
        }
        match params.response_type.as_deref() {
            Some("code") => {}
            None | Some("") => return Err(refuse("invalid_request", "response_type is required.")),
            Some(_) => {
                return Err(refuse(
                    "unsupported_response_type",
                    "Only response_type=code is supported.",
                ));
            }
        }
        if !client.grant_types.contains(&GrantType::AuthorizationCode) {
            return Err(refuse(
                "unauthorized_client",
                "This application may not use the authorization code flow.",
            ));
        }
        if params
            .state
            .as_ref()
            .is_some_and(|s| s.len() > MAX_STATE_LEN)
        {
            return Err(refuse("invalid_request", "state is too long."));
        }
        let challenge = check_challenge(
            params.code_challenge.as_deref(),
            params.code_challenge_method.as_deref(),
        )
        .map_err(|m| refuse("invalid_request", m))?;
        let prompt =
            Prompt::parse(params.prompt.as_deref()).map_err(|m| refuse("invalid_request", m))?;
        let (resource, scopes) = self
            .asked_scopes(realm, client, &params.resource, params.scope.as_deref())
            .await?;
        let openid = ScopeSet::parse(params.scope.as_deref().unwrap_or_default())
            .ok()
            .as_ref()
            .and_then(OpenId::of);
        let nonce = match (openid, params.nonce.as_deref()) {
            (Some(_), Some(n)) if n.len() > OpenId::MAX_NONCE_LEN => {
                return Err(refuse(
                    "invalid_request",
                    "nonce is too long (at most 255 characters).",
                ));
            }
            (Some(_), Some(n)) if !n.is_empty() => Some(n.to_owned()),
            _ => None,
        };
        Ok(Ticket {
            id: crate::secret::new_id("tkt"),
            realm: realm.id.to_string(),
            client: client.id.to_string(),
            client_version: client.updated_at,
            client_id: client.client_id.to_string(),
            redirect_uri: redirect_uri.to_owned(),
            state: params.state.clone(),
            challenge,
            resource: resource.id.to_string(),
            scopes: scopes.to_string(),
            // Every client registered for refresh tokens gets one: MCP clients ask for the scopes
            // the resource's metadata lists, which never include `offline_access`, and a person
            // re-signing in every few minutes is no protection. `offline_access` is accepted and
            // changes nothing more.
            offline: client.grant_types.contains(&GrantType::RefreshToken),
            openid,
            nonce,
            prompt,
            exp: self.now() + TICKET_TTL_SECS,
            browser: browser_hash(browser),
            subject: None,
            auth_time: None,
            device: None,
            user_code: None,
        })
    }

    /// The resource a request names and the scopes it may get there: what it asked (or the
    /// resource's defaults), cut to what the client may get for a person.
    pub(super) async fn asked_scopes(
        &self,
        realm: &Realm,
        client: &Client,
        resources: &[String],
        scope: Option<&str>,
    ) -> std::result::Result<(Resource, ScopeSet), Refusal> {
        let resource = self
            .requested_resource(realm, resources)
            .await
            .map_err(|e| match e {
                Error::OAuth(o) => refuse("invalid_target", o.description.to_string()),
                _ => refuse("server_error", "The resource could not be looked up."),
            })?;
        let asked = ScopeRequest::parse(scope)
            .map_err(|_| refuse("invalid_scope", "The scope parameter is malformed."))?;
        // Never a resource permission, even on a resource stored before such names were
        // refused: they are agreed to as requests about the person.
        let mut allowed = user_scopes(client, &resource).difference(
            &ScopeSet::parse(&super::checks::NON_RESOURCE_SCOPES.join(" ")).unwrap_or_default(),
        );
        if resource.policy.consent == crate::resources::ConsentPolicy::GrantedClients {
            match self.cached_grant(&client.id, &resource.id).await {
                Ok(Some(g)) => allowed = allowed.intersection(&g.scopes),
                Ok(None) => {
                    return Err(refuse(
                        "access_denied",
                        "This application has not been allowed to use the resource; an administrator grants it access.",
                    ));
                }
                Err(_) => return Err(refuse("server_error", "The grant could not be looked up.")),
            }
        }
        let defaults = &resource.policy.default_scopes;
        let asked = if asked.scopes.is_empty() && !defaults.is_empty() {
            ScopeRequest {
                scopes: defaults.intersection(&allowed),
                offline: asked.offline,
            }
        } else {
            asked
        };
        let Some(scopes) = asked.grant(&allowed) else {
            let openid_alone = scope.is_some_and(|s| s.split(' ').any(|s| s == "openid"));
            return Err(refuse(
                "invalid_scope",
                if openid_alone {
                    "None of the requested scopes may be granted for this resource. An ID token comes with an access token: ask for one of the resource's scopes too."
                } else {
                    "None of the requested scopes may be granted for this resource."
                },
            ));
        };
        Ok((resource, scopes))
    }
}

/// The scopes a person may let `client` use at `resource`: the resource's, within what the
/// client registered for (all of them when it registered none).
pub(crate) fn user_scopes(client: &Client, resource: &Resource) -> ScopeSet {
    if client.scope.is_empty() {
        resource.scopes.clone()
    } else {
        client.scope.intersection(&resource.scopes)
    }
}
