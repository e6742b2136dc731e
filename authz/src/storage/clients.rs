//! Client persistence: clients and their secrets.
use crate::audit::NewAuditEvent;
use crate::clients::{
    AgentBinding, Client, ClientId, ClientRowId, ClientSecret, InitialToken, RegistrationChange,
    ReviewDecision,
};
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::paging::{Page, Paged};
use crate::realms::RealmId;
use crate::resources::ResourceId;
use async_trait::async_trait;

/// Client persistence.
#[async_trait]
pub trait ClientStore: Send + Sync {
    /// Inserts a client, its first secret if any, and the audit event; `Conflict` if the
    /// `client_id` is taken in the realm (or the resource has introspection credentials).
    async fn insert_client(
        &self,
        c: &Client,
        secret: Option<&ClientSecret>,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Finds a client by `client_id`.
    async fn find_client(
        &self,
        realm_id: &RealmId,
        client_id: &ClientId,
    ) -> Result<Option<Client>, StorageError>;
    /// The introspection credentials of a resource's MCP server, if it has them (at most one
    /// client per resource).
    async fn find_resource_server_client(
        &self,
        resource_id: &ResourceId,
    ) -> Result<Option<Client>, StorageError>;
    /// Lists clients of a realm whose `client_id` or name contains `query`, by `client_id`.
    async fn list_clients(
        &self,
        realm_id: &RealmId,
        query: Option<&str>,
        page: Page,
    ) -> Result<Paged<Client>, StorageError>;
    /// Writes a client's registration (name, registered scope, RFC 7591 metadata) and changes
    /// nothing else (not its method, status, secrets or agent); `NotFound` if gone.
    async fn update_client_registration(
        &self,
        c: &Client,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Enables or disables a client (and changes nothing else, so a concurrent change of
    /// another field is never undone); `NotFound` if gone.
    async fn set_client_enabled(
        &self,
        id: &ClientRowId,
        enabled: bool,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Binds a client to an agent by a new binding, or unbinds it (`None`), and changes
    /// nothing else; `NotFound` if gone.
    async fn set_client_agent(
        &self,
        id: &ClientRowId,
        binding: Option<&AgentBinding>,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Deletes a client and its secrets; `NotFound` if gone.
    async fn delete_client(
        &self,
        id: &ClientRowId,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// The client's secrets, newest first (expired ones included).
    async fn list_client_secrets(
        &self,
        client: &ClientRowId,
    ) -> Result<Vec<ClientSecret>, StorageError>;
    /// Adds `new` and makes every current secret expire at `old_expires_at`, atomically.
    async fn rotate_client_secret(
        &self,
        new: &ClientSecret,
        old_expires_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Inserts a self-registered client with its first secret and the hash of its registration
    /// access token (RFC 7592), as [`Self::insert_client`]. With `initial_token` (its hash and
    /// now), one use of that initial access token of the client's realm is spent in the same
    /// transaction: `Precondition` (nothing written) when it is unknown, expired or used up.
    async fn insert_registered_client(
        &self,
        c: &Client,
        secret: Option<&ClientSecret>,
        registration_token_hash: &[u8],
        initial_token: Option<(&[u8], UnixTime)>,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// The hash of a client's registration access token, if it has one.
    async fn registration_token_hash(
        &self,
        id: &ClientRowId,
    ) -> Result<Option<Vec<u8>>, StorageError>;
    /// Moves a client's review from `from` to `to` (who, why, when), with the audit event.
    /// Any move but to `approved` also revokes every token family of the client, kills its
    /// unredeemed codes and forgets the consents people gave it; leaving `approved` starts a
    /// new token epoch (its access tokens die for good). The grants the decision carries are
    /// written (or their scopes replaced). `NotFound` when
    /// the client is gone or no longer in `from` (another reviewer decided first).
    async fn set_client_review(
        &self,
        id: &ClientRowId,
        decision: &ReviewDecision,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Writes a self-registered client's new registration (name, scope, metadata) and, when
    /// `back_to_review`, moves an approved client back to pending, in one transaction (no
    /// request can see the new redirect URIs while the client is still approved). When the
    /// registration `changed`, an approved client loses its reviewer (nobody verified what
    /// changed), and what people agreed to it as it was goes: their consents, its unredeemed
    /// codes and its token families (a person is asked again, and an app they can no longer see
    /// under their connected apps holds no refresh token). `NotFound` if gone. With `renew`,
    /// the new secret is added and every current one expires at the time given, in the same
    /// transaction.
    async fn update_self_registration(
        &self,
        c: &Client,
        change: RegistrationChange,
        renew: Option<(&ClientSecret, UnixTime)>,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Self-registered clients of a realm (dynamic and metadata-document), for the limit.
    async fn count_registered_clients(&self, realm_id: &RealmId) -> Result<u64, StorageError>;
    /// Clients of a realm registered from one address.
    async fn count_clients_from(
        &self,
        realm_id: &RealmId,
        source_ip: &str,
    ) -> Result<u64, StorageError>;
    /// Self-registered clients that neither changed nor got a token during their realm's
    /// unused-client lifetime before `now` (realms with a lifetime of 0 keep theirs), at most
    /// `limit`, oldest first: dynamically registered ones pending, approved or rejected;
    /// metadata-document ones pending or rejected (they register anew when used again).
    async fn list_unused_clients(
        &self,
        now: crate::clock::UnixTime,
        limit: i64,
    ) -> Result<Vec<Client>, StorageError>;
    /// Stores an initial access token (hash) with its audit event.
    async fn insert_initial_token(
        &self,
        token: &InitialToken,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Uses an initial access token of the realm once: `false` when it is unknown, expired or
    /// used up.
    /// An initial access token of the realm that may still be used (uses left, unexpired).
    async fn find_initial_token(
        &self,
        realm_id: &RealmId,
        token_hash: &[u8],
        now: UnixTime,
    ) -> Result<Option<InitialToken>, StorageError>;
}

/// An initial access token as stored.
#[derive(sqlx::FromRow)]
pub(crate) struct InitialTokenRow {
    token_hash: Vec<u8>,
    realm_id: String,
    label: String,
    created_by: String,
    created_at: i64,
    expires_at: i64,
    uses_left: i64,
}

impl From<InitialTokenRow> for InitialToken {
    fn from(r: InitialTokenRow) -> Self {
        InitialToken {
            token_hash: r.token_hash,
            realm_id: RealmId::from_stored(r.realm_id),
            label: r.label,
            created_by: r.created_by,
            created_at: r.created_at,
            expires_at: r.expires_at,
            uses: r.uses_left,
        }
    }
}

/// Why a registration with an initial access token wrote nothing: the token was spent (or
/// expired) between its check and the write.
pub const INITIAL_TOKEN_SPENT: &str = "initial access token used up";

pub(super) const CLIENT_COLUMNS: &str = "id, realm_id, client_id, name, auth_method, grant_types, scope, metadata, agent_id, agent_binding, resource_server_for, enabled, registration_kind, review_state, source_ip, reviewed_by, review_reason, reviewed_at, last_token_at, token_epoch, created_at, updated_at";
pub(super) const INSERT_CLIENT: &str = "INSERT INTO clients (id, realm_id, client_id, name, auth_method, grant_types, scope, metadata, agent_id, agent_binding, resource_server_for, enabled, created_at, updated_at, registration_kind, review_state, source_ip, reviewed_by, review_reason, reviewed_at, registration_token_hash, risk_flags, risk_score) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)";
pub(super) const REGISTRATION_TOKEN: &str =
    "SELECT registration_token_hash FROM clients WHERE id = $1";
// Leaving `approved` starts a new token epoch: the client's access tokens minted before stay
// dead even if it is let in again (an administrator's restore).
pub(super) const SET_CLIENT_REVIEW: &str = "UPDATE clients SET review_state = $1, reviewed_by = $2, review_reason = $3, reviewed_at = $4, updated_at = $4, token_epoch = token_epoch + CASE WHEN $6 = 'approved' AND $1 <> 'approved' THEN 1 ELSE 0 END WHERE id = $5 AND review_state = $6 AND ($7 IS NULL OR updated_at = $7)";
pub(super) const UPDATE_SELF_REGISTRATION: &str = "UPDATE clients SET name = $1, scope = $2, metadata = $3, updated_at = CASE WHEN $4 > updated_at THEN $4 ELSE updated_at + 1 END, review_state = CASE WHEN $5 AND review_state = 'approved' THEN 'pending' ELSE review_state END, token_epoch = CASE WHEN $5 AND review_state = 'approved' THEN token_epoch + 1 ELSE token_epoch END, reviewed_by = CASE WHEN $6 AND review_state = 'approved' THEN NULL ELSE reviewed_by END, risk_flags = $8, risk_score = $9 WHERE id = $7";
pub(super) const REVOKE_CLIENT_FAMILIES: &str = "UPDATE token_families SET revoked_at = $1, revoked_reason = $3 WHERE client_pk = $2 AND revoked_at IS NULL";
pub(super) const FORGET_CLIENT_CONSENTS: &str = "DELETE FROM consents WHERE client_pk = $1";
pub(super) const INSERT_INITIAL_TOKEN: &str = "INSERT INTO initial_access_tokens (token_hash, realm_id, label, created_by, created_at, expires_at, uses_left) VALUES ($1, $2, $3, $4, $5, $6, $7)";
pub(super) const FIND_INITIAL_TOKEN: &str = "SELECT token_hash, realm_id, label, created_by, created_at, expires_at, uses_left FROM initial_access_tokens WHERE token_hash = $1 AND realm_id = $2 AND uses_left > 0 AND expires_at > $3";
pub(super) const CONSUME_INITIAL_TOKEN: &str = "UPDATE initial_access_tokens SET uses_left = uses_left - 1 WHERE token_hash = $1 AND realm_id = $2 AND uses_left > 0 AND expires_at > $3";
// Expired clients no longer count against the realm's limit (rejected ones do: a flood that
// gets rejected must not make room for the next one).
pub(super) const COUNT_DYNAMIC: &str = "SELECT COUNT(*) FROM clients WHERE realm_id = $1 AND registration_kind <> 'admin' AND review_state <> 'expired'";
pub(super) const UNUSED_CLIENTS: &str = "WHERE ((registration_kind = 'dynamic' AND review_state IN ('pending', 'approved', 'rejected')) OR (registration_kind = 'metadata_document' AND review_state IN ('pending', 'rejected'))) AND EXISTS (SELECT 1 FROM realms r WHERE r.id = clients.realm_id AND r.unused_client_ttl_secs > 0 AND clients.updated_at < $1 - r.unused_client_ttl_secs AND COALESCE(clients.last_token_at, 0) < $1 - r.unused_client_ttl_secs) ORDER BY updated_at, id LIMIT $2";
pub(super) const COUNT_FROM_SOURCE: &str =
    "SELECT COUNT(*) FROM clients WHERE realm_id = $1 AND source_ip = $2";
pub(super) const UPDATE_CLIENT_REGISTRATION: &str = "UPDATE clients SET name = $1, scope = $2, metadata = $3, updated_at = $4, grant_types = $6, risk_flags = $7, risk_score = $8 WHERE id = $5";
pub(super) const SET_CLIENT_ENABLED: &str =
    "UPDATE clients SET enabled = $1, updated_at = $2 WHERE id = $3";
pub(super) const SET_CLIENT_AGENT: &str =
    "UPDATE clients SET agent_id = $1, agent_binding = $2, updated_at = $3 WHERE id = $4";
pub(super) const DELETE_CLIENT: &str = "DELETE FROM clients WHERE id = $1";
pub(super) const SECRET_COLUMNS: &str = "id, client_pk, secret_hash, created_at, expires_at";
pub(super) const INSERT_SECRET: &str = "INSERT INTO client_secrets (id, client_pk, secret_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)";
pub(super) const EXPIRE_CURRENT_SECRETS: &str = "UPDATE client_secrets SET expires_at = $1 WHERE client_pk = $2 AND (expires_at IS NULL OR expires_at > $1)";

/// Implements [`ClientStore`] for one backend's store.
macro_rules! client_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::clients::{
                AgentBinding, Client, ClientId, ClientRowId, ClientSecret, InitialToken,
                ReviewDecision, ReviewState, risk_of,
            };
            use $crate::clock::UnixTime;
            use $crate::error::StorageError;
            use $crate::realms::RealmId;
            use $crate::storage::clients::*;
            use $crate::storage::rows::{ClientRow, SecretRow};
            use $crate::paging::{Page, Paged};

            fn grant_types_text(c: &Client) -> String {
                c.grant_types
                    .iter()
                    .map(|g| g.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            }

            fn metadata_text(c: &Client) -> Result<String, StorageError> {
                serde_json::to_string(&c.metadata).map_err(|e| StorageError::Corrupt(e.to_string()))
            }

            async fn insert_secret_row(
                conn: &mut <$db as sqlx::Database>::Connection,
                s: &ClientSecret,
            ) -> Result<(), StorageError> {
                sqlx::query(INSERT_SECRET)
                    .bind(s.id.as_str())
                    .bind(s.client_pk.as_str())
                    .bind(&s.secret_hash)
                    .bind(s.created_at)
                    .bind(s.expires_at)
                    .execute(conn)
                    .await?;
                Ok(())
            }

            impl $store {
                async fn insert_client_row(
                    &self,
                    c: &Client,
                    secret: Option<&ClientSecret>,
                    (token_hash, initial_token): (Option<&[u8]>, Option<(&[u8], UnixTime)>),
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let metadata = metadata_text(c)?;
                    let mut tx = self.begin().await?;
                    if let Some((hash, now)) = initial_token {
                        let spent = sqlx::query(CONSUME_INITIAL_TOKEN)
                            .bind(hash)
                            .bind(c.realm_id.as_str())
                            .bind(now)
                            .execute(&mut *tx)
                            .await?
                            .rows_affected();
                        if spent == 0 {
                            tx.rollback().await?;
                            return Err(StorageError::Precondition(INITIAL_TOKEN_SPENT));
                        }
                    }
                    sqlx::query(INSERT_CLIENT)
                        .bind(c.id.as_str())
                        .bind(c.realm_id.as_str())
                        .bind(c.client_id.as_str())
                        .bind(&c.name)
                        .bind(c.auth_method.as_str())
                        .bind(grant_types_text(c))
                        .bind(c.scope.to_string())
                        .bind(metadata)
                        .bind(c.agent.as_ref().map(|b| b.agent_id.as_str()))
                        .bind(c.agent.as_ref().map(|b| b.binding_id.as_str()))
                        .bind(c.resource_server_for.as_ref().map(|r| r.as_str()))
                        .bind(c.enabled)
                        .bind(c.created_at)
                        .bind(c.updated_at)
                        .bind(c.registration.kind.as_str())
                        .bind(c.registration.review.as_str())
                        .bind(c.registration.source_ip.as_deref())
                        .bind(c.registration.reviewed_by.as_deref())
                        .bind(c.registration.review_reason.as_deref())
                        .bind(c.registration.reviewed_at)
                        .bind(token_hash)
                        .bind(risk_of(c).0)
                        .bind(risk_of(c).1)
                        .execute(&mut *tx)
                        .await?;
                    if let Some(s) = secret {
                        insert_secret_row(&mut tx, s).await?;
                    }
                    self.commit(tx, event).await
                }
            }

            #[async_trait::async_trait]
            impl ClientStore for $store {
                async fn insert_client(
                    &self,
                    c: &Client,
                    secret: Option<&ClientSecret>,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    self.insert_client_row(c, secret, (None, None), event).await
                }

                async fn insert_registered_client(
                    &self,
                    c: &Client,
                    secret: Option<&ClientSecret>,
                    registration_token_hash: &[u8],
                    initial_token: Option<(&[u8], UnixTime)>,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    self.insert_client_row(
                        c,
                        secret,
                        (Some(registration_token_hash), initial_token),
                        event,
                    )
                    .await
                }

                async fn registration_token_hash(
                    &self,
                    id: &ClientRowId,
                ) -> Result<Option<Vec<u8>>, StorageError> {
                    Ok(sqlx::query_scalar::<_, Option<Vec<u8>>>(REGISTRATION_TOKEN)
                        .bind(id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .flatten())
                }

                async fn set_client_review(
                    &self,
                    id: &ClientRowId,
                    d: &ReviewDecision,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let (to, at) = (d.to, d.at);
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_CLIENT_REVIEW)
                        .bind(d.to.as_str())
                        .bind(&d.by)
                        .bind(&d.reason)
                        .bind(d.at)
                        .bind(id.as_str())
                        .bind(d.from.as_str())
                        .bind(d.seen)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    if to != ReviewState::Approved {
                        // Codes first: a redemption under way holds the code's row, and the
                        // family it inserts is then seen by the revocation below.
                        sqlx::query($crate::storage::authorize::KILL_CLIENT_CODES)
                            .bind(id.as_str())
                            .execute(&mut *tx)
                            .await?;
                        // It leaves everyone's connected apps: a restored client is agreed to
                        // again.
                        sqlx::query(FORGET_CLIENT_CONSENTS)
                            .bind(id.as_str())
                            .execute(&mut *tx)
                            .await?;
                        sqlx::query(REVOKE_CLIENT_FAMILIES)
                            .bind(at)
                            .bind(id.as_str())
                            .bind("client_revoked")
                            .execute(&mut *tx)
                            .await?;
                    }
                    for (resource, scopes) in &d.grants {
                        sqlx::query($crate::storage::access::PUT_GRANT)
                            .bind(id.as_str())
                            .bind(resource.as_str())
                            .bind(scopes.to_string())
                            .bind(at)
                            .bind(at)
                            .execute(&mut *tx)
                            .await?;
                    }
                    self.commit(tx, event).await
                }

                async fn update_self_registration(
                    &self,
                    c: &Client,
                    change: $crate::clients::RegistrationChange,
                    renew: Option<(&ClientSecret, UnixTime)>,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let metadata = metadata_text(c)?;
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(UPDATE_SELF_REGISTRATION)
                        .bind(&c.name)
                        .bind(c.scope.to_string())
                        .bind(metadata)
                        .bind(c.updated_at)
                        .bind(change.back_to_review)
                        .bind(change.changed)
                        .bind(c.id.as_str())
                        .bind(risk_of(c).0)
                        .bind(risk_of(c).1)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 1 && change.changed {
                        // People agreed to the client as it was: they are asked again, and
                        // nothing they agreed to before outlives it (codes first, as in a
                        // review decision).
                        sqlx::query($crate::storage::authorize::KILL_CLIENT_CODES)
                            .bind(c.id.as_str())
                            .execute(&mut *tx)
                            .await?;
                        sqlx::query(FORGET_CLIENT_CONSENTS)
                            .bind(c.id.as_str())
                            .execute(&mut *tx)
                            .await?;
                        sqlx::query(REVOKE_CLIENT_FAMILIES)
                            .bind(c.updated_at)
                            .bind(c.id.as_str())
                            .bind("registration_changed")
                            .execute(&mut *tx)
                            .await?;
                    }
                    if let (1, Some((secret, old_expires_at))) = (n, renew) {
                        sqlx::query(EXPIRE_CURRENT_SECRETS)
                            .bind(old_expires_at)
                            .bind(c.id.as_str())
                            .execute(&mut *tx)
                            .await?;
                        insert_secret_row(&mut tx, secret).await?;
                    }
                    self.commit_one(tx, n, event).await
                }

                async fn count_registered_clients(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<u64, StorageError> {
                    let n: i64 = sqlx::query_scalar(COUNT_DYNAMIC)
                        .bind(realm_id.as_str())
                        .fetch_one(&self.pool)
                        .await?;
                    Ok(u64::try_from(n).unwrap_or(0))
                }

                async fn list_unused_clients(
                    &self,
                    now: $crate::clock::UnixTime,
                    limit: i64,
                ) -> Result<Vec<Client>, StorageError> {
                    let sql = format!("SELECT {CLIENT_COLUMNS} FROM clients {UNUSED_CLIENTS}");
                    sqlx::query_as::<_, ClientRow>(&sql)
                        .bind(now)
                        .bind(limit)
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(Client::try_from)
                        .collect()
                }

                async fn insert_initial_token(
                    &self,
                    t: &InitialToken,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(INSERT_INITIAL_TOKEN)
                        .bind(&t.token_hash)
                        .bind(t.realm_id.as_str())
                        .bind(&t.label)
                        .bind(&t.created_by)
                        .bind(t.created_at)
                        .bind(t.expires_at)
                        .bind(t.uses)
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await
                }

                async fn find_initial_token(
                    &self,
                    realm_id: &RealmId,
                    token_hash: &[u8],
                    now: UnixTime,
                ) -> Result<Option<InitialToken>, StorageError> {
                    Ok(sqlx::query_as::<_, InitialTokenRow>(FIND_INITIAL_TOKEN)
                        .bind(token_hash)
                        .bind(realm_id.as_str())
                        .bind(now)
                        .fetch_optional(&self.pool)
                        .await?
                        .map(InitialToken::from))
                }

                async fn count_clients_from(
                    &self,
                    realm_id: &RealmId,
                    source_ip: &str,
                ) -> Result<u64, StorageError> {
                    let n: i64 = sqlx::query_scalar(COUNT_FROM_SOURCE)
                        .bind(realm_id.as_str())
                        .bind(source_ip)
                        .fetch_one(&self.pool)
                        .await?;
                    Ok(u64::try_from(n).unwrap_or(0))
                }

                async fn find_client(
                    &self,
                    realm_id: &RealmId,
                    client_id: &ClientId,
                ) -> Result<Option<Client>, StorageError> {
                    let sql = format!(
                        "SELECT {CLIENT_COLUMNS} FROM clients WHERE realm_id = $1 AND client_id = $2"
                    );
                    sqlx::query_as::<_, ClientRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(client_id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(Client::try_from)
                        .transpose()
                }

                async fn find_resource_server_client(
                    &self,
                    resource_id: &$crate::resources::ResourceId,
                ) -> Result<Option<Client>, StorageError> {
                    let sql = format!(
                        "SELECT {CLIENT_COLUMNS} FROM clients WHERE resource_server_for = $1"
                    );
                    sqlx::query_as::<_, ClientRow>(&sql)
                        .bind(resource_id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(Client::try_from)
                        .transpose()
                }

                async fn list_clients(
                    &self,
                    realm_id: &RealmId,
                    query: Option<&str>,
                    page: Page,
                ) -> Result<Paged<Client>, StorageError> {
                    let search = Search {
                        table: "clients",
                        columns: CLIENT_COLUMNS,
                        fields: ["client_id", "name"],
                        order: "client_id",
                        trigrams: Some("clients_search"),
                    };
                    search
                        .page::<ClientRow>(
                            &self.pool,
                            realm_id.as_str(),
                            query,
                            &page,
                            &|_| {},
                            |r: &ClientRow| r.client_id.clone(),
                        )
                        .await?
                        .try_map(Client::try_from)
                }

                async fn set_client_enabled(
                    &self,
                    id: &ClientRowId,
                    enabled: bool,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_CLIENT_ENABLED)
                        .bind(enabled)
                        .bind(updated_at)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 1 && !enabled {
                        // Disabling is a suspension for tokens, but the codes it leaves
                        // unredeemed die: enabling again must not let them through.
                        sqlx::query($crate::storage::authorize::KILL_CLIENT_CODES)
                            .bind(id.as_str())
                            .execute(&mut *tx)
                            .await?;
                    }
                    self.commit_one(tx, n, event).await
                }

                async fn update_client_registration(
                    &self,
                    c: &Client,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(UPDATE_CLIENT_REGISTRATION)
                        .bind(&c.name)
                        .bind(c.scope.to_string())
                        .bind(metadata_text(c)?)
                        .bind(c.updated_at)
                        .bind(c.id.as_str())
                        .bind(grant_types_text(c))
                        .bind(risk_of(c).0)
                        .bind(risk_of(c).1)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn set_client_agent(
                    &self,
                    id: &ClientRowId,
                    binding: Option<&AgentBinding>,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_CLIENT_AGENT)
                        .bind(binding.map(|b| b.agent_id.as_str()))
                        .bind(binding.map(|b| b.binding_id.as_str()))
                        .bind(updated_at)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn delete_client(
                    &self,
                    id: &ClientRowId,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(DELETE_CLIENT)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    self.commit_one(tx, n, event).await
                }

                async fn list_client_secrets(
                    &self,
                    client: &ClientRowId,
                ) -> Result<Vec<ClientSecret>, StorageError> {
                    let sql = format!("SELECT {SECRET_COLUMNS} FROM client_secrets WHERE client_pk = $1 ORDER BY created_at DESC, id");
                    Ok(sqlx::query_as::<_, SecretRow>(&sql)
                        .bind(client.as_str())
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(ClientSecret::from)
                        .collect())
                }

                async fn rotate_client_secret(
                    &self,
                    new: &ClientSecret,
                    old_expires_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(EXPIRE_CURRENT_SECRETS)
                        .bind(old_expires_at)
                        .bind(new.client_pk.as_str())
                        .execute(&mut *tx)
                        .await?;
                    insert_secret_row(&mut tx, new).await?;
                    self.commit(tx, event).await
                }
            }
        };
    };
}
