//! The registry's operations end to end on SQLite: edit, publish, verify, history, approval,
//! roll back, members, and who may read it over HTTP; one server across releases in [`servers`].
use super::{
    ApiAccess, Approved, GroupKind, GroupsInput, MemberKind, Published, ReleaseSelector,
    SettingsOutcome,
};
use crate::audit::RequestMeta;
use crate::core::{Core, CoreConfig};
use crate::error::Error;
use crate::policy::{Principal, Role};
use crate::storage::Database;
use portcullis_manifest::policy::{PolicyInput, Unit};
use portcullis_manifest::release::verify_release;
use portcullis_manifest::server::{PackageInput, ServerInput};

mod servers;

struct Fixture {
    core: Core,
    _dir: tempfile::TempDir,
}

async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    let url = format!("sqlite://{}", dir.path().join("registry.db").display());
    let db = Database::connect(&url, 4).await.expect("connect sqlite");
    db.migrate().await.expect("migrate");
    let core = Core::new(
        db.store(),
        CoreConfig {
            public_url: "https://auth.example.com".into(),
            ..CoreConfig::default()
        },
    );
    core.ensure_default_realm().await.expect("default realm");
    Fixture { core, _dir: dir }
}

fn reviewer() -> Principal {
    Principal {
        email: "rev@example.com".into(),
        display_name: "Rev".into(),
        role: Role::SecurityReviewer,
        ..Principal::cli()
    }
}

fn developer() -> Principal {
    Principal {
        email: "dev@example.com".into(),
        display_name: "Dev".into(),
        role: Role::Developer,
        ..Principal::cli()
    }
}

fn npm(id: &str, version: &str) -> ServerInput {
    ServerInput {
        id: id.into(),
        package: Some(PackageInput {
            kind: "npm".into(),
            identifier: format!("@acme/{id}-mcp"),
            version: Some(version.into()),
        }),
        rings: vec!["ring0".into()],
        ..ServerInput::default()
    }
}

fn policy(servers: Vec<ServerInput>) -> PolicyInput {
    PolicyInput {
        mode: "allowlist".into(),
        servers,
        rings: vec!["ring0".into()],
        units: vec![],
    }
}

async fn revision(core: &Core) -> i64 {
    core.registry(&Principal::cli(), "default")
        .await
        .expect("registry")
        .registry
        .revision
}

fn released(p: Published) -> super::ReleaseSummary {
    match p {
        Published::Release(r) => r,
        Published::AwaitingApproval(r) => panic!("waits for approval: {r:?}"),
    }
}

#[tokio::test]
async fn publish_signs_a_release_the_realm_jwks_verifies() {
    let f = fixture().await;
    let (core, p, m) = (&f.core, Principal::cli(), RequestMeta::default());
    let saved = core
        .replace_registry_draft(&p, "default", 0, &policy(vec![npm("wiki", "1.0.0")]), &m)
        .await
        .expect("draft");
    assert_eq!(saved.revision, 1);
    let first = released(
        core.publish_registry(&p, "default", 1, &m)
            .await
            .expect("publish"),
    );
    assert_eq!(first.sequence, 1);
    assert_eq!(first.diff.added, vec!["wiki"]);
    core.set_registry_settings(&p, "default", false, ApiAccess::Public, &m)
        .await
        .expect("public");
    let doc = core
        .served_release("default", ReleaseSelector::Latest, None)
        .await
        .expect("served");
    let jwks = core.jwks("default").await.expect("jwks");
    let issuer = core.issuer(&crate::realms::RealmName::parse("default").expect("name"));
    let verified = verify_release(doc.document.as_bytes(), &jwks, &issuer).expect("verifies");
    assert_eq!(verified.id, first.id);
    assert_eq!(verified.policy.servers[0].id, "wiki");
    // The same release by its id; an unknown or malformed id is not found.
    let by_id = core
        .served_release("default", ReleaseSelector::Id(&first.id), None)
        .await
        .expect("by id");
    assert_eq!(by_id.document, doc.document);
    for bad in ["0".repeat(64), "../etc".into(), first.id.to_uppercase()] {
        assert!(matches!(
            core.served_release("default", ReleaseSelector::Id(&bad), None)
                .await,
            Err(Error::NotFound { .. })
        ));
    }
    // Another realm's issuer does not take it.
    assert!(
        verify_release(
            doc.document.as_bytes(),
            &jwks,
            "https://evil.example.com/realms/default"
        )
        .is_err()
    );
}

#[tokio::test]
async fn history_diff_nothing_to_publish_and_stale_edits() {
    let f = fixture().await;
    let (core, p, m) = (&f.core, Principal::cli(), RequestMeta::default());
    core.replace_registry_draft(&p, "default", 0, &policy(vec![npm("wiki", "1.0.0")]), &m)
        .await
        .expect("draft");
    core.publish_registry(&p, "default", 1, &m)
        .await
        .expect("publish");
    // Nothing changed: nothing to publish.
    let err = core
        .publish_registry(&p, "default", 1, &m)
        .await
        .expect_err("same");
    assert!(
        matches!(&err, Error::Conflict(m) if m.contains("release 1 already")),
        "{err:?}"
    );
    // An edit names the revision it started from.
    let mut wiki = npm("wiki", "1.0.1");
    wiki.tools.deny = vec!["delete_page".into()];
    let saved = core
        .save_registry_server(&p, "default", 1, Some("wiki"), &wiki, &m)
        .await
        .expect("edit");
    assert_eq!(saved.revision, 2);
    let err = core
        .save_registry_server(&p, "default", 1, None, &npm("jira", "2.0.0"), &m)
        .await
        .expect_err("stale");
    assert!(
        matches!(&err, Error::Conflict(m) if m.contains("changed since you opened it")),
        "{err:?}"
    );
    core.save_registry_server(&p, "default", 2, None, &npm("jira", "2.0.0"), &m)
        .await
        .expect("add");
    let view = core.registry(&p, "default").await.expect("view");
    assert_eq!(view.unpublished.added, vec!["jira"]);
    assert_eq!(view.unpublished.changed[0].id, "wiki");
    let second = released(
        core.publish_registry(&p, "default", 3, &m)
            .await
            .expect("publish"),
    );
    assert_eq!(second.sequence, 2);
    let (list, total) = core
        .registry_releases(&p, "default", None, 10)
        .await
        .expect("list");
    assert_eq!(total, 2);
    assert_eq!(list[0].sequence, 2);
    assert_eq!(list[0].changes, "1 added, 1 changed");
    let (two, _) = core.registry_release(&p, "default", 2).await.expect("two");
    assert_eq!(two.diff.added, vec!["jira"]);
    let fields: Vec<&str> = two.diff.changed[0]
        .fields
        .iter()
        .map(|c| c.field.as_str())
        .collect();
    assert_eq!(fields, vec!["package.version", "tools.deny"]);
    assert_eq!(list[1].changes, "1 added, 1 ring/unit changes");
    // The manifest chains releases.
    let (_, stored) = core.registry_release(&p, "default", 2).await.expect("one");
    let doc: serde_json::Value = serde_json::from_str(&stored.document).expect("json");
    assert_eq!(doc["manifest"]["previous"], list[1].id.as_str());
    assert_eq!(doc["manifest"]["sequence"], 2);
}

#[tokio::test]
async fn invalid_servers_name_their_fields_and_write_nothing() {
    let f = fixture().await;
    let (core, p, m) = (&f.core, Principal::cli(), RequestMeta::default());
    core.replace_registry_draft(&p, "default", 0, &policy(vec![]), &m)
        .await
        .expect("draft");
    let mut bad = npm("wiki", "^1.0.0");
    bad.rings = vec!["nowhere".into()];
    let err = core
        .save_registry_server(&p, "default", 1, None, &bad, &m)
        .await
        .expect_err("range");
    let Error::Findings(found) = err else {
        panic!("findings expected: {err:?}")
    };
    assert!(
        found.iter().any(|f| f.field == "package.version"),
        "{found:?}"
    );
    // A ring the draft does not have, named on the server's own field.
    let mut unknown_ring = npm("wiki", "1.0.0");
    unknown_ring.rings = vec!["nowhere".into()];
    let err = core
        .save_registry_server(&p, "default", 1, None, &unknown_ring, &m)
        .await
        .expect_err("ring");
    let Error::Findings(found) = err else {
        panic!("findings expected: {err:?}")
    };
    assert_eq!(found[0].field, "rings[0]", "{found:?}");
    assert_eq!(revision(core).await, 1, "nothing was written");
    // A ring still in use cannot be removed.
    core.save_registry_server(&p, "default", 1, None, &npm("wiki", "1.0.0"), &m)
        .await
        .expect("add");
    let err = core
        .save_registry_groups(
            &p,
            "default",
            2,
            &GroupsInput {
                mode: "allowlist".into(),
                ..Default::default()
            },
            &m,
        )
        .await
        .expect_err("in use");
    assert!(
        matches!(&err, Error::Findings(f) if f[0].field == "servers[0].rings[0]"),
        "{err:?}"
    );
    // An unknown mode fails closed and is refused.
    let err = core
        .save_registry_groups(
            &p,
            "default",
            2,
            &GroupsInput {
                mode: "open".into(),
                rings: vec!["ring0".into()],
                units: vec![],
            },
            &m,
        )
        .await
        .expect_err("mode");
    assert!(
        matches!(&err, Error::Findings(f) if f[0].field == "mode"),
        "{err:?}"
    );
}

#[tokio::test]
async fn approval_needs_a_second_person() {
    let f = fixture().await;
    let (core, p, m) = (&f.core, Principal::cli(), RequestMeta::default());
    core.set_registry_settings(&p, "default", true, ApiAccess::Off, &m)
        .await
        .expect("approval on");
    let rev = revision(core).await;
    core.replace_registry_draft(&p, "default", rev, &policy(vec![npm("wiki", "1.0.0")]), &m)
        .await
        .expect("draft");
    let Published::AwaitingApproval(request) = core
        .publish_registry(&p, "default", rev + 1, &m)
        .await
        .expect("ask")
    else {
        panic!("published without approval")
    };
    assert!(
        core.registry_releases(&p, "default", None, 10)
            .await
            .expect("list")
            .0
            .is_empty()
    );
    // One request at a time.
    let err = core
        .publish_registry(&p, "default", rev + 1, &m)
        .await
        .expect_err("second");
    assert!(
        matches!(&err, Error::Conflict(m) if m.contains("waits for approval")),
        "{err:?}"
    );
    // The approver reviews the request's own content and digest, not the draft, which its
    // author may change after asking.
    let view = core.registry(&reviewer(), "default").await.expect("view");
    let digest = view.pending_digest.clone().expect("digest");
    assert_eq!(
        view.pending_diff.as_ref().expect("diff").added,
        vec!["wiki"]
    );
    let rev = revision(core).await;
    core.save_registry_server(&p, "default", rev, None, &npm("exfil", "6.6.6"), &m)
        .await
        .expect("edit after asking");
    let view = core.registry(&reviewer(), "default").await.expect("view");
    assert_eq!(view.pending_digest.as_deref(), Some(digest.as_str()));
    assert_eq!(
        view.pending_diff.as_ref().expect("diff").added,
        vec!["wiki"]
    );
    let err = core
        .approve_registry_request(&reviewer(), "default", &request.id, &"0".repeat(64), &m)
        .await
        .expect_err("another digest");
    assert!(
        matches!(&err, Error::Conflict(m) if m.contains("digest")),
        "{err:?}"
    );
    // Not by its author; not by a developer.
    let err = core
        .approve_registry_request(&p, "default", &request.id, &digest, &m)
        .await
        .expect_err("self");
    assert!(
        matches!(&err, Error::Conflict(m) if m.contains("You asked")),
        "{err:?}"
    );
    assert!(matches!(
        core.approve_registry_request(&developer(), "default", &request.id, &digest, &m)
            .await,
        Err(Error::Forbidden)
    ));
    let Approved::Release(release) = core
        .approve_registry_request(&reviewer(), "default", &request.id, &digest, &m)
        .await
        .expect("approve")
    else {
        panic!("a release")
    };
    let (_, published) = core
        .registry_release(&p, "default", 1)
        .await
        .expect("release 1");
    assert!(
        !published.document.contains("exfil"),
        "what was approved is what was published"
    );
    assert_eq!(release.published_by, "cli");
    assert_eq!(release.approved_by.as_deref(), Some("rev@example.com"));
    // Decided: it cannot be approved twice.
    assert!(
        core.approve_registry_request(&reviewer(), "default", &request.id, &digest, &m)
            .await
            .is_err()
    );
    // A rejection needs a reason, and ends the request.
    let rev = revision(core).await;
    core.save_registry_server(&p, "default", rev, None, &npm("jira", "1.0.0"), &m)
        .await
        .expect("edit");
    let Published::AwaitingApproval(next) = core
        .publish_registry(&p, "default", rev + 1, &m)
        .await
        .expect("ask")
    else {
        panic!("published")
    };
    assert!(
        core.reject_registry_request(&reviewer(), "default", &next.id, " ", &m)
            .await
            .is_err()
    );
    core.reject_registry_request(
        &reviewer(),
        "default",
        &next.id,
        "jira is not reviewed yet",
        &m,
    )
    .await
    .expect("reject");
    let stored = core
        .store
        .find_request(&request.realm_id, &next.id)
        .await
        .expect("find")
        .expect("kept");
    assert_eq!(stored.reason.as_deref(), Some("jira is not reviewed yet"));
    // Its author sees who rejected it and why, until the next request.
    let shown = core.registry(&p, "default").await.expect("view");
    let rejected = shown.rejected.expect("the rejection is shown");
    assert_eq!(rejected.decided_by.as_deref(), Some("rev@example.com"));
    assert_eq!(rejected.reason.as_deref(), Some("jira is not reviewed yet"));
    // A rejected request frees the way for the next, which its author may withdraw.
    let Published::AwaitingApproval(third) = core
        .publish_registry(&p, "default", rev + 1, &m)
        .await
        .expect("ask again")
    else {
        panic!("published")
    };
    let shown = core.registry(&p, "default").await.expect("view");
    assert!(
        shown.rejected.is_none(),
        "a new request replaces the rejection"
    );
    core.withdraw_registry_request(&p, "default", &third.id, &m)
        .await
        .expect("withdraw");
    assert!(
        core.registry(&p, "default")
            .await
            .expect("view")
            .pending
            .is_none()
    );
    // Turning approval off is itself approved by a second person.
    let SettingsOutcome::AwaitingApproval(off) = core
        .set_registry_settings(&p, "default", false, ApiAccess::Off, &m)
        .await
        .expect("ask to turn it off")
    else {
        panic!("approval switched off by one person")
    };
    assert!(
        core.registry(&p, "default")
            .await
            .expect("view")
            .registry
            .require_approval
    );
    let err = core
        .publish_registry(&p, "default", revision(core).await, &m)
        .await
        .expect_err("a request waits");
    assert!(
        matches!(&err, Error::Conflict(m) if m.contains("waits for approval")),
        "{err:?}"
    );
    let digest = core
        .registry(&reviewer(), "default")
        .await
        .expect("view")
        .pending_digest
        .expect("digest");
    let Approved::Settings(saved) = core
        .approve_registry_request(&reviewer(), "default", &off.id, &digest, &m)
        .await
        .expect("approve")
    else {
        panic!("settings")
    };
    assert!(!saved.require_approval);
}

#[tokio::test]
async fn rollback_publishes_old_content_and_resets_the_draft() {
    let f = fixture().await;
    let (core, p, m) = (&f.core, Principal::cli(), RequestMeta::default());
    core.replace_registry_draft(&p, "default", 0, &policy(vec![npm("wiki", "1.0.0")]), &m)
        .await
        .expect("draft");
    let one = released(
        core.publish_registry(&p, "default", 1, &m)
            .await
            .expect("1"),
    );
    core.save_registry_server(&p, "default", 1, Some("wiki"), &npm("wiki", "6.6.6"), &m)
        .await
        .expect("bad version");
    released(
        core.publish_registry(&p, "default", 2, &m)
            .await
            .expect("2"),
    );
    core.save_registry_server(&p, "default", 2, None, &npm("jira", "1.0.0"), &m)
        .await
        .expect("unpublished edit");
    let back = released(
        core.rollback_registry(&p, "default", 1, &m)
            .await
            .expect("roll back"),
    );
    assert_eq!(back.sequence, 3);
    assert_eq!(back.rollback_of, Some(1));
    assert_ne!(back.id, one.id, "a new release, not the old one");
    let view = core.registry(&p, "default").await.expect("view");
    assert_eq!(view.registry.draft, policy(vec![npm("wiki", "1.0.0")]));
    assert!(view.unpublished.is_empty(), "{:?}", view.unpublished);
    let err = core
        .rollback_registry(&p, "default", 3, &m)
        .await
        .expect_err("latest");
    assert!(matches!(err, Error::Conflict(_)));
    assert!(matches!(
        core.rollback_registry(&p, "default", 99, &m).await,
        Err(Error::NotFound { .. })
    ));
}

#[tokio::test]
async fn members_of_rings_and_units() {
    let f = fixture().await;
    let (core, p, m) = (&f.core, Principal::cli(), RequestMeta::default());
    let mut draft = policy(vec![]);
    draft.units = vec![
        Unit {
            id: "eng".into(),
            parent: None,
        },
        Unit {
            id: "payments".into(),
            parent: Some("eng".into()),
        },
    ];
    core.replace_registry_draft(&p, "default", 0, &draft, &m)
        .await
        .expect("draft");
    core.create_agent(
        &p,
        "default",
        &crate::agents::AgentInput {
            name: "night-bot".into(),
            owner: "ada@example.com".into(),
            ..Default::default()
        },
        &m,
    )
    .await
    .expect("agent");
    core.create_person(
        &p,
        "default",
        &crate::people::PersonInput {
            email: "grace@example.com".into(),
            display_name: "Grace".into(),
            ..Default::default()
        },
        None,
        &m,
    )
    .await
    .expect("person");
    core.add_registry_member(
        &p,
        "default",
        (GroupKind::Ring, "ring0"),
        (MemberKind::Agent, "night-bot"),
        &m,
    )
    .await
    .expect("agent in ring");
    core.add_registry_member(
        &p,
        "default",
        (GroupKind::Unit, "payments"),
        (MemberKind::Person, "Grace@Example.com"),
        &m,
    )
    .await
    .expect("person in unit");
    let err = core
        .add_registry_member(
            &p,
            "default",
            (GroupKind::Ring, "ring0"),
            (MemberKind::Agent, "night-bot"),
            &m,
        )
        .await
        .expect_err("twice");
    assert!(matches!(err, Error::Conflict(_)));
    assert!(matches!(
        core.add_registry_member(
            &p,
            "default",
            (GroupKind::Ring, "nowhere"),
            (MemberKind::Agent, "night-bot"),
            &m
        )
        .await,
        Err(Error::NotFound { entity: "ring", .. })
    ));
    assert!(matches!(
        core.add_registry_member(
            &p,
            "default",
            (GroupKind::Ring, "ring0"),
            (MemberKind::Person, "nobody@example.com"),
            &m
        )
        .await,
        Err(Error::NotFound {
            entity: "person",
            ..
        })
    ));
    assert!(matches!(
        core.add_registry_member(
            &developer(),
            "default",
            (GroupKind::Ring, "ring0"),
            (MemberKind::Agent, "night-bot"),
            &m
        )
        .await,
        Err(Error::Forbidden)
    ));
    let members = core
        .registry_members(&reviewer(), "default", (GroupKind::Ring, "ring0"))
        .await
        .expect("members");
    assert_eq!(members.len(), 1);
    assert_eq!(members[0].name, "night-bot");
    let groups = core
        .registry_groups_of(&p, "default", (MemberKind::Person, "grace@example.com"))
        .await
        .expect("groups");
    assert_eq!(groups, vec![(GroupKind::Unit, "payments".to_owned())]);
    // A deleted agent leaves its rings.
    core.delete_agent(&p, "default", "night-bot", &m)
        .await
        .expect("delete");
    assert!(
        core.registry_members(&p, "default", (GroupKind::Ring, "ring0"))
            .await
            .expect("members")
            .is_empty()
    );
    core.remove_registry_member(
        &p,
        "default",
        (GroupKind::Unit, "payments"),
        (MemberKind::Person, "grace@example.com"),
        &m,
    )
    .await
    .expect("remove");
    assert!(matches!(
        core.remove_registry_member(
            &p,
            "default",
            (GroupKind::Unit, "payments"),
            (MemberKind::Person, "grace@example.com"),
            &m
        )
        .await,
        Err(Error::NotFound { .. })
    ));
}

#[tokio::test]
async fn who_may_read_the_registry_over_http() {
    let f = fixture().await;
    let (core, p, m) = (&f.core, Principal::cli(), RequestMeta::default());
    core.replace_registry_draft(&p, "default", 0, &policy(vec![npm("wiki", "1.0.0")]), &m)
        .await
        .expect("draft");
    core.publish_registry(&p, "default", 1, &m)
        .await
        .expect("publish");
    // Off by default: as if there were no registry.
    assert!(matches!(
        core.served_release("default", ReleaseSelector::Latest, None)
            .await,
        Err(Error::NotFound { .. })
    ));
    assert!(matches!(
        core.served_registry("default", None).await,
        Err(Error::NotFound { .. })
    ));
    // Bearer: the registry's own resource is created, and a token is required.
    core.set_registry_settings(&p, "default", false, ApiAccess::Bearer, &m)
        .await
        .expect("bearer");
    let resource = core
        .resource(&p, "default", "mcp-registry")
        .await
        .expect("registry resource");
    assert_eq!(
        resource.uri.as_str(),
        "https://auth.example.com/realms/default/registry"
    );
    for token in [None, Some("garbage"), Some("eyJhbGciOiJub25lIn0.e30.")] {
        let err = core
            .served_release("default", ReleaseSelector::Latest, token)
            .await
            .expect_err("no valid token");
        assert!(
            matches!(&err, Error::OAuth(o) if o.code == crate::error::OAuthErrorCode::InvalidToken),
            "{err:?}"
        );
    }
    // Setting bearer again keeps the one resource.
    core.set_registry_settings(&p, "default", false, ApiAccess::Bearer, &m)
        .await
        .expect("bearer again");
    core.set_registry_settings(&p, "default", false, ApiAccess::Public, &m)
        .await
        .expect("public");
    let served = core.served_registry("default", None).await.expect("public");
    assert_eq!(served.policy.servers.len(), 1);
    assert_eq!(served.info.sequence, 1);
    assert_eq!(served.info.namespace, "com.example.auth");
    // Developers read the registry; only admins change it.
    core.registry(&developer(), "default")
        .await
        .expect("developer reads");
    assert!(matches!(
        core.publish_registry(&developer(), "default", 1, &m).await,
        Err(Error::Forbidden)
    ));
    assert!(matches!(
        core.set_registry_settings(&reviewer(), "default", false, ApiAccess::Off, &m)
            .await,
        Err(Error::Forbidden)
    ));
}
