//! Class lists shared by the console's widgets (scanned by the stylesheet generator), and the
//! small widgets every page uses.
//!
//! The bottom of `components`: it names only `error` and `toast`; the other widgets (`field`,
//! `pager`, `card`, …) name it, never the other way round.
use crate::error::AppError;
use leptos::prelude::*;

/// Primary button.
pub const BTN_PRIMARY: &str = "inline-flex items-center justify-center gap-2 rounded-md bg-indigo-600 px-3 py-2 text-sm font-medium text-white shadow-sm hover:bg-indigo-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-2 disabled:opacity-50 disabled:cursor-not-allowed dark:focus-visible:ring-offset-slate-900";
/// Secondary button.
pub const BTN_SECONDARY: &str = "inline-flex items-center justify-center gap-2 rounded-md border border-slate-300 bg-white px-3 py-2 text-sm font-medium text-slate-700 shadow-sm hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-2 disabled:opacity-50 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-200 dark:hover:bg-slate-700 dark:focus-visible:ring-offset-slate-900";
/// Small secondary button for table rows.
pub const BTN_SMALL: &str = "inline-flex items-center rounded-md border border-slate-300 bg-white px-2 py-1 text-xs font-medium text-slate-700 hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 disabled:opacity-50 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-200 dark:hover:bg-slate-700";
/// Small destructive button for table rows.
pub const BTN_SMALL_DANGER: &str = "inline-flex items-center rounded-md border border-red-300 bg-white px-2 py-1 text-xs font-medium text-red-700 hover:bg-red-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-red-500 disabled:opacity-50 dark:border-red-800 dark:bg-slate-800 dark:text-red-300 dark:hover:bg-red-950";
/// Destructive button.
pub const BTN_DANGER: &str = "inline-flex items-center justify-center rounded-md bg-red-600 px-3 py-2 text-sm font-medium text-white shadow-sm hover:bg-red-500 focus:outline-none focus-visible:ring-2 focus-visible:ring-red-500 focus-visible:ring-offset-2 disabled:opacity-50 dark:focus-visible:ring-offset-slate-900";
/// Text input.
pub const INPUT: &str = "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm placeholder:text-slate-400 focus:border-indigo-500 focus:outline-none focus:ring-2 focus:ring-indigo-500 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-100";
/// Form label.
pub const LABEL: &str = "block text-sm font-medium text-slate-700 dark:text-slate-300";
/// Card container.
pub const CARD: &str =
    "rounded-lg border border-slate-200 bg-white shadow-sm dark:border-slate-700 dark:bg-slate-800";
/// Table.
pub const TABLE: &str = "min-w-full divide-y divide-slate-200 text-sm dark:divide-slate-700";
/// Table header cell.
pub const TH: &str = "px-4 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400";
/// Table cell.
pub const TD: &str = "px-4 py-2 align-top text-slate-700 dark:text-slate-200";
/// A table whose rows become cards on phones (below `sm`): its head row is hidden there.
pub const CARDS_TABLE: &str = "block w-full text-sm sm:table sm:table-fixed";
/// The head of a [`CARDS_TABLE`].
pub const CARDS_HEAD: &str = "hidden bg-slate-50 sm:table-header-group dark:bg-slate-900";
/// The body of a [`CARDS_TABLE`].
pub const CARDS_BODY: &str =
    "block divide-y divide-slate-200 sm:table-row-group dark:divide-slate-700";
/// A row of a [`CARDS_TABLE`]: a padded card on phones.
pub const CARDS_ROW: &str = "block p-4 sm:table-row sm:p-0";
/// The first cell of a [`CARDS_ROW`].
pub const CARDS_CELL: &str = "block min-w-0 sm:table-cell sm:px-4 sm:py-2 sm:align-top";
/// What a [`CARDS_ROW`] cell holds, shown on phones only (where the table's head is hidden).
#[component]
pub fn CellLabel(text: &'static str) -> impl IntoView {
    view! { <span class="block text-xs font-semibold text-slate-500 sm:hidden dark:text-slate-400">{text}</span> }
}

/// Any later cell of a [`CARDS_ROW`] (spaced from the one above on phones).
pub const CARDS_CELL_NEXT: &str =
    "mt-2 block min-w-0 sm:mt-0 sm:table-cell sm:px-4 sm:py-2 sm:align-top";
/// Page title.
pub const H1: &str = "text-2xl font-semibold tracking-tight text-slate-900 dark:text-white";
/// Secondary text.
pub const MUTED: &str = "text-sm text-slate-500 dark:text-slate-400";
/// Monospace value.
pub const MONO: &str = "font-mono text-xs break-all";

/// Page heading with an optional description.
#[component]
pub fn PageHeader(
    title: &'static str,
    #[prop(optional)] description: &'static str,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    view! {
        <div class="mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
            <div>
                <h1 class=H1>{title}</h1>
                {(!description.is_empty()).then(|| view! { <p class=format!("mt-1 {MUTED}")>{description}</p> })}
            </div>
            <div class="flex gap-2">{children.map(|c| c())}</div>
        </div>
    }
}

/// An inline error message for a form or a load.
#[component]
pub fn ErrorMessage(error: AppError) -> impl IntoView {
    view! {
        <p role="alert" class="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">
            {error.to_string()}
        </p>
    }
}

/// The error of the latest submission of an action, if it failed.
pub fn action_error<I, O>(action: ServerAction<I>) -> impl IntoView
where
    I: leptos::server_fn::ServerFn<Output = O, Error = AppError> + Clone + Send + Sync + 'static,
    O: Clone + Send + Sync + 'static,
{
    move || {
        action
            .value()
            .get()
            .and_then(Result::err)
            .map(|error| view! { <ErrorMessage error/> })
    }
}

/// How many times `action` has succeeded: what a page reloads on. (Its version also counts
/// failures, and reloading then would throw away the form showing the error.)
pub fn successes<I, O, E>(action: ServerAction<I>) -> ReadSignal<u32>
where
    I: leptos::server_fn::ServerFn<Output = O, Error = E> + Clone + Send + Sync + 'static,
    O: Clone + Send + Sync + 'static,
    E: Clone + Send + Sync + 'static,
{
    let (count, set) = signal(0u32);
    Effect::new(move |_| {
        if let Some(Ok(_)) = action.value().get() {
            set.update(|n| *n += 1);
        }
    });
    count
}

/// After `action` (a delete) succeeds: a success toast saying `done`, then the page at `to`;
/// a failure is toasted.
pub fn leave_after<I, E>(action: ServerAction<I>, done: &'static str, to: &'static str)
where
    I: leptos::server_fn::ServerFn<Output = (), Error = E> + Clone + Send + Sync + 'static,
    E: Clone + Send + Sync + std::fmt::Display + 'static,
{
    let toasts = super::toast::use_toasts();
    let navigate = leptos_router::hooks::use_navigate();
    Effect::new(move |_| match action.value().get() {
        Some(Ok(())) => {
            toasts.push(super::toast::ToastKind::Success, done);
            navigate(to, Default::default());
        }
        Some(Err(e)) => toasts.push(super::toast::ToastKind::Error, e.to_string()),
        None => {}
    });
}

/// Placeholder shown while data loads.
#[component]
pub fn Loading() -> impl IntoView {
    view! { <p class=MUTED aria-busy="true">"Loading…"</p> }
}

/// Shown when a list has no rows: what the list is for, and (as children) the first action.
#[component]
pub fn EmptyState(
    title: &'static str,
    hint: &'static str,
    #[prop(optional)] children: Option<Children>,
) -> impl IntoView {
    view! {
        <div class="px-6 py-12 text-center">
            <p class="text-sm font-medium text-slate-900 dark:text-white">{title}</p>
            <p class=format!("mx-auto mt-1 max-w-prose {MUTED}")>{hint}</p>
            {children.map(|c| view! { <div class="mt-4 flex justify-center gap-2">{c()}</div> })}
        </div>
    }
}

/// What a status means, and so its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Working as intended (enabled, active, granted, live): green.
    Good,
    /// Switched off on purpose (disabled, no access): grey.
    Off,
    /// Needs attention soon or has lapsed (expired, expiring, retired): amber.
    Warn,
    /// Failed or refused: red.
    Bad,
    /// Neutral information (current, MCP-capable): indigo.
    Info,
}

impl Tone {
    /// The tone of an agent's, key's or event's status word.
    pub fn of(status: &str) -> Self {
        match status {
            "active" | "enabled" | "success" | "live" | "granted" => Self::Good,
            "expired" | "retired" | "expiring" => Self::Warn,
            "failure" | "denied" | "revoked" => Self::Bad,
            "current" | "next" => Self::Info,
            _ => Self::Off,
        }
    }
}

/// A status pill in its tone's colour.
#[component]
pub fn Pill(tone: Tone, #[prop(into)] text: String) -> impl IntoView {
    let class = match tone {
        Tone::Good => {
            "inline-flex items-center rounded-full bg-emerald-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-emerald-700 dark:bg-emerald-950 dark:text-emerald-300"
        }
        Tone::Off => {
            "inline-flex items-center rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-slate-600 dark:bg-slate-700 dark:text-slate-300"
        }
        Tone::Warn => {
            "inline-flex items-center rounded-full bg-amber-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-amber-800 dark:bg-amber-950 dark:text-amber-300"
        }
        Tone::Bad => {
            "inline-flex items-center rounded-full bg-red-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-red-700 dark:bg-red-950 dark:text-red-300"
        }
        Tone::Info => {
            "inline-flex items-center rounded-full bg-indigo-50 px-2 py-0.5 text-xs font-medium whitespace-nowrap text-indigo-700 dark:bg-indigo-950 dark:text-indigo-300"
        }
    };
    view! { <span class=class>{text}</span> }
}

/// A two-state pill: green when `ok`, grey otherwise.
#[component]
pub fn Badge(ok: bool, #[prop(into)] text: String) -> impl IntoView {
    view! { <Pill tone=if ok { Tone::Good } else { Tone::Off } text/> }
}

/// A time in words ("3 days ago", "in 2 hours") with the exact UTC time on hover and focus.
#[component]
pub fn When(
    /// RFC 3339 time.
    #[prop(into)]
    at: String,
    /// The same time in words.
    #[prop(into)]
    words: String,
) -> impl IntoView {
    let title = format!("{at} (UTC)");
    view! { <time datetime=at title=title tabindex="0" class="underline decoration-dotted decoration-slate-400 underline-offset-2">{words}</time> }
}

/// Moves focus to the element with `id` once the view drawn in this turn is in the page: after
/// an action replaced what had focus (a button that is gone), focus lands on what it produced.
pub fn focus_soon(id: impl Into<String>) {
    let id: String = id.into();
    #[cfg(feature = "hydrate")]
    leptos::prelude::request_animation_frame(move || {
        use wasm_bindgen::JsCast;
        if let Some(el) = leptos::prelude::document()
            .get_element_by_id(&id)
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    });
    #[cfg(not(feature = "hydrate"))]
    let _ = id;
}
