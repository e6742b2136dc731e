//! Access-grant operations: grant, change, revoke, and the lists on a client's and a resource's
//! pages.
use super::model::{Grant, GrantedClient, GrantedResource, ResourceAccess, grant_scopes};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result, StorageError};
use crate::paging::{Page, Paged};
use crate::policy::{Permission, Principal};

impl Core {
    /// Grants a client access to a resource with `scopes` (`None`: every scope the resource
    /// accepts), or changes the scopes of its grant. Takes effect at once on the token path and
    /// for introspection of its live tokens.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, client or resource), `InvalidField` (`scopes`; `client`
    /// for a resource server's introspection credentials, which get no tokens).
    pub async fn grant_access(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        resource_slug: &str,
        scopes: Option<&str>,
        meta: &RequestMeta,
    ) -> Result<GrantedResource> {
        self.put_access(p, realm_name, client_id, resource_slug, scopes, false, meta)
            .await
    }

    /// Grants a client access it does not have yet: refused (`Taken` on `client`, naming the
    /// scopes it has) when it has a grant already, whose scopes are then changed on purpose
    /// with [`Core::grant_access`], never replaced by a second "grant".
    ///
    /// # Errors
    /// As [`Core::grant_access`], and `Taken`.
    pub async fn add_access(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        resource_slug: &str,
        scopes: Option<&str>,
        meta: &RequestMeta,
    ) -> Result<GrantedResource> {
        self.put_access(p, realm_name, client_id, resource_slug, scopes, true, meta)
            .await
    }

    #[allow(clippy::too_many_arguments)]
    async fn put_access(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        resource_slug: &str,
        scopes: Option<&str>,
        only_new: bool,
        meta: &RequestMeta,
    ) -> Result<GrantedResource> {
        p.require(Permission::ManageClients)?;
        let client = self.load_client(realm_name, client_id).await?;
        let resource = self.load_resource(realm_name, resource_slug).await?;
        if client.resource_server_for.is_some() {
            return Err(Error::field(
                "client",
                "These are a resource server's introspection credentials; they get no tokens.",
            ));
        }
        let scopes = grant_scopes(scopes, &resource).map_err(|m| Error::field("scopes", m))?;
        let previous = self
            .store
            .list_client_grants(&client.id)
            .await?
            .into_iter()
            .find(|g| g.resource == resource.id);
        if let (true, Some(g)) = (only_new, &previous) {
            return Err(Error::Taken {
                field: "client",
                message: format!(
                    "{} already has access to {} with {}. Change its scopes in its row instead.",
                    client.client_id, resource.display_name, g.scopes
                )
                .into(),
            });
        }
        let now = self.now();
        let grant = Grant {
            client: client.id.clone(),
            resource: resource.id.clone(),
            scopes,
            created_at: previous.as_ref().map_or(now, |g| g.created_at),
            updated_at: now,
            last_used_at: previous.as_ref().and_then(|g| g.last_used_at),
        };
        let verb = match &previous {
            Some(_) => action::ACCESS_UPDATE,
            None => action::ACCESS_GRANT,
        };
        let mut event = self.event(
            &client.realm_id,
            &p.email,
            verb,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.related = Some(AuditSubject::Resource(resource.slug.to_string()).target());
        event.details = serde_json::json!({
            "resource": resource.slug,
            "scopes": grant.scopes.to_string(),
            "previous_scopes": previous.map(|g| g.scopes.to_string()),
        });
        self.store
            .put_grant(&grant, &event)
            .await
            .map_err(|e| match e {
                StorageError::NotFound => {
                    Error::not_found("client", client.client_id.as_str().to_owned())
                }
                e => e.into(),
            })?;
        Ok(GrantedResource { grant, resource })
    }

    /// Ends a client's access to a resource: no new tokens for it, and its live tokens for it
    /// introspect inactive.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, client, resource, or no such grant).
    pub async fn revoke_access(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        resource_slug: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageClients)?;
        let client = self.load_client(realm_name, client_id).await?;
        let resource = self.load_resource(realm_name, resource_slug).await?;
        let mut event = self.event(
            &client.realm_id,
            &p.email,
            action::ACCESS_REVOKE,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"resource": resource.slug});
        event.related = Some(AuditSubject::Resource(resource.slug.to_string()).target());
        self.store
            .delete_grant(&client.id, &resource.id, &event)
            .await
            .map_err(|e| match e {
                StorageError::NotFound => {
                    Error::not_found("grant", format!("{} → {}", client.client_id, resource.slug))
                }
                e => e.into(),
            })
    }

    /// Every resource of the client's realm, by slug, each with the client's grant if it has
    /// one.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm or client).
    pub async fn client_access(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
    ) -> Result<Vec<ResourceAccess>> {
        p.require(Permission::ViewClients)?;
        let client = self.load_client(realm_name, client_id).await?;
        let grants = self.store.list_client_grants(&client.id).await?;
        Ok(self
            .store
            .list_resources(&client.realm_id)
            .await?
            .into_iter()
            .map(|resource| {
                let grant = grants.iter().find(|g| g.resource == resource.id).cloned();
                ResourceAccess { resource, grant }
            })
            .collect())
    }

    /// The clients that may get tokens for a resource, by `client_id`, filtered by `query`
    /// (a substring of the `client_id` or name).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm or resource).
    pub async fn resource_access(
        &self,
        p: &Principal,
        realm_name: &str,
        resource_slug: &str,
        query: &str,
        page: Page,
    ) -> Result<Paged<GrantedClient>> {
        p.require(Permission::ViewClients)?;
        let resource = self.load_resource(realm_name, resource_slug).await?;
        let q = query.trim();
        let mut found = self
            .store
            .list_resource_grants(&resource.id, (!q.is_empty()).then_some(q), page)
            .await?;
        // Shown as tokens get them: what the resource no longer accepts is set apart.
        for g in &mut found.items {
            g.lapsed = g.grant.scopes.difference(&resource.scopes);
            g.grant.scopes = g.grant.scopes.intersection(&resource.scopes);
        }
        Ok(found)
    }

    /// Writes when each grant was last used, as noted in memory since the last call, and returns
    /// how many grants it wrote. What cannot be written is kept for the next call.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn flush_token_use(&self) -> Result<usize> {
        let uses = self.token_use.take();
        if uses.is_empty() {
            return Ok(0);
        }
        match self.store.record_grant_use(&uses).await {
            Ok(()) => Ok(uses.len()),
            Err(e) => {
                self.token_use.restore(uses);
                Err(e.into())
            }
        }
    }
}
