//! The *ticket*: the checked authorization request as it travels between the sign-in,
//! provider, link and consent pages, sealed (AES-256-GCM under a key derived from the master
//! key) and bound to the browser that started it (the hash of a cookie only it holds).
use super::model::{OpenId, Prompt};
use crate::clients::{Client, ClientId};
use crate::core::Core;
use crate::error::{Error, OAuthErrorCode, Result};
use crate::ids::ResourceId;
use crate::realms::Realm;
use crate::resources::Resource;
use crate::secret::PlainToken;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

/// An error the endpoint shows as a page (never a redirect: nobody vouched for where to).
pub(super) fn page_error(msg: &'static str) -> Error {
    Error::oauth(OAuthErrorCode::InvalidRequest, msg)
}

/// The checked request between pages.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Ticket {
    /// Random: a consent answer uses it up, so one page gives one code.
    #[serde(default)]
    pub(super) id: String,
    pub(super) realm: String,
    pub(super) client: String,
    /// The client's version (its last change) when the page was made: a person agrees to
    /// the client as they were shown it.
    #[serde(default)]
    pub(super) client_version: i64,
    pub(super) client_id: String,
    pub(super) redirect_uri: String,
    pub(super) state: Option<String>,
    pub(super) challenge: String,
    pub(super) resource: String,
    pub(super) scopes: String,
    pub(super) offline: bool,
    /// An OpenID Connect request: an ID token comes with the tokens.
    #[serde(default)]
    pub(super) openid: Option<OpenId>,
    /// Its `nonce`.
    #[serde(default)]
    pub(super) nonce: Option<String>,
    pub(super) prompt: Prompt,
    pub(super) exp: i64,
    pub(super) browser: String,
    pub(super) subject: Option<String>,
    pub(super) auth_time: Option<i64>,
    /// For a device authorization (RFC 8628): the hex SHA-256 of its device code.
    #[serde(default)]
    pub(super) device: Option<String>,
    /// And its user code as people read it, shown again on the consent page.
    #[serde(default)]
    pub(super) user_code: Option<String>,
}

/// The hash a ticket is bound to: of the browser's binding cookie.
pub(crate) fn browser_hash(browser: &str) -> String {
    hex::encode(PlainToken::from_input(browser).hashed())
}

impl Core {
    fn ticket_key(&self) -> crate::keys::MasterKey {
        self.config()
            .master_key
            .derive("portcullis authorization ticket")
    }

    pub(super) fn seal_ticket(&self, ticket: &Ticket) -> Result<String> {
        let json = serde_json::to_vec(ticket).map_err(|e| Error::Internal(e.to_string()))?;
        let sealed = self
            .ticket_key()
            .seal(&json, ticket.realm.as_bytes())
            .map_err(Error::Internal)?;
        Ok(URL_SAFE_NO_PAD.encode(sealed))
    }

    pub(super) fn open_ticket(&self, realm: &Realm, ticket: &str, browser: &str) -> Result<Ticket> {
        let expired = || {
            page_error(
                "This sign-in page has expired or was opened in another browser. Go back to the application and connect again.",
            )
        };
        if ticket.len() > 16 * 1024 {
            return Err(expired());
        }
        let sealed = URL_SAFE_NO_PAD.decode(ticket).map_err(|_| expired())?;
        let json = self
            .ticket_key()
            .open(&sealed, realm.id.as_str().as_bytes())
            .map_err(|_| expired())?;
        let t: Ticket = serde_json::from_slice(&json).map_err(|_| expired())?;
        self.ticket_for(realm, t, browser)
    }

    /// `t` when it is this realm's, still valid, and bound to this browser.
    pub(super) fn ticket_for(&self, realm: &Realm, t: Ticket, browser: &str) -> Result<Ticket> {
        let expired = || {
            page_error(
                "This sign-in page has expired or was opened in another browser. Go back to the application and connect again.",
            )
        };
        let same_browser =
            crate::secret::constant_time_eq(t.browser.as_bytes(), browser_hash(browser).as_bytes());
        if t.realm != realm.id.as_str() || t.exp <= self.now() || !same_browser {
            return Err(expired());
        }
        Ok(t)
    }

    /// The ticket's client, still registered (same row), enabled and as it was when the page
    /// was made (read from the database, not a cache: a registration changed meanwhile, on any
    /// instance, is not what the person was shown).
    pub(super) async fn ticket_client(&self, realm: &Realm, ticket: &Ticket) -> Result<Client> {
        let id = ClientId::parse(&ticket.client_id).map_err(|_| page_error("Bad ticket."))?;
        let client = self
            .store
            .find_client(&realm.id, &id)
            .await?
            .filter(|c| c.id.as_str() == ticket.client && c.is_active())
            .ok_or_else(|| {
                Error::oauth(
                    OAuthErrorCode::UnauthorizedClient,
                    "This application is no longer registered or was disabled.",
                )
            })?;
        if client.updated_at != ticket.client_version {
            return Err(page_error(
                "This application changed its registration while this page was open. Go back to the application and connect again.",
            ));
        }
        Ok(client)
    }

    /// The ticket's resource, still registered and enabled.
    pub(super) async fn ticket_resource(&self, realm: &Realm, ticket: &Ticket) -> Result<Resource> {
        self.cached_resource_by_id(
            &realm.id,
            &ResourceId::from_stored(ticket.resource.as_str()),
        )
        .await?
        .filter(|r| r.enabled)
        .ok_or_else(|| {
            Error::oauth(
                OAuthErrorCode::InvalidTarget,
                "The resource is no longer available.",
            )
        })
    }
}
