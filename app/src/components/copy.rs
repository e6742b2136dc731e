//! Values with a copy-to-clipboard button: in full (detail pages), or cut to one line (lists).
use super::toast::{ToastKind, use_toasts};
use super::ui::MONO;
use leptos::prelude::*;

const COPY_BUTTON: &str = "shrink-0 rounded px-2 py-0.5 text-xs font-medium text-indigo-600 hover:bg-indigo-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:text-indigo-300 dark:hover:bg-slate-800";

/// A button that copies `value` and says so.
#[component]
pub fn CopyButton(value: String, label: String) -> impl IntoView {
    let toasts = use_toasts();
    let copy = move |_| {
        #[cfg(feature = "hydrate")]
        {
            let _ = window().navigator().clipboard().write_text(&value);
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = &value;
        toasts.push(ToastKind::Success, "Copied to the clipboard.");
    };
    view! {
        <button type="button" aria-label=format!("Copy {label}") class=COPY_BUTTON on:click=copy>"Copy"</button>
    }
}

/// "Copy link" on an object's page: copies an address that opens the object in the selected
/// realm whatever realm the reader's session is in ([`super::pager::realm_link`]); `what` names
/// the object for screen readers and the confirmation.
#[component]
pub fn CopyObjectLink(
    kind: &'static str,
    #[prop(into)] id: String,
    #[prop(into)] what: String,
) -> impl IntoView {
    let toasts = use_toasts();
    let session = super::layout::use_session();
    let realm = move || super::layout::selected_realm(session);
    let href = {
        let id = id.clone();
        move || super::pager::realm_link(&realm(), kind, &id)
    };
    let told = what.clone();
    let copy = {
        let href = href.clone();
        move |_| {
            let path = href();
            #[cfg(feature = "hydrate")]
            {
                let origin = window().location().origin().unwrap_or_default();
                let _ = window()
                    .navigator()
                    .clipboard()
                    .write_text(&format!("{origin}{path}"));
            }
            #[cfg(not(feature = "hydrate"))]
            let _ = &path;
            toasts.push(
                ToastKind::Success,
                format!(
                    "Link copied: it opens {told} in realm {} for whoever may see it.",
                    realm()
                ),
            );
        }
    };
    // Drawn once the session is there, so the server renders the same address the browser has.
    view! {
        <Transition fallback=|| ()>
            {
                let (href, copy, what) = (href.clone(), copy.clone(), what.clone());
                move || super::layout::signed_in(session).map(|_| view! {
                    <button type="button" class=COPY_BUTTON data-href=href() data-testid="copy-object-link"
                        aria-label=format!("Copy link to {what}, opening it in this realm") on:click=copy.clone()>"Copy link"</button>
                })
            }
        </Transition>
    }
}

/// Shows `value` in monospace with a button that copies it.
#[component]
pub fn CopyValue(#[prop(into)] value: String, #[prop(into)] label: String) -> impl IntoView {
    view! {
        <div class="flex items-start gap-2 rounded-md border border-slate-200 bg-slate-50 px-3 py-2 dark:border-slate-700 dark:bg-slate-900">
            <code class=format!("flex-1 {MONO} text-slate-800 dark:text-slate-200")>{value.clone()}</code>
            <CopyButton value label/>
        </div>
    }
}

/// A block of text to copy whole (a document, a command, a program), with its copy button.
#[component]
pub fn CopyBlock(
    #[prop(into)] value: String,
    #[prop(into)] label: String,
    #[prop(optional, into)] testid: String,
) -> impl IntoView {
    view! {
        <div class="rounded-md border border-slate-200 bg-slate-50 dark:border-slate-700 dark:bg-slate-900" data-testid=testid>
            // Its own row above the text, so a long first line never runs under it.
            <div class="flex justify-end border-b border-slate-200 px-1 py-0.5 dark:border-slate-700"><CopyButton value=value.clone() label/></div>
            // Focusable, so it scrolls from the keyboard too (its text can be wider or taller
            // than the box).
            <pre tabindex="0" class="max-h-96 overflow-auto p-3 font-mono text-xs leading-relaxed text-slate-800 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:text-slate-200"><code>{value}</code></pre>
        </div>
    }
}

/// A long value in a list: one line cut with an ellipsis, in full on hover (title) and on
/// keyboard focus (it wraps), with a copy button.
#[component]
pub fn Truncated(#[prop(into)] value: String, #[prop(into)] label: String) -> impl IntoView {
    view! {
        <span class="flex min-w-0 max-w-full items-center gap-1">
            <span tabindex="0" title=value.clone()
                class="min-w-0 truncate font-mono text-xs rounded focus:overflow-visible focus:whitespace-normal focus:break-all focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500">
                {value.clone()}
            </span>
            <CopyButton value label/>
        </span>
    }
}
