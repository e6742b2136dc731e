//! Harness renderers: a release's servers for one ring or unit, written into each harness's
//! own configuration files, with what a harness cannot express said per server and field.
//!
//! Nothing is silently dropped: every renderer destructures [`Server`] without `..` and
//! matches transports and auth modes without `_`, so a new field or mode fails to compile
//! until each harness renders it or warns ([`Warning`]); a test walks every [`Field`] ×
//! [`Harness`] pair. The vendor facts behind each shape are in
//! `docs/registry/HARNESS_FACTS.md`. Pure: contents are returned as text, never written.
mod claude;
mod codex;
mod copilot;
mod cursor;
mod field;
mod gemini;
mod helper;
mod opencode;
mod shared;
mod values;

pub use field::Field;
pub use helper::{portcullis_cli_helper, shell_safe};
pub(crate) use shared::{
    Ctx, Out, allowed_minus_denied, json_file, launch, pin_field, plan_auth, toml_file,
    warn_sha256, warn_unshown,
};
pub(crate) use values::{Refs, expands, has_ref, refused_secret, translate, translate_map};

use crate::policy::Policy;
use crate::server::Server;
use serde::Serialize;

pub use crate::harness::Harness;

/// What to render for: a harness and the minimum version the files must work with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The harness.
    pub harness: Harness,
    /// The oldest version in use (`2.1.259`; OpenCode `1` or `2`); `None`: the current one.
    pub version: Option<String>,
}

impl Target {
    /// The harness at its current version.
    pub fn current(harness: Harness) -> Target {
        Target {
            harness,
            version: None,
        }
    }

    /// Parses a harness name and an optional version (dotted numbers).
    ///
    /// # Errors
    /// The message for the user.
    pub fn parse(harness: &str, version: Option<&str>) -> Result<Target, String> {
        let h = Harness::parse(harness).ok_or_else(|| {
            format!(
                "{}: one of claude-code, codex, gemini, copilot, cursor, opencode.",
                crate::names::shown(harness)
            )
        })?;
        let version = match version.map(str::trim) {
            None | Some("") => None,
            Some(v) => {
                Version::parse(v).ok_or_else(|| {
                    format!(
                        "{}: a version is dotted numbers (2.1.259).",
                        crate::names::shown(v)
                    )
                })?;
                Some(v.to_owned())
            }
        };
        Ok(Target {
            harness: h,
            version,
        })
    }
}

/// A dotted numeric version, compared part by part (missing parts are 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Version(Vec<u64>);

impl Version {
    fn parse(s: &str) -> Option<Version> {
        let parts: Option<Vec<u64>> = s.trim().split('.').map(|p| p.parse().ok()).collect();
        parts.filter(|p| !p.is_empty() && p.len() <= 4).map(Version)
    }

    /// Whether this is `min` or newer.
    pub(crate) fn at_least(&self, min: &str) -> bool {
        let min = Version::parse(min).unwrap_or(Version(vec![0]));
        let n = self.0.len().max(min.0.len());
        let at = |v: &Version, i: usize| v.0.get(i).copied().unwrap_or(0);
        for i in 0..n {
            match at(self, i).cmp(&at(&min, i)) {
                std::cmp::Ordering::Equal => {}
                o => return o.is_gt(),
            }
        }
        true
    }

    /// The major version.
    pub(crate) fn major(&self) -> u64 {
        self.0.first().copied().unwrap_or(0)
    }
}

/// How the renders are made, beyond the policy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// A shell command printing a JSON object of headers for a server whose auth mode is
    /// `portcullis` (`portcullis-cli token --server https://auth.example.com --realm default
    /// --resource {url} --format headers`); `{id}` becomes the server's id and `{url}` its
    /// URL. `None`: such servers rely on the harness's own MCP OAuth (the server publishes
    /// RFC 9728 metadata naming Portcullis), and no credential is rendered.
    pub token_helper: Option<String>,
}

/// An operating system a file is installed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    /// Linux (and WSL).
    Linux,
    /// macOS.
    #[serde(rename = "macos")]
    MacOs,
    /// Windows.
    Windows,
}

/// Who installs a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// An administrator, at a system path users cannot write: enforced.
    Managed,
    /// Each user, in their own configuration: delivered, not enforced.
    User,
}

/// One file to install.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenderedFile {
    /// Its file name (`managed-mcp.json`).
    pub name: &'static str,
    /// Who installs it.
    pub scope: Scope,
    /// Where, per operating system (`~` is the user's home directory); an OS not listed has
    /// no such file.
    pub paths: Vec<(Os, &'static str)>,
    /// `application/json` or `application/toml`.
    pub media_type: &'static str,
    /// The exact text to install.
    pub contents: String,
}

/// Something a harness cannot express, or does differently from the policy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// The server it is about; `None`: the whole render (the policy's mode, say).
    pub server: Option<String>,
    /// The field, as validation names it (`tools.allow`, `auth.scopes`, `headers.X-Key`).
    pub field: String,
    /// What happens instead, in words fit for the administrator.
    pub message: String,
}

/// One harness's files for one audience, with what it cannot express.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Rendered {
    /// The files, managed first.
    pub files: Vec<RenderedFile>,
    /// Per server and field, what is not rendered as the policy says.
    pub warnings: Vec<Warning>,
    /// Delivery notes (where the files go, what else must hold for them to work).
    pub notes: Vec<String>,
}

/// A warning repeated across servers, said once (the same limit of a harness repeats for
/// each server otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupedWarning<'a> {
    /// The field.
    pub field: &'a str,
    /// The message.
    pub message: &'a str,
    /// The servers it concerns, in render order (empty: the whole render).
    pub servers: Vec<&'a str>,
}

impl Rendered {
    /// The warnings, one per field and message, each naming every server it concerns.
    pub fn grouped_warnings(&self) -> Vec<GroupedWarning<'_>> {
        let mut grouped: Vec<GroupedWarning<'_>> = Vec::new();
        for w in &self.warnings {
            let server = w.server.as_deref();
            match grouped
                .iter_mut()
                .find(|g| g.field == w.field && g.message == w.message)
            {
                Some(g) => g.servers.extend(server),
                None => grouped.push(GroupedWarning {
                    field: &w.field,
                    message: &w.message,
                    servers: server.into_iter().collect(),
                }),
            }
        }
        grouped
    }
}

/// Renders `servers` (what the chosen ring or unit gets, [`Policy::servers_for`]) for
/// `target`, under `policy`'s mode.
pub fn render(target: &Target, policy: &Policy, servers: &[&Server], opts: &Options) -> Rendered {
    let mut out = Out::default();
    let version = target
        .version
        .as_deref()
        .and_then(|v| {
            let parsed = Version::parse(v);
            if parsed.is_none() {
                out.warn(
                    None,
                    "target.version",
                    format!(
                        "{}: not a version; rendered for the current {}.",
                        crate::names::shown(v),
                        target.harness.current_version()
                    ),
                );
            }
            parsed
        })
        .unwrap_or_else(|| {
            Version::parse(target.harness.current_version()).unwrap_or(Version(vec![0]))
        });
    let ctx = Ctx {
        mode: policy.mode,
        version: &version,
        opts,
    };
    let files = match target.harness {
        Harness::ClaudeCode => claude::render(&ctx, servers, &mut out),
        Harness::Codex => codex::render(&ctx, servers, &mut out),
        Harness::Gemini => gemini::render(&ctx, servers, &mut out),
        Harness::Copilot => copilot::render(&ctx, servers, &mut out),
        Harness::Cursor => cursor::render(&ctx, servers, &mut out),
        Harness::OpenCode => opencode::render(&ctx, servers, &mut out),
    };
    let (warnings, notes) = out.finish();
    Rendered {
        files,
        warnings,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_by_number() {
        let v = Version::parse("2.1.259").expect("version");
        assert!(v.at_least("2.1.259"));
        assert!(v.at_least("2.1.32"));
        assert!(!v.at_least("2.1.260"));
        assert!(Version::parse("2.10").expect("v").at_least("2.9.9"));
        assert_eq!(Version::parse("2").expect("v").major(), 2);
        for bad in ["", "v2", "2.x", "1..2", "1.2.3.4.5"] {
            assert!(Version::parse(bad).is_none(), "{bad}");
        }
    }
}

#[cfg(test)]
mod grouping_tests {
    use super::{Rendered, Warning};

    #[test]
    fn a_warning_repeated_across_servers_is_said_once() {
        let w = |server: Option<&str>, field: &str, message: &str| Warning {
            server: server.map(str::to_owned),
            field: field.into(),
            message: message.into(),
        };
        let rendered = Rendered {
            warnings: vec![
                w(Some("wiki"), "tools.allow", "not enforced"),
                w(None, "mode", "warn only"),
                w(Some("jira"), "tools.allow", "not enforced"),
                w(Some("jira"), "title", "no display name"),
            ],
            ..Rendered::default()
        };
        let grouped: Vec<(&str, Vec<&str>)> = rendered
            .grouped_warnings()
            .into_iter()
            .map(|g| (g.field, g.servers))
            .collect();
        assert_eq!(
            grouped,
            [
                ("tools.allow", vec!["wiki", "jira"]),
                ("mode", vec![]),
                ("title", vec!["jira"]),
            ]
        );
    }
}
