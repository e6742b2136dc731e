//! Trusting authorization servers as the console shows them.
use super::moment;
use crate::types::chaining::TrustingServerView;
use authz::chaining::{TrustingServer, client_links_text};

/// View of a trusting server.
pub fn trusting_server_view(t: &TrustingServer, now: i64) -> TrustingServerView {
    TrustingServerView {
        id: t.id.to_string(),
        issuer: t.issuer.clone(),
        display_name: t.display_name.clone(),
        resources: t.resources.clone(),
        scopes: t.scopes.to_string(),
        clients: client_links_text(&t.clients),
        enabled: t.enabled,
        updated: moment(now, t.updated_at),
    }
}
