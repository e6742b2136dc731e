//! A detail page's settings card: what is set, or the form that changes it, in place.
use super::ui::{BTN_PRIMARY, BTN_SECONDARY, BTN_SMALL, CARD};
use leptos::prelude::*;

/// A card titled `title` that shows `shown` and, when `editable`, offers "Edit", which swaps in
/// its children (the form) until `editing` is set back (Cancel, or the page after a save).
#[component]
pub fn EditableCard(
    /// The heading's element id.
    id: &'static str,
    title: &'static str,
    /// Whether the role may change it.
    editable: bool,
    editing: RwSignal<bool>,
    /// What it shows when not editing.
    shown: ViewFn,
    /// The form.
    children: ChildrenFn,
) -> impl IntoView {
    view! {
        <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby=id>
            <div class="flex flex-wrap items-center justify-between gap-2">
                <h2 id=id class="text-lg font-semibold text-slate-900 dark:text-white">{title}</h2>
                <Show when=move || editable && !editing.get()>
                    <button type="button" class=BTN_SMALL on:click=move |_| editing.set(true)>"Edit"</button>
                </Show>
            </div>
            <Show when=move || editing.get() fallback=move || shown.run()>
                {children()}
            </Show>
        </section>
    }
}

/// A form's Save (disabled while `pending`) and Cancel (ends `editing`).
#[component]
pub fn FormButtons(#[prop(into)] pending: Signal<bool>, editing: RwSignal<bool>) -> impl IntoView {
    view! {
        <div class="flex gap-2 sm:col-span-2">
            <button type="submit" class=BTN_PRIMARY disabled=move || pending.get()>"Save"</button>
            <button type="button" class=BTN_SECONDARY on:click=move |_| editing.set(false)>"Cancel"</button>
        </div>
    }
}
