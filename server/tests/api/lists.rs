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

/// The realm the session with `cookie` has selected.
async fn realm_of(t: &TestServer, cookie: &str) -> String {
    let res = t.post_form("/api/session/get", "", Some(cookie)).await;
    let session: serde_json::Value = serde_json::from_str(&body(res).await).expect("json");
    session["realm"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
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
    // c-00 … c-19 and the c-00a added meanwhile come before it.
    assert!(pager.contains("Showing 22–41 of 46"), "{pager}");
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

#[tokio::test]
async fn realm_links_open_each_kind_of_object_in_its_realm() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let admin = t.login("ada@example.com").await;
    let core = &t.state.core;
    let cli = authz::Principal::cli();
    let m = authz::RequestMeta::default();
    core.create_realm(&cli, "ops", "Operations", &m)
        .await
        .expect("realm");
    core.create_resource(
        &cli,
        "ops",
        &authz::resources::ResourceInput {
            slug: "ledger".into(),
            display_name: "Ops ledger".into(),
            uri: "https://ledger.ops.example.com/mcp".into(),
            scopes: "tools:call".into(),
            enabled: true,
            ..Default::default()
        },
        &m,
    )
    .await
    .expect("resource");
    assert_eq!(realm_of(&t, &admin).await, "default");

    // Each kind opens its page, the id kept as one segment.
    for (link, page) in [
        ("/go/ops/resources/ledger", "/resources/ledger"),
        ("/go/ops/agents/nightly", "/agents/nightly"),
        ("/go/ops/people/psn_1", "/people/psn_1"),
        (
            "/go/ops/servers/io.example%2Fweather",
            "/registry/servers/io.example%2Fweather",
        ),
        (
            "/go/ops/clients/https%3A%2F%2Fapp.example.com%2Fc.json",
            "/clients/https:%2F%2Fapp.example.com%2Fc.json",
        ),
    ] {
        let res = t.open(link, &admin).await;
        assert_eq!(res.status(), StatusCode::SEE_OTHER, "{link}");
        assert_eq!(location(&res), page, "{link}");
    }
    // The page a link lands on says that the console changed realm, and from which.
    let landed = body(t.get("/resources/ledger", Some(&admin)).await).await;
    assert!(
        landed.contains(r#"data-testid="realm-switched""#)
            && landed.contains(">default</span>")
            && landed.contains("The link opened this in realm"),
        "the switch is told"
    );
    assert_eq!(realm_of(&t, &admin).await, "ops");
    // The page it lands on is the object of that realm.
    let res = t.get("/resources/ledger", Some(&admin)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let html = body(res).await;
    assert!(html.contains("Ops ledger"), "the ops realm's resource");
    assert!(!html.contains("realm-switched"), "the switch is told once");
    assert!(
        html.contains(r#"data-href="/go/ops/resources/ledger""#),
        "its page offers the same link to copy"
    );

    // Pages that are not a realm's objects have no such link.
    let long_id = format!("/go/ops/clients/{}", "x".repeat(2049));
    for link in [
        "/go/ops/realms/ops",
        "/go/ops/users/x",
        "/go/ops/..%2Fadmin/x",
        "/go/not%20a%20realm/clients/x",
        long_id.as_str(),
    ] {
        let res = t.open(link, &admin).await;
        assert_eq!(res.status(), StatusCode::NOT_FOUND, "{link}");
        let page = body(res).await;
        assert!(
            page.contains("<h1>No such console page</h1>") && !page.contains("2049"),
            "{link}: {page}"
        );
    }
    // A realm that does not exist (or one the role may not see): a page that says so and leads
    // back, the session left where it was.
    let res = t.open("/go/nowhere/resources/ledger", &admin).await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let page = body(res).await;
    assert!(
        page.contains("<h1>No such realm</h1>")
            && page.contains(r#"<a href="/">Back to the console</a>"#),
        "{page}"
    );
    assert_eq!(realm_of(&t, &admin).await, "ops");
    // Ids that look like paths stay on the object's section of this origin.
    for link in [
        "/go/ops/clients/..",
        "/go/ops/clients/%2e%2e%2Fusers",
        "/go/ops/people/a%5Cb",
        "/go/ops/agents/%2F%2Fevil.example",
    ] {
        let res = t.open(link, &admin).await;
        let to = location(&res);
        let section = link.split('/').nth(3).unwrap_or_default();
        // At most one segment under the object's section (`..` lands on its list).
        let one_segment = to.strip_prefix(&format!("/{section}")).is_some_and(|rest| {
            rest.is_empty() || (rest.starts_with('/') && rest.matches('/').count() == 1)
        });
        assert!(one_segment, "{link} → {to}");
    }
    // A browser that says nothing of where the request comes from is asked, too.
    let res = t.get("/go/default/resources/ledger", Some(&admin)).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(body(res).await.contains("<form method=\"post\">"));
    // From another site, it asks first and names the object.
    let cross_site = Request::get("/go/default/resources/ledger")
        .header(header::COOKIE, &admin)
        .header("sec-fetch-site", "cross-site")
        .body(Body::empty())
        .expect("request");
    let res = t.send(cross_site).await;
    assert_eq!(res.status(), StatusCode::OK);
    let page = body(res).await;
    assert!(
        page.contains("Open resource ledger in realm default?"),
        "{page}"
    );
    assert_eq!(
        realm_of(&t, &admin).await,
        "ops",
        "not switched by the link"
    );
    // An image on one of this origin's pages (a client's logo_uri on the consent page) is
    // same-origin but no navigation: it asks, and switches nothing.
    let image = Request::get("/go/default/resources/ledger")
        .header(header::COOKIE, &admin)
        .header("sec-fetch-site", "same-origin")
        .header("sec-fetch-mode", "no-cors")
        .header("sec-fetch-dest", "image")
        .body(Body::empty())
        .expect("request");
    let res = t.send(image).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert!(body(res).await.contains("<form method=\"post\">"));
    assert_eq!(
        realm_of(&t, &admin).await,
        "ops",
        "not switched by an image"
    );
    // Nor by a page the browser prerenders from the address bar before Enter.
    let prerender = Request::get("/go/default/resources/ledger")
        .header(header::COOKIE, &admin)
        .header("sec-fetch-site", "none")
        .header("sec-fetch-mode", "navigate")
        .header("sec-fetch-dest", "document")
        .header("sec-purpose", "prefetch;prerender")
        .body(Body::empty())
        .expect("request");
    let res = t.send(prerender).await;
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        realm_of(&t, &admin).await,
        "ops",
        "not switched by a prerender"
    );
}

/// A console call from a tab: a same-origin form POST naming the realm the tab shows.
async fn from_tab(
    t: &TestServer,
    path: &str,
    body: &str,
    cookie: &str,
    realm: &str,
) -> Response<Body> {
    let req = Request::post(path)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header("sec-fetch-site", "same-origin")
        .header("x-portcullis-realm", realm)
        .header(header::COOKIE, cookie)
        .body(Body::from(body.to_owned()))
        .expect("request");
    t.send(req).await
}

#[tokio::test]
async fn a_tab_left_on_a_realm_another_tab_switched_away_from_acts_nowhere() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let admin = t.login("ada@example.com").await;
    let core = &t.state.core;
    let cli = authz::Principal::cli();
    let ops = core
        .create_realm(&cli, "ops", "Operations", &authz::RequestMeta::default())
        .await
        .expect("realm");
    let default = core.get_realm(&cli, "default").await.expect("realm");
    // What each tab names: "<id> <name>".
    let (tab_default, tab_ops) = (format!("{} default", default.id), format!("{} ops", ops.id));
    let create = "slug=ledger&display_name=Ledger&uri=https%3A%2F%2Fledger.example.com%2Fmcp\
                  &scopes=tools%3Acall&token_ttl_secs=&signing_alg=";
    // A tab on `default` acts in `default` while the session is there.
    let res = from_tab(
        &t,
        "/api/clients/list",
        "query=&after=&before=",
        &admin,
        &tab_default,
    )
    .await;
    assert_eq!(res.status(), StatusCode::OK);
    // Tab two switches the (shared) session to `ops`; switching is never refused.
    assert_eq!(
        from_tab(&t, "/api/session/realm", "name=ops", &admin, &tab_default)
            .await
            .status(),
        StatusCode::OK
    );
    // The page the switcher loads next says so, once.
    let landed = body(t.get("/clients", Some(&admin)).await).await;
    assert!(
        landed.contains("Switched to realm") && landed.contains(">default</span>"),
        "the switch is told"
    );
    let again = body(t.get("/clients", Some(&admin)).await).await;
    assert!(!again.contains("realm-switched"), "told once");
    // Tab one's next action names `default`: refused, in neither realm.
    let res = from_tab(&t, "/api/resources/create", create, &admin, &tab_default).await;
    assert_eq!(res.status(), StatusCode::CONFLICT);
    let text = body(res).await;
    assert!(
        text.contains("“default”") && text.contains("“ops”") && text.contains("Reload"),
        "{text}"
    );
    for realm in ["default", "ops"] {
        assert!(
            core.list_resources(&cli, realm)
                .await
                .expect("list")
                .is_empty(),
            "nothing created in {realm}"
        );
    }
    // Reads are refused the same way (a list of the wrong realm would mislead).
    let res = from_tab(
        &t,
        "/api/clients/list",
        "query=&after=&before=",
        &admin,
        &tab_default,
    )
    .await;
    assert_eq!(res.status(), StatusCode::CONFLICT);
    // A tab on another realm that took the name `ops` is not this `ops` (the id decides), and
    // an unreadable header is no realm at all.
    for other in ["rlm_gone ops", "ops", "é"] {
        let res = from_tab(
            &t,
            "/api/clients/list",
            "query=&after=&before=",
            &admin,
            other,
        )
        .await;
        assert_eq!(res.status(), StatusCode::CONFLICT, "{other}");
    }
    // A tab showing `ops` acts in `ops`; a call naming no tab (curl, the page's own render)
    // follows the session.
    let res = from_tab(&t, "/api/resources/create", create, &admin, &tab_ops).await;
    assert_eq!(res.status(), StatusCode::OK, "{}", body(res).await);
    assert_eq!(
        core.list_resources(&cli, "ops").await.expect("list").len(),
        1
    );
    assert!(
        core.list_resources(&cli, "default")
            .await
            .expect("list")
            .is_empty()
    );
    let res = t
        .post_form("/api/clients/list", "query=&after=&before=", Some(&admin))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
}
