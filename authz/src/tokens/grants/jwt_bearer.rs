//! The JWT bearer grant (RFC 7523 §2.1) with the ID-JAG profile (draft-ietf-oauth-identity-
//! assertion-authz-grant; the MCP extension `enterprise-managed-authorization`): a confidential
//! client presents an Identity Assertion JWT Authorization Grant its enterprise IdP issued for a
//! person, and gets an access token for that person at one MCP server of this realm.
//!
//! The assertion must be an `oauth-id-jag+jwt` signed with an allowed algorithm by a key of an
//! issuer this realm trusts (never `none`, never a key the token brings), addressed to the
//! realm's issuer, issued for the authenticated client, fresh, and new (`jti` is remembered
//! per issuer until it expires). `resource` and `scope` bound the token: the target is the
//! assertion's resource (the request may only choose among them), the scopes are those
//! requested and claimed. The person is the one linked to the assertion's `iss` and `sub`; an
//! unlinked subject is linked by email or created only when the issuer's settings say so. The
//! token is an ordinary RFC 9068 access token of a new token family (so disabling the person or
//! revoking the family ends it), with no refresh token: the client asks the IdP again.
use super::super::client_auth::{Audience, MAX_KEYS_TRIED, NumericDate, untrusted};
use super::super::model::{
    ASSERTION_SKEW_SECS, ID_JAG_TYP, MAX_ASSERTION_LEN, MAX_ID_JAG_LIFETIME_SECS, TokenRequest,
    TokenResponse,
};
use crate::accounts::Email;
use crate::audit::{AuditSubject, Outcome, RequestMeta, action};
use crate::authorize::{FamilyId, TokenFamily};
use crate::clients::{AuthMethod, Client};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result, StorageError};
use crate::federation::{IssuerKeys, PersonIdentity, TrustedIssuer};
use crate::keys::{SigningAlg, Verifier, decode_unverified};
use crate::people::{Person, PersonId};
use crate::realms::Realm;
use crate::resources::{Resource, ResourceUri};
use crate::scope::ScopeSet;
use crate::throttle::Source;
use serde::Deserialize;

/// The claims of an ID-JAG this grant reads (draft §3.1).
#[derive(Debug, Deserialize)]
struct IdJagClaims {
    iss: String,
    sub: String,
    aud: Audience,
    client_id: String,
    jti: String,
    exp: NumericDate,
    iat: NumericDate,
    #[serde(default)]
    nbf: Option<NumericDate>,
    #[serde(default)]
    resource: Option<Audience>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    email: Option<String>,
    #[serde(default)]
    email_verified: Option<bool>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    auth_time: Option<NumericDate>,
}

/// Longest `sub` and `jti` accepted.
const MAX_ID_LEN: usize = 255;

fn refuse(message: impl Into<std::borrow::Cow<'static, str>>) -> Error {
    Error::oauth(OAuthErrorCode::InvalidGrant, message)
}

/// Whether a `typ` header names an ID-JAG: `oauth-id-jag+jwt`, or the full media type
/// `application/oauth-id-jag+jwt` (RFC 7515 §4.1.9 lets the prefix be left out), in any case.
fn is_id_jag_typ(typ: Option<&str>) -> bool {
    typ.is_some_and(|t| {
        let t = t
            .get(..12)
            .filter(|p| p.eq_ignore_ascii_case("application/"))
            .map_or(t, |_| &t[12..]);
        t.eq_ignore_ascii_case(ID_JAG_TYP)
    })
}

impl IdJagClaims {
    /// Not expired (with the skew), not valid only later, not issued in the future, and
    /// short-lived: at most [`MAX_ID_JAG_LIFETIME_SECS`] ahead.
    fn times_ok(&self, now: i64) -> bool {
        let skew = ASSERTION_SKEW_SECS;
        self.exp.0 + skew > now
            && self.exp.0 <= now + MAX_ID_JAG_LIFETIME_SECS + skew
            && self.iat.0 <= now + skew
            && self.iat.0 <= self.exp.0
            && self.nbf.is_none_or(|t| t.0 <= now + skew)
    }
}

/// Who the assertion's subject is, and what must be written to make it so.
enum Subject {
    /// Linked before.
    Linked(Person),
    /// An existing person with the assertion's email, linked now.
    LinkByEmail(Person),
    /// A new person, created now.
    Create { email: Email, name: String },
}

impl Subject {
    fn how(&self) -> &'static str {
        match self {
            Subject::Linked(_) => "linked",
            Subject::LinkByEmail(_) => "linked_by_email",
            Subject::Create { .. } => "created",
        }
    }
}

/// A checked assertion: who presented it, from whom, for whom, for what.
struct Checked {
    issuer: TrustedIssuer,
    claims: IdJagClaims,
    resource: Resource,
    scopes: ScopeSet,
    subject: Subject,
}

/// A minted token and what its audit event says.
struct Redeemed {
    response: TokenResponse,
    person: PersonId,
    checked: Checked,
    jti: String,
}

impl Core {
    /// Runs the grant for an authenticated client; audits both outcomes and counts a refused
    /// assertion as a failed client authentication.
    pub(super) async fn jwt_bearer(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
        meta: &RequestMeta,
    ) -> Result<TokenResponse> {
        match self.redeem_id_jag(realm, client, req, meta).await {
            Ok(r) => {
                let mut event = self.event(
                    &realm.id,
                    client.client_id.as_str(),
                    action::TOKEN_ID_JAG,
                    AuditSubject::Token(r.jti.clone()),
                    meta,
                );
                event.details = serde_json::json!({
                    "issuer": r.checked.issuer.issuer,
                    "idp_subject": r.checked.claims.sub,
                    "assertion_jti": r.checked.claims.jti,
                    "person": r.person.as_str(),
                    "person_was": r.checked.subject.how(),
                    "aud": r.checked.resource.uri.as_str(),
                    "scope": r.response.scope,
                    "exp": self.now() + r.response.expires_in,
                });
                self.audit_batched(event).await?;
                Ok(r.response)
            }
            Err(Error::OAuth(refusal)) => {
                let source = Source::of(meta.client_ip);
                if refusal.code == OAuthErrorCode::InvalidGrant
                    && let Some(retry_after_secs) = self.client_throttle.client_failed(
                        &realm.id,
                        client.client_id.as_str(),
                        source,
                        self.now(),
                    )
                {
                    return Err(Error::Throttled { retry_after_secs });
                }
                // The claimed issuer, if the assertion parses: which IdP a refusal concerns.
                let claimed_iss = req
                    .assertion
                    .as_deref()
                    .and_then(|a| decode_unverified(a).ok())
                    .and_then(|(_, c)| {
                        c["iss"]
                            .as_str()
                            .map(|s| s.chars().take(300).collect::<String>())
                    });
                tracing::warn!(
                    realm = %realm.name,
                    client.id = %client.client_id,
                    issuer = claimed_iss.as_deref().map(untrusted).unwrap_or_default(),
                    error = refusal.code.as_str(),
                    reason = %refusal.description,
                    "An ID-JAG was refused"
                );
                let mut event = self.event(
                    &realm.id,
                    client.client_id.as_str(),
                    action::TOKEN_ID_JAG_DENIED,
                    AuditSubject::Client(client.client_id.to_string()),
                    meta,
                );
                event.outcome = Outcome::Failure;
                event.details = serde_json::json!({
                    "error": refusal.code.as_str(),
                    "reason": refusal.description,
                    "issuer": claimed_iss,
                });
                self.store.insert_audit_event(&event).await?;
                Err(Error::OAuth(refusal))
            }
            Err(other) => Err(other),
        }
    }

    async fn redeem_id_jag(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
        meta: &RequestMeta,
    ) -> Result<Redeemed> {
        // Anyone can name a public client: the IdP's assertion is only half of the proof.
        if client.auth_method == AuthMethod::None {
            return Err(Error::oauth(
                OAuthErrorCode::InvalidClient,
                "An ID-JAG is accepted only from a client that authenticates.",
            ));
        }
        let assertion = req
            .assertion
            .as_deref()
            .filter(|a| !a.is_empty())
            .ok_or_else(|| {
                Error::oauth(OAuthErrorCode::InvalidRequest, "assertion is required.")
            })?;
        let checked = self.check_id_jag(realm, client, req, assertion).await?;
        // Remembered until the assertion could no longer be accepted: a second use is a
        // replay, on every instance.
        if !self
            .store
            .consume_identity_assertion_jti(
                &realm.id,
                &checked.issuer.issuer,
                &checked.claims.jti,
                checked.claims.exp.0 + ASSERTION_SKEW_SECS,
            )
            .await?
        {
            return Err(refuse(
                "The assertion was used before (its jti was seen already): ask the identity provider for a new one.",
            ));
        }
        let person = self.settle_subject(realm, &checked, meta).await?;
        let now = self.now();
        let lifetime = crate::tokens::lifetime::minted_token_ttl(
            checked.resource.token_ttl_secs,
            realm.token_ttl_secs,
        );
        let family = TokenFamily {
            id: FamilyId::generate(),
            realm_id: realm.id.clone(),
            subject: person.to_string(),
            client_pk: client.id.clone(),
            resource_id: checked.resource.id.clone(),
            scopes: checked.scopes.clone(),
            offline: false,
            auth_time: checked.claims.auth_time.unwrap_or(checked.claims.iat).0,
            created_at: now,
            expires_at: now + lifetime,
            revoked_at: None,
            revoked_reason: None,
        };
        self.store.insert_assertion_family(&family).await?;
        let response = self
            .mint_access_token(
                realm,
                client,
                &checked.resource,
                None,
                &checked.scopes,
                Some((person.as_str(), &family.id)),
            )
            .await?;
        self.token_use.record(&client.id, &checked.resource.id, now);
        let jti = crate::keys::decode_unverified(&response.access_token)
            .ok()
            .and_then(|(_, c)| c["jti"].as_str().map(str::to_owned))
            .unwrap_or_default();
        Ok(Redeemed {
            response,
            person,
            checked,
            jti,
        })
    }

    /// Every check that writes nothing: the assertion, its issuer, the client, the target and
    /// scopes, and who the subject is.
    async fn check_id_jag(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
        assertion: &str,
    ) -> Result<Checked> {
        if assertion.len() > MAX_ASSERTION_LEN {
            return Err(refuse("The assertion is too long."));
        }
        let (header, unverified) =
            decode_unverified(assertion).map_err(|_| refuse("The assertion is not a JWT."))?;
        if !is_id_jag_typ(header.typ.as_deref()) {
            return Err(refuse(
                "The assertion is not an ID-JAG: its typ header must be oauth-id-jag+jwt.",
            ));
        }
        if header.has_crit {
            return Err(refuse("The assertion has critical header parameters."));
        }
        if header.embeds_key {
            return Err(refuse(
                "The assertion carries its own key (jwk, jku, x5c or x5u): only the identity provider's configured keys count.",
            ));
        }
        let iss = unverified["iss"]
            .as_str()
            .ok_or_else(|| refuse("The assertion has no iss."))?;
        if iss.trim_end_matches('/') == self.issuer(&realm.name) {
            return Err(refuse(
                "The assertion was issued by this realm itself; a realm never accepts its own assertions.",
            ));
        }
        let issuer = self
            .store
            .find_trusted_issuer(&realm.id, iss)
            .await?
            .ok_or_else(|| refuse("The assertion's issuer is not trusted by this realm."))?;
        if !issuer.enabled {
            return Err(refuse("The assertion's issuer is disabled in this realm."));
        }
        if !issuer.admits_client(&client.client_id) {
            return Err(refuse(
                "This client may not present this identity provider's assertions.",
            ));
        }
        let alg = SigningAlg::parse(&header.alg)
            .ok()
            .filter(|a| issuer.algorithms.contains(a))
            .ok_or_else(|| {
                refuse(
                    "The assertion's algorithm is not one this identity provider is trusted with.",
                )
            })?;
        let claims = self
            .verified_id_jag(&issuer, assertion, alg, header.kid.as_deref())
            .await?;
        // The same payload the issuer was looked up by; checked again on the verified claims.
        if claims.iss != issuer.issuer {
            return Err(refuse(
                "The assertion's issuer is not trusted by this realm.",
            ));
        }
        let own = self.issuer(&realm.name);
        match claims.aud.values().as_slice() {
            [one] if *one == own => {}
            _ => {
                return Err(refuse(
                    "The assertion's aud must be this realm's issuer (one value).",
                ));
            }
        }
        if claims.client_id != client.client_id.as_str() {
            return Err(refuse(
                "The assertion was issued for another client (its client_id claim).",
            ));
        }
        if !claims.times_ok(self.now()) {
            return Err(refuse(
                "The assertion is expired, not yet valid, or lives too long (at most ten minutes).",
            ));
        }
        if claims.jti.is_empty() || claims.jti.len() > MAX_ID_LEN {
            return Err(refuse("The assertion's jti is missing or too long."));
        }
        if claims.sub.is_empty() || claims.sub.len() > MAX_ID_LEN {
            return Err(refuse("The assertion's sub is missing or too long."));
        }
        let resource = self.id_jag_resource(realm, &claims, &req.resource).await?;
        let scopes = self
            .id_jag_scopes(client, &resource, &claims, req.scope.as_deref())
            .await?;
        let subject = self.id_jag_subject(realm, &issuer, &claims).await?;
        let roles = match &subject {
            Subject::Linked(p) | Subject::LinkByEmail(p) => p.roles.clone(),
            Subject::Create { .. } => ScopeSet::default(),
        };
        if !resource.policy.admits(&roles) {
            return Err(refuse(
                "The person may not use this resource (they lack a role it requires).",
            ));
        }
        Ok(Checked {
            issuer,
            claims,
            resource,
            scopes,
            subject,
        })
    }

    /// The assertion's claims, when one of the issuer's keys of `alg` verifies it.
    async fn verified_id_jag(
        &self,
        issuer: &TrustedIssuer,
        assertion: &str,
        alg: SigningAlg,
        kid: Option<&str>,
    ) -> Result<IdJagClaims> {
        let jwks = match &issuer.keys {
            IssuerKeys::Inline(doc) => Some(doc.clone()),
            IssuerKeys::Uri(uri) => self.remote_jwks(&issuer.issuer, uri, kid).await,
        };
        let keys = jwks
            .as_ref()
            .and_then(|j| j["keys"].as_array())
            .cloned()
            .unwrap_or_default();
        let verified = keys
            .iter()
            .filter(|k| kid.is_none_or(|kid| k["kid"].as_str() == Some(kid)))
            .filter_map(|k| Verifier::from_jwk(k).ok())
            .filter(|v| v.alg() == alg)
            .take(MAX_KEYS_TRIED)
            .find_map(|v| v.verify(assertion).ok());
        let Some((_, claims)) = verified else {
            return Err(refuse(if jwks.is_none() {
                "The identity provider's keys could not be fetched; try again later."
            } else {
                "The assertion's signature does not verify with the identity provider's keys."
            }));
        };
        serde_json::from_value(claims).map_err(|_| {
            refuse("The assertion lacks a required claim (iss, sub, aud, client_id, jti, exp, iat) or has a malformed one.")
        })
    }

    /// The target: the assertion's `resource` (the request may pick one of several, never
    /// another), or — when the assertion names none — the request's or the realm's default.
    async fn id_jag_resource(
        &self,
        realm: &Realm,
        claims: &IdJagClaims,
        sent: &[String],
    ) -> Result<Resource> {
        let loopback = self.config().allow_http_loopback;
        let claimed: Vec<ResourceUri> = match &claims.resource {
            None => Vec::new(),
            Some(r) => r
                .values()
                .into_iter()
                .map(|u| ResourceUri::parse(u, loopback))
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| refuse("The assertion's resource is not a valid resource URI."))?,
        };
        let chosen = match (sent, claimed.as_slice()) {
            (_, []) => return self.requested_resource(realm, sent).await,
            ([], [one]) => one.clone(),
            ([], _) => {
                return Err(Error::oauth(
                    OAuthErrorCode::InvalidTarget,
                    "The assertion names several resources: send resource to choose one.",
                ));
            }
            ([one], _) => {
                let uri = ResourceUri::parse(one, loopback).map_err(|_| {
                    Error::oauth(
                        OAuthErrorCode::InvalidTarget,
                        "The resource parameter is not a valid resource URI.",
                    )
                })?;
                if !claimed.contains(&uri) {
                    return Err(Error::oauth(
                        OAuthErrorCode::InvalidTarget,
                        "The resource is not one the assertion was issued for.",
                    ));
                }
                uri
            }
            _ => {
                return Err(Error::oauth(
                    OAuthErrorCode::InvalidTarget,
                    "Exactly one resource parameter is allowed.",
                ));
            }
        };
        self.cached_resource(&realm.id, &chosen)
            .await?
            .filter(|r| r.enabled)
            .ok_or_else(|| {
                refuse("The assertion's resource is not an enabled resource of this realm.")
            })
    }

    /// The scopes: those requested (all the assertion claims when none are) that the
    /// assertion claims (all of the resource's when it claims none), within the resource's and,
    /// where only granted clients may ask, the client's grant.
    async fn id_jag_scopes(
        &self,
        client: &Client,
        resource: &Resource,
        claims: &IdJagClaims,
        requested: Option<&str>,
    ) -> Result<ScopeSet> {
        let claimed = match claims.scope.as_deref() {
            Some(s) => {
                ScopeSet::parse(s).map_err(|_| refuse("The assertion's scope is malformed."))?
            }
            None => resource.scopes.clone(),
        };
        let requested = match requested {
            Some(s) => Some(
                ScopeSet::parse(s).map_err(|m| Error::oauth(OAuthErrorCode::InvalidScope, m))?,
            ),
            None => None,
        };
        let mut granted = requested
            .as_ref()
            .map_or_else(|| claimed.clone(), |r| r.intersection(&claimed))
            .intersection(&resource.scopes);
        if resource.policy.consent == crate::resources::ConsentPolicy::GrantedClients {
            let grant = self
                .cached_grant(&client.id, &resource.id)
                .await?
                .ok_or_else(|| {
                    refuse("This client has no access to the resource; an administrator grants it.")
                })?;
            granted = granted.intersection(&grant.scopes);
        }
        if granted.is_empty() && requested.as_ref().is_some_and(|r| !r.is_empty()) {
            return Err(Error::oauth(
                OAuthErrorCode::InvalidScope,
                "None of the requested scopes is both in the assertion and available at the resource.",
            ));
        }
        Ok(granted)
    }

    /// Who the assertion's subject is: the person linked to (`iss`, `sub`); else, as the
    /// issuer's settings allow, the person with its `email` (linked now) or a new person.
    async fn id_jag_subject(
        &self,
        realm: &Realm,
        issuer: &TrustedIssuer,
        claims: &IdJagClaims,
    ) -> Result<Subject> {
        if let Some(link) = self
            .store
            .find_person_identity(&realm.id, &issuer.issuer, &claims.sub)
            .await?
        {
            let person = self
                .store
                .find_person(&realm.id, &link.person_id)
                .await?
                .filter(|p| !p.disabled)
                .ok_or_else(|| refuse("The person is disabled in this realm."))?;
            return Ok(Subject::Linked(person));
        }
        let unlinked = "No person of this realm is linked to the assertion's subject";
        if !issuer.link_by_email && !issuer.create_people {
            return Err(refuse(format!(
                "{unlinked}, and this identity provider may neither link nor create people."
            )));
        }
        // An email the IdP says it has not verified names nobody.
        let email = claims
            .email
            .as_deref()
            .filter(|_| claims.email_verified != Some(false))
            .and_then(|e| Email::parse(e).ok())
            .ok_or_else(|| {
                refuse(format!(
                    "{unlinked}, and the assertion has no verified email to go by."
                ))
            })?;
        match self.store.find_person_by_email(&realm.id, &email).await? {
            Some(p) if issuer.link_by_email => {
                if p.disabled {
                    return Err(refuse("The person is disabled in this realm."));
                }
                Ok(Subject::LinkByEmail(p))
            }
            Some(_) => Err(refuse(format!(
                "{unlinked}; a person with its email exists, but this identity provider may not link people by email."
            ))),
            None if issuer.create_people => {
                let name = claims
                    .name
                    .as_deref()
                    .and_then(|n| crate::realms::parse_display_name(n, "Name").ok())
                    .unwrap_or_else(|| email.to_string());
                Ok(Subject::Create { email, name })
            }
            None => Err(refuse(format!(
                "{unlinked}, no person has its email, and this identity provider may not create people."
            ))),
        }
    }

    /// Makes the subject a linked person of the realm (linking or creating, audited).
    async fn settle_subject(
        &self,
        realm: &Realm,
        checked: &Checked,
        meta: &RequestMeta,
    ) -> Result<PersonId> {
        let issuer = &checked.issuer;
        let now = self.now();
        let link = |person_id: &PersonId| PersonIdentity {
            realm_id: realm.id.clone(),
            issuer: issuer.issuer.clone(),
            subject: checked.claims.sub.clone(),
            person_id: person_id.clone(),
            created_at: now,
        };
        let actor = format!("idp:{}", issuer.issuer);
        let raced = |e: StorageError| match e {
            // The same subject's first two assertions at once: the other one linked it.
            StorageError::Conflict(_) => refuse(
                "The person was linked or created by another request at the same moment; try again.",
            ),
            other => other.into(),
        };
        match &checked.subject {
            Subject::Linked(p) => Ok(p.id.clone()),
            Subject::LinkByEmail(p) => {
                let mut event = self.event(
                    &realm.id,
                    &actor,
                    action::PERSON_LINK,
                    AuditSubject::Person(p.id.to_string()),
                    meta,
                );
                event.details = serde_json::json!({
                    "issuer": issuer.issuer,
                    "idp_subject": checked.claims.sub,
                    "by": "email",
                    "email": p.email.as_str(),
                });
                self.store
                    .link_person(&link(&p.id), &event)
                    .await
                    .map_err(raced)?;
                Ok(p.id.clone())
            }
            Subject::Create { email, name } => {
                let person = Person {
                    id: PersonId::generate(),
                    realm_id: realm.id.clone(),
                    email: email.clone(),
                    display_name: name.clone(),
                    password_hash: None,
                    roles: ScopeSet::default(),
                    disabled: false,
                    created_at: now,
                    updated_at: now,
                };
                let mut event = self.event(
                    &realm.id,
                    &actor,
                    action::PERSON_CREATE,
                    AuditSubject::Person(person.id.to_string()),
                    meta,
                );
                event.details = serde_json::json!({
                    "email": person.email.as_str(),
                    "roles": "",
                    "password_set": false,
                    "issuer": issuer.issuer,
                    "idp_subject": checked.claims.sub,
                    "just_in_time": true,
                });
                self.store
                    .insert_linked_person(&person, &link(&person.id), &event)
                    .await
                    .map_err(raced)?;
                Ok(person.id)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typ_is_the_id_jag_media_type_with_or_without_its_prefix() {
        assert!(is_id_jag_typ(Some("oauth-id-jag+jwt")));
        assert!(is_id_jag_typ(Some("OAuth-ID-JAG+JWT")));
        assert!(is_id_jag_typ(Some("application/oauth-id-jag+jwt")));
        assert!(!is_id_jag_typ(Some("JWT")));
        assert!(!is_id_jag_typ(Some("at+jwt")));
        assert!(!is_id_jag_typ(Some("application/jwt")));
        assert!(!is_id_jag_typ(Some("xapplication/oauth-id-jag+jwt")));
        assert!(!is_id_jag_typ(None));
    }

    fn claims(exp: i64, iat: i64) -> IdJagClaims {
        serde_json::from_value(serde_json::json!({
            "iss": "https://idp", "sub": "s", "aud": "https://as", "client_id": "c",
            "jti": "j", "exp": exp, "iat": iat,
        }))
        .expect("parses")
    }

    #[test]
    fn assertions_are_fresh_and_short_lived() {
        let now = 100_000;
        assert!(claims(now + 300, now).times_ok(now));
        assert!(
            claims(now - 59, now - 300).times_ok(now),
            "a minute of skew"
        );
        assert!(!claims(now - 60, now - 300).times_ok(now), "expired");
        assert!(!claims(now + 661, now).times_ok(now), "lives too long");
        assert!(
            !claims(now + 300, now + 61).times_ok(now),
            "issued in the future"
        );
        assert!(
            !claims(now + 10, now + 20).times_ok(now),
            "issued after it expires"
        );
    }

    #[test]
    fn iat_is_required() {
        let missing: std::result::Result<IdJagClaims, _> =
            serde_json::from_value(serde_json::json!({
                "iss": "https://idp", "sub": "s", "aud": "https://as", "client_id": "c",
                "jti": "j", "exp": 1,
            }));
        assert!(missing.is_err());
    }
}
