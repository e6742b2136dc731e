//! The JWT bearer grant (RFC 7523 §2.1) with the ID-JAG profile (draft-ietf-oauth-identity-
//! assertion-authz-grant; the MCP extension `enterprise-managed-authorization`): a confidential
//! client presents an Identity Assertion JWT Authorization Grant its enterprise IdP issued for a
//! person, and gets an access token for that person at one MCP server of this realm.
//!
//! The assertion must be an `oauth-id-jag+jwt` signed with an allowed algorithm by a key of an
//! issuer this realm trusts (never `none`, never a key the token brings), addressed to the
//! realm's issuer, issued for the authenticated client, fresh, short-lived, and new (`jti` is
//! remembered per issuer until it expires). `resource` and `scope` bound the token, failing
//! closed: the target is the assertion's resource (required; the request may only choose among
//! several), the scopes are those requested and claimed (none claimed: none). The person is the
//! one linked to the assertion's `iss` and `sub`; an unlinked subject is linked by verified
//! email or created only when the issuer's settings say so, and never takes over a person
//! linked to another identity or a console account. The `jti`, the person or link and the
//! token family are written in one transaction. The token is an ordinary RFC 9068 access token
//! of that family (disabling the person, or disabling or removing the issuer, revokes it), with
//! no refresh token: the client asks the IdP again.
//!
//! Refusals tell the client what it can fix; which issuers are trusted and which people exist
//! stay in the log and the audit row.
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
use crate::federation::{IssuerKeys, TrustedIssuer};
use crate::keys::{SigningAlg, Verifier, decode_unverified};
use crate::people::{Person, PersonId};
use crate::realms::Realm;
use crate::resources::{Resource, ResourceUri};
use crate::scope::ScopeSet;
use crate::storage::{AssertionRedeemed, NewSubject};
use crate::throttle::Source;
use serde::Deserialize;

mod subject;
use subject::NewLink;

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

type Text = std::borrow::Cow<'static, str>;

/// A refusal: what the client is told, and the whole reason (log and audit only).
enum Refused {
    OAuth {
        code: OAuthErrorCode,
        public: Text,
        reason: Text,
    },
    Failed(Error),
}

impl From<Error> for Refused {
    fn from(e: Error) -> Self {
        match e {
            Error::OAuth(r) => Refused::OAuth {
                code: r.code,
                public: r.description.clone(),
                reason: r.description,
            },
            other => Refused::Failed(other),
        }
    }
}

impl From<StorageError> for Refused {
    fn from(e: StorageError) -> Self {
        Refused::Failed(e.into())
    }
}

/// `invalid_grant`, telling the client why.
fn refuse(message: impl Into<Text>) -> Refused {
    let m: Text = message.into();
    Refused::OAuth {
        code: OAuthErrorCode::InvalidGrant,
        public: m.clone(),
        reason: m,
    }
}

/// `invalid_grant`, telling the client only `public`.
fn refuse_quietly(public: &'static str, reason: impl Into<Text>) -> Refused {
    Refused::OAuth {
        code: OAuthErrorCode::InvalidGrant,
        public: public.into(),
        reason: reason.into(),
    }
}

const NOT_TRUSTED: &str = "The assertion's issuer is not trusted for this client.";
const NO_PERSON: &str = "The assertion's subject is not a person this realm accepts from this identity provider; an administrator links or creates them.";

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
    /// short-lived: issued at most [`MAX_ID_JAG_LIFETIME_SECS`] before it expires.
    fn times_ok(&self, now: i64) -> bool {
        let skew = ASSERTION_SKEW_SECS;
        self.exp.0 + skew > now
            && self.iat.0 <= now + skew
            && self.iat.0 <= self.exp.0
            && self.exp.0 - self.iat.0 <= MAX_ID_JAG_LIFETIME_SECS
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

/// A checked assertion: from whom, for whom, for what.
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
    /// Runs the grant for an authenticated client; audits both outcomes and counts every
    /// refusal on the client-authentication throttle (per source for public clients, which
    /// anyone can name).
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
            Err(Refused::OAuth {
                code,
                public,
                reason,
            }) => {
                let source = Source::of(meta.client_ip);
                let wait = if client.auth_method == AuthMethod::None {
                    self.client_throttle.source_failed(source, self.now())
                } else {
                    self.client_throttle.client_failed(
                        &realm.id,
                        client.client_id.as_str(),
                        source,
                        self.now(),
                    )
                };
                if let Some(retry_after_secs) = wait {
                    return Err(Error::Throttled { retry_after_secs });
                }
                // The claimed issuer, if the assertion parses: which IdP a refusal concerns.
                let claimed_iss = req
                    .assertion
                    .as_deref()
                    .filter(|a| a.len() <= MAX_ASSERTION_LEN)
                    .and_then(|a| decode_unverified(a).ok())
                    .and_then(|(_, c)| {
                        c["iss"]
                            .as_str()
                            .map(|s| s.chars().take(300).collect::<String>())
                    });
                tracing::warn!(
                    realm = %realm.name,
                    client.id = %client.client_id,
                    issuer = %claimed_iss.as_deref().map(untrusted).unwrap_or_default(),
                    error = code.as_str(),
                    %reason,
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
                    "error": code.as_str(),
                    "reason": reason,
                    "issuer": claimed_iss,
                });
                self.store.insert_audit_event(&event).await?;
                Err(Error::oauth(code, public))
            }
            Err(Refused::Failed(other)) => Err(other),
        }
    }

    async fn redeem_id_jag(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
        meta: &RequestMeta,
    ) -> std::result::Result<Redeemed, Refused> {
        // Anyone can name a public client: the IdP's assertion is only half of the proof.
        if client.auth_method == AuthMethod::None {
            return Err(Error::oauth(
                OAuthErrorCode::InvalidClient,
                "An ID-JAG is accepted only from a client that authenticates.",
            )
            .into());
        }
        let assertion = req
            .assertion
            .as_deref()
            .filter(|a| !a.is_empty())
            .ok_or_else(|| {
                Error::oauth(OAuthErrorCode::InvalidRequest, "assertion is required.")
            })?;
        if assertion.len() > MAX_ASSERTION_LEN {
            return Err(refuse("The assertion is too long."));
        }
        // Nothing is parsed, fetched or looked up for a client no enabled issuer lists.
        let issuers = self.store.list_trusted_issuers(&realm.id).await?;
        let mut listing = issuers
            .iter()
            .filter(|t| t.admits_client(&client.client_id));
        if !listing.clone().any(|t| t.enabled) {
            return Err(refuse_quietly(
                NOT_TRUSTED,
                if listing.next().is_none() {
                    "No trusted issuer of this realm lists this client."
                } else {
                    "Every trusted issuer that lists this client is disabled."
                },
            ));
        }
        let checked = self
            .check_id_jag(realm, client, req, assertion, issuers)
            .await?;
        let now = self.now();
        let lifetime = crate::tokens::lifetime::minted_token_ttl(
            checked.resource.token_ttl_secs,
            realm.token_ttl_secs,
        );
        let (person, new) = self.new_subject(realm, &checked, meta);
        let family = TokenFamily {
            id: FamilyId::generate(),
            realm_id: realm.id.clone(),
            subject: person.id.to_string(),
            client_pk: client.id.clone(),
            resource_id: checked.resource.id.clone(),
            scopes: checked.scopes.clone(),
            offline: false,
            openid: None,
            auth_time: checked
                .claims
                .auth_time
                .unwrap_or(checked.claims.iat)
                .0
                .min(now),
            created_at: now,
            expires_at: now + lifetime,
            revoked_at: None,
            revoked_reason: None,
        };
        let subject = match &new {
            NewLink::None(link) => NewSubject::Linked(link),
            NewLink::Link(link, event) => NewSubject::Link(link, event),
            NewLink::Create(p, link, event) => NewSubject::Create(p, link, event),
        };
        // The jti is remembered until the assertion could no longer be accepted; a second use
        // is a replay, on every instance.
        match self
            .store
            .redeem_identity_assertion(
                &checked.issuer.issuer,
                (
                    &checked.claims.jti,
                    checked.claims.exp.0 + ASSERTION_SKEW_SECS,
                ),
                subject,
                &family,
            )
            .await?
        {
            AssertionRedeemed::Done => {}
            AssertionRedeemed::Replayed => {
                return Err(refuse(
                    "The assertion was used before (its jti was seen already): ask the identity provider for a new one.",
                ));
            }
            // The same subject's first two assertions at once (the other one linked it), or
            // an administrator linked or unlinked meanwhile.
            AssertionRedeemed::Conflict => {
                return Err(refuse(
                    "The person was linked, unlinked or created by another request at the same moment; present the assertion again.",
                ));
            }
            AssertionRedeemed::IssuerGone => {
                return Err(refuse_quietly(
                    NOT_TRUSTED,
                    "The issuer was disabled or removed while the assertion was checked.",
                ));
            }
        }
        let response = self
            .mint_access_token(
                realm,
                client,
                &checked.resource,
                None,
                &checked.scopes,
                Some((person.id.as_str(), &family.id)),
            )
            .await?;
        self.token_use.record(&client.id, &checked.resource.id, now);
        let jti = decode_unverified(&response.access_token)
            .ok()
            .and_then(|(_, c)| c["jti"].as_str().map(str::to_owned))
            .unwrap_or_default();
        Ok(Redeemed {
            response,
            person: person.id,
            checked,
            jti,
        })
    }

    /// Every check, writing nothing: the assertion, its issuer, the client, the target and
    /// scopes, and who the subject is.
    async fn check_id_jag(
        &self,
        realm: &Realm,
        client: &Client,
        req: &TokenRequest,
        assertion: &str,
        issuers: Vec<TrustedIssuer>,
    ) -> std::result::Result<Checked, Refused> {
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
        // An ID-JAG naming this realm as its issuer was made here, for another authorization
        // server (identity chaining): never taken back as an assertion.
        if iss.trim_end_matches('/') == self.issuer(&realm.name) {
            return Err(refuse(
                "The assertion names this realm as its issuer; a realm never accepts its own assertions.",
            ));
        }
        let issuer = match issuers.into_iter().find(|t| t.issuer == iss) {
            None => {
                return Err(refuse_quietly(
                    NOT_TRUSTED,
                    format!(
                        "The issuer {} is not trusted by this realm.",
                        untrusted(iss)
                    ),
                ));
            }
            Some(t) if !t.enabled => {
                return Err(refuse_quietly(
                    NOT_TRUSTED,
                    format!("The issuer {} is disabled in this realm.", t.issuer),
                ));
            }
            Some(t) if !t.admits_client(&client.client_id) => {
                return Err(refuse_quietly(
                    NOT_TRUSTED,
                    format!("The issuer {} does not list this client.", t.issuer),
                ));
            }
            Some(t) => t,
        };
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
            return Err(refuse_quietly(
                NOT_TRUSTED,
                "iss changed after verification.",
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
        let now = self.now();
        if !claims.times_ok(now) {
            let skew = ASSERTION_SKEW_SECS;
            return Err(refuse(if claims.exp.0 + skew <= now {
                format!(
                    "The assertion expired at {} (this server's time is {now}).",
                    claims.exp.0
                )
            } else if claims.exp.0 - claims.iat.0 > MAX_ID_JAG_LIFETIME_SECS
                || claims.iat.0 > claims.exp.0
            {
                format!(
                    "The assertion lives too long: at most {MAX_ID_JAG_LIFETIME_SECS} seconds from iat to exp."
                )
            } else {
                format!(
                    "The assertion is not valid yet (iat or nbf after this server's time, {now}, by more than {skew} seconds)."
                )
            }));
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
    ) -> std::result::Result<IdJagClaims, Refused> {
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
            let kid_known =
                kid.is_none_or(|kid| keys.iter().any(|k| k["kid"].as_str() == Some(kid)));
            return Err(refuse(if jwks.is_none() {
                "The identity provider's keys could not be fetched; try again later.".to_owned()
            } else if !kid_known {
                format!(
                    "The identity provider has no key with the assertion's kid {}.",
                    untrusted(kid.unwrap_or_default())
                )
            } else {
                "The assertion's signature does not verify with the identity provider's keys."
                    .to_owned()
            }));
        };
        serde_json::from_value(claims).map_err(|e| {
            refuse(format!(
                "The assertion lacks a required claim (iss, sub, aud, client_id, jti, exp, iat) or has a malformed one ({e}; email_verified is a boolean, scope a space-separated string)."
            ))
        })
    }

    /// The target: the assertion's `resource` (required; a `resource` parameter may only
    /// pick one of several it names), an enabled resource of this realm.
    async fn id_jag_resource(
        &self,
        realm: &Realm,
        claims: &IdJagClaims,
        sent: &[String],
    ) -> std::result::Result<Resource, Refused> {
        let loopback = self.config().allow_http_loopback;
        let target =
            |m: &'static str| Refused::from(Error::oauth(OAuthErrorCode::InvalidTarget, m));
        let claimed: Vec<ResourceUri> = claims
            .resource
            .as_ref()
            .ok_or_else(|| {
                refuse("The assertion names no resource: the identity provider must say which MCP server it is for.")
            })?
            .values()
            .into_iter()
            .map(|u| ResourceUri::parse(u, loopback))
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| refuse("The assertion's resource is not a valid resource URI."))?;
        let chosen = match (sent, claimed.as_slice()) {
            (_, []) => return Err(refuse("The assertion's resource list is empty.")),
            ([], [one]) => one.clone(),
            ([], _) => {
                return Err(target(
                    "The assertion names several resources: send resource to choose one.",
                ));
            }
            ([one], _) => {
                let uri = ResourceUri::parse(one, loopback)
                    .map_err(|_| target("The resource parameter is not a valid resource URI."))?;
                if !claimed.contains(&uri) {
                    return Err(target(
                        "The resource is not one the assertion was issued for.",
                    ));
                }
                uri
            }
            _ => return Err(target("Exactly one resource parameter is allowed.")),
        };
        self.cached_resource(&realm.id, &chosen)
            .await?
            .filter(|r| r.enabled)
            .ok_or_else(|| {
                refuse("The assertion's resource is not an enabled resource of this realm.")
            })
    }

    /// The scopes: those requested (all claimed ones when none are) that the assertion claims
    /// (none when it claims none), within the resource's and, where only granted clients may
    /// ask, the client's grant.
    async fn id_jag_scopes(
        &self,
        client: &Client,
        resource: &Resource,
        claims: &IdJagClaims,
        requested: Option<&str>,
    ) -> std::result::Result<ScopeSet, Refused> {
        let claimed = ScopeSet::parse(claims.scope.as_deref().unwrap_or_default())
            .map_err(|_| refuse("The assertion's scope is malformed."))?;
        let requested = match requested {
            Some(s) => {
                Some(ScopeSet::parse(s).map_err(|m| refuse(format!("The scope parameter: {m}.")))?)
            }
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
        if granted.is_empty() && !resource.scopes.is_empty() {
            return Err(refuse(
                "None of the scopes is both claimed by the assertion (and requested, if scope was sent) and available at the resource.",
            ));
        }
        Ok(granted)
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
