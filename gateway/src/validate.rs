//! Arguments checked against a tool's pinned input schema before anything is sent upstream.
//!
//! Validators are compiled once per pinned definition (by its SHA-256). `jsonschema` is built
//! without its network and file resolvers: a schema naming an external `$ref` fails to compile
//! and its tool is refused, never fetched. Arguments are bounded in size and depth first.
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// Deepest nesting of arguments accepted.
pub const MAX_DEPTH: usize = 32;
/// Most validators kept compiled.
const MAX_CACHED: usize = 2048;
/// Most errors reported for one call.
const MAX_ERRORS: usize = 5;

/// Compiled validators by definition hash.
#[derive(Default)]
pub struct Schemas {
    compiled: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

impl Schemas {
    /// Checks `arguments` against `schema` (the pinned definition `sha256`'s input schema).
    ///
    /// # Errors
    /// What is wrong, for the caller: each error's location and message (never more than a
    /// few), or that the schema cannot be used.
    pub fn check(
        &self,
        sha256: &str,
        schema: &serde_json::Value,
        arguments: &serde_json::Value,
        max_bytes: usize,
    ) -> Result<(), Vec<String>> {
        let size = serde_json::to_vec(arguments).map_or(usize::MAX, |v| v.len());
        if size > max_bytes {
            return Err(vec![format!(
                "The arguments are {size} bytes as JSON; at most {max_bytes} are accepted."
            )]);
        }
        if depth(arguments) > MAX_DEPTH {
            return Err(vec![format!(
                "The arguments nest deeper than {MAX_DEPTH} levels."
            )]);
        }
        let validator = self.validator(sha256, schema)?;
        let errors: Vec<String> = validator
            .iter_errors(arguments)
            .take(MAX_ERRORS)
            .map(|e| {
                let at = e.instance_path().to_string();
                let at = if at.is_empty() { "/".to_owned() } else { at };
                // The message may quote the value; keep it short.
                let message: String = e.to_string().chars().take(200).collect();
                format!("{at}: {message}")
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    fn validator(
        &self,
        sha256: &str,
        schema: &serde_json::Value,
    ) -> Result<Arc<jsonschema::Validator>, Vec<String>> {
        let mut compiled = self.compiled.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(v) = compiled.get(sha256) {
            return Ok(v.clone());
        }
        let v = Arc::new(jsonschema::validator_for(schema).map_err(|e| {
            vec![format!(
                "The tool's pinned input schema cannot be used ({}); an administrator must fix the server.",
                e.to_string().chars().take(200).collect::<String>()
            )]
        })?);
        if compiled.len() >= MAX_CACHED {
            compiled.clear();
        }
        compiled.insert(sha256.to_owned(), v.clone());
        Ok(v)
    }
}

/// How deeply a value nests (a scalar is 0), without recursion.
fn depth(v: &serde_json::Value) -> usize {
    let mut max = 0;
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        max = max.max(d);
        match v {
            serde_json::Value::Array(a) => stack.extend(a.iter().map(|x| (x, d + 1))),
            serde_json::Value::Object(o) => stack.extend(o.values().map(|x| (x, d + 1))),
            _ => {}
        }
    }
    max
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_are_checked_against_the_schema_size_and_depth() {
        let schemas = Schemas::default();
        let schema = json!({"type": "object", "properties": {"q": {"type": "string", "maxLength": 5}}, "required": ["q"], "additionalProperties": false});
        assert!(
            schemas
                .check("a", &schema, &json!({"q": "hi"}), 1024)
                .is_ok()
        );
        let e = schemas
            .check("a", &schema, &json!({"q": 7}), 1024)
            .unwrap_err();
        assert!(e[0].starts_with("/q:"), "{e:?}");
        assert!(schemas.check("a", &schema, &json!({}), 1024).is_err());
        assert!(
            schemas
                .check("a", &schema, &json!({"q": "hi", "x": 1}), 1024)
                .is_err()
        );
        assert!(
            schemas
                .check("a", &schema, &json!({"q": "toolong"}), 1024)
                .is_err()
        );
        let big = json!({"q": "x".repeat(2000)});
        assert!(schemas.check("a", &schema, &big, 1024).unwrap_err()[0].contains("bytes"));
        let mut deep = json!(1);
        for _ in 0..40 {
            deep = json!([deep]);
        }
        assert!(
            schemas
                .check("a", &schema, &json!({"q": deep}), 1 << 20)
                .unwrap_err()[0]
                .contains("deeper")
        );
    }

    #[test]
    fn an_external_ref_is_refused_never_fetched() {
        let schemas = Schemas::default();
        for r in ["https://example.com/schema.json", "file:///etc/passwd"] {
            let schema = json!({"$ref": r});
            let e = schemas.check(r, &schema, &json!({}), 1024).unwrap_err();
            assert!(e[0].contains("cannot be used"), "{e:?}");
        }
    }
}
