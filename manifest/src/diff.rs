//! What changed between two policies.
//!
//! The mode, servers added, removed and changed field by field, rings and units added or
//! removed. A release's history shows it against the release before; the Publish page shows
//! it for the draft against the latest release.
use crate::policy::PolicyInput;
use crate::server::ServerInput;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// One field of a server, before and after (JSON text; `None`: not set on that side).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldChange {
    /// The field's path in the server, e.g. `tools.deny` or `package.version`.
    pub field: String,
    /// Its value before.
    pub from: Option<String>,
    /// Its value after.
    pub to: Option<String>,
}

/// A server present on both sides whose definition changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerChange {
    /// Its id.
    pub id: String,
    /// What changed, by field path.
    pub fields: Vec<FieldChange>,
}

/// The difference from one policy to another.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    /// The mode, before and after, when it changed.
    pub mode: Option<(String, String)>,
    /// Ids of servers only the new policy has.
    pub added: Vec<String>,
    /// Ids of servers only the old policy has.
    pub removed: Vec<String>,
    /// Servers on both sides that differ.
    pub changed: Vec<ServerChange>,
    /// Rings only the new policy has.
    pub rings_added: Vec<String>,
    /// Rings only the old policy has.
    pub rings_removed: Vec<String>,
    /// Units only the new policy has.
    pub units_added: Vec<String>,
    /// Units only the old policy has.
    pub units_removed: Vec<String>,
    /// Units on both sides whose parent changed.
    pub units_moved: Vec<FieldChange>,
}

impl Diff {
    /// Whether the two policies say the same.
    pub fn is_empty(&self) -> bool {
        *self == Diff::default()
    }

    /// A one-line count, e.g. `2 added, 1 changed, 1 removed`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        let mut count = |n: usize, what: &str| {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        };
        count(self.added.len(), "added");
        count(self.changed.len(), "changed");
        count(self.removed.len(), "removed");
        let groups = self.rings_added.len()
            + self.rings_removed.len()
            + self.units_added.len()
            + self.units_removed.len()
            + self.units_moved.len();
        count(groups, "ring/unit changes");
        if self.mode.is_some() {
            parts.push("mode changed".into());
        }
        if parts.is_empty() {
            "no change".into()
        } else {
            parts.join(", ")
        }
    }
}

/// What changed from `old` to `new` (`old` is `None` for a first release: everything is added).
pub fn diff(old: Option<&PolicyInput>, new: &PolicyInput) -> Diff {
    let empty = PolicyInput::default();
    let old_policy = old.unwrap_or(&empty);
    let mode = |p: &PolicyInput| {
        if p.mode.trim().is_empty() {
            "allowlist".to_owned()
        } else {
            p.mode.trim().to_owned()
        }
    };
    let mut d = Diff::default();
    if old.is_some() && mode(old_policy) != mode(new) {
        d.mode = Some((mode(old_policy), mode(new)));
    }
    let before: BTreeMap<&str, &ServerInput> = old_policy
        .servers
        .iter()
        .map(|s| (s.id.as_str(), s))
        .collect();
    let after: BTreeMap<&str, &ServerInput> =
        new.servers.iter().map(|s| (s.id.as_str(), s)).collect();
    for (id, s) in &after {
        match before.get(id) {
            None => d.added.push((*id).to_owned()),
            Some(b) if b != s => d.changed.push(ServerChange {
                id: (*id).to_owned(),
                fields: field_changes(b, s),
            }),
            Some(_) => {}
        }
    }
    d.removed = before
        .keys()
        .filter(|id| !after.contains_key(*id))
        .map(|id| (*id).to_owned())
        .collect();
    let (added, removed) = set_diff(&old_policy.rings, &new.rings);
    d.rings_added = added;
    d.rings_removed = removed;
    let ids = |p: &PolicyInput| p.units.iter().map(|u| u.id.clone()).collect::<Vec<_>>();
    let (added, removed) = set_diff(&ids(old_policy), &ids(new));
    d.units_added = added;
    d.units_removed = removed;
    for u in &new.units {
        if let Some(b) = old_policy.units.iter().find(|b| b.id == u.id)
            && b.parent != u.parent
        {
            d.units_moved.push(FieldChange {
                field: u.id.clone(),
                from: b.parent.clone(),
                to: u.parent.clone(),
            });
        }
    }
    d
}

fn set_diff(old: &[String], new: &[String]) -> (Vec<String>, Vec<String>) {
    let mut added: Vec<String> = new.iter().filter(|x| !old.contains(x)).cloned().collect();
    let mut removed: Vec<String> = old.iter().filter(|x| !new.contains(x)).cloned().collect();
    added.sort();
    added.dedup();
    removed.sort();
    removed.dedup();
    (added, removed)
}

/// Every leaf that differs between two servers: objects are walked, lists and scalars compared
/// whole.
fn field_changes(old: &ServerInput, new: &ServerInput) -> Vec<FieldChange> {
    let mut a = BTreeMap::new();
    let mut b = BTreeMap::new();
    flatten(
        "",
        &serde_json::to_value(old).unwrap_or(Value::Null),
        &mut a,
    );
    flatten(
        "",
        &serde_json::to_value(new).unwrap_or(Value::Null),
        &mut b,
    );
    let mut fields: Vec<&String> = a.keys().chain(b.keys()).collect();
    fields.sort();
    fields.dedup();
    fields
        .into_iter()
        .filter(|f| a.get(*f) != b.get(*f))
        .map(|f| FieldChange {
            field: f.clone(),
            from: a.get(f).cloned(),
            to: b.get(f).cloned(),
        })
        .collect()
}

fn flatten(prefix: &str, value: &Value, out: &mut BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&path, v, out);
            }
        }
        Value::Null => {}
        Value::Array(items) if items.is_empty() => {}
        other => {
            out.insert(prefix.to_owned(), other.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::Unit;
    use crate::server::{PackageInput, Tools};

    fn npm(id: &str, version: &str) -> ServerInput {
        ServerInput {
            id: id.into(),
            package: Some(PackageInput {
                kind: "npm".into(),
                identifier: format!("@acme/{id}"),
                version: Some(version.into()),
            }),
            rings: vec!["ring0".into()],
            ..ServerInput::default()
        }
    }

    fn policy(servers: Vec<ServerInput>) -> PolicyInput {
        PolicyInput {
            mode: "allowlist".into(),
            servers,
            rings: vec!["ring0".into()],
            units: vec![],
        }
    }

    #[test]
    fn first_release_adds_everything() {
        let new = policy(vec![npm("wiki", "1.0.0"), npm("jira", "2.0.0")]);
        let d = diff(None, &new);
        assert_eq!(d.added, vec!["jira", "wiki"]);
        assert_eq!(d.rings_added, vec!["ring0"]);
        assert!(d.mode.is_none());
        assert_eq!(d.summary(), "2 added, 1 ring/unit changes");
    }

    #[test]
    fn field_by_field() {
        let old = policy(vec![npm("wiki", "1.0.0"), npm("gone", "1.0.0")]);
        let mut changed = npm("wiki", "1.0.1");
        changed.tools = Tools {
            allow: vec![],
            deny: vec!["delete_page".into()],
        };
        let mut new = policy(vec![changed, npm("fresh", "0.1.0")]);
        new.mode = "warn".into();
        new.units = vec![Unit {
            id: "payments".into(),
            parent: None,
        }];
        let d = diff(Some(&old), &new);
        assert_eq!(d.added, vec!["fresh"]);
        assert_eq!(d.removed, vec!["gone"]);
        assert_eq!(d.mode, Some(("allowlist".into(), "warn".into())));
        assert_eq!(d.units_added, vec!["payments"]);
        let wiki = &d.changed[0];
        assert_eq!(wiki.id, "wiki");
        assert_eq!(
            wiki.fields,
            vec![
                FieldChange {
                    field: "package.version".into(),
                    from: Some("\"1.0.0\"".into()),
                    to: Some("\"1.0.1\"".into()),
                },
                FieldChange {
                    field: "tools.deny".into(),
                    from: None,
                    to: Some("[\"delete_page\"]".into()),
                },
            ]
        );
    }

    #[test]
    fn same_policy_is_empty() {
        let p = policy(vec![npm("wiki", "1.0.0")]);
        assert!(diff(Some(&p), &p).is_empty());
        assert_eq!(diff(Some(&p), &p).summary(), "no change");
    }

    #[test]
    fn moved_unit() {
        let mut old = policy(vec![]);
        old.units = vec![
            Unit {
                id: "eng".into(),
                parent: None,
            },
            Unit {
                id: "payments".into(),
                parent: None,
            },
        ];
        let mut new = old.clone();
        new.units[1].parent = Some("eng".into());
        let d = diff(Some(&old), &new);
        assert_eq!(d.units_moved.len(), 1);
        assert_eq!(d.units_moved[0].to.as_deref(), Some("eng"));
    }
}
