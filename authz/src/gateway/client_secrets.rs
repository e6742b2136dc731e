//! Client secrets for servers whose own authorization server takes the gateway as a
//! confidential client (`auth.mode = oauth` with a pre-registered `auth.clientId`: a web
//! application client at Google, for one). Set by administrators, sealed at rest for exactly one
//! realm and server, never part of a registry release (releases are signed and handed to every
//! laptop), and sent only to the authorization server and as the client id they were issued
//! for: a registry change naming another sends nothing.
use super::model::{ClientSecretState, UpstreamClientSecret};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result, StorageError};
use crate::ids::RealmId;
use crate::policy::{Permission, Principal};
use crate::realms::Realm;
use portcullis_manifest::{Auth, Server, Transport};

/// Longest client secret accepted.
const MAX_SECRET_LEN: usize = 1024;

/// The client id, authorization server and URL the registry names for `server`, when it is a
/// remote server with its own authorization server and a pre-registered client.
fn registered_client(server: &Server) -> Option<(&str, &str, &str)> {
    match (&server.transport, &server.auth) {
        (
            Transport::Remote { url, .. },
            Auth::OAuth {
                client_id: Some(client_id),
                issuer: Some(issuer),
                ..
            },
        ) => Some((client_id, issuer, url)),
        _ => None,
    }
}

/// What a sealed secret is bound to: the realm, the server, the client id, the authorization
/// server and the server's URL (a row copied to another server or realm does not open).
pub(super) fn secret_aad(
    realm: &RealmId,
    server_id: &str,
    client_id: &str,
    issuer: &str,
    resource: &str,
) -> Vec<u8> {
    serde_json::to_vec(&(
        "gateway client secret",
        realm.as_str(),
        server_id,
        client_id,
        issuer,
        resource,
    ))
    .unwrap_or_default()
}

/// How a client secret goes to a token endpoint: in the request body or the Authorization
/// header (RFC 6749 section 2.3.1).
pub(super) fn secret_auth_type(in_body: bool) -> oauth2::AuthType {
    if in_body {
        oauth2::AuthType::RequestBody
    } else {
        oauth2::AuthType::BasicAuth
    }
}

/// The client id, authorization server and URL a held secret was given for.
fn held_for(held: &UpstreamClientSecret) -> (&str, &str, &str) {
    (&held.client_id, &held.issuer, &held.resource)
}

/// How a held secret stands against what the registry names for its server now.
pub(super) fn secret_state(
    held: Option<&UpstreamClientSecret>,
    server: &Server,
) -> Option<ClientSecretState> {
    if !matches!(server.auth, Auth::OAuth { .. }) {
        return None;
    }
    let Some(held) = held else {
        return Some(ClientSecretState::Unset);
    };
    let (set_by, set_at) = (held.set_by.clone(), held.set_at);
    Some(if registered_client(server) == Some(held_for(held)) {
        ClientSecretState::Set { set_by, set_at }
    } else {
        ClientSecretState::Stale {
            set_by,
            set_at,
            client_id: held.client_id.clone(),
            issuer: held.issuer.clone(),
        }
    })
}

impl Core {
    /// Sets (or replaces) the client secret the gateway sends with its token requests to
    /// `server_id`'s authorization server. The server must be in the latest registry release
    /// with `auth.mode = oauth` and name its `auth.clientId` and `auth.issuer`: the secret is
    /// bound to both, and to the server's URL (where the tokens it gets go).
    ///
    /// # Errors
    /// `Forbidden`; `NotFound` (realm, or no such server in the latest release);
    /// `InvalidField` `client_secret` (empty, too long, control characters) or `server` (the
    /// server does not use its own authorization server with a registered client); storage
    /// failure.
    pub async fn set_gateway_client_secret(
        &self,
        p: &Principal,
        realm_name: &str,
        server_id: &str,
        secret: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let secret = secret.trim();
        if secret.is_empty() {
            return Err(Error::field("client_secret", "Enter the client secret."));
        }
        if secret.len() > MAX_SECRET_LEN {
            return Err(Error::field(
                "client_secret",
                format!("The client secret must be at most {MAX_SECRET_LEN} characters."),
            ));
        }
        if secret.starts_with('{') {
            return Err(Error::field(
                "client_secret",
                "This looks like the JSON file the provider gave you: enter the value of its client_secret field.",
            ));
        }
        if secret.chars().any(char::is_control) {
            return Err(Error::field(
                "client_secret",
                "The client secret must be on one line, without control characters.",
            ));
        }
        let server = self.latest_gateway_server(&realm, server_id).await?;
        let Some((client_id, issuer, resource)) = registered_client(&server) else {
            return Err(Error::field(
                "server",
                "A client secret needs a remote server with auth.mode oauth whose registry entry names its client id (auth.clientId) and its authorization server (auth.issuer): the secret is sent only there. Publish a release that names both first.",
            ));
        };
        let sealed = self
            .config()
            .master_key
            .seal(
                secret.as_bytes(),
                &secret_aad(&realm.id, &server.id, client_id, issuer, resource),
            )
            .map_err(|e| Error::Internal(format!("sealing a client secret: {e}")))?;
        let replaced = self
            .store
            .find_gateway_client_secret(&realm.id, &server.id)
            .await?
            .is_some();
        let row = UpstreamClientSecret {
            realm_id: realm.id.clone(),
            server_id: server.id.clone(),
            client_id: client_id.to_owned(),
            issuer: issuer.to_owned(),
            resource: resource.to_owned(),
            sealed_secret: sealed,
            set_by: p.email.clone(),
            set_at: self.now(),
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::GATEWAY_CLIENT_SECRET,
            AuditSubject::RegistryServer(server.id.clone()),
            meta,
        );
        event.details = serde_json::json!({
            "change": if replaced { "replaced" } else { "set" },
            "client_id": client_id,
            "issuer": issuer,
            "resource": resource,
        });
        Ok(self.store.save_gateway_client_secret(&row, &event).await?)
    }

    /// Removes the client secret held for `server_id` (the gateway is then a public client
    /// there). Works for servers no longer in the registry too.
    ///
    /// # Errors
    /// `Forbidden`; `NotFound` (realm, or no secret held for the server); storage failure.
    pub async fn clear_gateway_client_secret(
        &self,
        p: &Principal,
        realm_name: &str,
        server_id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageRegistry)?;
        let realm = self.find_realm(realm_name).await?;
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::GATEWAY_CLIENT_SECRET,
            AuditSubject::RegistryServer(server_id.to_owned()),
            meta,
        );
        event.details = serde_json::json!({ "change": "removed" });
        match self
            .store
            .delete_gateway_client_secret(&realm.id, server_id, &event)
            .await
        {
            Err(StorageError::NotFound) => Err(Error::not_found(
                "client secret of server",
                server_id.chars().take(200).collect::<String>(),
            )),
            other => Ok(other?),
        }
    }

    /// The client secret to send to `issuer` as `client_id` for `server`, when the registry
    /// names exactly that client, authorization server and URL for it now and the secret held
    /// was given for the same.
    ///
    /// # Errors
    /// Storage failure; `Internal` when the sealed secret does not open (another master key).
    pub(super) async fn gateway_client_secret(
        &self,
        realm_id: &RealmId,
        server: &Server,
        client_id: &str,
        issuer: &str,
    ) -> Result<Option<String>> {
        match registered_client(server) {
            Some(named) if named.0 == client_id && named.1 == issuer => {
                self.held_client_secret(realm_id, &server.id, named).await
            }
            _ => Ok(None),
        }
    }

    /// The client secret held for `server_id` when it was given for exactly `(client id,
    /// issuer, URL)`: what a revocation of tokens given there is sent with, whatever the
    /// registry says now.
    ///
    /// # Errors
    /// As [`Core::gateway_client_secret`].
    pub(super) async fn held_client_secret(
        &self,
        realm_id: &RealmId,
        server_id: &str,
        given_for: (&str, &str, &str),
    ) -> Result<Option<String>> {
        let Some(held) = self
            .store
            .find_gateway_client_secret(realm_id, server_id)
            .await?
        else {
            return Ok(None);
        };
        if held_for(&held) != given_for {
            return Ok(None);
        }
        let (client_id, issuer, resource) = given_for;
        let opened = self
            .config()
            .master_key
            .open(
                &held.sealed_secret,
                &secret_aad(realm_id, server_id, client_id, issuer, resource),
            )
            .map_err(|e| Error::Internal(format!("opening a gateway client secret: {e}")))?;
        String::from_utf8(opened)
            .map(Some)
            .map_err(|_| Error::Internal("a gateway client secret is not text".into()))
    }

    /// The server `server_id` of the realm's latest registry release.
    async fn latest_gateway_server(&self, realm: &Realm, server_id: &str) -> Result<Server> {
        self.toolset_for(realm, None, None)
            .await?
            .servers
            .into_iter()
            .map(|s| s.server)
            .find(|s| s.id == server_id)
            .ok_or_else(|| {
                Error::field(
                    "server",
                    format!(
                        "{} is not in the latest published registry release: publish the registry first.",
                        portcullis_manifest::names::shown(server_id)
                    ),
                )
            })
    }
}
