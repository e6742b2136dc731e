//! Resource policies: which clients and people get tokens.
use super::*;

async fn set_policy(f: &Flow, consent: &str, roles: &str, defaults: &str, open: bool) {
    f.t.state
        .core
        .set_resource_policy(
            &f.admin,
            "default",
            "payments-mcp",
            &authz::resources::AccessPolicyInput {
                consent: consent.into(),
                people_roles: roles.into(),
                default_scopes: defaults.into(),
                open_to_self_registered: open,
            },
            &authz::RequestMeta::default(),
        )
        .await
        .expect("policy");
}

#[tokio::test]
async fn resource_policies_decide_which_clients_and_people_get_tokens() {
    let f = flow().await;
    let meta = authz::RequestMeta::default();
    // Only granted clients: an ungranted client is refused back at the client.
    set_policy(&f, "granted_clients", "", "", false).await;
    let (status, loc, _) = f.get(&mut Browser::default(), &authorize_url("")).await;
    assert_eq!(status, StatusCode::FOUND);
    assert_eq!(query_of(&loc)["error"], "access_denied");
    f.t.state
        .core
        .grant_access(
            &f.admin,
            "default",
            "vscode",
            "payments-mcp",
            Some("tools:read"),
            &meta,
        )
        .await
        .expect("grant");
    let loc = f.consent(&mut Browser::default(), "").await;
    let (_, json) = f.redeem(&query_of(&loc)["code"]).await;
    assert_eq!(json["scope"], "tools:read", "within the grant");

    // People roles: Ada holds none, so she may not use it; with the role she may.
    set_policy(&f, "any_client", "finance", "tools:call", false).await;
    let mut b = Browser::default();
    let (_, _, html) = f.get(&mut b, &authorize_url("")).await;
    let (status, loc, _) = f
        .post(
            &mut b,
            &format!(
                "step=login&ticket={}&email={}&password={}",
                ticket_of(&html),
                enc(PERSON),
                enc(PASSWORD)
            ),
        )
        .await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    assert_eq!(query_of(&loc)["error"], "access_denied");
    f.t.state
        .core
        .update_person(
            &f.admin,
            "default",
            &f.person,
            &authz::people::PersonInput {
                display_name: "Ada".into(),
                roles: "finance".into(),
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("roles");
    // Default scopes: a request without scope gets only them.
    let loc = f.consent(&mut Browser::default(), "").await;
    let (_, json) = f.redeem(&query_of(&loc)["code"]).await;
    assert_eq!(json["scope"], "tools:call");
    // Losing the role ends refreshes.
    let rt = json["refresh_token"].as_str().expect("rt").to_owned();
    f.t.state
        .core
        .update_person(
            &f.admin,
            "default",
            &f.person,
            &authz::people::PersonInput {
                display_name: "Ada".into(),
                roles: String::new(),
                ..Default::default()
            },
            &meta,
        )
        .await
        .expect("roles");
    assert_eq!(f.refresh(&rt).await.0, StatusCode::BAD_REQUEST);
    // Default scopes must be scopes the resource accepts.
    assert!(
        f.t.state
            .core
            .set_resource_policy(
                &f.admin,
                "default",
                "payments-mcp",
                &authz::resources::AccessPolicyInput {
                    consent: "any_client".into(),
                    default_scopes: "admin".into(),
                    ..Default::default()
                },
                &meta
            )
            .await
            .is_err()
    );
}

#[tokio::test]
async fn self_registered_machine_clients_get_tokens_only_where_the_resource_is_open() {
    let f = flow().await;
    let reg = f.register_openly(r#"{"client_name":"Nightly job","grant_types":["client_credentials"],"scope":"tools:read"}"#).await;
    let basic = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!(
            "{}:{}",
            reg["client_id"].as_str().expect("id"),
            reg["client_secret"].as_str().expect("secret")
        ))
    );
    let ask = || async {
        let res =
            f.t.send(
                Request::post("/realms/default/token")
                    .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                    .header(header::AUTHORIZATION, &basic)
                    .body(Body::from(format!(
                        "grant_type=client_credentials&resource={}",
                        enc(PAY)
                    )))
                    .expect("request"),
            )
            .await;
        let s = res.status();
        (
            s,
            serde_json::from_str::<serde_json::Value>(&body(res).await).expect("json"),
        )
    };
    let (status, json) = ask().await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );
    set_policy(&f, "any_client", "", "", true).await;
    let (status, json) = ask().await;
    assert_eq!(status, StatusCode::OK, "{json}");
    assert_eq!(json["scope"], "tools:read", "within what it registered");
}
