//! Console sign-in providers as the console shows them.
use super::moment;
use crate::types::sso::{SsoDiscoveryView, SsoProviderView};
use authz::Core;
use authz::sso::{Discovery, SsoProvider};

/// View of a sign-in provider.
pub fn sso_provider_view(core: &Core, p: &SsoProvider) -> SsoProviderView {
    SsoProviderView {
        id: p.id.to_string(),
        display_name: p.display_name.clone(),
        button_text: p.button_text.clone(),
        issuer: p.issuer.clone(),
        client_id: p.client_id.clone(),
        has_secret: p.sealed_client_secret.is_some(),
        scopes: p.scopes.join(" "),
        groups_claim: p.groups_claim.clone(),
        trust_email: p.trust_email,
        second_factor_amr: p.second_factor_amr.join(" "),
        second_factor_acr: p.second_factor_acr.join(" "),
        admin_groups: p.rules.admin.clone(),
        reviewer_groups: p.rules.security_reviewer.clone(),
        developer_groups: p.rules.developer.clone(),
        redirect_uri: core.sso_redirect_uri(&p.id),
        post_logout_uri: core.sso_post_logout_uri(),
        enabled: p.enabled,
        updated: moment(core.now(), p.updated_at),
    }
}

/// View of a discovery result.
pub fn discovery_view(d: Discovery) -> SsoDiscoveryView {
    SsoDiscoveryView {
        issuer: d.issuer,
        authorization_endpoint: d.authorization_endpoint,
        token_endpoint: d.token_endpoint.unwrap_or_default(),
        userinfo_endpoint: d.userinfo_endpoint.unwrap_or_default(),
        end_session_endpoint: d.end_session_endpoint.unwrap_or_default(),
        keys: d.keys,
        algorithms: d.algorithms,
        scopes: d.scopes,
        claims: d.claims,
    }
}

/// View of a realm's sign-in provider for its people.
pub fn realm_provider_view(
    core: &Core,
    realm: &authz::realms::Realm,
    l: &authz::broker::RealmProviderListing,
) -> crate::types::sso::RealmProviderView {
    let p = &l.provider;
    crate::types::sso::RealmProviderView {
        id: p.id.to_string(),
        display_name: p.display_name.clone(),
        button_text: p.button_text.clone(),
        issuer: p.issuer.clone(),
        client_id: p.client_id.clone(),
        has_secret: p.sealed_client_secret.is_some(),
        scopes: p.scopes.join(" "),
        groups_claim: p.groups_claim.clone(),
        trust_email: p.trust_email,
        group_mapping: authz::sso::group_mapping_text(&p.group_mapping),
        people: l.people,
        missing: l.missing.clone(),
        redirect_uri: core.upstream_redirect_uri(realm, &p.id),
        enabled: p.enabled,
        updated: moment(core.now(), p.updated_at),
    }
}
