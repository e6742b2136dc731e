//! One registry server: its page (what it is, what is not published, the releases that
//! changed it, the resource it is, its history) and the form that adds or edits it.
use super::{FieldChanges, RegistryTabs, auth_label, state_pill, transport_label};
use crate::api::audit::history;
use crate::api::registry::{
    CreateRegistryResource, DeleteRegistryServer, SaveRegistryServer, registry_server,
};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyObjectLink;
use crate::components::field::{Field, FieldError, FieldErrors, Kind};
use crate::components::history::History;
use crate::components::layout::{NotFound, use_abilities};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::error::AppError;
use crate::types::registry::{ServerDetail, ServerForm, UnitView};
use leptos::prelude::*;
use leptos_router::hooks::{use_navigate, use_params_map};

/// The provider profiles an entry may follow (the manifest's names), and what people see.
const PROFILES: [(&str, &str); 3] = [
    ("", "None"),
    ("notion", "Notion (read-first: search, fetch)"),
    (
        "gmail-preview",
        "Gmail, Developer Preview (search, read, draft; never send or delete)",
    ),
];

/// The form's inputs and the policy's names for them (errors name policy fields).
pub const SERVER_FIELDS: &[(&str, &str)] = &[
    ("form[id]", "id"),
    ("form[title]", "title"),
    ("form[transport]", "transport"),
    ("form[url]", "url"),
    ("form[url_transport]", "urlTransport"),
    ("form[profile]", "profile"),
    ("form[package_type]", "package.type"),
    ("form[package_identifier]", "package.identifier"),
    ("form[package_version]", "package.version"),
    ("form[package_identifier]", "package"),
    ("form[command_path]", "command.path"),
    ("form[command_args]", "command.args"),
    ("form[command_sha256]", "command.sha256"),
    ("form[command_path]", "command"),
    ("form[registry_name]", "registryName"),
    ("form[version]", "version"),
    ("form[headers]", "headers"),
    ("form[env]", "env"),
    ("form[tools_allow]", "tools.allow"),
    ("form[tools_deny]", "tools.deny"),
    ("form[tools_allow]", "tools"),
    ("form[auth_mode]", "auth.mode"),
    ("form[auth_client_id]", "auth.clientId"),
    ("form[auth_client_metadata_url]", "auth.clientMetadataUrl"),
    ("form[auth_issuer]", "auth.issuer"),
    ("form[auth_identity_issuer]", "auth.identityIssuer"),
    ("form[auth_scopes]", "auth.scopes"),
    ("form[auth_mode]", "auth"),
    ("form[rings]", "rings"),
    ("form[units]", "units"),
];

/// The server form: every field of a server, the transport's and auth mode's fields shown
/// as they are chosen, each error on its field. Saves into the draft at `revision`.
#[component]
pub fn ServerFormFields(
    /// Element id of the form.
    form_id: &'static str,
    /// What it starts with.
    initial: ServerForm,
    /// The draft's revision it edits.
    revision: i64,
    /// The server it replaces (empty: a new one).
    #[prop(into)]
    replacing: String,
    /// The JSON of the form as read (an edit), empty for a new server.
    #[prop(optional, into)]
    original: String,
    /// The realm's rings and units.
    rings: Vec<String>,
    units: Vec<UnitView>,
    action: ServerAction<SaveRegistryServer>,
    /// Cancel.
    on_cancel: Callback<()>,
) -> impl IntoView {
    let errors = FieldErrors::new(action, form_id, SERVER_FIELDS);
    let transport = RwSignal::new(if initial.transport.is_empty() {
        "remote".to_owned()
    } else {
        initial.transport.clone()
    });
    let auth = RwSignal::new(if initial.auth_mode.is_empty() {
        "none".to_owned()
    } else {
        initial.auth_mode.clone()
    });
    let v = initial;
    let hidden_unless = move |which: &'static str, signal: RwSignal<String>| {
        move || {
            if signal.get() == which {
                "grid gap-4 sm:col-span-2 sm:grid-cols-2"
            } else {
                "hidden"
            }
        }
    };
    // Each choice as (id, what its label says: a unit's path).
    let checkboxes = move |field: &'static str,
                           label: &'static str,
                           all: Vec<(String, String)>,
                           chosen: Vec<String>| {
        let help_id = format!("{form_id}-{field}-help");
        let described = help_id.clone();
        let input = if field == "rings" {
            "form[rings]"
        } else {
            "form[units]"
        };
        view! {
            <fieldset class="sm:col-span-2" aria-describedby=described aria-invalid=errors.invalid(input)>
                <legend class=LABEL>{label}</legend>
                {if all.is_empty() {
                    view! { <p id=help_id class=format!("mt-1 {MUTED}")>{format!("The realm has no {field} yet: add them under Rings & units.")}</p> }.into_any()
                } else {
                    view! {
                        <div class="mt-1 flex flex-wrap gap-x-4 gap-y-2">
                            {all.into_iter().enumerate().map(|(i, (g, shown))| {
                                let checked = chosen.contains(&g);
                                view! {
                                    <label class="inline-flex items-center gap-2 text-sm break-all">
                                        <input type="checkbox" name=format!("form[{field}][{i}]") value=g.clone() checked=checked/>
                                        {shown}
                                    </label>
                                }
                            }).collect_view()}
                        </div>
                        <p id=help_id class=format!("mt-1 {MUTED}")>"Members of these get the server (members of a unit also get what the units above it get). None: nobody yet."</p>
                    }.into_any()
                }}
                <FieldError errors name=input/>
            </fieldset>
        }
    };
    let unit_paths = super::unit_paths(&units);
    view! {
        <ActionForm action attr:id=form_id attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
            <input type="hidden" name="revision" value=revision.to_string()/>
            <input type="hidden" name="replacing" value=replacing/>
            <input type="hidden" name="original" value=original/>
            <Field errors name="form[id]" id=format!("{form_id}-id") label="Id" value=v.id required=true maxlength=32 mono=true
                placeholder="wiki" help="Lowercase letters, digits and '-', at most 32 (harnesses join it into tool names); unique in the registry."/>
            <Field errors name="form[title]" id=format!("{form_id}-title") label="Title" value=v.title maxlength=100 placeholder="Team wiki"/>
            <div class="sm:col-span-2">
                <label class=LABEL for=format!("{form_id}-transport")>"How it is reached"</label>
                <select class=format!("mt-1 {INPUT}") id=format!("{form_id}-transport") name="form[transport]"
                    aria-invalid=errors.invalid("form[transport]")
                    on:change=move |ev| transport.set(event_target_value(&ev))>
                    {[("remote", "A remote server (URL)"), ("package", "A package, run on the laptop at a pinned version"), ("command", "A program on the laptop")]
                        .into_iter().map(|(value, label)| view! { <option value=value selected=move || transport.get() == value>{label}</option> }).collect_view()}
                </select>
                <FieldError errors name="form[transport]"/>
            </div>
            <div class=hidden_unless("remote", transport) data-testid="transport-remote">
                <Field errors name="form[url]" id=format!("{form_id}-url") label="URL" value=v.url maxlength=2048 mono=true class="sm:col-span-2"
                    placeholder="https://mcp.example.com/mcp" help="https, canonical (lowercase host, no default port, query or fragment)."/>
                <div>
                    <label class=LABEL for=format!("{form_id}-url-transport")>"Protocol"</label>
                    <select class=format!("mt-1 {INPUT}") id=format!("{form_id}-url-transport") name="form[url_transport]" aria-invalid=errors.invalid("form[url_transport]")>
                        <option value="" selected=v.url_transport.is_empty()>"Streamable HTTP"</option>
                        <option value="sse" selected=v.url_transport == "sse">"Server-sent events (legacy)"</option>
                    </select>
                    <FieldError errors name="form[url_transport]"/>
                </div>
                <div>
                    <label class=LABEL for=format!("{form_id}-profile")>"Provider profile"</label>
                    <select class=format!("mt-1 {INPUT}") id=format!("{form_id}-profile") name="form[profile]"
                        aria-invalid=errors.invalid("form[profile]") aria-describedby=format!("{form_id}-profile-help")>
                        {PROFILES.into_iter().map(|(value, label)| view! { <option value=value selected=v.profile == value>{label}</option> }).collect_view()}
                    </select>
                    <p id=format!("{form_id}-profile-help") class=format!("mt-1 {MUTED}")>"Conservative defaults for a provider's hosted server: its URL and OAuth when left empty, and only its safe tools."</p>
                    <FieldError errors name="form[profile]"/>
                </div>
                <Field errors name="form[headers]" id=format!("{form_id}-headers") label="Headers" value=v.headers kind=Kind::Lines(3) mono=true class="sm:col-span-2"
                    placeholder="X-Api-Key: ${WIKI_API_KEY}" help="One Name: value per line. Secrets only as ${VAR} in headers named for them; each laptop supplies the value."/>
            </div>
            <div class=hidden_unless("package", transport) data-testid="transport-package">
                <div>
                    <label class=LABEL for=format!("{form_id}-package-type")>"Ecosystem"</label>
                    <select class=format!("mt-1 {INPUT}") id=format!("{form_id}-package-type") name="form[package_type]" aria-invalid=errors.invalid("form[package_type]")>
                        {[("npm", "npm (npx)"), ("pypi", "PyPI (uvx)"), ("oci", "OCI image (docker)")].into_iter().map(|(value, label)| {
                            let selected = v.package_type == value;
                            view! { <option value=value selected=selected>{label}</option> }
                        }).collect_view()}
                    </select>
                    <FieldError errors name="form[package_type]"/>
                </div>
                <Field errors name="form[package_identifier]" id=format!("{form_id}-package-identifier") label="Package" value=v.package_identifier maxlength=512 mono=true
                    placeholder="@acme/wiki-mcp" help="The npm or PyPI package name; an OCI image with its digest (ghcr.io/acme/wiki@sha256:…)."/>
                <Field errors name="form[package_version]" id=format!("{form_id}-package-version") label="Exact version" value=v.package_version maxlength=128 mono=true
                    placeholder="1.4.2" help="npm: MAJOR.MINOR.PATCH; PyPI: an exact version; never a range or latest. Empty for an image."/>
            </div>
            <div class=hidden_unless("command", transport) data-testid="transport-command">
                <Field errors name="form[command_path]" id=format!("{form_id}-command-path") label="Program" value=v.command_path maxlength=1024 mono=true placeholder="/opt/acme/bin/wiki-mcp"/>
                <Field errors name="form[command_sha256]" id=format!("{form_id}-command-sha") label="Program SHA-256" value=v.command_sha256 maxlength=64 mono=true
                    help="Pins the binary; without it the command is unpinned (warned)."/>
                <Field errors name="form[command_args]" id=format!("{form_id}-command-args") label="Arguments" value=v.command_args kind=Kind::Lines(3) mono=true class="sm:col-span-2"
                    help="One per line."/>
            </div>
            <div class=move || if transport.get() == "remote" { "hidden" } else { "sm:col-span-2" }>
                <Field errors name="form[env]" id=format!("{form_id}-env") label="Environment" value=v.env kind=Kind::Lines(3) mono=true
                    placeholder="WIKI_TOKEN=${WIKI_TOKEN}" help="One NAME=value per line. Secrets only as ${VAR} in variables named for them."/>
            </div>
            <Field errors name="form[tools_allow]" id=format!("{form_id}-tools-allow") label="Tools allowed" value=v.tools_allow mono=true
                placeholder="search read_page" help="Space-separated; empty allows every tool."/>
            <Field errors name="form[tools_deny]" id=format!("{form_id}-tools-deny") label="Tools denied" value=v.tools_deny mono=true
                placeholder="delete_page" help="Never these (wins over allowed)."/>
            <div class="sm:col-span-2">
                <label class=LABEL for=format!("{form_id}-auth")>"How clients authenticate"</label>
                <select class=format!("mt-1 {INPUT}") id=format!("{form_id}-auth") name="form[auth_mode]" aria-invalid=errors.invalid("form[auth_mode]")
                    on:change=move |ev| auth.set(event_target_value(&ev))>
                    {[("none", "None (or ${VAR} headers)"), ("portcullis", "Portcullis (this server is a protected resource here)"), ("oauth", "The server's own OAuth authorization server"), ("enterprise", "Enterprise-managed (ID-JAG from the identity provider)")]
                        .into_iter().map(|(value, label)| view! { <option value=value selected=move || auth.get() == value>{label}</option> }).collect_view()}
                </select>
                <FieldError errors name="form[auth_mode]"/>
            </div>
            <div class=hidden_unless("oauth", auth)>
                <Field errors name="form[auth_client_id]" id=format!("{form_id}-client-id") label="Client id" value=v.auth_client_id maxlength=255 mono=true
                    help="Registered at the server's authorization server; or give a metadata document URL."/>
                <Field errors name="form[auth_client_metadata_url]" id=format!("{form_id}-cimd") label="Client ID Metadata Document URL" value=v.auth_client_metadata_url maxlength=2048 mono=true/>
                <Field errors name="form[auth_issuer]" id=format!("{form_id}-issuer") label="Authorization server" value=v.auth_issuer maxlength=2048 mono=true class="sm:col-span-2"
                    placeholder="https://auth.example.com"/>
            </div>
            <div class=hidden_unless("enterprise", auth)>
                <Field errors name="form[auth_identity_issuer]" id=format!("{form_id}-idp") label="Identity provider" value=v.auth_identity_issuer maxlength=2048 mono=true class="sm:col-span-2"
                    placeholder="https://login.example.com"/>
            </div>
            <div class=move || if auth.get() == "none" { "hidden" } else { "sm:col-span-2" }>
                <Field errors name="form[auth_scopes]" id=format!("{form_id}-scopes") label="Scopes" value=v.auth_scopes mono=true placeholder="wiki:read"
                    help="Space-separated; what clients ask for."/>
            </div>
            {checkboxes("rings", "Rings", rings.into_iter().map(|r| (r.clone(), r)).collect(), v.rings)}
            {checkboxes("units", "Units", unit_paths, v.units)}
            <details class="sm:col-span-2">
                <summary class="cursor-pointer text-sm text-slate-600 dark:text-slate-300">"MCP Registry name"</summary>
                <div class="mt-2 grid gap-4 sm:grid-cols-2">
                    <Field errors name="form[registry_name]" id=format!("{form_id}-registry-name") label="Registry name" value=v.registry_name maxlength=200 mono=true
                        placeholder="io.github.acme/wiki" help="Its name in an MCP registry, if it has one."/>
                    <Field errors name="form[version]" id=format!("{form_id}-version") label="Registry version" value=v.version maxlength=255 mono=true
                        help="The version approved (with a registry name)."/>
                </div>
            </details>
            <div class="sm:col-span-2">{errors.form_error()}</div>
            <div class="flex gap-2 sm:col-span-2">
                <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>
                    {move || if action.pending().get() { "Saving…" } else { "Save to draft" }}
                </button>
                <button type="button" class=BTN_SECONDARY on:click=move |_| on_cancel.run(())>"Cancel"</button>
            </div>
        </ActionForm>
    }
}

/// Toasts a save and its warnings, and opens the saved server's page.
fn after_save(action: ServerAction<SaveRegistryServer>) {
    let toasts = use_toasts();
    let navigate = use_navigate();
    Effect::new(move |_| {
        if let Some(Ok(saved)) = action.value().get() {
            let note = match saved.warnings.len() {
                0 => String::new(),
                n => format!(
                    " {n} warning{}: see its page.",
                    if n == 1 { "" } else { "s" }
                ),
            };
            toasts.push(
                ToastKind::Success,
                format!("{} saved to the draft (not published yet).{note}", saved.id),
            );
            navigate(
                &format!("/registry/servers/{}", saved.id),
                Default::default(),
            );
        }
    });
}

/// A new server.
#[component]
pub fn NewServerPage() -> impl IntoView {
    let registry = Resource::new(|| (), |()| crate::api::registry::registry_overview());
    let save = ServerAction::<SaveRegistryServer>::new();
    after_save(save);
    let navigate = use_navigate();
    let cancel = Callback::new(move |()| navigate("/registry", Default::default()));
    view! {
        <PageHeader title="Add a server" description="Added to the draft: nothing reaches laptops until the draft is published."/>
        <RegistryTabs current="/registry"/>
        <Transition fallback=|| view! { <Loading/> }>
            {move || registry.get().map(|result| match result {
                Ok(r) => view! {
                    <section class=format!("{CARD} p-4 sm:p-6")>
                        <ServerFormFields form_id="new-server" initial=ServerForm::default() revision=r.revision replacing=""
                            rings=r.rings units=r.units action=save on_cancel=cancel/>
                    </section>
                }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}

/// One server's page.
#[component]
pub fn ServerPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let save = ServerAction::<SaveRegistryServer>::new();
    after_save(save);
    // Reloaded after a save that worked: a refused one keeps the form with its errors.
    let saved = successes(save);
    let create_resource = ServerAction::<CreateRegistryResource>::new();
    let server = Resource::new(
        move || (id.get(), saved.get(), create_resource.version().get()),
        |(id, _, _)| registry_server(id),
    );
    let can = use_abilities();
    let events = Resource::new(
        move || (id.get(), saved.get()),
        move |(id, _)| async move {
            if can.view_audit {
                history("registry_server".into(), id).await
            } else {
                Ok(crate::types::audit::AuditPage::default())
            }
        },
    );
    view! {
        <Transition fallback=|| view! { <Loading/> }>
            {move || server.get().map(|result| match result {
                Ok(s) => view! { <ServerView s save create_resource/> {can.view_audit.then(|| view! { <History events/> })} }.into_any(),
                Err(AppError::NotFound(_)) => view! { <NotFound/> }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}

#[component]
fn ServerView(
    s: ServerDetail,
    save: ServerAction<SaveRegistryServer>,
    create_resource: ServerAction<CreateRegistryResource>,
) -> impl IntoView {
    let can = use_abilities();
    let editing = RwSignal::new(false);
    let delete = ServerAction::<DeleteRegistryServer>::new();
    crate::components::ui::leave_after(
        delete,
        "Removed from the draft (publish to take it off laptops).",
        "/registry",
    );
    let toasts = use_toasts();
    Effect::new(move |_| match create_resource.value().get() {
        Some(Ok(slug)) => toasts.push(ToastKind::Success, format!("Resource {slug} created.")),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    let row = s.row.clone();
    let name = if row.title.is_empty() {
        row.id.clone()
    } else {
        row.title.clone()
    };
    let id = row.id.clone();
    let revision = s.revision;
    let delete_id = id.clone();
    let summary = {
        let f = s.form.clone();
        let r = row.clone();
        let launch = s.launch.clone();
        move || {
            let item = |label: &'static str, value: String| {
                (!value.is_empty()).then(|| view! {
                    <div class="min-w-0">
                        <dt class="text-xs font-medium text-slate-500 dark:text-slate-400">{label}</dt>
                        <dd class="mt-0.5 font-mono text-sm break-all whitespace-pre-wrap">{value}</dd>
                    </div>
                })
            };
            let groups: Vec<String> = r
                .rings
                .iter()
                .map(|x| format!("ring {x}"))
                .chain(r.units.iter().map(|u| format!("unit {u}")))
                .collect();
            view! {
                <dl class="mt-4 grid gap-4 sm:grid-cols-2">
                    <div>
                        <dt class="text-xs font-medium text-slate-500 dark:text-slate-400">"Transport"</dt>
                        <dd class="mt-0.5 text-sm">{transport_label(&r.transport)}{(f.url_transport == "sse").then_some(" (server-sent events)")}</dd>
                    </div>
                    <div>
                        <dt class="text-xs font-medium text-slate-500 dark:text-slate-400">"Authentication"</dt>
                        <dd class="mt-0.5 text-sm">{auth_label(&r.auth)}</dd>
                    </div>
                    {item("Where", r.target.clone())}
                    {item("Provider profile", PROFILES.iter().find(|(v, _)| !v.is_empty() && *v == f.profile).map(|(_, l)| (*l).to_owned()).unwrap_or_default())}
                    {item("Pinned version", r.version.clone())}
                    {item("Laptops run", launch.clone().unwrap_or_default())}
                    {item("Program SHA-256", f.command_sha256.clone())}
                    {item("Headers", f.headers.clone())}
                    {item("Environment", f.env.clone())}
                    {item("Tools allowed", if f.tools_allow.is_empty() { "every tool".to_owned() } else { f.tools_allow.clone() })}
                    {item("Tools denied", f.tools_deny.clone())}
                    {item("Client id", f.auth_client_id.clone())}
                    {item("Client metadata document", f.auth_client_metadata_url.clone())}
                    {item("Authorization server", f.auth_issuer.clone())}
                    {item("Identity provider", f.auth_identity_issuer.clone())}
                    {item("Scopes", f.auth_scopes.clone())}
                    {item("MCP Registry name", if f.registry_name.is_empty() { String::new() } else { format!("{} {}", f.registry_name, f.version) })}
                    <div class="min-w-0 sm:col-span-2">
                        <dt class="text-xs font-medium text-slate-500 dark:text-slate-400">"Who gets it"</dt>
                        <dd class="mt-0.5 text-sm break-words">{if groups.is_empty() { "Nobody yet: pick rings or units.".to_owned() } else { groups.join(", ") }}</dd>
                    </div>
                </dl>
            }
        }
    };
    let warnings = row.warnings.clone();
    let changes = s.changes.clone();
    let releases = s.releases.clone();
    let resource = s.resource.clone();
    let can_create_resource = can.manage_registry && can.manage_resources;
    let form = s.form.clone();
    let original = s.original.clone();
    let (rings, units) = (s.rings.clone(), s.units.clone());
    let create_id = id.clone();
    view! {
        <div class="flex flex-wrap items-center justify-between gap-2">
            <a href="/registry" class="text-sm text-indigo-600 hover:underline dark:text-indigo-300">"← Registry"</a>
            <CopyObjectLink kind="servers" id=id.clone() what="this server"/>
        </div>
        <div class="mt-2 mb-4 flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
            <div class="min-w-0">
                <h1 class=format!("{H1} break-words") data-testid="server-name">{name}</h1>
                <div class="mt-1 flex flex-wrap items-center gap-2">
                    {(!row.title.is_empty()).then(|| view! { <code class="font-mono text-sm break-all text-slate-500 dark:text-slate-400">{id.clone()}</code> })}
                    {state_pill(&row.state)}
                </div>
            </div>
            {can.manage_registry.then(|| view! {
                <ConfirmButton label="Remove" title=format!("Remove {delete_id} from the draft?")
                    message="It stays on laptops until the draft is published; the release history keeps it."
                    confirm_label="Remove" class=BTN_DANGER
                    on_confirm=Callback::new(move |()| { delete.dispatch(DeleteRegistryServer { revision, id: delete_id.clone() }); })/>
            })}
        </div>
        {(!warnings.is_empty()).then(|| view! {
            <section class="mb-4 rounded-md border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-200" aria-label="Warnings" data-testid="server-warnings">
                <ul class="list-disc space-y-1 pl-5 break-words">{warnings.into_iter().map(|w| view! { <li>{w}</li> }).collect_view()}</ul>
            </section>
        })}
        {(!changes.is_empty()).then(|| view! {
            <section class=format!("{CARD} mb-4 p-4 sm:p-6") aria-labelledby="unpublished-title" data-testid="server-changes">
                <h2 id="unpublished-title" class="text-base font-semibold text-slate-900 dark:text-white">"Not published yet"</h2>
                <p class=MUTED>"The draft against the latest release."</p>
                <FieldChanges changes/>
            </section>
        })}
        <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby="server-settings-title">
            <div class="flex flex-wrap items-center justify-between gap-2">
                <h2 id="server-settings-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Settings"</h2>
                <Show when=move || can.manage_registry && !editing.get()>
                    <button type="button" class=BTN_SMALL on:click=move |_| editing.set(true)>"Edit"</button>
                </Show>
            </div>
            <Show when=move || editing.get() fallback=summary.clone()>
                <ServerFormFields form_id="edit-server" initial=form.clone() revision replacing=id.clone() original=original.clone()
                    rings=rings.clone() units=units.clone() action=save on_cancel=Callback::new(move |()| editing.set(false))/>
            </Show>
        </section>
        {resource.map(|r| view! {
            <section class=format!("{CARD} mt-6 p-4 sm:p-6") aria-labelledby="resource-title" data-testid="server-resource">
                <h2 id="resource-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Protected resource"</h2>
                {match (r.slug, r.standing.as_str()) {
                    (Some(slug), "enabled") => view! {
                        <p class="mt-1 text-sm">"Portcullis issues its tokens: this server is the resource "
                            <a class="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href=format!("/resources/{slug}")>{slug.clone()}</a>
                            " (its URL is their audience)."</p>
                    }.into_any(),
                    (Some(slug), standing) => {
                        let why = match standing {
                            "disabled" => "is disabled: clients get no token for this server until an admin enables it.".to_owned(),
                            "submitted" => format!("is a submission by {} waiting for an admin, not this server's resource: review it (enable it only if it is really this server) before clients get tokens.", r.submitted_by),
                            _ => "is a rejected submission: delete it, then create this server's resource here.".to_owned(),
                        };
                        view! {
                            <p role="alert" class="mt-1 text-sm text-amber-800 dark:text-amber-300">"The resource "
                                <a class="font-medium underline" href=format!("/resources/{slug}")>{slug.clone()}</a>
                                " at this URL " {why}</p>
                        }.into_any()
                    }
                    (None, _) => view! {
                        <p class="mt-1 text-sm">"Portcullis is to issue its tokens, but the realm has no resource with this URL yet: clients get no token for it until one exists."</p>
                        {can_create_resource.then(|| {
                            let id = create_id.clone();
                            view! {
                                <button type="button" class=format!("mt-3 {BTN_PRIMARY}") disabled=move || create_resource.pending().get()
                                    on:click=move |_| { create_resource.dispatch(CreateRegistryResource { id: id.clone() }); }>"Create the resource"</button>
                            }
                        })}
                    }.into_any(),
                }}
            </section>
        })}
        <section class=format!("{CARD} mt-6") aria-labelledby="server-releases-title" data-testid="server-releases">
            <h2 id="server-releases-title" class="border-b border-slate-200 px-4 py-4 text-lg font-semibold text-slate-900 sm:px-6 dark:border-slate-700 dark:text-white">"Releases"</h2>
            {if releases.is_empty() {
                view! { <EmptyState title="In no release yet" hint="It reaches laptops with the next release."/> }.into_any()
            } else {
                view! {
                    <ol class="divide-y divide-slate-200 dark:divide-slate-700">
                        {releases.into_iter().map(|r| view! {
                            <li class="px-4 py-3 text-sm sm:px-6">
                                <div class="flex flex-wrap items-center gap-2">
                                    <span class="font-medium">{format!("Release {}", r.sequence)}</span>
                                    <Pill tone=match r.what.as_str() { "added" => Tone::Good, "removed" => Tone::Bad, _ => Tone::Info } text=r.what.clone()/>
                                    <span class=MUTED><When at=r.published.at.clone() words=r.published.ago.clone()/></span>
                                </div>
                                {(!r.fields.is_empty()).then(|| view! { <FieldChanges changes=r.fields/> })}
                            </li>
                        }).collect_view()}
                    </ol>
                    <p class=format!("border-t border-slate-200 px-4 py-3 sm:px-6 dark:border-slate-700 {MUTED}")>"From the last 20 releases."</p>
                }.into_any()
            }}
        </section>
    }
}

/// On a resource's page: the registry servers that are this resource (remote, auth mode
/// `portcullis`, at its URL), loaded by the page itself (a resource created inside a suspended
/// view would not hydrate).
#[component]
pub fn RegistryEntries(entries: Resource<Result<Vec<String>, AppError>>) -> impl IntoView {
    view! {
        <Transition fallback=|| ()>
            {move || entries.get().and_then(Result::ok).filter(|e| !e.is_empty()).map(|ids| view! {
                <section class=format!("{CARD} mt-6 p-4 sm:p-6") aria-labelledby="registry-entry-title" data-testid="resource-registry">
                    <h2 id="registry-entry-title" class="text-lg font-semibold text-slate-900 dark:text-white">"MCP registry"</h2>
                    <p class="mt-1 text-sm">"The registry's draft lists a server at this URL whose auth mode is portcullis: "
                        {ids.into_iter().enumerate().map(|(i, id)| view! {
                            {(i > 0).then_some(", ")}
                            <a class="font-mono font-medium break-all text-indigo-700 hover:underline dark:text-indigo-300" href=format!("/registry/servers/{id}")>{id.clone()}</a>
                        }).collect_view()}
                        "."</p>
                </section>
            })}
        </Transition>
    }
}
