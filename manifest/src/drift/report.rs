//! The drift report a laptop posts to its realm (`portcullis-cli drift --report`), and the
//! limits the server holds it to.
//!
//! # Security
//! A report carries what [`DriftFinding`] carries — names, transports, hosts, hashes and fix
//! hints built from the release — plus the device's name, the release it was compared with and
//! the rings and units it was read for. Never a command, argument, environment value, header or
//! URL path; `portcullis-cli` keys each definition's SHA-256 with a random key of the device, so
//! the fingerprint cannot be used to test guesses of the values a definition holds. The server
//! stores what it is sent, so [`DriftReport::check`] bounds every field.
use super::model::{DriftFinding, Harness};
use serde::{Deserialize, Serialize};

/// Most findings a report carries (the rest are counted in `omitted_findings`).
pub const MAX_FINDINGS: usize = 100;
/// Most problems a report carries (the rest are counted in `omitted_problems`).
pub const MAX_PROBLEMS: usize = 50;
/// Longest device name, in characters.
pub const MAX_DEVICE: usize = 64;
/// Largest body the server reads, in bytes: a report with every field at its limit, in
/// four-byte characters, fits.
pub const MAX_REPORT_BYTES: usize = 1024 * 1024;

/// Most rings or units named.
const MAX_GROUPS: usize = 64;
/// Longest ring or unit id.
const MAX_GROUP: usize = 128;
/// Longest `source` (a file label and a project path).
const MAX_SOURCE: usize = 512;
/// Longest server name.
const MAX_NAME: usize = 256;
/// Longest host (DNS names are at most 253, plus a port).
const MAX_HOST: usize = 260;
/// Longest fix hint or problem message.
const MAX_TEXT: usize = 512;

/// A file that could not be read or parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportedProblem {
    /// The harness.
    pub harness: Harness,
    /// The file's label (`~/.codex/config.toml`).
    pub source: String,
    /// What went wrong.
    pub message: String,
}

/// What one device found, as posted to `POST /realms/{realm}/registry/drift`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriftReport {
    /// The device's name, as its owner knows it (`alice-mbp`).
    pub device: String,
    /// The id of the release the configs were compared with.
    pub release: String,
    /// Its sequence number.
    pub sequence: u64,
    /// The rings it was read for.
    pub rings: Vec<String>,
    /// The units it was read for.
    pub units: Vec<String>,
    /// How many servers the release approves for them.
    pub approved: u32,
    /// How many config files were read.
    pub files_read: u32,
    /// What drifted (at most [`MAX_FINDINGS`]).
    pub findings: Vec<DriftFinding>,
    /// Findings left out to keep the report small.
    #[serde(default)]
    pub omitted_findings: u32,
    /// Files that could not be read (at most [`MAX_PROBLEMS`]).
    pub problems: Vec<ReportedProblem>,
    /// Problems left out.
    #[serde(default)]
    pub omitted_problems: u32,
}

impl DriftReport {
    /// A report of `findings` and `problems`, cut to the limits (what is cut is counted).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        device: String,
        (release, sequence): (String, u64),
        (rings, units): (Vec<String>, Vec<String>),
        approved: usize,
        files_read: usize,
        mut findings: Vec<DriftFinding>,
        mut problems: Vec<ReportedProblem>,
    ) -> DriftReport {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let omitted_findings = count(findings.len().saturating_sub(MAX_FINDINGS));
        let omitted_problems = count(problems.len().saturating_sub(MAX_PROBLEMS));
        findings.truncate(MAX_FINDINGS);
        problems.truncate(MAX_PROBLEMS);
        for f in &mut findings {
            cut(&mut f.source, MAX_SOURCE);
            cut(&mut f.name, MAX_NAME);
            cut(&mut f.fix, MAX_TEXT);
        }
        for p in &mut problems {
            cut(&mut p.source, MAX_SOURCE);
            cut(&mut p.message, MAX_TEXT);
        }
        DriftReport {
            device,
            release,
            sequence,
            rings,
            units,
            approved: count(approved),
            files_read: count(files_read),
            findings,
            omitted_findings,
            problems,
            omitted_problems,
        }
    }

    /// Whether the report is one the server stores: every field within its limit, the device
    /// named, the release id and the hashes well formed, no control characters anywhere.
    ///
    /// # Errors
    /// The first field that is not, in words (`findings[3].host: …`).
    pub fn check(&self) -> Result<(), String> {
        let device = self.device.trim();
        if device.is_empty() {
            return Err("device: a name for this device is required.".into());
        }
        text("device", &self.device, MAX_DEVICE)?;
        if device != self.device {
            return Err("device: no spaces at the start or end.".into());
        }
        if !is_sha256(&self.release) {
            return Err("release: a release id (64 lowercase hex digits).".into());
        }
        for (field, groups) in [("rings", &self.rings), ("units", &self.units)] {
            if groups.len() > MAX_GROUPS {
                return Err(format!("{field}: at most {MAX_GROUPS}."));
            }
            for (i, g) in groups.iter().enumerate() {
                text(&format!("{field}[{i}]"), g, MAX_GROUP)?;
            }
        }
        if self.findings.len() > MAX_FINDINGS {
            return Err(format!(
                "findings: at most {MAX_FINDINGS} (count the rest in omitted_findings)."
            ));
        }
        for (i, f) in self.findings.iter().enumerate() {
            let at = |field: &str| format!("findings[{i}].{field}");
            text(&at("source"), &f.source, MAX_SOURCE)?;
            text(&at("name"), &f.name, MAX_NAME)?;
            text(&at("fix"), &f.fix, MAX_TEXT)?;
            if let Some(host) = &f.host {
                text(&at("host"), host, MAX_HOST)?;
                if host.contains(['/', '?', '#', '@']) {
                    return Err(format!("{}: a host, without a path or user.", at("host")));
                }
            }
            if !is_sha256(&f.definition_sha256) {
                return Err(format!(
                    "{}: 64 lowercase hex digits.",
                    at("definition_sha256")
                ));
            }
        }
        if self.problems.len() > MAX_PROBLEMS {
            return Err(format!(
                "problems: at most {MAX_PROBLEMS} (count the rest in omitted_problems)."
            ));
        }
        for (i, p) in self.problems.iter().enumerate() {
            text(&format!("problems[{i}].source"), &p.source, MAX_SOURCE)?;
            text(&format!("problems[{i}].message"), &p.message, MAX_TEXT)?;
        }
        Ok(())
    }
}

/// A line of text: at most `max` characters, no control characters, no invisible formatting
/// (bidirectional overrides and isolates, zero-width characters: they make a name read as
/// another on a screen).
fn text(field: &str, value: &str, max: usize) -> Result<(), String> {
    if value.chars().count() > max {
        return Err(format!("{field}: at most {max} characters."));
    }
    let invisible = |c: char| matches!(c, '\u{00ad}' | '\u{061c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}');
    if value.chars().any(|c| c.is_control() || invisible(c)) {
        return Err(format!(
            "{field}: no control or invisible formatting characters."
        ));
    }
    Ok(())
}

/// Cuts `s` to `max` characters, marking the cut.
fn cut(s: &mut String, max: usize) {
    if let Some((at, _)) = s.char_indices().nth(max.saturating_sub(1)) {
        s.truncate(at);
        s.push('…');
    }
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drift::{FindingKind, TransportKind};

    fn finding(name: &str) -> DriftFinding {
        DriftFinding {
            kind: FindingKind::Unapproved,
            harness: Harness::ClaudeCode,
            source: "~/.claude.json".into(),
            name: name.into(),
            transport: TransportKind::Http,
            host: Some("mcp.example.com".into()),
            definition_sha256: "a".repeat(64),
            fix: "Remove it from ~/.claude.json or ask an admin to approve it.".into(),
        }
    }

    fn report(findings: Vec<DriftFinding>) -> DriftReport {
        DriftReport::new(
            "alice-mbp".into(),
            ("b".repeat(64), 3),
            (vec!["early".into()], vec![]),
            2,
            6,
            findings,
            vec![],
        )
    }

    #[test]
    fn a_report_round_trips_and_checks() {
        let r = report(vec![finding("stray")]);
        r.check().unwrap();
        let json = serde_json::to_string(&r).unwrap();
        let back: DriftReport = serde_json::from_str(&json).unwrap();
        assert_eq!(back, r);
        // Unknown fields are refused: a client cannot smuggle a command line in.
        let mut v: serde_json::Value = serde_json::from_str(&json).unwrap();
        v["findings"][0]["command"] = "npx secret".into();
        assert!(serde_json::from_value::<DriftReport>(v).is_err());
    }

    #[test]
    fn long_reports_are_cut_and_counted() {
        let mut long = finding(&"n".repeat(1000));
        long.fix = "f".repeat(5000);
        let r = report(vec![long; MAX_FINDINGS + 7]);
        assert_eq!(r.findings.len(), MAX_FINDINGS);
        assert_eq!(r.omitted_findings, 7);
        assert_eq!(r.findings[0].name.chars().count(), MAX_NAME);
        r.check().unwrap();
        // The worst case: every field at its limit in four-byte characters.
        let wide = |n: usize| "\u{1F600}".repeat(n);
        let mut worst = finding(&wide(MAX_NAME));
        (worst.source, worst.fix, worst.host) =
            (wide(MAX_SOURCE), wide(MAX_TEXT), Some(wide(MAX_HOST)));
        let problem = ReportedProblem {
            harness: Harness::Codex,
            source: wide(MAX_SOURCE),
            message: wide(MAX_TEXT),
        };
        let mut r = report(vec![worst; MAX_FINDINGS]);
        r.problems = vec![problem; MAX_PROBLEMS];
        r.device = wide(MAX_DEVICE);
        r.check().unwrap();
        assert!(serde_json::to_vec(&r).unwrap().len() < MAX_REPORT_BYTES);
    }

    #[test]
    fn bad_fields_are_named() {
        let mut r = report(vec![finding("x")]);
        r.device = " ".into();
        assert!(r.check().unwrap_err().starts_with("device:"));
        r.device = "d\u{1b}[2J".into();
        assert!(r.check().unwrap_err().starts_with("device:"));
        r.device = "laptop\u{202e}gpj.exe".into();
        assert!(r.check().unwrap_err().starts_with("device:"));
        r.device = "d".repeat(MAX_DEVICE + 1);
        assert!(r.check().unwrap_err().starts_with("device:"));
        r.device = "ok".into();
        r.findings[0].host = Some("h.example/path?token=1".into());
        assert_eq!(
            r.check().unwrap_err(),
            "findings[0].host: a host, without a path or user."
        );
        r.findings[0].host = None;
        r.findings[0].definition_sha256 = "zz".into();
        assert!(
            r.check()
                .unwrap_err()
                .starts_with("findings[0].definition_sha256")
        );
        r.findings[0].definition_sha256 = "c".repeat(64);
        r.release = "not-an-id".into();
        assert!(r.check().unwrap_err().starts_with("release:"));
        r.release = "d".repeat(64);
        r.findings = vec![finding("x"); MAX_FINDINGS + 1];
        assert!(r.check().unwrap_err().starts_with("findings:"));
    }
}
