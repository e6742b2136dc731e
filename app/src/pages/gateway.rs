//! The MCP gateway of the selected realm.
//!
//! Where agents reach it; calls waiting for a person (approve or deny, each confirmed); tools
//! waiting for acceptance with what changed, field by field; each upstream with its health;
//! and, for one agent, what its search returns and why every other server gives it nothing.
use crate::api::gateway::{
    AcceptGatewayTools, ClearGatewayClientSecret, DecideGatewayCall, EnableGateway,
    SetGatewayAttachment, SetGatewayClientSecret, agent_gateway_toolset, gateway_overview,
};
use crate::components::confirm::{ConfirmButton, ConfirmDialog};
use crate::components::copy::CopyValue;
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::gateway::{ApprovalView, ClientSecretView, GatewayView, PinView, UpstreamView};
use leptos::prelude::*;

/// The Gateway screen.
#[component]
pub fn GatewayPage() -> impl IntoView {
    let enable = ServerAction::<EnableGateway>::new();
    let accept = ServerAction::<AcceptGatewayTools>::new();
    let decide = ServerAction::<DecideGatewayCall>::new();
    let secrets = Secrets {
        set: ServerAction::<SetGatewayClientSecret>::new(),
        clear: ServerAction::<ClearGatewayClientSecret>::new(),
    };
    let changed = (
        successes(enable),
        successes(accept),
        successes(decide),
        successes(secrets.set),
        successes(secrets.clear),
    );
    let overview = Resource::new(
        move || {
            (
                changed.0.get(),
                changed.1.get(),
                changed.2.get(),
                changed.3.get(),
                changed.4.get(),
            )
        },
        |_| gateway_overview(),
    );
    let toasts = use_toasts();
    Effect::new(move |_| match enable.value().get() {
        Some(Ok(url)) => toasts.push(ToastKind::Success, format!("The gateway is on at {url}.")),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match accept.value().get() {
        Some(Ok(0)) => toasts.push(
            ToastKind::Error,
            "Nothing was accepted: the server lists something else now. Review it again.",
        ),
        Some(Ok(n)) => toasts.push(
            ToastKind::Success,
            format!("{n} tool definition(s) accepted: offered as listed now."),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    // Field errors show on the form.
    Effect::new(move |_| {
        if let Some(Ok(server)) = secrets.set.value().get() {
            toasts.push(
                ToastKind::Success,
                format!("Client secret of {server} saved: sent with the gateway's next token request there."),
            );
        }
    });
    Effect::new(move |_| match secrets.clear.value().get() {
        Some(Ok(server)) => toasts.push(
            ToastKind::Success,
            format!("Client secret of {server} removed: the gateway is a public client there now."),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match decide.value().get() {
        Some(Ok(capability)) => toasts.push(ToastKind::Success, format!("{capability}: decided.")),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    view! {
        <PageHeader title="MCP gateway" description="One governed MCP endpoint over this realm's approved servers: agents see two tools (search_capabilities, execute_capability), reach only what the latest registry release and their attachments give them, and every tool definition waits for an administrator; calls that can change things wait for a person."/>
        <Transition fallback=|| view! { <Loading/> }>
            {move || overview.get().map(|result| match result {
                Ok(g) => view! { <Overview g enable accept decide secrets/> }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}

#[component]
fn Overview(
    g: GatewayView,
    enable: ServerAction<EnableGateway>,
    accept: ServerAction<AcceptGatewayTools>,
    decide: ServerAction<DecideGatewayCall>,
    secrets: Secrets,
) -> impl IntoView {
    if !g.enabled {
        return view! {
            <div class=format!("{CARD} p-6")>
                <h2 class="text-lg font-semibold text-slate-900 dark:text-white">"The gateway is off"</h2>
                <p class=format!("mt-1 {MUTED}")>"Turning it on creates its resource (scope mcp), so that clients can ask for tokens for it, and the client it exchanges upstream tokens as."</p>
                <div class="mt-3"><CopyValue value=g.url.clone() label="the gateway's URL"/></div>
                {g.can_manage.then(|| view! {
                    <button type="button" class=format!("{BTN_PRIMARY} mt-4") disabled=move || enable.pending().get()
                        on:click=move |_| { enable.dispatch(EnableGateway {}); }>"Turn it on"</button>
                })}
            </div>
        }
        .into_any();
    }
    let release = g.release.map_or_else(
        || "nothing published yet".to_owned(),
        |n| format!("release {n}"),
    );
    view! {
        <div class=format!("{CARD} mb-6 grid gap-4 p-4 sm:grid-cols-[2fr_1fr]")>
            <div class="min-w-0">
                <p class=MUTED>"Agents connect to (Streamable HTTP, a token for this resource)"</p>
                <div class="mt-1"><CopyValue value=g.url.clone() label="the gateway's URL"/></div>
            </div>
            <dl class="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
                <dt class=MUTED>"Scope"</dt><dd class=MONO>{g.scope.clone()}</dd>
                <dt class=MUTED>"Servers from"</dt><dd>{release}</dd>
            </dl>
        </div>
        {g.can_decide.then(|| view! { <Approvals items=g.approvals.clone() decide/> })}
        {(!g.decided.is_empty()).then(|| view! { <Decided items=g.decided.clone()/> })}
        <Pins items=g.pins.clone() can_manage=g.can_manage accept/>
        <Upstreams items=g.upstreams.clone()/>
        {g.upstreams.iter().any(|u| u.client_secret.is_some()).then(|| view! {
            <ClientSecrets items=g.upstreams.clone() can_manage=g.can_manage secrets/>
        })}
        {(!g.agents.is_empty()).then(|| view! { <AgentToolset agents=g.agents.clone() can_attach=g.can_attach/> })}
    }
    .into_any()
}

#[component]
fn Approvals(items: Vec<ApprovalView>, decide: ServerAction<DecideGatewayCall>) -> impl IntoView {
    let count = items.len();
    view! {
        <section class="mb-8" aria-labelledby="gw-approvals">
            <h2 id="gw-approvals" class="mb-2 flex items-center gap-2 text-lg font-semibold text-slate-900 dark:text-white">
                "Calls waiting for approval"
                {(count > 0).then(|| view! { <span data-testid="approvals-waiting" class="rounded-full bg-amber-400 px-2 text-xs font-semibold text-slate-900">{count}</span> })}
            </h2>
            {if items.is_empty() {
                view! { <div class=CARD><EmptyState title="Nothing waits" hint="A call to a tool that can change things (not marked read-only) waits here for a person; undecided, it is denied when it lapses."/></div> }.into_any()
            } else {
                view! {
                    <ul class="space-y-3" aria-label="Calls waiting for approval">
                        {items.into_iter().map(|a| view! { <ApprovalCard a decide/> }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
    }
}

#[component]
fn ApprovalCard(a: ApprovalView, decide: ServerAction<DecideGatewayCall>) -> impl IntoView {
    let id = StoredValue::new(a.id.clone());
    let capability = StoredValue::new(a.capability.clone());
    // Which decision the dialog asks for (approve or deny), with an optional reason.
    let asking = RwSignal::new(None::<bool>);
    let open = RwSignal::new(false);
    let reason = RwSignal::new(String::new());
    let field = format!("reason-{}", a.id);
    let who = a
        .agent
        .clone()
        .map_or_else(|| a.subject.clone(), |n| format!("agent {n}"));
    let tone = if a.risk == "high" {
        Tone::Bad
    } else {
        Tone::Warn
    };
    view! {
        <li class=format!("{CARD} p-4") data-testid="approval">
            <div class="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
                <div class="min-w-0 space-y-1">
                    <h3 class=format!("break-all font-medium text-slate-900 dark:text-white {MONO} text-sm")>{a.capability.clone()}
                        <span class="ml-2"><Pill tone text=format!("{} risk", a.risk)/></span>
                        <span class="ml-1"><Pill tone=Tone::Info text=a.side_effect_class.clone()/></span>
                    </h3>
                    <dl class="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
                        <dt class=MUTED>"Caller"</dt><dd class="min-w-0 break-all">{who}" ("<span class=MONO>{a.client_id.clone()}</span>")"</dd>
                        <dt class=MUTED>"For"</dt><dd class=format!("min-w-0 {MONO}")>{a.subject.clone()}</dd>
                        <dt class=MUTED>"Asked"</dt><dd><When at=a.requested.at.clone() words=a.requested.ago.clone()/>", denied "<When at=a.expires.at.clone() words=a.expires.ago.clone()/>" unless decided"</dd>
                    </dl>
                    <p class=format!("{MUTED} mt-2")>"Arguments (secret-looking values hidden)"</p>
                    <pre tabindex="0" class="max-h-64 overflow-auto whitespace-pre-wrap break-all rounded-md border border-slate-200 bg-slate-50 p-2 font-mono text-xs text-slate-800 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-200">{a.arguments.clone()}</pre>
                </div>
                <div class="flex shrink-0 gap-2">
                    <button type="button" class=BTN_SMALL aria-haspopup="dialog" on:click=move |_| { asking.set(Some(true)); open.set(true); }>"Approve"</button>
                    <button type="button" class=BTN_SMALL_DANGER aria-haspopup="dialog" on:click=move |_| { asking.set(Some(false)); open.set(true); }>"Deny"</button>
                </div>
            </div>
            <ConfirmDialog open title=Signal::derive(move || match asking.get() {
                    Some(false) => format!("Deny {}?", capability.get_value()),
                    _ => format!("Run {} once?", capability.get_value()),
                })
                message=Signal::derive(move || match asking.get() {
                    Some(false) => "The caller is told the call was not approved. Nothing is sent to the server.".to_owned(),
                    _ => "The caller may run exactly this call (the same arguments) once, within the approval's time. The tool's effects are the upstream server's.".to_owned(),
                })
                confirm_label=Signal::derive(move || if asking.get() == Some(false) { "Deny".to_owned() } else { "Approve".to_owned() })
                danger=false start=field.clone()
                on_confirm=Callback::new(move |_| {
                    if let Some(approve) = asking.get_untracked() {
                        decide.dispatch(DecideGatewayCall { id: id.get_value(), approve, reason: reason.get_untracked() });
                    }
                })>
                <label class=LABEL for=field.clone()>"Reason (optional, kept in the audit log)"</label>
                <textarea id=field.clone() class=format!("mt-1 {INPUT}") rows="2" maxlength="500"
                    prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev))></textarea>
            </ConfirmDialog>
        </li>
    }
}

/// The latest calls that no longer wait: who decided, how and why.
#[component]
fn Decided(items: Vec<ApprovalView>) -> impl IntoView {
    view! {
        <section class="mb-8" aria-labelledby="gw-decided">
            <h2 id="gw-decided" class="mb-2 text-lg font-semibold text-slate-900 dark:text-white">"Recently decided"</h2>
            <ul class=format!("{CARD} divide-y divide-slate-200 dark:divide-slate-700") aria-label="Calls decided recently" data-testid="decided">
                {items.into_iter().map(|a| {
                    let tone = match a.status.as_str() {
                        "approved" | "used" => Tone::Good,
                        "denied" => Tone::Bad,
                        _ => Tone::Off,
                    };
                    let who = a.agent.clone().map_or_else(|| a.subject.clone(), |n| format!("agent {n}"));
                    view! {
                        <li class="flex flex-col gap-1 p-3 text-sm sm:flex-row sm:items-start sm:justify-between sm:gap-4">
                            <div class="min-w-0">
                                <p class=format!("break-all {MONO} text-slate-900 dark:text-white")>{a.capability.clone()}</p>
                                <p class=format!("break-all {MUTED}")>{who}" · asked "<When at=a.requested.at.clone() words=a.requested.ago.clone()/></p>
                                {a.reason.clone().map(|r| view! { <p class="mt-1 break-words text-slate-700 dark:text-slate-300">"“"{r}"”"</p> })}
                            </div>
                            <div class="flex shrink-0 flex-wrap items-center gap-2">
                                <Pill tone text=a.status.clone()/>
                                {a.decided_by.clone().map(|by| view! { <span class=format!("break-all {MUTED}")>"by "{by}</span> })}
                                {a.decided.clone().map(|d| view! { <span class=MUTED><When at=d.at words=d.ago/></span> })}
                            </div>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </section>
    }
}

#[component]
fn Pins(
    items: Vec<PinView>,
    can_manage: bool,
    accept: ServerAction<AcceptGatewayTools>,
) -> impl IntoView {
    let mut servers: Vec<String> = items.iter().map(|p| p.server.clone()).collect();
    servers.dedup();
    view! {
        <section class="mb-8" aria-labelledby="gw-pins">
            <h2 id="gw-pins" class="mb-2 text-lg font-semibold text-slate-900 dark:text-white">"Tools waiting for acceptance"</h2>
            {if items.is_empty() {
                view! { <div class=CARD><EmptyState title="Every tool listed is accepted" hint="When a server lists a new tool, or changes or removes one, it is hidden from agents until accepted here (or with portcullis gateway accept)."/></div> }.into_any()
            } else {
                servers.into_iter().map(|server| {
                    let pins: Vec<PinView> = items.iter().filter(|p| p.server == server).cloned().collect();
                    let name = StoredValue::new(server.clone());
                    let seen = StoredValue::new(pins.iter().map(|p| format!("{} {}", p.tool, p.sha256)).collect::<Vec<_>>().join("\n"));
                    view! {
                        <div class=format!("{CARD} mb-3 p-4") data-testid="pins">
                            <div class="flex flex-col gap-2 sm:flex-row sm:items-center sm:justify-between">
                                <h3 class="break-all font-medium text-slate-900 dark:text-white">{server.clone()}</h3>
                                {can_manage.then(|| view! {
                                    <ConfirmButton label="Accept as listed" title=format!("Accept {}'s tools as listed now?", server)
                                        message="Agents may then use them with these definitions (descriptions, schemas, annotations). A removed tool is forgotten."
                                        confirm_label="Accept" class=BTN_SMALL
                                        on_confirm=Callback::new(move |_| { accept.dispatch(AcceptGatewayTools { server: name.get_value(), seen: seen.get_value() }); })/>
                                })}
                            </div>
                            <ul class="mt-3 space-y-3">
                                {pins.into_iter().map(|p| view! { <PinRow p can_manage accept/> }).collect_view()}
                            </ul>
                        </div>
                    }
                }).collect_view().into_any()
            }}
        </section>
    }
}

#[component]
fn PinRow(p: PinView, can_manage: bool, accept: ServerAction<AcceptGatewayTools>) -> impl IntoView {
    let server = StoredValue::new(p.server.clone());
    let seen = StoredValue::new(format!("{} {}", p.tool, p.sha256));
    let what = if p.state == "removed" {
        "It is forgotten: agents no longer see it, and if the server lists it again it waits here again.".to_owned()
    } else {
        format!(
            "Agents given this server may use it with this definition (a {} tool, {} risk{}).",
            p.side_effect_class,
            p.risk,
            if p.side_effect_class == "read" {
                ""
            } else {
                "; each call waits for a person's approval"
            }
        )
    };
    let tone = match p.state.as_str() {
        "changed" => Tone::Warn,
        "removed" => Tone::Off,
        _ => Tone::Info,
    };
    let block = |v: Option<String>| {
        let text = v.unwrap_or_else(|| "(absent)".into());
        view! { <pre tabindex="0" class="max-h-48 overflow-auto whitespace-pre-wrap break-all rounded-md border border-slate-200 bg-slate-50 p-2 font-mono text-xs text-slate-800 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-200">{text}</pre> }
    };
    view! {
        <li class="border-t border-slate-200 pt-3 dark:border-slate-700">
            <p class="flex flex-wrap items-center gap-2"><span class=format!("{MONO} text-sm text-slate-900 dark:text-white")>{p.tool.clone()}</span>
                <Pill tone text=p.state.clone()/>
                {(!p.side_effect_class.is_empty()).then(|| view! {
                    <Pill tone=if p.side_effect_class == "read" { Tone::Info } else { Tone::Warn } text=format!("{} · {} risk", p.side_effect_class, p.risk)/>
                })}
                <span class=MUTED>"listed "<When at=p.seen.at.clone() words=p.seen.ago.clone()/></span>
                {can_manage.then(|| view! {
                    <span class="sm:ml-auto">
                        <ConfirmButton label="Accept" title=format!("Accept {}.{}?", p.server, p.tool)
                            message=what.clone() confirm_label="Accept" class=BTN_SMALL
                            on_confirm=Callback::new(move |_| { accept.dispatch(AcceptGatewayTools { server: server.get_value(), seen: seen.get_value() }); })/>
                    </span>
                })}</p>
            {(!p.changes.is_empty()).then(|| view! {
                <div class="mt-2 space-y-2">
                    {p.changes.into_iter().map(|c| view! {
                        <div>
                            <p class=format!("{MUTED} font-medium")>{c.field.clone()}</p>
                            <div class="grid gap-2 sm:grid-cols-2">
                                <div><p class=MUTED>"Accepted"</p>{block(c.accepted)}</div>
                                <div><p class=MUTED>"Listed now"</p>{block(c.listed)}</div>
                            </div>
                        </div>
                    }).collect_view()}
                </div>
            })}
        </li>
    }
}

#[component]
fn Upstreams(items: Vec<UpstreamView>) -> impl IntoView {
    view! {
        <section class="mb-8" aria-labelledby="gw-upstreams">
            <h2 id="gw-upstreams" class="mb-2 text-lg font-semibold text-slate-900 dark:text-white">"Servers"</h2>
            {if items.is_empty() {
                view! { <div class=CARD><EmptyState title="No servers" hint="Publish a registry release with remote servers: the gateway reaches those with auth.mode portcullis, none or oauth."/></div> }.into_any()
            } else {
                view! {
                    <div class=format!("{CARD} overflow-hidden")>
                        <table class=CARDS_TABLE>
                            <thead class=CARDS_HEAD><tr>
                                <th class=format!("{TH} sm:w-1/3")>"Server"</th><th class=TH>"Health"</th><th class=TH>"Calls"</th><th class=TH>"Tools"</th>
                            </tr></thead>
                            <tbody class=CARDS_BODY>
                                {items.into_iter().map(|u| view! { <UpstreamRow u/> }).collect_view()}
                            </tbody>
                        </table>
                    </div>
                }.into_any()
            }}
        </section>
    }
}

#[component]
fn UpstreamRow(u: UpstreamView) -> impl IntoView {
    let tone = match u.availability.as_str() {
        "up" => Tone::Good,
        "degraded" => Tone::Warn,
        "circuit_open" => Tone::Bad,
        _ => Tone::Off,
    };
    let availability = u.availability.replace('_', " ");
    view! {
        <tr class=CARDS_ROW data-testid="upstream">
            <td class=CARDS_CELL>
                <p class="break-all font-medium text-slate-900 dark:text-white">{u.id.clone()}</p>
                {(u.title != u.id).then(|| view! { <p class="break-words text-sm text-slate-600 dark:text-slate-300">{u.title.clone()}</p> })}
                <p class=format!("{MONO} text-slate-500 dark:text-slate-400")>{u.url.clone()}</p>
                <p class=MUTED>{u.auth.clone()}</p>
                {u.profile.clone().map(|(label, preview)| view! {
                    <p class="mt-1 flex flex-wrap items-center gap-1 text-sm" data-testid="upstream-profile">
                        <span class="break-words">{label}</span>
                        {preview.then(|| view! { <Pill tone=Tone::Warn text="preview".to_owned()/> })}
                    </p>
                })}
            </td>
            <td class=CARDS_CELL_NEXT>
                <CellLabel text="Health"/>
                {match u.unreachable.clone() {
                    Some(why) => view! { <p class="text-sm text-slate-600 dark:text-slate-300">{why}</p> }.into_any(),
                    None => view! {
                        <Pill tone text=availability/>
                        {u.last_error.clone().map(|e| view! { <p class=MUTED>"last failure: "{e}</p> })}
                    }.into_any(),
                }}
            </td>
            <td class=CARDS_CELL_NEXT>
                <CellLabel text="Calls"/>
                <p class="text-sm">{format!("{} calls, {} failed", u.calls, u.errors)}</p>
                {u.last_call.clone().map(|m| view! { <p class=MUTED>"last "<When at=m.at words=m.ago/>{format!(", {} ms", u.last_latency_ms)}</p> })}
            </td>
            <td class=CARDS_CELL_NEXT>
                <CellLabel text="Tools"/>
                <p class="text-sm">{format!("{} offered", u.offered.len())}
                    {(u.waiting > 0).then(|| view! { <span class="ml-1"><Pill tone=Tone::Warn text=format!("{} waiting", u.waiting)/></span> })}</p>
                <p class=format!("{MONO} text-slate-500 dark:text-slate-400")>{u.offered.join(" ")}</p>
            </td>
        </tr>
    }
}

/// The actions of the client secrets section.
#[derive(Clone, Copy)]
struct Secrets {
    set: ServerAction<SetGatewayClientSecret>,
    clear: ServerAction<ClearGatewayClientSecret>,
}

/// The client secrets the gateway holds for servers with their own OAuth, and a form to set
/// one (administrators).
#[component]
fn ClientSecrets(items: Vec<UpstreamView>, can_manage: bool, secrets: Secrets) -> impl IntoView {
    let errors = FieldErrors::new(
        secrets.set,
        "gw-secret-form",
        &[("server", "server"), ("secret", "client_secret")],
    );
    let form = NodeRef::<leptos::html::Form>::new();
    Effect::new(move |_| {
        if let Some(Ok(_)) = secrets.set.value().get()
            && let Some(f) = form.get()
        {
            f.reset();
        }
    });
    let settable: Vec<String> = items
        .iter()
        .filter(|u| u.client_secret.as_ref().is_some_and(|c| c.settable))
        .map(|u| u.id.clone())
        .collect();
    let rows = items
        .into_iter()
        .filter_map(|u| u.client_secret.clone().map(|c| (u.id, c)))
        .map(|(id, c)| view! { <SecretRow id c can_manage clear=secrets.clear/> })
        .collect_view();
    view! {
        <section class="mb-8" aria-labelledby="gw-secrets">
            <h2 id="gw-secrets" class="text-lg font-semibold text-slate-900 dark:text-white">"Client secrets"</h2>
            <p class=format!("mb-2 {MUTED}")>"For servers with their own OAuth whose authorization server takes the gateway as a confidential client (a Google web application client, for one). Sealed at rest, never part of a registry release, and sent only to the authorization server and client id the registry names for the server."</p>
            <div class=format!("{CARD} divide-y divide-slate-200 dark:divide-slate-700")>
                <ul class="divide-y divide-slate-200 dark:divide-slate-700">{rows}</ul>
                {(can_manage && !settable.is_empty()).then(|| view! {
                    <ActionForm action=secrets.set node_ref=form attr:id="gw-secret-form" attr:class="grid gap-3 p-4 sm:grid-cols-[1fr_2fr_auto] sm:items-end" on:input=move |_| errors.clear()>
                        <div>
                            <label class=LABEL for="gw-secret-server">"Server"</label>
                            <select id="gw-secret-server" name="server" class=format!("mt-1 {INPUT}")
                                aria-invalid=move || errors.message("server").is_some().then_some("true")>
                                {settable.iter().map(|id| view! { <option value=id.clone()>{id.clone()}</option> }).collect_view()}
                            </select>
                        </div>
                        <Field errors name="secret" id="gw-secret-value" label="Client secret" kind=Kind::Password required=true
                            maxlength=1024 autocomplete="off" mono=true/>
                        <button type="submit" class=BTN_PRIMARY disabled=move || secrets.set.pending().get()>"Save secret"</button>
                        <div class="sm:col-span-3">{errors.form_error()}</div>
                    </ActionForm>
                })}
            </div>
        </section>
    }
}

#[component]
fn SecretRow(
    id: String,
    c: ClientSecretView,
    can_manage: bool,
    clear: ServerAction<ClearGatewayClientSecret>,
) -> impl IntoView {
    let (tone, words) = match c.state.as_str() {
        "set" => (Tone::Good, "set"),
        "stale" => (Tone::Warn, "for another client: not sent"),
        _ if c.needed => (Tone::Warn, "none: the provider needs one"),
        _ => (Tone::Off, "none (public client)"),
    };
    let server = StoredValue::new(id.clone());
    let held = c.state != "unset";
    view! {
        <li class="flex flex-col gap-2 p-4 sm:flex-row sm:items-center sm:justify-between" data-testid="client-secret">
            <div class="min-w-0">
                <p class="break-all font-medium text-slate-900 dark:text-white">{id.clone()}
                    <span class="ml-2"><Pill tone text=words.to_owned()/></span></p>
                {c.set.clone().map(|at| view! {
                    <p class=format!("break-all {MUTED}")>"set "{c.set_by.clone().map(|by| format!("by {by} "))}<When at=at.at words=at.ago/></p>
                })}
                {c.given_for.clone().map(|g| view! {
                    <p class=format!("break-all {MUTED}")>{format!("Given for {g}: set it again for the client the registry names now.")}</p>
                })}
                <p class=format!("mt-1 {MUTED}")>"Redirect URI to register there"</p>
                <CopyValue value=c.callback_url.clone() label="the redirect URI"/>
                {(!c.settable).then(|| view! {
                    <p class=MUTED>"The registry names no client id (auth.clientId) or authorization server (auth.issuer) for it: the gateway is a public client there."</p>
                })}
            </div>
            {(can_manage && held).then(|| view! {
                <ConfirmButton label="Remove" title=format!("Remove the client secret of {id}?")
                    message="The gateway then asks for tokens there as a public client (PKCE only); an authorization server that needs the secret refuses them until one is set again."
                    confirm_label="Remove" class=BTN_SMALL_DANGER
                    on_confirm=Callback::new(move |_| { clear.dispatch(ClearGatewayClientSecret { server: server.get_value() }); })/>
            })}
        </li>
    }
}

#[component]
fn AgentToolset(agents: Vec<String>, can_attach: bool) -> impl IntoView {
    // An agent's page links here with `?agent=<name>`.
    let asked = leptos_router::hooks::use_query_map()
        .with_untracked(|q| q.get("agent").unwrap_or_default());
    let chosen = RwSignal::new(if agents.contains(&asked) {
        asked
    } else {
        String::new()
    });
    let attach = ServerAction::<SetGatewayAttachment>::new();
    let attached = successes(attach);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Err(e)) = attach.value().get() {
            toasts.push(ToastKind::Error, e.to_string());
        }
    });
    let toolset = Resource::new(
        move || (chosen.get(), attached.get()),
        |(agent, _)| async move {
            if agent.is_empty() {
                Ok(Vec::new())
            } else {
                agent_gateway_toolset(agent).await
            }
        },
    );
    view! {
        <section class="mb-8" aria-labelledby="gw-toolset">
            <h2 id="gw-toolset" class="mb-2 text-lg font-semibold text-slate-900 dark:text-white">"What an agent reaches"</h2>
            <div class=format!("{CARD} p-4")>
                <label for="gw-agent" class=LABEL>"Agent"</label>
                <select id="gw-agent" class=format!("{INPUT} mt-1 sm:max-w-md") on:change=move |ev| chosen.set(event_target_value(&ev))>
                    <option value="">"Choose an agent"</option>
                    {agents.into_iter().map(|a| {
                        let selected = chosen.get_untracked() == a;
                        view! { <option value=a.clone() selected=selected>{a.clone()}</option> }
                    }).collect_view()}
                </select>
                <Transition fallback=|| view! { <Loading/> }>
                    {move || toolset.get().map(|r| match r {
                        Ok(servers) if servers.is_empty() => view! { <span></span> }.into_any(),
                        Ok(servers) => view! {
                            <ul class="mt-4 space-y-2" aria-label="The agent's servers" data-testid="toolset">
                                {servers.into_iter().map(|s| {
                                    let server = StoredValue::new(s.id.clone());
                                    let on = s.attached;
                                    view! {
                                    <li class="border-t border-slate-200 pt-2 dark:border-slate-700">
                                        <div class="flex flex-wrap items-center justify-between gap-2">
                                            <p class="break-all font-medium text-slate-900 dark:text-white">{s.id.clone()}
                                                {on.then(|| view! { <span class="ml-2"><Pill tone=Tone::Info text="attached"/></span> })}</p>
                                            {can_attach.then(|| view! {
                                                <button type="button" class=if on { BTN_SMALL_DANGER } else { BTN_SMALL } disabled=move || attach.pending().get()
                                                    on:click=move |_| { attach.dispatch(SetGatewayAttachment { agent: chosen.get_untracked(), server: server.get_value(), attached: !on }); }>
                                                    {if on { "Detach" } else { "Attach" }}</button>
                                            })}
                                        </div>
                                        {match s.excluded {
                                            Some(why) => view! { <p class="text-sm text-slate-600 dark:text-slate-300">{why}</p> }.into_any(),
                                            None if s.capabilities.is_empty() => view! { <p class=MUTED>"No tool accepted yet."</p> }.into_any(),
                                            None => view! { <p class=format!("{MONO} text-slate-700 dark:text-slate-200")>{s.capabilities.join(" ")}</p> }.into_any(),
                                        }}
                                    </li>
                                }}).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <ErrorMessage error/> }.into_any(),
                    })}
                </Transition>
            </div>
        </section>
    }
}
