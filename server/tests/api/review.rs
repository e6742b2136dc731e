//! The console's review inbox: every realm's self-registered clients in one queue, decided
//! without switching realm, and links that open a client in its own realm.
use super::*;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::Value;

/// Registers a public client in `realm` (dynamic registration, as an MCP client does).
async fn register(t: &TestServer, realm: &str, name: &str) -> String {
    let req = Request::post(format!("/realms/{realm}/connect/register"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            serde_json::json!({
                "client_name": name,
                "redirect_uris": ["http://127.0.0.1/callback"],
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code"],
            })
            .to_string(),
        ))
        .expect("request");
    let res = t.send(req).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let answer: Value = serde_json::from_str(&body(res).await).expect("json");
    answer["client_id"].as_str().expect("client_id").to_owned()
}

async fn json(t: &TestServer, path: &str, form: &str, cookie: &str) -> (StatusCode, Value) {
    let res = t.post_form(path, form, Some(cookie)).await;
    let status = res.status();
    let text = body(res).await;
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[tokio::test]
async fn a_reviewer_decides_every_realms_clients_from_one_inbox() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    t.user("rita@example.com", "security_reviewer").await;
    t.user("dev@example.com", "developer").await;
    let admin = t.login("ada@example.com").await;
    let res = t
        .post_form(
            "/api/realms/create",
            "name=payments&display_name=Payments",
            Some(&admin),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    let editor = register(&t, "default", "Team editor").await;
    let agent = register(&t, "payments", "Payments agent").await;

    // The reviewer's session stays in the default realm: both realms' clients are there.
    let rita = t.login("rita@example.com").await;
    let (status, page) = json(&t, "/api/review/inbox", "state=pending", &rita).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    let items = page["items"].as_array().expect("items");
    let realm_of = |id: &str| {
        items
            .iter()
            .find(|i| i["client_id"] == id)
            .map(|i| i["realm"].as_str().unwrap_or_default().to_owned())
    };
    assert_eq!(realm_of(&editor).as_deref(), Some("default"));
    assert_eq!(realm_of(&agent).as_deref(), Some("payments"));
    let (_, counts) = json(&t, "/api/review/counts", "", &rita).await;
    assert!(
        counts
            .as_array()
            .expect("counts")
            .contains(&serde_json::json!(["pending", 2])),
        "{counts}"
    );
    let (_, session) = json(&t, "/api/session/get", "", &rita).await;
    assert_eq!(
        session["pending_reviews"], 2,
        "the badge counts every realm"
    );

    // One realm; bad input is a clear error, not a query.
    let (_, one) = json(
        &t,
        "/api/review/inbox",
        "state=pending&realm=payments",
        &rita,
    )
    .await;
    assert_eq!(one["items"].as_array().map(Vec::len), Some(1));
    let long = "x".repeat(201);
    let (status, answer) = json(
        &t,
        "/api/review/inbox",
        &format!("state=pending&q={long}"),
        &rita,
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{answer}");
    assert_eq!(answer["Field"]["field"], "q", "{answer}");
    for form in [
        "state=pending&after=nonsense",
        "state=pending&after=12%3A",
        "state=everything",
        // Administrators' clients are never reviewed.
        "state=pending&kind=admin",
    ] {
        let (status, answer) = json(&t, "/api/review/inbox", form, &rita).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{form}: {answer}");
    }

    // Developers do not review.
    let dev = t.login("dev@example.com").await;
    let (status, _) = json(&t, "/api/review/inbox", "state=pending", &dev).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = json(
        &t,
        "/api/review/decide",
        &format!(
            "realms[0]=payments&client_ids[0]={}&versions[0]=0&decision=approve&reason=mine",
            enc(&agent)
        ),
        &dev,
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    // Both decided at once, each in its own realm, from the default realm's session.
    let version = |id: &str| {
        items
            .iter()
            .find(|i| i["client_id"] == id)
            .and_then(|i| i["version"].as_i64())
            .expect("version")
    };
    let form = format!(
        "realms[0]=default&client_ids[0]={}&versions[0]={}&realms[1]=payments&client_ids[1]={}&versions[1]={}&decision=approve&reason={}",
        enc(&editor),
        version(&editor),
        enc(&agent),
        version(&agent),
        enc("Known team apps")
    );
    let (status, result) = json(&t, "/api/review/decide", &form, &rita).await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["done"], 2, "{result}");
    let (_, approved) = json(
        &t,
        "/api/review/inbox",
        "state=approved&realm=payments",
        &rita,
    )
    .await;
    assert_eq!(approved["items"][0]["client_id"], agent.as_str());

    // A list with a client decided meanwhile: the others are decided, the stale one reported
    // in the answer (a 200: the answer says what happened to each).
    let late = register(&t, "payments", "Late agent").await;
    let (_, waiting) = json(&t, "/api/review/inbox", "state=pending", &rita).await;
    let late_version = waiting["items"][0]["version"].as_i64().expect("version");
    let form = format!(
        "realms[0]=default&client_ids[0]={}&versions[0]={}&realms[1]=payments&client_ids[1]={}&versions[1]={late_version}&decision=reject&reason=dup",
        enc(&editor),
        version(&editor),
        enc(&late),
    );
    let (status, result) = json(&t, "/api/review/decide", &form, &rita).await;
    assert_eq!(status, StatusCode::OK, "{result}");
    assert_eq!(result["done"], 1, "{result}");
    assert_eq!(result["failed"][0][0], editor.as_str(), "{result}");

    // A link that carries its realm opens the client there, whatever realm the session is in.
    let res = t
        .open(&format!("/go/payments/clients/{}", enc(&agent)), &rita)
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), format!("/clients/{}", enc(&agent)));
    let (_, session) = json(&t, "/api/session/get", "", &rita).await;
    assert_eq!(session["realm"]["name"], "payments");
    // Another site cannot switch the session's realm with a link: it gets a page that asks,
    // whose button POSTs (behind the console's CSRF check).
    let cross_site = Request::get(format!("/go/default/clients/{}", enc(&editor)))
        .header(header::COOKIE, &rita)
        .header("sec-fetch-site", "cross-site")
        .body(Body::empty())
        .expect("request");
    let res = t.send(cross_site).await;
    assert_eq!(res.status(), StatusCode::OK);
    let page = body(res).await;
    assert!(page.contains("<form method=\"post\">"), "{page}");
    let (_, session) = json(&t, "/api/session/get", "", &rita).await;
    assert_eq!(
        session["realm"]["name"], "payments",
        "not switched by the link"
    );
    let res = t
        .post_form(
            &format!("/go/default/clients/{}", enc(&editor)),
            "",
            Some(&rita),
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let (_, session) = json(&t, "/api/session/get", "", &rita).await;
    assert_eq!(
        session["realm"]["name"], "default",
        "switched by the confirmation"
    );
    let res = t.open("/go/nowhere/clients/x", &rita).await;
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res = t.get("/go/payments/clients/x", None).await;
    assert!(
        location(&res).starts_with("/login?next=%2Fgo%2Fpayments"),
        "signed out: sign in first"
    );
}

/// Registers a client with these redirect URIs and grant types (dynamic registration).
async fn register_shaped(t: &TestServer, name: &str, uris: &[&str], grants: &[&str]) -> String {
    let public = !grants.contains(&"client_credentials");
    let req = Request::post("/realms/default/connect/register")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            serde_json::json!({
                "client_name": name,
                "redirect_uris": uris,
                "token_endpoint_auth_method": if public { "none" } else { "client_secret_basic" },
                "grant_types": grants,
            })
            .to_string(),
        ))
        .expect("request");
    let res = t.send(req).await;
    let status = res.status();
    let text = body(res).await;
    assert_eq!(status, StatusCode::CREATED, "{text}");
    let answer: Value = serde_json::from_str(&text).expect("json");
    answer["client_id"].as_str().expect("client_id").to_owned()
}

#[tokio::test]
async fn the_inbox_puts_the_riskiest_first_and_filters_by_each_signal() {
    let t = TestServer::new().await;
    t.user("rita@example.com", "security_reviewer").await;
    let desktop = register_shaped(
        &t,
        "Desktop",
        &["http://127.0.0.1/cb"],
        &["authorization_code"],
    )
    .await;
    let web = register_shaped(
        &t,
        "Web app",
        &["https://app.example.com/cb"],
        &["authorization_code"],
    )
    .await;
    let mobile = register_shaped(
        &t,
        "Mobile",
        &["com.example.app:/cb"],
        &["authorization_code"],
    )
    .await;
    let job = register_shaped(&t, "Nightly job", &[], &["client_credentials"]).await;
    let rita = t.login("rita@example.com").await;
    let ids = |page: &Value| -> Vec<String> {
        page["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| i["client_id"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let owned = |v: &[&String]| -> Vec<String> { v.iter().map(|s| (*s).clone()).collect() };
    let (status, page) = json(&t, "/api/review/inbox", "state=pending&order=risk", &rita).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(ids(&page), owned(&[&job, &web, &mobile, &desktop]));
    for (signal, expected) in [
        ("web_redirects", vec![&web]),
        ("private_use", vec![&mobile]),
        ("machine", vec![&job]),
        // In-process requests carry no address: none counts as crowded (the storage
        // conformance tests count addresses).
        ("crowded", vec![]),
    ] {
        let (status, page) = json(
            &t,
            "/api/review/inbox",
            &format!("state=pending&signal={signal}"),
            &rita,
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{page}");
        assert_eq!(ids(&page), owned(&expected), "{signal}");
    }
    // The tabs count what the filters find.
    let (status, counts) = json(&t, "/api/review/counts", "signal=machine", &rita).await;
    assert_eq!(status, StatusCode::OK, "{counts}");
    assert!(
        counts
            .as_array()
            .expect("counts")
            .contains(&serde_json::json!(["pending", 1])),
        "{counts}"
    );
    let (_, counts) = json(&t, "/api/review/counts", "q=Mobile", &rita).await;
    assert!(
        counts
            .as_array()
            .expect("counts")
            .contains(&serde_json::json!(["pending", 1])),
        "{counts}"
    );
    // The card's pills say what the filter found.
    let (_, page) = json(
        &t,
        "/api/review/inbox",
        "state=pending&signal=web_redirects",
        &rita,
    )
    .await;
    assert_eq!(page["items"][0]["web_redirects"], true);
    let (status, _) = json(&t, "/api/review/counts", "signal=sneaky", &rita).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    for form in [
        "state=pending&signal=sneaky",
        "state=pending&order=random",
        // A newest-first cursor in the riskiest order.
        "state=pending&order=risk&after=12%3Acli_1",
    ] {
        let (status, answer) = json(&t, "/api/review/inbox", form, &rita).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{form}: {answer}");
    }
}
