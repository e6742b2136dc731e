//! How `registry` commands print what they did: times, diffs, refusals, releases.
use super::super::support::core_error;
use authz::registry::Published;

pub(super) fn time(t: i64) -> String {
    time::OffsetDateTime::from_unix_timestamp(t)
        .ok()
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| t.to_string())
}

/// A diff, server by server and field by field.
pub(super) fn print_diff(d: &portcullis_manifest::diff::Diff) -> anyhow::Result<()> {
    if let Some((from, to)) = &d.mode {
        say!("  mode: {from} → {to}");
    }
    for id in &d.added {
        say!("  + {id}");
    }
    for id in &d.removed {
        say!("  - {id}");
    }
    for c in &d.changed {
        say!("  ~ {}", c.id);
        for f in &c.fields {
            say!(
                "      {}: {} → {}",
                f.field,
                f.from.as_deref().unwrap_or("(none)"),
                f.to.as_deref().unwrap_or("(none)")
            );
        }
    }
    for (sign, what, list) in [
        ("+", "ring", &d.rings_added),
        ("-", "ring", &d.rings_removed),
        ("+", "unit", &d.units_added),
        ("-", "unit", &d.units_removed),
    ] {
        for id in list {
            say!("  {sign} {what} {id}");
        }
    }
    for m in &d.units_moved {
        say!(
            "  ~ unit {}: parent {} → {}",
            m.field,
            m.from.as_deref().unwrap_or("(none)"),
            m.to.as_deref().unwrap_or("(none)")
        );
    }
    Ok(())
}

pub(super) fn findings(e: authz::Error) -> anyhow::Error {
    match e {
        authz::Error::Findings(found) => anyhow::anyhow!(
            "{} problem(s):\n{}",
            found.len(),
            found
                .iter()
                .map(|f| format!("  {}: {}", f.field, f.message))
                .collect::<Vec<_>>()
                .join("\n")
        ),
        other => core_error(other),
    }
}

pub(super) fn published(p: Published) -> String {
    match p {
        Published::Release(r) => format!(
            "Published release {} ({}): {} server(s); {}.",
            r.sequence,
            &r.id[..12],
            r.servers,
            r.diff.summary()
        ),
        Published::AwaitingApproval(r) => format!(
            "Release waits for approval by a security reviewer or another admin (request {}).",
            r.id
        ),
    }
}

/// A registry's settings in words: `Approval: required; HTTP access: public`.
pub(super) fn settings_line(r: &authz::registry::Registry) -> String {
    format!(
        "Approval: {}; HTTP access: {}",
        if r.require_approval {
            "required"
        } else {
            "not required"
        },
        r.api_access.as_str()
    )
}
