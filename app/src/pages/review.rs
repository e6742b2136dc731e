//! The security-review queue: self-registered clients waiting to be let in.
//!
//! Each comes with what a reviewer weighs (where it redirects, how it authenticates, where it registered from, names
//! like it), approved or rejected with a reason, one by one or in bulk; and the decided ones,
//! where an approved client can be revoked.
use crate::api::review::{DecideReview, review_queue};
use crate::components::confirm::ConfirmDialog;
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::ReviewItemView;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

const STATES: [(&str, &str); 4] = [
    ("pending", "Waiting"),
    ("approved", "Approved"),
    ("rejected", "Rejected"),
    ("revoked", "Revoked"),
];

fn kind_label(kind: &str) -> &'static str {
    match kind {
        "dynamic" => "Self-registered (dynamic registration)",
        "metadata_document" => "Client ID Metadata Document",
        _ => "Registered by an administrator",
    }
}

/// What the reviewer is about to do, for the dialog.
#[derive(Clone, Debug, PartialEq)]
struct Pending {
    decision: &'static str,
    ids: Vec<(String, i64)>,
    names: String,
}

fn decision_words(d: &str) -> (&'static str, &'static str) {
    match d {
        "approve" => (
            "Approve",
            "It may sign people in and get tokens from now on.",
        ),
        "reject" => (
            "Reject",
            "It stays refused: it gets no tokens and signs nobody in. Its registration is kept for the record.",
        ),
        _ => (
            "Revoke",
            "At once it gets no new tokens, its refresh tokens are revoked and its access tokens introspect inactive.",
        ),
    }
}

#[component]
fn RiskRow(label: &'static str, children: Children) -> impl IntoView {
    view! {
        <div class="min-w-0">
            <dt class="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">{label}</dt>
            <dd class="mt-0.5 break-words text-sm text-slate-800 dark:text-slate-200">{children()}</dd>
        </div>
    }
}

#[component]
fn ReviewCard(
    item: ReviewItemView,
    selected: RwSignal<Vec<(String, i64)>>,
    ask: Callback<Pending>,
) -> impl IntoView {
    let id = StoredValue::new((item.client_id.clone(), item.version));
    let name = StoredValue::new(item.name.clone());
    let pending = item.state == "pending";
    let approved = item.state == "approved";
    let checked = move || selected.with(|s| s.contains(&id.get_value()));
    let toggle = move |_| {
        selected.update(|s| {
            let me = id.get_value();
            if let Some(i) = s.iter().position(|x| *x == me) {
                s.remove(i);
            } else {
                s.push(me);
            }
        });
    };
    let one = move |decision: &'static str| {
        ask.run(Pending {
            decision,
            ids: vec![id.get_value()],
            names: name.get_value(),
        });
    };
    let public = item.auth_method == "none";
    let crowded = item.same_source > 3;
    let check_label = format!("Select {}", item.name);
    view! {
        <li class=format!("{CARD} p-4 sm:p-5") data-testid="review-item">
            <div class="flex items-start gap-3">
                {pending.then(|| view! {
                    <input type="checkbox" class="mt-1.5 h-4 w-4 shrink-0 rounded border-slate-300" aria-label=check_label prop:checked=checked on:change=toggle/>
                })}
                <div class="min-w-0 flex-1">
                    <div class="flex flex-col gap-2 sm:flex-row sm:items-start sm:justify-between">
                        <div class="min-w-0">
                            <h2 class="break-words text-base font-semibold text-slate-900 dark:text-white">{item.name.clone()}</h2>
                            <p class=format!("{MONO} text-slate-500 dark:text-slate-400")>{item.client_id.clone()}</p>
                            <p class=format!("{MUTED} mt-1")>{kind_label(&item.kind)} " · first seen " <When at=item.created.at.clone() words=item.created.ago.clone()/></p>
                        </div>
                        <div class="flex shrink-0 flex-wrap gap-2">
                            {pending.then(|| view! {
                                <button type="button" class=BTN_SMALL on:click=move |_| one("approve")>"Approve"</button>
                                <button type="button" class=BTN_SMALL_DANGER on:click=move |_| one("reject")>"Reject"</button>
                            })}
                            {approved.then(|| view! {
                                <button type="button" class=BTN_SMALL_DANGER on:click=move |_| one("revoke")>"Revoke"</button>
                            })}
                        </div>
                    </div>
                    <div class="mt-3 flex flex-wrap gap-2" data-testid="risk-signals">
                        {item.loopback_only.then(|| view! { <Pill tone=Tone::Info text="Loopback redirects only (desktop or CLI app)"/> })}
                        {item.private_use.then(|| view! { <Pill tone=Tone::Warn text="Private-use scheme: any app can claim it"/> })}
                        {(!item.loopback_only && !item.private_use && !item.redirect_uris.is_empty()).then(|| view! { <Pill tone=Tone::Warn text="Redirects to web hosts"/> })}
                        {crowded.then(|| view! { <Pill tone=Tone::Warn text=format!("{} registrations from this address", item.same_source)/> })}
                        {(!item.similar_names.is_empty()).then(|| view! { <Pill tone=Tone::Warn text="Similar names exist"/> })}
                        {(item.grant_types.iter().any(|g| g == "client_credentials")).then(|| view! { <Pill tone=Tone::Warn text="Machine client (client credentials)"/> })}
                    </div>
                    <dl class="mt-3 grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
                        <RiskRow label="Redirects to">
                            {if item.redirect_uris.is_empty() { view! { <span>"Nowhere (no redirect URIs)"</span> }.into_any() } else {
                                view! { <ul class="space-y-0.5">{item.redirect_uris.iter().map(|u| view! { <li class=MONO>{u.clone()}</li> }).collect_view()}</ul> }.into_any()
                            }}
                        </RiskRow>
                        <RiskRow label="Authenticates">{if public { "Public client: PKCE, no secret".to_owned() } else { item.auth_method.replace('_', " ") }}</RiskRow>
                        <RiskRow label="Grants and scope">{item.grant_types.join(", ")} {(!item.scope.is_empty()).then(|| format!(" · {}", item.scope))}</RiskRow>
                        <RiskRow label="Software">{item.software.clone().unwrap_or_else(|| "Not stated".to_owned())}</RiskRow>
                        <RiskRow label="Home page">{item.client_uri.clone().unwrap_or_else(|| "Not stated".to_owned())}</RiskRow>
                        <RiskRow label="Registered from">
                            {item.source_ip.clone().unwrap_or_else(|| "Unknown".to_owned())}
                            {item.source_ip.is_some().then(|| format!(" ({} from this address)", item.same_source))}
                        </RiskRow>
                        {(!item.similar_names.is_empty()).then(|| view! {
                            <RiskRow label="Similar names">{item.similar_names.join(", ")}</RiskRow>
                        })}
                        {item.decision.clone().map(|(by, why, at)| view! {
                            <RiskRow label="Decided">{by} ", " <When at=at.at words=at.ago/> ": " {why}</RiskRow>
                        })}
                    </dl>
                </div>
            </div>
        </li>
    }
}

/// The Security review screen of the selected realm.
#[component]
pub fn ReviewPage() -> impl IntoView {
    let query = use_query_map();
    let state = Memo::new(move |_| {
        query.with(|m| {
            m.get("state")
                .filter(|s| STATES.iter().any(|(v, _)| v == s))
                .unwrap_or_else(|| "pending".to_owned())
        })
    });
    let decide = ServerAction::<DecideReview>::new();
    let decided = successes(decide);
    let items = Resource::new(
        move || (state.get(), decided.get()),
        |(s, _)| review_queue(s),
    );
    let selected = RwSignal::new(Vec::<(String, i64)>::new());
    let asking = RwSignal::new(None::<Pending>);
    let open = RwSignal::new(false);
    let reason = RwSignal::new(String::new());
    let toasts = use_toasts();
    let session = crate::components::layout::use_session();
    Effect::new(move |_| match decide.value().get() {
        Some(Ok(r)) => {
            selected.set(vec![]);
            reason.set(String::new());
            if r.failed.is_empty() {
                toasts.push(ToastKind::Success, format!("{} client(s) decided.", r.done));
            } else {
                toasts.push(
                    ToastKind::Error,
                    format!(
                        "{} decided; not decided: {}",
                        r.done,
                        r.failed
                            .iter()
                            .map(|(id, why)| format!("{id} ({why})"))
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                );
            }
            session.refetch();
        }
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    let ask = Callback::new(move |p: Pending| {
        asking.set(Some(p));
        open.set(true);
    });
    let title = Signal::derive(move || {
        asking.get().map_or_else(String::new, |p| {
            let (verb, _) = decision_words(p.decision);
            if p.ids.len() == 1 {
                format!("{verb} {}?", p.names)
            } else {
                format!("{verb} {} clients?", p.ids.len())
            }
        })
    });
    let message = Signal::derive(move || {
        asking.get().map_or_else(String::new, |p| {
            format!(
                "{} The reason is kept in each client's history.",
                decision_words(p.decision).1
            )
        })
    });
    let confirm_label = Signal::derive(move || {
        asking
            .get()
            .map_or_else(String::new, |p| decision_words(p.decision).0.to_owned())
    });
    let bulk = move |decision: &'static str| {
        let ids = selected.get_untracked();
        ask.run(Pending {
            decision,
            names: String::new(),
            ids,
        });
    };
    view! {
        <PageHeader title="Security review" description="Clients that registered themselves wait here until a reviewer lets them in. Until then they get no tokens and sign nobody in; the person trying sees that the app awaits approval."/>
        <nav aria-label="Review states" class="mb-4 flex flex-wrap gap-2">
            {STATES.iter().map(|(value, label)| {
                let value = *value;
                view! {
                    <a href=if value == "pending" { "/review".to_owned() } else { format!("/review?state={value}") }
                        class=move || if state.get() == value { BTN_PRIMARY } else { BTN_SECONDARY }
                        aria-current=move || (state.get() == value).then_some("page")>{*label}</a>
                }
            }).collect_view()}
        </nav>
        <Show when=move || !selected.with(Vec::is_empty)>
            <div class=format!("{CARD} mb-4 flex flex-wrap items-center gap-3 p-3") role="region" aria-label="Selected clients">
                <span class="text-sm font-medium">{move || format!("{} selected", selected.with(Vec::len))}</span>
                <button type="button" class=BTN_SMALL on:click=move |_| bulk("approve")>"Approve selected"</button>
                <button type="button" class=BTN_SMALL_DANGER on:click=move |_| bulk("reject")>"Reject selected"</button>
                <button type="button" class=BTN_SMALL on:click=move |_| selected.set(vec![])>"Clear"</button>
            </div>
        </Show>
        <Transition fallback=|| view! { <Loading/> }>
            {move || items.get().map(|r| match r {
                Ok(list) if list.is_empty() => view! {
                    <div class=CARD><EmptyState title=if state.get() == "pending" { "Nothing waits for review" } else { "No clients here" }
                        hint="Clients that register themselves under this realm's review policy appear here."/></div>
                }.into_any(),
                Ok(list) => view! {
                    <ul class="space-y-4">
                        {list.into_iter().map(|item| view! { <ReviewCard item selected ask/> }).collect_view()}
                    </ul>
                }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
        <ConfirmDialog open title message confirm_label danger=false
            confirm_disabled=Signal::derive(move || reason.get().trim().is_empty())
            on_confirm=Callback::new(move |_| {
                if let Some(p) = asking.get_untracked() {
                    let (client_ids, versions) = p.ids.into_iter().unzip();
                    decide.dispatch(DecideReview { client_ids, versions, decision: p.decision.to_owned(), reason: reason.get_untracked() });
                }
            })>
            <label class=LABEL for="review-reason">"Reason (required)"</label>
            <textarea id="review-reason" class=format!("mt-1 {INPUT}") rows="3" maxlength="500" required
                prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev))></textarea>
        </ConfirmDialog>
    }
}
