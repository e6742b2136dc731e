//! Builders shared by the scenarios.
use crate::accounts::{Email, User, UserId};
use crate::agents::{Agent, AgentId};
use crate::audit::{AuditCursor, AuditFilter, AuditWindow, NewAuditEvent, Outcome};
use crate::clients::{AuthMethod, Client, ClientId, ClientRowId, GrantType, Metadata};
use crate::keys::{KeyState, SigningAlg, StoredKey};
use crate::policy::Role;
use crate::realms::{Realm, RealmId, RealmName};
use crate::resources::{Resource, ResourceId, ResourceUri};
use crate::scope::ScopeSet;
use crate::storage::DynStore;

pub(super) fn realm(name: &str) -> Realm {
    Realm {
        id: RealmId::generate(),
        name: RealmName::parse(name).expect("valid"),
        display_name: name.to_uppercase(),
        enabled: true,
        default_resource_id: None,
        token_ttl_secs: 300,
        refresh_idle_ttl_secs: 1_209_600,
        refresh_max_ttl_secs: 7_776_000,
        unused_client_ttl_secs: 2_592_000,
        client_secret_ttl_secs: 0,
        registration_policy: crate::realms::RegistrationPolicy::Review,
        max_dynamic_clients: 1000,
        metadata_document_policy: crate::realms::MetadataDocumentPolicy::Review,
        metadata_document_domains: vec![],
        registrations_per_source: 10,
        trusted_networks: vec![],
        registrations_per_trusted_network: 200,
        metadata_document_machine_domains: vec![],
        password_sign_in: true,
        created_at: 1_000,
        updated_at: 1_000,
    }
}

pub(super) fn event(
    realm_id: &RealmId,
    action: &'static str,
    actor: &str,
    target: &str,
    at: i64,
) -> NewAuditEvent {
    NewAuditEvent {
        realm_id: realm_id.clone(),
        occurred_at: at,
        actor: actor.to_owned(),
        action,
        target: target.to_owned(),
        related: None,
        outcome: Outcome::Success,
        request_id: Some("req-1".into()),
        client_ip: Some("127.0.0.1".into()),
        details: serde_json::json!({"k": "v"}),
    }
}

/// Inserts a realm named `name` and returns it.
pub(super) async fn given_realm(store: &DynStore, name: &str) -> Realm {
    let r = realm(name);
    store
        .insert_realm(&r, &event(&r.id, "realm.create", "system", "realm", 1))
        .await
        .expect("realm");
    r
}

pub(super) fn user(realm_id: &RealmId, email: &str, role: Role) -> User {
    User {
        id: UserId::generate(),
        realm_id: realm_id.clone(),
        email: Email::parse(email).expect("valid"),
        display_name: format!("Name of {email}"),
        password_hash: Some("$argon2id$fake".into()),
        role,
        disabled: false,
        credential_version: 1,
        created_at: 2_000,
        updated_at: 2_000,
        sso_provider: None,
        break_glass: false,
        second_factor_since: None,
    }
}

pub(super) fn resource(realm_id: &RealmId, slug: &str, uri: &str) -> Resource {
    Resource {
        id: ResourceId::generate(),
        realm_id: realm_id.clone(),
        slug: slug.to_owned(),
        display_name: slug.to_uppercase(),
        uri: ResourceUri::parse(uri, false).expect("valid"),
        scopes: ScopeSet::parse("tools:call tools:read").expect("valid"),
        token_ttl_secs: Some(300),
        signing_alg: Some(SigningAlg::RS256),
        enabled: true,
        policy: crate::resources::AccessPolicy::default(),
        submitted_by: None,
        rejection: None,
        created_at: 5,
        updated_at: 5,
    }
}

pub(super) fn client(realm_id: &RealmId, client_id: &str) -> Client {
    Client {
        id: ClientRowId::generate(),
        realm_id: realm_id.clone(),
        client_id: ClientId::parse(client_id).expect("valid"),
        name: format!("Client {client_id}"),
        auth_method: AuthMethod::ClientSecretBasic,
        grant_types: vec![GrantType::ClientCredentials],
        scope: ScopeSet::parse("tools:call").expect("valid"),
        metadata: Metadata {
            contacts: vec!["ops@example.com".into()],
            ..Default::default()
        },
        agent: None,
        resource_server_for: None,
        enabled: true,
        registration: crate::clients::Registration::admin(),
        created_at: 3,
        updated_at: 3,
    }
}

pub(super) fn agent(realm_id: &RealmId, name: &str) -> Agent {
    Agent {
        id: AgentId::generate(),
        realm_id: realm_id.clone(),
        name: name.to_owned(),
        owner: "owner@example.com".into(),
        description: "does reports".into(),
        roles: ScopeSet::parse("mcp:tools reports").expect("valid"),
        expires_at: Some(1_000),
        disabled: false,
        created_at: 5,
        updated_at: 5,
    }
}

pub(super) fn stored_key(realm_id: &RealmId, kid: &str, state: KeyState, at: i64) -> StoredKey {
    StoredKey {
        kid: kid.to_owned(),
        realm_id: realm_id.clone(),
        alg: SigningAlg::ES256,
        state,
        public_jwk: serde_json::json!({"kid": kid, "kty": "EC"}),
        sealed_private_key: vec![1, 2, 3],
        created_at: at,
        activated_at: (state == KeyState::Active).then_some(at),
        retired_at: None,
        publish_until: None,
    }
}

pub(super) async fn audit_count(store: &DynStore) -> u64 {
    store
        .list_audit_events(
            &AuditFilter::default(),
            AuditWindow::page(AuditCursor::Newest, 1),
        )
        .await
        .expect("list")
        .total
}
