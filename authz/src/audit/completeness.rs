//! Every write operation of [`Core`] leaves an audit row.
//!
//! Two checks: `every_public_method_is_classified` reads the sources of the `Core` operations
//! and fails when a `pub async fn` appears that is neither in [`WRITES`] nor in [`READS`] (so a
//! new operation has to be placed, and a write has to be added to the run below);
//! `each_write_adds_an_audit_row` runs the writes against a fresh SQLite core, one after the
//! other, and fails when one of them leaves the audit log as it was.
use crate::audit::{AuditCursor, AuditFilter, AuditWindow, RequestMeta};
use crate::core::{Core, CoreConfig};
use crate::policy::Principal;
use crate::storage::Database;

/// Every source file of the crate with an `impl Core` block, as (path under `src/`, text): read
/// from disk, so an operation in a new file is checked too.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read src") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).expect("read source");
            text.contains("impl Core {").then(|| {
                let rel = path.strip_prefix(&root).unwrap_or(&path);
                (rel.display().to_string(), text)
            })
        })
        .collect()
}

mod lists;
use lists::{READS, RUN, WRITES};

/// Names of the `pub async fn`s in `src`.
fn public_async_fns(src: &str) -> Vec<String> {
    src.lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub async fn "))
        .map(|rest| {
            rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

#[test]
fn every_public_method_is_classified() {
    let mut found = Vec::new();
    let sources = sources();
    assert!(
        sources.iter().any(|(f, _)| f.ends_with("review/ops.rs")),
        "the sources of Core's operations are found"
    );
    for (file, src) in &sources {
        for name in public_async_fns(src) {
            assert!(
                WRITES.contains(&name.as_str()) || READS.contains(&name.as_str()),
                "{file}: `{name}` is neither in WRITES nor in READS of audit/completeness.rs; \
                 a write must write an audit row and be run by each_write_adds_an_audit_row"
            );
            found.push(name);
        }
    }
    for name in WRITES.iter().chain(READS) {
        assert!(
            found.iter().any(|f| f == name),
            "`{name}` is listed but no longer a public operation"
        );
    }
    for name in RUN {
        assert!(WRITES.contains(name), "`{name}` is run but not a write");
    }
}

async fn audit_rows(core: &Core) -> u64 {
    core.store
        .list_audit_events(
            &AuditFilter::default(),
            AuditWindow {
                cursor: AuditCursor::Newest,
                limit: 1,
                count_up_to: 1_000_000,
            },
        )
        .await
        .expect("count audit rows")
        .total
}

/// The registry's writes, in [`RUN`]'s order (a macro, so each goes through the caller's
/// `write!`).
macro_rules! registry_writes {
    ($write:ident, $core:ident, $p:ident, $m:ident, $d:ident) => {{
        use crate::registry::{ApiAccess, GroupKind, GroupsInput, MemberKind};
        use portcullis_manifest::policy::PolicyInput;
        use portcullis_manifest::server::{PackageInput, ServerInput};
        let npm = |id: &str, v: &str| ServerInput {
            id: id.into(),
            package: Some(PackageInput {
                kind: "npm".into(),
                identifier: format!("@acme/{id}"),
                version: Some(v.into()),
            }),
            rings: vec!["ring0".into()],
            ..ServerInput::default()
        };
        let rev = |c: &Core| {
            let c = c.clone();
            async move {
                c.registry(&Principal::cli(), "default")
                    .await
                    .map(|v| v.registry.revision)
                    .unwrap_or(-1)
            }
        };
        let digest = |c: &Core| {
            let c = c.clone();
            async move {
                c.registry(&Principal::cli(), "default")
                    .await
                    .ok()
                    .and_then(|v| v.pending_digest)
                    .unwrap_or_default()
            }
        };
        let reviewer = Principal {
            email: "rev@example.com".into(),
            role: crate::policy::Role::SecurityReviewer,
            ..Principal::cli()
        };
        $write!(
            "set_registry_settings",
            $core.set_registry_settings(&$p, $d, false, ApiAccess::Public, &$m)
        );
        let policy = PolicyInput {
            mode: "allowlist".into(),
            servers: vec![npm("wiki", "1.0.0")],
            rings: vec!["ring0".into()],
            units: vec![],
        };
        let r = rev(&$core).await;
        $write!(
            "replace_registry_draft",
            $core.replace_registry_draft(&$p, $d, r, &policy, &$m)
        );
        let r = rev(&$core).await;
        $write!(
            "save_registry_groups",
            $core.save_registry_groups(
                &$p,
                $d,
                r,
                &GroupsInput {
                    mode: "warn".into(),
                    rings: vec!["ring0".into(), "ring1".into()],
                    units: vec![],
                },
                &$m
            )
        );
        let r = rev(&$core).await;
        $write!(
            "save_registry_server",
            $core.save_registry_server(&$p, $d, r, None, &npm("jira", "2.0.0"), &$m)
        );
        // An editor who read jira at an older revision still saves it.
        let r = rev(&$core).await;
        $write!(
            "edit_registry_server",
            $core.edit_registry_server(
                &$p,
                $d,
                r - 1,
                Some("jira"),
                Some(&npm("jira", "2.0.0")),
                &npm("jira", "2.0.1"),
                &$m
            )
        );
        let r = rev(&$core).await;
        $write!(
            "delete_registry_server",
            $core.delete_registry_server(&$p, $d, r, "jira", &$m)
        );
        let r = rev(&$core).await;
        $write!("publish_registry", $core.publish_registry(&$p, $d, r, &$m));
        let r = rev(&$core).await;
        $core
            .save_registry_server(&$p, $d, r, Some("wiki"), &npm("wiki", "1.0.1"), &$m)
            .await
            .expect("edit");
        let r = rev(&$core).await;
        $core
            .publish_registry(&$p, $d, r, &$m)
            .await
            .expect("second release");
        $write!(
            "rollback_registry",
            $core.rollback_registry(&$p, $d, 1, &$m)
        );
        $core
            .create_agent(
                &$p,
                $d,
                &crate::agents::AgentInput {
                    name: "ring-bot".into(),
                    owner: "ada@example.com".into(),
                    ..Default::default()
                },
                &$m,
            )
            .await
            .expect("agent");
        $write!(
            "add_registry_member",
            $core.add_registry_member(
                &$p,
                $d,
                (GroupKind::Ring, "ring0"),
                (MemberKind::Agent, "ring-bot"),
                &$m
            )
        );
        $write!(
            "remove_registry_member",
            $core.remove_registry_member(
                &$p,
                $d,
                (GroupKind::Ring, "ring0"),
                (MemberKind::Agent, "ring-bot"),
                &$m
            )
        );
        $core
            .set_registry_settings(&$p, $d, true, ApiAccess::Public, &$m)
            .await
            .expect("approval on");
        let ask = |c: &Core, id: &'static str| {
            let c = c.clone();
            let npm = npm(id, "1.0.0");
            async move {
                let r = rev(&c).await;
                c.save_registry_server(
                    &Principal::cli(),
                    "default",
                    r,
                    None,
                    &npm,
                    &RequestMeta::default(),
                )
                .await
                .expect("edit");
                match c
                    .publish_registry(&Principal::cli(), "default", r + 1, &RequestMeta::default())
                    .await
                {
                    Ok(crate::registry::Published::AwaitingApproval(req)) => req.id,
                    other => panic!("a request expected: {other:?}"),
                }
            }
        };
        let id = ask(&$core, "one").await;
        $write!(
            "approve_registry_request",
            $core.approve_registry_request(&reviewer, $d, &id, &digest(&$core).await, &$m)
        );
        let id = ask(&$core, "two").await;
        $write!(
            "reject_registry_request",
            $core.reject_registry_request(&reviewer, $d, &id, "not yet", &$m)
        );
        let id = ask(&$core, "three").await;
        $write!(
            "withdraw_registry_request",
            $core.withdraw_registry_request(&$p, $d, &id, &$m)
        );
        // A remote server Portcullis authorizes: its resource, created from the registry.
        let remote = ServerInput {
            id: "pay".into(),
            url: Some("https://pay.example.com/mcp".into()),
            auth: Some(portcullis_manifest::server::AuthInput {
                mode: "portcullis".into(),
                ..Default::default()
            }),
            rings: vec!["ring0".into()],
            ..ServerInput::default()
        };
        let r = rev(&$core).await;
        $core
            .save_registry_server(&$p, $d, r, None, &remote, &$m)
            .await
            .expect("remote");
        $write!(
            "create_registry_resource",
            $core.create_registry_resource(&$p, $d, "pay", &$m)
        );
    }};
}
#[tokio::test]
async fn each_write_adds_an_audit_row() {
    use crate::agents::AgentInput;
    use crate::clients::ClientMetadata;
    use crate::people::PersonInput;
    use crate::realms::RealmInput;
    use crate::resources::{AccessPolicyInput, ResourceInput};

    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("sqlite://{}", dir.path().join("audit.db").display());
    let db = Database::connect(&url, 4).await.expect("connect sqlite");
    db.migrate().await.expect("migrate");
    // Served on loopback http, as the server then allows (the gateway's resource is its URL).
    let core = Core::new(
        db.store(),
        CoreConfig {
            allow_http_loopback: true,
            ..CoreConfig::default()
        },
    );
    core.ensure_default_realm().await.expect("default realm");
    let p = Principal::cli();
    let m = RequestMeta::default();
    let d = "default";
    let resource = ResourceInput {
        slug: "pay".into(),
        display_name: "Pay".into(),
        uri: "https://pay.example.com/mcp".into(),
        scopes: "read write".into(),
        enabled: true,
        ..Default::default()
    };
    let machine = ClientMetadata {
        client_name: Some("Bot".into()),
        token_endpoint_auth_method: Some("client_secret_basic".into()),
        grant_types: Some(vec!["client_credentials".into()]),
        ..Default::default()
    };
    let agent = AgentInput {
        name: "night-bot".into(),
        owner: "ada@example.com".into(),
        ..Default::default()
    };
    let person = PersonInput {
        email: "grace@example.com".into(),
        display_name: "Grace".into(),
        ..Default::default()
    };

    let mut ran = Vec::new();
    let mut rows = audit_rows(&core).await;
    let mut failures = Vec::new();
    macro_rules! write {
        ($name:literal, $op:expr) => {{
            let out = $op.await;
            if let Err(e) = &out {
                failures.push(format!("{} failed: {e:?}", $name));
            }
            let now = audit_rows(&core).await;
            if out.is_ok() && now <= rows {
                failures.push(format!("{} wrote no audit row", $name));
            }
            rows = now;
            ran.push($name);
            out.ok()
        }};
    }
    write!("create_realm", core.create_realm(&p, "ops", "Ops", &m));
    write!(
        "update_realm",
        core.update_realm(
            &p,
            "ops",
            &RealmInput {
                name: "ops".into(),
                display_name: "Operations".into(),
                token_ttl_secs: "300".into(),
                ..Default::default()
            },
            &m
        )
    );
    write!(
        "set_realm_enabled",
        core.set_realm_enabled(&p, "ops", false, &m)
    );
    write!(
        "create_resource",
        core.create_resource(&p, d, &resource, &m)
    );
    write!(
        "update_resource",
        core.update_resource(
            &p,
            d,
            "pay",
            &ResourceInput {
                display_name: "Payments".into(),
                ..resource.clone()
            },
            &m
        )
    );
    write!(
        "set_resource_policy",
        core.set_resource_policy(
            &p,
            d,
            "pay",
            &AccessPolicyInput {
                consent: "any_client".into(),
                default_scopes: "read".into(),
                ..Default::default()
            },
            &m
        )
    );
    write!(
        "set_resource_enabled",
        core.set_resource_enabled(&p, d, "pay", true, &m)
    );
    write!(
        "set_default_resource",
        core.set_default_resource(&p, d, Some("pay"), &m)
    );
    write!(
        "create_client",
        core.create_client(&p, d, "bot", &machine, &m)
    );
    write!(
        "update_client",
        core.update_client(
            &p,
            d,
            "bot",
            &ClientMetadata {
                client_name: Some("Night bot".into()),
                ..machine.clone()
            },
            &m
        )
    );
    write!(
        "set_client_token_exchange",
        core.set_client_token_exchange(&p, d, "bot", true, &m)
    );
    write!(
        "rotate_client_secret",
        core.rotate_client_secret(&p, d, "bot", 0, &m)
    );
    write!(
        "set_client_enabled",
        core.set_client_enabled(&p, d, "bot", false, &m)
    );
    write!(
        "grant_access",
        core.grant_access(&p, d, "bot", "pay", None, &m)
    );
    write!("revoke_access", core.revoke_access(&p, d, "bot", "pay", &m));
    write!("create_agent", core.create_agent(&p, d, &agent, &m));
    write!(
        "update_agent",
        core.update_agent(
            &p,
            d,
            "night-bot",
            &AgentInput {
                description: "Runs at night".into(),
                ..agent.clone()
            },
            &m
        )
    );
    write!(
        "bind_client_to_agent",
        core.bind_client_to_agent(&p, d, "bot", Some("night-bot"), &m)
    );
    write!(
        "set_agent_disabled",
        core.set_agent_disabled(&p, d, "night-bot", true, &m)
    );
    write!("delete_agent", core.delete_agent(&p, d, "night-bot", &m));
    write!(
        "create_resource_server_credentials",
        core.create_resource_server_credentials(&p, d, "pay", &m)
    );
    write!(
        "create_initial_access_token",
        core.create_initial_access_token(&p, d, "ci", 1, 3600, &m)
    );
    let grace = write!(
        "create_person",
        core.create_person(&p, d, &person, None, &m)
    );
    let id = grace.map(|g| g.id.to_string()).unwrap_or_default();
    write!(
        "update_person",
        core.update_person(
            &p,
            d,
            &id,
            &PersonInput {
                display_name: "Grace H.".into(),
                ..person.clone()
            },
            &m
        )
    );
    write!(
        "set_person_password",
        core.set_person_password(&p, d, &id, "correct horse battery staple", &m)
    );
    write!(
        "set_person_disabled",
        core.set_person_disabled(&p, d, &id, true, &m)
    );
    let idp = crate::federation::TrustedIssuerInput {
        issuer: "https://idp.example.com".into(),
        jwks_uri: "https://idp.example.com/keys".into(),
        clients: "bot".into(),
        ..Default::default()
    };
    write!(
        "create_trusted_issuer",
        core.create_trusted_issuer(&p, d, &idp, &m)
    );
    write!(
        "update_trusted_issuer",
        core.update_trusted_issuer(
            &p,
            d,
            "https://idp.example.com",
            &crate::federation::TrustedIssuerInput {
                create_people: true,
                ..idp.clone()
            },
            &m
        )
    );
    write!(
        "set_trusted_issuer_enabled",
        core.set_trusted_issuer_enabled(&p, d, "https://idp.example.com", false, &m)
    );
    write!(
        "delete_trusted_issuer",
        core.delete_trusted_issuer(&p, d, "https://idp.example.com", &m)
    );
    let trusting = crate::chaining::TrustingServerInput {
        issuer: "https://as.example.com".into(),
        resources: "https://tickets.example.com/mcp".into(),
        clients: "bot -> 0oa1".into(),
        ..Default::default()
    };
    write!(
        "create_trusting_server",
        core.create_trusting_server(&p, d, &trusting, &m)
    );
    write!(
        "update_trusting_server",
        core.update_trusting_server(
            &p,
            d,
            "https://as.example.com",
            &crate::chaining::TrustingServerInput {
                scopes: "tickets:read".into(),
                ..trusting.clone()
            },
            &m
        )
    );
    write!(
        "set_trusting_server_enabled",
        core.set_trusting_server_enabled(&p, d, "https://as.example.com", false, &m)
    );
    write!(
        "delete_trusting_server",
        core.delete_trusting_server(&p, d, "https://as.example.com", &m)
    );
    let sso = crate::sso::SsoProviderInput {
        display_name: "Acme".into(),
        issuer: "https://sso.example.com".into(),
        client_id: "portcullis".into(),
        client_secret: "s3cret".into(),
        admin_groups: "admins".into(),
        ..Default::default()
    };
    let sso_id = write!(
        "create_sso_provider",
        core.create_sso_provider(&p, &sso, &m)
    )
    .map(|s| s.id.to_string())
    .unwrap_or_default();
    write!(
        "update_sso_provider",
        core.update_sso_provider(
            &p,
            &sso_id,
            &crate::sso::SsoProviderInput {
                developer_groups: "*".into(),
                ..sso.clone()
            },
            &m
        )
    );
    write!(
        "set_sso_provider_enabled",
        core.set_sso_provider_enabled(&p, &sso_id, false, &m)
    );
    write!(
        "delete_sso_provider",
        core.delete_sso_provider(&p, &sso_id, &m)
    );
    let people = crate::sso::SsoProviderInput {
        group_mapping: "* -> role:mcp-user".into(),
        admin_groups: String::new(),
        ..sso.clone()
    };
    let realm_idp = write!(
        "create_realm_provider",
        core.create_realm_provider(&p, d, &people, &m)
    )
    .map(|s| s.id.to_string())
    .unwrap_or_default();
    write!(
        "update_realm_provider",
        core.update_realm_provider(&p, d, &realm_idp, &people, &m)
    );
    write!(
        "set_realm_password_sign_in",
        core.set_realm_password_sign_in(&p, d, false, &m)
    );
    write!(
        "set_realm_password_sign_in",
        core.set_realm_password_sign_in(&p, d, true, &m)
    );
    write!(
        "set_realm_provider_enabled",
        core.set_realm_provider_enabled(&p, d, &realm_idp, false, &m)
    );
    write!(
        "delete_realm_provider",
        core.delete_realm_provider(&p, d, &realm_idp, &m)
    );
    let ada = write!(
        "create_user",
        core.create_user(&p, "ada@example.com", "Ada", "developer", &m)
    )
    .map(|(u, _)| u.id)
    .unwrap_or_else(|| crate::ids::UserId::from_stored("missing"));
    write!(
        "set_user_role",
        core.set_user_role(&p, &ada, "security_reviewer", &m)
    );
    write!(
        "set_user_disabled",
        core.set_user_disabled(&p, &ada, true, &m)
    );
    write!("rotate_signing_keys", core.rotate_signing_keys(&p, d, &m));
    write!(
        "export_audit",
        core.export_audit(
            &p,
            None,
            AuditFilter::default(),
            crate::audit::ExportFormat::Csv,
            &m
        )
    );
    write!("delete_client", core.delete_client(&p, d, "bot", &m));
    write!("delete_resource", core.delete_resource(&p, d, "pay", &m));
    registry_writes!(write, core, p, m, d);
    write!("enable_gateway", core.enable_gateway(&p, d, &m));
    core.create_agent(
        &p,
        d,
        &AgentInput {
            name: "gw-bot".into(),
            owner: "ada@example.com".into(),
            ..Default::default()
        },
        &m,
    )
    .await
    .expect("agent");
    write!(
        "attach_gateway_server",
        core.attach_gateway_server(&p, d, "gw-bot", "pay", &m)
    );
    write!(
        "detach_gateway_server",
        core.detach_gateway_server(&p, d, "gw-bot", "pay", &m)
    );
    let realm = core.find_realm(d).await.expect("realm");
    write!(
        "observe_gateway_tools",
        core.observe_gateway_tools(
            &realm,
            "pay",
            &[serde_json::json!({"name": "refund", "inputSchema": {"type": "object"}})]
        )
    );
    write!(
        "accept_tool_pins",
        core.accept_tool_pins(&p, d, "pay", &[], &m)
    );
    write!(
        "set_second_factor_policy",
        core.set_second_factor_policy(&p, &[crate::policy::Role::Admin], &m)
    );
    assert_eq!(ran, RUN, "RUN lists exactly what this test runs, in order");
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(rows >= RUN.len() as u64);
}

/// A client update that changes only its keys writes an audit row that says so (by key id and
/// digest), and nothing else.
#[tokio::test]
async fn a_keys_only_client_update_is_audited() {
    use crate::clients::ClientMetadata;
    use crate::keys::{SigningAlg, generate};

    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("sqlite://{}", dir.path().join("keys.db").display());
    let db = Database::connect(&url, 4).await.expect("connect sqlite");
    db.migrate().await.expect("migrate");
    let core = Core::new(db.store(), CoreConfig::default());
    core.ensure_default_realm().await.expect("default realm");
    let p = Principal::cli();
    let m = RequestMeta::default();
    let jwks = |kid: &str| {
        let mut jwk = generate(SigningAlg::ES256).expect("key").public_jwk;
        jwk.insert("kid".into(), kid.into());
        jwk.insert("alg".into(), "ES256".into());
        jwk.insert("use".into(), "sig".into());
        serde_json::json!({"keys": [jwk]})
    };
    let metadata = ClientMetadata {
        client_name: Some("Signer".into()),
        token_endpoint_auth_method: Some("private_key_jwt".into()),
        grant_types: Some(vec!["client_credentials".into()]),
        jwks: Some(jwks("one")),
        ..Default::default()
    };
    core.create_client(&p, "default", "signer", &metadata, &m)
        .await
        .expect("create");
    let rows = audit_rows(&core).await;
    // The same key id, a new key: still a change.
    core.update_client(
        &p,
        "default",
        "signer",
        &ClientMetadata {
            jwks: Some(jwks("one")),
            ..metadata.clone()
        },
        &m,
    )
    .await
    .expect("update");
    assert_eq!(audit_rows(&core).await, rows + 1);
    let newest = core
        .store
        .list_audit_events(
            &AuditFilter::default(),
            AuditWindow {
                cursor: AuditCursor::Newest,
                limit: 1,
                count_up_to: 1,
            },
        )
        .await
        .expect("list")
        .items
        .remove(0);
    assert_eq!(newest.action, crate::audit::action::CLIENT_UPDATE);
    assert_eq!(newest.target, "client:signer");
    let details = newest.details.as_object().expect("object");
    assert_eq!(
        details.keys().collect::<Vec<_>>(),
        ["jwks"],
        "only the keys changed: {details:?}"
    );
    assert_eq!(details["jwks"]["from"]["kids"], serde_json::json!(["one"]));
    assert_eq!(details["jwks"]["to"]["kids"], serde_json::json!(["one"]));
    assert_ne!(
        details["jwks"]["from"]["sha256"],
        details["jwks"]["to"]["sha256"]
    );
}
