//! Federation operations: administrators manage the identity providers a realm trusts for
//! ID-JAG assertions (console and CLI).
use super::model::{
    IssuerKeys, MAX_TRUSTED_ISSUERS, PersonIdentity, TrustedIssuer, TrustedIssuerFields,
    TrustedIssuerId, TrustedIssuerInput,
};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::clients::AuthMethod;
use crate::core::Core;
use crate::error::{Error, Result, map_taken};
use crate::people::{Person, PersonId};
use crate::policy::{Permission, Principal};
use crate::realms::Realm;

/// What the audit log records of an issuer's settings (keys by URL or count, never their text).
fn audit_settings(t: &TrustedIssuer) -> serde_json::Value {
    let keys = match &t.keys {
        IssuerKeys::Uri(u) => u.clone(),
        IssuerKeys::Inline(doc) => format!(
            "inline ({} keys)",
            doc["keys"].as_array().map_or(0, Vec::len)
        ),
    };
    serde_json::json!({
        "issuer": t.issuer,
        "display_name": t.display_name,
        "keys": keys,
        "algorithms": t.algorithms.iter().map(|a| a.as_str()).collect::<Vec<_>>().join(" "),
        "clients": t.clients.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(" "),
        "create_people": t.create_people,
        "link_by_email": t.link_by_email,
    })
}

const TAKEN: &str = "This realm trusts this issuer already.";

impl Core {
    /// The identity providers a realm trusts for ID-JAG assertions.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn list_trusted_issuers(
        &self,
        p: &Principal,
        realm_name: &str,
    ) -> Result<Vec<TrustedIssuer>> {
        // Their keys, settings and client lists are the admins' (developers see realms, not
        // clients).
        p.require(Permission::ManageRealms)?;
        let realm = self.find_realm(realm_name).await?;
        Ok(self.store.list_trusted_issuers(&realm.id).await?)
    }

    /// Trusts an identity provider's ID-JAG assertions in a realm.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField`/`Findings` (nothing written), `Taken`
    /// (issuer already trusted), `Conflict` (too many).
    pub async fn create_trusted_issuer(
        &self,
        p: &Principal,
        realm_name: &str,
        input: &TrustedIssuerInput,
        meta: &RequestMeta,
    ) -> Result<TrustedIssuer> {
        p.require(Permission::ManageRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let fields = self.check_issuer_fields(&realm, input).await?;
        if self.store.list_trusted_issuers(&realm.id).await?.len() >= MAX_TRUSTED_ISSUERS {
            return Err(Error::Conflict(
                format!(
                    "A realm trusts at most {MAX_TRUSTED_ISSUERS} identity providers; remove one first."
                )
                .into(),
            ));
        }
        let now = self.now();
        let issuer = TrustedIssuer {
            id: TrustedIssuerId::generate(),
            realm_id: realm.id.clone(),
            issuer: fields.issuer.clone(),
            display_name: fields.display_name.clone(),
            keys: fields.keys.clone(),
            algorithms: fields.algorithms.clone(),
            clients: fields.clients.clone(),
            create_people: fields.create_people,
            link_by_email: fields.link_by_email,
            enabled: true,
            created_at: now,
            updated_at: now,
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::TRUSTED_ISSUER_CREATE,
            AuditSubject::TrustedIssuer(issuer.issuer.clone()),
            meta,
        );
        event.details = audit_settings(&issuer);
        self.store
            .insert_trusted_issuer(&issuer, &event)
            .await
            .map_err(|e| map_taken(e, "issuer", TAKEN))?;
        Ok(issuer)
    }

    /// Changes a trusted identity provider's settings; new keys, or a client taken off its
    /// list, revoke the tokens its assertions bought.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `InvalidField`/`Findings`, `Taken`.
    pub async fn update_trusted_issuer(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        input: &TrustedIssuerInput,
        meta: &RequestMeta,
    ) -> Result<TrustedIssuer> {
        p.require(Permission::ManageRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let mut issuer = self.find_trusted_issuer_in(&realm, id).await?;
        let fields = self.check_issuer_fields(&realm, input).await?;
        // People are linked to an issuer by its identifier: another one is another provider.
        if fields.issuer != issuer.issuer {
            return Err(Error::field(
                "issuer",
                "The issuer cannot change: trust the new one as another identity provider (and remove this one).",
            ));
        }
        let before = audit_settings(&issuer);
        // New keys (the old ones may be compromised) or a client taken off the list: what the
        // provider's assertions bought so far is revoked.
        let revoke = fields.keys != issuer.keys
            || issuer.clients.iter().any(|c| !fields.clients.contains(c));
        issuer.apply(fields);
        issuer.updated_at = self.now();
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::TRUSTED_ISSUER_UPDATE,
            AuditSubject::TrustedIssuer(issuer.issuer.clone()),
            meta,
        );
        event.details = crate::audit::changes(&before, &audit_settings(&issuer));
        self.store
            .update_trusted_issuer(&issuer, revoke, &event)
            .await
            .map_err(|e| map_taken(e, "issuer", TAKEN))?;
        Ok(issuer)
    }

    /// Enables or disables a trusted identity provider: a disabled one's assertions are
    /// refused, and the tokens they bought are revoked (servers that introspect refuse them at
    /// once).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn set_trusted_issuer_enabled(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        enabled: bool,
        meta: &RequestMeta,
    ) -> Result<TrustedIssuer> {
        p.require(Permission::ManageRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let mut issuer = self.find_trusted_issuer_in(&realm, id).await?;
        if issuer.enabled == enabled {
            return Ok(issuer);
        }
        issuer.enabled = enabled;
        issuer.updated_at = self.now();
        let event = self.event(
            &realm.id,
            &p.email,
            if enabled {
                action::TRUSTED_ISSUER_ENABLE
            } else {
                action::TRUSTED_ISSUER_DISABLE
            },
            AuditSubject::TrustedIssuer(issuer.issuer.clone()),
            meta,
        );
        self.store
            .set_trusted_issuer_enabled(&issuer.id, enabled, issuer.updated_at, &event)
            .await?;
        Ok(issuer)
    }

    /// Stops trusting an identity provider: its assertions are refused, the tokens they bought
    /// are revoked, and its links to people are removed (the people stay).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn delete_trusted_issuer(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let issuer = self.find_trusted_issuer_in(&realm, id).await?;
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::TRUSTED_ISSUER_DELETE,
            AuditSubject::TrustedIssuer(issuer.issuer.clone()),
            meta,
        );
        event.details = audit_settings(&issuer);
        self.store.delete_trusted_issuer(&issuer.id, &event).await?;
        Ok(())
    }

    /// A trusted identity provider's signing keys as this server sees them now: its JWKS URL
    /// fetched at once (the answer also refreshes the cache assertions are checked with), or
    /// its pasted keys; each as `kid (alg)`, marked when no accepted algorithm uses it.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `Invalid` (the fetch failed or the document is no public JWK
    /// Set: the message says why).
    pub async fn check_trusted_issuer_keys(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
    ) -> Result<Vec<String>> {
        p.require(Permission::ManageRealms)?;
        let realm = self.find_realm(realm_name).await?;
        let issuer = self.find_trusted_issuer_in(&realm, id).await?;
        let doc = match &issuer.keys {
            IssuerKeys::Inline(doc) => doc.clone(),
            IssuerKeys::Uri(uri) => self
                .fetch_jwks(&issuer.issuer, uri, self.now())
                .await
                .map_err(|e| Error::Invalid(format!("Fetching {uri} {e}").into()))?,
        };
        let keys = doc["keys"].as_array().cloned().unwrap_or_default();
        Ok(keys
            .iter()
            .filter_map(|k| crate::keys::Verifier::from_jwk(k).ok())
            .map(|v| {
                let kid = if v.kid().is_empty() {
                    "(no kid)"
                } else {
                    v.kid()
                };
                if issuer.algorithms.contains(&v.alg()) {
                    format!("{kid} ({})", v.alg())
                } else {
                    format!("{kid} ({}, not an accepted algorithm: unused)", v.alg())
                }
            })
            .collect())
    }

    /// The identity providers' identities linked to a person of the realm, oldest first.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm or person).
    pub async fn person_identities(
        &self,
        p: &Principal,
        realm_name: &str,
        person_id: &str,
    ) -> Result<Vec<PersonIdentity>> {
        p.require(Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        let person = self.linked_person(&realm, person_id).await?;
        Ok(self.store.list_person_identities(&person.id).await?)
    }

    /// Links an identity provider's identity (its `sub` for them) to a person: its assertions
    /// for that subject then act as them. For providers that may neither link nor create
    /// people, and for people whose email differs at the provider.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm or person), `InvalidField` (`issuer`: not a trusted
    /// provider; `subject`), `Taken` (`subject`: linked to someone already).
    pub async fn link_person_identity(
        &self,
        p: &Principal,
        realm_name: &str,
        person_id: &str,
        (issuer, subject): (&str, &str),
        meta: &RequestMeta,
    ) -> Result<PersonIdentity> {
        p.require(Permission::ManagePeople)?;
        let realm = self.find_realm(realm_name).await?;
        let person = self.linked_person(&realm, person_id).await?;
        let issuer = issuer.trim();
        if self
            .store
            .find_trusted_issuer(&realm.id, issuer)
            .await?
            .is_none()
        {
            return Err(Error::field(
                "issuer",
                "Choose an identity provider this realm trusts.",
            ));
        }
        let subject = subject.trim();
        if subject.is_empty() || subject.len() > 255 || subject.chars().any(char::is_control) {
            return Err(Error::field(
                "subject",
                "The provider's subject (sub) for them: 1 to 255 characters.",
            ));
        }
        let link = PersonIdentity {
            realm_id: realm.id.clone(),
            issuer: issuer.to_owned(),
            subject: subject.to_owned(),
            person_id: person.id.clone(),
            created_at: self.now(),
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::PERSON_LINK,
            AuditSubject::Person(person.id.to_string()),
            meta,
        );
        event.details =
            serde_json::json!({"issuer": issuer, "idp_subject": subject, "by": "administrator"});
        self.store
            .insert_person_identity(&link, &event)
            .await
            .map_err(|e| {
                map_taken(
                    e,
                    "subject",
                    "This identity is linked to a person already; unlink it there first.",
                )
            })?;
        Ok(link)
    }

    /// Unlinks an identity provider's identity from a person: its next assertions for that
    /// subject no longer name them (and are linked or created again only as the provider's
    /// settings allow), and the tokens its assertions bought for them are revoked.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm, person, or no such link).
    pub async fn unlink_person_identity(
        &self,
        p: &Principal,
        realm_name: &str,
        person_id: &str,
        (issuer, subject): (&str, &str),
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManagePeople)?;
        let realm = self.find_realm(realm_name).await?;
        let person = self.linked_person(&realm, person_id).await?;
        let link = PersonIdentity {
            realm_id: realm.id.clone(),
            issuer: issuer.to_owned(),
            subject: subject.to_owned(),
            person_id: person.id.clone(),
            created_at: 0,
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::PERSON_UNLINK,
            AuditSubject::Person(person.id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"issuer": issuer, "idp_subject": subject});
        self.store
            .delete_person_identity(&link, self.now(), &event)
            .await
            .map_err(|e| match e {
                crate::error::StorageError::NotFound => {
                    Error::not_found("link", subject.chars().take(100).collect::<String>())
                }
                other => other.into(),
            })
    }

    async fn linked_person(&self, realm: &Realm, id: &str) -> Result<Person> {
        self.store
            .find_person(&realm.id, &PersonId::from_stored(id))
            .await?
            .ok_or_else(|| Error::not_found("person", id.chars().take(100).collect::<String>()))
    }

    /// A realm's trusted issuer by id (`tis_…`) or by its exact issuer URL.
    async fn find_trusted_issuer_in(&self, realm: &Realm, id: &str) -> Result<TrustedIssuer> {
        self.store
            .list_trusted_issuers(&realm.id)
            .await?
            .into_iter()
            .find(|t| t.id.as_str() == id || t.issuer == id)
            .ok_or_else(|| {
                Error::not_found(
                    "trusted identity provider",
                    id.chars().take(100).collect::<String>(),
                )
            })
    }

    /// Checks the form, then what needs the realm: not its own issuer, and only clients of the
    /// realm that authenticate.
    async fn check_issuer_fields(
        &self,
        realm: &Realm,
        input: &TrustedIssuerInput,
    ) -> Result<TrustedIssuerFields> {
        let config = self.config();
        let fields = input.validate((config.allow_http_loopback, config.allow_loopback_fetch))?;
        if fields.issuer.trim_end_matches('/') == self.issuer(&realm.name) {
            return Err(Error::field(
                "issuer",
                "This is the realm's own issuer: a realm never accepts assertions it issued itself.",
            ));
        }
        for c in &fields.clients {
            let found = self.store.find_client(&realm.id, c).await?;
            match found {
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
                            "{:?} is a public client: ID-JAGs are accepted only from clients that authenticate (confidential clients).",
                            c.as_str()
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(fields)
    }
}
