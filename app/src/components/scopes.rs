//! Scope checkboxes: pick a subset of a resource's scopes.
use super::ui::MUTED;
use leptos::prelude::*;
use std::collections::BTreeSet;

/// One checkbox per scope in `scopes`; `selected` holds the checked ones.
#[component]
pub fn ScopeChecks(
    /// Unique prefix for the checkboxes' ids.
    id: String,
    /// What the group is for (read by screen readers).
    #[prop(into)]
    legend: String,
    /// Every scope that can be picked.
    scopes: Vec<String>,
    /// The picked ones.
    selected: RwSignal<BTreeSet<String>>,
) -> impl IntoView {
    view! {
        <fieldset class="mt-3">
            <legend class="sr-only">{legend}</legend>
            <div class="flex flex-wrap gap-x-4 gap-y-2">
                {scopes.into_iter().enumerate().map(|(i, scope)| {
                    let box_id = format!("{id}-{i}");
                    let label_for = box_id.clone();
                    let name = StoredValue::new(scope.clone());
                    view! {
                        <label for=label_for class="inline-flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
                            <input
                                type="checkbox"
                                id=box_id
                                class="h-4 w-4 rounded border-slate-300 text-indigo-600 focus:ring-indigo-500 dark:border-slate-600"
                                prop:checked=move || selected.with(|s| s.contains(&name.get_value()))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    selected.update(|s| {
                                        if on { s.insert(name.get_value()); } else { s.remove(&name.get_value()); }
                                    });
                                }
                            />
                            <span class="break-all font-mono text-xs">{scope}</span>
                        </label>
                    }
                }).collect_view()}
            </div>
            <Show when=move || selected.with(BTreeSet::is_empty)>
                <p class=format!("mt-1 {MUTED}")>"Pick at least one scope."</p>
            </Show>
        </fieldset>
    }
}

/// The checked scopes as a space-separated list.
pub fn joined(selected: &BTreeSet<String>) -> String {
    selected.iter().cloned().collect::<Vec<_>>().join(" ")
}

/// A space-separated scope list as its tokens.
pub fn split(scopes: &str) -> Vec<String> {
    scopes.split_whitespace().map(str::to_owned).collect()
}
