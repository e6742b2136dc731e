//! The console shell: sidebar navigation, realm switcher, user menu, theme toggle.
use super::toast::{ToastKind, use_toasts};
use super::ui::{ErrorMessage, Loading, MUTED};
use crate::api::session::{SelectRealm, get_session};
use crate::error::AppError;
use crate::types::SessionInfo;
use leptos::prelude::*;
use leptos_router::components::{A, Outlet};
use leptos_router::hooks::use_location;

/// The signed-in session, provided to every console page.
pub type SessionResource = Resource<Result<Option<SessionInfo>, AppError>>;

/// The session from context.
pub fn use_session() -> SessionResource {
    expect_context::<SessionResource>()
}

const NAV_LINK: &str = "flex items-center gap-2 rounded-md px-3 py-2 text-sm font-medium text-slate-300 hover:bg-slate-800 hover:text-white focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400";
const NAV_ACTIVE: &str = "flex items-center gap-2 rounded-md bg-slate-800 px-3 py-2 text-sm font-medium text-white focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400";

#[component]
fn NavLink(href: &'static str, label: &'static str) -> impl IntoView {
    let location = use_location();
    let active = move || {
        let path = location.pathname.get();
        if href == "/" {
            path == "/"
        } else {
            path.starts_with(href)
        }
    };
    view! {
        <A href=href attr:class=move || if active() { NAV_ACTIVE } else { NAV_LINK } attr:aria-current=move || active().then_some("page")>
            {label}
        </A>
    }
}

/// Toggles dark mode and remembers the choice in `localStorage`.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let dark = RwSignal::new(false);
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        if let Some(el) = document().document_element() {
            dark.set(el.class_list().contains("dark"));
        }
    });
    let toggle = move |_| {
        #[cfg(feature = "hydrate")]
        if let Some(el) = document().document_element() {
            let now_dark = el.class_list().toggle("dark").unwrap_or(false);
            if let Ok(Some(storage)) = window().local_storage() {
                let _ =
                    storage.set_item("portcullis-theme", if now_dark { "dark" } else { "light" });
            }
            dark.set(now_dark);
        }
    };
    view! {
        <button
            type="button"
            data-testid="theme-toggle"
            aria-pressed=move || dark.get().to_string()
            class="rounded-md px-2 py-1 text-sm text-slate-600 hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:text-slate-300 dark:hover:bg-slate-700"
            on:click=toggle
        >
            {move || if dark.get() { "☀ Light mode" } else { "☾ Dark mode" }}
        </button>
    }
}

#[component]
fn RealmSwitcher(info: SessionInfo) -> AnyView {
    let select = ServerAction::<SelectRealm>::new();
    let toasts = use_toasts();
    Effect::new(move |_| match select.value().get() {
        Some(Ok(())) => {
            #[cfg(feature = "hydrate")]
            let _ = window().location().reload();
        }
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    let current = info.realm.name.clone();
    view! {
        <label class="block px-3">
            <span class="text-xs font-semibold uppercase tracking-wide text-slate-400">"Realm"</span>
            <select
                data-testid="realm-switcher"
                class="mt-1 block w-full rounded-md border border-slate-700 bg-slate-800 px-2 py-1.5 text-sm text-white focus:outline-none focus:ring-2 focus:ring-indigo-400"
                on:change=move |ev| {
                    select.dispatch(SelectRealm { name: event_target_value(&ev) });
                }
            >
                {info
                    .realms
                    .into_iter()
                    .map(|r| {
                        let selected = r.name == current;
                        let label = if r.enabled { r.display_name.clone() } else { format!("{} (disabled)", r.display_name) };
                        view! { <option value=r.name selected=selected>{label}</option> }
                    })
                    .collect_view()}
            </select>
        </label>
    }
    .into_any()
}

#[component]
fn Sidebar(info: SessionInfo, open: RwSignal<bool>) -> AnyView {
    let can_users = info.can_manage_users;
    let can_realms = info.can_manage_realms;
    let can_audit = info.can_view_audit;
    let can_resources = info.can_manage_resources;
    let can_clients = info.can_manage_clients;
    let can_keys = info.can_manage_keys;
    let can_agents = info.can_manage_agents;
    view! {
        <aside
            class=move || if open.get() {
                "fixed inset-y-0 left-0 z-30 flex w-64 flex-col bg-slate-900 md:static md:flex"
            } else {
                "hidden w-64 flex-col bg-slate-900 md:flex"
            }
        >
            <div class="flex h-14 items-center gap-2 px-4">
                <span class="flex h-8 w-8 items-center justify-center rounded-md bg-indigo-600 font-bold text-white">"P"</span>
                <span class="text-base font-semibold text-white">"Portcullis"</span>
            </div>
            <RealmSwitcher info=info.clone()/>
            <nav aria-label="Main" class="mt-4 flex flex-1 flex-col gap-1 px-2" on:click=move |_| open.set(false)>
                <NavLink href="/" label="Overview"/>
                {can_resources.then(|| view! { <NavLink href="/resources" label="Resources"/> })}
                {can_clients.then(|| view! { <NavLink href="/clients" label="Clients"/> })}
                {can_agents.then(|| view! { <NavLink href="/agents" label="Agents"/> })}
                {can_keys.then(|| view! { <NavLink href="/keys" label="Signing keys"/> })}
                {can_realms.then(|| view! { <NavLink href="/realms" label="Realms"/> })}
                {can_users.then(|| view! { <NavLink href="/users" label="Users"/> })}
                {can_audit.then(|| view! { <NavLink href="/audit" label="Audit log"/> })}
                <NavLink href="/account" label="Account"/>
            </nav>
            <p class="px-4 py-3 text-xs text-slate-500">"Signed in as " {info.role.replace('_', " ")}</p>
        </aside>
    }
    .into_any()
}

#[component]
fn UserMenu(info: SessionInfo) -> AnyView {
    let open = RwSignal::new(false);
    view! {
        <div class="relative">
            <button
                type="button"
                data-testid="user-menu"
                aria-haspopup="menu"
                aria-expanded=move || open.get().to_string()
                class="flex items-center gap-2 rounded-md px-2 py-1 text-sm text-slate-700 hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:text-slate-200 dark:hover:bg-slate-700"
                on:click=move |_| open.update(|o| *o = !*o)
            >
                <span class="flex h-7 w-7 items-center justify-center rounded-full bg-indigo-100 text-xs font-semibold text-indigo-700 dark:bg-indigo-900 dark:text-indigo-200">
                    {info.display_name.chars().next().unwrap_or('?').to_uppercase().to_string()}
                </span>
                <span class="hidden sm:inline">{info.display_name.clone()}</span>
            </button>
            <Show when=move || open.get()>
                <div role="menu" class="absolute right-0 z-20 mt-2 w-56 rounded-md border border-slate-200 bg-white py-1 shadow-md dark:border-slate-700 dark:bg-slate-800">
                    <p class=format!("px-4 py-2 {MUTED} truncate")>{info.email.clone()}</p>
                    <A href="/account" attr:role="menuitem" attr:class="block px-4 py-2 text-sm text-slate-700 hover:bg-slate-100 focus:bg-slate-100 focus:outline-none dark:text-slate-200 dark:hover:bg-slate-700">"Account"</A>
                    <form method="post" action="/logout">
                        <button type="submit" role="menuitem" class="block w-full px-4 py-2 text-left text-sm text-slate-700 hover:bg-slate-100 focus:bg-slate-100 focus:outline-none dark:text-slate-200 dark:hover:bg-slate-700">
                            "Sign out"
                        </button>
                    </form>
                </div>
            </Show>
        </div>
    }
    .into_any()
}

/// Layout of every signed-in page.
#[component]
pub fn ConsoleLayout() -> impl IntoView {
    let session: SessionResource = Resource::new(|| (), |_| get_session());
    provide_context(session);
    let nav_open = RwSignal::new(false);
    view! {
        <Suspense fallback=|| view! { <div class="p-8"><Loading/></div> }>
            {move || {
                session
                    .get()
                    .map(|result| match result {
                        Ok(Some(info)) => {
                            view! {
                                <div class="flex min-h-screen">
                                    <Sidebar info=info.clone() open=nav_open/>
                                    <div class="flex min-w-0 flex-1 flex-col">
                                        <header class="flex h-14 items-center justify-between gap-2 border-b border-slate-200 bg-white px-4 dark:border-slate-700 dark:bg-slate-800">
                                            <div class="flex items-center gap-2">
                                                <button
                                                    type="button"
                                                    aria-label="Open navigation"
                                                    class="rounded-md px-2 py-1 text-slate-600 hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 md:hidden dark:text-slate-300"
                                                    on:click=move |_| nav_open.update(|o| *o = !*o)
                                                >
                                                    "☰"
                                                </button>
                                                <span class=MUTED>{info.realm.display_name.clone()}</span>
                                            </div>
                                            <div class="flex items-center gap-2">
                                                <ThemeToggle/>
                                                <UserMenu info=info.clone()/>
                                            </div>
                                        </header>
                                        <main id="main" class="mx-auto w-full max-w-6xl flex-1 p-4 sm:p-6 lg:p-8">
                                            <Outlet/>
                                        </main>
                                    </div>
                                </div>
                            }
                                .into_any()
                        }
                        Ok(None) => {
                            view! {
                                <div class="p-8">
                                    <p>"Your session has ended. " <a class="text-indigo-600 underline" href="/login">"Sign in"</a></p>
                                </div>
                            }
                                .into_any()
                        }
                        Err(error) => view! { <div class="p-8"><ErrorMessage error/></div> }.into_any(),
                    })
            }}
        </Suspense>
    }
}
