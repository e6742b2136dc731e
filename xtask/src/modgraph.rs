//! The module graph of `authz` has no cycles: a domain's types (`model.rs`) sit below storage,
//! its operations (`ops.rs`, methods on `Core`) above it.
//!
//! Edges are the paths a file names (`crate::a::b`, `$crate::a::b` in storage macros,
//! `super::…`) and the submodules a `mod.rs` re-exports with `pub use`, each resolved to the
//! longest module it names. Declaring a submodule (`mod ops;`) is not an edge, and test code
//! (`#[cfg(test)]` modules, which by convention close a file, and test-only module files) is
//! left out. Items must be named through their defining module, not the crate root's
//! re-exports.
use anyhow::{Context as _, bail};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `authz/src/clients/ops.rs` → `clients::ops`; `lib.rs` → `` (the root).
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts.join("::")
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// The non-test part of a file and the names of its test-only submodules.
fn production_code(text: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut test_mods = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if t == "#[cfg(test)]"
            && let Some(next) = lines.peek().map(|l| l.trim())
        {
            if let Some(name) = next.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
                test_mods.push(name.to_owned());
                lines.next();
                continue;
            }
            if next.starts_with("mod ") && next.ends_with('{') {
                break; // the test module closes the file
            }
        }
        if t.starts_with("//") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    (out, test_mods)
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == ':'
}

/// Every `crate::…`, `$crate::…` and `super::…` path in `code`, as segments relative to the
/// crate root.
fn paths(code: &str, module: &str, is_mod_rs: bool) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let here: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    // `super` from `a/b.rs` (module a::b) is `a`; from `a/b/mod.rs` (module a::b) it is `a`.
    let parent: Vec<String> = here[..here.len().saturating_sub(1)]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    for (start, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| is_ident(c) && c != '$') {
            continue; // e.g. `mycrate::`
        }
        let rest: String = code[start..].chars().take_while(|c| is_ident(*c)).collect();
        let mut segs: Vec<String> = rest
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        match segs.first().map(String::as_str) {
            Some("crate") => {
                segs.remove(0);
            }
            Some("super") => {
                let mut base = parent.clone();
                segs.remove(0);
                while segs.first().is_some_and(|s| s == "super") {
                    segs.remove(0);
                    base.pop();
                }
                base.extend(segs);
                segs = base;
            }
            _ => continue,
        }
        out.push(segs);
    }
    // `pub use child::…` in a module file re-exports a submodule.
    if is_mod_rs || module.is_empty() {
        for line in code.lines() {
            if let Some(rest) = line.trim().strip_prefix("pub use ") {
                let first: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !first.is_empty() && first != "crate" && first != "super" {
                    let mut segs: Vec<String> = here.iter().map(|s| (*s).to_owned()).collect();
                    segs.push(first);
                    out.push(segs);
                }
            }
        }
    }
    out
}

/// Checks `crate_src` (e.g. `authz/src`) and returns the number of modules and edges.
pub fn check(crate_src: &Path) -> anyhow::Result<(usize, usize)> {
    let mut all = Vec::new();
    files(crate_src, &mut all).context("Failed to list the crate's files")?;
    let mut sources = BTreeMap::new();
    let mut test_only = BTreeSet::new();
    for file in &all {
        let module = module_of(crate_src, file);
        let text = std::fs::read_to_string(file)?;
        let (code, test_mods) = production_code(&text);
        for m in test_mods {
            test_only.insert(if module.is_empty() {
                m
            } else {
                format!("{module}::{m}")
            });
        }
        let is_mod_rs = file.file_name().is_some_and(|n| n == "mod.rs");
        sources.insert(module, (code, is_mod_rs));
    }
    sources.retain(|m, _| {
        !test_only
            .iter()
            .any(|t| m == t || m.starts_with(&format!("{t}::")))
    });
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut problems = Vec::new();
    for (module, (code, is_mod_rs)) in &sources {
        for segs in paths(code, module, *is_mod_rs) {
            let target = (0..=segs.len())
                .rev()
                .map(|n| segs[..n].join("::"))
                .find(|p| modules.contains(p))
                .unwrap_or_default();
            if target.is_empty() && !module.is_empty() {
                problems.push(format!(
                    "{module} names crate::{} through the crate root; use its defining module",
                    segs.join("::")
                ));
                continue;
            }
            if &target != module && !module.is_empty() {
                edges.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    if !problems.is_empty() {
        bail!("{}", problems.join("\n"));
    }
    // Depth-first search for a cycle.
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark: BTreeMap<&str, Mark> = modules.iter().map(|m| (m.as_str(), Mark::New)).collect();
    fn visit<'a>(
        m: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        mark: &mut BTreeMap<&'a str, Mark>,
        stack: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        mark.insert(m, Mark::Open);
        stack.push(m);
        for next in edges.get(m).into_iter().flatten() {
            match mark.get(next.as_str()).copied().unwrap_or(Mark::Done) {
                Mark::Open => {
                    let from = stack.iter().position(|s| *s == next).unwrap_or(0);
                    let mut cycle: Vec<String> =
                        stack[from..].iter().map(|s| (*s).to_owned()).collect();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(c) = visit(next, edges, mark, stack) {
                        return Some(c);
                    }
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        mark.insert(m, Mark::Done);
        None
    }
    for m in &modules {
        if mark.get(m.as_str()) == Some(&Mark::New) {
            let mut stack = Vec::new();
            if let Some(cycle) = visit(m, &edges, &mut mark, &mut stack) {
                bail!(
                    "import cycle in {}: {}",
                    crate_src.display(),
                    cycle.join(" → ")
                );
            }
        }
    }
    Ok((modules.len(), edges.values().map(BTreeSet::len).sum()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("dir");
            std::fs::write(p, text).expect("write");
        }
    }

    #[test]
    fn finds_a_cycle_through_a_reexport_and_accepts_layers() {
        let dir = std::env::temp_dir().join(format!("modgraph-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(
            &dir,
            &[
                ("lib.rs", "mod core;\nmod storage;\nmod clients;\n"),
                ("core.rs", "use crate::storage::Store;\n"),
                ("storage.rs", "use crate::clients::Client;\n"),
                (
                    "clients/mod.rs",
                    "mod model;\nmod ops;\npub use model::*;\n",
                ),
                (
                    "clients/model.rs",
                    "pub struct Client;\n#[cfg(test)]\nmod tests {\n use crate::core::X;\n}\n",
                ),
                (
                    "clients/ops.rs",
                    "use super::model::Client;\nuse crate::core::Core;\n",
                ),
            ],
        );
        assert!(check(&dir).is_ok(), "layered: no cycle (test code ignored)");
        write(
            &dir,
            &[(
                "clients/mod.rs",
                "mod model;\nmod ops;\npub use model::*;\npub use ops::helper;\n",
            )],
        );
        let err = check(&dir).expect_err("cycle").to_string();
        assert!(
            err.contains("clients::ops") && err.contains("core"),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
