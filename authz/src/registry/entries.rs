//! One registry server as its page shows it (what it is in the draft, what the latest release
//! has, which releases changed it), and the one-entity rule: a remote server Portcullis
//! authorizes *is* the protected resource for its URL.
use super::model::{LinkedResource, RegistryServer, ResourceStanding, ServerEvent, ServerRelease};
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
const SERVER_HISTORY_RELEASES: u32 = 20;

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
        let server = in_draft(&registry.draft, id)?;
        let (_, findings) = portcullis_manifest::Server::check(&server);
        let (heads, _) = self
            .store
            .list_releases(&realm.id, None, SERVER_HISTORY_RELEASES)
            .await?;
        let mut history = Vec::new();
        for head in &heads {
            let d = self.release_diff(&realm, head.sequence, &head.id).await?;
            let event = if d.added.iter().any(|a| a == id) {
                Some((ServerEvent::Added, Vec::new()))
            } else if d.removed.iter().any(|r| r == id) {
                Some((ServerEvent::Removed, Vec::new()))
            } else {
                d.changed
                    .iter()
                    .find(|c| c.id == id)
                    .map(|c| (ServerEvent::Changed, c.fields.clone()))
            };
            if let Some((event, fields)) = event {
                history.push(ServerRelease {
                    sequence: head.sequence,
                    published_at: head.published_at,
                    event,
                    fields,
                });
            }
        }
        let published = match heads.first() {
            Some(latest) => self
                .store
                .release_by_sequence(&realm.id, latest.sequence)
                .await?
                .map(|r| release_policy(&r))
                .transpose()?
                .and_then(|p| find(&p, id)),
            None => None,
        };
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
        let server = in_draft(&registry.draft, id)?;
        let url = remote_portcullis_url(&server).ok_or_else(|| {
            Error::invalid(
                "Only a remote server whose auth mode is portcullis is a protected resource here.",
            )
        })?;
        if let Some(existing) = self.resource_at(&realm, &url).await? {
            let what = match existing.standing {
                ResourceStanding::Enabled => "has this URL already",
                ResourceStanding::Disabled => "has this URL and is disabled: enable it",
                ResourceStanding::Submitted(_) => {
                    "is a developer's submission waiting for review with this URL: enable or reject it"
                }
                ResourceStanding::Rejected => {
                    "is a rejected submission with this URL: delete it first"
                }
            };
            return Err(Error::Conflict(
                format!("Resource {} {what}.", existing.slug).into(),
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

    /// The realm's resource at `url`, if any, and where it stands.
    async fn resource_at(&self, realm: &Realm, url: &str) -> Result<Option<LinkedResource>> {
        let Ok(parsed) = ResourceUri::parse(url, self.config().allow_http_loopback) else {
            return Ok(None);
        };
        Ok(self
            .store
            .find_resource_by_uri(&realm.id, &parsed)
            .await?
            .map(|r| LinkedResource {
                standing: match (&r.submitted_by, &r.rejection) {
                    (Some(by), None) => ResourceStanding::Submitted(by.clone()),
                    (Some(_), Some(_)) => ResourceStanding::Rejected,
                    (None, _) if r.enabled => ResourceStanding::Enabled,
                    (None, _) => ResourceStanding::Disabled,
                },
                slug: r.slug,
            }))
    }
}

/// An id as an error quotes it: at most 63 characters.
fn shown_id(id: &str) -> String {
    id.chars().take(63).collect()
}

/// The canonical URL of a remote server whose auth mode is `portcullis`.
fn remote_portcullis_url(server: &ServerInput) -> Option<String> {
    // Most servers are not: skip their checks.
    if server.url.is_none()
        || server
            .auth
            .as_ref()
            .is_none_or(|a| a.mode.trim() != "portcullis")
    {
        return None;
    }
    let (checked, _) = portcullis_manifest::Server::check(server);
    let checked = checked?;
    match (checked.transport, checked.auth) {
        (Transport::Remote { url, .. }, Auth::Portcullis { .. }) => Some(url),
        _ => None,
    }
}

/// The draft's server `id`, or `NotFound`.
fn in_draft(draft: &PolicyInput, id: &str) -> Result<ServerInput> {
    find(draft, id).ok_or_else(|| Error::not_found("registry server", shown_id(id)))
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
