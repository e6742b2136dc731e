//! An object's own history: the newest audit events that target it or concern it, on its page.
use super::pager::{grouped, with_query};
use super::ui::*;
use crate::error::AppError;
use crate::types::audit::AuditPage;
use leptos::prelude::*;

/// The events in `events` (loaded by the page) with a link to all of them in the audit log.
#[component]
pub fn History(
    /// The object's history, from `api::audit::history` (which names the object, for the
    /// audit-log link).
    events: Resource<Result<AuditPage, AppError>>,
    /// The audit-log link, when not every event about the object (a realm's, which follow it
    /// across renames).
    #[prop(optional)]
    link: Option<String>,
) -> impl IntoView {
    let link = move || {
        link.clone().or_else(|| {
            events
                .get()
                .and_then(Result::ok)
                .map(|page| with_query("/audit", &[("about", page.about)]))
        })
    };
    view! {
        <section class=format!("{CARD} mt-6") aria-labelledby="history-title" data-testid="history">
            <div class="flex flex-wrap items-baseline justify-between gap-2 border-b border-slate-200 px-4 py-4 sm:px-6 dark:border-slate-700">
                <h2 id="history-title" class="text-lg font-semibold text-slate-900 dark:text-white">"History"</h2>
                <a href=link class="text-sm text-indigo-600 hover:underline dark:text-indigo-300">"All in the audit log"</a>
            </div>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || events.get().map(|result| match result {
                    Ok(page) if page.items.is_empty() => view! {
                        <EmptyState title="No events yet" hint="Changes to this object and its use will appear here."/>
                    }.into_any(),
                    Ok(page) => {
                        let more = page.older.is_some();
                        let total = if page.total_exact { grouped(page.total) } else { format!("more than {}", grouped(page.total)) };
                        view! {
                            <ol class="divide-y divide-slate-200 dark:divide-slate-700">
                                {page.items.into_iter().map(|e| view! {
                                    <li class="px-4 py-3 text-sm sm:px-6" data-testid="history-row">
                                        <div class="flex flex-wrap items-center justify-between gap-2">
                                            <span>
                                                <span class="font-medium text-slate-900 dark:text-white">{crate::types::audit::action_label(&e.action).to_owned()}</span>
                                                " " <code class="font-mono text-xs text-slate-500 dark:text-slate-400">{e.action.clone()}</code>
                                            </span>
                                            <Pill tone=Tone::of(&e.outcome) text=e.outcome.clone()/>
                                        </div>
                                        <p class="mt-1 break-all text-slate-700 dark:text-slate-200" title=e.actor.clone()>
                                            {if e.actor_name.is_empty() { e.actor.clone() } else { format!("{} ({})", e.actor_name, e.actor) }}
                                        </p>
                                        <p class="text-xs text-slate-500 dark:text-slate-400"><When at=e.time.clone() words=e.ago.clone()/></p>
                                        {(e.details != "{}").then(|| view! {
                                            <details class="mt-1"><summary class="cursor-pointer text-xs text-slate-600 dark:text-slate-300">"Details"</summary><pre class="mt-1 whitespace-pre-wrap break-all font-mono text-xs">{e.details.clone()}</pre></details>
                                        })}
                                    </li>
                                }).collect_view()}
                            </ol>
                            {more.then(|| view! { <p class=format!("border-t border-slate-200 px-4 py-3 sm:px-6 dark:border-slate-700 {MUTED}")>{format!("Showing the newest of {total} events.")}</p> })}
                        }.into_any()
                    }
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </section>
    }
}
