//! Agents: non-human identities, their owners and roles, and the clients that act for them.
//! The list links to each agent's page, where it is changed, bound and deleted.
use crate::api::agents::{
    BindClient, CreateAgent, DeleteAgent, SetAgentDisabled, UpdateAgent, get_agent, list_agents,
};
use crate::api::audit::history;
use crate::components::card::{EditableCard, FormButtons};
use crate::components::confirm::{ConfirmButton, ConfirmDialog};
use crate::components::copy::CopyObjectLink;
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::history::History;
use crate::components::layout::use_abilities;
use crate::components::pager::{KeyPager, use_key_params, with_query};
use crate::components::picker::ClientPicker;
use crate::components::scopes::ScopeInput;
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::agents::AgentView;
use crate::types::audit::AuditPage;
use crate::types::clients::ClientChoiceView;
use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

/// What roles mean, next to the field.
const ROLES_HELP: &str = "Space-separated. An agent's roles are also the most its clients' tokens may carry: a token gets a scope only if the client was granted it and the agent holds it as a role. mcp or any mcp:… role makes the agent MCP-capable.";

/// The inputs of the agent forms (named as the server names them).
const AGENT_FIELDS: &[(&str, &str)] = &[
    ("name", "name"),
    ("owner", "owner"),
    ("roles", "roles"),
    ("expires_at", "expires_at"),
    ("description", "description"),
];

/// The editable fields, shared by the create and edit forms.
#[component]
fn AgentFields(id: &'static str, v: Option<AgentView>, errors: FieldErrors) -> impl IntoView {
    let f = move |name: &str| format!("agent-{id}-{name}");
    let (owner, expires, roles, description) = v.map_or_else(Default::default, |v| {
        (v.owner, v.expires_input, v.roles, v.description)
    });
    view! {
        <Field errors name="owner" id=f("owner") label="Owner" value=owner kind=Kind::Email required=true maxlength=254 placeholder="owner@example.com"
            help="The person accountable for it; tokens carry it as agent_owner."/>
        <Field errors name="expires_at" id=f("expires") label="Expires (UTC)" value=expires kind=Kind::DateTime
            help="Optional, after now. Its clients' tokens expire by then at the latest."/>
        <ScopeInput errors name="roles" id=f("roles") label="Roles" value=roles roles=true class="sm:col-span-2" help=ROLES_HELP/>
        <Field errors name="description" id=f("description") label="Description" value=description maxlength=500 class="sm:col-span-2"/>
    }
}

/// An agent's status: its own colour, and the expiry in words.
#[component]
fn AgentStatus(agent: AgentView) -> impl IntoView {
    view! {
        <Pill tone=Tone::of(&agent.status) text=agent.status.clone()/>
        {(!agent.expires_at.is_empty()).then(|| view! {
            <div class="mt-1 text-xs text-slate-500 dark:text-slate-400">
                {if agent.status == "expired" { "expired " } else { "expires " }}
                <When at=agent.expires_at.clone() words=agent.expires.clone()/>
            </div>
        })}
    }
}

/// One agent in a list; `linked`: its name links to its page (for roles that may open it).
#[component]
pub fn AgentRow(agent: AgentView, #[prop(default = true)] linked: bool) -> impl IntoView {
    let clients = agent.clients.len();
    view! {
        <tr data-testid="agent-row" class=CARDS_ROW>
            <td class=CARDS_CELL>
                {if linked {
                    view! { <a class="font-medium text-indigo-700 break-all hover:underline dark:text-indigo-300" href=format!("/agents/{}", agent.name)>{agent.name.clone()}</a> }.into_any()
                } else {
                    view! { <span class="font-medium break-all text-slate-900 dark:text-white">{agent.name.clone()}</span> }.into_any()
                }}
                <div class=format!("{MUTED} break-all")>{agent.owner.clone()}</div>
                {(!agent.description.is_empty()).then(|| view! { <div class="max-w-full truncate text-xs text-slate-500 sm:max-w-xs lg:max-w-md dark:text-slate-400" title=agent.description.clone()>{agent.description.clone()}</div> })}
            </td>
            <td class=CARDS_CELL_NEXT>
                <CellLabel text="Roles"/>
                <span class=MONO>{agent.roles.clone()}</span>
                {agent.mcp_capable.then(|| view! { <span class="ml-2"><Pill tone=Tone::Info text="MCP"/></span> })}
            </td>
            <td class=CARDS_CELL_NEXT><AgentStatus agent=agent.clone()/></td>
            <td class="mt-2 block text-sm text-slate-600 sm:mt-0 sm:table-cell sm:px-4 sm:py-2 sm:align-top dark:text-slate-300">
                {match clients { 0 => "No clients".to_owned(), 1 => "1 client".to_owned(), n => format!("{n} clients") }}
            </td>
        </tr>
    }
}

/// The Agents screen.
#[component]
pub fn AgentsPage() -> impl IntoView {
    let query = use_query_map();
    let q = Memo::new(move |_| query.with(|q| q.get("q").unwrap_or_default()));
    let page = use_key_params();
    let mcp_only = Memo::new(move |_| query.with(|q| q.get("mcp").is_some_and(|v| !v.is_empty())));
    let expiring =
        Memo::new(move |_| query.with(|q| q.get("expiring").is_some_and(|v| !v.is_empty())));
    let create = ServerAction::<CreateAgent>::new();
    let agents = Resource::new(
        move || {
            (
                q.get(),
                mcp_only.get(),
                expiring.get(),
                page.get(),
                create.version().get(),
            )
        },
        |(q, m, e, (after, before), _)| list_agents(q, m, e, after, before),
    );
    let show_create = RwSignal::new(false);
    crate::components::field::focus_first_when(show_create, "new-agent");
    let create_errors = FieldErrors::new(create, "new-agent", AGENT_FIELDS);
    let toasts = use_toasts();
    let navigate = leptos_router::hooks::use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(name)) = create.value().get() {
            toasts.push(ToastKind::Success, format!("Agent {name} created."));
            show_create.set(false);
            navigate(&format!("/agents/{name}"), Default::default());
        }
    });
    let can = use_abilities();
    let filtered = move || !q.get().is_empty() || mcp_only.get() || expiring.get();
    view! {
        <PageHeader title="Agents" description="Non-human identities. A client bound to an agent carries the agent's identity in its tokens, and only while the agent is active.">
            {can.manage_agents.then(|| view! {
                <button type="button" class=format!("{BTN_PRIMARY} whitespace-nowrap") on:click=move |_| show_create.set(true)>"New agent"</button>
            })}
        </PageHeader>
        <Show when=move || show_create.get()>
            <section class=format!("{CARD} mb-6 p-4 sm:p-6") aria-labelledby="new-agent-title">
                <h2 id="new-agent-title" class="text-lg font-semibold text-slate-900 dark:text-white">"New agent"</h2>
                <ActionForm action=create attr:id="new-agent" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| create_errors.clear()>
                    <Field errors=create_errors name="name" id="agent-name" label="Name" required=true maxlength=63 mono=true placeholder="reports-bot" class="sm:col-span-2"
                        help="Letters, digits, '-', '_' and '.'; it cannot be changed later."/>
                    <AgentFields id="new" v=None errors=create_errors/>
                    <div class="sm:col-span-2">{create_errors.form_error()}</div>
                    <div class="flex gap-2 sm:col-span-2">
                        <button type="submit" class=BTN_PRIMARY disabled=move || create.pending().get()>"Create agent"</button>
                        <button type="button" class=BTN_SECONDARY on:click=move |_| show_create.set(false)>"Cancel"</button>
                    </div>
                </ActionForm>
            </section>
        </Show>
        <div class=CARD>
            <Form method="GET" action="" attr:class="flex flex-wrap items-center gap-4 border-b border-slate-200 p-4 dark:border-slate-700" attr:aria-label="Filter agents">
                <label class="sr-only" for="agent-search">"Search agents"</label>
                <input class=format!("{INPUT} sm:w-64") id="agent-search" name="q" type="search" placeholder="Search by name or owner" prop:value=move || q.get()/>
                <label class="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-300">
                    <input type="checkbox" name="mcp" value="1" prop:checked=move || mcp_only.get()/>"MCP-capable only"
                </label>
                <label class="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-300">
                    <input type="checkbox" name="expiring" value="1" prop:checked=move || expiring.get()/>"Expiring within 7 days"
                </label>
                <button type="submit" class=BTN_SECONDARY>"Apply"</button>
            </Form>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || agents.get().map(|result| match result {
                    Ok(found) if found.items.is_empty() && filtered() => view! {
                        <EmptyState title="No agent matches" hint="Try another search, or clear the filters.">
                            <a class=BTN_SECONDARY href="/agents">"Clear filters"</a>
                        </EmptyState>
                    }.into_any(),
                    Ok(found) if found.items.is_empty() => view! {
                        <EmptyState title="No agents yet" hint="An agent is a non-human identity (a bot, a coding agent) that clients act for; its name, owner and roles travel in their tokens.">
                            {can.manage_agents.then(|| view! { <button type="button" class=BTN_PRIMARY on:click=move |_| show_create.set(true)>"New agent"</button> })}
                        </EmptyState>
                    }.into_any(),
                    Ok(found) => {
                        let filters = [
                            ("q", q.get()),
                            ("mcp", if mcp_only.get() { "1".to_owned() } else { String::new() }),
                            ("expiring", if expiring.get() { "1".to_owned() } else { String::new() }),
                        ];
                        let shown = found.items.len();
                        view! {
                        <table class="block w-full text-sm sm:table">
                            <thead class=CARDS_HEAD>
                                <tr>
                                    <th class=TH scope="col">"Agent"</th>
                                    <th class=TH scope="col">"Roles"</th>
                                    <th class=TH scope="col">"Status"</th>
                                    <th class=TH scope="col">"Clients"</th>
                                </tr>
                            </thead>
                            <tbody class=CARDS_BODY>
                                {found.items.into_iter().map(|agent| view! { <AgentRow agent/> }).collect_view()}
                            </tbody>
                        </table>
                        <KeyPager total=found.total before=found.before shown prev=found.prev next=found.next
                            href=move |key| {
                                let pairs: Vec<_> = filters.iter().cloned().chain(key).collect();
                                with_query("/agents", &pairs)
                            }/>
                    }.into_any()
                    }
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </div>
    }
}

/// The agent's settings: shown, or edited in place.
#[component]
fn AgentSettings(agent: AgentView, update: ServerAction<UpdateAgent>) -> impl IntoView {
    let editing = RwSignal::new(false);
    let errors = FieldErrors::new(update, "edit-agent", AGENT_FIELDS);
    Effect::new(move |_| {
        if let Some(Ok(())) = update.value().get() {
            editing.set(false);
        }
    });
    let v = StoredValue::new(agent);
    let manage = use_abilities().manage_agents;
    view! {
        <EditableCard id="agent-settings" title="Settings" editable=manage editing shown=ViewFn::from(move || {
                let a = v.get_value();
                view! {
                    <dl class="mt-4 grid gap-4 text-sm sm:grid-cols-2" data-testid="agent-detail">
                        <div><dt class=MUTED>"Status"</dt><dd class="mt-1"><AgentStatus agent=a.clone()/></dd></div>
                        <div><dt class=MUTED>"Owner"</dt><dd class="break-all">{a.owner.clone()}</dd></div>
                        <div class="sm:col-span-2">
                            <dt class=MUTED>"Roles"</dt>
                            <dd class="font-mono text-xs break-all">{if a.roles.is_empty() { "none".to_owned() } else { a.roles.clone() }}</dd>
                            <dd class=format!("mt-1 {MUTED}")>{ROLES_HELP}</dd>
                        </div>
                        <div class="sm:col-span-2"><dt class=MUTED>"Description"</dt><dd class="break-words">{if a.description.is_empty() { "—".to_owned() } else { a.description.clone() }}</dd></div>
                    </dl>
                }
            })>
                <ActionForm action=update attr:id="edit-agent" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                    <input type="hidden" name="name" value=v.with_value(|a| a.name.clone())/>
                    <AgentFields id="edit" v=Some(v.get_value()) errors/>
                    <div class="sm:col-span-2">{errors.form_error()}</div>
                    <FormButtons pending=update.pending() editing/>
                </ActionForm>
        </EditableCard>
    }
}

/// The clients acting for the agent: unbind (confirmed), bind one more with a picker, and
/// confirm a move when the picked client acts for another agent.
#[component]
fn AgentClients(agent: AgentView, bind: ServerAction<BindClient>) -> impl IntoView {
    let name = StoredValue::new(agent.name.clone());
    let manage = use_abilities().manage_agents;
    let moving = RwSignal::new(None::<ClientChoiceView>);
    let confirm_move = RwSignal::new(false);
    let roles = StoredValue::new(agent.roles.clone());
    // Every bind asks first: it changes what the client's tokens carry (and a move ends the
    // tokens it holds as another agent).
    let on_pick = Callback::new(move |c: ClientChoiceView| {
        if c.agent != name.get_value() {
            moving.set(Some(c));
            confirm_move.set(true);
        }
    });
    let move_title = Signal::derive(move || {
        moving
            .get()
            .map(|c| {
                if c.agent.is_empty() {
                    format!("Bind {} to {}?", c.client_id, name.get_value())
                } else {
                    format!("Move {} to {}?", c.client_id, name.get_value())
                }
            })
            .unwrap_or_default()
    });
    let note = StoredValue::new(crate::components::layout::use_revocation_note());
    let move_message = Signal::derive(move || {
        moving
            .get()
            .map(|c| {
                let ceiling = roles.with_value(|r| {
                    if r.is_empty() {
                        format!("{} holds no roles, so its tokens will carry no scopes.", name.get_value())
                    } else {
                        format!("Their scopes are limited to {}'s roles: {r}.", name.get_value())
                    }
                });
                let before = if c.agent.is_empty() {
                    String::new()
                } else {
                    format!(
                        "It acts for agent {} now; servers that introspect see its tokens issued as {} as inactive. {} ",
                        c.agent, c.agent, note.get_value()
                    )
                };
                format!("{before}Its next tokens carry {}'s identity. {ceiling}", name.get_value())
            })
            .unwrap_or_default()
    });
    let confirm_label = Signal::derive(move || {
        if moving.with(|m| m.as_ref().is_some_and(|c| c.agent.is_empty())) {
            "Bind client".to_owned()
        } else {
            "Move client".to_owned()
        }
    });
    view! {
        <section class=format!("{CARD} mt-6") aria-labelledby="agent-clients" data-testid="agent-clients">
            <div class="border-b border-slate-200 px-4 py-4 sm:px-6 dark:border-slate-700">
                <h2 id="agent-clients" class="text-lg font-semibold text-slate-900 dark:text-white">"Clients acting for this agent"</h2>
                <p class=format!("mt-1 {MUTED}")>"Their tokens carry this agent's name, owner and roles; servers that introspect see them as inactive once it is disabled, expires, is deleted, changes owner or loses a role they carry."</p>
            </div>
            {manage.then(|| view! {
                <div class="border-b border-slate-200 px-4 py-4 sm:px-6 dark:border-slate-700">
                    <ClientPicker id="bind-client" label="Bind a client" on_pick/>
                    <div class="mt-2">{action_error(bind)}</div>
                </div>
            })}
            {if agent.clients.is_empty() {
                view! { <EmptyState title="No client acts for this agent" hint="Bind a client so it can get tokens as this agent."/> }.into_any()
            } else {
                view! {
                    <ul class="divide-y divide-slate-200 dark:divide-slate-700">
                        {agent.clients.iter().map(|c| {
                            let id = StoredValue::new(c.clone());
                            view! {
                                <li class="flex flex-wrap items-center justify-between gap-2 px-4 py-3 sm:px-6" data-testid="bound-client">
                                    <a class="min-w-0 font-mono text-sm break-all text-indigo-700 hover:underline dark:text-indigo-300" href=format!("/clients/{c}")>{c.clone()}</a>
                                    {manage.then(|| view! {
                                        <ConfirmButton
                                            label="Unbind"
                                            title=format!("Unbind {c} from {}?", name.get_value())
                                            message=crate::components::layout::with_revocation_note("Servers that introspect see its tokens issued as this agent as inactive; it keeps its grants and gets plain client tokens from now on.")
                                            confirm_label="Unbind"
                                            class=BTN_SMALL_DANGER
                                            on_confirm=Callback::new(move |_| { bind.dispatch(BindClient { client_id: id.get_value(), agent: String::new() }); })
                                        />
                                    })}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
            <ConfirmDialog open=confirm_move title=move_title message=move_message confirm_label danger=false
                on_confirm=Callback::new(move |_| {
                    if let Some(c) = moving.get_untracked() {
                        bind.dispatch(BindClient { client_id: c.client_id, agent: name.get_value() });
                    }
                })/>
        </section>
    }
}

/// The registry servers attached to the agent: what its gateway search may offer.
#[component]
fn AgentGateway(name: String) -> impl IntoView {
    let link = format!(
        "{}#gw-toolset",
        crate::components::pager::with_query("/gateway", &[("agent", name.clone())])
    );
    let attached = Resource::new(
        move || name.clone(),
        crate::api::gateway::agent_gateway_attachments,
    );
    view! {
        <section class="mb-8" aria-labelledby="agent-gateway">
            <h2 id="agent-gateway" class="mb-2 text-lg font-semibold text-slate-900 dark:text-white">"MCP gateway"</h2>
            <div class=format!("{CARD} p-4")>
                <Transition fallback=|| view! { <Loading/> }>
                    {move || attached.get().map(|r| match r {
                        Ok(servers) if servers.is_empty() => view! { <p class=MUTED data-testid="agent-attachments">"No server is attached: its gateway search offers nothing."</p> }.into_any(),
                        Ok(servers) => view! {
                            <p class="text-sm text-slate-700 dark:text-slate-200" data-testid="agent-attachments">"Attached: "
                                <span class=format!("break-all {MONO}")>{servers.join(", ")}</span></p>
                        }.into_any(),
                        Err(error) => view! { <ErrorMessage error/> }.into_any(),
                    })}
                </Transition>
                <a class="mt-2 inline-block text-sm text-indigo-600 hover:underline dark:text-indigo-300" href=link.clone()>"What it reaches, and why not the rest →"</a>
            </div>
        </section>
    }
}

/// One agent: settings, the clients acting for it, and its history.
#[component]
pub fn AgentDetailPage() -> impl IntoView {
    let params = leptos_router::hooks::use_params_map();
    let name = Memo::new(move |_| params.with(|p| p.get("name").unwrap_or_default()));
    let update = ServerAction::<UpdateAgent>::new();
    let disable = ServerAction::<SetAgentDisabled>::new();
    let delete = ServerAction::<DeleteAgent>::new();
    let bind = ServerAction::<BindClient>::new();
    let (updated, disabled, bound) = (successes(update), successes(disable), successes(bind));
    let versions = move || (updated.get(), disabled.get(), bound.get());
    let agent = Resource::new(move || (name.get(), versions()), |(n, _)| get_agent(n));
    let can = use_abilities();
    let events = Resource::new(
        move || (name.get(), versions()),
        move |(n, _)| async move {
            if can.view_audit {
                history("agent".to_owned(), n).await
            } else {
                Ok(AuditPage::default())
            }
        },
    );
    let toasts = use_toasts();
    for (value, ok) in [
        (update.value(), "Agent saved."),
        (disable.value(), "Agent updated."),
        (bind.value(), "Binding saved."),
    ] {
        Effect::new(move |_| {
            if let Some(Ok(())) = value.get() {
                toasts.push(ToastKind::Success, ok);
            }
        });
    }
    Effect::new(move |_| {
        if let Some(Err(e)) = disable.value().get() {
            toasts.push(ToastKind::Error, e.to_string());
        }
    });
    leave_after(delete, "Agent deleted.", "/agents");
    view! {
        <div class="flex flex-wrap items-center justify-between gap-2">
            <a href="/agents" class="text-sm text-indigo-600 hover:underline dark:text-indigo-300">"← Agents"</a>
            {move || view! { <CopyObjectLink kind="agents" id=name.get() what="this agent"/> }}
        </div>
        <Transition fallback=|| view! { <Loading/> }>
            {move || agent.get().map(|result| match result {
                Ok(a) => {
                    let n = StoredValue::new(a.name.clone());
                    let disabled = a.status == "disabled";
                    view! {
                        <div class="mt-2 mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
                            <div class="min-w-0">
                                <h1 class=format!("{H1} break-all")>{a.name.clone()}</h1>
                                <p class=format!("{MUTED} break-all")>{a.owner.clone()}</p>
                            </div>
                            {can.manage_agents.then(|| view! {
                                <div class="flex flex-wrap gap-2">
                                    {if disabled {
                                        view! { <button type="button" class=BTN_SMALL on:click=move |_| { disable.dispatch(SetAgentDisabled { name: n.get_value(), disabled: false }); }>"Enable"</button> }.into_any()
                                    } else {
                                        view! {
                                            <ConfirmButton label="Disable" title=format!("Disable {}?", n.get_value())
                                                message=crate::components::layout::with_revocation_note("Its clients get no new tokens, and servers that introspect see their existing tokens as inactive.")
                                                confirm_label="Disable agent" class=BTN_SMALL_DANGER
                                                on_confirm=Callback::new(move |_| { disable.dispatch(SetAgentDisabled { name: n.get_value(), disabled: true }); })/>
                                        }.into_any()
                                    }}
                                    <ConfirmButton label="Delete" title=format!("Delete {}?", n.get_value())
                                        message=crate::components::layout::with_revocation_note("Its clients are unbound and keep working as plain clients; servers that introspect see tokens issued as this agent as inactive. This cannot be undone.")
                                        confirm_label="Delete agent" class=BTN_SMALL_DANGER
                                        on_confirm=Callback::new(move |_| { delete.dispatch(DeleteAgent { name: n.get_value() }); })/>
                                </div>
                            })}
                        </div>
                        <AgentSettings agent=a.clone() update/>
                        <AgentClients agent=a.clone() bind/>
                        {can.view_registry.then(|| view! { <AgentGateway name=a.name.clone()/> })}
                        {can.view_audit.then(|| view! { <History events/> })}
                    }.into_any()
                }
                Err(crate::error::AppError::NotFound(_)) => view! { <div class="mt-4"><crate::components::layout::NotFound/></div> }.into_any(),
                Err(error) => view! { <div class="mt-4"><ErrorMessage error/></div> }.into_any(),
            })}
        </Transition>
    }
}
