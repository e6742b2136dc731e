//! Protected resources as the console shows them.
use super::moment;
use crate::types::resources::{CredentialsClientView, ResourceCredentialsView, ResourceView};

/// View of a resource.
pub fn resource_view(r: &authz::resources::Resource) -> ResourceView {
    ResourceView {
        slug: r.slug.clone(),
        display_name: r.display_name.clone(),
        uri: r.uri.to_string(),
        scopes: r.scopes.to_string(),
        token_ttl_secs: r.token_ttl_secs,
        signing_alg: r
            .signing_alg
            .map(|a| a.as_str().to_owned())
            .unwrap_or_default(),
        enabled: r.enabled,
        consent: r.policy.consent.as_str().to_owned(),
        people_roles: r.policy.people_roles.to_string(),
        default_scopes: r.policy.default_scopes.to_string(),
        open_to_self_registered: r.policy.open_to_self_registered,
        submitted_by: r.submitted_by.clone(),
        rejection: r.rejection.clone(),
    }
}

/// View of a resource's introspection credentials.
pub fn credentials_view(
    c: &authz::clients::ResourceServerCredentials,
    now: i64,
) -> ResourceCredentialsView {
    ResourceCredentialsView {
        introspection_endpoint: c.introspection_endpoint.clone(),
        client: c.client.as_ref().map(|d| CredentialsClientView {
            client_id: d.client.client_id.to_string(),
            enabled: d.client.enabled,
            review: d.client.registration.review.as_str().to_owned(),
            created: moment(now, d.client.created_at),
            live_secrets: d.secrets.iter().filter(|s| s.live).count(),
            newest_secret: d
                .secrets
                .iter()
                .map(|s| s.created_at)
                .max()
                .map(|t| moment(now, t)),
        }),
    }
}
