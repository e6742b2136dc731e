//! Access grants on the client's page (the resources it may reach) and on the resource's page
//! (the clients that may reach it).
use crate::api::access::{AddAccess, GrantAccess, RevokeAccess};
use crate::components::confirm::{ConfirmButton, ConfirmDialog};
use crate::components::layout::use_abilities;
use crate::components::pager::{KeyPager, with_query};
use crate::components::picker::ClientPicker;
use crate::components::scopes::{ScopeChecks, joined, split};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::error::AppError;
use crate::types::access::{AccessView, GrantPage, GrantView};
use crate::types::clients::ClientChoiceView;
use crate::types::resources::ResourceView;
use leptos::prelude::*;
use leptos_router::components::Form;
use std::collections::BTreeSet;

/// Scopes as small monospace chips.
#[component]
fn ScopeList(scopes: Vec<String>) -> impl IntoView {
    view! {
        <ul class="mt-2 flex flex-wrap gap-1" aria-label="Scopes">
            {scopes.into_iter().map(|s| view! {
                <li class="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs text-slate-700 break-all dark:bg-slate-700 dark:text-slate-200">{s}</li>
            }).collect_view()}
        </ul>
    }
}

/// Granted scopes the resource no longer accepts, and what that means.
#[component]
fn Lapsed(scopes: Vec<String>, effective: usize) -> impl IntoView {
    (!scopes.is_empty() || effective == 0).then(|| {
        let text = if effective == 0 {
            "No granted scope is accepted by the resource any more: no token is issued.".to_owned()
        } else {
            "Not accepted by the resource any more (no token carries them):".to_owned()
        };
        view! {
            <p class="mt-2 text-xs text-amber-800 dark:text-amber-300" data-testid="lapsed-scopes">
                {text} " " <span class="font-mono break-words">{scopes.join(" ")}</span>
            </p>
        }
    })
}

/// When a grant was last used: words, with the UTC time on hover.
#[component]
fn LastToken(at: String, words: String) -> impl IntoView {
    if at.is_empty() {
        view! { <span class="text-xs text-slate-500 dark:text-slate-400">"No token yet"</span> }
            .into_any()
    } else {
        view! {
            <span class="text-xs text-slate-500 dark:text-slate-400">
                "Last token " <When at words/>
            </span>
        }
        .into_any()
    }
}

/// The scopes a save would take away from a grant.
fn removed(initial: &BTreeSet<String>, selected: &BTreeSet<String>) -> Vec<String> {
    initial.difference(selected).cloned().collect()
}

/// Asks before a save takes scopes away: tokens carrying them stop working.
#[component]
fn NarrowDialog(
    open: RwSignal<bool>,
    client: StoredValue<String>,
    resource: String,
    gone: Signal<Vec<String>>,
    on_confirm: Callback<()>,
) -> impl IntoView {
    let title = format!("Narrow {}'s access to {resource}?", client.get_value());
    let note = StoredValue::new(crate::components::layout::use_revocation_note());
    view! {
        <ConfirmDialog open title
            message=Signal::derive(move || format!(
                "It loses {}. Servers that introspect see its current tokens for this resource that carry {} as inactive. {}",
                gone.get().join(", "),
                if gone.with(Vec::len) == 1 { "it" } else { "any of them" },
                note.get_value(),
            ))
            confirm_label="Narrow access" on_confirm/>
    }
}

/// Toasts the outcome of a grant and reloads.
fn on_granted(grant: ServerAction<GrantAccess>, client_id: String, refresh: Callback<()>) {
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(a)) = grant.value().get() {
            toasts.push(
                ToastKind::Success,
                format!(
                    "{client_id} may get tokens for {} with {}.",
                    a.resource.display_name,
                    a.scopes.join(", ")
                ),
            );
            refresh.run(());
        }
    });
}

/// Toasts the outcome of a revocation and reloads.
fn on_revoked(revoke: ServerAction<RevokeAccess>, refresh: Callback<()>) {
    let toasts = use_toasts();
    Effect::new(move |_| match revoke.value().get() {
        Some(Ok(())) => {
            toasts.push(ToastKind::Success, "Access revoked.");
            refresh.run(());
        }
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
}

/// One resource a client has access to, on the client's page: its scopes, changeable in place,
/// and revoke.
#[component]
fn AccessRow(client_id: String, access: AccessView, refresh: Callback<()>) -> impl IntoView {
    let all = split(&access.resource.scopes);
    let initial: BTreeSet<String> = access.scopes.iter().cloned().collect();
    let selected = RwSignal::new(initial.clone());
    let editing = RwSignal::new(false);
    let grant = ServerAction::<GrantAccess>::new();
    let revoke = ServerAction::<RevokeAccess>::new();
    on_granted(grant, client_id.clone(), refresh);
    on_revoked(revoke, refresh);
    let (client, slug) = (
        StoredValue::new(client_id),
        StoredValue::new(access.resource.slug.clone()),
    );
    let name = access.resource.display_name.clone();
    let manage = use_abilities().manage_clients;
    let before = StoredValue::new(initial.clone());
    let unchanged = move || selected.with(|s| before.with_value(|b| s == b));
    let submit = move || {
        grant.dispatch(GrantAccess {
            client_id: client.get_value(),
            resource: slug.get_value(),
            scopes: selected.with(joined),
        });
    };
    let narrowing = RwSignal::new(false);
    let gone = Signal::derive(move || before.with_value(|b| selected.with(|s| removed(b, s))));
    let chips = access.scopes.clone();
    let rname = StoredValue::new(name.clone());
    view! {
        <li class="px-4 py-3 sm:px-6" data-testid="access-row">
            <div class="flex flex-wrap items-start justify-between gap-2">
                <div class="min-w-0">
                    <a href=format!("/resources/{}", access.resource.slug) class="font-medium text-indigo-700 break-all hover:underline dark:text-indigo-300">{name.clone()}</a>
                    <div class=format!("{MONO} text-slate-500 dark:text-slate-400")>{access.resource.uri.clone()}</div>
                </div>
                <div class="flex flex-wrap items-center gap-2">
                    <LastToken at=access.last_used_at.clone() words=access.last_used.clone()/>
                    {(!access.resource.enabled).then(|| view! { <Badge ok=false text="Resource disabled"/> })}
                </div>
            </div>
            <Show when=move || !editing.get() fallback=move || view! {
                <ScopeChecks id=format!("access-{}", slug.get_value()) legend=format!("Scopes for {}", access.resource.display_name) scopes=all.clone() selected/>
            }>
                <ScopeList scopes=chips.clone()/>
            </Show>
            <Lapsed scopes=access.lapsed.clone() effective=access.scopes.len()/>
            {manage.then(|| view! {
                <div class="mt-2 flex flex-wrap gap-2">
                    <Show when=move || editing.get() fallback=move || view! {
                        <button type="button" class=BTN_SMALL on:click=move |_| editing.set(true)>"Change scopes"</button>
                    }>
                        <button type="button" class=BTN_SMALL
                            disabled=move || unchanged() || selected.with(BTreeSet::is_empty) || grant.pending().get()
                            on:click=move |_| if gone.with(Vec::is_empty) { submit() } else { narrowing.set(true) }>"Save scopes"</button>
                        <NarrowDialog open=narrowing client resource=rname.get_value() gone on_confirm=Callback::new(move |_| submit())/>
                        <button type="button" class=BTN_SMALL on:click=move |_| {
                            selected.set(before.get_value());
                            editing.set(false);
                        }>"Cancel"</button>
                    </Show>
                    <ConfirmButton
                        label="Revoke"
                        title=format!("Revoke {}'s access to {name}?", client.get_value())
                        message=crate::components::layout::with_revocation_note("It gets no new tokens for this resource, and servers that introspect see its current tokens for it as inactive.")
                        confirm_label="Revoke access"
                        class=BTN_SMALL_DANGER
                        on_confirm=Callback::new(move |_| { revoke.dispatch(RevokeAccess { client_id: client.get_value(), resource: slug.get_value() }); })
                    />
                </div>
            })}
            <div class="mt-2">{action_error(grant)}</div>
        </li>
    }
}

/// "Add access": a dialog to pick one of the realm's resources the client cannot reach yet, and
/// the scopes to grant (none ticked: least privilege).
#[component]
fn AddAccessButton(
    client_id: StoredValue<String>,
    choices: Vec<AccessView>,
    refresh: Callback<()>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let picked = RwSignal::new(String::new());
    let selected = RwSignal::new(BTreeSet::<String>::new());
    let add = ServerAction::<AddAccess>::new();
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(a)) = add.value().get() {
            toasts.push(
                ToastKind::Success,
                format!(
                    "{} may get tokens for {} with {}.",
                    client_id.get_value(),
                    a.resource.display_name,
                    a.scopes.join(", ")
                ),
            );
            refresh.run(());
        }
    });
    let choices = StoredValue::new(choices);
    let scopes_of = move |slug: &str| {
        choices.with_value(|c| {
            c.iter()
                .find(|a| a.resource.slug == slug)
                .map(|a| (a.resource.display_name.clone(), split(&a.resource.scopes)))
        })
    };
    let reset = move || {
        picked.set(String::new());
        selected.set(BTreeSet::new());
    };
    view! {
        <button type="button" class=BTN_SMALL aria-haspopup="dialog" on:click=move |_| { reset(); open.set(true); }>"Add access"</button>
        <ConfirmDialog open danger=false start="add-access-resource"
            title=Signal::derive(move || format!("Add access for {}", client_id.get_value()))
            message=String::from("Tokens it gets for the resource carry at most the scopes you tick.")
            confirm_label=String::from("Grant access")
            confirm_disabled=Signal::derive(move || picked.with(String::is_empty) || selected.with(BTreeSet::is_empty))
            on_confirm=Callback::new(move |_| {
                add.dispatch(AddAccess {
                    client_id: client_id.get_value(),
                    resource: picked.get_untracked(),
                    scopes: selected.with(joined),
                });
            })
        >
            <label for="add-access-resource" class="mt-4 block text-sm font-medium text-slate-700 dark:text-slate-200">"Resource"</label>
            <select id="add-access-resource" class=format!("{INPUT} mt-1")
                on:change=move |ev| { picked.set(event_target_value(&ev)); selected.set(BTreeSet::new()); }>
                <option value="" selected=move || picked.with(String::is_empty)>"Choose a resource"</option>
                {choices.with_value(|c| c.iter().map(|a| {
                    let slug = a.resource.slug.clone();
                    let value = slug.clone();
                    view! {
                        <option value=value selected=move || picked.with(|p| *p == slug)>
                            {format!("{} ({})", a.resource.display_name, a.resource.uri)}
                        </option>
                    }
                }).collect_view())}
            </select>
            {move || {
                let slug = picked.get();
                scopes_of(&slug).map(|(name, scopes)| view! {
                    <ScopeChecks id=format!("add-access-{slug}") legend=format!("Scopes for {name}") scopes selected/>
                })
            }}
        </ConfirmDialog>
        {action_error(add)}
    }
}

/// The resources a client may get tokens for, with their scopes, changeable in place, and
/// "Add access" for the others.
///
/// `access` is loaded by the page itself (a resource created inside a suspended view would not
/// hydrate); bumping `reload` loads it again.
#[component]
pub fn ClientAccess(
    client_id: String,
    access: Resource<Result<Vec<AccessView>, AppError>>,
    reload: RwSignal<u32>,
) -> impl IntoView {
    let id = StoredValue::new(client_id);
    let heading = NodeRef::<leptos::html::H2>::new();
    // After a change the list is drawn again: focus goes to its heading, not to the page's top.
    let refresh = Callback::new(move |_| {
        reload.update(|n| *n += 1);
        if let Some(h) = heading.get_untracked() {
            let _ = h.focus();
        }
    });
    let manage = use_abilities().manage_clients;
    view! {
        <section class=format!("{CARD} mt-6") aria-labelledby="client-access-title" data-testid="client-access">
            <div class="flex flex-wrap items-start justify-between gap-2 border-b border-slate-200 px-4 py-4 sm:px-6 dark:border-slate-700">
                <div class="min-w-0 max-w-2xl">
                    <h2 id="client-access-title" tabindex="-1" node_ref=heading class="text-lg font-semibold text-slate-900 focus:outline-none dark:text-white">"Access"</h2>
                    <p class=format!("mt-1 {MUTED}")>"The resources this client may get tokens for on its own (client credentials), and the scopes those tokens may carry (when it acts for an agent, only those that are also the agent's roles). People can also let an app act for them, within each resource's policy: that shows under each person's Connected apps."</p>
                </div>
                <Transition fallback=|| ()>
                    {move || access.get().and_then(Result::ok).and_then(|list| {
                        let choices: Vec<AccessView> = list.into_iter().filter(|a| !a.granted).collect();
                        (manage && !choices.is_empty()).then(|| view! { <AddAccessButton client_id=id choices refresh/> })
                    })}
                </Transition>
            </div>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || access.get().map(|result| match result {
                    Ok(list) if list.is_empty() => view! {
                        <EmptyState title="No resources in this realm" hint="Register an MCP server on the Resources screen, then give this client access to it here."/>
                    }.into_any(),
                    Ok(list) if !list.iter().any(|a| a.granted) => view! {
                        <EmptyState title="No access yet" hint="A new client reaches nothing. Add access to a resource, with the scopes it needs."/>
                    }.into_any(),
                    Ok(list) => view! {
                        <ul class="divide-y divide-slate-200 dark:divide-slate-700">
                            {list.into_iter().filter(|a| a.granted).map(|access| view! { <AccessRow client_id=id.get_value() access refresh/> }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </section>
    }
}

/// One client on a resource's page: its scopes, changeable in place, and revoke.
#[component]
fn GrantRow(resource: ResourceView, grant: GrantView, refresh: Callback<()>) -> impl IntoView {
    let editing = RwSignal::new(false);
    let initial: BTreeSet<String> = grant.scopes.iter().cloned().collect();
    let selected = RwSignal::new(initial.clone());
    let save = ServerAction::<GrantAccess>::new();
    let revoke = ServerAction::<RevokeAccess>::new();
    on_granted(save, grant.client_id.clone(), refresh);
    on_revoked(revoke, refresh);
    let (client, slug) = (
        StoredValue::new(grant.client_id.clone()),
        StoredValue::new(resource.slug.clone()),
    );
    let all = split(&resource.scopes);
    let resource_name = resource.display_name.clone();
    let manage = use_abilities().manage_clients;
    let effective = grant.scopes.len();
    let before = StoredValue::new(initial.clone());
    let rname = StoredValue::new(resource_name.clone());
    let narrowing = RwSignal::new(false);
    let gone = Signal::derive(move || before.with_value(|b| selected.with(|s| removed(b, s))));
    let submit = move || {
        save.dispatch(GrantAccess {
            client_id: client.get_value(),
            resource: slug.get_value(),
            scopes: selected.with(joined),
        });
    };
    let agent_limits = !grant.agent.is_empty() && grant.token_scopes != grant.scopes;
    view! {
        <li class="px-4 py-4 sm:px-6" data-testid="grant-row">
            <div class="flex flex-wrap items-start justify-between gap-2">
                <div class="min-w-0">
                    <a href=format!("/clients/{}", grant.client_id) class="font-medium text-indigo-700 break-all hover:underline dark:text-indigo-300">{grant.name.clone()}</a>
                    <div class=format!("{MONO} text-slate-500 dark:text-slate-400")>{grant.client_id.clone()}</div>
                    {(!grant.agent.is_empty()).then(|| view! {
                        <div class="mt-1 text-xs text-slate-600 dark:text-slate-300" data-testid="grant-agent">
                            "Acts for agent " <a class="font-mono break-all text-indigo-700 hover:underline dark:text-indigo-300" href=format!("/agents/{}", grant.agent)>{grant.agent.clone()}</a>
                        </div>
                    })}
                </div>
                <div class="flex flex-wrap items-center gap-2">
                    <LastToken at=grant.last_used_at.clone() words=grant.last_used.clone()/>
                    <Badge ok=grant.enabled text=if grant.enabled { "Enabled" } else { "Client disabled" }/>
                </div>
            </div>
            <Show when=move || !editing.get() fallback=move || view! {
                <ScopeChecks id=format!("grant-{}", client.get_value()) legend=format!("Scopes for {}", client.get_value()) scopes=all.clone() selected/>
            }>
                <ScopeList scopes=grant.scopes.clone()/>
            </Show>
            <Lapsed scopes=grant.lapsed.clone() effective=effective/>
            {agent_limits.then(|| view! {
                <p class="mt-2 text-xs text-amber-800 dark:text-amber-300" data-testid="token-scopes">
                    {if grant.token_scopes.is_empty() {
                        format!("Its tokens carry none of these: agent {} holds none of them as a role.", grant.agent)
                    } else {
                        format!("Its tokens carry only {} (the agent's roles limit them).", grant.token_scopes.join(" "))
                    }}
                </p>
            })}
            {manage.then(|| view! {
            <div class="mt-3 flex flex-wrap gap-2">
                <Show when=move || editing.get() fallback=move || view! {
                    <button type="button" class=BTN_SMALL on:click=move |_| editing.set(true)>"Change scopes"</button>
                }>
                    <button type="button" class=BTN_SMALL
                        disabled=move || selected.with(BTreeSet::is_empty) || save.pending().get()
                        on:click=move |_| if gone.with(Vec::is_empty) { submit() } else { narrowing.set(true) }>"Save scopes"</button>
                    <NarrowDialog open=narrowing client resource=rname.get_value() gone on_confirm=Callback::new(move |_| submit())/>
                    <button type="button" class=BTN_SMALL on:click={
                        let initial = initial.clone();
                        move |_| { selected.set(initial.clone()); editing.set(false); }
                    }>"Cancel"</button>
                </Show>
                <ConfirmButton
                    label="Revoke"
                    title=format!("Revoke {}'s access to {resource_name}?", grant.client_id)
                    message=crate::components::layout::with_revocation_note("It gets no new tokens for this resource, and servers that introspect see its current tokens for it as inactive.")
                    confirm_label="Revoke access"
                    class=BTN_SMALL_DANGER
                    on_confirm=Callback::new(move |_| { revoke.dispatch(RevokeAccess { client_id: client.get_value(), resource: slug.get_value() }); })
                />
            </div>
            })}
            <div class="mt-2">{action_error(save)}</div>
        </li>
    }
}

/// Grants one more client access to the resource.
#[component]
fn GrantForm(resource: ResourceView, refresh: Callback<()>) -> impl IntoView {
    let all = split(&resource.scopes);
    let selected = RwSignal::new(BTreeSet::<String>::new());
    let client_id = RwSignal::new(String::new());
    let on_pick = Callback::new(move |c: ClientChoiceView| client_id.set(c.client_id));
    let grant = ServerAction::<AddAccess>::new();
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(a)) = grant.value().get() {
            toasts.push(
                ToastKind::Success,
                format!(
                    "{} may get tokens for {} with {}.",
                    client_id.get_untracked(),
                    a.resource.display_name,
                    a.scopes.join(", ")
                ),
            );
            client_id.set(String::new());
            selected.set(BTreeSet::new());
            refresh.run(());
        }
    });
    let slug = StoredValue::new(resource.slug.clone());
    view! {
        <div class="border-b border-slate-200 px-4 py-4 sm:px-6 dark:border-slate-700">
            <h3 class="text-sm font-semibold text-slate-900 dark:text-white">"Grant a client"</h3>
            <div class="mt-2">
                <ClientPicker id="grant-client" label="Client" on_pick/>
                <p class=format!("mt-2 text-sm {MUTED}") data-testid="grant-picked">
                    {move || if client_id.with(String::is_empty) {
                        "Pick a client, then the scopes it may get.".to_owned()
                    } else {
                        format!("Granting {}", client_id.get())
                    }}
                </p>
            </div>
            <ScopeChecks id="grant-new".to_owned() legend="Scopes to grant" scopes=all selected/>
            <button type="button" class=format!("mt-3 {BTN_PRIMARY}")
                disabled=move || client_id.with(|c| c.trim().is_empty()) || selected.with(BTreeSet::is_empty) || grant.pending().get()
                on:click=move |_| { grant.dispatch(AddAccess { client_id: client_id.get().trim().to_owned(), resource: slug.get_value(), scopes: selected.with(joined) }); }>"Grant access"</button>
            <div class="mt-2">{action_error(grant)}</div>
        </div>
    }
}

/// The clients that may get tokens for a resource: search, page, grant, change, revoke.
///
/// `grants` is loaded by the page (see [`ClientAccess`]) for the search `q`.
#[component]
pub fn ResourceClients(
    resource: ResourceView,
    grants: Resource<Result<GrantPage, AppError>>,
    q: Memo<String>,
    reload: RwSignal<u32>,
) -> impl IntoView {
    let slug = StoredValue::new(resource.slug.clone());
    let refresh = Callback::new(move |_| reload.update(|n| *n += 1));
    let r = StoredValue::new(resource.clone());
    view! {
        <section class=format!("{CARD} mt-6") aria-labelledby="resource-clients-title" data-testid="resource-clients">
            <div class="border-b border-slate-200 px-4 py-4 sm:px-6 dark:border-slate-700">
                <h2 id="resource-clients-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Clients with access"</h2>
                <p class=format!("mt-1 {MUTED}")>"Only these clients get machine tokens (client credentials) for this resource, each with at most the scopes shown; what people let apps do is under Who may get tokens."</p>
            </div>
            {use_abilities().manage_clients.then(|| view! { <GrantForm resource refresh/> })}
            <Form method="GET" action="" attr:class="flex gap-2 border-b border-slate-200 px-4 py-3 sm:px-6 dark:border-slate-700" attr:role="search">
                <label class="sr-only" for="grant-search">"Search clients with access"</label>
                <input class=INPUT id="grant-search" name="q" type="search" placeholder="Search by client_id or name" prop:value=move || q.get()/>
                <button type="submit" class=BTN_SECONDARY>"Search"</button>
            </Form>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || grants.get().map(|result| match result {
                    Ok(found) if found.items.is_empty() && q.get().is_empty() => view! {
                        <EmptyState title="No client has access yet" hint="Until a client is granted access, no token is issued for this resource."/>
                    }.into_any(),
                    Ok(found) if found.items.is_empty() => view! {
                        <EmptyState title="No client with access matches" hint="Try another search."/>
                    }.into_any(),
                    Ok(found) => {
                        let q = q.get();
                        let path = format!("/resources/{}", slug.get_value());
                        let shown = found.items.len();
                        view! {
                            <ul class="divide-y divide-slate-200 dark:divide-slate-700">
                                {found.items.into_iter().map(|grant| view! { <GrantRow resource=r.get_value() grant refresh/> }).collect_view()}
                            </ul>
                            <KeyPager total=found.total before=found.before shown prev=found.prev next=found.next
                                href=move |key| with_query(&path, &[("q", q.clone())].into_iter().chain(key).collect::<Vec<_>>())/>
                        }.into_any()
                    }
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </section>
    }
}
