//! The files `registry apply` reads and `registry render` writes.

/// A policy file: `export`'s `{"revision", "policy"}`, or a bare policy. Unknown keys are
/// refused with their path (`servers[1].tools.denied`): a misspelled rule must not vanish.
pub(super) fn parse_policy(
    text: &[u8],
) -> anyhow::Result<(portcullis_manifest::policy::PolicyInput, Option<i64>)> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Exported {
        revision: i64,
        policy: portcullis_manifest::policy::PolicyInput,
    }
    let value: serde_json::Value = serde_json::from_slice(text)?;
    let exported = value.get("revision").is_some() && value.get("policy").is_some();
    if exported {
        let e: Exported = serde_path_to_error::deserialize(value)
            .map_err(|e| anyhow::anyhow!("{}: {}", e.path(), e.inner()))?;
        Ok((e.policy, Some(e.revision)))
    } else {
        let p = serde_path_to_error::deserialize(value)
            .map_err(|e| anyhow::anyhow!("{}: {}", e.path(), e.inner()))?;
        Ok((p, None))
    }
}

/// Writes `contents` to `path` in `dir` through a temporary file and a rename, refusing to
/// follow a symbolic link planted at `dir` or `path` (a shared output directory must not
/// send the managed files somewhere else).
pub(super) fn write_plain_file(
    dir: &std::path::Path,
    path: &std::path::Path,
    contents: &str,
) -> anyhow::Result<()> {
    for p in [dir, path] {
        if std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink()) {
            anyhow::bail!(
                "{} is a symbolic link: refusing to write through it.",
                p.display()
            );
        }
    }
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        std::process::id()
    ));
    {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| anyhow::anyhow!("Cannot create {}: {e}", tmp.display()))?;
        file.write_all(contents.as_bytes())
            .map_err(|e| anyhow::anyhow!("Cannot write {}: {e}", tmp.display()))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        anyhow::anyhow!("Cannot write {}: {e}", path.display())
    })
}
