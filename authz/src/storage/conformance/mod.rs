//! Storage conformance: one scenario per behaviour, run on SQLite and on PostgreSQL.
//!
//! PostgreSQL runs against `PORTCULLIS_TEST_POSTGRES_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`); each test creates its own database and drops
//! it afterwards. When no server is reachable the PostgreSQL half is skipped with a loud message,
//! unless `PORTCULLIS_TEST_POSTGRES_REQUIRED=1` (set by `.ci/run`), where it fails.
//!
//! Scenarios live per domain (`realms.rs`, `accounts.rs`, …) and share the fixtures in
//! `fixtures.rs`; each takes the database, so it can open several stores on it (several
//! instances of the server) or run raw SQL.
mod access;
mod accounts;
mod agents;
mod audit;
mod authorize;
mod broker;
mod chaining;
mod clients;
mod drift;
mod federation;
mod fixtures;
mod keys;
mod realms;
mod registration;
mod registry;
mod resources;
mod review;
mod second_factor;
mod sso;
mod tokens;

pub(crate) mod harness {
    use super::super::Database;

    pub(crate) struct TestDb {
        pub db: Database,
        _dir: Option<tempfile::TempDir>,
        pg: Option<(String, String)>,
    }

    impl TestDb {
        pub async fn cleanup(self) {
            self.db.close().await;
            if let Some((admin_url, name)) = self.pg {
                use sqlx::Connection;
                let mut conn = sqlx::PgConnection::connect(&admin_url)
                    .await
                    .expect("admin connect");
                sqlx::query(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                    .execute(&mut conn)
                    .await
                    .expect("drop test database");
            }
        }
    }

    pub(crate) async fn sqlite() -> TestDb {
        let t = sqlite_unmigrated().await;
        t.db.migrate().await.expect("migrate sqlite");
        t
    }

    /// An empty SQLite database (for upgrade scenarios, which migrate it themselves).
    pub(crate) async fn sqlite_unmigrated() -> TestDb {
        let dir = tempfile::tempdir().expect("tempdir");
        let url = format!("sqlite://{}", dir.path().join("test.db").display());
        let db = Database::connect(&url, 4).await.expect("connect sqlite");
        TestDb {
            db,
            _dir: Some(dir),
            pg: None,
        }
    }

    pub(crate) async fn postgres(test: &str) -> Option<TestDb> {
        let t = postgres_unmigrated(test).await?;
        t.db.migrate().await.expect("migrate postgres");
        Some(t)
    }

    /// An empty PostgreSQL database (for upgrade scenarios).
    pub(crate) async fn postgres_unmigrated(test: &str) -> Option<TestDb> {
        use sqlx::Connection;
        let admin_url = std::env::var("PORTCULLIS_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let required = std::env::var("PORTCULLIS_TEST_POSTGRES_REQUIRED").is_ok_and(|v| v == "1");
        let mut conn = match sqlx::PgConnection::connect(&admin_url).await {
            Ok(c) => c,
            Err(e) if required => {
                panic!("PostgreSQL is required but unreachable at {admin_url}: {e}")
            }
            Err(e) => {
                eprintln!(
                    "!!! SKIPPING PostgreSQL conformance test `{test}`: {admin_url} unreachable ({e}) !!!"
                );
                return None;
            }
        };
        let name = format!(
            "portcullis_test_{}",
            crate::secret::new_id("db").trim_start_matches("db_")
        );
        sqlx::query(&format!("CREATE DATABASE \"{name}\""))
            .execute(&mut conn)
            .await
            .expect("create test database");
        let mut url = url::Url::parse(&admin_url).expect("postgres url");
        url.set_path(&format!("/{name}"));
        let db = Database::connect(url.as_str(), 8)
            .await
            .expect("connect postgres");
        Some(TestDb {
            db,
            _dir: None,
            pg: Some((admin_url, name)),
        })
    }
}

macro_rules! on_both_backends {
    ($($domain:ident :: $scenario:ident),* $(,)?) => {
        mod on_sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let t = super::harness::sqlite().await;
                    super::$domain::$scenario(&t.db).await;
                    t.cleanup().await;
                }
            )*
        }
        mod on_postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let Some(t) = super::harness::postgres(stringify!($scenario)).await else { return };
                    super::$domain::$scenario(&t.db).await;
                    t.cleanup().await;
                }
            )*
        }
    };
}

on_both_backends!(
    realms::realms,
    accounts::users,
    accounts::last_admin_is_kept_in_the_transaction,
    accounts::links,
    audit::audit,
    audit::append_only,
    keys::keys,
    keys::one_active_and_one_next_key,
    keys::concurrent_first_use_makes_one_pair,
    resources::resources,
    resources::submissions_are_bounded_in_the_transaction,
    clients::clients,
    clients::resource_server_credentials,
    registration::self_registration,
    review::review_inbox,
    review::review_inbox_by_risk,
    review::rejected_clients_by_contact,
    agents::agents,
    agents::agent_lists,
    access::grants,
    access::upgrade_grants_what_clients_could_reach,
    tokens::assertions_and_revocations,
    tokens::commits_bump_the_generation,
    authorize::people,
    authorize::flows,
    authorize::codes_die_with_what_they_stood_for,
    registry::registry,
    drift::drift,
    federation::federation,
    sso::sso,
    second_factor::second_factor,
    broker::broker,
    chaining::chaining,
);

/// Upgrade scenarios: each gets an empty database, migrates it to some earlier version, writes
/// rows as that version did, and migrates the rest of the way.
macro_rules! upgrades_on_both_backends {
    ($($domain:ident :: $scenario:ident),* $(,)?) => {
        mod upgrade_on_sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let t = super::harness::sqlite_unmigrated().await;
                    super::$domain::$scenario(&t.db).await;
                    t.cleanup().await;
                }
            )*
        }
        mod upgrade_on_postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let Some(t) = super::harness::postgres_unmigrated(stringify!($scenario)).await else { return };
                    super::$domain::$scenario(&t.db).await;
                    t.cleanup().await;
                }
            )*
        }
    };
}

upgrades_on_both_backends!(
    resources::upgrade_keeps_every_token_lifetime,
    review::upgrade_scores_registered_clients,
);

/// Migrates `db` with the migrations older than `version` only (the schema as it was before).
pub(super) async fn migrate_before(db: &super::Database, version: i64) {
    let dir = match db {
        super::Database::Sqlite(_) => "sqlite",
        super::Database::Postgres(_) => "postgres",
    };
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../migrations")
        .join(dir);
    let older = tempfile::tempdir().expect("tempdir");
    for entry in std::fs::read_dir(&src).expect("migrations") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("name")
            .to_owned();
        let v: i64 = name
            .split('_')
            .next()
            .and_then(|v| v.parse().ok())
            .expect("version");
        if v < version {
            std::fs::copy(&path, older.path().join(&name)).expect("copy");
        }
    }
    let migrator = sqlx::migrate::Migrator::new(older.path())
        .await
        .expect("older migrations");
    match db {
        super::Database::Sqlite(p) => migrator.run(p).await.expect("migrate before"),
        super::Database::Postgres(p) => migrator.run(p).await.expect("migrate before"),
    }
}
