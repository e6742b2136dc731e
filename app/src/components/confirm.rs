//! Confirmation before a dangerous action: a modal dialog that names what will happen.
//!
//! The dialog follows the WAI-ARIA alert-dialog pattern: focus starts on Cancel (the safe
//! choice), Tab and Shift+Tab stay inside it, Escape or a click on the backdrop cancels, and focus
//! returns to whatever opened it.
use super::ui::{BTN_DANGER, BTN_PRIMARY, BTN_SECONDARY, MUTED};
use leptos::prelude::*;

/// A confirmation dialog shown while `open` is true; `on_confirm` runs only after the confirming
/// button. Closing it (either way) returns focus to the element focused when it opened.
#[component]
pub fn ConfirmDialog(
    /// Whether it is shown.
    open: RwSignal<bool>,
    /// Dialog title (names the object).
    #[prop(into)]
    title: Signal<String>,
    /// What will happen.
    #[prop(into)]
    message: Signal<String>,
    /// Text of the confirming button.
    #[prop(into)]
    confirm_label: Signal<String>,
    /// A destructive action (red confirm button); otherwise the primary colour.
    #[prop(default = true)]
    danger: bool,
    /// The action.
    on_confirm: Callback<()>,
    /// Extra content between the message and the buttons (e.g. old and new values, or a
    /// field); its controls are inside the Tab cycle.
    #[prop(optional)]
    children: Option<ChildrenFn>,
    /// Keeps the confirming button disabled while true (a required field is empty).
    #[prop(optional, into)]
    confirm_disabled: Option<Signal<bool>>,
    /// The id of the control focused on opening (a form dialog's first field); Cancel when
    /// unset.
    #[prop(optional, into)]
    start: Option<String>,
) -> impl IntoView {
    let dialog_ref = NodeRef::<leptos::html::Div>::new();
    let cancel_ref = NodeRef::<leptos::html::Button>::new();
    let confirm_ref = NodeRef::<leptos::html::Button>::new();
    // The element to give focus back to; kept in the browser only.
    #[cfg(feature = "hydrate")]
    let opener = StoredValue::new_local(None::<web_sys::HtmlElement>);
    Effect::new(move |_| {
        if open.get() {
            #[cfg(feature = "hydrate")]
            {
                use wasm_bindgen::JsCast;
                let active = document()
                    .active_element()
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
                opener.set_value(active);
            }
            match start.clone() {
                #[cfg(feature = "hydrate")]
                Some(id) => request_animation_frame(move || {
                    use wasm_bindgen::JsCast;
                    if let Some(el) = document()
                        .get_element_by_id(&id)
                        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                    {
                        let _ = el.focus();
                    }
                }),
                _ => {
                    if let Some(b) = cancel_ref.get() {
                        let _ = b.focus();
                    }
                }
            }
        }
    });
    let close = move || {
        open.set(false);
        #[cfg(feature = "hydrate")]
        if let Some(el) = opener.get_value() {
            let _ = el.focus();
        }
    };
    let id = format!("confirm-{}", next_id());
    let (title_id, message_id) = (format!("{id}-title"), format!("{id}-message"));
    let trap = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "Escape" => {
            ev.prevent_default();
            close();
        }
        "Tab" => {
            #[cfg(feature = "hydrate")]
            if let Some(dialog) = dialog_ref.get() {
                keep_tab_inside(&ev, &dialog);
            }
            #[cfg(not(feature = "hydrate"))]
            let _ = dialog_ref;
        }
        _ => {}
    };
    let children = StoredValue::new(children);
    view! {
        <Show when=move || open.get()>
            <div class="fixed inset-0 z-40 flex items-center justify-center bg-slate-900/50 p-4" on:click=move |_| close()>
                <div
                    role="alertdialog"
                    aria-modal="true"
                    aria-labelledby=title_id.clone()
                    aria-describedby=message_id.clone()
                    class="w-full max-w-md rounded-lg bg-white p-6 text-left shadow-md dark:bg-slate-800"
                    on:click=|ev| ev.stop_propagation()
                    on:keydown=trap
                    node_ref=dialog_ref
                >
                    <h2 id=title_id.clone() class="text-lg font-semibold break-words text-slate-900 dark:text-white">{move || title.get()}</h2>
                    <p id=message_id.clone() class=format!("mt-2 {MUTED}")>{move || message.get()}</p>
                    {move || children.with_value(|c| c.as_ref().map(|c| c()))}
                    <div class="mt-6 flex flex-wrap justify-end gap-2">
                        <button type="button" class=BTN_SECONDARY node_ref=cancel_ref on:click=move |_| close()>"Cancel"</button>
                        <button
                            type="button"
                            class=if danger { BTN_DANGER } else { BTN_PRIMARY }
                            node_ref=confirm_ref
                            disabled=move || confirm_disabled.is_some_and(|d| d.get())
                            on:click=move |_| {
                                close();
                                on_confirm.run(());
                            }
                        >
                            {move || confirm_label.get()}
                        </button>
                    </div>
                </div>
            </div>
        </Show>
    }
}

/// A button that opens a [`ConfirmDialog`].
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
    view! {
        <button type="button" class=class aria-haspopup="dialog" on:click=move |_| open.set(true)>{label}</button>
        <ConfirmDialog open title message confirm_label on_confirm/>
    }
}

/// Keeps Tab inside a modal `dialog`: Tab from its last control goes to the first, Shift+Tab
/// from the first to the last (its controls in document order).
#[cfg(feature = "hydrate")]
pub fn keep_tab_inside(ev: &leptos::ev::KeyboardEvent, dialog: &web_sys::Element) {
    use wasm_bindgen::JsCast;
    let active = document().active_element();
    let Ok(list) = dialog.query_selector_all(
        "button:not([disabled]):not([tabindex=\"-1\"]), textarea, input:not([type=hidden]):not([tabindex=\"-1\"]), select, a[href]",
    ) else {
        return;
    };
    let items: Vec<web_sys::HtmlElement> = (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
        .collect();
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        return;
    };
    let is = |e: &web_sys::HtmlElement| {
        active
            .as_ref()
            .is_some_and(|a| a == AsRef::<web_sys::Element>::as_ref(e))
    };
    if ev.shift_key() && (is(first) || active.is_none()) {
        ev.prevent_default();
        let _ = last.focus();
    } else if !ev.shift_key() && is(last) {
        ev.prevent_default();
        let _ = first.focus();
    }
}

/// A process-unique number for element ids.
fn next_id() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
