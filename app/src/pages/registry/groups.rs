//! Rings (rollout stages) and units (parts of the organisation): the draft's mode and groups,
//! and who is in each.
use super::RegistryTabs;
use crate::api::registry::{
    AddRegistryMember, RemoveRegistryMember, SaveRegistryGroups, registry_group_counts,
    registry_members, registry_overview,
};
use crate::components::confirm::ConfirmButton;
use crate::components::field::{Field, FieldError, FieldErrors, Kind};
use crate::components::layout::use_abilities;
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::registry::{GroupView, RegistryView};
use leptos::prelude::*;

const GROUP_FIELDS: &[(&str, &str)] = &[("mode", "mode"), ("rings", "rings"), ("units", "units")];
const MEMBER_FIELDS: &[(&str, &str)] = &[("member_kind", "member_kind"), ("member", "member")];

/// The Rings & units screen.
#[component]
pub fn GroupsPage() -> impl IntoView {
    let save = ServerAction::<SaveRegistryGroups>::new();
    let saved = successes(save);
    let registry = Resource::new(move || saved.get(), |_| registry_overview());
    let counts = Resource::new(|| (), |()| registry_group_counts());
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(_)) = save.value().get() {
            toasts.push(
                ToastKind::Success,
                "Rings and units saved to the draft (publish to deliver them).",
            );
        }
    });
    view! {
        <PageHeader title="Rings & units" description="Rings are rollout stages (canary, everyone); units are parts of the organisation. A server goes to the members of its rings and units; members of a unit also get what the units above it get. Rings and units are part of the draft; who is in them is not: a membership applies at once, and laptops get it with their next pull."/>
        <RegistryTabs current="/registry/groups"/>
        <Transition fallback=|| view! { <Loading/> }>
            {move || registry.get().map(|result| match result {
                Ok(r) => {
                    let counts = counts.get().and_then(Result::ok).unwrap_or_default();
                    view! { <GroupsForm r=r.clone() save/> <GroupList r counts/> }.into_any()
                }
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}

#[component]
fn GroupsForm(r: RegistryView, save: ServerAction<SaveRegistryGroups>) -> impl IntoView {
    let can = use_abilities();
    let errors = FieldErrors::new(save, "registry-groups", GROUP_FIELDS);
    let paths: Vec<String> = super::unit_paths(&r.units)
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    let mode = r.mode.clone();
    view! {
        <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby="groups-title">
            <h2 id="groups-title" class="text-lg font-semibold text-slate-900 dark:text-white">"The draft's mode, rings and units"</h2>
            {if can.manage_registry {
                view! {
                    <ActionForm action=save attr:id="registry-groups" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                        <input type="hidden" name="revision" value=r.revision.to_string()/>
                        <div class="sm:col-span-2">
                            <label class=LABEL for="registry-mode">"Mode"</label>
                            <select id="registry-mode" name="mode" class=format!("mt-1 {INPUT}") aria-invalid=errors.invalid("mode")>
                                <option value="allowlist" selected=mode == "allowlist">"Allowlist: only approved servers run (managed configs block the rest)"</option>
                                <option value="warn" selected=mode == "warn">"Warn: others run, and drift reports them"</option>
                            </select>
                            <FieldError errors name="mode"/>
                        </div>
                        <Field errors name="rings" id="registry-rings" label="Rings" kind=Kind::Lines(4) mono=true value=r.rings.join("\n")
                            placeholder="canary\neveryone" help="One per line: lowercase letters, digits and '-'."/>
                        <Field errors name="units" id="registry-units" label="Units" kind=Kind::Lines(4) mono=true value=paths.join("\n")
                            placeholder="engineering\nengineering/platform" help="One per line, as a path from the top: parent/child (the parent on an earlier line)."/>
                        <div class="sm:col-span-2">{errors.form_error()}</div>
                        <div class="sm:col-span-2"><button type="submit" class=BTN_PRIMARY disabled=move || save.pending().get()>"Save to draft"</button></div>
                    </ActionForm>
                }.into_any()
            } else {
                view! { <p class="mt-2 text-sm">{format!("Mode: {}.", r.mode)}</p> }.into_any()
            }}
        </section>
    }
}

#[component]
fn GroupList(r: RegistryView, counts: Vec<GroupView>) -> impl IntoView {
    let count = |kind: &str, id: &str| {
        counts
            .iter()
            .find(|g| g.kind == kind && g.id == id)
            .map_or(0, |g| g.members)
    };
    let servers = |kind: &str, id: &str| {
        r.servers
            .iter()
            .filter(|s| {
                if kind == "ring" {
                    s.rings.iter().any(|x| x == id)
                } else {
                    s.units.iter().any(|x| x == id)
                }
            })
            .count()
    };
    let rows: Vec<(String, String, String, u64, usize)> = r
        .rings
        .iter()
        .map(|id| {
            (
                "ring".to_owned(),
                id.clone(),
                id.clone(),
                count("ring", id),
                servers("ring", id),
            )
        })
        .chain(super::unit_paths(&r.units).into_iter().map(|(id, path)| {
            let (c, s) = (count("unit", &id), servers("unit", &id));
            ("unit".to_owned(), id, path, c, s)
        }))
        .collect();
    view! {
        <section class=format!("{CARD} mt-6") aria-labelledby="members-title">
            <h2 id="members-title" class="border-b border-slate-200 px-4 py-4 text-lg font-semibold text-slate-900 sm:px-6 dark:border-slate-700 dark:text-white">"Members"</h2>
            {if rows.is_empty() {
                view! { <EmptyState title="No rings or units yet" hint="Add them above, then put people, console users and agents in them."/> }.into_any()
            } else {
                view! {
                    <ul class="divide-y divide-slate-200 dark:divide-slate-700">
                        {rows.into_iter().map(|(kind, id, path, members, servers)| view! { <GroupRow kind id path members servers/> }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
    }
}

#[component]
fn GroupRow(kind: String, id: String, path: String, members: u64, servers: usize) -> impl IntoView {
    let can = use_abilities();
    let open = RwSignal::new(false);
    let add = ServerAction::<AddRegistryMember>::new();
    let remove = ServerAction::<RemoveRegistryMember>::new();
    let errors = FieldErrors::new(add, "", MEMBER_FIELDS);
    let toasts = use_toasts();
    Effect::new(move |_| match remove.value().get() {
        Some(Ok(())) => toasts.push(ToastKind::Success, "Member removed."),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    let (k, i) = (kind.clone(), id.clone());
    // Loaded in the browser once the row is opened: a row is built inside the page's suspended
    // list, where a (server) resource would not hydrate.
    let list = LocalResource::new(move || {
        let (o, _, _) = (open.get(), add.version().get(), remove.version().get());
        let (k, i) = (k.clone(), i.clone());
        async move {
            if o {
                Some(registry_members(k, i).await)
            } else {
                None
            }
        }
    });
    let label = format!("{kind} {path}");
    let stored = StoredValue::new((kind.clone(), id.clone()));
    // The input empties after a member is added.
    let member = RwSignal::new(String::new());
    Effect::new(move |_| {
        if let Some(Ok(())) = add.value().get() {
            member.set(String::new());
        }
    });
    // The count follows the list once it was opened (effects run in the browser only).
    let loaded = RwSignal::new(None::<u64>);
    Effect::new(move |_| {
        if let Some(Some(Ok(rows))) = list.get() {
            loaded.set(Some(rows.len() as u64));
        }
    });
    let shown_members = move || loaded.get().unwrap_or(members);
    view! {
        <li class="px-4 py-3 sm:px-6" data-testid="group-row">
            <div class="flex flex-wrap items-center justify-between gap-2">
                <div class="min-w-0">
                    <span class="text-xs uppercase tracking-wide text-slate-500 dark:text-slate-400">{kind.clone()}</span>
                    " " <span class="font-mono text-sm font-medium break-all">{path.clone()}</span>
                    <p class=MUTED>{move || { let members = shown_members(); format!("{members} member{} · {servers} server{}", if members == 1 { "" } else { "s" }, if servers == 1 { "" } else { "s" }) }}</p>
                </div>
                {can.view_people.then(|| view! {
                    <button type="button" class=BTN_SMALL aria-label=format!("Members of {kind} {path}") aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|o| *o = !*o)>
                        {move || if open.get() { "Hide members" } else { "Members" }}
                    </button>
                })}
            </div>
            <Show when=move || open.get()>
                <div class="mt-3 space-y-3">
                    {move || list.get().flatten().map(|result| match result {
                        Ok(rows) if rows.is_empty() => view! { <p class=MUTED>"Nobody yet."</p> }.into_any(),
                        Ok(rows) => view! {
                            <ul class="divide-y divide-slate-100 rounded-md border border-slate-200 dark:divide-slate-800 dark:border-slate-700">
                                {rows.into_iter().map(|m| {
                                    let (kind, id) = stored.get_value();
                                    let (member_kind, member) = (m.kind.clone(), m.name.clone());
                                    view! {
                                        <li class="flex flex-wrap items-center justify-between gap-2 px-3 py-2 text-sm" data-testid="member-row">
                                            <span class="min-w-0 break-all"><span class="text-xs text-slate-500 dark:text-slate-400">{m.kind.clone()}</span>" "{m.name.clone()}</span>
                                            <span class=MUTED>"added " <When at=m.added.at.clone() words=m.added.ago.clone()/></span>
                                            {can.manage_registry.then(|| view! {
                                                <ConfirmButton label="Remove" title=format!("Remove {member} from {kind} {id}?") class=BTN_SMALL_DANGER
                                                    message="They stop getting its servers with their next pull." confirm_label="Remove"
                                                    on_confirm=Callback::new(move |()| { remove.dispatch(RemoveRegistryMember { kind: kind.clone(), id: id.clone(), member_kind: member_kind.clone(), member: member.clone() }); })/>
                                            })}
                                        </li>
                                    }
                                }).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(error) => view! { <ErrorMessage error/> }.into_any(),
                    })}
                    {can.manage_registry.then(|| {
                        let (kind, id) = stored.get_value();
                        view! {
                            <ActionForm action=add attr:class="grid gap-3 sm:grid-cols-[10rem_1fr_auto] sm:items-end" on:input=move |_| errors.clear()>
                                <input type="hidden" name="kind" value=kind.clone()/>
                                <input type="hidden" name="id" value=id.clone()/>
                                <div>
                                    <label class=LABEL for=format!("member-kind-{kind}-{id}")>"Kind"</label>
                                    <select id=format!("member-kind-{kind}-{id}") name="member_kind" class=format!("mt-1 {INPUT}")>
                                        <option value="person">"Person"</option>
                                        <option value="user">"Console user"</option>
                                        <option value="agent">"Agent"</option>
                                    </select>
                                </div>
                                <Field errors name="member" id=format!("member-{kind}-{id}") label="Email or agent name" required=true maxlength=320 bind=member
                                    help="A person of this realm (People), a console user by sign-in email, or an agent by name."/>
                                <button type="submit" class=BTN_PRIMARY disabled=move || add.pending().get()>"Add"</button>
                                <div class="sm:col-span-3">{errors.form_error()}</div>
                            </ActionForm>
                        }
                    })}
                </div>
            </Show>
            <span class="sr-only">{label}</span>
        </li>
    }
}
