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

/// The developer `dev` submits the Notes MCP server from "Protect your MCP server".
async fn submit_notes(core: &authz::Core, dev: &authz::Principal) -> authz::resources::Resource {
    core.register_protected_resource(
        dev,
        "default",
        &authz::integration::ProtectInput {
            server_url: "https://notes.example.com/mcp".into(),
            resource_name: "Notes".into(),
            scopes: "notes:read".into(),
            documentation_url: String::new(),
        },
        &authz::RequestMeta::default(),
    )
    .await
    .expect("submitted")
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

    // A resource the developer submitted waits: the developer sees theirs, an admin every
    // one (the reviewer, who manages no resources, sees none of theirs).
    let submitted = submit_notes(core, &dev).await;
    let waiting = |p: authz::Principal| async move {
        core.realm_overview(&p, "default")
            .await
            .expect("overview")
            .submissions_waiting
    };
    assert_eq!(waiting(dev.clone()).await, 1);
    assert_eq!(waiting(admin.clone()).await, 1);
    assert_eq!(waiting(rita.clone()).await, 0);
    // Rejected by an admin, it waits no more.
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

    assert_eq!(waiting(admin.clone()).await, 0);
    let seen = rejections(&t, &dev_session).await;
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen.contains(&(
        "resource".into(),
        submitted.slug.to_string(),
        "Use the team's shared notes server instead.".into(),
        String::new()
    )));
    // The registrant's words (its name) and the reviewer stay out of a developer's view: anyone
    // may name anyone as a contact.
    assert!(seen.contains(&(
        "client".into(),
        theirs.clone(),
        "Unknown publisher.".into(),
        String::new()
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
    assert!(section.contains("Unknown publisher.") && section.contains(&theirs));
    assert!(!section.contains("s assistant"), "no registrant's words");
}

/// A message the sink took: its `RCPT TO` lines and its data.
type Taken = (Vec<String>, String);

/// A local SMTP sink: takes every message on 127.0.0.1 and keeps its envelope recipients and
/// data.
struct SmtpSink {
    url: String,
    messages: std::sync::Arc<std::sync::Mutex<Vec<Taken>>>,
}

impl SmtpSink {
    async fn start() -> Self {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("smtp://{}", listener.local_addr().expect("addr"));
        let messages = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = messages.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let kept = kept.clone();
                tokio::spawn(async move {
                    let (read, mut write) = socket.into_split();
                    let mut lines = BufReader::new(read).lines();
                    let _ = write.write_all(b"220 sink ESMTP\r\n").await;
                    let (mut rcpt, mut data, mut in_data) = (Vec::new(), String::new(), false);
                    while let Ok(Some(line)) = lines.next_line().await {
                        if in_data {
                            if line == "." {
                                in_data = false;
                                kept.lock()
                                    .expect("sink")
                                    .push((std::mem::take(&mut rcpt), std::mem::take(&mut data)));
                                let _ = write.write_all(b"250 kept\r\n").await;
                            } else {
                                data.push_str(&line);
                                data.push('\n');
                            }
                            continue;
                        }
                        let verb = line.get(..4).unwrap_or_default().to_ascii_uppercase();
                        let answer: &[u8] = match verb.as_str() {
                            "EHLO" | "HELO" => b"250-sink\r\n250 8BITMIME\r\n",
                            "RCPT" => {
                                rcpt.push(line.to_owned());
                                b"250 ok\r\n"
                            }
                            "DATA" => {
                                in_data = true;
                                b"354 go on\r\n"
                            }
                            "QUIT" => {
                                let _ = write.write_all(b"221 bye\r\n").await;
                                break;
                            }
                            _ => b"250 ok\r\n",
                        };
                        let _ = write.write_all(answer).await;
                    }
                });
            }
        });
        Self { url, messages }
    }

    /// The messages taken so far, waiting up to 5 s for at least `n`.
    async fn wait_for(&self, n: usize) -> Vec<Taken> {
        for _ in 0..100 {
            let got = self.messages.lock().expect("sink").clone();
            if got.len() >= n {
                return got;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        self.messages.lock().expect("sink").clone()
    }
}

#[tokio::test]
async fn with_smtp_settings_the_people_concerned_are_told_by_email() {
    let sink = SmtpSink::start().await;
    let url = sink.url.clone();
    let t = TestServer::with(
        move |c| {
            c.mail.smtp_url = Some(url);
            c.mail.from = Some("Portcullis <portcullis@example.com>".into());
        },
        std::sync::Arc::new(authz::clock::SystemClock),
    )
    .await;
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
    let submitted = submit_notes(core, &dev).await;
    core.reject_submission(
        &admin,
        "default",
        &submitted.slug,
        "Duplicate of wiki.",
        &meta,
    )
    .await
    .expect("rejected");
    let mail = sink.wait_for(1).await;
    assert_eq!(mail.len(), 1, "{mail:?}");
    let (rcpt, data) = &mail[0];
    assert_eq!(rcpt, &["RCPT TO:<dev@example.com>"]);
    assert!(
        data.contains("Subject: Submission rejected in default: Notes"),
        "{data}"
    );
    assert!(data.contains("Reason: Duplicate of wiki."), "{data}");
    assert!(
        data.contains("From: Portcullis <portcullis@example.com>"),
        "{data}"
    );

    // A client's contacts hear of it only when they have a console account: an address a
    // registrant typed gets nothing, and the registrant's words stay out of the message.
    let client = register(
        &t,
        "Totally legit: visit spam.example",
        &["dev@example.com", "victim@example.org"],
    )
    .await;
    core.reject_client(&rita, "default", &client, "Unknown publisher.", None, &meta)
        .await
        .expect("rejected");
    let mail = sink.wait_for(2).await;
    assert_eq!(mail.len(), 2, "{mail:?}");
    let (rcpt, data) = &mail[1];
    assert_eq!(rcpt, &["RCPT TO:<dev@example.com>"]);
    assert!(data.contains(&client), "{data}");
    assert!(data.contains("Reason: Unknown publisher."), "{data}");
    assert!(!data.contains("spam.example"), "{data}");

    // A client with no console account among its contacts sends nothing.
    let quiet = register(&t, "Quiet", &["nobody@example.org"]).await;
    core.reject_client(&rita, "default", &quiet, "No.", None, &meta)
        .await
        .expect("rejected");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(sink.wait_for(3).await.len(), 2);

    // Rejected together, the clients naming someone reach them as one message listing each:
    // never one message per client (a bulk rejection of spam naming the admins is no flood).
    let (one, two) = (
        register(&t, "One", &["dev@example.com"]).await,
        register(&t, "Two", &["DEV@example.com", "nobody@example.org"]).await,
    );
    let mut both = Vec::new();
    for id in [&one, &two] {
        let detail = core.get_client(&rita, "default", id).await.expect("client");
        both.push((id.clone(), detail.client.updated_at));
    }
    let decided = core
        .decide_clients(
            &rita,
            "default",
            &both,
            authz::clients::Decision::Reject,
            "Spam.",
            &[],
            &meta,
        )
        .await
        .expect("rejected");
    assert_eq!(decided.done, 2);
    let mail = sink.wait_for(3).await;
    assert_eq!(mail.len(), 3, "{mail:?}");
    let (rcpt, data) = &mail[2];
    assert_eq!(rcpt, &["RCPT TO:<dev@example.com>"]);
    assert!(
        data.contains("Subject: 2 clients rejected in default"),
        "{data}"
    );
    assert!(data.contains(&one) && data.contains(&two), "{data}");
    assert!(data.contains("Reason: Spam."), "{data}");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(sink.wait_for(4).await.len(), 3, "one message, not two");
}

#[tokio::test]
async fn an_unreachable_relay_is_audited_and_the_decision_stands() {
    // Nothing listens there.
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("smtp://{}", closed.local_addr().expect("addr"));
    drop(closed);
    let t = TestServer::with(
        move |c| {
            c.mail.smtp_url = Some(url);
            c.mail.from = Some("portcullis@example.com".into());
        },
        std::sync::Arc::new(authz::clock::SystemClock),
    )
    .await;
    t.user("ada@example.com", "admin").await;
    t.user("dev@example.com", "developer").await;
    let core = &t.state.core;
    let meta = authz::RequestMeta::default();
    let (admin, dev) = (
        t.principal("ada@example.com").await,
        t.principal("dev@example.com").await,
    );
    let submitted = submit_notes(core, &dev).await;
    let rejected = core
        .reject_submission(&admin, "default", &submitted.slug, "Duplicate.", &meta)
        .await
        .expect("the decision does not wait for the e-mail");
    assert_eq!(rejected.rejection.as_deref(), Some("Duplicate."));
    let filter = authz::audit::AuditFilter {
        action: Some("mail.failed".into()),
        ..Default::default()
    };
    let mut failed = Vec::new();
    for _ in 0..100 {
        failed = t.audit(filter.clone()).await;
        if !failed.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(
        failed[0].target,
        authz::audit::AuditSubject::Resource(submitted.slug.to_string()).target()
    );
    assert!(
        !failed[0].details.to_string().contains("dev@example.com"),
        "no address in the audit"
    );
}

#[tokio::test]
async fn a_relay_that_accepts_and_never_answers_times_out() {
    // It takes the connection and says nothing, ever.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("smtp://{}", silent.local_addr().expect("addr"));
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            held.push(socket);
        }
    });
    let t = TestServer::with(
        move |c| {
            c.mail.smtp_url = Some(url);
            c.mail.from = Some("portcullis@example.com".into());
            c.mail.timeout_secs = Some(1);
        },
        std::sync::Arc::new(authz::clock::SystemClock),
    )
    .await;
    t.user("ada@example.com", "admin").await;
    t.user("dev@example.com", "developer").await;
    let core = &t.state.core;
    let meta = authz::RequestMeta::default();
    let (admin, dev) = (
        t.principal("ada@example.com").await,
        t.principal("dev@example.com").await,
    );
    let submitted = submit_notes(core, &dev).await;
    core.reject_submission(&admin, "default", &submitted.slug, "Duplicate.", &meta)
        .await
        .expect("the decision does not wait for the e-mail");
    let filter = authz::audit::AuditFilter {
        action: Some("mail.failed".into()),
        ..Default::default()
    };
    let mut failed = Vec::new();
    for _ in 0..100 {
        failed = t.audit(filter.clone()).await;
        if !failed.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0]
            .details
            .to_string()
            .contains("did not answer in time"),
        "{:?}",
        failed[0].details
    );
}
