//! Drift report persistence: one row per device, replaced in place and rate limited, at most
//! so many devices per person, keyset pages, the realm's numbers and its most common findings.
use super::authorize::person;
use super::fixtures::{audit_count, event, given_realm};
use crate::drift::{DriftCursor, Reporter, StoredDriftReport};
use crate::error::StorageError;
use crate::storage::Database;
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
    let first = stored(&ada, 100, report("ada-mbp", 'a', &["stray", "other"]));
    assert!(store.save_drift_report(&first, 40, 20).await.expect("save"));
    let again = stored(&ada, 130, report("ada-mbp", 'b', &[]));
    assert!(!store.save_drift_report(&again, 70, 20).await.expect("save"));
    let (row, kept) = store
        .find_drift_report(&r.id, ada.id.as_str(), "ada-mbp")
        .await
        .expect("find")
        .expect("found");
    assert_eq!(kept, first.report);
    assert_eq!(
        (row.email.as_str(), row.findings, row.received_at),
        ("ada@example.com", 2, 100)
    );

    // Later: replaces it, findings with it.
    let later = stored(&ada, 200, report("ada-mbp", 'b', &["stray"]));
    assert!(
        store
            .save_drift_report(&later, 140, 20)
            .await
            .expect("save")
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

    // Bob's laptops: at most 3 kept, the ones heard from last.
    for (i, at) in [(1, 300), (2, 310), (3, 320), (4, 330)] {
        let name = format!("bob-{i}");
        let findings: &[&str] = if i % 2 == 0 { &["stray"] } else { &[] };
        let s = stored(&bob, at, report(&name, 'a', findings));
        assert!(store.save_drift_report(&s, at - 60, 3).await.expect("save"));
    }
    assert!(
        store
            .find_drift_report(&r.id, bob.id.as_str(), "bob-1")
            .await
            .expect("find")
            .is_none(),
        "the device heard from first went"
    );

    // The numbers: 4 devices of 2 people; 3 drift; 2 on release b… only ada's.
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
    assert_eq!((tally[0].name.as_str(), tally[0].devices), ("stray", 3));

    // Pages by key, newest first; search and the drifting filter.
    let page = store
        .list_drift_reports(&r.id, None, false, None, 2)
        .await
        .expect("list");
    let names: Vec<_> = page.iter().map(|d| d.device.as_str()).collect();
    assert_eq!(names, ["bob-4", "bob-3"]);
    let after = DriftCursor {
        received_at: page[1].received_at,
        subject: page[1].subject.clone(),
        device: page[1].device.clone(),
    };
    let rest = store
        .list_drift_reports(&r.id, None, false, Some(&after), 10)
        .await
        .expect("list");
    let names: Vec<_> = rest.iter().map(|d| d.device.as_str()).collect();
    assert_eq!(names, ["bob-2", "ada-mbp"]);
    let found = store
        .list_drift_reports(&r.id, Some("ADA@"), false, None, 10)
        .await
        .expect("search");
    assert_eq!(found.len(), 1);
    let drifting = store
        .list_drift_reports(&r.id, None, true, None, 10)
        .await
        .expect("drifting");
    assert_eq!(drifting.len(), 3);

    // Forgetting: audited, findings go with it, a second time is NotFound.
    let before = audit_count(&store).await;
    store
        .delete_drift_report(
            &r.id,
            bob.id.as_str(),
            "bob-4",
            &ev("registry.drift_forget"),
        )
        .await
        .expect("forget");
    assert_eq!(audit_count(&store).await, before + 1);
    let tally = store.drift_tally(&r.id, 10).await.expect("tally");
    assert_eq!(tally[0].devices, 2);
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
