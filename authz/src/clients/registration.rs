//! Dynamic Client Registration (RFC 7591) and its management protocol (RFC 7592), under the
//! realm's policy, and the security review that lets self-registered clients in.
//!
//! Registration is unauthenticated, so everything is bounded: the body (the server's limit),
//! attempts per source address ([`crate::throttle::MAX_REGISTRATIONS_PER_SOURCE`] per window,
//! and [`crate::throttle::MAX_REGISTRATIONS_PER_SITE`] per IPv6 /48),
//! and self-registered clients per realm. The registration access token is shown once and
//! stored as SHA-256; it is compared in constant time.
use super::dcr::{
    MAX_INITIAL_TOKEN_TTL_SECS, MAX_REVIEW_ITEMS, RegistrationResponse, ReviewItem, reason,
};
use super::metadata::{ClientMetadata, ValidClient};
use super::model::{
    AccessChoice, Client, ClientId, ClientRowId, GrantType, Registration, RegistrationKind,
    ReviewDecision, ReviewState, SECRET_RENEWAL_OVERLAP_SECS,
};
use crate::audit::{AuditSubject, RequestMeta, action};
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
    ) -> (PlainToken, super::model::ClientSecret) {
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
            &super::ops::audit_settings(&before),
            &super::ops::audit_settings(&after),
        );
        event.details["back_to_review"] = back_to_review.into();
        event.details["secret_renewed"] = renew.into();
        let renewed = renew.then(|| self.registered_secret(&realm, &after.id, now));
        self.store
            .update_self_registration(
                &after,
                back_to_review,
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
        let row = super::model::InitialToken {
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

    /// Approves a pending client (it may get tokens and sign people in from now on).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (or no longer pending), `InvalidField` (reason).
    pub async fn approve_client(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        why: &str,
        seen: Option<crate::clock::UnixTime>,
        meta: &RequestMeta,
    ) -> Result<()> {
        self.approve_client_with_access(p, realm_name, client_id, why, seen, &[], meta)
            .await
    }

    /// Approves a pending machine client and, in the same write, grants it client_credentials
    /// access to the resources and scopes the reviewer picked (people's consent is the grant
    /// for interactive clients, so only clients registered for client_credentials get these).
    ///
    /// # Errors
    /// As [`Self::approve_client`], and `InvalidField` on `access` (not a machine client, an
    /// unknown resource, a scope the resource does not accept, a resource twice).
    #[allow(clippy::too_many_arguments)]
    pub async fn approve_client_with_access(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        why: &str,
        seen: Option<crate::clock::UnixTime>,
        access: &[AccessChoice],
        meta: &RequestMeta,
    ) -> Result<()> {
        self.review_client(
            p,
            realm_name,
            client_id,
            (
                ReviewState::Pending,
                ReviewState::Approved,
                action::CLIENT_APPROVE,
            ),
            (why, seen, access),
            meta,
        )
        .await
    }

    /// Approves, rejects or revokes many clients with one reason, each only in the version the
    /// reviewer saw (`(client_id, seen)`); access may be granted while approving one client.
    /// A client that cannot be decided (changed, decided by someone else) is reported, not an
    /// error; a bad reason or bad access is (it is the same for every client).
    ///
    /// # Errors
    /// `Forbidden`, `Invalid` (none or too many clients, access for many or not approving),
    /// `InvalidField` (`reason`, `access`).
    #[allow(clippy::too_many_arguments)]
    pub async fn decide_clients(
        &self,
        p: &Principal,
        realm_name: &str,
        clients: &[(String, crate::clock::UnixTime)],
        decision: super::model::Decision,
        why: &str,
        access: &[AccessChoice],
        meta: &RequestMeta,
    ) -> Result<super::model::Decided> {
        use super::model::{Decided, Decision, MAX_DECIDED_AT_ONCE};
        p.require(Permission::ReviewClients)?;
        if clients.is_empty() || clients.len() > MAX_DECIDED_AT_ONCE {
            return Err(Error::Invalid(
                format!("Pick between 1 and {MAX_DECIDED_AT_ONCE} clients.").into(),
            ));
        }
        if !access.is_empty() && (clients.len() != 1 || decision != Decision::Approve) {
            return Err(Error::Invalid(
                "Access is granted while approving one client at a time.".into(),
            ));
        }
        // Every client must be the caller's to decide before any is decided: a refusal halfway
        // would leave part of the list decided and report nothing.
        if !p.role.can(Permission::ManageClients) {
            for (id, _) in clients {
                let client = self.load_client(realm_name, id).await?;
                require_decider(p, &client, decision == Decision::Restore)?;
            }
        }
        let mut out = Decided::default();
        for (id, seen) in clients {
            let seen = Some(*seen);
            let result = match decision {
                Decision::Approve => {
                    self.approve_client_with_access(p, realm_name, id, why, seen, access, meta)
                        .await
                }
                Decision::Reject => self.reject_client(p, realm_name, id, why, seen, meta).await,
                Decision::Revoke => self.revoke_client(p, realm_name, id, why, seen, meta).await,
                Decision::Restore => {
                    self.restore_client(p, realm_name, id, why, seen, meta)
                        .await
                }
            };
            match result {
                Ok(()) => out.done += 1,
                Err(e @ (Error::InvalidField { .. } | Error::Forbidden)) => return Err(e),
                Err(e) => out.failed.push((id.clone(), e)),
            }
        }
        Ok(out)
    }

    /// Rejects a pending client.
    ///
    /// # Errors
    /// As [`Self::approve_client`].
    pub async fn reject_client(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        why: &str,
        seen: Option<crate::clock::UnixTime>,
        meta: &RequestMeta,
    ) -> Result<()> {
        self.review_client(
            p,
            realm_name,
            client_id,
            (
                ReviewState::Pending,
                ReviewState::Rejected,
                action::CLIENT_REJECT,
            ),
            (why, seen, &[]),
            meta,
        )
        .await
    }

    /// Revokes an active client: at once it gets no new tokens, its refresh tokens and
    /// unredeemed codes die, and its access tokens introspect inactive — for good: a restore
    /// does not bring them back. A reviewer revokes self-registered clients; clients an
    /// administrator made, and resource credentials, take an administrator.
    ///
    /// # Errors
    /// As [`Self::approve_client`] (the client must be approved).
    pub async fn revoke_client(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        why: &str,
        seen: Option<crate::clock::UnixTime>,
        meta: &RequestMeta,
    ) -> Result<()> {
        self.review_client(
            p,
            realm_name,
            client_id,
            (
                ReviewState::Approved,
                ReviewState::Revoked,
                action::CLIENT_REVOKE,
            ),
            (why, seen, &[]),
            meta,
        )
        .await
    }

    /// Lets a revoked client work again (administrators only): it may get tokens and sign
    /// people in from now on; the tokens it held when revoked stay dead, and people agree
    /// again where they had only its old refresh tokens.
    ///
    /// # Errors
    /// As [`Self::approve_client`] (the client must be revoked; `Forbidden` for reviewers).
    pub async fn restore_client(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        why: &str,
        seen: Option<crate::clock::UnixTime>,
        meta: &RequestMeta,
    ) -> Result<()> {
        self.review_client(
            p,
            realm_name,
            client_id,
            (
                ReviewState::Revoked,
                ReviewState::Approved,
                action::CLIENT_RESTORE,
            ),
            (why, seen, &[]),
            meta,
        )
        .await
    }

    async fn review_client(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        (from, to, what): (ReviewState, ReviewState, &'static str),
        (why, seen, access): (&str, Option<crate::clock::UnixTime>, &[AccessChoice]),
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ReviewClients)?;
        let why = reason(why)?;
        let client = self.load_client(realm_name, client_id).await?;
        require_decider(p, &client, what == action::CLIENT_RESTORE)?;
        let grants = self.chosen_access(p, realm_name, &client, access).await?;
        if client.registration.review != from {
            return Err(Error::Conflict(
                format!(
                    "This client is {}, not {}; reload to see the latest decision.",
                    client.registration.review.as_str(),
                    from.as_str()
                )
                .into(),
            ));
        }
        let mut event = self.event(
            &client.realm_id,
            &p.email,
            what,
            AuditSubject::Client(client.client_id.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "reason": why,
            "from": from.as_str(),
            "to": to.as_str(),
            "access": grants.iter().map(|(slug, _, scopes)| serde_json::json!({"resource": slug, "scopes": scopes.to_string()})).collect::<Vec<_>>(),
        });
        self.store
            .set_client_review(
                &client.id,
                &ReviewDecision {
                    from,
                    to,
                    by: p.email.clone(),
                    reason: why,
                    at: self.now(),
                    seen,
                    grants: grants
                        .into_iter()
                        .map(|(_, id, scopes)| (id, scopes))
                        .collect(),
                },
                &event,
            )
            .await
            .map_err(|e| match e {
                StorageError::NotFound => Error::Conflict(
                    "The client changed or another reviewer decided first; reload and look again."
                        .into(),
                ),
                other => other.into(),
            })?;
        metrics::counter!("portcullis_review_decisions_total", "decision" => what).increment(1);
        Ok(())
    }
}

/// Decisions belong to whoever owns the client: a reviewer decides on clients that registered
/// themselves; what an administrator made (clients, resource credentials) and bringing a
/// revoked client back (`restoring`) are an administrator's.
fn require_decider(p: &Principal, client: &Client, restoring: bool) -> Result<()> {
    if !client.is_self_registered() || restoring {
        p.require(Permission::ManageClients)?;
    }
    Ok(())
}

/// Most resources one approval grants.
const MAX_APPROVAL_GRANTS: usize = 50;

/// Most clients one housekeeping pass expires (the rest wait for the next pass).
const EXPIRE_BATCH: i64 = 500;

impl Core {
    /// The grants a reviewer picked for `client`, checked: (slug, resource id, scopes).
    ///
    /// Granting takes an administrator's right to manage clients, not only the reviewer's: a
    /// reviewer alone could otherwise register a client and let it into any resource.
    /// Within the scopes the client registered for, when it named any (what the queue showed).
    async fn chosen_access(
        &self,
        p: &Principal,
        realm_name: &str,
        client: &Client,
        access: &[AccessChoice],
    ) -> Result<Vec<(String, crate::ids::ResourceId, crate::scope::ScopeSet)>> {
        if access.is_empty() {
            return Ok(vec![]);
        }
        let field = |m: String| Error::field("access", m);
        if !p.role.can(Permission::ManageClients) {
            return Err(field(
                "Granting access takes an administrator: approve without it, and an administrator grants it on the client's page.".into(),
            ));
        }
        if !client.grant_types.contains(&GrantType::ClientCredentials) {
            return Err(field(
                "Only machine clients (client credentials) get access from a reviewer; people consent for the others.".into(),
            ));
        }
        if access.len() > MAX_APPROVAL_GRANTS {
            return Err(field(format!(
                "Grant at most {MAX_APPROVAL_GRANTS} resources at once."
            )));
        }
        let mut out: Vec<(String, crate::ids::ResourceId, crate::scope::ScopeSet)> = vec![];
        for choice in access {
            let resource = self
                .load_resource(realm_name, choice.resource.trim())
                .await
                .map_err(|e| match e {
                    Error::NotFound { .. } => {
                        field(format!("There is no resource {}.", choice.resource.trim()))
                    }
                    e => e,
                })?;
            if out.iter().any(|(_, id, _)| *id == resource.id) {
                return Err(field(format!("{} is picked twice.", resource.display_name)));
            }
            let scopes =
                crate::access::grant_scopes(choice.scopes.as_deref(), &resource).map_err(field)?;
            let unasked: Vec<&str> = scopes
                .iter()
                .filter(|s| !client.scope.is_empty() && !client.scope.contains(s))
                .collect();
            if !unasked.is_empty() {
                return Err(field(format!(
                    "The client registered for {}, not {}.",
                    client.scope,
                    unasked.join(", ")
                )));
            }
            out.push((resource.slug.to_string(), resource.id, scopes));
        }
        Ok(out)
    }

    /// Expires the dynamically registered clients that went unused (no token, no change)
    /// for their realm's unused-client lifetime: they get no tokens and sign nobody in, and
    /// their refresh tokens are revoked; a client that still exists registers again. Each
    /// expiry is audited (actor `system`). Returns how many expired.
    ///
    /// # Errors
    /// On storage failure.
    pub(crate) async fn expire_unused_clients(&self) -> Result<u64> {
        // Uses noted in memory since the last flush count.
        self.flush_token_use().await?;
        let now = self.now();
        let mut expired = 0;
        for client in self.store.list_unused_clients(now, EXPIRE_BATCH).await? {
            let from = client.registration.review;
            let why = "Unused: no token and no change for the realm's unused-client lifetime.";
            let mut event = self.event(
                &client.realm_id,
                super::model::SYSTEM_REVIEWER,
                action::CLIENT_EXPIRE,
                AuditSubject::Client(client.client_id.to_string()),
                &RequestMeta::default(),
            );
            event.details = serde_json::json!({
                "reason": why,
                "from": from.as_str(),
                "to": ReviewState::Expired.as_str(),
                "last_token_at": client.registration.last_token_at,
            });
            let decision = ReviewDecision {
                from,
                to: ReviewState::Expired,
                by: super::model::SYSTEM_REVIEWER.to_owned(),
                reason: why.to_owned(),
                at: now,
                // Only if it did not change since it was found unused.
                seen: Some(client.updated_at),
                grants: vec![],
            };
            match self
                .store
                .set_client_review(&client.id, &decision, &event)
                .await
            {
                Ok(()) => expired += 1,
                // Decided or changed meanwhile: no longer unused.
                Err(StorageError::NotFound) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(expired)
    }

    /// The clients of a realm in a review state (the queue: `pending`), with their risk
    /// signals.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn review_queue(
        &self,
        p: &Principal,
        realm_name: &str,
        state: ReviewState,
    ) -> Result<Vec<ReviewItem>> {
        p.require(Permission::ReviewClients)?;
        let realm = self.find_realm(realm_name).await?;
        let clients = self
            .store
            .list_clients_in_review(&realm.id, state, MAX_REVIEW_ITEMS)
            .await?;
        let mut out = Vec::with_capacity(clients.len());
        for client in clients {
            out.push(self.review_item(&realm, client).await?);
        }
        Ok(out)
    }

    /// How many clients of a realm are in each review state, in [`ReviewState::ALL`]'s order.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn review_counts(
        &self,
        p: &Principal,
        realm_name: &str,
    ) -> Result<Vec<(ReviewState, u64)>> {
        p.require(Permission::ReviewClients)?;
        let realm = self.find_realm(realm_name).await?;
        let mut out = Vec::with_capacity(ReviewState::ALL.len());
        for state in ReviewState::ALL {
            out.push((
                state,
                self.store.count_clients_in_review(&realm.id, state).await?,
            ));
        }
        Ok(out)
    }

    /// How many clients of a realm wait for review (`0` for roles that do not review).
    ///
    /// # Errors
    /// `NotFound` (realm), on storage failure.
    pub async fn pending_review_count(&self, p: &Principal, realm_name: &str) -> Result<u64> {
        if !p.role.can(Permission::ReviewClients) {
            return Ok(0);
        }
        let realm = self.find_realm(realm_name).await?;
        Ok(self
            .store
            .count_clients_in_review(&realm.id, ReviewState::Pending)
            .await?)
    }

    async fn review_item(&self, realm: &Realm, client: Client) -> Result<ReviewItem> {
        use super::metadata::RedirectKind;
        let mut redirect_hosts: Vec<String> = Vec::new();
        let (mut loopback, mut private_use, mut any) = (true, false, false);
        for uri in &client.metadata.redirect_uris {
            any = true;
            let parsed = url::Url::parse(uri).ok();
            let kind = parsed.as_ref().and_then(RedirectKind::of);
            loopback &= kind == Some(RedirectKind::Loopback);
            private_use |= kind == Some(RedirectKind::PrivateUse);
            let host = match (&parsed, kind) {
                (Some(u), Some(RedirectKind::PrivateUse)) => format!("{}:", u.scheme()),
                (Some(u), _) => u.host_str().unwrap_or_default().to_owned(),
                (None, _) => uri.clone(),
            };
            if !redirect_hosts.contains(&host) {
                redirect_hosts.push(host);
            }
        }
        let same_source = match &client.registration.source_ip {
            Some(ip) => self.store.count_clients_from(&realm.id, ip).await?,
            None => 0,
        };
        let words: String = client.name.chars().take(40).collect();
        let similar_names = self
            .store
            .list_clients(
                &realm.id,
                Some(words.trim()),
                crate::storage::Page {
                    offset: 0,
                    limit: 6,
                },
            )
            .await?
            .items
            .into_iter()
            .filter(|c| c.id != client.id)
            .map(|c| format!("{} ({})", c.name, c.client_id))
            .take(5)
            .collect();
        Ok(ReviewItem {
            redirect_hosts,
            loopback_only: any && loopback,
            private_use,
            same_source,
            similar_names,
            client,
        })
    }
}
