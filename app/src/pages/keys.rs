//! Signing keys: what the JWKS publishes, and rotation.
use crate::api::keys::{RotateKeys, list_keys};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyValue;
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use leptos::prelude::*;

/// The Keys screen.
#[component]
pub fn KeysPage() -> impl IntoView {
    let rotate = ServerAction::<RotateKeys>::new();
    let keys = Resource::new(move || rotate.version().get(), |_| list_keys());
    let toasts = use_toasts();
    Effect::new(move |_| match rotate.value().get() {
        Some(Ok(active)) => toasts.push(
            ToastKind::Success,
            format!("Rotated; now signing with {}.", active.join(", ")),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    view! {
        <PageHeader title="Signing keys" description="Tokens are signed with the active key. The next key is published ahead of time, and retired keys stay published until their tokens expire, so verification never fails across a rotation.">
            <ConfirmButton
                label="Rotate keys"
                title="Rotate the signing keys?"
                message="The next key becomes active, the active key retires (it stays in the JWKS until its tokens expire), and a new next key is created."
                confirm_label="Rotate"
                class=BTN_PRIMARY
                on_confirm=Callback::new(move |_| { rotate.dispatch(RotateKeys {}); })
            />
        </PageHeader>
        <Transition fallback=|| view! { <Loading/> }>
            {move || keys.get().map(|result| match result {
                Ok(overview) => view! {
                    <div class=format!("{CARD} mb-6 p-4")>
                        <p class=MUTED>"JWKS URL"</p>
                        <div class="mt-1"><CopyValue value=overview.jwks_uri.clone() label="JWKS URL"/></div>
                    </div>
                    <div class=CARD>
                        {if overview.keys.is_empty() {
                            view! { <EmptyState title="No keys yet" hint="Keys are created on first use, or by rotating now."/> }.into_any()
                        } else {
                            view! {
                                <div class="overflow-x-auto">
                                    <table class=TABLE>
                                        <thead class="bg-slate-50 dark:bg-slate-900">
                                            <tr>
                                                <th class=TH scope="col">"Key id"</th>
                                                <th class=TH scope="col">"Algorithm"</th>
                                                <th class=TH scope="col">"State"</th>
                                                <th class=format!("{TH} hidden md:table-cell") scope="col">"Created"</th>
                                                <th class=format!("{TH} hidden lg:table-cell") scope="col">"Published until"</th>
                                            </tr>
                                        </thead>
                                        <tbody class="divide-y divide-slate-200 dark:divide-slate-700">
                                            {overview.keys.into_iter().map(|k| view! {
                                                <tr data-testid="key-row">
                                                    <td class=TD><span class="font-mono text-xs">{k.kid.clone()}</span></td>
                                                    <td class=TD>{k.alg.clone()}</td>
                                                    <td class=TD>
                                                        <Badge ok=k.state == "active" text=if k.published { k.state.clone() } else { format!("{} (unpublished)", k.state) }/>
                                                    </td>
                                                    <td class=format!("{TD} hidden md:table-cell whitespace-nowrap")>{k.created_at.clone()}</td>
                                                    <td class=format!("{TD} hidden lg:table-cell whitespace-nowrap")>{k.publish_until.clone()}</td>
                                                </tr>
                                            }).collect_view()}
                                        </tbody>
                                    </table>
                                </div>
                            }.into_any()
                        }}
                    </div>
                }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}
