//! Deliver: a release rendered for a ring or unit into one harness's managed configuration,
//! with what the harness cannot express and where each file goes on each system.
use super::RegistryTabs;
use crate::api::registry::{DeliverRegistry, registry_harnesses, registry_overview};
use crate::components::copy::CopyBlock;
use crate::components::field::{Field, FieldError, FieldErrors};
use crate::components::pager::encode;
use crate::components::ui::*;
use crate::types::registry::{DeliveredFile, DeliveryView, HarnessChoice, RegistryView};
use leptos::prelude::*;

const DELIVER_FIELDS: &[(&str, &str)] = &[
    ("harness", "harness"),
    ("version", "version"),
    ("group", "group"),
    ("release", "release"),
    ("token_helper", "token_helper"),
];

/// The Deliver screen.
#[component]
pub fn DeliverPage() -> impl IntoView {
    let registry = Resource::new(|| (), |()| registry_overview());
    let harnesses = Resource::new(|| (), |()| registry_harnesses());
    let render = ServerAction::<DeliverRegistry>::new();
    view! {
        <PageHeader title="Deliver" description="The files an agent harness reads, for the members of one ring or unit: install the managed files with your device management; user files are delivered, not enforced. A laptop whose person is in several rings and units gets their servers together from portcullis-cli pull --apply, which renders the verified release for everything it pulled."/>
        <RegistryTabs current="/registry/deliver"/>
        <Transition fallback=|| view! { <Loading/> }>
            {move || match (registry.get(), harnesses.get()) {
                (Some(Ok(r)), Some(Ok(h))) => view! { <DeliverForm r h render/> }.into_any(),
                (Some(Err(error)), _) | (_, Some(Err(error))) => view! { <ErrorMessage error/> }.into_any(),
                _ => view! { <Loading/> }.into_any(),
            }}
        </Transition>
        {move || render.value().get().and_then(Result::ok).map(|d| view! { <Delivered d/> })}
    }
}

#[component]
fn DeliverForm(
    r: RegistryView,
    h: Vec<HarnessChoice>,
    render: ServerAction<DeliverRegistry>,
) -> impl IntoView {
    let errors = FieldErrors::new(render, "deliver", DELIVER_FIELDS);
    if r.latest.is_none() {
        return view! {
            <section class=format!("{CARD} p-4 sm:p-6")>
                <EmptyState title="Nothing to deliver yet" hint="Harnesses get released servers only: publish the draft first.">
                    <a class=BTN_PRIMARY href="/registry/publish">"Publish"</a>
                </EmptyState>
            </section>
        }
        .into_any();
    }
    if r.rings.is_empty() && r.units.is_empty() {
        return view! {
            <section class=format!("{CARD} p-4 sm:p-6")>
                <EmptyState title="No rings or units yet" hint="Files are rendered for the members of a ring or unit: add them first, then publish.">
                    <a class=BTN_PRIMARY href="/registry/groups">"Rings & units"</a>
                </EmptyState>
            </section>
        }
        .into_any();
    }
    let versions: Vec<(String, String)> = h
        .iter()
        .map(|x| (x.id.clone(), x.version.clone()))
        .collect();
    let harness = RwSignal::new(h.first().map(|x| x.id.clone()).unwrap_or_default());
    let placeholder = move || {
        let id = harness.get();
        versions
            .iter()
            .find(|(h, _)| *h == id)
            .map(|(_, v)| format!("{v} (current)"))
            .unwrap_or_default()
    };
    let latest = r.latest.as_ref().map_or(0, |l| l.sequence);
    view! {
        <section class=format!("{CARD} p-4 sm:p-6")>
            <ActionForm action=render attr:id="deliver" attr:class="grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                <div>
                    <label class=LABEL for="deliver-harness">"Harness"</label>
                    <select id="deliver-harness" name="harness" class=format!("mt-1 {INPUT}") aria-invalid=errors.invalid("harness")
                        on:change=move |ev| harness.set(event_target_value(&ev))>
                        {h.into_iter().map(|x| view! { <option value=x.id.clone()>{x.name.clone()}</option> }).collect_view()}
                    </select>
                    <FieldError errors name="harness"/>
                </div>
                <div>
                    <label class=LABEL for="deliver-version">"Oldest version in use"</label>
                    <input id="deliver-version" name="version" class=format!("mt-1 {INPUT} font-mono") placeholder=placeholder maxlength="32"
                        aria-invalid=errors.invalid("version") aria-describedby="deliver-version-help"/>
                    <p id="deliver-version-help" class=format!("mt-1 {MUTED}")>"Files are written for this version and newer; empty: the current one."</p>
                    <FieldError errors name="version"/>
                </div>
                <div>
                    <label class=LABEL for="deliver-group">"For the members of"</label>
                    <select id="deliver-group" name="group" class=format!("mt-1 {INPUT}") aria-invalid=errors.invalid("group")>
                        {r.rings.iter().map(|x| view! { <option value=format!("ring:{x}")>{format!("Ring {x}")}</option> }).collect_view()}
                        {super::unit_paths(&r.units).into_iter().map(|(id, path)| view! { <option value=format!("unit:{id}")>{format!("Unit {path}")}</option> }).collect_view()}
                    </select>
                    <FieldError errors name="group"/>
                </div>
                <Field errors name="release" id="deliver-release" label="Release" mono=true maxlength=12
                    placeholder=format!("{latest} (latest)") help="A release number; empty: the latest."/>
                <Field errors name="token_helper" id="deliver-helper" label="Token helper (optional)" mono=true maxlength=1024 class="sm:col-span-2"
                    placeholder="portcullis-cli token --server https://auth.example.com --realm default --resource {url} --format headers"
                    help="For servers Portcullis authorizes: a command printing a JSON object of headers ({url} becomes the server's URL, {id} its id). portcullis-cli token gives each server its own five-minute token from the person's sign-in (portcullis-cli login). Empty: those servers use the harness's own MCP sign-in."/>
                <div class="sm:col-span-2">{errors.form_error()}</div>
                <div class="sm:col-span-2">
                    <button type="submit" class=BTN_PRIMARY disabled=move || render.pending().get()>
                        {move || if render.pending().get() { "Rendering…" } else { "Render files" }}
                    </button>
                </div>
            </ActionForm>
        </section>
    }
    .into_any()
}

#[component]
fn Delivered(d: DeliveryView) -> impl IntoView {
    view! {
        <section class="mt-6 space-y-4" aria-labelledby="delivered-title" data-testid="delivery">
            <h2 id="delivered-title" class="text-lg font-semibold text-slate-900 dark:text-white">
                {format!("Release {} · {} server{} for this group", d.sequence, d.servers, if d.servers == 1 { "" } else { "s" })}
            </h2>
            <p class="font-mono text-xs break-all text-slate-500 dark:text-slate-400">{d.release_id.clone()}</p>
            {(!d.warnings.is_empty()).then(|| view! {
                <details open=d.warnings.len() <= 5 class="rounded-md border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-200" data-testid="delivery-warnings">
                    <summary class="cursor-pointer font-medium">{format!("What this harness cannot express ({})", d.warnings.len())}</summary>
                    <ul class="mt-2 list-disc space-y-1 pl-5 break-words">
                        {d.warnings.iter().map(|w| view! { <li><code class="font-mono text-xs">{w.field.clone()}</code>": "{w.message.clone()}</li> }).collect_view()}
                    </ul>
                </details>
            })}
            {(!d.notes.is_empty()).then(|| view! {
                <ul class="list-disc space-y-1 pl-5 text-sm break-words text-slate-700 dark:text-slate-200">
                    {d.notes.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view()}
                </ul>
            })}
            {d.files.into_iter().map(|f| view! { <File f/> }).collect_view()}
        </section>
    }
}

#[component]
fn File(f: DeliveredFile) -> impl IntoView {
    let managed = f.scope == "managed";
    // The file's data URL is made when Download is clicked: a large file is not held twice
    // in the page.
    let (media_type, contents) = (f.media_type.clone(), f.contents.clone());
    let download = move |ev: leptos::ev::MouseEvent| {
        #[cfg(feature = "hydrate")]
        {
            use wasm_bindgen::JsCast;
            if let Some(a) = ev
                .current_target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            {
                let href = format!("data:{media_type};charset=utf-8,{}", encode(&contents));
                let _ = a.set_attribute("href", &href);
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (ev, &media_type, &contents, encode);
    };
    view! {
        <article class=format!("{CARD} p-4 sm:p-6") data-testid="delivered-file">
            <div class="flex flex-wrap items-center justify-between gap-2">
                <h3 class="font-mono text-sm font-semibold break-all">{f.name.clone()}</h3>
                <div class="flex items-center gap-2">
                    <Pill tone=if managed { Tone::Info } else { Tone::Off } text=if managed { "Managed: an administrator installs it" } else { "User: each person's own config" }/>
                    <a class=BTN_SMALL href="#" download=f.name.clone() aria-label=format!("Download {}", f.name) on:click=download>"Download"</a>
                </div>
            </div>
            <table class="mt-3 w-full text-sm">
                <caption class="sr-only">{format!("Where {} goes", f.name)}</caption>
                <tbody>
                    {f.paths.iter().map(|(os, path)| view! {
                        <tr>
                            <th scope="row" class="w-24 py-1 pr-2 text-left align-top text-xs font-medium text-slate-500 dark:text-slate-400">{os.clone()}</th>
                            <td class="py-1 font-mono text-xs break-all">{path.clone()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
            <div class="mt-3"><CopyBlock value=f.contents.clone() label=format!("the contents of {}", f.name) testid="delivered-contents"/></div>
        </article>
    }
}
