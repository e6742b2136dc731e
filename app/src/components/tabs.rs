//! Tabs (WAI-ARIA tabs pattern): one Tab stop for the tab list, arrow keys, Home and End move
//! between tabs and show each one's panel at once.
use leptos::prelude::*;

const TAB: &str = "rounded-t-md border-b-2 px-3 py-2 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500";
const TAB_ON: &str =
    "border-indigo-600 text-indigo-700 dark:border-indigo-400 dark:text-indigo-300";
const TAB_OFF: &str = "border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white";

/// The tab after `at` for `key` among `n` tabs (wrapping), or `None` for other keys.
fn moved(key: &str, at: usize, n: usize) -> Option<usize> {
    match key {
        _ if n == 0 => None,
        "ArrowRight" => Some((at + 1) % n),
        "ArrowLeft" => Some((at + n - 1) % n),
        "Home" => Some(0),
        "End" => Some(n - 1),
        _ => None,
    }
}

/// Tabs named `label`, each a title and its panel; the first is shown. `id` prefixes the ids of
/// the tabs and panels (unique on the page).
#[component]
pub fn Tabs(id: &'static str, label: &'static str, tabs: Vec<(String, AnyView)>) -> impl IntoView {
    let selected = RwSignal::new(0usize);
    let n = tabs.len();
    let tab_id = move |i: usize| format!("{id}-tab-{i}");
    let panel_id = move |i: usize| format!("{id}-panel-{i}");
    let (titles, panels): (Vec<String>, Vec<AnyView>) = tabs.into_iter().unzip();
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if let Some(next) = moved(&ev.key(), selected.get_untracked(), n) {
            ev.prevent_default();
            selected.set(next);
            #[cfg(feature = "hydrate")]
            {
                use wasm_bindgen::JsCast;
                if let Some(el) = document()
                    .get_element_by_id(&tab_id(next))
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = el.focus();
                }
            }
        }
    };
    view! {
        <div>
            <div role="tablist" aria-label=label class="flex flex-wrap gap-1 border-b border-slate-200 dark:border-slate-700" on:keydown=on_key>
                {titles.into_iter().enumerate().map(|(i, title)| view! {
                    <button type="button" role="tab" id=tab_id(i) aria-controls=panel_id(i)
                        aria-selected=move || (selected.get() == i).to_string()
                        tabindex=move || if selected.get() == i { "0" } else { "-1" }
                        class=move || format!("{TAB} {}", if selected.get() == i { TAB_ON } else { TAB_OFF })
                        on:click=move |_| selected.set(i)>
                        {title}
                    </button>
                }).collect_view()}
            </div>
            {panels.into_iter().enumerate().map(|(i, panel)| view! {
                <div role="tabpanel" id=panel_id(i) aria-labelledby=tab_id(i) class="pt-3"
                    hidden=move || selected.get() != i>
                    {panel}
                </div>
            }).collect_view()}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::moved;

    #[test]
    fn arrows_wrap_and_home_end_jump() {
        assert_eq!(moved("ArrowRight", 0, 3), Some(1));
        assert_eq!(moved("ArrowRight", 2, 3), Some(0));
        assert_eq!(moved("ArrowLeft", 0, 3), Some(2));
        assert_eq!(moved("Home", 2, 3), Some(0));
        assert_eq!(moved("End", 0, 3), Some(2));
        assert_eq!(moved("Enter", 0, 3), None);
        assert_eq!(moved("ArrowRight", 0, 0), None);
    }
}
