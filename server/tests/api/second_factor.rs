//! Two-step verification at the console, over HTTP: a role that requires it enrols at sign-in
//! (QR secret, first code, recovery codes), later sign-ins wait for a code, a code works once,
//! a recovery code once, wrong codes are throttled per account, a sign-in on hold expires, an
//! admin's reset ends the sessions and enrolment starts over, and the default realm's sign-in
//! page (which asks for no second factor) refuses the password of such an account.
use super::*;
use authz::clock::FixedClock;
use authz::policy::Role;

const ADA: &str = "ada@example.com";

async fn setup() -> (TestServer, FixedClock) {
    let clock = FixedClock::at(time::OffsetDateTime::now_utc().unix_timestamp());
    let t = TestServer::with(|_| {}, Arc::new(clock.clone())).await;
    t.user(ADA, "admin").await;
    t.user("bo@example.com", "admin").await;
    t.state
        .core
        .set_second_factor_policy(
            &authz::Principal::cli(),
            &[Role::Admin],
            &authz::RequestMeta::default(),
        )
        .await
        .expect("policy");
    (t, clock)
}

/// Signs in with the password: the sign-in goes on hold (a new session id) and the browser
/// goes to the second step.
async fn password_step(t: &TestServer, email: &str) -> String {
    let res = t
        .post_form(
            "/login",
            &format!("email={}&password={}", enc(email), enc(PASSWORD)),
            None,
        )
        .await;
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    assert_eq!(location(&res), "/login/second-factor");
    let cookie = session_cookie(&res).expect("session cookie");
    // On hold is not signed in.
    let home = t.get("/", Some(&cookie)).await;
    assert_eq!(location(&home), "/login");
    cookie
}

fn code_at(secret_base32: &str, at: i64) -> String {
    let secret = totp_rs::Secret::try_from_base32(secret_base32.replace(' ', "")).expect("base32");
    authz::second_factor::totp(secret.to_vec(), ADA)
        .expect("totp")
        .generate(u64::try_from(at).expect("time"))
        .to_string()
}

async fn challenge(t: &TestServer, cookie: &str) -> serde_json::Value {
    let res = t
        .post_form("/api/second-factor/challenge", "", Some(cookie))
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    serde_json::from_str(&body(res).await).expect("json")
}

/// Enrols Ada at sign-in; returns her secret and recovery codes.
async fn enrol(t: &TestServer, clock: &FixedClock) -> (String, Vec<String>) {
    let cookie = password_step(t, ADA).await;
    let c = challenge(t, &cookie).await;
    assert_eq!(c["email"], ADA);
    let secret = c["enrolment"]["secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    assert!(
        c["enrolment"]["qr_svg"]
            .as_str()
            .expect("qr")
            .starts_with("<svg")
    );
    assert!(
        c["enrolment"]["uri"]
            .as_str()
            .expect("uri")
            .starts_with("otpauth://totp/Portcullis:ada%40example.com?")
    );
    // The page shown again keeps the same secret.
    assert_eq!(challenge(t, &cookie).await["enrolment"]["secret"], secret);
    // A wrong code is refused on the code field; nothing is signed in.
    let wrong = t
        .post_form("/api/second-factor/enrol", "code=000000", Some(&cookie))
        .await;
    assert_eq!(wrong.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(body(wrong).await.contains("\"field\":\"code\""));
    let right = t
        .post_form(
            "/api/second-factor/enrol",
            &format!("code={}", code_at(&secret, clock_now(clock))),
            Some(&cookie),
        )
        .await;
    assert_eq!(right.status(), StatusCode::OK);
    let signed_in = session_cookie(&right).expect("a new session id");
    let done: serde_json::Value = serde_json::from_str(&body(right).await).expect("json");
    let codes: Vec<String> = done["codes"]
        .as_array()
        .expect("codes")
        .iter()
        .map(|c| c.as_str().expect("code").to_owned())
        .collect();
    assert_eq!(codes.len(), 10);
    assert_eq!(done["next"], "/");
    assert_eq!(t.get("/", Some(&signed_in)).await.status(), StatusCode::OK);
    (secret, codes)
}

fn clock_now(clock: &FixedClock) -> i64 {
    authz::clock::Clock::now(clock)
}

async fn second_step(t: &TestServer, cookie: &str, code: &str) -> Response<Body> {
    t.post_form(
        "/login/second-factor",
        &format!("code={}", enc(code)),
        Some(cookie),
    )
    .await
}

#[tokio::test]
async fn a_required_second_factor_is_set_up_at_sign_in_and_asked_for_after() {
    let (t, clock) = setup().await;
    let (secret, codes) = enrol(&t, &clock).await;
    let actions: Vec<String> = t
        .audit(Default::default())
        .await
        .into_iter()
        .map(|e| e.action)
        .collect();
    assert!(actions.contains(&"user.second_factor_enrol".to_owned()));
    assert!(actions.contains(&"session.second_factor".to_owned()));

    // The next sign-in waits for a code; the enrolment's code (same step) is not accepted
    // again, a newer one is.
    let cookie = password_step(&t, ADA).await;
    assert!(challenge(&t, &cookie).await["enrolment"].is_null());
    let replay = second_step(&t, &cookie, &code_at(&secret, clock_now(&clock))).await;
    assert_eq!(location(&replay), "/login/second-factor?error=invalid");
    let typo = second_step(&t, &cookie, "12345").await;
    assert_eq!(location(&typo), "/login/second-factor?error=malformed");
    clock.advance(30);
    let ok = second_step(&t, &cookie, &code_at(&secret, clock_now(&clock))).await;
    assert_eq!(location(&ok), "/");
    let signed_in = session_cookie(&ok).expect("new session id");
    assert_ne!(signed_in, cookie);
    assert_eq!(t.get("/", Some(&signed_in)).await.status(), StatusCode::OK);

    // A recovery code works once, typed in any case and with or without dashes.
    let cookie = password_step(&t, ADA).await;
    let typed = codes[0].to_uppercase().replace('-', " ");
    assert_eq!(location(&second_step(&t, &cookie, &typed).await), "/");
    let cookie = password_step(&t, ADA).await;
    assert_eq!(
        location(&second_step(&t, &cookie, &codes[0]).await),
        "/login/second-factor?error=invalid"
    );
    let left = t
        .state
        .core
        .user_second_factor(&authz::Principal::cli(), &t.principal(ADA).await.user_id)
        .await
        .expect("status");
    assert_eq!(left.recovery_codes_left, 9);

    // A sign-in on hold expires: the browser starts again.
    clock.advance(11 * 60);
    let late = second_step(&t, &cookie, &code_at(&secret, clock_now(&clock))).await;
    assert_eq!(location(&late), "/login?error=expired");
    // Without a sign-in on hold, the second step has nothing to finish.
    let res = second_step(&t, "portcullis_session=nothing", "123456").await;
    assert_eq!(location(&res), "/login?error=expired");
}

#[tokio::test]
async fn wrong_codes_are_throttled_per_account() {
    let (t, clock) = setup().await;
    // Setting up counts one wrong code, and the right one after it does not wipe it: the
    // owner's success never resets a guesser's budget.
    let (secret, _) = enrol(&t, &clock).await;
    let cookie = password_step(&t, ADA).await;
    for _ in 1..authz::throttle::MAX_SECOND_FACTOR_FAILURES {
        let res = second_step(&t, &cookie, "999999").await;
        assert_eq!(location(&res), "/login/second-factor?error=invalid");
    }
    // Even the right code waits now, from any address.
    clock.advance(30);
    let res = second_step(&t, &cookie, &code_at(&secret, clock_now(&clock))).await;
    assert!(
        location(&res).starts_with("/login/second-factor?error=throttled&retry="),
        "{}",
        location(&res)
    );
    let failures = t
        .audit(authz::audit::AuditFilter {
            action: Some("session.second_factor".into()),
            ..Default::default()
        })
        .await
        .into_iter()
        .filter(|e| e.outcome == authz::audit::Outcome::Failure)
        .count();
    assert_eq!(
        failures,
        authz::throttle::MAX_SECOND_FACTOR_FAILURES as usize
    );
    // The password step said a second factor was due.
    let logins = t
        .audit(authz::audit::AuditFilter {
            action: Some("session.login".into()),
            ..Default::default()
        })
        .await;
    assert!(logins.iter().all(|e| e.details["second_factor"] == "due"));
}

#[tokio::test]
async fn a_setup_secret_is_shown_to_one_browser_only() {
    let (t, clock) = setup().await;
    // Two browsers past the password at once (the owner, and someone with the password): each
    // sees its own secret, and a code from one never confirms the other's.
    let (mine, theirs) = (password_step(&t, ADA).await, password_step(&t, ADA).await);
    let my_secret = challenge(&t, &mine).await["enrolment"]["secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    let their_secret = challenge(&t, &theirs).await["enrolment"]["secret"]
        .as_str()
        .expect("secret")
        .to_owned();
    assert_ne!(my_secret, their_secret);
    let res = t
        .post_form(
            "/api/second-factor/enrol",
            &format!("code={}", code_at(&their_secret, clock_now(&clock))),
            Some(&mine),
        )
        .await;
    assert_eq!(res.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let res = t
        .post_form(
            "/api/second-factor/enrol",
            &format!("code={}", code_at(&my_secret, clock_now(&clock))),
            Some(&mine),
        )
        .await;
    assert_eq!(res.status(), StatusCode::OK);
    // The other browser's setup can no longer finish: one is set up now.
    let res = t
        .post_form(
            "/api/second-factor/enrol",
            &format!("code={}", code_at(&their_secret, clock_now(&clock))),
            Some(&theirs),
        )
        .await;
    assert_eq!(res.status(), StatusCode::CONFLICT);

    // A sign-in left on hold in a shared browser does not survive someone else's sign-in there.
    let cookie = password_step(&t, ADA).await;
    let res = t
        .post_form(
            "/login",
            &format!("email={}&password={}", enc("bo@example.com"), enc(PASSWORD)),
            Some(&cookie),
        )
        .await;
    let bo = session_cookie(&res).expect("bo's session");
    // (Bo is an admin too: his sign-in is on hold for his own setup.)
    assert_eq!(challenge(&t, &bo).await["email"], "bo@example.com");
    // "Sign in as someone else" ends what is on hold.
    let res = t
        .post_form("/login/second-factor/cancel", "", Some(&bo))
        .await;
    assert_eq!(location(&res), "/login");
    assert!(challenge(&t, &bo).await.is_null());
    let bo = password_step(&t, "bo@example.com").await;
    // Someone whose role needs no second factor signs in fully there: nothing stays on hold.
    t.user("dev@example.com", "developer").await;
    let res = t
        .post_form(
            "/login",
            &format!(
                "email={}&password={}",
                enc("dev@example.com"),
                enc(PASSWORD)
            ),
            Some(&bo),
        )
        .await;
    assert_eq!(location(&res), "/");
    let dev = session_cookie(&res).expect("dev's session");
    assert!(challenge(&t, &dev).await.is_null());
}

#[tokio::test]
async fn an_admin_reset_ends_the_sessions_and_enrolment_starts_over() {
    let (t, clock) = setup().await;
    enrol(&t, &clock).await;
    // A sign-in on hold for its code when the admin resets.
    let cookie = password_step(&t, ADA).await;
    assert!(challenge(&t, &cookie).await["enrolment"].is_null());
    let core = &t.state.core;
    let ada = t.principal(ADA).await;
    let bo = t.principal("bo@example.com").await;
    // Nobody resets their own.
    assert!(matches!(
        core.reset_second_factor(&ada, &ada.user_id, &authz::RequestMeta::default())
            .await,
        Err(authz::Error::Invalid(_))
    ));
    let before = ada.credential_version;
    core.reset_second_factor(&bo, &ada.user_id, &authz::RequestMeta::default())
        .await
        .expect("reset");
    assert_eq!(t.principal(ADA).await.credential_version, before + 1);
    // The sign-in on hold cannot finish (its credentials changed)...
    let res = second_step(&t, &cookie, "123456").await;
    assert_eq!(location(&res), "/login?error=expired");
    // ...and the next one enrols again.
    let cookie = password_step(&t, ADA).await;
    assert!(challenge(&t, &cookie).await["enrolment"]["secret"].is_string());
}

#[tokio::test]
async fn the_realm_sign_in_page_refuses_the_password_of_an_account_with_a_second_factor() {
    let (t, _clock) = setup().await;
    t.user("dev@example.com", "developer").await;
    let realm_sign_in = |email: &'static str| {
        let core = t.state.core.clone();
        async move {
            core.account_sign_in("default", email, PASSWORD, &authz::RequestMeta::default())
                .await
        }
    };
    // A developer (no second factor required) signs in there; an admin (required) does not.
    assert!(realm_sign_in("dev@example.com").await.is_ok());
    assert!(matches!(
        realm_sign_in(ADA).await,
        Err(authz::Error::InvalidCredentials)
    ));
}
