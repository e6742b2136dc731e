//! What a verified identity at a realm's provider comes to: the person linked to it, a new
//! person (just in time), or a person who must prove their account before it is linked; and
//! the write that follows, which sets the roles, units and rings the provider's groups give.
use super::model::Brokered;
use crate::accounts::Email;
use crate::audit::{AuditSubject, NewAuditEvent, Outcome, RequestMeta, action};
use crate::core::Core;
use crate::error::{Result, StorageError};
use crate::people::{Person, PersonId, Subject};
use crate::realms::Realm;
use crate::registry::{GroupKind, MemberKind};
use crate::scope::ScopeSet;
use crate::sso::{Mapped, SsoIdentity, SsoProvider, provider_actor, received_groups};
use crate::storage::BrokeredSignIn;

/// What the sign-in page says when the write lost a race (the same identity signing in twice
/// at once, or the email taken meanwhile).
const TRY_AGAIN: &str =
    "Signing in did not complete because your account changed meanwhile. Try again.";

/// A display name from the provider's `name`, else the email's local part.
fn display_name_of(identity: &SsoIdentity, email: &Email) -> String {
    let name: String = identity
        .name
        .as_deref()
        .unwrap_or_default()
        .chars()
        .filter(|c| !c.is_control())
        .take(100)
        .collect();
    let name = name.trim();
    if name.is_empty() {
        email
            .as_str()
            .split('@')
            .next()
            .unwrap_or_default()
            .to_owned()
    } else {
        name.to_owned()
    }
}

impl Core {
    /// Decides who a verified identity at `provider` is in `realm`. Linked before: that person
    /// (their roles, units and rings updated). Otherwise a new person with the email the
    /// provider vouches for — unless the realm already has someone with it, who must prove
    /// their account first (never linked by email alone).
    ///
    /// # Errors
    /// Storage failure.
    pub(crate) async fn broker_identity(
        &self,
        realm: &Realm,
        provider: &SsoProvider,
        identity: &SsoIdentity,
        meta: &RequestMeta,
    ) -> Result<Brokered> {
        // An email counts only when the provider vouches for it: marked verified, or not marked
        // at all from a provider whose emails the admin trusts; ASCII only (no lookalikes).
        let vouched = identity.email_verified == Some(true)
            || (provider.trust_email && identity.email_verified.is_none());
        let email = identity
            .email
            .as_deref()
            .filter(|e| vouched && e.is_ascii())
            .and_then(|e| Email::parse(e).ok());
        let actor = email
            .as_ref()
            .map_or_else(|| provider_actor(provider), ToString::to_string);
        let refuse = |reason: &str, says: String| {
            let actor = actor.clone();
            let reason = reason.to_owned();
            async move {
                self.audit_broker_failure(realm, provider, &actor, &reason, meta)
                    .await
                    .map(|()| Brokered::Refused(says))
            }
        };
        let disabled = || "This account is disabled. Ask your administrator.".to_owned();
        if let Some(id) = self
            .store
            .find_upstream_person(&provider.id, &identity.subject)
            .await?
        {
            let Some(person) = self.store.find_person(&realm.id, &id).await? else {
                return refuse("the linked person is gone", TRY_AGAIN.into()).await;
            };
            if person.disabled {
                return refuse("the person is disabled", disabled()).await;
            }
            return self
                .save_brokered(realm, provider, &person, None, &identity.groups, meta)
                .await;
        }
        let Some(email) = email else {
            return refuse(
                "the provider gave no verified email for a new person",
                format!(
                    "{} did not share a verified email address, so no account can be made for you here. Ask your administrator.",
                    provider.display_name
                ),
            )
            .await;
        };
        if let Some(person) = self.store.find_person_by_email(&realm.id, &email).await? {
            if person.disabled {
                return refuse("the person with this email is disabled", disabled()).await;
            }
            if person.password_hash.is_some() && realm.password_sign_in {
                return Ok(Brokered::Link(person));
            }
            return refuse(
                "a person with this email exists and cannot prove the account with a password",
                format!(
                    "An account with the email {email} already exists here, and connecting it to {} takes its password, which it does not have{}. Ask your administrator to give it one; then sign in with {} again and confirm with that password.",
                    provider.display_name,
                    if realm.password_sign_in { "" } else { " (or password sign-in is off in this realm)" },
                    provider.display_name
                ),
            )
            .await;
        }
        // In the default realm an email may also name a console account, which signs in here
        // with its password: a person with the same email would take its place.
        if realm.name.is_default()
            && self
                .store
                .find_user_by_email(&realm.id, &email)
                .await?
                .is_some()
        {
            return refuse(
                "a console account has this email",
                format!(
                    "An account with the email {email} already exists here. Ask your administrator."
                ),
            )
            .await;
        }
        let now = self.now();
        let person = Person {
            id: PersonId::generate(),
            realm_id: realm.id.clone(),
            display_name: display_name_of(identity, &email),
            email,
            password_hash: None,
            roles: ScopeSet::default(),
            disabled: false,
            linked: true,
            provider: Some(provider.id.clone()),
            provider_name: Some(provider.display_name.clone()),
            provider_disabled: false,
            created_at: now,
            updated_at: now,
        };
        self.save_brokered(
            realm,
            provider,
            &person,
            Some((true, &identity.subject)),
            &identity.groups,
            meta,
        )
        .await
    }

    /// Links a provider identity to the person who just proved their account, and updates
    /// them as a sign-in does.
    ///
    /// # Errors
    /// Storage failure.
    pub(crate) async fn link_brokered(
        &self,
        realm: &Realm,
        provider: &SsoProvider,
        person: &Person,
        subject: &str,
        groups: &[String],
        meta: &RequestMeta,
    ) -> Result<Brokered> {
        self.save_brokered(
            realm,
            provider,
            person,
            Some((false, subject)),
            groups,
            meta,
        )
        .await
    }

    /// Writes a brokered sign-in: the person created (`link.0`) or linked (`link.1` the
    /// subject), and the roles, units and rings the provider's mapping gives `groups` — those
    /// it names and no group gives are taken away; units and rings the registry no longer has
    /// are skipped (and recorded).
    async fn save_brokered(
        &self,
        realm: &Realm,
        provider: &SsoProvider,
        person: &Person,
        link: Option<(bool, &str)>,
        groups: &[String],
        meta: &RequestMeta,
    ) -> Result<Brokered> {
        let create = link.is_some_and(|(create, _)| create);
        let given = Mapped::given(&provider.group_mapping, groups);
        let managed = Mapped::managed(&provider.group_mapping);
        let set = |names: &[String]| ScopeSet::parse(&names.join(" ")).unwrap_or_default();
        let roles = person
            .roles
            .difference(&set(&managed.roles))
            .union(&set(&given.roles));
        if roles.iter().count() > crate::scope::MAX_SCOPES {
            self.audit_broker_failure(
                realm,
                provider,
                person.email.as_str(),
                "the person would hold more roles than a token can carry",
                meta,
            )
            .await?;
            return Ok(Brokered::Refused(
                "Your account holds too many roles here. Ask your administrator.".into(),
            ));
        }
        let current = if create {
            Vec::new()
        } else {
            self.store
                .groups_of(&realm.id, (MemberKind::Person, person.id.as_str()))
                .await?
        };
        let (mut add, mut remove, mut unknown) = (Vec::new(), Vec::new(), Vec::new());
        for (kind, given, managed) in [
            (GroupKind::Unit, &given.units, &managed.units),
            (GroupKind::Ring, &given.rings, &managed.rings),
        ] {
            for id in given {
                let group = (kind, id.clone());
                if current.contains(&group) {
                    continue;
                }
                if self.group_exists(realm, (kind, id)).await.is_ok() {
                    add.push(group);
                } else {
                    unknown.push(format!("{}:{id}", kind.as_str()));
                }
            }
            for id in managed.iter().filter(|id| !given.contains(id)) {
                let group = (kind, id.clone());
                if current.contains(&group) {
                    remove.push(group);
                }
            }
        }
        let actor = person.email.to_string();
        let target = AuditSubject::Person(person.id.to_string());
        let via = |mut details: serde_json::Value| {
            if let Some(obj) = details.as_object_mut() {
                obj.insert("via".into(), provider.display_name.clone().into());
                obj.insert("provider".into(), provider.id.as_str().into());
            }
            details
        };
        let mut events: Vec<NewAuditEvent> = Vec::new();
        let mut event = |name: &'static str, details: serde_json::Value| {
            let mut e = self.event(&realm.id, &actor, name, target.clone(), meta);
            e.details = via(details);
            events.push(e);
        };
        let new_person = create.then(|| Person {
            roles: roles.clone(),
            ..person.clone()
        });
        if let Some(p) = &new_person {
            event(
                action::PERSON_CREATE,
                serde_json::json!({"roles": p.roles.to_string(), "just_in_time": true}),
            );
        } else if let Some((_, subject)) = link {
            event(
                action::PERSON_LINK,
                serde_json::json!({
                    "idp_subject": subject.chars().take(255).collect::<String>(),
                    "by": "the person, with their password",
                }),
            );
        }
        let roles_changed = !create && roles != person.roles;
        if roles_changed || !add.is_empty() || !remove.is_empty() || !unknown.is_empty() {
            let names = |groups: &[(GroupKind, String)]| {
                groups
                    .iter()
                    .map(|(k, id)| format!("{}:{id}", k.as_str()))
                    .collect::<Vec<_>>()
            };
            let mut details = serde_json::json!({
                "groups": received_groups(groups),
                "added": names(&add),
                "removed": names(&remove),
            });
            if roles_changed && let Some(obj) = details.as_object_mut() {
                obj.insert(
                    "roles".into(),
                    serde_json::json!({"before": person.roles.to_string(), "after": roles.to_string()}),
                );
            }
            if !unknown.is_empty()
                && let Some(obj) = details.as_object_mut()
            {
                obj.insert("not_in_registry".into(), unknown.into());
            }
            event(action::PERSON_UPDATE, details);
        }
        let change = BrokeredSignIn {
            create: new_person.as_ref(),
            person: &person.id,
            provider: &provider.id,
            link: link.map(|(_, subject)| subject),
            roles: roles_changed.then(|| roles.to_string()),
            add: &add,
            remove: &remove,
            added_by: &provider_actor(provider),
            at: self.now(),
        };
        match self.store.save_brokered_sign_in(&change, &events).await {
            Ok(()) => {}
            Err(StorageError::Conflict(_)) => {
                return Ok(Brokered::Refused(TRY_AGAIN.into()));
            }
            Err(e) => return Err(e.into()),
        }
        Ok(Brokered::Person(Subject {
            roles,
            ..Subject::from(person)
        }))
    }

    /// Records a refused sign-in through a realm's provider.
    pub(crate) async fn audit_broker_failure(
        &self,
        realm: &Realm,
        provider: &SsoProvider,
        actor: &str,
        reason: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let mut event = self.event(
            &realm.id,
            actor,
            action::AUTHORIZE_LOGIN,
            AuditSubject::Person("unknown".into()),
            meta,
        );
        event.outcome = Outcome::Failure;
        event.details = serde_json::json!({
            "via": provider.display_name,
            "provider": provider.id.as_str(),
            "reason": reason,
        });
        crate::accounts::count_sign_in("realm", "failed");
        Ok(self.store.insert_audit_event(&event).await?)
    }
}
