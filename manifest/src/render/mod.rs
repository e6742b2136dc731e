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
mod gemini;
mod opencode;

use crate::policy::{Mode, Policy};
use crate::secrets::{Part, parts};
use crate::server::{Auth, Server, Transport};
use serde::Serialize;

/// A coding harness the registry renders for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Harness {
    /// Anthropic's Claude Code.
    #[serde(rename = "claude-code")]
    ClaudeCode,
    /// OpenAI's Codex CLI.
    Codex,
    /// Google's Gemini CLI.
    Gemini,
    /// GitHub Copilot CLI.
    Copilot,
    /// Cursor (editor and CLI).
    Cursor,
    /// OpenCode.
    OpenCode,
}

impl Harness {
    /// Every harness, in the order screens list them.
    pub const ALL: [Harness; 6] = [
        Harness::ClaudeCode,
        Harness::Codex,
        Harness::Gemini,
        Harness::Copilot,
        Harness::Cursor,
        Harness::OpenCode,
    ];

    /// Its name on the command line and in URLs.
    pub fn as_str(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
            Harness::Gemini => "gemini",
            Harness::Copilot => "copilot",
            Harness::Cursor => "cursor",
            Harness::OpenCode => "opencode",
        }
    }

    /// The harness named `s` (as [`Harness::as_str`] spells it).
    pub fn parse(s: &str) -> Option<Harness> {
        Harness::ALL.into_iter().find(|h| h.as_str() == s.trim())
    }

    /// The version rendered for when none is chosen: the one HARNESS_FACTS.md was checked
    /// against (Cursor publishes no version its MCP file depends on).
    pub fn current_version(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "2.1.332",
            Harness::Codex => "0.171.0",
            Harness::Gemini => "0.61.0",
            Harness::Copilot => "1.0.102",
            Harness::Cursor => "1",
            Harness::OpenCode => "1",
        }
    }

    /// The name the harness gives `tool` of `server` in its tool rules, or `None` where the
    /// harness exposes none (Cursor).
    ///
    /// Unambiguous for every checked id and tool: ids have no `_` or `.`, and a tool name
    /// has no `(`, `,` or space ([`crate::names`]).
    pub fn tool_name(self, server: &str, tool: &str) -> Option<String> {
        match self {
            Harness::ClaudeCode | Harness::Codex => Some(format!("mcp__{server}__{tool}")),
            Harness::Gemini => Some(format!("mcp_{server}_{tool}")),
            Harness::Copilot => Some(format!("{server}-{tool}")),
            Harness::OpenCode => Some(format!("{server}_{tool}")),
            Harness::Cursor => None,
        }
    }
}

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
    /// `portcullis` (`portcullis-cli token --server {id} --format headers`); `{id}` becomes
    /// the server's id. `None`: such servers rely on the harness's own MCP OAuth (the server
    /// publishes RFC 9728 metadata naming Portcullis), and no credential is rendered.
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

/// Every field of a policy a renderer must consider, as warnings name them.
///
/// The renderers destructure [`Server`] without `..`, so a field added there fails to
/// compile until it is handled; this list is what the no-silent-drop test walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The server's id (its name in every harness).
    Id,
    /// A name for people.
    Title,
    /// A remote server's URL.
    Url,
    /// Streamable HTTP or SSE.
    UrlTransport,
    /// A package's name or image.
    PackageIdentifier,
    /// A package's exact version.
    PackageVersion,
    /// A command's program.
    CommandPath,
    /// A command's arguments.
    CommandArgs,
    /// A command's binary digest.
    CommandSha256,
    /// Its MCP Registry name and version.
    Registry,
    /// HTTP headers.
    Headers,
    /// Environment variables.
    Env,
    /// Only these tools.
    ToolsAllow,
    /// Never these tools.
    ToolsDeny,
    /// The auth mode.
    AuthMode,
    /// A pre-registered OAuth client id.
    AuthClientId,
    /// An organisation-hosted Client ID Metadata Document.
    AuthClientMetadataUrl,
    /// The server's authorization server.
    AuthIssuer,
    /// The identity provider issuing the ID-JAG.
    AuthIdentityIssuer,
    /// Scopes to ask for.
    AuthScopes,
    /// Rings that get it: chosen before rendering ([`Policy::servers_for`]).
    Rings,
    /// Units that get it: chosen before rendering ([`Policy::servers_for`]).
    Units,
    /// The policy's mode (allowlist or warn).
    Mode,
}

impl Field {
    /// Every field.
    pub const ALL: [Field; 23] = [
        Field::Id,
        Field::Title,
        Field::Url,
        Field::UrlTransport,
        Field::PackageIdentifier,
        Field::PackageVersion,
        Field::CommandPath,
        Field::CommandArgs,
        Field::CommandSha256,
        Field::Registry,
        Field::Headers,
        Field::Env,
        Field::ToolsAllow,
        Field::ToolsDeny,
        Field::AuthMode,
        Field::AuthClientId,
        Field::AuthClientMetadataUrl,
        Field::AuthIssuer,
        Field::AuthIdentityIssuer,
        Field::AuthScopes,
        Field::Rings,
        Field::Units,
        Field::Mode,
    ];

    /// Its name in warnings (and in validation findings).
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Id => "id",
            Field::Title => "title",
            Field::Url => "url",
            Field::UrlTransport => "urlTransport",
            Field::PackageIdentifier => "package.identifier",
            Field::PackageVersion => "package.version",
            Field::CommandPath => "command.path",
            Field::CommandArgs => "command.args",
            Field::CommandSha256 => "command.sha256",
            Field::Registry => "registryName",
            Field::Headers => "headers",
            Field::Env => "env",
            Field::ToolsAllow => "tools.allow",
            Field::ToolsDeny => "tools.deny",
            Field::AuthMode => "auth.mode",
            Field::AuthClientId => "auth.clientId",
            Field::AuthClientMetadataUrl => "auth.clientMetadataUrl",
            Field::AuthIssuer => "auth.issuer",
            Field::AuthIdentityIssuer => "auth.identityIssuer",
            Field::AuthScopes => "auth.scopes",
            Field::Rings => "rings",
            Field::Units => "units",
            Field::Mode => "mode",
        }
    }

    /// Whether a warning's field (`headers.X-Key`, `command.args[2]`) is about this field.
    pub fn names(self, warning_field: &str) -> bool {
        let f = self.as_str();
        warning_field == f
            || warning_field
                .strip_prefix(f)
                .is_some_and(|rest| rest.starts_with(['.', '[']))
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
    if !out.oauth_discovery.is_empty() {
        out.notes.push(format!(
            "Authorized by Portcullis through the harness's own MCP OAuth (no token helper configured, so no credential is rendered): {}. Each server publishes RFC 9728 metadata naming Portcullis as its authorization server, which the harness discovers on the first 401.",
            out.oauth_discovery.join(", ")
        ));
    }
    Rendered {
        files,
        warnings: out.warnings,
        notes: out.notes,
    }
}

/// What every renderer reads besides the servers.
pub(crate) struct Ctx<'a> {
    pub(crate) mode: Mode,
    pub(crate) version: &'a Version,
    pub(crate) opts: &'a Options,
}

/// Warnings and notes as a render collects them.
#[derive(Default)]
pub(crate) struct Out {
    warnings: Vec<Warning>,
    notes: Vec<String>,
    /// Portcullis-mode servers left to the harness's OAuth discovery (one note for all).
    oauth_discovery: Vec<String>,
}

impl Out {
    /// Warns about `field` of `server` (`None`: the whole render).
    pub(crate) fn warn(
        &mut self,
        server: Option<&str>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) {
        self.warnings.push(Warning {
            server: server.map(str::to_owned),
            field: field.into(),
            message: message.into(),
        });
    }

    /// Adds a delivery note.
    pub(crate) fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }
}

/// The command line a local server runs: program and arguments.
pub(crate) fn launch(transport: &Transport) -> Option<(String, Vec<String>)> {
    match transport {
        Transport::Remote { .. } => None,
        Transport::Package(p) => Some(p.launch()),
        Transport::Command(c) => Some((c.path.clone(), c.args.clone())),
    }
}

/// The field a local server's version is pinned by: the package version, the image digest,
/// or the command line.
pub(crate) fn pin_field(transport: &Transport) -> Field {
    match transport {
        Transport::Package(p) if p.kind == crate::server::PackageType::Oci => {
            Field::PackageIdentifier
        }
        Transport::Package(_) => Field::PackageVersion,
        Transport::Command(_) | Transport::Remote { .. } => Field::CommandArgs,
    }
}

/// Warns, for a harness none of which can, that a command's binary digest is not checked.
pub(crate) fn warn_sha256(out: &mut Out, id: &str, sha256: Option<&String>, harness: &str) {
    let message = match sha256 {
        Some(h) => format!(
            "{harness} runs whatever is at the path; it cannot check the binary's SHA-256 ({}…). Check it when installing the program.",
            &h[..h.len().min(12)]
        ),
        None => format!("Unpinned: {harness} runs whatever is installed at this path."),
    };
    out.warn(Some(id), Field::CommandSha256.as_str(), message);
}

/// Warns that `harness` has no field for the server's title or MCP Registry origin.
pub(crate) fn warn_unshown(
    out: &mut Out,
    id: &str,
    title: &str,
    registry: Option<&(String, String)>,
    harness: &str,
) {
    if !title.is_empty() {
        out.warn(
            Some(id),
            Field::Title.as_str(),
            format!("{harness} has no display name for a server: it is shown as {id}."),
        );
    }
    if let Some((name, version)) = registry {
        out.warn(
            Some(id),
            Field::Registry.as_str(),
            format!(
                "{harness} has no field for the MCP Registry origin ({name} {version}); the pinned transport is rendered."
            ),
        );
    }
}

/// What a server's auth comes to in any harness, before the harness's own limits.
pub(crate) struct AuthPlan<'a> {
    /// A pre-registered client id.
    pub(crate) client_id: Option<&'a str>,
    /// The authorization server.
    pub(crate) issuer: Option<&'a str>,
    /// Scopes to ask for.
    pub(crate) scopes: &'a [String],
    /// The token helper for this server (Portcullis mode, a helper configured, and the
    /// harness can run one).
    pub(crate) helper: Option<String>,
}

/// Plans `auth` for a harness that can (`helper_ok`) or cannot (the error says why) run a
/// header helper, warning about what no harness can render: auth for a local server, a
/// Client ID Metadata Document URL, Enterprise-Managed Authorization.
pub(crate) fn plan_auth<'a>(
    ctx: &Ctx<'_>,
    id: &str,
    transport: &Transport,
    auth: &'a Auth,
    helper_ok: Result<(), &str>,
    harness: &str,
    out: &mut Out,
) -> AuthPlan<'a> {
    let none = AuthPlan {
        client_id: None,
        issuer: None,
        scopes: &[],
        helper: None,
    };
    if !matches!(transport, Transport::Remote { .. }) && *auth != Auth::None {
        out.warn(
            Some(id),
            Field::AuthMode.as_str(),
            format!(
                "{harness} has OAuth settings for remote servers only: this local server's auth settings are not rendered (it authenticates on its own)."
            ),
        );
        return none;
    }
    match auth {
        Auth::None => none,
        Auth::OAuth {
            client_id,
            client_metadata_url,
            issuer,
            scopes,
        } => {
            if let Some(url) = client_metadata_url {
                out.warn(
                    Some(id),
                    Field::AuthClientMetadataUrl.as_str(),
                    format!(
                        "{harness} has no setting for an organisation-hosted Client ID Metadata Document ({url}); it registers itself at the authorization server, or uses its own client."
                    ),
                );
            }
            AuthPlan {
                client_id: client_id.as_deref(),
                issuer: issuer.as_deref(),
                scopes,
                helper: None,
            }
        }
        Auth::Enterprise {
            identity_issuer,
            scopes,
        } => {
            out.warn(
                Some(id),
                Field::AuthIdentityIssuer.as_str(),
                format!(
                    "{harness} documents no client for Enterprise-Managed Authorization (an ID-JAG from {identity_issuer}): it falls back to the server's own OAuth."
                ),
            );
            AuthPlan { scopes, ..none }
        }
        Auth::Portcullis { scopes } => {
            let helper = match (&ctx.opts.token_helper, helper_ok) {
                (Some(h), Ok(())) => Some(h.replace("{id}", id)),
                (Some(_), Err(why)) => {
                    out.warn(
                        Some(id),
                        Field::AuthMode.as_str(),
                        format!(
                            "Portcullis: {why}, so the token helper is not rendered; the harness's own MCP OAuth finds Portcullis through the server's RFC 9728 metadata."
                        ),
                    );
                    None
                }
                (None, _) => {
                    out.oauth_discovery.push(id.to_owned());
                    None
                }
            };
            AuthPlan {
                scopes,
                helper,
                ..none
            }
        }
    }
}

/// How a harness writes a reference to the user's environment variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refs {
    /// `${VAR}`; a bare `$` in literal text is left alone (Claude Code).
    Braced,
    /// `${VAR}`, and a bare `$VAR` is expanded too (Gemini CLI).
    Dollar,
    /// `${env:VAR}` (Cursor).
    CursorEnv,
    /// `{env:VAR}`, and `{file:path}` reads a file (OpenCode).
    OpenCode,
}

/// A header or environment value in a harness's reference syntax, or why it cannot be
/// written: literal text the harness would expand (and so send the user's variables or files
/// where the policy says fixed text).
pub(crate) fn translate(value: &str, refs: Refs) -> Result<String, String> {
    let pieces = parts(value)?;
    let mut s = String::with_capacity(value.len() + 8);
    for p in pieces {
        match p {
            Part::Literal(text) => {
                if expands(text, refs) {
                    return Err(
                        "its fixed text would be expanded as a reference to the user's environment or files"
                            .into(),
                    );
                }
                s.push_str(text);
            }
            Part::Var(v) => match refs {
                Refs::Braced | Refs::Dollar => {
                    s.push_str("${");
                    s.push_str(v);
                    s.push('}');
                }
                Refs::CursorEnv => {
                    s.push_str("${env:");
                    s.push_str(v);
                    s.push('}');
                }
                Refs::OpenCode => {
                    s.push_str("{env:");
                    s.push_str(v);
                    s.push('}');
                }
            },
        }
    }
    Ok(s)
}

/// Whether the harness would expand fixed `text` as a reference (Gemini's bare `$VAR`,
/// OpenCode's `{env:…}` and `{file:…}`), sending the user's variables or files where the
/// policy says fixed text.
pub(crate) fn expands(text: &str, refs: Refs) -> bool {
    match refs {
        Refs::Braced | Refs::CursorEnv => false,
        Refs::Dollar => text.as_bytes().windows(2).any(|w| {
            w[0] == b'$' && (w[1].is_ascii_alphanumeric() || w[1] == b'_' || w[1] == b'{')
        }),
        Refs::OpenCode => text.contains("{env:") || text.contains("{file:"),
    }
}

/// Whether a value references the user's environment.
pub(crate) fn has_ref(value: &str) -> bool {
    value.contains("${")
}

/// Translates every value of `map` (headers or env, named by `field`), warning about and
/// leaving out those the harness cannot write.
pub(crate) fn translate_map(
    map: &std::collections::BTreeMap<String, String>,
    refs: Refs,
    id: &str,
    field: Field,
    harness: &str,
    out: &mut Out,
) -> serde_json::Map<String, serde_json::Value> {
    let mut m = serde_json::Map::new();
    for (k, v) in map {
        if refused_secret(k, v, id, field, out) {
            continue;
        }
        match translate(v, refs) {
            Ok(t) => {
                m.insert(k.clone(), t.into());
            }
            Err(why) => out.warn(
                Some(id),
                format!("{}.{k}", field.as_str()),
                format!("Not rendered for {harness}: {why}."),
            ),
        }
    }
    m
}

/// Whether `value` (of header or variable `name`) looks like a literal credential, warned
/// and left out: a checked [`Server`] never holds one, but its fields are public, and a
/// rendered file reaches every laptop.
pub(crate) fn refused_secret(
    name: &str,
    value: &str,
    id: &str,
    field: Field,
    out: &mut Out,
) -> bool {
    let refused = crate::secrets::check_value(name, value).is_err();
    if refused {
        out.warn(
            Some(id),
            format!("{}.{name}", field.as_str()),
            "Not rendered: the value looks like a literal credential, which would reach every laptop. Reference the user's own with ${NAME}.",
        );
    }
    refused
}

/// A JSON file: pretty (two spaces), keys sorted, ending in a newline.
pub(crate) fn json_file(
    name: &'static str,
    scope: Scope,
    paths: Vec<(Os, &'static str)>,
    value: &serde_json::Value,
) -> RenderedFile {
    let mut contents = serde_json::to_string_pretty(value).expect("a JSON value always serializes");
    contents.push('\n');
    RenderedFile {
        name,
        scope,
        paths,
        media_type: "application/json",
        contents,
    }
}

/// A TOML file.
pub(crate) fn toml_file(
    name: &'static str,
    scope: Scope,
    paths: Vec<(Os, &'static str)>,
    table: &toml::Table,
) -> RenderedFile {
    let contents = toml::to_string_pretty(table).expect("a TOML table always serializes");
    RenderedFile {
        name,
        scope,
        paths,
        media_type: "application/toml",
        contents,
    }
}

/// Tools in `allow` that `deny` leaves (deny wins).
pub(crate) fn allowed_minus_denied(tools: &crate::server::Tools) -> Vec<String> {
    tools
        .allow
        .iter()
        .filter(|t| !tools.deny.contains(t))
        .cloned()
        .collect()
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

    #[test]
    fn references_translate_or_refuse_what_would_expand() {
        assert_eq!(
            translate("Bearer ${TOKEN}", Refs::CursorEnv).as_deref(),
            Ok("Bearer ${env:TOKEN}")
        );
        assert_eq!(
            translate("Bearer ${TOKEN}", Refs::OpenCode).as_deref(),
            Ok("Bearer {env:TOKEN}")
        );
        assert_eq!(translate("a$b", Refs::Braced).as_deref(), Ok("a$b"));
        assert!(translate("cost $HOME", Refs::Dollar).is_err());
        assert!(translate("{file:/etc/shadow}", Refs::OpenCode).is_err());
        assert_eq!(translate("5$", Refs::Dollar).as_deref(), Ok("5$"));
    }

    #[test]
    fn fields_name_their_sub_fields() {
        assert!(Field::Headers.names("headers.X-Key"));
        assert!(Field::CommandArgs.names("command.args[1]"));
        assert!(!Field::Url.names("urlTransport"));
        assert!(Field::Url.names("url"));
    }
}
