//! Realm operations: bootstrap, list, create, rename, enable and disable.
use super::model::{Realm, RealmId, RealmInput, RealmName, parse_display_name};
use crate::audit::{AuditSubject, RequestMeta, action};
use crate::core::Core;
use crate::error::{Error, Result, invalid, map_taken};
use crate::policy::{Permission, Principal};
use crate::tokens::lifetime::{DEFAULT_TOKEN_TTL_SECS, parse_token_ttl};

const NAME_TAKEN: &str = "A realm with this name already exists.";

/// Checks a typed realm name and display name, naming the field that breaks a rule.
fn parse_names(name: &str, display_name: &str) -> Result<(RealmName, String)> {
    let name = RealmName::parse(name).map_err(|m| Error::field("name", m))?;
    let display_name = parse_display_name(display_name, "Display name")
        .map_err(|m| Error::field("display_name", m))?;
    Ok((name, display_name))
}

impl Core {
    /// Creates the `default` realm if missing.
    ///
    /// # Errors
    /// On storage failure.
    pub async fn ensure_default_realm(&self) -> Result<Realm> {
        let now = self.now();
        let realm = Realm {
            id: RealmId::generate(),
            name: RealmName::default_realm(),
            display_name: "Default".into(),
            enabled: true,
            default_resource_id: None,
            token_ttl_secs: DEFAULT_TOKEN_TTL_SECS,
            refresh_idle_ttl_secs: super::model::DEFAULT_REFRESH_IDLE_TTL_SECS,
            refresh_max_ttl_secs: super::model::DEFAULT_REFRESH_MAX_TTL_SECS,
            unused_client_ttl_secs: super::model::DEFAULT_UNUSED_CLIENT_TTL_SECS,
            client_secret_ttl_secs: 0,
            registration_policy: super::model::RegistrationPolicy::default(),
            max_dynamic_clients: super::model::DEFAULT_MAX_DYNAMIC_CLIENTS,
            metadata_document_policy: super::model::MetadataDocumentPolicy::default(),
            metadata_document_domains: vec![],
            registrations_per_source: super::model::DEFAULT_REGISTRATIONS_PER_SOURCE,
            trusted_networks: vec![],
            registrations_per_trusted_network:
                super::model::DEFAULT_REGISTRATIONS_PER_TRUSTED_NETWORK,
            metadata_document_machine_domains: vec![],
            password_sign_in: true,
            created_at: now,
            updated_at: now,
        };
        let event = self.event(
            &realm.id,
            "system",
            action::REALM_CREATE,
            AuditSubject::Realm(realm.name.to_string()),
            &RequestMeta::default(),
        );
        self.store.insert_realm_if_absent(&realm, &event).await?;
        let realm = self.admin_realm().await?;
        self.ensure_cli_client(&realm).await?;
        Ok(realm)
    }

    /// The administration realm (`default`), which holds console accounts.
    ///
    /// # Errors
    /// `Internal` if it does not exist (bootstrap has not run).
    pub async fn admin_realm(&self) -> Result<Realm> {
        self.store
            .find_realm_by_name(&RealmName::default_realm())
            .await?
            .ok_or_else(|| Error::Internal("default realm missing; run migrations".into()))
    }

    /// Lists realms.
    ///
    /// # Errors
    /// `Forbidden`, or storage failure.
    pub async fn list_realms(&self, p: &Principal) -> Result<Vec<Realm>> {
        p.require(Permission::ViewRealms)?;
        Ok(self.store.list_realms().await?)
    }

    /// Gets a realm by name.
    ///
    /// # Errors
    /// `Forbidden`, `NotFound`.
    pub async fn get_realm(&self, p: &Principal, name: &str) -> Result<Realm> {
        p.require(Permission::ViewRealms)?;
        self.find_realm(name).await
    }

    /// The current name of the realm with `id`, if it exists (a console session remembers its
    /// realm by id and shows it by name).
    ///
    /// # Errors
    /// On storage failure.
    pub async fn realm_name(&self, id: &RealmId) -> Result<Option<RealmName>> {
        Ok(self.store.find_realm(id).await?.map(|r| r.name))
    }

    /// A realm by name, enabled or not; a malformed name is `NotFound` too.
    pub(crate) async fn find_realm(&self, name: &str) -> Result<Realm> {
        let parsed = RealmName::parse(name)
            .map_err(|_| Error::not_found("realm", name.chars().take(63).collect::<String>()))?;
        self.store
            .find_realm_by_name(&parsed)
            .await?
            .ok_or_else(|| Error::not_found("realm", parsed.as_str()))
    }

    /// Creates a realm.
    ///
    /// # Errors
    /// `Forbidden`, `InvalidField` (nothing written), `Taken` when the name is taken.
    pub async fn create_realm(
        &self,
        p: &Principal,
        name: &str,
        display_name: &str,
        meta: &RequestMeta,
    ) -> Result<Realm> {
        p.require(Permission::ManageRealms)?;
        let (name, display_name) = parse_names(name, display_name)?;
        let now = self.now();
        let realm = Realm {
            id: RealmId::generate(),
            name,
            display_name,
            enabled: true,
            default_resource_id: None,
            token_ttl_secs: DEFAULT_TOKEN_TTL_SECS,
            refresh_idle_ttl_secs: super::model::DEFAULT_REFRESH_IDLE_TTL_SECS,
            refresh_max_ttl_secs: super::model::DEFAULT_REFRESH_MAX_TTL_SECS,
            unused_client_ttl_secs: super::model::DEFAULT_UNUSED_CLIENT_TTL_SECS,
            client_secret_ttl_secs: 0,
            registration_policy: super::model::RegistrationPolicy::default(),
            max_dynamic_clients: super::model::DEFAULT_MAX_DYNAMIC_CLIENTS,
            metadata_document_policy: super::model::MetadataDocumentPolicy::default(),
            metadata_document_domains: vec![],
            registrations_per_source: super::model::DEFAULT_REGISTRATIONS_PER_SOURCE,
            trusted_networks: vec![],
            registrations_per_trusted_network:
                super::model::DEFAULT_REGISTRATIONS_PER_TRUSTED_NETWORK,
            metadata_document_machine_domains: vec![],
            password_sign_in: true,
            created_at: now,
            updated_at: now,
        };
        let event = self.event(
            &realm.id,
            &p.email,
            action::REALM_CREATE,
            AuditSubject::Realm(realm.name.to_string()),
            meta,
        );
        self.store
            .insert_realm(&realm, &event)
            .await
            .map_err(|e| map_taken(e, "name", NAME_TAKEN))?;
        self.ensure_cli_client(&realm).await?;
        Ok(realm)
    }

    /// Changes a realm's settings: its name (which changes its issuer), display name, default
    /// access-token lifetime and refresh-token lifetimes (idle, absolute).
    ///
    /// # Errors
    /// `Forbidden`, `InvalidField`, `NotFound`, `Taken` (name).
    pub async fn update_realm(
        &self,
        p: &Principal,
        name: &str,
        input: &RealmInput,
        meta: &RequestMeta,
    ) -> Result<Realm> {
        p.require(Permission::ManageRealms)?;
        let (new_name, display_name) = parse_names(&input.name, &input.display_name)?;
        let token_ttl_secs = parse_token_ttl(&input.token_ttl_secs, "token_ttl_secs")?;
        let mut realm = self.find_realm(name).await?;
        let idle = super::model::parse_days(
            &input.refresh_idle_days,
            "refresh_idle_days",
            (1, 365),
            realm.refresh_idle_ttl_secs,
        )?;
        let max = super::model::parse_days(
            &input.refresh_max_days,
            "refresh_max_days",
            (1, 365),
            realm.refresh_max_ttl_secs,
        )?;
        if idle > max {
            return Err(Error::field(
                "refresh_idle_days",
                "A refresh token cannot stay usable when idle longer than its sign-in lasts; make this at most the absolute lifetime.",
            ));
        }
        if realm.name.is_default() && !new_name.is_default() {
            return Err(Error::field(
                "name",
                "The default realm holds console accounts and cannot be renamed.",
            ));
        }
        // The event names the realm as it is now; a rename's old name is in its details.
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::REALM_UPDATE,
            AuditSubject::Realm(new_name.to_string()),
            meta,
        );
        event.details = serde_json::json!({
            "name": {"from": realm.name.as_str(), "to": new_name.as_str()},
            "display_name": {"from": realm.display_name, "to": display_name},
            "token_ttl_secs": {"from": realm.token_ttl_secs, "to": token_ttl_secs},
            "refresh_idle_ttl_secs": {"from": realm.refresh_idle_ttl_secs, "to": idle},
            "refresh_max_ttl_secs": {"from": realm.refresh_max_ttl_secs, "to": max},
        });
        realm.name = new_name;
        realm.display_name = display_name;
        realm.token_ttl_secs = token_ttl_secs;
        realm.refresh_idle_ttl_secs = idle;
        realm.refresh_max_ttl_secs = max;
        realm.updated_at = self.now();
        self.store
            .update_realm(&realm, &event)
            .await
            .map_err(|e| map_taken(e, "name", NAME_TAKEN))?;
        Ok(realm)
    }

    /// Sets who may register clients at the realm's registration endpoint, and how many
    /// self-registered clients it holds at most.
    ///
    /// # Errors
    /// `Forbidden`, `InvalidField`, `NotFound`.
    pub async fn set_registration_policy(
        &self,
        p: &Principal,
        name: &str,
        input: &super::model::RegistrationInput,
        meta: &RequestMeta,
    ) -> Result<Realm> {
        p.require(Permission::ManageRealms)?;
        let (max_dynamic_clients, documents, domains) = (
            input.max_dynamic_clients.as_str(),
            input.metadata_document_policy.as_str(),
            input.metadata_document_domains.as_str(),
        );
        let mut realm = self.find_realm(name).await?;
        let policy = match input.policy.trim() {
            "" => realm.registration_policy,
            s => super::model::RegistrationPolicy::parse(s)
                .map_err(|m| Error::field("registration_policy", m))?,
        };
        let documents = match documents.trim() {
            "" => realm.metadata_document_policy,
            s => super::model::MetadataDocumentPolicy::parse(s)
                .map_err(|m| Error::field("metadata_document_policy", m))?,
        };
        let domains: Vec<String> = if domains.trim().is_empty()
            && documents != super::model::MetadataDocumentPolicy::AllowList
        {
            realm.metadata_document_domains.clone()
        } else {
            parse_domains(domains, "metadata_document_domains")?
        };
        if documents == super::model::MetadataDocumentPolicy::AllowList && domains.is_empty() {
            return Err(Error::field(
                "metadata_document_domains",
                "List at least one domain to trust, like claude.ai.",
            ));
        }
        let max = match max_dynamic_clients.trim() {
            "" => realm.max_dynamic_clients,
            s => s
                .parse::<i64>()
                .ok()
                // 0 would refuse every registration while saying the realm is full: the
                // `disabled` policy says what is meant.
                .filter(|n| (1..=1_000_000).contains(n))
                .ok_or_else(|| {
                    Error::field(
                        "max_dynamic_clients",
                        "The limit must be a whole number from 1 to 1000000; to refuse all registrations, set who may register to Closed.",
                    )
                })?,
        };
        let unused = super::model::parse_days(
            &input.unused_client_days,
            "unused_client_days",
            (0, 3650),
            realm.unused_client_ttl_secs,
        )?;
        let secret = super::model::parse_days(
            &input.client_secret_days,
            "client_secret_days",
            (0, 3650),
            realm.client_secret_ttl_secs,
        )?;
        let per_source = parse_budget(
            &input.registrations_per_source,
            "registrations_per_source",
            realm.registrations_per_source,
        )?;
        let per_network = parse_budget(
            &input.registrations_per_trusted_network,
            "registrations_per_trusted_network",
            realm.registrations_per_trusted_network,
        )?;
        let networks = match input.trusted_networks.trim() {
            "" => realm.trusted_networks.clone(),
            "-" => vec![],
            s => parse_networks(s)?,
        };
        let machine_domains = match input.metadata_document_machine_domains.trim() {
            "" => realm.metadata_document_machine_domains.clone(),
            "-" => vec![],
            s => parse_domains(s, "metadata_document_machine_domains")?,
        };
        let mut event = self.event(
            &realm.id,
            &p.email,
            action::REALM_UPDATE,
            AuditSubject::Realm(realm.name.to_string()),
            meta,
        );
        let shown = |n: &[crate::net::Cidr]| n.iter().map(ToString::to_string).collect::<Vec<_>>();
        event.details = serde_json::json!({
            "registrations_per_source": {"from": realm.registrations_per_source, "to": per_source},
            "trusted_networks": {"from": shown(&realm.trusted_networks), "to": shown(&networks)},
            "registrations_per_trusted_network": {"from": realm.registrations_per_trusted_network, "to": per_network},
            "metadata_document_machine_domains": {"from": realm.metadata_document_machine_domains, "to": machine_domains},
            "unused_client_ttl_secs": {"from": realm.unused_client_ttl_secs, "to": unused},
            "client_secret_ttl_secs": {"from": realm.client_secret_ttl_secs, "to": secret},
            "registration_policy": {"from": realm.registration_policy.as_str(), "to": policy.as_str()},
            "max_dynamic_clients": {"from": realm.max_dynamic_clients, "to": max},
            "metadata_document_policy": {"from": realm.metadata_document_policy.as_str(), "to": documents.as_str()},
            "metadata_document_domains": {"from": realm.metadata_document_domains, "to": domains},
        });
        realm.registration_policy = policy;
        realm.max_dynamic_clients = max;
        realm.metadata_document_policy = documents;
        realm.metadata_document_domains = domains;
        realm.unused_client_ttl_secs = unused;
        realm.client_secret_ttl_secs = secret;
        realm.registrations_per_source = per_source;
        realm.trusted_networks = networks;
        realm.registrations_per_trusted_network = per_network;
        realm.metadata_document_machine_domains = machine_domains;
        realm.updated_at = self.now();
        self.store.set_realm_registration(&realm, &event).await?;
        Ok(realm)
    }

    /// Enables or disables a realm. The default realm cannot be disabled.
    ///
    /// # Errors
    /// `Forbidden`, `Invalid`, `NotFound`.
    pub async fn set_realm_enabled(
        &self,
        p: &Principal,
        name: &str,
        enabled: bool,
        meta: &RequestMeta,
    ) -> Result<Realm> {
        p.require(Permission::ManageRealms)?;
        let mut realm = self.find_realm(name).await?;
        if realm.name.is_default() && !enabled {
            return Err(invalid(
                "The default realm holds console accounts and cannot be disabled.",
            ));
        }
        let verb = if enabled {
            action::REALM_ENABLE
        } else {
            action::REALM_DISABLE
        };
        let event = self.event(
            &realm.id,
            &p.email,
            verb,
            AuditSubject::Realm(realm.name.to_string()),
            meta,
        );
        realm.enabled = enabled;
        realm.updated_at = self.now();
        self.store
            .set_realm_enabled(&realm.id, enabled, realm.updated_at, &event)
            .await?;
        Ok(realm)
    }
}

/// Domains trusted for metadata documents: host names (letters, digits, dots, hyphens), at
/// most 50, separated by spaces or commas.
/// A registration budget per throttle window: 1 to 100,000; empty keeps `current`.
fn parse_budget(s: &str, field: &'static str, current: i64) -> Result<i64> {
    match s.trim() {
        "" => Ok(current),
        s => s
            .parse::<i64>()
            .ok()
            .filter(|n| (1..=100_000).contains(n))
            .ok_or_else(|| {
                Error::field(
                    field,
                    "Registrations per 15 minutes must be a whole number from 1 to 100000.",
                )
            }),
    }
}

/// Trusted networks: address ranges, space- or comma-separated, at most
/// [`super::model::MAX_TRUSTED_ENTRIES`]. A range wider than a /8 (IPv4) or /32 (IPv6) is
/// refused: it is most of the internet, not a network someone runs.
fn parse_networks(s: &str) -> Result<Vec<crate::net::Cidr>> {
    let field = |m: String| Error::field("trusted_networks", m);
    let mut out: Vec<crate::net::Cidr> = Vec::new();
    for n in s
        .split([' ', ',', '\n'])
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        let shown: String = n.chars().take(60).collect();
        let cidr = crate::net::Cidr::parse(n).map_err(|_| {
            field(format!(
                "{shown}: not an address range like 203.0.113.0/24 or 2001:db8::/48."
            ))
        })?;
        if cidr.prefix() < if cidr.is_ipv4() { 8 } else { 32 } {
            return Err(field(format!(
                "{shown}: too wide; list your own networks (at most a /8, or an IPv6 /32)."
            )));
        }
        // An IPv6 source counts by its /64 (one host may hold all of it), so a narrower range
        // could never be told apart.
        if !cidr.is_ipv4() && cidr.prefix() > 64 {
            return Err(field(format!(
                "{shown}: IPv6 sources are counted by their /64; list a /64 or a wider range."
            )));
        }
        if !out.contains(&cidr) {
            out.push(cidr);
        }
    }
    if out.len() > super::model::MAX_TRUSTED_ENTRIES {
        return Err(field(format!(
            "List at most {} networks.",
            super::model::MAX_TRUSTED_ENTRIES
        )));
    }
    Ok(out)
}

fn parse_domains(s: &str, field: &'static str) -> Result<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for d in s
        .split([' ', ',', '\n'])
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        let d = d.trim_start_matches('.').to_ascii_lowercase();
        let ok = d.len() <= 253
            && d.contains('.')
            && d.split('.').all(|l| {
                !l.is_empty()
                    && l.len() <= 63
                    && !l.starts_with('-')
                    && !l.ends_with('-')
                    && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            });
        if d.starts_with("*.") {
            let shown: String = d.chars().skip(2).take(60).collect();
            return Err(Error::field(
                field,
                format!("Subdomains already count: enter {shown}."),
            ));
        }
        if !ok {
            let shown: String = d.chars().take(60).collect();
            return Err(Error::field(
                field,
                format!("{shown}: not a domain name like claude.ai."),
            ));
        }
        if !out.contains(&d) {
            out.push(d);
        }
    }
    if out.len() > 50 {
        return Err(Error::field(field, "At most 50 domains."));
    }
    Ok(out)
}
