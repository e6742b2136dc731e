//! Checking a server's fields one by one: its transport, package or command, registry name,
//! headers and environment, tool rules, groups, scopes and authentication. Each checker adds
//! what is wrong to the findings, with the field it concerns.
use super::*;

pub(super) fn transport(input: &ServerInput, f: &mut Findings) -> Option<Transport> {
    let given = [
        input.url.is_some(),
        input.package.is_some(),
        input.command.is_some(),
    ]
    .iter()
    .filter(|g| **g)
    .count();
    if given != 1 {
        f.error(
            "transport",
            if given == 0 {
                "Say how the server is reached: a url, a package or a command."
            } else {
                "Exactly one of url, package and command."
            },
        );
        return None;
    }
    if let Some(url) = &input.url {
        let sse = match input.url_transport.as_deref().map(str::trim) {
            None | Some("" | "streamable-http") => false,
            Some("sse") => true,
            Some(other) => {
                f.error(
                    "urlTransport",
                    format!("{}: streamable-http or sse.", shown(other)),
                );
                false
            }
        };
        return match canonical_url(url) {
            Ok(url) => Some(Transport::Remote { url, sse }),
            Err(m) => {
                f.error("url", m);
                None
            }
        };
    }
    if input.url_transport.is_some() {
        f.error("urlTransport", "Only a url has a url transport.");
    }
    if let Some(p) = &input.package {
        return package(p, f).map(Transport::Package);
    }
    input
        .command
        .as_ref()
        .and_then(|c| command(c, f))
        .map(Transport::Command)
}

pub(super) fn package(p: &PackageInput, f: &mut Findings) -> Option<Package> {
    let kind = match p.kind.trim() {
        "npm" => PackageType::Npm,
        "pypi" => PackageType::Pypi,
        "oci" => PackageType::Oci,
        other => {
            f.error(
                "package.type",
                format!(
                    "{}: npm, pypi or oci (a launch command is derived for those).",
                    shown(other)
                ),
            );
            return None;
        }
    };
    let identifier = p.identifier.trim().to_owned();
    let before = f.errors.len();
    if identifier.starts_with('-') {
        f.error(
            "package.identifier",
            format!(
                "{}: a name, not an option (it is passed to npx, uvx or docker).",
                shown(&identifier)
            ),
        );
        return None;
    }
    match kind {
        PackageType::Npm => {
            let (scope, name) = match identifier.strip_prefix('@') {
                Some(rest) => match rest.split_once('/') {
                    Some((s, n)) => (Some(s), n),
                    None => (Some(""), ""),
                },
                None => (None, identifier.as_str()),
            };
            let part = |s: &str| {
                !s.is_empty()
                    && s.bytes().all(|b| {
                        b.is_ascii_lowercase() || b.is_ascii_digit() || b"-._~".contains(&b)
                    })
                    && !s.starts_with(['.', '_'])
            };
            if identifier.len() > 214 || !part(name) || scope.is_some_and(|s| !part(s)) {
                f.error(
                    "package.identifier",
                    format!("{}: not an npm package name.", shown(&identifier)),
                );
            }
        }
        PackageType::Pypi => {
            let ok = !identifier.is_empty()
                && identifier.len() <= 200
                && identifier
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
                && identifier.starts_with(|c: char| c.is_ascii_alphanumeric())
                && identifier.ends_with(|c: char| c.is_ascii_alphanumeric());
            if !ok {
                f.error(
                    "package.identifier",
                    format!("{}: not a PyPI project name.", shown(&identifier)),
                );
            }
        }
        PackageType::Oci => match identifier.rsplit_once("@sha256:") {
            Some((image, digest))
                if digest.len() == 64
                    && digest.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
                    && !image.is_empty()
                    && image.bytes().all(|b| {
                        b.is_ascii_lowercase() || b.is_ascii_digit() || b"-._/:".contains(&b)
                    }) => {}
            _ => f.error(
                "package.identifier",
                "An image is pinned by its digest: registry/image@sha256:<64 hex digits> (a tag can be moved to other content).",
            ),
        },
    }
    let version = match (kind, p.version.as_deref().map(str::trim)) {
        (PackageType::Oci, None | Some("")) => String::new(),
        (PackageType::Oci, Some(_)) => {
            f.error(
                "package.version",
                "An image's digest pins it; leave the version out.",
            );
            String::new()
        }
        (PackageType::Npm, v) => match check_npm_version(v.unwrap_or_default()) {
            Ok(()) => v.unwrap_or_default().to_owned(),
            Err(m) => {
                f.error("package.version", m);
                String::new()
            }
        },
        (_, v) => match check_exact_version(v.unwrap_or_default(), kind.as_str()) {
            Ok(()) => v.unwrap_or_default().to_owned(),
            Err(m) => {
                f.error("package.version", m);
                String::new()
            }
        },
    };
    (f.errors.len() == before).then_some(Package {
        kind,
        identifier,
        version,
    })
}

pub(super) fn command(c: &CommandInput, f: &mut Findings) -> Option<Command> {
    let before = f.errors.len();
    let path = c.path.trim().to_owned();
    if path.is_empty() || path.len() > 1024 || path.chars().any(char::is_control) {
        f.error(
            "command.path",
            "Name the program (at most 1024 characters).",
        );
    }
    if c.args.len() > MAX_LIST {
        f.error("command.args", format!("At most {MAX_LIST} arguments."));
    }
    for (i, a) in c.args.iter().enumerate() {
        if a.len() > 4096 || a.contains('\0') {
            f.error(format!("command.args[{i}]"), "At most 4096 characters.");
        }
    }
    if let Err((i, m)) = crate::secrets::check_args(&c.args) {
        f.error(format!("command.args[{i}]"), m);
    }
    let sha256 = match c.sha256.as_deref().map(str::trim) {
        None | Some("") => {
            f.warn(
                "command.sha256",
                "Unpinned: without the SHA-256 of its binary, whatever is installed at this path runs.",
            );
            None
        }
        Some(h) if h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Some(h.to_ascii_lowercase())
        }
        Some(_) => {
            f.error(
                "command.sha256",
                "The SHA-256 of the binary: 64 hex digits.",
            );
            None
        }
    };
    (f.errors.len() == before).then(|| Command {
        path,
        args: c.args.clone(),
        sha256,
    })
}

pub(super) fn registry(input: &ServerInput, f: &mut Findings) -> Option<(String, String)> {
    match (&input.registry_name, &input.version) {
        (None, None) => None,
        (Some(name), Some(version)) => {
            let (name, version) = (name.trim(), version.trim());
            if let Err(m) = check_registry_name(name) {
                f.error("registryName", m);
            }
            if let Err(m) = check_exact_version(version, "registry") {
                f.error("version", m);
            }
            Some((name.to_owned(), version.to_owned()))
        }
        (Some(_), None) => {
            f.error(
                "version",
                "A server from the MCP Registry is pinned to the version approved.",
            );
            None
        }
        (None, Some(_)) => {
            f.error(
                "registryName",
                "A version is the version of a registry name: give both or neither.",
            );
            None
        }
    }
}

pub(super) fn values(
    what: &str,
    map: &BTreeMap<String, String>,
    name_ok: fn(&str) -> Result<(), String>,
    f: &mut Findings,
) -> BTreeMap<String, String> {
    if map.len() > MAX_LIST {
        f.error(what, format!("At most {MAX_LIST}."));
    }
    for (name, value) in map {
        let field = format!("{what}.{name}");
        if let Err(m) = name_ok(name) {
            f.error(&field, m);
        } else if value.len() > 4096 || value.chars().any(|c| c == '\r' || c == '\n' || c == '\0') {
            f.error(&field, "One line of at most 4096 characters.");
        } else if let Err(m) = check_value(name, value) {
            f.error(&field, m);
        }
    }
    map.clone()
}

pub(super) fn tools(id: &str, t: &Tools, f: &mut Findings) -> Tools {
    for (which, list) in [("allow", &t.allow), ("deny", &t.deny)] {
        if list.len() > MAX_LIST {
            f.error(
                format!("tools.{which}"),
                format!("At most {MAX_LIST} tools."),
            );
        }
        for (i, tool) in list.iter().enumerate() {
            if let Err(m) = check_tool(id, tool) {
                f.error(format!("tools.{which}[{i}]"), m);
            } else if list[..i].contains(tool) {
                f.error(
                    format!("tools.{which}[{i}]"),
                    format!("{} is listed twice.", shown(tool)),
                );
            }
        }
    }
    if !t.allow.is_empty() && t.allow.iter().all(|a| t.deny.contains(a)) {
        f.warn(
            "tools.deny",
            "Every allowed tool is denied too (deny wins): no tool can be used.",
        );
    }
    t.clone()
}

pub(super) fn groups(what: &str, list: &[String], f: &mut Findings) -> Vec<String> {
    if list.len() > MAX_LIST {
        f.error(what, format!("At most {MAX_LIST}."));
    }
    let mut out: Vec<String> = Vec::new();
    for (i, g) in list.iter().enumerate() {
        let g = g.trim();
        if let Err(m) = check_group(g) {
            f.error(format!("{what}[{i}]"), format!("{}: {m}", shown(g)));
        } else if !out.iter().any(|o| o == g) {
            out.push(g.to_owned());
        }
    }
    out
}

pub(super) fn https_url(field: &str, raw: &str, f: &mut Findings) -> String {
    let raw = raw.trim();
    match url::Url::parse(raw) {
        Ok(u) if u.scheme() == "https" && u.host_str().is_some() && u.fragment().is_none() => {}
        _ => f.error(field, format!("{}: an https URL.", shown(raw))),
    }
    checked_value(field, raw, f)
}

/// An authorization server's issuer: an https URL, or plain http on this machine's loopback
/// for a server on loopback itself (both beside each other in development, as
/// [`super::canonical_url`] allows for servers).
pub(super) fn issuer_url(
    field: &str,
    raw: &str,
    transport: Option<&Transport>,
    f: &mut Findings,
) -> String {
    let raw = raw.trim();
    let server_on_loopback = matches!(
        transport,
        Some(Transport::Remote { url, .. })
            if url::Url::parse(url).is_ok_and(|u| super::is_loopback(&u))
    );
    match url::Url::parse(raw) {
        Ok(u)
            if (u.scheme() == "https"
                || (u.scheme() == "http" && server_on_loopback && super::is_loopback(&u)))
                && u.host_str().is_some()
                && u.fragment().is_none() => {}
        _ => f.error(
            field,
            format!(
                "{}: an https URL (plain http only on loopback, for a server on loopback).",
                shown(raw)
            ),
        ),
    }
    checked_value(field, raw, f)
}

/// `raw` after the checks every delivered URL passes.
fn checked_value(field: &str, raw: &str, f: &mut Findings) -> String {
    if let Err(m) = no_expansion(raw) {
        f.error(field, m);
    }
    raw.to_owned()
}

/// Harnesses expand `$VAR` (Gemini CLI) and `{env:…}` / `{file:…}` (OpenCode) anywhere in
/// their settings: a value the registry delivers must not contain what they would replace
/// with a user's variable or file.
pub(super) fn no_expansion(value: &str) -> Result<(), String> {
    if value.contains(['$', '{', '}']) {
        return Err(format!(
            "{}: no '$' or braces (harnesses would replace them with a user's variables or files).",
            shown(value)
        ));
    }
    Ok(())
}

pub(super) fn scopes(list: &[String], f: &mut Findings) -> Vec<String> {
    if list.len() > MAX_LIST {
        f.error("auth.scopes", format!("At most {MAX_LIST} scopes."));
    }
    for (i, s) in list.iter().enumerate() {
        let ok = !s.is_empty()
            && s.len() <= 128
            && s.bytes()
                .all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b))
            && no_expansion(s).is_ok();
        if !ok {
            f.error(
                format!("auth.scopes[{i}]"),
                format!(
                    "{}: a scope is one word of visible characters (RFC 6749), without '$' or braces (harnesses would expand them).",
                    shown(s)
                ),
            );
        }
    }
    list.to_vec()
}

pub(super) fn auth(
    a: Option<&AuthInput>,
    transport: Option<&Transport>,
    f: &mut Findings,
) -> Option<Auth> {
    let Some(a) = a else {
        return Some(Auth::None);
    };
    let before = f.errors.len();
    let unused = |f: &mut Findings, name: &str, given: bool, mode: &str| {
        if given {
            f.error(
                format!("auth.{name}"),
                format!("Not used with mode {mode}."),
            );
        }
    };
    let auth = match a.mode.trim() {
        "" | "none" => {
            unused(f, "clientId", a.client_id.is_some(), "none");
            unused(f, "issuer", a.issuer.is_some(), "none");
            unused(f, "scopes", !a.scopes.is_empty(), "none");
            Auth::None
        }
        "oauth" => {
            if a.client_id.is_some() && a.client_metadata_url.is_some() {
                f.error(
                    "auth.clientMetadataUrl",
                    "A client id or a metadata document URL (which is the client id), not both.",
                );
            }
            let client_id = a.client_id.as_deref().map(str::trim).map(str::to_owned);
            if client_id
                .as_deref()
                .is_some_and(|c| c.is_empty() || c.len() > 255)
            {
                f.error("auth.clientId", "1 to 255 characters.");
            } else if let Some(c) = client_id.as_deref()
                && (c.chars().any(|ch| {
                    ch.is_control() || ch.is_whitespace() || matches!(ch, '"' | '\\' | '`')
                }) || no_expansion(c).is_err())
            {
                f.error(
                    "auth.clientId",
                    "One word of visible characters, without '$', braces, quotes or backslashes.",
                );
            }
            let client_metadata_url = a
                .client_metadata_url
                .as_deref()
                .map(|u| https_url("auth.clientMetadataUrl", u, f));
            if client_id.is_none() && client_metadata_url.is_none() {
                f.warn(
                    "auth.clientId",
                    "No client id: each harness registers itself at the server's authorization server, if it allows that.",
                );
            }
            unused(f, "identityIssuer", a.identity_issuer.is_some(), "oauth");
            Auth::OAuth {
                client_id,
                client_metadata_url,
                issuer: a
                    .issuer
                    .as_deref()
                    .map(|u| issuer_url("auth.issuer", u, transport, f)),
                scopes: scopes(&a.scopes, f),
            }
        }
        "enterprise" => {
            let Some(issuer) = a.identity_issuer.as_deref() else {
                f.error(
                    "auth.identityIssuer",
                    "Enterprise-managed authorization needs the identity provider that issues the ID-JAG.",
                );
                return None;
            };
            unused(f, "clientId", a.client_id.is_some(), "enterprise");
            Auth::Enterprise {
                identity_issuer: https_url("auth.identityIssuer", issuer, f),
                scopes: scopes(&a.scopes, f),
            }
        }
        "portcullis" => {
            if !matches!(transport, Some(Transport::Remote { .. }) | None) {
                f.error(
                    "auth.mode",
                    "Portcullis authorizes remote servers only (a url): a package or command is no token audience.",
                );
            }
            unused(f, "clientId", a.client_id.is_some(), "portcullis");
            unused(f, "issuer", a.issuer.is_some(), "portcullis");
            unused(
                f,
                "identityIssuer",
                a.identity_issuer.is_some(),
                "portcullis",
            );
            Auth::Portcullis {
                scopes: scopes(&a.scopes, f),
            }
        }
        other => {
            f.error(
                "auth.mode",
                format!("{}: none, oauth, enterprise or portcullis.", shown(other)),
            );
            return None;
        }
    };
    (f.errors.len() == before).then_some(auth)
}
