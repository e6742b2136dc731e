//! The shapes names and versions must have. Each check returns the message for the user.

/// Longest server id: harnesses join it into tool names (`mcp__<id>__<tool>`) that models
/// limit to 64 characters.
pub const MAX_ID_CHARS: usize = 32;
/// Longest tool name in a tool rule.
pub const MAX_TOOL_CHARS: usize = 64;
/// Longest tool name a harness builds from a server id and a tool (`mcp__<id>__<tool>`).
pub const MAX_QUALIFIED_TOOL_CHARS: usize = 64;

/// A server id: a lowercase slug without `_` or `.` (harnesses join it into tool names with
/// `__`, `_`, `-` and `.`), at most [`MAX_ID_CHARS`].
///
/// # Errors
/// The message for the user.
pub fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("Give the server an id.".into());
    }
    if id.chars().count() > MAX_ID_CHARS {
        return Err(format!("At most {MAX_ID_CHARS} characters."));
    }
    slug(id).map_err(|()| {
        "Lowercase letters, digits and single hyphens only (no '_' or '.': harnesses join the id into tool names), starting and ending with a letter or digit.".to_owned()
    })
}

/// A ring or unit name: the same shape as a server id.
///
/// # Errors
/// The message for the user.
pub fn check_group(name: &str) -> Result<(), String> {
    slug(name)
        .map_err(|()| "Lowercase letters, digits and single hyphens only.".to_owned())
        .and_then(|()| {
            if name.len() > 63 {
                Err("At most 63 characters.".into())
            } else {
                Ok(())
            }
        })
}

fn slug(s: &str) -> Result<(), ()> {
    let ok = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
        && !s.contains("--");
    if ok { Ok(()) } else { Err(()) }
}

/// A tool name in an allow or deny rule: what MCP servers name tools and every harness can
/// match (`A–Z a–z 0–9 _ -`), and short enough that `mcp__<id>__<tool>` stays within
/// [`MAX_QUALIFIED_TOOL_CHARS`].
///
/// # Errors
/// The message for the user.
pub fn check_tool(server_id: &str, tool: &str) -> Result<(), String> {
    if tool.is_empty() || tool.len() > MAX_TOOL_CHARS {
        return Err(format!("A tool name has 1 to {MAX_TOOL_CHARS} characters."));
    }
    if !tool
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(format!(
            "{}: letters, digits, '_' and '-' only (the names harnesses build from it must match).",
            shown(tool)
        ));
    }
    let qualified = format!("mcp__{server_id}__{tool}");
    if qualified.len() > MAX_QUALIFIED_TOOL_CHARS {
        return Err(format!(
            "{qualified} is longer than {MAX_QUALIFIED_TOOL_CHARS} characters: Claude Code could not name it. Shorten the server id or the tool."
        ));
    }
    Ok(())
}

/// An environment variable name (`${NAME}` references, `env` keys).
///
/// # Errors
/// The message for the user.
pub fn check_env_name(name: &str) -> Result<(), String> {
    let mut bytes = name.bytes();
    let ok = name.len() <= 128
        && bytes
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{}: an environment variable name (letters, digits and '_', not starting with a digit).",
            shown(name)
        ))
    }
}

/// An HTTP header name (RFC 9110 token).
///
/// # Errors
/// The message for the user.
pub fn check_header_name(name: &str) -> Result<(), String> {
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if !name.is_empty() && name.len() <= 128 && name.bytes().all(token) {
        Ok(())
    } else {
        Err(format!("{}: not a header name.", shown(name)))
    }
}

/// A name in the official MCP Registry (`io.github.owner/server`).
///
/// # Errors
/// The message for the user.
pub fn check_registry_name(name: &str) -> Result<(), String> {
    let Some((namespace, server)) = name.split_once('/') else {
        return Err("A registry name looks like io.github.owner/server.".into());
    };
    let ns = |b: u8| b.is_ascii_alphanumeric() || b == b'.' || b == b'-';
    let sv = |b: u8| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-';
    if (3..=200).contains(&name.len())
        && !namespace.is_empty()
        && !server.is_empty()
        && namespace.bytes().all(ns)
        && server.bytes().all(sv)
    {
        Ok(())
    } else {
        Err(format!(
            "{}: a registry name looks like io.github.owner/server (3 to 200 characters).",
            shown(name)
        ))
    }
}

/// An exact version: never a range, a wildcard, a tag like `latest`, or an unrendered
/// template. `what` names the ecosystem in the message.
///
/// # Errors
/// The message for the user.
pub fn check_exact_version(version: &str, what: &str) -> Result<(), String> {
    let v = version.trim();
    if v.is_empty() {
        return Err(format!("Pin an exact {what} version."));
    }
    if v.eq_ignore_ascii_case("latest") || v.eq_ignore_ascii_case("next") {
        return Err(format!(
            "{}: a tag floats to whatever is published next; pin an exact {what} version.",
            shown(v)
        ));
    }
    if v.contains("${") || v.contains("{{") {
        return Err(format!(
            "{}: an unrendered template, not a version.",
            shown(v)
        ));
    }
    let range = v
        .chars()
        .any(|c| matches!(c, '^' | '~' | '>' | '<' | '*' | '|' | ' ' | ',' | '='))
        || v.split(['.', '-', '+'])
            .any(|part| part.eq_ignore_ascii_case("x"));
    if range {
        return Err(format!(
            "{}: a range admits versions nobody reviewed; pin one exact {what} version.",
            shown(v)
        ));
    }
    if (v.starts_with('v') || v.starts_with('V'))
        && v[1..].starts_with(|c: char| c.is_ascii_digit())
    {
        return Err(format!(
            "{}: a version starts with its number; write {}.",
            shown(v),
            shown(&v[1..])
        ));
    }
    if !v.starts_with(|c: char| c.is_ascii_digit())
        || !v
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-+_!".contains(&b))
        || v.len() > 128
    {
        return Err(format!("{}: not a version.", shown(v)));
    }
    Ok(())
}

/// An exact npm version: all three of `MAJOR.MINOR.PATCH` (npm reads `1.2` and `1` as ranges),
/// with an optional pre-release and build.
///
/// # Errors
/// The message for the user.
pub fn check_npm_version(version: &str) -> Result<(), String> {
    check_exact_version(version, "npm")?;
    let v = version.trim();
    let core = v.split(['-', '+']).next().unwrap_or_default();
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() != 3
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(format!(
            "{}: npm reads a version without all three of major.minor.patch as a range; pin one exact version (1.2.0).",
            shown(v)
        ));
    }
    Ok(())
}

/// A value as quoted in a message: at most 60 characters, control characters dropped.
pub fn shown(s: &str) -> String {
    let mut out: String = s.chars().filter(|c| !c.is_control()).take(60).collect();
    if s.chars().count() > 60 {
        out.push('…');
    }
    format!("'{out}'")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_slugs_every_harness_can_join_into_tool_names() {
        for ok in ["wiki", "playwright", "a", "pay-2", "x1-y2-z3"] {
            assert_eq!(check_id(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "Wiki",
            "my_server",
            "my.server",
            "-wiki",
            "wiki-",
            "a--b",
            "wiki server",
            "ünï",
            &"a".repeat(33),
        ] {
            assert!(check_id(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn tool_rules_hold_in_every_harness() {
        assert_eq!(check_tool("wiki", "delete_page"), Ok(()));
        assert_eq!(check_tool("wiki", "search-v2"), Ok(()));
        for bad in ["", "a b", "a.b", "a/b", "mcp:tool", &"t".repeat(65)] {
            assert!(check_tool("wiki", bad).is_err(), "{bad:?}");
        }
        // Within 64 alone, too long once Claude Code qualifies it.
        let e = check_tool(&"s".repeat(32), &"t".repeat(30)).expect_err("too long");
        assert!(e.contains("Claude Code"), "{e}");
    }

    #[test]
    fn versions_are_exact() {
        for ok in [
            "0.0.82",
            "1.2.3-beta.1",
            "1.0.0+build.5",
            "2024.10.1",
            "1.0rc1",
            "3.0.0-prerelease.2",
        ] {
            assert_eq!(check_exact_version(ok, "npm"), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "latest",
            "LATEST",
            "^1.2.3",
            "~1.2",
            ">=1.0",
            "1.x",
            "1.2.*",
            "*",
            "1.0 || 2.0",
            "${VERSION}",
            "{{VERSION}}",
            "==1.0",
            "v1.0.0",
        ] {
            assert!(check_exact_version(bad, "npm").is_err(), "{bad:?}");
        }
        assert!(
            check_exact_version("v1.0.0", "npm")
                .unwrap_err()
                .contains("write '1.0.0'")
        );
    }

    #[test]
    fn npm_versions_have_all_three_parts() {
        for ok in [
            "0.0.82",
            "1.2.3-beta.1",
            "1.0.0+build.5",
            "3.0.0-prerelease.2",
        ] {
            assert_eq!(check_npm_version(ok), Ok(()), "{ok}");
        }
        for bad in ["1", "1.2", "1.2.3.4", "1.0rc1", "2024.10", "1..2"] {
            assert!(
                check_npm_version(bad)
                    .unwrap_err()
                    .contains("major.minor.patch")
                    || check_exact_version(bad, "npm").is_err(),
                "{bad:?}"
            );
        }
        assert!(check_npm_version("1.2").unwrap_err().contains("range"));
    }

    #[test]
    fn registry_and_variable_names() {
        assert_eq!(
            check_registry_name("io.github.microsoft/playwright-mcp"),
            Ok(())
        );
        for bad in ["playwright", "a/b/c", "/x", "x/", "a b/c"] {
            assert!(check_registry_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(check_env_name("GITHUB_TOKEN"), Ok(()));
        for bad in ["", "1TOKEN", "MY-TOKEN", "A B"] {
            assert!(check_env_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(check_header_name("X-Api-Key"), Ok(()));
        assert!(check_header_name("Bad Header").is_err());
        assert!(check_header_name("X:Y").is_err());
    }
}
