//! A realm's people: who signs in at its authorization endpoint so that MCP clients act for
//! them.
//!
//! The list searches and creates; each person's page edits their name and roles, sets a
//! password, disables them (confirmed) and shows the apps they connected, each revocable.
use crate::api::audit::history;
use crate::api::federation::{LinkPersonIdentity, UnlinkPersonIdentity, person_identities};
use crate::api::people::{
    CreatePerson, RevokeConnectedApp, SetPersonDisabled, SetPersonPassword, UpdatePerson,
    connected_apps, get_person, list_people,
};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyObjectLink;
use crate::components::field::{Field, FieldErrors, Kind, PASSWORD_FIELDS, PasswordFields};
use crate::components::history::History;
use crate::components::pager::{KeyPager, use_key_params, with_query};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::people::{ConnectedAppView, PersonView};
use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

fn person_status(p: &PersonView) -> &'static str {
    if p.disabled {
        "Disabled"
    } else if p.provider_disabled {
        "Provider disabled"
    } else if p.provider.is_some() {
        "Through a sign-in provider"
    } else if p.has_password {
        "Active"
    } else if p.linked {
        "Through an identity provider"
    } else {
        "No password"
    }
}

fn status_tone(status: &str) -> Tone {
    match status {
        "Active" | "Through an identity provider" | "Through a sign-in provider" => Tone::Good,
        "No password" => Tone::Warn,
        _ => Tone::Off,
    }
}

/// The registry rings and units a person is in (what reaches their laptop).
#[component]
fn PersonGroups(email: String) -> impl IntoView {
    let groups = Resource::new(move || email.clone(), crate::api::people::person_groups);
    view! {
        <div class="sm:col-span-3">
            <dt class=MUTED>"Registry rings and units"</dt>
            <dd class="break-words" data-testid="person-groups">
                <Transition fallback=|| "…">
                    {move || groups.get().map(|r| match r {
                        Ok(list) if list.is_empty() => "None: no registry server is given to them.".to_owned(),
                        Ok(list) => list.join(", "),
                        Err(e) => e.to_string(),
                    })}
                </Transition>
            </dd>
        </div>
    }
}

/// The apps people let act for them, each with a confirmed Disconnect.
#[component]
pub fn ConnectedAppList(
    apps: Vec<ConnectedAppView>,
    revoke: Callback<String>,
    #[prop(optional)] whose: Option<&'static str>,
) -> impl IntoView {
    if apps.is_empty() {
        return view! {
            <EmptyState title="No connected apps" hint="When someone lets an MCP client act for them at a resource, it appears here."/>
        }
        .into_any();
    }
    let whose = whose.unwrap_or("their");
    view! {
        <ul class="divide-y divide-slate-200 dark:divide-slate-700" data-testid="connected-apps">
            {apps.into_iter().map(|a| {
                let id = StoredValue::new(a.id.clone());
                let scopes = if a.scopes.is_empty() { "no scopes".to_owned() } else { a.scopes.join(" ") };
                view! {
                    <li class="flex flex-col gap-3 p-4 sm:flex-row sm:items-start sm:justify-between" data-testid="connected-app">
                        <div class="min-w-0 space-y-1">
                            <p class="break-words font-medium text-slate-900 dark:text-white">{a.client_name.clone()}
                                <span class=format!("ml-2 {MONO} text-slate-500 dark:text-slate-400")>{a.client_id.clone()}</span></p>
                            <p class="break-words text-sm">"At " {a.resource_name.clone()} <span class=format!("ml-1 {MONO} text-slate-500 dark:text-slate-400")>{a.resource_uri.clone()}</span></p>
                            <p class=format!("{MUTED} break-words")>{scopes}{a.offline.then_some(" · stays connected")}</p>
                            <p class=MUTED>"Agreed " <When at=a.updated.at.clone() words=a.updated.ago.clone()/>
                                {a.last_used.clone().map(|m| view! { " · last refreshed " <When at=m.at words=m.ago/> })}</p>
                        </div>
                        <ConfirmButton label="Disconnect" title=format!("Disconnect {}?", a.client_name)
                            message=crate::components::layout::with_revocation_note(&format!("It can no longer act for {whose} account at {}: its refresh tokens are revoked at once, servers that introspect refuse its access tokens, and it has to ask again to reconnect.", a.resource_name))
                            confirm_label="Disconnect" class=BTN_SMALL_DANGER
                            on_confirm=Callback::new(move |_| revoke.run(id.get_value()))/>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
    .into_any()
}

#[component]
fn CreatePersonForm(action: ServerAction<CreatePerson>, on_cancel: Callback<()>) -> impl IntoView {
    const FIELDS: &[(&str, &str)] = &[
        ("email", "email"),
        ("display_name", "display_name"),
        ("roles", "roles"),
        ("password", "password"),
        ("confirm", "confirm"),
    ];
    let errors = FieldErrors::new(action, "new-person", FIELDS);
    view! {
        <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-person-title">
            <h2 id="new-person-title" class="text-lg font-semibold text-slate-900 dark:text-white">"New person"</h2>
            <p class=MUTED>"They sign in at this realm's authorization endpoint when an MCP client asks to act for them. Without a password they cannot sign in until you set one."</p>
            <ActionForm action=action attr:id="new-person" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                <Field errors name="email" id="new-person-email" label="Email" kind=Kind::Email required=true maxlength=254 autocomplete="off"/>
                <Field errors name="display_name" id="new-person-name" label="Name" maxlength=100 autocomplete="off" placeholder="Defaults to the email".to_owned()/>
                <div class="sm:col-span-2">
                    <Field errors name="roles" id="new-person-roles" label="Roles" maxlength=1000 autocomplete="off" placeholder="e.g. finance support".to_owned()/>
                    <p class=format!("mt-1 {MUTED}")>"Space-separated names a resource may require of the people who use it."</p>
                </div>
                <Field errors name="password" id="new-person-password" label="Password (optional)" kind=Kind::Password maxlength=256 autocomplete="new-password"/>
                <Field errors name="confirm" id="new-person-confirm" label="Repeat password" kind=Kind::Password maxlength=256 autocomplete="new-password"/>
                <div class="sm:col-span-2">{errors.form_error()}</div>
                <div class="flex gap-2 sm:col-span-2">
                    <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Add person"</button>
                    <button type="button" class=BTN_SECONDARY on:click=move |_| on_cancel.run(())>"Cancel"</button>
                </div>
            </ActionForm>
        </section>
    }
}

/// The People screen of the selected realm.
#[component]
pub fn PeoplePage() -> impl IntoView {
    let can = crate::components::layout::use_abilities();
    let query = use_query_map();
    let q = Memo::new(move |_| query.with(|m| m.get("q").unwrap_or_default()));
    let page = use_key_params();
    let create = ServerAction::<CreatePerson>::new();
    let created = successes(create);
    let people = Resource::new(
        move || (q.get(), page.get(), created.get()),
        |(q, (after, before), _)| list_people(q, after, before),
    );
    let show_create = RwSignal::new(false);
    crate::components::field::focus_first_when(show_create, "new-person");
    let toasts = use_toasts();
    let navigate = leptos_router::hooks::use_navigate();
    // A new person opens on their page (roles, password, connected apps).
    Effect::new(move |_| {
        if let Some(Ok(p)) = create.value().get() {
            toasts.push(ToastKind::Success, format!("{} added.", p.email));
            show_create.set(false);
            navigate(&format!("/people/{}", p.id), Default::default());
        }
    });
    view! {
        <PageHeader title="People" description="Who signs in at this realm's authorization endpoint, so that MCP clients can act for them. Console accounts are separate (they may also sign in here in the default realm).">
            {can.manage_people.then(|| view! { <button type="button" class=BTN_PRIMARY on:click=move |_| show_create.set(true)>"New person"</button> })}
        </PageHeader>
        <Show when=move || show_create.get()>
            <CreatePersonForm action=create on_cancel=Callback::new(move |_| show_create.set(false))/>
        </Show>
        <div class=CARD>
            <Form method="GET" action="" attr:class="flex gap-2 border-b border-slate-200 p-4 dark:border-slate-700" attr:role="search">
                <label class="sr-only" for="person-search">"Search people"</label>
                <input class=INPUT id="person-search" name="q" type="search" placeholder="Search by email or name" prop:value=move || q.get()/>
                <button type="submit" class=BTN_SECONDARY>"Search"</button>
            </Form>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || people.get().map(|result| match result {
                    Ok(found) if found.items.is_empty() => view! {
                        <EmptyState title="No people found" hint="Add the people who will let MCP clients act for them, or try another search."/>
                    }.into_any(),
                    Ok(found) => {
                        let q = q.get();
                        let shown = found.items.len();
                        view! {
                            <table class=CARDS_TABLE>
                                <thead class=CARDS_HEAD>
                                    <tr>
                                        <th class=TH scope="col">"Person"</th>
                                        <th class=TH scope="col">"Roles"</th>
                                        <th class=TH scope="col">"Status"</th>
                                    </tr>
                                </thead>
                                <tbody class=CARDS_BODY>
                                    {found.items.into_iter().map(|p| {
                                        let status = person_status(&p);
                                        view! {
                                            <tr data-testid="person-row" class=CARDS_ROW>
                                                <td class=CARDS_CELL>
                                                    <a class="font-medium text-indigo-700 break-words hover:underline dark:text-indigo-300" href=format!("/people/{}", p.id)>{p.display_name.clone()}</a>
                                                    <div class=format!("{MUTED} break-all")>{p.email.clone()}</div>
                                                    {p.provider.clone().map(|name| view! { <div class=format!("{MUTED} break-words text-xs") data-testid="person-provider">"From " {name}</div> })}
                                                </td>
                                                <td class=format!("{CARDS_CELL_NEXT} break-words")><CellLabel text="Roles"/>{if p.roles.is_empty() { "—".to_owned() } else { p.roles.clone() }}</td>
                                                <td class=CARDS_CELL_NEXT><Pill tone=status_tone(status) text=status/></td>
                                            </tr>
                                        }
                                    }).collect_view()}
                                </tbody>
                            </table>
                            <KeyPager total=found.total before=found.before shown prev=found.prev next=found.next
                                href=move |key| with_query("/people", &[("q", q.clone())].into_iter().chain(key).collect::<Vec<_>>())/>
                        }.into_any()
                    }
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </div>
    }
}

/// One person: name and roles, password, status, connected apps, history.
#[component]
pub fn PersonDetailPage() -> impl IntoView {
    let can = crate::components::layout::use_abilities();
    let params = leptos_router::hooks::use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let update = ServerAction::<UpdatePerson>::new();
    let password = ServerAction::<SetPersonPassword>::new();
    let disable = ServerAction::<SetPersonDisabled>::new();
    let revoke = ServerAction::<RevokeConnectedApp>::new();
    let unlink = ServerAction::<UnlinkPersonIdentity>::new();
    let link = ServerAction::<LinkPersonIdentity>::new();
    let unlinked = successes(unlink);
    let linked = successes(link);
    let (updated, toggled, revoked, passworded) = (
        successes(update),
        successes(disable),
        successes(revoke),
        successes(password),
    );
    let person = Resource::new(
        move || {
            (
                id.get(),
                updated.get(),
                toggled.get(),
                passworded.get(),
                linked.get(),
                unlinked.get(),
            )
        },
        |(id, ..)| get_person(id),
    );
    let apps = Resource::new(
        move || (id.get(), toggled.get(), revoked.get()),
        |(id, ..)| connected_apps(id),
    );
    let identities = Resource::new(
        move || (id.get(), unlinked.get(), linked.get()),
        |(id, ..)| person_identities(id),
    );
    let events = Resource::new(
        move || {
            (
                id.get(),
                updated.get(),
                toggled.get(),
                revoked.get(),
                passworded.get(),
                unlinked.get(),
                linked.get(),
            )
        },
        |(id, ..)| history("person".to_owned(), id),
    );
    let toasts = use_toasts();
    let update_errors = FieldErrors::new(
        update,
        "person-settings",
        &[("display_name", "display_name"), ("roles", "roles")],
    );
    let password_errors = FieldErrors::new(password, "person-password", PASSWORD_FIELDS);
    let password_form = NodeRef::<leptos::html::Form>::new();
    Effect::new(move |_| {
        if let Some(Ok(_)) = update.value().get() {
            toasts.push(ToastKind::Success, "Saved.");
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(())) = password.value().get() {
            toasts.push(ToastKind::Success, "Password set.");
            if let Some(f) = password_form.get() {
                f.reset();
            }
        }
    });
    Effect::new(move |_| match disable.value().get() {
        Some(Ok(())) => toasts.push(ToastKind::Success, "Done."),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    let disconnected = StoredValue::new(crate::components::layout::with_revocation_note(
        "Disconnected: the app's refresh tokens stopped working, and servers that introspect refuse its access tokens now.",
    ));
    Effect::new(move |_| {
        match unlink.value().get() {
        Some(Ok(())) => toasts.push(ToastKind::Success, "Unlinked: that identity no longer signs in as them, and the tokens it bought are revoked."),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    }
    });
    Effect::new(move |_| match revoke.value().get() {
        Some(Ok(())) => toasts.push(ToastKind::Success, disconnected.get_value()),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    view! {
        <div class="flex flex-wrap items-center justify-between gap-2">
            <a href="/people" class="text-sm text-indigo-600 hover:underline dark:text-indigo-300">"← People"</a>
            {move || view! { <CopyObjectLink kind="people" id=id.get() what="this person"/> }}
        </div>
        <Transition fallback=|| view! { <Loading/> }>
            {move || person.get().map(|result| match result {
                Ok(p) => {
                    let pid = StoredValue::new(p.id.clone());
                    let status = person_status(&p);
                    view! {
                        <div class="mt-2 mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
                            <div class="min-w-0">
                                <h1 class=format!("{H1} break-words")>{p.display_name.clone()}</h1>
                                <p class=format!("{MUTED} break-all")>{p.email.clone()}</p>
                            </div>
                            {can.manage_people.then(|| if p.disabled {
                                view! { <button type="button" class=BTN_SMALL on:click=move |_| { disable.dispatch(SetPersonDisabled { id: pid.get_value(), disabled: false }); }>"Enable"</button> }.into_any()
                            } else {
                                view! {
                                    <ConfirmButton label="Disable" title=format!("Disable {}?", p.email)
                                        message="They are signed out of this realm at once and cannot sign in; every token their apps hold stops working. Enabling them again does not bring those tokens back."
                                        confirm_label="Disable person" class=BTN_SMALL_DANGER
                                        on_confirm=Callback::new(move |_| { disable.dispatch(SetPersonDisabled { id: pid.get_value(), disabled: true }); })/>
                                }.into_any()
                            })}
                        </div>
                        <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby="person-settings-title">
                            <h2 id="person-settings-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Person"</h2>
                            <dl class="mt-4 grid gap-4 text-sm sm:grid-cols-3" data-testid="person-detail">
                                <div><dt class=MUTED>"Status"</dt><dd><Pill tone=status_tone(status) text=status/></dd></div>
                                <div><dt class=MUTED>"Subject (sub) of their tokens"</dt><dd class=MONO>{p.id.clone()}</dd></div>
                                <div><dt class=MUTED>"Added"</dt><dd><When at=p.created.at.clone() words=p.created.ago.clone()/></dd></div>
                                {p.provider.clone().map(|name| view! {
                                    <div class="sm:col-span-3"><dt class=MUTED>"Comes from"</dt><dd class="break-words" data-testid="person-provider">{name}
                                        {p.provider_disabled.then_some(" (disabled: they cannot sign in or refresh until it is enabled again)")}
                                        <span class=MUTED>" — their roles, units and rings follow its groups at each sign-in."</span></dd></div>
                                })}
                                {can.view_registry.then(|| view! { <PersonGroups email=p.email.clone()/> })}
                            </dl>
                            {can.view_registry.then(|| view! {
                                <p class="mt-3 text-sm"><a class="text-indigo-700 hover:underline dark:text-indigo-300" href=with_query("/registry/drift", &[("subject", p.id.clone()), ("who", p.email.clone())])>"Their laptops' drift reports"</a></p>
                            })}
                            {can.manage_people.then(|| view! {
                                <ActionForm action=update attr:id="person-settings" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| update_errors.clear()>
                                    <input type="hidden" name="id" value=pid.get_value()/>
                                    <Field errors=update_errors name="display_name" id="person-name" label="Name" required=true maxlength=100 value=p.display_name.clone()/>
                                    {if p.provider.is_some() {
                                        view! { <Field errors=update_errors name="roles" id="person-roles" label="Roles" maxlength=1000 value=p.roles.clone()
                                            help="Roles the sign-in provider's group mapping names are set again at each of their sign-ins; others stay as you set them."/> }.into_any()
                                    } else {
                                        view! { <Field errors=update_errors name="roles" id="person-roles" label="Roles" maxlength=1000 value=p.roles.clone()/> }.into_any()
                                    }}
                                    <div class="sm:col-span-2">{update_errors.form_error()}</div>
                                    <div class="sm:col-span-2"><button type="submit" class=BTN_PRIMARY disabled=move || update.pending().get()>"Save"</button></div>
                                </ActionForm>
                            })}
                        </section>
                        {can.manage_people.then(|| view! {
                            <section class=format!("{CARD} mt-6 p-4 sm:p-6") aria-labelledby="person-password-title">
                                <h2 id="person-password-title" class="text-lg font-semibold text-slate-900 dark:text-white">{if p.has_password { "Set a new password" } else { "Set a password" }}</h2>
                                <p class=MUTED>"Give it to them over a trusted channel. Their current sign-ins end, and the apps they connected must be allowed again."</p>
                                <ActionForm action=password node_ref=password_form attr:id="person-password" attr:class="mt-4 max-w-lg space-y-4" on:input=move |_| password_errors.clear()>
                                    <input type="hidden" name="id" value=pid.get_value()/>
                                    <PasswordFields errors=password_errors label="Password" confirm_label="Repeat password"/>
                                    {password_errors.form_error()}
                                    <button type="submit" class=BTN_PRIMARY disabled=move || password.pending().get()>"Set password"</button>
                                </ActionForm>
                            </section>
                        })}
                        <Transition fallback=|| ()>
                            {move || identities.get().map(|r| match r {
                                Ok(v) if v.links.is_empty() && (v.providers.is_empty() || !can.manage_people) => ().into_any(),
                                Ok(v) => view! { <LinkedIdentities v pid=pid.get_value() unlink link manage=can.manage_people/> }.into_any(),
                                Err(error) => view! { <div class="mt-6"><ErrorMessage error/></div> }.into_any(),
                            })}
                        </Transition>
                        <section class=format!("{CARD} mt-6") aria-labelledby="person-apps-title">
                            <h2 id="person-apps-title" class="border-b border-slate-200 p-4 text-lg font-semibold text-slate-900 dark:border-slate-700 dark:text-white">"Connected apps"</h2>
                            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                                {move || apps.get().map(|r| match r {
                                    Ok(list) => view! { <ConnectedAppList apps=list revoke=Callback::new(move |id| { revoke.dispatch(RevokeConnectedApp { id }); })/> }.into_any(),
                                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                                })}
                            </Transition>
                        </section>
                        <History events/>
                    }.into_any()
                }
                Err(crate::error::AppError::NotFound(_)) => view! { <div class="mt-4"><crate::components::layout::NotFound/></div> }.into_any(),
                Err(error) => view! { <div class="mt-4"><ErrorMessage error/></div> }.into_any(),
            })}
        </Transition>
    }
}

/// The identity providers' identities that sign in as this person (ID-JAGs), each unlinkable.
#[component]
fn LinkedIdentities(
    v: crate::types::federation::PersonIdentitiesView,
    pid: String,
    unlink: ServerAction<UnlinkPersonIdentity>,
    link: ServerAction<LinkPersonIdentity>,
    manage: bool,
) -> impl IntoView {
    let pid = StoredValue::new(pid);
    let list = v.links;
    let providers = v.providers;
    let errors = FieldErrors::new(
        link,
        "person-link",
        &[("issuer", "issuer"), ("subject", "subject")],
    );
    let form = NodeRef::<leptos::html::Form>::new();
    Effect::new(move |_| {
        if let (Some(Ok(())), Some(f)) = (link.value().get(), form.get()) {
            f.reset();
        }
    });
    view! {
        <section class=format!("{CARD} mt-6") aria-labelledby="person-idp-title" data-testid="person-identities">
            <h2 id="person-idp-title" class="border-b border-slate-200 p-4 text-lg font-semibold text-slate-900 dark:border-slate-700 dark:text-white">"Identity providers"</h2>
            <ul class="divide-y divide-slate-200 dark:divide-slate-700">
                {list.into_iter().map(|l| {
                    let (issuer, subject) = (StoredValue::new(l.issuer.clone()), StoredValue::new(l.subject.clone()));
                    let name = l.provider.clone().unwrap_or_else(|| "A provider this realm no longer trusts".to_owned());
                    view! {
                        <li class="flex flex-col gap-3 p-4 sm:flex-row sm:items-start sm:justify-between">
                            <div class="min-w-0 space-y-1">
                                <p class="break-words font-medium text-slate-900 dark:text-white">{name.clone()}</p>
                                <p class=format!("{MONO} text-slate-600 dark:text-slate-300")>{l.issuer.clone()}</p>
                                <p class=format!("{MUTED} break-all")>"As " <span class="font-mono">{l.subject.clone()}</span> " · linked " <When at=l.linked.at.clone() words=l.linked.ago.clone()/></p>
                            </div>
                            {manage.then(|| view! {
                                <div class="shrink-0"><ConfirmButton label="Unlink" title=format!("Unlink {name}?")
                                    message="Its assertions for this identity no longer act as this person, and the tokens they bought are revoked. If the provider links people by email, its next assertion links them again: turn that off on Identity providers first."
                                    confirm_label="Unlink" class=BTN_SMALL_DANGER
                                    on_confirm=Callback::new(move |_| { unlink.dispatch(UnlinkPersonIdentity { id: pid.get_value(), issuer: issuer.get_value(), subject: subject.get_value() }); })/></div>
                            })}
                        </li>
                    }
                }).collect_view()}
            </ul>
            {(manage && !providers.is_empty()).then(|| view! {
                <ActionForm action=link node_ref=form attr:id="person-link" attr:class="grid gap-4 border-t border-slate-200 p-4 sm:grid-cols-2 dark:border-slate-700" on:input=move |_| errors.clear()>
                    <h3 class="text-sm font-semibold text-slate-900 sm:col-span-2 dark:text-white">"Link an identity"</h3>
                    <input type="hidden" name="id" value=pid.get_value()/>
                    <div>
                        <label class=LABEL for="person-link-issuer">"Identity provider"</label>
                        <select id="person-link-issuer" name="issuer" class=format!("mt-1 {INPUT}")>
                            {providers.into_iter().map(|(issuer, name)| view! { <option value=issuer>{name}</option> }).collect_view()}
                        </select>
                        <crate::components::field::FieldError errors name="issuer"/>
                    </div>
                    <Field errors name="subject" id="person-link-subject" label="Their subject (sub) there" required=true maxlength=255 mono=true
                        help="The provider's id for them, as its assertions carry it in sub."/>
                    <div class="sm:col-span-2">{errors.form_error()}</div>
                    <div class="sm:col-span-2"><button type="submit" class=BTN_SECONDARY disabled=move || link.pending().get()>"Link"</button></div>
                </ActionForm>
            })}
        </section>
    }
}
