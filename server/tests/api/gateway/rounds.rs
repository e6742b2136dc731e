//! Approvals for clients on MCP 2026-07-28: the wait is a multi round-trip
//! `InputRequiredResult` whose `requestState` names the approval, with a form asking the
//! person at the client to come back once it is approved (when the client can show one).
//! The state is only a handle: the core checks that it is this caller's and exactly this
//! call's, so a forged or borrowed one runs nothing.
use super::*;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    InputRequest, InputResponses, ProtocolVersion,
};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _};

/// A client on 2026-07-28. With `approver`, it can show forms: while the gateway's form is
/// up, the approver approves the call it names, and the person accepts.
#[derive(Clone)]
struct Modern {
    approver: Option<(authz::Core, authz::Principal)>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Modern {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.approver.is_some() {
            ClientCapabilities::builder().enable_elicitation().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("modern-client", "1.0.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2026_07_28)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = &request else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        self.asked.lock().expect("asked").push(message.clone());
        if let Some((core, admin)) = &self.approver {
            let id = message
                .split_whitespace()
                .find_map(|w| w.strip_prefix("apr_"))
                .map(|rest| {
                    format!(
                        "apr_{}",
                        rest.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                    )
                })
                .expect("the form names the approval");
            core.decide_gateway_approval(
                admin,
                "default",
                &id,
                true,
                "looked fine",
                &authz::RequestMeta::default(),
            )
            .await
            .expect("approve");
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({})))
    }
}

impl Gateway {
    async fn modern_client(
        &self,
        agent: &str,
        modern: Modern,
    ) -> RunningService<RoleClient, Modern> {
        let token = self.token(agent, &self.url, "mcp").await;
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(self.url.clone()).auth_header(token),
        );
        // 2026-07-28 has no initialize: the client discovers and sends each request whole.
        modern
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .expect("connect to the gateway")
    }
}

fn delete(args: &Value) -> CallToolRequestParams {
    let mut p = CallToolRequestParams::new("execute_capability");
    p.arguments = json!({"name": "notes.delete_note", "arguments": args})
        .as_object()
        .cloned();
    p
}

fn answered(action: ElicitationAction) -> InputResponses {
    let mut r = InputResponses::new();
    r.insert(
        "approval".into(),
        serde_json::to_value(ElicitResult::new(action)).expect("json"),
    );
    r
}

#[tokio::test]
async fn a_modern_client_waits_in_rounds_and_runs_once_a_person_approves() {
    let g = setup().await;
    let core = g.t.state.core.clone();
    search(&g.client("beta").await).await;
    g.accept("notes").await;
    let asked = Arc::new(Mutex::new(Vec::new()));
    let beta = g
        .modern_client(
            "beta",
            Modern {
                approver: Some((core.clone(), g.admin.clone())),
                asked: asked.clone(),
            },
        )
        .await;
    let args = json!({"q": "minutes"});

    // One round by hand: the wait, with the approval as requestState and a form.
    let first = beta
        .call_tool_once(delete(&args))
        .await
        .expect("a response");
    let CallToolResponse::InputRequired(waiting) = first else {
        panic!("expected input_required, got {first:?}");
    };
    let state = waiting.request_state.clone().expect("requestState");
    assert!(state.starts_with("apr_"), "{state}");
    let requests = waiting.input_requests.expect("a form");
    assert!(matches!(
        requests.get("approval"),
        Some(InputRequest::Elicitation(_))
    ));
    assert_eq!(g.notes.calls.load(Ordering::SeqCst), 0, "nothing ran");
    // Asking again while it waits is the same approval, not a second one for a person.
    let again = beta
        .call_tool_once(delete(&args))
        .await
        .expect("a response");
    let CallToolResponse::InputRequired(again) = again else {
        panic!("expected input_required");
    };
    assert_eq!(again.request_state.as_deref(), Some(state.as_str()));
    let queue = core
        .list_gateway_approvals(&g.admin, "default", true)
        .await
        .expect("queue");
    assert_eq!(queue.len(), 1);

    // Another caller declining with this state withdraws nothing.
    let alpha = g
        .modern_client(
            "alpha",
            Modern {
                approver: None,
                asked: Arc::default(),
            },
        )
        .await;
    let mut theirs = delete(&args);
    theirs.request_state = Some(state.clone());
    theirs.input_responses = Some(answered(ElicitationAction::Decline));
    alpha.call_tool_once(theirs).await.expect("a response");
    assert_eq!(
        core.list_gateway_approvals(&g.admin, "default", true)
            .await
            .expect("queue")
            .len(),
        1,
        "still waiting"
    );
    // The person stops waiting: nothing is sent, and the approval is denied (nobody approves
    // what its caller gave up).
    let mut retry = delete(&args);
    retry.request_state = Some(state.clone());
    retry.input_responses = Some(answered(ElicitationAction::Decline));
    let CallToolResponse::Complete(r) = beta.call_tool_once(retry).await.expect("a response")
    else {
        panic!("expected a result");
    };
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        r.structured_content.expect("structured")["error"],
        "withdrawn"
    );
    assert!(
        core.list_gateway_approvals(&g.admin, "default", true)
            .await
            .expect("queue")
            .is_empty()
    );
    assert!(matches!(
        core.decide_gateway_approval(
            &g.admin,
            "default",
            &state,
            true,
            "",
            &authz::RequestMeta::default()
        )
        .await,
        Err(authz::Error::Conflict(_))
    ));
    // A forged state, and a state for other arguments, run nothing.
    for (state, args) in [
        ("apr_forged".to_owned(), args.clone()),
        (state.clone(), json!({"q": "other"})),
    ] {
        let mut retry = delete(&args);
        retry.request_state = Some(state);
        retry.input_responses = Some(answered(ElicitationAction::Accept));
        let CallToolResponse::Complete(r) = beta.call_tool_once(retry).await.expect("a response")
        else {
            panic!("expected a result");
        };
        assert_eq!(
            r.structured_content.expect("structured")["error"],
            "approval_unknown"
        );
    }
    assert_eq!(g.notes.calls.load(Ordering::SeqCst), 0);

    // The SDK's own loop: the form shows, the approver approves meanwhile, the person
    // accepts, and the call runs with the same `_meta` ids as any other.
    let r = beta.call_tool(delete(&args)).await.expect("the call ran");
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert_eq!(g.notes.calls.load(Ordering::SeqCst), 1);
    let asked = asked.lock().expect("asked").clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("notes.delete_note"), "{asked:?}");
    // The withdrawn approval stays denied: its state runs nothing.
    let mut replay = delete(&args);
    replay.request_state = Some(state);
    replay.input_responses = Some(answered(ElicitationAction::Accept));
    let CallToolResponse::Complete(r) = beta.call_tool_once(replay).await.expect("a response")
    else {
        panic!("expected a result");
    };
    assert_eq!(
        r.structured_content.expect("structured")["error"],
        "approval_denied"
    );
    assert_eq!(g.notes.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_modern_client_without_forms_polls_with_the_state_alone() {
    let g = setup().await;
    search(&g.client("beta").await).await;
    g.accept("notes").await;
    let beta = g
        .modern_client(
            "beta",
            Modern {
                approver: None,
                asked: Arc::default(),
            },
        )
        .await;
    let args = json!({"q": "minutes"});
    let CallToolResponse::InputRequired(waiting) = beta
        .call_tool_once(delete(&args))
        .await
        .expect("a response")
    else {
        panic!("expected input_required");
    };
    assert!(
        waiting.input_requests.is_none(),
        "no form for a client without forms"
    );
    let state = waiting.request_state.expect("requestState");
    // Still waiting: the same state again.
    let mut retry = delete(&args);
    retry.request_state = Some(state.clone());
    let CallToolResponse::InputRequired(still) = beta
        .call_tool_once(retry.clone())
        .await
        .expect("a response")
    else {
        panic!("expected input_required");
    };
    assert_eq!(still.request_state.as_deref(), Some(state.as_str()));
    g.t.state
        .core
        .decide_gateway_approval(
            &g.admin,
            "default",
            &state,
            true,
            "",
            &authz::RequestMeta::default(),
        )
        .await
        .expect("approve");
    let CallToolResponse::Complete(r) = beta.call_tool_once(retry).await.expect("a response")
    else {
        panic!("expected a result");
    };
    assert_ne!(r.is_error, Some(true), "{r:?}");
    assert_eq!(g.notes.calls.load(Ordering::SeqCst), 1);
}
