//! Row types shared by both backends and their conversion into domain types.
use crate::accounts::{Email, LinkPurpose, OneTimeLink, User};
use crate::audit::{AuditEvent, Outcome};
use crate::error::StorageError;
use crate::policy::Role;
use crate::realms::{Realm, RealmName};

#[derive(sqlx::FromRow)]
pub(crate) struct RealmRow {
    pub id: String,
    pub name: String,
    pub display_name: String,
    pub enabled: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

impl TryFrom<RealmRow> for Realm {
    type Error = StorageError;
    fn try_from(r: RealmRow) -> Result<Self, StorageError> {
        Ok(Realm {
            name: RealmName::parse(&r.name).map_err(|e| StorageError::Corrupt(e.into()))?,
            id: r.id,
            display_name: r.display_name,
            enabled: r.enabled,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct UserRow {
    pub id: String,
    pub realm_id: String,
    pub email: String,
    pub display_name: String,
    pub password_hash: Option<String>,
    pub role: String,
    pub disabled: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

impl TryFrom<UserRow> for User {
    type Error = StorageError;
    fn try_from(r: UserRow) -> Result<Self, StorageError> {
        Ok(User {
            email: Email::parse(&r.email).map_err(|e| StorageError::Corrupt(e.into()))?,
            role: Role::parse(&r.role).map_err(|e| StorageError::Corrupt(e.into()))?,
            id: r.id,
            realm_id: r.realm_id,
            display_name: r.display_name,
            password_hash: r.password_hash,
            disabled: r.disabled,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct LinkRow {
    pub token_hash: Vec<u8>,
    pub realm_id: String,
    pub user_id: Option<String>,
    pub purpose: String,
    pub created_at: i64,
    pub expires_at: i64,
}

impl TryFrom<LinkRow> for OneTimeLink {
    type Error = StorageError;
    fn try_from(r: LinkRow) -> Result<Self, StorageError> {
        let purpose = match r.purpose.as_str() {
            "setup" => LinkPurpose::Setup,
            "password_reset" => LinkPurpose::PasswordReset,
            other => return Err(StorageError::Corrupt(format!("link purpose {other}"))),
        };
        Ok(OneTimeLink {
            token_hash: r.token_hash,
            realm_id: r.realm_id,
            user_id: r.user_id,
            purpose,
            created_at: r.created_at,
            expires_at: r.expires_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct AuditRow {
    pub id: i64,
    pub realm: String,
    pub occurred_at: i64,
    pub actor: String,
    pub action: String,
    pub target: String,
    pub outcome: String,
    pub request_id: Option<String>,
    pub client_ip: Option<String>,
    pub details: String,
}

impl TryFrom<AuditRow> for AuditEvent {
    type Error = StorageError;
    fn try_from(r: AuditRow) -> Result<Self, StorageError> {
        Ok(AuditEvent {
            outcome: Outcome::parse(&r.outcome)
                .ok_or_else(|| StorageError::Corrupt(format!("outcome {}", r.outcome)))?,
            details: serde_json::from_str(&r.details)
                .map_err(|e| StorageError::Corrupt(format!("audit details: {e}")))?,
            id: r.id,
            realm: r.realm,
            occurred_at: r.occurred_at,
            actor: r.actor,
            action: r.action,
            target: r.target,
            request_id: r.request_id,
            client_ip: r.client_ip,
        })
    }
}
