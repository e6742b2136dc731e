//! Token exchange for an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant §4.3; the
//! MCP enterprise-managed authorization extension): the realm as the person's identity
//! provider. A client that signed the person in with OpenID Connect trades their ID token for an
//! Identity Assertion JWT Authorization Grant, which it presents to another authorization
//! server — one the realm lists as trusting it — for an access token there.
//!
//! Only for a confidential client, with an ID token this realm issued to that very client,
//! still live, of a person who can still sign in; for a listed, enabled server that lists the
//! client, one of its listed resources, and its listed scopes.
use super::{Exchanged, refuse};
use crate::audit::{AuditSubject, action};
use crate::authorize::FamilyId;
use crate::chaining::{ID_JAG_TTL_SECS, TrustingServer};
use crate::clients::{AuthMethod, Client};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::realms::Realm;
use crate::scope::ScopeSet;
use crate::tokens::IdTokenClaims;
use crate::tokens::model::{
    ID_JAG_TOKEN_TYPE, ID_JAG_TYP, ID_TOKEN_TYPE, TokenRequest, TokenResponse,
};
use serde::Serialize;

/// Whether the request asks for an ID-JAG.
pub(super) fn is_requested(req: &TokenRequest) -> bool {
    req.requested_token_type.as_deref() == Some(ID_JAG_TOKEN_TYPE)
}

/// The claims of an ID-JAG this realm issues (draft §3).
#[derive(Debug, Serialize)]
struct IssuedIdJag<'a> {
    iss: String,
    sub: &'a str,
    aud: &'a str,
    client_id: &'a str,
    jti: String,
    iat: i64,
    exp: i64,
    resource: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<String>,
    auth_time: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    email: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    email_verified: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
}

impl Core {
    pub(super) async fn exchange_for_id_jag(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
    ) -> Result<Exchanged> {
        if client.auth_method == AuthMethod::None {
            return Err(refuse(
                OAuthErrorCode::InvalidClient,
                "Client authentication is required for an ID-JAG: a public client cannot ask for one.",
            ));
        }
        let server = self.trusting_audience(realm, client, req).await?;
        let id = self.id_token_of_exchange(realm, client, req).await?;
        let Some(person) = self.live_subject(realm, &id.sub).await? else {
            return Err(refuse(
                OAuthErrorCode::InvalidGrant,
                "The person the ID token names can no longer sign in.",
            ));
        };
        let resource = match req.resource.as_slice() {
            [one] => server.resource(one).ok_or_else(|| {
                refuse(
                    OAuthErrorCode::InvalidTarget,
                    format!(
                        "The realm issues ID-JAGs for {} only for the resources it lists; {:.200} is not one.",
                        server.display_name, one
                    ),
                )
            })?,
            [] => {
                return Err(refuse(
                    OAuthErrorCode::InvalidRequest,
                    "resource is required: the MCP server (RFC 8707) the ID-JAG is for.",
                ));
            }
            _ => {
                return Err(refuse(
                    OAuthErrorCode::InvalidTarget,
                    "Exactly one resource: an ID-JAG is for one MCP server.",
                ));
            }
        };
        let scope = granted_scope(&server, req.scope.as_deref())?;
        let link = server
            .link_of(client)
            .ok_or_else(|| Error::Internal("client link vanished".into()))?;
        let now = self.now();
        let claims = IssuedIdJag {
            iss: self.issuer(&realm.name),
            sub: &person.id,
            aud: &server.issuer,
            client_id: &link.known_as,
            jti: crate::secret::new_id("jag"),
            iat: now,
            exp: now + ID_JAG_TTL_SECS,
            resource,
            scope: (!scope.is_empty()).then(|| scope.to_string()),
            auth_time: id.auth_time,
            // What the client may learn of the person, it may pass on: as the ID token said.
            email: id.email.is_some().then_some(person.email.as_str()),
            email_verified: id.email.is_some().then_some(true),
            name: id.name.is_some().then_some(person.display_name.as_str()),
        };
        let assertion = self
            .sign_for_relying_parties(realm, ID_JAG_TYP, &claims)
            .await?;
        let details = serde_json::json!({
            "sub": claims.sub,
            "aud": claims.aud,
            "client_id_there": claims.client_id,
            "resource": claims.resource,
            "scope": claims.scope,
            "jti": claims.jti,
            "exp": claims.exp,
        });
        Ok(Exchanged {
            response: TokenResponse {
                access_token: assertion,
                // RFC 8693 §2.2.1: not an access token, so no token type applies.
                token_type: "N_A".to_owned(),
                expires_in: ID_JAG_TTL_SECS,
                scope: claims.scope.clone().unwrap_or_default(),
                refresh_token: None,
                issued_token_type: Some(ID_JAG_TOKEN_TYPE.to_owned()),
                id_token: None,
            },
            action: action::TOKEN_ID_JAG_ISSUE,
            subject: AuditSubject::TrustingServer(server.issuer.clone()),
            details,
        })
    }

    /// The ID token of the request: issued by this realm to this very client (after it was
    /// registered), unexpired, from a sign-in (token family) still live.
    async fn id_token_of_exchange(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
    ) -> Result<IdTokenClaims> {
        if req.actor_token.as_deref().is_some_and(|t| !t.is_empty()) {
            return Err(refuse(
                OAuthErrorCode::InvalidRequest,
                "An ID-JAG names the person alone: no actor_token.",
            ));
        }
        let token = req
            .subject_token
            .as_deref()
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                refuse(
                    OAuthErrorCode::InvalidRequest,
                    "subject_token is required: the person's ID token.",
                )
            })?;
        if req.subject_token_type.as_deref() != Some(ID_TOKEN_TYPE) {
            return Err(refuse(
                OAuthErrorCode::InvalidRequest,
                "An ID-JAG is issued for an ID token: subject_token_type urn:ietf:params:oauth:token-type:id_token.",
            ));
        }
        let now = self.now();
        let id = self
            .verify_id_token(realm, token)
            .await?
            .filter(|c| c.exp > now)
            .ok_or_else(|| {
                refuse(
                    OAuthErrorCode::InvalidGrant,
                    "The subject token is not a live ID token of this realm: expired, tampered with, or issued elsewhere.",
                )
            })?;
        if id.aud != client.client_id.as_str()
            || id.azp != client.client_id.as_str()
            || id.iat < client.created_at
        {
            return Err(refuse(
                OAuthErrorCode::InvalidGrant,
                "The ID token was issued to another client: a client exchanges only its own.",
            ));
        }
        // The sign-in it came from must still stand: not revoked with the client, the app's
        // disconnection, a reused refresh token or the person's disabling.
        let family = match id.sid.as_deref() {
            Some(sid) => self.store.find_family(&FamilyId::from_stored(sid)).await?,
            None => None,
        };
        let standing = family.is_some_and(|f| {
            f.is_live(now)
                && f.realm_id == realm.id
                && f.client_pk == client.id
                && f.subject == id.sub
        });
        if !standing {
            return Err(refuse(
                OAuthErrorCode::InvalidGrant,
                "The sign-in this ID token comes from has ended (signed out, disconnected or revoked): sign the person in again.",
            ));
        }
        Ok(id)
    }

    /// The trusting server the request's `audience` names, enabled and listing the client.
    async fn trusting_audience(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
    ) -> Result<TrustingServer> {
        let audience = match req.audience.as_slice() {
            [one] => one.trim_end_matches('/'),
            [] => {
                return Err(refuse(
                    OAuthErrorCode::InvalidRequest,
                    "audience is required: the issuer of the authorization server the ID-JAG is for.",
                ));
            }
            _ => {
                return Err(refuse(
                    OAuthErrorCode::InvalidTarget,
                    "Exactly one audience: an ID-JAG is for one authorization server.",
                ));
            }
        };
        // One answer whether the server is unknown, disabled or does not list this client: a
        // client learns nothing of the entries it is not on.
        self.store
            .list_trusting_servers(&realm.id)
            .await?
            .into_iter()
            .find(|s| {
                s.enabled
                    && s.issuer.trim_end_matches('/') == audience
                    && s.link_of(client).is_some()
            })
            .ok_or_else(|| {
                refuse(
                    OAuthErrorCode::InvalidTarget,
                    "The realm issues this client no ID-JAGs for that authorization server (it is not listed as trusting the realm for this client, or is disabled).",
                )
            })
    }
}

/// The scope of the ID-JAG: what the client asked, within what the server's entry allows (when
/// it lists any; else the other server decides); all the listed ones when it asked none.
fn granted_scope(server: &TrustingServer, asked: Option<&str>) -> Result<ScopeSet> {
    let asked = ScopeSet::parse(asked.unwrap_or_default()).map_err(|_| {
        refuse(
            OAuthErrorCode::InvalidScope,
            "The scope parameter is malformed.",
        )
    })?;
    if server.scopes.is_empty() {
        return Ok(asked);
    }
    if asked.is_empty() {
        return Ok(server.scopes.clone());
    }
    let beyond = asked.difference(&server.scopes);
    if !beyond.is_empty() {
        return Err(refuse(
            OAuthErrorCode::InvalidScope,
            format!(
                "Beyond what the realm passes on to {}: {beyond}.",
                server.display_name
            ),
        ));
    }
    Ok(asked)
}
