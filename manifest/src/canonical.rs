//! The canonical form a release is hashed and signed in (RFC 8785).
//!
//! JSON Canonicalization Scheme: the server and every laptop compute the same bytes from the
//! same content, whatever order or spacing a document was written or stored with.
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The RFC 8785 canonical JSON of `value`.
///
/// # Errors
/// When `value` cannot be represented as JSON (a map with non-string keys, a float that is
/// not finite).
pub fn to_canonical<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    serde_json_canonicalizer::to_vec(value).map_err(|e| e.to_string())
}

/// A release id: the SHA-256 of the canonical bytes, lowercase hex.
pub fn release_id(canonical: &[u8]) -> String {
    hex::encode(Sha256::digest(canonical))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_8785_examples() {
        // RFC 8785 §3.2.2 (property order by UTF-16 code units, numbers as ECMAScript prints
        // them, minimal string escapes).
        let input: serde_json::Value = serde_json::from_str(
            r#"{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
                "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
                "literals": [null, true, false]}"#,
        )
        .expect("json");
        assert_eq!(
            String::from_utf8(to_canonical(&input).expect("canonical")).expect("utf-8"),
            r#"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}"#
        );
        // §3.2.3: sorting by UTF-16 code units, not by code points.
        let sorting: serde_json::Value = serde_json::from_str(
            r#"{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control", "\u00f6": "Latin Small Letter O With Diaeresis"}"#,
        )
        .expect("json");
        // The order of the keys in the bytes.
        let bytes = String::from_utf8(to_canonical(&sorting).expect("canonical")).expect("utf-8");
        let order = [
            "\\r",
            "1",
            "\u{80}",
            "\u{f6}",
            "\u{20ac}",
            "\u{1f600}",
            "\u{fb33}",
        ];
        let at: Vec<usize> = order
            .iter()
            .map(|k| bytes.find(&format!("\"{k}\"")).expect(k))
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{bytes}");
    }

    #[test]
    fn the_id_is_the_content() {
        let a: serde_json::Value = serde_json::from_str(r#"{"b": 1, "a": [1, 2]}"#).expect("json");
        let b: serde_json::Value =
            serde_json::from_str("{\n  \"a\": [1,2],\n  \"b\": 1.0\n}").expect("json");
        let (ca, cb) = (
            to_canonical(&a).expect("canonical"),
            to_canonical(&b).expect("canonical"),
        );
        assert_eq!(ca, cb);
        assert_eq!(release_id(&ca), release_id(&cb));
        assert_eq!(release_id(&ca).len(), 64);
        let c: serde_json::Value = serde_json::from_str(r#"{"b": 2, "a": [1, 2]}"#).expect("json");
        assert_ne!(release_id(&to_canonical(&c).expect("c")), release_id(&ca));
    }
}
