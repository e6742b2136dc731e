//! Configuration: defaults → `portcullis.toml` (or `--config FILE`) → `PORTCULLIS_*` env vars.
//!
//! Nested keys use `__` in env vars. Unknown keys in any source are rejected.
//!
//! | key | env var | default |
//! |---|---|---|
//! | `public_url` | `PORTCULLIS_PUBLIC_URL` | `http://127.0.0.1:3000` |
//! | `data_dir` | `PORTCULLIS_DATA_DIR` | `data` |
//! | `http.bind` | `PORTCULLIS_HTTP__BIND` | `127.0.0.1:3000` |
//! | `http.max_body_bytes` | `PORTCULLIS_HTTP__MAX_BODY_BYTES` | `65536` |
//! | `http.trusted_proxies` | `PORTCULLIS_HTTP__TRUSTED_PROXIES` (`[10.0.0.0/8, …]`) | empty |
//! | `http.client_ip_header` | `PORTCULLIS_HTTP__CLIENT_IP_HEADER` | `x-forwarded-for` (or `forwarded`) |
//! | `database.url` | `PORTCULLIS_DATABASE__URL` | `sqlite://{data_dir}/portcullis.db` |
//! | `database.max_connections` | `PORTCULLIS_DATABASE__MAX_CONNECTIONS` | `10` |
//! | `database.migrate_on_start` | `PORTCULLIS_DATABASE__MIGRATE_ON_START` | `true` |
//! | `session.idle_timeout_secs` | `PORTCULLIS_SESSION__IDLE_TIMEOUT_SECS` | `1800` |
//! | `session.absolute_timeout_secs` | `PORTCULLIS_SESSION__ABSOLUTE_TIMEOUT_SECS` | `43200` |
//! | `log.format` | `PORTCULLIS_LOG__FORMAT` | `text` (or `json`) |
//! | `log.filter` | `PORTCULLIS_LOG__FILTER` | `info` |
//! | `console.site_dir` | `PORTCULLIS_CONSOLE__SITE_DIR` | `target/site` |
//! | `keys.master_key` | `PORTCULLIS_KEYS__MASTER_KEY` | unset: generated into `{data_dir}/master.key` |
//! | `metrics.bearer_token` | `PORTCULLIS_METRICS__BEARER_TOKEN` | unset: `/metrics` is open |
//! | `metrics.bind` | `PORTCULLIS_METRICS__BIND` | unset: `/metrics` on `http.bind` |
//! | `registry.import_base` | `PORTCULLIS_REGISTRY__IMPORT_BASE` | `https://registry.modelcontextprotocol.io` |
//! | `gateway.call_timeout_secs` | `PORTCULLIS_GATEWAY__CALL_TIMEOUT_SECS` | `30` |
//! | `gateway.breaker_failures` | `PORTCULLIS_GATEWAY__BREAKER_FAILURES` | `5` |
//! | `gateway.breaker_open_secs` | `PORTCULLIS_GATEWAY__BREAKER_OPEN_SECS` | `30` |
//! | `gateway.approval_timeout_secs` | `PORTCULLIS_GATEWAY__APPROVAL_TIMEOUT_SECS` | `900` |
//! | `gateway.redact_patterns` | (file only) | `[]` |
//! | `gateway.budget_per_minute` | `PORTCULLIS_GATEWAY__BUDGET_PER_MINUTE` | `600` |
//! | `gateway.calls_per_tool_per_minute` | `PORTCULLIS_GATEWAY__CALLS_PER_TOOL_PER_MINUTE` | `120` |
//! | `mail.smtp_url` | `PORTCULLIS_MAIL__SMTP_URL` | unset: no e-mail |
//! | `mail.from` | `PORTCULLIS_MAIL__FROM` | unset (required with `smtp_url`) |
//! | `mail.timeout_secs` | `PORTCULLIS_MAIL__TIMEOUT_SECS` | `15` |
//! | `dev.allow_http_loopback_resources` | `PORTCULLIS_DEV__ALLOW_HTTP_LOOPBACK_RESOURCES` | `false` |
//! | `dev.allow_loopback_client_urls` | `PORTCULLIS_DEV__ALLOW_LOOPBACK_CLIENT_URLS` | `false` |
//!
//! `PORTCULLIS_CONFIG` names the config file; `PORTCULLIS_TEST_*` variables belong to the test
//! suite and are ignored here.
use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

mod gateway;
pub use gateway::GatewayConfig;

/// The whole configuration tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Public base URL: issuers and links are built from it. `https` makes cookies `Secure`.
    pub public_url: String,
    /// Directory for the embedded database and generated files.
    pub data_dir: PathBuf,
    /// HTTP listener.
    pub http: HttpConfig,
    /// Database.
    pub database: DatabaseConfig,
    /// Console sessions.
    pub session: SessionConfig,
    /// Logging.
    pub log: LogConfig,
    /// Console assets.
    pub console: ConsoleConfig,
    /// Signing-key protection.
    pub keys: KeysConfig,
    /// Who may scrape `/metrics`.
    pub metrics: MetricsConfig,
    /// The MCP server registry.
    pub registry: RegistryConfig,
    /// The MCP gateway.
    pub gateway: GatewayConfig,
    /// E-mail about decisions (off unless `mail.smtp_url` is set).
    pub mail: MailConfig,
    /// Development conveniences (never enable in production).
    pub dev: DevConfig,
}

/// The MCP server registry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RegistryConfig {
    /// The MCP registry `portcullis registry import <name>` reads `server.json` from (read
    /// only; a base ending in `/v0` or `/v0.1` is accepted).
    pub import_base: String,
}

impl Default for RegistryConfig {
    fn default() -> Self {
        Self {
            import_base: authz::DEFAULT_REGISTRY_IMPORT_BASE.to_owned(),
        }
    }
}

/// E-mail to the people a decision concerns (a developer whose submission or client was
/// rejected). Off by default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MailConfig {
    /// The SMTP server: `smtps://user:password@host:465` (TLS), `smtp://user:password@host:587?tls=required`
    /// (STARTTLS), or `smtp://host:port` (no TLS: a relay on this machine). Unset: no e-mail.
    pub smtp_url: Option<String>,
    /// The sender address (`From`), e.g. `Portcullis <portcullis@example.com>`.
    pub from: Option<String>,
    /// How long one message may take, the whole SMTP exchange included (default 15).
    pub timeout_secs: Option<u64>,
}

impl MailConfig {
    /// The mailer these settings describe, if any.
    ///
    /// # Errors
    /// In words, when the settings are not usable (never with the relay's password).
    pub fn mailer(&self) -> Result<Option<crate::mail::SmtpMailer>, String> {
        let Some(url) = &self.smtp_url else {
            return Ok(None);
        };
        let timeout = self
            .timeout_secs
            .map_or(crate::mail::SEND_TIMEOUT, std::time::Duration::from_secs);
        if timeout.is_zero() {
            return Err("timeout_secs must be at least 1".into());
        }
        crate::mail::SmtpMailer::new(url, self.from.as_deref().unwrap_or_default(), timeout)
            .map(Some)
    }
}

/// Who may scrape `/metrics`: by default anyone who reaches the listener.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetricsConfig {
    /// A bearer token `/metrics` requires (`Authorization: Bearer …`, at least 16 characters).
    pub bearer_token: Option<String>,
    /// Serve `/metrics` on this address instead of `http.bind` (e.g. a port only the
    /// monitoring network reaches).
    pub bind: Option<SocketAddr>,
}

/// Signing-key protection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KeysConfig {
    /// Base64 of 32 random bytes that seals private signing keys at rest. When unset, one is
    /// generated into `{data_dir}/master.key` (mode 0600) with a warning.
    pub master_key: Option<String>,
}

/// Development conveniences.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DevConfig {
    /// Accept `http://` resource URIs on loopback hosts.
    pub allow_http_loopback_resources: bool,
    /// Let client URLs (`jwks_uri`) point at this machine, over http or https. Off, Portcullis
    /// fetches only from public addresses (SSRF protection).
    pub allow_loopback_client_urls: bool,
}

/// HTTP listener settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpConfig {
    /// Address to listen on.
    pub bind: SocketAddr,
    /// Largest accepted request body.
    pub max_body_bytes: usize,
    /// Reverse proxies (address ranges, e.g. `10.0.0.0/8`) whose forwarding header names the
    /// client's address. Empty: the socket peer is the client.
    pub trusted_proxies: Vec<String>,
    /// The header those proxies set: `x-forwarded-for` or `forwarded` (RFC 7239).
    pub client_ip_header: crate::client_ip::ForwardingHeader,
}

/// Database settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DatabaseConfig {
    /// `sqlite://…` or `postgres://…`; unset means a SQLite file in `data_dir`.
    pub url: Option<String>,
    /// Pool size.
    pub max_connections: u32,
    /// Apply migrations when `serve` starts. Off, `serve` only checks that the schema is
    /// current, so it can run as a role that may not change the schema (see the README).
    pub migrate_on_start: bool,
}

/// Console session settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SessionConfig {
    /// Sign out after this long without a request.
    pub idle_timeout_secs: i64,
    /// Sign out this long after sign-in, whatever the activity.
    pub absolute_timeout_secs: i64,
}

/// Log output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Logging settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogConfig {
    /// Output format.
    pub format: LogFormat,
    /// `tracing` filter directive, e.g. `info,sqlx=warn`.
    pub filter: String,
}

/// Console asset settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConsoleConfig {
    /// Directory holding `pkg/` (wasm, JS, CSS) and public files, built by `cargo xtask build`.
    pub site_dir: PathBuf,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            public_url: "http://127.0.0.1:3000".into(),
            data_dir: "data".into(),
            http: HttpConfig::default(),
            database: DatabaseConfig::default(),
            session: SessionConfig::default(),
            log: LogConfig::default(),
            console: ConsoleConfig::default(),
            keys: KeysConfig::default(),
            metrics: MetricsConfig::default(),
            registry: RegistryConfig::default(),
            gateway: GatewayConfig::default(),
            mail: MailConfig::default(),
            dev: DevConfig::default(),
        }
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            bind: SocketAddr::from(([127, 0, 0, 1], 3000)),
            max_body_bytes: 64 * 1024,
            trusted_proxies: Vec::new(),
            client_ip_header: crate::client_ip::ForwardingHeader::default(),
        }
    }
}

impl Default for DatabaseConfig {
    fn default() -> Self {
        Self {
            url: None,
            max_connections: 10,
            migrate_on_start: true,
        }
    }
}

impl Default for SessionConfig {
    fn default() -> Self {
        Self {
            idle_timeout_secs: 30 * 60,
            absolute_timeout_secs: 12 * 3600,
        }
    }
}

impl Default for LogConfig {
    fn default() -> Self {
        Self {
            format: LogFormat::Text,
            filter: "info".into(),
        }
    }
}

impl Default for ConsoleConfig {
    fn default() -> Self {
        Self {
            site_dir: "target/site".into(),
        }
    }
}

/// `PORTCULLIS_*` variables that are not configuration: the config file's name, the test
/// suite's `PORTCULLIS_TEST_*` switches, and the laptop CLI's `PORTCULLIS_CLI_*` settings
/// (an admin may be a CLI user on the same machine).
fn is_config_var(key: &figment::value::UncasedStr) -> bool {
    let key = key.as_str().to_ascii_lowercase();
    key != "config" && !key.starts_with("test_") && !key.starts_with("cli_")
}

impl Config {
    /// The master key: configured, else read from (or generated into) `{data_dir}/master.key`.
    ///
    /// # Errors
    /// When the key file cannot be read or written, or holds no valid key.
    pub fn master_key(&self) -> anyhow::Result<authz::keys::MasterKey> {
        use anyhow::Context as _;
        if let Some(k) = &self.keys.master_key {
            return authz::keys::MasterKey::from_base64(k).map_err(anyhow::Error::msg);
        }
        let path = self.data_dir.join("master.key");
        if path.exists() {
            check_private(&path)?;
            let text = std::fs::read_to_string(&path).with_context(|| {
                format!(
                    "keys.master_key is unset and {} cannot be read: make it a file readable by the user running Portcullis (chmod 600), or set keys.master_key (PORTCULLIS_KEYS__MASTER_KEY)",
                    path.display()
                )
            })?;
            return authz::keys::MasterKey::from_base64(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()));
        }
        std::fs::create_dir_all(&self.data_dir)
            .with_context(|| format!("Failed to create {}", self.data_dir.display()))?;
        let key = authz::keys::MasterKey::generate();
        write_private(&path, &key.to_base64())
            .with_context(|| format!("Failed to write {}", path.display()))?;
        tracing::warn!(
            path = %path.display(),
            "No keys.master_key configured: generated one. Back it up; signing keys cannot be opened without it."
        );
        Ok(key)
    }

    /// Checks that `console.site_dir` holds a built console (only `serve` needs one).
    ///
    /// # Errors
    /// Naming the setting, what is missing and how to build it.
    pub fn check_site_dir(&self) -> anyhow::Result<()> {
        let dir = &self.console.site_dir;
        let missing = if !dir.is_dir() {
            "does not exist"
        } else if !dir.join("pkg").join("app.js").is_file() {
            "holds no built console (pkg/app.js)"
        } else {
            return Ok(());
        };
        anyhow::bail!(
            "console.site_dir `{}` (PORTCULLIS_CONSOLE__SITE_DIR) {missing}: `cargo xtask serve` builds the console and serves it (or `cargo xtask build` to build only), or point console.site_dir at a built site (relative paths start from the working directory, {}).",
            dir.display(),
            std::env::current_dir().map_or_else(|_| "unknown".into(), |d| d.display().to_string())
        )
    }

    /// What to do when this instance's master key is not the database's, in words: where the
    /// key comes from here and what to copy.
    pub fn master_key_mismatch(&self) -> String {
        let source = if self.keys.master_key.is_some() {
            "keys.master_key (PORTCULLIS_KEYS__MASTER_KEY)".to_owned()
        } else {
            format!("{}", self.data_dir.join("master.key").display())
        };
        format!(
            "This instance's master key ({source}) is not the key that sealed the signing keys in \
             {db}. Instances sharing a database must hold the same master key: copy master.key \
             from the data directory of the instance that set up the database into {dir} (mode \
             0600), or set keys.master_key to the same value on every instance. Refusing to serve.",
            db = redact_url(&self.database_url()),
            dir = self.data_dir.display(),
        )
    }

    /// Loads and validates the configuration from all sources.
    ///
    /// # Errors
    /// A message naming the offending key and source.
    pub fn load(file: Option<&Path>) -> anyhow::Result<Self> {
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        match file {
            Some(path) if !path.exists() => {
                anyhow::bail!("Config file {} does not exist", path.display())
            }
            Some(path) => figment = figment.merge(Toml::file_exact(path)),
            None if Path::new("portcullis.toml").exists() => {
                figment = figment.merge(Toml::file_exact("portcullis.toml"));
            }
            None => {}
        }
        figment = figment.merge(
            Env::prefixed("PORTCULLIS_")
                .filter(is_config_var)
                .split("__"),
        );
        let config: Config = figment.extract().map_err(|e| {
            anyhow::anyhow!(
                "Invalid configuration: {}",
                e.into_iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        })?;
        config.validate()?;
        Ok(config)
    }

    /// Checks values that serde cannot.
    ///
    /// # Errors
    /// A message naming the key.
    pub fn validate(&self) -> anyhow::Result<()> {
        let url = url::Url::parse(&self.public_url)
            .map_err(|e| anyhow::anyhow!("public_url `{}` is not a URL: {e}", self.public_url))?;
        if !matches!(url.scheme(), "http" | "https") || url.host().is_none() {
            anyhow::bail!("public_url must be an http(s) URL with a host");
        }
        if url.query().is_some() || url.fragment().is_some() {
            anyhow::bail!("public_url must not have a query or fragment");
        }
        if !matches!(url.path(), "" | "/") {
            anyhow::bail!(
                "public_url `{}` (PORTCULLIS_PUBLIC_URL) has a path ({}): Portcullis serves at the root of its origin (issuers are {}/realms/…). Set public_url to the origin alone and route the whole host to Portcullis, e.g. https://auth.example.com.",
                self.public_url,
                url.path(),
                url.origin().ascii_serialization()
            );
        }
        authz::storage::Backend::from_url(&self.database_url()).map_err(anyhow::Error::msg)?;
        if self.database.max_connections == 0 {
            anyhow::bail!("database.max_connections must be at least 1");
        }
        if self.session.idle_timeout_secs <= 0 || self.session.absolute_timeout_secs <= 0 {
            anyhow::bail!("session timeouts must be positive");
        }
        if let Some(k) = &self.keys.master_key {
            authz::keys::MasterKey::from_base64(k)
                .map_err(|e| anyhow::anyhow!("keys.master_key: {e}"))?;
        }
        if let Some(t) = &self.metrics.bearer_token
            && (t.trim().len() < 16 || t.trim() != t)
        {
            anyhow::bail!(
                "metrics.bearer_token must be at least 16 characters without surrounding spaces (e.g. `openssl rand -hex 32`)"
            );
        }
        if self.metrics.bind.is_some_and(|b| b == self.http.bind) {
            anyhow::bail!(
                "metrics.bind must differ from http.bind (unset it to serve /metrics on http.bind)"
            );
        }
        self.mail
            .mailer()
            .map_err(|e| anyhow::anyhow!("mail: {e}"))?;
        if self.http.max_body_bytes < 1024 {
            anyhow::bail!("http.max_body_bytes must be at least 1024");
        }
        self.client_ip_rule()?;
        Ok(())
    }

    /// How to find a request's client address.
    ///
    /// # Errors
    /// When a `trusted_proxies` entry is not an address range.
    pub fn client_ip_rule(&self) -> anyhow::Result<crate::client_ip::ClientIpRule> {
        let trusted = self
            .http
            .trusted_proxies
            .iter()
            .map(|c| crate::client_ip::Cidr::parse(c))
            .collect::<Result<_, _>>()
            .map_err(|e| anyhow::anyhow!("http.trusted_proxies: {e}"))?;
        Ok(crate::client_ip::ClientIpRule {
            trusted,
            header: self.http.client_ip_header,
        })
    }

    /// The public URL without a trailing slash.
    pub fn public_url(&self) -> String {
        self.public_url.trim_end_matches('/').to_owned()
    }

    /// The database URL, defaulting to a SQLite file in the data directory.
    pub fn database_url(&self) -> String {
        self.database.url.clone().unwrap_or_else(|| {
            format!("sqlite://{}", self.data_dir.join("portcullis.db").display())
        })
    }

    /// Whether cookies must be `Secure`.
    pub fn is_https(&self) -> bool {
        self.public_url.starts_with("https://")
    }

    /// Whether Portcullis is served over plain http on this machine's loopback (a developer's
    /// laptop): loopback http resources are then accepted as with
    /// `dev.allow_http_loopback_resources`, starting with the realms' own MCP gateways.
    pub fn serves_on_loopback_http(&self) -> bool {
        url::Url::parse(&self.public_url).is_ok_and(|u| {
            u.scheme() == "http"
                && match u.host() {
                    Some(url::Host::Domain(d)) => d == "localhost",
                    Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
                    Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
                    None => false,
                }
        })
    }

    /// The configuration as TOML with secrets (database password) redacted.
    pub fn redacted_toml(&self) -> String {
        let mut shown = self.clone();
        shown.database.url = Some(redact_url(&self.database_url()));
        if shown.keys.master_key.is_some() {
            shown.keys.master_key = Some("REDACTED".into());
        }
        if shown.metrics.bearer_token.is_some() {
            shown.metrics.bearer_token = Some("REDACTED".into());
        }
        if let Some(url) = &self.mail.smtp_url {
            shown.mail.smtp_url = Some(redact_url(url));
        }
        toml::to_string_pretty(&shown).unwrap_or_else(|e| format!("# cannot render: {e}"))
    }
}

/// Refuses a key file that group or others may read or write.
fn check_private(path: &Path) -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(path)
            .map_err(|e| anyhow::anyhow!("Failed to read {}: {e}", path.display()))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            anyhow::bail!(
                "{} is accessible to group or others (mode {:o}); it seals the signing keys. Run `chmod 600 {}` and start again.",
                path.display(),
                mode & 0o777,
                path.display()
            );
        }
    }
    Ok(())
}

/// Writes a file readable only by its owner, replacing an earlier one.
///
/// # Errors
/// When the file cannot be removed or written.
pub fn write_private_replacing(path: &Path, contents: &str) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    write_private(path, contents)
}

/// Writes a file readable only by its owner.
fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(contents.as_bytes())
}

/// Replaces the password of a URL with `REDACTED`.
pub fn redact_url(raw: &str) -> String {
    match url::Url::parse(raw) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("REDACTED"));
            u.to_string()
        }
        Ok(_) => raw.to_owned(),
        // Not a URL (a bad port, a `#` or `/` in the password): whatever stands between the
        // scheme and the last `@` may be credentials.
        Err(_) => match (raw.find("://"), raw.rfind('@')) {
            (Some(start), Some(at)) if at > start + 3 => {
                format!("{}REDACTED{}", &raw[..start + 3], &raw[at..])
            }
            _ => raw.to_owned(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mail_settings_are_checked_and_their_password_never_shown() {
        let mut c = Config::default();
        c.mail.smtp_url = Some("smtps://mailer:hunter2@smtp.example.com".into());
        c.mail.from = Some("Portcullis <portcullis@example.com>".into());
        c.validate().expect("valid");
        let shown = c.redacted_toml();
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(
            shown.contains("smtps://mailer:REDACTED@smtp.example.com"),
            "{shown}"
        );
        c.mail.from = Some("not an address".into());
        let e = c.validate().expect_err("bad sender").to_string();
        assert!(e.starts_with("mail: from"), "{e}");
        c.mail.from = Some("portcullis@example.com".into());
        c.mail.smtp_url = Some("http://mailer:hunter2@smtp.example.com".into());
        let e = c.validate().expect_err("not smtp").to_string();
        assert!(
            e.contains("not an SMTP URL") && !e.contains("hunter2"),
            "{e}"
        );
        // A URL that does not parse still never shows its password.
        for bad in [
            "smtps://mailer:hunter2@smtp.example.com:99999",
            "smtps://mailer:hun#ter2@smtp.example.com",
            "smtps://mailer:hun/ter2@smtp.example.com",
        ] {
            c.mail.smtp_url = Some(bad.into());
            let e = c
                .validate()
                .map(|()| String::new())
                .unwrap_or_else(|e| e.to_string());
            let shown = c.redacted_toml();
            for text in [&e, &shown] {
                assert!(
                    !text.contains("hunter2") && !text.contains("ter2"),
                    "{bad}: {text}"
                );
            }
        }
        // Credentials never cross the network in clear: plain smtp:// only to this machine,
        // STARTTLS only when required.
        for (url, ok) in [
            ("smtp://mailer:hunter2@smtp.example.com:587", false),
            (
                "smtp://mailer:hunter2@smtp.example.com:587?tls=opportunistic",
                false,
            ),
            (
                "smtp://mailer:hunter2@smtp.example.com:587?tls=required",
                true,
            ),
            ("smtp://127.0.0.1:25", true),
            ("smtp://localhost:2525", true),
        ] {
            c.mail.smtp_url = Some(url.into());
            assert_eq!(c.validate().is_ok(), ok, "{url}");
        }
    }

    #[test]
    fn redacts_database_password() {
        assert_eq!(
            redact_url("postgres://app:s3cret@db:5432/x"),
            "postgres://app:REDACTED@db:5432/x"
        );
        assert_eq!(redact_url("sqlite://data/p.db"), "sqlite://data/p.db");
        let mut c = Config::default();
        c.database.url = Some("postgres://app:s3cret@db/x".into());
        let key = authz::keys::MasterKey::generate().to_base64();
        c.keys.master_key = Some(key.clone());
        let shown = c.redacted_toml();
        assert!(!shown.contains("s3cret"), "{shown}");
        assert!(!shown.contains(&key), "{shown}");
        assert!(shown.contains("REDACTED"));
    }

    #[test]
    fn validation_rejects_bad_values() {
        let mut c = Config::default();
        assert!(c.validate().is_ok());
        c.public_url = "ftp://x".into();
        assert!(c.validate().is_err());
        c = Config::default();
        c.database.url = Some("mysql://x".into());
        assert!(c.validate().is_err());
        c = Config::default();
        c.public_url = "https://id.example.com/?q=1".into();
        assert!(c.validate().is_err());
        c = Config::default();
        c.keys.master_key = Some("too-short".into());
        assert!(c.validate().is_err());
        c = Config::default();
        c.http.trusted_proxies = vec!["10.0.0.0/8".into(), "nonsense".into()];
        let e = c.validate().expect_err("bad range").to_string();
        assert!(
            e.contains("http.trusted_proxies") && e.contains("nonsense"),
            "{e}"
        );
    }

    #[test]
    fn configuration_that_cannot_work_names_the_setting_and_the_fix() {
        let mut c = Config {
            public_url: "https://example.com/auth".into(),
            ..Config::default()
        };
        let e = c.validate().expect_err("a path").to_string();
        assert!(
            e.contains("public_url") && e.contains("/auth") && e.contains("https://example.com"),
            "{e}"
        );
        c.public_url = "https://example.com/".into();
        assert!(c.validate().is_ok(), "a bare trailing slash is the root");

        let dir = tempfile::tempdir().expect("tempdir");
        c.console.site_dir = dir.path().join("missing");
        let e = c.check_site_dir().expect_err("missing").to_string();
        assert!(
            e.contains("console.site_dir")
                && e.contains("does not exist")
                && e.contains("cargo xtask build"),
            "{e}"
        );
        c.console.site_dir = dir.path().to_owned();
        let e = c.check_site_dir().expect_err("empty").to_string();
        assert!(e.contains("holds no built console"), "{e}");
        std::fs::create_dir_all(dir.path().join("pkg")).expect("pkg");
        std::fs::write(dir.path().join("pkg/app.js"), "").expect("app.js");
        c.check_site_dir().expect("a built site");
    }

    #[cfg(unix)]
    #[test]
    fn an_unreadable_master_key_file_names_the_setting_and_the_fix() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let c = Config {
            data_dir: dir.path().to_owned(),
            ..Config::default()
        };
        // A directory where the key file should be: private, present, unreadable as a file.
        let path = dir.path().join("master.key");
        std::fs::create_dir(&path).expect("dir");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let e = format!("{:#}", c.master_key().expect_err("unreadable"));
        assert!(
            e.contains("keys.master_key")
                && e.contains("cannot be read")
                && e.contains("chmod 600"),
            "{e}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_master_key_file_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let c = Config {
            data_dir: dir.path().to_owned(),
            ..Config::default()
        };
        let key = c.master_key().expect("generated");
        let path = dir.path().join("master.key");
        let mode = std::fs::metadata(&path).expect("file").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let again = c.master_key().expect("read back");
        assert_eq!(again.to_base64(), key.to_base64());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        let e = c.master_key().expect_err("world-readable key").to_string();
        assert!(e.contains("chmod 600"), "{e}");
    }
}
