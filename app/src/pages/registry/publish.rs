//! Publishing: what the draft would change, the request that waits for a second person (with
//! the digest an approval names), the releases and their roll back, and the registry's
//! settings.
use super::{DiffList, RegistryTabs};
use crate::api::registry::{
    ApproveRegistryRequest, PublishRegistry, RejectRegistryRequest, RollbackRegistry,
    SetRegistrySettings, WithdrawRegistryRequest, registry_overview, registry_release,
    registry_releases,
};
use crate::components::confirm::{ConfirmButton, ConfirmDialog};
use crate::components::copy::CopyValue;
use crate::components::layout::use_abilities;
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::error::AppError;
use crate::types::registry::{RegistryView, ReleaseView, RequestView};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

/// Toasts what an action that answers in words did, or its error.
fn toast_outcome<I>(action: ServerAction<I>)
where
    I: leptos::server_fn::ServerFn<Output = String, Error = AppError>
        + Clone
        + Send
        + Sync
        + 'static,
{
    let toasts = use_toasts();
    Effect::new(move |_| match action.value().get() {
        Some(Ok(message)) => toasts.push(ToastKind::Success, message),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
}

/// Toasts `done` after an action without an answer, or its error.
fn toast_done<I>(action: ServerAction<I>, done: &'static str)
where
    I: leptos::server_fn::ServerFn<Output = (), Error = AppError> + Clone + Send + Sync + 'static,
{
    let toasts = use_toasts();
    Effect::new(move |_| match action.value().get() {
        Some(Ok(())) => toasts.push(ToastKind::Success, done),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
}

/// The Publish & releases screen.
#[component]
pub fn PublishPage() -> impl IntoView {
    let publish = ServerAction::<PublishRegistry>::new();
    let rollback = ServerAction::<RollbackRegistry>::new();
    let approve = ServerAction::<ApproveRegistryRequest>::new();
    let reject = ServerAction::<RejectRegistryRequest>::new();
    let withdraw = ServerAction::<WithdrawRegistryRequest>::new();
    let settings = ServerAction::<SetRegistrySettings>::new();
    toast_outcome(publish);
    toast_outcome(rollback);
    toast_outcome(approve);
    toast_outcome(settings);
    toast_done(reject, "Rejected: its author sees your reason.");
    toast_done(withdraw, "Withdrawn.");
    let changed = move || {
        (
            publish.version().get(),
            rollback.version().get(),
            approve.version().get(),
            reject.version().get(),
            withdraw.version().get(),
            settings.version().get(),
        )
    };
    let registry = Resource::new(changed, |_| registry_overview());
    let query = use_query_map();
    let before =
        Memo::new(move |_| query.with(|q| q.get("before").and_then(|b| b.parse::<i64>().ok())));
    let releases = Resource::new(
        move || (before.get(), changed()),
        |(before, _)| registry_releases(before),
    );
    view! {
        <PageHeader title="Publish & releases" description="A release is the draft signed and frozen: laptops, harness configs and the Registry API read only releases."/>
        <RegistryTabs current="/registry/publish"/>
        <Transition fallback=|| view! { <Loading/> }>
            {move || registry.get().map(|result| match result {
                Ok(r) => view! {
                    {r.pending.clone().map(|p| view! { <Pending p approve reject withdraw/> })}
                    {r.rejected.clone().map(|x| view! {
                        <section role="status" class="mb-6 rounded-md border border-red-200 bg-red-50 p-4 text-sm text-red-900 dark:border-red-900 dark:bg-red-950 dark:text-red-200" data-testid="rejected">
                            <p class="font-medium">{format!("{} rejected {} ", x.by, x.what)}<When at=x.at.at.clone() words=x.at.ago.clone()/></p>
                            <p class="mt-1 break-words whitespace-pre-line">{x.reason.clone()}</p>
                        </section>
                    })}
                    <Unpublished r=r.clone() publish/>
                    <Settings r settings/>
                }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
        <section class=format!("{CARD} mt-6") aria-labelledby="releases-title">
            <h2 id="releases-title" class="border-b border-slate-200 px-4 py-4 text-lg font-semibold text-slate-900 sm:px-6 dark:border-slate-700 dark:text-white">"Releases"</h2>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || releases.get().map(|result| match result {
                    Ok(page) if page.items.is_empty() => view! {
                        <EmptyState title="No releases yet" hint="Publish the draft to make the first one."/>
                    }.into_any(),
                    Ok(page) => {
                        let latest = before.get().is_none().then(|| page.items.first().map(|r| r.sequence)).flatten();
                        let approval = registry.get().and_then(Result::ok).is_some_and(|r| r.require_approval);
                        view! {
                            <ol class="divide-y divide-slate-200 dark:divide-slate-700">
                                {page.items.into_iter().map(|r| view! { <ReleaseRow r latest rollback approval/> }).collect_view()}
                            </ol>
                            <nav aria-label="Pagination" class="flex items-center justify-between border-t border-slate-200 px-4 py-3 dark:border-slate-700">
                                <p class=MUTED>{format!("{} release{}", page.total, if page.total == 1 { "" } else { "s" })}</p>
                                <div class="flex gap-2">
                                    {before.get().is_some().then(|| view! { <a class=BTN_SMALL href="/registry/publish">"Newest"</a> })}
                                    {page.older.map(|o| view! { <a class=BTN_SMALL rel="next" href=format!("/registry/publish?before={o}")>"Older"</a> })}
                                </div>
                            </nav>
                        }.into_any()
                    }
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </section>
    }
}

/// What the draft would publish, and the Publish button.
#[component]
fn Unpublished(r: RegistryView, publish: ServerAction<PublishRegistry>) -> impl IntoView {
    let can = use_abilities();
    let nothing = r.unpublished.is_empty();
    let waiting = r.pending.is_some();
    let revision = r.revision;
    let label = if r.require_approval {
        "Ask for approval"
    } else {
        "Publish"
    };
    let message = if r.require_approval {
        "A second person approves exactly this content before it is published."
    } else {
        "Laptops and harnesses get it with their next pull; the release cannot be changed afterwards (roll back publishes an older one again)."
    };
    let warnings = r.warnings.clone();
    let stale = r.stale_issuer.is_some();
    view! {
        <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby="unpublished-title" data-testid="publish-draft">
            <div class="flex flex-wrap items-start justify-between gap-2">
                <div>
                    <h2 id="unpublished-title" class="text-lg font-semibold text-slate-900 dark:text-white">"The draft"</h2>
                    <p class=MUTED>{match &r.latest {
                        Some(l) => format!("Against release {} ({} servers).", l.sequence, l.servers),
                        None => "Nothing is published yet: everything is new.".to_owned(),
                    }}</p>
                </div>
                {can.manage_registry.then(|| view! {
                    <ConfirmButtonGuarded label message disabled=(nothing && !stale) || waiting
                        on_confirm=Callback::new(move |()| { publish.dispatch(PublishRegistry { revision }); })/>
                })}
            </div>
            {if nothing && stale {
                view! { <p class="mt-4 text-sm text-red-700 dark:text-red-300">"Nothing changed, but the latest release names an old issuer: publish again so laptops accept it."</p> }.into_any()
            } else if nothing {
                view! { <p class="mt-4 text-sm" data-testid="nothing-to-publish">"The draft is the latest release: nothing to publish."</p> }.into_any()
            } else {
                view! {
                    <p class="mt-4 text-sm font-medium">{r.unpublished.summary.clone()}</p>
                    <div class="mt-3"><DiffList diff=r.unpublished.clone()/></div>
                }.into_any()
            }}
            {waiting.then(|| view! { <p class=format!("mt-3 {MUTED}")>"A request waits for approval: it is decided or withdrawn before another."</p> })}
            {(!warnings.is_empty()).then(|| view! {
                <details class="mt-4 text-sm">
                    <summary class="cursor-pointer text-amber-800 dark:text-amber-300">{format!("{} warning{}", warnings.len(), if warnings.len() == 1 { "" } else { "s" })}</summary>
                    <ul class="mt-2 list-disc space-y-1 pl-5 break-words">{warnings.into_iter().map(|w| view! { <li>{w.message}</li> }).collect_view()}</ul>
                </details>
            })}
        </section>
    }
}

/// A primary button that confirms first, disabled when `disabled`.
#[component]
fn ConfirmButtonGuarded(
    label: &'static str,
    message: &'static str,
    disabled: bool,
    on_confirm: Callback<()>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <button type="button" class=BTN_PRIMARY disabled=disabled aria-haspopup="dialog" on:click=move |_| open.set(true)>{label}</button>
        <ConfirmDialog open title=format!("{label}?") message=message confirm_label=label danger=false on_confirm/>
    }
}

/// The request that waits for a second person.
#[component]
fn Pending(
    p: RequestView,
    approve: ServerAction<ApproveRegistryRequest>,
    reject: ServerAction<RejectRegistryRequest>,
    withdraw: ServerAction<WithdrawRegistryRequest>,
) -> impl IntoView {
    let can = use_abilities();
    let what = match (&p.settings, p.rollback_of) {
        (Some((approval, access)), _) => format!(
            "Change the settings: approval {}, Registry API access {access}.",
            if *approval {
                "required"
            } else {
                "not required"
            }
        ),
        (None, Some(n)) => format!("Roll back to release {n}: publish its content again."),
        (None, None) => "Publish the draft as it was when asked for.".to_owned(),
    };
    let reason = RwSignal::new(String::new());
    let rejecting = RwSignal::new(false);
    let (id, digest) = (p.id.clone(), p.digest.clone());
    let may_decide = can.approve_releases && !p.mine;
    let (approve_id, reject_id, withdraw_id) = (id.clone(), id.clone(), id.clone());
    view! {
        <section class=format!("{CARD} mb-6 border-amber-300 p-4 sm:p-6 dark:border-amber-800") aria-labelledby="pending-title" data-testid="pending-request">
            <h2 id="pending-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Waiting for approval"</h2>
            <p class="mt-1 text-sm break-words">{format!("Asked for by {} ", p.requested_by)}<When at=p.requested.at.clone() words=p.requested.ago.clone()/>{format!(". {what}")}</p>
            {(p.settings.is_none()).then(|| view! {
                <div class="mt-4">
                    {if p.diff.is_empty() { view! { <p class="text-sm">"The same content as the latest release."</p> }.into_any() }
                     else { view! { <p class="text-sm font-medium">{p.diff.summary.clone()}</p><div class="mt-2"><DiffList diff=p.diff.clone()/></div> }.into_any() }}
                </div>
            })}
            {p.draft_differs.then(|| view! {
                <p class="mt-4 text-sm text-amber-800 dark:text-amber-300" data-testid="draft-differs">"The draft has changed since this was asked for: approving publishes the content shown here, not the draft."</p>
            })}
            <div class="mt-4">
                <p class="text-xs font-medium text-slate-500 dark:text-slate-400">"Content digest: the SHA-256 of this policy's canonical JSON. An approval names it, so what is approved is what you see (the release id differs: it also covers the issuer and the release number)."</p>
                <CopyValue value=digest.clone() label="the content digest"/>
            </div>
            <div class="mt-4 flex flex-wrap gap-2">
                {may_decide.then(|| {
                    let digest = digest.clone();
                    view! {
                        <ConfirmButton label="Approve and publish" title="Approve this request?" class=BTN_PRIMARY
                            message="It is published now, with you as its approver."
                            confirm_label="Approve"
                            on_confirm=Callback::new(move |()| { approve.dispatch(ApproveRegistryRequest { id: approve_id.clone(), digest: digest.clone() }); })/>
                        <button type="button" class=BTN_SECONDARY aria-haspopup="dialog" on:click=move |_| rejecting.set(true)>"Reject"</button>
                        <ConfirmDialog open=rejecting title="Reject this request?".to_owned() message="Say why: its author sees your reason.".to_owned()
                            confirm_label="Reject".to_owned() confirm_disabled=Signal::derive(move || reason.get().trim().is_empty())
                            on_confirm=Callback::new(move |()| { reject.dispatch(RejectRegistryRequest { id: reject_id.clone(), reason: reason.get_untracked() }); })>
                            <label class=LABEL for="reject-reason">"Reason"</label>
                            <textarea id="reject-reason" class=format!("mt-1 {INPUT}") rows="3" maxlength="500"
                                prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev))></textarea>
                        </ConfirmDialog>
                    }
                })}
                {can.manage_registry.then(|| view! {
                    <ConfirmButton label="Withdraw" title="Withdraw this request?" class=BTN_SECONDARY
                        message="Nothing is published; the draft stays as it is."
                        confirm_label="Withdraw"
                        on_confirm=Callback::new(move |()| { withdraw.dispatch(WithdrawRegistryRequest { id: withdraw_id.clone() }); })/>
                })}
                {(p.mine && can.approve_releases).then(|| view! { <p class=MUTED>"You asked for it: someone else approves it."</p> })}
            </div>
        </section>
    }
}

/// One release in the history: what it changed (loaded when opened), and roll back.
#[component]
fn ReleaseRow(
    r: ReleaseView,
    latest: Option<i64>,
    rollback: ServerAction<RollbackRegistry>,
    /// Roll back asks for approval instead of publishing.
    approval: bool,
) -> impl IntoView {
    let can = use_abilities();
    let sequence = r.sequence;
    let open = RwSignal::new(false);
    let detail = LocalResource::new(move || {
        let o = open.get();
        async move {
            if o {
                Some(registry_release(sequence).await)
            } else {
                None
            }
        }
    });
    let is_latest = latest == Some(sequence);
    view! {
        <li class="px-4 py-3 sm:px-6" data-testid="release-row">
            <div class="flex flex-wrap items-center justify-between gap-2">
                <div class="min-w-0 text-sm">
                    <span class="font-medium">{format!("Release {sequence}")}</span>
                    {is_latest.then(|| view! { " " <Pill tone=Tone::Good text="Latest"/> })}
                    {r.rollback_of.map(|n| view! { " " <Pill tone=Tone::Info text=format!("Roll back to {n}")/> })}
                    <p class="break-words text-slate-600 dark:text-slate-300">
                        {format!("{} servers · {} · by {}", r.servers, r.changes, r.published_by)}
                        {r.approved_by.clone().map(|a| format!(", approved by {a}"))}
                        " · " <When at=r.published.at.clone() words=r.published.ago.clone()/>
                    </p>
                    <p class="font-mono text-xs break-all text-slate-500 dark:text-slate-400" title="Content id (SHA-256 of its canonical JSON)">{r.id.clone()}</p>
                </div>
                <div class="flex gap-2">
                    <button type="button" class=BTN_SMALL aria-label=format!("Changes in release {sequence}") aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|o| *o = !*o)>
                        {move || if open.get() { "Hide changes" } else { "Changes" }}
                    </button>
                    {(can.manage_registry && !is_latest).then(|| view! {
                        <ConfirmButton label="Roll back" title=format!("Roll back to release {sequence}?") class=BTN_SMALL
                            message=if approval {
                                "A second person is asked to approve publishing its content again; once approved it becomes the draft, and unpublished edits are dropped."
                            } else {
                                "Its content is published again as a new release and becomes the draft: unpublished edits are dropped."
                            }
                            confirm_label="Roll back"
                            on_confirm=Callback::new(move |()| { rollback.dispatch(RollbackRegistry { sequence }); })/>
                    })}
                </div>
            </div>
            {move || open.get().then(|| view! {
                <div class="mt-3">
                    {move || match detail.get().flatten() {
                        None => view! { <Loading/> }.into_any(),
                        Some(Ok(d)) if d.diff.is_empty() => view! { <p class="text-sm">"Nothing changed against the release before."</p> }.into_any(),
                        Some(Ok(d)) => view! { <DiffList diff=d.diff/> }.into_any(),
                        Some(Err(error)) => view! { <ErrorMessage error/> }.into_any(),
                    }}
                </div>
            })}
        </li>
    }
}

/// Approval and who may read the registry over HTTP.
#[component]
fn Settings(r: RegistryView, settings: ServerAction<SetRegistrySettings>) -> impl IntoView {
    let can = use_abilities();
    let access = r.api_access.clone();
    view! {
        <section class=format!("{CARD} mt-6 p-4 sm:p-6") aria-labelledby="registry-settings-title">
            <h2 id="registry-settings-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Settings"</h2>
            <dl class="mt-3 grid gap-3 sm:grid-cols-2">
                <div class="min-w-0">
                    <dt class="text-xs font-medium text-slate-500 dark:text-slate-400">"Signed releases (portcullis-cli pull)"</dt>
                    <dd class="mt-1"><CopyValue value=r.release_url.clone() label="the release URL"/></dd>
                </div>
                <div class="min-w-0">
                    <dt class="text-xs font-medium text-slate-500 dark:text-slate-400">"MCP Registry API"</dt>
                    <dd class="mt-1"><CopyValue value=r.api_url.clone() label="the Registry API URL"/></dd>
                </div>
            </dl>
            {if can.manage_registry {
                view! {
                    <ActionForm action=settings attr:class="mt-4 grid gap-4 sm:grid-cols-2">
                        <label class="inline-flex items-start gap-2 text-sm sm:col-span-2">
                            <input type="checkbox" name="require_approval" value="on" prop:checked=r.require_approval class="mt-1"/>
                            <span>"Releases wait for a second person's approval"<span class=format!("block {MUTED}")>"Turning this off is itself approved by a second person."</span></span>
                        </label>
                        <div>
                            <label class=LABEL for="registry-access">"Who may read the registry over HTTP"</label>
                            <select id="registry-access" name="api_access" class=format!("mt-1 {INPUT}")>
                                {[("off", "Nobody (404): laptops cannot pull"), ("bearer", "Holders of a realm token for the registry resource (mcp-registry)"), ("public", "Anyone")].into_iter().map(|(v, l)| {
                                    let selected = v == access;
                                    view! { <option value=v selected=selected>{l}</option> }
                                }).collect_view()}
                            </select>
                        </div>
                        <div class="flex items-end"><button type="submit" class=BTN_PRIMARY disabled=move || settings.pending().get()>"Save settings"</button></div>
                    </ActionForm>
                }.into_any()
            } else {
                view! {
                    <p class="mt-3 text-sm">{format!("Approval {}; HTTP access {}.", if r.require_approval { "required" } else { "not required" }, r.api_access)}</p>
                }.into_any()
            }}
        </section>
    }
}
