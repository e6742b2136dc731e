//! Integration → Protect your MCP server: a developer enters their MCP server's URL and copies
//! everything that protects it with this realm. Generation happens in the core; this only
//! renders.
use crate::api::integration::{ProtectMcpServer, mcp_overview};
use crate::components::copy::CopyBlock;
use crate::components::copy::CopyValue;
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::layout::use_abilities;
use crate::components::pager::{Pager, grouped, with_query};
use crate::components::ui::*;
use crate::pages::agents::AgentRow;
use crate::types::{ArtifactView, ProtectionView};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

const FIELDS: &[(&str, &str)] = &[
    ("server_url", "server_url"),
    ("resource_name", "resource_name"),
    ("scopes", "scopes"),
    ("documentation_url", "documentation_url"),
];

#[component]
fn ArtifactCard(a: ArtifactView) -> impl IntoView {
    let (heading, labelled_by) = (
        format!("artifact-{}-title", a.id),
        format!("artifact-{}-title", a.id),
    );
    view! {
        <section class=format!("{CARD} p-4 sm:p-5") aria-labelledby=labelled_by data-testid="artifact">
            <div class="flex flex-wrap items-baseline justify-between gap-2">
                <h3 id=heading class="text-base font-semibold text-slate-900 dark:text-white">{a.title.clone()}</h3>
                <a href=a.reference_url.clone() target="_blank" rel="noopener noreferrer" class="text-xs text-indigo-700 hover:underline dark:text-indigo-300">{a.reference_label.clone()}</a>
            </div>
            <p class=format!("mt-1 mb-3 {MUTED}")>{a.explanation.clone()}</p>
            <CopyBlock value=a.text.clone() label=a.title.clone() testid=format!("artifact-{}", a.id)/>
        </section>
    }
}

#[component]
fn Generated(p: ProtectionView) -> impl IntoView {
    view! {
        <section class="mt-6 space-y-4" aria-label="Generated for your MCP server" data-testid="protection">
            <div class=format!("{CARD} p-4 sm:p-5")>
                <h2 class="text-lg font-semibold text-slate-900 dark:text-white">"Resource"</h2>
                <p class=format!("mt-1 {MUTED}")>"Your server's URL in canonical form: the resource clients name and the audience (aud) of every token for it."</p>
                <p class=format!("mt-2 {MONO} text-slate-900 dark:text-slate-100") data-testid="canonical-resource">{p.resource.clone()}</p>
                {(!p.changes.is_empty()).then(|| view! {
                    <ul class="mt-2 list-disc space-y-1 pl-5 text-sm text-slate-700 dark:text-slate-300" data-testid="canonical-changes">
                        {p.changes.iter().map(|c| view! { <li>{c.clone()}</li> }).collect_view()}
                    </ul>
                })}
                {(!p.scope_notes.is_empty()).then(|| view! {
                    <ul class="mt-2 list-disc space-y-1 pl-5 text-sm text-amber-800 dark:text-amber-300" data-testid="scope-notes">
                        {p.scope_notes.iter().map(|c| view! { <li>{c.clone()}</li> }).collect_view()}
                    </ul>
                })}
            </div>
            {p.artifacts.into_iter().map(|a| view! { <ArtifactCard a/> }).collect_view()}
        </section>
    }
}

/// The "Protect your MCP server" screen of the selected realm.
#[component]
pub fn ProtectPage() -> impl IntoView {
    let generate = ServerAction::<ProtectMcpServer>::new();
    let errors = FieldErrors::new(generate, "protect-form", FIELDS);
    view! {
        <PageHeader title="Protect your MCP server" description="Enter your MCP server's URL: you get the metadata it serves, the challenges it answers, commands to register clients and get tokens, configurations for MCP clients, and a complete server in TypeScript or Python, all for this realm."/>
        <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby="protect-title">
            <h2 id="protect-title" class="sr-only">"Your MCP server"</h2>
            <ActionForm action=generate attr:id="protect-form" attr:class="grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                <Field errors name="server_url" id="protect-url" label="MCP server URL" kind=Kind::Url required=true maxlength=2048 mono=true
                    placeholder="https://mcp.example.com/mcp" help="The URL clients connect to (its MCP endpoint)."/>
                <Field errors name="resource_name" id="protect-name" label="Name (optional)" maxlength=100 placeholder="Payments MCP"
                    help="Shown to people who consent and in client configurations."/>
                <Field errors name="scopes" id="protect-scopes" label="Scopes (optional)" maxlength=1000 mono=true placeholder="tools:call"
                    help="Space-separated: the least the server needs. offline_access never belongs here."/>
                <Field errors name="documentation_url" id="protect-docs" label="Documentation URL (optional)" kind=Kind::Url maxlength=2048
                    placeholder="https://docs.example.com/payments-mcp"/>
                <div class="sm:col-span-2">{errors.form_error()}</div>
                <div class="sm:col-span-2">
                    <button type="submit" class=BTN_PRIMARY disabled=move || generate.pending().get()>"Generate"</button>
                </div>
            </ActionForm>
        </section>
        {move || generate.value().get().and_then(Result::ok).map(|p| view! { <Generated p/> })}
    }
}

/// A figure that links to the list it counts.
#[component]
fn Figure(label: String, value: u64, href: String) -> impl IntoView {
    view! {
        <a href=href class=format!("{CARD} block p-4 hover:border-indigo-300 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:hover:border-indigo-700") data-testid="mcp-figure">
            <span class="block text-2xl font-semibold text-slate-900 dark:text-white">{grouped(value)}</span>
            <span class=MUTED>{label}</span>
        </a>
    }
}

const SHOWN: [(&str, &str); 3] = [
    ("all", "All"),
    ("active", "Active"),
    ("expiring", "Expiring"),
];

/// Integration → MCP authorization: the realm's MCP side, the developer's home.
#[component]
pub fn McpPage() -> impl IntoView {
    let query = use_query_map();
    let show = Memo::new(move |_| {
        query.with(|q| {
            q.get("show")
                .filter(|s| SHOWN.iter().any(|(v, _)| v == s))
                .unwrap_or_else(|| "all".to_owned())
        })
    });
    let window = Memo::new(move |_| {
        query.with(|q| {
            q.get("within")
                .and_then(|d| d.parse::<i64>().ok())
                .filter(|d| (1..=365).contains(d))
                .unwrap_or(14)
        })
    });
    let page = Memo::new(move |_| {
        query.with(|q| q.get("page").and_then(|p| p.parse().ok()).unwrap_or(0u32))
    });
    let overview = Resource::new(
        move || (window.get(), show.get(), page.get()),
        |(w, s, p)| mcp_overview(w, s, p),
    );
    let linked = use_abilities().view_agents;
    let href = move |s: &str| {
        let w = window.get_untracked();
        with_query(
            "/integration",
            &[
                (
                    "show",
                    if s == "all" {
                        String::new()
                    } else {
                        s.to_owned()
                    },
                ),
                (
                    "within",
                    if w == 14 {
                        String::new()
                    } else {
                        w.to_string()
                    },
                ),
            ],
        )
    };
    view! {
        <PageHeader title="MCP authorization" description="This realm as MCP servers and their callers see it: who may call, what is protected, and the endpoints to configure.">
            <a class=format!("{BTN_PRIMARY} whitespace-nowrap") href="/integration/protect">"Protect your MCP server"</a>
        </PageHeader>
        <Transition fallback=|| view! { <Loading/> }>
            {move || overview.get().map(|r| match r {
                Ok(o) => {
                    let within = o.window_days;
                    let shown = show.get();
                    view! {
                        <div class="grid grid-cols-2 gap-4 lg:grid-cols-5" data-testid="mcp-figures">
                            <Figure label="MCP-capable agents".into() value=o.mcp_agents href=href("all")/>
                            <Figure label="Active".into() value=o.active href=href("active")/>
                            <Figure label=format!("Expiring within {within} days") value=o.expiring href=href("expiring")/>
                            <Figure label="Protected resources".into() value=o.resources href="/resources".into()/>
                            {o.pending_reviews.map(|n| view! { <Figure label="Waiting for review".into() value=n href="/review".into()/> })}
                        </div>
                        <section class=format!("{CARD} mt-6") aria-labelledby="mcp-agents-title">
                            <div class="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 p-4 dark:border-slate-700">
                                <h2 id="mcp-agents-title" class="text-lg font-semibold text-slate-900 dark:text-white">"MCP-capable agents"</h2>
                                <nav aria-label="Which agents" class="flex flex-wrap gap-2">
                                    {SHOWN.iter().map(|(v, l)| {
                                        let current = shown == *v;
                                        view! { <a href=href(v) class=if current { BTN_PRIMARY } else { BTN_SECONDARY } aria-current=current.then_some("page")>{*l}</a> }
                                    }).collect_view()}
                                </nav>
                            </div>
                            {if o.agents.is_empty() {
                                view! { <EmptyState title="No agent here" hint="Agents holding the mcp role or an mcp:* role may call MCP servers; an admin gives them roles on the Agents screen."/> }.into_any()
                            } else {
                                let (total, page_now) = (o.listed, o.page);
                                let shown_for_pages = shown.clone();
                                view! {
                                    <table class="block w-full text-sm sm:table">
                                        <thead class=CARDS_HEAD>
                                            <tr>
                                                <th class=TH scope="col">"Agent and owner"</th>
                                                <th class=TH scope="col">"Roles"</th>
                                                <th class=TH scope="col">"Status and expiry"</th>
                                                <th class=TH scope="col">"Bound clients"</th>
                                            </tr>
                                        </thead>
                                        <tbody class=CARDS_BODY>
                                            {o.agents.into_iter().map(|agent| view! { <AgentRow agent linked/> }).collect_view()}
                                        </tbody>
                                    </table>
                                    <Pager total=total page=page_now page_size=crate::types::PAGE_SIZE
                                        href=move |p| with_query("/integration", &[
                                            ("show", if shown_for_pages == "all" { String::new() } else { shown_for_pages.clone() }),
                                            ("within", if within == 14 { String::new() } else { within.to_string() }),
                                            ("page", if p == 0 { String::new() } else { p.to_string() }),
                                        ])/>
                                }.into_any()
                            }}
                        </section>
                        <section class=format!("{CARD} mt-6 p-4 sm:p-6") aria-labelledby="mcp-endpoints-title">
                            <h2 id="mcp-endpoints-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Authorization-server endpoints"</h2>
                            <p class=format!("mt-1 {MUTED}")>"What MCP servers and clients configure to trust this realm."</p>
                            <dl class="mt-4 space-y-4" data-testid="mcp-endpoints">
                                {o.endpoints.iter().map(|(label, url)| view! {
                                    <div>
                                        <dt class=MUTED>{label.clone()}</dt>
                                        <dd class="mt-1"><CopyValue value=url.clone() label=label.to_lowercase()/></dd>
                                    </div>
                                }).collect_view()}
                            </dl>
                        </section>
                    }.into_any()
                }
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}
