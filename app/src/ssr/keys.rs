//! Signing keys as the console shows them.
use super::moment;
use crate::types::keys::KeyView;

/// View of a signing key.
pub fn key_view(k: &authz::keys::KeyInfo, now: i64) -> KeyView {
    let t = |v: Option<i64>| v.map(authz::clock::rfc3339).unwrap_or_default();
    KeyView {
        kid: k.kid.clone(),
        alg: k.alg.as_str().to_owned(),
        state: k.state.to_owned(),
        published: k.published,
        created: moment(now, k.created_at),
        activated_at: t(k.activated_at),
        retired_at: t(k.retired_at),
        publish_until: k.publish_until.map(|u| moment(now, u)),
    }
}
