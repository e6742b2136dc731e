//! The selected realm at a glance.
use crate::components::copy::CopyValue;
use crate::components::layout::use_session;
use crate::components::ui::{Badge, CARD, Loading, MUTED, PageHeader};
use leptos::prelude::*;

/// Overview of the selected realm.
#[component]
pub fn OverviewPage() -> impl IntoView {
    let session = use_session();
    view! {
        <PageHeader title="Overview" description="The realm selected in the sidebar and your account."/>
        <Suspense fallback=|| view! { <Loading/> }>
            {move || session.get().and_then(Result::ok).flatten().map(|info| {
                let realm = info.realm.clone();
                view! {
                    <div class="grid gap-6 lg:grid-cols-3">
                        <section class=format!("{CARD} p-6 lg:col-span-2") aria-labelledby="realm-title">
                            <div class="flex items-center justify-between">
                                <h2 id="realm-title" class="text-lg font-semibold text-slate-900 dark:text-white">{realm.display_name.clone()}</h2>
                                <Badge ok=realm.enabled text=if realm.enabled { "Enabled" } else { "Disabled" }/>
                            </div>
                            <dl class="mt-4 space-y-4">
                                <div>
                                    <dt class=MUTED>"Realm name"</dt>
                                    <dd class="font-mono text-sm text-slate-900 dark:text-slate-100">{realm.name.clone()}</dd>
                                </div>
                                <div>
                                    <dt class=MUTED>"Issuer"</dt>
                                    <dd class="mt-1" data-testid="issuer"><CopyValue value=realm.issuer.clone() label="issuer"/></dd>
                                    <dd class=format!("mt-1 {MUTED}")>"Tokens from this realm carry this value in " <code class="font-mono text-xs">"iss"</code> "."</dd>
                                </div>
                                <div>
                                    <dt class=MUTED>"Created"</dt>
                                    <dd class="text-sm text-slate-900 dark:text-slate-100">{realm.created_at.clone()}</dd>
                                </div>
                            </dl>
                        </section>
                        <section class=format!("{CARD} p-6") aria-labelledby="you-title">
                            <h2 id="you-title" class="text-lg font-semibold text-slate-900 dark:text-white">"You"</h2>
                            <dl class="mt-4 space-y-3 text-sm">
                                <div><dt class=MUTED>"Name"</dt><dd class="text-slate-900 dark:text-slate-100">{info.display_name.clone()}</dd></div>
                                <div><dt class=MUTED>"Email"</dt><dd class="text-slate-900 dark:text-slate-100">{info.email.clone()}</dd></div>
                                <div><dt class=MUTED>"Role"</dt><dd class="text-slate-900 dark:text-slate-100">{info.role.replace('_', " ")}</dd></div>
                            </dl>
                        </section>
                    </div>
                }
            })}
        </Suspense>
    }
}
