//! People persistence: the users of each realm who sign in at its authorization endpoint.
use crate::accounts::Email;
use crate::audit::NewAuditEvent;
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::paging::{Page, Paged};
use crate::people::{Person, PersonId};
use crate::realms::RealmId;
use async_trait::async_trait;

/// People persistence.
#[async_trait]
pub trait PeopleStore: Send + Sync {
    /// Inserts a person with the audit event; `Conflict` if the email is taken in the realm.
    async fn insert_person(
        &self,
        person: &Person,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Finds a person of a realm by id.
    async fn find_person(
        &self,
        realm_id: &RealmId,
        id: &PersonId,
    ) -> Result<Option<Person>, StorageError>;
    /// Finds a person by email within a realm.
    async fn find_person_by_email(
        &self,
        realm_id: &RealmId,
        email: &Email,
    ) -> Result<Option<Person>, StorageError>;
    /// Lists the people of a realm whose email or name contains `query`, ordered by email.
    async fn list_people(
        &self,
        realm_id: &RealmId,
        query: Option<&str>,
        page: Page,
    ) -> Result<Paged<Person>, StorageError>;
    /// Sets a person's name and roles (nothing else) with the audit event; `NotFound` if gone.
    async fn update_person(
        &self,
        person: &Person,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Sets a person's password hash with the audit event, ending their sign-in sessions and
    /// revoking their token families (a new password is set after a suspected compromise);
    /// `NotFound` if gone.
    async fn set_person_password(
        &self,
        id: &PersonId,
        password_hash: &str,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Disables or enables a person with the audit event. Disabling also ends their sign-in
    /// sessions and revokes every token family issued for them, in the same transaction.
    /// `NotFound` if gone.
    async fn set_person_disabled(
        &self,
        id: &PersonId,
        disabled: bool,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
}

pub(super) const PERSON_COLUMNS: &str = "id, realm_id, email, display_name, password_hash, roles, disabled, created_at, updated_at, \
    (EXISTS (SELECT 1 FROM person_identities pi WHERE pi.person_id = people.id) \
     OR EXISTS (SELECT 1 FROM person_upstream_identities pu WHERE pu.person_id = people.id)) AS linked, \
    provider_id, \
    (SELECT sp.display_name FROM sso_providers sp WHERE sp.id = people.provider_id) AS provider_name, \
    EXISTS (SELECT 1 FROM person_upstream_identities pu JOIN sso_providers sp ON sp.id = pu.provider_id \
        WHERE pu.person_id = people.id AND NOT sp.enabled) AS provider_disabled";
pub(super) const INSERT_PERSON: &str = "INSERT INTO people (id, realm_id, email, display_name, password_hash, roles, disabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
pub(super) const UPDATE_PERSON: &str =
    "UPDATE people SET display_name = $1, roles = $2, updated_at = $3 WHERE id = $4";
pub(super) const SET_PERSON_PASSWORD: &str =
    "UPDATE people SET password_hash = $1, updated_at = $2 WHERE id = $3";
pub(super) const SET_PERSON_DISABLED: &str =
    "UPDATE people SET disabled = $1, updated_at = $2 WHERE id = $3";
pub(super) const END_SUBJECT_SESSIONS: &str = "DELETE FROM login_sessions WHERE subject = $1";
pub(super) const REVOKE_SUBJECT_FAMILIES: &str = "UPDATE token_families SET revoked_at = $1, revoked_reason = $2 WHERE subject = $3 AND revoked_at IS NULL";

#[derive(sqlx::FromRow)]
pub(crate) struct PersonRow {
    pub id: String,
    pub realm_id: String,
    pub email: String,
    pub display_name: String,
    pub password_hash: Option<String>,
    pub roles: String,
    pub disabled: bool,
    pub created_at: i64,
    pub updated_at: i64,
    pub linked: bool,
    pub provider_id: Option<String>,
    pub provider_name: Option<String>,
    pub provider_disabled: bool,
}

impl TryFrom<PersonRow> for Person {
    type Error = StorageError;
    fn try_from(r: PersonRow) -> Result<Self, StorageError> {
        Ok(Person {
            id: PersonId::from_stored(r.id),
            realm_id: RealmId::from_stored(r.realm_id),
            email: Email::from_stored(r.email),
            display_name: r.display_name,
            password_hash: r.password_hash,
            roles: crate::scope::ScopeSet::parse(&r.roles)
                .map_err(|e| StorageError::Corrupt(format!("person roles: {e}")))?,
            disabled: r.disabled,
            linked: r.linked,
            provider: r.provider_id.map(crate::ids::SsoProviderId::from_stored),
            provider_name: r.provider_name,
            provider_disabled: r.provider_disabled,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// Implements [`PeopleStore`] for one backend's store.
macro_rules! people_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::accounts::Email;
            use $crate::audit::NewAuditEvent;
            use $crate::clock::UnixTime;
            use $crate::error::StorageError;
            use $crate::paging::{Page, Paged};
            use $crate::people::{Person, PersonId};
            use $crate::realms::RealmId;
            use $crate::storage::people::*;

            /// Ends a person's sign-in sessions and revokes their token families (`why`).
            async fn end_subject(
                conn: &mut <$db as sqlx::Database>::Connection,
                id: &PersonId,
                at: UnixTime,
                why: &str,
            ) -> Result<(), StorageError> {
                sqlx::query(END_SUBJECT_SESSIONS)
                    .bind(id.as_str())
                    .execute(&mut *conn)
                    .await?;
                sqlx::query($crate::storage::authorize::KILL_SUBJECT_CODES)
                    .bind(id.as_str())
                    .execute(&mut *conn)
                    .await?;
                sqlx::query(REVOKE_SUBJECT_FAMILIES)
                    .bind(at)
                    .bind(why)
                    .bind(id.as_str())
                    .execute(&mut *conn)
                    .await?;
                Ok(())
            }

            #[async_trait::async_trait]
            impl PeopleStore for $store {
                async fn insert_person(
                    &self,
                    p: &Person,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    sqlx::query(INSERT_PERSON)
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
                    self.commit_uncached(tx, event).await
                }

                async fn find_person(
                    &self,
                    realm_id: &RealmId,
                    id: &PersonId,
                ) -> Result<Option<Person>, StorageError> {
                    let sql = format!(
                        "SELECT {PERSON_COLUMNS} FROM people WHERE realm_id = $1 AND id = $2"
                    );
                    sqlx::query_as::<_, PersonRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(id.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(Person::try_from)
                        .transpose()
                }

                async fn find_person_by_email(
                    &self,
                    realm_id: &RealmId,
                    email: &Email,
                ) -> Result<Option<Person>, StorageError> {
                    let sql = format!(
                        "SELECT {PERSON_COLUMNS} FROM people WHERE realm_id = $1 AND email = $2"
                    );
                    sqlx::query_as::<_, PersonRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(email.as_str())
                        .fetch_optional(&self.pool)
                        .await?
                        .map(Person::try_from)
                        .transpose()
                }

                async fn list_people(
                    &self,
                    realm_id: &RealmId,
                    query: Option<&str>,
                    page: Page,
                ) -> Result<Paged<Person>, StorageError> {
                    let search = Search {
                        table: "people",
                        columns: PERSON_COLUMNS,
                        fields: ["email", "display_name"],
                        order: "email",
                        trigrams: None,
                    };
                    search
                        .page::<PersonRow>(
                            &self.pool,
                            realm_id.as_str(),
                            query,
                            &page,
                            &|_| {},
                            |r: &PersonRow| r.email.clone(),
                        )
                        .await?
                        .try_map(Person::try_from)
                }

                async fn update_person(
                    &self,
                    p: &Person,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(UPDATE_PERSON)
                        .bind(&p.display_name)
                        .bind(p.roles.to_string())
                        .bind(p.updated_at)
                        .bind(p.id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn set_person_password(
                    &self,
                    id: &PersonId,
                    password_hash: &str,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_PERSON_PASSWORD)
                        .bind(password_hash)
                        .bind(updated_at)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    end_subject(&mut tx, id, updated_at, "password_set").await?;
                    self.commit_uncached(tx, event).await
                }

                async fn set_person_disabled(
                    &self,
                    id: &PersonId,
                    disabled: bool,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_PERSON_DISABLED)
                        .bind(disabled)
                        .bind(updated_at)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    if disabled {
                        end_subject(&mut tx, id, updated_at, "person_disabled").await?;
                    }
                    self.commit_uncached(tx, event).await
                }
            }
        };
    };
}
