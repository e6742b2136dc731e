//! Scope checkboxes: pick a subset of a resource's scopes.
use super::ui::MUTED;
use leptos::prelude::*;
use std::collections::BTreeSet;

/// Where an arrow key moves focus in a row of `len` controls from `at`: Left/Up and Right/Down
/// step (wrapping around), Home and End jump to the ends; any other key does not move it.
pub fn roved(key: &str, at: usize, len: usize) -> Option<usize> {
    if len == 0 {
        return None;
    }
    let at = at.min(len - 1);
    match key {
        "ArrowRight" | "ArrowDown" => Some((at + 1) % len),
        "ArrowLeft" | "ArrowUp" => Some((at + len - 1) % len),
        "Home" => Some(0),
        "End" => Some(len - 1),
        _ => None,
    }
}

/// A row of controls that is one Tab stop: the control at `active` is in the Tab order, the
/// arrow keys (and Home/End) move focus along the row. Controls are `{id}-{i}`.
#[derive(Clone, Copy)]
struct Roving {
    id: StoredValue<String>,
    len: usize,
    active: RwSignal<usize>,
}

impl Roving {
    fn new(id: String, len: usize, start: usize) -> Self {
        Self {
            id: StoredValue::new(id),
            len,
            active: RwSignal::new(start.min(len.saturating_sub(1))),
        }
    }

    /// `tabindex` of control `i`.
    fn tabindex(self, i: usize) -> impl Fn() -> &'static str + Copy {
        move || if self.active.get() == i { "0" } else { "-1" }
    }

    /// Moves focus on an arrow key.
    fn keydown(self, ev: &leptos::ev::KeyboardEvent) {
        let Some(next) = roved(&ev.key(), self.active.get_untracked(), self.len) else {
            return;
        };
        ev.prevent_default();
        self.active.set(next);
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::JsCast;
            let id = format!("{}-{next}", self.id.get_value());
            if let Some(el) = document()
                .get_element_by_id(&id)
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = el.focus();
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = self.id;
    }
}

/// One checkbox per scope in `scopes`; `selected` holds the checked ones. The boxes are one Tab
/// stop: arrow keys move between them, Space ticks.
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
    let start = selected
        .with_untracked(|s| scopes.iter().position(|x| s.contains(x)))
        .unwrap_or(0);
    let rove = Roving::new(id.clone(), scopes.len(), start);
    view! {
        <fieldset class="mt-3">
            <legend class="sr-only">{legend}</legend>
            <div class="flex flex-wrap gap-x-4 gap-y-2" on:keydown=move |ev| rove.keydown(&ev)>
                {scopes.into_iter().enumerate().map(|(i, scope)| {
                    let box_id = format!("{id}-{i}");
                    let label_for = box_id.clone();
                    let name = StoredValue::new(scope.clone());
                    view! {
                        <label for=label_for class="inline-flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
                            <input
                                type="checkbox"
                                id=box_id
                                tabindex=rove.tabindex(i)
                                class="h-4 w-4 rounded border-slate-300 text-indigo-600 focus:ring-indigo-500 dark:border-slate-600"
                                prop:checked=move || selected.with(|s| s.contains(&name.get_value()))
                                on:focus=move |_| rove.active.set(i)
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

/// Whether `role` marks an agent as MCP-capable rather than naming a scope (`mcp`, `mcp:…`).
fn is_capability(role: &str) -> bool {
    role == "mcp" || role.starts_with("mcp:")
}

/// A space-separated scope field with the realm's scopes to pick from: each scope some resource
/// of the realm accepts is a toggle that adds it to or removes it from the field, and a typed
/// scope no resource accepts gets a warning (tokens never carry it). With `roles`, the field
/// holds agent roles, and `mcp` / `mcp:…` capability roles are not warned about.
#[component]
pub fn ScopeInput(
    errors: super::field::FieldErrors,
    name: &'static str,
    #[prop(into)] id: String,
    label: &'static str,
    help: &'static str,
    #[prop(optional, into)] value: String,
    #[prop(optional)] roles: bool,
    /// The field defines scopes (a resource's own): no warning for scopes no resource has yet.
    #[prop(optional)]
    defines: bool,
    #[prop(optional)] class: &'static str,
) -> impl IntoView {
    use super::field::Field;
    let text = RwSignal::new(value);
    let known = LocalResource::new(crate::api::resources::realm_scopes);
    let mounted = RwSignal::new(false);
    Effect::new(move |_| mounted.set(true));
    let typed = move || text.with(|t| split(t));
    let toggle = move |scope: String| {
        text.update(|t| {
            let mut now = split(t);
            if let Some(at) = now.iter().position(|s| *s == scope) {
                now.remove(at);
            } else {
                now.push(scope);
            }
            *t = now.join(" ");
        });
    };
    let picks_id = format!("{id}-picks");
    let warn_id = format!("{id}-unknown");
    view! {
        <div class=class>
            <Field errors name id=id.clone() label help mono=true bind=text placeholder="tools:call"/>
            {move || {
                let commas: Vec<String> = typed().into_iter().filter(|s| s.contains(',')).collect();
                (!commas.is_empty()).then(|| view! {
                    <p role="status" class="mt-1 text-sm text-amber-800 dark:text-amber-300" data-testid="comma-scopes">
                        {format!("Scopes are separated by spaces: {} is one scope with a comma in it.", commas.join(" "))}
                    </p>
                })
            }}
            // Read only once hydrated: the realm's scopes load in the browser, and the server
            // renders nothing here (no suspended view that would wait for them).
            {move || mounted.get().then(|| known.get()).flatten().map(|r| match r {
                Ok(all) if !all.is_empty() => {
                    let unknown: Vec<String> = typed()
                        .into_iter()
                        .filter(|s| !(defines || all.contains(s) || (roles && is_capability(s))))
                        .collect();
                    let rove = Roving::new(format!("{}-pick", picks_id), all.len(), 0);
                    view! {
                        <div class="mt-2" role="group" aria-labelledby=picks_id.clone()>
                            <p id=picks_id.clone() class="text-xs text-slate-500 dark:text-slate-400">"Scopes this realm's resources accept (select to add or remove; arrow keys move between them):"</p>
                            <div class="mt-1 flex flex-wrap gap-1" on:keydown=move |ev| rove.keydown(&ev)>
                                {all.into_iter().enumerate().map(|(i, scope)| {
                                    let s = StoredValue::new(scope.clone());
                                    let on = move || text.with(|t| t.split_whitespace().any(|x| x == s.get_value()));
                                    view! {
                                        <button type="button" id=format!("{}-pick-{i}", picks_id) tabindex=rove.tabindex(i)
                                            on:focus=move |_| rove.active.set(i)
                                            aria-pressed=move || on().to_string()
                                            class=move || if on() {
                                                "rounded-full border border-indigo-600 bg-indigo-600 px-2 py-0.5 font-mono text-xs text-white focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:ring-offset-1"
                                            } else {
                                                "rounded-full border border-slate-300 bg-white px-2 py-0.5 font-mono text-xs text-slate-700 hover:bg-slate-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 dark:border-slate-600 dark:bg-slate-900 dark:text-slate-200"
                                            }
                                            on:click=move |_| toggle(s.get_value())>{scope}</button>
                                    }
                                }).collect_view()}
                            </div>
                            {(!unknown.is_empty()).then(|| view! {
                                <p id=warn_id.clone() role="status" class="mt-2 text-sm text-amber-800 dark:text-amber-300" data-testid="unknown-scopes">
                                    {format!("No resource of this realm accepts {}: tokens never carry {}.",
                                        unknown.join(", "), if unknown.len() == 1 { "it" } else { "them" })}
                                </p>
                            })}
                        </div>
                    }.into_any()
                }
                // Without resources (or without the right to see them) there is nothing to
                // pick from or check against.
                _ => ().into_any(),
            })}
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::roved;

    #[test]
    fn arrow_keys_step_and_wrap_home_and_end_jump() {
        assert_eq!(roved("ArrowRight", 0, 3), Some(1));
        assert_eq!(roved("ArrowDown", 2, 3), Some(0));
        assert_eq!(roved("ArrowLeft", 0, 3), Some(2));
        assert_eq!(roved("ArrowUp", 1, 3), Some(0));
        assert_eq!(roved("Home", 2, 3), Some(0));
        assert_eq!(roved("End", 0, 3), Some(2));
        assert_eq!(roved("Tab", 0, 3), None, "Tab leaves the row");
        assert_eq!(roved(" ", 0, 3), None, "Space ticks, it does not move");
        assert_eq!(roved("ArrowRight", 0, 0), None);
        assert_eq!(
            roved("ArrowRight", 9, 3),
            Some(0),
            "a stale index is clamped"
        );
    }
}
