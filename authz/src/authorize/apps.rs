//! A person's connected apps (remembered consents) as they, an admin, or the account page see
//! them, with disconnecting; the account page's own sign-in.
use super::model::{ConsentId, NewLoginSession};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result};
use crate::people::Subject;
use crate::realms::Realm;

impl Core {
    /// A realm's connected apps (remembered consents): one subject's, or everyone's.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn connected_apps(
        &self,
        p: &crate::policy::Principal,
        realm_name: &str,
        subject: Option<&str>,
    ) -> Result<Vec<super::model::ConnectedApp>> {
        p.require(crate::policy::Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        Ok(self.store.list_consents(&realm.id, subject).await?)
    }

    /// The apps a console account connected (it signs in as a person of the default realm).
    ///
    /// # Errors
    /// On storage failure.
    pub async fn my_connected_apps(
        &self,
        p: &crate::policy::Principal,
    ) -> Result<Vec<super::model::ConnectedApp>> {
        let realm = self.admin_realm().await?;
        Ok(self
            .store
            .list_consents(&realm.id, Some(p.user_id.as_str()))
            .await?)
    }

    /// Revokes a connected app of anyone in the realm: the consent goes, and every token the
    /// app holds for that person and resource stops working.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn revoke_connected_app(
        &self,
        p: &crate::policy::Principal,
        realm_name: &str,
        consent_id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(crate::policy::Permission::ManagePeople)?;
        let realm = self.find_realm(realm_name).await?;
        self.revoke_consent_as(&realm, &p.email, None, consent_id, meta)
            .await
    }

    /// Revokes one of a console account's own connected apps.
    ///
    /// # Errors
    /// `NotFound` (also for someone else's).
    pub async fn revoke_my_connected_app(
        &self,
        p: &crate::policy::Principal,
        consent_id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let realm = self.admin_realm().await?;
        self.revoke_consent_as(&realm, &p.email, Some(p.user_id.as_str()), consent_id, meta)
            .await
    }

    /// A signed-in person's connected apps (their account page at the realm).
    ///
    /// # Errors
    /// `Unauthenticated` without a live sign-in session.
    pub async fn own_connected_apps(
        &self,
        realm_name: &str,
        session: &str,
    ) -> Result<(Subject, Vec<super::model::ConnectedApp>)> {
        let realm = self.serving_realm(realm_name).await?;
        let (subject, _) = self
            .session_subject(&realm, session)
            .await?
            .ok_or(Error::Unauthenticated)?;
        let apps = self
            .store
            .list_consents(&realm.id, Some(&subject.id))
            .await?;
        Ok((subject, apps))
    }

    /// Revokes one of a signed-in person's own connected apps.
    ///
    /// # Errors
    /// `Unauthenticated`, `NotFound` (also for someone else's).
    pub async fn revoke_own_connected_app(
        &self,
        realm_name: &str,
        session: &str,
        consent_id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let realm = self.serving_realm(realm_name).await?;
        let (subject, _) = self
            .session_subject(&realm, session)
            .await?
            .ok_or(Error::Unauthenticated)?;
        self.revoke_consent_as(&realm, &subject.email, Some(&subject.id), consent_id, meta)
            .await
    }

    /// Signs a person in for their account page (no authorization request): the new session's
    /// cookie value.
    ///
    /// # Errors
    /// `InvalidCredentials`, `Throttled`, `NotFound` (realm).
    pub async fn account_sign_in(
        &self,
        realm_name: &str,
        email: &str,
        password: &str,
        meta: &RequestMeta,
    ) -> Result<NewLoginSession> {
        let realm = self.serving_realm(realm_name).await?;
        let subject = self.sign_in_subject(&realm, email, password, meta).await?;
        let event = self.event(
            &realm.id,
            &subject.email,
            action::AUTHORIZE_LOGIN,
            crate::people::subject_target(&subject.id),
            meta,
        );
        self.new_login_session(&realm, &subject, &event).await
    }

    /// The realm's display name (for pages of a serving realm).
    ///
    /// # Errors
    /// `NotFound`.
    pub async fn serving_realm_name(&self, realm_name: &str) -> Result<String> {
        Ok(self.serving_realm(realm_name).await?.display_name)
    }

    async fn revoke_consent_as(
        &self,
        realm: &Realm,
        actor: &str,
        only_subject: Option<&str>,
        consent_id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let gone = || {
            Error::not_found(
                "connected app",
                consent_id.chars().take(40).collect::<String>(),
            )
        };
        let found = self
            .store
            .find_connected_app(&realm.id, &ConsentId::from_stored(consent_id))
            .await?
            .filter(|a| only_subject.is_none_or(|s| a.consent.subject == s));
        let Some(app) = found else {
            return Err(gone());
        };
        let mut event = self.event(
            &realm.id,
            actor,
            action::CONSENT_REVOKE,
            AuditSubject::Client(app.client_id.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "subject": app.consent.subject,
            "resource": app.resource_uri,
            "scopes": app.consent.scopes.to_string(),
        });
        self.store
            .revoke_consent(&realm.id, &app.consent.id, self.now(), &event)
            .await
            .map(|_| ())
            .map_err(|e| match e {
                crate::error::StorageError::NotFound => gone(),
                other => other.into(),
            })
    }
}
