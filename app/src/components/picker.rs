//! Pick a client by searching for it: a combobox (WAI-ARIA pattern) over the realm's clients.
use super::ui::{INPUT, LABEL, MUTED};
use crate::api::clients::client_choices;
use crate::types::clients::ClientChoiceView;
use leptos::prelude::*;

/// A searchable client picker. Typing searches by `client_id` or name; arrow keys move through
/// the matches, Enter or a click picks one, Escape closes the list. Each match says which agent
/// the client acts for, so a caller can confirm a move.
#[component]
pub fn ClientPicker(
    /// Element id of the input (the listbox gets `{id}-list`).
    id: &'static str,
    /// Visible label.
    label: &'static str,
    /// Called with the picked client.
    on_pick: Callback<ClientChoiceView>,
) -> impl IntoView {
    let query = RwSignal::new(String::new());
    let open = RwSignal::new(false);
    let active = RwSignal::new(None::<usize>);
    // Loaded in the browser only, when the list is open: nothing to render on the server.
    let choices = LocalResource::new(move || {
        let (q, o) = (query.get(), open.get());
        async move {
            if o {
                client_choices(q).await
            } else {
                Ok(Vec::new())
            }
        }
    });
    let list = move || choices.get().and_then(Result::ok).unwrap_or_default();
    let pick = move |c: ClientChoiceView| {
        on_pick.run(c);
        query.set(String::new());
        open.set(false);
        active.set(None);
    };
    let list_id = format!("{id}-list");
    let option_id = move |i: usize| format!("{id}-option-{i}");
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let n = list().len();
        match ev.key().as_str() {
            "ArrowDown" => {
                ev.prevent_default();
                open.set(true);
                if n > 0 {
                    active.update(|a| *a = Some(a.map_or(0, |i| (i + 1) % n)));
                }
            }
            "ArrowUp" => {
                ev.prevent_default();
                if n > 0 {
                    active.update(|a| *a = Some(a.map_or(n - 1, |i| (i + n - 1) % n)));
                }
            }
            "Enter" => {
                if let Some(c) = active.get().and_then(|i| list().get(i).cloned()) {
                    ev.prevent_default();
                    pick(c);
                }
            }
            "Escape" if open.get() => {
                ev.prevent_default();
                open.set(false);
                active.set(None);
            }
            _ => {}
        }
    };
    view! {
        <div class="relative max-w-md">
            <label class=LABEL for=id>{label}</label>
            <input
                id=id
                class=format!("mt-1 {INPUT}")
                type="text"
                role="combobox"
                autocomplete="off"
                maxlength="255"
                aria-autocomplete="list"
                aria-controls=list_id.clone()
                aria-expanded=move || open.get().to_string()
                aria-activedescendant=move || active.get().map(option_id)
                placeholder="Search by client_id or name"
                prop:value=move || query.get()
                on:input=move |ev| {
                    query.set(event_target_value(&ev));
                    open.set(true);
                    active.set(None);
                }
                on:focus=move |_| open.set(true)
                on:blur=move |_| open.set(false)
                on:keydown=on_key
            />
            <Show when=move || open.get()>
                <ul id=list_id.clone() role="listbox" aria-label=label
                    class="absolute z-20 mt-1 max-h-72 w-full overflow-y-auto rounded-md border border-slate-200 bg-white py-1 shadow-md dark:border-slate-700 dark:bg-slate-800">
                    {move || {
                        let items = list();
                        if items.is_empty() {
                            let text = if choices.get().is_none() { "Searching…" } else { "No client matches." };
                            return view! { <li class=format!("px-3 py-2 {MUTED}")>{text}</li> }.into_any();
                        }
                        items.into_iter().enumerate().map(|(i, c)| {
                            let chosen = c.clone();
                            let is_active = move || active.get() == Some(i);
                            view! {
                                <li
                                    id=option_id(i)
                                    role="option"
                                    aria-selected=move || is_active().to_string()
                                    data-testid="client-choice"
                                    class=move || if is_active() { "cursor-pointer bg-indigo-50 px-3 py-2 text-sm dark:bg-indigo-950" } else { "cursor-pointer px-3 py-2 text-sm hover:bg-slate-50 dark:hover:bg-slate-700" }
                                    // mousedown, not click: the input must not blur (and close the list) first.
                                    on:mousedown=move |ev| { ev.prevent_default(); pick(chosen.clone()); }
                                >
                                    <span class="block truncate font-medium text-slate-900 dark:text-white">{c.name.clone()}</span>
                                    <span class="block truncate font-mono text-xs text-slate-500 dark:text-slate-400">{c.client_id.clone()}</span>
                                    {(!c.agent.is_empty()).then(|| view! {
                                        <span class="block text-xs text-amber-700 dark:text-amber-300">{format!("Acts for agent {}", c.agent)}</span>
                                    })}
                                </li>
                            }
                        }).collect_view().into_any()
                    }}
                </ul>
            </Show>
        </div>
    }
}
