//! Helpers shared by the test binaries: the real router on a fresh SQLite database.
#![allow(
    dead_code,
    reason = "shared by several test binaries; each uses a subset"
)]

pub use axum::Router;
pub use axum::body::Body;
pub use axum::http::{Request, Response, StatusCode, header};
pub use http_body_util::BodyExt as _;
pub use server::AppState;
pub use server::config::Config;
pub use std::sync::Arc;
pub use tower::ServiceExt as _;

pub const PASSWORD: &str = "correct horse battery";

pub struct TestServer {
    pub router: Router,
    pub state: AppState,
    _dir: tempfile::TempDir,
    _pg: Option<ThrowawayPostgres>,
}

/// Set to `1` to run every [`TestServer`] on its own PostgreSQL database instead of SQLite
/// (`cargo xtask test` runs the API suite both ways).
pub const API_ON_POSTGRES: &str = "PORTCULLIS_TEST_API_POSTGRES";

/// A database created for one test and dropped (with its connections) when the test ends.
struct ThrowawayPostgres {
    admin_url: String,
    name: String,
}

impl ThrowawayPostgres {
    async fn create() -> (Self, String) {
        use sqlx::Connection as _;
        let admin_url = std::env::var("PORTCULLIS_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let mut conn = sqlx::PgConnection::connect(&admin_url)
            .await
            .unwrap_or_else(|e| panic!("{API_ON_POSTGRES}=1 but {admin_url} is unreachable: {e}"));
        let name = format!("portcullis_api_{}", rand::random::<u64>());
        sqlx::query(&format!("CREATE DATABASE \"{name}\""))
            .execute(&mut conn)
            .await
            .expect("create test database");
        let mut url = url::Url::parse(&admin_url).expect("postgres url");
        url.set_path(&format!("/{name}"));
        (Self { admin_url, name }, url.to_string())
    }
}

impl Drop for ThrowawayPostgres {
    fn drop(&mut self) {
        let (admin_url, name) = (self.admin_url.clone(), self.name.clone());
        // Drop runs inside the test's runtime; a blocking runtime needs its own thread.
        let _ = std::thread::spawn(move || {
            use sqlx::Connection as _;
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            rt.block_on(async {
                if let Ok(mut conn) = sqlx::PgConnection::connect(&admin_url).await {
                    let _ =
                        sqlx::query(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
                            .execute(&mut conn)
                            .await;
                }
            });
        })
        .join();
    }
}

impl TestServer {
    pub async fn new() -> Self {
        Self::with(|_| {}, Arc::new(authz::clock::SystemClock)).await
    }

    /// A server whose configuration `tweak` adjusts, on `clock`.
    pub async fn with(
        tweak: impl FnOnce(&mut Config),
        clock: Arc<dyn authz::clock::Clock>,
    ) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut config = Config {
            data_dir: dir.path().join("data"),
            console: server::config::ConsoleConfig {
                site_dir: dir.path().join("site"),
            },
            ..Config::default()
        };
        let pg = if std::env::var(API_ON_POSTGRES).is_ok_and(|v| v == "1") {
            let (pg, url) = ThrowawayPostgres::create().await;
            config.database.url = Some(url);
            config.database.max_connections = 4;
            Some(pg)
        } else {
            None
        };
        tweak(&mut config);
        let state = AppState::init_with_clock(config, clock)
            .await
            .expect("init");
        Self {
            router: server::router(state.clone()),
            state,
            _dir: dir,
            _pg: pg,
        }
    }

    /// Creates a user with a password directly through the core.
    pub async fn user(&self, email: &str, role: &str) {
        self.state
            .core
            .create_user_with_password(email, "Test User", role, PASSWORD)
            .await
            .expect("create user");
    }

    /// The principal of an existing user.
    pub async fn principal(&self, email: &str) -> authz::Principal {
        self.state
            .core
            .find_principal_by_email(email)
            .await
            .expect("lookup")
            .expect("user exists")
    }

    /// The default realm's audit events matching `filter`, newest first (at most 50).
    pub async fn audit(&self, filter: authz::audit::AuditFilter) -> Vec<authz::audit::AuditEvent> {
        // Gateway calls' rows are written after the call's answer: wait for them.
        assert!(
            self.state
                .core
                .drain_audit(std::time::Duration::from_secs(10))
                .await,
            "audit rows still waiting"
        );
        self.state
            .core
            .list_audit(
                &authz::Principal::cli(),
                Some("default"),
                filter,
                authz::audit::AuditWindow::page(authz::audit::AuditCursor::Newest, 50),
            )
            .await
            .expect("audit")
            .items
    }

    /// Sends `req`; a response that takes more than 30 s fails the test with its path (a
    /// hang becomes a failure that names the request, not a stuck run).
    pub async fn send(&self, req: Request<Body>) -> Response<Body> {
        let what = format!("{} {}", req.method(), req.uri());
        tokio::time::timeout(
            std::time::Duration::from_secs(30),
            self.router.clone().oneshot(req),
        )
        .await
        .unwrap_or_else(|_| panic!("no response within 30 s: {what}"))
        .expect("infallible")
    }

    /// A GET as a browser sends it from its address bar (`Sec-Fetch-Site: none`, a document
    /// navigation).
    pub async fn open(&self, path: &str, cookie: &str) -> Response<Body> {
        let req = Request::get(path)
            .header(header::COOKIE, cookie)
            .header("sec-fetch-site", "none")
            .header("sec-fetch-mode", "navigate")
            .header("sec-fetch-dest", "document")
            .body(Body::empty())
            .expect("request");
        self.send(req).await
    }

    pub async fn get(&self, path: &str, cookie: Option<&str>) -> Response<Body> {
        let mut b = Request::get(path);
        if let Some(c) = cookie {
            b = b.header(header::COOKIE, c);
        }
        self.send(b.body(Body::empty()).expect("request")).await
    }

    /// A same-origin form POST, as a browser sends it.
    pub async fn post_form(&self, path: &str, body: &str, cookie: Option<&str>) -> Response<Body> {
        let mut b = Request::post(path)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header("sec-fetch-site", "same-origin");
        if let Some(c) = cookie {
            b = b.header(header::COOKIE, c);
        }
        self.send(b.body(Body::from(body.to_owned())).expect("request"))
            .await
    }

    /// Signs in and returns the session cookie.
    pub async fn login(&self, email: &str) -> String {
        let res = self
            .post_form(
                "/login",
                &format!("email={}&password={}", enc(email), enc(PASSWORD)),
                None,
            )
            .await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        assert_eq!(location(&res), "/");
        session_cookie(&res).expect("session cookie")
    }
}

/// Registers a client from form-like input in the default realm, as the console and CLI do.
pub async fn register_client(
    core: &authz::Core,
    p: &authz::Principal,
    client_id: &str,
    form: authz::clients::ClientForm,
) -> authz::error::Result<(authz::clients::Client, Option<authz::secret::PlainToken>)> {
    core.create_client(
        p,
        "default",
        client_id,
        &form.into_metadata()?,
        &authz::RequestMeta::default(),
    )
    .await
}

/// [`register_client`] with the access it could have before grants existed.
///
/// Grants every resource of the realm it shares scopes with, with those scopes; for tests whose
/// subject is not the grants themselves.
pub async fn register_granted_client(
    core: &authz::Core,
    p: &authz::Principal,
    client_id: &str,
    form: authz::clients::ClientForm,
) -> authz::error::Result<(authz::clients::Client, Option<authz::secret::PlainToken>)> {
    let (client, secret) = register_client(core, p, client_id, form).await?;
    for r in core.list_resources(p, "default").await? {
        let shared = client.scope.intersection(&r.scopes);
        if !shared.is_empty() {
            let scopes = shared.to_string();
            core.grant_access(
                p,
                "default",
                client_id,
                &r.slug,
                Some(&scopes),
                &authz::RequestMeta::default(),
            )
            .await?;
        }
    }
    Ok((client, secret))
}

pub fn enc(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

pub fn location(res: &Response<Body>) -> String {
    res.headers()
        .get(header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

pub fn session_cookie(res: &Response<Body>) -> Option<String> {
    res.headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("portcullis_session="))
        .map(|v| v.split(';').next().unwrap_or_default().to_owned())
}

pub async fn body(res: Response<Body>) -> String {
    let bytes = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        res.into_body().collect(),
    )
    .await
    .expect("a body that ends within 30 s")
    .expect("body")
    .to_bytes();
    String::from_utf8_lossy(&bytes).into_owned()
}
