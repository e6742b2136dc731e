//! Building the Overview.
use super::model::{
    Endpoint, MAX_REJECTIONS, REJECTIONS_WINDOW_SECS, RealmOverview, RejectedKind, Rejection,
};
use crate::agents::AgentFilter;
use crate::core::Core;
use crate::error::Result;
use crate::paging::Page;
use crate::policy::{Permission, Principal};

impl Core {
    /// The realm's endpoints and counts; each count only when `p` may see that list.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn realm_overview(&self, p: &Principal, realm_name: &str) -> Result<RealmOverview> {
        p.require(Permission::ViewRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let issuer = self.issuer(&realm.name);
        let name = realm.name.as_str();
        let base = issuer
            .strip_suffix(&format!("/realms/{name}"))
            .unwrap_or(&issuer)
            .to_owned();
        let endpoints = vec![
            Endpoint {
                label: "Issuer",
                url: issuer.clone(),
            },
            Endpoint {
                label: "Authorization server metadata (RFC 8414)",
                url: format!("{base}/.well-known/oauth-authorization-server/realms/{name}"),
            },
            Endpoint {
                label: "OpenID Connect discovery",
                url: format!("{issuer}/.well-known/openid-configuration"),
            },
            Endpoint {
                label: "JWKS",
                url: format!("{issuer}/jwks"),
            },
            Endpoint {
                label: "Authorization",
                url: format!("{issuer}/authorize"),
            },
            Endpoint {
                label: "Token",
                url: format!("{issuer}/token"),
            },
            Endpoint {
                label: "Registration (RFC 7591)",
                url: format!("{issuer}/connect/register"),
            },
            Endpoint {
                label: "Introspection",
                url: format!("{issuer}/introspect"),
            },
            Endpoint {
                label: "Revocation",
                url: format!("{issuer}/revoke"),
            },
        ];
        let can = |perm| p.role.can(perm);
        let one = Page::first(1);
        let now = self.now();
        let all_resources = self.store.list_resources(&realm.id).await?;
        let resources = can(Permission::ViewResources).then(|| {
            // Live ones: a developer's submission is not registered until an admin enables it.
            all_resources
                .iter()
                .filter(|r| r.submitted_by.is_none())
                .count() as u64
        });
        let clients = if can(Permission::ViewClients) {
            Some(
                self.store
                    .list_clients(&realm.id, None, one.clone())
                    .await?
                    .total,
            )
        } else {
            None
        };
        let (agents, mcp_agents) = if can(Permission::ViewAgents) {
            let all = self
                .store
                .list_agents(&realm.id, AgentFilter::default(), now, one.clone())
                .await?
                .total;
            let mcp = AgentFilter {
                mcp_only: true,
                ..Default::default()
            };
            let mcp = self
                .store
                .list_agents(&realm.id, mcp, now, one.clone())
                .await?
                .total;
            (Some(all), Some(mcp))
        } else {
            (None, None)
        };
        let (grants, grants_used) = if can(Permission::ViewClients) {
            let (all, used) = self.store.grant_counts(&realm.id).await?;
            (Some(all), Some(used))
        } else {
            (None, None)
        };
        let rejections = self.rejections_of(p, &realm.id, &all_resources).await?;
        let manages = can(Permission::ManageResources);
        let submissions_waiting = all_resources
            .iter()
            .filter(|r| r.rejection.is_none())
            .filter(|r| {
                r.submitted_by
                    .as_deref()
                    .is_some_and(|by| manages || by.eq_ignore_ascii_case(&p.email))
            })
            .count() as u64;
        Ok(RealmOverview {
            endpoints,
            resources,
            clients,
            agents,
            mcp_agents,
            grants,
            grants_used,
            submissions_waiting,
            rejections,
        })
    }

    /// What of `p`'s was rejected in the realm: resources they submitted (among `resources`, the
    /// realm's) and self-registered clients naming their email among `contacts`; newest first.
    async fn rejections_of(
        &self,
        p: &Principal,
        realm_id: &crate::realms::RealmId,
        resources: &[crate::resources::Resource],
    ) -> Result<Vec<Rejection>> {
        let email = p.email.trim().to_lowercase();
        if !email.contains('@') {
            // The command line's principal has no mailbox and submits nothing.
            return Ok(Vec::new());
        }
        let mine = |who: &str| who.trim().eq_ignore_ascii_case(&email);
        let mut out: Vec<Rejection> = resources
            .iter()
            .filter(|r| r.submitted_by.as_deref().is_some_and(mine))
            .filter_map(|r| {
                Some(Rejection {
                    kind: RejectedKind::Resource,
                    id: r.slug.to_string(),
                    name: r.display_name.clone(),
                    reason: r.rejection.clone()?,
                    by: None,
                    at: r.updated_at,
                    registered: r.created_at,
                })
            })
            .collect();
        let limit = i64::try_from(MAX_REJECTIONS * 5).unwrap_or(i64::MAX);
        let since = self.now().saturating_sub(REJECTIONS_WINDOW_SECS);
        let clients = self
            .store
            .list_rejected_clients_mentioning(realm_id, &email, since, limit)
            .await?;
        // Anyone may register a client naming anyone as a contact: whoever may not see clients
        // gets neither the registrant's words (its name, a metadata document's URL) nor who
        // reviewed it; only the reason and a `client_id` this server generated.
        let sees_clients = p.role.can(Permission::ViewClients);
        out.extend(
            clients
                .into_iter()
                .filter(|c| c.metadata.contacts.iter().any(|m| mine(m)))
                .map(|c| {
                    let document =
                        c.registration.kind == crate::clients::RegistrationKind::MetadataDocument;
                    Rejection {
                        kind: RejectedKind::Client,
                        reason: c.registration.review_reason.clone().unwrap_or_default(),
                        by: c.registration.reviewed_by.clone().filter(|_| sees_clients),
                        at: c.registration.reviewed_at.unwrap_or(c.updated_at),
                        registered: c.created_at,
                        id: if sees_clients || !document {
                            c.client_id.to_string()
                        } else {
                            String::new()
                        },
                        name: if sees_clients { c.name } else { String::new() },
                    }
                }),
        );
        out.retain(|r| r.at >= since);
        out.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.id.cmp(&b.id)));
        out.truncate(MAX_REJECTIONS);
        Ok(out)
    }
}
