//! The approval gate: a capability that can change things runs only once a person approved
//! this exact call (same capability, arguments, subjects and accepted definition).
//!
//! Clients on MCP 2026-07-28 get the wait as a multi round-trip `InputRequiredResult` whose
//! `requestState` is the approval's id: a handle to what the core keeps, which checks on every
//! retry that it is this caller's and exactly this call's, so a forged or replayed state gets
//! nothing. A client that can show a form is also asked (an elicitation) to come back once a
//! person approved; one that cannot polls with the state alone. Older clients get a tool result
//! carrying the approval id, which they pass back as `approval_id`.
use super::{Facade, Offer, elapsed_ms, internal, string_arg, text_result};
use crate::context::CallContext;
use authz::gateway::{ApprovalStatus, CallRecord, GatewayCaller, Redeemed};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, InputRequest, InputRequests, InputRequiredResult,
    ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use std::time::Instant;

/// The key of the gateway's one input request (the person's "approved, go on").
const INPUT_KEY: &str = "approval";

/// How a call that needs approval continues.
pub(super) enum Gate {
    /// Approved: send it.
    Run,
    /// Answer the client with this (waiting, refused); nothing is sent.
    Answer(CallToolResponse),
}

/// What this round of the call brings to the gate.
pub(super) struct Round {
    /// The approval the call names: its `requestState` (2026-07-28) or `approval_id`.
    handle: Option<String>,
    /// Whether the client speaks multi round-trip requests (2026-07-28 or newer).
    multi_round: bool,
    /// Whether it can show the person a form (elicitation).
    can_ask: bool,
    /// What the person answered to the last round's form, if anything.
    answer: Option<ElicitationAction>,
}

impl Round {
    /// Reads the round from a `tools/call` of `execute_capability`.
    ///
    /// # Errors
    /// `invalid_params` when `approval_id` or `requestState` is not a short string.
    pub(super) fn of(
        request: &CallToolRequestParams,
        args: &serde_json::Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Self, ErrorData> {
        let state = match request.request_state.as_deref() {
            Some(s) if s.chars().count() > super::MAX_TEXT => {
                return Err(ErrorData::invalid_params(
                    "requestState: not one this gateway gave.",
                    None,
                ));
            }
            s => s.map(str::to_owned),
        };
        let multi_round = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|r| r.get(INPUT_KEY))
            .and_then(|v| serde_json::from_value::<ElicitResult>(v.clone()).ok())
            .map(|r| r.action);
        Ok(Self {
            handle: state.or(string_arg(args, "approval_id")?),
            multi_round,
            // An empty `elicitation` capability means forms (the mode before URLs existed).
            can_ask: context.client_capabilities().is_some_and(|c| {
                c.elicitation
                    .as_ref()
                    .is_some_and(|e| e.form.is_some() || e.url.is_none())
            }),
            answer,
        })
    }

    /// The answer for a call still waiting on approval `id`.
    fn waiting(
        &self,
        id: &str,
        capability: &str,
        expires_at: i64,
        first: bool,
    ) -> CallToolResponse {
        if self.multi_round {
            let requests = self.can_ask.then(|| {
                let mut requests = InputRequests::new();
                requests.insert(INPUT_KEY.to_owned(), ask(id, capability, first));
                requests
            });
            return InputRequiredResult::new(requests, Some(id.to_owned())).into();
        }
        let value = if first {
            json!({
                "status": "approval_required",
                "approval_id": id,
                "expires_at": expires_at,
                "message": "This capability can change things: a person must approve this exact call first. Nothing was sent. Once it is approved, call execute_capability again with the same name and arguments and this approval_id.",
            })
        } else {
            json!({"status": "approval_pending", "approval_id": id, "expires_at": expires_at, "message": "No one has decided yet. Nothing was sent; try again later."})
        };
        CallToolResponse::Complete(text_result(&value, false))
    }
}

/// The form asking the person at the client to come back once the call is approved.
fn ask(id: &str, capability: &str, first: bool) -> InputRequest {
    let message = if first {
        format!(
            "{capability} can change things, so a person must approve this exact call first (approval {id}, in Portcullis's Gateway approvals). Nothing was sent. Accept once it is approved to run it; decline to stop waiting."
        )
    } else {
        format!(
            "Nobody has approved {capability} yet (approval {id}). Nothing was sent. Accept to check again; decline to stop waiting."
        )
    };
    // Nothing to fill in: the form is the person's "approved, go on" (or "stop").
    InputRequest::Elicitation(ElicitRequest::new(
        ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: ElicitationSchema::new(std::collections::BTreeMap::new()),
        },
    ))
}

impl Facade {
    /// Whether a call of `offer` (which can change things) may run now; the answer for the
    /// client when not. Fills `record` in for the audit row either way.
    pub(super) async fn gate(
        &self,
        caller: &GatewayCaller,
        offer: &Offer,
        (arguments, ctx): (&Value, &CallContext),
        round: &Round,
        record: &mut CallRecord,
        started: Instant,
    ) -> Result<Gate, ErrorData> {
        let class = offer.side_effect_class();
        let risk = offer.describe()["risk"]
            .as_str()
            .unwrap_or("high")
            .to_owned();
        let key = (offer.server.server.id.as_str(), offer.tool.as_str());
        let call = (
            arguments,
            ctx.subject_ids.as_slice(),
            offer.definition.sha256.as_str(),
        );
        let capability = format!("{}.{}", key.0, key.1);
        let core = &self.gateway.inner.core;
        let refused = |record: &mut CallRecord, outcome: &str, value: Value| {
            record.decision = "denied";
            record.outcome = outcome.into();
            record.latency_ms = elapsed_ms(started);
            Gate::Answer(CallToolResponse::Complete(text_result(&value, true)))
        };
        let Some(id) = round.handle.clone() else {
            return Ok(
                match core
                    .request_gateway_approval(caller, key, call, (class, &risk))
                    .await
                {
                    Ok(a) => {
                        record.approval_id = Some(a.id.clone());
                        record.decision = "approval_required";
                        record.outcome = "waiting".into();
                        record.latency_ms = elapsed_ms(started);
                        Gate::Answer(round.waiting(&a.id, &capability, a.expires_at, true))
                    }
                    Err(authz::Error::Conflict(why)) => refused(
                        record,
                        "too_many_waiting",
                        json!({"error": "too_many_waiting", "message": why}),
                    ),
                    Err(authz::Error::Invalid(why)) => refused(
                        record,
                        "too_large_for_approval",
                        json!({"error": "too_large_for_approval", "message": why}),
                    ),
                    Err(e) => return Err(internal(e)),
                },
            );
        };
        if matches!(
            round.answer,
            Some(ElicitationAction::Decline | ElicitationAction::Cancel)
        ) {
            // The person stopped waiting: their approval (only theirs, for exactly this call)
            // is denied, so no one approves what they gave up.
            let withdrawn = core
                .withdraw_gateway_approval(caller, &id, key, call)
                .await
                .map_err(internal)?;
            if withdrawn {
                record.approval_id = Some(id.clone());
            }
            return Ok(refused(
                record,
                "withdrawn",
                json!({"error": "withdrawn", "message": "You stopped waiting for the approval. Nothing was sent."}),
            ));
        }
        record.approval_id = Some(id.chars().take(64).collect());
        Ok(
            match core
                .redeem_gateway_approval(caller, &id, key, call)
                .await
                .map_err(internal)?
            {
                Redeemed::Run => Gate::Run,
                Redeemed::Waiting(expires_at) => {
                    record.decision = "approval_required";
                    record.outcome = "waiting".into();
                    record.latency_ms = elapsed_ms(started);
                    Gate::Answer(round.waiting(&id, &capability, expires_at, false))
                }
                Redeemed::Refused(status) => refused(
                    record,
                    &format!("approval_{}", status.as_str()),
                    json!({"error": format!("approval_{}", status.as_str()), "approval_id": id, "message": match status {
                        ApprovalStatus::Denied => "A person denied this call. Nothing was sent.",
                        ApprovalStatus::Used => "This approval was used already: an approval runs its call once. Ask again.",
                        _ => "No one approved this call in time (or the approved call was not run in time): it is denied. Nothing was sent; ask again.",
                    }}),
                ),
                Redeemed::Unknown => refused(
                    record,
                    "approval_unknown",
                    json!({"error": "approval_unknown", "message": "No approval with this id is yours for exactly this call (same capability and arguments). Nothing was sent."}),
                ),
            },
        )
    }
}
