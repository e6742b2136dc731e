//! Importing a `server.json`: read it from an MCP registry, a URL or a pasted document, see
//! what it cannot carry, check the entry in the server form, save it to the draft.
use super::server::ServerFormFields;
use crate::api::registry::{ImportRegistryServer, SaveRegistryServer};
use crate::components::field::{Field, FieldError, FieldErrors, Kind};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::registry::UnitView;
use leptos::prelude::*;
use leptos_router::hooks::use_navigate;

const IMPORT_FIELDS: &[(&str, &str)] = &[
    ("source", "source"),
    ("document", "document"),
    ("prefer", "prefer"),
];

/// The import dialog, shown while `open`.
#[component]
pub fn ImportDialog(
    open: RwSignal<bool>,
    revision: i64,
    rings: Vec<String>,
    units: Vec<UnitView>,
) -> impl IntoView {
    let groups = StoredValue::new((rings, units));
    let read = ServerAction::<ImportRegistryServer>::new();
    let save = ServerAction::<SaveRegistryServer>::new();
    let errors = FieldErrors::new(read, "import-source", IMPORT_FIELDS);
    crate::components::field::focus_first_when(open, "import-source");
    let toasts = use_toasts();
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(saved)) = save.value().get() {
            toasts.push(
                ToastKind::Success,
                format!("{} imported into the draft (not published yet).", saved.id),
            );
            open.set(false);
            navigate(
                &format!("/registry/servers/{}", saved.id),
                Default::default(),
            );
        }
    });
    // Focus goes back to what opened the dialog (the Import button) when it closes.
    #[cfg(feature = "hydrate")]
    let opener = StoredValue::new_local(None::<web_sys::HtmlElement>);
    Effect::new(move |_| {
        if open.get() {
            #[cfg(feature = "hydrate")]
            {
                use wasm_bindgen::JsCast;
                opener.set_value(
                    document()
                        .active_element()
                        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()),
                );
            }
        }
    });
    let close = move || {
        open.set(false);
        read.value().set(None);
        #[cfg(feature = "hydrate")]
        if let Some(el) = opener.get_value() {
            let _ = el.focus();
        }
    };
    let dialog_ref = NodeRef::<leptos::html::Div>::new();
    let keys = move |ev: leptos::ev::KeyboardEvent| match ev.key().as_str() {
        "Escape" => {
            ev.prevent_default();
            close();
        }
        "Tab" =>
        {
            #[cfg(feature = "hydrate")]
            if let Some(dialog) = dialog_ref.get() {
                crate::components::confirm::keep_tab_inside(&ev, &dialog);
            }
        }
        _ => {}
    };
    let imported = move || read.value().get().and_then(Result::ok);
    view! {
        <Show when=move || open.get()>
            <div class="fixed inset-0 z-40 flex items-start justify-center overflow-y-auto bg-slate-900/50 p-2 sm:p-8">
                <div role="dialog" aria-modal="true" aria-labelledby="import-title" class=format!("{CARD} w-full max-w-3xl p-4 sm:p-6") data-testid="import-dialog"
                    node_ref=dialog_ref on:keydown=keys>
                    <div class="flex items-start justify-between gap-2">
                        <h2 id="import-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Import a server.json"</h2>
                        <button type="button" class=BTN_SMALL aria-label="Close the import" on:click=move |_| close()>"✕"</button>
                    </div>
                    <p class=format!("mt-1 {MUTED}")>"Read from the MCP registry configured for this installation, an https URL, or a document you paste. It is pinned to the version read; nothing is saved until you save it to the draft."</p>
                    <ActionForm action=read attr:id="import-source" attr:class="mt-4 grid gap-4 sm:grid-cols-3" on:input=move |_| errors.clear()>
                        <Field errors name="source" id="import-name" label="Registry name or URL" mono=true class="sm:col-span-2"
                            placeholder="io.github.acme/wiki-mcp" help="A name in the MCP registry, or an https URL of a server.json."/>
                        <div>
                            <label class=LABEL for="import-prefer">"Prefer"</label>
                            <select class=format!("mt-1 {INPUT}") id="import-prefer" name="prefer" aria-invalid=errors.invalid("prefer")>
                                <option value="default">"Remote, else a package"</option>
                                <option value="remote">"The remote"</option>
                                <option value="npm">"The npm package"</option>
                                <option value="pypi">"The PyPI package"</option>
                                <option value="oci">"The OCI image"</option>
                            </select>
                            <FieldError errors name="prefer"/>
                        </div>
                        <Field errors name="document" id="import-document" label="Or paste the server.json" kind=Kind::Lines(4) mono=true class="sm:col-span-3"/>
                        <div class="sm:col-span-3">{errors.form_error()}</div>
                        <div class="flex items-center gap-3 sm:col-span-3">
                            <button type="submit" class=BTN_PRIMARY disabled=move || read.pending().get()>"Read"</button>
                            <Show when=move || read.pending().get()>
                                <p class=MUTED role="status" aria-live="polite">"Reading the server.json…"</p>
                            </Show>
                        </div>
                    </ActionForm>
                    {move || imported().map(|i| {
                        let notes = i.notes.clone();
                        let (rings, units) = groups.get_value();
                        view! {
                            <div class="mt-6 border-t border-slate-200 pt-4 dark:border-slate-700" data-testid="import-result">
                                <h3 class="text-base font-semibold text-slate-900 dark:text-white">"Check the entry"</h3>
                                {(!notes.is_empty()).then(|| view! {
                                    <ul class="mt-2 list-disc space-y-1 rounded-md border border-amber-200 bg-amber-50 p-3 pl-8 text-sm break-words text-amber-900 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-200" data-testid="import-notes">
                                        {notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                                    </ul>
                                })}
                                <ServerFormFields form_id="import-server" initial=i.form revision replacing=""
                                    rings units action=save on_cancel=Callback::new(move |()| close())/>
                            </div>
                        }
                    })}
                </div>
            </div>
        </Show>
    }
}
