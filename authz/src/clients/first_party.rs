//! The first-party client every realm has: `portcullis-cli`, the laptop binary. A public client
//! (it runs on people's machines and keeps no secret) that signs people in with authorization
//! code + PKCE on a loopback redirect or with the device grant, refreshes, and trades its own
//! tokens for five-minute tokens at the realm's MCP servers (token exchange — which public
//! clients cannot register for themselves). It is created with the realm (and, for realms older
//! than it, when the server starts), shown in the console, can be disabled, and cannot be
//! deleted or edited.
use super::model::{
    ApplicationType, AuthMethod, Client, ClientId, ClientRowId, GrantType, Metadata, Registration,
};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result, StorageError};
use crate::realms::Realm;
use crate::scope::ScopeSet;

/// The `client_id` of the realm's command-line client.
pub const CLI_CLIENT_ID: &str = "portcullis-cli";
/// Its loopback redirect URI (any port matches, RFC 8252 §7.3).
pub const CLI_REDIRECT_URI: &str = "http://127.0.0.1/callback";

/// Whether `client_id` names the first-party client (which may not be deleted, edited or taken).
pub fn is_first_party(client_id: &str) -> bool {
    client_id == CLI_CLIENT_ID
}

impl Core {
    /// Creates `realm`'s command-line client when it has none (audited as done by `system`).
    ///
    /// # Errors
    /// On storage failure.
    pub(crate) async fn ensure_cli_client(&self, realm: &Realm) -> Result<()> {
        let id = ClientId::parse(CLI_CLIENT_ID).map_err(|e| Error::Internal(e.to_string()))?;
        if self.store.find_client(&realm.id, &id).await?.is_some() {
            return Ok(());
        }
        let now = self.now();
        let client = Client {
            id: ClientRowId::generate(),
            realm_id: realm.id.clone(),
            client_id: id,
            name: "Portcullis CLI".into(),
            auth_method: AuthMethod::None,
            grant_types: vec![
                GrantType::AuthorizationCode,
                GrantType::RefreshToken,
                GrantType::TokenExchange,
                GrantType::DeviceCode,
            ],
            scope: ScopeSet::default(),
            metadata: Metadata {
                redirect_uris: vec![CLI_REDIRECT_URI.into()],
                software_id: Some("portcullis-cli".into()),
                application_type: Some(ApplicationType::Native),
                ..Metadata::default()
            },
            agent: None,
            resource_server_for: None,
            enabled: true,
            registration: Registration::admin(),
            created_at: now,
            updated_at: now,
        };
        let mut event = self.event(
            &realm.id,
            "system",
            action::CLIENT_CREATE,
            AuditSubject::Client(CLI_CLIENT_ID.into()),
            &RequestMeta::default(),
        );
        event.details = serde_json::json!({"auth_method": "none", "first_party": true});
        match self.store.insert_client(&client, None, &event).await {
            // Another instance made it at the same moment.
            Ok(()) | Err(StorageError::Conflict(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Gives every realm its command-line client (at start, for realms made before it existed).
    ///
    /// # Errors
    /// On storage failure.
    pub async fn ensure_first_party_clients(&self) -> Result<()> {
        for realm in self.store.list_realms().await? {
            self.ensure_cli_client(&realm).await?;
        }
        Ok(())
    }
}
