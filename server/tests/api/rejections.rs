//! A developer learns where they work what was rejected: their Overview lists their rejected
//! submissions and the rejected clients naming them as a contact, with the reason.
use super::*;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use serde_json::Value;

/// Registers a client in the default realm (dynamic registration) naming `contacts`.
async fn register(t: &TestServer, name: &str, contacts: &[&str]) -> String {
    let req = Request::post("/realms/default/connect/register")
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(
            serde_json::json!({
                "client_name": name,
                "redirect_uris": ["http://127.0.0.1/callback"],
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code"],
                "contacts": contacts,
            })
            .to_string(),
        ))
        .expect("request");
    let res = t.send(req).await;
    assert_eq!(res.status(), StatusCode::CREATED);
    let answer: Value = serde_json::from_str(&body(res).await).expect("json");
    answer["client_id"].as_str().expect("client_id").to_owned()
}

/// The Overview's rejections as `cookie` sees them: (kind, id, reason, by).
async fn rejections(t: &TestServer, cookie: &str) -> Vec<(String, String, String, String)> {
    let res = t.post_form("/api/overview", "", Some(cookie)).await;
    assert_eq!(res.status(), StatusCode::OK);
    let o: Value = serde_json::from_str(&body(res).await).expect("json");
    o["rejections"]
        .as_array()
        .expect("rejections")
        .iter()
        .map(|r| {
            let s = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
            (s("kind"), s("id"), s("reason"), s("by"))
        })
        .collect()
}

#[tokio::test]
async fn a_developers_overview_says_what_was_rejected_and_why() {
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    t.user("rita@example.com", "security_reviewer").await;
    t.user("dev@example.com", "developer").await;
    let core = &t.state.core;
    let meta = authz::RequestMeta::default();
    let (admin, rita, dev) = (
        t.principal("ada@example.com").await,
        t.principal("rita@example.com").await,
        t.principal("dev@example.com").await,
    );
    let dev_session = t.login("dev@example.com").await;
    assert!(rejections(&t, &dev_session).await.is_empty());

    // A resource the developer submitted, rejected by an admin.
    let submitted = core
        .register_protected_resource(
            &dev,
            "default",
            &authz::integration::ProtectInput {
                server_url: "https://notes.example.com/mcp".into(),
                resource_name: "Notes".into(),
                scopes: "notes:read".into(),
                documentation_url: String::new(),
            },
            &meta,
        )
        .await
        .expect("submitted");
    core.reject_submission(
        &admin,
        "default",
        &submitted.slug,
        "Use the team's shared notes server instead.",
        &meta,
    )
    .await
    .expect("rejected");
    // A client naming the developer as a contact (any case), and one that does not; both
    // rejected by a reviewer.
    let theirs = register(&t, "Dev's assistant", &["Dev@Example.com"]).await;
    let other = register(&t, "Someone else's", &["ops@example.com"]).await;
    for id in [&theirs, &other] {
        core.reject_client(&rita, "default", id, "Unknown publisher.", None, &meta)
            .await
            .expect("rejected");
    }

    let seen = rejections(&t, &dev_session).await;
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen.contains(&(
        "resource".into(),
        submitted.slug.to_string(),
        "Use the team's shared notes server instead.".into(),
        String::new()
    )));
    assert!(seen.contains(&(
        "client".into(),
        theirs.clone(),
        "Unknown publisher.".into(),
        "rita@example.com".into()
    )));
    // Nobody else's: the admin submitted nothing and is no client's contact.
    let admin_session = t.login("ada@example.com").await;
    assert!(rejections(&t, &admin_session).await.is_empty());

    // The rendered Overview says it with the reason and links the resource.
    let res = t.get("/", Some(&dev_session)).await;
    let html = body(res).await;
    let section = html
        .split(r#"data-testid="rejections""#)
        .nth(1)
        .expect("a Rejected section");
    assert!(section.contains("shared notes server instead."));
    assert!(section.contains(&format!(r#"href="/resources/{}""#, submitted.slug)));
    assert!(section.contains("s assistant") && section.contains("Unknown publisher."));
}
