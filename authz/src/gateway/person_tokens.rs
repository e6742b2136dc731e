//! The tokens of people's own upstream accounts (`auth.mode = oauth`): sealed at rest for
//! exactly one realm, person and server; handed to the gateway for that person's calls only,
//! refreshed when they run out (one refresh at a time per person and server), forgotten when
//! the server refuses to refresh them or the registry sends the server elsewhere.
use super::model::{GatewayCaller, UpstreamConnection};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result, StorageError};
use oauth2::basic::{BasicClient, BasicErrorResponseType};
use oauth2::{
    AccessToken, ClientId, ClientSecret, RefreshToken, RequestTokenError, RevocationUrl,
    StandardRevocableToken, TokenResponse, TokenUrl,
};
use portcullis_manifest::{Auth, Server, Transport};
use serde::{Deserialize, Serialize};

/// An access token is refreshed this long before it expires.
const REFRESH_MARGIN_SECS: i64 = 60;
/// The lifetime assumed for an access token whose response gives none.
const DEFAULT_LIFETIME_SECS: i64 = 3600;
/// What the key sealing stored tokens is derived with.
const TOKENS_KEY: &str = "portcullis gateway upstream tokens";

/// What the sealed column holds.
#[derive(Serialize, Deserialize)]
pub(super) struct Held {
    pub(super) access_token: String,
    pub(super) refresh_token: Option<String>,
    pub(super) token_endpoint: String,
    pub(super) client_id: String,
    pub(super) resource: String,
    /// The authorization server takes a client secret in the request body (else in the
    /// Authorization header), when the gateway holds one for it.
    #[serde(default)]
    pub(super) secret_in_body: bool,
    /// Where the authorization server revokes tokens (RFC 7009), when its metadata says.
    #[serde(default)]
    pub(super) revocation_endpoint: Option<String>,
}

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held")
            .field("client_id", &self.client_id)
            .field("resource", &self.resource)
            .finish_non_exhaustive()
    }
}

impl Core {
    /// The calling person's access token at `server` (`auth.mode = oauth`), refreshed when it
    /// is about to expire, with its expiry; `None` when they have not connected, or their
    /// connection ended: the server refused to refresh it, or the registry now sends this
    /// server id elsewhere (another URL, authorization server or client id: the tokens were
    /// given for the old one and never go to the new).
    ///
    /// # Errors
    /// `Forbidden` for a caller acting for no person; `Internal` when the server could not be
    /// reached to refresh; storage failure.
    pub async fn gateway_person_token(
        &self,
        caller: &GatewayCaller,
        server: &Server,
    ) -> Result<Option<(String, i64)>> {
        let Some(subject) = caller.person() else {
            return Err(Error::Forbidden);
        };
        let realm = &caller.realm;
        // One refresh at a time per person and server on this instance: servers that rotate
        // refresh tokens take a second use of one as theft.
        let lock = self.gateway_refresh_lock(&realm.id, subject, &server.id);
        let _held = lock.lock().await;
        let Some(row) = self
            .store
            .find_gateway_connection(&realm.id, subject, &server.id)
            .await?
        else {
            return Ok(None);
        };
        let Some(held) = self.open_tokens(&row) else {
            return Ok(None);
        };
        let (Transport::Remote { url, .. }, Auth::OAuth { issuer, .. }) =
            (&server.transport, &server.auth)
        else {
            return Ok(None);
        };
        let same_server = held.resource == *url
            && Some(&held.client_id) == self.gateway_client_id(realm, server).as_ref()
            && issuer.as_ref().is_none_or(|i| *i == row.issuer);
        if !same_server {
            // The tokens go back to the authorization server that gave them (never to the
            // server the registry names now).
            let revoked = self.revoke_upstream(&row, &held).await;
            self.end_gateway_connection(
                &row,
                "the registry now sends this server elsewhere",
                Some(revoked),
            )
            .await?;
            return Ok(None);
        }
        let now = self.now();
        // Refreshed a minute before it expires, or halfway through a shorter life.
        let margin = REFRESH_MARGIN_SECS.min((row.access_expires_at - row.refreshed_at) / 2);
        if row.access_expires_at - margin > now {
            return Ok(Some((held.access_token, row.access_expires_at)));
        }
        let Some(refresh) = held.refresh_token.clone() else {
            return Ok(None);
        };
        let secret = self
            .gateway_client_secret(&realm.id, server, &held.client_id, &row.issuer)
            .await?;
        let mut client = BasicClient::new(ClientId::new(held.client_id.clone())).set_token_uri(
            TokenUrl::new(held.token_endpoint.clone())
                .map_err(|e| Error::Internal(e.to_string()))?,
        );
        if let Some(secret) = secret {
            client = client
                .set_client_secret(ClientSecret::new(secret))
                .set_auth_type(super::client_secrets::secret_auth_type(held.secret_in_body));
        }
        let http = crate::sso::rp::http(self.fetcher.clone());
        let answer = match client
            .exchange_refresh_token(&RefreshToken::new(refresh))
            .add_extra_param("resource", &held.resource)
            .request_async(&http)
            .await
        {
            Ok(a) => a,
            Err(RequestTokenError::ServerResponse(e))
                if *e.error() == BasicErrorResponseType::InvalidGrant =>
            {
                // The person's grant is gone at the server: so is the connection.
                self.end_gateway_connection(&row, "the server refused to refresh the tokens", None)
                    .await?;
                return Ok(None);
            }
            Err(e) => {
                tracing::warn!(server = %server.id, error = %describe(&e), "gateway: refreshing a person's upstream token failed");
                return Err(Error::Internal(
                    "refreshing the upstream token failed".into(),
                ));
            }
        };
        let renewed = Held {
            access_token: answer.access_token().secret().clone(),
            // A server that does not rotate refresh tokens keeps the one it gave.
            refresh_token: answer
                .refresh_token()
                .map(|r| r.secret().clone())
                .or(held.refresh_token),
            ..held
        };
        let updated = UpstreamConnection {
            sealed_tokens: self.seal_tokens(&realm.id, subject, &server.id, &renewed)?,
            access_expires_at: now + lifetime(answer.expires_in()),
            scope: answer.scopes().map_or_else(
                || row.scope.clone(),
                |s| s.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "),
            ),
            refreshed_at: now,
            ..row.clone()
        };
        // Another instance may have refreshed first (the server then rotated the refresh
        // token this one used): its tokens win, and this answer is only used for this call.
        self.store
            .refresh_gateway_connection(&updated, &row.sealed_tokens)
            .await?;
        Ok(Some((renewed.access_token, updated.access_expires_at)))
    }

    /// The server refused the calling person's access token at `server_id` (revoked there):
    /// it counts as expired, so the next call refreshes it (and a refused refresh ends the
    /// connection).
    ///
    /// # Errors
    /// Storage failure.
    pub async fn expire_gateway_person_token(
        &self,
        caller: &GatewayCaller,
        server_id: &str,
    ) -> Result<()> {
        let Some(subject) = caller.person() else {
            return Ok(());
        };
        let Some(row) = self
            .store
            .find_gateway_connection(&caller.realm.id, subject, server_id)
            .await?
        else {
            return Ok(());
        };
        let expired = UpstreamConnection {
            access_expires_at: row.access_expires_at.min(self.now()),
            ..row.clone()
        };
        self.store
            .refresh_gateway_connection(&expired, &row.sealed_tokens)
            .await?;
        Ok(())
    }

    /// Forgets `row`'s tokens (only those: a connection made again meanwhile stays), audited.
    async fn end_gateway_connection(
        &self,
        row: &UpstreamConnection,
        reason: &str,
        revoked: Option<&str>,
    ) -> Result<()> {
        let mut event = self.event(
            &row.realm_id,
            &row.subject,
            action::GATEWAY_DISCONNECT,
            AuditSubject::RegistryServer(row.server_id.clone()),
            &RequestMeta::default(),
        );
        event.details = serde_json::json!({ "reason": reason, "upstream_revocation": revoked });
        match self
            .store
            .delete_gateway_connection(
                &row.realm_id,
                &row.subject,
                &row.server_id,
                Some(&row.sealed_tokens),
                &event,
            )
            .await
        {
            Ok(()) | Err(StorageError::NotFound) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Asks the authorization server that gave a connection's tokens to revoke them (RFC 7009)
    /// before the gateway forgets them: the refresh token (which ends the grant where access
    /// tokens hang on it), else the access token. Best effort, as the audit row records it:
    /// `revoked`, `failed`, `not_https` (RFC 7009 revokes over https only), `shared_grant`,
    /// or `unsupported` (no revocation endpoint in the server's metadata, or tokens that no
    /// longer open).
    pub(super) async fn revoke_connection(&self, row: &UpstreamConnection) -> &'static str {
        match self.open_tokens(row) {
            Some(held) => self.revoke_upstream(row, &held).await,
            None => "unsupported",
        }
    }

    /// [`Core::revoke_connection`] with the tokens opened; `shared_grant` (nothing sent) when
    /// another of the person's connections holds tokens of the same client at the same
    /// authorization server (revoking one grant there can end them all).
    async fn revoke_upstream(&self, row: &UpstreamConnection, held: &Held) -> &'static str {
        let others = self
            .store
            .list_gateway_connections(&row.realm_id, &row.subject)
            .await
            .unwrap_or_default();
        let shared = others.iter().any(|other| {
            other.server_id != row.server_id
                && other.issuer == row.issuer
                && self
                    .open_tokens(other)
                    .is_some_and(|h| h.client_id == held.client_id)
        });
        if shared {
            return "shared_grant";
        }
        let Some(endpoint) = held
            .revocation_endpoint
            .as_ref()
            .and_then(|e| RevocationUrl::new(e.clone()).ok())
        else {
            return "unsupported";
        };
        let secret = self
            .held_client_secret(
                &row.realm_id,
                &row.server_id,
                (&held.client_id, &row.issuer, &held.resource),
            )
            .await
            .unwrap_or_default();
        let mut client =
            BasicClient::new(ClientId::new(held.client_id.clone())).set_revocation_url(endpoint);
        if let Some(secret) = secret {
            client = client
                .set_client_secret(ClientSecret::new(secret))
                .set_auth_type(super::client_secrets::secret_auth_type(held.secret_in_body));
        }
        let token = match &held.refresh_token {
            Some(r) => StandardRevocableToken::RefreshToken(RefreshToken::new(r.clone())),
            None => {
                StandardRevocableToken::AccessToken(AccessToken::new(held.access_token.clone()))
            }
        };
        let http = crate::sso::rp::http(self.fetcher.clone());
        let outcome = match client.revoke_token(token) {
            Ok(request) => request.request_async(&http).await.map_err(|e| describe(&e)),
            // RFC 7009: only to an https endpoint (an authorization server on loopback, in
            // development, keeps its tokens).
            Err(oauth2::ConfigurationError::InsecureUrl(_)) => return "not_https",
            Err(e) => Err(e.to_string()),
        };
        match outcome {
            Ok(()) => "revoked",
            Err(why) => {
                tracing::warn!(server = %row.server_id, error = %why, "gateway: revoking a person's upstream tokens failed");
                "failed"
            }
        }
    }

    /// The lock refreshes of one person's tokens at one server take (striped: a fixed number
    /// of locks, whatever the number of people).
    fn gateway_refresh_lock(
        &self,
        realm: &crate::ids::RealmId,
        subject: &str,
        server_id: &str,
    ) -> std::sync::Arc<tokio::sync::Mutex<()>> {
        use std::hash::{Hash as _, Hasher as _};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (realm.as_str(), subject, server_id).hash(&mut h);
        let stripes = &self.gateway_refresh_locks;
        let i = usize::try_from(h.finish() % stripes.len() as u64).unwrap_or_default();
        stripes[i].clone()
    }

    /// When the calling person connected their own account at `server_id` (the connection's
    /// version: connecting again makes a new one), if they have. Read through the core's
    /// cache: the gateway asks on every call, so that a disconnected or replaced account stops
    /// being used at once, whatever connection the gateway still holds.
    ///
    /// # Errors
    /// Storage failure.
    pub async fn gateway_person_connection(
        &self,
        caller: &GatewayCaller,
        server_id: &str,
    ) -> Result<Option<i64>> {
        let Some(subject) = caller.person() else {
            return Ok(None);
        };
        let key = (caller.realm.id.clone(), subject.to_owned());
        let (generation, now) = (self.store.generation(), self.now());
        let servers = match self.cache.connected_servers.get(&key, generation, now) {
            Some(s) => s,
            None => {
                let servers: crate::cache::ConnectedServers = std::sync::Arc::new(
                    self.store
                        .list_gateway_connections(&caller.realm.id, subject)
                        .await?
                        .into_iter()
                        .map(|c| (c.server_id, c.connected_at))
                        .collect(),
                );
                self.cache
                    .connected_servers
                    .put(key, servers.clone(), generation, now);
                servers
            }
        };
        Ok(servers
            .iter()
            .find(|(s, _)| s == server_id)
            .map(|(_, at)| *at))
    }

    fn tokens_aad(realm: &crate::ids::RealmId, subject: &str, server_id: &str) -> Vec<u8> {
        [realm.as_str(), subject, server_id]
            .join("\u{1f}")
            .into_bytes()
    }

    pub(super) fn seal_tokens(
        &self,
        realm: &crate::ids::RealmId,
        subject: &str,
        server_id: &str,
        held: &Held,
    ) -> Result<Vec<u8>> {
        let json = serde_json::to_vec(held).map_err(|e| Error::Internal(e.to_string()))?;
        self.config()
            .master_key
            .derive(TOKENS_KEY)
            .seal(&json, &Self::tokens_aad(realm, subject, server_id))
            .map_err(Error::Internal)
    }

    /// The tokens of `row`, only for exactly its realm, person and server.
    fn open_tokens(&self, row: &UpstreamConnection) -> Option<Held> {
        let json = self
            .config()
            .master_key
            .derive(TOKENS_KEY)
            .open(
                &row.sealed_tokens,
                &Self::tokens_aad(&row.realm_id, &row.subject, &row.server_id),
            )
            .ok()?;
        serde_json::from_slice(&json).ok()
    }
}

/// An access token's lifetime: what the answer says, within a minute and a day.
pub(super) fn lifetime(expires_in: Option<std::time::Duration>) -> i64 {
    expires_in
        .and_then(|d| i64::try_from(d.as_secs()).ok())
        .unwrap_or(DEFAULT_LIFETIME_SECS)
        .clamp(60, 86_400)
}

/// A failed token request in words (the server's error code, never its token).
pub(super) fn describe<E: std::error::Error>(e: &E) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out.chars().take(300).collect()
}

#[cfg(test)]
mod tests {
    use super::super::client_secrets::secret_aad;
    use super::super::model::UpstreamClientSecret;
    use super::*;
    use crate::core::CoreConfig;
    use crate::fetch::{FetchError, Fetched, Fetcher};
    use crate::storage::Database;
    use base64::Engine as _;
    use std::sync::{Arc, Mutex};

    /// Answers every request of the relying party with 200, keeping each.
    #[derive(Debug, Default)]
    struct Recorder(Mutex<Vec<openidconnect::HttpRequest>>);

    #[async_trait::async_trait]
    impl Fetcher for Recorder {
        async fn fetch_json(&self, _url: &url::Url) -> std::result::Result<Fetched, FetchError> {
            Err(FetchError::Refused("no documents here".into()))
        }

        async fn idp_request(
            &self,
            request: openidconnect::HttpRequest,
        ) -> std::result::Result<openidconnect::HttpResponse, FetchError> {
            self.0.lock().expect("requests").push(request);
            Ok(oauth2::http::Response::builder()
                .status(200)
                .body(Vec::new())
                .expect("a response"))
        }
    }

    fn form(request: &openidconnect::HttpRequest) -> Vec<(String, String)> {
        url::form_urlencoded::parse(request.body())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    }

    /// A disconnect hands the refresh token back to the authorization server that gave it (RFC
    /// 7009) as the gateway's client there: the client id in the body for a public client,
    /// HTTP Basic with the secret when one is held for that very client and server; never to
    /// a plain-http endpoint, and nothing without an endpoint.
    #[tokio::test]
    async fn revocation_goes_to_the_servers_endpoint_as_its_client() {
        let dir = tempfile::tempdir().expect("tempdir");
        let url = format!("sqlite://{}", dir.path().join("gw.db").display());
        let db = Database::connect(&url, 4).await.expect("connect sqlite");
        db.migrate().await.expect("migrate");
        let recorder = Arc::new(Recorder::default());
        let core = Core::new(db.store(), CoreConfig::default()).with_fetcher(recorder.clone());
        core.ensure_default_realm().await.expect("default realm");
        let realm = core.find_realm("default").await.expect("realm");
        let held = |endpoint: Option<&str>| Held {
            access_token: "at-1".into(),
            refresh_token: Some("rt-1".into()),
            token_endpoint: "https://as.example/token".into(),
            client_id: "gw client".into(),
            resource: "https://docs.example/mcp".into(),
            secret_in_body: false,
            revocation_endpoint: endpoint.map(str::to_owned),
        };
        let row = |h: &Held| UpstreamConnection {
            realm_id: realm.id.clone(),
            subject: "per_1".into(),
            server_id: "docs".into(),
            issuer: "https://as.example".into(),
            sealed_tokens: core
                .seal_tokens(&realm.id, "per_1", "docs", h)
                .expect("sealed"),
            access_expires_at: 0,
            scope: String::new(),
            connected_at: 0,
            refreshed_at: 0,
        };
        let https = held(Some("https://as.example/revoke"));
        assert_eq!(core.revoke_connection(&row(&https)).await, "revoked");

        // A secret for this client at this authorization server: sent with HTTP Basic.
        let secret = UpstreamClientSecret {
            realm_id: realm.id.clone(),
            server_id: "docs".into(),
            client_id: "gw client".into(),
            issuer: "https://as.example".into(),
            resource: "https://docs.example/mcp".into(),
            sealed_secret: core
                .config()
                .master_key
                .seal(
                    b"s3cret",
                    &secret_aad(
                        &realm.id,
                        "docs",
                        "gw client",
                        "https://as.example",
                        "https://docs.example/mcp",
                    ),
                )
                .expect("sealed"),
            set_by: "admin@example.com".into(),
            set_at: 0,
        };
        let event = core.event(
            &realm.id,
            "admin@example.com",
            action::GATEWAY_CLIENT_SECRET,
            AuditSubject::RegistryServer("docs".into()),
            &RequestMeta::default(),
        );
        core.store
            .save_gateway_client_secret(&secret, &event)
            .await
            .expect("secret");
        assert_eq!(core.revoke_connection(&row(&https)).await, "revoked");

        assert_eq!(
            core.revoke_connection(&row(&held(None))).await,
            "unsupported"
        );
        assert_eq!(
            core.revoke_connection(&row(&held(Some("http://as.example/revoke"))))
                .await,
            "not_https"
        );

        // Another of the person's servers on the same grant (client and authorization
        // server): revoking it would end that one too, so nothing is sent.
        let mut drive = row(&https);
        drive.server_id = "drive".into();
        drive.sealed_tokens = core
            .seal_tokens(&realm.id, "per_1", "drive", &https)
            .expect("sealed");
        let event = core.event(
            &realm.id,
            "per_1",
            action::GATEWAY_CONNECT,
            AuditSubject::RegistryServer("drive".into()),
            &RequestMeta::default(),
        );
        core.store
            .save_gateway_connection(&drive, &event)
            .await
            .expect("drive");
        assert_eq!(core.revoke_connection(&row(&https)).await, "shared_grant");

        let sent = recorder.0.lock().expect("requests");
        assert_eq!(
            sent.len(),
            2,
            "nothing without an https endpoint or on a shared grant"
        );
        for request in sent.iter() {
            assert_eq!(request.method(), "POST");
            assert_eq!(request.uri(), "https://as.example/revoke");
            let body = form(request);
            assert!(body.contains(&("token".into(), "rt-1".into())), "{body:?}");
            assert!(
                body.contains(&("token_type_hint".into(), "refresh_token".into())),
                "{body:?}"
            );
            assert!(!body.iter().any(|(k, _)| k == "client_secret"), "{body:?}");
        }
        assert!(form(&sent[0]).contains(&("client_id".into(), "gw client".into())));
        assert!(sent[0].headers().get("authorization").is_none());
        let basic = sent[1]
            .headers()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Basic "))
            .expect("HTTP Basic");
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(basic)
            .expect("base64");
        assert_eq!(
            decoded, b"gw+client:s3cret",
            "RFC 6749 2.3.1: each part form-encoded"
        );
    }
}
