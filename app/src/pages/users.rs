//! Console users: search, create, change role, disable, one-time password links.
use crate::api::users::{CreateUser, IssueResetLink, SetUserDisabled, SetUserRole, list_users};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyValue;
use crate::components::pager::{Pager, with_query};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::{IssuedLink, UserView};
use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

const ROLES: [(&str, &str); 3] = [
    ("admin", "Admin"),
    ("security_reviewer", "Security reviewer"),
    ("developer", "Developer"),
];

#[component]
fn IssuedLinkPanel(link: IssuedLink, on_close: Callback<()>) -> impl IntoView {
    view! {
        <div role="status" data-testid="issued-link" class="mb-6 rounded-lg border border-indigo-200 bg-indigo-50 p-4 dark:border-indigo-900 dark:bg-indigo-950">
            <p class="text-sm font-medium text-indigo-900 dark:text-indigo-100">
                "One-time link for " {link.email.clone()}
            </p>
            <p class="mt-1 text-sm text-indigo-800 dark:text-indigo-200">
                "Send it to them over a trusted channel. It is shown only once, works once, and expires in 24 hours."
            </p>
            <div class="mt-3"><CopyValue value=link.url.clone() label="link"/></div>
            <button type="button" class=format!("mt-3 {BTN_SMALL}") on:click=move |_| on_close.run(())>"Done"</button>
        </div>
    }
}

#[component]
fn UserRow(
    user: UserView,
    refresh: Callback<()>,
    issued: RwSignal<Option<IssuedLink>>,
) -> impl IntoView {
    let toasts = use_toasts();
    let role = ServerAction::<SetUserRole>::new();
    let disable = ServerAction::<SetUserDisabled>::new();
    let reset = ServerAction::<IssueResetLink>::new();
    Effect::new(move |_| match role.value().get() {
        Some(Ok(u)) => {
            toasts.push(
                ToastKind::Success,
                format!("{} is now {}.", u.email, u.role.replace('_', " ")),
            );
            refresh.run(());
        }
        Some(Err(e)) => {
            toasts.push(ToastKind::Error, e.to_string());
            refresh.run(());
        }
        None => {}
    });
    Effect::new(move |_| match disable.value().get() {
        Some(Ok(u)) => {
            toasts.push(
                ToastKind::Success,
                format!(
                    "{} {}.",
                    u.email,
                    if u.disabled { "disabled" } else { "enabled" }
                ),
            );
            refresh.run(());
        }
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match reset.value().get() {
        Some(Ok(link)) => issued.set(Some(link)),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    let id = user.id.clone();
    let (id_role, id_disable, id_reset) = (id.clone(), id.clone(), id.clone());
    let current_role = user.role.clone();
    let disabled = user.disabled;
    view! {
        <tr data-testid="user-row">
            <td class=TD>
                <div class="font-medium text-slate-900 dark:text-white">{user.display_name.clone()}</div>
                <div class=MUTED>{user.email.clone()}</div>
            </td>
            <td class=TD>
                <label class="sr-only" for=format!("role-{id}")>{format!("Role of {}", user.email)}</label>
                <select
                    id=format!("role-{id}")
                    class="rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100 focus:outline-none focus:ring-2 focus:ring-indigo-500"
                    on:change=move |ev| {
                        role.dispatch(SetUserRole { id: id_role.clone(), role: event_target_value(&ev) });
                    }
                >
                    {ROLES.iter().map(|(value, label)| view! {
                        <option value=*value selected=*value == current_role>{*label}</option>
                    }).collect_view()}
                </select>
            </td>
            <td class=TD>
                <Badge ok=!disabled text=if disabled { "Disabled" } else if user.has_password { "Active" } else { "Invited" }/>
            </td>
            <td class=format!("{TD} hidden md:table-cell")>{user.created_at.clone()}</td>
            <td class=format!("{TD} text-right")>
                <div class="flex justify-end gap-2">
                    <ConfirmButton
                        label="Reset link"
                        title="Issue a password-reset link?"
                        message=format!("A new one-time link lets {} choose a new password. Earlier links stop working.", user.email)
                        confirm_label="Issue link"
                        class=BTN_SMALL
                        on_confirm=Callback::new(move |_| { reset.dispatch(IssueResetLink { id: id_reset.clone() }); })
                    />
                    {if disabled {
                        view! {
                            <button type="button" class=BTN_SMALL on:click=move |_| {
                                disable.dispatch(SetUserDisabled { id: id_disable.clone(), disabled: false });
                            }>"Enable"</button>
                        }.into_any()
                    } else {
                        view! {
                            <ConfirmButton
                                label="Disable"
                                title="Disable this user?"
                                message=format!("{} will be signed out and cannot sign in until enabled again.", user.email)
                                confirm_label="Disable user"
                                class=BTN_SMALL_DANGER
                                on_confirm=Callback::new(move |_| { disable.dispatch(SetUserDisabled { id: id_disable.clone(), disabled: true }); })
                            />
                        }.into_any()
                    }}
                </div>
            </td>
        </tr>
    }
}

#[component]
fn CreateUserForm(action: ServerAction<CreateUser>, on_cancel: Callback<()>) -> impl IntoView {
    view! {
        <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-user-title">
            <h2 id="new-user-title" class="text-lg font-semibold text-slate-900 dark:text-white">"New user"</h2>
            <p class=MUTED>"They receive a one-time link to choose their password."</p>
            <ActionForm action=action attr:class="mt-4 grid gap-4 sm:grid-cols-3">
                <div>
                    <label class=LABEL for="new-email">"Email"</label>
                    <input class=format!("mt-1 {INPUT}") id="new-email" name="email" type="email" required/>
                </div>
                <div>
                    <label class=LABEL for="new-name">"Name"</label>
                    <input class=format!("mt-1 {INPUT}") id="new-name" name="display_name" required/>
                </div>
                <div>
                    <label class=LABEL for="new-role">"Role"</label>
                    <select class=format!("mt-1 {INPUT}") id="new-role" name="role">
                        {ROLES.iter().map(|(value, label)| view! { <option value=*value selected=*value == "developer">{*label}</option> }).collect_view()}
                    </select>
                </div>
                <div class="sm:col-span-3">{action_error(action)}</div>
                <div class="flex gap-2 sm:col-span-3">
                    <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Create user"</button>
                    <button type="button" class=BTN_SECONDARY on:click=move |_| on_cancel.run(())>"Cancel"</button>
                </div>
            </ActionForm>
        </section>
    }
}

/// The Users screen (admins only; enforced by the core).
#[component]
pub fn UsersPage() -> impl IntoView {
    let query = use_query_map();
    let q = Memo::new(move |_| query.with(|m| m.get("q").unwrap_or_default()));
    let page = Memo::new(move |_| {
        query.with(|m| {
            m.get("page")
                .and_then(|p| p.parse::<u32>().ok())
                .unwrap_or(0)
        })
    });
    let reload = RwSignal::new(0u32);
    let create = ServerAction::<CreateUser>::new();
    let users = Resource::new(
        move || (q.get(), page.get(), reload.get(), create.version().get()),
        |(q, page, _, _)| list_users(q, page),
    );
    let show_create = RwSignal::new(false);
    let issued = RwSignal::new(None::<IssuedLink>);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(link)) = create.value().get() {
            toasts.push(ToastKind::Success, format!("User {} created.", link.email));
            issued.set(Some(link));
            show_create.set(false);
        }
    });
    let refresh = Callback::new(move |_| reload.update(|n| *n += 1));
    view! {
        <PageHeader title="Users" description="People who can sign in to this console.">
            <button type="button" class=BTN_PRIMARY on:click=move |_| show_create.set(true)>"New user"</button>
        </PageHeader>
        {move || issued.get().map(|link| view! { <IssuedLinkPanel link on_close=Callback::new(move |_| issued.set(None))/> })}
        <Show when=move || show_create.get()>
            <CreateUserForm action=create on_cancel=Callback::new(move |_| show_create.set(false))/>
        </Show>
        <div class=CARD>
            <Form method="GET" action="" attr:class="flex gap-2 border-b border-slate-200 p-4 dark:border-slate-700" attr:role="search">
                <label class="sr-only" for="user-search">"Search users"</label>
                <input class=INPUT id="user-search" name="q" type="search" placeholder="Search by email or name" prop:value=move || q.get()/>
                <button type="submit" class=BTN_SECONDARY>"Search"</button>
            </Form>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || users.get().map(|result| match result {
                    Ok(found) if found.items.is_empty() => view! {
                        <EmptyState title="No users found" hint="Try another search, or create a user."/>
                    }.into_any(),
                    Ok(found) => {
                        let q = q.get();
                        view! {
                            <div class="overflow-x-auto">
                                <table class=TABLE>
                                    <thead class="bg-slate-50 dark:bg-slate-900">
                                        <tr>
                                            <th class=TH scope="col">"User"</th>
                                            <th class=TH scope="col">"Role"</th>
                                            <th class=TH scope="col">"Status"</th>
                                            <th class=format!("{TH} hidden md:table-cell") scope="col">"Created"</th>
                                            <th class=TH scope="col"><span class="sr-only">"Actions"</span></th>
                                        </tr>
                                    </thead>
                                    <tbody class="divide-y divide-slate-200 dark:divide-slate-700">
                                        {found.items.into_iter().map(|user| view! { <UserRow user refresh issued/> }).collect_view()}
                                    </tbody>
                                </table>
                            </div>
                            <Pager total=found.total page=found.page page_size=found.page_size
                                href=move |p| with_query("/users", &[("q", q.clone()), ("page", if p == 0 { String::new() } else { p.to_string() })])/>
                        }.into_any()
                    }
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </div>
    }
}
