//! Names for what audit events name by id, so that the log reads as a story ("Ada Admin
//! approved Nightly ledger export") while each id stays one hover or copy away.
use super::model::{AuditEvent, AuditNames, NamedAuditSlice};
use crate::core::Core;
use crate::error::Result;
use crate::policy::{Permission, Principal};
use std::collections::HashMap;

/// Most distinct objects named for one call (a page of the log names far fewer).
const MAX_NAMED: usize = 200;

impl Core {
    /// [`Core::list_audit`] with the names of what the events name.
    ///
    /// # Errors
    /// As [`Core::list_audit`].
    pub async fn audit_log_page(
        &self,
        p: &Principal,
        realm: Option<&str>,
        filter: super::model::AuditFilter,
        window: super::model::AuditWindow,
    ) -> Result<NamedAuditSlice> {
        let slice = self.list_audit(p, realm, filter, window).await?;
        let names = self.audit_names(p, &slice.items).await?;
        Ok(NamedAuditSlice { slice, names })
    }

    /// [`Core::audit_of`] with the names of what the events name.
    ///
    /// # Errors
    /// As [`Core::audit_of`].
    pub async fn audit_history(
        &self,
        p: &Principal,
        realm: &str,
        subject: &super::model::AuditSubject,
        window: super::model::AuditWindow,
    ) -> Result<NamedAuditSlice> {
        let slice = self.audit_of(p, realm, subject, window).await?;
        let names = self.audit_names(p, &slice.items).await?;
        Ok(NamedAuditSlice { slice, names })
    }

    /// The names of the objects and actors `events` name: one lookup per distinct object (at
    /// most [`MAX_NAMED`]), each in the event's realm. A name equal to the id is left out.
    ///
    /// # Errors
    /// `Forbidden` (the audit log is not the caller's to read), on storage failure.
    async fn audit_names(&self, p: &Principal, events: &[AuditEvent]) -> Result<AuditNames> {
        p.require(Permission::ViewAudit)?;
        let mut names = AuditNames::default();
        let mut realms = HashMap::new();
        let mut asked = 0usize;
        // What was looked up already, found or not.
        let mut seen = std::collections::HashSet::new();
        for e in events {
            let key = (e.realm.clone(), e.target.clone());
            if asked >= MAX_NAMED || !seen.insert(key.clone()) {
                continue;
            }
            let Some(realm) = self.realm_for_names(&mut realms, &e.realm).await? else {
                continue;
            };
            asked += 1;
            if let Some(name) = self.target_name(&realm, &e.target).await? {
                let id = e.target.split_once(':').map_or("", |(_, id)| id);
                if name != id {
                    names.targets.insert(key, name);
                }
            }
        }
        let admin = self.admin_realm().await?;
        let mut seen_actors = std::collections::HashSet::new();
        for e in events {
            if asked >= MAX_NAMED || !seen_actors.insert(e.actor.clone()) {
                continue;
            }
            let Ok(email) = crate::accounts::Email::parse(&e.actor) else {
                continue;
            };
            asked += 1;
            let mut name = self
                .store
                .find_user_by_email(&admin.id, &email)
                .await?
                .map(|u| u.display_name);
            if name.is_none()
                && let Some(realm) = self.realm_for_names(&mut realms, &e.realm).await?
            {
                name = self
                    .store
                    .find_person_by_email(&realm.id, &email)
                    .await?
                    .map(|p| p.display_name);
            }
            if let Some(name) = name.filter(|n| n != &e.actor) {
                names.actors.insert(e.actor.clone(), name);
            }
        }
        Ok(names)
    }

    /// The realm an event names, looked up once per call.
    async fn realm_for_names(
        &self,
        seen: &mut HashMap<String, Option<crate::realms::Realm>>,
        name: &str,
    ) -> Result<Option<crate::realms::Realm>> {
        if let Some(r) = seen.get(name) {
            return Ok(r.clone());
        }
        let realm = match crate::realms::RealmName::parse(name) {
            Ok(parsed) => self.store.find_realm_by_name(&parsed).await?,
            Err(_) => None,
        };
        seen.insert(name.to_owned(), realm.clone());
        Ok(realm)
    }

    /// The name of one target (`client:…`, `resource:…`, …) in `realm`.
    async fn target_name(
        &self,
        realm: &crate::realms::Realm,
        target: &str,
    ) -> Result<Option<String>> {
        let Some((kind, id)) = target.split_once(':') else {
            return Ok(None);
        };
        Ok(match kind {
            "client" => match crate::clients::ClientId::parse(id) {
                Ok(id) => self
                    .store
                    .find_client(&realm.id, &id)
                    .await?
                    .map(|c| c.name),
                Err(_) => None,
            },
            "resource" => self
                .store
                .find_resource(&realm.id, id)
                .await?
                .map(|r| r.display_name),
            "person" => self
                .store
                .find_person(&realm.id, &crate::ids::PersonId::from_stored(id))
                .await?
                .map(|p| p.display_name),
            "user" => self
                .store
                .find_user(&crate::ids::UserId::from_stored(id))
                .await?
                .map(|u| u.display_name),
            "realm" => match crate::realms::RealmName::parse(id) {
                Ok(name) => self
                    .store
                    .find_realm_by_name(&name)
                    .await?
                    .map(|r| r.display_name),
                Err(_) => None,
            },
            _ => None,
        })
    }
}
