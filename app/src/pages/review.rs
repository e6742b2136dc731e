//! The security-review queue: self-registered clients waiting to be let in.
//!
//! Each comes with what a reviewer weighs (where it redirects, how it authenticates, where it registered from, names
//! like it), approved or rejected with a reason, one by one or in bulk; and the decided ones,
//! where an approved client can be revoked.
use crate::api::access::client_access;
use crate::api::review::{DecideReview, review_counts, review_inbox};
use crate::components::confirm::ConfirmDialog;
use crate::components::layout::client_revoke_effect;
use crate::components::pager::{grouped, with_query};
use crate::components::scopes::{ScopeChecks, joined, split};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::review::ReviewItemView;
use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;
use std::collections::{BTreeMap, BTreeSet};

const STATES: [(&str, &str); 5] = [
    ("pending", "Waiting"),
    ("approved", "Approved"),
    ("rejected", "Rejected"),
    ("revoked", "Revoked"),
    ("expired", "Expired"),
];

fn kind_label(kind: &str) -> &'static str {
    match kind {
        "dynamic" => "Self-registered (dynamic registration)",
        "metadata_document" => "Client ID Metadata Document",
        _ => "Registered by an administrator",
    }
}

/// A client picked for a decision: its realm, `client_id`, the version shown and its name.
type Picked = (String, String, i64, String);

const REVIEW_LINK: &str = "font-medium text-indigo-700 hover:underline dark:text-indigo-300";

/// What the reviewer is about to do, for the dialog.
#[derive(Clone, Debug, PartialEq)]
struct Pending {
    decision: &'static str,
    /// Each client: its realm, `client_id`, the version shown, and its name.
    ids: Vec<Picked>,
    /// Approving one machine client: its registered scope, to grant access with.
    machine: Option<String>,
}

fn decision_words(d: &str, note: &str) -> (&'static str, String) {
    match d {
        "approve" => (
            "Approve",
            "It may sign people in and get tokens from now on.".to_owned(),
        ),
        "reject" => (
            "Reject",
            "It stays refused: it gets no tokens and signs nobody in. Its registration is kept for the record. Its contacts who have a console account see the reason on their Overview (and by e-mail when the console sends mail): write it for them.".to_owned(),
        ),
        "restore" => ("Restore", RESTORE_EFFECT.to_owned()),
        _ => ("Revoke", client_revoke_effect(note)),
    }
}

/// What restoring a revoked client does.
pub(crate) const RESTORE_EFFECT: &str = "It may sign people in and get tokens again. The tokens it held when it was revoked stay dead, and people sign in again to reconnect it.";

#[component]
fn RiskRow(label: &'static str, children: Children) -> impl IntoView {
    view! {
        // The label beside its value (not above it): a card stays a few lines tall, and a page
        // of 25 stays short on a phone.
        <div class="flex min-w-0 gap-3">
            <dt class="w-28 shrink-0 pt-0.5 text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">{label}</dt>
            <dd class="min-w-0 flex-1 break-words text-sm text-slate-800 dark:text-slate-200">{children()}</dd>
        </div>
    }
}

/// What a client registered, as the review card shows it (rows of a `<dl>`).
#[component]
fn Details(item: ReviewItemView) -> impl IntoView {
    let public = item.auth_method == "none";
    view! {
        <RiskRow label="Redirects to">
            {if item.redirect_uris.is_empty() { view! { <span>"Nowhere (no redirect URIs)"</span> }.into_any() } else {
                view! { <ul class="space-y-0.5">{item.redirect_uris.iter().map(|u| view! { <li class=MONO>{u.clone()}</li> }).collect_view()}</ul> }.into_any()
            }}
        </RiskRow>
        <RiskRow label="Authenticates">{if public { "Public client: PKCE, no secret".to_owned() } else { item.auth_method.replace('_', " ") }}</RiskRow>
        <RiskRow label="Grants and scope">{item.grant_types.join(", ")} {(!item.scope.is_empty()).then(|| format!(" · {}", item.scope))}</RiskRow>
        <RiskRow label="Software">{item.software.clone().unwrap_or_else(|| "Not stated".to_owned())}</RiskRow>
        <RiskRow label="Home page">{item.client_uri.clone().unwrap_or_else(|| "Not stated".to_owned())}</RiskRow>
        // Who reads a rejection's reason: the contacts that have a console account.
        <RiskRow label="Contacts">{if item.contacts.is_empty() { "None".to_owned() } else { item.contacts.join(", ") }}</RiskRow>
        <RiskRow label="Registered from">
            {item.source_ip.clone().unwrap_or_else(|| "Unknown".to_owned())}
            {item.source_ip.is_some().then(|| format!(" ({} from this address)", item.same_source))}
        </RiskRow>
        {(!item.similar_names.is_empty()).then(|| view! {
            <RiskRow label="Similar names">
                // Names can be long and many: counted in view, listed on request.
                <details>
                    <summary class="cursor-pointer">{match item.similar_names.len() {
                        1 => "1 other client".to_owned(),
                        // The core looks up at most five.
                        n if n >= 5 => format!("{n} or more other clients"),
                        n => format!("{n} other clients"),
                    }}</summary>
                    <ul class="mt-1 space-y-0.5">{item.similar_names.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}</ul>
                </details>
            </RiskRow>
        })}
    }
}

#[component]
fn ReviewCard(
    item: ReviewItemView,
    selected: RwSignal<Vec<Picked>>,
    ask: Callback<Pending>,
    /// Whether the console has more than one realm (then each card names its own).
    many_realms: bool,
) -> impl IntoView {
    let id = StoredValue::new((
        item.realm.clone(),
        item.client_id.clone(),
        item.version,
        item.name.clone(),
    ));
    let pending = item.state == "pending";
    let approved = item.state == "approved";
    // Bringing a revoked client back is an administrator's call.
    let restorable =
        item.state == "revoked" && crate::components::layout::use_abilities().manage_clients;
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
    let machine = item.grant_types.iter().any(|g| g == "client_credentials");
    let registered_scope = StoredValue::new(item.scope.clone());
    let one = move |decision: &'static str| {
        ask.run(Pending {
            decision,
            ids: vec![id.get_value()],
            machine: (machine && decision == "approve").then(|| registered_scope.get_value()),
        });
    };
    let crowded = item.same_source > 3;
    let expired = item.state == "expired";
    let details = item.clone();
    let check_label = format!("Select {}", item.name);
    // The realm travels with the link: the server selects it and opens the client (so the
    // console's router must not take it: `rel="external"`).
    let client_href = crate::components::pager::realm_link(&item.realm, "clients", &item.client_id);
    let history_href = crate::components::layout::use_abilities()
        .view_audit
        .then(|| {
            with_query(
                "/audit",
                &[
                    ("realm", item.realm.clone()),
                    ("about", item.audit_target.clone()),
                ],
            )
        });
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
                            <p class="mt-1 flex flex-wrap gap-x-3 text-sm">
                                <a class=REVIEW_LINK href=client_href rel="external">"Open client"</a>
                                {history_href.map(|href| view! { <a class=REVIEW_LINK href=href>"History"</a> })}
                            </p>
                            <p class=format!("{MUTED} mt-1")>
                                {many_realms.then(|| view! { <span data-testid="review-realm" class="font-medium text-slate-700 dark:text-slate-200">{format!("Realm {}", item.realm_display)}</span> " · " })}
                                {kind_label(&item.kind)} " · first seen " <When at=item.created.at.clone() words=item.created.ago.clone()/>
                            </p>
                        </div>
                        <div class="flex shrink-0 flex-wrap gap-2">
                            {pending.then(|| view! {
                                <button type="button" class=BTN_SMALL data-next-action="" on:click=move |_| one("approve")>"Approve"</button>
                                <button type="button" class=BTN_SMALL_DANGER on:click=move |_| one("reject")>"Reject"</button>
                            })}
                            {approved.then(|| view! {
                                <button type="button" class=BTN_SMALL_DANGER data-next-action="" on:click=move |_| one("revoke")>"Revoke"</button>
                            })}
                            {restorable.then(|| view! {
                                <button type="button" class=BTN_SMALL data-next-action="" on:click=move |_| one("restore")>"Restore"</button>
                            })}
                        </div>
                    </div>
                    <div class="mt-3 flex flex-wrap gap-2" data-testid="risk-signals">
                        {item.loopback_only.then(|| view! { <Pill tone=Tone::Info text="Loopback redirects only (desktop or CLI app)"/> })}
                        {item.private_use.then(|| view! { <Pill tone=Tone::Warn text="Private-use scheme: any app can claim it"/> })}
                        {item.web_redirects.then(|| view! { <Pill tone=Tone::Warn text="Redirects to web hosts"/> })}
                        {crowded.then(|| view! { <Pill tone=Tone::Warn text=format!("{} registrations from this address", item.same_source)/> })}
                        {(!item.similar_names.is_empty()).then(|| view! { <Pill tone=Tone::Warn text="Similar names exist"/> })}
                        {(item.grant_types.iter().any(|g| g == "client_credentials")).then(|| view! { <Pill tone=Tone::Warn text="Machine client (client credentials)"/> })}
                    </div>
                    {if pending {
                        // Waiting: everything a decision rests on, in view.
                        view! {
                            <dl class="mt-3 grid gap-x-6 gap-y-1.5 lg:grid-cols-2">
                                <Details item=details/>
                            </dl>
                        }.into_any()
                    } else {
                        // Decided: the decision and use in view, the registration one click away.
                        view! {
                            <dl class="mt-3 grid gap-x-6 gap-y-1.5 lg:grid-cols-2">
                                {item.decision.clone().map(|(by, why, at)| if expired {
                                    view! { <RiskRow label="Expired"><When at=at.at words=at.ago/> ": " {why}</RiskRow> }.into_any()
                                } else {
                                    view! { <RiskRow label="Decided">{by} ", " <When at=at.at words=at.ago/> ": " {why}</RiskRow> }.into_any()
                                })}
                                <RiskRow label="Last token">{match item.last_token.clone() {
                                    Some(t) => view! { <When at=t.at words=t.ago/> }.into_any(),
                                    None => view! { <span>"Never"</span> }.into_any(),
                                }}</RiskRow>
                            </dl>
                            <details class="mt-2">
                                <summary class="cursor-pointer text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">"Registration details"</summary>
                                <dl class="mt-2 grid gap-x-6 gap-y-1.5 lg:grid-cols-2">
                                    <Details item=details/>
                                </dl>
                            </details>
                        }.into_any()
                    }}
                </div>
            </div>
        </li>
    }
}

/// While approving a machine client: which resources it may get client_credentials tokens
/// for, and with which scopes. What it gets without a grant (resources open to
/// self-registered machine clients) and what it holds already are shown.
#[component]
fn ApprovalAccess(
    /// The client's realm.
    realm: String,
    client_id: String,
    /// Its registered scope (space-separated; empty: any).
    registered: String,
    picks: RwSignal<BTreeMap<String, BTreeSet<String>>>,
) -> impl IntoView {
    let id = StoredValue::new((client_id, realm));
    let access = Resource::new(
        move || id.get_value(),
        |(client_id, realm)| client_access(client_id, realm),
    );
    let asked: BTreeSet<String> = split(&registered).into_iter().collect();
    let asked = StoredValue::new(asked);
    view! {
        <fieldset class="mt-4" data-testid="approval-access">
            <legend class="text-sm font-semibold text-slate-900 dark:text-white">"Access to grant (client credentials)"</legend>
            <p class=format!("mt-1 {MUTED}")>"Tick the resources this machine client may get tokens for. Nothing is granted unless ticked here or the resource is open to self-registered machine clients."</p>
            <Transition fallback=|| view! { <Loading/> }>
                {move || access.get().map(|r| match r {
                    Ok(list) if list.is_empty() => view! { <p class=format!("mt-2 {MUTED}")>"This realm has no resources yet."</p> }.into_any(),
                    Ok(list) => view! {
                        <ul class="mt-2 max-h-72 space-y-3 overflow-y-auto">
                            {list.into_iter().enumerate().map(|(i, a)| {
                                let slug = StoredValue::new(a.resource.slug.clone());
                                let all = split(&a.resource.scopes);
                                let default: BTreeSet<String> = if a.granted {
                                    a.scopes.iter().cloned().collect()
                                } else {
                                    let wanted: BTreeSet<String> = asked.with_value(|s| all.iter().filter(|x| s.is_empty() || s.contains(*x)).cloned().collect());
                                    if wanted.is_empty() { all.iter().cloned().collect() } else { wanted }
                                };
                                let selected = RwSignal::new(default);
                                Effect::new(move |_| {
                                    let chosen = selected.get();
                                    picks.update(|m| if let Some(v) = m.get_mut(&slug.get_value()) { *v = chosen; });
                                });
                                let on = move || picks.with(|m| m.contains_key(&slug.get_value()));
                                let (box_id, label_for) = (format!("approve-access-{i}"), format!("approve-access-{i}"));
                                let note = match (a.granted, a.resource.open_to_self_registered) {
                                    (true, _) => Some(format!("Granted already: {}. Ticking it replaces those scopes.", a.scopes.join(" "))),
                                    (false, true) => Some("Open to self-registered machine clients: it gets tokens here without a grant; a grant sets exactly which scopes.".to_owned()),
                                    _ => None,
                                };
                                view! {
                                    <li class="rounded-md border border-slate-200 p-3 dark:border-slate-700">
                                        <label for=label_for class="flex items-start gap-2 text-sm font-medium text-slate-800 dark:text-slate-100">
                                            <input type="checkbox" id=box_id class="mt-0.5 h-4 w-4 shrink-0 rounded border-slate-300"
                                                prop:checked=on
                                                on:change=move |ev| {
                                                    let checked = event_target_checked(&ev);
                                                    picks.update(|m| if checked { m.insert(slug.get_value(), selected.get_untracked()); } else { m.remove(&slug.get_value()); });
                                                }/>
                                            <span class="min-w-0 break-words">{a.resource.display_name.clone()} <span class=format!("{MONO} block text-slate-500 dark:text-slate-400")>{a.resource.uri.clone()}</span></span>
                                        </label>
                                        {note.map(|n| view! { <p class=format!("mt-1 {MUTED}")>{n}</p> })}
                                        <Show when=on>
                                            <ScopeChecks id=format!("approve-scopes-{i}") legend=format!("Scopes for {}", a.resource.display_name) scopes=all.clone() selected/>
                                        </Show>
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(error) => view! { <ErrorMessage error/> }.into_any(),
                })}
            </Transition>
        </fieldset>
    }
}

/// The risk signals the inbox filters by (`authz::clients::RiskSignal`), as the filter names
/// them; the pills on each card say the same.
const SIGNALS: [(&str, &str); 5] = [
    ("", "Any"),
    ("web_redirects", "Redirects to web hosts"),
    ("private_use", "Private-use scheme"),
    ("machine", "Machine client"),
    ("crowded", "Many from one address"),
];

/// The review filters and page, as read from the address.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
struct InboxParams {
    state: String,
    realm: String,
    kind: String,
    q: String,
    order: String,
    signal: String,
    after: String,
}

impl InboxParams {
    /// This inbox's address, with `after` as the page.
    fn href(&self, after: &str) -> String {
        with_query(
            "/review",
            &[
                (
                    "state",
                    if self.state == "pending" {
                        String::new()
                    } else {
                        self.state.clone()
                    },
                ),
                ("realm", self.realm.clone()),
                ("kind", self.kind.clone()),
                ("q", self.q.clone()),
                ("order", self.order.clone()),
                ("signal", self.signal.clone()),
                ("after", after.to_owned()),
            ],
        )
    }
}

/// What a decision did, naming the clients: "Approved VS Code.", "Rejected 3 clients: A, B, C."
fn decided_words(decision: &str, names: &[String], done: u32) -> String {
    let verb = match decision {
        "approve" => "Approved",
        "reject" => "Rejected",
        "restore" => "Restored",
        _ => "Revoked",
    };
    match (names, done) {
        ([one], 1) => format!("{verb} {one}."),
        (_, n) => {
            let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
            let more = names.len().saturating_sub(shown.len());
            let tail = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            format!("{verb} {n} clients: {}{tail}.", shown.join(", "))
        }
    }
}

/// The Security review screen: one inbox across every realm.
#[component]
pub fn ReviewPage() -> impl IntoView {
    let query = use_query_map();
    let params = Memo::new(move |_| {
        query.with(|m| {
            let get = |k: &str| m.get(k).unwrap_or_default();
            InboxParams {
                state: m
                    .get("state")
                    .filter(|s| STATES.iter().any(|(v, _)| v == s))
                    .unwrap_or_else(|| "pending".to_owned()),
                realm: get("realm"),
                kind: get("kind"),
                q: get("q"),
                order: get("order"),
                signal: get("signal"),
                after: get("after"),
            }
        })
    });
    let state = Memo::new(move |_| params.with(|p| p.state.clone()));
    let decide = ServerAction::<DecideReview>::new();
    let decided = successes(decide);
    let items = Resource::new(
        move || (params.get(), decided.get()),
        |(p, _)| review_inbox(p.state, p.realm, p.kind, p.q, p.order, p.signal, p.after),
    );
    // The tabs count what the search and filters find (not the page or order).
    let counts = Resource::new(
        move || {
            (
                params.with(|p| {
                    (
                        p.realm.clone(),
                        p.kind.clone(),
                        p.q.clone(),
                        p.signal.clone(),
                    )
                }),
                decided.get(),
            )
        },
        |((realm, kind, q, signal), _)| review_counts(realm, kind, q, signal),
    );
    let count_of = move |state: &str| {
        counts
            .get()
            .and_then(Result::ok)
            .and_then(|c| c.into_iter().find(|(s, _)| s == state).map(|(_, n)| n))
    };
    let selected = RwSignal::new(Vec::<Picked>::new());
    let asking = RwSignal::new(None::<Pending>);
    let open = RwSignal::new(false);
    let reason = RwSignal::new(String::new());
    // Approving one machine client: resource slug → scopes to grant.
    let picks = RwSignal::new(BTreeMap::<String, BTreeSet<String>>::new());
    // The clients of the decision under way, by name, for the toast.
    let deciding = RwSignal::new((String::new(), Vec::<String>::new()));
    let toasts = use_toasts();
    let session = crate::components::layout::use_session();
    // Plain closures, read inside the page's suspended views: the session is waited for there,
    // so the server renders what the browser hydrates.
    let realms = move || {
        session
            .get()
            .and_then(Result::ok)
            .flatten()
            .map(|s| s.realms)
            .unwrap_or_default()
    };
    let many_realms = move || realms().len() > 1;
    // Granting access while approving takes an administrator.
    let grants = crate::components::layout::use_abilities().manage_clients;
    let note = StoredValue::new(crate::components::layout::use_revocation_note());
    let list_heading = NodeRef::<leptos::html::H2>::new();
    // Where the first decided card stood, and whether the decision went through: the next
    // card's action gets focus once the list is read again.
    let refocus = RwSignal::new(None::<(usize, bool)>);
    Effect::new(move |_| {
        let Some(Ok(page)) = items.get() else { return };
        let Some((at, true)) = refocus.get_untracked() else {
            return;
        };
        refocus.set(None);
        let left = page.items.len();
        request_animation_frame(move || {
            #[cfg(feature = "hydrate")]
            {
                use wasm_bindgen::JsCast;
                let next = (left > 0)
                    .then(|| {
                        document()
                            .query_selector_all("ul[aria-labelledby=review-list] > li")
                            .ok()?
                            .item(u32::try_from(at.min(left - 1)).ok()?)?
                            .dyn_into::<web_sys::Element>()
                            .ok()?
                            .query_selector("[data-next-action]")
                            .ok()?
                    })
                    .flatten()
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
                if let Some(button) = next {
                    let _ = button.focus();
                    return;
                }
            }
            #[cfg(not(feature = "hydrate"))]
            let _ = (at, left);
            if let Some(h) = list_heading.get_untracked() {
                let _ = h.focus();
            }
        });
    });
    let reviews = crate::components::layout::ReviewsChanged::used();
    Effect::new(move |_| match decide.value().get() {
        Some(Ok(r)) => {
            selected.set(vec![]);
            reason.set(String::new());
            let (decision, names) = deciding.get_untracked();
            if r.failed.is_empty() {
                toasts.push(ToastKind::Success, decided_words(&decision, &names, r.done));
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
            if let Some(r) = reviews {
                r.bump();
            }
            // The decided cards (and the focused button of the selection bar) leave the page:
            // focus goes to the card that takes the first one's place once the list is read
            // again (`refocus`), or to the list's heading when none is left.
            refocus.update(|r| {
                if let Some(r) = r {
                    r.1 = true;
                }
            });
        }
        Some(Err(e)) => {
            refocus.set(None);
            toasts.push(ToastKind::Error, e.to_string());
        }
        None => {}
    });
    let ask = Callback::new(move |p: Pending| {
        picks.set(BTreeMap::new());
        asking.set(Some(p));
        open.set(true);
    });
    let title = Signal::derive(move || {
        asking.get().map_or_else(String::new, |p| {
            let (verb, _) = decision_words(p.decision, &note.get_value());
            match p.ids.as_slice() {
                [(_, _, _, name)] => format!("{verb} {name}?"),
                ids => format!("{verb} {} clients?", ids.len()),
            }
        })
    });
    let message = Signal::derive(move || {
        asking.get().map_or_else(String::new, |p| {
            let what = if p.machine.is_some() {
                "It may get tokens from now on.".to_owned()
            } else {
                decision_words(p.decision, &note.get_value()).1
            };
            match p.ids.len() {
                1 => format!("{what} The reason is kept in the client's history."),
                n => {
                    // The decision's words are about one client: said of each of them.
                    let mut chars = what.chars();
                    let what = chars.next().map_or_else(String::new, |c| {
                        c.to_lowercase().chain(chars).collect::<String>()
                    });
                    format!(
                        "For each of the {n}: {what} The reason is kept in each client's history."
                    )
                }
            }
        })
    });
    let confirm_label = Signal::derive(move || {
        asking.get().map_or_else(String::new, |p| {
            decision_words(p.decision, &note.get_value()).0.to_owned()
        })
    });
    let bulk = move |decision: &'static str| {
        let ids = selected.get_untracked();
        ask.run(Pending {
            decision,
            ids,
            machine: None,
        });
    };
    view! {
        <PageHeader title="Security review" description="Clients that registered themselves, in every realm, wait here until a reviewer lets them in. Until then they get no tokens and sign nobody in; the person trying sees that the app awaits approval."/>
        <nav aria-label="Review states" class="mb-4 flex flex-wrap gap-2">
            {STATES.iter().map(|(value, label)| {
                let value = *value;
                let href = move || InboxParams { state: value.to_owned(), after: String::new(), ..params.get() }.href("");
                view! {
                    <a href=href
                        class=move || if state.get() == value { BTN_PRIMARY } else { BTN_SECONDARY }
                        aria-current=move || (state.get() == value).then_some("page")>
                        {*label}
                        <Transition fallback=|| ()>{move || count_of(value).map(|n| format!(" ({})", grouped(n)))}</Transition>
                    </a>
                }
            }).collect_view()}
        </nav>
        <Form method="GET" action="" attr:class=format!("{CARD} mb-4 grid items-end gap-3 p-4 sm:grid-cols-2 lg:grid-cols-4") attr:role="search" attr:data-testid="review-filters">
            {move || (state.get() != "pending").then(|| view! { <input type="hidden" name="state" value=state.get()/> })}
            <div class="min-w-0 sm:col-span-2">
                <label class=LABEL for="review-search">"Search"</label>
                <input class=format!("mt-1 {INPUT}") id="review-search" name="q" type="search" maxlength="200" placeholder="Name or client_id" prop:value=move || params.with(|p| p.q.clone())/>
            </div>
            <Transition fallback=|| ()>
                {move || many_realms().then(|| view! {
                    <div class="min-w-0">
                        <label class=LABEL for="review-realm">"Realm"</label>
                        <select class=format!("mt-1 {INPUT}") id="review-realm" name="realm">
                            <option value="" selected=move || params.with(|p| p.realm.is_empty())>"All realms"</option>
                            {realms().into_iter().map(|r| {
                                let name = r.name.clone();
                                view! { <option value=r.name selected=move || params.with(|p| p.realm == name)>{r.display_name}</option> }
                            }).collect_view()}
                        </select>
                    </div>
                })}
            </Transition>
            <div class="min-w-0">
                <label class=LABEL for="review-kind">"Registered by"</label>
                <select class=format!("mt-1 {INPUT}") id="review-kind" name="kind">
                    <option value="" selected=move || params.with(|p| p.kind.is_empty())>"Either way"</option>
                    <option value="dynamic" selected=move || params.with(|p| p.kind == "dynamic")>"Dynamic registration"</option>
                    <option value="metadata_document" selected=move || params.with(|p| p.kind == "metadata_document")>"Metadata document"</option>
                </select>
            </div>
            <div class="min-w-0">
                <label class=LABEL for="review-order">"Order"</label>
                <select class=format!("mt-1 {INPUT}") id="review-order" name="order">
                    <option value="" selected=move || params.with(|p| p.order != "oldest" && p.order != "risk")>"Newest first"</option>
                    <option value="oldest" selected=move || params.with(|p| p.order == "oldest")>"Oldest first"</option>
                    <option value="risk" selected=move || params.with(|p| p.order == "risk")>"Riskiest first"</option>
                </select>
            </div>
            <div class="min-w-0">
                <label class=LABEL for="review-signal">"Risk signal"</label>
                <select class=format!("mt-1 {INPUT}") id="review-signal" name="signal">
                    {SIGNALS.iter().map(|(value, label)| view! {
                        <option value=*value selected=move || params.with(|p| p.signal == *value)>{*label}</option>
                    }).collect_view()}
                </select>
            </div>
            <div class="flex gap-2">
                <button type="submit" class=BTN_SECONDARY>"Apply"</button>
                {move || params.with(|p| !p.q.is_empty() || !p.realm.is_empty() || !p.kind.is_empty() || !p.order.is_empty() || !p.signal.is_empty()).then(|| {
                    let href = InboxParams { state: state.get(), ..InboxParams::default() }.href("");
                    view! { <a class=BTN_SECONDARY href=href>"Clear"</a> }
                })}
            </div>
        </Form>
        <Show when=move || !selected.with(Vec::is_empty)>
            <div class=format!("{CARD} sticky top-2 z-10 mb-4 flex flex-wrap items-center gap-3 p-3") role="region" aria-label="Selected clients">
                <span class="text-sm font-medium">{move || format!("{} selected", selected.with(Vec::len))}</span>
                <button type="button" class=BTN_SMALL on:click=move |_| bulk("approve")>"Approve selected"</button>
                <button type="button" class=BTN_SMALL_DANGER on:click=move |_| bulk("reject")>"Reject selected"</button>
                <button type="button" class=BTN_SMALL on:click=move |_| selected.set(vec![])>"Clear"</button>
            </div>
        </Show>
        <h2 node_ref=list_heading tabindex="-1" id="review-list" class="sr-only">
            {move || STATES.iter().find(|(v, _)| *v == state.get()).map(|(_, l)| format!("{l} clients")).unwrap_or_default()}
        </h2>
        <Transition fallback=|| view! { <Loading/> }>
            {move || items.get().map(|r| match r {
                Ok(page) if page.items.is_empty() => {
                    let filtered = params.with(|p| !p.q.is_empty() || !p.realm.is_empty() || !p.kind.is_empty() || !p.signal.is_empty());
                    let (title, hint) = match (filtered, state.get() == "pending") {
                        (true, _) => ("No clients match", "Try another search, or clear the filters."),
                        (false, true) => ("Nothing waits for review", "Clients that register themselves under a realm's review policy appear here."),
                        (false, false) => ("No clients here", "Clients that register themselves under a realm's review policy appear here."),
                    };
                    view! { <div class=CARD><EmptyState title hint/></div> }.into_any()
                }
                Ok(page) => {
                    let all: Vec<Picked> = page.items.iter().filter(|i| i.state == "pending")
                        .map(|i| (i.realm.clone(), i.client_id.clone(), i.version, i.name.clone())).collect();
                    let n = all.len();
                    let shown = page.items.len();
                    let at = params.get();
                    let next = page.next.clone().map(|c| at.href(&c));
                    let first = (!at.after.is_empty()).then(|| at.href(""));
                    let many = many_realms();
                    view! {
                        {(n > 1).then(|| view! {
                            <div class="mb-3">
                                <button type="button" class=BTN_SMALL on:click=move |_| selected.set(all.clone())>{format!("Select all {n} on this page")}</button>
                            </div>
                        })}
                        <ul class="space-y-4" aria-labelledby="review-list">
                            {page.items.into_iter().map(|item| view! { <ReviewCard item selected ask many_realms=many/> }).collect_view()}
                        </ul>
                        <div class="mt-4 flex flex-wrap items-center justify-between gap-3" data-testid="review-pager">
                            <p class=MUTED>{format!("{shown} client{} on this page, {} first", if shown == 1 { "" } else { "s" }, match at.order.as_str() { "oldest" => "oldest", "risk" => "riskiest", _ => "newest" })}</p>
                            <div class="flex gap-2">
                                {first.map(|href| view! { <a class=BTN_SMALL href=href>"First page"</a> })}
                                {next.map(|href| view! { <a class=BTN_SMALL href=href rel="next">"Next page"</a> })}
                            </div>
                        </div>
                    }.into_any()
                }
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
        <ConfirmDialog open title message confirm_label danger=false start="review-reason"
            confirm_disabled=Signal::derive(move || reason.get().trim().is_empty() || picks.with(|m| m.values().any(BTreeSet::is_empty)))
            on_confirm=Callback::new(move |_| {
                if let Some(p) = asking.get_untracked() {
                    let at = items.with_untracked(|i| match i {
                        Some(Ok(page)) => page.items.iter().position(|i| {
                            p.ids.iter().any(|(realm, id, _, _)| *realm == i.realm && *id == i.client_id)
                        }),
                        _ => None,
                    });
                    refocus.set(Some((at.unwrap_or(0), false)));
                    deciding.set((p.decision.to_owned(), p.ids.iter().map(|(_, _, _, name)| name.clone()).collect()));
                    let mut realms = Vec::with_capacity(p.ids.len());
                    let mut client_ids = Vec::with_capacity(p.ids.len());
                    let mut versions = Vec::with_capacity(p.ids.len());
                    for (realm, id, version, _) in p.ids {
                        realms.push(realm);
                        client_ids.push(id);
                        versions.push(version);
                    }
                    let access = picks.with_untracked(|m| m.iter().map(|(slug, scopes)| format!("{slug} {}", joined(scopes))).collect());
                    decide.dispatch(DecideReview { realms, client_ids, versions, decision: p.decision.to_owned(), reason: reason.get_untracked(), access });
                }
            })>
            {move || asking.get().and_then(|p| {
                let scope = p.machine?;
                let (realm, client_id, _, _) = p.ids.first()?.clone();
                Some(if grants {
                    view! { <ApprovalAccess realm client_id registered=scope picks/> }.into_any()
                } else {
                    view! {
                        <p class=format!("mt-4 {MUTED}") data-testid="approval-access-note">
                            "Only resources open to self-registered machine clients give it tokens; an administrator grants more on the client's page."
                        </p>
                    }.into_any()
                })
            })}
            {move || asking.get().filter(|p| p.ids.len() > 1).map(|p| view! {
                <div class="mt-4">
                    <p class=LABEL>{format!("The {} clients", p.ids.len())}</p>
                    <ul class="mt-1 max-h-40 space-y-0.5 overflow-y-auto text-sm" data-testid="bulk-list" tabindex="0" aria-label="Clients to decide">
                        {p.ids.into_iter().map(|(realm, id, _, name)| view! {
                            <li class="break-words">{name} " " <span class=format!("{MONO} text-slate-500 dark:text-slate-400")>{format!("{id} · realm {realm}")}</span></li>
                        }).collect_view()}
                    </ul>
                </div>
            })}
            <label class=LABEL for="review-reason">"Reason (required)"</label>
            <textarea id="review-reason" class=format!("mt-1 {INPUT}") rows="3" maxlength="500" required
                prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev))></textarea>
        </ConfirmDialog>
    }
}
