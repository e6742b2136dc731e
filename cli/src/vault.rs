//! Where the refresh credential of a sign-in lives: the OS credential store (`keyring-core`
//! with the platform's store: Keychain, Windows Credential Manager, the Secret Service), or,
//! where there is none (headless Linux without a Secret Service), a file only its owner can
//! read in the user's config directory. The person is told which.
//!
//! `PORTCULLIS_CLI_CREDENTIALS=file` picks the file store even where a keyring exists
//! (containers, tests); `keyring` refuses to fall back.
use crate::Failure;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The keyring service name entries are filed under.
const SERVICE: &str = "portcullis-cli";

/// What is kept secret for one sign-in (no `Debug`: it holds the refresh token).
#[derive(Clone, Serialize, Deserialize)]
pub struct Secret {
    /// The refresh token.
    pub refresh_token: String,
}

/// A credential store.
#[derive(Debug, Clone)]
pub enum Vault {
    /// The OS credential store (its name, for people).
    Keyring(&'static str),
    /// A 0600 file under this directory.
    File(PathBuf),
}

impl std::fmt::Display for Vault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Vault::Keyring(name) => write!(f, "the {name}"),
            Vault::File(dir) => write!(f, "a file only you can read in {}", dir.display()),
        }
    }
}

/// The user's config directory for the CLI: `$XDG_CONFIG_HOME/portcullis`, else
/// `~/.config/portcullis`.
///
/// # Errors
/// When neither variable says where.
pub fn config_dir() -> Result<PathBuf, Failure> {
    let var = |k: &str| {
        std::env::var_os(k)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    var("XDG_CONFIG_HOME")
        .map(|d| d.join("portcullis"))
        .or_else(|| var("HOME").map(|h| h.join(".config/portcullis")))
        .ok_or_else(|| Failure::error("Set HOME (or XDG_CONFIG_HOME) to keep your sign-in."))
}

/// The platform's credential store, made the keyring default; its name.
fn platform_store() -> Result<&'static str, String> {
    #[cfg(target_os = "linux")]
    {
        let store = zbus_secret_service_keyring_store::Store::new()
            .map_err(|e| format!("no Secret Service ({e})"))?;
        keyring_core::set_default_store(store);
        Ok("Secret Service keyring")
    }
    #[cfg(target_os = "macos")]
    {
        let store = apple_native_keyring_store::keychain::Store::new()
            .map_err(|e| format!("no Keychain ({e})"))?;
        keyring_core::set_default_store(store);
        Ok("macOS Keychain")
    }
    #[cfg(target_os = "windows")]
    {
        let store = windows_native_keyring_store::Store::new()
            .map_err(|e| format!("no Credential Manager ({e})"))?;
        keyring_core::set_default_store(store);
        Ok("Windows Credential Manager")
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "windows")))]
    {
        Err("no supported OS credential store on this platform".to_owned())
    }
}

/// Runs `f` on a thread of its own: the platform stores block, some on an async runtime of
/// their own, which must not run inside ours.
fn off_runtime<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, Failure> {
    std::thread::spawn(f)
        .join()
        .map_err(|_| Failure::error("The credential store failed."))
}

impl Vault {
    /// The store to use: the OS's, else the file (unless `PORTCULLIS_CLI_CREDENTIALS` says).
    ///
    /// # Errors
    /// `keyring` was required and there is none; no config directory.
    pub fn choose() -> Result<Self, Failure> {
        let wanted = std::env::var("PORTCULLIS_CLI_CREDENTIALS").unwrap_or_default();
        let file = || Ok(Vault::File(config_dir()?.join("credentials")));
        match wanted.as_str() {
            "file" => file(),
            "" | "keyring" => match off_runtime(platform_store)? {
                Ok(name) => Ok(Vault::Keyring(name)),
                Err(why) if wanted.is_empty() => {
                    let _ = why;
                    file()
                }
                Err(why) => Err(Failure::error(format!(
                    "PORTCULLIS_CLI_CREDENTIALS=keyring, but there is {why}."
                ))),
            },
            other => Err(Failure::error(format!(
                "PORTCULLIS_CLI_CREDENTIALS must be keyring or file, not {other:?}."
            ))),
        }
    }

    /// The vault a sign-in was stored in (`kind` as recorded: `keyring` or `file`).
    ///
    /// # Errors
    /// The keyring is gone; no config directory.
    pub fn recorded(kind: &str) -> Result<Self, Failure> {
        match kind {
            "keyring" => off_runtime(platform_store)?
                .map(Vault::Keyring)
                .map_err(|why| {
                    Failure::error(format!(
                        "Your sign-in is in the OS credential store, but there is {why}."
                    ))
                }),
            _ => Ok(Vault::File(config_dir()?.join("credentials"))),
        }
    }

    /// `keyring` or `file`, as recorded.
    pub fn kind(&self) -> &'static str {
        match self {
            Vault::Keyring(_) => "keyring",
            Vault::File(_) => "file",
        }
    }

    /// Stores the secret of the sign-in `key` (the realm's issuer).
    ///
    /// # Errors
    /// When the store refuses.
    pub fn save(&self, key: &str, secret: &Secret) -> Result<(), Failure> {
        let json = serde_json::to_string(secret)
            .map_err(|e| Failure::error(format!("Failed to serialise the credential: {e}")))?;
        match self {
            Vault::Keyring(_) => {
                let key = key.to_owned();
                off_runtime(move || {
                    keyring_core::Entry::new(SERVICE, &key)
                        .and_then(|e| e.set_password(&json))
                        .map_err(|e| {
                            Failure::error(format!(
                                "The OS credential store refused the sign-in: {e}"
                            ))
                        })
                })?
            }
            Vault::File(dir) => write_private(&dir.join(file_name(key)), json.as_bytes()),
        }
    }

    /// The secret of the sign-in `key`, if stored.
    ///
    /// # Errors
    /// When the store fails (not when the entry is missing).
    pub fn load(&self, key: &str) -> Result<Option<Secret>, Failure> {
        let text = match self {
            Vault::Keyring(_) => {
                let key = key.to_owned();
                off_runtime(move || {
                    match keyring_core::Entry::new(SERVICE, &key).and_then(|e| e.get_password()) {
                        Ok(p) => Ok(Some(p)),
                        Err(keyring_core::Error::NoEntry) => Ok(None),
                        Err(e) => Err(Failure::error(format!(
                            "Failed to read your sign-in from the OS credential store: {e}"
                        ))),
                    }
                })??
            }
            Vault::File(dir) => match std::fs::read_to_string(dir.join(file_name(key))) {
                Ok(t) => Some(t),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(Failure::error(format!("Failed to read your sign-in: {e}"))),
            },
        };
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }

    /// Forgets the sign-in `key` (nothing to forget is fine).
    ///
    /// # Errors
    /// When the store fails.
    pub fn forget(&self, key: &str) -> Result<(), Failure> {
        match self {
            Vault::Keyring(_) => {
                let key = key.to_owned();
                off_runtime(move || {
                    match keyring_core::Entry::new(SERVICE, &key)
                        .and_then(|e| e.delete_credential())
                    {
                        Ok(()) | Err(keyring_core::Error::NoEntry) => Ok(()),
                        Err(e) => Err(Failure::error(format!(
                            "Failed to remove your sign-in from the OS credential store: {e}"
                        ))),
                    }
                })?
            }
            Vault::File(dir) => match std::fs::remove_file(dir.join(file_name(key))) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(Failure::error(format!(
                    "Failed to remove your sign-in: {e}"
                ))),
            },
        }
    }
}

/// A file name for `key` (any text): its SHA-256.
pub fn file_name(key: &str) -> String {
    use sha2::Digest as _;
    format!("{}.json", hex::encode(sha2::Sha256::digest(key.as_bytes())))
}

/// Writes `bytes` to `path` readable by its owner alone (0600 in a 0700 directory on Unix),
/// through a temporary file and a rename.
///
/// # Errors
/// When it cannot be written.
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    use sha2::Digest as _;
    use std::io::Write as _;
    let fail =
        |e: std::io::Error| Failure::error(format!("Failed to write {}: {e}", path.display()));
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(fail)?;
    }
    // A fresh random name, created anew (never an existing file or a link planted there).
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        std::process::id(),
        hex::encode(
            &sha2::Sha256::digest(
                format!(
                    "{:?}{:?}",
                    std::time::SystemTime::now(),
                    std::thread::current().id()
                )
                .as_bytes()
            )[..8]
        )
    ));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let written = (|| {
        let mut f = options.open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(fail)
}
