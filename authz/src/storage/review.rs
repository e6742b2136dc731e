//! Review persistence: the self-registered clients a security reviewer decides on, as the
//! review inbox and its counts read them.
use crate::clients::{Client, ReviewState};
use crate::error::StorageError;
use crate::realms::RealmId;
use async_trait::async_trait;

/// Reads of the review desk.
#[async_trait]
pub trait ReviewStore: Send + Sync {
    /// Self-registered clients of a realm in one review state (the review queue and its
    /// tabs), newest first, at most `limit`.
    async fn list_clients_in_review(
        &self,
        realm_id: &RealmId,
        state: ReviewState,
        limit: i64,
    ) -> Result<Vec<Client>, StorageError>;
    /// Rejected clients of a realm whose metadata mentions `email` (lower case) as a JSON string,
    /// rejected at `since` or later, newest decision first, at most `limit`: the candidates for
    /// "your client was rejected" (the caller checks `contacts` itself). Only the window's
    /// rejections are read (an index on the decision's time), never every one the realm has.
    async fn list_rejected_clients_mentioning(
        &self,
        realm_id: &RealmId,
        email: &str,
        since: i64,
        limit: i64,
    ) -> Result<Vec<Client>, StorageError>;
    /// How many self-registered clients of a realm are in a review state.
    async fn count_clients_in_review(
        &self,
        realm_id: &RealmId,
        state: ReviewState,
    ) -> Result<u64, StorageError>;
    /// A page of the review inbox: self-registered clients in one review state across every
    /// realm (or one), filtered, newest (or oldest) first, after `after`, at most `limit`.
    async fn list_review_inbox(
        &self,
        filter: &crate::clients::InboxFilter,
        after: Option<&crate::clients::InboxCursor>,
        limit: i64,
    ) -> Result<Vec<Client>, StorageError>;
    /// How many self-registered clients matching the inbox's filters (its state aside) are in
    /// each review state; states with none are left out.
    async fn count_review_inbox(
        &self,
        filter: &crate::clients::InboxFilter,
    ) -> Result<Vec<(String, u64)>, StorageError>;
    /// How many self-registered clients are in each review state, across every realm (or in
    /// one); states with none are left out.
    async fn count_review_states(
        &self,
        realm_id: Option<&RealmId>,
    ) -> Result<Vec<(String, u64)>, StorageError>;
}

/// The clients a security reviewer decides on: those that registered themselves.
pub(super) const SELF_REGISTERED: &str =
    "registration_kind <> 'admin' AND resource_server_for IS NULL";
/// The condition of a client registered from an address with more than `$n` clients of its
/// realm (the inbox's "many from one address" filter). It looks for the (n+1)th on the
/// (realm, address) index and stops there: never a count of every client from a busy address.
pub(super) const CROWDED_CLIENT: &str = " AND source_ip IS NOT NULL AND EXISTS (SELECT 1 FROM clients same WHERE same.realm_id = clients.realm_id AND same.source_ip = clients.source_ip LIMIT 1 OFFSET ";

/// Implements [`ReviewStore`] for one backend's store.
macro_rules! review_store {
    ($store:ident, $db:ty) => {
        const _: () = {
            use $crate::clients::{Client, ReviewState};
            use $crate::error::StorageError;
            use $crate::realms::RealmId;
            use $crate::storage::clients::CLIENT_COLUMNS;
            use $crate::storage::review::*;
            use $crate::storage::rows::ClientRow;

            /// The inbox's filters but its state: realm, kind, search and risk signal.
            fn push_inbox_scope(
                qb: &mut sqlx::QueryBuilder<'_, $db>,
                filter: &$crate::clients::InboxFilter,
            ) {
                if let Some(realm) = &filter.realm_id {
                    qb.push(" AND realm_id = ").push_bind(realm.as_str().to_owned());
                }
                if let Some(kind) = filter.kind {
                    qb.push(" AND registration_kind = ").push_bind(kind.as_str());
                }
                if let Some(q) = filter.search.as_deref() {
                    let trigrams = Trigrams {
                        table: "clients_search",
                        key: "id",
                        fts_key: "id",
                        column: None,
                    };
                    push_text_search(qb, q, &["client_id", "name"], Some(&trigrams));
                }
                match filter.signal.map(|s| (s, s.flag())) {
                    // Flags are constants of the code, never input.
                    Some((_, Some(flag))) => {
                        qb.push(format!(" AND (risk_flags & {flag}) <> 0"));
                    }
                    Some(_) => {
                        qb.push(CROWDED_CLIENT)
                            .push_bind(
                                i64::try_from($crate::clients::CROWDED_SOURCE)
                                    .unwrap_or(i64::MAX),
                            )
                            .push(")");
                    }
                    None => {}
                }
            }

            #[async_trait::async_trait]
            impl ReviewStore for $store {
                async fn list_clients_in_review(
                    &self,
                    realm_id: &RealmId,
                    state: ReviewState,
                    limit: i64,
                ) -> Result<Vec<Client>, StorageError> {
                    let sql = format!(
                        "SELECT {CLIENT_COLUMNS} FROM clients WHERE realm_id = $1 AND review_state = $2 AND {SELF_REGISTERED} ORDER BY created_at DESC, id LIMIT $3"
                    );
                    sqlx::query_as::<_, ClientRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(state.as_str())
                        .bind(limit)
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(Client::try_from)
                        .collect()
                }

                async fn list_rejected_clients_mentioning(
                    &self,
                    realm_id: &RealmId,
                    email: &str,
                    since: i64,
                    limit: i64,
                ) -> Result<Vec<Client>, StorageError> {
                    let sql = format!(
                        "SELECT {CLIENT_COLUMNS} FROM clients WHERE realm_id = $1 AND review_state = 'rejected' AND lower(metadata) LIKE $2 ESCAPE '\\' AND reviewed_at >= $3 ORDER BY reviewed_at DESC, id LIMIT $4"
                    );
                    let pattern = $crate::storage::types::contains_pattern(&format!("\"{email}\""));
                    sqlx::query_as::<_, ClientRow>(&sql)
                        .bind(realm_id.as_str())
                        .bind(pattern)
                        .bind(since)
                        .bind(limit)
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(Client::try_from)
                        .collect()
                }

                async fn count_clients_in_review(
                    &self,
                    realm_id: &RealmId,
                    state: ReviewState,
                ) -> Result<u64, StorageError> {
                    let sql = format!(
                        "SELECT COUNT(*) FROM clients WHERE realm_id = $1 AND review_state = $2 AND {SELF_REGISTERED}"
                    );
                    let n: i64 = sqlx::query_scalar(&sql)
                    .bind(realm_id.as_str())
                    .bind(state.as_str())
                    .fetch_one(&self.pool)
                    .await?;
                    Ok(u64::try_from(n).unwrap_or(0))
                }

                async fn list_review_inbox(
                    &self,
                    filter: &crate::clients::InboxFilter,
                    after: Option<&crate::clients::InboxCursor>,
                    limit: i64,
                ) -> Result<Vec<Client>, StorageError> {
                    let mut qb = sqlx::QueryBuilder::new(format!(
                        "SELECT {CLIENT_COLUMNS} FROM clients WHERE {SELF_REGISTERED} AND review_state = "
                    ));
                    qb.push_bind(filter.state.as_str());
                    push_inbox_scope(&mut qb, filter);
                    let riskiest = filter.order == crate::clients::InboxOrder::Riskiest;
                    let (cmp, dir) = if filter.order == crate::clients::InboxOrder::Oldest {
                        (">", "ASC")
                    } else {
                        ("<", "DESC")
                    };
                    if let Some(c) = after {
                        qb.push(" AND (");
                        if riskiest {
                            let risk = c.risk.unwrap_or(i64::MAX);
                            qb.push("risk_score < ")
                                .push_bind(risk)
                                .push(" OR (risk_score = ")
                                .push_bind(risk)
                                .push(" AND (");
                        }
                        qb.push("created_at ")
                            .push(cmp)
                            .push(" ")
                            .push_bind(c.created_at)
                            .push(" OR (created_at = ")
                            .push_bind(c.created_at)
                            .push(" AND id ")
                            .push(cmp)
                            .push(" ")
                            .push_bind(c.id.clone())
                            .push("))");
                        if riskiest {
                            qb.push("))");
                        }
                    }
                    let risk = if riskiest { "risk_score DESC, " } else { "" };
                    qb.push(format!(" ORDER BY {risk}created_at {dir}, id {dir} LIMIT "))
                        .push_bind(limit);
                    qb.build_query_as::<ClientRow>()
                        .fetch_all(&self.pool)
                        .await?
                        .into_iter()
                        .map(Client::try_from)
                        .collect()
                }

                async fn count_review_inbox(
                    &self,
                    filter: &crate::clients::InboxFilter,
                ) -> Result<Vec<(String, u64)>, StorageError> {
                    let mut qb = sqlx::QueryBuilder::new(format!(
                        "SELECT review_state, COUNT(*) FROM clients WHERE {SELF_REGISTERED}"
                    ));
                    push_inbox_scope(&mut qb, filter);
                    qb.push(" GROUP BY review_state");
                    let rows: Vec<(String, i64)> = qb
                        .build_query_as()
                        .persistent(filter.search.is_none())
                        .fetch_all(&self.pool)
                        .await?;
                    Ok(rows
                        .into_iter()
                        .map(|(s, n)| (s, u64::try_from(n).unwrap_or(0)))
                        .collect())
                }

                async fn count_review_states(
                    &self,
                    realm_id: Option<&RealmId>,
                ) -> Result<Vec<(String, u64)>, StorageError> {
                    let mut qb = sqlx::QueryBuilder::new(format!(
                        "SELECT review_state, COUNT(*) FROM clients WHERE {SELF_REGISTERED}"
                    ));
                    if let Some(realm) = realm_id {
                        qb.push(" AND realm_id = ").push_bind(realm.as_str().to_owned());
                    }
                    qb.push(" GROUP BY review_state");
                    let rows: Vec<(String, i64)> =
                        qb.build_query_as().fetch_all(&self.pool).await?;
                    Ok(rows
                        .into_iter()
                        .map(|(s, n)| (s, u64::try_from(n).unwrap_or(0)))
                        .collect())
                }
            }
        };
    };
}
