//! Federation persistence: the identity providers a realm trusts for ID-JAG assertions, the
//! assertion `jti`s already used, and the links from upstream identities to people.
use crate::audit::NewAuditEvent;
use crate::authorize::TokenFamily;
use crate::clients::ClientId;
use crate::clock::UnixTime;
use crate::error::StorageError;
use crate::federation::{IssuerKeys, PersonIdentity, TrustedIssuer, TrustedIssuerId};
use crate::ids::{PersonId, RealmId};
use crate::keys::SigningAlg;
use crate::people::Person;
use async_trait::async_trait;

/// What redeeming an assertion writes for its subject.
#[derive(Debug, Clone, Copy)]
pub enum NewSubject<'a> {
    /// Linked before (checked again): nothing written.
    Linked(&'a PersonIdentity),
    /// An existing person linked now, with the audit event.
    Link(&'a PersonIdentity, &'a NewAuditEvent),
    /// A new person and their link, with the audit event.
    Create(&'a Person, &'a PersonIdentity, &'a NewAuditEvent),
}

/// What became of a redemption.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssertionRedeemed {
    /// Everything written.
    Done,
    /// The `jti` was used before: nothing written.
    Replayed,
    /// The person or link was written, or the link removed, by another request meanwhile:
    /// nothing written.
    Conflict,
    /// The issuer was disabled or removed meanwhile: nothing written.
    IssuerGone,
}

/// Federation persistence.
#[async_trait]
pub trait FederationStore: Send + Sync {
    /// Inserts a trusted issuer with its audit event; `Conflict` if the realm trusts that
    /// issuer already.
    async fn insert_trusted_issuer(
        &self,
        t: &TrustedIssuer,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Replaces a trusted issuer's settings (not its enabled flag) with its audit event, and
    /// with `revoke` (its keys changed, or a client left its list) revokes the token families
    /// its assertions started; `NotFound` if gone, `Conflict` if the new issuer is trusted
    /// already.
    async fn update_trusted_issuer(
        &self,
        t: &TrustedIssuer,
        revoke: bool,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Enables or disables a trusted issuer with its audit event; `NotFound` if gone.
    async fn set_trusted_issuer_enabled(
        &self,
        id: &TrustedIssuerId,
        enabled: bool,
        updated_at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Deletes a trusted issuer with its audit event, revoking the token families its
    /// assertions started and deleting its links to people (the people stay); `NotFound` if
    /// gone.
    async fn delete_trusted_issuer(
        &self,
        id: &TrustedIssuerId,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// The realm's trusted issuers, by display name.
    async fn list_trusted_issuers(
        &self,
        realm_id: &RealmId,
    ) -> Result<Vec<TrustedIssuer>, StorageError>;
    /// The realm's trusted issuer with exactly this `iss`, enabled or not.
    async fn find_trusted_issuer(
        &self,
        realm_id: &RealmId,
        issuer: &str,
    ) -> Result<Option<TrustedIssuer>, StorageError>;
    /// The person an upstream identity is linked to.
    async fn find_person_identity(
        &self,
        realm_id: &RealmId,
        issuer: &str,
        subject: &str,
    ) -> Result<Option<PersonIdentity>, StorageError>;
    /// The upstream identities linked to a person, oldest first.
    async fn list_person_identities(
        &self,
        person_id: &PersonId,
    ) -> Result<Vec<PersonIdentity>, StorageError>;
    /// Links an upstream identity to a person (an administrator's decision) with the audit
    /// event; `Conflict` if that identity is linked already.
    async fn insert_person_identity(
        &self,
        link: &PersonIdentity,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Unlinks an upstream identity from a person and revokes the token families its issuer's
    /// assertions started for them, with the audit event; `NotFound` if it is not linked to
    /// that person.
    async fn delete_person_identity(
        &self,
        link: &PersonIdentity,
        at: UnixTime,
        event: &NewAuditEvent,
    ) -> Result<(), StorageError>;
    /// Redeems an ID-JAG in one transaction: records its `jti` for its issuer until
    /// `jti_expires_at`, makes its subject a linked person (`subject`), and stores the token
    /// family (no refresh token) with the issuer it came through. Nothing is written when the
    /// `jti` was recorded before ([`AssertionRedeemed::Replayed`]) or the person or link exists
    /// already ([`AssertionRedeemed::Conflict`]).
    async fn redeem_identity_assertion(
        &self,
        issuer: &str,
        (jti, jti_expires_at): (&str, UnixTime),
        subject: NewSubject<'_>,
        family: &TokenFamily,
    ) -> Result<AssertionRedeemed, StorageError>;
}

pub(super) const ISSUER_COLUMNS: &str = "id, realm_id, issuer, display_name, jwks_uri, jwks, algorithms, client_ids, create_people, link_by_email, enabled, created_at, updated_at";
pub(super) const INSERT_ISSUER: &str = "INSERT INTO trusted_issuers (id, realm_id, issuer, display_name, jwks_uri, jwks, algorithms, client_ids, create_people, link_by_email, enabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)";
pub(super) const UPDATE_ISSUER: &str = "UPDATE trusted_issuers SET issuer = $1, display_name = $2, jwks_uri = $3, jwks = $4, algorithms = $5, client_ids = $6, create_people = $7, link_by_email = $8, updated_at = $9 WHERE id = $10";
pub(super) const SET_ISSUER_ENABLED: &str =
    "UPDATE trusted_issuers SET enabled = $1, updated_at = $2 WHERE id = $3";
pub(super) const DELETE_ISSUER: &str = "DELETE FROM trusted_issuers WHERE id = $1";
pub(super) const ISSUER_ENABLED: &str =
    "SELECT enabled FROM trusted_issuers WHERE realm_id = $1 AND issuer = $2";
pub(super) const LINKED_PERSON: &str =
    "SELECT person_id FROM person_identities WHERE realm_id = $1 AND issuer = $2 AND subject = $3";
pub(super) const PERSON_LINKS: &str = "SELECT COUNT(*) FROM person_identities WHERE person_id = $1";
pub(super) const DELETE_LINK: &str = "DELETE FROM person_identities WHERE realm_id = $1 AND issuer = $2 AND subject = $3 AND person_id = $4";
pub(super) const REVOKE_LINK_FAMILIES: &str = "UPDATE token_families SET revoked_at = $1, revoked_reason = 'identity_unlinked' WHERE realm_id = $2 AND via_issuer = $3 AND subject = $4 AND revoked_at IS NULL";
pub(super) const DELETE_ISSUER_LINKS: &str =
    "DELETE FROM person_identities WHERE realm_id = $1 AND issuer = $2";
/// Ends every family an issuer's assertions started (`$1` now, `$2` the reason).
pub(super) const REVOKE_ISSUER_FAMILIES: &str = "UPDATE token_families SET revoked_at = $1, revoked_reason = $2 WHERE realm_id = $3 AND via_issuer = $4 AND revoked_at IS NULL";
pub(super) const INSERT_ISSUER_FAMILY: &str = "INSERT INTO token_families (id, realm_id, subject, client_pk, resource_id, scopes, offline, auth_time, created_at, expires_at, via_issuer) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
pub(super) const INSERT_ID_JAG_JTI: &str = "INSERT INTO identity_assertion_jtis (realm_id, issuer, jti, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (realm_id, issuer, jti) DO NOTHING";
pub(super) const IDENTITY_COLUMNS: &str = "realm_id, issuer, subject, person_id, created_at";
pub(super) const INSERT_IDENTITY: &str = "INSERT INTO person_identities (realm_id, issuer, subject, person_id, created_at) VALUES ($1, $2, $3, $4, $5)";

#[derive(sqlx::FromRow)]
pub(crate) struct IssuerRow {
    pub id: String,
    pub realm_id: String,
    pub issuer: String,
    pub display_name: String,
    pub jwks_uri: Option<String>,
    pub jwks: Option<String>,
    pub algorithms: String,
    pub client_ids: String,
    pub create_people: bool,
    pub link_by_email: bool,
    pub enabled: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

impl TryFrom<IssuerRow> for TrustedIssuer {
    type Error = StorageError;
    fn try_from(r: IssuerRow) -> Result<Self, StorageError> {
        let corrupt =
            |what: &str, e: String| StorageError::Corrupt(format!("trusted issuer {what}: {e}"));
        let keys = match (r.jwks_uri, r.jwks) {
            (Some(uri), None) => IssuerKeys::Uri(uri),
            (None, Some(text)) => IssuerKeys::Inline(
                serde_json::from_str(&text).map_err(|e| corrupt("jwks", e.to_string()))?,
            ),
            _ => {
                return Err(corrupt(
                    "keys",
                    "neither or both of jwks_uri and jwks".into(),
                ));
            }
        };
        let algorithms = r
            .algorithms
            .split_whitespace()
            .map(SigningAlg::parse)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| corrupt("algorithms", e))?;
        let clients = r
            .client_ids
            .split_whitespace()
            .map(|c| ClientId::parse(c).map_err(|e| corrupt("client_ids", e.to_owned())))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TrustedIssuer {
            id: TrustedIssuerId::from_stored(r.id),
            realm_id: RealmId::from_stored(r.realm_id),
            issuer: r.issuer,
            display_name: r.display_name,
            keys,
            algorithms,
            clients,
            create_people: r.create_people,
            link_by_email: r.link_by_email,
            enabled: r.enabled,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

/// The stored columns of an issuer's keys: `(jwks_uri, jwks)`.
pub(super) fn key_columns(keys: &IssuerKeys) -> (Option<String>, Option<String>) {
    match keys {
        IssuerKeys::Uri(u) => (Some(u.clone()), None),
        IssuerKeys::Inline(doc) => (None, Some(doc.to_string())),
    }
}

/// The stored text of a list, space-separated.
pub(super) fn joined<T: AsRef<str>>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|i| i.as_ref().to_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(sqlx::FromRow)]
pub(crate) struct IdentityRow {
    pub realm_id: String,
    pub issuer: String,
    pub subject: String,
    pub person_id: String,
    pub created_at: i64,
}

impl From<IdentityRow> for PersonIdentity {
    fn from(r: IdentityRow) -> Self {
        PersonIdentity {
            realm_id: RealmId::from_stored(r.realm_id),
            issuer: r.issuer,
            subject: r.subject,
            person_id: PersonId::from_stored(r.person_id),
            created_at: r.created_at,
        }
    }
}

/// Implements [`FederationStore`] for one backend's store.
macro_rules! federation_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::audit::NewAuditEvent;
            use $crate::authorize::TokenFamily;
            use $crate::clock::UnixTime;
            use $crate::error::StorageError;
            use $crate::federation::{PersonIdentity, TrustedIssuer, TrustedIssuerId};
            use $crate::ids::{PersonId, RealmId};
            use $crate::storage::federation::*;

            /// Revokes every family the issuer `id`'s assertions started.
            async fn revoke_families(
                conn: &mut <$db as sqlx::Database>::Connection,
                id: &TrustedIssuerId,
                at: UnixTime,
                why: &str,
            ) -> Result<(), StorageError> {
                let found: Option<(String, String)> = sqlx::query_as(
                    "SELECT realm_id, issuer FROM trusted_issuers WHERE id = $1",
                )
                .bind(id.as_str())
                .fetch_optional(&mut *conn)
                .await?;
                if let Some((realm_id, issuer)) = found {
                    sqlx::query(REVOKE_ISSUER_FAMILIES)
                        .bind(at)
                        .bind(why)
                        .bind(realm_id)
                        .bind(issuer)
                        .execute(&mut *conn)
                        .await?;
                }
                Ok(())
            }

            async fn insert_identity(
                conn: &mut <$db as sqlx::Database>::Connection,
                l: &PersonIdentity,
            ) -> Result<(), StorageError> {
                sqlx::query(INSERT_IDENTITY)
                    .bind(l.realm_id.as_str())
                    .bind(&l.issuer)
                    .bind(&l.subject)
                    .bind(l.person_id.as_str())
                    .bind(l.created_at)
                    .execute(&mut *conn)
                    .await?;
                Ok(())
            }

            #[async_trait::async_trait]
            impl FederationStore for $store {
                async fn insert_trusted_issuer(
                    &self,
                    t: &TrustedIssuer,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let (jwks_uri, jwks) = key_columns(&t.keys);
                    let mut tx = self.begin().await?;
                    sqlx::query(INSERT_ISSUER)
                        .bind(t.id.as_str())
                        .bind(t.realm_id.as_str())
                        .bind(&t.issuer)
                        .bind(&t.display_name)
                        .bind(jwks_uri)
                        .bind(jwks)
                        .bind(joined(t.algorithms.iter().map(|a| a.as_str())))
                        .bind(joined(t.clients.iter().map(|c| c.as_str())))
                        .bind(t.create_people)
                        .bind(t.link_by_email)
                        .bind(t.enabled)
                        .bind(t.created_at)
                        .bind(t.updated_at)
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await
                }

                async fn update_trusted_issuer(
                    &self,
                    t: &TrustedIssuer,
                    revoke: bool,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let (jwks_uri, jwks) = key_columns(&t.keys);
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(UPDATE_ISSUER)
                        .bind(&t.issuer)
                        .bind(&t.display_name)
                        .bind(jwks_uri)
                        .bind(jwks)
                        .bind(joined(t.algorithms.iter().map(|a| a.as_str())))
                        .bind(joined(t.clients.iter().map(|c| c.as_str())))
                        .bind(t.create_people)
                        .bind(t.link_by_email)
                        .bind(t.updated_at)
                        .bind(t.id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    if revoke {
                        revoke_families(&mut tx, &t.id, t.updated_at, "issuer_changed").await?;
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn set_trusted_issuer_enabled(
                    &self,
                    id: &TrustedIssuerId,
                    enabled: bool,
                    updated_at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(SET_ISSUER_ENABLED)
                        .bind(enabled)
                        .bind(updated_at)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    if !enabled {
                        revoke_families(&mut tx, id, updated_at, "issuer_disabled").await?;
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn delete_trusted_issuer(
                    &self,
                    id: &TrustedIssuerId,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let found: Option<(String, String)> = sqlx::query_as(
                        "SELECT realm_id, issuer FROM trusted_issuers WHERE id = $1",
                    )
                    .bind(id.as_str())
                    .fetch_optional(&mut *tx)
                    .await?;
                    let Some((realm_id, issuer)) = found else {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    };
                    revoke_families(&mut tx, id, event.occurred_at, "issuer_removed").await?;
                    sqlx::query(DELETE_ISSUER_LINKS)
                        .bind(&realm_id)
                        .bind(&issuer)
                        .execute(&mut *tx)
                        .await?;
                    sqlx::query(DELETE_ISSUER)
                        .bind(id.as_str())
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await
                }

                async fn list_trusted_issuers(
                    &self,
                    realm_id: &RealmId,
                ) -> Result<Vec<TrustedIssuer>, StorageError> {
                    let sql = format!(
                        "SELECT {ISSUER_COLUMNS} FROM trusted_issuers WHERE realm_id = $1 ORDER BY display_name, issuer"
                    );
                    sqlx::query_as::<_, IssuerRow>(&sql)
                        .bind(realm_id.as_str())
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(TrustedIssuer::try_from)
                        .collect()
                }

                async fn find_trusted_issuer(
                    &self,
                    realm_id: &RealmId,
                    issuer: &str,
                ) -> Result<Option<TrustedIssuer>, StorageError> {
                    let sql = format!(
                        "SELECT {ISSUER_COLUMNS} FROM trusted_issuers WHERE realm_id = $1 AND issuer = $2"
                    );
                    sqlx::query_as::<_, IssuerRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(issuer)
                        .fetch_optional(&self.pool)
                        .await?
                        .map(TrustedIssuer::try_from)
                        .transpose()
                }

                async fn find_person_identity(
                    &self,
                    realm_id: &RealmId,
                    issuer: &str,
                    subject: &str,
                ) -> Result<Option<PersonIdentity>, StorageError> {
                    let sql = format!(
                        "SELECT {IDENTITY_COLUMNS} FROM person_identities WHERE realm_id = $1 AND issuer = $2 AND subject = $3"
                    );
                    Ok(sqlx::query_as::<_, IdentityRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(issuer)
                        .bind(subject)
                        .fetch_optional(&self.pool)
                        .await?
                        .map(PersonIdentity::from))
                }

                async fn list_person_identities(
                    &self,
                    person_id: &PersonId,
                ) -> Result<Vec<PersonIdentity>, StorageError> {
                    let sql = format!(
                        "SELECT {IDENTITY_COLUMNS} FROM person_identities WHERE person_id = $1 ORDER BY created_at, issuer, subject"
                    );
                    Ok(sqlx::query_as::<_, IdentityRow>(&sql)
                        .bind(person_id.as_str())
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(PersonIdentity::from)
                        .collect())
                }

                async fn insert_person_identity(
                    &self,
                    link: &PersonIdentity,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    if let Err(e) = insert_identity(&mut tx, link).await {
                        // Rolled back now: on SQLite a dropped transaction holds the write
                        // lock until its rollback runs later.
                        tx.rollback().await?;
                        return Err(e);
                    }
                    self.commit_uncached(tx, event).await
                }

                async fn delete_person_identity(
                    &self,
                    link: &PersonIdentity,
                    at: UnixTime,
                    event: &NewAuditEvent,
                ) -> Result<(), StorageError> {
                    let mut tx = self.begin().await?;
                    let n = sqlx::query(DELETE_LINK)
                        .bind(link.realm_id.as_str())
                        .bind(&link.issuer)
                        .bind(&link.subject)
                        .bind(link.person_id.as_str())
                        .execute(&mut *tx)
                        .await?
                        .rows_affected();
                    if n == 0 {
                        tx.rollback().await?;
                        return Err(StorageError::NotFound);
                    }
                    sqlx::query(REVOKE_LINK_FAMILIES)
                        .bind(at)
                        .bind(link.realm_id.as_str())
                        .bind(&link.issuer)
                        .bind(link.person_id.as_str())
                        .execute(&mut *tx)
                        .await?;
                    self.commit_uncached(tx, event).await
                }

                async fn redeem_identity_assertion(
                    &self,
                    issuer: &str,
                    (jti, jti_expires_at): (&str, UnixTime),
                    subject: NewSubject<'_>,
                    f: &TokenFamily,
                ) -> Result<AssertionRedeemed, StorageError> {
                    let mut tx = self.begin().await?;
                    let fresh = sqlx::query(INSERT_ID_JAG_JTI)
                        .bind(f.realm_id.as_str())
                        .bind(issuer)
                        .bind(jti)
                        .bind(jti_expires_at)
                        .execute(&mut *tx)
                        .await?
                        .rows_affected()
                        == 1;
                    if !fresh {
                        tx.rollback().await?;
                        return Ok(AssertionRedeemed::Replayed);
                    }
                    // Checked again under lock: a provider disabled, or an identity unlinked,
                    // while the assertion was checked leaves no token behind (on PostgreSQL
                    // the share lock makes the disable or unlink wait for this transaction,
                    // whose family it then revokes; SQLite serialises writers already).
                    let share = match DIALECT {
                        Dialect::Postgres => " FOR SHARE",
                        Dialect::Sqlite => "",
                    };
                    let enabled: Option<bool> = sqlx::query_scalar(&format!("{ISSUER_ENABLED}{share}"))
                        .bind(f.realm_id.as_str())
                        .bind(issuer)
                        .fetch_optional(&mut *tx)
                        .await?;
                    if enabled != Some(true) {
                        tx.rollback().await?;
                        return Ok(AssertionRedeemed::IssuerGone);
                    }
                    let settled = match subject {
                        NewSubject::Linked(link) => {
                            let still: Option<String> = sqlx::query_scalar(&format!("{LINKED_PERSON}{share}"))
                                .bind(f.realm_id.as_str())
                                .bind(issuer)
                                .bind(&link.subject)
                                .fetch_optional(&mut *tx)
                                .await?;
                            if still.as_deref() == Some(link.person_id.as_str()) {
                                Ok(())
                            } else {
                                Err(StorageError::Conflict("unlinked meanwhile".into()))
                            }
                        }
                        NewSubject::Link(link, event) => {
                            // The person must still have no identity (another provider or
                            // subject may have been linked to them meanwhile).
                            let others: i64 = sqlx::query_scalar(PERSON_LINKS)
                                .bind(link.person_id.as_str())
                                .fetch_one(&mut *tx)
                                .await?;
                            if others > 0 {
                                Err(StorageError::Conflict("linked meanwhile".into()))
                            } else {
                                match insert_identity(&mut tx, link).await {
                                    Ok(()) => insert_audit(&mut tx, event).await,
                                    Err(e) => Err(e),
                                }
                            }
                        }
                        NewSubject::Create(p, link, event) => {
                            let person = sqlx::query($crate::storage::people::INSERT_PERSON)
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
                                .await
                                .map(|_| ())
                                .map_err(StorageError::from);
                            match person {
                                Ok(()) => match insert_identity(&mut tx, link).await {
                                    Ok(()) => insert_audit(&mut tx, event).await,
                                    Err(e) => Err(e),
                                },
                                Err(e) => Err(e),
                            }
                        }
                    };
                    match settled {
                        Ok(()) => {}
                        Err(StorageError::Conflict(_)) => {
                            tx.rollback().await?;
                            return Ok(AssertionRedeemed::Conflict);
                        }
                        Err(e) => {
                            tx.rollback().await?;
                            return Err(e);
                        }
                    }
                    sqlx::query(INSERT_ISSUER_FAMILY)
                        .bind(f.id.as_str())
                        .bind(f.realm_id.as_str())
                        .bind(&f.subject)
                        .bind(f.client_pk.as_str())
                        .bind(f.resource_id.as_str())
                        .bind(f.scopes.to_string())
                        .bind(f.offline)
                        .bind(f.auth_time)
                        .bind(f.created_at)
                        .bind(f.expires_at)
                        .bind(issuer)
                        .execute(&mut *tx)
                        .await?;
                    tx.commit().await?;
                    Ok(AssertionRedeemed::Done)
                }
            }
        };
    };
}
