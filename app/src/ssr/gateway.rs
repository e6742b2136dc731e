//! The MCP gateway as the console shows it.
use super::moment;
use crate::types::gateway::{
    ApprovalView, ClientSecretView, FieldChangeView, GatewayView, PinView, ToolsetServerView,
    UpstreamView,
};
use authz::gateway::{Approval, GatewayOverview, ToolPin, Toolset};
use authz::policy::{Permission, Principal};

fn auth_words(auth: &portcullis_manifest::Auth) -> &'static str {
    match auth {
        portcullis_manifest::Auth::Portcullis { .. } => "Portcullis (a token exchanged per caller)",
        portcullis_manifest::Auth::None => "None",
        portcullis_manifest::Auth::OAuth { .. } => "Its own OAuth",
        portcullis_manifest::Auth::Enterprise { .. } => "Enterprise-managed",
    }
}

/// The page's view.
pub fn gateway_view(o: GatewayOverview, p: &Principal, now: i64) -> GatewayView {
    GatewayView {
        enabled: o.info.enabled,
        url: o.info.url,
        scope: o.info.scope,
        release: o.release,
        upstreams: o
            .upstreams
            .into_iter()
            .map(|u| {
                let status = u.status.unwrap_or_default();
                UpstreamView {
                    id: u.server.server.id.clone(),
                    title: u.server.server.title.clone(),
                    url: u.server.url.clone().unwrap_or_default(),
                    auth: auth_words(&u.server.server.auth).to_owned(),
                    profile: u
                        .server
                        .server
                        .profile
                        .map(|p| (p.label().to_owned(), p.preview())),
                    unreachable: match &u.server.excluded {
                        Some(e @ authz::gateway::Exclusion::NotRemote)
                        | Some(e @ authz::gateway::Exclusion::AuthMode(_)) => Some(e.reason()),
                        _ => None,
                    },
                    availability: if status.calls == 0 {
                        "not called yet".into()
                    } else {
                        status.availability.clone()
                    },
                    calls: status.calls,
                    errors: status.errors,
                    last_latency_ms: status.last_latency_ms,
                    last_error: status.last_error.clone(),
                    last_call: status.last_call_at.map(|t| moment(now, t)),
                    offered: u.offered,
                    waiting: u.waiting,
                    client_secret: u.client_secret.map(|c| {
                        secret_view(
                            c,
                            &u.server.server,
                            u.callback_url.clone().unwrap_or_default(),
                            p.role.can(Permission::ManageRegistry),
                            now,
                        )
                    }),
                }
            })
            .collect(),
        pins: o.pins_waiting.iter().map(|t| pin_view(t, now)).collect(),
        approvals: o
            .approvals
            .iter()
            .map(|(a, agent)| approval_view(a, agent.clone(), now))
            .collect(),
        decided: o
            .decided
            .iter()
            .map(|(a, agent)| approval_view(a, agent.clone(), now))
            .collect(),
        // Reviewers decide any call; an agent's owner sees (and decides) that agent's calls.
        can_decide: p.role.can(Permission::ReviewClients)
            || !o.approvals.is_empty()
            || !o.decided.is_empty(),
        can_manage: p.role.can(Permission::ManageRegistry),
        can_attach: p.role.can(Permission::ManageAgents),
        agents: o.agents,
    }
}

fn secret_view(
    c: authz::gateway::ClientSecretState,
    server: &portcullis_manifest::Server,
    callback_url: String,
    manager: bool,
    now: i64,
) -> ClientSecretView {
    use authz::gateway::ClientSecretState as S;
    let (state, held, given_for) = match c {
        S::Unset => ("unset", None, None),
        S::Set { set_by, set_at } => ("set", Some((set_by, set_at)), None),
        S::Stale {
            set_by,
            set_at,
            client_id,
            issuer,
        } => (
            "stale",
            Some((set_by, set_at)),
            Some(format!("client {client_id} at {issuer}")),
        ),
    };
    ClientSecretView {
        state: state.to_owned(),
        set: held.as_ref().map(|(_, at)| moment(now, *at)),
        set_by: held.map(|(by, _)| by).filter(|_| manager),
        given_for,
        needed: server.profile == Some(portcullis_manifest::Profile::GmailPreview),
        callback_url,
        settable: matches!(
            &server.auth,
            portcullis_manifest::Auth::OAuth {
                client_id: Some(_),
                issuer: Some(_),
                ..
            }
        ),
    }
}

fn pin_view(t: &ToolPin, now: i64) -> PinView {
    let listed: Option<serde_json::Value> = t
        .seen
        .as_ref()
        .and_then(|d| serde_json::from_str(&d.canonical).ok());
    PinView {
        side_effect_class: listed
            .as_ref()
            .map(|v| authz::gateway::side_effect_class(v).to_owned())
            .unwrap_or_default(),
        risk: listed
            .as_ref()
            .map(|v| authz::gateway::risk(v).to_owned())
            .unwrap_or_default(),
        server: t.server_id.clone(),
        tool: t.tool.clone(),
        state: t.state().as_str().to_owned(),
        sha256: t
            .seen
            .as_ref()
            .map(|d| d.sha256.clone())
            .unwrap_or_default(),
        changes: t
            .diff()
            .into_iter()
            .map(|c| FieldChangeView {
                field: c.field,
                accepted: c.accepted,
                listed: c.listed,
            })
            .collect(),
        seen: moment(now, t.seen_at),
    }
}

fn approval_view(a: &Approval, agent: Option<String>, now: i64) -> ApprovalView {
    ApprovalView {
        id: a.id.clone(),
        capability: a.capability(),
        agent,
        subject: a.sub.clone(),
        client_id: a.client_id.clone(),
        side_effect_class: a.side_effect_class.clone(),
        risk: a.risk.clone(),
        arguments: a.arguments_preview.clone(),
        requested: moment(now, a.requested_at),
        expires: moment(now, a.expires_at),
        status: a.status_at(now).as_str().to_owned(),
        decided_by: a.decided_by.clone(),
        decided: a.decided_at.map(|t| moment(now, t)),
        reason: a.reason.clone(),
    }
}

/// An agent's toolset, server by server.
pub fn toolset_view(t: &Toolset) -> Vec<ToolsetServerView> {
    t.servers
        .iter()
        .map(|s| ToolsetServerView {
            id: s.server.id.clone(),
            capabilities: if s.excluded.is_some() {
                Vec::new()
            } else {
                t.pins
                    .iter()
                    .filter(|p| p.server_id == s.server.id && p.offered().is_some())
                    .filter(|p| s.server.tools.allows(&p.tool))
                    .map(|p| format!("{}.{}", s.server.id, p.tool))
                    .collect()
            },
            excluded: s.excluded.as_ref().map(authz::gateway::Exclusion::reason),
            attached: t.attached.contains(&s.server.id),
        })
        .collect()
}
