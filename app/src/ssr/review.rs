//! The security-review queue as the console shows it.
use super::moment;
use crate::types::review::ReviewItemView;

/// View of a client in the review inbox, with its realm.
pub fn inbox_item_view(i: &authz::clients::InboxItem, now: i64) -> ReviewItemView {
    let mut view = review_item_view(&i.item, now);
    view.realm.clone_from(&i.realm);
    view.realm_display.clone_from(&i.realm_display);
    view
}

/// View of a client in the review queue (its realm left empty).
pub fn review_item_view(i: &authz::clients::ReviewItem, now: i64) -> ReviewItemView {
    let c = &i.client;
    let r = &c.registration;
    let software = match (&c.metadata.software_id, &c.metadata.software_version) {
        (Some(id), Some(v)) => Some(format!("{id} {v}")),
        (Some(id), None) => Some(id.clone()),
        (None, Some(v)) => Some(format!("version {v}")),
        (None, None) => None,
    };
    ReviewItemView {
        realm: String::new(),
        realm_display: String::new(),
        client_id: c.client_id.to_string(),
        audit_target: authz::audit::AuditSubject::Client(c.client_id.to_string()).target(),
        name: c.name.clone(),
        kind: r.kind.as_str().to_owned(),
        state: r.review.as_str().to_owned(),
        auth_method: c.auth_method.as_str().to_owned(),
        grant_types: c
            .grant_types
            .iter()
            .map(|g| g.as_str().to_owned())
            .collect(),
        scope: c.scope.to_string(),
        redirect_uris: c.metadata.redirect_uris.clone(),
        redirect_hosts: i.redirect_hosts.clone(),
        loopback_only: i.loopback_only,
        private_use: i.private_use,
        web_redirects: i.web_redirects,
        software,
        client_uri: c.metadata.client_uri.clone(),
        contacts: c.metadata.contacts.clone(),
        source_ip: r.source_ip.clone(),
        same_source: i.same_source,
        similar_names: i.similar_names.clone(),
        created: moment(now, c.created_at),
        version: c.updated_at,
        decision: match (&r.reviewed_by, &r.review_reason, r.reviewed_at) {
            (Some(by), Some(why), Some(at)) => Some((by.clone(), why.clone(), moment(now, at))),
            _ => None,
        },
        last_token: r.last_token_at.map(|t| moment(now, t)),
    }
}
