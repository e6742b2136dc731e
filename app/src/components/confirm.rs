//! A button that asks for confirmation in a modal dialog before a destructive action.
use super::ui::{BTN_DANGER, BTN_SECONDARY, MUTED};
use leptos::prelude::*;

/// Opens a confirmation dialog; `on_confirm` runs only after "Confirm".
#[component]
pub fn ConfirmButton(
    /// Button text.
    #[prop(into)]
    label: String,
    /// Dialog title.
    #[prop(into)]
    title: String,
    /// What will happen.
    #[prop(into)]
    message: String,
    /// Text of the confirming button.
    #[prop(into)]
    confirm_label: String,
    /// Classes of the opening button.
    class: &'static str,
    /// The action.
    on_confirm: Callback<()>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let confirm_ref = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if open.get()
            && let Some(b) = confirm_ref.get()
        {
            let _ = b.focus();
        }
    });
    view! {
        <button type="button" class=class on:click=move |_| open.set(true)>{label}</button>
        <Show when=move || open.get()>
            <div
                class="fixed inset-0 z-40 flex items-center justify-center bg-slate-900/50 p-4"
                on:keydown=move |ev| if ev.key() == "Escape" { open.set(false) }
            >
                <div role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" class="w-full max-w-md rounded-lg bg-white p-6 shadow-md dark:bg-slate-800">
                    <h2 id="confirm-title" class="text-lg font-semibold text-slate-900 dark:text-white">{title.clone()}</h2>
                    <p class=format!("mt-2 {MUTED}")>{message.clone()}</p>
                    <div class="mt-6 flex justify-end gap-2">
                        <button type="button" class=BTN_SECONDARY on:click=move |_| open.set(false)>"Cancel"</button>
                        <button
                            type="button"
                            class=BTN_DANGER
                            node_ref=confirm_ref
                            on:click=move |_| {
                                open.set(false);
                                on_confirm.run(());
                            }
                        >
                            {confirm_label.clone()}
                        </button>
                    </div>
                </div>
            </div>
        </Show>
    }
}
