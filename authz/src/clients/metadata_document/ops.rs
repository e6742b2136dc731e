//! Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a `client_id`
//! that is an https URL with a path names a JSON document the client publishes there. It is
//! fetched with the SSRF-safe fetcher (https only, public addresses only, checked at connect
//! time, no redirects, 5 s, small bodies), cached within bounds honouring `Cache-Control`, and
//! must name itself (`client_id` equal to the URL). The realm decides whom to trust: any https
//! host, listed domains only, or every new one after review.
use super::model::{check_metadata_document, host_listed};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::clients::model::{
    Client, ClientId, ClientRowId, Registration, RegistrationKind, ReviewState,
};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::fetch::{FetchError, Lookup, parse_fetch_url};
use crate::realms::{MetadataDocumentPolicy, Realm};

/// Whether the realm trusts the host of a metadata-document `client_id` for machine access
/// (`client_credentials`).
pub(crate) fn trusted_for_machine_access(realm: &Realm, client_id: &str) -> bool {
    url::Url::parse(client_id).is_ok_and(|u| {
        host_listed(
            u.host_str().unwrap_or_default(),
            &realm.metadata_document_machine_domains,
        )
    })
}

fn refused(msg: impl Into<std::borrow::Cow<'static, str>>) -> Error {
    Error::oauth(OAuthErrorCode::InvalidClient, msg)
}

impl Core {
    /// The client a metadata-document `client_id` names, fetched (or from the cache) and kept
    /// in step with its document: registered on first sight (pending review when the realm
    /// reviews new clients), updated when the document changes.
    ///
    /// # Errors
    /// `OAuth(invalid_client)` with a message for the error page, when the realm does not
    /// accept documents or trust the host, or the document cannot be fetched or is invalid.
    pub(crate) async fn metadata_document_client(
        &self,
        realm: &Realm,
        client_id: &str,
        meta: &RequestMeta,
    ) -> Result<Client> {
        let policy = realm.metadata_document_policy;
        if policy == MetadataDocumentPolicy::Disabled {
            return Err(refused(
                "This realm does not accept applications identified by a URL (Client ID Metadata Documents). Ask an administrator to register the application.",
            ));
        }
        let url = parse_fetch_url(client_id, self.config().allow_loopback_fetch).map_err(|e| {
            refused(format!(
                "The application's client_id URL is not allowed: {e}"
            ))
        })?;
        if policy == MetadataDocumentPolicy::AllowList
            && !host_listed(
                url.host_str().unwrap_or_default(),
                &realm.metadata_document_domains,
            )
        {
            return Err(refused(
                "This realm accepts applications identified by a URL only from listed domains, and this one is not listed.",
            ));
        }
        let id = ClientId::parse(client_id).map_err(refused)?;
        let existing = self.store.find_client(&realm.id, &id).await?;
        if existing.is_none() {
            // A URL never seen is a registration: the same per-source budget and realm limit,
            // checked before anything is fetched.
            self.client_throttle
                .registration(
                    realm,
                    crate::throttle::Source::of(meta.client_ip),
                    self.now(),
                )
                .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
            let held = self.store.count_registered_clients(&realm.id).await?;
            if i64::try_from(held).unwrap_or(i64::MAX) >= realm.max_dynamic_clients {
                return Err(refused(
                    "This realm holds the most self-registered applications it allows; ask an administrator.",
                ));
            }
        }
        // A copy this instance cached that differs from the stored client may be older than
        // what another instance fetched and stored: it is refetched, and a change is written
        // only from a document fetched now (never an older copy written back over a newer one).
        let rules = self.metadata_rules();
        let differs = |doc: &serde_json::Value| match (
            &existing,
            check_metadata_document(client_id, doc, rules),
        ) {
            (Some(e), Ok(v)) => e.name != v.name || e.scope != v.scope || e.metadata != v.metadata,
            _ => false,
        };
        let (doc, fetched_now) = self.metadata_document(client_id, &url, differs).await?;
        let valid =
            check_metadata_document(client_id, &doc, self.metadata_rules()).map_err(refused)?;
        let machine = machine_access(&valid.grant_types);
        if machine && !trusted_for_machine_access(realm, client_id) {
            return Err(refused(format!(
                "A client identified by a URL is an interactive application: its metadata document may ask for authorization_code and refresh_token only. This realm does not trust {} for machine access (client_credentials); ask an administrator to trust the host or to register the client.",
                url.host_str().unwrap_or_default()
            )));
        }
        let now = self.now();
        let Some(existing) = existing else {
            let client = Client {
                id: ClientRowId::generate(),
                realm_id: realm.id.clone(),
                client_id: id,
                name: valid.name,
                auth_method: valid.auth_method,
                grant_types: valid.grant_types,
                scope: valid.scope,
                metadata: valid.metadata,
                agent: None,
                resource_server_for: None,
                enabled: true,
                registration: Registration {
                    kind: RegistrationKind::MetadataDocument,
                    // Machine access waits for a reviewer whatever the policy says.
                    review: if policy == MetadataDocumentPolicy::Review || machine {
                        ReviewState::Pending
                    } else {
                        ReviewState::Approved
                    },
                    source_ip: meta.client_ip.map(|ip| ip.to_string()),
                    reviewed_by: None,
                    review_reason: None,
                    reviewed_at: None,
                    last_token_at: None,
                    token_epoch: 0,
                },
                created_at: now,
                updated_at: now,
            };
            let mut event = self.event(
                &realm.id,
                "metadata document",
                action::CLIENT_REGISTER,
                AuditSubject::Client(client.client_id.to_string()),
                meta,
            );
            event.details = serde_json::json!({
                "client_name": client.name,
                "redirect_uris": client.metadata.redirect_uris,
                "review": client.registration.review.as_str(),
                "host": url.host_str(),
            });
            match self.store.insert_client(&client, None, &event).await {
                Ok(()) => {
                    metrics::counter!("portcullis_registrations_total", "kind" => "metadata_document", "review" => client.registration.review.as_str()).increment(1);
                    return Ok(client);
                }
                // Registered by a concurrent request a moment ago: use that row.
                Err(crate::error::StorageError::Conflict(_)) => {
                    return self
                        .store
                        .find_client(&realm.id, &client.client_id)
                        .await?
                        .ok_or_else(|| refused("The application could not be registered."));
                }
                Err(e) => return Err(e.into()),
            }
        };
        if existing.registration.kind != RegistrationKind::MetadataDocument {
            return Ok(existing);
        }
        // Expired unused: the URL registers anew, under today's policy.
        let existing = if existing.registration.review == ReviewState::Expired {
            self.renew_expired_document_client(realm, existing, &url, meta)
                .await?
        } else {
            existing
        };
        let changed = existing.name != valid.name
            || existing.scope != valid.scope
            || existing.metadata != valid.metadata;
        // A revoked or rejected client keeps what was decided: a document changed meanwhile is
        // not what an administrator would restore.
        let decided = matches!(
            existing.registration.review,
            ReviewState::Revoked | ReviewState::Rejected
        );
        if !changed || decided || !fetched_now {
            return Ok(existing);
        }
        let updated = Client {
            name: valid.name,
            scope: valid.scope,
            metadata: valid.metadata,
            updated_at: now,
            ..existing.clone()
        };
        let mut event = self.event(
            &realm.id,
            "metadata document",
            action::CLIENT_REGISTRATION_UPDATE,
            AuditSubject::Client(updated.client_id.to_string()),
            meta,
        );
        event.details = crate::audit::changes(
            &crate::clients::ops::audit_settings(&existing),
            &crate::clients::ops::audit_settings(&updated),
        );
        // Decided in the write (only an approved client goes back), not on what was read. A
        // machine client was reviewed whatever the policy, so any change is reviewed again.
        let change = crate::clients::RegistrationChange {
            changed: true,
            back_to_review: policy == MetadataDocumentPolicy::Review
                || machine_access(&existing.grant_types),
        };
        self.store
            .update_self_registration(&updated, change, None, &event)
            .await?;
        self.store
            .find_client(&realm.id, &updated.client_id)
            .await?
            .ok_or_else(|| refused("The application is no longer registered."))
    }

    /// Brings back an expired metadata-document client that is used again: pending under the
    /// `review` policy, else approved; audited as a registration.
    async fn renew_expired_document_client(
        &self,
        realm: &crate::realms::Realm,
        existing: Client,
        url: &url::Url,
        meta: &RequestMeta,
    ) -> Result<Client> {
        let machine = existing.grant_types.iter().any(|g| {
            !matches!(
                g,
                crate::clients::model::GrantType::AuthorizationCode
                    | crate::clients::model::GrantType::RefreshToken
            )
        });
        let to = if realm.metadata_document_policy == MetadataDocumentPolicy::Review || machine {
            ReviewState::Pending
        } else {
            ReviewState::Approved
        };
        let mut event = self.event(
            &realm.id,
            "metadata document",
            action::CLIENT_REGISTER,
            AuditSubject::Client(existing.client_id.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "renewed": true,
            "review": to.as_str(),
            "host": url.host_str(),
        });
        let now = self.now();
        let decision = crate::clients::model::ReviewDecision {
            from: ReviewState::Expired,
            to,
            by: crate::clients::model::SYSTEM_REVIEWER.to_owned(),
            reason: "Its metadata document was used again after it expired unused.".to_owned(),
            at: now,
            seen: Some(existing.updated_at),
            grants: vec![],
        };
        match self
            .store
            .set_client_review(&existing.id, &decision, &event)
            .await
        {
            // Renewed by a concurrent request: read what it wrote.
            Ok(()) | Err(crate::error::StorageError::NotFound) => self
                .store
                .find_client(&realm.id, &existing.client_id)
                .await?
                .ok_or_else(|| refused("The application could not be registered.")),
            Err(e) => Err(e.into()),
        }
    }

    /// The document at `url`: from the cache while fresh (its `Cache-Control`, within bounds),
    /// else fetched; a failed fetch falls back to a recent copy. One fetch per URL a minute at
    /// most, whoever asks.
    /// The client's metadata document, and whether it was fetched by this call (not taken from
    /// this instance's cache); `refetch` says whether a cached copy must be fetched again.
    async fn metadata_document(
        &self,
        client_id: &str,
        url: &url::Url,
        refetch: impl Fn(&serde_json::Value) -> bool,
    ) -> Result<(serde_json::Value, bool)> {
        let key = format!("cimd:{client_id}");
        let now = self.now();
        let stale = match self.documents.lookup(&key, now, refetch) {
            Lookup::Fresh(doc) | Lookup::Wait(Some(doc)) => return Ok((doc, false)),
            Lookup::Wait(None) => {
                return Err(refused(
                    "The application's metadata document could not be fetched just now. Try again in a minute.",
                ));
            }
            Lookup::Refetch(stale) => stale,
        };
        let fetched = self.fetcher.fetch_json(url).await;
        self.documents.record(&key, now, fetched.as_ref());
        match (fetched, stale) {
            (Ok(f), _) => Ok((f.body, true)),
            (Err(_), Some(doc)) => Ok((doc, false)),
            // Why is logged, not shown: the page must not tell a caller which hosts answer or
            // which names resolve to private addresses (one message for every failure).
            (Err(e), None) => {
                let shown: String = client_id.chars().take(200).collect();
                let kind = match e {
                    FetchError::Refused(_) => "refused",
                    FetchError::Failed(_) => "failed",
                };
                tracing::info!(url = %shown, error = %e, kind, "Metadata document not fetched");
                Err(refused(
                    "The application's metadata document could not be fetched from its client_id URL.",
                ))
            }
        }
    }
}

/// Whether a client asks for machine access (any grant but authorization_code and
/// refresh_token): reviewed whatever the realm's policy.
fn machine_access(grants: &[crate::clients::model::GrantType]) -> bool {
    use crate::clients::model::GrantType;
    grants
        .iter()
        .any(|g| !matches!(g, GrantType::AuthorizationCode | GrantType::RefreshToken))
}
