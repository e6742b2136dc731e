//! Protected resources (MCP servers): the audiences tokens are bound to.
use crate::api::access::resource_access;
use crate::api::resources::{
    CreateResource, DeleteResource, SetDefaultResource, UpdateResource, default_resource,
    get_resource, list_resources,
};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyValue;
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::pages::access::ResourceClients;
use crate::types::ResourceView;
use leptos::prelude::*;

const ALGS: [(&str, &str); 4] = [
    ("", "Realm default (ES256)"),
    ("ES256", "ES256"),
    ("RS256", "RS256"),
    ("EdDSA", "EdDSA"),
];

/// The shared fields of the create and edit forms.
#[component]
fn ResourceFields(r: Option<ResourceView>) -> impl IntoView {
    let id = r
        .as_ref()
        .map_or_else(|| "new".to_owned(), |r| r.slug.clone());
    let v = r.clone().unwrap_or(ResourceView {
        slug: String::new(),
        display_name: String::new(),
        uri: String::new(),
        scopes: String::new(),
        token_ttl_secs: 300,
        signing_alg: String::new(),
        enabled: true,
    });
    let alg = v.signing_alg.clone();
    view! {
        <div>
            <label class=LABEL for=format!("res-name-{id}")>"Name"</label>
            <input class=format!("mt-1 {INPUT}") id=format!("res-name-{id}") name="display_name" value=v.display_name required/>
        </div>
        <div class="sm:col-span-2">
            <label class=LABEL for=format!("res-uri-{id}")>"Resource URI"</label>
            <input class=format!("mt-1 {INPUT}") id=format!("res-uri-{id}") name="uri" value=v.uri required placeholder="https://mcp.example.com/mcp"/>
            <p class=format!("mt-1 {MUTED}")>"The MCP server's canonical URI; tokens carry it as their audience."</p>
        </div>
        <div class="sm:col-span-2">
            <label class=LABEL for=format!("res-scopes-{id}")>"Accepted scopes"</label>
            <input class=format!("mt-1 {INPUT}") id=format!("res-scopes-{id}") name="scopes" value=v.scopes required placeholder="tools:read tools:call"/>
        </div>
        <div>
            <label class=LABEL for=format!("res-ttl-{id}")>"Token lifetime (s)"</label>
            <input class=format!("mt-1 {INPUT}") id=format!("res-ttl-{id}") name="token_ttl_secs" type="number" min="30" max="3600" value=v.token_ttl_secs.to_string()/>
        </div>
        <div>
            <label class=LABEL for=format!("res-alg-{id}")>"Signing algorithm"</label>
            <select class=format!("mt-1 {INPUT}") id=format!("res-alg-{id}") name="signing_alg">
                {ALGS.iter().map(|(value, label)| view! { <option value=*value selected=*value == alg>{*label}</option> }).collect_view()}
            </select>
        </div>
    }
}

#[component]
fn ResourceRow(resource: ResourceView, refresh: Callback<()>) -> impl IntoView {
    let toasts = use_toasts();
    let editing = RwSignal::new(false);
    let update = ServerAction::<UpdateResource>::new();
    let delete = ServerAction::<DeleteResource>::new();
    Effect::new(move |_| {
        if let Some(Ok(r)) = update.value().get() {
            toasts.push(ToastKind::Success, format!("Resource {} saved.", r.slug));
            editing.set(false);
            refresh.run(());
        }
    });
    Effect::new(move |_| match delete.value().get() {
        Some(Ok(())) => {
            toasts.push(ToastKind::Success, "Resource deleted.");
            refresh.run(());
        }
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    let r = StoredValue::new(resource.clone());
    let slug = resource.slug.clone();
    view! {
        <tr data-testid="resource-row">
            <td class=TD>
                <a class="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href=format!("/resources/{}", resource.slug)>{resource.display_name.clone()}</a>
                <div class="font-mono text-xs text-slate-500 dark:text-slate-400">{resource.slug.clone()}</div>
            </td>
            <td class=TD><span class="whitespace-nowrap font-mono text-xs">{resource.uri.clone()}</span></td>
            <td class=format!("{TD} hidden md:table-cell")><span class="font-mono text-xs">{resource.scopes.clone()}</span></td>
            <td class=format!("{TD} hidden lg:table-cell")>
                {format!("{} s · {}", resource.token_ttl_secs, if resource.signing_alg.is_empty() { "ES256" } else { resource.signing_alg.as_str() })}
            </td>
            <td class=TD><Badge ok=resource.enabled text=if resource.enabled { "Enabled" } else { "Disabled" }/></td>
            <td class=format!("{TD} text-right")>
                <div class="flex justify-end gap-2">
                    <button type="button" class=BTN_SMALL on:click=move |_| editing.update(|e| *e = !*e)>"Edit"</button>
                    <ConfirmButton
                        label="Delete"
                        title="Delete this resource?"
                        message=format!("Clients can no longer get tokens for {slug}, and its existing tokens stop introspecting as active.")
                        confirm_label="Delete resource"
                        class=BTN_SMALL_DANGER
                        on_confirm=Callback::new(move |_| { delete.dispatch(DeleteResource { slug: r.with_value(|r| r.slug.clone()) }); })
                    />
                </div>
            </td>
        </tr>
        <Show when=move || editing.get()>
            <tr>
                <td colspan="6" class="bg-slate-50 px-4 py-4 dark:bg-slate-900">
                    <ActionForm action=update attr:class="grid gap-4 sm:grid-cols-2">
                        <input type="hidden" name="slug" value=r.with_value(|r| r.slug.clone())/>
                        <ResourceFields r=Some(r.get_value())/>
                        <label class="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-300">
                            <input type="checkbox" name="enabled" value="on" checked=r.with_value(|r| r.enabled)/>
                            "Enabled"
                        </label>
                        <div class="sm:col-span-2">{action_error(update)}</div>
                        <div class="flex gap-2 sm:col-span-2">
                            <button type="submit" class=BTN_PRIMARY disabled=move || update.pending().get()>"Save"</button>
                            <button type="button" class=BTN_SECONDARY on:click=move |_| editing.set(false)>"Cancel"</button>
                        </div>
                    </ActionForm>
                </td>
            </tr>
        </Show>
    }
}

/// What happens to token requests that omit `resource`: refused (the default), or given one
/// resource as their audience.
#[component]
fn DefaultResource(
    resources: Vec<ResourceView>,
    selected: Option<String>,
    save: ServerAction<SetDefaultResource>,
) -> impl IntoView {
    let selected = selected.unwrap_or_default();
    view! {
        <section class=format!("{CARD} mt-6 p-6") aria-labelledby="default-resource-title">
            <h2 id="default-resource-title" class="text-base font-semibold text-slate-900 dark:text-white">"Token requests without a resource"</h2>
            <p class=format!("mt-1 {MUTED}")>
                "MCP clients send a " <code>"resource"</code> " parameter naming the server they want a token for (RFC 8707). "
                "A request without one is refused with " <code>"invalid_target"</code> " unless you pick a default audience for it here. Tokens always carry exactly one audience."
            </p>
            <ActionForm action=save attr:class="mt-4 flex flex-wrap items-end gap-3">
                <div class="min-w-64 flex-1">
                    <label class=LABEL for="default-resource">"When resource is omitted"</label>
                    <select class=format!("mt-1 {INPUT}") id="default-resource" name="slug">
                        <option value="" selected=selected.is_empty()>"Refuse with invalid_target (recommended)"</option>
                        {resources.into_iter().map(|r| {
                            let is = r.slug == selected;
                            view! { <option value=r.slug.clone() selected=is>{format!("Use {} ({})", r.display_name, r.uri)}</option> }
                        }).collect_view()}
                    </select>
                </div>
                <button type="submit" class=BTN_PRIMARY disabled=move || save.pending().get()>"Save"</button>
                <div class="w-full">{action_error(save)}</div>
            </ActionForm>
        </section>
    }
}

/// The Resources screen.
#[component]
pub fn ResourcesPage() -> impl IntoView {
    let create = ServerAction::<CreateResource>::new();
    let reload = RwSignal::new(0u32);
    let resources = Resource::new(
        move || (reload.get(), create.version().get()),
        |_| list_resources(),
    );
    let show_create = RwSignal::new(false);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(r)) = create.value().get() {
            toasts.push(
                ToastKind::Success,
                format!("Resource {} registered.", r.slug),
            );
            show_create.set(false);
        }
    });
    let save_default = ServerAction::<SetDefaultResource>::new();
    let default = Resource::new(
        move || (reload.get(), save_default.version().get()),
        |_| default_resource(),
    );
    Effect::new(move |_| {
        if let Some(Ok(slug)) = save_default.value().get() {
            toasts.push(
                ToastKind::Success,
                match slug {
                    Some(s) => format!("Token requests without resource now get {s}."),
                    None => "Token requests without resource are refused.".to_owned(),
                },
            );
        }
    });
    let refresh = Callback::new(move |_| reload.update(|n| *n += 1));
    view! {
        <PageHeader title="Resources" description="MCP servers that accept this realm's tokens. Each token is bound to exactly one of them.">
            <button type="button" class=BTN_PRIMARY on:click=move |_| show_create.set(true)>"New resource"</button>
        </PageHeader>
        <Show when=move || show_create.get()>
            <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-resource-title">
                <h2 id="new-resource-title" class="text-lg font-semibold text-slate-900 dark:text-white">"New resource"</h2>
                <ActionForm action=create attr:class="mt-4 grid gap-4 sm:grid-cols-2">
                    <div>
                        <label class=LABEL for="res-slug">"Id"</label>
                        <input class=format!("mt-1 {INPUT}") id="res-slug" name="slug" required placeholder="payments-mcp"/>
                        <p class=format!("mt-1 {MUTED}")>"Letters, digits and '-'."</p>
                    </div>
                    <ResourceFields r=None/>
                    <div class="sm:col-span-2">{action_error(create)}</div>
                    <div class="flex gap-2 sm:col-span-2">
                        <button type="submit" class=BTN_PRIMARY disabled=move || create.pending().get()>"Register resource"</button>
                        <button type="button" class=BTN_SECONDARY on:click=move |_| show_create.set(false)>"Cancel"</button>
                    </div>
                </ActionForm>
            </section>
        </Show>
        <div class=CARD>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || resources.get().map(|result| match result {
                    Ok(list) if list.is_empty() => view! {
                        <EmptyState title="No resources yet" hint="Register an MCP server so clients can get tokens for it."/>
                    }.into_any(),
                    Ok(list) => view! {
                        <div class="overflow-x-auto">
                            <table class=TABLE>
                                <thead class="bg-slate-50 dark:bg-slate-900">
                                    <tr>
                                        <th class=TH scope="col">"Resource"</th>
                                        <th class=TH scope="col">"Audience"</th>
                                        <th class=format!("{TH} hidden md:table-cell") scope="col">"Scopes"</th>
                                        <th class=format!("{TH} hidden lg:table-cell") scope="col">"Tokens"</th>
                                        <th class=TH scope="col">"Status"</th>
                                        <th class=TH scope="col"><span class="sr-only">"Actions"</span></th>
                                    </tr>
                                </thead>
                                <tbody class="divide-y divide-slate-200 dark:divide-slate-700">
                                    {list.into_iter().map(|resource| view! { <ResourceRow resource refresh/> }).collect_view()}
                                </tbody>
                            </table>
                        </div>
                    }.into_any(),
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </div>
        <Transition fallback=|| ()>
            {move || match (resources.get(), default.get()) {
                (Some(Ok(list)), Some(Ok(selected))) if !list.is_empty() => view! {
                    <DefaultResource resources=list selected save=save_default/>
                }.into_any(),
                (_, Some(Err(error))) => view! { <div class="mt-6"><ErrorMessage error/></div> }.into_any(),
                _ => ().into_any(),
            }}
        </Transition>
    }
}

/// One resource: its settings and the clients that may get tokens for it.
#[component]
pub fn ResourceDetailPage() -> impl IntoView {
    let params = leptos_router::hooks::use_params_map();
    let slug = Memo::new(move |_| params.with(|p| p.get("slug").unwrap_or_default()));
    let resource = Resource::new(move || slug.get(), get_resource);
    let query = leptos_router::hooks::use_query_map();
    let q = Memo::new(move |_| query.with(|m| m.get("q").unwrap_or_default()));
    let page = Memo::new(move |_| {
        query.with(|m| {
            m.get("page")
                .and_then(|p| p.parse::<u32>().ok())
                .unwrap_or(0)
        })
    });
    let reload = RwSignal::new(0u32);
    let grants = Resource::new(
        move || (slug.get(), q.get(), page.get(), reload.get()),
        |(slug, q, page, _)| resource_access(slug, q, page),
    );
    view! {
        <a href="/resources" class="text-sm text-indigo-600 hover:underline dark:text-indigo-300">"← Resources"</a>
        <Transition fallback=|| view! { <Loading/> }>
            {move || resource.get().map(|result| match result {
                Ok(r) => view! {
                    <div class="mt-2 mb-6">
                        <h1 class=format!("{H1} break-words")>{r.display_name.clone()}</h1>
                        <p class="font-mono text-sm text-slate-500 dark:text-slate-400">{r.slug.clone()}</p>
                    </div>
                    <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby="resource-facts">
                        <h2 id="resource-facts" class="text-lg font-semibold text-slate-900 dark:text-white">"Settings"</h2>
                        <dl class="mt-4 grid gap-4 text-sm sm:grid-cols-2" data-testid="resource-detail">
                            <div class="sm:col-span-2">
                                <dt class=MUTED>"Audience (resource URI)"</dt>
                                <dd class="mt-1"><CopyValue value=r.uri.clone() label="resource URI"/></dd>
                            </div>
                            <div><dt class=MUTED>"Status"</dt><dd><Badge ok=r.enabled text=if r.enabled { "Enabled" } else { "Disabled" }/></dd></div>
                            <div><dt class=MUTED>"Tokens"</dt><dd>{format!("{} s · {}", r.token_ttl_secs, if r.signing_alg.is_empty() { "ES256" } else { r.signing_alg.as_str() })}</dd></div>
                            <div class="sm:col-span-2"><dt class=MUTED>"Accepted scopes"</dt><dd class="font-mono text-xs break-all">{r.scopes.clone()}</dd></div>
                        </dl>
                    </section>
                    <ResourceClients resource=r grants q reload/>
                }.into_any(),
                Err(error) => view! { <div class="mt-4"><ErrorMessage error/></div> }.into_any(),
            })}
        </Transition>
    }
}
