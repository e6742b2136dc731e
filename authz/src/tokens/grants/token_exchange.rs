//! Token exchange (RFC 8693): a client trades an access token of this realm (the subject
//! token) for a short-lived token at one other resource of the realm — for itself (the laptop
//! CLI trading a person's sign-in for a token per MCP server) or onward (an MCP server or
//! gateway calling another for the same person, recorded as an actor).
//!
//! Never more than a direct request could get: the target's scopes, cut by the subject token's
//! (unless it is the sign-in token for the realm's registry, which stands for the session, not
//! for any MCP scopes), by the person's consent or the registry release that is the
//! organisation's consent, or by the client's own grant for a machine subject; and never past
//! five minutes or the subject token's expiry.
use super::super::model::{
    ACCESS_TOKEN_TYPE, JWT_TOKEN_TYPE, MAX_DELEGATION_DEPTH, MAX_EXCHANGED_TOKEN_TTL_SECS,
    TokenRequest, TokenResponse,
};
use crate::audit::{AuditSubject, Outcome, RequestMeta, action};
use crate::clients::{AuthMethod, Client};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::realms::Realm;
use crate::registry::{MemberKind, RegistryConsent};
use crate::resources::{ConsentPolicy, Resource};
use crate::scope::ScopeSet;
use crate::throttle::Source;
use portcullis_claims::{AccessTokenClaims, Actor, SubjectOrigin, TokenOrigin};

mod id_jag;

/// A minted exchange and what its audit event says.
struct Exchanged {
    response: TokenResponse,
    action: &'static str,
    subject: AuditSubject,
    details: serde_json::Value,
}

fn refuse(code: OAuthErrorCode, message: impl Into<std::borrow::Cow<'static, str>>) -> Error {
    Error::oauth(code, message)
}

impl Core {
    /// Runs the grant for an authenticated client that may use it; audits both outcomes and
    /// counts a refused subject or actor token as a failed client authentication.
    pub(super) async fn token_exchange(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
        meta: &RequestMeta,
    ) -> Result<TokenResponse> {
        self.token_exchange_as(realm, client, req, meta, false)
            .await
    }

    /// The exchange, made for the MCP gateway (in this process) when `via_gateway`.
    async fn token_exchange_as(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
        meta: &RequestMeta,
        via_gateway: bool,
    ) -> Result<TokenResponse> {
        let exchanged = if id_jag::is_requested(req) && !via_gateway {
            self.exchange_for_id_jag(realm, client, req).await
        } else {
            self.exchange(realm, client, req, via_gateway).await
        };
        match exchanged {
            Ok(Exchanged {
                response,
                action,
                subject,
                details,
            }) => {
                let mut event =
                    self.event(&realm.id, client.client_id.as_str(), action, subject, meta);
                event.details = details;
                self.audit_batched(event).await?;
                Ok(response)
            }
            Err(Error::OAuth(refusal)) => {
                // Counted before anything is written: a source (or, for a confidential client,
                // the client) refused too often is answered "try later" and leaves no row.
                let source = Source::of(meta.client_ip);
                let wait = if client.auth_method == AuthMethod::None {
                    // Anyone can name a public client: count the source, not the client.
                    self.client_throttle.source_failed(source, self.now())
                } else if refusal.code == OAuthErrorCode::InvalidGrant {
                    self.client_throttle.client_failed(
                        &realm.id,
                        client.client_id.as_str(),
                        source,
                        self.now(),
                    )
                } else {
                    None
                };
                if let Some(retry_after_secs) = wait {
                    return Err(Error::Throttled { retry_after_secs });
                }
                let mut event = self.event(
                    &realm.id,
                    client.client_id.as_str(),
                    action::TOKEN_EXCHANGE_DENIED,
                    AuditSubject::Client(client.client_id.to_string()),
                    meta,
                );
                event.outcome = Outcome::Failure;
                event.details = serde_json::json!({
                    "error": refusal.code.as_str(),
                    "reason": refusal.description,
                    "resource": req.resource.iter().take(2).map(|r| r.chars().take(300).collect::<String>()).collect::<Vec<_>>(),
                });
                self.store.insert_audit_event(&event).await?;
                Err(Error::OAuth(refusal))
            }
            Err(other) => Err(other),
        }
    }

    /// The exchange the MCP gateway makes in this process for one upstream, as its own client
    /// (the gateway resource's, which the caller's token is addressed to): the same checks and
    /// audit as at the token endpoint, without the client authentication the process needs
    /// none of.
    pub(crate) async fn gateway_exchange(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
    ) -> Result<TokenResponse> {
        self.token_exchange_as(
            realm,
            client,
            req,
            &crate::audit::RequestMeta::default(),
            true,
        )
        .await
    }

    async fn exchange(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
        via_gateway: bool,
    ) -> Result<Exchanged> {
        let subject_token = exchange_parameters(req)?;
        let (subject, subject_client) = self
            .live_access_token(realm, subject_token)
            .await?
            .ok_or_else(|| {
                refuse(
                    OAuthErrorCode::InvalidGrant,
                    "The subject token is not a live access token of this realm: expired, revoked, tampered with, or issued elsewhere.",
                )
            })?;
        let own = subject.client_id == client.client_id.as_str()
            && subject.origin.client == client.id.as_str();
        // A client's own exchanged token is for the one server it named: trading it again would
        // let that server (which receives it) reach others as the client. Exchange the original.
        if own && subject.origin.subject.is_some() {
            return Err(refuse(
                OAuthErrorCode::InvalidGrant,
                "The subject token came from an exchange: the client it was issued to exchanges the original token instead.",
            ));
        }
        // Anyone can name a public client: it trades only its own sign-in token (audience: the
        // realm's registry), never a token an MCP server received from it.
        if client.auth_method == AuthMethod::None
            && subject.aud != self.registry_audience(&realm.name)
        {
            return Err(refuse(
                OAuthErrorCode::InvalidGrant,
                "A public client exchanges only its sign-in token (whose audience is the realm's registry).",
            ));
        }
        let addressed = client.auth_method != AuthMethod::None
            && client
                .resource_server_for
                .as_ref()
                .is_some_and(|r| r.as_str() == subject.origin.resource);
        if !own && !addressed {
            return Err(refuse(
                OAuthErrorCode::InvalidGrant,
                "The subject token was neither issued to this client nor addressed to it as a resource.",
            ));
        }
        if subject.origin.subjects().count() >= MAX_DELEGATION_DEPTH {
            return Err(refuse(
                OAuthErrorCode::InvalidGrant,
                format!(
                    "The subject token ends a chain of {MAX_DELEGATION_DEPTH} exchanges, and at most {MAX_DELEGATION_DEPTH} may follow one another; exchange an earlier token of the chain instead."
                ),
            ));
        }
        let acting = addressed || self.actor_token_is_own(realm, client, req).await?;
        // The caller's agent must be active whether or not it is recorded.
        let caller_agent = self.active_agent_of(client).await?;
        let act = if acting {
            Some(Actor {
                sub: client.client_id.to_string(),
                agent_id: caller_agent.as_ref().map(|a| a.id.to_string()),
                agent_name: caller_agent.as_ref().map(|a| a.name.clone()),
                act: subject.act.clone().map(Box::new),
            })
        } else {
            subject.act.clone()
        };
        if let Some(depth) = act.as_ref().map(Actor::depth)
            && depth > MAX_DELEGATION_DEPTH
        {
            return Err(refuse(
                OAuthErrorCode::InvalidGrant,
                format!(
                    "The delegation chain would be {depth} actors deep; at most {MAX_DELEGATION_DEPTH} may act for one subject."
                ),
            ));
        }
        let target = self.exchange_target(realm, req).await?;
        let (ceiling, consent) = self
            .exchange_ceiling(realm, client, (&subject, &subject_client), &target)
            .await?;
        // A token for the realm's MCP gateway, exchanged by the gateway itself, stands for the
        // caller's session with the gateway (its one scope, `mcp`, names no upstream's): what
        // it reaches is what the registry release gives the caller, and nothing else.
        // Only the gateway's own exchange, in this process, for a token addressed to it: never
        // what any client asks at the token endpoint.
        if via_gateway && !(addressed && subject.aud == self.gateway_url(&realm.name)) {
            return Err(refuse(
                OAuthErrorCode::InvalidGrant,
                "The gateway exchanges only tokens addressed to it.",
            ));
        }
        if via_gateway && consent.is_none() {
            return Err(refuse(
                OAuthErrorCode::InvalidTarget,
                "Through the gateway, a caller reaches only servers the latest registry release gives them (auth.mode portcullis, to one of their rings or units).",
            ));
        }
        let mut allowed = target.scopes.intersection(&ceiling);
        if subject.aud != self.registry_audience(&realm.name) && !via_gateway {
            let carried = ScopeSet::parse(&subject.scope).unwrap_or_default();
            allowed = allowed.intersection(&carried);
        }
        let requested =
            ScopeSet::parse(req.scope.as_deref().unwrap_or_default()).map_err(|_| {
                refuse(
                    OAuthErrorCode::InvalidScope,
                    "The scope parameter is malformed.",
                )
            })?;
        let granted = if requested.is_empty() {
            allowed
        } else {
            let beyond = requested.difference(&allowed);
            if !beyond.is_empty() {
                return Err(refuse(
                    OAuthErrorCode::InvalidScope,
                    format!(
                        "More than the subject may get at this resource: {beyond}. An exchange never widens what the subject token, the consent or the client's grant allow."
                    ),
                ));
            }
            requested
        };
        if granted.is_empty() {
            return Err(refuse(
                OAuthErrorCode::InvalidScope,
                "No scope of this resource is within what the subject token, the consent or the client's grant allow.",
            ));
        }
        let now = self.now();
        let lifetime =
            crate::tokens::lifetime::minted_token_ttl(target.token_ttl_secs, realm.token_ttl_secs)
                .min(MAX_EXCHANGED_TOKEN_TTL_SECS);
        let mut exp = (now + lifetime).min(subject.exp);
        if let Some(until) = caller_agent.as_ref().and_then(|a| a.expires_at) {
            exp = exp.min(until);
        }
        let claims = AccessTokenClaims {
            iss: self.issuer(&realm.name),
            sub: subject.sub.clone(),
            aud: target.uri.to_string(),
            client_id: client.client_id.to_string(),
            scope: granted.to_string(),
            iat: now,
            exp,
            jti: crate::secret::new_id("at"),
            agent: subject.agent.clone(),
            act,
            mcp_server: consent.as_ref().map(|c| c.server.clone()),
            mcp_release: consent.map(|c| c.release),
            origin: TokenOrigin {
                client: client.id.to_string(),
                resource: target.id.to_string(),
                binding: client.agent.as_ref().map(|b| b.binding_id.to_string()),
                family: None,
                epoch: client.registration.token_epoch,
                subject: Some(Box::new(SubjectOrigin {
                    jti: subject.jti.clone(),
                    client_id: subject.client_id.clone(),
                    origin: subject.origin.clone(),
                })),
            },
        };
        let mut response = self
            .sign_access_token(realm, &target, claims.clone())
            .await?;
        response.issued_token_type = Some(ACCESS_TOKEN_TYPE.to_owned());
        self.token_use.record(&client.id, &target.id, now);
        Ok(Exchanged {
            response,
            action: action::TOKEN_EXCHANGE,
            subject: AuditSubject::Token(claims.jti.clone()),
            details: serde_json::json!({
                "sub": claims.sub,
                "aud": claims.aud,
                "scope": claims.scope,
                "exp": claims.exp,
                "act": claims.act,
                "mcp_server": claims.mcp_server,
                "mcp_release": claims.mcp_release,
                "subject_jti": claims.origin.subject.as_ref().map(|s| s.jti.clone()),
            }),
        })
    }

    /// Whether the request carries an actor token, which must then be the calling client's
    /// own credential: a live machine token issued to it (its `sub` is the client itself).
    async fn actor_token_is_own(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
    ) -> Result<bool> {
        let token = req.actor_token.as_deref().filter(|t| !t.is_empty());
        let kind = req.actor_token_type.as_deref().filter(|t| !t.is_empty());
        let Some(token) = token else {
            return match kind {
                None => Ok(false),
                Some(_) => Err(refuse(
                    OAuthErrorCode::InvalidRequest,
                    "actor_token_type was sent without an actor_token.",
                )),
            };
        };
        if kind != Some(ACCESS_TOKEN_TYPE) {
            return Err(refuse(
                OAuthErrorCode::InvalidRequest,
                "actor_token_type must be urn:ietf:params:oauth:token-type:access_token.",
            ));
        }
        let own = self
            .live_access_token(realm, token)
            .await?
            .is_some_and(|(a, _)| {
                a.client_id == client.client_id.as_str()
                    && a.origin.client == client.id.as_str()
                    && a.sub == client.client_id.as_str()
                    && a.origin.root_family().is_none()
                    && a.origin.subject.is_none()
            });
        if !own {
            return Err(refuse(
                OAuthErrorCode::InvalidGrant,
                "The actor token must be this client's own live credential (a client_credentials token issued to it); it may not name anyone else.",
            ));
        }
        Ok(true)
    }

    /// The one enabled resource of the realm the token is for; never Portcullis itself.
    async fn exchange_target(&self, realm: &Realm, req: &TokenRequest) -> Result<Resource> {
        if !req.audience.is_empty() {
            return Err(refuse(
                OAuthErrorCode::InvalidTarget,
                "Name the MCP server with resource (RFC 8707); audience is not supported.",
            ));
        }
        if req.resource.is_empty() {
            return Err(refuse(
                OAuthErrorCode::InvalidTarget,
                "resource is required: the one MCP server the token is for.",
            ));
        }
        let target = self.requested_resource(realm, &req.resource).await?;
        let base = format!("{}/", self.base_url().trim_end_matches('/'));
        let uri = target.uri.as_str();
        if uri.starts_with(&base) || format!("{uri}/") == base {
            return Err(refuse(
                OAuthErrorCode::InvalidTarget,
                "Portcullis itself is never a token exchange target: sign in for it instead.",
            ));
        }
        Ok(target)
    }

    /// The most a direct request could get at `target` for the subject's root principal, and
    /// the registry release that allowed it when it was the one:
    /// - a person: the release (a registry server with `auth.mode = portcullis` given to one of
    ///   their rings or units), else their consent to this client for the target (and the
    ///   client's grant where the target admits only granted clients);
    /// - a machine subject: this client's grant for the target (or the target's openness to
    ///   self-registered clients), else — for an agent — the release; always within the
    ///   agent's roles.
    async fn exchange_ceiling(
        &self,
        realm: &Realm,
        client: &Client,
        (subject, subject_client): (&AccessTokenClaims, &Client),
        target: &Resource,
    ) -> Result<(ScopeSet, Option<RegistryConsent>)> {
        let first_party = crate::clients::is_first_party(client.client_id.as_str());
        let release_scopes = |c: &RegistryConsent| {
            if c.scopes.is_empty() {
                target.scopes.clone()
            } else {
                c.scopes.clone()
            }
        };
        if subject.origin.root_family().is_some() {
            let kind = if subject.sub.starts_with("usr_") {
                MemberKind::User
            } else {
                MemberKind::Person
            };
            if let Some(c) = self
                .registry_consent(realm, target, (kind, &subject.sub))
                .await?
            {
                let mut ceiling = release_scopes(&c);
                // The release is the organisation's consent for the person; which clients may
                // carry it is still the resource's policy (the realm's own CLI excepted: the
                // release is made for it).
                if !first_party && target.policy.consent == ConsentPolicy::GrantedClients {
                    let grant = self.cached_grant(&client.id, &target.id).await?;
                    let Some(grant) = grant else {
                        return Err(refuse(
                            OAuthErrorCode::InvalidTarget,
                            "The resource admits only clients an administrator granted access, and this client has no grant.",
                        ));
                    };
                    ceiling = ceiling.intersection(&grant.scopes);
                }
                return Ok((ceiling, Some(c)));
            }
            let consent = self
                .store
                .find_consent(&subject.sub, &client.id, &target.id)
                .await?;
            let Some(consent) = consent else {
                return Err(refuse(
                    OAuthErrorCode::InvalidTarget,
                    "This person has not agreed to this client reaching the resource, and no registry release gives it to them.",
                ));
            };
            let mut ceiling = consent.scopes;
            if target.policy.consent == ConsentPolicy::GrantedClients {
                let grant = self.cached_grant(&client.id, &target.id).await?;
                let Some(grant) = grant else {
                    return Err(refuse(
                        OAuthErrorCode::InvalidTarget,
                        "The resource admits only clients an administrator granted access, and this client has no grant.",
                    ));
                };
                ceiling = ceiling.intersection(&grant.scopes);
            }
            return Ok((ceiling, None));
        }
        let grant = self.cached_grant(&client.id, &target.id).await?;
        let mut machine = super::machine_scopes(client, target, grant.as_ref());
        // A server calling onward for another machine client: never more than that client may
        // get at the target itself.
        if subject_client.id != client.id {
            let theirs = self.cached_grant(&subject_client.id, &target.id).await?;
            machine = match (
                machine,
                super::machine_scopes(subject_client, target, theirs.as_ref()),
            ) {
                (Some(a), Some(b)) => Some(a.intersection(&b)),
                _ => None,
            };
        }
        let agent = match &subject.agent {
            Some(a) => {
                self.cached_agent(&crate::ids::AgentId::from_stored(a.agent_id.as_str()))
                    .await?
            }
            None => None,
        };
        let (mut ceiling, consent) = match (machine, &agent) {
            (Some(scopes), _) => (scopes, None),
            (None, Some(a)) => match self
                .registry_consent(realm, target, (MemberKind::Agent, a.id.as_str()))
                .await?
            {
                Some(c) => (release_scopes(&c), Some(c)),
                None => {
                    return Err(refuse(
                        OAuthErrorCode::InvalidTarget,
                        "This client has no access to the resource, and no registry release gives it to the agent.",
                    ));
                }
            },
            (None, None) => {
                return Err(refuse(
                    OAuthErrorCode::InvalidTarget,
                    "This client has not been granted access to the resource.",
                ));
            }
        };
        if let Some(a) = &agent {
            ceiling = ceiling.intersection(&a.roles);
        }
        Ok((ceiling, consent))
    }
}

/// The subject token of a well-formed exchange request.
fn exchange_parameters(req: &TokenRequest) -> Result<&str> {
    let subject = req
        .subject_token
        .as_deref()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| refuse(OAuthErrorCode::InvalidRequest, "subject_token is required."))?;
    match req.subject_token_type.as_deref().unwrap_or_default() {
        ACCESS_TOKEN_TYPE => {}
        "" => {
            return Err(refuse(
                OAuthErrorCode::InvalidRequest,
                "subject_token_type is required: urn:ietf:params:oauth:token-type:access_token.",
            ));
        }
        super::super::model::ID_TOKEN_TYPE => {
            return Err(refuse(
                OAuthErrorCode::InvalidRequest,
                "An ID token is exchanged only for an ID-JAG: requested_token_type urn:ietf:params:oauth:token-type:id-jag.",
            ));
        }
        _ => {
            return Err(refuse(
                OAuthErrorCode::InvalidRequest,
                "Only access tokens of this realm can be exchanged: subject_token_type urn:ietf:params:oauth:token-type:access_token.",
            ));
        }
    }
    match req.requested_token_type.as_deref().unwrap_or_default() {
        "" | ACCESS_TOKEN_TYPE | JWT_TOKEN_TYPE => Ok(subject),
        _ => Err(refuse(
            OAuthErrorCode::InvalidRequest,
            "requested_token_type must be urn:ietf:params:oauth:token-type:access_token (for an access token of this realm) or urn:ietf:params:oauth:token-type:id-jag (for another authorization server, from an ID token).",
        )),
    }
}
