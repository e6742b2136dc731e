//! Client ID Metadata Document rules: which `client_id`s name a document, which hosts a realm
//! trusts, and what a document must say. Pure: fetching and registering are in `ops.rs`.
use crate::clients::metadata::{ClientMetadata, MetadataRules, ValidClient};
use crate::clients::model::AuthMethod;
use crate::error::Error;

/// Largest metadata document accepted, as JSON.
pub const MAX_METADATA_DOCUMENT_BYTES: usize = 5 * 1024;

/// Whether `client_id` is a metadata-document URL: https (or, in development, http on
/// loopback), a host, a path other than `/`, no query, fragment or credentials, written in
/// canonical form.
pub fn is_metadata_document_id(client_id: &str) -> bool {
    let Ok(u) = url::Url::parse(client_id) else {
        return false;
    };
    matches!(u.scheme(), "https" | "http")
        && u.has_host()
        && u.path() != "/"
        && u.query().is_none()
        && u.fragment().is_none()
        && u.username().is_empty()
        && u.password().is_none()
        && u.as_str() == client_id
}

/// Whether `host` is one of `domains` or below one of them.
pub(crate) fn host_listed(host: &str, domains: &[String]) -> bool {
    let host = host.to_ascii_lowercase();
    domains.iter().any(|d| {
        let d = d.trim_start_matches('.').to_ascii_lowercase();
        host == d || host.ends_with(&format!(".{d}"))
    })
}

/// Checks a fetched document: a JSON object of at most [`MAX_METADATA_DOCUMENT_BYTES`] naming
/// itself, for a public (`none`) or `private_key_jwt` client with redirect URIs.
///
/// # Errors
/// A message for the error page.
pub fn check_metadata_document(
    url: &str,
    doc: &serde_json::Value,
    rules: MetadataRules,
) -> std::result::Result<ValidClient, String> {
    if !doc.is_object() {
        return Err("The client's metadata document is not a JSON object.".into());
    }
    if serde_json::to_vec(doc).map_or(usize::MAX, |b| b.len()) > MAX_METADATA_DOCUMENT_BYTES {
        return Err("The client's metadata document is larger than 5 KB.".into());
    }
    if doc["client_id"].as_str() != Some(url) {
        return Err("The client's metadata document does not name itself: its client_id must be exactly its URL.".into());
    }
    if doc.get("client_secret").is_some() || doc.get("client_secret_expires_at").is_some() {
        return Err("A metadata document must not carry a client secret.".into());
    }
    let metadata: ClientMetadata = serde_json::from_value(doc.clone()).map_err(|e| {
        format!(
            "The client's metadata document is malformed: {}",
            e.to_string().chars().take(160).collect::<String>()
        )
    })?;
    if metadata.redirect_uris.is_empty() {
        return Err("The client's metadata document lists no redirect_uris.".into());
    }
    let mut metadata = metadata;
    // RFC 7591's default (client_secret_basic) makes no sense without a secret: a document
    // client is public unless it says private_key_jwt.
    if metadata.token_endpoint_auth_method.is_none() {
        metadata.token_endpoint_auth_method = Some("none".into());
    }
    let valid = metadata.validate(rules).map_err(|e| match e {
        Error::InvalidField { message, .. } => format!("The client's metadata document: {message}"),
        other => other.to_string(),
    })?;
    valid.refuse_admin_only_grants().map_err(|e| match e {
        Error::InvalidField { message, .. } => format!("The client's metadata document: {message}"),
        other => other.to_string(),
    })?;
    if !matches!(
        valid.auth_method,
        AuthMethod::None | AuthMethod::PrivateKeyJwt
    ) {
        return Err(
            "A metadata-document client authenticates with none (PKCE) or private_key_jwt.".into(),
        );
    }
    Ok(valid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_document_ids_are_https_urls_with_a_path() {
        assert!(is_metadata_document_id(
            "https://claude.ai/oauth/mcp-oauth-client-metadata"
        ));
        assert!(is_metadata_document_id(
            "https://vscode.dev/oauth/client-metadata.json"
        ));
        for not in [
            "vscode",
            "https://example.com",
            "https://example.com/",
            "https://example.com/a?x=1",
            "https://example.com/a#f",
            "https://u:p@example.com/a",
            "https://EXAMPLE.com/a",
            "ftp://example.com/a",
        ] {
            assert!(!is_metadata_document_id(not), "{not}");
        }
    }

    #[test]
    fn listed_domains_match_themselves_and_below() {
        let d = vec!["claude.ai".to_owned(), ".vscode.dev".to_owned()];
        assert!(host_listed("claude.ai", &d));
        assert!(host_listed("app.vscode.dev", &d));
        assert!(!host_listed("evilclaude.ai", &d));
        assert!(!host_listed("claude.ai.evil.example", &d));
    }

    fn rules() -> crate::clients::metadata::MetadataRules {
        crate::clients::metadata::MetadataRules::default()
    }

    #[test]
    fn documents_shaped_like_real_clients_pass() {
        // Shaped like Claude Code's, VS Code's and ChatGPT's published documents.
        let claude = "https://claude.ai/oauth/claude-code-client-metadata";
        let doc = serde_json::json!({
            "client_id": claude,
            "client_name": "Claude Code",
            "client_uri": "https://claude.ai",
            "redirect_uris": ["http://localhost/callback", "http://127.0.0.1/callback"],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none"
        });
        let c = check_metadata_document(claude, &doc, rules()).expect("claude");
        assert_eq!(c.auth_method, AuthMethod::None);
        let vscode = "https://vscode.dev/oauth/client-metadata.json";
        let doc = serde_json::json!({
            "client_id": vscode,
            "client_name": "Visual Studio Code",
            "client_uri": "https://code.visualstudio.com",
            "logo_uri": "https://code.visualstudio.com/assets/favicon.ico",
            "redirect_uris": ["https://vscode.dev/redirect", "http://127.0.0.1:33418/", "http://localhost:33418/"],
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none",
            "application_type": "native"
        });
        check_metadata_document(vscode, &doc, rules()).expect("vscode");
        let chatgpt = "https://chatgpt.com/oauth/client-metadata.json";
        let doc = serde_json::json!({
            "client_id": chatgpt,
            "client_name": "ChatGPT",
            "redirect_uris": ["https://chatgpt.com/connector_platform_oauth_redirect"],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "application_type": "web"
        });
        let c = check_metadata_document(chatgpt, &doc, rules()).expect("chatgpt");
        assert_eq!(
            c.auth_method,
            AuthMethod::None,
            "no secret: public unless private_key_jwt"
        );
    }

    #[test]
    fn documents_that_do_not_name_themselves_or_carry_secrets_fail() {
        let url = "https://app.example.com/client.json";
        let base = || serde_json::json!({"client_id": url, "client_name": "A", "redirect_uris": ["https://app.example.com/cb"]});
        assert!(check_metadata_document(url, &base(), rules()).is_ok());
        let mut other = base();
        other["client_id"] = "https://evil.example/client.json".into();
        assert!(check_metadata_document(url, &other, rules()).is_err());
        let mut secret = base();
        secret["client_secret"] = "s".into();
        assert!(check_metadata_document(url, &secret, rules()).is_err());
        let mut basic = base();
        basic["token_endpoint_auth_method"] = "client_secret_basic".into();
        assert!(check_metadata_document(url, &basic, rules()).is_err());
        let mut none = base();
        none["redirect_uris"] = serde_json::json!([]);
        assert!(check_metadata_document(url, &none, rules()).is_err());
        let mut big = base();
        big["client_name"] = "x".repeat(6000).into();
        assert!(check_metadata_document(url, &big, rules()).is_err());
        assert!(check_metadata_document(url, &serde_json::json!([1]), rules()).is_err());
    }
}
