//! Calls through the gateway that wait, fail or are limited: approvals (run once, bound to
//! the call, denied on timeout, decided by reviewers or the agent's owner), a hanging
//! upstream's breaker, and per-tool limits.
use super::*;

fn approval_id(r: &CallToolResult) -> String {
    r.structured_content.as_ref().expect("structured")["approval_id"]
        .as_str()
        .expect("approval_id")
        .to_owned()
}

async fn execute_approved(
    client: &RunningService<RoleClient, ()>,
    name: &str,
    arguments: Value,
    approval: &str,
) -> Value {
    let r = call(
        client,
        "execute_capability",
        json!({"name": name, "arguments": arguments, "approval_id": approval}),
    )
    .await
    .expect("a result");
    r.structured_content
        .unwrap_or_else(|| json!({"ran": format!("{:?}", r.content)}))
}

#[tokio::test]
async fn a_write_waits_for_a_person_runs_once_after_approval_and_is_denied_on_timeout() {
    let g = setup().await;
    let (alpha, beta) = (g.client("alpha").await, g.client("beta").await);
    search(&alpha).await;
    g.accept("notes").await;
    let core = &g.t.state.core;
    let meta = authz::RequestMeta::default();
    let args = json!({"q": "minutes", "api_token": "s3cr3t-value"});

    let r = execute(&beta, "notes.delete_note", args.clone())
        .await
        .expect("a result");
    let id = approval_id(&r);
    assert_eq!(g.notes.calls.load(Ordering::SeqCst), 0, "nothing ran");
    // The approver sees the call with secret-looking values hidden.
    let queue = core
        .list_gateway_approvals(&g.admin, "default", true)
        .await
        .expect("queue");
    assert_eq!(queue.len(), 1);
    let (waiting, agent) = &queue[0];
    assert_eq!(agent.as_deref(), Some("beta"));
    assert_eq!(waiting.capability(), "notes.delete_note");
    assert_eq!(waiting.risk, "high");
    assert!(waiting.arguments_preview.contains("minutes"));
    assert!(
        !waiting.arguments_preview.contains("s3cr3t"),
        "{}",
        waiting.arguments_preview
    );
    // Before a decision: still waiting, nothing runs.
    let v = execute_approved(&beta, "notes.delete_note", args.clone(), &id).await;
    assert_eq!(v["status"], "approval_pending");
    // Another caller, or other arguments, cannot use it.
    let v = execute_approved(&alpha, "notes.delete_note", args.clone(), &id).await;
    assert_eq!(v["error"], "approval_unknown");
    core.decide_gateway_approval(&g.admin, "default", &id, true, "fine", &meta)
        .await
        .expect("approve");
    let v = execute_approved(&beta, "notes.delete_note", json!({"q": "other"}), &id).await;
    assert_eq!(v["error"], "approval_unknown");
    assert_eq!(g.notes.calls.load(Ordering::SeqCst), 0);
    // The same call with the approval runs, once.
    let v = execute_approved(&beta, "notes.delete_note", args.clone(), &id).await;
    assert!(
        v["ran"]
            .as_str()
            .is_some_and(|t| t.contains("delete_note ran")),
        "{v}"
    );
    assert_eq!(g.notes.calls.load(Ordering::SeqCst), 1);
    let v = execute_approved(&beta, "notes.delete_note", args.clone(), &id).await;
    assert_eq!(v["error"], "approval_used");
    assert_eq!(g.notes.calls.load(Ordering::SeqCst), 1);
    // Deciding again is refused.
    assert!(matches!(
        core.decide_gateway_approval(&g.admin, "default", &id, false, "", &meta)
            .await,
        Err(authz::Error::Conflict(_))
    ));

    // Nobody decides in time: denied.
    let r = execute(&beta, "notes.delete_note", args.clone())
        .await
        .expect("a result");
    let late = approval_id(&r);
    g.clock.advance(601);
    // (Its token expired meanwhile too: a new sign-in, the same caller.)
    let beta = g.client("beta").await;
    let v = execute_approved(&beta, "notes.delete_note", args.clone(), &late).await;
    assert_eq!(v["error"], "approval_expired");
    assert!(matches!(
        core.decide_gateway_approval(&g.admin, "default", &late, true, "", &meta)
            .await,
        Err(authz::Error::Conflict(_))
    ));
    assert_eq!(g.notes.calls.load(Ordering::SeqCst), 1);
    let rows =
        g.t.audit(authz::audit::AuditFilter {
            action: Some("gateway.approval_approve".into()),
            ..Default::default()
        })
        .await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].details["capability"], "notes.delete_note");
}

#[tokio::test]
async fn a_hanging_upstream_trips_the_breaker_and_search_reports_it() {
    let g = setup().await;
    let beta = g.client("beta").await;
    search(&beta).await;
    g.accept("notes").await;
    g.notes.hang.store(true, Ordering::SeqCst);
    // A read is tried twice (one retry) and times out each time: two failures open it.
    let r = execute(&beta, "notes.search", json!({"q": "x"}))
        .await
        .expect("a result");
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        r.structured_content.as_ref().map(|v| v["error"].clone()),
        Some(json!("timeout"))
    );
    let found = search(&beta).await;
    assert_eq!(names(&found), Vec::<String>::new());
    assert_eq!(found["unavailable"][0]["server"], "notes");
    assert_eq!(found["unavailable"][0]["availability"], "circuit_open");
    assert!(
        found["unavailable"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("failed repeatedly"))
    );
    let calls = g.notes.calls.load(Ordering::SeqCst);
    // A name it offered is unavailable (not unknown) while the breaker is open.
    let r = execute(&beta, "notes.search", json!({"q": "x"}))
        .await
        .expect("a result");
    assert_eq!(
        r.structured_content.as_ref().map(|v| v["error"].clone()),
        Some(json!("unavailable"))
    );
    assert!(not_found(
        execute(&beta, "notes.nothing_like_it", json!({"q": "x"})).await
    ));
    assert_eq!(
        g.notes.calls.load(Ordering::SeqCst),
        calls,
        "and calls nothing"
    );
}

#[tokio::test]
async fn calls_past_a_tools_limit_are_refused_before_anything_is_sent() {
    let g = setup().await;
    let beta = g.client("beta").await;
    search(&beta).await;
    g.accept("notes").await;
    for i in 0..8 {
        let r = execute(&beta, "notes.search", json!({"q": format!("n{i}")}))
            .await
            .expect("call");
        assert_ne!(r.is_error, Some(true), "call {i}: {r:?}");
    }
    let r = execute(&beta, "notes.search", json!({"q": "one more"}))
        .await
        .expect("call");
    let v = r.structured_content.expect("structured");
    assert_eq!(v["error"], "rate_limited");
    assert!(
        v["retry_after_secs"]
            .as_u64()
            .is_some_and(|s| (1..=60).contains(&s))
    );
    assert_eq!(
        g.notes.calls.load(Ordering::SeqCst),
        8,
        "the ninth was not sent"
    );
    // Another caller has its own limit.
    let alpha = g.client("alpha").await;
    let r = execute(&alpha, "notes.search", json!({"q": "mine"}))
        .await
        .expect("call");
    assert_ne!(r.is_error, Some(true));
}

#[tokio::test]
async fn an_agents_owner_decides_its_calls_and_no_one_elses() {
    let g = setup().await;
    // Notes also lists a write that destroys nothing (medium risk).
    let mut archive = tool("archive_note", "Archive a note", false);
    if let Some(a) = archive.annotations.as_mut() {
        a.destructive_hint = Some(false);
    }
    g.notes.set_tools(vec![
        tool("search", "Search notes", true),
        tool("delete_note", "Delete a note", false),
        archive,
    ]);
    let beta = g.client("beta").await;
    search(&beta).await;
    g.accept("notes").await;
    let core = &g.t.state.core;
    let meta = authz::RequestMeta::default();
    // Both agents are owned by owner@example.com (a developer); other@ owns none.
    g.t.user("owner@example.com", "developer").await;
    g.t.user("other@example.com", "developer").await;
    let owner = g.t.principal("owner@example.com").await;
    let other = g.t.principal("other@example.com").await;
    let args = json!({"q": "minutes"});
    let medium = approval_id(
        &execute(&beta, "notes.archive_note", args.clone())
            .await
            .expect("a result"),
    );
    let high = approval_id(
        &execute(&beta, "notes.delete_note", args.clone())
            .await
            .expect("a result"),
    );

    // The owner sees and decides the medium-risk call; a destructive one waits for a
    // reviewer; another developer sees nothing.
    assert_eq!(
        core.gateway_waiting_count(&owner, "default")
            .await
            .expect("count"),
        1
    );
    assert_eq!(
        core.gateway_waiting_count(&other, "default")
            .await
            .expect("count"),
        0
    );
    assert_eq!(
        core.gateway_waiting_count(&g.admin, "default")
            .await
            .expect("count"),
        2
    );
    assert!(
        core.list_gateway_approvals(&other, "default", true)
            .await
            .expect("list")
            .is_empty()
    );
    for (who, id) in [(&other, &medium), (&owner, &high)] {
        assert!(matches!(
            core.decide_gateway_approval(who, "default", id, true, "", &meta)
                .await,
            Err(authz::Error::Forbidden)
        ));
    }
    let seen = core
        .list_gateway_approvals(&owner, "default", true)
        .await
        .expect("list");
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].0.id, medium);
    assert_eq!(seen[0].1.as_deref(), Some("beta"));
    let decided = core
        .decide_gateway_approval(&owner, "default", &medium, true, "mine", &meta)
        .await
        .expect("the owner approves");
    assert_eq!(decided.decided_by.as_deref(), Some("owner@example.com"));
    let v = execute_approved(&beta, "notes.archive_note", args.clone(), &medium).await;
    assert!(
        v["ran"]
            .as_str()
            .is_some_and(|t| t.contains("archive_note ran")),
        "{v}"
    );
}
