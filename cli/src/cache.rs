//! The release cache: `<root>/<host>/<realm>/release.json` (the document exactly as served)
//! and `<root>/state.json` (which release is current, the JWKS it was verified with, and the
//! rings and units it is read for). Every file is written to a temporary file and renamed.
//!
//! The root is `--cache-dir`, else `$XDG_CACHE_HOME/portcullis`, else `~/.cache/portcullis`.
use crate::Failure;
use serde::{Deserialize, Serialize};
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// What `drift` needs to find and re-verify the release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// The Portcullis base URL pulled from.
    pub server: String,
    /// The realm.
    pub realm: String,
    /// The realm's issuer (the release's `manifest.issuer`).
    pub issuer: String,
    /// The release file, relative to the cache root.
    pub release: String,
    /// Its id.
    pub release_id: String,
    /// Its sequence (a later pull never goes back).
    pub sequence: u64,
    /// The realm's JWKS when it was pulled.
    pub jwks: serde_json::Value,
    /// The rings it is read for.
    pub rings: Vec<String>,
    /// The units it is read for.
    pub units: Vec<String>,
    /// When it was last pulled or confirmed unchanged (Unix seconds; 0 for caches written
    /// before this was recorded).
    #[serde(default)]
    pub pulled_at: u64,
}

/// The cache root.
///
/// # Errors
/// When neither `--cache-dir`, `XDG_CACHE_HOME` nor `HOME` says where.
pub fn root(dir: Option<&Path>) -> Result<PathBuf, Failure> {
    if let Some(dir) = dir {
        return Ok(dir.to_owned());
    }
    let var = |k: &str| {
        std::env::var_os(k)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    var("XDG_CACHE_HOME")
        .map(|x| x.join("portcullis"))
        .or_else(|| var("HOME").map(|h| h.join(".cache").join("portcullis")))
        .or_else(|| var("LOCALAPPDATA").map(|h| h.join("portcullis")))
        .ok_or_else(|| {
            Failure::error("No cache directory: set HOME or XDG_CACHE_HOME, or pass --cache-dir.")
        })
}

/// The release file of `realm` at `server`, relative to the root.
pub fn release_file(server: &url::Url, realm: &str) -> String {
    let host = server.host_str().unwrap_or("server").replace(':', "_");
    let host = match server.port() {
        Some(p) => format!("{host}_{p}"),
        None => host,
    };
    format!("{host}/{realm}/release.json")
}

/// The current state, if a release was pulled.
///
/// # Errors
/// When the state file exists but cannot be read or parsed.
pub fn load(root: &Path) -> Result<Option<State>, Failure> {
    let path = root.join("state.json");
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            Failure::error(format!(
                "Failed to read {}: {e} (pull again)",
                path.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Failure::error(format!(
            "Failed to read {}: {e}",
            path.display()
        ))),
    }
}

/// Saves the state (after the release it names).
///
/// # Errors
/// When it cannot be written.
pub fn save(root: &Path, state: &State) -> Result<(), Failure> {
    let bytes = serde_json::to_vec_pretty(state)
        .map_err(|e| Failure::error(format!("Failed to serialise the state: {e}")))?;
    write_atomic(&root.join("state.json"), &bytes)
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so
/// a reader sees the old file or the new one, never half of one.
///
/// # Errors
/// When the directory cannot be created or the file written.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let fail =
        |e: std::io::Error| Failure::error(format!("Failed to write {}: {e}", path.display()));
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(fail)
}
