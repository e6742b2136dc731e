//! Row types shared by both backends and their conversion into domain types.
use crate::accounts::{Email, LinkPurpose, OneTimeLink, User};
use crate::agents::Agent;
use crate::audit::{AuditEvent, Outcome};
use crate::clients::{AgentBinding, AuthMethod, Client, ClientId, ClientSecret, GrantType};
use crate::error::StorageError;
use crate::ids::{Entity, Id};
use crate::keys::{KeyState, SigningAlg, StoredKey};
use crate::policy::Role;
use crate::realms::{Realm, RealmName};
use crate::resources::{Resource, ResourceUri};
use crate::scope::ScopeSet;

fn id<T: Entity>(s: String) -> Id<T> {
    Id::from_stored(s)
}

fn corrupt(what: &str) -> impl Fn(String) -> StorageError + '_ {
    move |e| StorageError::Corrupt(format!("{what}: {e}"))
}

#[derive(sqlx::FromRow)]
pub(crate) struct KeyRow {
    pub kid: String,
    pub realm_id: String,
    pub alg: String,
    pub state: String,
    pub public_jwk: String,
    pub sealed_private_key: Vec<u8>,
    pub created_at: i64,
    pub activated_at: Option<i64>,
    pub retired_at: Option<i64>,
    pub publish_until: Option<i64>,
}

impl TryFrom<KeyRow> for StoredKey {
    type Error = StorageError;
    fn try_from(r: KeyRow) -> Result<Self, StorageError> {
        Ok(StoredKey {
            alg: SigningAlg::parse(&r.alg).map_err(corrupt("key alg"))?,
            state: KeyState::parse(&r.state)
                .ok_or_else(|| StorageError::Corrupt(format!("key state {}", r.state)))?,
            public_jwk: serde_json::from_str(&r.public_jwk)
                .map_err(|e| corrupt("public jwk")(e.to_string()))?,
            kid: r.kid,
            realm_id: id(r.realm_id),
            sealed_private_key: r.sealed_private_key,
            created_at: r.created_at,
            activated_at: r.activated_at,
            retired_at: r.retired_at,
            publish_until: r.publish_until,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct ResourceRow {
    pub id: String,
    pub realm_id: String,
    pub slug: String,
    pub display_name: String,
    pub uri: String,
    pub scopes: String,
    pub token_ttl_secs: Option<i64>,
    pub signing_alg: Option<String>,
    pub enabled: bool,
    pub consent_policy: String,
    pub people_roles: String,
    pub default_scopes: String,
    pub open_to_self_registered: bool,
    pub submitted_by: Option<String>,
    pub rejection: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

impl TryFrom<ResourceRow> for Resource {
    type Error = StorageError;
    fn try_from(r: ResourceRow) -> Result<Self, StorageError> {
        Ok(Resource {
            // Stored URIs are canonical already; loopback http may have been allowed at insert.
            uri: ResourceUri::parse(&r.uri, true).map_err(corrupt("resource uri"))?,
            scopes: ScopeSet::parse(&r.scopes).map_err(corrupt("resource scopes"))?,
            signing_alg: r
                .signing_alg
                .as_deref()
                .map(SigningAlg::parse)
                .transpose()
                .map_err(corrupt("resource alg"))?,
            id: id(r.id),
            realm_id: id(r.realm_id),
            slug: r.slug,
            display_name: r.display_name,
            token_ttl_secs: r.token_ttl_secs,
            enabled: r.enabled,
            policy: crate::resources::AccessPolicy {
                consent: crate::resources::ConsentPolicy::parse(&r.consent_policy)
                    .map_err(|e| StorageError::Corrupt(e.into()))?,
                people_roles: ScopeSet::parse(&r.people_roles).map_err(corrupt("people roles"))?,
                default_scopes: ScopeSet::parse(&r.default_scopes)
                    .map_err(corrupt("default scopes"))?,
                open_to_self_registered: r.open_to_self_registered,
            },
            submitted_by: r.submitted_by,
            rejection: r.rejection,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct ClientRow {
    pub id: String,
    pub realm_id: String,
    pub client_id: String,
    pub name: String,
    pub auth_method: String,
    pub grant_types: String,
    pub scope: String,
    pub metadata: String,
    pub agent_id: Option<String>,
    pub agent_binding: Option<String>,
    pub resource_server_for: Option<String>,
    pub enabled: bool,
    pub registration_kind: String,
    pub review_state: String,
    pub source_ip: Option<String>,
    pub reviewed_by: Option<String>,
    pub review_reason: Option<String>,
    pub reviewed_at: Option<i64>,
    pub last_token_at: Option<i64>,
    pub token_epoch: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

impl TryFrom<ClientRow> for Client {
    type Error = StorageError;
    fn try_from(r: ClientRow) -> Result<Self, StorageError> {
        Ok(Client {
            auth_method: AuthMethod::parse(&r.auth_method).map_err(corrupt("auth method"))?,
            grant_types: r
                .grant_types
                .split(' ')
                .filter(|g| !g.is_empty())
                .map(GrantType::parse)
                .collect::<Result<_, _>>()
                .map_err(corrupt("grant types"))?,
            scope: ScopeSet::parse(&r.scope).map_err(corrupt("client scope"))?,
            metadata: serde_json::from_str(&r.metadata)
                .map_err(|e| corrupt("client metadata")(e.to_string()))?,
            agent: match (r.agent_id, r.agent_binding) {
                (Some(agent_id), Some(binding_id)) => Some(AgentBinding {
                    agent_id: id(agent_id),
                    binding_id: id(binding_id),
                }),
                (None, None) => None,
                _ => return Err(StorageError::Corrupt("client agent binding".into())),
            },
            client_id: ClientId::parse(&r.client_id)
                .map_err(|e| StorageError::Corrupt(e.into()))?,
            resource_server_for: r.resource_server_for.map(id),
            registration: crate::clients::Registration {
                kind: crate::clients::RegistrationKind::parse(&r.registration_kind)
                    .map_err(corrupt("registration kind"))?,
                review: crate::clients::ReviewState::parse(&r.review_state)
                    .map_err(corrupt("review state"))?,
                source_ip: r.source_ip,
                reviewed_by: r.reviewed_by,
                review_reason: r.review_reason,
                reviewed_at: r.reviewed_at,
                last_token_at: r.last_token_at,
                token_epoch: r.token_epoch,
            },
            id: id(r.id),
            realm_id: id(r.realm_id),
            name: r.name,
            enabled: r.enabled,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct AgentRow {
    pub id: String,
    pub realm_id: String,
    pub name: String,
    pub owner: String,
    pub description: String,
    pub roles: String,
    pub expires_at: Option<i64>,
    pub disabled: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

impl TryFrom<AgentRow> for Agent {
    type Error = StorageError;
    fn try_from(r: AgentRow) -> Result<Self, StorageError> {
        Ok(Agent {
            roles: ScopeSet::parse(&r.roles).map_err(corrupt("agent roles"))?,
            id: id(r.id),
            realm_id: id(r.realm_id),
            name: r.name,
            owner: r.owner,
            description: r.description,
            expires_at: r.expires_at,
            disabled: r.disabled,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct SecretRow {
    pub id: String,
    pub client_pk: String,
    pub secret_hash: Vec<u8>,
    pub created_at: i64,
    pub expires_at: Option<i64>,
}

impl From<SecretRow> for ClientSecret {
    fn from(r: SecretRow) -> Self {
        ClientSecret {
            id: id(r.id),
            client_pk: id(r.client_pk),
            secret_hash: r.secret_hash,
            created_at: r.created_at,
            expires_at: r.expires_at,
        }
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct RealmRow {
    pub id: String,
    pub name: String,
    pub display_name: String,
    pub enabled: bool,
    pub default_resource_id: Option<String>,
    pub token_ttl_secs: i64,
    pub refresh_idle_ttl_secs: i64,
    pub refresh_max_ttl_secs: i64,
    pub registration_policy: String,
    pub max_dynamic_clients: i64,
    pub metadata_document_policy: String,
    pub metadata_document_domains: String,
    pub unused_client_ttl_secs: i64,
    pub client_secret_ttl_secs: i64,
    pub registrations_per_source: i64,
    pub trusted_networks: String,
    pub registrations_per_trusted_network: i64,
    pub metadata_document_machine_domains: String,
    pub password_sign_in: bool,
    pub created_at: i64,
    pub updated_at: i64,
}

impl TryFrom<RealmRow> for Realm {
    type Error = StorageError;
    fn try_from(r: RealmRow) -> Result<Self, StorageError> {
        Ok(Realm {
            name: RealmName::parse(&r.name).map_err(|e| StorageError::Corrupt(e.into()))?,
            id: id(r.id),
            display_name: r.display_name,
            enabled: r.enabled,
            default_resource_id: r.default_resource_id.map(id),
            token_ttl_secs: r.token_ttl_secs,
            refresh_idle_ttl_secs: r.refresh_idle_ttl_secs,
            refresh_max_ttl_secs: r.refresh_max_ttl_secs,
            registration_policy: crate::realms::RegistrationPolicy::parse(&r.registration_policy)
                .map_err(|e| StorageError::Corrupt(e.into()))?,
            max_dynamic_clients: r.max_dynamic_clients,
            metadata_document_policy: crate::realms::MetadataDocumentPolicy::parse(
                &r.metadata_document_policy,
            )
            .map_err(|e| StorageError::Corrupt(e.into()))?,
            metadata_document_domains: r
                .metadata_document_domains
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            unused_client_ttl_secs: r.unused_client_ttl_secs,
            client_secret_ttl_secs: r.client_secret_ttl_secs,
            registrations_per_source: r.registrations_per_source,
            trusted_networks: r
                .trusted_networks
                .split_whitespace()
                .map(|c| crate::net::Cidr::parse(c).map_err(StorageError::Corrupt))
                .collect::<Result<_, _>>()?,
            registrations_per_trusted_network: r.registrations_per_trusted_network,
            metadata_document_machine_domains: r
                .metadata_document_machine_domains
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            password_sign_in: r.password_sign_in,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct UserRow {
    pub id: String,
    pub realm_id: String,
    pub email: String,
    pub display_name: String,
    pub password_hash: Option<String>,
    pub role: String,
    pub disabled: bool,
    pub credential_version: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub sso_provider: Option<String>,
    pub break_glass: bool,
    pub second_factor_since: Option<i64>,
}

impl TryFrom<UserRow> for User {
    type Error = StorageError;
    fn try_from(r: UserRow) -> Result<Self, StorageError> {
        Ok(User {
            email: Email::from_stored(r.email),
            role: Role::parse(&r.role).map_err(|e| StorageError::Corrupt(e.into()))?,
            id: id(r.id),
            realm_id: id(r.realm_id),
            display_name: r.display_name,
            password_hash: r.password_hash,
            disabled: r.disabled,
            credential_version: r.credential_version,
            created_at: r.created_at,
            updated_at: r.updated_at,
            sso_provider: r.sso_provider,
            break_glass: r.break_glass,
            second_factor_since: r.second_factor_since,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct LinkRow {
    pub token_hash: Vec<u8>,
    pub realm_id: String,
    pub user_id: Option<String>,
    pub purpose: String,
    pub created_at: i64,
    pub expires_at: i64,
}

impl TryFrom<LinkRow> for OneTimeLink {
    type Error = StorageError;
    fn try_from(r: LinkRow) -> Result<Self, StorageError> {
        let purpose = match r.purpose.as_str() {
            "setup" => LinkPurpose::Setup,
            "password_reset" => LinkPurpose::PasswordReset,
            other => return Err(StorageError::Corrupt(format!("link purpose {other}"))),
        };
        Ok(OneTimeLink {
            token_hash: r.token_hash,
            realm_id: id(r.realm_id),
            user_id: r.user_id.map(id),
            purpose,
            created_at: r.created_at,
            expires_at: r.expires_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct AuditRow {
    pub id: i64,
    pub realm: String,
    pub occurred_at: i64,
    pub actor: String,
    pub action: String,
    pub target: String,
    pub outcome: String,
    pub request_id: Option<String>,
    pub client_ip: Option<String>,
    pub details: String,
}

impl TryFrom<AuditRow> for AuditEvent {
    type Error = StorageError;
    fn try_from(r: AuditRow) -> Result<Self, StorageError> {
        Ok(AuditEvent {
            outcome: Outcome::parse(&r.outcome)
                .ok_or_else(|| StorageError::Corrupt(format!("outcome {}", r.outcome)))?,
            details: serde_json::from_str(&r.details)
                .map_err(|e| StorageError::Corrupt(format!("audit details: {e}")))?,
            id: r.id,
            realm: r.realm,
            occurred_at: r.occurred_at,
            actor: r.actor,
            action: r.action,
            target: r.target,
            request_id: r.request_id,
            client_ip: r.client_ip,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct GrantRow {
    pub client_pk: String,
    pub resource_id: String,
    pub scopes: String,
    pub created_at: i64,
    pub updated_at: i64,
    pub last_used_at: Option<i64>,
}

impl TryFrom<GrantRow> for crate::access::Grant {
    type Error = StorageError;
    fn try_from(r: GrantRow) -> Result<Self, StorageError> {
        Ok(crate::access::Grant {
            client: id(r.client_pk),
            resource: id(r.resource_id),
            scopes: ScopeSet::parse(&r.scopes).map_err(corrupt("grant scopes"))?,
            created_at: r.created_at,
            updated_at: r.updated_at,
            last_used_at: r.last_used_at,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct GrantedClientRow {
    #[sqlx(flatten)]
    pub grant: GrantRow,
    pub client_id: String,
    pub name: String,
    pub enabled: bool,
    pub agent_name: Option<String>,
    pub agent_roles: Option<String>,
}

impl TryFrom<GrantedClientRow> for crate::access::GrantedClient {
    type Error = StorageError;
    fn try_from(r: GrantedClientRow) -> Result<Self, StorageError> {
        Ok(crate::access::GrantedClient {
            grant: r.grant.try_into()?,
            lapsed: crate::scope::ScopeSet::default(),
            client_id: ClientId::parse(&r.client_id)
                .map_err(|e| StorageError::Corrupt(e.into()))?,
            name: r.name,
            enabled: r.enabled,
            agent: match (r.agent_name, r.agent_roles) {
                (Some(name), Some(roles)) => Some((
                    name,
                    ScopeSet::parse(&roles).map_err(corrupt("agent roles"))?,
                )),
                _ => None,
            },
        })
    }
}
