//! Identity chaining operations: administrators list the authorization servers that trust the
//! realm's ID-JAGs (console and CLI).
use super::model::{
    MAX_TRUSTING_SERVERS, TrustingServer, TrustingServerFields, TrustingServerId,
    TrustingServerInput, client_links_text,
};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::clients::AuthMethod;
use crate::core::Core;
use crate::error::{Error, Result, map_taken};
use crate::policy::{Permission, Principal};
use crate::realms::Realm;

/// What the audit log records of a trusting server's settings.
fn audit_settings(t: &TrustingServer) -> serde_json::Value {
    serde_json::json!({
        "issuer": t.issuer,
        "display_name": t.display_name,
        "resources": t.resources.join(" "),
        "scopes": t.scopes.to_string(),
        "clients": client_links_text(&t.clients).replace('\n', ", "),
    })
}

const TAKEN: &str = "This realm lists this authorization server already.";

impl Core {
    /// The authorization servers that trust a realm's ID-JAGs.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn list_trusting_servers(
        &self,
        p: &Principal,
        realm_name: &str,
    ) -> Result<Vec<TrustingServer>> {
        p.require(Permission::ManageRealms)?;
        let realm = self.find_realm(realm_name).await?;
        Ok(self.store.list_trusting_servers(&realm.id).await?)
    }

    /// Lists an authorization server that trusts the realm: the clients named may then trade
    /// their people's ID tokens for ID-JAGs for it.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField`/`Findings` (nothing written), `Taken`
    /// (listed already), `Conflict` (too many).
    pub async fn create_trusting_server(
        &self,
        p: &Principal,
        realm_name: &str,
        input: &TrustingServerInput,
        meta: &RequestMeta,
    ) -> Result<TrustingServer> {
        p.require(Permission::ManageRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let fields = self.check_trusting_fields(&realm, input).await?;
        let listed = self.store.list_trusting_servers(&realm.id).await?;
        // A trailing slash makes another issuer, which its ID-JAGs would not be addressed to:
        // never two entries for one server.
        if listed
            .iter()
            .any(|t| t.issuer.trim_end_matches('/') == fields.issuer.trim_end_matches('/'))
        {
            return Err(Error::Taken {
                field: "issuer",
                message: TAKEN.into(),
            });
        }
        if listed.len() >= MAX_TRUSTING_SERVERS {
            return Err(Error::Conflict(
                format!(
                    "A realm lists at most {MAX_TRUSTING_SERVERS} trusting authorization servers; remove one first."
                )
                .into(),
            ));
        }
        let now = self.now();
        let server = TrustingServer {
            id: TrustingServerId::generate(),
            realm_id: realm.id.clone(),
            issuer: fields.issuer,
            display_name: fields.display_name,
            resources: fields.resources,
            scopes: fields.scopes,
            clients: fields.clients,
            enabled: true,
            created_at: now,
            updated_at: now,
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::TRUSTING_SERVER_CREATE,
            AuditSubject::TrustingServer(server.issuer.clone()),
            meta,
        );
        event.details = audit_settings(&server);
        self.store
            .insert_trusting_server(&server, &event)
            .await
            .map_err(|e| map_taken(e, "issuer", TAKEN))?;
        Ok(server)
    }

    /// Changes a trusting server's settings (not its issuer).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `InvalidField`/`Findings`.
    pub async fn update_trusting_server(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        input: &TrustingServerInput,
        meta: &RequestMeta,
    ) -> Result<TrustingServer> {
        p.require(Permission::ManageRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let mut server = self.find_trusting_server_in(&realm, id).await?;
        let fields = self.check_trusting_fields(&realm, input).await?;
        if fields.issuer != server.issuer {
            return Err(Error::field(
                "issuer",
                "The issuer cannot change: add the new authorization server (and remove this one).",
            ));
        }
        let before = audit_settings(&server);
        server.display_name = fields.display_name;
        server.resources = fields.resources;
        server.scopes = fields.scopes;
        server.clients = fields.clients;
        server.updated_at = self.now();
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::TRUSTING_SERVER_UPDATE,
            AuditSubject::TrustingServer(server.issuer.clone()),
            meta,
        );
        event.details = crate::audit::changes(&before, &audit_settings(&server));
        self.store.update_trusting_server(&server, &event).await?;
        Ok(server)
    }

    /// Enables or disables a trusting server: a disabled one gets no ID-JAGs (those issued
    /// already live their five minutes).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn set_trusting_server_enabled(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        enabled: bool,
        meta: &RequestMeta,
    ) -> Result<TrustingServer> {
        p.require(Permission::ManageRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let mut server = self.find_trusting_server_in(&realm, id).await?;
        if server.enabled == enabled {
            return Ok(server);
        }
        server.enabled = enabled;
        server.updated_at = self.now();
        let event = self.event(
            &realm.id,
            &p.email,
            if enabled {
                action::TRUSTING_SERVER_ENABLE
            } else {
                action::TRUSTING_SERVER_DISABLE
            },
            AuditSubject::TrustingServer(server.issuer.clone()),
            meta,
        );
        self.store.update_trusting_server(&server, &event).await?;
        Ok(server)
    }

    /// Removes a trusting server: no more ID-JAGs for it.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn delete_trusting_server(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let server = self.find_trusting_server_in(&realm, id).await?;
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::TRUSTING_SERVER_DELETE,
            AuditSubject::TrustingServer(server.issuer.clone()),
            meta,
        );
        event.details = audit_settings(&server);
        self.store
            .delete_trusting_server(&server.id, &event)
            .await?;
        Ok(())
    }

    /// Whether an enabled trusting server lists this confidential client: only then may it ask
    /// for ID-JAGs, whatever its own grant types.
    pub(crate) async fn lists_for_id_jags(
        &self,
        realm: &Realm,
        client: &crate::clients::Client,
    ) -> Result<bool> {
        if client.auth_method == AuthMethod::None {
            return Ok(false);
        }
        Ok(self
            .store
            .list_trusting_servers(&realm.id)
            .await?
            .iter()
            .any(|t| t.enabled && t.link_of(client).is_some()))
    }

    /// A realm's trusting server by id (`tas_…`) or by its exact issuer.
    async fn find_trusting_server_in(&self, realm: &Realm, id: &str) -> Result<TrustingServer> {
        self.store
            .list_trusting_servers(&realm.id)
            .await?
            .into_iter()
            .find(|t| t.id.as_str() == id || t.issuer == id)
            .ok_or_else(|| {
                Error::not_found(
                    "trusting authorization server",
                    id.chars().take(100).collect::<String>(),
                )
            })
    }

    /// Checks the form, then what needs the realm: not its own issuer (a realm never accepts
    /// its own ID-JAGs), and only clients of the realm that authenticate.
    async fn check_trusting_fields(
        &self,
        realm: &Realm,
        input: &TrustingServerInput,
    ) -> Result<TrustingServerFields> {
        let config = self.config();
        let mut fields =
            input.validate(config.allow_http_loopback || config.allow_loopback_fetch)?;
        if fields.issuer.trim_end_matches('/') == self.issuer(&realm.name) {
            return Err(Error::field(
                "issuer",
                "This is the realm's own issuer: a realm never accepts ID-JAGs it issued itself.",
            ));
        }
        for link in &mut fields.clients {
            let c = &link.client_id;
            match self.store.find_client(&realm.id, c).await? {
                None => {
                    return Err(Error::field(
                        "clients",
                        format!("No client {:?} in this realm.", c.as_str()),
                    ));
                }
                Some(client) if client.auth_method == AuthMethod::None => {
                    return Err(Error::field(
                        "clients",
                        format!(
                            "{:?} is a public client: only clients that authenticate (confidential clients) may ask for ID-JAGs.",
                            c.as_str()
                        ),
                    ));
                }
                Some(client) => link.client_pk = Some(client.id),
            }
        }
        Ok(fields)
    }
}
