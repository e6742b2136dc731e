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
                                <table class=CARDS_TABLE>
                                    <thead class=CARDS_HEAD>
                                        <tr>
                                            <th class=TH scope="col">"Key id"</th>
                                            <th class=format!("{TH} sm:w-28") scope="col">"Algorithm"</th>
                                            <th class=format!("{TH} sm:w-40") scope="col">"State"</th>
                                            <th class=format!("{TH} hidden md:table-cell md:w-36") scope="col">"Created"</th>
                                            <th class=format!("{TH} hidden lg:table-cell lg:w-40") scope="col">"Published until"</th>
                                        </tr>
                                    </thead>
                                    <tbody class=CARDS_BODY>
                                        {overview.keys.into_iter().map(|k| view! {
                                            <tr data-testid="key-row" class=CARDS_ROW>
                                                <td class=CARDS_CELL><span class=MONO>{k.kid.clone()}</span></td>
                                                <td class=CARDS_CELL_NEXT><CellLabel text="Algorithm"/><span class="font-mono text-xs">{k.alg.clone()}</span></td>
                                                <td class=CARDS_CELL_NEXT>
                                                    <Pill tone=if k.published { Tone::of(&k.state) } else { Tone::Off }
                                                        text=if k.published { k.state.clone() } else { format!("{} (unpublished)", k.state) }/>
                                                </td>
                                                <td class=format!("{CARDS_CELL_NEXT} text-slate-600 sm:hidden md:table-cell dark:text-slate-300")>
                                                    <span class="sm:hidden">"Created "</span><When at=k.created.at.clone() words=k.created.ago.clone()/>
                                                </td>
                                                <td class=format!("{CARDS_CELL_NEXT} text-slate-600 sm:hidden lg:table-cell dark:text-slate-300")>
                                                    {match k.publish_until.clone() {
                                                        Some(m) => view! { <span class="sm:hidden">"Published until "</span><When at=m.at words=m.ago/> }.into_any(),
                                                        None => view! { <span class="sr-only">"Published while in use"</span><span aria-hidden="true" class="hidden sm:inline">"—"</span> }.into_any(),
                                                    }}
                                                </td>
                                            </tr>
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            }.into_any()
                        }}
                    </div>
                }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}
