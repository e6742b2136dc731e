//! Drift's types: what a person configured, and what drift reports about it.
use serde::{Deserialize, Serialize};

pub use crate::harness::Harness;

/// A value read from a user config that may hold a credential: usable for matching inside
/// this module, never serialised, printed or handed out.
#[derive(Clone, PartialEq, Eq)]
pub struct Redacted<T>(pub(super) T);

impl<T> Redacted<T> {
    /// Wraps a value; nothing outside this module can read it back.
    pub fn new(value: T) -> Self {
        Redacted(value)
    }
}

impl<T> std::fmt::Debug for Redacted<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[redacted]")
    }
}

/// How a configured server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfiguredTransport {
    /// A remote server (streamable HTTP or SSE).
    Remote {
        /// Its host, with the port when it is not the scheme's default (no user info, path or
        /// query).
        host: String,
        /// Server-sent events.
        sse: bool,
        /// The URL as written (it may hold a credential in its path or query).
        url: Redacted<String>,
    },
    /// A program the harness runs.
    Stdio {
        /// Program and arguments as written (they may hold credentials).
        argv: Redacted<Vec<String>>,
    },
    /// Neither a URL nor a command the harness would run (an incomplete entry).
    Unknown,
}

impl ConfiguredTransport {
    /// Its kind, as findings report it.
    pub fn kind(&self) -> TransportKind {
        match self {
            ConfiguredTransport::Remote { sse: false, .. } => TransportKind::Http,
            ConfiguredTransport::Remote { sse: true, .. } => TransportKind::Sse,
            ConfiguredTransport::Stdio { .. } => TransportKind::Stdio,
            ConfiguredTransport::Unknown => TransportKind::Unknown,
        }
    }

    /// The remote server's host.
    pub fn host(&self) -> Option<&str> {
        match self {
            ConfiguredTransport::Remote { host, .. } if !host.is_empty() => Some(host),
            _ => None,
        }
    }
}

/// One MCP server found in a user config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Configured {
    /// The harness whose file it is in.
    pub harness: Harness,
    /// Where: the file's label and, for a scoped entry, the scope (`~/.claude.json
    /// (projects["/w"])`).
    pub source: String,
    /// Its name (the key it is configured under).
    pub name: String,
    /// How it is reached.
    pub transport: ConfiguredTransport,
    /// Turned off in a way the harness honours (Codex and OpenCode `enabled = false`,
    /// OpenCode 2 `disabled`, Claude Code `projects.*.disabledMcpServers`, Gemini
    /// `mcp.excluded` or a name missing from a non-empty `mcp.allowed`).
    pub disabled: bool,
    /// SHA-256 (lowercase hex) of the entry's RFC 8785 canonical JSON (TOML read as JSON).
    pub definition_sha256: String,
}

/// What is wrong with a configured server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    /// No approved server for this person matches its name or its definition.
    Unapproved,
    /// Its name is an approved server's, but its URL or command line is not the approved one.
    VersionDrift,
}

impl FindingKind {
    /// Its name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingKind::Unapproved => "unapproved",
            FindingKind::VersionDrift => "version-drift",
        }
    }
}

/// A transport as findings name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TransportKind {
    /// Streamable HTTP.
    Http,
    /// Server-sent events.
    Sse,
    /// A local program.
    Stdio,
    /// Neither.
    Unknown,
}

impl TransportKind {
    /// Its name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Http => "http",
            TransportKind::Sse => "sse",
            TransportKind::Stdio => "stdio",
            TransportKind::Unknown => "unknown",
        }
    }
}

/// One drifted server.
///
/// # Security
/// No field can hold a command, argument, environment value, header or URL path: the host is
/// the only part of a URL kept, and `fix` is built from the release and the file's label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriftFinding {
    /// What is wrong.
    pub kind: FindingKind,
    /// The harness.
    pub harness: Harness,
    /// The file and scope it is configured in.
    pub source: String,
    /// The server's name there.
    pub name: String,
    /// Its transport.
    pub transport: TransportKind,
    /// A remote server's host.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// SHA-256 of the full definition, to recognise it again without showing it.
    pub definition_sha256: String,
    /// What to do about it.
    pub fix: String,
}
