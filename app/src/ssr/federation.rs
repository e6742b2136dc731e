//! Trusted identity providers as the console shows them.
use super::moment;
use crate::types::federation::TrustedIssuerView;
use authz::federation::{IssuerKeys, TrustedIssuer};

/// View of a trusted identity provider.
pub fn trusted_issuer_view(t: &TrustedIssuer, now: i64) -> TrustedIssuerView {
    let (jwks_uri, jwks, inline_keys) = match &t.keys {
        IssuerKeys::Uri(u) => (u.clone(), String::new(), 0),
        IssuerKeys::Inline(doc) => (
            String::new(),
            serde_json::to_string_pretty(doc).unwrap_or_default(),
            doc["keys"].as_array().map_or(0, Vec::len),
        ),
    };
    TrustedIssuerView {
        id: t.id.to_string(),
        issuer: t.issuer.clone(),
        display_name: t.display_name.clone(),
        jwks_uri,
        jwks,
        inline_keys,
        algorithms: t
            .algorithms
            .iter()
            .map(|a| a.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        clients: t.clients.iter().map(|c| c.as_str().to_owned()).collect(),
        create_people: t.create_people,
        link_by_email: t.link_by_email,
        enabled: t.enabled,
        updated: moment(now, t.updated_at),
    }
}
