//! The module graph of every workspace crate has no cycles. In `authz` a domain's types
//! (`model.rs`) sit below storage, its operations (`ops.rs`, methods on `Core`) above it; the
//! other crates follow the same rule: a module that another names does not name it back.
//!
//! Edges are the paths a file names (`crate::a::b`, `$crate::a::b` in storage macros,
//! `super::…`, `self::…`, and every path of a `use` group such as `crate::{a::X, b::{c, d}}`)
//! and the submodules a module file (`a/mod.rs`, or `a.rs` beside `a/`) re-exports with
//! `pub use`, each resolved to the longest module it names. Declaring a submodule (`mod ops;`)
//! is not an edge, and test code (`#[cfg(test)]` modules, which by convention close a file, and
//! test-only module files) is left out. The crate root (`lib.rs`, or `main.rs` of a binary-only
//! crate) declares and wires the modules: it may name any of them, and items defined in it may be
//! named from anywhere (an edge to the root never closes a cycle). Items the root only
//! re-exports must be named through their defining module.
use anyhow::{Context as _, bail};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `authz/src/clients/ops.rs` → `clients::ops`; `lib.rs` (or `main.rs`) → `` (the root).
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(root).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    if parts.len() == 1 && (parts[0] == "lib" || parts[0] == "main") {
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
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths of the use tree (or plain path) that starts at `text`: `a::b::C` is one path,
/// `a::{b::C, d::{e, f}}` three. Whitespace inside groups is allowed.
fn use_tree(text: &str) -> Vec<Vec<String>> {
    fn tree(chars: &[char], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        loop {
            while *i < chars.len() && chars[*i].is_whitespace() {
                *i += 1;
            }
            if *i < chars.len() && chars[*i] == '{' {
                *i += 1;
                loop {
                    tree(chars, i, &path, out);
                    while *i < chars.len() && chars[*i].is_whitespace() {
                        *i += 1;
                    }
                    match chars.get(*i) {
                        Some(',') => {
                            *i += 1;
                            while *i < chars.len() && chars[*i].is_whitespace() {
                                *i += 1;
                            }
                            if chars.get(*i) == Some(&'}') {
                                *i += 1;
                                return;
                            }
                        }
                        Some('}') => {
                            *i += 1;
                            return;
                        }
                        _ => return,
                    }
                }
            }
            let start = *i;
            while *i < chars.len() && is_ident(chars[*i]) {
                *i += 1;
            }
            let seg: String = chars[start..*i].iter().collect();
            // `self` inside a group names the group's own path.
            let group_self = seg == "self" && !path.is_empty();
            if !seg.is_empty() && !group_self {
                path.push(seg);
            }
            if chars.get(*i) == Some(&':') && chars.get(*i + 1) == Some(&':') {
                *i += 2;
                continue;
            }
            // `as name` and the rest of the item end the path.
            out.push(path);
            return;
        }
    }
    let chars: Vec<char> = text.chars().take(4096).collect();
    let mut out = Vec::new();
    tree(&chars, &mut 0, &[], &mut out);
    out
}

/// Every `crate::…`, `$crate::…`, `super::…` and `self::…` path in `code`, as segments relative
/// to the crate root, plus the submodules a module file re-exports.
fn paths(code: &str, module: &str, has_children: bool) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let here: Vec<String> = module
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    // `super` from `a/b.rs` (module a::b) is `a`; from `a/b/mod.rs` (module a::b) it is `a`.
    let parent: Vec<String> = here[..here.len().saturating_sub(1)].to_vec();
    let starts = code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
        .chain(code.match_indices("self::"));
    for (start, _) in starts {
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| (is_ident(c) || c == ':') && c != '$') {
            continue; // e.g. `mycrate::`, `super::super::`, `a::self::`
        }
        for mut segs in use_tree(&code[start..]) {
            match segs.first().map(String::as_str) {
                Some("crate") => {
                    segs.remove(0);
                }
                Some("self") => {
                    segs.remove(0);
                    let mut base = here.clone();
                    base.extend(segs);
                    segs = base;
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
    }
    // `pub use child::…` in a module file re-exports a submodule.
    if has_children || module.is_empty() {
        for line in code.lines() {
            if let Some(rest) = line.trim().strip_prefix("pub use ") {
                let first: String = rest.chars().take_while(|c| is_ident(*c)).collect();
                if !first.is_empty() && first != "crate" && first != "super" && first != "self" {
                    let mut segs = here.clone();
                    segs.push(first);
                    out.push(segs);
                }
            }
        }
    }
    out
}

/// The names the crate root re-exports (`pub use a::{B, c::D}` → `B`, `D`); `crate::B` must be
/// named as `crate::a::B`.
fn root_reexports(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (start, _) in code.match_indices("pub use ") {
        if code[..start]
            .chars()
            .next_back()
            .is_some_and(|c| !c.is_whitespace())
        {
            continue;
        }
        let item = &code[start + "pub use ".len()..];
        let item = &item[..item.find(';').unwrap_or(item.len())];
        for path in use_tree(item) {
            if let Some(last) = path.last() {
                names.insert(last.clone());
            }
        }
        // `pub use a::B as C;`
        if let Some((_, alias)) = item.rsplit_once(" as ") {
            names.insert(alias.trim().to_owned());
        }
    }
    names
}

/// A crate's module graph: every module and the modules each one names.
#[derive(Debug, Default)]
pub struct Graph {
    pub modules: BTreeSet<String>,
    pub edges: BTreeMap<String, BTreeSet<String>>,
}

impl Graph {
    pub fn edge_count(&self) -> usize {
        self.edges.values().map(BTreeSet::len).sum()
    }
}

/// Reads `crate_src` (e.g. `authz/src`). A binary next to a library (`main.rs` beside `lib.rs`,
/// `bin/`) is another crate and is left out.
pub fn graph(crate_src: &Path) -> anyhow::Result<Graph> {
    let mut all = Vec::new();
    files(crate_src, &mut all).context("Failed to list the crate's files")?;
    let has_lib = crate_src.join("lib.rs").exists();
    all.retain(|f| {
        let rel = f.strip_prefix(crate_src).unwrap_or(f);
        let other_binary = has_lib && rel == Path::new("main.rs");
        !other_binary && !rel.starts_with("bin")
    });
    let mut sources = BTreeMap::new();
    let mut test_only = BTreeSet::new();
    for file in &all {
        let module = module_of(crate_src, file);
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("Failed to read {}", file.display()))?;
        let (code, test_mods) = production_code(&text);
        for m in test_mods {
            test_only.insert(if module.is_empty() {
                m
            } else {
                format!("{module}::{m}")
            });
        }
        sources.insert(module, code);
    }
    sources.retain(|m, _| {
        !test_only
            .iter()
            .any(|t| m == t || m.starts_with(&format!("{t}::")))
    });
    let modules: BTreeSet<String> = sources.keys().cloned().collect();
    let reexported = sources
        .get("")
        .map(|root| root_reexports(root))
        .unwrap_or_default();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut problems = Vec::new();
    for (module, code) in &sources {
        if module.is_empty() {
            continue; // the root wires the modules together
        }
        let prefix = format!("{module}::");
        let has_children = modules.iter().any(|m| m.starts_with(&prefix));
        for segs in paths(code, module, has_children) {
            if segs.is_empty() {
                continue; // `crate::{}` in a message, or the root itself
            }
            let target = (0..=segs.len())
                .rev()
                .map(|n| segs[..n].join("::"))
                .find(|p| modules.contains(p))
                .unwrap_or_default();
            if target.is_empty() && segs.first().is_none_or(|name| reexported.contains(name)) {
                problems.push(format!(
                    "{module} names crate::{} through the crate root; use its defining module",
                    segs.join("::")
                ));
                continue;
            }
            if &target != module {
                edges.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    if !problems.is_empty() {
        bail!("{}", problems.join("\n"));
    }
    Ok(Graph { modules, edges })
}

/// A cycle of `graph`, as the path `a → b → a`, if there is one.
pub fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit<'a>(
        m: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        mark: &mut BTreeMap<&'a str, Mark>,
        stack: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        mark.insert(m, Mark::Open);
        stack.push(m);
        for next in edges.get(m).into_iter().flatten() {
            match mark.get(next.as_str()).copied().unwrap_or(Mark::New) {
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
    let mut mark: BTreeMap<&str, Mark> = BTreeMap::new();
    let starts = graph.modules.iter().chain(graph.edges.keys());
    for m in starts {
        if mark.get(m.as_str()).copied().unwrap_or(Mark::New) == Mark::New {
            let mut stack = Vec::new();
            if let Some(cycle) = visit(m, &graph.edges, &mut mark, &mut stack) {
                return Some(cycle);
            }
        }
    }
    None
}

/// Checks one crate's sources: `Ok((modules, edges))`, or an error naming the cycle.
pub fn check(crate_src: &Path) -> anyhow::Result<(usize, usize)> {
    let graph = graph(crate_src)?;
    if let Some(cycle) = find_cycle(&graph) {
        bail!("import cycle: {}", cycle.join(" → "));
    }
    Ok((graph.modules.len(), graph.edge_count()))
}

/// The workspace members listed in `Cargo.toml` (`members = ["app", "authz", …]`).
pub fn workspace_members(manifest: &str) -> Vec<String> {
    let Some(start) = manifest.find("members") else {
        return Vec::new();
    };
    let rest = &manifest[start..];
    let Some(open) = rest.find('[') else {
        return Vec::new();
    };
    let close = rest[open..].find(']').map_or(rest.len(), |c| open + c);
    rest[open + 1..close]
        .split(',')
        .map(|m| m.trim().trim_matches('"').to_owned())
        .filter(|m| !m.is_empty())
        .collect()
}

/// Checks every workspace crate, printing one line per crate; fails if any has a cycle.
pub fn check_workspace(root: &Path) -> anyhow::Result<()> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .context("Failed to read the workspace Cargo.toml")?;
    let members = workspace_members(&manifest);
    // A manifest this parser misreads must not pass by checking nothing.
    for required in ["authz", "app", "server"] {
        if !members.iter().any(|m| m == required) {
            bail!(
                "the workspace members read from Cargo.toml ({members:?}) do not include `{required}`: list members as `members = [\"app\", \"authz\", …]`"
            );
        }
    }
    let mut failed = Vec::new();
    for member in members {
        let src = root.join(&member).join("src");
        if !src.is_dir() {
            bail!("workspace member `{member}` has no src/ directory to check");
        }
        match check(&src) {
            Ok((modules, edges)) => {
                eprintln!("{member}: {modules} modules, {edges} edges, no cycle");
            }
            Err(e) => {
                eprintln!("{member}: {e:#}");
                failed.push(member);
            }
        }
    }
    if !failed.is_empty() {
        bail!("module graph check failed in: {}", failed.join(", "));
    }
    Ok(())
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

    fn graph_of(edges: &[(&str, &str)]) -> Graph {
        let mut g = Graph::default();
        for (a, b) in edges {
            g.modules.insert((*a).to_owned());
            g.modules.insert((*b).to_owned());
            g.edges
                .entry((*a).to_owned())
                .or_default()
                .insert((*b).to_owned());
        }
        g
    }

    #[test]
    fn a_cycle_is_named_as_a_path_and_a_dag_passes() {
        let dag = graph_of(&[("a", "b"), ("b", "c"), ("a", "c"), ("d", "c")]);
        assert_eq!(find_cycle(&dag), None);
        let two = graph_of(&[("http", "session"), ("session", "http")]);
        assert_eq!(
            find_cycle(&two).expect("cycle").join(" → "),
            "http → session → http"
        );
        let long = graph_of(&[("a", "b"), ("b", "c"), ("c", "d"), ("d", "b")]);
        assert_eq!(
            find_cycle(&long).expect("cycle").join(" → "),
            "b → c → d → b"
        );
    }

    #[test]
    fn use_groups_self_and_nested_paths_are_edges() {
        assert_eq!(
            use_tree("crate::{a::X, b::{self, c::Y}, d};"),
            vec![
                vec!["crate", "a", "X"],
                vec!["crate", "b"],
                vec!["crate", "b", "c", "Y"],
                vec!["crate", "d"],
            ]
        );
        let dir = std::env::temp_dir().join(format!("modgraph-groups-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(
            &dir,
            &[
                ("lib.rs", "mod a;\nmod b;\npub struct State;\n"),
                ("a.rs", "use crate::{State, b::{self, Thing}};\n"),
                ("b.rs", "pub struct Thing;\nuse crate::State;\n"),
            ],
        );
        let g = graph(&dir).expect("graph");
        assert_eq!(
            g.edges
                .get("a")
                .map(|e| e.iter().cloned().collect::<Vec<_>>()),
            Some(vec![String::new(), "b".to_owned()]),
            "a names the root's own item and b through one group"
        );
        assert!(
            check(&dir).is_ok(),
            "items defined in the root close no cycle"
        );
        write(
            &dir,
            &[(
                "b.rs",
                "pub struct Thing;\nfn f() {\n    crate::{\n        a::g,\n    };\n}\n",
            )],
        );
        let err = check(&dir)
            .expect_err("cycle through a multi-line group")
            .to_string();
        assert!(err.contains("a → b → a"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn root_reexports_must_be_named_through_their_module() {
        let dir = std::env::temp_dir().join(format!("modgraph-root-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(
            &dir,
            &[
                (
                    "lib.rs",
                    "mod a;\nmod b;\npub use b::{Thing, Other as Alias};\n",
                ),
                ("a.rs", "use crate::Thing;\n"),
                ("b.rs", "pub struct Thing;\npub struct Other;\n"),
            ],
        );
        let err = check(&dir).expect_err("re-export").to_string();
        assert!(
            err.contains("a names crate::Thing through the crate root"),
            "{err}"
        );
        write(&dir, &[("a.rs", "use crate::b::Thing;\n")]);
        assert!(check(&dir).is_ok());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_binary_beside_the_library_is_another_crate() {
        let dir = std::env::temp_dir().join(format!("modgraph-bin-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(
            &dir,
            &[
                ("lib.rs", "pub mod a;\n"),
                ("a.rs", "pub fn f() {}\n"),
                (
                    "main.rs",
                    "fn main() { mycrate::a::f(); crate::nothing(); }\n",
                ),
            ],
        );
        let g = graph(&dir).expect("graph");
        assert_eq!(g.modules.len(), 2, "{:?}", g.modules);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn workspace_members_are_read_from_the_manifest() {
        let manifest = "[workspace]\nresolver = \"3\"\nmembers = [\"app\", \"authz\",\n  \"guard\"]\ndefault-members = [\"authz\"]\n";
        assert_eq!(workspace_members(manifest), ["app", "authz", "guard"]);
    }
}
