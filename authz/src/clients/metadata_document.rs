//! Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a `client_id`
//! that is an https URL with a path names a JSON document the client publishes there. It is
//! fetched with the SSRF-safe fetcher (https only, public addresses only, checked at connect
//! time, no redirects, 5 s, small bodies), cached within bounds honouring `Cache-Control`, and
//! must name itself (`client_id` equal to the URL). The realm decides whom to trust: any https
//! host, listed domains only, or every new one after review.
use super::metadata::{ClientMetadata, ValidClient};
use super::model::{
    AuthMethod, Client, ClientId, ClientRowId, Registration, RegistrationKind, ReviewState,
};
use crate::audit::{RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::fetch::{FetchError, Lookup, parse_fetch_url};
use crate::realms::{MetadataDocumentPolicy, Realm};

/// Largest metadata document accepted, as JSON.
pub const MAX_METADATA_DOCUMENT_BYTES: usize = 5 * 1024;

fn refused(msg: impl Into<std::borrow::Cow<'static, str>>) -> Error {
    Error::oauth(OAuthErrorCode::InvalidClient, msg)
}

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
fn host_listed(host: &str, domains: &[String]) -> bool {
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
    rules: super::metadata::MetadataRules,
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

impl Core {
    /// The client a metadata-document `client_id` names, fetched (or from the cache) and kept
    /// in step with its document: registered on first sight (pending review when the realm
    /// reviews new clients), updated when the document changes.
    ///
    /// # Errors
    /// `OAuth(invalid_client)` with a message for the error page, when the realm does not
    /// accept documents or trust the host, or the document cannot be fetched or is invalid.
    pub(crate) async fn metadata_document_client(
        &self,
        realm: &Realm,
        client_id: &str,
        meta: &RequestMeta,
    ) -> Result<Client> {
        let policy = realm.metadata_document_policy;
        if policy == MetadataDocumentPolicy::Disabled {
            return Err(refused(
                "This realm does not accept applications identified by a URL (Client ID Metadata Documents). Ask an administrator to register the application.",
            ));
        }
        let url = parse_fetch_url(client_id, self.config().allow_loopback_fetch).map_err(|e| {
            refused(format!(
                "The application's client_id URL is not allowed: {e}"
            ))
        })?;
        if policy == MetadataDocumentPolicy::AllowList
            && !host_listed(
                url.host_str().unwrap_or_default(),
                &realm.metadata_document_domains,
            )
        {
            return Err(refused(
                "This realm accepts applications identified by a URL only from listed domains, and this one is not listed.",
            ));
        }
        let id = ClientId::parse(client_id).map_err(refused)?;
        let existing = self.store.find_client(&realm.id, &id).await?;
        if existing.is_none() {
            // A URL never seen is a registration: the same per-source budget and realm limit,
            // checked before anything is fetched.
            self.client_throttle
                .registration(crate::throttle::Source::of(meta.client_ip), self.now())
                .map_err(|retry_after_secs| Error::Throttled { retry_after_secs })?;
            let held = self.store.count_registered_clients(&realm.id).await?;
            if i64::try_from(held).unwrap_or(i64::MAX) >= realm.max_dynamic_clients {
                return Err(refused(
                    "This realm holds the most self-registered applications it allows; ask an administrator.",
                ));
            }
        }
        let doc = self.metadata_document(client_id, &url).await?;
        let valid =
            check_metadata_document(client_id, &doc, self.metadata_rules()).map_err(refused)?;
        let now = self.now();
        let Some(existing) = existing else {
            let client = Client {
                id: ClientRowId::generate(),
                realm_id: realm.id.clone(),
                client_id: id,
                name: valid.name,
                auth_method: valid.auth_method,
                grant_types: valid.grant_types,
                scope: valid.scope,
                metadata: valid.metadata,
                agent: None,
                resource_server_for: None,
                enabled: true,
                registration: Registration {
                    kind: RegistrationKind::MetadataDocument,
                    review: if policy == MetadataDocumentPolicy::Review {
                        ReviewState::Pending
                    } else {
                        ReviewState::Approved
                    },
                    source_ip: meta.client_ip.map(|ip| ip.to_string()),
                    reviewed_by: None,
                    review_reason: None,
                    reviewed_at: None,
                },
                created_at: now,
                updated_at: now,
            };
            let mut event = self.event(
                &realm.id,
                "metadata document",
                action::CLIENT_REGISTER,
                format!("client:{}", client.client_id),
                meta,
            );
            event.details = serde_json::json!({
                "client_name": client.name,
                "redirect_uris": client.metadata.redirect_uris,
                "review": client.registration.review.as_str(),
                "host": url.host_str(),
            });
            match self.store.insert_client(&client, None, &event).await {
                Ok(()) => return Ok(client),
                // Registered by a concurrent request a moment ago: use that row.
                Err(crate::error::StorageError::Conflict(_)) => {
                    return self
                        .store
                        .find_client(&realm.id, &client.client_id)
                        .await?
                        .ok_or_else(|| refused("The application could not be registered."));
                }
                Err(e) => return Err(e.into()),
            }
        };
        if existing.registration.kind != RegistrationKind::MetadataDocument {
            return Ok(existing);
        }
        let changed = existing.name != valid.name
            || existing.scope != valid.scope
            || existing.metadata != valid.metadata;
        if !changed {
            return Ok(existing);
        }
        let updated = Client {
            name: valid.name,
            scope: valid.scope,
            metadata: valid.metadata,
            updated_at: now,
            ..existing.clone()
        };
        let mut event = self.event(
            &realm.id,
            "metadata document",
            action::CLIENT_REGISTRATION_UPDATE,
            format!("client:{}", updated.client_id),
            meta,
        );
        event.details = serde_json::json!({
            "redirect_uris": {"from": existing.metadata.redirect_uris, "to": updated.metadata.redirect_uris},
            "client_name": {"from": existing.name, "to": updated.name},
        });
        let back_to_review = policy == MetadataDocumentPolicy::Review
            && existing.registration.review == ReviewState::Approved;
        self.store
            .update_self_registration(&updated, back_to_review, &event)
            .await?;
        let mut out = updated;
        if back_to_review {
            out.registration.review = ReviewState::Pending;
            out.registration.reviewed_by = None;
        }
        Ok(out)
    }

    /// The document at `url`: from the cache while fresh (its `Cache-Control`, within bounds),
    /// else fetched; a failed fetch falls back to a recent copy. One fetch per URL a minute at
    /// most, whoever asks.
    async fn metadata_document(
        &self,
        client_id: &str,
        url: &url::Url,
    ) -> Result<serde_json::Value> {
        let key = format!("cimd:{client_id}");
        let now = self.now();
        let stale = match self.documents.lookup(&key, now, |_| false) {
            Lookup::Fresh(doc) => return Ok(doc),
            Lookup::Wait(Some(doc)) => return Ok(doc),
            Lookup::Wait(None) => {
                return Err(refused(
                    "The application's metadata document could not be fetched just now. Try again in a minute.",
                ));
            }
            Lookup::Refetch(stale) => stale,
        };
        let fetched = self.fetcher.fetch_json(url).await;
        self.documents.record(&key, now, fetched.as_ref());
        match (fetched, stale) {
            (Ok(f), _) => Ok(f.body),
            (Err(_), Some(doc)) => Ok(doc),
            // Why is logged, not shown: the page must not tell a caller which hosts answer.
            (Err(e), None) => {
                let shown: String = client_id.chars().take(200).collect();
                tracing::info!(url = %shown, error = %e, "Metadata document not fetched");
                Err(refused(match e {
                    FetchError::Refused(_) => {
                        "The application's metadata document may not be fetched from that address."
                    }
                    FetchError::Failed(_) => {
                        "The application's metadata document could not be fetched."
                    }
                }))
            }
        }
    }
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

    fn rules() -> super::super::metadata::MetadataRules {
        super::super::metadata::MetadataRules::default()
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
