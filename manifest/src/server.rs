//! One approved MCP server: how it is reached (exactly one transport, pinned), which of its
//! tools may be used, how a client authenticates to it, and who gets it.
//!
//! [`ServerInput`] is what an editor, an import or a stored draft holds (every field optional,
//! so anything can be said and then checked); [`Server::check`] turns it into a [`Server`],
//! which cannot hold two transports, a floating version or a literal secret.
use crate::field::Findings;
use crate::names::{
    check_env_name, check_exact_version, check_group, check_header_name, check_id,
    check_npm_version, check_registry_name, check_tool, shown,
};
use crate::secrets::check_value;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod check;
pub mod profile;
use check::{auth, groups, registry, tools, transport, values};
use profile::Profile;

/// Most entries in a list (headers, env, tools, rings, units, args).
pub const MAX_LIST: usize = 100;

/// A server as written: everything optional, nothing checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct ServerInput {
    /// The id harnesses know it by.
    pub id: String,
    /// A name for people.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// A provider profile (`notion`, `gmail-preview`): the provider's defaults, and only its
    /// tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Remote transport: the server's URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `streamable-http` (default) or `sse`, for a `url`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url_transport: Option<String>,
    /// Package transport.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<PackageInput>,
    /// Command transport.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandInput>,
    /// Its name in the official MCP Registry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registry_name: Option<String>,
    /// Its version there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// HTTP headers (remote servers).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Environment (local servers).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Tool rules.
    pub tools: Tools,
    /// How a client authenticates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthInput>,
    /// Rings that get it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rings: Vec<String>,
    /// Units that get it (members of these units and of units below them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub units: Vec<String>,
}

/// A package as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct PackageInput {
    /// `npm`, `pypi` or `oci`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Package name, or image reference with its digest.
    pub identifier: String,
    /// Exact version (npm, pypi).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// A command as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CommandInput {
    /// The program.
    pub path: String,
    /// Its arguments.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// SHA-256 of the program's binary (hex).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// Authentication as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct AuthInput {
    /// `none`, `oauth`, `enterprise` or `portcullis`.
    pub mode: String,
    /// `oauth`: a client id registered at the server's authorization server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// `oauth`: or the URL of an organisation-hosted Client ID Metadata Document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_metadata_url: Option<String>,
    /// `oauth`: the server's authorization server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// `enterprise`: the identity provider that issues the ID-JAG.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identity_issuer: Option<String>,
    /// Scopes to ask for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
}

/// Which tools may be used: all but `deny` when `allow` is empty, else `allow` but `deny`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Tools {
    /// Only these (empty: every tool).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<String>,
    /// Never these (wins over `allow`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
}

impl Tools {
    /// Whether every tool is allowed (no rule at all).
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }

    /// Whether `tool` may be used.
    pub fn allows(&self, tool: &str) -> bool {
        !self.deny.iter().any(|t| t == tool)
            && (self.allow.is_empty() || self.allow.iter().any(|t| t == tool))
    }
}

/// A checked server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    /// The id harnesses know it by.
    pub id: String,
    /// A name for people (empty: the id).
    pub title: String,
    /// How it is reached.
    pub transport: Transport,
    /// Where it came from in the official MCP Registry: (name, version).
    pub registry: Option<(String, String)>,
    /// HTTP headers (remote servers); values may reference `${VAR}`.
    pub headers: BTreeMap<String, String>,
    /// Environment (local servers); values may reference `${VAR}`.
    pub env: BTreeMap<String, String>,
    /// Tool rules.
    pub tools: Tools,
    /// How a client authenticates.
    pub auth: Auth,
    /// Rings that get it.
    pub rings: Vec<String>,
    /// Units that get it.
    pub units: Vec<String>,
    /// The provider profile it follows.
    pub profile: Option<Profile>,
}

/// How a server is reached: exactly one of these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A remote server at its canonical URL.
    Remote {
        /// The URL (https; canonical: lowercase host, no default port, query or fragment).
        url: String,
        /// Server-sent events instead of streamable HTTP.
        sse: bool,
    },
    /// A package run on the laptop at one pinned version.
    Package(Package),
    /// A program on the laptop.
    Command(Command),
}

/// The package ecosystems a launch command can be derived for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageType {
    /// npm, run with `npx -y name@version`.
    Npm,
    /// PyPI, run with `uvx name==version`.
    Pypi,
    /// An OCI image, run with `docker run -i --rm image@sha256:…`.
    Oci,
}

impl PackageType {
    /// The manifest's name.
    pub fn as_str(self) -> &'static str {
        match self {
            PackageType::Npm => "npm",
            PackageType::Pypi => "pypi",
            PackageType::Oci => "oci",
        }
    }
}

/// A pinned package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// Ecosystem.
    pub kind: PackageType,
    /// Package name, or image reference ending in `@sha256:<digest>`.
    pub identifier: String,
    /// Exact version (npm, PyPI); empty for an image (its digest pins it).
    pub version: String,
}

impl Package {
    /// The command line that runs it: program and arguments.
    pub fn launch(&self) -> (String, Vec<String>) {
        match self.kind {
            PackageType::Npm => (
                "npx".into(),
                vec!["-y".into(), format!("{}@{}", self.identifier, self.version)],
            ),
            PackageType::Pypi => (
                "uvx".into(),
                vec![format!("{}=={}", self.identifier, self.version)],
            ),
            PackageType::Oci => (
                "docker".into(),
                vec![
                    "run".into(),
                    "-i".into(),
                    "--rm".into(),
                    self.identifier.clone(),
                ],
            ),
        }
    }
}

/// A program on the laptop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The program.
    pub path: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// SHA-256 of its binary (lowercase hex); `None`: unpinned (warned).
    pub sha256: Option<String>,
}

/// How a client authenticates to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Auth {
    /// No client authorization (or `${VAR}` headers).
    None,
    /// The server's own authorization server.
    OAuth {
        /// A pre-registered client id.
        client_id: Option<String>,
        /// Or an organisation-hosted Client ID Metadata Document (its URL is the client id).
        client_metadata_url: Option<String>,
        /// The authorization server.
        issuer: Option<String>,
        /// Scopes to ask for.
        scopes: Vec<String>,
    },
    /// Enterprise-Managed Authorization: an ID-JAG from the identity provider.
    Enterprise {
        /// The identity provider.
        identity_issuer: String,
        /// Scopes to ask for.
        scopes: Vec<String>,
    },
    /// Portcullis is its authorization server (the server is a protected resource here).
    Portcullis {
        /// Scopes to ask for.
        scopes: Vec<String>,
    },
}

impl Server {
    /// Checks `input`: the server when nothing refuses it, and every finding (errors and
    /// warnings), each naming its field.
    pub fn check(input: &ServerInput) -> (Option<Server>, Findings) {
        let mut f = Findings::default();
        let (input, profile) = profile::apply(input, &mut f);
        let input = &input;
        let id = input.id.trim().to_owned();
        if let Err(m) = check_id(&id) {
            f.error("id", m);
        }
        let title = input.title.trim().to_owned();
        if title.chars().count() > 100 || title.chars().any(char::is_control) {
            f.error("title", "At most 100 characters, on one line.");
        }
        let transport = transport(input, &mut f);
        let registry = registry(input, &mut f);
        let headers = values("headers", &input.headers, check_header_name, &mut f);
        let env = values("env", &input.env, check_env_name, &mut f);
        match &transport {
            Some(Transport::Remote { .. }) if !env.is_empty() => f.error(
                "env",
                "A remote server gets headers, not environment variables.",
            ),
            Some(Transport::Package(_) | Transport::Command(_)) if !headers.is_empty() => f.error(
                "headers",
                "A local server gets environment variables, not headers.",
            ),
            _ => {}
        }
        let tools = tools(&id, &input.tools, &mut f);
        let auth = auth(input.auth.as_ref(), transport.as_ref(), &mut f);
        let rings = groups("rings", &input.rings, &mut f);
        let units = groups("units", &input.units, &mut f);
        if rings.is_empty() && units.is_empty() {
            f.warn(
                "rings",
                "No ring or unit gets it: once published, it is delivered to nobody.",
            );
        }
        match (f.is_ok(), transport, auth) {
            (true, Some(transport), Some(auth)) => (
                Some(Server {
                    id,
                    title,
                    transport,
                    registry,
                    headers,
                    env,
                    tools,
                    auth,
                    rings,
                    units,
                    profile,
                }),
                f,
            ),
            _ => (None, f),
        }
    }

    /// The server as written (for editing, storing and the manifest).
    pub fn to_input(&self) -> ServerInput {
        let (url, url_transport, package, command) = match &self.transport {
            Transport::Remote { url, sse } => {
                (Some(url.clone()), sse.then(|| "sse".to_owned()), None, None)
            }
            Transport::Package(p) => (
                None,
                None,
                Some(PackageInput {
                    kind: p.kind.as_str().into(),
                    identifier: p.identifier.clone(),
                    version: Some(p.version.clone()).filter(|v| !v.is_empty()),
                }),
                None,
            ),
            Transport::Command(c) => (
                None,
                None,
                None,
                Some(CommandInput {
                    path: c.path.clone(),
                    args: c.args.clone(),
                    sha256: c.sha256.clone(),
                }),
            ),
        };
        let auth = match &self.auth {
            // Said outright under a profile, whose default would be its provider's OAuth.
            Auth::None if self.profile.is_some() => Some(AuthInput {
                mode: "none".into(),
                ..Default::default()
            }),
            Auth::None => None,
            Auth::OAuth {
                client_id,
                client_metadata_url,
                issuer,
                scopes,
            } => Some(AuthInput {
                mode: "oauth".into(),
                client_id: client_id.clone(),
                client_metadata_url: client_metadata_url.clone(),
                issuer: issuer.clone(),
                scopes: scopes.clone(),
                ..Default::default()
            }),
            Auth::Enterprise {
                identity_issuer,
                scopes,
            } => Some(AuthInput {
                mode: "enterprise".into(),
                identity_issuer: Some(identity_issuer.clone()),
                scopes: scopes.clone(),
                ..Default::default()
            }),
            Auth::Portcullis { scopes } => Some(AuthInput {
                mode: "portcullis".into(),
                scopes: scopes.clone(),
                ..Default::default()
            }),
        };
        ServerInput {
            id: self.id.clone(),
            title: self.title.clone(),
            profile: self.profile.map(|p| p.as_str().to_owned()),
            url,
            url_transport,
            package,
            command,
            registry_name: self.registry.as_ref().map(|(n, _)| n.clone()),
            version: self.registry.as_ref().map(|(_, v)| v.clone()),
            headers: self.headers.clone(),
            env: self.env.clone(),
            tools: self.tools.clone(),
            auth,
            rings: self.rings.clone(),
            units: self.units.clone(),
        }
    }
}

/// Whether `url` names this machine's loopback (`localhost`, `127.0.0.0/8`, `[::1]`).
fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The canonical form of a remote server's URL, as for protected resources.
///
/// The two must match where Portcullis authorizes the server: https (http on loopback), a lowercase host, no
/// default port, no query, fragment or user info, no trailing slash after a path.
///
/// # Errors
/// The message for the user.
pub fn canonical_url(raw: &str) -> Result<String, String> {
    let raw = raw.trim();
    if raw.len() > 2048 {
        return Err("At most 2048 characters.".into());
    }
    let url = url::Url::parse(raw).map_err(|_| format!("{}: not a URL.", shown(raw)))?;
    // Plain http only on this machine's loopback (a server the harness or gateway runs
    // beside, as RFC 8252 allows for loopback redirects): nothing crosses a network in clear.
    if url.scheme() != "https" && !(url.scheme() == "http" && is_loopback(&url)) {
        return Err(
            "Remote servers are reached over https (plain http only on loopback: localhost, 127.0.0.1, [::1]).".into(),
        );
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("The URL needs a host.".into());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("No query or fragment: the URL names the server.".into());
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("No user name or password in the URL.".into());
    }
    // The url crate lower-cases scheme and host and drops the default port already.
    let host = url.host_str().unwrap_or_default();
    // Harness allowlists read `*` as a wildcard: a URL names one server, nothing more.
    let host_ok = match url.host() {
        Some(url::Host::Domain(d)) => d
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.'),
        Some(_) => true,
        None => false,
    };
    if !host_ok {
        return Err(format!(
            "{}: a host is letters, digits, '-' and '.' (no wildcards).",
            shown(host)
        ));
    }
    if url
        .path()
        .bytes()
        .any(|b| matches!(b, b'*' | b'$' | b'{' | b'}' | b'\\' | b'`' | b'"' | b'\''))
    {
        return Err(
            "The path names one server: no '*', '$', braces, quotes or backslashes.".into(),
        );
    }
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    let path = match url.path() {
        "/" => "/",
        p => match p.trim_end_matches('/') {
            "" => "/",
            p => p,
        },
    };
    Ok(format!("{}://{host}{port}{path}", url.scheme()))
}
