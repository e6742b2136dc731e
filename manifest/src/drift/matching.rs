//! What makes two definitions the same server: the canonical URL, or the command line with
//! the launchers' no-op flags taken out.
use crate::server::Transport;

/// A definition reduced to what identifies the server it runs or reaches.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Launch {
    /// `scheme://host[:port]/path`: lowercase host, no default port, no trailing slash; user
    /// info, query and fragment left out (harness allowlists match the same way).
    Url(String),
    /// Program and arguments, normalised by [`normalise`].
    Argv(Vec<String>),
}

/// The approved server's identity.
pub(super) fn launch(t: &Transport) -> Launch {
    match t {
        Transport::Remote { url, .. } => canonical_remote(url)
            .map(Launch::Url)
            .unwrap_or_else(|| Launch::Url(url.clone())),
        Transport::Package(p) => {
            let (program, args) = p.launch();
            normalise(&program, &args)
        }
        Transport::Command(c) => normalise(&c.path, &c.args),
    }
}

/// The canonical form of a URL as written in a user config, if it is one.
pub(super) fn canonical_remote(raw: &str) -> Option<String> {
    let url = url::Url::parse(raw.trim()).ok()?;
    let host = url.host_str().filter(|h| !h.is_empty())?;
    let port = url.port().map(|p| format!(":{p}")).unwrap_or_default();
    let path = url.path().trim_end_matches('/');
    Some(format!("{}://{host}{port}{path}", url.scheme()))
}

/// The host (and a port that is not the scheme's default) of a URL as written.
pub(super) fn host_of(raw: &str) -> String {
    url::Url::parse(raw.trim())
        .ok()
        .and_then(|u| {
            let host = u.host_str()?.to_owned();
            Some(match u.port() {
                Some(p) => format!("{host}:{p}"),
                None => host,
            })
        })
        .unwrap_or_default()
}

/// A command line reduced to what decides what runs.
///
/// Launchers are recognised by the program's file name (`npx`, `uvx`, `docker`; a directory
/// and a Windows `.cmd`/`.exe` suffix are ignored) and lose the flags that do not change what
/// runs: `npx -y`/`--yes`/`-q`, `uvx -q`, and `docker run`'s `-i`, `--rm`, `--init` and
/// `-e NAME` (the environment is compared nowhere). `uvx pkg@1.0` is `uvx pkg==1.0`, and a
/// PyPI name is compared in its normalised form. Any other program is kept exactly as written.
pub(super) fn normalise(program: &str, args: &[String]) -> Launch {
    let base = program
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(program)
        .to_ascii_lowercase();
    let base = [".cmd", ".exe", ".bat"]
        .iter()
        .find_map(|s| base.strip_suffix(s))
        .unwrap_or(&base)
        .to_owned();
    let mut out = Vec::with_capacity(args.len() + 1);
    match base.as_str() {
        "npx" => {
            out.push(base);
            let start = args
                .iter()
                .position(|a| !matches!(a.as_str(), "-y" | "--yes" | "-q" | "--quiet"))
                .unwrap_or(args.len());
            out.extend(args[start..].iter().cloned());
        }
        "uvx" => {
            out.push(base);
            let start = args
                .iter()
                .position(|a| !matches!(a.as_str(), "-q" | "--quiet"))
                .unwrap_or(args.len());
            if let Some((spec, rest)) = args[start..].split_first() {
                out.push(pypi_spec(spec));
                out.extend(rest.iter().cloned());
            }
        }
        "docker" if args.first().is_some_and(|a| a == "run") => {
            out.push(base);
            out.push("run".into());
            let mut rest = args[1..].iter();
            while let Some(a) = rest.next() {
                match a.as_str() {
                    "-i" | "--interactive" | "--rm" | "--init" => {}
                    "-e" | "--env" => {
                        rest.next();
                    }
                    a if a.starts_with("-e=") || a.starts_with("--env=") => {}
                    a if a.starts_with('-') => out.push(a.to_owned()),
                    _ => {
                        // The image: everything after it goes to the server.
                        out.push(a.clone());
                        out.extend(rest.cloned());
                        break;
                    }
                }
            }
        }
        _ => {
            out.push(program.to_owned());
            out.extend(args.iter().cloned());
        }
    }
    Launch::Argv(out)
}

/// `Name_x.y==1.0` and `name-x-y@1.0` alike as `name-x-y==1.0` (PEP 503 names).
fn pypi_spec(spec: &str) -> String {
    let (name, version) = match spec.split_once("==") {
        Some((n, v)) => (n, Some(v)),
        None => match spec.split_once('@') {
            Some((n, v)) if !n.is_empty() => (n, Some(v)),
            _ => (spec, None),
        },
    };
    let mut normal = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !normal.ends_with('-') {
                normal.push('-');
            }
        } else {
            normal.push(c.to_ascii_lowercase());
        }
    }
    match version {
        Some(v) => format!("{normal}=={v}"),
        None => normal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Launch {
        let words: Vec<String> = s.split(' ').map(str::to_owned).collect();
        normalise(&words[0], &words[1..])
    }

    #[test]
    fn launchers_lose_only_the_flags_that_change_nothing() {
        assert_eq!(argv("npx -y @s/p@1.2.3"), argv("npx @s/p@1.2.3"));
        assert_eq!(
            argv("npx -y @s/p@1.2.3"),
            argv("/usr/local/bin/npx --yes @s/p@1.2.3")
        );
        assert_eq!(argv("npx -y @s/p@1.2.3"), argv("NPX.CMD -y @s/p@1.2.3"));
        assert_ne!(argv("npx -y @s/p@1.2.3"), argv("npx -y @s/p@1.2.4"));
        assert_ne!(argv("npx -y @s/p@1.2.3"), argv("npx -y @s/p@1.2.3 --extra"));
        assert_ne!(argv("npx -y @s/p@1.2.3"), argv("npx -y @s/p"));
        assert_eq!(argv("uvx mcp-x==1.0"), argv("uvx Mcp_X@1.0"));
        assert_eq!(argv("uvx mcp-x==1.0"), argv("uvx -q mcp.x==1.0"));
        assert_ne!(argv("uvx mcp-x==1.0"), argv("uvx mcp-x==1.1"));
        let image = "ghcr.io/a/b@sha256:0123";
        assert_eq!(
            argv(&format!("docker run -i --rm {image}")),
            argv(&format!("docker run --rm -e TOKEN -i --env=X=1 {image}"))
        );
        assert_ne!(
            argv(&format!("docker run -i --rm {image}")),
            argv("docker run -i --rm ghcr.io/a/b:latest")
        );
        assert_ne!(
            argv(&format!("docker run -i --rm {image}")),
            argv(&format!("docker run -i --rm -v /:/host {image}"))
        );
        // Any other program: exactly as written, path included.
        assert_ne!(argv("/opt/x/bin/srv --a"), argv("srv --a"));
        assert_eq!(argv("/opt/x/bin/srv --a"), argv("/opt/x/bin/srv --a"));
    }

    #[test]
    fn urls_compare_canonically() {
        let c = |s: &str| canonical_remote(s).expect(s);
        assert_eq!(
            c("https://MCP.Example.com:443/mcp/"),
            c("https://mcp.example.com/mcp")
        );
        assert_eq!(
            c("https://user:pw@mcp.example.com/mcp?key=1#x"),
            "https://mcp.example.com/mcp"
        );
        assert_ne!(
            c("http://mcp.example.com/mcp"),
            c("https://mcp.example.com/mcp")
        );
        assert_ne!(
            c("https://mcp.example.com:8443/mcp"),
            c("https://mcp.example.com/mcp")
        );
        assert_eq!(c("https://mcp.example.com/"), c("https://mcp.example.com"));
        assert_eq!(canonical_remote("not a url"), None);
        assert_eq!(
            host_of("https://u:p@Mcp.Example.com:8443/a?b"),
            "mcp.example.com:8443"
        );
        assert_eq!(host_of("https://mcp.example.com:443/a"), "mcp.example.com");
    }
}
