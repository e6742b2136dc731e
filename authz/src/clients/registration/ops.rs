//! Dynamic Client Registration (RFC 7591) and its management protocol (RFC 7592), under the
//! realm's policy, and initial access tokens. The security review that lets self-registered
//! clients in is in `review/`.
//!
//! Registration is unauthenticated, so everything is bounded: the body (the server's limit),
//! attempts per source address ([`crate::throttle::MAX_REGISTRATIONS_PER_SOURCE`] per window,
//! and [`crate::throttle::MAX_REGISTRATIONS_PER_SITE`] per IPv6 /48),
//! and self-registered clients per realm. The registration access token is shown once and
//! stored as SHA-256; it is compared in constant time.
use super::model::{MAX_INITIAL_TOKEN_TTL_SECS, RegistrationResponse};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::clients::metadata::{ClientMetadata, ValidClient};
use crate::clients::model::{
    Client, ClientId, ClientRowId, GrantType, Registration, RegistrationKind, ReviewState,
    SECRET_RENEWAL_OVERLAP_SECS,
};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result, StorageError};
use crate::policy::{Permission, Principal};
use crate::realms::{Realm, RegistrationPolicy};
use crate::secret::PlainToken;
use crate::throttle::Source;
fn denied(msg: &'static str) -> Error {
    Error::oauth(OAuthErrorCode::AccessDenied, msg)
}

fn bad_token() -> Error {
    Error::oauth(
        OAuthErrorCode::InvalidToken,
        "The registration access token is invalid.",
    )
}

impl Core {
    /// `POST /connect/register`: registers a client under the realm's policy. Under `review`
    /// it is created pending: it exists (and can read its registration) but gets no tokens and
    /// signs nobody in until a reviewer approves it.
    ///
    /// # Errors
    /// `InvalidField` (`invalid_redirect_uri` / `invalid_client_metadata`), `OAuth`
    /// (`access_denied` when registration is closed or full, `invalid_token` for a missing or
    /// bad initial access token), `Throttled`, `NotFound` (realm).
    pub async fn register_client_dynamically(
        &self,
        realm_name: &str,
        metadata: &ClientMetadata,
        initial_token: Option<&str>,
        meta: &RequestMeta,
    ) -> Result<RegistrationResponse> {
        let realm = self.serving_realm(realm_name).await?;
        let now = self.now();
        if realm.registration_policy == RegistrationPolicy::Disabled {
            return Err(denied(
                "Client registration is closed in this realm; ask an administrator to register the client.",
            ));
        }
        self.client_throttle
            .registration(&realm, Source::of(meta.client_ip), now)
            .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
        // `client_name` is optional in RFC 7591; a client without one is named for what it is.
        let named;
        let metadata = if metadata
            .client_name
            .as_deref()
            .is_none_or(|n| n.trim().is_empty())
        {
            named = ClientMetadata {
                client_name: Some("Unnamed application".into()),
                ..metadata.clone()
            };
            &named
        } else {
            metadata
        };
        let valid = metadata.validate(self.metadata_rules())?;
        valid.refuse_admin_only_grants()?;
        // Before an initial access token is spent: a refusal must not use it up.
        let held = self.store.count_registered_clients(&realm.id).await?;
        if i64::try_from(held).unwrap_or(i64::MAX) >= realm.max_dynamic_clients {
            return Err(denied(
                "This realm holds the most self-registered clients it allows; ask an administrator.",
            ));
        }
        let spent_token = || {
            Error::oauth(
                OAuthErrorCode::InvalidToken,
                "The initial access token is invalid, expired or used up.",
            )
        };
        // Checked here, spent in the write that stores the client (a failed write spends
        // nothing), and named in the registration's audit event.
        let initial = if realm.registration_policy == RegistrationPolicy::InitialAccessToken {
            let Some(t) = initial_token.filter(|t| !t.is_empty() && t.len() <= 256) else {
                return Err(Error::oauth(
                    OAuthErrorCode::InvalidToken,
                    "This realm registers clients only with an initial access token (Authorization: Bearer).",
                ));
            };
            let hash = PlainToken::from_input(t).hashed();
            let found = self
                .store
                .find_initial_token(&realm.id, &hash, now)
                .await?
                .ok_or_else(spent_token)?;
            Some(found)
        } else {
            None
        };
        let ValidClient {
            name,
            auth_method,
            grant_types,
            scope,
            metadata,
        } = valid;
        let review = if realm.registration_policy == RegistrationPolicy::Review {
            ReviewState::Pending
        } else {
            ReviewState::Approved
        };
        let client = Client {
            id: ClientRowId::generate(),
            realm_id: realm.id.clone(),
            client_id: ClientId::generate(),
            name,
            auth_method,
            grant_types,
            scope,
            metadata,
            agent: None,
            resource_server_for: None,
            enabled: true,
            registration: Registration {
                kind: RegistrationKind::Dynamic,
                review,
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
        let issued = auth_method
            .uses_secret()
            .then(|| self.registered_secret(&realm, &client.id, now));
        let token = PlainToken::from_input(&format!("rat_{}", PlainToken::generate().expose()));
        let mut event = self.event(
            &realm.id,
            "registration",
            action::CLIENT_REGISTER,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "client_name": client.name,
            "auth_method": auth_method.as_str(),
            "redirect_uris": client.metadata.redirect_uris,
            "review": review.as_str(),
            "software_id": client.metadata.software_id,
            "initial_access_token": initial.as_ref().map(|t| serde_json::json!({
                "label": t.label,
                "issued_by": t.created_by,
                "uses_left": t.uses - 1,
            })),
        });
        self.store
            .insert_registered_client(
                &client,
                issued.as_ref().map(|(_, s)| s),
                &token.hashed(),
                initial.as_ref().map(|t| (t.token_hash.as_slice(), now)),
                &event,
            )
            .await
            .map_err(|e| match e {
                StorageError::Precondition(crate::storage::INITIAL_TOKEN_SPENT) => spent_token(),
                e => e.into(),
            })?;
        metrics::counter!("portcullis_registrations_total", "kind" => "dynamic", "review" => review.as_str()).increment(1);
        let mut out = self.registration_response(&realm, &client);
        if let Some((plain, secret)) = issued {
            out.client_secret = Some(plain.expose().to_owned());
            out.client_secret_expires_at = Some(secret.expires_at.unwrap_or(0));
        }
        out.registration_access_token = Some(token.expose().to_owned());
        Ok(out)
    }

    /// A secret for a self-registered client, expiring after the realm's secret lifetime
    /// (RFC 7591 `client_secret_expires_at`; none when it is 0).
    fn registered_secret(
        &self,
        realm: &Realm,
        client: &ClientRowId,
        now: crate::clock::UnixTime,
    ) -> (PlainToken, crate::clients::model::ClientSecret) {
        let (plain, mut secret) = self.new_secret(client, now);
        secret.expires_at =
            (realm.client_secret_ttl_secs > 0).then(|| now + realm.client_secret_ttl_secs);
        (plain, secret)
    }

    /// `GET /connect/register/{client_id}` (RFC 7592 §2.1).
    ///
    /// # Errors
    /// `OAuth(invalid_token)` for an unknown client or a wrong token; `NotFound` (realm).
    pub async fn read_registration(
        &self,
        realm_name: &str,
        client_id: &str,
        token: Option<&str>,
    ) -> Result<RegistrationResponse> {
        let (realm, client) = self.registered_client(realm_name, client_id, token).await?;
        Ok(self.registration_response(&realm, &client))
    }

    /// `PUT /connect/register/{client_id}` (RFC 7592 §2.2): replaces the registration. The
    /// authentication method stays; under `review`, a reviewed client that changes its redirect
    /// URIs goes back to the queue. Where the realm's secrets expire, a client whose secret is
    /// past half its lifetime gets a new one in the answer (RFC 7592 §2.2 lets the server issue
    /// one); the old ones keep working for [`SECRET_RENEWAL_OVERLAP_SECS`], for requests
    /// already under way. An update that changes nothing and renews nothing writes nothing.
    /// Updates share the per-source budget of registrations.
    ///
    /// # Errors
    /// As [`Self::read_registration`], and `InvalidField`.
    pub async fn update_registration(
        &self,
        realm_name: &str,
        client_id: &str,
        token: Option<&str>,
        metadata: &ClientMetadata,
        meta: &RequestMeta,
    ) -> Result<RegistrationResponse> {
        let (realm, before) = self.registered_client(realm_name, client_id, token).await?;
        // Updates cost writes, audit rows and (where secrets expire) secrets: the same
        // per-source budget as registrations.
        self.client_throttle
            .registration(&realm, Source::of(meta.client_ip), self.now())
            .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
        // A decided client stays as it was decided: a revoked (or rejected, expired) one cannot
        // rewrite what an administrator would restore.
        if matches!(
            before.registration.review,
            ReviewState::Revoked | ReviewState::Rejected | ReviewState::Expired
        ) {
            return Err(Error::oauth(
                OAuthErrorCode::InvalidClient,
                format!(
                    "This client's registration is {}; it cannot be changed. Register a new client.",
                    before.registration.review.as_str()
                ),
            ));
        }
        let method = before.auth_method.as_str();
        if metadata
            .token_endpoint_auth_method
            .as_deref()
            .is_some_and(|m| m.trim() != method)
        {
            return Err(Error::field(
                "token_endpoint_auth_method",
                format!(
                    "The authentication method stays {method}; register a new client to use another."
                ),
            ));
        }
        let mut sent = metadata.clone();
        sent.token_endpoint_auth_method = Some(method.to_owned());
        let valid = sent.validate(self.metadata_rules())?;
        if valid.grant_types != before.grant_types {
            return Err(Error::field(
                "grant_types",
                "The grant types stay; register a new client to use others.",
            ));
        }
        let now = self.now();
        let after = Client {
            name: valid.name,
            // An omitted scope keeps the registered one (an empty scope would mean "any the
            // resources offer", a widening nobody asked for).
            scope: if metadata.scope.is_none() {
                before.scope.clone()
            } else {
                valid.scope
            },
            metadata: valid.metadata,
            updated_at: now,
            ..before.clone()
        };
        // Whatever a reviewer looked at (name, logo, home page, scope, redirects, keys) changed:
        // under review, an approved client goes back to the queue, in the same write.
        let changed = after.name != before.name
            || after.scope != before.scope
            || after.metadata != before.metadata;
        // Whether the client is approved is decided in the write itself, not on `before`:
        // a reviewer's approval landing between the read and the write is caught.
        let back_to_review = changed && realm.registration_policy == RegistrationPolicy::Review;
        // Where secrets expire, a client renews its secret by updating its registration, at
        // most once in half the secret's lifetime (each renewal leaves the old one an hour).
        let renew = realm.client_secret_ttl_secs > 0
            && after.auth_method.uses_secret()
            && self
                .store
                .list_client_secrets(&after.id)
                .await?
                .first()
                .is_none_or(|s| {
                    s.expires_at
                        .is_none_or(|t| t < now + realm.client_secret_ttl_secs / 2)
                });
        if !changed && !renew {
            return Ok(self.registration_response(&realm, &before));
        }
        let mut event = self.event(
            &realm.id,
            "registration",
            action::CLIENT_REGISTRATION_UPDATE,
            AuditSubject::Client(after.client_id.to_string()),
            meta,
        );
        event.details = crate::audit::changes(
            &crate::clients::ops::audit_settings(&before),
            &crate::clients::ops::audit_settings(&after),
        );
        event.details["back_to_review"] = back_to_review.into();
        event.details["secret_renewed"] = renew.into();
        let renewed = renew.then(|| self.registered_secret(&realm, &after.id, now));
        self.store
            .update_self_registration(
                &after,
                crate::clients::RegistrationChange {
                    changed,
                    back_to_review,
                },
                renewed
                    .as_ref()
                    .map(|(_, s)| (s, now + SECRET_RENEWAL_OVERLAP_SECS)),
                &event,
            )
            .await?;
        let (_, stored) = self.registered_client(realm_name, client_id, token).await?;
        let mut out = self.registration_response(&realm, &stored);
        if let Some((plain, secret)) = renewed {
            out.client_secret = Some(plain.expose().to_owned());
            out.client_secret_expires_at = secret.expires_at;
        }
        Ok(out)
    }

    /// `DELETE /connect/register/{client_id}` (RFC 7592 §2.3): the client and its tokens go.
    ///
    /// # Errors
    /// As [`Self::read_registration`].
    pub async fn delete_registration(
        &self,
        realm_name: &str,
        client_id: &str,
        token: Option<&str>,
        meta: &RequestMeta,
    ) -> Result<()> {
        let (realm, client) = self.registered_client(realm_name, client_id, token).await?;
        let mut event = self.event(
            &realm.id,
            "registration",
            action::CLIENT_DELETE,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"by": "registration access token"});
        Ok(self.store.delete_client(&client.id, &event).await?)
    }

    /// The client a registration access token manages. Unknown clients and wrong tokens get
    /// the same answer.
    async fn registered_client(
        &self,
        realm_name: &str,
        client_id: &str,
        token: Option<&str>,
    ) -> Result<(Realm, Client)> {
        let realm = self.serving_realm(realm_name).await?;
        let token = token
            .filter(|t| !t.is_empty() && t.len() <= 256)
            .ok_or_else(bad_token)?;
        let id = ClientId::parse(client_id).map_err(|_| bad_token())?;
        // Read from the database, not the cache: a reviewer's decision made a moment ago on
        // another instance must be seen.
        let Some(client) = self.store.find_client(&realm.id, &id).await? else {
            // Spend the same hash work as a real check.
            let _ = PlainToken::from_input(token).hashed();
            return Err(bad_token());
        };
        let stored = self.store.registration_token_hash(&client.id).await?;
        let presented = PlainToken::from_input(token).hashed();
        match stored {
            Some(h) if crate::secret::constant_time_eq(&h, &presented) => Ok((realm, client)),
            _ => Err(bad_token()),
        }
    }

    fn registration_response(&self, realm: &Realm, c: &Client) -> RegistrationResponse {
        let issuer = self.issuer(&realm.name);
        let m = &c.metadata;
        RegistrationResponse {
            client_id: c.client_id.to_string(),
            client_secret: None,
            client_id_issued_at: c.created_at,
            client_secret_expires_at: None,
            registration_access_token: None,
            registration_client_uri: format!("{issuer}/connect/register/{}", c.client_id),
            client_name: c.name.clone(),
            token_endpoint_auth_method: c.auth_method.as_str(),
            grant_types: c.grant_types.iter().map(|g| g.as_str()).collect(),
            response_types: if c.grant_types.contains(&GrantType::AuthorizationCode) {
                vec!["code"]
            } else {
                vec![]
            },
            redirect_uris: m.redirect_uris.clone(),
            scope: (!c.scope.is_empty()).then(|| c.scope.to_string()),
            application_type: m.application_type,
            contacts: m.contacts.clone(),
            client_uri: m.client_uri.clone(),
            logo_uri: m.logo_uri.clone(),
            software_id: m.software_id.clone(),
            software_version: m.software_version.clone(),
            jwks_uri: m.jwks_uri.clone(),
            review_status: c.registration.review.as_str(),
            review_note: match c.registration.review {
                ReviewState::Approved => None,
                ReviewState::Pending => Some(format!(
                    "This client waits for a security review: it gets no tokens and signs nobody in until a security reviewer approves it in the Portcullis console ({}/review, realm {}).",
                    self.base_url(),
                    realm.name
                )),
                ReviewState::Rejected => Some("A security reviewer rejected this client: it gets no tokens.".to_owned()),
                ReviewState::Revoked => Some("This client was revoked: it gets no tokens until an administrator restores it.".to_owned()),
                ReviewState::Expired => Some("This client expired unused: register again.".to_owned()),
            },
        }
    }

    /// Issues an initial access token for registration in a realm: `uses` registrations within
    /// `ttl_secs`. Shown once.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField` (label, uses, lifetime).
    pub async fn create_initial_access_token(
        &self,
        p: &Principal,
        realm_name: &str,
        label: &str,
        uses: i64,
        ttl_secs: i64,
        meta: &RequestMeta,
    ) -> Result<PlainToken> {
        p.require(Permission::ManageClients)?;
        let realm = self.find_realm(realm_name).await?;
        let label = crate::realms::parse_display_name(label, "Label")
            .map_err(|m| Error::field("label", m))?;
        if !(1..=10_000).contains(&uses) {
            return Err(Error::field("uses", "Uses must be between 1 and 10000."));
        }
        if !(60..=MAX_INITIAL_TOKEN_TTL_SECS).contains(&ttl_secs) {
            return Err(Error::field(
                "ttl",
                "The lifetime must be between a minute and 30 days.",
            ));
        }
        let token = PlainToken::from_input(&format!("iat_{}", PlainToken::generate().expose()));
        let now = self.now();
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::INITIAL_TOKEN_ISSUE,
            AuditSubject::Realm(realm.name.to_string()),
            meta,
        );
        event.details =
            serde_json::json!({"label": label, "uses": uses, "expires_at": now + ttl_secs});
        let row = crate::clients::model::InitialToken {
            token_hash: token.hashed(),
            realm_id: realm.id.clone(),
            label,
            created_by: p.email.clone(),
            created_at: now,
            expires_at: now + ttl_secs,
            uses,
        };
        self.store.insert_initial_token(&row, &event).await?;
        Ok(token)
    }
}
