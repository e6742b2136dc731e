//! Realms as the console shows them.
use crate::types::realms::RealmView;
use authz::Core;

/// A realm as the console shows it.
pub fn realm_view(core: &Core, r: &authz::realms::Realm) -> RealmView {
    RealmView {
        id: r.id.to_string(),
        name: r.name.to_string(),
        display_name: r.display_name.clone(),
        enabled: r.enabled,
        issuer: core.issuer(&r.name),
        token_ttl_secs: r.token_ttl_secs,
        refresh_idle_days: authz::realms::as_days(r.refresh_idle_ttl_secs),
        refresh_max_days: authz::realms::as_days(r.refresh_max_ttl_secs),
        unused_client_days: authz::realms::as_days(r.unused_client_ttl_secs),
        client_secret_days: authz::realms::as_days(r.client_secret_ttl_secs),
        registration_policy: r.registration_policy.as_str().to_owned(),
        max_dynamic_clients: r.max_dynamic_clients,
        metadata_document_policy: r.metadata_document_policy.as_str().to_owned(),
        metadata_document_domains: r.metadata_document_domains.join(" "),
        registrations_per_source: r.registrations_per_source,
        trusted_networks: r
            .trusted_networks
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" "),
        registrations_per_trusted_network: r.registrations_per_trusted_network,
        metadata_document_machine_domains: r.metadata_document_machine_domains.join(" "),
        created_at: authz::clock::rfc3339(r.created_at),
    }
}
