//! One registry server as its page shows it (what it is in the draft, what the latest release
//! has, which releases changed it), and the one-entity rule: a remote server Portcullis
//! authorizes *is* the protected resource for its URL.
use super::model::{RegistryServer, ServerEvent, ServerRelease};
use super::releases::release_policy;
use crate::audit::RequestMeta;
use crate::core::Core;
use crate::error::{Error, Result};
use crate::policy::{Permission, Principal};
use crate::realms::Realm;
use crate::resources::{Resource, ResourceInput, ResourceUri};
use portcullis_manifest::diff::{FieldChange, diff};
use portcullis_manifest::policy::PolicyInput;
use portcullis_manifest::server::{Auth, ServerInput, Transport};

/// How many releases a server's page reads back for its history.
const SERVER_HISTORY_RELEASES: i64 = 20;

impl Core {
    /// One server of the draft: its checks, its fields against the latest release, the
    /// releases that changed it, and (for a remote server Portcullis authorizes) the resource
    /// it is.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, server), storage failure.
    pub async fn registry_server(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
    ) -> Result<RegistryServer> {
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let registry = self.registry_of(&realm).await?;
        let server = registry
            .draft
            .servers
            .iter()
            .find(|s| s.id == id)
            .cloned()
            .ok_or_else(|| Error::not_found("registry server", id))?;
        let (_, findings) = portcullis_manifest::Server::check(&server);
        let latest = self.store.latest_release(&realm.id).await?;
        let mut history = Vec::new();
        let mut published = None;
        if let Some(latest) = latest {
            let newest = latest.sequence;
            let oldest = (newest - SERVER_HISTORY_RELEASES).max(1);
            let mut after = find(&release_policy(&latest)?, id);
            published = after.clone();
            let mut at = (newest, latest.published_at);
            for sequence in (oldest..newest).rev() {
                let Some(stored) = self.store.release_by_sequence(&realm.id, sequence).await?
                else {
                    break;
                };
                let before = find(&release_policy(&stored)?, id);
                if let Some(event) = change(before.as_ref(), after.as_ref()) {
                    history.push(ServerRelease {
                        sequence: at.0,
                        published_at: at.1,
                        event: event.0,
                        fields: event.1,
                    });
                }
                at = (sequence, stored.published_at);
                after = before;
            }
            // The oldest release read: what it did, when it is the first of all.
            if at.0 == 1
                && let Some(event) = change(None, after.as_ref())
            {
                history.push(ServerRelease {
                    sequence: 1,
                    published_at: at.1,
                    event: event.0,
                    fields: event.1,
                });
            }
        }
        let changes = published
            .as_ref()
            .map(|before| fields(before, &server))
            .unwrap_or_default();
        let resource = match remote_portcullis_url(&server) {
            Some(url) => Some(self.resource_at(&realm, &url).await?),
            None => None,
        };
        Ok(RegistryServer {
            is_published: published.is_some(),
            warnings: findings.warnings,
            registry,
            server,
            changes,
            history,
            resource,
        })
    }

    /// Creates the protected resource a remote server Portcullis authorizes is: its URL is
    /// the audience, its id the slug, its title the name, its scopes (or `mcp`) the scopes.
    ///
    /// # Errors
    /// `Forbidden` (needs both registry and resource rights), `NotFound` (realm, server),
    /// `Invalid` (not a remote server whose auth mode is `portcullis`), `Conflict` (a
    /// resource has the URL already), the resource's own field errors, storage failure.
    pub async fn create_registry_resource(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        meta: &RequestMeta,
    ) -> Result<Resource> {
        p.require(Permission::ManageRegistry)?;
        p.require(Permission::ManageResources)?;
        let realm = self.find_realm(realm_name).await?;
        let registry = self.registry_of(&realm).await?;
        let server = registry
            .draft
            .servers
            .iter()
            .find(|s| s.id == id)
            .ok_or_else(|| Error::not_found("registry server", id))?;
        let url = remote_portcullis_url(server).ok_or_else(|| {
            Error::invalid(
                "Only a remote server whose auth mode is portcullis is a protected resource here.",
            )
        })?;
        if let Some(existing) = self.resource_at(&realm, &url).await? {
            return Err(Error::Conflict(
                format!("Resource {existing} has this URL already.").into(),
            ));
        }
        let scopes = server
            .auth
            .as_ref()
            .map(|a| a.scopes.join(" "))
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| "mcp".to_owned());
        let title = server.title.trim();
        let input = ResourceInput {
            slug: server.id.clone(),
            display_name: if title.is_empty() {
                server.id.clone()
            } else {
                title.to_owned()
            },
            uri: url,
            scopes,
            token_ttl_secs: String::new(),
            signing_alg: String::new(),
            enabled: true,
        };
        self.create_resource(p, realm.name.as_str(), &input, meta)
            .await
    }

    /// The draft's servers that are the resource at `uri` (remote, auth mode `portcullis`):
    /// what a resource's page links to.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), storage failure.
    pub async fn registry_entries_for(
        &self,
        p: &Principal,
        realm_name: &str,
        uri: &str,
    ) -> Result<Vec<String>> {
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let registry = self.registry_of(&realm).await?;
        let loopback = self.config().allow_http_loopback;
        let Ok(wanted) = ResourceUri::parse(uri, loopback) else {
            return Ok(Vec::new());
        };
        Ok(registry
            .draft
            .servers
            .iter()
            .filter(|s| {
                remote_portcullis_url(s)
                    .and_then(|u| ResourceUri::parse(&u, loopback).ok())
                    .is_some_and(|u| u == wanted)
            })
            .map(|s| s.id.clone())
            .collect())
    }

    /// The slug of the realm's resource at `url`, if any.
    async fn resource_at(&self, realm: &Realm, url: &str) -> Result<Option<String>> {
        let Ok(parsed) = ResourceUri::parse(url, self.config().allow_http_loopback) else {
            return Ok(None);
        };
        Ok(self
            .store
            .find_resource_by_uri(&realm.id, &parsed)
            .await?
            .map(|r| r.slug))
    }
}

/// The canonical URL of a remote server whose auth mode is `portcullis`.
fn remote_portcullis_url(server: &ServerInput) -> Option<String> {
    let (checked, _) = portcullis_manifest::Server::check(server);
    let checked = checked?;
    match (checked.transport, checked.auth) {
        (Transport::Remote { url, .. }, Auth::Portcullis { .. }) => Some(url),
        _ => None,
    }
}

/// The server `id` of `policy`.
fn find(policy: &PolicyInput, id: &str) -> Option<ServerInput> {
    policy.servers.iter().find(|s| s.id == id).cloned()
}

/// A server's fields from `before` to `after`.
fn fields(before: &ServerInput, after: &ServerInput) -> Vec<FieldChange> {
    let one = |s: &ServerInput| PolicyInput {
        servers: vec![s.clone()],
        ..PolicyInput::default()
    };
    diff(Some(&one(before)), &one(after))
        .changed
        .into_iter()
        .flat_map(|c| c.fields)
        .collect()
}

/// What a release did to a server, from what the release before had.
fn change(
    before: Option<&ServerInput>,
    after: Option<&ServerInput>,
) -> Option<(ServerEvent, Vec<FieldChange>)> {
    match (before, after) {
        (None, None) => None,
        (None, Some(_)) => Some((ServerEvent::Added, Vec::new())),
        (Some(_), None) => Some((ServerEvent::Removed, Vec::new())),
        (Some(b), Some(a)) => {
            let f = fields(b, a);
            (!f.is_empty()).then_some((ServerEvent::Changed, f))
        }
    }
}
