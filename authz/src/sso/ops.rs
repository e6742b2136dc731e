//! Console single sign-on operations: admins manage the sign-in providers and the password
//! sign-in switch (console and CLI); the sign-in itself is in `signin.rs`.
use super::model::{
    Discovery, MAX_SSO_PROVIDERS, RoleRules, SsoProvider, SsoProviderId, SsoProviderInput,
    UserIdentity, parse_auth_values, parse_claim_name, parse_scopes, parse_sso_client_id,
    parse_values,
};
use super::rp::{self, RelyingParty};
use crate::accounts::{User, UserId};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, FieldChecks, Result, map_taken};
use crate::federation::parse_issuer;
use crate::policy::{Permission, Principal};
use crate::realms::parse_display_name;

const TAKEN: &str = "A sign-in provider with this issuer and client ID exists already.";

/// What the audit log records of a provider's settings (never the secret, only whether one is
/// set).
fn audit_settings(p: &SsoProvider) -> serde_json::Value {
    serde_json::json!({
        "display_name": p.display_name,
        "button_text": p.button_text,
        "issuer": p.issuer,
        "client_id": p.client_id,
        "client_secret": if p.sealed_client_secret.is_some() { "set" } else { "none" },
        "scopes": p.scopes.join(" "),
        "groups_claim": p.groups_claim,
        "admin_groups": p.rules.admin,
        "security_reviewer_groups": p.rules.security_reviewer,
        "developer_groups": p.rules.developer,
        "trust_email": p.trust_email,
        "second_factor_amr": p.second_factor_amr,
        "second_factor_acr": p.second_factor_acr,
        "group_mapping": super::group_mapping_text(&p.group_mapping),
    })
}

/// The associated data a provider's secret is sealed with: the secret only opens for its row.
fn secret_aad(id: &SsoProviderId) -> Vec<u8> {
    format!("sso_provider:{id}").into_bytes()
}

/// Checked settings of a provider (the secret as typed, still to be sealed).
struct Fields {
    display_name: String,
    button_text: String,
    issuer: String,
    client_id: String,
    scopes: Vec<String>,
    groups_claim: String,
    rules: RoleRules,
    second_factor_amr: Vec<String>,
    second_factor_acr: Vec<String>,
    group_mapping: Vec<super::GroupRule>,
}

impl Core {
    /// The console's sign-in providers.
    ///
    /// # Errors
    /// `Forbidden`.
    pub async fn list_sso_providers(&self, p: &Principal) -> Result<Vec<SsoProvider>> {
        p.require(Permission::ManageUsers)?;
        let realm = self.admin_realm().await?;
        Ok(self.store.list_sso_providers(&realm.id, false).await?)
    }

    /// The enabled sign-in providers, for the sign-in page (anyone may see their buttons).
    ///
    /// # Errors
    /// On storage failure.
    pub async fn sign_in_providers(&self) -> Result<Vec<SsoProvider>> {
        let realm = self.admin_realm().await?;
        let mut all = self.store.list_sso_providers(&realm.id, false).await?;
        all.retain(|p| p.enabled);
        Ok(all)
    }

    /// Where a provider sends people back after signing them out (its post-logout redirect URI).
    pub fn sso_post_logout_uri(&self) -> String {
        format!("{}/login", self.base_url())
    }

    /// The provider the signed-in account signs in with (its name), if any, and the enabled
    /// providers it could connect: for the Account page.
    ///
    /// # Errors
    /// `Forbidden`, or storage failure.
    pub async fn own_sign_in(&self, p: &Principal) -> Result<(Option<String>, Vec<SsoProvider>)> {
        p.require(Permission::ManageOwnAccount)?;
        let linked = self
            .store
            .find_user(&p.user_id)
            .await?
            .and_then(|u| u.sso_provider);
        let providers = if linked.is_some() {
            Vec::new()
        } else {
            self.sign_in_providers().await?
        };
        Ok((linked, providers))
    }

    /// The redirect URI a realm's provider sends its people back to (registered at the
    /// provider).
    pub fn upstream_redirect_uri(
        &self,
        realm: &crate::realms::Realm,
        id: &SsoProviderId,
    ) -> String {
        format!(
            "{}/realms/{}/upstream/{id}/callback",
            self.base_url(),
            realm.name
        )
    }

    /// The redirect URI a provider sends people back to (registered at the provider).
    pub fn sso_redirect_uri(&self, id: &SsoProviderId) -> String {
        format!("{}/login/sso/{id}/callback", self.base_url())
    }

    /// Checks a provider's settings: console providers need a role rule, the realm's (for
    /// people) a group mapping whose units and rings the registry has.
    async fn check_sso_fields(
        &self,
        input: &SsoProviderInput,
        realm: &crate::realms::Realm,
        for_people: bool,
    ) -> Result<Fields> {
        let mut checks = FieldChecks::default();
        let display_name = checks.take(
            "display_name",
            parse_display_name(&input.display_name, "Name"),
        );
        let button_text = if input.button_text.trim().is_empty() {
            display_name.as_ref().map(|n| format!("Sign in with {n}"))
        } else {
            checks.take(
                "button_text",
                parse_display_name(&input.button_text, "Button text"),
            )
        };
        let issuer = checks.take(
            "issuer",
            parse_issuer(&input.issuer, self.config().allow_http_loopback),
        );
        let client_id = checks.take("client_id", parse_sso_client_id(&input.client_id));
        let scopes = checks.take("scopes", parse_scopes(&input.scopes));
        let groups_claim = checks.take("groups_claim", parse_claim_name(&input.groups_claim));
        let admin = checks.take(
            "admin_groups",
            parse_values(&input.admin_groups, "Admin groups"),
        );
        let security_reviewer = checks.take(
            "reviewer_groups",
            parse_values(&input.reviewer_groups, "Security reviewer groups"),
        );
        let developer = checks.take(
            "developer_groups",
            parse_values(&input.developer_groups, "Developer groups"),
        );
        let amr = checks.take(
            "second_factor_amr",
            parse_auth_values(&input.second_factor_amr, "amr values"),
        );
        let acr = checks.take(
            "second_factor_acr",
            parse_auth_values(&input.second_factor_acr, "acr values"),
        );
        let mapping = if for_people {
            checks.take(
                "group_mapping",
                super::parse_group_mapping(&input.group_mapping),
            )
        } else {
            Some(Vec::new())
        };
        if input.client_secret.len() > 1024 {
            checks.note(
                "client_secret",
                "The client secret must be at most 1024 characters.",
            );
        }
        let (
            Some(display_name),
            Some(button_text),
            Some(issuer),
            Some(client_id),
            Some(scopes),
            Some(groups_claim),
            Some(admin),
            Some(security_reviewer),
            Some(developer),
            Some(second_factor_amr),
            Some(second_factor_acr),
            Some(group_mapping),
        ) = (
            display_name,
            button_text,
            issuer,
            client_id,
            scopes,
            groups_claim,
            admin,
            security_reviewer,
            developer,
            amr,
            acr,
            mapping,
        )
        else {
            return Err(checks.failed());
        };
        let rules = RoleRules {
            admin,
            security_reviewer,
            developer,
        };
        if for_people {
            let missing = self.missing_targets(realm, &group_mapping).await;
            if !missing.is_empty() {
                return Err(Error::field(
                    "group_mapping",
                    format!(
                        "The registry has no {}: add it to the draft first (MCP registry → Rings & units). Ids are lowercase and matched exactly.",
                        missing.join(", ")
                    ),
                ));
            }
        } else if rules.is_empty() {
            return Err(Error::field(
                "admin_groups",
                "Map at least one group to a role (or * to give everyone the provider signs in a role): without a rule nobody can sign in.",
            ));
        }
        Ok(Fields {
            display_name,
            button_text,
            issuer,
            client_id,
            scopes,
            groups_claim,
            rules,
            second_factor_amr,
            second_factor_acr,
            group_mapping,
        })
    }

    fn seal_sso_secret(&self, id: &SsoProviderId, secret: &str) -> Result<Option<Vec<u8>>> {
        let secret = secret.trim();
        if secret.is_empty() {
            return Ok(None);
        }
        self.config()
            .master_key
            .seal(secret.as_bytes(), &secret_aad(id))
            .map(Some)
            .map_err(|e| Error::Internal(format!("sealing a client secret: {e}")))
    }

    fn open_sso_secret(&self, p: &SsoProvider) -> Result<Option<String>> {
        let Some(sealed) = &p.sealed_client_secret else {
            return Ok(None);
        };
        let plain = self
            .config()
            .master_key
            .open(sealed, &secret_aad(&p.id))
            .map_err(|e| Error::Internal(format!("opening the client secret of {}: {e}", p.id)))?;
        String::from_utf8(plain)
            .map(Some)
            .map_err(|_| Error::Internal("a client secret is not UTF-8".into()))
    }

    /// Adds a sign-in provider.
    ///
    /// # Errors
    /// `Forbidden`, `InvalidField` (nothing written), `Taken`, `Conflict` (too many).
    pub async fn create_sso_provider(
        &self,
        p: &Principal,
        input: &SsoProviderInput,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        p.require(Permission::ManageUsers)?;
        let realm = self.admin_realm().await?;
        self.insert_provider(p, &realm, false, input, meta).await
    }

    /// Adds a sign-in provider to a realm: for console accounts (the administration realm),
    /// or, `for_people`, for the realm's people.
    pub(crate) async fn insert_provider(
        &self,
        p: &Principal,
        realm: &crate::realms::Realm,
        for_people: bool,
        input: &SsoProviderInput,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        let f = self.check_sso_fields(input, realm, for_people).await?;
        if self
            .store
            .list_sso_providers(&realm.id, for_people)
            .await?
            .len()
            >= MAX_SSO_PROVIDERS
        {
            return Err(Error::Conflict(if for_people {
                format!("A realm offers at most {MAX_SSO_PROVIDERS} sign-in providers; remove one first.").into()
            } else {
                format!("The console offers at most {MAX_SSO_PROVIDERS} sign-in providers; remove one first.").into()
            }));
        }
        let id = SsoProviderId::generate();
        let now = self.now();
        let provider = SsoProvider {
            sealed_client_secret: self.seal_sso_secret(&id, &input.client_secret)?,
            id,
            realm_id: realm.id.clone(),
            display_name: f.display_name,
            button_text: f.button_text,
            issuer: f.issuer,
            client_id: f.client_id,
            scopes: f.scopes,
            groups_claim: f.groups_claim,
            rules: f.rules,
            trust_email: input.trust_email,
            second_factor_amr: f.second_factor_amr,
            second_factor_acr: f.second_factor_acr,
            for_people,
            group_mapping: f.group_mapping,
            enabled: true,
            created_at: now,
            updated_at: now,
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::SSO_PROVIDER_CREATE,
            AuditSubject::SsoProvider(provider.id.to_string()),
            meta,
        );
        event.details = audit_settings(&provider);
        self.store
            .insert_sso_provider(&provider, &event)
            .await
            .map_err(|e| map_taken(e, "issuer", TAKEN))?;
        Ok(provider)
    }

    /// Changes a sign-in provider's settings. An empty secret keeps the stored one unless
    /// `clear_secret`.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `InvalidField`, `Taken`.
    pub async fn update_sso_provider(
        &self,
        p: &Principal,
        id: &str,
        input: &SsoProviderInput,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        p.require(Permission::ManageUsers)?;
        let provider = self.load_sso_provider(id).await?;
        self.change_provider(p, provider, input, meta).await
    }

    /// Changes a provider's settings (console or realm).
    pub(crate) async fn change_provider(
        &self,
        p: &Principal,
        mut provider: SsoProvider,
        input: &SsoProviderInput,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        let realm = self
            .store
            .find_realm(&provider.realm_id)
            .await?
            .ok_or_else(|| Error::not_found("realm", provider.realm_id.as_str()))?;
        let f = self
            .check_sso_fields(input, &realm, provider.for_people)
            .await?;
        // Accounts are linked to a provider by its subjects, which only its issuer numbers.
        if f.issuer != provider.issuer {
            return Err(Error::field(
                "issuer",
                "The issuer cannot change: accounts are linked to this provider by the subjects its issuer names. Add the new issuer as another provider.",
            ));
        }
        let before = audit_settings(&provider);
        if input.clear_secret {
            provider.sealed_client_secret = None;
        } else if !input.client_secret.trim().is_empty() {
            provider.sealed_client_secret =
                self.seal_sso_secret(&provider.id, &input.client_secret)?;
        }
        let secret_changed = input.clear_secret || !input.client_secret.trim().is_empty();
        // A button text that was the default follows the name.
        let default_before = format!("Sign in with {}", provider.display_name);
        provider.button_text = if input.button_text.trim() == default_before {
            format!("Sign in with {}", f.display_name)
        } else {
            f.button_text
        };
        provider.display_name = f.display_name;
        provider.issuer = f.issuer;
        provider.client_id = f.client_id;
        provider.scopes = f.scopes;
        provider.groups_claim = f.groups_claim;
        provider.rules = f.rules;
        provider.trust_email = input.trust_email;
        provider.second_factor_amr = f.second_factor_amr;
        provider.second_factor_acr = f.second_factor_acr;
        provider.group_mapping = f.group_mapping;
        provider.updated_at = self.now();
        let mut event = self.event(
            &provider.realm_id,
            &p.email,
            action::SSO_PROVIDER_UPDATE,
            AuditSubject::SsoProvider(provider.id.to_string()),
            meta,
        );
        let mut details = crate::audit::changes(&before, &audit_settings(&provider));
        if secret_changed && let Some(obj) = details.as_object_mut() {
            obj.insert("client_secret".into(), serde_json::json!("changed"));
        }
        event.details = details;
        self.store
            .update_sso_provider(&provider, &event)
            .await
            .map_err(|e| map_taken(e, "issuer", TAKEN))?;
        Ok(provider)
    }

    /// Enables or disables a sign-in provider; disabling ends its accounts' sessions.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn set_sso_provider_enabled(
        &self,
        p: &Principal,
        id: &str,
        enabled: bool,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        p.require(Permission::ManageUsers)?;
        let provider = self.load_sso_provider(id).await?;
        if provider.enabled == enabled {
            return Ok(provider);
        }
        if !enabled {
            self.keep_a_way_in(&provider).await?;
        }
        self.switch_provider(p, provider, enabled, meta).await
    }

    /// Enables or disables a provider (console or realm), with the audit row.
    pub(crate) async fn switch_provider(
        &self,
        p: &Principal,
        mut provider: SsoProvider,
        enabled: bool,
        meta: &RequestMeta,
    ) -> Result<SsoProvider> {
        provider.enabled = enabled;
        provider.updated_at = self.now();
        let event = self.event(
            &provider.realm_id,
            &p.email,
            if enabled {
                action::SSO_PROVIDER_ENABLE
            } else {
                action::SSO_PROVIDER_DISABLE
            },
            AuditSubject::SsoProvider(provider.id.to_string()),
            meta,
        );
        self.store
            .set_sso_provider_enabled(&provider.id, enabled, provider.updated_at, &event)
            .await?;
        Ok(provider)
    }

    /// Removes a sign-in provider: its accounts stay (without a password they can no longer
    /// sign in) and their sessions end.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn delete_sso_provider(
        &self,
        p: &Principal,
        id: &str,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageUsers)?;
        let provider = self.load_sso_provider(id).await?;
        if provider.enabled {
            self.keep_a_way_in(&provider).await?;
        }
        self.remove_provider(p, &provider, meta).await
    }

    /// Removes a provider (console or realm), with the audit row.
    pub(crate) async fn remove_provider(
        &self,
        p: &Principal,
        provider: &SsoProvider,
        meta: &RequestMeta,
    ) -> Result<()> {
        let mut event = self.event(
            &provider.realm_id,
            &p.email,
            action::SSO_PROVIDER_DELETE,
            AuditSubject::SsoProvider(provider.id.to_string()),
            meta,
        );
        event.details = audit_settings(provider);
        Ok(self.store.delete_sso_provider(&provider.id, &event).await?)
    }

    /// Refuses to take away the last enabled provider while password sign-in is off: nobody
    /// but break-glass admins could sign in.
    async fn keep_a_way_in(&self, provider: &SsoProvider) -> Result<()> {
        if self.store.password_sign_in_break_glass_only().await?
            && self
                .sign_in_providers()
                .await?
                .iter()
                .all(|p| p.id == provider.id)
        {
            return Err(Error::Conflict(
                "This is the only enabled sign-in provider and password sign-in is off: turn password sign-in back on first, or nobody but break-glass admins can sign in.".into(),
            ));
        }
        Ok(())
    }

    /// Runs discovery at a provider now (bypassing the cache) and reports what it found.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`; `Ok(Err(message))` when the provider could not be discovered.
    pub async fn test_sso_provider(
        &self,
        p: &Principal,
        id: &str,
    ) -> Result<std::result::Result<Discovery, String>> {
        p.require(Permission::ManageUsers)?;
        let provider = self.load_sso_provider(id).await?;
        Ok(self.discover_provider(&provider).await)
    }

    /// The units and rings a group mapping names that the registry (draft or latest release)
    /// does not have, as `unit platform`.
    pub(crate) async fn missing_targets(
        &self,
        realm: &crate::realms::Realm,
        mapping: &[super::GroupRule],
    ) -> Vec<String> {
        let mut missing = Vec::new();
        for rule in mapping {
            let kind = match rule.kind {
                super::MappingKind::Role => continue,
                super::MappingKind::Unit => crate::registry::GroupKind::Unit,
                super::MappingKind::Ring => crate::registry::GroupKind::Ring,
            };
            let named = format!("{} {}", rule.kind.as_str(), rule.target);
            if !missing.contains(&named)
                && self
                    .group_exists(realm, (kind, &rule.target))
                    .await
                    .is_err()
            {
                missing.push(named);
            }
        }
        missing
    }

    /// Runs discovery at a provider now (bypassing the cache).
    pub(crate) async fn discover_provider(
        &self,
        provider: &SsoProvider,
    ) -> std::result::Result<Discovery, String> {
        rp::metadata(
            &self.fetcher,
            &self.sso_metadata,
            &provider.issuer,
            self.now(),
            true,
        )
        .await
        .map(|m| rp::discovery(&m))
    }

    pub(super) async fn load_sso_provider(&self, id: &str) -> Result<SsoProvider> {
        let not_found =
            || Error::not_found("sign-in provider", id.chars().take(64).collect::<String>());
        if id.len() > 64 {
            return Err(not_found());
        }
        let realm = self.admin_realm().await?;
        self.store
            .find_sso_provider(&SsoProviderId::from_stored(id.to_owned()))
            .await?
            .filter(|p| p.realm_id == realm.id && !p.for_people)
            .ok_or_else(not_found)
    }

    pub(crate) async fn relying_party(
        &self,
        provider: &SsoProvider,
        fresh: bool,
    ) -> std::result::Result<RelyingParty, String> {
        let redirect_uri = if provider.for_people {
            match self.store.find_realm(&provider.realm_id).await {
                Ok(Some(realm)) => self.upstream_redirect_uri(&realm, &provider.id),
                Ok(None) => return Err("the provider's realm is gone".into()),
                Err(e) => return Err(e.to_string()),
            }
        } else {
            self.sso_redirect_uri(&provider.id)
        };
        let metadata = rp::metadata(
            &self.fetcher,
            &self.sso_metadata,
            &provider.issuer,
            self.now(),
            fresh,
        )
        .await?;
        let secret = self.open_sso_secret(provider).map_err(|e| e.to_string())?;
        RelyingParty::new(
            provider,
            secret,
            metadata,
            redirect_uri,
            self.fetcher.clone(),
        )
    }

    /// Whether password sign-in is for break-glass admins only (the sign-in page says so).
    ///
    /// # Errors
    /// On storage failure.
    pub async fn password_sign_in_break_glass_only(&self) -> Result<bool> {
        Ok(self.store.password_sign_in_break_glass_only().await?)
    }

    /// Turns password sign-in on for everyone, or off for all but break-glass admins (everyone
    /// else signs in with a provider). Turning it off needs an enabled provider and an enabled
    /// break-glass admin with a password.
    ///
    /// # Errors
    /// `Forbidden`, `Conflict` (no provider, no break-glass admin).
    pub async fn set_password_sign_in(
        &self,
        p: &Principal,
        break_glass_only: bool,
        meta: &RequestMeta,
    ) -> Result<()> {
        p.require(Permission::ManageUsers)?;
        if break_glass_only && self.sign_in_providers().await?.is_empty() {
            return Err(Error::Conflict(
                "Add and enable a sign-in provider first: with password sign-in off, everyone but break-glass admins signs in through one.".into(),
            ));
        }
        let realm = self.admin_realm().await?;
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::PASSWORD_SIGN_IN,
            AuditSubject::ConsoleSignIn,
            meta,
        );
        event.details = serde_json::json!({
            "password_sign_in": if break_glass_only { "break_glass_only" } else { "everyone" },
        });
        self.store
            .set_password_sign_in(break_glass_only, self.now(), &event)
            .await
            .map_err(|e| match e {
                crate::error::StorageError::Precondition(_) => Error::Conflict(
                    "Mark an admin who has a password as break-glass first: they can still sign in when the provider is down.".into(),
                ),
                other => other.into(),
            })
    }

    /// Marks an admin as break-glass (may sign in with a password when password sign-in is
    /// off) or not. Only admins with a password who do not sign in through a provider qualify.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`, `Invalid`, `Conflict` (the last break-glass admin while
    /// password sign-in is off).
    pub async fn set_user_break_glass(
        &self,
        p: &Principal,
        user_id: &UserId,
        on: bool,
        meta: &RequestMeta,
    ) -> Result<User> {
        p.require(Permission::ManageUsers)?;
        let mut user = self.store.find_user(user_id).await?.ok_or_else(|| {
            Error::not_found(
                "user",
                user_id.as_str().chars().take(64).collect::<String>(),
            )
        })?;
        if user.break_glass == on {
            return Ok(user);
        }
        if on
            && (user.role != crate::policy::Role::Admin
                || user.password_hash.is_none()
                || user.sso_provider.is_some())
        {
            return Err(Error::Invalid(
                "Only an admin who signs in with a password (not through a provider) can be a break-glass admin.".into(),
            ));
        }
        let mut event = self.event(
            &user.realm_id,
            &p.email,
            action::USER_BREAK_GLASS,
            AuditSubject::User(user.id.to_string()),
            meta,
        );
        event.details = serde_json::json!({"break_glass": on});
        user.break_glass = on;
        user.updated_at = self.now();
        self.store
            .set_user_break_glass(&user.id, on, user.updated_at, &event)
            .await
            .map_err(|e| match e {
                crate::error::StorageError::Precondition(_) => {
                    Error::Conflict(super::NO_BREAK_GLASS_LEFT.into())
                }
                other => other.into(),
            })?;
        Ok(user)
    }

    /// The provider identity of a console account, if it signs in through one.
    ///
    /// # Errors
    /// `Forbidden`, or storage failure.
    pub async fn user_sso_identity(
        &self,
        p: &Principal,
        user: &UserId,
    ) -> Result<Option<(UserIdentity, Option<SsoProvider>)>> {
        p.require(Permission::ManageUsers)?;
        let Some(identity) = self.store.identity_of_user(user).await? else {
            return Ok(None);
        };
        let provider = self.store.find_sso_provider(&identity.provider_id).await?;
        Ok(Some((identity, provider)))
    }
}
