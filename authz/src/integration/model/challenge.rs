//! The `WWW-Authenticate` challenges: `401` without a token, `403` for too few scopes.

pub(super) fn challenge(
    metadata_url: &str,
    scopes: &[String],
    insufficient: Option<&str>,
) -> String {
    let mut parts = Vec::new();
    if let Some(description) = insufficient {
        parts.push("error=\"insufficient_scope\"".to_owned());
        parts.push(format!("error_description=\"{description}\""));
    }
    parts.push(format!("resource_metadata=\"{metadata_url}\""));
    if !scopes.is_empty() {
        parts.push(format!("scope=\"{}\"", scopes.join(" ")));
    }
    format!("Bearer {}", parts.join(", "))
}
