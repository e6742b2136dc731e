//! Who an ID-JAG's subject is in the realm: the linked person, or one linked by email or
//! created, as the trusted issuer's settings allow; and what redeeming writes to make it so.
use super::{Checked, IdJagClaims, NO_PERSON, Refused, Subject, refuse, refuse_quietly};
use crate::accounts::Email;
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::federation::{PersonIdentity, TrustedIssuer};
use crate::people::{Person, PersonId};
use crate::realms::Realm;
use crate::scope::ScopeSet;

impl Core {
    /// Who the assertion's subject is: the person linked to (`iss`, `sub`); else, as the
    /// issuer's settings allow, the person with its verified `email` (when no other identity
    /// is linked to them) or a new person.
    pub(super) async fn id_jag_subject(
        &self,
        realm: &Realm,
        issuer: &TrustedIssuer,
        claims: &IdJagClaims,
    ) -> std::result::Result<Subject, Refused> {
        if let Some(link) = self
            .store
            .find_person_identity(&realm.id, &issuer.issuer, &claims.sub)
            .await?
        {
            let person = self
                .store
                .find_person(&realm.id, &link.person_id)
                .await?
                .filter(|p| !p.disabled && !p.provider_disabled)
                .ok_or_else(|| refuse_quietly(NO_PERSON, "The linked person is disabled."))?;
            return Ok(Subject::Linked(person));
        }
        if !issuer.link_by_email && !issuer.create_people {
            return Err(refuse_quietly(
                NO_PERSON,
                "No person is linked to the subject, and the issuer may neither link nor create people.",
            ));
        }
        // Only an email the IdP says it verified, in plain ASCII (no lookalikes folded by
        // lower-casing), names anyone.
        let email = claims
            .email
            .as_deref()
            .filter(|e| claims.email_verified == Some(true) && e.is_ascii())
            .and_then(|e| Email::parse(e).ok())
            .ok_or_else(|| {
                refuse(
                    "No person is linked to the assertion's subject, and it carries no verified email (email with email_verified true) to go by.",
                )
            })?;
        match self.store.find_person_by_email(&realm.id, &email).await? {
            Some(p) if issuer.link_by_email => {
                if p.disabled || p.provider_disabled {
                    return Err(refuse_quietly(
                        NO_PERSON,
                        "The person with the email is disabled.",
                    ));
                }
                // Linked to another identity already: at a trusted issuer or a sign-in
                // provider of the realm.
                if p.linked || !self.store.list_person_identities(&p.id).await?.is_empty() {
                    return Err(refuse_quietly(
                        NO_PERSON,
                        "The person with the email is linked to another identity already; an administrator links them.",
                    ));
                }
                Ok(Subject::LinkByEmail(p))
            }
            Some(_) => Err(refuse_quietly(
                NO_PERSON,
                "A person has the email, but the issuer may not link people by email.",
            )),
            None if issuer.create_people => {
                // In the administration realm the email may be a console account's, which
                // signs in here too: a new person would stand in its way.
                if realm.name.is_default()
                    && self
                        .store
                        .find_user_by_email(&realm.id, &email)
                        .await?
                        .is_some()
                {
                    return Err(refuse_quietly(
                        NO_PERSON,
                        "A console account has the email; people are not created in its place.",
                    ));
                }
                let name = claims
                    .name
                    .as_deref()
                    .and_then(|n| crate::realms::parse_display_name(n, "Name").ok())
                    .unwrap_or_else(|| email.to_string());
                Ok(Subject::Create { email, name })
            }
            None => Err(refuse_quietly(
                NO_PERSON,
                "No person has the email, and the issuer may not create people.",
            )),
        }
    }

    /// The person the token is for, and what redeeming the assertion writes to make it so
    /// (a link or a new person, each with its audit event).
    pub(super) fn new_subject(
        &self,
        realm: &Realm,
        checked: &Checked,
        meta: &RequestMeta,
    ) -> (Person, NewLink) {
        let issuer = &checked.issuer;
        let now = self.now();
        let link = |person_id: &PersonId| PersonIdentity {
            realm_id: realm.id.clone(),
            issuer: issuer.issuer.clone(),
            subject: checked.claims.sub.clone(),
            person_id: person_id.clone(),
            created_at: now,
        };
        let actor = crate::audit::AuditSubject::TrustedIssuer(issuer.issuer.clone()).target();
        match &checked.subject {
            Subject::Linked(p) => (p.clone(), NewLink::None(link(&p.id))),
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
                (p.clone(), NewLink::Link(link(&p.id), event))
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
                    linked: true,
                    provider: None,
                    provider_name: None,
                    provider_disabled: false,
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
                let l = link(&person.id);
                (person.clone(), NewLink::Create(Box::new(person), l, event))
            }
        }
    }
}

/// What redeeming writes for the subject (owned; lent to the store as [`NewSubject`]).
pub(super) enum NewLink {
    None(PersonIdentity),
    Link(PersonIdentity, crate::audit::NewAuditEvent),
    Create(Box<Person>, PersonIdentity, crate::audit::NewAuditEvent),
}
