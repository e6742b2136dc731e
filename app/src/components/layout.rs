//! The console shell: sidebar navigation, realm switcher, user menu, theme toggle.
use super::toast::{ToastKind, use_toasts};
use super::ui::{ErrorMessage, H1, Loading, MUTED};
use crate::api::session::{SelectRealm, get_abilities, get_session};
use crate::error::AppError;
use crate::types::session::{Abilities, SessionInfo};
use leptos::either::Either;
use leptos::prelude::*;
use leptos_router::components::{A, Outlet};
use leptos_router::hooks::use_location;

/// The signed-in session, provided to every console page.
pub type SessionResource = Resource<Result<Option<SessionInfo>, AppError>>;

/// The session from context.
pub fn use_session() -> SessionResource {
    expect_context::<SessionResource>()
}

/// The selected realm's name, read (tracked) from `session`; empty until it is loaded.
pub fn selected_realm(session: SessionResource) -> String {
    session
        .get()
        .and_then(Result::ok)
        .flatten()
        .map(|s| s.realm.name)
        .unwrap_or_default()
}

const NAV_LINK: &str = "flex items-center gap-2 rounded-md px-3 py-2 text-sm font-medium text-slate-300 hover:bg-slate-800 hover:text-white focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400";
const NAV_ACTIVE: &str = "flex items-center gap-2 rounded-md bg-slate-800 px-3 py-2 text-sm font-medium text-white focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400";

#[component]
fn NavLink(href: &'static str, label: &'static str) -> impl IntoView {
    let location = use_location();
    let active = move || {
        let path = location.pathname.get();
        // A section's page is active on its subpages ("/agents/x"), not on a sibling's path
        // that merely starts the same ("/integration" and "/integration/protect" are two).
        if href == "/" || href == "/integration" {
            path == href
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

/// Bumped when a reviewer decides clients: the navigation's count of waiting clients is read
/// again (without reloading the session, which would rebuild the page and lose its focus).
#[derive(Clone, Copy, Debug)]
pub struct ReviewsChanged(pub RwSignal<u32>);

impl ReviewsChanged {
    /// This page's handle (none outside the console frame).
    pub fn used() -> Option<Self> {
        use_context::<ReviewsChanged>()
    }

    /// Tells the navigation that clients were decided.
    pub fn bump(self) {
        self.0.update(|n| *n += 1);
    }
}

/// The security-review entry, with the number of clients waiting in every realm.
#[component]
fn ReviewLink(count: u64) -> impl IntoView {
    let location = use_location();
    let active = move || location.pathname.get().starts_with("/review");
    let changed = use_context::<ReviewsChanged>().map(|c| c.0);
    // Once something was decided (in the browser: effects do not run on the server), the count
    // is read again; until then the session's stands.
    let fresh = RwSignal::new(None::<u64>);
    Effect::new(move |_| {
        if changed.map_or(0, |c| c.get()) == 0 {
            return;
        }
        leptos::task::spawn_local(async move {
            if let Ok(counts) = crate::api::review::review_counts(
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            )
            .await
            {
                let waiting = counts.into_iter().find(|(s, _)| s == "pending");
                fresh.set(Some(waiting.map_or(0, |(_, n)| n)));
            }
        });
    });
    let count = move || fresh.get().unwrap_or(count);
    let label = move || match count() {
        0 => "Security review".to_owned(),
        n => format!("Security review, {n} waiting"),
    };
    view! {
        <A href="/review" attr:class=move || format!("{} justify-between", if active() { NAV_ACTIVE } else { NAV_LINK }) attr:aria-current=move || active().then_some("page") attr:aria-label=label>
            <span>"Security review"</span>
            {move || (count() > 0).then(|| view! {
                <span data-testid="review-count" class="ml-2 rounded-full bg-amber-400 px-2 text-xs font-semibold text-slate-900">{count().to_string()}</span>
            })}
        </A>
    }
}

/// The registry entry, with a cue when a release waits for the viewer's approval.
#[component]
fn RegistryLink(waiting: bool) -> impl IntoView {
    let location = use_location();
    let active = move || location.pathname.get().starts_with("/registry");
    let label = if waiting {
        "MCP registry, a release waits for approval"
    } else {
        "MCP registry"
    };
    view! {
        <A href=if waiting { "/registry/publish" } else { "/registry" } attr:class=move || format!("{} justify-between", if active() { NAV_ACTIVE } else { NAV_LINK }) attr:aria-current=move || active().then_some("page") attr:aria-label=label>
            <span>"MCP registry"</span>
            {waiting.then(|| view! {
                <span data-testid="release-waiting" class="ml-2 rounded-full bg-amber-400 px-2 text-xs font-semibold text-slate-900">"1"</span>
            })}
        </A>
    }
}

#[component]
fn GatewayLink(waiting: usize) -> impl IntoView {
    let location = use_location();
    let active = move || location.pathname.get().starts_with("/gateway");
    let label = match waiting {
        0 => "MCP gateway".to_owned(),
        1 => "MCP gateway, 1 call waits for approval".to_owned(),
        n => format!("MCP gateway, {n} calls wait for approval"),
    };
    view! {
        <A href="/gateway" attr:class=move || format!("{} justify-between", if active() { NAV_ACTIVE } else { NAV_LINK }) attr:aria-current=move || active().then_some("page") attr:aria-label=label>
            <span>"MCP gateway"</span>
            {(waiting > 0).then(|| view! {
                <span data-testid="gateway-waiting" class="ml-2 rounded-full bg-amber-400 px-2 text-xs font-semibold text-slate-900">{if waiting >= 100 { "99+".to_owned() } else { waiting.to_string() }}</span>
            })}
        </A>
    }
}

/// Applies the remembered (or system) colour scheme before first paint.
pub const THEME_SCRIPT: &str = "try{var t=localStorage.getItem('portcullis-theme');if(t?t==='dark':matchMedia('(prefers-color-scheme: dark)').matches){document.documentElement.classList.add('dark')}}catch(e){}";

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
            class="shrink-0 whitespace-nowrap rounded-md px-2 py-1 text-sm text-slate-600 hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:text-slate-300 dark:hover:bg-slate-700"
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
            // An object's page belongs to the realm left behind: go to its section's list in
            // the new realm (a list or the overview reloads as it is).
            #[cfg(feature = "hydrate")]
            {
                let path = window().location().pathname().unwrap_or_default();
                let _ = window().location().set_href(&section_of(&path));
            }
        }
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    let current = info.realm.name.clone();
    // Calls from this tab name the realm it shows: once another tab switches the session
    // elsewhere, they are refused instead of acting there.
    crate::tab::show_realm(&crate::tab::header_value(&info.realm.id, &current));
    // Choosing a realm does not switch yet (WCAG 3.2.2: arrow keys move through the options
    // without leaving the page); "Switch" does.
    let chosen = RwSignal::new(current.clone());
    let shown = current.clone();
    let unchanged = move || chosen.with(|c| *c == shown) || select.pending().get();
    let submit_unchanged = unchanged.clone();
    view! {
        <form
            class="block px-3"
            on:submit=move |ev| {
                ev.prevent_default();
                if !submit_unchanged() {
                    select.dispatch(SelectRealm { name: chosen.get_untracked() });
                }
            }
        >
            <label for="realm-switcher" class="text-xs font-semibold uppercase tracking-wide text-slate-400">"Realm"</label>
            <div class="mt-1 flex gap-2">
                <select
                    id="realm-switcher"
                    data-testid="realm-switcher"
                    class="block min-w-0 flex-1 rounded-md border border-slate-700 bg-slate-800 px-2 py-1.5 text-sm text-white focus:outline-none focus:ring-2 focus:ring-indigo-400"
                    on:change=move |ev| chosen.set(event_target_value(&ev))
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
                <button
                    type="submit"
                    data-testid="realm-switch"
                    aria-label="Switch realm"
                    disabled=unchanged
                    class="shrink-0 rounded-md border border-slate-600 px-2 py-1.5 text-sm font-medium text-white hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400 disabled:cursor-default disabled:border-slate-800 disabled:text-slate-500"
                >
                    "Switch"
                </button>
            </div>
        </form>
    }
    .into_any()
}

/// The list an address belongs to: `/clients/bot` → `/clients`; a list stays itself.
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
fn section_of(path: &str) -> String {
    match path.trim_start_matches('/').split('/').next() {
        Some(first) if !first.is_empty() => format!("/{first}"),
        _ => "/".to_owned(),
    }
}

/// A labelled group of navigation links.
#[component]
fn NavGroup(label: &'static str, children: Children) -> impl IntoView {
    let id = format!("nav-{}", label.to_lowercase().replace(' ', "-"));
    let labelled_by = id.clone();
    view! {
        <div class="mt-4" role="group" aria-labelledby=labelled_by>
            <p id=id class="px-3 pb-1 text-xs font-semibold uppercase tracking-wide text-slate-400">{label}</p>
            <div class="flex flex-col gap-1">{children()}</div>
        </div>
    }
}

#[component]
fn Sidebar(info: SessionInfo, open: RwSignal<bool>) -> AnyView {
    let can = info.can;
    let realm_label = format!("Realm {}", info.realm.display_name);
    let installation =
        can.manage_realms || can.manage_users || can.view_audit || can.review_clients;
    let close = move |_| open.set(false);
    // Opened, focus moves into it (so Escape and Tab work there); closed, back to its opener.
    let close_button = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |was_open: Option<bool>| {
        let is_open = open.get();
        #[cfg(feature = "hydrate")]
        match (was_open, is_open) {
            (Some(false), true) => {
                if let Some(b) = close_button.get() {
                    let _ = b.focus();
                }
            }
            (Some(true), false) => {
                use wasm_bindgen::JsCast;
                if let Some(b) = document()
                    .get_element_by_id("nav-open")
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = b.focus();
                }
            }
            _ => {}
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (was_open, close_button);
        is_open
    });
    view! {
        // On phones the sidebar slides over the page, above a backdrop that closes it.
        <Show when=move || open.get()>
            <div class="fixed inset-0 z-20 bg-slate-900/50 md:hidden" data-testid="nav-backdrop" aria-hidden="true" on:click=close></div>
        </Show>
        <aside
            id="sidebar"
            class=move || if open.get() {
                "fixed inset-y-0 left-0 z-30 flex w-64 flex-col overflow-y-auto bg-slate-900 md:static md:flex"
            } else {
                "hidden w-64 shrink-0 flex-col bg-slate-900 md:flex"
            }
            on:keydown=move |ev| if ev.key() == "Escape" { open.set(false) }
        >
            <div class="flex h-14 items-center justify-between gap-2 px-4">
                <span class="flex items-center gap-2">
                    <span class="flex h-8 w-8 items-center justify-center rounded-md bg-indigo-600 font-bold text-white">"P"</span>
                    <span class="text-base font-semibold text-white">"Portcullis"</span>
                </span>
                <button type="button" node_ref=close_button aria-label="Close navigation" class="rounded-md px-2 py-1 text-slate-300 hover:bg-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-400 md:hidden" on:click=close>"✕"</button>
            </div>
            <RealmSwitcher info=info.clone()/>
            <nav aria-label="Main" class="flex flex-1 flex-col px-2 pb-4" on:click=close>
                <NavGroup label="This realm">
                    <span class="sr-only">{realm_label}</span>
                    <NavLink href="/" label="Overview"/>
                    {can.view_resources.then(|| view! { <NavLink href="/resources" label="Resources"/> })}
                    {can.view_clients.then(|| view! { <NavLink href="/clients" label="Clients"/> })}
                    {can.view_agents.then(|| view! { <NavLink href="/agents" label="Agents"/> })}
                    {can.view_people.then(|| view! { <NavLink href="/people" label="People"/> })}
                    {can.manage_people.then(|| view! { <NavLink href="/sign-in-providers" label="Sign-in providers"/> })}
                    {can.view_registry.then(|| view! { <RegistryLink waiting=info.release_waiting/> })}
                    {can.view_registry.then(|| view! { <GatewayLink waiting=info.gateway_waiting/> })}
                    {can.manage_keys.then(|| view! { <NavLink href="/keys" label="Signing keys"/> })}
                    {can.manage_realms.then(|| view! { <NavLink href="/identity-providers" label="Identity providers"/> })}
                    {can.manage_realms.then(|| view! { <NavLink href="/trusting-servers" label="Trusting servers"/> })}
                    {can.manage_realms.then(|| view! { <NavLink href="/settings" label="Realm settings"/> })}
                </NavGroup>
                {can.view_resources.then(|| view! {
                    <NavGroup label="Integration">
                        <NavLink href="/integration" label="MCP authorization"/>
                        <NavLink href="/integration/protect" label="Protect your MCP server"/>
                        <NavLink href="/integration/check" label="Check an MCP server"/>
                    </NavGroup>
                })}
                {installation.then(|| view! {
                    <NavGroup label="Installation">
                        // The review inbox holds every realm's clients.
                        {can.review_clients.then(|| view! { <ReviewLink count=info.pending_reviews/> })}
                        {can.manage_realms.then(|| view! { <NavLink href="/realms" label="Realms"/> })}
                        {can.manage_users.then(|| view! { <NavLink href="/users" label="Console users"/> })}
                        {can.manage_users.then(|| view! { <NavLink href="/single-sign-on" label="Single sign-on"/> })}
                        {can.view_audit.then(|| view! { <NavLink href="/audit" label="Audit log"/> })}
                    </NavGroup>
                })}
            </nav>
            <p class="px-4 py-3 text-xs text-slate-400">"Signed in as " {info.role.replace('_', " ")}</p>
        </aside>
    }
    .into_any()
}

/// The user menu: a `<details>` disclosure, so it opens and signs out without JavaScript; with
/// it, Escape and a click outside close it.
#[component]
fn UserMenu(info: SessionInfo) -> AnyView {
    let menu = NodeRef::<leptos::html::Details>::new();
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        let close = move || {
            if let Some(d) = menu.get_untracked() {
                d.set_open(false);
            }
        };
        let on_key = window_event_listener(leptos::ev::keydown, move |ev| {
            let open = menu.get_untracked().is_some_and(|d| d.open());
            if ev.key() == "Escape" && open {
                close();
                if let Some(d) = menu.get_untracked()
                    && let Some(summary) = d.query_selector("summary").ok().flatten()
                    && let Ok(summary) = summary.dyn_into::<web_sys::HtmlElement>()
                {
                    let _ = summary.focus();
                }
            }
        });
        let on_click = window_event_listener(leptos::ev::click, move |ev| {
            let inside = menu.get_untracked().is_some_and(|d| {
                ev.target()
                    .and_then(|t| t.dyn_into::<web_sys::Node>().ok())
                    .is_some_and(|t| d.contains(Some(&t)))
            });
            if !inside {
                close();
            }
        });
        on_cleanup(move || {
            on_key.remove();
            on_click.remove();
        });
    }
    const ITEM: &str = "block w-full px-4 py-2 text-left text-sm text-slate-700 hover:bg-slate-100 focus:bg-slate-100 focus:outline-none dark:text-slate-200 dark:hover:bg-slate-700";
    view! {
        <details class="relative" node_ref=menu data-testid="user-menu-root">
            <summary
                data-testid="user-menu"
                class="flex cursor-pointer list-none items-center gap-2 rounded-md px-2 py-1 text-sm text-slate-700 hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:text-slate-200 dark:hover:bg-slate-700"
            >
                <span class="flex h-7 w-7 items-center justify-center rounded-full bg-indigo-100 text-xs font-semibold text-indigo-700 dark:bg-indigo-900 dark:text-indigo-200" aria-hidden="true">
                    {info.display_name.chars().next().unwrap_or('?').to_uppercase().to_string()}
                </span>
                <span class="hidden max-w-48 truncate sm:inline">{info.display_name.clone()}</span>
                <span class="sr-only sm:hidden">"Account menu"</span>
            </summary>
            <div class="absolute right-0 z-20 mt-2 w-56 rounded-md border border-slate-200 bg-white py-1 shadow-md dark:border-slate-700 dark:bg-slate-800">
                <p class=format!("px-4 py-2 {MUTED} truncate") title=info.email.clone()>{info.email.clone()}</p>
                <a href="/account" class=ITEM>"Account"</a>
                <form method="post" action="/logout">
                    <button type="submit" class=ITEM>"Sign out"</button>
                </form>
            </div>
        </details>
    }
    .into_any()
}

/// What no revocation in the selected realm reaches, in words.
///
/// Access tokens that resource servers verify themselves, until they expire: for every message
/// that says what a revocation does; empty until the session is loaded.
pub fn use_revocation_note() -> String {
    use_context::<SessionResource>()
        .and_then(|session| session.get_untracked())
        .and_then(Result::ok)
        .flatten()
        .map(|info| info.revocation_note)
        .unwrap_or_default()
}

/// `message` about tokens that stop introspecting as active, followed by what no revocation in
/// the realm reaches ([`use_revocation_note`]).
pub fn with_revocation_note(message: &str) -> String {
    format!("{message} {}", use_revocation_note())
}

/// What revoking a client does, in words, with what no revocation reaches (`note`).
pub fn client_revoke_effect(note: &str) -> String {
    format!(
        "At once it gets no new tokens, its refresh tokens and unused authorization codes stop working, and servers that introspect see its access tokens as inactive, for good. {note}"
    )
}

/// What the signed-in role may see and do; provided by the layout to every page.
pub fn use_abilities() -> Abilities {
    use_context::<Abilities>().unwrap_or_default()
}

/// Shows `children` when the role may (`allowed`), else a "not allowed" page inside the layout.
#[component]
pub fn Allowed(allowed: fn(Abilities) -> bool, children: ChildrenFn) -> impl IntoView {
    move || {
        if allowed(use_abilities()) {
            children().into_any()
        } else {
            view! { <NotAllowed/> }.into_any()
        }
    }
}

/// A page the role may not see (answers 403 when rendered on the server).
#[component]
pub fn NotAllowed() -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::status::set_status(axum::http::StatusCode::FORBIDDEN);
    view! {
        <div class="max-w-xl" data-testid="not-allowed">
            <h1 class=H1>"Not allowed"</h1>
            <p class=format!("mt-2 {MUTED}")>"Your role does not include this page. An administrator can change your role on the Console users page."</p>
            <a class="mt-4 inline-block text-sm text-indigo-600 hover:underline dark:text-indigo-300" href="/">"Back to the overview"</a>
        </div>
    }
}

/// A console address that does not exist (answers 404 when rendered on the server).
#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::status::set_status(axum::http::StatusCode::NOT_FOUND);
    view! {
        <div class="max-w-xl" data-testid="not-found">
            <h1 class=H1>"Page not found"</h1>
            <p class=format!("mt-2 {MUTED}")>"Nothing lives at this address. It may have been renamed or deleted."</p>
            <a class="mt-4 inline-block text-sm text-indigo-600 hover:underline dark:text-indigo-300" href="/">"Back to the overview"</a>
        </div>
    }
}

/// Layout of every signed-in page: the routes' pages in the outlet.
#[component]
pub fn ConsoleLayout() -> impl IntoView {
    view! { <ConsoleFrame><Outlet/></ConsoleFrame> }
}

/// The console around an address no route matches: the layout with a "not found" page.
#[component]
pub fn MissingPage() -> impl IntoView {
    view! { <ConsoleFrame><NotFound/></ConsoleFrame> }
}

/// The signed-in session's facts, once loaded (none while loading, signed out or failed).
pub fn signed_in(session: SessionResource) -> Option<SessionInfo> {
    session.get().and_then(Result::ok).flatten()
}

/// What the signed-in role may see and do, when known before any page is built: on the server
/// from the request (the sign-in middleware resolved it), in the browser from the page it
/// hydrates (`abilities` was rendered there). A frame the browser builds later waits for them.
fn initial_abilities(abilities: Resource<Result<Abilities, AppError>>) -> Option<Abilities> {
    #[cfg(feature = "ssr")]
    {
        let _ = abilities;
        Some(crate::api::session::request_abilities())
    }
    #[cfg(not(feature = "ssr"))]
    {
        abilities
            .get_untracked()
            .map(|result| result.unwrap_or_default())
    }
}

/// The signed-in frame (sidebar, header) around `children`.
///
/// The page is built once, here, and not inside a view that waits for the session: the server
/// runs a waiting view's closure again until its resources settle, so resources created in it
/// would be created (and fetched, and serialized) several times, and the browser, which builds
/// them once, would read another one's data, or one that was dropped half-way, while hydrating.
/// Only the sidebar and the header wait for the session.
#[component]
fn ConsoleFrame(children: ChildrenFn) -> impl IntoView {
    let session: SessionResource = Resource::new(|| (), |_| get_session());
    provide_context(session);
    provide_context(ReviewsChanged(RwSignal::new(0)));
    // The role's abilities on their own: the browser has them from the page even when the
    // session failed to load, so it builds the page the server rendered.
    let abilities = Resource::new(|| (), |_| get_abilities());
    let nav_open = RwSignal::new(false);
    let page = match initial_abilities(abilities) {
        Some(can) => {
            provide_context(can);
            Either::Left(children())
        }
        // Built in the browser after hydration (the app navigated here from a page outside the
        // frame): nothing was rendered by a server, so the page may wait for the abilities.
        None => Either::Right(view! {
            <Transition fallback=|| view! { <Loading/> }>
                {move || abilities.get().map(|result| {
                    provide_context(result.unwrap_or_default());
                    children()
                })}
            </Transition>
        }),
    };
    view! {
        <div class="flex min-h-screen">
            <Transition fallback=|| ()>
                {move || signed_in(session).map(|info| view! { <Sidebar info open=nav_open/> })}
            </Transition>
            <div class="flex min-w-0 flex-1 flex-col">
                <header class="flex h-14 items-center justify-between gap-2 border-b border-slate-200 bg-white px-4 dark:border-slate-700 dark:bg-slate-800">
                    <div class="flex min-w-0 items-center gap-2">
                        <button
                            type="button"
                            id="nav-open"
                            aria-label="Open navigation"
                            aria-controls="sidebar"
                            aria-expanded=move || nav_open.get().to_string()
                            class="rounded-md px-2 py-1 text-slate-600 hover:bg-slate-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 md:hidden dark:text-slate-300"
                            on:click=move |_| nav_open.update(|o| *o = !*o)
                        >
                            "☰"
                        </button>
                        <Transition fallback=|| ()>
                            {move || signed_in(session).map(|info| view! { <span class=format!("{MUTED} truncate") title=info.realm.display_name.clone()>{info.realm.display_name.clone()}</span> })}
                        </Transition>
                    </div>
                    <div class="flex items-center gap-2">
                        <ThemeToggle/>
                        <Transition fallback=|| ()>
                            {move || signed_in(session).map(|info| view! { <UserMenu info/> })}
                        </Transition>
                    </div>
                </header>
                <main id="main" tabindex="-1" class="mx-auto w-full max-w-6xl flex-1 p-4 sm:p-6 lg:p-8 focus:outline-none">
                    <Transition fallback=|| ()>
                        {move || session.get().and_then(|result| match result {
                            Ok(Some(info)) => info.switched_from.map(|from| view! {
                                <p role="status" data-testid="realm-switched" class="mb-6 rounded-md border border-indigo-200 bg-indigo-50 px-3 py-2 text-sm text-indigo-900 dark:border-indigo-800 dark:bg-indigo-950 dark:text-indigo-100">
                                    {if info.switched_by_link { "The link opened this in realm " } else { "Switched to realm " }}
                                    <strong class="break-words">{info.realm.display_name.clone()}</strong>
                                    ": your console was in " <span class="font-mono break-words">{from}</span>
                                    " and now works here. Tabs still showing the other realm ask to be reloaded before they act."
                                </p>
                            }.into_any()),
                            Ok(None) => Some(view! {
                                <p class="mb-6" role="alert">"Your session has ended. " <a class="text-indigo-600 underline" href="/login">"Sign in"</a></p>
                            }.into_any()),
                            Err(error) => Some(view! { <div class="mb-6"><ErrorMessage error/></div> }.into_any()),
                        })}
                    </Transition>
                    {page}
                </main>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::section_of;

    #[test]
    fn a_realm_switch_leaves_object_pages_for_their_list() {
        assert_eq!(section_of("/clients/reports-bot"), "/clients");
        assert_eq!(section_of("/resources"), "/resources");
        assert_eq!(section_of("/"), "/");
        assert_eq!(section_of("/audit"), "/audit");
    }
}
