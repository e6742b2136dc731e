//! A realm's registry policy: its mode, its approved servers, and the rings and units that
//! get them. A release's manifest is a checked policy (see [`crate::canonical`]).
use crate::field::Findings;
use crate::names::{check_group, shown};
use crate::server::{Server, ServerInput};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Most servers in one policy.
pub const MAX_SERVERS: usize = 2000;
/// Most rings, and most units, in one policy.
pub const MAX_GROUPS: usize = 500;
/// Deepest unit hierarchy.
pub const MAX_UNIT_DEPTH: usize = 16;

/// What a harness does with servers the policy does not name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Only approved servers run (where the harness can enforce it).
    Allowlist,
    /// Approved servers are delivered, nothing else is blocked, drift is reported.
    Warn,
}

impl Mode {
    /// The manifest's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Allowlist => "allowlist",
            Mode::Warn => "warn",
        }
    }

    /// Parses a mode. An unknown one fails closed: it is taken as `allowlist`, and the error
    /// says so.
    pub fn parse(s: &str) -> (Mode, Option<String>) {
        match s.trim() {
            "" | "allowlist" => (Mode::Allowlist, None),
            "warn" => (Mode::Warn, None),
            other => (
                Mode::Allowlist,
                Some(format!(
                    "{}: allowlist or warn (taken as allowlist until it is fixed).",
                    shown(other)
                )),
            ),
        }
    }
}

/// A unit: members of a unit get what its ancestors get.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Unit {
    /// Its id.
    pub id: String,
    /// The unit it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// A policy as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct PolicyInput {
    /// `allowlist` (default) or `warn`.
    pub mode: String,
    /// Approved servers.
    pub servers: Vec<ServerInput>,
    /// Ring ids.
    pub rings: Vec<String>,
    /// Units.
    pub units: Vec<Unit>,
}

/// A checked policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Mode.
    pub mode: Mode,
    /// Servers, by id.
    pub servers: Vec<Server>,
    /// Ring ids, sorted.
    pub rings: Vec<String>,
    /// Units, by id.
    pub units: Vec<Unit>,
}

impl Policy {
    /// Checks a whole policy: every server (fields named `servers[i].…`), unique ids, rings
    /// and units that exist, a unit tree without cycles. An unknown mode is an error and is
    /// taken as `allowlist` meanwhile.
    pub fn check(input: &PolicyInput) -> (Option<Policy>, Findings) {
        let mut f = Findings::default();
        let (mode, wrong) = Mode::parse(&input.mode);
        if let Some(m) = wrong {
            f.error("mode", m);
        }
        let rings = ring_ids(&input.rings, &mut f);
        let units = unit_tree(&input.units, &mut f);
        if input.servers.len() > MAX_SERVERS {
            f.error("servers", format!("At most {MAX_SERVERS} servers."));
        }
        let mut servers: Vec<Server> = Vec::new();
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for (i, s) in input.servers.iter().enumerate() {
            let (server, found) = Server::check(s);
            f.extend_under(&format!("servers[{i}]."), found);
            let id = s.id.trim();
            if let Some(first) = seen.insert(id.to_owned(), i) {
                f.error(
                    format!("servers[{i}].id"),
                    format!(
                        "{} is taken: another server (servers[{first}]) has this id.",
                        shown(id)
                    ),
                );
            }
            for (j, r) in s.rings.iter().enumerate() {
                if check_group(r.trim()).is_ok() && !rings.iter().any(|x| x == r.trim()) {
                    f.error(
                        format!("servers[{i}].rings[{j}]"),
                        format!("{}: no such ring.", shown(r)),
                    );
                }
            }
            for (j, u) in s.units.iter().enumerate() {
                if check_group(u.trim()).is_ok() && !units.iter().any(|x| x.id == u.trim()) {
                    f.error(
                        format!("servers[{i}].units[{j}]"),
                        format!("{}: no such unit.", shown(u)),
                    );
                }
            }
            servers.extend(server);
        }
        servers.sort_by(|a, b| a.id.cmp(&b.id));
        if f.is_ok() {
            (
                Some(Policy {
                    mode,
                    servers,
                    rings,
                    units,
                }),
                f,
            )
        } else {
            (None, f)
        }
    }

    /// The policy as written (for storing and the manifest), servers by id.
    pub fn to_input(&self) -> PolicyInput {
        PolicyInput {
            mode: self.mode.as_str().into(),
            servers: self.servers.iter().map(Server::to_input).collect(),
            rings: self.rings.clone(),
            units: self.units.clone(),
        }
    }

    /// The units `unit` is in: itself and its ancestors (members of a unit get what the
    /// units above it get).
    pub fn unit_chain(&self, unit: &str) -> Vec<String> {
        let mut chain = Vec::new();
        let mut at = Some(unit.to_owned());
        while let Some(u) = at {
            if chain.contains(&u) || chain.len() > MAX_UNIT_DEPTH {
                break;
            }
            at = self
                .units
                .iter()
                .find(|x| x.id == u)
                .and_then(|x| x.parent.clone());
            chain.push(u);
        }
        chain
    }

    /// The servers someone in `rings` and `units` gets.
    pub fn servers_for(&self, rings: &[String], units: &[String]) -> Vec<&Server> {
        let units: BTreeSet<String> = units.iter().flat_map(|u| self.unit_chain(u)).collect();
        self.servers
            .iter()
            .filter(|s| {
                s.rings.iter().any(|r| rings.contains(r))
                    || s.units.iter().any(|u| units.contains(u))
            })
            .collect()
    }
}

fn ring_ids(list: &[String], f: &mut Findings) -> Vec<String> {
    if list.len() > MAX_GROUPS {
        f.error("rings", format!("At most {MAX_GROUPS} rings."));
    }
    let mut out = BTreeSet::new();
    for (i, r) in list.iter().enumerate() {
        match check_group(r.trim()) {
            Ok(()) => {
                if !out.insert(r.trim().to_owned()) {
                    f.error(
                        format!("rings[{i}]"),
                        format!("{} is listed twice.", shown(r)),
                    );
                }
            }
            Err(m) => f.error(format!("rings[{i}]"), m),
        }
    }
    out.into_iter().collect()
}

fn unit_tree(list: &[Unit], f: &mut Findings) -> Vec<Unit> {
    if list.len() > MAX_GROUPS {
        f.error("units", format!("At most {MAX_GROUPS} units."));
    }
    let mut parents: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (i, u) in list.iter().enumerate() {
        let id = u.id.trim().to_owned();
        if let Err(m) = check_group(&id) {
            f.error(format!("units[{i}].id"), m);
        } else if let std::collections::btree_map::Entry::Vacant(e) = parents.entry(id.clone()) {
            e.insert(u.parent.as_deref().map(str::trim).map(str::to_owned));
        } else {
            f.error(
                format!("units[{i}].id"),
                format!("{} is listed twice.", shown(&id)),
            );
        }
    }
    for (i, u) in list.iter().enumerate() {
        let Some(parent) = u.parent.as_deref().map(str::trim) else {
            continue;
        };
        if !parents.contains_key(parent) {
            f.error(
                format!("units[{i}].parent"),
                format!("{}: no such unit.", shown(parent)),
            );
            continue;
        }
        // Walk up: a cycle comes back to this unit, or runs past the depth limit.
        let mut at = Some(parent.to_owned());
        let mut depth = 1;
        while let Some(p) = at {
            if p == u.id.trim() {
                f.error(
                    format!("units[{i}].parent"),
                    format!("{} would be its own ancestor.", shown(u.id.trim())),
                );
                break;
            }
            depth += 1;
            if depth > MAX_UNIT_DEPTH {
                f.error(
                    format!("units[{i}].parent"),
                    format!("Units nest at most {MAX_UNIT_DEPTH} deep."),
                );
                break;
            }
            at = parents.get(&p).cloned().flatten();
        }
    }
    parents
        .into_iter()
        .map(|(id, parent)| Unit { id, parent })
        .collect()
}
