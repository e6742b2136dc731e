//! OAuth clients: create (secret shown once), rotate secrets, enable/disable, delete.
use crate::api::clients::{
    CreateClient, DeleteClient, RefreshClientKeys, RotateClientSecret, SetClientEnabled,
    list_clients,
};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyValue;
use crate::components::pager::{Pager, with_query};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::pages::access::ClientAccess;
use crate::types::{ClientView, IssuedSecret, RemoteKeysView};
use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

const METHODS: [(&str, &str); 4] = [
    ("client_secret_basic", "Confidential: client_secret_basic"),
    ("client_secret_post", "Confidential: client_secret_post"),
    ("private_key_jwt", "Confidential: private_key_jwt"),
    ("none", "Public: none"),
];

#[component]
fn SecretPanel(issued: IssuedSecret, on_close: Callback<()>) -> impl IntoView {
    view! {
        <div role="status" data-testid="issued-secret" class="mb-6 rounded-lg border border-indigo-200 bg-indigo-50 p-4 dark:border-indigo-900 dark:bg-indigo-950">
            <p class="text-sm font-medium text-indigo-900 dark:text-indigo-100">"Client " <code class="font-mono">{issued.client_id.clone()}</code></p>
            {if issued.secret.is_empty() {
                view! { <p class="mt-1 text-sm text-indigo-800 dark:text-indigo-200">"This client has no secret: it is public, or authenticates with its private key."</p> }.into_any()
            } else {
                view! {
                    <p class="mt-1 text-sm text-indigo-800 dark:text-indigo-200">"Its secret is shown only now. Store it in your secret manager; Portcullis keeps only a hash."</p>
                    <div class="mt-3"><CopyValue value=issued.secret.clone() label="client secret"/></div>
                }.into_any()
            }}
            <button type="button" class=format!("mt-3 {BTN_SMALL}") on:click=move |_| on_close.run(())>"Done"</button>
        </div>
    }
}

#[component]
fn ClientRow(
    client: ClientView,
    refresh: Callback<()>,
    issued: RwSignal<Option<IssuedSecret>>,
) -> impl IntoView {
    let toasts = use_toasts();
    let rotate = ServerAction::<RotateClientSecret>::new();
    let enable = ServerAction::<SetClientEnabled>::new();
    let delete = ServerAction::<DeleteClient>::new();
    Effect::new(move |_| match rotate.value().get() {
        Some(Ok(s)) => issued.set(Some(s)),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match enable.value().get() {
        Some(Ok(c)) => {
            toasts.push(
                ToastKind::Success,
                format!(
                    "Client {} {}.",
                    c.client_id,
                    if c.enabled { "enabled" } else { "disabled" }
                ),
            );
            refresh.run(());
        }
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match delete.value().get() {
        Some(Ok(())) => {
            toasts.push(ToastKind::Success, "Client deleted.");
            refresh.run(());
        }
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    let id = StoredValue::new(client.client_id.clone());
    let confidential = client.auth_method.starts_with("client_secret");
    let enabled = client.enabled;
    view! {
        <tr data-testid="client-row">
            <td class=TD>
                <a class="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href=format!("/clients/{}", client.client_id)>{client.name.clone()}</a>
                <div class="font-mono text-xs text-slate-500 dark:text-slate-400">{client.client_id.clone()}</div>
            </td>
            <td class=format!("{TD} hidden md:table-cell")><span class="font-mono text-xs">{client.auth_method.clone()}</span></td>
            <td class=format!("{TD} hidden md:table-cell")><span class="font-mono text-xs">{client.scope.clone()}</span></td>
            <td class=TD><Badge ok=enabled text=if enabled { "Enabled" } else { "Disabled" }/></td>
            <td class=format!("{TD} text-right")>
                <div class="flex flex-wrap justify-end gap-2">
                    {confidential.then(|| view! {
                        <ConfirmButton
                            label="Rotate secret"
                            title="Rotate the client secret?"
                            message="A new secret is issued. The current one keeps working for 24 hours so deployments can switch over."
                            confirm_label="Rotate"
                            class=BTN_SMALL
                            on_confirm=Callback::new(move |_| { rotate.dispatch(RotateClientSecret { client_id: id.get_value(), overlap_secs: 86_400 }); })
                        />
                    })}
                    {if enabled {
                        view! {
                            <ConfirmButton
                                label="Disable"
                                title="Disable this client?"
                                message="It gets no new tokens, and its existing tokens stop introspecting as active."
                                confirm_label="Disable client"
                                class=BTN_SMALL_DANGER
                                on_confirm=Callback::new(move |_| { enable.dispatch(SetClientEnabled { client_id: id.get_value(), enabled: false }); })
                            />
                        }.into_any()
                    } else {
                        view! {
                            <button type="button" class=BTN_SMALL on:click=move |_| {
                                enable.dispatch(SetClientEnabled { client_id: id.get_value(), enabled: true });
                            }>"Enable"</button>
                        }.into_any()
                    }}
                    <ConfirmButton
                        label="Delete"
                        title="Delete this client?"
                        message="The client and its secrets are removed; its tokens stop introspecting as active. This cannot be undone."
                        confirm_label="Delete client"
                        class=BTN_SMALL_DANGER
                        on_confirm=Callback::new(move |_| { delete.dispatch(DeleteClient { client_id: id.get_value() }); })
                    />
                </div>
            </td>
        </tr>
    }
}

/// The Clients screen.
#[component]
pub fn ClientsPage() -> impl IntoView {
    let query = use_query_map();
    let q = Memo::new(move |_| query.with(|m| m.get("q").unwrap_or_default()));
    let page = Memo::new(move |_| {
        query.with(|m| {
            m.get("page")
                .and_then(|p| p.parse::<u32>().ok())
                .unwrap_or(0)
        })
    });
    let reload = RwSignal::new(0u32);
    let create = ServerAction::<CreateClient>::new();
    let clients = Resource::new(
        move || (q.get(), page.get(), reload.get(), create.version().get()),
        |(q, page, _, _)| list_clients(q, page),
    );
    let show_create = RwSignal::new(false);
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
    let refresh = Callback::new(move |_| reload.update(|n| *n += 1));
    view! {
        <PageHeader title="Clients" description="Applications and agents that request tokens from this realm.">
            <button type="button" class=BTN_PRIMARY on:click=move |_| show_create.set(true)>"New client"</button>
        </PageHeader>
        {move || issued.get().map(|s| view! { <SecretPanel issued=s on_close=Callback::new(move |_| issued.set(None))/> })}
        <Show when=move || show_create.get()>
            <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-client-title">
                <h2 id="new-client-title" class="text-lg font-semibold text-slate-900 dark:text-white">"New client"</h2>
                <ActionForm action=create attr:class="mt-4 grid gap-4 sm:grid-cols-2">
                    <div>
                        <label class=LABEL for="client-name">"Name"</label>
                        <input class=format!("mt-1 {INPUT}") id="client-name" name="name" required placeholder="Reports bot"/>
                    </div>
                    <div>
                        <label class=LABEL for="client-id">"client_id"</label>
                        <input class=format!("mt-1 {INPUT}") id="client-id" name="client_id" placeholder="generated when empty"/>
                    </div>
                    <div>
                        <label class=LABEL for="client-method">"Authentication"</label>
                        <select class=format!("mt-1 {INPUT}") id="client-method" name="auth_method">
                            {METHODS.iter().map(|(v, l)| view! { <option value=*v>{*l}</option> }).collect_view()}
                        </select>
                    </div>
                    <div>
                        <label class=LABEL for="client-scope">"Registered scopes"</label>
                        <input class=format!("mt-1 {INPUT}") id="client-scope" name="scope" placeholder="tools:call"/>
                        <p class=format!("mt-1 {MUTED}")>"What the client says it needs (RFC 7591). It gets tokens only for the resources you grant it on its page."</p>
                    </div>
                    <div class="sm:col-span-2">
                        <label class=LABEL for="client-jwks">"Public keys (JWKS, private_key_jwt only)"</label>
                        <textarea class=format!("mt-1 {INPUT} font-mono") id="client-jwks" name="jwks" rows="3" placeholder="{\"keys\": [{\"kty\": \"EC\", …}]}"></textarea>
                    </div>
                    <div class="sm:col-span-2">
                        <label class=LABEL for="client-jwks-uri">"…or a JWKS URL"</label>
                        <input class=format!("mt-1 {INPUT} font-mono") id="client-jwks-uri" name="jwks_uri" type="url" placeholder="https://agent.example.com/.well-known/jwks.json"/>
                        <p class=format!("mt-1 {MUTED}")>"Fetched over HTTPS from public addresses only, cached, and refetched when the client signs with a new key."</p>
                    </div>
                    <div class="sm:col-span-2">
                        <label class=LABEL for="client-contacts">"Contacts"</label>
                        <input class=format!("mt-1 {INPUT}") id="client-contacts" name="contacts" placeholder="owner@example.com"/>
                    </div>
                    <details class="sm:col-span-2">
                        <summary class="cursor-pointer text-sm font-medium text-slate-700 dark:text-slate-300">"More registration metadata (RFC 7591)"</summary>
                        <div class="mt-3 grid gap-4 sm:grid-cols-2">
                            <div class="sm:col-span-2">
                                <label class=LABEL for="client-redirect-uris">"Redirect URIs"</label>
                                <textarea class=format!("mt-1 {INPUT} font-mono") id="client-redirect-uris" name="redirect_uris" rows="2" placeholder="https://app.example.com/callback"></textarea>
                                <p class=format!("mt-1 {MUTED}")>"One per line, matched exactly: https, http on a loopback host, or a private-use scheme (com.example.app:/callback). For the authorization code flow."</p>
                            </div>
                            <div>
                                <label class=LABEL for="client-uri">"Client URI"</label>
                                <input class=format!("mt-1 {INPUT}") id="client-uri" name="client_uri" type="url" placeholder="https://agent.example.com"/>
                            </div>
                            <div>
                                <label class=LABEL for="client-logo">"Logo URI"</label>
                                <input class=format!("mt-1 {INPUT}") id="client-logo" name="logo_uri" type="url" placeholder="https://agent.example.com/logo.png"/>
                            </div>
                            <div>
                                <label class=LABEL for="client-software-id">"Software id"</label>
                                <input class=format!("mt-1 {INPUT}") id="client-software-id" name="software_id" placeholder="4NRB1-0XZABZI9E6-5SM3R"/>
                            </div>
                            <div>
                                <label class=LABEL for="client-software-version">"Software version"</label>
                                <input class=format!("mt-1 {INPUT}") id="client-software-version" name="software_version" placeholder="2.1.0"/>
                            </div>
                        </div>
                    </details>
                    <div class="sm:col-span-2">{action_error(create)}</div>
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
                        view! {
                            <div class="overflow-x-auto">
                                <table class=TABLE>
                                    <thead class="bg-slate-50 dark:bg-slate-900">
                                        <tr>
                                            <th class=TH scope="col">"Client"</th>
                                            <th class=format!("{TH} hidden md:table-cell") scope="col">"Authentication"</th>
                                            <th class=format!("{TH} hidden md:table-cell") scope="col">"Registered scopes"</th>
                                            <th class=TH scope="col">"Status"</th>
                                            <th class=TH scope="col"><span class="sr-only">"Actions"</span></th>
                                        </tr>
                                    </thead>
                                    <tbody class="divide-y divide-slate-200 dark:divide-slate-700">
                                        {found.items.into_iter().map(|client| view! { <ClientRow client refresh issued/> }).collect_view()}
                                    </tbody>
                                </table>
                            </div>
                            <Pager total=found.total page=found.page page_size=found.page_size
                                href=move |p| with_query("/clients", &[("q", q.clone()), ("page", if p == 0 { String::new() } else { p.to_string() })])/>
                        }.into_any()
                    }
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </div>
    }
}

/// One client: its metadata, the agent it acts for, its public keys and its secrets' dates.
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
            <ActionForm action=refresh attr:class="mt-2">
                <input type="hidden" name="client_id" value=client_id/>
                <button type="submit" class=BTN_SMALL disabled=move || refresh.pending().get()>"Fetch keys now"</button>
            </ActionForm>
            {action_error(refresh)}
        </div>
    }
}

#[component]
pub fn ClientDetailPage() -> impl IntoView {
    let params = leptos_router::hooks::use_params_map();
    let id = Memo::new(move |_| params.with(|p| p.get("id").unwrap_or_default()));
    let detail = Resource::new(move || id.get(), crate::api::clients::get_client);
    let reload = RwSignal::new(0u32);
    let access = Resource::new(
        move || (id.get(), reload.get()),
        |(id, _)| crate::api::access::client_access(id),
    );
    view! {
        <a href="/clients" class="text-sm text-indigo-600 hover:underline dark:text-indigo-300">"← Clients"</a>
        <Transition fallback=|| view! { <Loading/> }>
            {move || detail.get().map(|result| match result {
                Ok(d) => {
                    let c = d.client.clone();
                    view! {
                        <div class="mt-2 mb-6">
                            <h1 class=H1>{c.name.clone()}</h1>
                            <p class="font-mono text-sm text-slate-500 dark:text-slate-400">{c.client_id.clone()}</p>
                        </div>
                        <div class="grid gap-6 lg:grid-cols-2">
                            <section class=format!("{CARD} p-6") aria-labelledby="client-facts">
                                <h2 id="client-facts" class="text-lg font-semibold text-slate-900 dark:text-white">"Registration"</h2>
                                <dl class="mt-4 space-y-3 text-sm" data-testid="client-detail">
                                    <div><dt class=MUTED>"Status"</dt><dd><Badge ok=c.enabled text=if c.enabled { "Enabled" } else { "Disabled" }/></dd></div>
                                    <div><dt class=MUTED>"Authentication"</dt><dd class="font-mono text-xs">{c.auth_method.clone()}</dd></div>
                                    <div><dt class=MUTED>"Grant types"</dt><dd class="font-mono text-xs">{if c.grant_types.is_empty() { "none yet".to_owned() } else { c.grant_types.clone() }}</dd></div>
                                    <div><dt class=MUTED>"Registered scopes"</dt><dd class="font-mono text-xs">{if c.scope.is_empty() { "—".to_owned() } else { c.scope.clone() }}</dd></div>
                                    <div><dt class=MUTED>"Acts for agent"</dt><dd>{if d.agent.is_empty() { "—".to_owned() } else { d.agent.clone() }}</dd></div>
                                    <div><dt class=MUTED>"Contacts"</dt><dd>{if c.contacts.is_empty() { "—".to_owned() } else { c.contacts.clone() }}</dd></div>
                                    {d.metadata.iter().map(|(k, v)| view! {
                                        <div><dt class="font-mono text-xs text-slate-500 dark:text-slate-400">{k.clone()}</dt><dd class="break-all">{v.clone()}</dd></div>
                                    }).collect_view()}
                                    <div><dt class=MUTED>"Created"</dt><dd>{c.created_at.clone()}</dd></div>
                                </dl>
                            </section>
                            <section class=format!("{CARD} p-6") aria-labelledby="client-credentials">
                                <h2 id="client-credentials" class="text-lg font-semibold text-slate-900 dark:text-white">"Credentials"</h2>
                                {if !d.jwks_uri.is_empty() {
                                    view! {
                                        <p class=format!("mt-1 {MUTED}")>"Its client assertions are checked against the public keys published at:"</p>
                                        <p class="mt-3 break-all font-mono text-xs" data-testid="client-jwks-uri">{d.jwks_uri.clone()}</p>
                                        <p class=format!("mt-3 {MUTED}")>"Fetched over HTTPS, cached for the document's max-age (5 minutes to a day, 1 hour by default), and refetched at most once a minute when an assertion names an unknown key."</p>
                                        <RemoteKeys client_id=c.client_id.clone() initial=d.remote_keys.clone()/>
                                    }.into_any()
                                } else if d.jwks.is_empty() {
                                    view! {
                                        <p class=format!("mt-1 {MUTED}")>"Secrets are stored as hashes; only their dates are shown."</p>
                                        <ul class="mt-4 divide-y divide-slate-200 text-sm dark:divide-slate-700">
                                            {d.secrets.iter().map(|(created, expires, live)| view! {
                                                <li class="flex items-center justify-between py-2" data-testid="secret-row">
                                                    <span>"Issued " {created.clone()}</span>
                                                    <span class="flex items-center gap-2">
                                                        {(!expires.is_empty()).then(|| view! { <span class=MUTED>"until " {expires.clone()}</span> })}
                                                        <Badge ok=*live text=if *live { "Live" } else { "Expired" }/>
                                                    </span>
                                                </li>
                                            }).collect_view()}
                                        </ul>
                                    }.into_any()
                                } else {
                                    view! {
                                        <p class=format!("mt-1 {MUTED}")>"Public keys that sign its client assertions:"</p>
                                        <pre class="mt-3 overflow-x-auto rounded-md bg-slate-50 p-3 font-mono text-xs dark:bg-slate-900">{d.jwks.clone()}</pre>
                                    }.into_any()
                                }}
                            </section>
                        </div>
                        {(!c.resource_server).then(|| view! { <ClientAccess client_id=c.client_id.clone() access reload/> })}
                    }.into_any()
                }
                Err(error) => view! { <div class="mt-4"><ErrorMessage error/></div> }.into_any(),
            })}
        </Transition>
    }
}
