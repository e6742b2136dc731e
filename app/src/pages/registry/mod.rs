//! The MCP server registry's screens.
//!
//! The draft's servers (this file), one server and its form (`server`), importing a
//! `server.json` (`import`), publishing, approval and releases (`publish`), rings and units
//! (`groups`), delivery to harnesses (`deliver`), and what laptops report (`drift`).
use crate::api::registry::registry_overview;
use crate::components::copy::Truncated;
use crate::components::layout::use_abilities;
use crate::components::pager::{Pager, with_query};
use crate::components::ui::*;
use crate::types::registry::{DiffView, FieldChangeView, RegistryView, ServerRow, UnitView};
use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

pub mod deliver;
pub mod drift;
pub mod groups;
mod import;
pub mod publish;
pub mod server;

/// Servers per page of the list.
const SERVERS_PAGE: usize = 50;

/// The registry's screens, as tabs above each of them.
#[component]
pub fn RegistryTabs(
    /// The current tab's path.
    current: &'static str,
) -> impl IntoView {
    let can = use_abilities();
    let tabs = [
        ("/registry", "Servers"),
        ("/registry/publish", "Publish & releases"),
        ("/registry/groups", "Rings & units"),
        ("/registry/deliver", "Deliver"),
        // People's devices: for those who may see the realm's people.
        ("/registry/drift", "Drift"),
    ]
    .into_iter()
    .filter(move |(href, _)| *href != "/registry/drift" || can.view_people);
    view! {
        <nav aria-label="Registry" class="-mt-2 mb-6 flex gap-1 overflow-x-auto border-b border-slate-200 dark:border-slate-700">
            {tabs.map(|(href, label)| {
                let here = href == current;
                view! {
                    <a href=href aria-current=here.then_some("page")
                        class=if here {
                            "whitespace-nowrap border-b-2 border-indigo-600 px-3 py-2 text-sm font-medium text-indigo-700 dark:border-indigo-400 dark:text-indigo-300"
                        } else {
                            "whitespace-nowrap border-b-2 border-transparent px-3 py-2 text-sm font-medium text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white"
                        }>{label}</a>
                }
            }).collect_view()}
        </nav>
    }
}

/// A server's state against the latest release.
pub fn state_pill(state: &str) -> impl IntoView + use<> {
    match state {
        "new" => view! { <Pill tone=Tone::Info text="New in draft"/> }.into_any(),
        "changed" => view! { <Pill tone=Tone::Warn text="Changed in draft"/> }.into_any(),
        _ => view! { <Pill tone=Tone::Good text="Published"/> }.into_any(),
    }
}

/// Each unit with its path from the top (`engineering/platform`), in order: how screens
/// name units (a leaf name alone is ambiguous).
pub fn unit_paths(units: &[UnitView]) -> Vec<(String, String)> {
    units
        .iter()
        .map(|u| {
            let mut path = vec![u.id.clone()];
            let mut parent = u.parent.clone();
            // A tree: at most as many steps as there are units.
            for _ in 0..units.len() {
                if parent.is_empty() {
                    break;
                }
                path.push(parent.clone());
                parent = units
                    .iter()
                    .find(|p| p.id == parent)
                    .map(|p| p.parent.clone())
                    .unwrap_or_default();
            }
            path.reverse();
            (u.id.clone(), path.join("/"))
        })
        .collect()
}

/// How a server is reached, in words.
pub fn transport_label(transport: &str) -> &'static str {
    match transport {
        "remote" => "Remote (URL)",
        "npm" => "npm package",
        "pypi" => "PyPI package",
        "oci" => "OCI image",
        "command" => "Local command",
        _ => "Unknown",
    }
}

/// How a client authenticates, in words.
pub fn auth_label(auth: &str) -> &'static str {
    match auth {
        "none" => "None",
        "oauth" => "Its own OAuth",
        "enterprise" => "Enterprise (ID-JAG)",
        "portcullis" => "Portcullis",
        _ => "Unknown",
    }
}

/// Field changes as a before/after list.
#[component]
pub fn FieldChanges(changes: Vec<FieldChangeView>) -> impl IntoView {
    view! {
        <dl class="mt-1 space-y-1 text-xs">
            {changes.into_iter().map(|c| view! {
                <div class="grid gap-1 sm:grid-cols-[10rem_1fr]">
                    <dt class="font-mono break-all text-slate-500 dark:text-slate-400">{c.field}</dt>
                    <dd class="min-w-0">
                        {c.from.map(|from| view! {
                            <span class="font-mono break-all text-red-700 line-through decoration-red-400 dark:text-red-300">{from}</span>
                            <span class="px-1 text-slate-400" aria-label="becomes">"→"</span>
                        })}
                        <span class="font-mono break-all text-emerald-700 dark:text-emerald-300">{c.to.unwrap_or_else(|| "(not set)".to_owned())}</span>
                    </dd>
                </div>
            }).collect_view()}
        </dl>
    }
}

/// A diff between two policies: servers added, removed and changed field by field, and the
/// mode, rings and units.
#[component]
pub fn DiffList(diff: DiffView) -> impl IntoView {
    // A first release adds every server: name the first ones, count the rest.
    const SHOWN: usize = 60;
    let ids = |title: &'static str, ids: Vec<String>, tone: Tone| {
        (!ids.is_empty()).then(|| {
            let more = ids.len().saturating_sub(SHOWN);
            view! {
                <div>
                    <h3 class="text-sm font-semibold text-slate-800 dark:text-slate-100">{format!("{title} ({})", ids.len())}</h3>
                    <ul class="mt-1 flex flex-wrap gap-1">
                        {ids.into_iter().take(SHOWN).map(|id| view! { <li class="max-w-full break-all"><Pill tone text=id/></li> }).collect_view()}
                        {(more > 0).then(|| view! { <li class=MUTED>{format!("and {more} more")}</li> })}
                    </ul>
                </div>
            }
        })
    };
    let mode = diff.mode.clone().map(|(from, to)| {
        view! { <p class="text-sm">"Mode: " <code>{from}</code> " → " <code>{to}</code></p> }
    });
    let changed = (!diff.changed.is_empty()).then(|| {
        let n = diff.changed.len();
        view! {
            <div>
                <h3 class="text-sm font-semibold text-slate-800 dark:text-slate-100">{format!("Servers changed ({n})")}</h3>
                <ul class="mt-1 space-y-2">
                    {diff.changed.into_iter().map(|c| view! {
                        <li class="rounded-md border border-slate-200 p-2 dark:border-slate-700" data-testid="diff-changed">
                            <a class="font-mono text-sm font-medium break-all text-indigo-700 hover:underline dark:text-indigo-300" href=format!("/registry/servers/{}", c.id)>{c.id.clone()}</a>
                            <FieldChanges changes=c.fields/>
                        </li>
                    }).collect_view()}
                </ul>
            </div>
        }
    });
    // Content about to be published: every field of every added server, none left out.
    let added = if diff.added_fields.is_empty() {
        ids("Servers added", diff.added, Tone::Good).map(IntoAny::into_any)
    } else {
        let n = diff.added_fields.len();
        Some(view! {
            <div>
                <h3 class="text-sm font-semibold text-slate-800 dark:text-slate-100">{format!("Servers added ({n})")}</h3>
                <ul class="mt-1 space-y-2">
                    {diff.added_fields.into_iter().map(|c| view! {
                        <li class="rounded-md border border-emerald-200 p-2 dark:border-emerald-900" data-testid="diff-added">
                            <span class="font-mono text-sm font-medium break-all">{c.id.clone()}</span>
                            <FieldChanges changes=c.fields/>
                        </li>
                    }).collect_view()}
                </ul>
            </div>
        }.into_any())
    };
    view! {
        <div class="space-y-3" data-testid="diff">
            {mode}
            {added}
            {ids("Servers removed", diff.removed, Tone::Bad)}
            {changed}
            {ids("Rings added", diff.rings_added, Tone::Good)}
            {ids("Rings removed", diff.rings_removed, Tone::Bad)}
            {ids("Units added", diff.units_added, Tone::Good)}
            {ids("Units removed", diff.units_removed, Tone::Bad)}
            {(!diff.units_moved.is_empty()).then(|| view! {
                <div>
                    <h3 class="text-sm font-semibold text-slate-800 dark:text-slate-100">"Units moved"</h3>
                    <FieldChanges changes=diff.units_moved/>
                </div>
            })}
        </div>
    }
}

/// The list's filters, from the address.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Filters {
    q: String,
    transport: String,
    auth: String,
    ring: String,
    unit: String,
    warnings: bool,
    unpublished: bool,
    page: usize,
}

impl Filters {
    fn matches(&self, s: &ServerRow) -> bool {
        let q = self.q.trim().to_lowercase();
        (q.is_empty()
            || s.id.contains(&q)
            || s.title.to_lowercase().contains(&q)
            || s.target.to_lowercase().contains(&q)
            || s.registry_name.to_lowercase().contains(&q))
            && (self.transport.is_empty() || s.transport == self.transport)
            && (self.auth.is_empty() || s.auth == self.auth)
            && (self.ring.is_empty() || s.rings.contains(&self.ring))
            && (self.unit.is_empty() || s.units.contains(&self.unit))
            && (!self.warnings || !s.warnings.is_empty())
            && (!self.unpublished || s.state != "published")
    }

    fn query(&self, page: usize) -> String {
        let flag = |b: bool| if b { "1".to_owned() } else { String::new() };
        with_query(
            "/registry",
            &[
                ("q", self.q.clone()),
                ("transport", self.transport.clone()),
                ("auth", self.auth.clone()),
                ("ring", self.ring.clone()),
                ("unit", self.unit.clone()),
                ("warnings", flag(self.warnings)),
                ("unpublished", flag(self.unpublished)),
                (
                    "page",
                    if page == 0 {
                        String::new()
                    } else {
                        page.to_string()
                    },
                ),
            ],
        )
    }
}

/// The registry's servers.
#[component]
pub fn RegistryPage() -> impl IntoView {
    let can = use_abilities();
    let query = use_query_map();
    let filters = Memo::new(move |_| {
        query.with(|m| {
            let get = |k: &str| m.get(k).unwrap_or_default();
            Filters {
                q: get("q"),
                transport: get("transport"),
                auth: get("auth"),
                ring: get("ring"),
                unit: get("unit"),
                warnings: !get("warnings").is_empty(),
                unpublished: !get("unpublished").is_empty(),
                page: get("page").parse().unwrap_or(0),
            }
        })
    });
    let registry = Resource::new(|| (), |()| registry_overview());
    let importing = RwSignal::new(false);
    view! {
        <PageHeader title="MCP server registry" description="The MCP servers this realm approves: pinned, scoped to rings and units, published as signed releases and delivered to agent harnesses.">
            {can.manage_registry.then(|| view! {
                <button type="button" class=format!("{BTN_SECONDARY} whitespace-nowrap") on:click=move |_| importing.set(true) aria-haspopup="dialog">"Import server.json"</button>
                <a class=format!("{BTN_PRIMARY} whitespace-nowrap") href="/registry/new">"Add server"</a>
            })}
        </PageHeader>
        <RegistryTabs current="/registry"/>
        <Transition fallback=|| view! { <Loading/> }>
            {move || registry.get().map(|result| match result {
                Ok(r) => view! {
                    <import::ImportDialog open=importing revision=r.revision rings=r.rings.clone() units=r.units.clone()/>
                    <DraftStatus r=r.clone()/>
                    <ServerList r f=filters.get()/>
                }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}

/// Where the draft stands: the latest release, what is not published, what waits.
#[component]
fn DraftStatus(r: RegistryView) -> impl IntoView {
    let latest = match &r.latest {
        Some(l) => view! {
            <p class="text-sm text-slate-700 dark:text-slate-200">
                <span class="font-medium">{format!("Release {}", l.sequence)}</span>
                {format!(" · {} servers · published ", l.servers)}
                <When at=l.published.at.clone() words=l.published.ago.clone()/>
                {format!(" by {}", l.published_by)}
            </p>
        }
        .into_any(),
        None => view! { <p class="text-sm text-slate-700 dark:text-slate-200">"Nothing is published yet: laptops and the Registry API get nothing until the first release."</p> }.into_any(),
    };
    let unpublished = (!r.unpublished.is_empty()).then(|| {
        view! {
            <p class="text-sm" data-testid="unpublished">
                <Pill tone=Tone::Warn text="Draft"/>
                " " {format!("Not published: {}.", r.unpublished.summary)} " "
                <a class="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href="/registry/publish">"Review and publish"</a>
            </p>
        }
    });
    let pending = r.pending.as_ref().map(|p| {
        let what = if p.settings.is_some() {
            "A settings change"
        } else if p.rollback_of.is_some() {
            "A roll back"
        } else {
            "A release"
        };
        view! {
            <p class="text-sm text-amber-800 dark:text-amber-300" data-testid="pending">
                {format!("{what} asked for by {} waits for approval. ", p.requested_by)}
                <a class="font-medium underline" href="/registry/publish">"Open it"</a>
            </p>
        }
    });
    let rejected = r.rejected.clone().map(|x| {
        view! {
            <p role="status" class="text-sm text-red-700 dark:text-red-300" data-testid="rejected">
                {format!("{} rejected {} ", x.by, x.what)}<When at=x.at.at.clone() words=x.at.ago.clone()/>{format!(": {}", x.reason)}
            </p>
        }
    });
    let removed = (!r.removed.is_empty()).then(|| {
        view! {
            <p class="text-sm break-words" data-testid="removed">
                {format!("Removed in the draft, still on laptops until published: {}.", r.removed.join(", "))}
            </p>
        }
    });
    let unserved = (r.latest.is_some() && r.api_access == "off").then(|| {
        view! {
            <p class="text-sm text-amber-800 dark:text-amber-300" data-testid="unserved">
                "Laptops cannot pull releases yet: reading the registry over HTTP is off. "
                <a class="font-medium underline" href="/registry/publish#registry-settings-title">"Choose who may read it"</a>
            </p>
        }
    });
    let stale = r.stale_issuer.clone().map(|issuer| {
        view! {
            <p role="alert" class="text-sm text-red-700 dark:text-red-300">
                {format!("The latest release names the issuer {issuer}, which is no longer this realm's: laptops refuse it until the draft is published again.")}
            </p>
        }
    });
    view! {
        <section class=format!("{CARD} mb-6 space-y-2 p-4 sm:p-6") aria-label="Draft and releases">
            {latest}
            {unpublished}
            {removed}
            {pending}
            {rejected}
            {unserved}
            {stale}
        </section>
    }
}

/// The servers, filtered and paged.
#[component]
fn ServerList(r: RegistryView, f: Filters) -> impl IntoView {
    let total = r.servers.len();
    let select = |name: &'static str,
                  label: &'static str,
                  current: String,
                  options: Vec<(String, String)>| {
        let id = format!("registry-filter-{name}");
        view! {
            <div class="min-w-0">
                <label class="block text-xs font-medium text-slate-600 dark:text-slate-300" for=id.clone()>{label}</label>
                <select id=id name=name class=format!("mt-1 {INPUT}")>
                    <option value="" selected=current.is_empty()>"Any"</option>
                    {options.into_iter().map(|(value, text)| {
                        let selected = value == current;
                        view! { <option value=value selected=selected>{text}</option> }
                    }).collect_view()}
                </select>
            </div>
        }
    };
    let pairs = |items: &[&str], label: fn(&str) -> &'static str| -> Vec<(String, String)> {
        items
            .iter()
            .map(|i| ((*i).to_owned(), label(i).to_owned()))
            .collect()
    };
    let rings: Vec<(String, String)> = r.rings.iter().map(|x| (x.clone(), x.clone())).collect();
    let units: Vec<(String, String)> = r
        .units
        .iter()
        .map(|u| (u.id.clone(), u.id.clone()))
        .collect();
    let matching: Vec<ServerRow> = r.servers.iter().filter(|s| f.matches(s)).cloned().collect();
    let shown = matching.len();
    let pages = shown.div_ceil(SERVERS_PAGE).max(1);
    let page = f.page.min(pages - 1);
    let rows: Vec<ServerRow> = matching
        .into_iter()
        .skip(page * SERVERS_PAGE)
        .take(SERVERS_PAGE)
        .collect();
    let filtered = f != Filters::default();
    let draft_warnings = r.warnings.len();
    let pager = f.clone();
    view! {
        <div class=CARD>
            <Form method="GET" action="" attr:class="grid gap-3 border-b border-slate-200 p-4 sm:grid-cols-2 lg:grid-cols-4 dark:border-slate-700" attr:role="search">
                <div class="sm:col-span-2 lg:col-span-4">
                    <label class="block text-xs font-medium text-slate-600 dark:text-slate-300" for="registry-search">"Search"</label>
                    <input class=format!("mt-1 {INPUT}") id="registry-search" name="q" type="search" placeholder="Id, title, URL or package" value=f.q.clone()/>
                </div>
                {select("transport", "Transport", f.transport.clone(), pairs(&["remote", "npm", "pypi", "oci", "command"], transport_label))}
                {select("auth", "Auth mode", f.auth.clone(), pairs(&["none", "oauth", "enterprise", "portcullis"], auth_label))}
                {select("ring", "Ring", f.ring.clone(), rings)}
                {select("unit", "Unit", f.unit.clone(), units)}
                <div class="flex flex-wrap items-center gap-4 sm:col-span-2 lg:col-span-4">
                    <label class="inline-flex items-center gap-2 text-sm"><input type="checkbox" name="warnings" value="1" checked=f.warnings/>"With warnings"</label>
                    <label class="inline-flex items-center gap-2 text-sm"><input type="checkbox" name="unpublished" value="1" checked=f.unpublished/>"Changed since the last release"</label>
                    <span class="flex-1"></span>
                    {filtered.then(|| view! { <a class=BTN_SECONDARY href="/registry">"Clear"</a> })}
                    <button type="submit" class=BTN_SECONDARY>"Filter"</button>
                </div>
            </Form>
            {(draft_warnings > 0).then(|| view! {
                <details class="border-b border-slate-200 px-4 py-3 text-sm dark:border-slate-700" data-testid="draft-warnings">
                    <summary class="cursor-pointer text-amber-800 dark:text-amber-300">{format!("{draft_warnings} warning{} about the draft", if draft_warnings == 1 { "" } else { "s" })}</summary>
                    <ul class="mt-2 list-disc space-y-1 pl-5 break-words">
                        {r.warnings.iter().map(|w| view! { <li>{w.message.clone()}</li> }).collect_view()}
                    </ul>
                </details>
            })}
            {if total == 0 {
                view! {
                    <EmptyState title="No servers yet" hint="Add the MCP servers this realm approves, or import one from an MCP registry's server.json."/>
                }.into_any()
            } else if rows.is_empty() {
                view! { <EmptyState title="No servers match" hint="Try another search, or clear the filters."/> }.into_any()
            } else {
                view! {
                    <table class=CARDS_TABLE>
                        <thead class=CARDS_HEAD>
                            <tr>
                                <th class=format!("{TH} sm:w-[30%]") scope="col">"Server"</th>
                                <th class=format!("{TH} sm:w-[34%]") scope="col">"Transport"</th>
                                <th class=TH scope="col">"Auth"</th>
                                <th class=TH scope="col">"Who gets it"</th>
                            </tr>
                        </thead>
                        <tbody class=CARDS_BODY>
                            {rows.into_iter().map(|s| view! { <Row s/> }).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            }}
            {(total > 0).then(|| view! {
                <Pager total=shown as u64 page=page as u32 page_size=SERVERS_PAGE as u32 href=move |p| pager.query(p as usize)/>
            })}
        </div>
    }
}

#[component]
fn Row(s: ServerRow) -> impl IntoView {
    let name = if s.title.is_empty() {
        s.id.clone()
    } else {
        s.title.clone()
    };
    let groups: Vec<String> = s
        .rings
        .iter()
        .map(|r| format!("ring {r}"))
        .chain(s.units.iter().map(|u| format!("unit {u}")))
        .collect();
    let warnings = s.warnings.len();
    view! {
        <tr data-testid="registry-row" class=CARDS_ROW>
            <td class=CARDS_CELL>
                <a class="font-medium text-indigo-700 break-words hover:underline dark:text-indigo-300" href=format!("/registry/servers/{}", s.id)>{name.clone()}</a>
                <div class="font-mono text-xs break-all text-slate-500 dark:text-slate-400">{s.id.clone()}</div>
                <div class="mt-1 flex flex-wrap gap-1">
                    {(s.state != "published").then(|| state_pill(&s.state))}
                    {(warnings > 0).then(|| view! {
                        <span title=s.warnings.join("\n")><Pill tone=Tone::Warn text=format!("{warnings} warning{}", if warnings == 1 { "" } else { "s" })/></span>
                    })}
                </div>
            </td>
            <td class=CARDS_CELL_NEXT>
                <span class="text-xs text-slate-500 dark:text-slate-400">{transport_label(&s.transport)}</span>
                <Truncated value=s.target.clone() label=format!("where {name} is")/>
                {(!s.version.is_empty()).then(|| view! { <div class="font-mono text-xs break-all">{s.version.clone()}</div> })}
            </td>
            <td class=format!("{CARDS_CELL_NEXT} text-sm")><span class="text-xs text-slate-500 sm:hidden dark:text-slate-400">"Auth: "</span>{auth_label(&s.auth)}</td>
            <td class=format!("{CARDS_CELL_NEXT} text-sm break-words")>
                <span class="text-xs text-slate-500 sm:hidden dark:text-slate-400">"Who gets it: "</span>
                {if groups.is_empty() { "Nobody yet".to_owned() } else { groups.join(", ") }}
            </td>
        </tr>
    }
}
