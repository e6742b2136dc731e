//! What every backend shares: the store struct, the audit insert, the commit helpers that end
//! every change (and bump the generation), and paged search.
//!
//! Every statement in `storage/` runs unchanged on SQLite and PostgreSQL: `$n` placeholders,
//! `BIGINT` Unix seconds, `TEXT` ids and JSON, `BLOB`/`BYTEA` hashes. Filtered lists are built
//! with `QueryBuilder`, which emits each backend's placeholder syntax.

pub(super) const INSERT_AUDIT: &str = "INSERT INTO audit_events (realm_id, occurred_at, actor, action, target, related, outcome, request_id, client_ip, details) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
/// [`INSERT_AUDIT`] without its values, for several rows in one statement.
pub(super) const INSERT_AUDIT_ROWS: &str = "INSERT INTO audit_events (realm_id, occurred_at, actor, action, target, related, outcome, request_id, client_ip, details) ";

/// Defines the store struct `$store` over `$pool` and the helpers the domain macros use;
/// `$dialect` says how the backend searches text.
macro_rules! common_store {
    ($(#[$meta:meta])* $store:ident, $db:ty, $pool:ty, $dialect:expr) => {
        use async_trait::async_trait;
        use std::sync::Arc;
        use $crate::audit::NewAuditEvent;
        use $crate::error::StorageError;
        use $crate::paging::Page;
        use $crate::storage::types::{
            BaseStore, Dialect, Generation, MIN_TRIGRAM_CHARS, contains_pattern, trigram_phrase,
        };

        /// How this backend searches text.
        const DIALECT: Dialect = $dialect;

        $(#[$meta])*
        #[derive(Debug, Clone)]
        pub struct $store {
            pool: $pool,
            generation: Arc<Generation>,
        }

        impl $store {
            /// Wraps a pool whose database has the migrations applied.
            pub fn new(pool: $pool) -> Self {
                Self { pool, generation: Arc::default() }
            }

            /// The underlying pool.
            pub fn pool(&self) -> &$pool {
                &self.pool
            }

            /// Starts a write transaction. On SQLite it takes the write lock at once
            /// (`BEGIN IMMEDIATE`): a deferred transaction that reads first and writes later
            /// fails at once with "database is locked" when another writer holds the lock,
            /// where an immediate one waits for it (the busy timeout).
            async fn begin(&self) -> Result<sqlx::Transaction<'_, $db>, sqlx::Error> {
                match DIALECT {
                    Dialect::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
                    _ => self.pool.begin().await,
                }
            }

            /// Ends a change to something the core caches (realms, resources, clients, agents,
            /// keys): writes its audit event, commits, and bumps the generation so every cached
            /// read of this process goes back to the database.
            async fn commit(
                &self,
                tx: sqlx::Transaction<'_, $db>,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                self.commit_uncached(tx, event).await?;
                self.generation.bump();
                Ok(())
            }

            /// Ends a change to something nothing caches (users, links, revocations): writes its
            /// audit event and commits, leaving the caches warm.
            async fn commit_uncached(
                &self,
                mut tx: sqlx::Transaction<'_, $db>,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                insert_audit(&mut tx, event).await?;
                tx.commit().await?;
                Ok(())
            }

            /// Ends a single-row change: `NotFound` (rolled back) when no row matched, else
            /// [`Self::commit`].
            async fn commit_one(
                &self,
                tx: sqlx::Transaction<'_, $db>,
                rows: u64,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                if rows == 0 {
                    // Rolled back before returning: a dropped transaction's rollback runs later,
                    // and on SQLite the write lock it holds until then makes the next writer
                    // fail with "database is locked".
                    tx.rollback().await?;
                    return Err(StorageError::NotFound);
                }
                self.commit(tx, event).await
            }

            /// Sets one flag of one row (`sql` is `UPDATE … SET <flag> = $1, updated_at = $2
            /// WHERE id = $3`, a fixed statement) with its audit event; `NotFound` if gone.
            async fn set_flag(
                &self,
                sql: &'static str,
                value: bool,
                updated_at: $crate::clock::UnixTime,
                id: &str,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                let mut tx = self.begin().await?;
                let n = sqlx::query(sql)
                    .bind(value)
                    .bind(updated_at)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                self.commit_one(tx, n, event).await
            }

            /// Ends a single-row change to a table nothing caches, as [`Self::commit_one`].
            async fn commit_one_uncached(
                &self,
                tx: sqlx::Transaction<'_, $db>,
                rows: u64,
                event: &NewAuditEvent,
            ) -> Result<(), StorageError> {
                if rows == 0 {
                    return Err(StorageError::NotFound);
                }
                self.commit_uncached(tx, event).await
            }
        }

        /// A SQLite trigram table indexing some text columns of a table's rows.
        struct Trigrams {
            /// The FTS5 table.
            table: &'static str,
            /// The outer row's key column (`id`, `a.id`).
            key: &'static str,
            /// The trigram table's column holding that key (`id`, or `rowid` for external
            /// content).
            fts_key: &'static str,
            /// The one trigram column to match (`None`: any of them).
            column: Option<&'static str>,
        }

        /// Appends ` AND <substring condition>` for `query` over `fields`: an indexed search
        /// where the backend has one (`trigrams` on SQLite; `pg_trgm` indexes on PostgreSQL
        /// serve `lower(field) LIKE`), `LIKE` otherwise (queries under three characters).
        fn push_text_search(
            qb: &mut sqlx::QueryBuilder<'_, $db>,
            query: &str,
            fields: &[&str],
            trigrams: Option<&Trigrams>,
        ) {
            match (DIALECT, trigrams) {
                (Dialect::Sqlite, Some(t)) if query.chars().count() >= MIN_TRIGRAM_CHARS => {
                    let phrase = trigram_phrase(&query.to_lowercase());
                    let expr = match t.column {
                        Some(c) => format!("{{{c}}} : {phrase}"),
                        None => phrase,
                    };
                    qb.push(format!(
                        " AND {} IN (SELECT {} FROM {} WHERE {} MATCH ",
                        t.key, t.fts_key, t.table, t.table
                    ))
                    .push_bind(expr)
                    .push(")");
                }
                _ => {
                    let pattern = contains_pattern(query);
                    qb.push(" AND (");
                    for (i, f) in fields.iter().enumerate() {
                        if i > 0 {
                            qb.push(" OR ");
                        }
                        qb.push(format!("lower({f}) LIKE "))
                            .push_bind(pattern.clone())
                            .push(" ESCAPE '\\'");
                    }
                    qb.push(")");
                }
            }
        }

        #[async_trait]
        impl BaseStore for $store {
            async fn ping(&self) -> Result<(), StorageError> {
                sqlx::query("SELECT 1").execute(&self.pool).await?;
                Ok(())
            }

            fn generation(&self) -> u64 {
                self.generation.get()
            }
        }

        async fn insert_audit(
            conn: &mut <$db as sqlx::Database>::Connection,
            e: &NewAuditEvent,
        ) -> Result<(), StorageError> {
            sqlx::query($crate::storage::sql::INSERT_AUDIT)
                .bind(e.realm_id.as_str())
                .bind(e.occurred_at)
                .bind(&e.actor)
                .bind(e.action)
                .bind(&e.target)
                .bind(&e.related)
                .bind(e.outcome.as_str())
                .bind(&e.request_id)
                .bind(&e.client_ip)
                .bind(e.details.to_string())
                .execute(conn)
                .await?;
            Ok(())
        }

        /// Ends a filtered list query (its WHERE clause pushed) with `page`'s key condition, order
        /// and limit: `key` is the list's order, unique in the set listed. A backwards page is
        /// read descending; [`Page::shape`] turns it around.
        fn push_key_page(qb: &mut sqlx::QueryBuilder<'_, $db>, key: &str, page: &Page) {
            match &page.cursor {
                $crate::paging::Cursor::First => {}
                $crate::paging::Cursor::After(k) => {
                    qb.push(format!(" AND {key} > ")).push_bind(k.clone());
                }
                $crate::paging::Cursor::Before(k) => {
                    qb.push(format!(" AND {key} < ")).push_bind(k.clone());
                }
            }
            let direction = if page.backwards() { "DESC" } else { "ASC" };
            qb.push(format!(" ORDER BY {key} {direction} LIMIT "))
                .push_bind(page.fetch());
        }

        /// A paged list of one realm's rows, optionally filtered by a case-insensitive substring
        /// of either search field (LIKE wildcards in the query are literal), plus extra
        /// conditions pushed by `extra`. `trigrams` names the SQLite trigram table that indexes
        /// the search fields, if there is one (keyed by `id`).
        struct Search {
            table: &'static str,
            columns: &'static str,
            fields: [&'static str; 2],
            order: &'static str,
            trigrams: Option<&'static str>,
        }

        impl Search {
            fn filter(
                &self,
                qb: &mut sqlx::QueryBuilder<'_, $db>,
                realm_id: &str,
                query: Option<&str>,
                extra: &(dyn Fn(&mut sqlx::QueryBuilder<'_, $db>) + Sync),
            ) {
                qb.push(" WHERE realm_id = ").push_bind(realm_id.to_owned());
                if let Some(q) = query {
                    let trigrams = self.trigrams.map(|table| Trigrams {
                        table,
                        key: "id",
                        fts_key: "id",
                        column: None,
                    });
                    push_text_search(qb, q, &self.fields, trigrams.as_ref());
                }
                extra(qb);
            }

            /// One page of the realm's rows matching `query` and `extra`, by key (`order`, unique
            /// in the realm); `key` reads a row's key.
            async fn page<R>(
                &self,
                pool: &$pool,
                realm_id: &str,
                query: Option<&str>,
                page: &Page,
                extra: &(dyn Fn(&mut sqlx::QueryBuilder<'_, $db>) + Sync),
                key: impl Fn(&R) -> String,
            ) -> Result<$crate::paging::Paged<R>, StorageError>
            where
                R: for<'r> sqlx::FromRow<'r, <$db as sqlx::Database>::Row> + Send + Unpin,
            {
                let mut qb = sqlx::QueryBuilder::<$db>::new(format!(
                    "SELECT {} FROM {}",
                    self.columns, self.table
                ));
                self.filter(&mut qb, realm_id, query, extra);
                push_key_page(&mut qb, self.order, page);
                // A search is planned for its pattern each time: a cached generic plan cannot
                // tell a selective pattern from a broad one and scans the whole realm.
                let prepared = query.is_none();
                let rows = qb
                    .build_query_as::<R>()
                    .persistent(prepared)
                    .fetch_all(pool)
                    .await?;
                let mut qb =
                    sqlx::QueryBuilder::<$db>::new(format!("SELECT COUNT(*) FROM {}", self.table));
                self.filter(&mut qb, realm_id, query, extra);
                let total: i64 = qb
                    .build_query_scalar()
                    .persistent(prepared)
                    .fetch_one(pool)
                    .await?;
                let mut paged = page.shape(rows, u64::try_from(total).unwrap_or(0), &key);
                // Where the page starts ("21–40 of 61"): the rows before its first.
                if let (Some(_), Some(first)) = (&paged.prev, paged.items.first().map(&key)) {
                    let mut qb = sqlx::QueryBuilder::<$db>::new(format!(
                        "SELECT COUNT(*) FROM {}",
                        self.table
                    ));
                    self.filter(&mut qb, realm_id, query, extra);
                    qb.push(format!(" AND {} < ", self.order)).push_bind(first);
                    let before: i64 = qb
                        .build_query_scalar()
                        .persistent(prepared)
                        .fetch_one(pool)
                        .await?;
                    paged.before = u64::try_from(before).unwrap_or(0);
                }
                Ok(paged)
            }
        }
    };
}
