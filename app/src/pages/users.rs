//! Console users: search and create; each user's page changes their role (confirmed), disables
//! them (confirmed) and issues one-time password links.
use crate::api::audit::history;
use crate::api::second_factor::ResetUserSecondFactor;
use crate::api::users::{
    CreateUser, IssueResetLink, SetUserBreakGlass, SetUserDisabled, SetUserRole, get_user,
    list_users,
};
use crate::components::confirm::{ConfirmButton, ConfirmDialog};
use crate::components::copy::CopyValue;
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::history::History;
use crate::components::pager::{KeyPager, use_key_params, with_query};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::users::{IssuedLink, UserView};
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
fn UserRow(user: UserView) -> impl IntoView {
    let status = user_status(&user);
    view! {
        <tr data-testid="user-row" class=CARDS_ROW>
            <td class=CARDS_CELL>
                <a class="font-medium text-indigo-700 break-words hover:underline dark:text-indigo-300" href=format!("/users/{}", user.id)>{user.display_name.clone()}</a>
                <div class=format!("{MUTED} break-all")>{user.email.clone()}</div>
                {user.sso_provider.clone().map(|p| view! { <div class=format!("{MUTED} break-words") data-testid="user-sso">"Signs in with "{p}</div> })}
            </td>
            <td class=CARDS_CELL_NEXT><CellLabel text="Role"/>{role_label(&user.role)}</td>
            <td class=CARDS_CELL_NEXT>
                <Pill tone=status_tone(status) text=status/>
                {user.break_glass.then(|| view! { <span class="ml-1"><Pill tone=Tone::Info text="Break-glass"/></span> })}
            </td>
        </tr>
    }
}

/// A role's label.
fn role_label(role: &str) -> &'static str {
    ROLES
        .iter()
        .find(|(v, _)| *v == role)
        .map_or("Unknown", |(_, l)| *l)
}

/// A user's status word.
fn user_status(u: &UserView) -> &'static str {
    if u.disabled {
        "Disabled"
    } else if u.has_password || u.sso_provider.is_some() {
        "Active"
    } else {
        "Invited"
    }
}

/// The colour of a user's status.
fn status_tone(status: &str) -> Tone {
    match status {
        "Active" => Tone::Good,
        "Invited" => Tone::Info,
        _ => Tone::Off,
    }
}

#[component]
fn CreateUserForm(action: ServerAction<CreateUser>, on_cancel: Callback<()>) -> impl IntoView {
    const FIELDS: &[(&str, &str)] = &[
        ("email", "email"),
        ("display_name", "display_name"),
        ("role", "role"),
    ];
    let errors = FieldErrors::new(action, "new-user", FIELDS);
    view! {
        <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-user-title">
            <h2 id="new-user-title" class="text-lg font-semibold text-slate-900 dark:text-white">"New user"</h2>
            <p class=MUTED>"They receive a one-time link to choose their password."</p>
            <ActionForm action=action attr:id="new-user" attr:class="mt-4 grid gap-4 sm:grid-cols-3" on:input=move |_| errors.clear()>
                <Field errors name="email" id="new-email" label="Email" kind=Kind::Email required=true maxlength=254 autocomplete="off"/>
                <Field errors name="display_name" id="new-name" label="Name" required=true maxlength=100 autocomplete="off"/>
                <div>
                    <label class=LABEL for="new-role">"Role"</label>
                    <select class=format!("mt-1 {INPUT}") id="new-role" name="role">
                        {ROLES.iter().map(|(value, label)| view! { <option value=*value selected=*value == "developer">{*label}</option> }).collect_view()}
                    </select>
                </div>
                <div class="sm:col-span-3">{errors.form_error()}</div>
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
    let page = use_key_params();
    let create = ServerAction::<CreateUser>::new();
    let created = successes(create);
    let users = Resource::new(
        move || (q.get(), page.get(), created.get()),
        |(q, (after, before), _)| list_users(q, after, before),
    );
    let show_create = RwSignal::new(false);
    crate::components::field::focus_first_when(show_create, "new-user");
    let issued = RwSignal::new(None::<IssuedLink>);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(link)) = create.value().get() {
            toasts.push(ToastKind::Success, format!("User {} created.", link.email));
            issued.set(Some(link));
            show_create.set(false);
        }
    });
    view! {
        <PageHeader title="Console users" description="People who can sign in to this console, and what their role lets them do.">
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
                        let shown = found.items.len();
                        view! {
                            <div>
                                <table class="block w-full text-sm sm:table">
                                    <thead class=CARDS_HEAD>
                                        <tr>
                                            <th class=TH scope="col">"User"</th>
                                            <th class=TH scope="col">"Role"</th>
                                            <th class=TH scope="col">"Status"</th>

                                        </tr>
                                    </thead>
                                    <tbody class=CARDS_BODY>
                                        {found.items.into_iter().map(|user| view! { <UserRow user/> }).collect_view()}
                                    </tbody>
                                </table>
                            </div>
                            <KeyPager total=found.total before=found.before shown prev=found.prev next=found.next
                                href=move |key| with_query("/users", &[("q", q.clone())].into_iter().chain(key).collect::<Vec<_>>())/>
                        }.into_any()
                    }
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </div>
    }
}

/// What a role may do, in words, for the role field and its confirmation.
fn role_meaning(role: &str) -> &'static str {
    match role {
        "admin" => {
            "Admins manage everything: realms, console users, resources, clients, agents and keys."
        }
        "security_reviewer" => {
            "Security reviewers read resources, clients, agents and the audit log, and change nothing."
        }
        _ => "Developers read resources, to protect their own MCP servers.",
    }
}

/// One console user: role (changed with confirmation), status, password link, history.
#[component]
pub fn UserDetailPage() -> impl IntoView {
    let session = crate::components::layout::use_session();
    let params = leptos_router::hooks::use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let role = ServerAction::<SetUserRole>::new();
    let disable = ServerAction::<SetUserDisabled>::new();
    let reset = ServerAction::<IssueResetLink>::new();
    let glass = ServerAction::<SetUserBreakGlass>::new();
    let (changed, toggled, issued_links) = (successes(role), successes(disable), successes(reset));
    let glassed = successes(glass);
    let reset_2fa = ServerAction::<ResetUserSecondFactor>::new();
    let reset_2fas = successes(reset_2fa);
    let user = Resource::new(
        move || {
            (
                id.get(),
                changed.get(),
                toggled.get(),
                glassed.get(),
                reset_2fas.get(),
            )
        },
        |(id, ..)| get_user(id),
    );
    let events = Resource::new(
        move || {
            (
                id.get(),
                changed.get(),
                toggled.get(),
                issued_links.get(),
                glassed.get(),
                reset_2fas.get(),
            )
        },
        |(id, ..)| history("user".to_owned(), id),
    );

    let issued = RwSignal::new(None::<IssuedLink>);
    let toasts = use_toasts();
    Effect::new(move |_| match glass.value().get() {
        Some(Ok(u)) => toasts.push(
            ToastKind::Success,
            if u.break_glass {
                format!("{} is a break-glass admin.", u.email)
            } else {
                format!("{} is no longer a break-glass admin.", u.email)
            },
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| {
        match reset_2fa.value().get() {
        Some(Ok(())) => toasts.push(
            ToastKind::Success,
            "Authenticator app reset: their sessions ended; they set up a new one at their next sign-in if their role requires it.",
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    }
    });
    Effect::new(move |_| match role.value().get() {
        Some(Ok(u)) => toasts.push(
            ToastKind::Success,
            format!("{} is now {}.", u.email, role_label(&u.role).to_lowercase()),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match disable.value().get() {
        Some(Ok(u)) => toasts.push(
            ToastKind::Success,
            format!(
                "{} {}.",
                u.email,
                if u.disabled { "disabled" } else { "enabled" }
            ),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match reset.value().get() {
        Some(Ok(link)) => issued.set(Some(link)),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    view! {
        <a href="/users" class="text-sm text-indigo-600 hover:underline dark:text-indigo-300">"← Console users"</a>
        <Transition fallback=|| view! { <Loading/> }>
            {move || user.get().map(|result| match result {
                Ok(u) => {
                    let uid = StoredValue::new(u.id.clone());
                    let email = StoredValue::new(u.email.clone());
                    let current = StoredValue::new(u.role.clone());
                    let picked = RwSignal::new(u.role.clone());
                    let confirm = RwSignal::new(false);
                    let status = user_status(&u);
                    let admin = u.role == "admin";
                    // One's own role and status are changed by another admin.
                    let myself = session
                        .get()
                        .and_then(Result::ok)
                        .flatten()
                        .is_some_and(|s| s.user_id == u.id);
                    let title = Signal::derive(move || format!(
                        "Change {}'s role from {} to {}?",
                        email.get_value(),
                        role_label(&current.get_value()).to_lowercase(),
                        role_label(&picked.get()).to_lowercase()
                    ));
                    let message = Signal::derive(move || {
                        let demote = current.get_value() == "admin" && picked.get() != "admin";
                        format!(
                            "{}{} The change applies to their next request.",
                            if demote { "They stop being an admin: they can no longer manage users, realms, resources, clients, agents or keys. " } else { "" },
                            role_meaning(&picked.get())
                        )
                    });
                    view! {
                        <div class="mt-2 mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
                            <div class="min-w-0">
                                <h1 class=format!("{H1} break-words")>{u.display_name.clone()}</h1>
                                <p class=format!("{MUTED} break-all")>{u.email.clone()}</p>
                                {u.sso_provider.clone().map(|p| view! {
                                    <p class=format!("{MUTED} break-words") data-testid="user-sso">"Signs in with "{p}"; its groups decide the role at every sign-in."</p>
                                })}
                            </div>
                            <div class="flex flex-wrap gap-2">
                                {u.sso_provider.is_none().then(|| view! {
                                    <ConfirmButton label="Reset link" title=format!("Issue a password-reset link for {}?", u.email)
                                        message="A new one-time link lets them choose a new password. Earlier links stop working."
                                        confirm_label="Issue link" class=BTN_SMALL
                                        on_confirm=Callback::new(move |_| { reset.dispatch(IssueResetLink { id: uid.get_value() }); })/>
                                })}
                                {if myself {
                                    ().into_any()
                                } else if u.disabled {
                                    view! { <button type="button" class=BTN_SMALL on:click=move |_| { disable.dispatch(SetUserDisabled { id: uid.get_value(), disabled: false }); }>"Enable"</button> }.into_any()
                                } else {
                                    view! {
                                        <ConfirmButton label="Disable" title=format!("Disable {}?", u.email)
                                            message=if admin { "This is an admin: they are signed out at once and cannot sign in or manage anything until enabled again. The last enabled admin cannot be disabled." } else { "They are signed out at once and cannot sign in until enabled again." }
                                            confirm_label="Disable user" class=BTN_SMALL_DANGER
                                            on_confirm=Callback::new(move |_| { disable.dispatch(SetUserDisabled { id: uid.get_value(), disabled: true }); })/>
                                    }.into_any()
                                }}
                            </div>
                        </div>
                        {move || issued.get().map(|link| view! { <IssuedLinkPanel link on_close=Callback::new(move |_| issued.set(None))/> })}
                        <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby="user-settings">
                            <h2 id="user-settings" class="text-lg font-semibold text-slate-900 dark:text-white">"Role and status"</h2>
                            <dl class="mt-4 grid gap-4 text-sm sm:grid-cols-2" data-testid="user-detail">
                                <div><dt class=MUTED>"Status"</dt><dd><Pill tone=status_tone(status) text=status/></dd></div>
                                <div><dt class=MUTED>"Created"</dt><dd><When at=u.created.at.clone() words=u.created.ago.clone()/></dd></div>
                                <div class="sm:col-span-2" data-testid="user-second-factor">
                                    <dt class=MUTED>"Two-step verification"</dt>
                                    <dd class="mt-1 flex flex-wrap items-center gap-3">
                                        {match u.second_factor_since.clone() {
                                            Some(since) => view! {
                                                <span>"Authenticator app since "<When at=since.at words=since.ago/></span>
                                                {(!myself).then(|| view! {
                                                    <ConfirmButton label="Reset authenticator" title=format!("Reset the authenticator app of {}?", u.email)
                                                        message="For a lost phone and lost recovery codes: the app and the recovery codes stop working and their sessions end now. They set up a new app at their next sign-in if their role requires one."
                                                        confirm_label="Reset" class=BTN_SMALL_DANGER
                                                        on_confirm=Callback::new(move |_| { reset_2fa.dispatch(ResetUserSecondFactor { id: uid.get_value() }); })/>
                                                })}
                                            }.into_any(),
                                            None => view! { <span>"Not set up"</span> }.into_any(),
                                        }}
                                    </dd>
                                </div>
                                {(admin && u.has_password && u.sso_provider.is_none()).then(|| {
                                    let on = u.break_glass;
                                    view! {
                                        <div class="sm:col-span-2" data-testid="break-glass">
                                            <dt class=MUTED>"Break-glass admin"</dt>
                                            <dd class="mt-1 flex flex-wrap items-center gap-3">
                                                <span>{if on { "Yes: may sign in with a password even when password sign-in is off." } else { "No" }}</span>
                                                {if on {
                                                    view! { <button type="button" class=BTN_SMALL disabled=move || glass.pending().get()
                                                        on:click=move |_| { glass.dispatch(SetUserBreakGlass { id: uid.get_value(), on: false }); }>"Remove break-glass"</button> }.into_any()
                                                } else {
                                                    view! { <ConfirmButton label="Make break-glass" title="Make this admin a break-glass admin?"
                                                        message="They may sign in with their password even when password sign-in is off for everyone else: keep the password long, unique and in a safe."
                                                        confirm_label="Make break-glass" class=BTN_SMALL
                                                        on_confirm=Callback::new(move |_| { glass.dispatch(SetUserBreakGlass { id: uid.get_value(), on: true }); })/> }.into_any()
                                                }}
                                            </dd>
                                        </div>
                                    }
                                })}
                            </dl>
                            {myself.then(|| view! { <p class=format!("mt-4 {MUTED}") data-testid="own-account">"This is your own account: another admin changes its role or disables it."</p> })}
                            <form class="mt-4 flex flex-wrap items-end gap-3" class:hidden=myself on:submit=move |ev| {
                                ev.prevent_default();
                                if picked.get_untracked() != current.get_value() { confirm.set(true); }
                            }>
                                <div class="min-w-48">
                                    <label class=LABEL for="user-role">"Role"</label>
                                    <select id="user-role" class=format!("mt-1 {INPUT}") aria-describedby="user-role-help"
                                        on:change=move |ev| picked.set(event_target_value(&ev))>
                                        {ROLES.iter().map(|(value, label)| view! { <option value=*value selected=*value == current.get_value()>{*label}</option> }).collect_view()}
                                    </select>
                                </div>
                                <button type="submit" class=BTN_PRIMARY disabled=move || picked.get() == current.get_value() || role.pending().get()>"Change role"</button>
                                <p id="user-role-help" class=format!("w-full {MUTED}")>{move || role_meaning(&picked.get())}</p>
                            </form>
                            <ConfirmDialog open=confirm title message confirm_label="Change role" danger=admin
                                on_confirm=Callback::new(move |_| { role.dispatch(SetUserRole { id: uid.get_value(), role: picked.get_untracked() }); })/>
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
