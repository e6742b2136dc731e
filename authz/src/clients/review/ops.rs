//! The security review that lets self-registered clients in: approving (with access for
//! machine clients), rejecting, revoking and restoring, one by one or in bulk, the review
//! queue with its risk signals, and expiring unused clients. Who may decide a client is
//! [`require_decider`]'s rule.
use super::model::{
    INBOX_PAGE, InboxCursor, InboxFilter, InboxItem, InboxPage, InboxQuery, MAX_INBOX_SEARCH_CHARS,
    MAX_REVIEW_ITEMS, ReviewItem, reason,
};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::clients::model::{AccessChoice, Client, GrantType, ReviewDecision, ReviewState};
use crate::core::Core;
use crate::error::{Error, Result, StorageError};
use crate::policy::{Permission, Principal};
use crate::realms::Realm;

impl Core {
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
        .map(|_| ())
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
        decision: crate::clients::model::Decision,
        why: &str,
        access: &[AccessChoice],
        meta: &RequestMeta,
    ) -> Result<crate::clients::model::Decided> {
        let clients: Vec<(&str, &str, crate::clock::UnixTime)> = clients
            .iter()
            .map(|(id, seen)| (realm_name, id.as_str(), *seen))
            .collect();
        self.decide_clients_in_realms(p, &clients, decision, why, access, meta)
            .await
    }

    /// [`Self::decide_clients`] for clients of any realms (the review inbox): each named by its
    /// realm, `client_id` and the version the reviewer saw. The limits hold for the whole
    /// list, and every client must be the caller's to decide before any is decided.
    ///
    /// # Errors
    /// As [`Self::decide_clients`]; `NotFound` (a realm or client the caller named).
    pub async fn decide_clients_in_realms(
        &self,
        p: &Principal,
        clients: &[(&str, &str, crate::clock::UnixTime)],
        decision: crate::clients::model::Decision,
        why: &str,
        access: &[AccessChoice],
        meta: &RequestMeta,
    ) -> Result<crate::clients::model::Decided> {
        use crate::clients::model::{Decided, Decision, MAX_DECIDED_AT_ONCE};
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
            for (realm_name, id, _) in clients {
                let client = self.load_client(realm_name, id).await?;
                require_decider(p, &client, decision == Decision::Restore)?;
            }
        }
        let mut out = Decided::default();
        // Their contacts hear of the rejections once, together, after the loop (also when it
        // stops early: what was rejected stays rejected).
        let mut rejected = Vec::new();
        let mut stopped = None;
        for (realm_name, id, seen) in clients {
            let (realm_name, id, seen) = (*realm_name, *id, Some(*seen));
            let result = match decision {
                Decision::Approve => {
                    self.approve_client_with_access(p, realm_name, id, why, seen, access, meta)
                        .await
                }
                Decision::Reject => self
                    .reject_quietly(p, realm_name, id, why, seen, meta)
                    .await
                    .map(|client| rejected.push((client, realm_name))),
                Decision::Revoke => self.revoke_client(p, realm_name, id, why, seen, meta).await,
                Decision::Restore => {
                    self.restore_client(p, realm_name, id, why, seen, meta)
                        .await
                }
            };
            match result {
                Ok(()) => out.done += 1,
                Err(e @ (Error::InvalidField { .. } | Error::Forbidden)) => {
                    stopped = Some(e);
                    break;
                }
                Err(e) => out.failed.push((id.to_owned(), e)),
            }
        }
        self.tell_clients_rejected(&rejected, why.trim()).await;
        match stopped {
            Some(e) => Err(e),
            None => Ok(out),
        }
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
        let client = self
            .reject_quietly(p, realm_name, client_id, why, seen, meta)
            .await?;
        self.tell_clients_rejected(&[(client, realm_name)], why.trim())
            .await;
        Ok(())
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
        .map(|_| ())
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
        .map(|_| ())
    }

    async fn review_client(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        (from, to, what): (ReviewState, ReviewState, &'static str),
        (why, seen, access): (&str, Option<crate::clock::UnixTime>, &[AccessChoice]),
        meta: &RequestMeta,
    ) -> Result<crate::clients::Client> {
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
        let mut event = self.client_event(&client, &p.email, what, meta).await?;
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
                    reason: why.clone(),
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
        Ok(client)
    }

    /// Rejects a pending client without telling anyone: the caller tells its contacts.
    async fn reject_quietly(
        &self,
        p: &Principal,
        realm_name: &str,
        client_id: &str,
        why: &str,
        seen: Option<crate::clock::UnixTime>,
        meta: &RequestMeta,
    ) -> Result<crate::clients::Client> {
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
                crate::clients::model::SYSTEM_REVIEWER,
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
                by: crate::clients::model::SYSTEM_REVIEWER.to_owned(),
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
        let mut signals = SignalCache::default();
        for client in clients {
            out.push(self.review_item(&realm, client, &mut signals).await?);
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

    /// How many clients wait for review in every realm together (`0` for roles that do not
    /// review): the navigation's badge.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn pending_review_count(&self, p: &Principal) -> Result<u64> {
        if !p.role.can(Permission::ReviewClients) {
            return Ok(0);
        }
        Ok(self
            .store
            .count_review_states(None)
            .await?
            .into_iter()
            .find(|(s, _)| s == ReviewState::Pending.as_str())
            .map_or(0, |(_, n)| n))
    }

    /// The storage side of an inbox query: the realm found, the search checked.
    async fn inbox_filter(&self, q: &InboxQuery) -> Result<InboxFilter> {
        let realm_id = match &q.realm {
            Some(name) => Some(self.find_realm(name).await?.id),
            None => None,
        };
        let search = q.search.as_deref().map(str::trim).filter(|s| !s.is_empty());
        if search.is_some_and(|s| s.chars().count() > MAX_INBOX_SEARCH_CHARS) {
            return Err(Error::field(
                "q",
                format!("Search for at most {MAX_INBOX_SEARCH_CHARS} characters."),
            ));
        }
        Ok(InboxFilter {
            state: q.state,
            realm_id,
            kind: q.kind,
            search: search.map(str::to_owned),
            signal: q.signal,
            order: q.order,
        })
    }

    /// One page of the review inbox: self-registered clients in one review state across every
    /// realm (or the one named), each with its realm and risk signals.
    ///
    /// # Errors
    /// `Forbidden`; `NotFound` (a named realm); `Validation` (`search`: too long).
    pub async fn review_inbox(&self, p: &Principal, q: &InboxQuery) -> Result<InboxPage> {
        p.require(Permission::ReviewClients)?;
        // A page of the riskiest-first order starts after a score too (a cursor of another
        // order would start over at the top, silently).
        if q.order == super::model::InboxOrder::Riskiest
            && q.after.as_ref().is_some_and(|c| c.risk.is_none())
        {
            return Err(Error::field(
                "after",
                "That page no longer exists: start from the first page.",
            ));
        }
        let realms = self.store.list_realms().await?;
        let filter = self.inbox_filter(q).await?;
        let limit = INBOX_PAGE + 1;
        let mut clients = self
            .store
            .list_review_inbox(&filter, q.after.as_ref(), limit as i64)
            .await?;
        let next = (clients.len() > INBOX_PAGE).then(|| {
            clients.truncate(INBOX_PAGE);
            clients.last().map(|c| InboxCursor {
                risk: (q.order == super::model::InboxOrder::Riskiest)
                    .then(|| super::model::risk_of(c).1),
                created_at: c.created_at,
                id: c.id.to_string(),
            })
        });
        let mut items = Vec::with_capacity(clients.len());
        let mut signals = SignalCache::default();
        for client in clients {
            // A client's realm exists (clients go with their realm).
            let Some(realm) = realms.iter().find(|r| r.id == client.realm_id) else {
                continue;
            };
            items.push(InboxItem {
                realm: realm.name.to_string(),
                realm_display: realm.display_name.clone(),
                item: self.review_item(realm, client, &mut signals).await?,
            });
        }
        Ok(InboxPage {
            items,
            next: next.flatten(),
        })
    }

    /// How many self-registered clients matching the query's filters are in each review state
    /// (in [`ReviewState::ALL`]'s order; the query's state, order and cursor aside): the inbox's
    /// tabs, which follow the search and filters.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (a named realm), `Validation` (`search`: too long).
    pub async fn review_inbox_counts(
        &self,
        p: &Principal,
        q: &InboxQuery,
    ) -> Result<Vec<(ReviewState, u64)>> {
        p.require(Permission::ReviewClients)?;
        let counts = self
            .store
            .count_review_inbox(&self.inbox_filter(q).await?)
            .await?;
        Ok(ReviewState::ALL
            .into_iter()
            .map(|state| {
                let n = counts
                    .iter()
                    .find(|(s, _)| s == state.as_str())
                    .map_or(0, |(_, n)| *n);
                (state, n)
            })
            .collect())
    }

    async fn review_item(
        &self,
        realm: &Realm,
        client: Client,
        signals: &mut SignalCache,
    ) -> Result<ReviewItem> {
        use crate::clients::metadata::RedirectKind;
        let mut redirect_hosts: Vec<String> = Vec::new();
        let (mut loopback, mut private_use, mut web, mut any) = (true, false, false, false);
        for uri in &client.metadata.redirect_uris {
            any = true;
            let parsed = url::Url::parse(uri).ok();
            let kind = parsed.as_ref().and_then(RedirectKind::of);
            loopback &= kind == Some(RedirectKind::Loopback);
            private_use |= kind == Some(RedirectKind::PrivateUse);
            web |= kind == Some(RedirectKind::Https);
            let host = match (&parsed, kind) {
                (Some(u), Some(RedirectKind::PrivateUse)) => format!("{}:", u.scheme()),
                (Some(u), _) => u.host_str().unwrap_or_default().to_owned(),
                (None, _) => uri.clone(),
            };
            if !redirect_hosts.contains(&host) {
                redirect_hosts.push(host);
            }
        }
        // A page of registrations from one tool shares addresses and names: each is looked
        // up once per page (a search over every client of the realm is the costly part).
        let same_source = match &client.registration.source_ip {
            Some(ip) => {
                let key = (realm.id.to_string(), ip.clone());
                match signals.sources.get(&key) {
                    Some(n) => *n,
                    None => {
                        let n = self.store.count_clients_from(&realm.id, ip).await?;
                        signals.sources.insert(key, n);
                        n
                    }
                }
            }
            None => 0,
        };
        let words: String = client.name.chars().take(40).collect();
        let key = (realm.id.to_string(), words.trim().to_owned());
        if !signals.names.contains_key(&key) {
            let found = self
                .store
                .list_clients(&realm.id, Some(words.trim()), crate::paging::Page::first(6))
                .await?
                .items
                .into_iter()
                .map(|c| (c.id, format!("{} ({})", c.name, c.client_id)))
                .collect();
            signals.names.insert(key.clone(), found);
        }
        let similar_names = signals.names[&key]
            .iter()
            .filter(|(id, _)| *id != client.id)
            .map(|(_, shown)| shown.clone())
            .take(5)
            .collect();
        Ok(ReviewItem {
            redirect_hosts,
            loopback_only: any && loopback,
            private_use,
            web_redirects: web,
            same_source,
            similar_names,
            client,
        })
    }
}

/// Risk signals already looked up while building one page of the queue, by realm: clients
/// from an address, and the first clients matching a name's first words.
#[derive(Default)]
struct SignalCache {
    sources: std::collections::HashMap<(String, String), u64>,
    names: std::collections::HashMap<(String, String), Vec<(crate::clients::ClientRowId, String)>>,
}
