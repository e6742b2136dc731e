//! The portable SQL behind both backends, and the macro that instantiates it per pool type.
//!
//! Every statement here runs unchanged on SQLite and PostgreSQL: `$n` placeholders, `BIGINT`
//! Unix seconds, `TEXT` ids and JSON, `BLOB`/`BYTEA` hashes. Filtered lists are built with
//! `QueryBuilder`, which emits each backend's placeholder syntax.

pub(super) const REALM_COLUMNS: &str =
    "id, name, display_name, enabled, default_resource_id, created_at, updated_at";
pub(super) const SET_DEFAULT_RESOURCE: &str =
    "UPDATE realms SET default_resource_id = $1, updated_at = $2 WHERE id = $3";
pub(super) const INSERT_REALM: &str = "INSERT INTO realms (id, name, display_name, enabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)";
pub(super) const INSERT_REALM_IF_ABSENT: &str = "INSERT INTO realms (id, name, display_name, enabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (name) DO NOTHING";
pub(super) const UPDATE_REALM: &str =
    "UPDATE realms SET name = $1, display_name = $2, enabled = $3, updated_at = $4 WHERE id = $5";

pub(super) const USER_COLUMNS: &str =
    "id, realm_id, email, display_name, password_hash, role, disabled, created_at, updated_at";
pub(super) const INSERT_USER: &str = "INSERT INTO users (id, realm_id, email, display_name, password_hash, role, disabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
pub(super) const UPDATE_USER: &str = "UPDATE users SET display_name = $1, password_hash = $2, role = $3, disabled = $4, updated_at = $5 WHERE id = $6";
pub(super) const COUNT_USERS: &str = "SELECT COUNT(*) FROM users";
pub(super) const COUNT_ACTIVE_ADMINS: &str =
    "SELECT COUNT(*) FROM users WHERE realm_id = $1 AND role = 'admin' AND disabled = FALSE";

pub(super) const LINK_COLUMNS: &str =
    "token_hash, realm_id, user_id, purpose, created_at, expires_at";
pub(super) const INSERT_LINK: &str = "INSERT INTO user_links (token_hash, realm_id, user_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)";
pub(super) const SUPERSEDE_SETUP_LINKS: &str =
    "UPDATE user_links SET used_at = $1 WHERE purpose = 'setup' AND used_at IS NULL";
pub(super) const SUPERSEDE_RESET_LINKS: &str = "UPDATE user_links SET used_at = $1 WHERE purpose = 'password_reset' AND user_id = $2 AND used_at IS NULL";
pub(super) const CONSUME_SETUP_LINK: &str = "UPDATE user_links SET used_at = $1 WHERE token_hash = $2 AND purpose = 'setup' AND used_at IS NULL AND expires_at > $1";
pub(super) const CONSUME_RESET_LINK: &str = "UPDATE user_links SET used_at = $1 WHERE token_hash = $2 AND user_id = $3 AND purpose = 'password_reset' AND used_at IS NULL AND expires_at > $1";
pub(super) const SET_PASSWORD: &str =
    "UPDATE users SET password_hash = $1, updated_at = $2 WHERE id = $3";

pub(super) const INSERT_AUDIT: &str = "INSERT INTO audit_events (realm_id, occurred_at, actor, action, target, outcome, request_id, client_ip, details) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
pub(super) const AUDIT_SELECT: &str = "SELECT a.id, r.name AS realm, a.occurred_at, a.actor, a.action, a.target, a.outcome, a.request_id, a.client_ip, a.details FROM audit_events a JOIN realms r ON r.id = a.realm_id WHERE 1 = 1";
pub(super) const AUDIT_COUNT: &str =
    "SELECT COUNT(*) FROM audit_events a JOIN realms r ON r.id = a.realm_id WHERE 1 = 1";

pub(super) const KEY_COLUMNS: &str = "kid, realm_id, alg, state, public_jwk, sealed_private_key, created_at, activated_at, retired_at, publish_until";
pub(super) const INSERT_KEY: &str = "INSERT INTO signing_keys (kid, realm_id, alg, state, public_jwk, sealed_private_key, created_at, activated_at, retired_at, publish_until) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
pub(super) const RETIRE_ACTIVE_KEY: &str = "UPDATE signing_keys SET state = 'retired', retired_at = $1, publish_until = $2 WHERE realm_id = $3 AND alg = $4 AND state = 'active'";
pub(super) const ACTIVATE_NEXT_KEY: &str = "UPDATE signing_keys SET state = 'active', activated_at = $1 WHERE realm_id = $2 AND alg = $3 AND state = 'next'";

pub(super) const RESOURCE_COLUMNS: &str = "id, realm_id, slug, display_name, uri, scopes, token_ttl_secs, signing_alg, enabled, created_at, updated_at";
pub(super) const INSERT_RESOURCE: &str = "INSERT INTO resources (id, realm_id, slug, display_name, uri, scopes, token_ttl_secs, signing_alg, enabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
pub(super) const UPDATE_RESOURCE: &str = "UPDATE resources SET display_name = $1, uri = $2, scopes = $3, token_ttl_secs = $4, signing_alg = $5, enabled = $6, updated_at = $7 WHERE id = $8";
pub(super) const DELETE_RESOURCE: &str = "DELETE FROM resources WHERE id = $1";

pub(super) const CLIENT_COLUMNS: &str = "id, realm_id, client_id, name, auth_method, grant_types, scope, metadata, agent_id, enabled, created_at, updated_at";
pub(super) const INSERT_CLIENT: &str = "INSERT INTO clients (id, realm_id, client_id, name, auth_method, grant_types, scope, metadata, agent_id, enabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";
pub(super) const UPDATE_CLIENT: &str = "UPDATE clients SET name = $1, auth_method = $2, grant_types = $3, scope = $4, metadata = $5, enabled = $6, updated_at = $7, agent_id = $8 WHERE id = $9";

pub(super) const AGENT_COLUMNS: &str =
    "id, realm_id, name, owner, description, roles, expires_at, disabled, created_at, updated_at";
pub(super) const INSERT_AGENT: &str = "INSERT INTO agents (id, realm_id, name, owner, description, roles, expires_at, disabled, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
pub(super) const UPDATE_AGENT: &str = "UPDATE agents SET owner = $1, description = $2, roles = $3, expires_at = $4, disabled = $5, updated_at = $6 WHERE id = $7";
pub(super) const UNBIND_AGENT_CLIENTS: &str =
    "UPDATE clients SET agent_id = NULL WHERE agent_id = $1";
pub(super) const DELETE_AGENT: &str = "DELETE FROM agents WHERE id = $1";
pub(super) const DELETE_CLIENT: &str = "DELETE FROM clients WHERE id = $1";
pub(super) const INSERT_SECRET: &str = "INSERT INTO client_secrets (id, client_pk, secret_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)";
pub(super) const EXPIRE_CURRENT_SECRETS: &str = "UPDATE client_secrets SET expires_at = $1 WHERE client_pk = $2 AND (expires_at IS NULL OR expires_at > $1)";

pub(super) const INSERT_REVOKED: &str = "INSERT INTO revoked_tokens (realm_id, jti, expires_at) VALUES ($1, $2, $3) ON CONFLICT (realm_id, jti) DO NOTHING";
pub(super) const IS_REVOKED: &str =
    "SELECT COUNT(*) FROM revoked_tokens WHERE realm_id = $1 AND jti = $2";

/// Implements every store trait for one backend. `$store` is the struct to define, `$db` the
/// sqlx database type and `$pool` its pool type.
macro_rules! impl_store {
    ($(#[$meta:meta])* $store:ident, $db:ty, $pool:ty) => {
        use $crate::accounts::{Email, LinkPurpose, OneTimeLink, User};
        use $crate::audit::{AuditEvent, AuditFilter, NewAuditEvent};
        use $crate::clock::UnixTime;
        use $crate::error::StorageError;
        use $crate::realms::{Realm, RealmName};
        use $crate::clients::{Client, ClientSecret};
        use $crate::keys::SigningAlg;
        use $crate::resources::{Resource, ResourceUri};
        use $crate::agents::Agent;
        use $crate::storage::rows::{
            AgentRow, AuditRow, ClientRow, KeyRow, LinkRow, RealmRow, ResourceRow, SecretRow, UserRow,
        };
        use $crate::storage::sql::*;
        use $crate::storage::{
            contains_pattern, AgentStore, AssertionStore, AuditStore, ClientStore, HealthStore, KeyStore, Page, Paged, RealmStore,
            ResourceStore, RevocationStore, StoredKey, UserStore,
        };
        use async_trait::async_trait;

        $(#[$meta])*
        #[derive(Debug, Clone)]
        pub struct $store {
            pool: $pool,
        }

        impl $store {
            /// Wraps a pool whose database has the migrations applied.
            pub fn new(pool: $pool) -> Self {
                Self { pool }
            }

            /// The underlying pool.
            pub fn pool(&self) -> &$pool {
                &self.pool
            }
        }

        /// A paged list of one realm's rows, optionally filtered by a case-insensitive substring
        /// of either search field (LIKE wildcards in the query are literal).
        struct Search {
            table: &'static str,
            columns: &'static str,
            fields: [&'static str; 2],
            order: &'static str,
        }

        impl Search {
            fn filter(&self, qb: &mut sqlx::QueryBuilder<'_, $db>, realm_id: &str, pattern: Option<&String>) {
                qb.push(" WHERE realm_id = ").push_bind(realm_id.to_owned());
                if let Some(p) = pattern {
                    qb.push(format!(" AND (lower({}) LIKE ", self.fields[0]))
                        .push_bind(p.clone())
                        .push(format!(" ESCAPE '\\' OR lower({}) LIKE ", self.fields[1]))
                        .push_bind(p.clone())
                        .push(" ESCAPE '\\')");
                }
            }

            async fn page<R>(&self, pool: &$pool, realm_id: &str, query: Option<&str>, page: Page) -> Result<(Vec<R>, u64), StorageError>
            where
                R: for<'r> sqlx::FromRow<'r, <$db as sqlx::Database>::Row> + Send + Unpin,
            {
                let pattern = query.map(contains_pattern);
                let mut qb = sqlx::QueryBuilder::<$db>::new(format!("SELECT {} FROM {}", self.columns, self.table));
                self.filter(&mut qb, realm_id, pattern.as_ref());
                qb.push(format!(" ORDER BY {} LIMIT ", self.order))
                    .push_bind(i64::from(page.limit))
                    .push(" OFFSET ")
                    .push_bind(i64::from(page.offset));
                let rows = qb.build_query_as::<R>().fetch_all(pool).await?;
                let mut qb = sqlx::QueryBuilder::<$db>::new(format!("SELECT COUNT(*) FROM {}", self.table));
                self.filter(&mut qb, realm_id, pattern.as_ref());
                let total: i64 = qb.build_query_scalar().fetch_one(pool).await?;
                Ok((rows, u64::try_from(total).unwrap_or(0)))
            }
        }

        async fn insert_audit(
            conn: &mut <$db as sqlx::Database>::Connection,
            e: &NewAuditEvent,
        ) -> Result<(), StorageError> {
            sqlx::query(INSERT_AUDIT)
                .bind(&e.realm_id)
                .bind(e.occurred_at)
                .bind(&e.actor)
                .bind(e.action)
                .bind(&e.target)
                .bind(e.outcome.as_str())
                .bind(&e.request_id)
                .bind(&e.client_ip)
                .bind(e.details.to_string())
                .execute(conn)
                .await?;
            Ok(())
        }

        /// Ends a single-row change: `NotFound` (rolled back) when no row matched, else writes
        /// the audit event and commits.
        async fn commit_one(
            mut tx: sqlx::Transaction<'_, $db>,
            rows: u64,
            event: &NewAuditEvent,
        ) -> Result<(), StorageError> {
            if rows == 0 {
                return Err(StorageError::NotFound);
            }
            insert_audit(&mut tx, event).await?;
            tx.commit().await?;
            Ok(())
        }

        /// One realm's resource whose `column` (a fixed column name, never input) equals `value`.
        async fn resource_where(
            pool: &$pool,
            realm_id: &str,
            column: &'static str,
            value: &str,
        ) -> Result<Option<Resource>, StorageError> {
            let sql = format!("SELECT {RESOURCE_COLUMNS} FROM resources WHERE realm_id = $1 AND {column} = $2");
            sqlx::query_as::<_, ResourceRow>(&sql)
                .bind(realm_id)
                .bind(value)
                .fetch_optional(pool)
                .await?
                .map(Resource::try_from)
                .transpose()
        }

        fn bind_realm<'q>(
            q: sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>>,
            r: &'q Realm,
        ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
            q.bind(&r.id)
                .bind(r.name.as_str())
                .bind(&r.display_name)
                .bind(r.enabled)
                .bind(r.created_at)
                .bind(r.updated_at)
        }

        #[async_trait]
        impl RealmStore for $store {
            async fn insert_realm_if_absent(
                &self,
                realm: &Realm,
                event: &NewAuditEvent,
            ) -> Result<bool, StorageError> {
                let mut tx = self.pool.begin().await?;
                let n = bind_realm(sqlx::query(INSERT_REALM_IF_ABSENT), realm)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if n == 0 {
                    return Ok(false);
                }
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn insert_realm(
                &self,
                realm: &Realm,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                bind_realm(sqlx::query(INSERT_REALM), realm).execute(&mut *tx).await?;
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn find_realm(&self, id: &str) -> Result<Option<Realm>, StorageError> {
                let sql = format!("SELECT {REALM_COLUMNS} FROM realms WHERE id = $1");
                sqlx::query_as::<_, RealmRow>(&sql)
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?
                    .map(Realm::try_from)
                    .transpose()
            }

            async fn find_realm_by_name(
                &self,
                name: &RealmName,
            ) -> Result<Option<Realm>, StorageError> {
                let sql = format!("SELECT {REALM_COLUMNS} FROM realms WHERE name = $1");
                sqlx::query_as::<_, RealmRow>(&sql)
                    .bind(name.as_str())
                    .fetch_optional(&self.pool)
                    .await?
                    .map(Realm::try_from)
                    .transpose()
            }

            async fn list_realms(&self) -> Result<Vec<Realm>, StorageError> {
                let sql = format!("SELECT {REALM_COLUMNS} FROM realms ORDER BY name");
                sqlx::query_as::<_, RealmRow>(&sql)
                    .fetch_all(&self.pool)
                    .await?
                    .into_iter()
                    .map(Realm::try_from)
                    .collect()
            }

            async fn update_realm(
                &self,
                realm: &Realm,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                let n = sqlx::query(UPDATE_REALM)
                    .bind(realm.name.as_str())
                    .bind(&realm.display_name)
                    .bind(realm.enabled)
                    .bind(realm.updated_at)
                    .bind(&realm.id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                commit_one(tx, n, event).await
            }

            async fn set_default_resource(
                &self,
                realm_id: &str,
                resource_id: Option<&str>,
                updated_at: UnixTime,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                let n = sqlx::query(SET_DEFAULT_RESOURCE)
                    .bind(resource_id)
                    .bind(updated_at)
                    .bind(realm_id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                commit_one(tx, n, event).await
            }
        }

        #[async_trait]
        impl UserStore for $store {
            async fn insert_user(
                &self,
                user: &User,
                link: Option<&OneTimeLink>,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                insert_user_row(&mut tx, user).await?;
                if let Some(link) = link {
                    insert_link_row(&mut tx, link).await?;
                }
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn find_user(&self, id: &str) -> Result<Option<User>, StorageError> {
                let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE id = $1");
                sqlx::query_as::<_, UserRow>(&sql)
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?
                    .map(User::try_from)
                    .transpose()
            }

            async fn find_user_by_email(
                &self,
                realm_id: &str,
                email: &Email,
            ) -> Result<Option<User>, StorageError> {
                let sql =
                    format!("SELECT {USER_COLUMNS} FROM users WHERE realm_id = $1 AND email = $2");
                sqlx::query_as::<_, UserRow>(&sql)
                    .bind(realm_id)
                    .bind(email.as_str())
                    .fetch_optional(&self.pool)
                    .await?
                    .map(User::try_from)
                    .transpose()
            }

            async fn list_users(
                &self,
                realm_id: &str,
                query: Option<&str>,
                page: Page,
            ) -> Result<Paged<User>, StorageError> {
                let search = Search { table: "users", columns: USER_COLUMNS, fields: ["email", "display_name"], order: "email" };
                let (rows, total) = search.page::<UserRow>(&self.pool, realm_id, query, page).await?;
                let items = rows.into_iter().map(User::try_from).collect::<Result<Vec<_>, _>>()?;
                Ok(Paged { items, total })
            }

            async fn count_users(&self) -> Result<u64, StorageError> {
                let n: i64 = sqlx::query_scalar(COUNT_USERS).fetch_one(&self.pool).await?;
                Ok(u64::try_from(n).unwrap_or(0))
            }

            async fn count_active_admins(&self, realm_id: &str) -> Result<u64, StorageError> {
                let n: i64 = sqlx::query_scalar(COUNT_ACTIVE_ADMINS)
                    .bind(realm_id)
                    .fetch_one(&self.pool)
                    .await?;
                Ok(u64::try_from(n).unwrap_or(0))
            }

            async fn update_user(
                &self,
                user: &User,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                let n = sqlx::query(UPDATE_USER)
                    .bind(&user.display_name)
                    .bind(&user.password_hash)
                    .bind(user.role.as_str())
                    .bind(user.disabled)
                    .bind(user.updated_at)
                    .bind(&user.id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                commit_one(tx, n, event).await
            }

            async fn insert_link(
                &self,
                link: &OneTimeLink,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                match link.purpose {
                    LinkPurpose::Setup => {
                        sqlx::query(SUPERSEDE_SETUP_LINKS)
                            .bind(link.created_at)
                            .execute(&mut *tx)
                            .await?;
                    }
                    LinkPurpose::PasswordReset => {
                        sqlx::query(SUPERSEDE_RESET_LINKS)
                            .bind(link.created_at)
                            .bind(&link.user_id)
                            .execute(&mut *tx)
                            .await?;
                    }
                }
                insert_link_row(&mut tx, link).await?;
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn find_active_link(
                &self,
                token_hash: &[u8],
                now: UnixTime,
            ) -> Result<Option<OneTimeLink>, StorageError> {
                let sql = format!(
                    "SELECT {LINK_COLUMNS} FROM user_links WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2"
                );
                sqlx::query_as::<_, LinkRow>(&sql)
                    .bind(token_hash)
                    .bind(now)
                    .fetch_optional(&self.pool)
                    .await?
                    .map(OneTimeLink::try_from)
                    .transpose()
            }

            async fn complete_setup(
                &self,
                token_hash: &[u8],
                now: UnixTime,
                user: &User,
                event: &NewAuditEvent,
            ) -> Result<bool, StorageError> {
                let mut tx = self.pool.begin().await?;
                let consumed = sqlx::query(CONSUME_SETUP_LINK)
                    .bind(now)
                    .bind(token_hash)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                let users: i64 = sqlx::query_scalar(COUNT_USERS).fetch_one(&mut *tx).await?;
                if consumed != 1 || users != 0 {
                    // Dropping the transaction rolls it back: nothing is half-written.
                    return Ok(false);
                }
                insert_user_row(&mut tx, user).await?;
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn reset_password(
                &self,
                token_hash: &[u8],
                user_id: &str,
                password_hash: &str,
                now: UnixTime,
                event: &NewAuditEvent,
            ) -> Result<bool, StorageError> {
                let mut tx = self.pool.begin().await?;
                let consumed = sqlx::query(CONSUME_RESET_LINK)
                    .bind(now)
                    .bind(token_hash)
                    .bind(user_id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if consumed != 1 {
                    return Ok(false);
                }
                sqlx::query(SET_PASSWORD)
                    .bind(password_hash)
                    .bind(now)
                    .bind(user_id)
                    .execute(&mut *tx)
                    .await?;
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(true)
            }
        }

        async fn insert_user_row(
            conn: &mut <$db as sqlx::Database>::Connection,
            user: &User,
        ) -> Result<(), StorageError> {
            sqlx::query(INSERT_USER)
                .bind(&user.id)
                .bind(&user.realm_id)
                .bind(user.email.as_str())
                .bind(&user.display_name)
                .bind(&user.password_hash)
                .bind(user.role.as_str())
                .bind(user.disabled)
                .bind(user.created_at)
                .bind(user.updated_at)
                .execute(conn)
                .await?;
            Ok(())
        }

        async fn insert_link_row(
            conn: &mut <$db as sqlx::Database>::Connection,
            link: &OneTimeLink,
        ) -> Result<(), StorageError> {
            sqlx::query(INSERT_LINK)
                .bind(&link.token_hash)
                .bind(&link.realm_id)
                .bind(&link.user_id)
                .bind(link.purpose.as_str())
                .bind(link.created_at)
                .bind(link.expires_at)
                .execute(conn)
                .await?;
            Ok(())
        }

        #[async_trait]
        impl AuditStore for $store {
            async fn insert_audit_event(&self, event: &NewAuditEvent) -> Result<(), StorageError> {
                let mut conn = self.pool.acquire().await?;
                insert_audit(&mut conn, event).await
            }

            async fn list_audit_events(
                &self,
                f: &AuditFilter,
                page: Page,
            ) -> Result<Paged<AuditEvent>, StorageError> {
                let actor = f.actor.as_deref().map(contains_pattern);
                let target = f.target.as_deref().map(contains_pattern);
                let filter = |qb: &mut sqlx::QueryBuilder<'_, $db>| {
                    if let Some(v) = &f.realm_id {
                        qb.push(" AND a.realm_id = ").push_bind(v.clone());
                    }
                    if let Some(v) = &f.action {
                        qb.push(" AND a.action = ").push_bind(v.clone());
                    }
                    if let Some(v) = &actor {
                        qb.push(" AND lower(a.actor) LIKE ").push_bind(v.clone()).push(" ESCAPE '\\'");
                    }
                    if let Some(v) = &target {
                        qb.push(" AND lower(a.target) LIKE ").push_bind(v.clone()).push(" ESCAPE '\\'");
                    }
                    if let Some(v) = f.from {
                        qb.push(" AND a.occurred_at >= ").push_bind(v);
                    }
                    if let Some(v) = f.to {
                        qb.push(" AND a.occurred_at < ").push_bind(v);
                    }
                };
                let mut qb = sqlx::QueryBuilder::<$db>::new(AUDIT_SELECT);
                filter(&mut qb);
                qb.push(" ORDER BY a.id DESC LIMIT ")
                    .push_bind(i64::from(page.limit))
                    .push(" OFFSET ")
                    .push_bind(i64::from(page.offset));
                let items = qb
                    .build_query_as::<AuditRow>()
                    .fetch_all(&self.pool)
                    .await?
                    .into_iter()
                    .map(AuditEvent::try_from)
                    .collect::<Result<Vec<_>, _>>()?;
                let mut qb = sqlx::QueryBuilder::<$db>::new(AUDIT_COUNT);
                filter(&mut qb);
                let total: i64 = qb.build_query_scalar().fetch_one(&self.pool).await?;
                Ok(Paged { items, total: u64::try_from(total).unwrap_or(0) })
            }
        }

        async fn insert_key_row(
            conn: &mut <$db as sqlx::Database>::Connection,
            k: &StoredKey,
        ) -> Result<(), StorageError> {
            sqlx::query(INSERT_KEY)
                .bind(&k.kid)
                .bind(&k.realm_id)
                .bind(k.alg.as_str())
                .bind(k.state.as_str())
                .bind(k.public_jwk.to_string())
                .bind(&k.sealed_private_key)
                .bind(k.created_at)
                .bind(k.activated_at)
                .bind(k.retired_at)
                .bind(k.publish_until)
                .execute(conn)
                .await?;
            Ok(())
        }

        #[async_trait]
        impl KeyStore for $store {
            async fn insert_signing_key(&self, key: &StoredKey, event: &NewAuditEvent) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                insert_key_row(&mut tx, key).await?;
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn list_signing_keys(&self, realm_id: &str) -> Result<Vec<StoredKey>, StorageError> {
                let sql = format!("SELECT {KEY_COLUMNS} FROM signing_keys WHERE realm_id = $1 ORDER BY created_at DESC, kid");
                sqlx::query_as::<_, KeyRow>(&sql)
                    .bind(realm_id)
                    .fetch_all(&self.pool)
                    .await?
                    .into_iter()
                    .map(StoredKey::try_from)
                    .collect()
            }

            async fn rotate_signing_keys(
                &self,
                realm_id: &str,
                alg: SigningAlg,
                new_next: &StoredKey,
                publish_until: UnixTime,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                let now = new_next.created_at;
                let mut tx = self.pool.begin().await?;
                let retired = sqlx::query(RETIRE_ACTIVE_KEY)
                    .bind(now)
                    .bind(publish_until)
                    .bind(realm_id)
                    .bind(alg.as_str())
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                let activated = sqlx::query(ACTIVATE_NEXT_KEY)
                    .bind(now)
                    .bind(realm_id)
                    .bind(alg.as_str())
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if retired != 1 || activated != 1 {
                    return Err(StorageError::NotFound);
                }
                insert_key_row(&mut tx, new_next).await?;
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(())
            }
        }

        fn bind_resource<'q>(
            q: sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>>,
            r: &'q Resource,
        ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
            q.bind(r.display_name.as_str())
                .bind(r.uri.as_str())
                .bind(r.scopes.to_string())
                .bind(r.token_ttl_secs)
                .bind(r.signing_alg.map(SigningAlg::as_str))
                .bind(r.enabled)
        }

        #[async_trait]
        impl ResourceStore for $store {
            async fn insert_resource(&self, r: &Resource, event: &NewAuditEvent) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                let q = sqlx::query(INSERT_RESOURCE).bind(&r.id).bind(&r.realm_id).bind(&r.slug);
                bind_resource(q, r)
                    .bind(r.created_at)
                    .bind(r.updated_at)
                    .execute(&mut *tx)
                    .await?;
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn find_resource(&self, realm_id: &str, slug: &str) -> Result<Option<Resource>, StorageError> {
                resource_where(&self.pool, realm_id, "slug", slug).await
            }

            async fn find_resource_by_id(&self, realm_id: &str, id: &str) -> Result<Option<Resource>, StorageError> {
                resource_where(&self.pool, realm_id, "id", id).await
            }

            async fn find_resource_by_uri(&self, realm_id: &str, uri: &ResourceUri) -> Result<Option<Resource>, StorageError> {
                resource_where(&self.pool, realm_id, "uri", uri.as_str()).await
            }

            async fn list_resources(&self, realm_id: &str) -> Result<Vec<Resource>, StorageError> {
                let sql = format!("SELECT {RESOURCE_COLUMNS} FROM resources WHERE realm_id = $1 ORDER BY slug");
                sqlx::query_as::<_, ResourceRow>(&sql)
                    .bind(realm_id)
                    .fetch_all(&self.pool)
                    .await?
                    .into_iter()
                    .map(Resource::try_from)
                    .collect()
            }

            async fn update_resource(&self, r: &Resource, event: &NewAuditEvent) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                let n = bind_resource(sqlx::query(UPDATE_RESOURCE), r)
                    .bind(r.updated_at)
                    .bind(&r.id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                commit_one(tx, n, event).await
            }

            async fn delete_resource(&self, id: &str, event: &NewAuditEvent) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                let n = sqlx::query(DELETE_RESOURCE).bind(id).execute(&mut *tx).await?.rows_affected();
                commit_one(tx, n, event).await
            }
        }

        fn grant_types_text(c: &Client) -> String {
            c.grant_types.iter().map(|g| g.as_str()).collect::<Vec<_>>().join(" ")
        }

        async fn insert_secret_row(
            conn: &mut <$db as sqlx::Database>::Connection,
            s: &ClientSecret,
        ) -> Result<(), StorageError> {
            sqlx::query(INSERT_SECRET)
                .bind(&s.id)
                .bind(&s.client_pk)
                .bind(&s.secret_hash)
                .bind(s.created_at)
                .bind(s.expires_at)
                .execute(conn)
                .await?;
            Ok(())
        }

        #[async_trait]
        impl ClientStore for $store {
            async fn insert_client(
                &self,
                c: &Client,
                secret: Option<&ClientSecret>,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                let metadata = serde_json::to_string(&c.metadata).map_err(|e| StorageError::Corrupt(e.to_string()))?;
                let mut tx = self.pool.begin().await?;
                sqlx::query(INSERT_CLIENT)
                    .bind(&c.id)
                    .bind(&c.realm_id)
                    .bind(&c.client_id)
                    .bind(&c.name)
                    .bind(c.auth_method.as_str())
                    .bind(grant_types_text(c))
                    .bind(c.scope.to_string())
                    .bind(metadata)
                    .bind(&c.agent_id)
                    .bind(c.enabled)
                    .bind(c.created_at)
                    .bind(c.updated_at)
                    .execute(&mut *tx)
                    .await?;
                if let Some(s) = secret {
                    insert_secret_row(&mut tx, s).await?;
                }
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn find_client(&self, realm_id: &str, client_id: &str) -> Result<Option<Client>, StorageError> {
                let sql = format!("SELECT {CLIENT_COLUMNS} FROM clients WHERE realm_id = $1 AND client_id = $2");
                sqlx::query_as::<_, ClientRow>(&sql)
                    .bind(realm_id)
                    .bind(client_id)
                    .fetch_optional(&self.pool)
                    .await?
                    .map(Client::try_from)
                    .transpose()
            }

            async fn list_clients(&self, realm_id: &str, query: Option<&str>, page: Page) -> Result<Paged<Client>, StorageError> {
                let search = Search { table: "clients", columns: CLIENT_COLUMNS, fields: ["client_id", "name"], order: "client_id" };
                let (rows, total) = search.page::<ClientRow>(&self.pool, realm_id, query, page).await?;
                let items = rows.into_iter().map(Client::try_from).collect::<Result<Vec<_>, _>>()?;
                Ok(Paged { items, total })
            }

            async fn update_client(&self, c: &Client, event: &NewAuditEvent) -> Result<(), StorageError> {
                let metadata = serde_json::to_string(&c.metadata).map_err(|e| StorageError::Corrupt(e.to_string()))?;
                let mut tx = self.pool.begin().await?;
                let n = sqlx::query(UPDATE_CLIENT)
                    .bind(&c.name)
                    .bind(c.auth_method.as_str())
                    .bind(grant_types_text(c))
                    .bind(c.scope.to_string())
                    .bind(metadata)
                    .bind(c.enabled)
                    .bind(c.updated_at)
                    .bind(&c.agent_id)
                    .bind(&c.id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                commit_one(tx, n, event).await
            }

            async fn delete_client(&self, id: &str, event: &NewAuditEvent) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                let n = sqlx::query(DELETE_CLIENT).bind(id).execute(&mut *tx).await?.rows_affected();
                commit_one(tx, n, event).await
            }

            async fn list_client_secrets(&self, client_pk: &str) -> Result<Vec<ClientSecret>, StorageError> {
                Ok(sqlx::query_as::<_, SecretRow>(
                    "SELECT id, client_pk, secret_hash, created_at, expires_at FROM client_secrets WHERE client_pk = $1 ORDER BY created_at DESC, id",
                )
                .bind(client_pk)
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
                let mut tx = self.pool.begin().await?;
                sqlx::query(EXPIRE_CURRENT_SECRETS)
                    .bind(old_expires_at)
                    .bind(&new.client_pk)
                    .execute(&mut *tx)
                    .await?;
                insert_secret_row(&mut tx, new).await?;
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(())
            }
        }

        #[async_trait]
        impl AgentStore for $store {
            async fn insert_agent(&self, a: &Agent, event: &NewAuditEvent) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                sqlx::query(INSERT_AGENT)
                    .bind(&a.id)
                    .bind(&a.realm_id)
                    .bind(&a.name)
                    .bind(&a.owner)
                    .bind(&a.description)
                    .bind(a.roles.to_string())
                    .bind(a.expires_at)
                    .bind(a.disabled)
                    .bind(a.created_at)
                    .bind(a.updated_at)
                    .execute(&mut *tx)
                    .await?;
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn find_agent(&self, realm_id: &str, name: &str) -> Result<Option<Agent>, StorageError> {
                let sql = format!("SELECT {AGENT_COLUMNS} FROM agents WHERE realm_id = $1 AND name = $2");
                sqlx::query_as::<_, AgentRow>(&sql)
                    .bind(realm_id)
                    .bind(name)
                    .fetch_optional(&self.pool)
                    .await?
                    .map(Agent::try_from)
                    .transpose()
            }

            async fn find_agent_by_id(&self, id: &str) -> Result<Option<Agent>, StorageError> {
                let sql = format!("SELECT {AGENT_COLUMNS} FROM agents WHERE id = $1");
                sqlx::query_as::<_, AgentRow>(&sql)
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?
                    .map(Agent::try_from)
                    .transpose()
            }

            async fn list_agents(&self, realm_id: &str) -> Result<Vec<Agent>, StorageError> {
                let sql = format!("SELECT {AGENT_COLUMNS} FROM agents WHERE realm_id = $1 ORDER BY name");
                sqlx::query_as::<_, AgentRow>(&sql)
                    .bind(realm_id)
                    .fetch_all(&self.pool)
                    .await?
                    .into_iter()
                    .map(Agent::try_from)
                    .collect()
            }

            async fn list_agent_clients(&self, agent_id: &str) -> Result<Vec<String>, StorageError> {
                Ok(sqlx::query_scalar("SELECT client_id FROM clients WHERE agent_id = $1 ORDER BY client_id")
                    .bind(agent_id)
                    .fetch_all(&self.pool)
                    .await?)
            }

            async fn update_agent(&self, a: &Agent, event: &NewAuditEvent) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                let n = sqlx::query(UPDATE_AGENT)
                    .bind(&a.owner)
                    .bind(&a.description)
                    .bind(a.roles.to_string())
                    .bind(a.expires_at)
                    .bind(a.disabled)
                    .bind(a.updated_at)
                    .bind(&a.id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                commit_one(tx, n, event).await
            }

            async fn delete_agent(&self, id: &str, event: &NewAuditEvent) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                sqlx::query(UNBIND_AGENT_CLIENTS).bind(id).execute(&mut *tx).await?;
                let n = sqlx::query(DELETE_AGENT).bind(id).execute(&mut *tx).await?.rows_affected();
                commit_one(tx, n, event).await
            }
        }

        #[async_trait]
        impl AssertionStore for $store {
            async fn consume_assertion_jti(
                &self,
                realm_id: &str,
                client_id: &str,
                jti: &str,
                expires_at: UnixTime,
                now: UnixTime,
            ) -> Result<bool, StorageError> {
                sqlx::query("DELETE FROM client_assertion_jtis WHERE expires_at <= $1")
                    .bind(now)
                    .execute(&self.pool)
                    .await?;
                let n = sqlx::query(
                    "INSERT INTO client_assertion_jtis (realm_id, client_id, jti, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT (realm_id, client_id, jti) DO NOTHING",
                )
                .bind(realm_id)
                .bind(client_id)
                .bind(jti)
                .bind(expires_at)
                .execute(&self.pool)
                .await?
                .rows_affected();
                Ok(n == 1)
            }
        }

        #[async_trait]
        impl RevocationStore for $store {
            async fn insert_revoked_token(
                &self,
                realm_id: &str,
                jti: &str,
                expires_at: UnixTime,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                let mut tx = self.pool.begin().await?;
                sqlx::query(INSERT_REVOKED)
                    .bind(realm_id)
                    .bind(jti)
                    .bind(expires_at)
                    .execute(&mut *tx)
                    .await?;
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn is_token_revoked(&self, realm_id: &str, jti: &str) -> Result<bool, StorageError> {
                let n: i64 = sqlx::query_scalar(IS_REVOKED)
                    .bind(realm_id)
                    .bind(jti)
                    .fetch_one(&self.pool)
                    .await?;
                Ok(n > 0)
            }
        }

        #[async_trait]
        impl HealthStore for $store {
            async fn ping(&self) -> Result<(), StorageError> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }
        }
    };
}
