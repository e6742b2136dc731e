//! What the renderers share: the render context, the warnings and notes collected, the
//! launch line of a local server, the auth plan, and the file builders.
use super::helper::shell_safe;
use super::{Field, Options, Os, RenderedFile, Scope, Version, Warning};
use crate::policy::Mode;
use crate::server::{Auth, Transport};

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

    /// The warnings and notes, with one note for every Portcullis-mode server left to the
    /// harness's own OAuth.
    pub(crate) fn finish(mut self) -> (Vec<Warning>, Vec<String>) {
        if !self.oauth_discovery.is_empty() {
            self.notes.push(format!(
                "Authorized by Portcullis through the harness's own MCP OAuth (no token helper configured, so no credential is rendered): {}. Each server publishes RFC 9728 metadata naming Portcullis as its authorization server, which the harness discovers on the first 401.",
                self.oauth_discovery.join(", ")
            ));
        }
        (self.warnings, self.notes)
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

/// Warns that the harness cannot check a command's binary digest (none of the six can), or
/// that the command is not pinned at all.
pub(crate) fn warn_sha256(out: &mut Out, id: &str, sha256: Option<&String>, harness: &str) {
    let message = match sha256 {
        Some(h) => format!(
            "{harness} runs whatever is at the path; it cannot check the binary's SHA-256 ({}…). Check it when installing the program.",
            h.chars().take(12).collect::<String>()
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
            let url = match transport {
                Transport::Remote { url, .. } => url.as_str(),
                _ => "",
            };
            let helper = match (&ctx.opts.token_helper, helper_ok) {
                (Some(h), Ok(())) if h.contains("{url}") && !shell_safe(url) => {
                    out.warn(
                        Some(id),
                        Field::AuthMode.as_str(),
                        format!(
                            "Portcullis: the URL has characters a shell would read ({url}), so the token helper naming it is not rendered; the harness's own MCP OAuth finds Portcullis through the server's RFC 9728 metadata."
                        ),
                    );
                    None
                }
                (Some(h), Ok(())) => Some(h.replace("{id}", id).replace("{url}", url)),
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
