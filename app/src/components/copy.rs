//! A value with a copy-to-clipboard button.
use super::toast::{ToastKind, use_toasts};
use super::ui::MONO;
use leptos::prelude::*;

/// Shows `value` in monospace with a button that copies it.
#[component]
pub fn CopyValue(#[prop(into)] value: String, #[prop(into)] label: String) -> impl IntoView {
    let toasts = use_toasts();
    let text = value.clone();
    let copy = move |_| {
        #[cfg(feature = "hydrate")]
        {
            let _ = window().navigator().clipboard().write_text(&text);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = &text;
        toasts.push(ToastKind::Success, "Copied to the clipboard.");
    };
    view! {
        <div class="flex items-start gap-2 rounded-md border border-slate-200 bg-slate-50 px-3 py-2 dark:border-slate-700 dark:bg-slate-900">
            <code class=format!("flex-1 {MONO} text-slate-800 dark:text-slate-200")>{value}</code>
            <button
                type="button"
                aria-label=format!("Copy {label}")
                class="rounded px-2 py-0.5 text-xs font-medium text-indigo-600 hover:bg-indigo-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:text-indigo-300 dark:hover:bg-slate-800"
                on:click=copy
            >
                "Copy"
            </button>
        </div>
    }
}
