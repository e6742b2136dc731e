//! What a console page hands the browser to hydrate with.
use super::*;

/// The data a console page hands the browser to hydrate with: each resource's serialized value
/// (still escaped as in the page), in the order of their ids.
fn hydration_data(html: &str) -> Vec<String> {
    const MARK: &str = "__RESOLVED_RESOURCES[";
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find(MARK) {
        rest = &rest[at + MARK.len()..];
        let Some(open) = rest.find("] = \"") else {
            continue;
        };
        let value = &rest[open + 5..];
        // The value is a JavaScript string: it ends at the first quote not escaped.
        let mut end = 0;
        let bytes = value.as_bytes();
        while end < bytes.len() && bytes[end] != b'"' {
            end += if bytes[end] == b'\\' { 2 } else { 1 };
        }
        found.push(value[..end.min(bytes.len())].to_owned());
    }
    found
}

#[tokio::test]
async fn object_pages_hand_the_browser_each_resource_once_and_as_rendered() {
    // The browser builds every page resource once and takes its value by position from the
    // page; a resource the server built again (or dropped half-way) shifts or spoils those
    // values, and hydration fails.
    let t = TestServer::new().await;
    t.user("ada@example.com", "admin").await;
    let admin = t.login("ada@example.com").await;
    let cli = authz::Principal::cli();
    t.state
        .core
        .create_realm(&cli, "ops", "Operations", &authz::RequestMeta::default())
        .await
        .expect("realm");
    for (path, form) in [
        ("/api/session/realm", "name=ops"),
        (
            "/api/resources/create",
            "slug=ledger&display_name=Ledger&uri=https%3A%2F%2Fledger.example.com%2Fmcp\
             &scopes=tools%3Acall&token_ttl_secs=&signing_alg=",
        ),
        (
            "/api/clients/create",
            "client_id=bot&name=Bot&auth_method=client_secret_basic&scope=tools%3Acall&contacts=&jwks=",
        ),
    ] {
        let res = t.post_form(path, form, Some(&admin)).await;
        assert_eq!(res.status(), StatusCode::OK, "{path}: {}", body(res).await);
    }
    for (path, once, of) in [
        (
            "/resources/ledger",
            r#"{\"Ok\":{\"slug\":"#,
            r#"\"ledger\""#,
        ),
        ("/clients/bot", r#"{\"Ok\":{\"client\":"#, r#"\"bot\""#),
        // No realm in the address: the settings page asks the server for the session's.
        ("/settings", r#"{\"Ok\":{\"id\":"#, r#"\"name\":\"ops\""#),
    ] {
        for _ in 0..3 {
            let res = t.get(path, Some(&admin)).await;
            assert_eq!(res.status(), StatusCode::OK, "{path}");
            let data = hydration_data(&body(res).await);
            assert!(!data.is_empty(), "{path}: no hydration data");
            assert!(
                data.iter().all(|v| !v.starts_with(r#"{\"Err\""#)),
                "{path}: a resource failed while the page rendered: {data:?}"
            );
            let sessions = data
                .iter()
                .filter(|v| v.contains(r#"\"email\":\"ada@example.com\""#));
            assert_eq!(sessions.count(), 1, "{path}: the session, once: {data:?}");
            let objects: Vec<_> = data.iter().filter(|v| v.starts_with(once)).collect();
            assert_eq!(
                objects.len(),
                1,
                "{path}: the page's object, once: {data:?}"
            );
            assert!(objects[0].contains(of), "{path}: {}", objects[0]);
        }
    }
}
