//! Protected resources (MCP servers): the audiences tokens are bound to.
use crate::api::access::resource_access;
use crate::api::audit::history;
use crate::api::clients::RotateClientSecret;
use crate::api::resources::{
    CreateResource, CreateResourceCredentials, DeleteResource, RejectSubmission,
    SetDefaultResource, SetResourceEnabled, UpdateResource, default_resource, default_token_ttl,
    get_resource, list_resources, resource_credentials,
};
use crate::components::card::{EditableCard, FormButtons};
use crate::components::confirm::{ConfirmButton, ConfirmDialog};
use crate::components::copy::{CopyBlock, CopyObjectLink, CopyValue, Truncated};
use crate::components::field::{Field, FieldError, FieldErrors, Kind};
use crate::components::history::History;
use crate::components::layout::use_abilities;
use crate::components::scopes::ScopeInput;
use crate::components::secret::SecretPanel;
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::pages::access::ResourceClients;
use crate::types::access::GrantPage;
use crate::types::audit::AuditPage;
use crate::types::clients::IssuedSecret;
use crate::types::resources::{ListFilter, ResourceCredentialsView, ResourceView};
use leptos::prelude::*;
use leptos_router::components::Form;

const ALGS: [(&str, &str); 4] = [
    ("", "Realm default (ES256)"),
    ("ES256", "ES256"),
    ("RS256", "RS256"),
    ("EdDSA", "EdDSA"),
];

/// The inputs of the resource forms, and the server's name for each.
const RESOURCE_FIELDS: &[(&str, &str)] = &[
    ("slug", "slug"),
    ("display_name", "name"),
    ("uri", "uri"),
    ("scopes", "scopes"),
    ("token_ttl_secs", "token_ttl_secs"),
    ("signing_alg", "signing_alg"),
];

/// How long a resource's tokens live, given the realm's default (`None` while it loads).
fn lifetime(r: &ResourceView, realm_default: Option<i64>) -> String {
    let alg = if r.signing_alg.is_empty() {
        "ES256"
    } else {
        r.signing_alg.as_str()
    };
    match (r.token_ttl_secs, realm_default) {
        (Some(t), _) => format!("{t} s · {alg}"),
        (None, Some(t)) => format!("{t} s (realm default) · {alg}"),
        (None, None) => format!("Realm default · {alg}"),
    }
}

/// The shared fields of the create and edit forms.
#[component]
fn ResourceFields(
    r: Option<ResourceView>,
    errors: FieldErrors,
    /// The realm's default token lifetime, shown in the empty lifetime field.
    realm_default: Option<i64>,
) -> impl IntoView {
    let id = r
        .as_ref()
        .map_or_else(|| "new".to_owned(), |r| r.slug.clone());
    let v = r.clone().unwrap_or(ResourceView {
        slug: String::new(),
        display_name: String::new(),
        uri: String::new(),
        scopes: String::new(),
        token_ttl_secs: None,
        signing_alg: String::new(),
        enabled: true,
        consent: String::new(),
        people_roles: String::new(),
        default_scopes: String::new(),
        open_to_self_registered: false,
        submitted_by: None,
        rejection: None,
    });
    let alg = v.signing_alg.clone();
    let alg_id = format!("res-alg-{id}");
    view! {
        <Field errors name="display_name" id=format!("res-name-{id}") label="Name" value=v.display_name required=true maxlength=100 placeholder="Payments MCP"/>
        <Field errors name="uri" id=format!("res-uri-{id}") label="Resource URI" value=v.uri required=true maxlength=2048 mono=true
            placeholder="https://mcp.example.com/mcp" class="sm:col-span-2"
            help="The MCP server's canonical URI (https; http only on loopback; no query or fragment). Tokens carry it as their audience."/>
        <ScopeInput errors name="scopes" id=format!("res-scopes-{id}") label="Accepted scopes" value=v.scopes defines=true class="sm:col-span-2"
            help="Space-separated; at least one. Grants pick from these."/>
        <Field errors name="token_ttl_secs" id=format!("res-ttl-{id}") label="Token lifetime (s)"
            value=v.token_ttl_secs.map(|t| t.to_string()).unwrap_or_default() kind=Kind::Number
            placeholder=realm_default.map_or_else(|| "Realm default".to_owned(), |t| format!("{t} (realm default)"))
            help="30 to 3600 seconds; leave empty to follow the realm's default (Realm settings)."/>
        <div>
            <label class=LABEL for=alg_id.clone()>"Signing algorithm"</label>
            <select class=format!("mt-1 {INPUT}") id=alg_id name="signing_alg" aria-invalid=errors.invalid("signing_alg")>
                {ALGS.iter().map(|(value, label)| view! { <option value=*value selected=*value == alg>{*label}</option> }).collect_view()}
            </select>
            <FieldError errors name="signing_alg"/>
        </div>
    }
}

/// Enabled, disabled, or submitted by a developer (waiting for an admin, or rejected).
fn status(r: &ResourceView) -> impl IntoView + use<> {
    match (&r.submitted_by, &r.rejection) {
        (Some(_), Some(_)) => view! { <Pill tone=Tone::Bad text="Rejected"/> }.into_any(),
        (Some(_), None) => view! { <Pill tone=Tone::Warn text="Submitted"/> }.into_any(),
        (None, _) => {
            view! { <Badge ok=r.enabled text=if r.enabled { "Enabled" } else { "Disabled" }/> }
                .into_any()
        }
    }
}

/// Who submitted a resource, and whether it waits for an admin or why it was rejected; `short`
/// in a list row (the status says the rest).
fn submitted_note(r: &ResourceView, short: bool) -> impl IntoView + use<> {
    let text = match (&r.submitted_by, &r.rejection) {
        (None, _) => return None,
        (Some(by), _) if short => format!("Submitted by {by}"),
        (Some(by), Some(why)) => format!("Submitted by {by}; rejected by an admin: {why}"),
        (Some(by), None) => format!("Submitted by {by}: waiting for an admin to enable it."),
    };
    Some(view! {
        <p class="mt-1 text-xs break-words whitespace-pre-line text-amber-800 dark:text-amber-300" data-testid="resource-submitted">
            {text}
        </p>
    })
}

#[component]
fn ResourceRow(resource: ResourceView, realm_default: Option<i64>) -> impl IntoView {
    view! {
        <tr data-testid="resource-row" class=CARDS_ROW>
            <td class=CARDS_CELL>
                <a class="font-medium text-indigo-700 break-words hover:underline dark:text-indigo-300" href=format!("/resources/{}", resource.slug)>{resource.display_name.clone()}</a>
                <div class="font-mono text-xs break-all text-slate-500 dark:text-slate-400">{resource.slug.clone()}</div>
                {submitted_note(&resource, true)}
            </td>
            <td class=format!("{CARDS_CELL_NEXT} text-slate-700 dark:text-slate-200")><CellLabel text="Audience"/><Truncated value=resource.uri.clone() label=format!("the audience of {}", resource.display_name)/></td>
            <td class=format!("{CARDS_CELL_NEXT} sm:hidden md:table-cell")><CellLabel text="Scopes"/><span class="font-mono text-xs break-words">{resource.scopes.clone()}</span></td>
            <td class=format!("{CARDS_CELL_NEXT} text-slate-600 sm:hidden lg:table-cell dark:text-slate-300")><CellLabel text="Tokens"/>{lifetime(&resource, realm_default)}</td>
            <td class=CARDS_CELL_NEXT>{status(&resource)}</td>
        </tr>
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
    let resources = Resource::new(move || create.version().get(), |_| list_resources());
    let realm_ttl = Resource::new(|| (), |_| default_token_ttl());
    let realm_default = move || realm_ttl.get().and_then(Result::ok);
    let show_create = RwSignal::new(false);
    crate::components::field::focus_first_when(show_create, "new-resource");
    let create_errors = FieldErrors::new(create, "new-resource", RESOURCE_FIELDS);
    let toasts = use_toasts();
    let navigate = leptos_router::hooks::use_navigate();
    // A new resource opens on its page, where its next step (granting clients) is.
    Effect::new(move |_| {
        if let Some(Ok(r)) = create.value().get() {
            toasts.push(
                ToastKind::Success,
                format!(
                    "Resource {} registered. Next: grant the clients that may reach it.",
                    r.display_name
                ),
            );
            show_create.set(false);
            navigate(&format!("/resources/{}", r.slug), Default::default());
        }
    });
    let save_default = ServerAction::<SetDefaultResource>::new();
    let default = Resource::new(move || save_default.version().get(), |_| default_resource());
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
    let can = use_abilities();
    let query = leptos_router::hooks::use_query_map();
    let waiting_only =
        Memo::new(move |_| query.with(|q| q.get("waiting").is_some_and(|v| v == "1")));
    let filter = Memo::new(move |_| {
        query.with(|m| ListFilter {
            q: m.get("q").unwrap_or_default(),
            status: m.get("status").unwrap_or_default(),
            by_audience: m.get("sort").is_some_and(|v| v == "audience"),
        })
    });
    view! {
        <PageHeader title="Resources" description="MCP servers that accept this realm's tokens. Each token is bound to exactly one of them.">
            {can.manage_resources.then(|| view! {
                <button type="button" class=BTN_PRIMARY on:click=move |_| show_create.set(true)>"New resource"</button>
            })}
        </PageHeader>
        <Show when=move || show_create.get()>
            <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-resource-title">
                <h2 id="new-resource-title" class="text-lg font-semibold text-slate-900 dark:text-white">"New resource"</h2>
                <ActionForm action=create attr:id="new-resource" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| create_errors.clear()>
                    <Field errors=create_errors name="slug" id="res-slug" label="Id" required=true maxlength=63 mono=true placeholder="payments-mcp"
                        help="Letters, digits and '-'; it names the resource in URLs and the CLI and cannot be changed."/>
                    <Transition fallback=|| ()>
                        {move || view! { <ResourceFields r=None errors=create_errors realm_default=realm_default()/> }}
                    </Transition>
                    <div class="sm:col-span-2">{create_errors.form_error()}</div>
                    <div class="flex gap-2 sm:col-span-2">
                        <button type="submit" class=BTN_PRIMARY disabled=move || create.pending().get()>"Register resource"</button>
                        <button type="button" class=BTN_SECONDARY on:click=move |_| show_create.set(false)>"Cancel"</button>
                    </div>
                </ActionForm>
            </section>
        </Show>
        <div class=CARD>
            <Show when=move || !waiting_only.get()>
                <Form method="GET" action="" attr:class="flex flex-wrap items-end gap-3 border-b border-slate-200 p-4 dark:border-slate-700" attr:role="search" attr:aria-label="Filter resources">
                    <div class="min-w-0 flex-1 sm:max-w-xs">
                        <label class=LABEL for="resource-search">"Search"</label>
                        <input class=format!("{INPUT} mt-1") id="resource-search" name="q" type="search" placeholder="Name, id or audience" prop:value=move || filter.with(|f| f.q.clone())/>
                    </div>
                    <div>
                        <label class=LABEL for="resource-status">"Status"</label>
                        <select class=format!("{INPUT} mt-1") id="resource-status" name="status">
                            {[("", "Any"), ("enabled", "Enabled"), ("disabled", "Disabled"), ("submitted", "Submitted by a developer")].into_iter().map(|(value, label)| view! {
                                <option value=value selected=move || filter.with(|f| f.status == value)>{label}</option>
                            }).collect_view()}
                        </select>
                    </div>
                    <div>
                        <label class=LABEL for="resource-sort">"Sort by"</label>
                        <select class=format!("{INPUT} mt-1") id="resource-sort" name="sort">
                            <option value="name" selected=move || !filter.with(|f| f.by_audience)>"Name"</option>
                            <option value="audience" selected=move || filter.with(|f| f.by_audience)>"Audience"</option>
                        </select>
                    </div>
                    <button type="submit" class=BTN_SECONDARY>"Apply"</button>
                    <Show when=move || filter.with(ListFilter::narrows)>
                        <a class="self-center text-sm text-indigo-700 hover:underline dark:text-indigo-300" href="/resources">"Clear"</a>
                    </Show>
                </Form>
            </Show>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || resources.get().map(|result| match result {
                    Ok(list) if !list.is_empty() && !waiting_only.get() && filter.with(|f| !list.iter().any(|r| f.keeps(r))) => view! {
                        <EmptyState title="No resource matches" hint="Try another search, or clear the filters.">
                            <a class=BTN_SECONDARY href="/resources">"Clear filters"</a>
                        </EmptyState>
                    }.into_any(),
                    Ok(list) if list.is_empty() => view! {
                        <EmptyState title="No resources yet" hint=if can.manage_resources {
                            "A resource is an MCP server that accepts this realm's tokens. Register one with New resource so clients can get tokens for it."
                        } else {
                            "A resource is an MCP server that accepts this realm's tokens. Submit yours from Protect your MCP server; an admin enables it."
                        }/>
                    }.into_any(),
                    Ok(list) => {
                        let realm_default = realm_default();
                        let waiting = waiting_only.get();
                        let list: Vec<ResourceView> = if waiting {
                            list.into_iter().filter(|r| r.submitted_by.is_some() && r.rejection.is_none()).collect()
                        } else {
                            filter.with(|f| f.apply(list))
                        };
                        view! {
                        {waiting.then(|| view! {
                            <p class="flex flex-wrap items-center gap-2 border-b border-slate-200 p-4 text-sm text-slate-700 dark:border-slate-700 dark:text-slate-200" data-testid="waiting-filter">
                                {match list.len() {
                                    1 => "1 resource submitted by a developer, waiting for an admin.".to_owned(),
                                    n => format!("{n} resources submitted by developers, waiting for an admin."),
                                }}
                                <a class="text-indigo-700 hover:underline dark:text-indigo-300" href="/resources">"Show all resources"</a>
                            </p>
                        })}
                        <table class=CARDS_TABLE>
                            <thead class=CARDS_HEAD>
                                <tr>
                                    <th class=format!("{TH} sm:w-1/3 md:w-1/4") scope="col">"Resource"</th>
                                    <th class=TH scope="col">"Audience"</th>
                                    <th class=format!("{TH} hidden md:table-cell md:w-1/5") scope="col">"Scopes"</th>
                                    <th class=format!("{TH} hidden lg:table-cell lg:w-48") scope="col">"Tokens"</th>
                                    <th class=format!("{TH} sm:w-28") scope="col">"Status"</th>
                                </tr>
                            </thead>
                            <tbody class=CARDS_BODY>
                                {list.into_iter().map(|resource| view! { <ResourceRow resource realm_default/> }).collect_view()}
                            </tbody>
                        </table>
                    }.into_any()
                    }
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </div>
        <Transition fallback=|| ()>
            {move || match (resources.get(), default.get()) {
                (Some(Ok(list)), Some(Ok(selected))) if !list.is_empty() && can.manage_resources => view! {
                    <DefaultResource resources=list selected save=save_default/>
                }.into_any(),
                (Some(Ok(list)), Some(Ok(selected))) if !list.is_empty() => {
                    let default = selected.and_then(|s| list.into_iter().find(|r| r.slug == s));
                    view! {
                        <p class=format!("mt-6 {MUTED}") data-testid="default-resource">
                            {match default {
                                Some(r) => format!("Token requests without a resource get {} ({}) as their audience.", r.display_name, r.uri),
                                None => "Token requests without a resource are refused with invalid_target.".to_owned(),
                            }}
                        </p>
                    }.into_any()
                }
                (_, Some(Err(error))) => view! { <div class="mt-6"><ErrorMessage error/></div> }.into_any(),
                _ => ().into_any(),
            }}
        </Transition>
    }
}

/// The resource's settings: shown, or edited in place.
#[component]
fn ResourceSettings(
    r: ResourceView,
    update: ServerAction<UpdateResource>,
    realm_default: Option<i64>,
) -> impl IntoView {
    let editing = RwSignal::new(false);
    let errors = FieldErrors::new(update, "edit-resource", RESOURCE_FIELDS);
    Effect::new(move |_| {
        if let Some(Ok(_)) = update.value().get() {
            editing.set(false);
        }
    });
    let v = StoredValue::new(r.clone());
    // A changed audience is confirmed first: tokens minted for the old one stop being accepted.
    let pending = StoredValue::new(None::<UpdateResource>);
    let confirm = RwSignal::new(false);
    let new_uri = RwSignal::new(String::new());
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        use leptos::form::FromFormData;
        let Ok(input) = UpdateResource::from_event(&ev) else {
            return;
        };
        let same = |a: &str, b: &str| {
            a.trim()
                .trim_end_matches('/')
                .eq_ignore_ascii_case(b.trim().trim_end_matches('/'))
        };
        if v.with_value(|r| same(&r.uri, &input.uri)) {
            update.dispatch(input);
        } else {
            new_uri.set(input.uri.trim().to_owned());
            pending.set_value(Some(input));
            confirm.set(true);
        }
    };
    view! {
        <EditableCard id="resource-facts" title="Settings" editable=use_abilities().manage_resources editing shown=ViewFn::from(move || {
                let r = v.get_value();
                view! {
                    <dl class="mt-4 grid gap-4 text-sm sm:grid-cols-2" data-testid="resource-detail">
                        <div class="sm:col-span-2">
                            <dt class=MUTED>"Audience (resource URI)"</dt>
                            <dd class="mt-1"><CopyValue value=r.uri.clone() label="resource URI"/></dd>
                        </div>
                        <div><dt class=MUTED>"Status"</dt><dd>{status(&r)}{submitted_note(&r, false)}</dd></div>
                        <div><dt class=MUTED>"Tokens"</dt><dd data-testid="resource-lifetime">{lifetime(&r, realm_default)}</dd></div>
                        <div class="sm:col-span-2"><dt class=MUTED>"Accepted scopes"</dt><dd class="font-mono text-xs break-all">{r.scopes.clone()}</dd></div>
                        <div class="sm:col-span-2">
                            <dt class="sr-only">"For its MCP server"</dt>
                            <dd class="flex flex-wrap gap-x-4 gap-y-1">
                                <a class="text-indigo-700 hover:underline dark:text-indigo-300" data-testid="protect-resource"
                                    href=crate::components::pager::with_query("/integration/protect", &[("resource", r.slug.clone())])>"Generate what protects its server →"</a>
                                <a class="text-indigo-700 hover:underline dark:text-indigo-300"
                                    href=crate::components::pager::with_query("/integration/check", &[("url", r.uri.clone())])>"Check its server →"</a>
                            </dd>
                        </div>
                    </dl>
                }
            })>
                <form id="edit-resource" class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear() on:submit=on_submit>
                    <input type="hidden" name="slug" value=v.with_value(|r| r.slug.clone())/>
                    <ResourceFields r=Some(v.get_value()) errors realm_default/>
                    <div class="sm:col-span-2">{errors.form_error()}</div>
                    <FormButtons pending=update.pending() editing/>
                </form>
        </EditableCard>
        <ConfirmDialog open=confirm title=format!("Change the audience of {}?", r.display_name)
            message="Tokens are bound to the resource URI. Tokens already issued carry the old one and stop being accepted by the MCP server once it checks the new one; clients must ask for tokens with the new resource URI, and the server's protected-resource metadata must name it."
            confirm_label="Change audience"
            on_confirm=Callback::new(move |_| { if let Some(input) = pending.get_value() { update.dispatch(input); } })>
            <dl class="mt-4 space-y-2 text-sm" data-testid="audience-change">
                <div><dt class=MUTED>"Old audience"</dt><dd class="font-mono text-xs break-all">{v.with_value(|r| r.uri.clone())}</dd></div>
                <div><dt class=MUTED>"New audience"</dt><dd class="font-mono text-xs break-all">{move || new_uri.get()}</dd></div>
            </dl>
        </ConfirmDialog>
    }
}

/// Introspection credentials for the resource's own MCP server: what it has (client, dates,
/// where to put them), or a button to create them; the secret is shown once.
#[component]
fn ResourceCredentials(
    slug: String,
    reload: RwSignal<u32>,
    /// What the resource has, loaded with the page.
    shown: Resource<Result<Option<ResourceCredentialsView>, crate::error::AppError>>,
) -> impl IntoView {
    let create = ServerAction::<CreateResourceCredentials>::new();
    let rotate = ServerAction::<RotateClientSecret>::new();
    let issued = RwSignal::new(None::<IssuedSecret>);
    let toasts = use_toasts();
    for (action, what) in [(create.value(), "created"), (rotate.value(), "rotated")] {
        Effect::new(move |_| {
            if let Some(Ok(s)) = action.get() {
                toasts.push(
                    ToastKind::Success,
                    format!("Introspection credentials {what}: copy the secret now."),
                );
                issued.set(Some(s));
                // The card and the history show what just happened.
                reload.update(|n| *n += 1);
            }
        });
    }
    let slug = StoredValue::new(slug);
    view! {
        <section class=format!("{CARD} mt-6 p-4 sm:p-6") aria-labelledby="resource-credentials" data-testid="resource-credentials">
            <h2 id="resource-credentials" class="text-lg font-semibold text-slate-900 dark:text-white">"Introspection credentials"</h2>
            <p class=format!("mt-1 {MUTED}")>"The client this MCP server authenticates as (client_secret_basic) at the introspection endpoint, to check the tokens minted for it. They get no tokens themselves. A server that verifies tokens by their signature alone needs none."</p>
            {move || issued.get().map(|s| view! { <div class="mt-4"><SecretPanel issued=s on_close=Callback::new(move |_| issued.set(None))/></div> })}
            <Transition fallback=|| view! { <Loading/> }>
                {move || shown.get().map(|result| match result {
                    Ok(Some(ResourceCredentialsView { introspection_endpoint, client: Some(c) })) => {
                        let id = StoredValue::new(c.client_id.clone());
                        let (status, ok) = crate::pages::clients::client_status(c.enabled, &c.review);
                        // The secret just issued fills the settings until "Done"; Portcullis
                        // cannot show it again.
                        let env = move || {
                            // Without it, the line is a comment: a pasted placeholder never passes
                            // for a secret.
                            let secret = issued
                                .get()
                                .filter(|s| id.with_value(|id| *id == s.client_id))
                                .map_or_else(
                                    || "# INTROSPECTION_CLIENT_SECRET: shown once, when created or rotated (Rotate secret for a new one)".to_owned(),
                                    |s| format!("INTROSPECTION_CLIENT_SECRET={}", s.secret),
                                );
                            let env = format!("INTROSPECTION_CLIENT_ID={}\n{secret}", id.get_value());
                            view! { <CopyBlock value=env label="introspection settings" testid="credentials-env"/> }
                        };
                        view! {
                            <dl class="mt-4 grid gap-4 text-sm sm:grid-cols-2">
                                <div class="min-w-0"><dt class=MUTED>"Client"</dt><dd class="flex flex-wrap items-center gap-2">
                                    <a class="break-all font-mono text-xs text-indigo-700 hover:underline dark:text-indigo-300" href=format!("/clients/{}", c.client_id)>{c.client_id.clone()}</a>
                                    <Badge ok text=status/>
                                </dd></div>
                                <div><dt class=MUTED>"Created"</dt><dd><When at=c.created.at.clone() words=c.created.ago.clone()/></dd></div>
                                <div><dt class=MUTED>"Secrets"</dt><dd data-testid="credentials-secrets">
                                    {match c.live_secrets { 0 => "None live".to_owned(), 1 => "1 live".to_owned(), n => format!("{n} live (the older ones expire after the rotation's overlap)") }}
                                    {c.newest_secret.clone().map(|m| view! { <span class=MUTED>" · newest issued " <When at=m.at words=m.ago/></span> })}
                                </dd></div>
                                <div class="min-w-0"><dt class=MUTED>"Introspection endpoint"</dt><dd class="break-all font-mono text-xs">{introspection_endpoint.clone()}</dd></div>
                            </dl>
                            <p class=format!("mt-4 {MUTED}")>"Give the MCP server these settings (the generated servers read them from the environment):"</p>
                            <div class="mt-2">{env}</div>
                            <div class="mt-4 flex flex-wrap items-center gap-3">
                                <ConfirmButton
                                    label="Rotate secret"
                                    title="Rotate the introspection secret?"
                                    message="A new secret is issued and shown once. The current one keeps working for 24 hours so the MCP server can switch over."
                                    confirm_label="Rotate"
                                    class=BTN_SMALL
                                    on_confirm=Callback::new(move |_| { rotate.dispatch(RotateClientSecret { client_id: id.get_value(), overlap_secs: 86_400 }); })
                                />
                                <ConfirmButton
                                    label="Rotate, ending old secrets now"
                                    title="End every introspection secret now?"
                                    message="A new secret is issued and shown once, and every current secret stops working at once: use it when a secret leaked. The MCP server cannot check tokens until it has the new one."
                                    confirm_label="Rotate and end old secrets"
                                    class=BTN_SMALL_DANGER
                                    on_confirm=Callback::new(move |_| { rotate.dispatch(RotateClientSecret { client_id: id.get_value(), overlap_secs: 0 }); })
                                />
                                <a class="text-sm text-indigo-700 hover:underline dark:text-indigo-300" href=format!("/clients/{}", c.client_id)>"Disable or delete on the client's page"</a>
                            </div>
                        }.into_any()
                    }
                    Ok(_) => view! {
                        <button type="button" class=format!("mt-4 {BTN_SECONDARY}") disabled=move || create.pending().get()
                            on:click=move |_| { create.dispatch(CreateResourceCredentials { slug: slug.get_value() }); }>"Create introspection credentials"</button>
                    }.into_any(),
                    Err(error) => view! { <div class="mt-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
            <div class="mt-2">{action_error(create)}{action_error(rotate)}</div>
        </section>
    }
}

/// An admin's "Reject" for a developer's waiting submission, with a reason the developer sees.
#[component]
fn RejectButton(
    name: String,
    slug: Memo<String>,
    action: ServerAction<RejectSubmission>,
) -> impl IntoView {
    let open = RwSignal::new(false);
    let reason = RwSignal::new(String::new());
    view! {
        <button type="button" class=BTN_SMALL_DANGER on:click=move |_| open.set(true)>"Reject"</button>
        <ConfirmDialog open title=format!("Reject {name}?")
            message="It stays disabled; its developer sees your reason on it and may withdraw it. You can still enable it later."
            confirm_label="Reject submission"
            confirm_disabled=Signal::derive(move || reason.get().trim().is_empty())
            on_confirm=Callback::new(move |_| {
                action.dispatch(RejectSubmission { slug: slug.get_untracked(), reason: reason.get_untracked() });
            })>
            <label class=format!("mt-4 {LABEL}") for="reject-reason">"Reason (required)"</label>
            <textarea id="reject-reason" class=format!("mt-1 {INPUT}") rows="3" maxlength="500" required
                prop:value=move || reason.get() on:input=move |ev| reason.set(event_target_value(&ev))></textarea>
        </ConfirmDialog>
    }
}

/// One resource: its settings, who may get tokens for it, its credentials and its history.
#[component]
pub fn ResourceDetailPage() -> impl IntoView {
    let params = leptos_router::hooks::use_params_map();
    let slug = Memo::new(move |_| params.with(|p| p.get("slug").unwrap_or_default()));
    let update = ServerAction::<UpdateResource>::new();
    let delete = ServerAction::<DeleteResource>::new();
    let withdraw = ServerAction::<DeleteResource>::new();
    let enable = ServerAction::<SetResourceEnabled>::new();
    let session = crate::components::layout::use_session();
    let policy = ServerAction::<crate::api::resources::SetResourcePolicy>::new();
    let reject = ServerAction::<RejectSubmission>::new();
    let (updated, toggled, policed) = (successes(update), successes(enable), successes(policy));
    let resource = Resource::new(
        // A withdrawal or rejection that fails (an admin decided meanwhile) shows the resource
        // as it is now.
        move || {
            (
                slug.get(),
                updated.get(),
                toggled.get(),
                policed.get(),
                withdraw.version().get(),
                reject.version().get(),
            )
        },
        |(s, ..)| get_resource(s),
    );
    let realm_ttl = Resource::new(|| (), |_| default_token_ttl());
    let query = leptos_router::hooks::use_query_map();
    let q = Memo::new(move |_| query.with(|m| m.get("q").unwrap_or_default()));
    let page = crate::components::pager::use_key_params();
    let reload = RwSignal::new(0u32);
    let can = use_abilities();
    // Sections a role may not see are neither shown nor loaded.
    let grants = Resource::new(
        move || (slug.get(), q.get(), page.get(), reload.get()),
        move |(slug, q, (after, before), _)| async move {
            if can.view_clients {
                resource_access(slug, q, after, before).await
            } else {
                Ok(GrantPage::default())
            }
        },
    );
    let credentials = Resource::new(
        move || (slug.get(), reload.get()),
        move |(slug, _)| async move {
            if can.manage_clients {
                resource_credentials(slug).await.map(Some)
            } else {
                Ok(None)
            }
        },
    );
    let events = Resource::new(
        move || (slug.get(), updated.get(), toggled.get(), reload.get()),
        move |(slug, ..)| async move {
            if can.view_audit {
                history("resource".to_owned(), slug).await
            } else {
                Ok(AuditPage::default())
            }
        },
    );
    let entries = Resource::new(
        move || (slug.get(), updated.get()),
        move |(slug, _)| async move {
            if can.view_registry {
                crate::api::registry::registry_entries_for(slug).await
            } else {
                Ok(Vec::new())
            }
        },
    );
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(r)) = update.value().get() {
            toasts.push(ToastKind::Success, format!("{} saved.", r.display_name));
        }
    });
    leave_after(delete, "Resource deleted.", "/resources");
    leave_after(withdraw, "Submission withdrawn.", "/resources");
    // After a rejection the reject button is gone (after enabling, the button is Disable):
    // once the page shows the change, focus goes to its title.
    let focus_title = RwSignal::new(false);
    Effect::new(move |_| {
        if resource.get().is_some_and(|r| r.is_ok()) && focus_title.get_untracked() {
            focus_title.set(false);
            crate::components::ui::focus_soon("resource-title");
        }
    });
    Effect::new(move |_| match reject.value().get() {
        Some(Ok(r)) => {
            focus_title.set(true);
            toasts.push(
                ToastKind::Success,
                format!(
                    "Submission {} rejected: its developer sees why.",
                    r.display_name
                ),
            );
        }
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match enable.value().get() {
        // The button that had focus is replaced by its opposite: focus goes to the title.
        Some(Ok(r)) => {
            focus_title.set(true);
            toasts.push(
                ToastKind::Success,
                format!(
                    "{} {}.",
                    r.display_name,
                    if r.enabled { "enabled" } else { "disabled" }
                ),
            );
        }
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    view! {
        <div class="flex flex-wrap items-center justify-between gap-2">
            <a href="/resources" class="text-sm text-indigo-600 hover:underline dark:text-indigo-300">"← Resources"</a>
            {move || view! { <CopyObjectLink kind="resources" id=slug.get() what="this resource"/> }}
        </div>
        <Transition fallback=|| view! { <Loading/> }>
            {move || resource.get().map(|result| match result {
                Ok(r) => {
                    let name = r.display_name.clone();
                    // A developer may take back their own submission while it waits.
                    let me = session.get().and_then(Result::ok).flatten().map(|i| i.email);
                    let yours = !can.manage_resources && r.submitted_by.is_some() && r.submitted_by == me;
                    let waiting = r.submitted_by.is_some() && r.rejection.is_none();
                    view! {
                        <div class="mt-2 mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
                            <div class="min-w-0">
                                <h1 id="resource-title" tabindex="-1" class=format!("{H1} break-words focus:outline-none")>{r.display_name.clone()}</h1>
                                <p class="font-mono text-sm text-slate-500 dark:text-slate-400">{r.slug.clone()}</p>
                            </div>
                            {can.manage_resources.then(|| view! { <div class="flex shrink-0 flex-wrap gap-2">
                            {waiting.then(|| view! { <RejectButton name=name.clone() slug action=reject/> })}
                            {if r.enabled {
                                view! { <ConfirmButton label="Disable" title=format!("Disable {name}?")
                                    message=crate::components::layout::with_revocation_note("Clients get no tokens for it until it is enabled again, and servers that introspect see its tokens as inactive.")
                                    confirm_label="Disable resource" class=BTN_SMALL_DANGER
                                    on_confirm=Callback::new(move |_| { enable.dispatch(SetResourceEnabled { slug: slug.get_untracked(), enabled: false }); })/> }.into_any()
                            } else {
                                view! { <button type="button" class=BTN_SMALL on:click=move |_| { enable.dispatch(SetResourceEnabled { slug: slug.get_untracked(), enabled: true }); }>"Enable"</button> }.into_any()
                            }}
                            <ConfirmButton
                                label="Delete resource"
                                title=format!("Delete {name}?")
                                message=if r.submitted_by.is_some() {
                                    "The submission is removed without ever having been live (its developer is not told). This cannot be undone.".to_owned()
                                } else {
                                    crate::components::layout::with_revocation_note("Clients can no longer get tokens for it, its grants and introspection credentials are removed, and servers that introspect see its tokens as inactive. This cannot be undone.")
                                }
                                confirm_label="Delete resource"
                                class=BTN_SMALL_DANGER
                                on_confirm=Callback::new(move |_| { delete.dispatch(DeleteResource { slug: slug.get_untracked() }); })
                            /></div> })}
                            {yours.then(|| view! { <div class="flex shrink-0 flex-wrap gap-2">
                                <ConfirmButton
                                    label="Withdraw submission"
                                    title=format!("Withdraw {}?", r.display_name)
                                    message="Your submission is deleted; admins no longer see it. You can submit it again from Protect your MCP server."
                                    confirm_label="Withdraw"
                                    class=BTN_SMALL_DANGER
                                    on_confirm=Callback::new(move |_| { withdraw.dispatch(DeleteResource { slug: slug.get_untracked() }); })
                                />
                            </div> })}
                        </div>
                        <ResourceSettings r=r.clone() update realm_default=realm_ttl.get().and_then(Result::ok)/>
                        {can.view_registry.then(|| view! { <crate::pages::registry::server::RegistryEntries entries/> })}
                        <div class="mt-6"><crate::pages::resource_policy::ResourcePolicy r=r.clone() action=policy/></div>
                        {can.view_clients.then(|| view! { <ResourceClients resource=r.clone() grants q reload/> })}
                        {can.manage_clients.then(|| view! { <ResourceCredentials slug=r.slug.clone() reload shown=credentials/> })}
                        {can.view_audit.then(|| view! { <History events/> })}
                    }.into_any()
                }
                Err(crate::error::AppError::NotFound(_)) => view! { <div class="mt-4"><crate::components::layout::NotFound/></div> }.into_any(),
                Err(error) => view! { <div class="mt-4"><ErrorMessage error/></div> }.into_any(),
            })}
        </Transition>
    }
}
