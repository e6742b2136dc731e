//! Interactive-flow persistence: sign-in sessions at authorization endpoints, remembered
//! consent, authorization codes, and refresh-token families. Secrets are stored as SHA-256.
use crate::audit::NewAuditEvent;
use crate::authorize::{
    AuthorizationCode, ConnectedApp, Consent, ConsentId, DeviceCode, DeviceState, FamilyId,
    LoginSession, OpenId, RefreshToken, TokenFamily,
};
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::ids::{ClientRowId, ResourceId};
use crate::realms::RealmId;
use async_trait::async_trait;

/// Most connected apps one list returns.
pub const MAX_CONNECTED_APPS: i64 = 500;

/// What a redemption of an authorization code did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redeemed {
    /// First use: the family (and its first refresh token) is stored.
    First,
    /// It was redeemed before: nothing written.
    Again,
    /// It is gone: killed before it was redeemed (the person disconnected the app, the client
    /// was revoked or disabled, the person's password changed or they were disabled), or
    /// purged after expiring. Nothing written.
    Gone,
}

/// Interactive-flow persistence.
#[async_trait]
pub trait AuthorizeStore: Send + Sync {
    /// Stores a sign-in session with its audit event.
    async fn insert_login_session(
        &self,
        session: &LoginSession,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// A realm's unexpired sign-in session by the hash of its cookie.
    async fn find_login_session(
        &self,
        realm_id: &RealmId,
        id_hash: &[u8],
        now: UnixTime,
    ) -> Result<Option<LoginSession>, StorageError>;
    /// Ends a sign-in session.
    async fn delete_login_session(&self, id_hash: &[u8]) -> Result<(), StorageError>;
    /// The consent a subject gave a client for a resource.
    async fn find_consent(
        &self,
        subject: &str,
        client_pk: &ClientRowId,
        resource_id: &ResourceId,
    ) -> Result<Option<Consent>, StorageError>;
    /// Stores a consent (replacing the scopes of an earlier one for the same subject, client and
    /// resource) with its audit event.
    async fn save_consent(
        &self,
        consent: &Consent,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// A realm's consents (one subject's, or everyone's), newest first, at most
    /// [`MAX_CONNECTED_APPS`].
    async fn list_consents(
        &self,
        realm_id: &RealmId,
        subject: Option<&str>,
    ) -> Result<Vec<ConnectedApp>, StorageError>;
    /// One consent of the realm, with its names.
    async fn find_connected_app(
        &self,
        realm_id: &RealmId,
        id: &ConsentId,
    ) -> Result<Option<ConnectedApp>, StorageError>;
    /// Deletes a consent of the realm and revokes every family of its subject, client and
    /// resource, with the audit event; `NotFound` if gone.
    async fn revoke_consent(
        &self,
        realm_id: &RealmId,
        id: &ConsentId,
        now: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<Consent, StorageError>;
    /// Stores an issued code with its audit event.
    async fn insert_code(
        &self,
        code: &AuthorizationCode,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// A code by hash (redeemed or not, expired or not).
    async fn find_code(&self, code_hash: &[u8]) -> Result<Option<AuthorizationCode>, StorageError>;
    /// Marks a code redeemed and stores the family it starts and, if any, its first refresh
    /// token, in one transaction; `Again` (nothing written) when it was redeemed already.
    async fn redeem_code(
        &self,
        code_hash: &[u8],
        now: UnixTime,
        family: &TokenFamily,
        refresh: Option<&RefreshToken>,
    ) -> Result<Redeemed, StorageError>;
    /// A refresh token by hash, with its family.
    async fn find_refresh_token(
        &self,
        token_hash: &[u8],
    ) -> Result<Option<(RefreshToken, TokenFamily)>, StorageError>;
    /// Rotates a refresh token: marks it rotated with the sealed answer and stores its
    /// successor, in one transaction; `false` (nothing written) when it was rotated already.
    async fn rotate_refresh_token(
        &self,
        old_hash: &[u8],
        now: UnixTime,
        successor: &[u8],
        new: &RefreshToken,
    ) -> Result<bool, StorageError>;
    /// A family by id.
    async fn find_family(&self, id: &FamilyId) -> Result<Option<TokenFamily>, StorageError>;
    /// Revokes a family with its audit event; `false` (no audit row) when it was revoked
    /// already or is gone.
    async fn revoke_family(
        &self,
        id: &FamilyId,
        reason: &str,
        now: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
    /// Deletes expired sign-in sessions, codes, device codes and families (with their refresh
    /// tokens).
    async fn purge_flows(&self, now: UnixTime) -> Result<u64, StorageError>;
    /// Stores a device authorization; `false` (nothing written) when its user code is taken.
    async fn insert_device_code(&self, d: &DeviceCode) -> Result<bool, StorageError>;
    /// How many unexpired device authorizations a client holds.
    async fn count_live_device_codes(
        &self,
        client_pk: &ClientRowId,
        now: UnixTime,
    ) -> Result<i64, StorageError>;
    /// A device authorization by the hash of its device code (answered or not, expired or
    /// not).
    async fn find_device_code(
        &self,
        device_code_hash: &[u8],
    ) -> Result<Option<DeviceCode>, StorageError>;
    /// A realm's unexpired, unanswered device authorization by its (normalised) user code.
    async fn find_pending_device_code(
        &self,
        realm_id: &RealmId,
        user_code: &str,
        now: UnixTime,
    ) -> Result<Option<DeviceCode>, StorageError>;
    /// Records a poll: `true` when it came no sooner than the interval after the last one;
    /// otherwise the interval grows by `slow_down_secs` and `false` (RFC 8628 §3.5).
    async fn poll_device_code(
        &self,
        device_code_hash: &[u8],
        now: UnixTime,
        slow_down_secs: i64,
    ) -> Result<bool, StorageError>;
    /// Approves an unanswered, unexpired device authorization: stores the authorization code
    /// its next poll redeems, with the audit event, in one transaction; `false` (nothing
    /// written) when it was answered or expired meanwhile.
    async fn approve_device_code(
        &self,
        device_code_hash: &[u8],
        code: &AuthorizationCode,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
    /// Refuses an unanswered device authorization (with the audit event); `false` when it was
    /// answered or expired meanwhile.
    async fn deny_device_code(
        &self,
        device_code_hash: &[u8],
        subject: &str,
        now: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<bool, StorageError>;
}

pub(super) const INSERT_SESSION: &str = "INSERT INTO login_sessions (id_hash, realm_id, subject, auth_time, expires_at) VALUES ($1, $2, $3, $4, $5)";
pub(super) const FIND_SESSION: &str = "SELECT id_hash, realm_id, subject, auth_time, expires_at FROM login_sessions WHERE realm_id = $1 AND id_hash = $2 AND expires_at > $3";
pub(super) const DELETE_SESSION: &str = "DELETE FROM login_sessions WHERE id_hash = $1";
pub(super) const CONSENT_COLUMNS: &str =
    "id, realm_id, subject, client_pk, resource_id, scopes, created_at, updated_at";
pub(super) const UPSERT_CONSENT: &str = "INSERT INTO consents (id, realm_id, subject, client_pk, resource_id, scopes, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (subject, client_pk, resource_id) DO UPDATE SET scopes = excluded.scopes, updated_at = excluded.updated_at";
pub(super) const LIST_CONSENTS: &str = "SELECT c.id, c.realm_id, c.subject, c.client_pk, c.resource_id, c.scopes, c.created_at, c.updated_at, cl.client_id AS client_id, cl.name AS client_name, r.display_name AS resource_name, r.uri AS resource_uri, (SELECT MAX(rt.created_at) FROM token_families f JOIN refresh_tokens rt ON rt.family_id = f.id WHERE f.subject = c.subject AND f.client_pk = c.client_pk AND f.resource_id = c.resource_id) AS last_used_at FROM consents c JOIN clients cl ON cl.id = c.client_pk JOIN resources r ON r.id = c.resource_id WHERE c.realm_id = ";
pub(super) const DELETE_CONSENT: &str = "DELETE FROM consents WHERE realm_id = $1 AND id = $2";
pub(super) const REVOKE_CONSENT_FAMILIES: &str = "UPDATE token_families SET revoked_at = $1, revoked_reason = 'consent_revoked' WHERE subject = $2 AND client_pk = $3 AND resource_id = $4 AND revoked_at IS NULL";
pub(super) const CODE_COLUMNS: &str = "code_hash, family_id, realm_id, subject, client_pk, resource_id, redirect_uri, code_challenge, scopes, offline, openid, nonce, auth_time, created_at, expires_at, redeemed_at";
pub(super) const INSERT_CODE: &str = "INSERT INTO authorization_codes (code_hash, family_id, realm_id, subject, client_pk, resource_id, redirect_uri, code_challenge, scopes, offline, openid, nonce, auth_time, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)";
// Unredeemed codes die with what they were issued under (RFC 6749 §10.5: a code must not
// outlive the authorization it stands for). Redeemed ones stay, to recognise a replay.
/// Kills the unredeemed codes of a subject (password changed, person or account disabled).
pub(super) const KILL_SUBJECT_CODES: &str =
    "DELETE FROM authorization_codes WHERE subject = $1 AND redeemed_at IS NULL";
/// Kills the unredeemed codes of a client (revoked or disabled).
pub(super) const KILL_CLIENT_CODES: &str =
    "DELETE FROM authorization_codes WHERE client_pk = $1 AND redeemed_at IS NULL";
/// Kills the unredeemed codes a consent led to (the person disconnected the app).
pub(super) const KILL_CONSENT_CODES: &str = "DELETE FROM authorization_codes WHERE subject = $1 AND client_pk = $2 AND resource_id = $3 AND redeemed_at IS NULL";
pub(super) const CODE_REDEEMED: &str =
    "SELECT COUNT(*) FROM authorization_codes WHERE code_hash = $1 AND redeemed_at IS NOT NULL";
/// Locks the client of a code for the redemption (PostgreSQL): waits for a revoke or disable of
/// it under way, so the redeeming write sees it once committed.
pub(super) const LOCK_CODE_CLIENT: &str = "SELECT c.id FROM clients c JOIN authorization_codes a ON a.client_pk = c.id WHERE a.code_hash = $1 FOR SHARE OF c";
/// Redeems a code while its client may still get tokens, as stored: an instance whose cached
/// client is stale (revoked or disabled on another instance a moment ago) cannot start a token
/// family the revocation missed.
pub(super) const REDEEM_CODE: &str = "UPDATE authorization_codes SET redeemed_at = $1 WHERE code_hash = $2 AND redeemed_at IS NULL AND EXISTS (SELECT 1 FROM clients c WHERE c.id = authorization_codes.client_pk AND c.enabled AND c.review_state = 'approved')";
pub(super) const DEVICE_COLUMNS: &str = "device_code_hash, user_code, realm_id, client_pk, client_id, resource_id, scopes, offline, created_at, expires_at, interval_secs, last_poll_at, state, subject, code_hash";
pub(super) const INSERT_DEVICE_CODE: &str = "INSERT INTO device_codes (device_code_hash, user_code, realm_id, client_pk, client_id, resource_id, scopes, offline, created_at, expires_at, interval_secs, state) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending') ON CONFLICT (user_code) DO NOTHING";
pub(super) const COUNT_LIVE_DEVICE_CODES: &str =
    "SELECT COUNT(*) FROM device_codes WHERE client_pk = $1 AND expires_at > $2";
/// A poll on time: the interval has passed since the last one.
pub(super) const POLL_DEVICE_ON_TIME: &str = "UPDATE device_codes SET last_poll_at = $1 WHERE device_code_hash = $2 AND (last_poll_at IS NULL OR last_poll_at + interval_secs <= $1)";
/// A poll too soon: the interval grows.
pub(super) const POLL_DEVICE_TOO_SOON: &str = "UPDATE device_codes SET last_poll_at = $1, interval_secs = interval_secs + $2 WHERE device_code_hash = $3";
pub(super) const APPROVE_DEVICE_CODE: &str = "UPDATE device_codes SET state = 'approved', subject = $1, code_hash = $2 WHERE device_code_hash = $3 AND state = 'pending' AND expires_at > $4";
pub(super) const DENY_DEVICE_CODE: &str = "UPDATE device_codes SET state = 'denied', subject = $1 WHERE device_code_hash = $2 AND state = 'pending' AND expires_at > $3";
pub(super) const PURGE_DEVICE_CODES: &str = "DELETE FROM device_codes WHERE expires_at <= $1";
pub(super) const FAMILY_COLUMNS: &str = "id, realm_id, subject, client_pk, resource_id, scopes, offline, openid, auth_time, created_at, expires_at, revoked_at, revoked_reason";
pub(super) const INSERT_FAMILY: &str = "INSERT INTO token_families (id, realm_id, subject, client_pk, resource_id, scopes, offline, openid, auth_time, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
pub(super) const INSERT_REFRESH: &str = "INSERT INTO refresh_tokens (token_hash, family_id, created_at, expires_at) VALUES ($1, $2, $3, $4)";
pub(super) const FIND_REFRESH: &str = "SELECT token_hash, family_id, created_at, expires_at, rotated_at, successor FROM refresh_tokens WHERE token_hash = $1";
pub(super) const ROTATE_REFRESH: &str = "UPDATE refresh_tokens SET rotated_at = $1, successor = $2 WHERE token_hash = $3 AND rotated_at IS NULL";
pub(super) const REVOKE_FAMILY: &str = "UPDATE token_families SET revoked_at = $1, revoked_reason = $2 WHERE id = $3 AND revoked_at IS NULL";
pub(super) const PURGE_SESSIONS: &str = "DELETE FROM login_sessions WHERE expires_at <= $1";
pub(super) const PURGE_CODES: &str = "DELETE FROM authorization_codes WHERE expires_at <= $1";
pub(super) const PURGE_FAMILIES: &str = "DELETE FROM token_families WHERE expires_at <= $1";

#[derive(sqlx::FromRow)]
pub(crate) struct SessionRow {
    pub id_hash: Vec<u8>,
    pub realm_id: String,
    pub subject: String,
    pub auth_time: i64,
    pub expires_at: i64,
}

impl From<SessionRow> for LoginSession {
    fn from(r: SessionRow) -> Self {
        LoginSession {
            id_hash: r.id_hash,
            realm_id: RealmId::from_stored(r.realm_id),
            subject: r.subject,
            auth_time: r.auth_time,
            expires_at: r.expires_at,
        }
    }
}

fn scopes(s: &str) -> Result<crate::scope::ScopeSet, StorageError> {
    crate::scope::ScopeSet::parse(s).map_err(|e| StorageError::Corrupt(format!("scopes: {e}")))
}

#[derive(sqlx::FromRow)]
pub(crate) struct ConsentRow {
    pub id: String,
    pub realm_id: String,
    pub subject: String,
    pub client_pk: String,
    pub resource_id: String,
    pub scopes: String,
    pub created_at: i64,
    pub updated_at: i64,
}

impl TryFrom<ConsentRow> for Consent {
    type Error = StorageError;
    fn try_from(r: ConsentRow) -> Result<Self, StorageError> {
        Ok(Consent {
            id: ConsentId::from_stored(r.id),
            realm_id: RealmId::from_stored(r.realm_id),
            subject: r.subject,
            client_pk: ClientRowId::from_stored(r.client_pk),
            resource_id: ResourceId::from_stored(r.resource_id),
            scopes: scopes(&r.scopes)?,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct ConnectedAppRow {
    #[sqlx(flatten)]
    pub consent: ConsentRow,
    pub client_id: String,
    pub client_name: String,
    pub resource_name: String,
    pub resource_uri: String,
    pub last_used_at: Option<i64>,
}

impl TryFrom<ConnectedAppRow> for ConnectedApp {
    type Error = StorageError;
    fn try_from(r: ConnectedAppRow) -> Result<Self, StorageError> {
        Ok(ConnectedApp {
            consent: r.consent.try_into()?,
            client_id: r.client_id,
            client_name: r.client_name,
            resource_name: r.resource_name,
            resource_uri: r.resource_uri,
            last_used_at: r.last_used_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct CodeRow {
    pub code_hash: Vec<u8>,
    pub family_id: String,
    pub realm_id: String,
    pub subject: String,
    pub client_pk: String,
    pub resource_id: String,
    pub redirect_uri: String,
    pub code_challenge: String,
    pub scopes: String,
    pub offline: bool,
    pub openid: Option<String>,
    pub nonce: Option<String>,
    pub auth_time: i64,
    pub created_at: i64,
    pub expires_at: i64,
    pub redeemed_at: Option<i64>,
}

impl TryFrom<CodeRow> for AuthorizationCode {
    type Error = StorageError;
    fn try_from(r: CodeRow) -> Result<Self, StorageError> {
        Ok(AuthorizationCode {
            code_hash: r.code_hash,
            family_id: FamilyId::from_stored(r.family_id),
            realm_id: RealmId::from_stored(r.realm_id),
            subject: r.subject,
            client_pk: ClientRowId::from_stored(r.client_pk),
            resource_id: ResourceId::from_stored(r.resource_id),
            redirect_uri: r.redirect_uri,
            code_challenge: r.code_challenge,
            scopes: scopes(&r.scopes)?,
            offline: r.offline,
            openid: OpenId::from_stored(r.openid.as_deref()),
            nonce: r.nonce,
            auth_time: r.auth_time,
            created_at: r.created_at,
            expires_at: r.expires_at,
            redeemed_at: r.redeemed_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct DeviceRow {
    pub device_code_hash: Vec<u8>,
    pub user_code: String,
    pub realm_id: String,
    pub client_pk: String,
    pub client_id: String,
    pub resource_id: String,
    pub scopes: String,
    pub offline: bool,
    pub created_at: i64,
    pub expires_at: i64,
    pub interval_secs: i64,
    pub last_poll_at: Option<i64>,
    pub state: String,
    pub subject: Option<String>,
    pub code_hash: Option<Vec<u8>>,
}

impl TryFrom<DeviceRow> for DeviceCode {
    type Error = StorageError;
    fn try_from(r: DeviceRow) -> Result<Self, StorageError> {
        Ok(DeviceCode {
            device_code_hash: r.device_code_hash,
            user_code: r.user_code,
            realm_id: RealmId::from_stored(r.realm_id),
            client_pk: ClientRowId::from_stored(r.client_pk),
            client_id: r.client_id,
            resource_id: ResourceId::from_stored(r.resource_id),
            scopes: scopes(&r.scopes)?,
            offline: r.offline,
            created_at: r.created_at,
            expires_at: r.expires_at,
            interval_secs: r.interval_secs,
            last_poll_at: r.last_poll_at,
            state: DeviceState::parse(&r.state).map_err(StorageError::Corrupt)?,
            subject: r.subject,
            code_hash: r.code_hash,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct FamilyRow {
    pub id: String,
    pub realm_id: String,
    pub subject: String,
    pub client_pk: String,
    pub resource_id: String,
    pub scopes: String,
    pub offline: bool,
    pub openid: Option<String>,
    pub auth_time: i64,
    pub created_at: i64,
    pub expires_at: i64,
    pub revoked_at: Option<i64>,
    pub revoked_reason: Option<String>,
}

impl TryFrom<FamilyRow> for TokenFamily {
    type Error = StorageError;
    fn try_from(r: FamilyRow) -> Result<Self, StorageError> {
        Ok(TokenFamily {
            id: FamilyId::from_stored(r.id),
            realm_id: RealmId::from_stored(r.realm_id),
            subject: r.subject,
            client_pk: ClientRowId::from_stored(r.client_pk),
            resource_id: ResourceId::from_stored(r.resource_id),
            scopes: scopes(&r.scopes)?,
            offline: r.offline,
            openid: OpenId::from_stored(r.openid.as_deref()),
            auth_time: r.auth_time,
            created_at: r.created_at,
            expires_at: r.expires_at,
            revoked_at: r.revoked_at,
            revoked_reason: r.revoked_reason,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct RefreshRow {
    pub token_hash: Vec<u8>,
    pub family_id: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub rotated_at: Option<i64>,
    pub successor: Option<Vec<u8>>,
}

impl From<RefreshRow> for RefreshToken {
    fn from(r: RefreshRow) -> Self {
        RefreshToken {
            token_hash: r.token_hash,
            family_id: FamilyId::from_stored(r.family_id),
            created_at: r.created_at,
            expires_at: r.expires_at,
            rotated_at: r.rotated_at,
            successor: r.successor,
        }
    }
}

/// Implements [`AuthorizeStore`] for one backend's store.
macro_rules! authorize_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::authorize::{
                AuthorizationCode, ConnectedApp, Consent, ConsentId, DeviceCode, FamilyId,
                LoginSession, RefreshToken, TokenFamily,
            };
            use $crate::clock::UnixTime;
            use $crate::error::StorageError;
            use $crate::ids::{ClientRowId, ResourceId};
            use $crate::realms::RealmId;
            use $crate::storage::authorize::*;

            async fn insert_code_row(
                conn: &mut <$db as sqlx::Database>::Connection,
                c: &AuthorizationCode,
            ) -> Result<(), StorageError> {
                sqlx::query(INSERT_CODE)
                    .bind(&c.code_hash)
                    .bind(c.family_id.as_str())
                    .bind(c.realm_id.as_str())
                    .bind(&c.subject)
                    .bind(c.client_pk.as_str())
                    .bind(c.resource_id.as_str())
                    .bind(&c.redirect_uri)
                    .bind(&c.code_challenge)
                    .bind(c.scopes.to_string())
                    .bind(c.offline)
                    .bind(c.openid.map($crate::authorize::OpenId::scope))
                    .bind(&c.nonce)
                    .bind(c.auth_time)
                    .bind(c.created_at)
                    .bind(c.expires_at)
                    .execute(conn)
                    .await?;
                Ok(())
            }

            async fn insert_refresh_row(
                conn: &mut <$db as sqlx::Database>::Connection,
                t: &RefreshToken,
            ) -> Result<(), StorageError> {
                sqlx::query(INSERT_REFRESH)
                    .bind(&t.token_hash)
                    .bind(t.family_id.as_str())
                    .bind(t.created_at)
                    .bind(t.expires_at)
                    .execute(conn)
                    .await?;
                Ok(())
            }

            #[async_trait::async_trait]
            impl AuthorizeStore for $store {
                async fn insert_login_session(
                    &self,
                    s: &LoginSession,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(INSERT_SESSION)
                        .bind(&s.id_hash)
                        .bind(s.realm_id.as_str())
                        .bind(&s.subject)
                        .bind(s.auth_time)
                        .bind(s.expires_at)
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await
                }

                async fn find_login_session(
                    &self,
                    realm_id: &RealmId,
                    id_hash: &[u8],
                    now: UnixTime,
                ) -> Result<Option<LoginSession>, StorageError> {
                    Ok(sqlx::query_as::<_, SessionRow>(FIND_SESSION)
                        .bind(realm_id.as_str())
                        .bind(id_hash)
                        .bind(now)
                        .fetch_optional(&self.pool)
                        .await?
                        .map(LoginSession::from))
                }

                async fn delete_login_session(&self, id_hash: &[u8]) -> Result<(), StorageError> {
                    sqlx::query(DELETE_SESSION)
                        .bind(id_hash)
                        .execute(&self.pool)
                        .await?;
                    Ok(())
                }

                async fn find_consent(
                    &self,
                    subject: &str,
                    client_pk: &ClientRowId,
                    resource_id: &ResourceId,
                ) -> Result<Option<Consent>, StorageError> {
                    let sql = format!(
                        "SELECT {CONSENT_COLUMNS} FROM consents WHERE subject = $1 AND client_pk = $2 AND resource_id = $3"
                    );
                    sqlx::query_as::<_, ConsentRow>(&sql)
                        .bind(subject)
                        .bind(client_pk.as_str())
                        .bind(resource_id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(Consent::try_from)
                        .transpose()
                }

                async fn save_consent(
                    &self,
                    c: &Consent,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(UPSERT_CONSENT)
                        .bind(c.id.as_str())
                        .bind(c.realm_id.as_str())
                        .bind(&c.subject)
                        .bind(c.client_pk.as_str())
                        .bind(c.resource_id.as_str())
                        .bind(c.scopes.to_string())
                        .bind(c.created_at)
                        .bind(c.updated_at)
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await
                }

                async fn list_consents(
                    &self,
                    realm_id: &RealmId,
                    subject: Option<&str>,
                ) -> Result<Vec<ConnectedApp>, StorageError> {
                    let mut q = sqlx::QueryBuilder::<$db>::new(LIST_CONSENTS);
                    q.push_bind(realm_id.as_str());
                    if let Some(s) = subject {
                        q.push(" AND c.subject = ").push_bind(s);
                    }
                    q.push(" ORDER BY c.updated_at DESC, c.id LIMIT ")
                        .push_bind(MAX_CONNECTED_APPS);
                    q.build_query_as::<ConnectedAppRow>()
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(ConnectedApp::try_from)
                        .collect()
                }

                async fn find_connected_app(
                    &self,
                    realm_id: &RealmId,
                    id: &ConsentId,
                ) -> Result<Option<ConnectedApp>, StorageError> {
                    let mut q = sqlx::QueryBuilder::<$db>::new(LIST_CONSENTS);
                    q.push_bind(realm_id.as_str());
                    q.push(" AND c.id = ").push_bind(id.as_str());
                    q.build_query_as::<ConnectedAppRow>()
                        .fetch_optional(&self.pool)
                        .await?
                        .map(ConnectedApp::try_from)
                        .transpose()
                }

                async fn revoke_consent(
                    &self,
                    realm_id: &RealmId,
                    id: &ConsentId,
                    now: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<Consent, StorageError> {
                    let mut tx = self.begin().await?;
                    let sql = format!(
                        "SELECT {CONSENT_COLUMNS} FROM consents WHERE realm_id = $1 AND id = $2"
                    );
                    let Some(row) = sqlx::query_as::<_, ConsentRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(id.as_str())
                        .fetch_optional(&mut *tx)
                        .await?
                    else {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    };
                    let consent = Consent::try_from(row)?;
                    sqlx::query(DELETE_CONSENT)
                        .bind(realm_id.as_str())
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?;
                    // Codes first: a redemption under way holds the code's row, and the
                    // family it inserts is then seen by the revocation below.
                    sqlx::query(KILL_CONSENT_CODES)
                        .bind(&consent.subject)
                        .bind(consent.client_pk.as_str())
                        .bind(consent.resource_id.as_str())
                        .execute(&mut *tx)
                        .await?;
                    sqlx::query(REVOKE_CONSENT_FAMILIES)
                        .bind(now)
                        .bind(&consent.subject)
                        .bind(consent.client_pk.as_str())
                        .bind(consent.resource_id.as_str())
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await?;
                    Ok(consent)
                }

                async fn insert_code(
                    &self,
                    c: &AuthorizationCode,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    insert_code_row(&mut tx, c).await?;
                    self.commit_uncached(tx, event).await
                }

                async fn find_code(
                    &self,
                    code_hash: &[u8],
                ) -> Result<Option<AuthorizationCode>, StorageError> {
                    let sql =
                        format!("SELECT {CODE_COLUMNS} FROM authorization_codes WHERE code_hash = $1");
                    sqlx::query_as::<_, CodeRow>(&sql)
                        .bind(code_hash)
                        .fetch_optional(&self.pool)
                        .await?
                        .map(AuthorizationCode::try_from)
                        .transpose()
                }

                async fn redeem_code(
                    &self,
                    code_hash: &[u8],
                    now: UnixTime,
                    f: &TokenFamily,
                    refresh: Option<&RefreshToken>,
                ) -> Result<Redeemed, StorageError> {
                    let mut tx = self.begin().await?;
                    // SQLite's write transaction already excludes every other writer.
                    if matches!(DIALECT, $crate::storage::types::Dialect::Postgres) {
                        sqlx::query(LOCK_CODE_CLIENT)
                            .bind(code_hash)
                            .execute(&mut *tx)
                            .await?;
                    }
                    let n = sqlx::query(REDEEM_CODE)
                        .bind(now)
                        .bind(code_hash)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        let redeemed: i64 = sqlx::query_scalar(CODE_REDEEMED)
                            .bind(code_hash)
                            .fetch_one(&mut *tx)
                            .await?;
                        tx.rollback().await?;
                        return Ok(if redeemed == 0 { Redeemed::Gone } else { Redeemed::Again });
                    }
                    sqlx::query(INSERT_FAMILY)
                        .bind(f.id.as_str())
                        .bind(f.realm_id.as_str())
                        .bind(&f.subject)
                        .bind(f.client_pk.as_str())
                        .bind(f.resource_id.as_str())
                        .bind(f.scopes.to_string())
                        .bind(f.offline)
                        .bind(f.openid.map($crate::authorize::OpenId::scope))
                        .bind(f.auth_time)
                        .bind(f.created_at)
                        .bind(f.expires_at)
                        .execute(&mut *tx)
                        .await?;
                    if let Some(t) = refresh {
                        insert_refresh_row(&mut tx, t).await?;
                    }
                    tx.commit().await?;
                    Ok(Redeemed::First)
                }

                async fn find_refresh_token(
                    &self,
                    token_hash: &[u8],
                ) -> Result<Option<(RefreshToken, TokenFamily)>, StorageError> {
                    let Some(row) = sqlx::query_as::<_, RefreshRow>(FIND_REFRESH)
                        .bind(token_hash)
                        .fetch_optional(&self.pool)
                        .await?
                    else {
                        return Ok(None);
                    };
                    let token = RefreshToken::from(row);
                    Ok(self
                        .find_family(&token.family_id)
                        .await?
                        .map(|f| (token, f)))
                }

                async fn rotate_refresh_token(
                    &self,
                    old_hash: &[u8],
                    now: UnixTime,
                    successor: &[u8],
                    new: &RefreshToken,
                ) -> Result<bool, StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(ROTATE_REFRESH)
                        .bind(now)
                        .bind(successor)
                        .bind(old_hash)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                    insert_refresh_row(&mut tx, new).await?;
                    tx.commit().await?;
                    Ok(true)
                }

                async fn find_family(
                    &self,
                    id: &FamilyId,
                ) -> Result<Option<TokenFamily>, StorageError> {
                    let sql = format!("SELECT {FAMILY_COLUMNS} FROM token_families WHERE id = $1");
                    sqlx::query_as::<_, FamilyRow>(&sql)
                        .bind(id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(TokenFamily::try_from)
                        .transpose()
                }

                async fn revoke_family(
                    &self,
                    id: &FamilyId,
                    reason: &str,
                    now: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<bool, StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(REVOKE_FAMILY)
                        .bind(now)
                        .bind(reason)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                    self.commit_uncached(tx, event).await?;
                    Ok(true)
                }

                async fn purge_flows(&self, now: UnixTime) -> Result<u64, StorageError> {
                    let mut total = 0;
                    for sql in [PURGE_SESSIONS, PURGE_DEVICE_CODES, PURGE_CODES, PURGE_FAMILIES] {
                        total += sqlx::query(sql)
                            .bind(now)
                            .execute(&self.pool)
                            .await?
                            .rows_affected();
                    }
                    Ok(total)
                }

                async fn insert_device_code(&self, d: &DeviceCode) -> Result<bool, StorageError> {
                    let n = sqlx::query(INSERT_DEVICE_CODE)
                        .bind(&d.device_code_hash)
                        .bind(&d.user_code)
                        .bind(d.realm_id.as_str())
                        .bind(d.client_pk.as_str())
                        .bind(&d.client_id)
                        .bind(d.resource_id.as_str())
                        .bind(d.scopes.to_string())
                        .bind(d.offline)
                        .bind(d.created_at)
                        .bind(d.expires_at)
                        .bind(d.interval_secs)
                        .execute(&self.pool)
                        .await?
                        .rows_affected();
                    Ok(n == 1)
                }

                async fn count_live_device_codes(
                    &self,
                    client_pk: &ClientRowId,
                    now: UnixTime,
                ) -> Result<i64, StorageError> {
                    Ok(sqlx::query_scalar(COUNT_LIVE_DEVICE_CODES)
                        .bind(client_pk.as_str())
                        .bind(now)
                        .fetch_one(&self.pool)
                        .await?)
                }

                async fn find_device_code(
                    &self,
                    device_code_hash: &[u8],
                ) -> Result<Option<DeviceCode>, StorageError> {
                    let sql = format!(
                        "SELECT {DEVICE_COLUMNS} FROM device_codes WHERE device_code_hash = $1"
                    );
                    sqlx::query_as::<_, DeviceRow>(&sql)
                        .bind(device_code_hash)
                        .fetch_optional(&self.pool)
                        .await?
                        .map(DeviceCode::try_from)
                        .transpose()
                }

                async fn find_pending_device_code(
                    &self,
                    realm_id: &RealmId,
                    user_code: &str,
                    now: UnixTime,
                ) -> Result<Option<DeviceCode>, StorageError> {
                    let sql = format!(
                        "SELECT {DEVICE_COLUMNS} FROM device_codes WHERE realm_id = $1 AND user_code = $2 AND state = 'pending' AND expires_at > $3"
                    );
                    sqlx::query_as::<_, DeviceRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(user_code)
                        .bind(now)
                        .fetch_optional(&self.pool)
                        .await?
                        .map(DeviceCode::try_from)
                        .transpose()
                }

                async fn poll_device_code(
                    &self,
                    device_code_hash: &[u8],
                    now: UnixTime,
                    slow_down_secs: i64,
                ) -> Result<bool, StorageError> {
                    let n = sqlx::query(POLL_DEVICE_ON_TIME)
                        .bind(now)
                        .bind(device_code_hash)
                        .execute(&self.pool)
                        .await?
                        .rows_affected();
                    if n == 1 {
                        return Ok(true);
                    }
                    sqlx::query(POLL_DEVICE_TOO_SOON)
                        .bind(now)
                        .bind(slow_down_secs)
                        .bind(device_code_hash)
                        .execute(&self.pool)
                        .await?;
                    Ok(false)
                }

                async fn approve_device_code(
                    &self,
                    device_code_hash: &[u8],
                    c: &AuthorizationCode,
                    event: &NewAuditEvent,
                ) -> Result<bool, StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(APPROVE_DEVICE_CODE)
                        .bind(&c.subject)
                        .bind(&c.code_hash)
                        .bind(device_code_hash)
                        .bind(c.created_at)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                    insert_code_row(&mut tx, c).await?;
                    self.commit_uncached(tx, event).await?;
                    Ok(true)
                }

                async fn deny_device_code(
                    &self,
                    device_code_hash: &[u8],
                    subject: &str,
                    now: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<bool, StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(DENY_DEVICE_CODE)
                        .bind(subject)
                        .bind(device_code_hash)
                        .bind(now)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Ok(false);
                    }
                    self.commit_uncached(tx, event).await?;
                    Ok(true)
                }
            }
        };
    };
}
