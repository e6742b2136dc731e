//! Header and environment values in a manifest go to every laptop that gets the server: they
//! reference the user's own environment (`${VAR}`) and never carry a credential.
use crate::names::check_env_name;

/// The parts of a value: literal text and `${VAR}` references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part<'a> {
    /// Text taken as it is.
    Literal(&'a str),
    /// `${NAME}`: the variable of that name in the user's environment.
    Var(&'a str),
}

/// Splits `value` into literal text and `${VAR}` references.
///
/// # Errors
/// The message for the user: an unclosed `${`, or a reference that is not a variable name.
pub fn parts(value: &str) -> Result<Vec<Part<'_>>, String> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find("${") {
        if at > 0 {
            out.push(Part::Literal(&rest[..at]));
        }
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            return Err("An unclosed ${ (write ${NAME}).".into());
        };
        let name = &after[..end];
        check_env_name(name)?;
        out.push(Part::Var(name));
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        out.push(Part::Literal(rest));
    }
    Ok(out)
}

/// Prefixes of well-known credentials (GitHub, Slack, OpenAI and Anthropic, AWS, GitLab,
/// Google, Stripe, npm, JWTs).
const CREDENTIAL_PREFIXES: &[&str] = &[
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
    "xoxa-",
    "xapp-",
    "sk-",
    "sk_live_",
    "rk_live_",
    "AKIA",
    "ASIA",
    "glpat-",
    "AIza",
    "ya29.",
    "npm_",
    "eyJ",
];

/// Words that name a secret in a header or variable name.
const SECRET_NAMES: &[&str] = &[
    "authorization",
    "token",
    "secret",
    "password",
    "passwd",
    "api-key",
    "api_key",
    "apikey",
    "x-api-key",
    "cookie",
    "credential",
    "private",
    "auth",
    "dsn",
    "pwd",
    "passphrase",
    "session",
    "_key",
    "-key",
];

/// Authentication schemes: a literal word after one is a credential (`Basic dXNl…`).
const SCHEMES: &[&str] = &["basic", "bearer", "digest", "negotiate"];

/// Whether a name (a header or variable) says its value is a secret.
pub fn names_a_secret(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    SECRET_NAMES.iter().any(|s| n.contains(s))
}

/// Whether literal text looks like a credential: a well-known prefix, or a long run of
/// mixed letters and digits (what keys and tokens look like, and words do not).
pub fn looks_like_credential(literal: &str) -> bool {
    let words: Vec<&str> = literal.split_whitespace().collect();
    // An authentication scheme with a literal after it ("Bearer abc…", "Basic dXNl…").
    let scheme_then_word = words.windows(2).any(|pair| {
        let scheme = pair[0].trim_matches(|c: char| c == '"' || c == '\'');
        // A reference after the scheme, as harnesses spell them (`${X}`, `{env:X}`), is the
        // right way.
        let reference = pair[1].starts_with(['$', '{']);
        SCHEMES.iter().any(|s| scheme.eq_ignore_ascii_case(s)) && !reference
    });
    scheme_then_word
        || words.iter().any(|w| url_with_password(w))
        || words.into_iter().any(|w| {
            let w = w.trim_matches(|c: char| c == '"' || c == '\'' || c == ',' || c == ';');
            CREDENTIAL_PREFIXES
                .iter()
                .any(|p| w.starts_with(p) && w.len() >= p.len() + 8)
                || random_looking(w)
        })
}

/// A URL carrying a password in its authority (`postgres://svc:Winter2024!@db/prod`).
fn url_with_password(w: &str) -> bool {
    w.match_indices("://").any(|(at, _)| {
        let rest = &w[at + 3..];
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority
            .rsplit_once('@')
            .and_then(|(userinfo, _)| userinfo.split_once(':'))
            .is_some_and(|(_, password)| !password.is_empty())
    })
}

fn random_looking(w: &str) -> bool {
    if w.len() < 20 {
        return false;
    }
    let (mut upper, mut lower, mut digit) = (false, false, false);
    for b in w.bytes() {
        match b {
            b'A'..=b'Z' => upper = true,
            b'a'..=b'z' => lower = true,
            b'0'..=b'9' => digit = true,
            // Punctuation does not make a key less of a key (`…Jd!`), but a space ends a word.
            b if b.is_ascii_whitespace() => return false,
            _ => {}
        }
    }
    // A URL or a path is not a credential by its length alone.
    if w.contains("://") || w.starts_with('/') {
        return false;
    }
    digit && (upper || lower) && distinct(w) >= 12
}

fn distinct(w: &str) -> usize {
    let mut seen = [false; 256];
    w.bytes()
        .filter(|b| !std::mem::replace(&mut seen[*b as usize], true))
        .count()
}

/// Checks a header or environment value.
///
/// `${VAR}` references are the way to pass a secret; literal text must not look like a
/// credential, and a value whose name says it is a secret must reference a variable.
///
/// # Errors
/// The message for the user.
pub fn check_value(name: &str, value: &str) -> Result<(), String> {
    let parts = parts(value)?;
    let literal: String = parts
        .iter()
        .filter_map(|p| match p {
            Part::Literal(s) => Some(*s),
            Part::Var(_) => None,
        })
        .collect::<Vec<_>>()
        .join(" ");
    if looks_like_credential(&literal) {
        return Err(
            "This looks like a credential written into the value: it would reach every laptop that gets the server. Reference the user's own with ${NAME} (for example Bearer ${MY_TOKEN})."
                .into(),
        );
    }
    // A value named a secret is a reference, after at most an authentication scheme:
    // `${TOKEN}`, `Bearer ${TOKEN}`. Nothing fixed may ride along (`${UNSET}Basic dXNl…`).
    if names_a_secret(name) {
        let shaped = match parts.as_slice() {
            [] | [Part::Var(_)] => true,
            [Part::Literal(scheme), Part::Var(_)] => {
                let word = scheme.trim_end();
                scheme.ends_with(' ')
                    && !word.is_empty()
                    && word.len() <= 20
                    && word.bytes().all(|b| b.is_ascii_alphabetic())
            }
            _ => false,
        };
        if !shaped {
            return Err(format!(
                "{name} carries a secret: its value is the user's own ${{NAME}}, after at most a scheme (Bearer ${{MY_TOKEN}}), with nothing fixed beside it."
            ));
        }
    }
    Ok(())
}

/// Checks a command's arguments.
///
/// None looks like a credential, and none follows (or is joined to) a flag that names a
/// secret unless it is a `${VAR}` reference (`--token ${MY_TOKEN}`, never `--token hunter2` or
/// `--password=…`). The index of the first bad argument and why.
///
/// # Errors
/// The argument's index and the message for the user.
pub fn check_args(args: &[String]) -> Result<(), (usize, String)> {
    let flag_names_secret =
        |a: &str| a.starts_with('-') && names_a_secret(a.trim_start_matches('-'));
    for (i, a) in args.iter().enumerate() {
        check_value("argument", a).map_err(|m| (i, m))?;
        let (flag, joined) = match a.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v)),
            _ => (a.as_str(), None),
        };
        if !flag_names_secret(flag) {
            continue;
        }
        let value = match joined {
            Some(v) => Some((i, v)),
            None => args.get(i + 1).map(|v| (i + 1, v.as_str())),
        };
        if let Some((at, v)) = value
            && !v.starts_with('-')
        {
            check_value(flag.trim_start_matches('-'), v).map_err(|m| (at, m))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_with_literals_and_passwords_in_urls_are_credentials() {
        for bad in [
            "Basic dXNlcjpwYXNz",
            "bearer hunter2",
            "postgres://svc:Winter2024!@db.internal/prod",
            "--dsn=mysql://root:pw@10.0.0.1:3306/app",
        ] {
            assert!(looks_like_credential(bad), "{bad}");
        }
        for fine in [
            "Bearer ",
            "https://user@example.com/path",
            "postgres://svc:@db.internal/prod",
            "https://example.com/a:b@c",
            "a token-based cache",
        ] {
            assert!(!looks_like_credential(fine), "{fine}");
        }
        // The password as a reference is the way to do it.
        assert_eq!(
            check_value("DATABASE_URL", "postgres://svc:${DB_PASSWORD}@db/prod"),
            Ok(())
        );
        assert!(check_value("X-Team", "Basic dXNlcjpwYXNz").is_err());
        assert!(check_value("X-Auth", "hunter2pass").is_err());
        assert!(check_value("DB_DSN", "host=db user=svc").is_err());
        assert!(check_value("AWS_SECRET_ACCESS_KEY", "${AWS_SECRET_ACCESS_KEY}").is_ok());
    }

    #[test]
    fn arguments_after_secret_flags_are_references() {
        let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            check_args(&args(&["--stdio", "--token", "${MY_TOKEN}"])),
            Ok(())
        );
        assert_eq!(check_args(&args(&["--port", "8080", "--verbose"])), Ok(()));
        assert_eq!(
            check_args(&args(&["--token", "hunter2hunter2"])).map_err(|e| e.0),
            Err(1)
        );
        assert_eq!(
            check_args(&args(&["--password=CorrectHorseBatteryStaple"])).map_err(|e| e.0),
            Err(0)
        );
        assert!(check_args(&args(&["--api-key", "${KEY}", "--secret=${S}"])).is_ok());
    }

    #[test]
    fn references_are_parsed_and_bad_ones_named() {
        assert_eq!(
            parts("Bearer ${GITHUB_TOKEN}").expect("parts"),
            [Part::Literal("Bearer "), Part::Var("GITHUB_TOKEN")]
        );
        assert!(parts("${UNCLOSED").is_err());
        assert!(parts("${not-a-name}").is_err());
        assert_eq!(parts("").expect("empty"), []);
    }

    #[test]
    fn credentials_are_refused_and_references_accepted() {
        for ok in [
            ("Authorization", "Bearer ${GITHUB_TOKEN}"),
            ("X-Api-Key", "${ACME_KEY}"),
            ("x-read-only", "true"),
            ("X-Tenant", "acme-payments"),
            ("LOG_LEVEL", "debug"),
            (
                "BASE_URL",
                "https://api.example.com/v1/some/long/path/segment",
            ),
            ("KUBECONFIG", "/home/user/.kube/config"),
        ] {
            assert_eq!(check_value(ok.0, ok.1), Ok(()), "{ok:?}");
        }
        for bad in [
            (
                "Authorization",
                "Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            ),
            ("X-Custom", "sk-proj-abcdefgh12345678"),
            ("X-Custom", "AKIAIOSFODNN7EXAMPLE"),
            ("X-Custom", "q8Zt3LmW9vXr2Kp7Nc4Hs6Jd"),
            ("Authorization", "Basic dXNlcjpwYXNz"),
            ("API_TOKEN", "hunter2"),
            ("Cookie", "session=abc"),
            ("Authorization", "${UNSET}Basic dXNlcjpwYXNz"),
            ("API_TOKEN", "${HOME}hunter2"),
            ("X-Key", "q8Zt3LmW9vXr2Kp7Nc4Hs6Jd!"),
            ("X-Custom", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig"),
        ] {
            assert!(check_value(bad.0, bad.1).is_err(), "{bad:?}");
        }
    }
}
