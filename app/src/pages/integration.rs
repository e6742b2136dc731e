//! Integration → Protect your MCP server: a developer enters their MCP server's URL and copies
//! everything that protects it with this realm. Generation happens in the core; this only
//! renders.
use crate::api::integration::{
    CheckMcpServer, ProtectMcpServer, RegisterProtectedResource, mcp_overview,
};
use crate::components::copy::CopyBlock;
use crate::components::copy::CopyValue;
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::layout::use_abilities;
use crate::components::pager::{KeyPager, grouped, use_key_params, with_query};
use crate::components::ui::*;
use crate::pages::agents::AgentRow;
use crate::types::integration::{
    ArtifactView, CheckStepView, McpCheckView, ProtectionView, RegisteredView,
};
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

/// Where the generated server stands in the realm: registered (with its state), or a button
/// that registers it (admins) or submits it for an admin to enable (developers).
#[component]
fn Registration(
    p: ProtectionView,
    register: ServerAction<RegisterProtectedResource>,
) -> impl IntoView {
    let can = use_abilities();
    let known = p.registered.clone();
    let done = move || {
        register
            .value()
            .get()
            .and_then(Result::ok)
            .or_else(|| known.clone())
    };
    let failed = move || {
        register
            .value()
            .get()
            .and_then(Result::err)
            .map(|e| view! { <p role="alert" class="mt-2 text-sm text-red-700 dark:text-red-300" data-testid="register-error">{e.to_string()}</p> })
    };
    // Submitting replaces the button with where the server stands: focus goes there.
    Effect::new(move |_| {
        if let Some(Ok(_)) = register.value().get() {
            crate::components::ui::focus_soon("registered-note");
        }
    });
    let (label, note) = if can.manage_resources {
        (
            "Register as a protected resource",
            "Creates the resource with this URL, name and scopes: the realm issues tokens for it at once.",
        )
    } else {
        (
            "Submit for an admin to enable",
            "Creates the resource disabled, with your name on it: an admin enables it on the Resources screen.",
        )
    };
    view! {
        <div class="mt-4 border-t border-slate-200 pt-4 dark:border-slate-700" data-testid="registration">
            {move || match done() {
                Some(r) => view! { <RegisteredNote r/> }.into_any(),
                None if (can.manage_resources || can.submit_resources) && p.scopes.is_empty() => view! {
                    <p class=MUTED data-testid="register-needs-scopes">"To register it here, name at least one scope above and generate again: tokens carry only the scopes a resource accepts."</p>
                }.into_any(),
                None if can.manage_resources || can.submit_resources => {
                    let (url, name, scopes) = (p.resource.clone(), p.name.clone(), p.scopes.join(" "));
                    view! {
                        <ActionForm action=register attr:class="flex flex-wrap items-center gap-3">
                            <input type="hidden" name="server_url" value=url/>
                            <input type="hidden" name="resource_name" value=name/>
                            <input type="hidden" name="scopes" value=scopes/>
                            <button type="submit" class=BTN_SECONDARY disabled=move || register.pending().get()>{label}</button>
                            <span class=MUTED>{note}</span>
                        </ActionForm>
                        {failed}
                    }.into_any()
                }
                None => view! { <p class=MUTED>"Not registered in this realm yet: an admin registers it on the Resources screen."</p> }.into_any(),
            }}
        </div>
    }
}

#[component]
fn RegisteredNote(r: RegisteredView) -> impl IntoView {
    let state = match (&r.submitted_by, &r.rejection, r.enabled) {
        (Some(_), Some(why), _) => {
            format!("Rejected by an admin: {why} Withdraw it from its page to submit it again.")
        }
        (Some(by), None, _) => format!("Submitted by {by}: waiting for an admin to enable it."),
        (None, _, true) => "Registered: the realm issues tokens for it.".to_owned(),
        (None, _, false) => {
            "Registered but disabled: the realm issues no tokens for it.".to_owned()
        }
    };
    view! {
        <p id="registered-note" tabindex="-1" class="text-sm text-slate-700 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:text-slate-200" data-testid="registered">
            <a class="font-medium text-indigo-700 break-words hover:underline dark:text-indigo-300" href=format!("/resources/{}", r.slug)>{r.display_name.clone()}</a>
            " "<span class="font-mono text-xs text-slate-500 dark:text-slate-400">{r.slug.clone()}</span>
            <span class="block">{state}</span>
        </p>
    }
}

/// Where MCP clients that register themselves wait in this realm, and who lets them in.
#[component]
fn ClientReview(waiting: u64, can_review: bool) -> impl IntoView {
    let now = match waiting {
        0 => "None waits now.".to_owned(),
        1 => "1 client waits now.".to_owned(),
        n => format!("{n} clients wait now."),
    };
    view! {
        <div class=format!("{CARD} border-amber-300 p-4 sm:p-5 dark:border-amber-700") data-testid="client-review-note">
            <h2 class="text-lg font-semibold text-slate-900 dark:text-white">"New clients wait for a security review"</h2>
            <p class="mt-1 text-sm text-slate-700 dark:text-slate-200">
                "In this realm an MCP client that registers itself (VS Code, Claude Code, the SDKs, the registration command below) gets no tokens until a security reviewer approves it; until then its sign-in page says it awaits approval. "
                {now}
            </p>
            <p class="mt-2 text-sm">
                {if can_review {
                    view! { <a class="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href="/review">"Open the Security review queue →"</a> }.into_any()
                } else {
                    view! { <span class="text-slate-700 dark:text-slate-200">"Ask a security reviewer to approve yours: they decide it in their review queue. If it is rejected, your Overview says why (when the client names you as a contact)."</span> }.into_any()
                }}
            </p>
        </div>
    }
}

#[component]
fn Generated(p: ProtectionView) -> impl IntoView {
    let register = ServerAction::<RegisterProtectedResource>::new();
    let registered = p.registered.is_some();
    let new_scopes = p.new_scopes.join(", ");
    let show_new = move || {
        !new_scopes.is_empty() && !registered && !matches!(register.value().get(), Some(Ok(_)))
    };
    let new_note = {
        let new_scopes = p.new_scopes.join(", ");
        move || {
            show_new().then(|| view! {
            <p class="mt-2 text-sm text-amber-800 dark:text-amber-300" data-testid="new-scopes">
                {format!("No resource of this realm accepts {new_scopes} yet: tokens carry them once the server is registered with them.")}
            </p>
        })
        }
    };
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
                {new_note}
                <Registration p=p.clone() register/>
                <p class="mt-3 text-sm">
                    <a class="text-indigo-700 hover:underline dark:text-indigo-300" href=with_query("/integration/check", &[("url", p.resource.clone())])>"Check the server once it runs →"</a>
                </p>
            </div>
            {p.client_review.map(|(waiting, can_review)| view! { <ClientReview waiting can_review/> })}
            <Sections artifacts=p.artifacts/>
        </section>
    }
}

/// Artifacts under one label (a tab's title; empty outside tabs), by id.
type Group = (&'static str, &'static [&'static str]);

/// The generated artifacts in sections (id, title, tabbed, groups): a section's artifacts one
/// after the other, or (tabbed) one tab per group, where a reader wants one of them (a
/// language, a client).
const SECTIONS: [(&str, &str, bool, &[Group]); 4] = [
    (
        "serve",
        "What your server serves",
        false,
        &[
            ("", &["metadata", "metadata-urls"]),
            ("", &["challenge", "step-up"]),
        ],
    ),
    (
        "tokens",
        "Register a client and get a token",
        false,
        &[("", &["register", "metadata-document", "token", "call"])],
    ),
    (
        "code",
        "A complete server",
        true,
        &[
            ("TypeScript", &["typescript"]),
            ("Rust", &["rust-dependencies", "rust"]),
            ("Python", &["python"]),
        ],
    ),
    (
        "clients",
        "Connect MCP clients",
        true,
        &[
            ("VS Code", &["vscode"]),
            ("Claude Code", &["claude-code"]),
            ("MCP Inspector", &["inspector"]),
        ],
    ),
];

/// Scrolls to the section heading `id` and focuses it (a table of contents link).
fn go_to(ev: leptos::ev::MouseEvent, id: &str) {
    ev.prevent_default();
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        if let Some(el) = document()
            .get_element_by_id(id)
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            el.scroll_into_view();
            let _ = el.focus();
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = id;
}

/// The generated artifacts under a table of contents: sections, code and client configurations
/// in tabs (one language or client at a time), anything the sections do not name last.
#[component]
fn Sections(artifacts: Vec<ArtifactView>) -> impl IntoView {
    let mut left = artifacts;
    let mut take = |ids: &[&str]| -> Vec<ArtifactView> {
        let mut out = Vec::new();
        for id in ids {
            if let Some(i) = left.iter().position(|a| a.id == *id) {
                out.push(left.remove(i));
            }
        }
        out
    };
    let mut sections: Vec<(&'static str, &'static str, AnyView)> = Vec::new();
    for (id, title, tabbed, groups) in SECTIONS {
        let groups: Vec<(String, Vec<ArtifactView>)> = groups
            .iter()
            .map(|(label, ids)| ((*label).to_owned(), take(ids)))
            .filter(|(_, found)| !found.is_empty())
            .collect();
        if groups.is_empty() {
            continue;
        }
        let body = if tabbed {
            let tabs = groups
                .into_iter()
                .map(|(label, found)| {
                    (
                        label,
                        view! { <div class="space-y-4">{found.into_iter().map(|a| view! { <ArtifactCard a/> }).collect_view()}</div> }.into_any(),
                    )
                })
                .collect();
            view! { <crate::components::tabs::Tabs id=id label=title tabs/> }.into_any()
        } else {
            groups
                .into_iter()
                .flat_map(|(_, found)| found)
                .map(|a| view! { <ArtifactCard a/> })
                .collect_view()
                .into_any()
        };
        sections.push((id, title, body));
    }
    if !left.is_empty() {
        sections.push((
            "more",
            "More",
            left.into_iter()
                .map(|a| view! { <ArtifactCard a/> })
                .collect_view()
                .into_any(),
        ));
    }
    let toc: Vec<(String, &'static str)> = sections
        .iter()
        .map(|(id, title, _)| (format!("protect-{id}"), *title))
        .collect();
    view! {
        <nav aria-label="On this page" class=format!("{CARD} p-4") data-testid="protect-toc">
            <h2 class="text-sm font-semibold text-slate-900 dark:text-white">"On this page"</h2>
            <ol class="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-sm">
                {toc.into_iter().map(|(target, title)| {
                    let href = format!("#{target}");
                    view! {
                        <li><a class="text-indigo-700 hover:underline dark:text-indigo-300" href=href
                            on:click=move |ev| go_to(ev, &target)>{title}</a></li>
                    }
                }).collect_view()}
            </ol>
        </nav>
        {sections.into_iter().map(|(id, title, body)| view! {
            <section class="space-y-4" aria-labelledby=format!("protect-{id}")>
                <h2 id=format!("protect-{id}") tabindex="-1" class="pt-2 text-lg font-semibold text-slate-900 focus:outline-none dark:text-white">{title}</h2>
                {body}
            </section>
        }).collect_view()}
    }
}

/// The "Protect your MCP server" screen of the selected realm. It can start from a resource the
/// realm has (`?resource=<id>`, or the picker above the form): its URL, name and scopes fill the
/// form and are generated at once.
#[component]
pub fn ProtectPage() -> impl IntoView {
    let generate = ServerAction::<ProtectMcpServer>::new();
    let errors = FieldErrors::new(generate, "protect-form", FIELDS);
    let (url, name, scopes) = (
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
        RwSignal::new(String::new()),
    );
    let docs = RwSignal::new(String::new());
    let resources = Resource::new(|| (), |_| crate::api::resources::list_resources());
    let start_from = move |r: &crate::types::resources::ResourceView| {
        url.set(r.uri.clone());
        name.set(r.display_name.clone());
        scopes.set(r.scopes.clone());
        docs.set(String::new());
        errors.clear();
        generate.dispatch(ProtectMcpServer {
            server_url: r.uri.clone(),
            resource_name: r.display_name.clone(),
            scopes: r.scopes.clone(),
            documentation_url: String::new(),
        });
    };
    // A link from a resource's page starts from it once its list is here.
    let query = use_query_map();
    let started = StoredValue::new(false);
    Effect::new(move |_| {
        let wanted = query.with(|q| q.get("resource")).filter(|s| !s.is_empty());
        if let (Some(slug), Some(Ok(list))) = (wanted, resources.get())
            && !started.get_value()
            && let Some(r) = list.iter().find(|r| r.slug == slug)
        {
            started.set_value(true);
            start_from(r);
        }
    });
    let picker = move || {
        resources.get().and_then(Result::ok).filter(|l| !l.is_empty()).map(|list| {
            let shown = list.clone();
            view! {
                <div class="sm:col-span-2">
                    <label class=LABEL for="protect-start">"Start from a resource of this realm (optional)"</label>
                    <select class=format!("mt-1 {INPUT}") id="protect-start"
                        on:change=move |ev| {
                            let slug = event_target_value(&ev);
                            if let Some(r) = list.iter().find(|r| r.slug == slug) {
                                start_from(r);
                            }
                        }>
                        <option value="">"A new MCP server"</option>
                        {shown.into_iter().map(|r| view! { <option value=r.slug.clone()>{format!("{} ({})", r.display_name, r.uri)}</option> }).collect_view()}
                    </select>
                </div>
            }
        })
    };
    view! {
        <PageHeader title="Protect your MCP server" description="Enter your MCP server's URL: you get the metadata it serves, the challenges it answers, commands to register clients and get tokens, configurations for MCP clients, and a complete server in TypeScript, Rust or Python, all for this realm."/>
        <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby="protect-title">
            <h2 id="protect-title" class="sr-only">"Your MCP server"</h2>
            <ActionForm action=generate attr:id="protect-form" attr:class="grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                <Transition fallback=|| ()>{picker}</Transition>
                <Field errors name="server_url" id="protect-url" label="MCP server URL" kind=Kind::Url required=true maxlength=2048 mono=true bind=url
                    placeholder="https://mcp.example.com/mcp" help="The URL clients connect to (its MCP endpoint)."/>
                <Field errors name="resource_name" id="protect-name" label="Name (optional)" maxlength=100 placeholder="Payments MCP" bind=name
                    help="Shown to people who consent and in client configurations."/>
                <Field errors name="scopes" id="protect-scopes" label="Scopes" maxlength=1000 mono=true placeholder="tools:call" bind=scopes
                    help="Space-separated: the least the server needs (at least one to register it here). offline_access never belongs here."/>
                <Field errors name="documentation_url" id="protect-docs" label="Documentation URL (optional)" kind=Kind::Url maxlength=2048 bind=docs
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
    let page = use_key_params();
    let overview = Resource::new(
        move || (window.get(), show.get(), page.get()),
        |(w, s, (after, before))| mcp_overview(w, s, after, before),
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
                    let own = o.own_only;
                    view! {
                        <div class="grid grid-cols-2 gap-4 lg:grid-cols-5" data-testid="mcp-figures">
                            <Figure label=if own { "Your MCP-capable agents" } else { "MCP-capable agents" }.into() value=o.mcp_agents href=href("all")/>
                            <Figure label="Active".into() value=o.active href=href("active")/>
                            <Figure label=format!("Expiring within {within} {}", if within == 1 { "day" } else { "days" }) value=o.expiring href=href("expiring")/>
                            <Figure label="Protected resources".into() value=o.resources href="/resources".into()/>
                            {o.pending_reviews.map(|n| view! { <Figure label="Clients waiting for review".into() value=n href="/review".into()/> })}
                            {(o.submitted > 0).then(|| view! { <Figure label="Resources waiting for an admin".into() value=o.submitted href="/resources?waiting=1".into()/> })}
                        </div>
                        <form method="get" action="/integration" class="mt-4 flex flex-wrap items-end gap-3" aria-label="Expiry window" data-testid="expiry-window">
                            {(shown != "all").then(|| view! { <input type="hidden" name="show" value=shown.clone()/> })}
                            <div>
                                <label for="expiry-window" class=LABEL>"Expiring within (days)"</label>
                                <input id="expiry-window" name="within" type="number" min="1" max="365" step="1" required value=within.to_string() class=format!("{INPUT} mt-1 w-28")/>
                            </div>
                            <button type="submit" class=BTN_SECONDARY>"Apply"</button>
                        </form>
                        <section class=format!("{CARD} mt-6") aria-labelledby="mcp-agents-title">
                            <div class="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 p-4 dark:border-slate-700">
                                <div>
                                    <h2 id="mcp-agents-title" class="text-lg font-semibold text-slate-900 dark:text-white">{if own { "Your MCP-capable agents" } else { "MCP-capable agents" }}</h2>
                                    {own.then(|| view! { <p class=MUTED>"Only agents you own are shown; an admin sees all of the realm's."</p> })}
                                </div>
                                <nav aria-label="Which agents" class="flex flex-wrap gap-2">
                                    {SHOWN.iter().map(|(v, l)| {
                                        let current = shown == *v;
                                        view! { <a href=href(v) class=if current { BTN_PRIMARY } else { BTN_SECONDARY } aria-current=current.then_some("page")>{*l}</a> }
                                    }).collect_view()}
                                </nav>
                            </div>
                            {if o.agents.items.is_empty() {
                                view! { <EmptyState title="No agent here" hint=if own { "You own no agent holding the mcp role or an mcp:* role; an admin creates agents and gives them roles on the Agents screen." } else { "Agents holding the mcp role or an mcp:* role may call MCP servers; an admin gives them roles on the Agents screen." }/> }.into_any()
                            } else {
                                let (total, before, shown_rows, prev, next) = (o.agents.total, o.agents.before, o.agents.items.len(), o.agents.prev, o.agents.next);
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
                                            {o.agents.items.into_iter().map(|agent| view! { <AgentRow agent linked/> }).collect_view()}
                                        </tbody>
                                    </table>
                                    <KeyPager total=total before shown=shown_rows prev next
                                        href=move |key| with_query("/integration", &[
                                            ("show", if shown_for_pages == "all" { String::new() } else { shown_for_pages.clone() }),
                                            ("within", if within == 14 { String::new() } else { within.to_string() }),
                                        ].into_iter().chain(key).collect::<Vec<_>>())/>
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

fn verdict_pill(verdict: &str) -> impl IntoView + use<> {
    let (tone, text) = match verdict {
        "pass" => (Tone::Good, "Pass"),
        "warn" => (Tone::Warn, "Warning"),
        "fail" => (Tone::Bad, "Fail"),
        _ => (Tone::Off, "Not run"),
    };
    view! { <Pill tone text/> }
}

#[component]
fn CheckStepCard(n: usize, step: CheckStepView) -> impl IntoView {
    let (heading, labelled_by) = (
        format!("check-step-{}", step.id),
        format!("check-step-{}", step.id),
    );
    view! {
        <li class=format!("{CARD} p-4 sm:p-5") aria-labelledby=labelled_by data-testid="check-step" data-step=step.id.clone() data-verdict=step.verdict.clone()>
            <div class="flex flex-wrap items-start justify-between gap-2">
                <h3 id=heading class="min-w-0 text-base font-semibold text-slate-900 dark:text-white">{format!("{n}. {}", step.title)}</h3>
                {verdict_pill(&step.verdict)}
            </div>
            <p class="mt-1 text-sm break-words text-slate-700 dark:text-slate-300">{step.reason.clone()}</p>
            {(!step.exchanges.is_empty()).then(|| view! {
                <details class="mt-3">
                    <summary class="cursor-pointer text-sm text-indigo-700 hover:underline dark:text-indigo-300">"What was sent and what came back"</summary>
                    {step.exchanges.iter().map(|(req, res)| view! {
                        <div class="mt-2 grid gap-2 lg:grid-cols-2">
                            <div class="min-w-0"><p class=MUTED>"Sent"</p><CopyBlock value=req.clone() label="the request"/></div>
                            <div class="min-w-0"><p class=MUTED>"Received"</p><CopyBlock value=res.clone() label="the response"/></div>
                        </div>
                    }).collect_view()}
                </details>
            })}
        </li>
    }
}

#[component]
fn CheckResult(c: McpCheckView) -> impl IntoView {
    // The result takes focus, so keyboard and screen-reader users land on it.
    let heading = NodeRef::<leptos::html::H2>::new();
    Effect::new(move |_| {
        if let Some(h) = heading.get() {
            let _ = h.focus();
        }
    });
    let failed = c.steps.iter().filter(|s| s.verdict == "fail").count();
    let warned = c.steps.iter().filter(|s| s.verdict == "warn").count();
    let open_door = c
        .steps
        .iter()
        .any(|s| s.id == "forged_token" && s.verdict == "fail");
    let summary = match (failed, warned) {
        _ if open_door => format!("{failed} of {} steps failed. The server accepts tokens this realm did not sign: anyone can call it.", c.steps.len()),
        (0, 0) => "Every step passed: MCP clients can discover this realm from the server, and it refuses tokens it should refuse.".to_owned(),
        (0, w) => format!("No step failed; {w} worth a look."),
        (f, _) => format!("{f} of {} steps failed: MCP clients will not get through (see why below).", c.steps.len()),
    };
    let tone = if c.passed {
        "mt-2 text-sm font-medium text-emerald-700 dark:text-emerald-300"
    } else {
        "mt-2 text-sm font-medium text-red-700 dark:text-red-300"
    };
    view! {
        <section class="mt-6" aria-labelledby="check-result-title" data-testid="check-result">
            <div class=format!("{CARD} p-4 sm:p-5")>
                <h2 id="check-result-title" tabindex="-1" node_ref=heading class="text-lg font-semibold text-slate-900 focus:outline-none dark:text-white">"Result"</h2>
                <p class=format!("mt-1 {MONO} text-slate-700 dark:text-slate-300")>{c.url.clone()}</p>
                <p class=tone role="status" data-testid="check-summary">{summary}</p>
            </div>
            <ol class="mt-4 space-y-4">
                {c.steps.into_iter().enumerate().map(|(i, step)| view! { <CheckStepCard n=i + 1 step/> }).collect_view()}
            </ol>
        </section>
    }
}

/// Integration → Check an MCP server: the handshake tester.
#[component]
pub fn CheckPage() -> impl IntoView {
    let check = ServerAction::<CheckMcpServer>::new();
    let errors = FieldErrors::new(check, "check-form", &[("server_url", "server_url")]);
    let query = use_query_map();
    let typed = query.with_untracked(|q| q.get("url").unwrap_or_default());
    view! {
        <PageHeader title="Check an MCP server" description="Portcullis plays an MCP client against your server: a request without a token, its protected-resource metadata, this realm as its authorization server, its registration here, and a token this realm did not sign. Each step shows what was sent, what came back, and why it passes or fails."/>
        <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby="check-title">
            <h2 id="check-title" class="sr-only">"Your MCP server"</h2>
            <ActionForm action=check attr:id="check-form" attr:class="grid gap-4" on:input=move |_| errors.clear()>
                <Field errors name="server_url" id="check-url" label="MCP server URL" kind=Kind::Url required=true maxlength=2048 mono=true value=typed
                    placeholder="https://mcp.example.com/mcp" help="Its MCP endpoint. Portcullis reaches it like an MCP client on the internet: public addresses only (this machine too, with a development setting)."/>
                <div>{errors.form_error()}</div>
                <div>
                    <button type="submit" class=BTN_PRIMARY disabled=move || check.pending().get()>
                        {move || if check.pending().get() { "Checking…" } else { "Check" }}
                    </button>
                </div>
            </ActionForm>
        </section>
        {move || check.value().get().and_then(Result::ok).map(|c| view! { <CheckResult c/> })}
    }
}
