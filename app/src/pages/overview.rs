//! The selected realm at a glance: endpoints to copy, what it holds, and the way to a first token.
use crate::api::overview::realm_overview;
use crate::components::copy::CopyValue;
use crate::components::layout::use_session;
use crate::components::pager::{encode, grouped};
use crate::components::ui::*;
use crate::types::overview::{OverviewView, RejectionView};
use leptos::prelude::*;

/// A count that links to its list.
#[component]
fn Count(label: &'static str, value: Option<u64>, href: &'static str) -> impl IntoView {
    value.map(|n| {
        view! {
            <a href=href class=format!("{CARD} block p-4 hover:border-indigo-300 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:hover:border-indigo-700") data-testid="overview-count">
                <span class="block text-2xl font-semibold text-slate-900 dark:text-white">{grouped(n)}</span>
                <span class=MUTED>{label}</span>
            </a>
        }
    })
}

/// One step of the getting-started checklist.
#[component]
fn Step(done: bool, title: &'static str, children: Children) -> impl IntoView {
    view! {
        <li class="flex gap-3 py-3" data-testid="checklist-step" data-done=done.to_string()>
            <span aria-hidden="true" class=if done { "mt-0.5 flex h-5 w-5 shrink-0 items-center justify-center rounded-full bg-emerald-600 text-xs text-white" } else { "mt-0.5 flex h-5 w-5 shrink-0 items-center justify-center rounded-full border border-slate-300 text-xs dark:border-slate-600" }>
                {if done { "✓" } else { "" }}
            </span>
            <div class="min-w-0 flex-1">
                <p class="text-sm font-medium text-slate-900 dark:text-white">
                    {title} <span class="sr-only">{if done { " (done)" } else { " (to do)" }}</span>
                </p>
                <div class=format!("mt-1 {MUTED}")>{children()}</div>
            </div>
        </li>
    }
}

/// MCP servers submitted by developers that wait for an admin: an admin learns there is work,
/// a developer that theirs is on its way.
fn waiting(n: u64) -> impl IntoView {
    let can = crate::components::layout::use_abilities();
    (n > 0).then(|| {
        let servers = if n == 1 { "MCP server".to_owned() } else { format!("{n} MCP servers") };
        let text = if can.manage_resources {
            if n == 1 {
                "An MCP server a developer submitted waits for you to enable or reject it.".to_owned()
            } else {
                format!("{servers} developers submitted wait for you to enable or reject them.")
            }
        } else if n == 1 {
            "Your MCP server waits for an admin to enable it.".to_owned()
        } else {
            format!("Your {servers} wait for an admin to enable them.")
        };
        view! {
            <p data-testid="submissions-waiting" class="mb-6 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100">
                {text} " " <a class="font-medium underline" href="/resources">"Resources"</a>
            </p>
        }
    })
}

fn checklist(o: &OverviewView) -> impl IntoView {
    let can = crate::components::layout::use_abilities();
    let has_resource = o.resources.unwrap_or(0) > 0;
    let has_grant = o.grants.unwrap_or(0) > 0;
    let has_token = o.grants_used.unwrap_or(0) > 0;
    let token = o
        .endpoints
        .iter()
        .find(|(l, _)| l == "Token")
        .map(|(_, u)| u.clone())
        .unwrap_or_default();
    let curl = format!(
        "curl -s -u \"$CLIENT_ID:$CLIENT_SECRET\" -d grant_type=client_credentials --data-urlencode \"resource=$MCP_SERVER_URI\" {token}"
    );
    view! {
        <section class=format!("{CARD} mt-6 p-4 sm:p-6") aria-labelledby="start-title" data-testid="checklist">
            <h2 id="start-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Getting started"</h2>
            <ol class="mt-2 divide-y divide-slate-200 dark:divide-slate-700">
                <Step done=has_resource title="Register an MCP server">
                    {if can.manage_resources {
                        view! {
                            "Add it on " <a class="text-indigo-700 underline dark:text-indigo-300" href="/resources">"Resources"</a>
                            " with the URI its clients connect to; tokens carry it as their audience."
                        }.into_any()
                    } else {
                        view! {
                            "Submit it from " <a class="text-indigo-700 underline dark:text-indigo-300" href="/integration/protect">"Protect your MCP server"</a>
                            "; an admin enables it, and tokens then carry its URI as their audience."
                        }.into_any()
                    }}
                </Step>
                <Step done=has_grant title="Grant a client access">
                    {if can.view_clients {
                        view! {
                            "Create a client on " <a class="text-indigo-700 underline dark:text-indigo-300" href="/clients">"Clients"</a>
                            " and grant it the MCP server with the scopes it needs (bind it to an agent to carry an agent's identity)."
                        }.into_any()
                    } else {
                        view! { "An admin creates a client and grants it the MCP server with the scopes it needs." }.into_any()
                    }}
                </Step>
                <Step done=has_token title="Get a token">
                    <p>"With the client's credentials, for the MCP server's URI:"</p>
                    <div class="mt-2" data-testid="token-curl"><CopyValue value=curl label="curl command"/></div>
                </Step>
            </ol>
        </section>
    }
}

/// What of the viewer's was rejected, with the reason and what to do next: a developer learns it
/// where they work.
fn rejections(list: Vec<RejectionView>) -> impl IntoView {
    let can = crate::components::layout::use_abilities();
    (!list.is_empty()).then(|| view! {
        <section class="mb-6 rounded-lg border border-red-200 bg-red-50 p-4 sm:p-6 dark:border-red-900 dark:bg-red-950" aria-labelledby="rejections-title" data-testid="rejections">
            <h2 id="rejections-title" class="text-lg font-semibold text-red-900 dark:text-red-100">"Rejected in the last 30 days"</h2>
            <p class="mt-1 text-sm text-red-800 dark:text-red-200">"What you submitted, or a client that names you as a contact, was turned down:"</p>
            <ul class="mt-3 divide-y divide-red-200 dark:divide-red-900">
                {list.into_iter().map(|r| {
                    let resource = r.kind == "resource";
                    let href = if resource {
                        Some(format!("/resources/{}", encode(&r.id)))
                    } else {
                        can.view_clients.then(|| format!("/clients/{}", encode(&r.id)))
                    };
                    let what = if resource { "Resource" } else { "Client" };
                    let next = if resource {
                        "Open it to see the details; withdraw it there to submit it again."
                    } else {
                        "It gets no tokens. Fix what the reason says and register it again, or ask a security reviewer."
                    };
                    let reason = if r.reason.is_empty() { "No reason was given.".to_owned() } else { r.reason.clone() };
                    view! {
                        <li class="py-3 text-sm text-red-900 dark:text-red-100" data-testid="rejection">
                            <p class="break-words">
                                <span class="font-semibold">{what}" "</span>
                                {
                                    // A client's name is its registrant's words: shown only to
                                    // those who may see clients (the core leaves it out otherwise).
                                    let name = if r.name.is_empty() { format!("registered by itself {}", r.registered.ago) } else { r.name.clone() };
                                    match href.filter(|_| !r.name.is_empty()) {
                                        Some(href) => view! { <a class="font-semibold underline" href=href>{name}</a> }.into_any(),
                                        None => view! { <span class="font-semibold">{name}</span> }.into_any(),
                                    }
                                }
                                {(!r.id.is_empty()).then(|| view! { " " <code class="font-mono text-xs break-all">"("{r.id.clone()}")"</code> })}
                            </p>
                            <p class="mt-1 break-words">"Reason: "{reason}</p>
                            <p class="mt-1 text-xs">
                                <span title=r.at.at.clone()>{format!("Rejected {}", r.at.ago)}</span>
                                {(!r.by.is_empty()).then(|| format!(" by {}", r.by))}
                                ". " {next}
                            </p>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </section>
    })
}

/// Overview of the selected realm.
#[component]
pub fn OverviewPage() -> impl IntoView {
    let session = use_session();
    let overview = Resource::new(|| (), |_| realm_overview());
    view! {
        <PageHeader title="Overview" description="The realm selected in the sidebar: its endpoints, what it holds, and the way to a first token."/>
        <Suspense fallback=|| view! { <Loading/> }>
            {move || session.get().and_then(Result::ok).flatten().map(|info| {
                let realm = info.realm.clone();
                view! {
                    <div class="mb-6 flex flex-wrap items-center gap-2">
                        <h2 class="text-lg font-semibold break-words text-slate-900 dark:text-white">{realm.display_name.clone()}</h2>
                        <span class="font-mono text-xs text-slate-500 dark:text-slate-400">{realm.name.clone()}</span>
                        <Badge ok=realm.enabled text=if realm.enabled { "Enabled" } else { "Disabled" }/>
                    </div>
                }
            })}
        </Suspense>
        <Transition fallback=|| view! { <Loading/> }>
            {move || overview.get().map(|result| match result {
                Ok(o) => view! {
                    {rejections(o.rejections.clone())}
                    {waiting(o.submissions_waiting)}
                    <div class="grid grid-cols-2 gap-4 sm:grid-cols-4">
                        <Count label="Resources" value=o.resources href="/resources"/>
                        <Count label="Clients" value=o.clients href="/clients"/>
                        <Count label="Agents" value=o.agents href="/agents"/>
                        <Count label="MCP-capable agents" value=o.mcp_agents href="/agents?mcp=1"/>
                    </div>
                    <section class=format!("{CARD} mt-6 p-4 sm:p-6") aria-labelledby="endpoints-title">
                        <h2 id="endpoints-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Endpoints"</h2>
                        <p class=format!("mt-1 {MUTED}")>"What MCP servers and clients configure to trust this realm. Tokens carry the issuer in iss."</p>
                        <dl class="mt-4 space-y-4" data-testid="endpoints">
                            {o.endpoints.iter().map(|(label, url)| {
                                let testid = if label == "Issuer" { "issuer" } else { "endpoint" };
                                view! {
                                    <div>
                                        <dt class=MUTED>{label.clone()}</dt>
                                        <dd class="mt-1" data-testid=testid><CopyValue value=url.clone() label=label.to_lowercase()/></dd>
                                    </div>
                                }
                            }).collect_view()}
                        </dl>
                    </section>
                    {checklist(&o)}
                }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}
