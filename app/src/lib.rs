//! The Portcullis admin console: Leptos SSR + hydration.
//!
//! Pages live in `pages/`, shared widgets in `components/`, server functions in `api/` (thin:
//! context → parse → one core call → view type). Everything server-only sits behind the `ssr`
//! feature; the `hydrate` feature builds the browser bundle.
#![recursion_limit = "256"]

pub mod api;
pub mod components;
pub mod error;
pub mod pages;
#[cfg(feature = "ssr")]
pub mod ssr;
#[cfg(feature = "ssr")]
pub mod status;
pub mod tab;
pub mod types;

use components::layout::{Allowed, ConsoleLayout, MissingPage, THEME_SCRIPT};
use components::toast::{ToastRegion, Toasts};
use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::components::{ParentRoute, Route, Router, Routes};
use leptos_router::{SsrMode, path};
use types::session::Abilities;

/// The HTML document around the app.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <meta name="color-scheme" content="light dark"/>
                <link rel="icon" href="/favicon.svg" type="image/svg+xml"/>
                <script>{THEME_SCRIPT}</script>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body class="min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100">
                <App/>
            </body>
        </html>
    }
}

/// The console app.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    Toasts::provide();
    // Marks the document once hydrated (effects run only in the browser); tests wait for it.
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "true");
        }
    });
    view! {
        <Stylesheet id="leptos" href="/pkg/app.css"/>
        <Title text="Portcullis"/>
        // Without JavaScript the fragment moves focus; hydrated, the click moves it itself (the
        // browser's own fragment navigation does not reach a hydrated page).
        <a href="#main" on:click=skip_to_main class="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2">"Skip to content"</a>
        <Router>
            <Routes fallback=MissingPage>
                <Route path=path!("/login") view=pages::login::LoginPage ssr=SsrMode::Async/>
                <Route path=path!("/login/second-factor") view=pages::second_factor::SecondFactorPage ssr=SsrMode::Async/>
                <Route path=path!("/setup") view=pages::setup::SetupPage/>
                <Route path=path!("/reset-password") view=pages::setup::ResetPasswordPage/>
                // Async SSR: pages arrive complete, so they read fine without JavaScript.
                <ParentRoute path=path!("") view=ConsoleLayout ssr=SsrMode::Async>
                    <Route path=path!("") view=pages::overview::OverviewPage ssr=SsrMode::Async/>
                    <Route path=path!("realms") view=|| guarded(|c| c.manage_realms, pages::realms::RealmsPage) ssr=SsrMode::Async/>
                    <Route path=path!("realms/:name") view=|| guarded(|c| c.manage_realms, pages::realms::RealmDetailPage) ssr=SsrMode::Async/>
                    <Route path=path!("users") view=|| guarded(|c| c.manage_users, pages::users::UsersPage) ssr=SsrMode::Async/>
                    <Route path=path!("users/:id") view=|| guarded(|c| c.manage_users, pages::users::UserDetailPage) ssr=SsrMode::Async/>
                    <Route path=path!("audit") view=|| guarded(|c| c.view_audit, pages::audit::AuditPage) ssr=SsrMode::Async/>
                    <Route path=path!("account") view=pages::account::AccountPage ssr=SsrMode::Async/>
                    <Route path=path!("integration") view=|| guarded(|c| c.view_resources, pages::integration::McpPage) ssr=SsrMode::Async/>
                    <Route path=path!("integration/protect") view=|| guarded(|c| c.view_resources, pages::integration::ProtectPage) ssr=SsrMode::Async/>
                    <Route path=path!("integration/check") view=|| guarded(|c| c.view_resources, pages::integration::CheckPage) ssr=SsrMode::Async/>
                    <Route path=path!("resources") view=|| guarded(|c| c.view_resources, pages::resources::ResourcesPage) ssr=SsrMode::Async/>
                    <Route path=path!("resources/:slug") view=|| guarded(|c| c.view_resources, pages::resources::ResourceDetailPage) ssr=SsrMode::Async/>
                    <Route path=path!("clients") view=|| guarded(|c| c.view_clients, pages::clients::ClientsPage) ssr=SsrMode::Async/>
                    <Route path=path!("clients/:id") view=|| guarded(|c| c.view_clients, pages::clients::ClientDetailPage) ssr=SsrMode::Async/>
                    <Route path=path!("settings") view=|| guarded(|c| c.manage_realms, pages::realms::RealmSettingsPage) ssr=SsrMode::Async/>
                    <Route path=path!("single-sign-on") view=|| guarded(|c| c.manage_users, pages::sso::SingleSignOnPage) ssr=SsrMode::Async/>
                    <Route path=path!("identity-providers") view=|| guarded(|c| c.manage_realms, pages::federation::IdentityProvidersPage) ssr=SsrMode::Async/>
                    <Route path=path!("gateway") view=|| guarded(|c| c.view_registry, pages::gateway::GatewayPage) ssr=SsrMode::Async/>
                    <Route path=path!("trusting-servers") view=|| guarded(|c| c.manage_realms, pages::chaining::TrustingServersPage) ssr=SsrMode::Async/>
                    <Route path=path!("keys") view=|| guarded(|c| c.manage_keys, pages::keys::KeysPage) ssr=SsrMode::Async/>
                    <Route path=path!("agents") view=|| guarded(|c| c.view_agents, pages::agents::AgentsPage) ssr=SsrMode::Async/>
                    <Route path=path!("agents/:name") view=|| guarded(|c| c.view_agents, pages::agents::AgentDetailPage) ssr=SsrMode::Async/>
                    <Route path=path!("people") view=|| guarded(|c| c.view_people, pages::people::PeoplePage) ssr=SsrMode::Async/>
                    <Route path=path!("people/:id") view=|| guarded(|c| c.view_people, pages::people::PersonDetailPage) ssr=SsrMode::Async/>
                    <Route path=path!("sign-in-providers") view=|| guarded(|c| c.manage_people, pages::people_sign_in::PeopleSignInPage) ssr=SsrMode::Async/>
                    <Route path=path!("registry") view=|| guarded(|c| c.view_registry, pages::registry::RegistryPage) ssr=SsrMode::Async/>
                    <Route path=path!("registry/new") view=|| guarded(|c| c.manage_registry, pages::registry::server::NewServerPage) ssr=SsrMode::Async/>
                    <Route path=path!("registry/servers/:id") view=|| guarded(|c| c.view_registry, pages::registry::server::ServerPage) ssr=SsrMode::Async/>
                    <Route path=path!("registry/publish") view=|| guarded(|c| c.view_registry, pages::registry::publish::PublishPage) ssr=SsrMode::Async/>
                    <Route path=path!("registry/groups") view=|| guarded(|c| c.view_registry, pages::registry::groups::GroupsPage) ssr=SsrMode::Async/>
                    <Route path=path!("registry/deliver") view=|| guarded(|c| c.view_registry, pages::registry::deliver::DeliverPage) ssr=SsrMode::Async/>
                    <Route path=path!("registry/drift") view=|| guarded(|c| c.view_registry && c.view_people, pages::registry::drift::DriftPage) ssr=SsrMode::Async/>
                    <Route path=path!("registry/drift/device") view=|| guarded(|c| c.view_registry && c.view_people, pages::registry::drift::DriftDevicePage) ssr=SsrMode::Async/>
                    <Route path=path!("review") view=|| guarded(|c| c.review_clients, pages::review::ReviewPage) ssr=SsrMode::Async/>
                </ParentRoute>
            </Routes>
        </Router>
        <ToastRegion/>
    }
}

/// A page shown only to roles that `allowed`; others get the "not allowed" page in the layout.
fn guarded<V: IntoView + 'static>(
    allowed: fn(Abilities) -> bool,
    page: fn() -> V,
) -> impl IntoView {
    view! { <Allowed allowed>{move || page()}</Allowed> }
}

/// Browser entry point: hydrates the server-rendered page.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(App);
}

/// "Skip to content": focus moves to the page's main region.
fn skip_to_main(ev: leptos::ev::MouseEvent) {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        if let Some(main) = document()
            .get_element_by_id("main")
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            ev.prevent_default();
            let _ = main.focus();
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = ev;
}
