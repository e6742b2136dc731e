use super::*;

/// Creates a confidential client `client_id` in the default realm.
async fn client(t: &TestServer, client_id: &str) {
    let metadata = authz::clients::ClientMetadata {
        client_name: Some(format!("Client {client_id}")),
        ..Default::default()
    };
    t.state
        .core
        .create_client(
            &authz::Principal::cli(),
            "default",
            client_id,
            &metadata,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("client");
}

/// One page of `/api/clients/list` for the search `c-` from `cursor` (`after=k`, `before=k` or
/// empty): its client_ids, total and the keys of the pages around it.
async fn clients_page(
    t: &TestServer,
    admin: &str,
    cursor: &str,
) -> (Vec<String>, u64, Option<String>, Option<String>) {
    let (after, before) = match cursor.split_once('=') {
        Some(("after", k)) => (k, ""),
        Some(("before", k)) => ("", k),
        _ => ("", ""),
    };
    let res = t
        .post_form(
            "/api/clients/list",
            &format!("query=c-&after={after}&before={before}"),
            Some(admin),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK, "{cursor}");
    let page: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    let ids = page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|c| c["client_id"].as_str().expect("client_id").to_owned())
        .collect();
    let key = |k: &str| page[k].as_str().map(str::to_owned);
    (
        ids,
        page["total"].as_u64().expect("total"),
        key("prev"),
        key("next"),
    )
}

fn ids(range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("c-{i:02}")).collect()
}

#[tokio::test]
async fn console_lists_page_by_key_both_ways_and_rows_added_meanwhile_shift_nothing() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    for i in 0..45 {
        client(&t, &format!("c-{i:02}")).await;
    }
    // A client the search does not find.
    client(&t, "other").await;
    let admin = t.login("ada@example.com").await;

    let first = clients_page(&t, &admin, "").await;
    assert_eq!(first, (ids(0..20), 45, None, Some("c-19".into())));
    // A row added before the cursor while someone pages: the next page neither repeats c-19 nor
    // skips c-39 (an offset would do both).
    client(&t, "c-00a").await;
    let second = clients_page(&t, &admin, "after=c-19").await;
    assert_eq!(
        second,
        (ids(20..40), 46, Some("c-20".into()), Some("c-39".into()))
    );
    let last = clients_page(&t, &admin, "after=c-39").await;
    assert_eq!(last, (ids(40..45), 46, Some("c-40".into()), None));
    // Back from the last page: the page before it, in order.
    let previous = clients_page(&t, &admin, "before=c-40").await;
    assert_eq!(previous, second);
    // Back again: the 20 rows before c-20, the new one among them, and c-00 still before.
    let back = clients_page(&t, &admin, "before=c-20").await;
    let mut expected = vec!["c-00a".to_owned()];
    expected.extend(ids(1..20));
    assert_eq!(
        back,
        (expected, 46, Some("c-00a".into()), Some("c-19".into()))
    );
    let start = clients_page(&t, &admin, "before=c-00a").await;
    assert_eq!(start, (ids(0..1), 46, None, Some("c-00".into())));
    // A cursor no key could be starts at the first page rather than failing.
    let junk = format!("after={}", "x".repeat(authz::paging::MAX_CURSOR_CHARS + 1));
    assert_eq!(clients_page(&t, &admin, &junk).await.0.len(), 20);

    // The rendered screen links its neighbours by key and says how many match.
    let res = t.get("/clients?q=c-&after=c-19", Some(&admin)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let html = body(res).await;
    let pager = html
        .split(r#"<nav aria-label="Pagination""#)
        .nth(1)
        .and_then(|rest| rest.split("</nav>").next())
        .expect("a pager");
    assert!(pager.contains("Showing 20 of 46"), "{pager}");
    assert!(
        pager.contains(r#"href="/clients?q=c-&amp;before=c-20" rel="prev""#),
        "{pager}"
    );
    assert!(
        pager.contains(r#"href="/clients?q=c-&amp;after=c-39" rel="next""#),
        "{pager}"
    );
    assert!(
        pager.contains(r#"<a href="/clients?q=c-" "#) && pager.contains(">First</a>"),
        "{pager}"
    );
}
