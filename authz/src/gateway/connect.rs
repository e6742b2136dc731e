//! Per-person upstream OAuth (`auth.mode = oauth`): a registry server with its own
//! authorization server gets, for each person, that person's own token — never another's, never
//! the caller's Portcullis token.
//!
//! The person opens the connect link the gateway gave them (signed in at the realm); the
//! gateway, as an OAuth client of the upstream's authorization server (a pre-registered client
//! id, an organisation's Client ID Metadata Document, or the realm's own one that Portcullis
//! serves), runs authorization code with PKCE S256, `state` and `resource` (RFC 8707); the
//! callback redeems the code and keeps the tokens sealed under the master key with the realm,
//! person and server as associated data. Calls use the access token and refresh it when it
//! runs out; a refused refresh disconnects.
use super::client_secrets::secret_auth_type;
use super::model::{
    ConnectBrowser, ConnectConfirm, ConnectStart, Connected, ConnectionView, UpstreamConnection,
};
use super::person_tokens::{Held, describe, lifetime};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::authorize::ticket::browser_hash;
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result, StorageError};
use crate::fetch::parse_fetch_url;
use crate::realms::Realm;
use crate::sso::SsoCallback;
use oauth2::basic::BasicClient;
use oauth2::{
    AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, Scope, TokenResponse, TokenUrl,
};
use portcullis_manifest::{Auth, Server, Transport};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

/// How long a started connection may take to come back.
const CONNECT_TTL_SECS: i64 = 600;
/// The associated data's purpose of a sealed pending connection.
const PENDING: &[u8] = b"gateway connect";

/// A connection under way, sealed into a cookie of the browser that started it.
#[derive(Serialize, Deserialize)]
struct Pending {
    server_id: String,
    subject: String,
    browser: String,
    state: String,
    pkce_verifier: String,
    issuer: String,
    token_endpoint: String,
    client_id: String,
    resource: String,
    scopes: Vec<String>,
    /// The authorization server says it names itself in each answer (RFC 9207): an answer
    /// without `iss` is then refused.
    #[serde(default)]
    iss_required: bool,
    /// How the authorization server takes a client secret: in the request body (`true`), the
    /// Authorization header (`false`), or not at all (`None`).
    #[serde(default)]
    secret_in_body: Option<bool>,
    /// Where the authorization server revokes tokens (RFC 7009), when its metadata says.
    #[serde(default)]
    revocation_endpoint: Option<String>,
    started_at: i64,
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending")
            .field("server_id", &self.server_id)
            .field("subject", &self.subject)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}

/// An upstream's authorization server, as its metadata says.
struct Endpoints {
    issuer: String,
    authorization: String,
    token: String,
    iss_supported: bool,
    /// How it takes a client secret: `Some(false)` in the Authorization header, `Some(true)`
    /// in the request body, `None` neither (its metadata lists other methods only).
    secret_in_body: Option<bool>,
    /// Its RFC 7009 revocation endpoint.
    revocation: Option<String>,
}

/// How an authorization server's metadata says it takes a client secret: in the Authorization
/// header when it lists `client_secret_basic` or no methods at all (RFC 8414's default), else
/// in the body when it lists `client_secret_post`.
fn secret_method(doc: &serde_json::Value) -> Option<bool> {
    let Some(methods) = doc["token_endpoint_auth_methods_supported"].as_array() else {
        return Some(false);
    };
    if methods.iter().any(|m| m == "client_secret_basic") {
        Some(false)
    } else if methods.iter().any(|m| m == "client_secret_post") {
        Some(true)
    } else {
        None
    }
}

/// What people call a server: its title, else its provider profile's name, else its id.
fn shown_title(server: &Server) -> String {
    if !server.title.is_empty() {
        server.title.clone()
    } else if let Some(p) = server.profile {
        p.label().to_owned()
    } else {
        server.id.clone()
    }
}

/// A server id as one path segment.
fn segment(server_id: &str) -> String {
    url::form_urlencoded::byte_serialize(server_id.as_bytes()).collect()
}

/// A refused connection: an error page with `msg`.
fn refused(msg: impl Into<String>) -> Error {
    Error::oauth(OAuthErrorCode::InvalidRequest, msg.into())
}

/// `url`'s well-known document `name`, inserted between its origin and path (RFC 8414 §3,
/// RFC 9728 §3.1).
fn well_known(url: &url::Url, name: &str) -> String {
    let path = url.path().trim_end_matches('/');
    format!(
        "{}/.well-known/{name}{path}",
        url.origin().ascii_serialization()
    )
}

impl Core {
    /// The realm's Client ID Metadata Document for the gateway as the OAuth client of one
    /// upstream (`auth.mode = oauth` in the latest release): its URL is the client id. Each
    /// server has its own client id and redirect URI, so that an answer meant for one server
    /// is never taken for another's (the mix-up defence of RFC 9700 §4.4.2).
    ///
    /// # Errors
    /// `NotFound` (realm, or no such server).
    pub async fn gateway_client_metadata(
        &self,
        realm_name: &str,
        server_id: &str,
    ) -> Result<serde_json::Value> {
        let realm = self.serving_realm(realm_name).await?;
        let server = self
            .latest_served_registry(&realm)
            .await?
            .and_then(|served| {
                served
                    .policy
                    .servers
                    .iter()
                    .find(|s| s.id == server_id && matches!(s.auth, Auth::OAuth { .. }))
                    .cloned()
            })
            .ok_or_else(|| {
                Error::not_found("server", server_id.chars().take(63).collect::<String>())
            })?;
        let title = if server.title.is_empty() {
            &server.id
        } else {
            &server.title
        };
        Ok(serde_json::json!({
            "client_id": self.gateway_client_metadata_url(&realm, &server.id),
            "client_name": format!("{} gateway (Portcullis) for {title}", realm.display_name),
            "client_uri": self.config().public_url,
            "redirect_uris": [self.gateway_callback_url(&realm, &server.id)],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }))
    }

    fn gateway_client_metadata_url(&self, realm: &Realm, server_id: &str) -> String {
        format!(
            "{}/gateway/client/{}",
            self.issuer(&realm.name),
            segment(server_id)
        )
    }

    pub(super) fn gateway_callback_url(&self, realm: &Realm, server_id: &str) -> String {
        format!(
            "{}/gateway/callback/{}",
            self.issuer(&realm.name),
            segment(server_id)
        )
    }

    /// The client id the gateway uses at `server`'s authorization server: the registry's, else
    /// the organisation's metadata document, else the realm's own one for that server.
    pub(super) fn gateway_client_id(&self, realm: &Realm, server: &Server) -> Option<String> {
        let Auth::OAuth {
            client_id,
            client_metadata_url,
            ..
        } = &server.auth
        else {
            return None;
        };
        Some(
            client_id
                .clone()
                .or_else(|| client_metadata_url.clone())
                .unwrap_or_else(|| self.gateway_client_metadata_url(realm, &server.id)),
        )
    }

    /// The redirect URI the gateway uses at `server_id`'s authorization server (to register
    /// there when it wants a pre-registered client).
    ///
    /// # Errors
    /// `NotFound` (realm).
    pub async fn gateway_callback(&self, realm_name: &str, server_id: &str) -> Result<String> {
        let realm = self.find_realm(realm_name).await?;
        Ok(self.gateway_callback_url(&realm, server_id))
    }

    /// Where a person connects their own account at `server_id`.
    pub fn gateway_connect_url(&self, realm: &Realm, server_id: &str) -> String {
        format!(
            "{}/gateway/connect/{}",
            self.issuer(&realm.name),
            segment(server_id)
        )
    }

    /// The connect link opened in a browser: a page asking the person signed in at the realm
    /// to confirm (nothing leaves Portcullis before they do), or one saying to sign in first.
    ///
    /// # Errors
    /// `NotFound` (realm), `OAuth` (an error page: no such server for this person).
    pub async fn gateway_connect_page(
        &self,
        realm_name: &str,
        server_id: &str,
        session: Option<&str>,
        browser: &str,
    ) -> Result<ConnectStart> {
        let realm = self.serving_realm(realm_name).await?;
        let subject = self.signed_in(&realm, session).await?;
        let (Some(subject), Some(session)) = (subject, session) else {
            return Ok(ConnectStart::SignIn {
                account_url: format!("/realms/{}/account", realm.name),
            });
        };
        let server = self
            .connectable_server(&realm, &subject.id, server_id)
            .await?;
        let connected = self
            .store
            .find_gateway_connection(&realm.id, &subject.id, &server.id)
            .await?;
        let host = match &server.transport {
            Transport::Remote { url, .. } => url::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
                .unwrap_or_default(),
            _ => String::new(),
        };
        Ok(ConnectStart::Confirm(ConnectConfirm {
            realm: realm.display_name.clone(),
            server_id: server.id.clone(),
            server: shown_title(&server),
            host,
            person: format!("{} ({})", subject.display_name, subject.email),
            replaces: connected.map(|c| c.issuer),
            form_token: self.account_form_token(browser, Some(session)),
            account_url: format!("/realms/{}/account", realm.name),
        }))
    }

    /// The confirmed connect form (the caller checked its token against the browser and the
    /// session): where to send the browser of the person signed in at the realm (their sign-in
    /// `session`), to connect their own account at `server_id`.
    ///
    /// # Errors
    /// `NotFound` (realm), `OAuth` (an error page: no such server for this person, or its
    /// authorization server cannot be used).
    pub async fn start_gateway_connection(
        &self,
        realm_name: &str,
        server_id: &str,
        session: Option<&str>,
        browser: &str,
    ) -> Result<ConnectStart> {
        let realm = self.serving_realm(realm_name).await?;
        let subject = self.signed_in(&realm, session).await?;
        let Some(subject) = subject else {
            return Ok(ConnectStart::SignIn {
                account_url: format!("/realms/{}/account", realm.name),
            });
        };
        let server = self
            .connectable_server(&realm, &subject.id, server_id)
            .await?;
        let (Transport::Remote { url, .. }, Auth::OAuth { issuer, scopes, .. }) =
            (&server.transport, &server.auth)
        else {
            return Err(refused("This server does not connect accounts."));
        };
        let endpoints = self
            .upstream_endpoints(url, issuer.as_deref())
            .await
            .map_err(|why| {
                tracing::warn!(server = %server.id, url = %url, error = %why, "gateway: an upstream's authorization server cannot be used");
                refused(format!("The server's sign-in cannot be reached or used ({why})."))
            })?;
        let client_id = self
            .gateway_client_id(&realm, &server)
            .ok_or_else(|| refused("This server does not connect accounts."))?;
        let secret = self
            .gateway_client_secret(&realm.id, &server, &client_id, &endpoints.issuer)
            .await?;
        if secret.is_some() && endpoints.secret_in_body.is_none() {
            tracing::warn!(server = %server.id, "gateway: an upstream's authorization server takes no client secret, yet one is set for it");
            return Err(refused(
                "The server's sign-in takes no client secret, yet your administrator set one for it. Tell your administrator.",
            ));
        }
        let client = BasicClient::new(ClientId::new(client_id.clone()))
            .set_auth_uri(
                AuthUrl::new(endpoints.authorization.clone())
                    .map_err(|e| refused(e.to_string()))?,
            )
            .set_redirect_uri(
                RedirectUrl::new(self.gateway_callback_url(&realm, &server.id))
                    .map_err(|e| refused(e.to_string()))?,
            );
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(CsrfToken::new_random)
            .add_scopes(scopes.iter().cloned().map(Scope::new))
            .add_extra_param("resource", url)
            .set_pkce_challenge(challenge);
        // The provider's own parameters, at the provider's own server only.
        let provider = server
            .profile
            .filter(|p| url.trim_end_matches('/') == p.url());
        for (name, value) in provider.map_or(&[][..], |p| p.authorization_params()) {
            request = request.add_extra_param(*name, *value);
        }
        let (location, state) = request.url();
        let pending = Pending {
            server_id: server.id.clone(),
            subject: subject.id,
            browser: browser_hash(browser),
            state: state.secret().clone(),
            pkce_verifier: verifier.secret().clone(),
            issuer: endpoints.issuer,
            token_endpoint: endpoints.token,
            client_id,
            resource: url.clone(),
            scopes: scopes.clone(),
            iss_required: endpoints.iss_supported,
            secret_in_body: endpoints.secret_in_body,
            revocation_endpoint: endpoints.revocation,
            started_at: self.now(),
        };
        Ok(ConnectStart::Redirect {
            location: location.to_string(),
            pending: self.seal_for(&realm, PENDING, &pending)?,
        })
    }

    /// The callback from the upstream's authorization server: redeems the code for the person
    /// who started the connection in this browser and keeps their tokens.
    ///
    /// # Errors
    /// `NotFound` (realm), `OAuth` (an error page: expired, another browser or person, the
    /// authorization server's refusal), storage failure.
    pub async fn finish_gateway_connection(
        &self,
        realm_name: &str,
        server_id: &str,
        from: &ConnectBrowser<'_>,
        callback: &SsoCallback,
        meta: &RequestMeta,
    ) -> Result<Connected> {
        const EXPIRED: &str = "This connection has expired or was started in another browser. Open the connect link again.";
        let ConnectBrowser {
            session,
            browser,
            pending,
        } = *from;
        let realm = self.serving_realm(realm_name).await?;
        let pending: Pending = pending
            .and_then(|p| self.open_for(&realm, PENDING, p))
            .ok_or_else(|| refused(EXPIRED))?;
        let now = self.now();
        let same_browser: bool = pending
            .browser
            .as_bytes()
            .ct_eq(browser_hash(browser).as_bytes())
            .into();
        let same_state: bool = callback
            .state
            .as_deref()
            .is_some_and(|s| s.as_bytes().ct_eq(pending.state.as_bytes()).into());
        // The answer came back to the callback of the server this connection is for (each
        // server has its own): an answer another server's authorization server sent is not it.
        if !same_browser
            || !same_state
            || pending.server_id != server_id
            || now > pending.started_at + CONNECT_TTL_SECS
        {
            return Err(refused(EXPIRED));
        }
        if pending.iss_required && callback.iss.is_none() && callback.error.is_none() {
            return Err(refused(
                "The server's authorization server answered without naming itself (RFC 9207). Open the connect link again; if this keeps happening, tell your administrator.",
            ));
        }
        let subject = self.signed_in(&realm, session).await?;
        if subject.as_ref().map(|s| s.id.as_str()) != Some(pending.subject.as_str()) {
            return Err(refused(
                "You are no longer signed in as the person who started this connection. Sign in and open the connect link again.",
            ));
        }
        let server = self
            .connectable_server(&realm, &pending.subject, &pending.server_id)
            .await?;
        let code = callback.code_from(&pending.issuer).map_err(|why| {
            tracing::warn!(server = %server.id, error = %why, "gateway: a connection was refused");
            refused(format!(
                "The server's authorization server did not connect your account: {why}."
            ))
        })?;
        // The secret as it is now (an administrator may have replaced it meanwhile), and only
        // for the client and authorization server this connection started with.
        let secret = self
            .gateway_client_secret(&realm.id, &server, &pending.client_id, &pending.issuer)
            .await?;
        let secret_in_body = match (&secret, pending.secret_in_body) {
            (Some(_), None) => {
                return Err(refused(
                    "The server's sign-in takes no client secret, yet your administrator set one for it. Tell your administrator.",
                ));
            }
            (_, in_body) => in_body.unwrap_or(false),
        };
        let mut client = BasicClient::new(ClientId::new(pending.client_id.clone()))
            .set_token_uri(
                TokenUrl::new(pending.token_endpoint.clone())
                    .map_err(|e| refused(e.to_string()))?,
            )
            .set_redirect_uri(
                RedirectUrl::new(self.gateway_callback_url(&realm, &server.id))
                    .map_err(|e| refused(e.to_string()))?,
            );
        if let Some(secret) = secret {
            client = client
                .set_client_secret(ClientSecret::new(secret))
                .set_auth_type(secret_auth_type(secret_in_body));
        }
        let http = crate::sso::rp::http(self.fetcher.clone());
        let answer = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .set_pkce_verifier(PkceCodeVerifier::new(pending.pkce_verifier.clone()))
            .add_extra_param("resource", &pending.resource)
            .request_async(&http)
            .await
            .map_err(|e| {
                tracing::warn!(server = %server.id, error = %describe(&e), "gateway: redeeming an upstream code failed");
                refused("The server's authorization server did not give a token. Open the connect link again; if this keeps happening, tell your administrator.")
            })?;
        let held = Held {
            access_token: answer.access_token().secret().clone(),
            refresh_token: answer.refresh_token().map(|r| r.secret().clone()),
            token_endpoint: pending.token_endpoint,
            client_id: pending.client_id,
            resource: pending.resource,
            secret_in_body,
            revocation_endpoint: pending.revocation_endpoint,
        };
        let scope = answer.scopes().map_or_else(
            || pending.scopes.join(" "),
            |s| s.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" "),
        );
        let connection = UpstreamConnection {
            realm_id: realm.id.clone(),
            subject: pending.subject.clone(),
            server_id: server.id.clone(),
            issuer: pending.issuer.clone(),
            sealed_tokens: self.seal_tokens(&realm.id, &pending.subject, &server.id, &held)?,
            access_expires_at: now + lifetime(answer.expires_in()),
            scope,
            connected_at: now,
            refreshed_at: now,
        };
        let mut event = self.event(
            &realm.id,
            &pending.subject,
            action::GATEWAY_CONNECT,
            AuditSubject::RegistryServer(server.id.clone()),
            meta,
        );
        event.details = serde_json::json!({
            "issuer": connection.issuer,
            "scope": connection.scope,
            "refreshable": held.refresh_token.is_some(),
        });
        self.store
            .save_gateway_connection(&connection, &event)
            .await?;
        Ok(Connected {
            realm: realm.display_name.clone(),
            server: shown_title(&server),
        })
    }

    /// The signed-in person's upstream connections, with each server's title.
    ///
    /// # Errors
    /// `Unauthenticated` (no live session), `NotFound` (realm), storage failure.
    pub async fn own_gateway_connections(
        &self,
        realm_name: &str,
        session: &str,
    ) -> Result<Vec<ConnectionView>> {
        let realm = self.serving_realm(realm_name).await?;
        let (subject, _) = self
            .session_subject(&realm, session)
            .await?
            .ok_or(Error::Unauthenticated)?;
        // Titles only: a release that cannot be served does not hide the person's accounts.
        let served = self
            .latest_served_registry(&realm)
            .await
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, "The latest registry release cannot be served");
                None
            });
        let title = |id: &str| {
            served
                .as_ref()
                .and_then(|s| s.policy.servers.iter().find(|s| s.id == id))
                .filter(|s| !s.title.is_empty())
                .map_or_else(|| id.to_owned(), |s| s.title.clone())
        };
        Ok(self
            .store
            .list_gateway_connections(&realm.id, &subject.id)
            .await?
            .into_iter()
            .map(|c| ConnectionView {
                title: title(&c.server_id),
                server_id: c.server_id,
                issuer: c.issuer,
                scope: c.scope,
                connected_at: c.connected_at,
            })
            .collect())
    }

    /// Disconnects one of the signed-in person's upstream accounts: the gateway asks the
    /// server's authorization server to revoke the tokens (RFC 7009, when it has a revocation
    /// endpoint; best effort, recorded in the audit row) and forgets them.
    ///
    /// # Errors
    /// `Unauthenticated`, `NotFound` (not connected), storage failure.
    pub async fn disconnect_own_gateway_connection(
        &self,
        realm_name: &str,
        session: &str,
        server_id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        let realm = self.serving_realm(realm_name).await?;
        let (subject, _) = self
            .session_subject(&realm, session)
            .await?
            .ok_or(Error::Unauthenticated)?;
        let not_found =
            || Error::not_found("connection", server_id.chars().take(63).collect::<String>());
        // The tokens revoked are the tokens forgotten: a refresh or a new connection made
        // meanwhile (another tab) changes the row, which is then read and revoked again.
        for attempt in 0..3 {
            let Some(row) = self
                .store
                .find_gateway_connection(&realm.id, &subject.id, server_id)
                .await?
            else {
                // Gone since the first read (a refused refresh ended it): disconnected.
                return if attempt == 0 {
                    Err(not_found())
                } else {
                    Ok(())
                };
            };
            let revoked = self.revoke_connection(&row).await;
            let mut event = self.event(
                &realm.id,
                &subject.id,
                action::GATEWAY_DISCONNECT,
                AuditSubject::RegistryServer(server_id.chars().take(200).collect()),
                meta,
            );
            event.details = serde_json::json!({ "reason": "disconnected by the person", "upstream_revocation": revoked });
            match self
                .store
                .delete_gateway_connection(
                    &realm.id,
                    &subject.id,
                    server_id,
                    Some(&row.sealed_tokens),
                    &event,
                )
                .await
            {
                Ok(()) => return Ok(()),
                Err(StorageError::NotFound) => continue,
                Err(other) => return Err(Error::Storage(other)),
            }
        }
        Err(Error::Conflict(
            "The connection keeps changing: try again.".into(),
        ))
    }

    /// Who the sign-in `session` (a cookie of the realm's pages) signs in, if it is live.
    async fn signed_in(
        &self,
        realm: &Realm,
        session: Option<&str>,
    ) -> Result<Option<crate::people::Subject>> {
        Ok(match session {
            Some(s) => self.session_subject(realm, s).await?.map(|(s, _)| s),
            None => None,
        })
    }

    /// A server of the latest release that `subject` reaches through the gateway and that
    /// connects accounts (`auth.mode = oauth`).
    async fn connectable_server(
        &self,
        realm: &Realm,
        subject: &str,
        server_id: &str,
    ) -> Result<Server> {
        use crate::registry::MemberKind;
        let kind = if subject.starts_with("usr_") {
            MemberKind::User
        } else {
            MemberKind::Person
        };
        let toolset = self
            .toolset_for(realm, Some((kind, subject.to_owned())), None)
            .await?;
        toolset
            .servers
            .into_iter()
            .find(|s| {
                s.server.id == server_id
                    && s.excluded.is_none()
                    && s.auth == super::model::UpstreamAuth::OAuth
            })
            .map(|s| s.server)
            .ok_or_else(|| refused("There is no such server for you to connect: it is not in the registry's latest release for you, or it does not connect accounts."))
    }

    /// The authorization server of the upstream at `resource`: `issuer` when the registry names
    /// it, else the first its RFC 9728 metadata names; its RFC 8414 metadata (OpenID Connect
    /// discovery as a fallback) must name itself and support PKCE S256.
    async fn upstream_endpoints(
        &self,
        resource: &str,
        issuer: Option<&str>,
    ) -> std::result::Result<Endpoints, String> {
        let allow = self.config().allow_loopback_fetch;
        let issuer = match issuer {
            Some(i) => i.to_owned(),
            None => {
                let url = parse_fetch_url(resource, allow)?;
                let prm = parse_fetch_url(&well_known(&url, "oauth-protected-resource"), allow)?;
                let doc = self
                    .fetcher
                    .fetch_json(&prm)
                    .await
                    .map_err(|e| format!("its protected resource metadata at {prm}: {e}"))?
                    .body;
                let named = doc["resource"].as_str().unwrap_or_default();
                if named.trim_end_matches('/') != resource.trim_end_matches('/') {
                    return Err("its protected resource metadata is for another resource".into());
                }
                doc["authorization_servers"][0]
                    .as_str()
                    .ok_or("its protected resource metadata names no authorization server")?
                    .to_owned()
            }
        };
        let issuer_url = parse_fetch_url(&issuer, allow)?;
        let mut metadata = None;
        for candidate in [
            well_known(&issuer_url, "oauth-authorization-server"),
            format!(
                "{}/.well-known/openid-configuration",
                issuer.trim_end_matches('/')
            ),
        ] {
            let url = parse_fetch_url(&candidate, allow)?;
            if let Ok(found) = self.fetcher.fetch_json(&url).await {
                metadata = Some(found.body);
                break;
            }
        }
        let doc = metadata.ok_or_else(|| {
            format!("the metadata of its authorization server {issuer} could not be fetched")
        })?;
        if doc["issuer"].as_str() != Some(issuer.as_str()) {
            return Err("its authorization server metadata names another issuer".into());
        }
        let s256 = doc["code_challenge_methods_supported"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| m == "S256"));
        if !s256 {
            return Err("its authorization server does not support PKCE S256".into());
        }
        let endpoint = |name: &str| -> std::result::Result<String, String> {
            let s = doc[name]
                .as_str()
                .ok_or_else(|| format!("its authorization server metadata has no {name}"))?;
            parse_fetch_url(s, allow).map(|u| u.to_string())
        };
        Ok(Endpoints {
            iss_supported: doc["authorization_response_iss_parameter_supported"] == true,
            secret_in_body: secret_method(&doc),
            // Optional: without one, a disconnect only forgets the tokens.
            revocation: doc["revocation_endpoint"]
                .as_str()
                .and_then(|e| parse_fetch_url(e, allow).ok())
                .map(|u| u.to_string()),
            authorization: endpoint("authorization_endpoint")?,
            token: endpoint("token_endpoint")?,
            issuer,
        })
    }
}
