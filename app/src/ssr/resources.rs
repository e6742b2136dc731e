//! Protected resources as the console shows them.
use crate::types::resources::ResourceView;

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
