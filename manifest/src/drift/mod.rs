//! Drift: the MCP servers a person configured in their harnesses, compared with the release.
//!
//! Pure, like the rest of the crate: the caller reads each harness's user config file and
//! hands over its bytes; [`configured`] parses them into [`Configured`] servers and
//! [`compare`] checks those against the servers the person's rings and units get
//! ([`crate::Policy::servers_for`]). Two kinds of finding come out:
//!
//! - `unapproved`: no approved server matches the name or the definition (URL or command line);
//! - `version-drift`: the name is an approved server's, but the URL or command line is not.
//!
//! # Security
//! User configs hold credentials in commands, arguments, environment, headers and URLs (paths
//! and queries). A [`Configured`] server keeps its URL and command line in [`Redacted`], which
//! cannot be serialised or printed, and a [`DriftFinding`] has no field that could hold them:
//! only the name, transport, host, the SHA-256 of the whole definition and a fix hint built
//! from the release and the file's name. What cannot be stored cannot leak.
mod matching;
mod model;
mod parse;
mod report;

pub use model::*;
pub use parse::configured;
pub use report::{
    DriftReport, MAX_DEVICE, MAX_FINDINGS, MAX_PROBLEMS, MAX_REPORT_BYTES, ReportedProblem,
};

use crate::server::{PackageType, Server, Transport};
use matching::{Launch, canonical_remote, launch};
use std::collections::HashMap;

/// The findings for `configured` against the servers the person gets (`approved`, usually
/// [`crate::Policy::servers_for`]); disabled servers are skipped.
///
/// A server whose name is an approved server's must have that server's URL (compared
/// canonically: lowercase host, no default port, no trailing slash, query ignored) or command
/// line (the package's launch command, `npx -y` optional, or the exact path and arguments);
/// any other server must match some approved server's URL or command line. Linear in the
/// number of servers on either side.
pub fn compare(approved: &[&Server], configured: &[Configured]) -> Vec<DriftFinding> {
    let launches: Vec<Launch> = approved.iter().map(|s| launch(&s.transport)).collect();
    let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(approved.len());
    let mut by_launch: HashMap<&Launch, usize> = HashMap::with_capacity(approved.len());
    for (i, s) in approved.iter().enumerate() {
        by_name.entry(s.id.as_str()).or_insert(i);
        by_launch.entry(&launches[i]).or_insert(i);
    }
    let mut findings = Vec::new();
    for c in configured.iter().filter(|c| !c.disabled) {
        let theirs = configured_launch(&c.transport);
        let (kind, fix) = match by_name.get(c.name.as_str()) {
            Some(&i) if theirs.as_ref() == Some(&launches[i]) => continue,
            Some(&i) => (
                FindingKind::VersionDrift,
                drift_fix(approved[i], &c.transport, &c.source),
            ),
            None if theirs.as_ref().is_some_and(|l| by_launch.contains_key(l)) => continue,
            None => (
                FindingKind::Unapproved,
                format!("Remove it from {} or ask an admin to approve it.", c.source),
            ),
        };
        findings.push(DriftFinding {
            kind,
            harness: c.harness,
            source: c.source.clone(),
            name: c.name.clone(),
            transport: c.transport.kind(),
            host: c.transport.host().map(str::to_owned),
            definition_sha256: c.definition_sha256.clone(),
            fix,
        });
    }
    findings
}

fn configured_launch(t: &ConfiguredTransport) -> Option<Launch> {
    match t {
        ConfiguredTransport::Remote { url, .. } => canonical_remote(&url.0).map(Launch::Url),
        ConfiguredTransport::Stdio { argv } => {
            let (program, args) = argv.0.split_first()?;
            Some(matching::normalise(program, args))
        }
        ConfiguredTransport::Unknown => None,
    }
}

/// What to do about a version drift, in words: the approved definition is public (it is in the
/// release); the user's own values are never repeated.
fn drift_fix(approved: &Server, theirs: &ConfiguredTransport, source: &str) -> String {
    match (&approved.transport, theirs) {
        (Transport::Remote { url, .. }, ConfiguredTransport::Remote { .. }) => {
            format!("Point it at the approved URL {url} in {source}, or remove it.")
        }
        (Transport::Package(p), ConfiguredTransport::Stdio { .. }) => {
            let (program, args) = p.launch();
            format!(
                "Pin it to the approved {} package {} (`{program} {}`) in {source}, or remove it.",
                p.kind.as_str(),
                package_ref(p),
                args.join(" ")
            )
        }
        (transport, _) => format!(
            "Replace it with the approved definition ({}) in {source}, or remove it.",
            approved_definition(transport)
        ),
    }
}

fn package_ref(p: &crate::server::Package) -> String {
    match p.kind {
        PackageType::Npm => format!("{}@{}", p.identifier, p.version),
        PackageType::Pypi => format!("{}=={}", p.identifier, p.version),
        PackageType::Oci => p.identifier.clone(),
    }
}

fn approved_definition(t: &Transport) -> String {
    match t {
        Transport::Remote { url, sse: false } => format!("streamable HTTP at {url}"),
        Transport::Remote { url, sse: true } => format!("SSE at {url}"),
        Transport::Package(p) => {
            let (program, args) = p.launch();
            format!("`{program} {}`", args.join(" "))
        }
        Transport::Command(c) if c.args.is_empty() => format!("the command {}", c.path),
        Transport::Command(c) => {
            format!(
                "the command {} with the arguments the registry lists",
                c.path
            )
        }
    }
}
