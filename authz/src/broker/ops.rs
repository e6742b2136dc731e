//! Brokering administration: a realm's sign-in providers for its people (console and CLI), and
//! whether its sign-in page still takes the local password.
use super::model::{RealmProviderListing, SignInButton};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result};
use crate::policy::{Permission, Principal};
use crate::realms::Realm;
use crate::sso::{Discovery, SsoProvider, SsoProviderId, SsoProviderInput};

impl Core {
    /// A realm's sign-in providers for its people, with how many people come from each and the
    /// units and rings their mappings name that the registry no longer has.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm).
    pub async fn list_realm_providers(
        &self,
        p: &Principal,
        realm_name: &str,
    ) -> Result<(Realm, Vec<RealmProviderListing>)> {
        p.require(Permission::ViewPeople)?;
        let realm = self.find_realm(realm_name).await?;
        let mut out = Vec::new();
        for provider in self.store.list_sso_providers(&realm.id, true).await? {
            out.push(RealmProviderListing {
                people: self.store.count_provider_people(&provider.id).await?,
                missing: self.missing_targets(&realm, &provider.group_mapping).await,
                provider,
            });
        }
        Ok((realm, out))
    }

    /// Adds a sign-in provider for a realm's people.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `InvalidField` (nothing written), `Taken`, `Conflict`
    /// (too many).
    pub async fn create_realm_provider(
        &self,
        p: &Principal,
        realm_name: &str,
        input: &SsoProviderInput,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        p.require(Permission::ManagePeople)?;
        let realm = self.find_realm(realm_name).await?;
        self.insert_provider(p, &realm, true, input, meta).await
    }

    /// Changes a realm provider's settings (an empty secret keeps the stored one unless
    /// `clear_secret`).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `InvalidField`, `Taken`.
    pub async fn update_realm_provider(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        input: &SsoProviderInput,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        p.require(Permission::ManagePeople)?;
        let (_, provider) = self.realm_provider(realm_name, id).await?;
        self.change_provider(p, provider, input, meta).await
    }

    /// Enables or disables a realm provider. While it is disabled nobody signs in through it,
    /// and the people who come from it can neither sign in nor refresh their apps' tokens.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `Conflict` (the last enabled provider of a realm whose password
    /// sign-in is off).
    pub async fn set_realm_provider_enabled(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        enabled: bool,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        p.require(Permission::ManagePeople)?;
        let (realm, provider) = self.realm_provider(realm_name, id).await?;
        if provider.enabled == enabled {
            return Ok(provider);
        }
        if !enabled {
            self.keep_realm_way_in(&realm, &provider).await?;
        }
        self.switch_provider(p, provider, enabled, meta).await
    }

    /// Removes a realm provider that nobody comes from any more.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `Conflict` (people come from it; the last enabled provider of a
    /// realm whose password sign-in is off).
    pub async fn delete_realm_provider(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManagePeople)?;
        let (realm, provider) = self.realm_provider(realm_name, id).await?;
        let people = self.store.count_provider_people(&provider.id).await?;
        if people > 0 {
            return Err(Error::Conflict(
                format!("{people} people come from this provider: disable it instead (they then cannot sign in), or keep it.").into(),
            ));
        }
        if provider.enabled {
            self.keep_realm_way_in(&realm, &provider).await?;
        }
        self.remove_provider(p, &provider, meta).await
    }

    /// Runs discovery at a realm provider now and reports what it found.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`; `Ok(Err(message))` when the provider could not be discovered.
    pub async fn test_realm_provider(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
    ) -> Result<std::result::Result<Discovery, String>> {
        p.require(Permission::ViewPeople)?;
        let (_, provider) = self.realm_provider(realm_name, id).await?;
        Ok(self.discover_provider(&provider).await)
    }

    /// Turns the realm's password sign-in on, or off (its people then sign in through its
    /// providers only; turning it off needs an enabled provider).
    ///
    /// # Errors
    /// `Forbidden`, `NotFound` (realm), `Conflict` (no enabled provider).
    pub async fn set_realm_password_sign_in(
        &self,
        p: &Principal,
        realm_name: &str,
        on: bool,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManagePeople)?;
        let realm = self.find_realm(realm_name).await?;
        if realm.password_sign_in == on {
            return Ok(());
        }
        if !on && self.sign_in_buttons(&realm).await?.is_empty() {
            return Err(Error::Conflict(
                "Add and enable a sign-in provider for this realm first: with password sign-in off, its people sign in through one.".into(),
            ));
        }
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::REALM_UPDATE,
            AuditSubject::Realm(realm.name.to_string()),
            meta,
        );
        event.details = serde_json::json!({"password_sign_in": {"before": !on, "after": on}});
        Ok(self
            .store
            .set_realm_password_sign_in(&realm.id, on, self.now(), &event)
            .await?)
    }

    /// The redirect URI to register at a realm provider.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn realm_provider_redirect_uri(
        &self,
        p: &Principal,
        realm_name: &str,
        id: &str,
    ) -> Result<String> {
        p.require(Permission::ViewPeople)?;
        let (realm, provider) = self.realm_provider(realm_name, id).await?;
        Ok(self.upstream_redirect_uri(&realm, &provider.id))
    }

    /// The enabled providers' buttons for a realm's sign-in page.
    pub(crate) async fn sign_in_buttons(&self, realm: &Realm) -> Result<Vec<SignInButton>> {
        Ok(self
            .store
            .list_sso_providers(&realm.id, true)
            .await?
            .into_iter()
            .filter(|p| p.enabled)
            .map(|p| SignInButton {
                id: p.id.to_string(),
                text: p.button_text,
            })
            .collect())
    }

    /// A realm's provider by id (a console provider, or another realm's, is not found).
    pub(crate) async fn realm_provider(
        &self,
        realm_name: &str,
        id: &str,
    ) -> Result<(Realm, SsoProvider)> {
        let realm = self.find_realm(realm_name).await?;
        let not_found =
            || Error::not_found("sign-in provider", id.chars().take(64).collect::<String>());
        if id.len() > 64 {
            return Err(not_found());
        }
        let provider = self
            .store
            .find_sso_provider(&SsoProviderId::from_stored(id.to_owned()))
            .await?
            .filter(|p| p.realm_id == realm.id && p.for_people)
            .ok_or_else(not_found)?;
        Ok((realm, provider))
    }

    /// Refuses to take away a realm's last enabled provider while its password sign-in is off.
    async fn keep_realm_way_in(&self, realm: &Realm, provider: &SsoProvider) -> Result<()> {
        if !realm.password_sign_in
            && self
                .sign_in_buttons(realm)
                .await?
                .iter()
                .all(|b| b.id == provider.id.as_str())
        {
            return Err(Error::Conflict(
                "This is the realm's only enabled sign-in provider and its password sign-in is off: turn password sign-in back on first, or nobody can sign in.".into(),
            ));
        }
        Ok(())
    }
}
