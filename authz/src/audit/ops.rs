//! Audit operations: building events, listing and exporting them.
use super::model::{
    AuditCursor, AuditFilter, AuditSlice, AuditSubject, AuditWindow, ExportFormat, MAX_EXPORT_ROWS,
    NewAuditEvent, Outcome, RequestMeta, action,
};
use crate::core::Core;
use crate::error::Result;
use crate::policy::{Permission, Principal};
use crate::realms::RealmId;

impl Core {
    /// A successful event by `actor` on `subject`, now, with the request's facts.
    pub(crate) fn event(
        &self,
        realm_id: &RealmId,
        actor: &str,
        action: &'static str,
        subject: AuditSubject,
        meta: &RequestMeta,
    ) -> NewAuditEvent {
        NewAuditEvent {
            realm_id: realm_id.clone(),
            occurred_at: self.now(),
            actor: actor.to_owned(),
            action,
            target: subject.target(),
            related: None,
            outcome: Outcome::Success,
            request_id: meta.request_id.clone(),
            client_ip: meta.client_ip.map(|ip| ip.to_string()),
            details: serde_json::json!({}),
        }
    }

    /// Resolves an optional realm name in a filter to its id.
    async fn realm_filter(&self, realm: Option<&str>) -> Result<Option<RealmId>> {
        match realm.map(str::trim).filter(|s| !s.is_empty()) {
            Some(name) => Ok(Some(self.find_realm(name).await?.id)),
            None => Ok(None),
        }
    }

    /// Lists audit events in the window, newest first. `realm` is a realm name (or none for
    /// all realms).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), or storage failure.
    pub async fn list_audit(
        &self,
        p: &Principal,
        realm: Option<&str>,
        mut filter: AuditFilter,
        window: AuditWindow,
    ) -> Result<AuditSlice> {
        p.require(Permission::ViewAudit)?;
        filter.realm_id = self.realm_filter(realm).await?;
        Ok(self.store.list_audit_events(&filter, window).await?)
    }

    /// One object's own history, newest first: in `realm` for its clients, resources and
    /// agents; a realm's in itself; a console user's in the admin realm.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn audit_of(
        &self,
        p: &Principal,
        realm: &str,
        subject: &AuditSubject,
        window: AuditWindow,
    ) -> Result<AuditSlice> {
        let (filter, realm) = match subject {
            // A realm's own events live in it and name it; renames change the name, so every
            // realm-targeted event of that realm counts.
            AuditSubject::Realm(name) => (
                AuditFilter {
                    target: Some("realm:".to_owned()),
                    ..Default::default()
                },
                name.clone(),
            ),
            AuditSubject::User(_) => (
                AuditFilter {
                    target_is: Some(subject.target()),
                    ..Default::default()
                },
                self.admin_realm().await?.name.to_string(),
            ),
            // A client's, resource's or agent's: what targets it and what concerns it (a grant
            // of a resource, a binding to an agent).
            _ => (
                AuditFilter {
                    concerning: Some(subject.target()),
                    ..Default::default()
                },
                realm.to_owned(),
            ),
        };
        self.list_audit(p, Some(&realm), filter, window).await
    }

    /// Exports matching audit events (up to [`MAX_EXPORT_ROWS`]) as CSV or JSON lines.
    /// The export itself is audited.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), or storage failure.
    pub async fn export_audit(
        &self,
        p: &Principal,
        realm: Option<&str>,
        mut filter: AuditFilter,
        format: ExportFormat,
        meta: &RequestMeta,
    ) -> Result<String> {
        p.require(Permission::ViewAudit)?;
        filter.realm_id = self.realm_filter(realm).await?;
        let events = self
            .store
            .list_audit_events(
                &filter,
                AuditWindow {
                    cursor: AuditCursor::Newest,
                    limit: MAX_EXPORT_ROWS,
                    count_up_to: 0,
                },
            )
            .await?
            .items;
        let admin = self.admin_realm().await?;
        let mut event = self.event(
            &admin.id,
            &p.email,
            action::AUDIT_EXPORT,
            AuditSubject::AuditLog,
            meta,
        );
        event.details = serde_json::json!({"rows": events.len(), "format": format.as_str()});
        self.store.insert_audit_event(&event).await?;
        Ok(match format {
            ExportFormat::Csv => super::to_csv(&events),
            ExportFormat::JsonLines => super::to_json_lines(&events),
        })
    }
}
