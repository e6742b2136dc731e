//! Header and environment values in each harness's syntax: `${VAR}` references translated
//! (`${env:VAR}`, `{env:VAR}`), fixed text the harness would expand refused, and literal
//! credentials never written.
use super::{Field, Out};
use crate::secrets::{Part, parts};

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
/// and left out: a checked [`crate::Server`] never holds one, but its fields are public, and a
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
