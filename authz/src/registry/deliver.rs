//! Delivery: a release rendered for a ring or unit into one agent harness's managed
//! configuration, with what the harness cannot express (the Deliver screen and
//! `portcullis registry render`).
use super::model::{Delivery, DeliveryRequest, GroupKind};
use super::releases::release_policy;
use crate::core::Core;
use crate::error::{Error, Result};
use crate::policy::{Permission, Principal};
use portcullis_manifest::Policy;
use portcullis_manifest::render::render;

impl Core {
    /// Renders a release for a ring or unit (a unit gets what the units above it get) into one
    /// harness's files.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, release, ring or unit), storage failure.
    pub async fn deliver_registry(
        &self,
        p: &Principal,
        realm_name: &str,
        request: &DeliveryRequest,
    ) -> Result<Delivery> {
        p.require(Permission::ViewRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let stored = match request.release {
            Some(n) => self.store.release_by_sequence(&realm.id, n).await?,
            None => self.store.latest_release(&realm.id).await?,
        }
        .ok_or_else(|| {
            Error::not_found(
                "release",
                request
                    .release
                    .map_or_else(|| "latest".to_owned(), |n| n.to_string()),
            )
        })?;
        let (policy, _) = Policy::check(&release_policy(&stored)?);
        let policy = policy.ok_or_else(|| {
            Error::Internal(format!("release {} fails its checks", stored.sequence))
        })?;
        let (kind, id) = (&request.group.0, request.group.1.as_str());
        let known = match kind {
            GroupKind::Ring => policy.rings.iter().any(|r| r == id),
            GroupKind::Unit => policy.units.iter().any(|u| u.id == id),
        };
        if !known {
            return Err(Error::not_found(
                if *kind == GroupKind::Ring {
                    "ring"
                } else {
                    "unit"
                },
                id.chars().take(63).collect::<String>(),
            ));
        }
        let (rings, units) = match kind {
            GroupKind::Ring => (vec![id.to_owned()], vec![]),
            GroupKind::Unit => (vec![], vec![id.to_owned()]),
        };
        let servers = policy.servers_for(&rings, &units);
        // `portcullis-cli` names the realm's own CLI as the helper: its full command line.
        let mut options = request.options.clone();
        if options.token_helper.as_deref().map(str::trim) == Some("portcullis-cli") {
            let base = self.config().public_url.trim_end_matches('/').to_owned();
            options.token_helper = Some(
                portcullis_manifest::render::portcullis_cli_helper(&base, realm.name.as_str())
                    .ok_or_else(|| {
                        Error::field(
                            "token_helper",
                            "This server's URL or the realm's name would need quoting in a shell: give the command line instead.",
                        )
                    })?,
            );
        }
        let rendered = render(&request.target, &policy, &servers, &options);
        Ok(Delivery {
            sequence: stored.sequence,
            release_id: stored.id,
            servers: servers.len(),
            rendered,
        })
    }
}
