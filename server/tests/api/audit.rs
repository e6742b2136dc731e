use super::*;

#[tokio::test]
async fn the_audit_log_pages_by_event_id() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let cli = authz::Principal::cli();
    for i in 0..45 {
        let resource = authz::resources::ResourceInput {
            slug: format!("r{i:02}"),
            display_name: format!("R{i:02}"),
            uri: format!("https://r{i:02}.example.com/mcp"),
            scopes: "tools:call".into(),
            enabled: true,
            ..Default::default()
        };
        t.state
            .core
            .create_resource(&cli, "default", &resource, &Default::default())
            .await
            .expect("resource");
    }
    let admin = t.login("ada@example.com").await;
    let filter = "query%5Brealm%5D=&query%5Baction%5D=resource.create&query%5Bactor%5D=\
                  &query%5Btarget%5D=&query%5Bfrom%5D=&query%5Bto%5D=";
    let page = |cursor: String| {
        let (t, admin) = (&t, &admin);
        async move {
            let res = t
                .post_form("/api/audit/list", &format!("{filter}{cursor}"), Some(admin))
                .await;
            assert_eq!(res.status(), StatusCode::OK);
            serde_json::from_str::<serde_json::Value>(&body(res).await).expect("json")
        }
    };
    let targets = |p: &serde_json::Value| -> Vec<String> {
        p["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|e| e["target"].as_str().expect("target").to_owned())
            .collect()
    };
    let mut seen = Vec::new();
    let mut cursor = String::new();
    let mut pages = Vec::new();
    loop {
        let p = page(cursor.clone()).await;
        assert_eq!(
            (p["total"].as_u64(), p["total_exact"].as_bool()),
            (Some(45), Some(true))
        );
        seen.extend(targets(&p));
        pages.push(p.clone());
        match p["older"].as_i64() {
            Some(id) => cursor = format!("&before={id}"),
            None => break,
        }
    }
    assert_eq!(pages.len(), 3, "20 + 20 + 5");
    let expected: Vec<String> = (0..45)
        .rev()
        .map(|i| authz::audit::AuditSubject::Resource(format!("r{i:02}")).target())
        .collect();
    assert_eq!(seen, expected, "newest first, no gaps, no repeats");
    // Each event names its resource as people know it; the id stays in `target`.
    assert_eq!(pages[0]["items"][0]["target_name"], "R44");
    // A period ending now keeps them; an unknown one is refused.
    let recent = filter.replace("query%5Bfrom%5D=", "query%5Bsince%5D=1h&query%5Bfrom%5D=");
    let res = t.post_form("/api/audit/list", &recent, Some(&admin)).await;
    let p: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    assert_eq!(p["total"].as_u64(), Some(45));
    let odd = filter.replace("query%5Bfrom%5D=", "query%5Bsince%5D=2y&query%5Bfrom%5D=");
    let res = t.post_form("/api/audit/list", &odd, Some(&admin)).await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(pages[0]["newer"], serde_json::Value::Null);
    assert_eq!(pages[0]["paged"], false);
    assert_eq!(pages[2]["paged"], true);
    // Newer from the last page is the middle page again.
    let id = pages[2]["newer"].as_i64().expect("newer cursor");
    let back = page(format!("&after={id}")).await;
    assert_eq!(targets(&back), targets(&pages[1]));
    // A cursor that is not a number is refused, not treated as the first page.
    let res = t
        .post_form(
            "/api/audit/list",
            &format!("{filter}&before=abc"),
            Some(&admin),
        )
        .await;
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    // Both directions at once is refused, not resolved silently.
    let res = t
        .post_form(
            "/api/audit/list",
            &format!("{filter}&before={id}&after={id}"),
            Some(&admin),
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body(res).await.contains("not both"));
}
