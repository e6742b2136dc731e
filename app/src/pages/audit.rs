//! The audit log: filter, page through, export.
use crate::api::audit::list_audit;
use crate::components::field::ISO_PATTERN;
use crate::components::layout::use_session;
use crate::components::pager::{CursorPager, with_query};
use crate::components::ui::*;
use crate::types::audit::{AUDIT_PERIODS, AuditQuery, action_areas, action_label};
use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

fn pairs(q: &AuditQuery) -> Vec<(&'static str, String)> {
    vec![
        ("realm", q.realm.clone()),
        ("action", q.action.clone()),
        ("actor", q.actor.clone()),
        ("target", q.target.clone()),
        ("about", q.about.clone()),
        ("since", q.since.clone()),
        ("from", q.from.clone()),
        ("to", q.to.clone()),
    ]
}

/// The Audit log screen (admins and security reviewers; enforced by the core).
#[component]
pub fn AuditPage() -> impl IntoView {
    let params = use_query_map();
    let filter = Memo::new(move |_| {
        params.with(|m| {
            let get = |k: &str| m.get(k).unwrap_or_default();
            AuditQuery {
                realm: get("realm"),
                action: get("action"),
                actor: get("actor"),
                target: get("target"),
                about: get("about"),
                since: get("since"),
                from: get("from"),
                to: get("to"),
            }
        })
    });
    // Paged by event id: `before` = older than, `after` = newer than.
    let cursor = Memo::new(move |_| {
        params.with(|m| {
            let id = |k: &str| m.get(k).and_then(|v| v.parse::<i64>().ok());
            (id("before"), id("after"))
        })
    });
    let events = Resource::new(
        move || (filter.get(), cursor.get()),
        |(f, (before, after))| list_audit(f, before, after),
    );
    let session = use_session();
    let current_realm = move || crate::components::layout::selected_realm(session);
    let realms = move || {
        session
            .get()
            .and_then(Result::ok)
            .flatten()
            .map(|s| s.realms)
            .unwrap_or_default()
    };
    let export = move |format: &str| {
        let mut p = pairs(&filter.get());
        p.insert(0, ("format", format.to_owned()));
        with_query("/admin/audit/export", &p)
    };
    view! {
        <PageHeader title="Audit log" description="Every change and sign-in, newest first. Times are UTC.">
            <a class=BTN_SECONDARY href=move || export("csv") download="audit.csv">"Export CSV"</a>
            <a class=BTN_SECONDARY href=move || export("jsonl") download="audit.jsonl">"Export JSON lines"</a>
        </PageHeader>
        <div class=CARD>
            <Form method="GET" action="" attr:class="grid gap-3 border-b border-slate-200 p-4 sm:grid-cols-3 lg:grid-cols-4 dark:border-slate-700" attr:aria-label="Filter audit events">
                // Inside a suspended view: the realms come with the session, which the server
                // waits for here, so it renders the options the browser hydrates.
                <Transition fallback=|| view! { <div></div> }>
                    <div>
                        <label class=LABEL for="f-realm">"Realm"</label>
                        <select class=format!("mt-1 {INPUT}") id="f-realm" name="realm">
                            <option value="">"All realms"</option>
                            {move || realms().into_iter().map(|r| {
                                let selected = r.name == filter.get().realm;
                                view! { <option value=r.name.clone() selected=selected>{r.display_name.clone()}</option> }
                            }).collect_view()}
                        </select>
                    </div>
                </Transition>
                <div>
                    <label class=LABEL for="f-action">"Action"</label>
                    <select class=format!("mt-1 {INPUT}") id="f-action" name="action">
                        <option value="">"All actions"</option>
                        {action_areas().into_iter().map(|(area, actions)| view! {
                            <optgroup label=area>
                                {actions.into_iter().map(|(a, label)| {
                                    let selected = move || a == filter.get().action;
                                    view! { <option value=a selected=selected>{label}</option> }
                                }).collect_view()}
                            </optgroup>
                        }).collect_view()}
                    </select>
                </div>
                <div>
                    <label class=LABEL for="f-actor">"Actor"</label>
                    <input class=format!("mt-1 {INPUT}") id="f-actor" name="actor" prop:value=move || filter.get().actor placeholder="Email"/>
                </div>
                <div>
                    <label class=LABEL for="f-target">"Target"</label>
                    <input class=format!("mt-1 {INPUT}") id="f-target" name="target" prop:value=move || filter.get().target placeholder="client:… or an id"/>
                </div>
                <div>
                    <label class=LABEL for="f-since">"Period"</label>
                    <select class=format!("mt-1 {INPUT}") id="f-since" name="since">
                        <option value="">"Any time"</option>
                        {AUDIT_PERIODS.iter().map(|(value, words, _)| {
                            let value = *value;
                            view! { <option value=value selected=move || filter.get().since == value>{*words}</option> }
                        }).collect_view()}
                    </select>
                </div>
                <div>
                    <label class=LABEL for="f-from">"From (UTC)"</label>
                    <input class=format!("mt-1 {INPUT} font-mono") id="f-from" name="from" type="text" inputmode="numeric" placeholder="YYYY-MM-DDTHH:MM" pattern=ISO_PATTERN prop:value=move || filter.get().from/>
                </div>
                <div>
                    <label class=LABEL for="f-to">"To (UTC)"</label>
                    <input class=format!("mt-1 {INPUT} font-mono") id="f-to" name="to" type="text" inputmode="numeric" placeholder="YYYY-MM-DDTHH:MM" pattern=ISO_PATTERN prop:value=move || filter.get().to/>
                </div>
                {move || {
                    let q = filter.get();
                    (!q.about.is_empty()).then(|| {
                        let all = with_query("/audit", &pairs(&AuditQuery { about: String::new(), ..q.clone() }));
                        view! {
                            <input type="hidden" name="about" value=q.about.clone()/>
                            <p class="text-sm text-slate-700 sm:col-span-3 lg:col-span-4 dark:text-slate-200" data-testid="audit-about">
                                "Events about " <code class="font-mono text-xs break-all">{q.about.clone()}</code>
                                " (its own and those that concern it) · "
                                <a class="text-indigo-600 hover:underline dark:text-indigo-300" href=all>"All objects"</a>
                            </p>
                        }
                    })
                }}
                <div class="flex gap-2 sm:col-span-3 lg:col-span-4">
                    <button type="submit" class=BTN_PRIMARY>"Apply filters"</button>
                    <a class=BTN_SECONDARY href="/audit">"Clear"</a>
                </div>
            </Form>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || events.get().map(|result| match result {
                    Ok(found) if found.items.is_empty() && found.paged => view! {
                        <EmptyState title="Nothing on this page" hint="The page lies past the end of the log for these filters."/>
                        <CursorPager total=found.total exact=found.total_exact
                            newest=Some(with_query("/audit", &pairs(&filter.get()))) newer=None older=None/>
                    }.into_any(),
                    Ok(found) if found.items.is_empty() => view! {
                        <EmptyState title="No events match" hint="Widen the filters or clear them."/>
                    }.into_any(),
                    Ok(found) => {
                        let f = filter.get();
                        let link = move |key: &'static str, id: Option<i64>| {
                            id.map(|id| {
                                let mut q = pairs(&f);
                                q.push((key, id.to_string()));
                                with_query("/audit", &q)
                            })
                        };
                        let newest = found.paged.then(|| with_query("/audit", &pairs(&filter.get())));
                        view! {
                            <div>
                                <table class="block w-full text-sm lg:table">
                                    <thead class="hidden bg-slate-50 lg:table-header-group dark:bg-slate-900">
                                        <tr>
                                            <th class=TH scope="col">"Time"</th>
                                            <th class=format!("{TH} lg:w-48") scope="col">"Actor"</th>
                                            <th class=format!("{TH} lg:w-40") scope="col">"Action"</th>
                                            <th class=TH scope="col">"Target"</th>
                                            <th class=TH scope="col">"Outcome"</th>
                                            <th class=format!("{TH} hidden lg:table-cell") scope="col">"Realm"</th>
                                            <th class=format!("{TH} hidden lg:table-cell") scope="col">"Request"</th>
                                        </tr>
                                    </thead>
                                    <tbody class="block divide-y divide-slate-200 lg:table-row-group dark:divide-slate-700">
                                        {found.items.into_iter().map(|e| view! {
                                            <tr data-testid="audit-row" class="block px-4 py-3 lg:table-row lg:p-0">
                                                <td class=format!("{CELL} whitespace-nowrap text-xs lg:text-sm")><When at=e.time.clone() words=e.ago.clone()/></td>
                                                <td class=CELL>
                                                    {if e.actor_name.is_empty() {
                                                        view! { <span class="break-all">{e.actor.clone()}</span> }.into_any()
                                                    } else {
                                                        view! {
                                                            <span class="break-words" title=e.actor.clone()>{e.actor_name.clone()}</span>
                                                            <span class="block text-xs break-all text-slate-500 dark:text-slate-400">{e.actor.clone()}</span>
                                                        }.into_any()
                                                    }}
                                                </td>
                                                <td class=CELL>
                                                    <span class="break-words">{action_label(&e.action).to_owned()}</span>
                                                    <code class="block font-mono text-xs text-slate-500 dark:text-slate-400">{e.action.clone()}</code>
                                                </td>
                                                <td class=CELL>
                                                    {
                                                        let named = !e.target_name.is_empty();
                                                        let text = if named { e.target_name.clone() } else { e.target.clone() };
                                                        let class = if named { "break-words" } else { "font-mono text-xs break-all" };
                                                        match target_href(&e.target, &e.realm, &current_realm()) {
                                                            Some(href) => {
                                                                // The server selects the realm of a /go link: not the router's to take.
                                                                let external = href.starts_with("/go/").then_some("external");
                                                                view! { <a class=format!("{class} text-indigo-700 hover:underline dark:text-indigo-300") href=href rel=external title=e.target.clone()>{text}</a> }.into_any()
                                                            }
                                                            None => view! { <span class=class title=e.target.clone()>{text}</span> }.into_any(),
                                                        }
                                                    }
                                                    {(!e.target_name.is_empty()).then(|| view! {
                                                        <code class="block font-mono text-xs break-all text-slate-500 dark:text-slate-400">{e.target.clone()}</code>
                                                    })}
                                                    {(e.details != "{}").then(|| view! {
                                                        <details class="mt-1"><summary class="cursor-pointer text-xs text-slate-600 dark:text-slate-300">"Details"</summary><pre class="mt-1 whitespace-pre-wrap font-mono text-xs">{e.details.clone()}</pre></details>
                                                    })}
                                                </td>
                                                <td class=CELL><Pill tone=Tone::of(&e.outcome) text=e.outcome.clone()/></td>
                                                <td class=format!("{CELL} text-xs text-slate-500 lg:text-sm lg:text-slate-700 dark:text-slate-400 lg:dark:text-slate-200")>{e.realm.clone()}</td>
                                                <td class=format!("{CELL} text-xs text-slate-500 lg:text-sm lg:text-slate-700 dark:text-slate-400 lg:dark:text-slate-200")>
                                                    <div class="text-xs" title="Client address">{e.client_ip.clone()}</div>
                                                    <div class="font-mono text-xs text-slate-500 dark:text-slate-400" title="Request id">{e.request_id.clone()}</div>
                                                </td>
                                            </tr>
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            </div>
                            <CursorPager total=found.total exact=found.total_exact newest
                                newer=link("after", found.newer) older=link("before", found.older)/>
                        }.into_any()
                    }
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </div>
    }
}

/// A cell: a line of the row's card on narrow screens, a table cell from `lg` up.
const CELL: &str = "block min-w-0 py-0.5 text-slate-700 lg:table-cell lg:px-4 lg:py-2 lg:align-top dark:text-slate-200";

/// The console page of an event's target, when it has one: realms and console users anywhere,
/// clients, resources and agents of the selected realm (their pages show that realm's objects).
fn target_href(target: &str, event_realm: &str, current_realm: &str) -> Option<String> {
    use crate::components::pager::encode;
    let (kind, id) = target.split_once(':')?;
    if id.is_empty() || id == "unknown" {
        return None;
    }
    let section = match kind {
        "realm" => return Some(format!("/realms/{}", encode(id))),
        "user" => return Some(format!("/users/{}", encode(id))),
        "client" => "clients",
        "resource" => "resources",
        "agent" => "agents",
        "person" => "people",
        _ => return None,
    };
    // Another realm's object: a link that selects its realm first.
    Some(if event_realm == current_realm {
        format!("/{section}/{}", encode(id))
    } else {
        crate::components::pager::realm_link(event_realm, section, id)
    })
}

#[cfg(test)]
mod tests {
    use super::target_href;

    #[test]
    fn targets_link_to_their_pages() {
        assert_eq!(
            target_href("client:bot", "default", "default").as_deref(),
            Some("/clients/bot")
        );
        assert_eq!(
            target_href("resource:pay", "default", "default").as_deref(),
            Some("/resources/pay")
        );
        assert_eq!(
            target_href("client:a b", "default", "default").as_deref(),
            Some("/clients/a%20b")
        );
        // Another realm's client opens through a link that selects its realm.
        assert_eq!(
            target_href("client:bot", "ops", "default").as_deref(),
            Some("/go/ops/clients/bot")
        );
        assert_eq!(
            target_href("realm:ops", "ops", "default").as_deref(),
            Some("/realms/ops")
        );
        assert_eq!(target_href("user:unknown", "default", "default"), None);
        assert_eq!(target_href("key:abc", "default", "default"), None);
        assert_eq!(
            target_href("person:psn_1", "default", "default").as_deref(),
            Some("/people/psn_1")
        );
    }
}
