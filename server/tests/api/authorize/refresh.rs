//! Refresh tokens: rotation with a grace window, reuse detection, idle and absolute lifetimes, concurrency.
use super::*;

#[tokio::test]
async fn refresh_tokens_rotate_with_a_grace_window_then_reuse_revokes_the_family() {
    let f = flow().await;
    let (_, first) = f.redeem(&f.code().await).await;
    let rt1 = first["refresh_token"].as_str().expect("rt").to_owned();
    let (status, second) = f.refresh(&rt1).await;
    assert_eq!(status, StatusCode::OK, "{second}");
    let rt2 = second["refresh_token"]
        .as_str()
        .expect("rotated")
        .to_owned();
    assert_ne!(rt1, rt2);
    assert_eq!(
        claims(second["access_token"].as_str().expect("at"))["sub"],
        f.person.as_str()
    );
    // The same rotated token at once (a retry, two tabs): the same answer.
    let (status, retry) = f.refresh(&rt1).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(retry["refresh_token"], rt2.as_str());
    assert_eq!(retry["access_token"], second["access_token"]);
    // A refresh may narrow scopes, never widen them or move to another resource.
    let (status, json) = f
        .token(&format!(
            "grant_type=refresh_token&client_id=vscode&refresh_token={}&scope=tools%3Aread",
            enc(&rt2)
        ))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_scope"))
    );
    let (status, json) = f
        .token(&format!(
            "grant_type=refresh_token&client_id=vscode&refresh_token={}&resource={}",
            enc(&rt2),
            enc("https://mail.example.com/mcp")
        ))
        .await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_target"))
    );
    // After the grace window, reusing the rotated token revokes the whole family.
    f.clock.advance(31);
    let (status, json) = f.refresh(&rt1).await;
    assert_eq!(
        (status, json["error"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_grant"))
    );
    let (status, _) = f.refresh(&rt2).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "the family is revoked");
}

#[tokio::test]
async fn refresh_tokens_expire_when_idle_and_end_with_a_disabled_person() {
    let f = flow().await;
    let (_, first) = f.redeem(&f.code().await).await;
    let rt = first["refresh_token"].as_str().expect("rt").to_owned();
    let (status, next) = f.refresh(&rt).await;
    assert_eq!(status, StatusCode::OK);
    let rt = next["refresh_token"].as_str().expect("rt").to_owned();
    f.t.state
        .core
        .set_person_disabled(
            &f.admin,
            "default",
            &f.person,
            true,
            &authz::RequestMeta::default(),
        )
        .await
        .expect("disable");
    let (status, _) = f.refresh(&rt).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    let f = flow().await;
    let (_, first) = f.redeem(&f.code().await).await;
    f.clock
        .advance(authz::realms::DEFAULT_REFRESH_IDLE_TTL_SECS + 1);
    let (status, _) = f
        .refresh(first["refresh_token"].as_str().expect("rt"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "idle lifetime");
}

#[tokio::test]
async fn concurrent_refreshes_of_one_token_get_the_same_new_pair() {
    let f = flow().await;
    let (_, first) = f.redeem(&f.code().await).await;
    let rt = first["refresh_token"].as_str().expect("rt").to_owned();
    // Two requests racing with the same token (two windows of one app waking up at once).
    let ((s1, a), (s2, b), (s3, c)) = tokio::join!(f.refresh(&rt), f.refresh(&rt), f.refresh(&rt));
    assert_eq!(
        (s1, s2, s3),
        (StatusCode::OK, StatusCode::OK, StatusCode::OK),
        "{a} {b} {c}"
    );
    assert_eq!(a["refresh_token"], b["refresh_token"]);
    assert_eq!(b["refresh_token"], c["refresh_token"]);
    assert_eq!(
        a["access_token"], c["access_token"],
        "one rotation, one answer"
    );
    let (status, _) = f.refresh(a["refresh_token"].as_str().expect("rt")).await;
    assert_eq!(status, StatusCode::OK, "and the family lives on");
}

#[tokio::test]
async fn the_realms_refresh_lifetimes_are_set_in_days_and_apply_to_new_sign_ins() {
    let f = flow().await;
    let core = &f.t.state.core;
    let meta = authz::RequestMeta::default();
    let input = |idle: &str, max: &str| authz::realms::RealmInput {
        name: "default".into(),
        display_name: "Default".into(),
        token_ttl_secs: "300".into(),
        refresh_idle_days: idle.into(),
        refresh_max_days: max.into(),
    };
    for (idle, max, field) in [
        ("0", "", "refresh_idle_days"),
        ("1.5", "", "refresh_idle_days"),
        ("", "366", "refresh_max_days"),
        ("30", "7", "refresh_idle_days"),
    ] {
        let e = core
            .update_realm(&f.admin, "default", &input(idle, max), &meta)
            .await
            .expect_err("refused");
        assert!(
            matches!(&e, authz::Error::InvalidField { field: got, .. } if *got == field),
            "{idle}/{max}: {e:?}"
        );
    }
    let realm = core
        .update_realm(&f.admin, "default", &input("1", "2"), &meta)
        .await
        .expect("saved");
    assert_eq!(
        (realm.refresh_idle_ttl_secs, realm.refresh_max_ttl_secs),
        (86_400, 172_800)
    );
    let (_, first) = f.redeem(&f.code().await).await;
    let mut rt = first["refresh_token"].as_str().expect("rt").to_owned();
    // Used every 20 hours, it lives on until the absolute lifetime ends it.
    for _ in 0..2 {
        f.clock.advance(20 * 3600);
        let (status, next) = f.refresh(&rt).await;
        assert_eq!(status, StatusCode::OK, "{next}");
        rt = next["refresh_token"].as_str().expect("rt").to_owned();
    }
    f.clock.advance(9 * 3600);
    let (status, _) = f.refresh(&rt).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "past two days since sign-in"
    );
    // Idle a day and a second: expired.
    let (_, first) = f.redeem(&f.code().await).await;
    f.clock.advance(86_401);
    let (status, _) = f
        .refresh(first["refresh_token"].as_str().expect("rt"))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "idle a day");
}
