//! Realms: the list, creation, and each realm's page (rename with its issuer shown before and
//! after, enable and disable, history).
use crate::api::audit::history;
use crate::api::realms::{CreateRealm, SetRealmEnabled, UpdateRealm, get_realm, list_realms};
use crate::components::card::{EditableCard, FormButtons};
use crate::components::confirm::{ConfirmButton, ConfirmDialog};
use crate::components::copy::CopyValue;
use crate::components::field::{Field, FieldError, FieldErrors, Kind};
use crate::components::history::History;
use crate::components::layout::use_abilities;
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::realms::RealmView;
use leptos::prelude::*;

/// The inputs of the realm forms (named as the server names them).
const REALM_FIELDS: &[(&str, &str)] = &[
    ("name", "name"),
    ("new_name", "name"),
    ("display_name", "display_name"),
    ("token_ttl_secs", "token_ttl_secs"),
    ("refresh_idle_days", "refresh_idle_days"),
    ("refresh_max_days", "refresh_max_days"),
];

#[component]
fn RealmRow(realm: RealmView, focus: RwSignal<Option<String>>) -> impl IntoView {
    // The realm just created: its link takes focus once its row is in the page.
    let name = realm.name.clone();
    Effect::new(move |_| {
        if focus.get_untracked().as_deref() == Some(name.as_str()) {
            focus.set(None);
            crate::components::ui::focus_soon(format!("realm-{name}"));
        }
    });
    view! {
        <tr data-testid="realm-row" class=CARDS_ROW>
            <td class=CARDS_CELL>
                <a id=format!("realm-{}", realm.name) class="font-medium text-indigo-700 break-words hover:underline dark:text-indigo-300" href=format!("/realms/{}", realm.name)>{realm.display_name.clone()}</a>
                <div class=format!("{MONO} text-slate-500 dark:text-slate-400")>{realm.name.clone()}</div>
            </td>
            <td class=CARDS_CELL_NEXT><CellLabel text="Issuer"/><span class=MONO>{realm.issuer.clone()}</span></td>
            <td class=CARDS_CELL_NEXT><Badge ok=realm.enabled text=if realm.enabled { "Enabled" } else { "Disabled" }/></td>
        </tr>
    }
}

/// The Realms screen.
#[component]
pub fn RealmsPage() -> impl IntoView {
    let create = ServerAction::<CreateRealm>::new();
    let created = successes(create);
    let realms = Resource::new(move || created.get(), |_| list_realms());
    let show_create = RwSignal::new(false);
    crate::components::field::focus_first_when(show_create, "new-realm");
    let errors = FieldErrors::new(create, "new-realm", REALM_FIELDS);
    let toasts = use_toasts();
    let session = crate::components::layout::use_session();
    // The realm just created: once the list shows it, focus goes to its link (`RealmRow`).
    let focus_new = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        if let Some(Ok(r)) = create.value().get() {
            toasts.push(
                ToastKind::Success,
                format!(
                    "Realm {} created: switch to it in the sidebar to give it resources and clients.",
                    r.display_name
                ),
            );
            show_create.set(false);
            focus_new.set(Some(r.name.clone()));
            // The realm switcher lists it from now on.
            session.refetch();
        }
    });
    view! {
        <PageHeader title="Realms" description="Each realm is an issuer with its own clients, keys and policies.">
            <button type="button" class=BTN_PRIMARY on:click=move |_| show_create.set(true)>"New realm"</button>
        </PageHeader>
        <Show when=move || show_create.get()>
            <section class=format!("{CARD} mb-6 p-4 sm:p-6") aria-labelledby="new-realm-title">
                <h2 id="new-realm-title" class="text-lg font-semibold text-slate-900 dark:text-white">"New realm"</h2>
                <ActionForm action=create attr:id="new-realm" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                    <Field errors name="name" id="realm-name" label="Name" required=true maxlength=63 mono=true placeholder="payments"
                        help="Lowercase letters, digits and '-'; part of the issuer URL."/>
                    <Field errors name="display_name" id="realm-display" label="Display name" required=true maxlength=100 placeholder="Payments"/>
                    <div class="sm:col-span-2">{errors.form_error()}</div>
                    <div class="flex gap-2 sm:col-span-2">
                        <button type="submit" class=BTN_PRIMARY disabled=move || create.pending().get()>"Create realm"</button>
                        <button type="button" class=BTN_SECONDARY on:click=move |_| show_create.set(false)>"Cancel"</button>
                    </div>
                </ActionForm>
            </section>
        </Show>
        <div class=CARD>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || realms.get().map(|result| match result {
                    Ok(list) => view! {
                        <table class="block w-full text-sm sm:table">
                            <thead class=CARDS_HEAD>
                                <tr>
                                    <th class=TH scope="col">"Realm"</th>
                                    <th class=TH scope="col">"Issuer"</th>
                                    <th class=TH scope="col">"Status"</th>
                                </tr>
                            </thead>
                            <tbody class=CARDS_BODY>
                                {list.into_iter().map(|realm| view! { <RealmRow realm focus=focus_new/> }).collect_view()}
                            </tbody>
                        </table>
                    }.into_any(),
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </div>
    }
}

/// The issuer a realm would have under `name` (its current issuer with the last segment
/// replaced).
fn issuer_for(issuer: &str, name: &str) -> String {
    match issuer.rsplit_once('/') {
        Some((base, _)) => format!("{base}/{name}"),
        None => name.to_owned(),
    }
}

/// A number of days in words.
fn days(n: i64) -> String {
    match n {
        0 => "never".to_owned(),
        1 => "1 day".to_owned(),
        n => format!("{n} days"),
    }
}

/// What the browser checks before a realm name is sent (the server checks it again).
const NAME_PATTERN: &str = r"[A-Za-z0-9]([A-Za-z0-9\-]{0,61}[A-Za-z0-9])?";

/// The realm's settings, edited in place; a rename is confirmed with both issuers shown.
#[component]
fn RealmSettings(realm: RealmView, update: ServerAction<UpdateRealm>) -> impl IntoView {
    let editing = RwSignal::new(false);
    let errors = FieldErrors::new(update, "edit-realm", REALM_FIELDS);
    Effect::new(move |_| {
        if let Some(Ok(_)) = update.value().get() {
            editing.set(false);
        }
    });
    let r = StoredValue::new(realm);
    let new_name = RwSignal::new(r.with_value(|r| r.name.clone()));
    let display = RwSignal::new(r.with_value(|r| r.display_name.clone()));
    let ttl = RwSignal::new(r.with_value(|r| r.token_ttl_secs.to_string()));
    let idle = RwSignal::new(r.with_value(|r| r.refresh_idle_days.to_string()));
    let max = RwSignal::new(r.with_value(|r| r.refresh_max_days.to_string()));
    let confirm = RwSignal::new(false);
    let is_default = r.with_value(|r| r.name == "default");
    let save = move || {
        update.dispatch(UpdateRealm {
            name: r.with_value(|r| r.name.clone()),
            new_name: new_name.get_untracked().trim().to_owned(),
            display_name: display.get_untracked(),
            token_ttl_secs: ttl.get_untracked(),
            refresh_idle_days: idle.get_untracked(),
            refresh_max_days: max.get_untracked(),
        });
    };
    let title =
        Signal::derive(move || format!("Rename realm {}?", r.with_value(|r| r.name.clone())));
    view! {
        <EditableCard id="realm-settings" title="Settings" editable=use_abilities().manage_realms editing shown=ViewFn::from(move || {
            let r = r.get_value();
            view! {
                <dl class="mt-4 grid gap-4 text-sm sm:grid-cols-2" data-testid="realm-detail">
                    <div><dt class=MUTED>"Name"</dt><dd class="font-mono text-xs break-all">{r.name.clone()}</dd></div>
                    <div><dt class=MUTED>"Status"</dt><dd><Badge ok=r.enabled text=if r.enabled { "Enabled" } else { "Disabled" }/></dd></div>
                    <div><dt class=MUTED>"Display name"</dt><dd class="break-words">{r.display_name.clone()}</dd></div>
                    <div>
                        <dt class=MUTED>"Access-token lifetime"</dt>
                        <dd data-testid="realm-lifetime">{format!("{} s", r.token_ttl_secs)}</dd>
                        <dd class="text-xs text-slate-500 dark:text-slate-400">"For resources that set none of their own."</dd>
                    </div>
                    <div>
                        <dt class=MUTED>"Refresh tokens"</dt>
                        <dd data-testid="realm-refresh">{format!("Expire after {} unused, {} at most", days(r.refresh_idle_days), days(r.refresh_max_days))}</dd>
                        <dd class="text-xs text-slate-500 dark:text-slate-400">"For people signed in to apps; each use rotates the token."</dd>
                    </div>
                    <div class="sm:col-span-2"><dt class=MUTED>"Issuer"</dt><dd class="mt-1"><CopyValue value=r.issuer.clone() label="issuer"/></dd></div>
                </dl>
            }
        })>
            <form id="edit-realm" class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()
                on:submit=move |ev| {
                    ev.prevent_default();
                    if new_name.get_untracked().trim() == r.with_value(|r| r.name.clone()) {
                        save();
                    } else {
                        confirm.set(true);
                    }
                }>
                <div>
                    <label class=LABEL for="realm-new-name">"Name"</label>
                    <input class=format!("mt-1 {INPUT} font-mono") id="realm-new-name" name="new_name" required maxlength="63" readonly=is_default
                        pattern=NAME_PATTERN title="Letters, digits and '-', not at the start or end."
                        aria-invalid=errors.invalid("new_name")
                        aria-describedby=move || if errors.invalid("new_name")().is_some() { "edit-realm-new_name-error realm-new-name-help" } else { "realm-new-name-help" }
                        prop:value=move || new_name.get() on:input=move |ev| new_name.set(event_target_value(&ev))/>
                    <p id="realm-new-name-help" class=format!("mt-1 {MUTED}")>
                        {if is_default { "The default realm holds the console accounts and keeps its name." } else { "Part of the issuer URL: renaming changes the issuer." }}
                    </p>
                    <FieldError errors name="new_name"/>
                </div>
                <Field errors name="display_name" id="realm-display-name" label="Display name" required=true maxlength=100 bind=display/>
                <Field errors name="token_ttl_secs" id="realm-ttl" label="Access-token lifetime (s)" kind=Kind::Number required=true bind=ttl
                    help="30 to 3600 seconds. Resources with a lifetime of their own keep it; a shorter lifetime limits how long a leaked token works."/>
                <Field errors name="refresh_idle_days" id="realm-refresh-idle" label="Refresh token idle lifetime (days)" kind=Kind::Number required=true bind=idle
                    help="1 to 365. An app unused this long must sign the person in again."/>
                <Field errors name="refresh_max_days" id="realm-refresh-max" label="Refresh token absolute lifetime (days)" kind=Kind::Number required=true bind=max
                    help="1 to 365, at least the idle lifetime. No sign-in lasts longer, however often it is used."/>
                <div class="sm:col-span-2">{errors.form_error()}</div>
                <FormButtons pending=update.pending() editing/>
            </form>
        </EditableCard>
        <ConfirmDialog open=confirm title message="Renaming changes the realm's issuer. Tokens already issued carry the old one and fail at MCP servers that check iss; clients and resource servers must discover the new metadata."
            confirm_label="Rename realm" on_confirm=Callback::new(move |_| save())>
            <dl class="mt-4 space-y-2 text-sm" data-testid="issuer-change">
                <div><dt class=MUTED>"Old issuer"</dt><dd class="font-mono text-xs break-all">{move || r.with_value(|r| r.issuer.clone())}</dd></div>
                <div><dt class=MUTED>"New issuer"</dt><dd class="font-mono text-xs break-all">{move || r.with_value(|r| issuer_for(&r.issuer, new_name.get().trim()))}</dd></div>
            </dl>
        </ConfirmDialog>
    }
}

/// A realm's page: settings, status and history. `name` is the realm's; `settings` is true on
/// the current realm's Realm settings page (which stays put on a rename), false on the
/// installation's realm page (which moves to the new name).
#[component]
fn RealmDetail(name: Signal<String>, settings: bool) -> impl IntoView {
    let update = ServerAction::<UpdateRealm>::new();
    let enable = ServerAction::<SetRealmEnabled>::new();
    let registration = ServerAction::<crate::api::realms::SetRegistrationPolicy>::new();
    let (enabled, updated, registered) = (
        successes(enable),
        successes(update),
        successes(registration),
    );
    let realm = Resource::new(
        move || (name.get(), enabled.get(), updated.get(), registered.get()),
        |(n, ..)| get_realm(n),
    );
    let events = Resource::new(
        move || (name.get(), enabled.get(), updated.get(), registered.get()),
        |(n, ..)| history("realm".to_owned(), n),
    );
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(r)) = registration.value().get() {
            toasts.push(
                ToastKind::Success,
                format!("Client registration in {} saved.", r.name),
            );
        }
    });
    let navigate = leptos_router::hooks::use_navigate();
    let session = crate::components::layout::use_session();
    Effect::new(move |_| {
        if let Some(Ok(r)) = update.value().get() {
            toasts.push(ToastKind::Success, format!("Realm {} saved.", r.name));
            if !settings && r.name != name.get_untracked() {
                navigate(&format!("/realms/{}", r.name), Default::default());
            }
            // The header and the realm switcher show names and may show this realm.
            session.refetch();
        }
    });
    Effect::new(move |_| match enable.value().get() {
        Some(Ok(r)) => toasts.push(
            ToastKind::Success,
            format!(
                "Realm {} {}.",
                r.name,
                if r.enabled { "enabled" } else { "disabled" }
            ),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    let can = use_abilities();
    view! {
        {(!settings).then(|| view! { <a href="/realms" class="text-sm text-indigo-600 hover:underline dark:text-indigo-300">"← Realms"</a> })}
        <Transition fallback=|| view! { <Loading/> }>
            {move || realm.get().map(|result| match result {
                Ok(r) => {
                    let n = StoredValue::new(r.name.clone());
                    let is_default = r.name == "default";
                    view! {
                        <div class="mt-2 mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
                            <div class="min-w-0">
                                {settings.then(|| view! { <p class=MUTED>"Realm settings"</p> })}
                                <h1 class=format!("{H1} break-words")>{r.display_name.clone()}</h1>
                                <p class="font-mono text-sm break-all text-slate-500 dark:text-slate-400">{r.name.clone()}</p>
                            </div>
                            {(!is_default && can.manage_realms).then(|| if r.enabled {
                                view! {
                                    <ConfirmButton label="Disable" title=format!("Disable realm {}?", n.get_value())
                                        message=crate::components::layout::with_revocation_note("It stops issuing tokens until it is enabled again, and servers that introspect see the tokens it issued as inactive.")
                                        confirm_label="Disable realm" class=BTN_SMALL_DANGER
                                        on_confirm=Callback::new(move |_| { enable.dispatch(SetRealmEnabled { name: n.get_value(), enabled: false }); })/>
                                }.into_any()
                            } else {
                                view! { <button type="button" class=BTN_SMALL on:click=move |_| { enable.dispatch(SetRealmEnabled { name: n.get_value(), enabled: true }); }>"Enable"</button> }.into_any()
                            })}
                        </div>
                        <RealmSettings realm=r.clone() update/>
                        <RegistrationSettings realm=r.clone() action=registration/>
                        {can.view_audit.then(|| {
                            let link = crate::components::pager::with_query("/audit", &[("realm", n.get_value()), ("target", "realm:".to_owned())]);
                            view! { <History events link/> }
                        })}
                    }.into_any()
                }
                Err(crate::error::AppError::NotFound(_)) => view! { <div class="mt-4"><crate::components::layout::NotFound/></div> }.into_any(),
                Err(error) => view! { <div class="mt-4"><ErrorMessage error/></div> }.into_any(),
            })}
        </Transition>
    }
}

/// One realm of the installation, by the name in the address.
#[component]
pub fn RealmDetailPage() -> impl IntoView {
    let params = leptos_router::hooks::use_params_map();
    let name = Memo::new(move |_| params.with(|p| p.get("name").unwrap_or_default()));
    view! { <RealmDetail name=name.into() settings=false/> }
}

/// Realm settings: the page of the realm the console is working in (no name: the server
/// takes the selected one, so the page needs no session to start loading).
#[component]
pub fn RealmSettingsPage() -> impl IntoView {
    view! { <RealmDetail name=Signal::stored(String::new()) settings=true/> }
}

const POLICIES: [(&str, &str, &str); 4] = [
    (
        "review",
        "Review first",
        "Anyone may register; the client waits in Security review until a reviewer approves it. The MCP-safe default.",
    ),
    (
        "open",
        "Open",
        "Anyone may register and the client works at once. For development realms.",
    ),
    (
        "initial_access_token",
        "Initial access token",
        "Only whoever holds a token an admin issued (portcullis registration token) may register.",
    ),
    (
        "disabled",
        "Closed",
        "Nobody may register; admins register every client. The registration endpoint is not advertised.",
    ),
];

const DOCUMENT_POLICIES: [(&str, &str, &str); 4] = [
    (
        "review",
        "Review each new app",
        "An app whose client_id is the https URL of its metadata document (Claude, VS Code, ChatGPT) is fetched and waits in Security review the first time.",
    ),
    (
        "any",
        "Trust any https host",
        "Warning: any web host becomes a client of this realm the moment it publishes a document, with no one looking. Its users still consent, and it never gets machine access unless its host is trusted for that below.",
    ),
    (
        "allow_list",
        "Trust listed domains only",
        "Only documents under the trusted domains are accepted, at once; others are refused.",
    ),
    (
        "disabled",
        "Refuse",
        "client_ids that are URLs are refused; apps register instead.",
    ),
];

/// Who may register clients in the realm (RFC 7591), and the realm's limit.
#[component]
fn RegistrationSettings(
    realm: crate::types::realms::RealmView,
    action: ServerAction<crate::api::realms::SetRegistrationPolicy>,
) -> impl IntoView {
    let errors = crate::components::field::FieldErrors::new(
        action,
        "registration-settings",
        &[
            ("registration_policy", "registration_policy"),
            ("max_dynamic_clients", "max_dynamic_clients"),
            ("metadata_document_policy", "metadata_document_policy"),
            ("metadata_document_domains", "metadata_document_domains"),
            ("unused_client_days", "unused_client_days"),
            ("client_secret_days", "client_secret_days"),
            ("registrations_per_source", "registrations_per_source"),
            ("trusted_networks", "trusted_networks"),
            (
                "registrations_per_trusted_network",
                "registrations_per_trusted_network",
            ),
            (
                "metadata_document_machine_domains",
                "metadata_document_machine_domains",
            ),
        ],
    );
    let picked = RwSignal::new(realm.registration_policy.clone());
    let documents = RwSignal::new(realm.metadata_document_policy.clone());
    let can = use_abilities();
    view! {
        <section class=format!("{CARD} mt-6 p-4 sm:p-6") aria-labelledby="registration-title">
            <h2 id="registration-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Client registration"</h2>
            <p class=MUTED>"MCP clients such as VS Code and Claude Code register themselves (dynamic client registration) before they sign anyone in."</p>
            <ActionForm action attr:id="registration-settings" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                <input type="hidden" name="name" value=realm.name.clone()/>
                <div>
                    <label class=LABEL for="registration-policy">"Who may register"</label>
                    <select id="registration-policy" name="registration_policy" class=format!("mt-1 {INPUT}") disabled=!can.manage_realms
                        aria-describedby="registration-policy-help" on:change=move |ev| picked.set(event_target_value(&ev))>
                        {POLICIES.iter().map(|(v, l, _)| view! { <option value=*v selected=*v == realm.registration_policy>{*l}</option> }).collect_view()}
                    </select>
                    <p id="registration-policy-help" class=format!("mt-1 {MUTED}")>{move || POLICIES.iter().find(|(v, ..)| *v == picked.get()).map(|(.., h)| *h).unwrap_or_default()}</p>
                </div>
                <crate::components::field::Field errors name="max_dynamic_clients" id="max-dynamic-clients" label="Most self-registered clients"
                    kind=crate::components::field::Kind::Number value=realm.max_dynamic_clients.to_string() maxlength=7
                    help="Registration is refused beyond this; a flood cannot fill the realm."/>
                <div>
                    <label class=LABEL for="metadata-document-policy">"Apps identified by a URL"</label>
                    <select id="metadata-document-policy" name="metadata_document_policy" class=format!("mt-1 {INPUT}") disabled=!can.manage_realms
                        aria-describedby="metadata-document-help" on:change=move |ev| documents.set(event_target_value(&ev))>
                        {DOCUMENT_POLICIES.iter().map(|(v, l, _)| view! { <option value=*v selected=*v == realm.metadata_document_policy>{*l}</option> }).collect_view()}
                    </select>
                    // Trusting any host is the one choice that deserves a warning's colour.
                    <p id="metadata-document-help" class=move || if documents.get() == "any" {
                        "mt-1 text-sm font-medium text-amber-700 dark:text-amber-300"
                    } else {
                        "mt-1 text-sm text-slate-500 dark:text-slate-400"
                    }>{move || DOCUMENT_POLICIES.iter().find(|(v, ..)| *v == documents.get()).map(|(.., h)| *h).unwrap_or_default()}</p>
                </div>
                <crate::components::field::Field errors name="metadata_document_domains" id="metadata-document-domains" label="Trusted domains"
                    value=realm.metadata_document_domains.clone() maxlength=4000 placeholder="claude.ai vscode.dev"
                    help="Used when only listed domains are trusted; subdomains count."/>
                <crate::components::field::Field errors name="metadata_document_machine_domains" id="metadata-document-machine-domains" label="Hosts trusted for machine access"
                    value=realm.metadata_document_machine_domains.clone() maxlength=4000 placeholder="agents.example.com"
                    help="An app identified by a URL is interactive: it may ask for client_credentials only from these hosts (subdomains count), and then still waits in Security review before its first token. Empty: none."/>
                <crate::components::field::Field errors name="registrations_per_source" id="registrations-per-source" label="Registrations per address (per 15 minutes)"
                    kind=crate::components::field::Kind::Number value=realm.registrations_per_source.to_string() maxlength=6
                    help="Registrations and registration updates from one address (IPv6: one /64); beyond it, clients are told to retry later."/>
                <crate::components::field::Field errors name="trusted_networks" id="trusted-networks" label="Trusted networks"
                    value=realm.trusted_networks.clone() maxlength=4000 placeholder="203.0.113.0/24 2001:db8:42::/48"
                    help="Address ranges such as an office behind one NAT or a VPN: every address in a range shares that range's budget below instead of one each."/>
                <crate::components::field::Field errors name="registrations_per_trusted_network" id="registrations-per-trusted-network" label="Registrations per trusted network (per 15 minutes)"
                    kind=crate::components::field::Kind::Number value=realm.registrations_per_trusted_network.to_string() maxlength=6
                    help="One budget for each listed network, whichever of its addresses registers."/>
                <crate::components::field::Field errors name="unused_client_days" id="unused-client-days" label="Expire unused clients after (days)"
                    kind=crate::components::field::Kind::Number value=realm.unused_client_days.to_string() maxlength=4
                    help="A self-registered client that gets no token this long expires and must register again; 0 keeps them forever."/>
                <crate::components::field::Field errors name="client_secret_days" id="client-secret-days" label="Registered clients' secrets last (days)"
                    kind=crate::components::field::Kind::Number value=realm.client_secret_days.to_string() maxlength=4
                    help="Sent as client_secret_expires_at. Clients renew by updating their registration (RFC 7592); 0: secrets do not expire."/>
                <div class="sm:col-span-2">{errors.form_error()}</div>
                {can.manage_realms.then(|| view! {
                    <div class="sm:col-span-2"><button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Save registration settings"</button></div>
                })}
            </ActionForm>
        </section>
    }
}
