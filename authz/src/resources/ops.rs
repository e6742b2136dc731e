//! Resource operations: register, list, change, enable, disable, delete, and the realm's
//! default resource.
use super::model::{
    MAX_SUBMISSIONS, MAX_SUBMISSIONS_PER_PERSON, Resource, ResourceFields, ResourceId,
    ResourceInput, parse_slug,
};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result, StorageError, map_conflict, map_taken};
use crate::policy::{Permission, Principal};
use crate::scope::ScopeSet;
use crate::storage::{SubmissionLimits, TOO_MANY_IN_REALM, TOO_MANY_OF_YOURS};

impl Core {
    /// Registers a protected resource.
    ///
    /// # Errors
    /// `Forbidden`, `InvalidField` (nothing written), `NotFound` (realm), `Taken` (slug or URI
    /// taken).
    pub async fn create_resource(
        &self,
        p: &Principal,
        realm_name: &str,
        input: &ResourceInput,
        meta: &RequestMeta,
    ) -> Result<Resource> {
        p.require(Permission::ManageResources)?;
        let realm = self.find_realm(realm_name).await?;
        // Every field is checked before any problem is reported: the form shows them all.
        let mut checks = crate::error::FieldChecks::default();
        let slug = checks.take("slug", parse_slug(&input.slug));
        let f = ResourceFields::check(input, self.config().allow_http_loopback, &mut checks);
        let (Some(slug), Some(f)) = (slug, f) else {
            return Err(checks.failed());
        };
        self.insert_new_resource(p, &realm, slug, f, None, meta)
            .await
    }

    /// Inserts a new resource once its slug and URI are known to be free in the realm. With
    /// `submitted_by` it is a developer's submission (stored disabled, audited as such).
    ///
    /// # Errors
    /// `Taken` (`slug`, `uri`), `Storage`.
    pub(crate) async fn insert_new_resource(
        &self,
        p: &Principal,
        realm: &crate::realms::Realm,
        slug: String,
        f: ResourceFields,
        submitted_by: Option<String>,
        meta: &RequestMeta,
    ) -> Result<Resource> {
        // Looked up first so that the form can say which value is taken; a concurrent insert
        // still fails on the constraint.
        if self.store.find_resource(&realm.id, &slug).await?.is_some() {
            return Err(Error::Taken {
                field: "slug",
                message: "A resource with this id already exists.".into(),
            });
        }
        if let Some(other) = self.store.find_resource_by_uri(&realm.id, &f.uri).await? {
            return Err(Error::Taken {
                field: "uri",
                message: format!("Resource {} already has this URI.", other.slug).into(),
            });
        }
        let now = self.now();
        let r = Resource {
            id: ResourceId::generate(),
            realm_id: realm.id.clone(),
            slug,
            display_name: f.display_name,
            uri: f.uri,
            scopes: f.scopes,
            token_ttl_secs: f.token_ttl_secs,
            signing_alg: f.signing_alg,
            enabled: f.enabled && submitted_by.is_none(),
            policy: super::model::AccessPolicy::default(),
            submitted_by,
            rejection: None,
            created_at: now,
            updated_at: now,
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            if r.submitted_by.is_some() {
                action::RESOURCE_SUBMIT
            } else {
                action::RESOURCE_CREATE
            },
            AuditSubject::Resource(r.slug.to_string()),
            meta,
        );
        event.details = settings(&r);
        let inserted = if r.submitted_by.is_some() {
            let limits = SubmissionLimits {
                per_person: MAX_SUBMISSIONS_PER_PERSON,
                per_realm: MAX_SUBMISSIONS,
            };
            self.store.insert_submission(&r, limits, &event).await
        } else {
            self.store.insert_resource(&r, &event).await
        };
        inserted.map_err(|e| match e {
            StorageError::Precondition(TOO_MANY_OF_YOURS) => Error::Conflict(
                format!("You have {MAX_SUBMISSIONS_PER_PERSON} submissions waiting for an admin or rejected; withdraw the rejected ones, or ask an admin to decide on the others.").into(),
            ),
            StorageError::Precondition(TOO_MANY_IN_REALM) => Error::Conflict(
                format!("This realm holds {MAX_SUBMISSIONS} submissions waiting for an admin or rejected; ask an admin to decide on them first.").into(),
            ),
            other => map_conflict(other, "A resource with this id or URI already exists."),
        })?;
        Ok(r)
    }

    /// Lists a realm's resources.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn list_resources(&self, p: &Principal, realm_name: &str) -> Result<Vec<Resource>> {
        p.require(Permission::ViewResources)?;
        let realm = self.find_realm(realm_name).await?;
        Ok(self.store.list_resources(&realm.id).await?)
    }

    /// How long access tokens already issued in the realm may still be accepted by resource
    /// servers that verify them themselves: the longest access-token lifetime of its resources
    /// (their own, or the realm's default). Revocation reaches those tokens only through
    /// introspection; every message about a revocation says so with this bound.
    ///
    /// # Errors
    /// `NotFound` (realm), on storage failure.
    pub async fn local_token_horizon(&self, realm_name: &str) -> Result<i64> {
        let realm = self.find_realm(realm_name).await?;
        let own = self.store.max_resource_token_ttl(&realm.id).await?;
        Ok(crate::tokens::lifetime::local_token_horizon(
            own,
            realm.token_ttl_secs,
        ))
    }

    /// One resource of the realm, by slug.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm or resource).
    pub async fn resource(&self, p: &Principal, realm_name: &str, slug: &str) -> Result<Resource> {
        p.require(Permission::ViewResources)?;
        self.load_resource(realm_name, slug).await
    }

    /// A resource of the realm by slug.
    pub(crate) async fn load_resource(&self, realm_name: &str, slug: &str) -> Result<Resource> {
        let realm = self.find_realm(realm_name).await?;
        let not_found = || Error::not_found("resource", slug.chars().take(63).collect::<String>());
        let slug = parse_slug(slug).map_err(|_| not_found())?;
        self.store
            .find_resource(&realm.id, &slug)
            .await?
            .ok_or_else(not_found)
    }

    /// Changes a resource (everything but its slug).
    ///
    /// # Errors
    /// `Forbidden`, `InvalidField`, `NotFound`, `Taken` (URI).
    pub async fn update_resource(
        &self,
        p: &Principal,
        realm_name: &str,
        slug: &str,
        input: &ResourceInput,
        meta: &RequestMeta,
    ) -> Result<Resource> {
        p.require(Permission::ManageResources)?;
        let fields = ResourceFields::parse(input, self.config().allow_http_loopback)?;
        let mut r = self.load_resource(realm_name, slug).await?;
        let before = settings(&r);
        r.apply(fields);
        r.updated_at = self.now();
        let mut event = self.event(
            &r.realm_id,
            &p.email,
            action::RESOURCE_UPDATE,
            AuditSubject::Resource(r.slug.to_string()),
            meta,
        );
        event.details = crate::audit::changes(&before, &settings(&r));
        self.store
            .update_resource(&r, &event)
            .await
            .map_err(|e| map_taken(e, "uri", "Another resource already has this URI."))?;
        Ok(r)
    }

    /// Enables or disables a resource: disabled resources get no tokens, and their tokens
    /// introspect inactive.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn set_resource_enabled(
        &self,
        p: &Principal,
        realm_name: &str,
        slug: &str,
        enabled: bool,
        meta: &RequestMeta,
    ) -> Result<Resource> {
        p.require(Permission::ManageResources)?;
        let mut r = self.load_resource(realm_name, slug).await?;
        r.enabled = enabled;
        // The store ends a developer's submission (and any rejection) with the admin's decision.
        let submission = r.submitted_by.take();
        r.rejection = None;
        r.updated_at = self.now();
        let mut event = self.event(
            &r.realm_id,
            &p.email,
            action::RESOURCE_UPDATE,
            AuditSubject::Resource(r.slug.to_string()),
            meta,
        );
        event.details = match submission {
            Some(by) => serde_json::json!({"enabled": enabled, "submitted_by": by}),
            None => serde_json::json!({"enabled": enabled}),
        };
        self.store
            .set_resource_enabled(&r.id, enabled, r.updated_at, &event)
            .await?;
        Ok(r)
    }

    /// Rejects a developer's submission that waits for an admin, with a reason its developer
    /// sees on the resource; it stays, disabled, until they withdraw it or an admin enables or
    /// deletes it.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `InvalidField` (`reason`), `Conflict` (not waiting: decided or
    /// rejected already).
    pub async fn reject_submission(
        &self,
        p: &Principal,
        realm_name: &str,
        slug: &str,
        reason: &str,
        meta: &RequestMeta,
    ) -> Result<Resource> {
        p.require(Permission::ManageResources)?;
        let reason =
            super::model::parse_rejection(reason).map_err(|m| Error::field("reason", m))?;
        let mut r = self.load_resource(realm_name, slug).await?;
        let not_waiting = || {
            Error::Conflict(
                "This resource is not a submission waiting for an admin (any more).".into(),
            )
        };
        if !r.waiting() {
            return Err(not_waiting());
        }
        r.rejection = Some(reason.clone());
        r.updated_at = self.now();
        let mut event = self.event(
            &r.realm_id,
            &p.email,
            action::RESOURCE_REJECT,
            AuditSubject::Resource(r.slug.to_string()),
            meta,
        );
        event.details = serde_json::json!({"submitted_by": r.submitted_by, "reason": reason});
        self.store
            .reject_submission(&r.id, &reason, r.updated_at, &event)
            .await
            .map_err(|e| match e {
                StorageError::NotFound => not_waiting(),
                other => other.into(),
            })?;
        self.tell_submission_rejected(&r, realm_name, &reason).await;
        Ok(r)
    }

    /// Deletes a resource (and its introspection credentials); its tokens stop introspecting as
    /// active, even if a resource with the same URI is registered again. A developer may delete
    /// (withdraw) their own submission while it waits for an admin.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `Conflict` (a withdrawal after an admin decided on it).
    pub async fn delete_resource(
        &self,
        p: &Principal,
        realm_name: &str,
        slug: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let manage = p.role.can(Permission::ManageResources);
        p.require(if manage {
            Permission::ManageResources
        } else {
            Permission::SubmitResources
        })?;
        let r = self.load_resource(realm_name, slug).await?;
        let withdraw = !manage;
        let decided = || {
            Error::Conflict(
                "This resource is no longer only your waiting submission (an admin has decided on it or set it up), so only an admin can delete it."
                    .into(),
            )
        };
        if withdraw {
            match r.submitted_by.as_deref() {
                Some(by) if by == p.email => {}
                Some(_) => return Err(Error::Forbidden),
                None => return Err(decided()),
            }
            self.client_throttle
                .submission_change(p.user_id.as_str(), self.now())
                .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
        }
        let mut event = self.event(
            &r.realm_id,
            &p.email,
            if withdraw {
                action::RESOURCE_WITHDRAW
            } else {
                action::RESOURCE_DELETE
            },
            AuditSubject::Resource(r.slug.to_string()),
            meta,
        );
        if let Some(by) = &r.submitted_by {
            event.details = serde_json::json!({"submitted_by": by});
        }
        let only_submitted_by = withdraw.then_some(p.email.as_str());
        self.store
            .delete_resource(&r.id, only_submitted_by, &event)
            .await
            .map_err(|e| match e {
                StorageError::NotFound if withdraw => decided(),
                other => other.into(),
            })
    }

    /// The realm's default resource: the audience of token requests that omit `resource`.
    /// `None` (the default) means such requests are refused with `invalid_target`.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn default_resource(
        &self,
        p: &Principal,
        realm_name: &str,
    ) -> Result<Option<Resource>> {
        p.require(Permission::ViewResources)?;
        let realm = self.find_realm(realm_name).await?;
        match &realm.default_resource_id {
            Some(id) => Ok(self.store.find_resource_by_id(&realm.id, id).await?),
            None => Ok(None),
        }
    }

    /// Every scope some resource of the realm accepts: what client scopes and agent roles are
    /// picked from.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn realm_scopes(&self, p: &Principal, realm_name: &str) -> Result<ScopeSet> {
        let resources = self.list_resources(p, realm_name).await?;
        Ok(resources
            .iter()
            .fold(ScopeSet::default(), |all, r| all.union(&r.scopes)))
    }

    /// The access-token lifetime of the realm's resources that set none of their own.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn default_token_ttl(&self, p: &Principal, realm_name: &str) -> Result<i64> {
        p.require(Permission::ViewResources)?;
        Ok(self.find_realm(realm_name).await?.token_ttl_secs)
    }

    /// Makes `slug` the realm's default resource, or with `None` requires every token request
    /// to name its resource again.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm or resource).
    pub async fn set_default_resource(
        &self,
        p: &Principal,
        realm_name: &str,
        slug: Option<&str>,
        meta: &RequestMeta,
    ) -> Result<Option<Resource>> {
        p.require(Permission::ManageResources)?;
        let realm = self.find_realm(realm_name).await?;
        let resource = match slug {
            Some(slug) => Some(self.load_resource(realm_name, slug).await?),
            None => None,
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::RESOURCE_SET_DEFAULT,
            AuditSubject::Realm(realm.name.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "resource": resource.as_ref().map(|r| r.slug.as_str()),
        });
        self.store
            .set_default_resource(
                &realm.id,
                resource.as_ref().map(|r| &r.id),
                self.now(),
                &event,
            )
            .await?;
        Ok(resource)
    }
}

/// What an audit event records of a resource's settings.
fn settings(r: &Resource) -> serde_json::Value {
    serde_json::json!({
        "display_name": r.display_name,
        "uri": r.uri.as_str(),
        "scopes": r.scopes.to_string(),
        "token_ttl_secs": r.token_ttl_secs,
        "signing_alg": r.signing_alg.map(|a| a.as_str()),
        "enabled": r.enabled,
    })
}

impl Core {
    /// Sets who may get tokens for a resource: which clients may ask its people for consent,
    /// which people may use it, the scopes a request without `scope` gets, and whether
    /// self-registered machine clients get client_credentials tokens without a grant.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `InvalidField`.
    pub async fn set_resource_policy(
        &self,
        p: &Principal,
        realm_name: &str,
        slug: &str,
        input: &super::model::AccessPolicyInput,
        meta: &RequestMeta,
    ) -> Result<Resource> {
        p.require(Permission::ManageResources)?;
        let mut r = self.load_resource(realm_name, slug).await?;
        let policy = super::model::AccessPolicy {
            consent: super::model::ConsentPolicy::parse(&input.consent)
                .map_err(|m| Error::field("consent", m))?,
            people_roles: crate::scope::ScopeSet::parse(&input.people_roles)
                .map_err(|m| Error::field("people_roles", m))?,
            default_scopes: crate::scope::ScopeSet::parse(&input.default_scopes)
                .map_err(|m| Error::field("default_scopes", m))?,
            open_to_self_registered: input.open_to_self_registered,
        };
        let unknown = policy.default_scopes.difference(&r.scopes);
        if !unknown.is_empty() {
            return Err(Error::field(
                "default_scopes",
                format!(
                    "Default scopes must be scopes the resource accepts; it does not accept {unknown}."
                ),
            ));
        }
        let mut event = self.event(
            &r.realm_id,
            &p.email,
            action::RESOURCE_UPDATE,
            AuditSubject::Resource(r.slug.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "consent": {"from": r.policy.consent.as_str(), "to": policy.consent.as_str()},
            "people_roles": {"from": r.policy.people_roles.to_string(), "to": policy.people_roles.to_string()},
            "default_scopes": {"from": r.policy.default_scopes.to_string(), "to": policy.default_scopes.to_string()},
            "open_to_self_registered": {"from": r.policy.open_to_self_registered, "to": policy.open_to_self_registered},
        });
        let now = self.now();
        self.store
            .set_resource_policy(&r.id, &policy, now, &event)
            .await
            .map_err(|e| match e {
                crate::error::StorageError::NotFound => Error::not_found("resource", slug),
                other => other.into(),
            })?;
        r.policy = policy;
        r.updated_at = now;
        Ok(r)
    }
}
