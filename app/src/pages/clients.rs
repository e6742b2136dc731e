//! OAuth clients: the list, creation (secret shown once) and each client's page (registration,
//! credentials, access, history; rotate, enable/disable, delete).
use crate::api::audit::history;
use crate::api::clients::{
    CreateClient, DeleteClient, RefreshClientKeys, RotateClientSecret, SetClientEnabled,
    SetClientTokenExchange, UpdateClient, get_client, list_clients,
};
use crate::api::review::DecideReview;
use crate::components::card::{EditableCard, FormButtons};
use crate::components::confirm::{ConfirmButton, ConfirmDialog};
use crate::components::copy::{CopyObjectLink, Truncated};
use crate::components::field::{Field, FieldError, FieldErrors, Kind};
use crate::components::history::History;
use crate::components::layout::{client_revoke_effect, use_abilities, use_revocation_note};
use crate::components::pager::{KeyPager, use_key_params, with_query};
use crate::components::scopes::ScopeInput;
use crate::components::secret::SecretPanel;
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::pages::access::ClientAccess;
use crate::types::audit::AuditPage;
use crate::types::clients::{
    ClientDetailView, ClientFormView, ClientView, IssuedSecret, RemoteKeysView,
};
use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

const METHODS: [(&str, &str); 4] = [
    ("client_secret_basic", "Confidential: client_secret_basic"),
    ("client_secret_post", "Confidential: client_secret_post"),
    ("private_key_jwt", "Confidential: private_key_jwt"),
    ("none", "Public: none"),
];

/// A client's status in words, and whether it gets tokens: the review decides before the
/// switch does (a pending or revoked client is not "Enabled").
pub(crate) fn client_status(enabled: bool, review: &str) -> (&'static str, bool) {
    let text = match (enabled, review) {
        (false, _) => "Disabled",
        (true, "approved") => "Enabled",
        (true, "pending") => "Waiting for review",
        (true, "expired") => "Expired unused",
        (true, "revoked") => "Revoked",
        _ => "Rejected",
    };
    (text, enabled && review == "approved")
}

#[component]
fn ClientRow(client: ClientView) -> impl IntoView {
    let (status, active) = client_status(client.enabled, &client.review);
    view! {
        <tr data-testid="client-row" class=CARDS_ROW>
            <td class=CARDS_CELL>
                <a class="font-medium text-indigo-700 break-words hover:underline dark:text-indigo-300" href=format!("/clients/{}", client.client_id)>{client.name.clone()}</a>
                <div class="text-slate-500 dark:text-slate-400"><Truncated value=client.client_id.clone() label=format!("{}'s client id", client.name)/></div>
            </td>
            <td class=format!("{CARDS_CELL_NEXT} sm:hidden md:table-cell")><CellLabel text="Authentication"/><span class="font-mono text-xs">{client.auth_method.clone()}</span></td>
            <td class=format!("{CARDS_CELL_NEXT} sm:hidden lg:table-cell")><CellLabel text="Registered scopes"/><span class="font-mono text-xs break-words">{if client.scope.is_empty() { "—".to_owned() } else { client.scope.clone() }}</span></td>
            <td class=CARDS_CELL_NEXT><Badge ok=active text=status/></td>
        </tr>
    }
}

/// The Clients screen.
#[component]
pub fn ClientsPage() -> impl IntoView {
    let query = use_query_map();
    let q = Memo::new(move |_| query.with(|m| m.get("q").unwrap_or_default()));
    let page = use_key_params();
    let create = ServerAction::<CreateClient>::new();
    let clients = Resource::new(
        move || (q.get(), page.get(), create.version().get()),
        |(q, (after, before), _)| list_clients(q, after, before),
    );
    let show_create = RwSignal::new(false);
    crate::components::field::focus_first_when(show_create, "new-client");
    let create_errors = FieldErrors::new(create, "new-client", CLIENT_FIELDS);
    let issued = RwSignal::new(None::<IssuedSecret>);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(s)) = create.value().get() {
            toasts.push(
                ToastKind::Success,
                format!("Client {} created.", s.client_id),
            );
            issued.set(Some(s));
            show_create.set(false);
        }
    });
    let can = use_abilities();
    view! {
        <PageHeader title="Clients" description="Applications and agents that request tokens from this realm.">
            {can.manage_clients.then(|| view! {
                <button type="button" class=BTN_PRIMARY on:click=move |_| show_create.set(true)>"New client"</button>
            })}
        </PageHeader>
        {move || issued.get().map(|s| {
            let next = (format!("/clients/{}", crate::components::pager::encode(&s.client_id)), "Secret stored? Next: give it access to a resource →");
            view! { <SecretPanel issued=s next on_close=Callback::new(move |_| issued.set(None))/> }
        })}
        <Show when=move || show_create.get()>
            <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-client-title">
                <h2 id="new-client-title" class="text-lg font-semibold text-slate-900 dark:text-white">"New client"</h2>
                <ActionForm action=create attr:id="new-client" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| create_errors.clear()>
                    <Field errors=create_errors name="client_id" id="client-id" label="client_id" maxlength=255 mono=true placeholder="generated when empty"/>
                    <div>
                        <label class=LABEL for="client-method">"Authentication"</label>
                        <select class=format!("mt-1 {INPUT}") id="client-method" name="auth_method" aria-invalid=create_errors.invalid("auth_method")>
                            {METHODS.iter().map(|(v, l)| view! { <option value=*v>{*l}</option> }).collect_view()}
                        </select>
                        <FieldError errors=create_errors name="auth_method"/>
                    </div>
                    <ClientFields id="new" v=ClientFormView::default() private_key_jwt=true errors=create_errors/>
                    <div class="sm:col-span-2">{create_errors.form_error()}</div>
                    <div class="flex gap-2 sm:col-span-2">
                        <button type="submit" class=BTN_PRIMARY disabled=move || create.pending().get()>"Create client"</button>
                        <button type="button" class=BTN_SECONDARY on:click=move |_| show_create.set(false)>"Cancel"</button>
                    </div>
                </ActionForm>
            </section>
        </Show>
        <div class=CARD>
            <Form method="GET" action="" attr:class="flex gap-2 border-b border-slate-200 p-4 dark:border-slate-700" attr:role="search">
                <label class="sr-only" for="client-search">"Search clients"</label>
                <input class=INPUT id="client-search" name="q" type="search" placeholder="Search by client_id or name" prop:value=move || q.get()/>
                <button type="submit" class=BTN_SECONDARY>"Search"</button>
            </Form>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || clients.get().map(|result| match result {
                    Ok(found) if found.items.is_empty() => view! {
                        <EmptyState title="No clients found" hint="Create a client, or try another search."/>
                    }.into_any(),
                    Ok(found) => {
                        let q = q.get();
                        let shown = found.items.len();
                        view! {
                            <table class=CARDS_TABLE>
                                <thead class=CARDS_HEAD>
                                    <tr>
                                        <th class=TH scope="col">"Client"</th>
                                        <th class=format!("{TH} hidden md:table-cell md:w-48") scope="col">"Authentication"</th>
                                        <th class=format!("{TH} hidden lg:table-cell lg:w-1/3") scope="col">"Registered scopes"</th>
                                        <th class=format!("{TH} sm:w-28") scope="col">"Status"</th>
                                    </tr>
                                </thead>
                                <tbody class=CARDS_BODY>
                                    {found.items.into_iter().map(|client| view! { <ClientRow client/> }).collect_view()}
                                </tbody>
                            </table>
                            <KeyPager total=found.total before=found.before shown prev=found.prev next=found.next
                                href=move |key| with_query("/clients", &[("q", q.clone())].into_iter().chain(key).collect::<Vec<_>>())/>
                        }.into_any()
                    }
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </div>
    }
}

/// The inputs of the client forms, and the server's (RFC 7591) name for each.
const CLIENT_FIELDS: &[(&str, &str)] = &[
    ("client_id", "client_id"),
    ("auth_method", "token_endpoint_auth_method"),
    ("name", "client_name"),
    ("scope", "scope"),
    ("jwks", "jwks"),
    ("jwks_uri", "jwks_uri"),
    ("contacts", "contacts"),
    ("redirect_uris", "redirect_uris"),
    ("client_uri", "client_uri"),
    ("logo_uri", "logo_uri"),
    ("software_id", "software_id"),
    ("software_version", "software_version"),
];

/// The registration fields shared by the create and edit forms (`id` keeps their ids apart).
#[component]
fn ClientFields(
    id: &'static str,
    v: ClientFormView,
    private_key_jwt: bool,
    errors: FieldErrors,
) -> impl IntoView {
    let f = move |name: &str| format!("client-{id}-{name}");
    // Metadata fields are folded away unless one of them is set or at fault.
    let more_open = [
        &v.redirect_uris,
        &v.client_uri,
        &v.logo_uri,
        &v.software_id,
        &v.software_version,
    ]
    .iter()
    .any(|s| !s.is_empty());
    let more_at_fault = move || {
        [
            "redirect_uris",
            "client_uri",
            "logo_uri",
            "software_id",
            "software_version",
        ]
        .iter()
        .any(|n| errors.message(n).is_some())
    };
    // Opened when one of its fields is at fault, and left open while it is fixed.
    let more = NodeRef::<leptos::html::Details>::new();
    Effect::new(move |_| {
        if more_at_fault()
            && let Some(d) = more.get()
        {
            d.set_open(true);
        }
    });
    view! {
        <Field errors name="name" id=f("name") label="Name" value=v.name required=true maxlength=100 placeholder="Reports bot" class="sm:col-span-2"/>
        <ScopeInput errors name="scope" id=f("scope") label="Registered scopes" value=v.scope class="sm:col-span-2"
            help="What the client says it needs (RFC 7591), space-separated. It gets tokens only for the resources you grant it on its page."/>
        {private_key_jwt.then(|| view! {
            <Field errors name="jwks" id=f("jwks") label="Public keys (JWKS, private_key_jwt only)" value=v.jwks.clone() kind=Kind::Lines(3) mono=true
                placeholder="{\"keys\": [{\"kty\": \"EC\", …}]}" class="sm:col-span-2"/>
            <Field errors name="jwks_uri" id=f("jwks-uri") label="…or a JWKS URL" value=v.jwks_uri.clone() kind=Kind::Url maxlength=2048 mono=true
                placeholder="https://agent.example.com/.well-known/jwks.json" class="sm:col-span-2"
                help="Fetched over HTTPS from public addresses only, cached, and refetched when the client signs with a new key."/>
        })}
        <Field errors name="contacts" id=f("contacts") label="Contacts" value=v.contacts placeholder="owner@example.com" class="sm:col-span-2"
            help="Email addresses, separated by commas (at most 20)."/>
        <div class="sm:col-span-2">
            <label class="flex items-start gap-2 text-sm">
                <input type="checkbox" id=f("token-exchange") name="token_exchange" value="on" checked=v.token_exchange class="mt-1"
                    aria-invalid=errors.invalid("grant_types") aria-describedby=move || errors.message("grant_types").map(|_| errors.id("grant_types"))/>
                <span>"May exchange tokens (RFC 8693)"
                    <span class=format!("block {MUTED}")>"For an MCP server or gateway calling another server for the person or agent whose token it holds: it trades that token for a five-minute token at the other server. Confidential clients only."</span>
                </span>
            </label>
            <label class="mt-2 flex items-start gap-2 text-sm">
                <input type="checkbox" id=f("device-code") name="device_code" value="on" checked=v.device_code class="mt-1"
                    aria-invalid=errors.invalid("grant_types") aria-describedby=move || errors.message("grant_types").map(|_| errors.id("grant_types"))/>
                <span>"May sign people in on devices without a browser (RFC 8628)"
                    <span class=format!("block {MUTED}")>"For command-line tools and headless machines: the device shows a short code, the person enters it on this realm's device page and approves."</span>
                </span>
            </label>
            <FieldError errors name="grant_types"/>
        </div>
        <details class="sm:col-span-2" open=more_open node_ref=more>
            <summary class="cursor-pointer text-sm font-medium text-slate-700 dark:text-slate-300">"More registration metadata (RFC 7591)"</summary>
            <div class="mt-3 grid gap-4 sm:grid-cols-2">
                <Field errors name="redirect_uris" id=f("redirect-uris") label="Redirect URIs" value=v.redirect_uris kind=Kind::Lines(2) mono=true
                    placeholder="https://app.example.com/callback" class="sm:col-span-2"
                    help="One per line, matched exactly: https, http on a loopback host, or a private-use scheme (com.example.app:/callback). For the authorization code flow."/>
                <Field errors name="client_uri" id=f("uri") label="Client URI" value=v.client_uri kind=Kind::Url maxlength=2048 placeholder="https://agent.example.com"/>
                <Field errors name="logo_uri" id=f("logo") label="Logo URI" value=v.logo_uri kind=Kind::Url maxlength=2048 placeholder="https://agent.example.com/logo.png"/>
                <Field errors name="software_id" id=f("software-id") label="Software id" value=v.software_id maxlength=255 placeholder="4NRB1-0XZABZI9E6-5SM3R"/>
                <Field errors name="software_version" id=f("software-version") label="Software version" value=v.software_version maxlength=255 placeholder="2.1.0"/>
            </div>
        </details>
    }
}

/// The keys this instance has fetched from a client's `jwks_uri`, with a button to fetch now.
#[component]
fn RemoteKeys(client_id: String, initial: Option<RemoteKeysView>) -> impl IntoView {
    let refresh = ServerAction::<RefreshClientKeys>::new();
    let initial = StoredValue::new(initial);
    let current = move || match refresh.value().get() {
        Some(Ok(fresh)) => fresh,
        _ => initial.get_value(),
    };
    view! {
        <div class="mt-4 rounded-md border border-slate-200 p-3 text-sm dark:border-slate-700" data-testid="remote-keys">
            {move || match current() {
                Some(k) if !k.fetched_at.is_empty() => view! {
                    <p>"Keys in use: " <span class="font-mono text-xs">{k.kids.join(", ")}</span></p>
                    <p class=MUTED>"Fetched " {k.fetched_at.clone()} ", fresh until " {k.fresh_until.clone()}</p>
                }.into_any(),
                _ => view! { <p class=MUTED>"Not fetched yet by this server: it fetches them at the client's first token request."</p> }.into_any(),
            }}
            {move || current().filter(|k| !k.last_error.is_empty()).map(|k| view! {
                <p role="alert" class="mt-1 text-red-700 dark:text-red-300">"Last fetch failed: " {k.last_error}</p>
            })}
            {use_abilities().manage_clients.then(|| view! {
                <ActionForm action=refresh attr:class="mt-2">
                    <input type="hidden" name="client_id" value=client_id/>
                    <button type="submit" class=BTN_SMALL disabled=move || refresh.pending().get()>"Fetch keys now"</button>
                </ActionForm>
            })}
            {action_error(refresh)}
        </div>
    }
}

/// The client's registration: shown, or edited in place.
#[component]
fn ClientRegistration(d: ClientDetailView, update: ServerAction<UpdateClient>) -> impl IntoView {
    let editing = RwSignal::new(false);
    let errors = FieldErrors::new(update, "edit-client", CLIENT_FIELDS);
    Effect::new(move |_| {
        if let Some(Ok(_)) = update.value().get() {
            editing.set(false);
        }
    });
    let d = StoredValue::new(d);
    let private_key_jwt = d.with_value(|d| d.client.auth_method == "private_key_jwt");
    let editable = d.with_value(|d| !d.client.resource_server && !d.client.first_party)
        && use_abilities().manage_clients;
    view! {
        <EditableCard id="client-facts" title="Registration" editable=editable editing shown=ViewFn::from(move || {
                let d = d.get_value();
                let c = d.client;
                view! {
                    <dl class="mt-4 grid gap-4 text-sm sm:grid-cols-2" data-testid="client-detail">
                        <div><dt class=MUTED>"Status"</dt><dd>{
                            let (text, active) = client_status(c.enabled, &c.review);
                            view! { <Badge ok=active text=text/> }
                        }</dd></div>
                        <div><dt class=MUTED>"Registered"</dt><dd data-testid="client-review">
                            {match c.registration.as_str() { "dynamic" => "By itself (dynamic registration)", "metadata_document" => "By its metadata document", _ => "By an administrator" }}
                            " · "
                            <Pill tone=match c.review.as_str() { "approved" => Tone::Good, "pending" => Tone::Warn, _ => Tone::Bad } text=c.review.clone()/>
                            {(c.review == "pending").then(|| view! { " " <a class="ml-2 text-indigo-700 hover:underline dark:text-indigo-300" href=crate::components::pager::with_query("/review", &[("q", c.client_id.clone())])>"Review it"</a> })}
                            {c.decision.clone().map(|(by, why)| view! { <p class=MUTED>{by} ": " {why}</p> })}
                        </dd></div>
                        <div><dt class=MUTED>"Authentication"</dt><dd class="font-mono text-xs">{c.auth_method.clone()}</dd></div>
                        <div><dt class=MUTED>"Grant types"</dt><dd class="font-mono text-xs">{if c.grant_types.is_empty() { "none yet".to_owned() } else { c.grant_types.clone() }}</dd></div>
                        {c.first_party.then(|| view! {
                            <div class="sm:col-span-2" data-testid="client-first-party"><dt class=MUTED>"Comes with the realm"</dt><dd>
                                "The Portcullis CLI on people's laptops: "<code class="font-mono text-xs">"portcullis-cli login"</code>" signs them in here, and "<code class="font-mono text-xs">"portcullis-cli token"</code>" trades that sign-in for five-minute tokens at the realm's MCP servers. It cannot be edited or deleted; disable it to stop every sign-in through it."
                            </dd></div>
                        })}
                        {(!d.resource.is_empty()).then(|| view! {
                            <div class="sm:col-span-2"><dt class=MUTED>"Introspection credentials of"</dt><dd>
                                <a class="break-all text-indigo-700 hover:underline dark:text-indigo-300" href=format!("/resources/{}", d.resource)>{d.resource.clone()}</a>
                                <span class=MUTED>" (its MCP server checks tokens with them; they get tokens only by exchange, when allowed to call onward)"</span>
                            </dd></div>
                        })}
                        <div><dt class=MUTED>"Acts for agent"</dt><dd class="break-all">{if d.agent.is_empty() { view! { "—" }.into_any() } else { view! { <a class="text-indigo-700 hover:underline dark:text-indigo-300" href=format!("/agents/{}", d.agent)>{d.agent.clone()}</a> }.into_any() }}</dd></div>
                        <div class="sm:col-span-2"><dt class=MUTED>"Registered scopes"</dt><dd class="font-mono text-xs break-all">{if c.scope.is_empty() { "—".to_owned() } else { c.scope.clone() }}</dd></div>
                        <div class="sm:col-span-2"><dt class=MUTED>"Contacts"</dt><dd class="break-all">{if c.contacts.is_empty() { "—".to_owned() } else { c.contacts.clone() }}</dd></div>
                        {d.metadata.iter().map(|(k, v)| view! {
                            <div class="sm:col-span-2"><dt class="font-mono text-xs text-slate-500 dark:text-slate-400">{k.clone()}</dt><dd class="break-all">{v.clone()}</dd></div>
                        }).collect_view()}
                        <div><dt class=MUTED>"Created"</dt><dd><When at=c.created.at.clone() words=c.created.ago.clone()/></dd></div>
                    </dl>
                }
            })>
                <ActionForm action=update attr:id="edit-client" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                    <input type="hidden" name="client_id" value=d.with_value(|d| d.client.client_id.clone())/>
                    <ClientFields id="edit" v=d.with_value(|d| d.form.clone()) private_key_jwt errors/>
                    <div class="sm:col-span-2">{errors.form_error()}</div>
                    <FormButtons pending=update.pending() editing/>
                </ActionForm>
        </EditableCard>
    }
}

/// How the client proves who it is: its secrets' dates, its public keys or their URL.
#[component]
fn ClientCredentials(d: ClientDetailView) -> impl IntoView {
    let c = d.client.clone();
    view! {
        <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby="client-credentials">
            <h2 id="client-credentials" class="text-lg font-semibold text-slate-900 dark:text-white">"Credentials"</h2>
            {if !d.jwks_uri.is_empty() {
                view! {
                    <p class=format!("mt-1 {MUTED}")>"Its client assertions are checked against the public keys published at:"</p>
                    <p class="mt-3 break-all font-mono text-xs" data-testid="client-jwks-uri">{d.jwks_uri.clone()}</p>
                    <p class=format!("mt-3 {MUTED}")>"Fetched over HTTPS, cached for the document's max-age (5 minutes to a day, 1 hour by default), and refetched at most once a minute when an assertion names an unknown key."</p>
                    <RemoteKeys client_id=c.client_id.clone() initial=d.remote_keys.clone()/>
                }.into_any()
            } else if !d.jwks.is_empty() {
                view! {
                    <p class=format!("mt-1 {MUTED}")>"Public keys that sign its client assertions:"</p>
                    <pre tabindex="0" aria-label="Public keys (JWKS)" class="mt-3 overflow-x-auto rounded-md bg-slate-50 p-3 font-mono text-xs dark:bg-slate-900">{d.jwks.clone()}</pre>
                }.into_any()
            } else if d.secrets.is_empty() {
                view! { <p class=format!("mt-1 {MUTED}")>"A public client: it has no secret and proves itself with PKCE."</p> }.into_any()
            } else {
                view! {
                    <p class=format!("mt-1 {MUTED}")>"Secrets are stored as hashes; only their dates are shown."</p>
                    <ul class="mt-4 divide-y divide-slate-200 text-sm dark:divide-slate-700">
                        {d.secrets.iter().map(|(created, expires, live)| view! {
                            <li class="flex flex-wrap items-center justify-between gap-2 py-2" data-testid="secret-row">
                                <span>"Issued " {created.clone()}</span>
                                <span class="flex items-center gap-2">
                                    {(!expires.is_empty()).then(|| view! { <span class=MUTED>"until " {expires.clone()}</span> })}
                                    <Badge ok=*live text=if *live { "Live" } else { "Expired" }/>
                                </span>
                            </li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
    }
}

/// The page's actions: rotate the secret (confidential clients), enable or disable, delete.
#[component]
fn ClientActions(
    client: ClientView,
    enable: ServerAction<SetClientEnabled>,
    exchange: ServerAction<SetClientTokenExchange>,
    rotate: ServerAction<RotateClientSecret>,
    delete: ServerAction<DeleteClient>,
) -> impl IntoView {
    let id = StoredValue::new(client.client_id.clone());
    let name = client.name.clone();
    // Introspection credentials have no registration form: their one switch is here.
    let onward = client.resource_server.then(|| {
        client
            .grant_types
            .contains("urn:ietf:params:oauth:grant-type:token-exchange")
    });
    let has_secret = client.auth_method.starts_with("client_secret");
    let introspection = client.resource_server;
    let disable_note = if introspection {
        "Its MCP server can no longer check tokens at the introspection endpoint (it is refused with invalid_client), so a server that introspects refuses every caller until it is enabled again."
    } else {
        "It gets no new tokens, and servers that introspect see its existing tokens as inactive until it is enabled again."
    };
    view! {
        <div class="flex flex-wrap gap-2">
            {has_secret.then(|| view! {
                <ConfirmButton
                    label="Rotate secret"
                    title=format!("Rotate the secret of {name}?")
                    message="A new secret is issued and shown once. The current one keeps working for 24 hours so deployments can switch over."
                    confirm_label="Rotate"
                    class=BTN_SMALL
                    on_confirm=Callback::new(move |_| { rotate.dispatch(RotateClientSecret { client_id: id.get_value(), overlap_secs: 86_400 }); })
                />
                <ConfirmButton
                    label="Rotate, ending old secrets now"
                    title=format!("End every secret of {name} now?")
                    message="A new secret is issued and shown once, and every current secret stops working at once: use it when a secret leaked. Whatever still uses an old secret fails until it has the new one."
                    confirm_label="Rotate and end old secrets"
                    class=BTN_SMALL_DANGER
                    on_confirm=Callback::new(move |_| { rotate.dispatch(RotateClientSecret { client_id: id.get_value(), overlap_secs: 0 }); })
                />
            })}
            {onward.map(|on| if on {
                view! {
                    <ConfirmButton
                        label="Stop calling onward"
                        title=format!("Stop {name} from exchanging tokens?")
                        message="Its MCP server can no longer trade the tokens it receives for tokens to the servers it calls for the same person (token exchange). Tokens it already got expire within five minutes."
                        confirm_label="Stop token exchange"
                        class=BTN_SMALL_DANGER
                        on_confirm=Callback::new(move |_| { exchange.dispatch(SetClientTokenExchange { client_id: id.get_value(), enabled: false }); })
                    />
                }.into_any()
            } else {
                view! {
                    <ConfirmButton
                        label="Allow calling onward"
                        title=format!("Let {name} exchange tokens?")
                        message="Its MCP server may trade a token it receives for a token to another server of this realm (token exchange, RFC 8693), for the same person and never more than they could get themselves; it is recorded as the actor in the new token."
                        confirm_label="Allow token exchange"
                        class=BTN_SMALL
                        on_confirm=Callback::new(move |_| { exchange.dispatch(SetClientTokenExchange { client_id: id.get_value(), enabled: true }); })
                    />
                }.into_any()
            })}
            {if client.enabled {
                view! {
                    <ConfirmButton
                        label="Disable"
                        title=format!("Disable {name}?")
                        message=crate::components::layout::with_revocation_note(disable_note)
                        confirm_label="Disable client"
                        class=BTN_SMALL_DANGER
                        on_confirm=Callback::new(move |_| { enable.dispatch(SetClientEnabled { client_id: id.get_value(), enabled: false }); })
                    />
                }.into_any()
            } else {
                view! {
                    <button type="button" class=BTN_SMALL disabled=move || enable.pending().get() on:click=move |_| {
                        enable.dispatch(SetClientEnabled { client_id: id.get_value(), enabled: true });
                    }>"Enable"</button>
                }.into_any()
            }}
            {(!client.first_party).then(|| view! { <ConfirmButton
                label="Delete"
                title=format!("Delete {name}?")
                message=crate::components::layout::with_revocation_note("The client, its secrets and its grants are removed, and servers that introspect see its tokens as inactive. This cannot be undone.")
                confirm_label="Delete client"
                class=BTN_SMALL_DANGER
                on_confirm=Callback::new(move |_| { delete.dispatch(DeleteClient { client_id: id.get_value() }); })
            /> })}
        </div>
    }
}

/// Revoke an approved client or restore a revoked one, with a reason kept in its history. A
/// reviewer revokes clients that registered themselves; an administrator any client, and only
/// an administrator restores.
#[component]
fn ClientDecision(client: ClientView, decide: ServerAction<DecideReview>) -> impl IntoView {
    let can = use_abilities();
    let self_registered = client.registration != "admin" && !client.resource_server;
    let decision = match client.review.as_str() {
        "approved" if can.manage_clients || (can.review_clients && self_registered) => "revoke",
        "revoked" if can.manage_clients => "restore",
        _ => return None,
    };
    let revoke = decision == "revoke";
    let (label, message) = if revoke {
        ("Revoke", client_revoke_effect(&use_revocation_note()))
    } else {
        ("Restore", crate::pages::review::RESTORE_EFFECT.to_owned())
    };
    let open = RwSignal::new(false);
    let reason = RwSignal::new(String::new());
    let seen = StoredValue::new((client.client_id.clone(), client.version));
    Some(view! {
        <button type="button" class=if revoke { BTN_SMALL_DANGER } else { BTN_SMALL } aria-haspopup="dialog"
            data-testid="client-decision" on:click=move |_| open.set(true)>{format!("{label} client")}</button>
        <ConfirmDialog open title=format!("{label} {}?", client.name) message=format!("{message} The reason is kept in its history.")
            confirm_label=label danger=revoke
            confirm_disabled=Signal::derive(move || reason.get().trim().is_empty())
            on_confirm=Callback::new(move |_| {
                let (client_id, version) = seen.get_value();
                decide.dispatch(DecideReview {
                    // The selected realm's client.
                    realms: vec![String::new()],
                    client_ids: vec![client_id],
                    versions: vec![version],
                    decision: decision.to_owned(),
                    reason: reason.get_untracked(),
                    access: vec![],
                });
            })>
            <label class=format!("mt-4 {LABEL}") for="client-decision-reason">"Reason (required)"</label>
            <textarea id="client-decision-reason" class=format!("mt-1 {INPUT}") rows="3" maxlength="500" required
                prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev))></textarea>
        </ConfirmDialog>
    })
}

/// One client: its registration, credentials, access and history.
#[component]
pub fn ClientDetailPage() -> impl IntoView {
    let params = leptos_router::hooks::use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let can = use_abilities();
    let update = ServerAction::<UpdateClient>::new();
    let enable = ServerAction::<SetClientEnabled>::new();
    let exchange = ServerAction::<SetClientTokenExchange>::new();
    let rotate = ServerAction::<RotateClientSecret>::new();
    let delete = ServerAction::<DeleteClient>::new();
    let decide = ServerAction::<DecideReview>::new();
    let (updated, enabled, rotated) = (successes(update), successes(enable), successes(rotate));
    let decided = successes(decide);
    let exchanged = successes(exchange);
    let detail = Resource::new(
        move || {
            (
                id.get(),
                updated.get(),
                enabled.get(),
                rotated.get(),
                decided.get(),
                exchanged.get(),
            )
        },
        |(id, ..)| get_client(id),
    );
    let reload = RwSignal::new(0u32);
    let access = Resource::new(
        move || (id.get(), reload.get()),
        |(id, _)| crate::api::access::client_access(id, String::new()),
    );
    let events = Resource::new(
        move || {
            (
                id.get(),
                reload.get(),
                updated.get(),
                enabled.get(),
                rotated.get(),
                decided.get(),
                exchanged.get(),
            )
        },
        move |(id, ..)| async move {
            if can.view_audit {
                history("client".to_owned(), id).await
            } else {
                Ok(AuditPage::default())
            }
        },
    );
    let issued = RwSignal::new(None::<IssuedSecret>);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(c)) = update.value().get() {
            toasts.push(ToastKind::Success, format!("{} saved.", c.name));
        }
    });
    Effect::new(move |_| match rotate.value().get() {
        Some(Ok(s)) => issued.set(Some(s)),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match enable.value().get() {
        Some(Ok(c)) => toasts.push(
            ToastKind::Success,
            format!(
                "Client {} {}.",
                c.client_id,
                if c.enabled { "enabled" } else { "disabled" }
            ),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match exchange.value().get() {
        Some(Ok(c)) => toasts.push(
            ToastKind::Success,
            format!(
                "{} {} exchange tokens.",
                c.name,
                if c.grant_types.contains("token-exchange") {
                    "may now"
                } else {
                    "may no longer"
                }
            ),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match decide.value().get() {
        Some(Ok(r)) if r.failed.is_empty() => toasts.push(ToastKind::Success, "Decision recorded."),
        Some(Ok(r)) => toasts.push(
            ToastKind::Error,
            r.failed
                .into_iter()
                .map(|(_, why)| why)
                .collect::<Vec<_>>()
                .join("; "),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    leave_after(delete, "Client deleted.", "/clients");
    view! {
        <div class="flex flex-wrap items-center justify-between gap-2">
            <a href="/clients" class="text-sm text-indigo-600 hover:underline dark:text-indigo-300">"← Clients"</a>
            {move || view! { <CopyObjectLink kind="clients" id=id.get() what="this client"/> }}
        </div>
        <Transition fallback=|| view! { <Loading/> }>
            {move || detail.get().map(|result| match result {
                Ok(d) => {
                    let c = d.client.clone();
                    view! {
                        <div class="mt-2 mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
                            <div class="min-w-0">
                                <h1 class=format!("{H1} break-words")>{c.name.clone()}</h1>
                                <p class="font-mono text-sm break-all text-slate-500 dark:text-slate-400">{c.client_id.clone()}</p>
                            </div>
                            <div class="flex flex-wrap gap-2">
                                <ClientDecision client=c.clone() decide/>
                                {can.manage_clients.then(|| view! { <ClientActions client=c.clone() enable exchange rotate delete/> })}
                            </div>
                        </div>
                        {move || issued.get().map(|s| view! { <SecretPanel issued=s on_close=Callback::new(move |_| issued.set(None))/> })}
                        <div class="grid gap-6 lg:grid-cols-2">
                            <ClientRegistration d=d.clone() update/>
                            <ClientCredentials d=d.clone()/>
                        </div>
                        {(!c.resource_server).then(|| view! { <ClientAccess client_id=c.client_id.clone() access reload/> })}
                        {can.view_audit.then(|| view! { <History events/> })}
                    }.into_any()
                }
                Err(crate::error::AppError::NotFound(_)) => view! { <div class="mt-4"><crate::components::layout::NotFound/></div> }.into_any(),
                Err(error) => view! { <div class="mt-4"><ErrorMessage error/></div> }.into_any(),
            })}
        </Transition>
    }
}
