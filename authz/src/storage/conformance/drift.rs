//! Drift report persistence: one row per device, replaced in place and rate limited, at most
//! so many devices per person, keyset pages, the realm's numbers and its most common findings.
use super::authorize::person;
use super::fixtures::{audit_count, event, given_realm};
use crate::drift::{DriftCursor, DriftQuery, Reporter, StoredDriftReport};
use crate::error::StorageError;
use crate::storage::{Database, Saved};
use portcullis_manifest::drift::{DriftFinding, DriftReport, FindingKind, Harness, TransportKind};

fn finding(name: &str) -> DriftFinding {
    DriftFinding {
        kind: FindingKind::Unapproved,
        harness: Harness::Codex,
        source: "~/.codex/config.toml".into(),
        name: name.into(),
        transport: TransportKind::Stdio,
        host: None,
        definition_sha256: "e".repeat(64),
        fix: "Remove it.".into(),
    }
}

fn query(search: Option<&str>, subject: Option<&str>, drifting_only: bool) -> DriftQuery {
    DriftQuery {
        search: search.map(str::to_owned),
        subject: subject.map(str::to_owned),
        drifting_only,
        after: None,
    }
}

fn report(device: &str, release: char, findings: &[&str]) -> DriftReport {
    DriftReport::new(
        device.into(),
        (release.to_string().repeat(64), 2),
        (vec!["early".into()], vec![]),
        3,
        6,
        findings.iter().map(|n| finding(n)).collect(),
        vec![],
    )
}

pub(super) async fn drift(db: &Database) {
    let store = db.store();
    let r = given_realm(&store, "default").await;
    let ev = |a| event(&r.id, a, "admin@x.io", "person:x", 10);
    let (ada, bob) = (person(&r, "ada@example.com"), person(&r, "bob@example.com"));
    for p in [&ada, &bob] {
        store
            .insert_person(p, &ev("person.create"))
            .await
            .expect("person");
    }
    let stored = |who: &crate::people::Person, at: i64, report: DriftReport| StoredDriftReport {
        realm_id: r.id.clone(),
        subject: who.id.as_str().to_owned(),
        reporter: Reporter::Person,
        device: report.device.clone(),
        received_at: at,
        report,
    };

    // First report; a second within the interval is refused and changes nothing.
    let first = stored(
        &ada,
        100,
        report("ada-mbp", 'a', &["stray", "other", "stray"]),
    );
    let limits = (20, 0);
    assert_eq!(
        store
            .save_drift_report(&first, 40, limits)
            .await
            .expect("save"),
        Saved::Stored
    );
    let again = stored(&ada, 130, report("ada-mbp", 'b', &[]));
    assert_eq!(
        store
            .save_drift_report(&again, 70, limits)
            .await
            .expect("save"),
        Saved::TooSoon
    );
    let (row, kept) = store
        .find_drift_report(&r.id, ada.id.as_str(), "ada-mbp")
        .await
        .expect("find")
        .expect("found");
    assert_eq!(kept, first.report);
    assert_eq!(
        (row.email.as_str(), row.findings, row.received_at),
        ("ada@example.com", 3, 100)
    );
    // The same name twice on one device is one finding row.
    let tally = store.drift_tally(&r.id, 10).await.expect("tally");
    assert_eq!(
        tally.iter().find(|t| t.name == "stray").map(|t| t.people),
        Some(1)
    );

    // Later: replaces it, findings with it.
    let later = stored(&ada, 200, report("ada-mbp", 'b', &["stray"]));
    assert_eq!(
        store
            .save_drift_report(&later, 140, limits)
            .await
            .expect("save"),
        Saved::Stored
    );
    let (row, _) = store
        .find_drift_report(&r.id, ada.id.as_str(), "ada-mbp")
        .await
        .expect("find")
        .expect("found");
    assert_eq!(
        (row.findings, row.release_id.as_str()),
        (1, "b".repeat(64).as_str())
    );

    // Bob's laptops, at most 3: a fourth is refused while none is stale, and takes the place
    // of the one heard from longest ago once that one is.
    for (i, at) in [(1, 300), (2, 310), (3, 320)] {
        let name = format!("bob-{i}");
        let findings: &[&str] = if i % 2 == 0 { &["stray"] } else { &[] };
        let s = stored(&bob, at, report(&name, 'a', findings));
        assert_eq!(
            store
                .save_drift_report(&s, at - 60, (3, 0))
                .await
                .expect("save"),
            Saved::Stored
        );
    }
    let fourth = stored(&bob, 330, report("bob-4", 'a', &["stray"]));
    assert_eq!(
        store
            .save_drift_report(&fourth, 270, (3, 300))
            .await
            .expect("save"),
        Saved::TooManyDevices
    );
    // An existing device still reports at the cap.
    let third = stored(&bob, 400, report("bob-3", 'a', &[]));
    assert_eq!(
        store
            .save_drift_report(&third, 340, (3, 300))
            .await
            .expect("save"),
        Saved::Stored
    );
    let fourth = stored(&bob, 330, report("bob-4", 'a', &["stray"]));
    assert_eq!(
        store
            .save_drift_report(&fourth, 270, (3, 305))
            .await
            .expect("save"),
        Saved::Stored
    );
    assert!(
        store
            .find_drift_report(&r.id, bob.id.as_str(), "bob-1")
            .await
            .expect("find")
            .is_none(),
        "the stale device made room"
    );

    // The numbers: 4 devices of 2 people; 3 drift; 1 on release b (ada's); 1 stale.
    let summary = store
        .drift_summary(&r.id, Some(&"b".repeat(64)), 305)
        .await
        .expect("summary");
    assert_eq!(
        (
            summary.devices,
            summary.people,
            summary.drifting,
            summary.on_latest,
            summary.stale
        ),
        (4, 2, 3, 1, 1)
    );
    let tally = store.drift_tally(&r.id, 10).await.expect("tally");
    assert_eq!(tally.len(), 1);
    // People, not devices: bob's two laptops with "stray" count once.
    assert_eq!((tally[0].name.as_str(), tally[0].people), ("stray", 2));

    // Pages by key, newest first; search and the drifting filter.
    let page = store
        .list_drift_reports(&r.id, &query(None, None, false), None, 2)
        .await
        .expect("list");
    let names: Vec<_> = page.iter().map(|d| d.device.as_str()).collect();
    assert_eq!(names, ["bob-3", "bob-4"]);
    let after = DriftCursor {
        received_at: page[1].received_at,
        subject: page[1].subject.clone(),
        device: page[1].device.clone(),
    };
    let rest = store
        .list_drift_reports(&r.id, &query(None, None, false), Some(&after), 10)
        .await
        .expect("list");
    let names: Vec<_> = rest.iter().map(|d| d.device.as_str()).collect();
    assert_eq!(names, ["bob-2", "ada-mbp"]);
    let found = store
        .list_drift_reports(&r.id, &query(Some("ADA@"), None, false), None, 10)
        .await
        .expect("search");
    assert_eq!(found.len(), 1);
    let drifting = store
        .list_drift_reports(&r.id, &query(None, None, true), None, 10)
        .await
        .expect("drifting");
    assert_eq!(drifting.len(), 3);
    let bobs = store
        .list_drift_reports(&r.id, &query(None, Some(bob.id.as_str()), false), None, 10)
        .await
        .expect("one person's");
    assert_eq!(bobs.len(), 3);

    // Forgetting: audited, findings go with it, a second time is NotFound.
    let before = audit_count(&store).await;
    for device in ["bob-4", "bob-2"] {
        store
            .delete_drift_report(&r.id, bob.id.as_str(), device, &ev("registry.drift_forget"))
            .await
            .expect("forget");
    }
    assert_eq!(audit_count(&store).await, before + 2);
    let tally = store.drift_tally(&r.id, 10).await.expect("tally");
    assert_eq!(tally[0].people, 1);
    assert!(matches!(
        store
            .delete_drift_report(
                &r.id,
                bob.id.as_str(),
                "bob-4",
                &ev("registry.drift_forget")
            )
            .await,
        Err(StorageError::NotFound)
    ));
}
