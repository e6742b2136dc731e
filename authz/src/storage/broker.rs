//! Brokering persistence: which person an identity at a realm's sign-in provider is, and the
//! one write a brokered sign-in makes (the person created or linked, their roles, units and
//! rings as the provider's groups give them, and the audit rows), all or nothing.
use crate::audit::NewAuditEvent;
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::ids::{PersonId, SsoProviderId};
use crate::people::Person;
use crate::registry::GroupKind;
use async_trait::async_trait;

/// What a brokered sign-in writes.
#[derive(Debug, Clone)]
pub struct BrokeredSignIn<'a> {
    /// A person created just in time (inserted first).
    pub create: Option<&'a Person>,
    /// The person signing in.
    pub person: &'a PersonId,
    /// The provider.
    pub provider: &'a SsoProviderId,
    /// A new link of the provider's subject to the person.
    pub link: Option<&'a str>,
    /// The person's roles afterwards (stored form), when they change.
    pub roles: Option<String>,
    /// Units and rings to add the person to.
    pub add: &'a [(GroupKind, String)],
    /// Units and rings to take the person out of.
    pub remove: &'a [(GroupKind, String)],
    /// Who the memberships are added by (the provider).
    pub added_by: &'a str,
    /// When.
    pub at: UnixTime,
}

/// Brokering persistence.
#[async_trait]
pub trait BrokerStore: Send + Sync {
    /// The person a provider's subject is linked to.
    async fn find_upstream_person(
        &self,
        provider: &SsoProviderId,
        subject: &str,
    ) -> Result<Option<PersonId>, StorageError>;
    /// How many people come from a provider.
    async fn count_provider_people(&self, provider: &SsoProviderId) -> Result<i64, StorageError>;
    /// Writes a brokered sign-in with its audit events in one transaction. `Conflict` when the
    /// subject was linked meanwhile (or the person has another identity at the provider);
    /// `Taken` when a created person's email was taken meanwhile.
    async fn save_brokered_sign_in(
        &self,
        change: &BrokeredSignIn<'_>,
        events: &[NewAuditEvent],
    ) -> Result<(), StorageError>;
}

pub(super) const FIND_UPSTREAM_PERSON: &str =
    "SELECT person_id FROM person_upstream_identities WHERE provider_id = $1 AND subject = $2";
pub(super) const COUNT_PROVIDER_PEOPLE: &str = "SELECT COUNT(*) FROM people WHERE provider_id = $1";
pub(super) const INSERT_UPSTREAM_IDENTITY: &str = "INSERT INTO person_upstream_identities (provider_id, subject, person_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING";
/// The provider a person comes from is the first that signed them in (created or linked them).
pub(super) const SET_PERSON_PROVIDER: &str =
    "UPDATE people SET provider_id = COALESCE(provider_id, $1), updated_at = $2 WHERE id = $3";
pub(super) const SET_PERSON_ROLES: &str =
    "UPDATE people SET roles = $1, updated_at = $2 WHERE id = $3";
pub(super) const ADD_PERSON_MEMBER: &str = "INSERT INTO registry_members (realm_id, group_kind, group_id, member_kind, member_id, person_id, added_at, added_by) SELECT realm_id, $2, $3, 'person', id, id, $4, $5 FROM people WHERE id = $1 ON CONFLICT DO NOTHING";
pub(super) const REMOVE_PERSON_MEMBER: &str = "DELETE FROM registry_members WHERE member_kind = 'person' AND member_id = $1 AND group_kind = $2 AND group_id = $3";

/// Implements [`BrokerStore`] for one backend's store.
macro_rules! broker_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::error::StorageError;
            use $crate::ids::{PersonId, SsoProviderId};
            use $crate::storage::broker::*;

            #[async_trait::async_trait]
            impl BrokerStore for $store {
                async fn find_upstream_person(
                    &self,
                    provider: &SsoProviderId,
                    subject: &str,
                ) -> Result<Option<PersonId>, StorageError> {
                    Ok(sqlx::query_scalar::<_, String>(FIND_UPSTREAM_PERSON)
                        .bind(provider.as_str())
                        .bind(subject)
                        .fetch_optional(&self.pool)
                        .await?
                        .map(PersonId::from_stored))
                }

                async fn count_provider_people(
                    &self,
                    provider: &SsoProviderId,
                ) -> Result<i64, StorageError> {
                    Ok(sqlx::query_scalar::<_, i64>(COUNT_PROVIDER_PEOPLE)
                        .bind(provider.as_str())
                        .fetch_one(&self.pool)
                        .await?)
                }

                async fn save_brokered_sign_in(
                    &self,
                    c: &BrokeredSignIn<'_>,
                    events: &[NewAuditEvent],
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    if let Some(p) = c.create {
                        sqlx::query($crate::storage::people::INSERT_PERSON)
                            .bind(p.id.as_str())
                            .bind(p.realm_id.as_str())
                            .bind(p.email.as_str())
                            .bind(&p.display_name)
                            .bind(&p.password_hash)
                            .bind(p.roles.to_string())
                            .bind(p.disabled)
                            .bind(p.created_at)
                            .bind(p.updated_at)
                            .execute(&mut *tx)
                            .await?;
                    }
                    if let Some(subject) = c.link {
                        let n = sqlx::query(INSERT_UPSTREAM_IDENTITY)
                            .bind(c.provider.as_str())
                            .bind(subject)
                            .bind(c.person.as_str())
                            .bind(c.at)
                            .execute(&mut *tx)
                            .await?
                            .rows_affected();
                        if n == 0 {
                            tx.rollback().await?;
                            return Err(StorageError::Conflict(
                                "this identity was linked meanwhile".into(),
                            ));
                        }
                    }
                    sqlx::query(SET_PERSON_PROVIDER)
                        .bind(c.provider.as_str())
                        .bind(c.at)
                        .bind(c.person.as_str())
                        .execute(&mut *tx)
                        .await?;
                    if let Some(roles) = &c.roles {
                        sqlx::query(SET_PERSON_ROLES)
                            .bind(roles)
                            .bind(c.at)
                            .bind(c.person.as_str())
                            .execute(&mut *tx)
                            .await?;
                    }
                    for (kind, id) in c.remove {
                        sqlx::query(REMOVE_PERSON_MEMBER)
                            .bind(c.person.as_str())
                            .bind(kind.as_str())
                            .bind(id)
                            .execute(&mut *tx)
                            .await?;
                    }
                    for (kind, id) in c.add {
                        sqlx::query(ADD_PERSON_MEMBER)
                            .bind(c.person.as_str())
                            .bind(kind.as_str())
                            .bind(id)
                            .bind(c.at)
                            .bind(c.added_by)
                            .execute(&mut *tx)
                            .await?;
                    }
                    let Some((last, rest)) = events.split_last() else {
                        tx.commit().await?;
                        return Ok(());
                    };
                    for e in rest {
                        insert_audit(&mut tx, e).await?;
                    }
                    self.commit_uncached(tx, last).await
                }
            }
        };
    };
}
