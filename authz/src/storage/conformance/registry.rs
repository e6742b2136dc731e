use super::fixtures::{agent, event, given_realm};
use crate::error::StorageError;
use crate::registry::{
    ApiAccess, GroupKind, MemberKind, Membership, PublishRequest, Registry, RequestStatus,
    StoredRelease,
};
use crate::storage::{Database, ReleaseEffects, SEQUENCE_TAKEN, STALE_DRAFT};
use portcullis_manifest::policy::PolicyInput;

fn release(realm: &Registry, sequence: i64, id: &str) -> StoredRelease {
    StoredRelease {
        realm_id: realm.realm_id.clone(),
        sequence,
        id: id.into(),
        document: format!("{{\"id\":\"{id}\"}}"),
        published_at: 10 + sequence,
        published_by: "ada@example.com".into(),
        approved_by: None,
        rollback_of: None,
        servers: 0,
        changes: "no change".into(),
    }
}

fn request(r: &Registry, id: &str) -> PublishRequest {
    PublishRequest {
        id: id.into(),
        realm_id: r.realm_id.clone(),
        policy: r.draft.clone(),
        rollback_of: None,
        base_sequence: 0,
        settings: Some(crate::registry::SettingsChange {
            require_approval: false,
            api_access: ApiAccess::Public,
        }),
        requested_by: "ada@example.com".into(),
        requested_at: 5,
        status: RequestStatus::Pending,
        decided_by: None,
        decided_at: None,
        reason: None,
        release_sequence: None,
    }
}

/// Drafts are written under their revision; releases are inserted once per sequence number;
/// one request waits per realm; members leave with what they stood for.
pub(super) async fn registry(db: &Database) {
    let store = db.store();
    let realm = given_realm(&store, "default").await;
    let ev = || {
        event(
            &realm.id,
            "registry.update",
            "ada@example.com",
            "registry",
            3,
        )
    };
    assert_eq!(store.find_registry(&realm.id).await.expect("find"), None);
    let mut r = Registry {
        realm_id: realm.id.clone(),
        draft: PolicyInput {
            mode: "allowlist".into(),
            rings: vec!["ring0".into()],
            ..PolicyInput::default()
        },
        revision: 1,
        require_approval: false,
        api_access: ApiAccess::Bearer,
        updated_at: 2,
        updated_by: "ada@example.com".into(),
    };
    store.save_registry(&r, None, &ev()).await.expect("create");
    assert_eq!(
        store.find_registry(&realm.id).await.expect("find"),
        Some(r.clone())
    );
    // Creating twice, or writing from a stale revision, is refused.
    let stale = store
        .save_registry(&r, None, &ev())
        .await
        .expect_err("twice");
    assert!(
        matches!(stale, StorageError::Precondition(STALE_DRAFT)),
        "{stale:?}"
    );
    r.revision = 2;
    r.draft.mode = "warn".into();
    store
        .save_registry(&r, Some(1), &ev())
        .await
        .expect("update");
    let stale = store
        .save_registry(&r, Some(1), &ev())
        .await
        .expect_err("stale");
    assert!(
        matches!(stale, StorageError::Precondition(STALE_DRAFT)),
        "{stale:?}"
    );
    assert_eq!(
        store
            .find_registry(&realm.id)
            .await
            .expect("find")
            .expect("row")
            .draft
            .mode,
        "warn"
    );

    // Releases: one per sequence number; newest first; by id.
    let one = release(&r, 1, &"a".repeat(64));
    store
        .insert_release(&one, ReleaseEffects::default(), &ev())
        .await
        .expect("1");
    let taken = store
        .insert_release(
            &release(&r, 1, &"b".repeat(64)),
            ReleaseEffects::default(),
            &ev(),
        )
        .await
        .expect_err("sequence taken");
    assert!(
        matches!(taken, StorageError::Precondition(SEQUENCE_TAKEN)),
        "{taken:?}"
    );
    // A roll back writes the draft in the same transaction, or nothing at all.
    let mut rolled = r.clone();
    rolled.revision = 3;
    rolled.draft.mode = "allowlist".into();
    let two = StoredRelease {
        rollback_of: Some(1),
        ..release(&r, 2, &"c".repeat(64))
    };
    let stale = store
        .insert_release(
            &two,
            ReleaseEffects {
                draft: Some((&rolled, 1)),
                request: None,
            },
            &ev(),
        )
        .await
        .expect_err("stale draft");
    assert!(
        matches!(stale, StorageError::Precondition(STALE_DRAFT)),
        "{stale:?}"
    );
    assert_eq!(
        store.latest_release(&realm.id).await.expect("latest"),
        Some(one.clone())
    );
    store
        .insert_release(
            &two,
            ReleaseEffects {
                draft: Some((&rolled, 2)),
                request: None,
            },
            &ev(),
        )
        .await
        .expect("roll back");
    assert_eq!(
        store.find_registry(&realm.id).await.expect("find"),
        Some(rolled.clone())
    );
    assert_eq!(
        store.latest_release(&realm.id).await.expect("latest"),
        Some(two.clone())
    );
    assert_eq!(
        store
            .release_by_sequence(&realm.id, 1)
            .await
            .expect("by seq"),
        Some(one.clone())
    );
    assert_eq!(
        store
            .release_by_id(&realm.id, &"c".repeat(64))
            .await
            .expect("by id"),
        Some(two.clone())
    );
    let (page, total) = store.list_releases(&realm.id, None, 1).await.expect("list");
    assert_eq!((page, total), (vec![two.head()], 2));
    assert_eq!(
        store.latest_release_head(&realm.id).await.expect("head"),
        Some(two.head())
    );
    let (page, _) = store
        .list_releases(&realm.id, Some(2), 10)
        .await
        .expect("older");
    assert_eq!(page, vec![one.head()]);

    // One pending request per realm; a published one ends with the release.
    store
        .insert_request(&request(&rolled, "rrq_1"), &ev())
        .await
        .expect("ask");
    let twice = store
        .insert_request(&request(&rolled, "rrq_2"), &ev())
        .await
        .expect_err("one at a time");
    assert!(matches!(twice, StorageError::Conflict(_)), "{twice:?}");
    let three = StoredRelease {
        approved_by: Some("rev@example.com".into()),
        ..release(&r, 3, &"d".repeat(64))
    };
    store
        .insert_release(
            &three,
            ReleaseEffects {
                draft: None,
                request: Some("rrq_1"),
            },
            &ev(),
        )
        .await
        .expect("approved");
    let done = store
        .find_request(&realm.id, "rrq_1")
        .await
        .expect("find")
        .expect("kept");
    assert_eq!(done.status, RequestStatus::Published);
    assert_eq!(done.release_sequence, Some(3));
    assert_eq!(done.settings.map(|s| s.api_access), Some(ApiAccess::Public));
    assert_eq!(done.base_sequence, 0);
    assert_eq!(done.decided_by.as_deref(), Some("rev@example.com"));
    assert_eq!(
        store.pending_request(&realm.id).await.expect("pending"),
        None
    );
    store
        .insert_request(&request(&rolled, "rrq_2"), &ev())
        .await
        .expect("next");
    store
        .close_request(
            "rrq_2",
            RequestStatus::Rejected,
            "rev@example.com",
            9,
            Some("no"),
            &ev(),
        )
        .await
        .expect("reject");
    let last = store
        .last_rejected_request(&realm.id)
        .await
        .expect("last rejected")
        .expect("one");
    assert_eq!(
        (last.id.as_str(), last.status),
        ("rrq_2", RequestStatus::Rejected)
    );
    assert_eq!(last.reason.as_deref(), Some("no"));
    assert!(matches!(
        store
            .close_request(
                "rrq_2",
                RequestStatus::Withdrawn,
                "ada@example.com",
                9,
                None,
                &ev()
            )
            .await,
        Err(StorageError::NotFound)
    ));

    // Members: each once; named; leave with the agent.
    let bot = agent(&realm.id, "night-bot");
    store.insert_agent(&bot, &ev()).await.expect("agent");
    let m = Membership {
        realm_id: realm.id.clone(),
        group_kind: GroupKind::Ring,
        group_id: "ring0".into(),
        member_kind: MemberKind::Agent,
        member_id: bot.id.as_str().to_owned(),
        added_at: 4,
        added_by: "ada@example.com".into(),
    };
    store.insert_member(&m, &ev()).await.expect("member");
    assert!(matches!(
        store.insert_member(&m, &ev()).await,
        Err(StorageError::Conflict(_))
    ));
    let listed = store
        .list_members(&realm.id, (GroupKind::Ring, "ring0"), 10)
        .await
        .expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "night-bot");
    assert_eq!(listed[0].membership, m);
    assert_eq!(
        store.count_members(&realm.id).await.expect("count"),
        vec![(GroupKind::Ring, "ring0".to_owned(), 1)]
    );
    assert_eq!(
        store
            .groups_of(&realm.id, (MemberKind::Agent, bot.id.as_str()))
            .await
            .expect("groups"),
        vec![(GroupKind::Ring, "ring0".to_owned())]
    );
    store
        .delete_agent(&bot.id, &ev())
        .await
        .expect("delete agent");
    assert!(
        store
            .list_members(&realm.id, (GroupKind::Ring, "ring0"), 10)
            .await
            .expect("list")
            .is_empty()
    );
    assert!(matches!(
        store
            .delete_member(
                &realm.id,
                (GroupKind::Ring, "ring0"),
                (MemberKind::Agent, bot.id.as_str()),
                &ev()
            )
            .await,
        Err(StorageError::NotFound)
    ));
}
