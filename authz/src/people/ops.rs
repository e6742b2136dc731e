//! People operations: managed by admins (console and CLI), signed in at authorization
//! endpoints.
use super::model::{Person, PersonId, PersonInput, Subject, subject_target};
use crate::accounts::{Email, UserId, login_actor};
use crate::audit::{AuditSubject, Outcome, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result, StorageError, map_taken};
use crate::paging::{Page, Paged};
use crate::policy::{Permission, Principal};
use crate::realms::Realm;
use crate::scope::ScopeSet;
use crate::secret::Password;
use crate::throttle::Source;

/// Parses a person's form: email, display name (defaults to the email) and roles.
fn parse_input(input: &PersonInput) -> Result<(Email, String, ScopeSet)> {
    let mut checks = crate::error::FieldChecks::default();
    let parsed = check_input(input, &mut checks);
    parsed.ok_or_else(|| checks.failed())
}

/// [`parse_input`], noting each field's problem in `checks`; `None` when one was noted.
fn check_input(
    input: &PersonInput,
    checks: &mut crate::error::FieldChecks,
) -> Option<(Email, String, ScopeSet)> {
    let email = checks.take("email", Email::parse(&input.email));
    let name = match input.display_name.trim() {
        "" => email.as_ref().map(ToString::to_string),
        n => checks.take("display_name", crate::realms::parse_display_name(n, "Name")),
    };
    let roles = checks.take("roles", ScopeSet::parse(&input.roles));
    Some((email?, name?, roles?))
}

impl Core {
    /// Adds a person to a realm, with a first password if given.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField`, `Taken` (email).
    pub async fn create_person(
        &self,
        p: &Principal,
        realm_name: &str,
        input: &PersonInput,
        password: Option<&str>,
        meta: &RequestMeta,
    ) -> Result<Person> {
        p.require(Permission::ManagePeople)?;
        let realm = self.find_realm(realm_name).await?;
        // Every field is checked before any problem is reported: the form shows them all.
        let mut checks = crate::error::FieldChecks::default();
        let fields = check_input(input, &mut checks);
        let password = match password.filter(|s| !s.is_empty()) {
            Some(pw) => checks.take("password", Password::parse_new(pw)).map(Some),
            None => Some(None),
        };
        let (Some((email, display_name, roles)), Some(password)) = (fields, password) else {
            return Err(checks.failed());
        };
        let password_hash = match password {
            Some(pw) => Some(self.hasher.hash(pw).await.map_err(Error::Internal)?),
            None => None,
        };
        let now = self.now();
        let person = Person {
            id: PersonId::generate(),
            realm_id: realm.id.clone(),
            email,
            display_name,
            password_hash,
            roles,
            disabled: false,
            linked: false,
            provider: None,
            provider_name: None,
            provider_disabled: false,
            created_at: now,
            updated_at: now,
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::PERSON_CREATE,
            AuditSubject::Person(person.id.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "email": person.email.as_str(),
            "roles": person.roles.to_string(),
            "password_set": person.password_hash.is_some(),
        });
        self.store
            .insert_person(&person, &event)
            .await
            .map_err(|e| {
                map_taken(
                    e,
                    "email",
                    "A person with this email already exists in the realm.",
                )
            })?;
        Ok(person)
    }

    /// The people of a realm.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn list_people(
        &self,
        p: &Principal,
        realm_name: &str,
        query: Option<&str>,
        page: Page,
    ) -> Result<Paged<Person>> {
        p.require(Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        Ok(self.store.list_people(&realm.id, query, page).await?)
    }

    /// One person of a realm.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn person(&self, p: &Principal, realm_name: &str, id: &str) -> Result<Person> {
        p.require(Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        self.find_person_in(&realm, id).await
    }

    async fn find_person_in(&self, realm: &Realm, id: &str) -> Result<Person> {
        self.store
            .find_person(&realm.id, &PersonId::from_stored(id))
            .await?
            .ok_or_else(|| Error::not_found("person", id.chars().take(40).collect::<String>()))
    }

    /// Changes a person's name and roles (their email is their sign-in name and stays).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `InvalidField`.
    pub async fn update_person(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        input: &PersonInput,
        meta: &RequestMeta,
    ) -> Result<Person> {
        p.require(Permission::ManagePeople)?;
        let realm = self.find_realm(realm_name).await?;
        let before = self.find_person_in(&realm, id).await?;
        let (_, display_name, roles) = parse_input(&PersonInput {
            email: before.email.to_string(),
            ..input.clone()
        })?;
        let after = Person {
            display_name,
            roles,
            updated_at: self.now(),
            ..before.clone()
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::PERSON_UPDATE,
            AuditSubject::Person(after.id.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "display_name": {"from": before.display_name, "to": after.display_name},
            "roles": {"from": before.roles.to_string(), "to": after.roles.to_string()},
        });
        self.store
            .update_person(&after, &event)
            .await
            .map_err(not_found_person)?;
        Ok(after)
    }

    /// Sets a person's password.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `InvalidField` (password).
    pub async fn set_person_password(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        password: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManagePeople)?;
        let realm = self.find_realm(realm_name).await?;
        let person = self.find_person_in(&realm, id).await?;
        let pw = Password::parse_new(password).map_err(|m| Error::field("password", m))?;
        let hash = self.hasher.hash(pw).await.map_err(Error::Internal)?;
        let event = self.event(
            &realm.id,
            &p.email,
            action::PERSON_PASSWORD_SET,
            AuditSubject::Person(person.id.to_string()),
            meta,
        );
        self.store
            .set_person_password(&person.id, &hash, self.now(), &event)
            .await
            .map_err(not_found_person)
    }

    /// Disables a person (ending their sign-ins and revoking their apps' tokens) or enables
    /// them again.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn set_person_disabled(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        disabled: bool,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManagePeople)?;
        let realm = self.find_realm(realm_name).await?;
        let person = self.find_person_in(&realm, id).await?;
        let event = self.event(
            &realm.id,
            &p.email,
            if disabled {
                action::PERSON_DISABLE
            } else {
                action::PERSON_ENABLE
            },
            AuditSubject::Person(person.id.to_string()),
            meta,
        );
        self.store
            .set_person_disabled(&person.id, disabled, self.now(), &event)
            .await
            .map_err(not_found_person)
    }

    /// Verifies a sign-in at a realm's authorization endpoint: a person of the realm or, in the
    /// administration realm, a console account. Throttled and audited like console sign-in.
    ///
    /// # Errors
    /// `InvalidCredentials`, `Throttled`.
    pub(crate) async fn sign_in_subject(
        &self,
        realm: &Realm,
        email: &str,
        password: &str,
        meta: &RequestMeta,
    ) -> Result<Subject> {
        let actor = login_actor(email);
        let now = self.now();
        // One failure budget per account: in the default realm an email may name a console
        // account, so guesses here count against the same key as console sign-in.
        let key = if realm.name.is_default() {
            actor.clone()
        } else {
            format!("{}/{actor}", realm.id)
        };
        let attempt = self
            .login_throttle
            .begin_login(&key, Source::of(meta.client_ip), now)
            .map_err(|retry_after_secs| {
                crate::accounts::count_sign_in("realm", "throttled");
                Error::Throttled { retry_after_secs }
            })?;
        let found = match Email::parse(email) {
            Ok(e) => self.subject_by_email(realm, &e).await?,
            Err(_) => None,
        };
        let phc = found.as_ref().and_then(|(_, phc, _)| phc.clone());
        let Ok(ok) = self
            .hasher
            .verify(Password::from_input(password), phc)
            .await
        else {
            self.login_throttle.undo(attempt);
            return Err(Error::Throttled {
                retry_after_secs: 1,
            });
        };
        let subject = found
            .filter(|(_, _, disabled)| ok && !disabled)
            .map(|(s, _, _)| s);
        let mut event = self.event(
            &realm.id,
            &actor,
            action::AUTHORIZE_LOGIN,
            subject.as_ref().map_or_else(
                || AuditSubject::Person("unknown".into()),
                |s| subject_target(&s.id),
            ),
            meta,
        );
        let Some(subject) = subject else {
            event.outcome = Outcome::Failure;
            self.store.insert_audit_event(&event).await?;
            crate::accounts::count_sign_in("realm", "failed");
            return Err(Error::InvalidCredentials);
        };
        self.login_throttle.succeeded(attempt);
        crate::accounts::count_sign_in("realm", "ok");
        // The session row and this event are written together by the caller.
        Ok(subject)
    }

    /// A subject (with password hash and disabled flag) by email: the realm's person, else, in
    /// the administration realm, the console account.
    async fn subject_by_email(
        &self,
        realm: &Realm,
        email: &Email,
    ) -> Result<Option<(Subject, Option<String>, bool)>> {
        if let Some(p) = self.store.find_person_by_email(&realm.id, email).await? {
            // With the realm's password sign-in off, its people sign in through its providers
            // only (the same answer as a wrong password).
            return Ok(Some((
                Subject::from(&p),
                p.password_hash.clone().filter(|_| realm.password_sign_in),
                p.disabled || p.provider_disabled,
            )));
        }
        if !realm.name.is_default() {
            return Ok(None);
        }
        // With password sign-in off, a console account's password works here only for a
        // break-glass admin, as at the console.
        let passwords_off = self.store.password_sign_in_break_glass_only().await?;
        let user = self.store.find_user_by_email(&realm.id, email).await?;
        // This page asks for no second factor: an account that has one, or whose role requires
        // one, cannot use its password here (the same answer as a wrong password).
        let needs_second_factor = match &user {
            Some(u) => self.second_factor_due(u).await?,
            None => false,
        };
        Ok(user.map(|mut u| {
            if (passwords_off && !u.may_use_password_when_off())
                || needs_second_factor
                || !realm.password_sign_in
            {
                u.password_hash = None;
            }
            (
                Subject {
                    id: u.id.to_string(),
                    email: u.email.to_string(),
                    display_name: u.display_name.clone(),
                    roles: ScopeSet::default(),
                },
                u.password_hash.clone(),
                u.disabled,
            )
        }))
    }

    /// The enabled subject with this id in the realm, if any.
    pub(crate) async fn live_subject(&self, realm: &Realm, id: &str) -> Result<Option<Subject>> {
        if id.starts_with("psn_") {
            return Ok(self
                .store
                .find_person(&realm.id, &PersonId::from_stored(id))
                .await?
                .filter(|p| !p.disabled && !p.provider_disabled)
                .map(|p| Subject::from(&p)));
        }
        if id.starts_with("usr_") && realm.name.is_default() {
            return Ok(self
                .store
                .find_user(&UserId::from_stored(id))
                .await?
                .filter(|u| !u.disabled && u.realm_id == realm.id)
                .map(|u| Subject {
                    id: u.id.to_string(),
                    email: u.email.to_string(),
                    display_name: u.display_name.clone(),
                    roles: ScopeSet::default(),
                }));
        }
        Ok(None)
    }
}

fn not_found_person(e: StorageError) -> Error {
    match e {
        StorageError::NotFound => Error::not_found("person", ""),
        other => Error::Storage(other),
    }
}
