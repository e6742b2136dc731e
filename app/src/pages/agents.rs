//! Agents: non-human identities, their owners and roles, and the clients that act for them.
use crate::api::agents::{BindClient, CreateAgent, DeleteAgent, SetAgentDisabled, list_agents};
use crate::components::confirm::ConfirmButton;
use crate::components::pager::{Pager, with_query};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::AgentView;
use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

#[component]
fn AgentRow(agent: AgentView, refresh: Callback<()>) -> impl IntoView {
    let toasts = use_toasts();
    let disable = ServerAction::<SetAgentDisabled>::new();
    let delete = ServerAction::<DeleteAgent>::new();
    let bind = ServerAction::<BindClient>::new();
    // Each finished action says how it ended: success (and the list reloads) or its error,
    // never both.
    for (value, ok) in [
        (disable.value(), "Agent updated."),
        (delete.value(), "Agent deleted."),
        (bind.value(), "Binding saved."),
    ] {
        Effect::new(move |_| match value.get() {
            Some(Ok(())) => {
                toasts.push(ToastKind::Success, ok);
                refresh.run(());
            }
            Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
            None => {}
        });
    }
    let name = StoredValue::new(agent.name.clone());
    let active = agent.status == "active";
    let disabled = agent.status == "disabled";
    let bind_value = RwSignal::new(String::new());
    view! {
        <tr data-testid="agent-row">
            <td class=TD>
                <div class="font-medium text-slate-900 dark:text-white">{agent.name.clone()}</div>
                <div class=MUTED>{agent.owner.clone()}</div>
                {(!agent.description.is_empty()).then(|| view! { <div class="text-xs text-slate-500">{agent.description.clone()}</div> })}
            </td>
            <td class=TD>
                <span class="font-mono text-xs">{agent.roles.clone()}</span>
                {agent.mcp_capable.then(|| view! { <span class="ml-2 rounded bg-indigo-50 px-1.5 py-0.5 text-xs text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300">"MCP"</span> })}
            </td>
            <td class=TD>
                <Badge ok=active text=agent.status.clone()/>
                {(!agent.expires_at.is_empty()).then(|| view! { <div class="mt-1 text-xs text-slate-500">"until " {agent.expires_at.clone()}</div> })}
            </td>
            <td class=TD>
                <ul class="space-y-1">
                    {agent.clients.iter().map(|c| {
                        let c2 = c.clone();
                        view! {
                            <li class="flex items-center gap-2">
                                <code class="font-mono text-xs">{c.clone()}</code>
                                <button type="button" class="text-xs text-red-600 hover:underline dark:text-red-300" aria-label=format!("Unbind {c}")
                                    on:click=move |_| { bind.dispatch(BindClient { client_id: c2.clone(), agent: String::new() }); }>"unbind"</button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
                <form class="mt-2 flex gap-1" on:submit=move |ev| {
                    ev.prevent_default();
                    bind.dispatch(BindClient { client_id: bind_value.get(), agent: name.get_value() });
                    bind_value.set(String::new());
                }>
                    <label class="sr-only" for=format!("bind-{}", agent.name)>{format!("Bind a client to {}", agent.name)}</label>
                    <input id=format!("bind-{}", agent.name) class="w-32 rounded-md border border-slate-300 bg-white px-2 py-1 text-xs dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100" placeholder="client_id"
                        prop:value=move || bind_value.get() on:input=move |ev| bind_value.set(event_target_value(&ev))/>
                    <button type="submit" class=BTN_SMALL>"Bind"</button>
                </form>
            </td>
            <td class=format!("{TD} text-right")>
                <div class="flex justify-end gap-2">
                    {if disabled {
                        view! { <button type="button" class=BTN_SMALL on:click=move |_| { disable.dispatch(SetAgentDisabled { name: name.get_value(), disabled: false }); }>"Enable"</button> }.into_any()
                    } else {
                        view! {
                            <ConfirmButton label="Disable" title="Disable this agent?"
                                message="Its clients get no new tokens, and their existing tokens stop introspecting as active."
                                confirm_label="Disable agent" class=BTN_SMALL_DANGER
                                on_confirm=Callback::new(move |_| { disable.dispatch(SetAgentDisabled { name: name.get_value(), disabled: true }); })/>
                        }.into_any()
                    }}
                    <ConfirmButton label="Delete" title="Delete this agent?"
                        message="Its clients are unbound and keep working as plain clients. This cannot be undone."
                        confirm_label="Delete agent" class=BTN_SMALL_DANGER
                        on_confirm=Callback::new(move |_| { delete.dispatch(DeleteAgent { name: name.get_value() }); })/>
                </div>
            </td>
        </tr>
    }
}

/// The Agents screen.
#[component]
pub fn AgentsPage() -> impl IntoView {
    let query = use_query_map();
    let q = Memo::new(move |_| query.with(|q| q.get("q").unwrap_or_default()));
    let page = Memo::new(move |_| {
        query.with(|q| q.get("page").and_then(|p| p.parse().ok()).unwrap_or(0u32))
    });
    let mcp_only = Memo::new(move |_| query.with(|q| q.get("mcp").is_some_and(|v| !v.is_empty())));
    let expiring =
        Memo::new(move |_| query.with(|q| q.get("expiring").is_some_and(|v| !v.is_empty())));
    let create = ServerAction::<CreateAgent>::new();
    let reload = RwSignal::new(0u32);
    let agents = Resource::new(
        move || {
            (
                q.get(),
                mcp_only.get(),
                expiring.get(),
                page.get(),
                reload.get(),
                create.version().get(),
            )
        },
        |(q, m, e, p, _, _)| list_agents(q, m, e, p),
    );
    let show_create = RwSignal::new(false);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(name)) = create.value().get() {
            toasts.push(ToastKind::Success, format!("Agent {name} created."));
            show_create.set(false);
        }
    });
    let refresh = Callback::new(move |_| reload.update(|n| *n += 1));
    view! {
        <PageHeader title="Agents" description="Non-human identities. A client bound to an agent carries the agent's identity in its tokens, and only while the agent is active.">
            <button type="button" class=BTN_PRIMARY on:click=move |_| show_create.set(true)>"New agent"</button>
        </PageHeader>
        <Show when=move || show_create.get()>
            <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-agent-title">
                <h2 id="new-agent-title" class="text-lg font-semibold text-slate-900 dark:text-white">"New agent"</h2>
                <ActionForm action=create attr:class="mt-4 grid gap-4 sm:grid-cols-2">
                    <div>
                        <label class=LABEL for="agent-name">"Name"</label>
                        <input class=format!("mt-1 {INPUT}") id="agent-name" name="name" required placeholder="reports-bot"/>
                    </div>
                    <div>
                        <label class=LABEL for="agent-owner">"Owner"</label>
                        <input class=format!("mt-1 {INPUT}") id="agent-owner" name="owner" type="email" required placeholder="owner@example.com"/>
                    </div>
                    <div>
                        <label class=LABEL for="agent-roles">"Roles"</label>
                        <input class=format!("mt-1 {INPUT}") id="agent-roles" name="roles" placeholder="mcp:tools"/>
                        <p class=format!("mt-1 {MUTED}")>"Also the most its clients' tokens may grant. mcp or mcp:* makes it MCP-capable."</p>
                    </div>
                    <div>
                        <label class=LABEL for="agent-expires">"Expires (UTC)"</label>
                        <input class=format!("mt-1 {INPUT}") id="agent-expires" name="expires_at" type="datetime-local"/>
                    </div>
                    <div class="sm:col-span-2">
                        <label class=LABEL for="agent-description">"Description"</label>
                        <input class=format!("mt-1 {INPUT}") id="agent-description" name="description"/>
                    </div>
                    <div class="sm:col-span-2">{action_error(create)}</div>
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
                    Ok(found) if found.items.is_empty() => view! {
                        <EmptyState title="No agents" hint="Create an agent, or clear the search and filters."/>
                    }.into_any(),
                    Ok(found) => {
                        let filters = [
                            ("q", q.get()),
                            ("mcp", if mcp_only.get() { "1".to_owned() } else { String::new() }),
                            ("expiring", if expiring.get() { "1".to_owned() } else { String::new() }),
                        ];
                        view! {
                        <div class="overflow-x-auto">
                            <table class=TABLE>
                                <thead class="bg-slate-50 dark:bg-slate-900">
                                    <tr>
                                        <th class=TH scope="col">"Agent"</th>
                                        <th class=TH scope="col">"Roles"</th>
                                        <th class=TH scope="col">"Status"</th>
                                        <th class=TH scope="col">"Clients"</th>
                                        <th class=TH scope="col"><span class="sr-only">"Actions"</span></th>
                                    </tr>
                                </thead>
                                <tbody class="divide-y divide-slate-200 dark:divide-slate-700">
                                    {found.items.into_iter().map(|agent| view! { <AgentRow agent refresh/> }).collect_view()}
                                </tbody>
                            </table>
                        </div>
                        <Pager total=found.total page=found.page page_size=found.page_size
                            href=move |p| {
                                let mut pairs = filters.to_vec();
                                pairs.push(("page", if p == 0 { String::new() } else { p.to_string() }));
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
