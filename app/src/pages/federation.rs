//! Identity providers: the enterprise IdPs whose ID-JAGs (MCP enterprise-managed
//! authorization) the realm's token endpoint trades for access tokens.
//!
//! One list; each provider opens its form in place (one at a time), is disabled (confirmed) or
//! enabled, and removed (confirmed). The realm's issuer and token endpoint are shown to copy
//! into the IdP's settings.
use crate::api::federation::{
    CheckTrustedIssuerKeys, CreateTrustedIssuer, DeleteTrustedIssuer, SetTrustedIssuerEnabled,
    UpdateTrustedIssuer, list_trusted_issuers,
};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyValue;
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::federation::TrustedIssuerView;
use leptos::prelude::*;

/// The form's inputs, named as the server's fields.
const FIELDS: &[(&str, &str)] = &[
    ("issuer", "issuer"),
    ("display_name", "display_name"),
    ("jwks_uri", "jwks_uri"),
    ("jwks", "jwks"),
    ("algorithms", "algorithms"),
    ("clients", "clients"),
];

/// The settings of a provider, for the create (`v` empty) and edit forms.
#[component]
fn IssuerFields(
    form: &'static str,
    v: Option<TrustedIssuerView>,
    errors: FieldErrors,
) -> impl IntoView {
    let f = move |name: &str| format!("{form}-{name}");
    let editing = v.is_some();
    let v = v.unwrap_or(TrustedIssuerView {
        id: String::new(),
        issuer: String::new(),
        display_name: String::new(),
        jwks_uri: String::new(),
        jwks: String::new(),
        inline_keys: 0,
        algorithms: String::new(),
        clients: Vec::new(),
        create_people: false,
        link_by_email: false,
        enabled: true,
        updated: Default::default(),
    });
    let issuer = if editing {
        view! {
            <div class="sm:col-span-2">
                <input type="hidden" name="issuer" value=v.issuer.clone()/>
                <p class=LABEL>"Issuer"</p>
                <p class=format!("mt-1 {MONO} text-slate-700 dark:text-slate-200")>{v.issuer.clone()}</p>
                <p class=format!("mt-1 {MUTED}")>"It never changes: people are linked to the provider by it. To trust another issuer, add it as another provider."</p>
            </div>
        }
        .into_any()
    } else {
        view! {
            <Field errors name="issuer" id=f("issuer") label="Issuer" value=v.issuer.clone() required=true maxlength=2048 mono=true
                placeholder="https://corp.okta.com/oauth2/default" class="sm:col-span-2"
                help="The iss of its assertions, exactly as it signs them (a trailing slash counts)."/>
        }
        .into_any()
    };
    view! {
        {issuer}
        <Field errors name="display_name" id=f("name") label="Name" value=v.display_name maxlength=100 placeholder="Defaults to the issuer's host"/>
        <Field errors name="algorithms" id=f("algorithms") label="Algorithms" value=v.algorithms maxlength=100 placeholder="ES256 RS256"
            help="Space-separated: ES256, RS256, EdDSA. Never none or HMAC."/>
        <Field errors name="jwks_uri" id=f("jwks-uri") label="JWKS URL" value=v.jwks_uri kind=Kind::Url maxlength=2048 mono=true
            placeholder="https://corp.okta.com/oauth2/default/v1/keys" class="sm:col-span-2"
            help="Fetched over HTTPS from public addresses only, cached, and refetched when it signs with a new key."/>
        <Field errors name="jwks" id=f("jwks") label="…or its public keys (JWK Set)" value=v.jwks kind=Kind::Lines(3) mono=true
            placeholder="{\"keys\": [{\"kty\": \"EC\", …}]}" class="sm:col-span-2"/>
        <Field errors name="clients" id=f("clients") label="Clients" value=v.clients.join(" ") kind=Kind::Lines(2) required=true maxlength=13000 mono=true
            placeholder="agent-app" class="sm:col-span-2"
            help="The client ids that may present its assertions, separated by spaces. Confidential clients only: each authenticates as it does for any grant. They get tokens for any enabled MCP server an assertion names, without a grant (within the server's rules for apps acting for people)."/>
        <fieldset class="sm:col-span-2">
            <legend class=LABEL>"People it names whom no one is linked to yet"</legend>
            <label class="mt-2 flex items-start gap-2 text-sm">
                <input type="checkbox" id=f("link") name="link_by_email" value="on" checked=v.link_by_email class="mt-1"/>
                <span>"Link them to the person with the same email"
                    <span class=format!("block {MUTED}")>"Only if you trust this provider to vouch for those addresses: whoever it says owns an email acts as that person here. An email it marks unverified never counts."</span>
                </span>
            </label>
            <label class="mt-2 flex items-start gap-2 text-sm">
                <input type="checkbox" id=f("create") name="create_people" value="on" checked=v.create_people class="mt-1"/>
                <span>"Create them as new people"
                    <span class=format!("block {MUTED}")>"Just in time, with the email and name of the assertion, no password and no roles. Never in place of someone who already has the email."</span>
                </span>
            </label>
            <p class=format!("mt-2 {MUTED}")>"With neither, only people you link on their page (People → a person → Link an identity) get tokens."</p>
        </fieldset>
    }
}

#[component]
fn CreateIssuerForm(
    action: ServerAction<CreateTrustedIssuer>,
    on_cancel: Callback<()>,
) -> impl IntoView {
    let errors = FieldErrors::new(action, "new-idp", FIELDS);
    view! {
        <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-idp-title">
            <h2 id="new-idp-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Trust an identity provider"</h2>
            <p class=MUTED>"Its ID-JAGs buy the clients you list access tokens for the people it names, at the MCP servers the assertions name, with no consent screen."</p>
            <ActionForm action=action attr:id="new-idp" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                <IssuerFields form="new-idp" v=None errors/>
                <div class="sm:col-span-2">{errors.form_error()}</div>
                <div class="flex gap-2 sm:col-span-2">
                    <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Trust it"</button>
                    <button type="button" class=BTN_SECONDARY on:click=move |_| on_cancel.run(())>"Cancel"</button>
                </div>
            </ActionForm>
        </section>
    }
}

#[component]
fn EditIssuerForm(
    action: ServerAction<UpdateTrustedIssuer>,
    v: TrustedIssuerView,
    on_cancel: Callback<()>,
) -> impl IntoView {
    let errors = FieldErrors::new(action, "edit-idp", FIELDS);
    // Opened by its Edit button: keyboard users continue in its first field.
    crate::components::field::focus_first_when(RwSignal::new(true), "edit-idp");
    let id = v.id.clone();
    view! {
        <ActionForm action=action attr:id="edit-idp" attr:class="mt-4 grid gap-4 border-t border-slate-200 pt-4 sm:grid-cols-2 dark:border-slate-700" on:input=move |_| errors.clear()>
            <input type="hidden" name="id" value=id/>
            <IssuerFields form="edit-idp" v=Some(v) errors/>
            <div class="sm:col-span-2">{errors.form_error()}</div>
            <div class="flex gap-2 sm:col-span-2">
                <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Save"</button>
                <button type="button" class=BTN_SECONDARY on:click=move |_| on_cancel.run(())>"Cancel"</button>
            </div>
        </ActionForm>
    }
}

/// What the provider does with people nobody is linked to, in words.
fn people_policy(t: &TrustedIssuerView) -> &'static str {
    match (t.link_by_email, t.create_people) {
        (true, true) => "Links people by email, else creates them",
        (true, false) => "Links people by email",
        (false, true) => "Creates new people",
        (false, false) => "Linked people only",
    }
}

/// The Identity providers screen of the selected realm.
#[component]
pub fn IdentityProvidersPage() -> impl IntoView {
    let create = ServerAction::<CreateTrustedIssuer>::new();
    let update = ServerAction::<UpdateTrustedIssuer>::new();
    let enable = ServerAction::<SetTrustedIssuerEnabled>::new();
    let delete = ServerAction::<DeleteTrustedIssuer>::new();
    let changed = (
        successes(create),
        successes(update),
        successes(enable),
        successes(delete),
    );
    let list = Resource::new(
        move || {
            (
                changed.0.get(),
                changed.1.get(),
                changed.2.get(),
                changed.3.get(),
            )
        },
        |_| list_trusted_issuers(),
    );
    let show_create = RwSignal::new(false);
    crate::components::field::focus_first_when(show_create, "new-idp");
    let editing = RwSignal::new(None::<String>);
    let check = ServerAction::<CheckTrustedIssuerKeys>::new();
    // Which card the last key check was for (its answer shows there).
    let checked_for = RwSignal::new(None::<String>);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(t)) = create.value().get() {
            toasts.push(
                ToastKind::Success,
                format!(
                    "{} is trusted; its assertions are accepted now.",
                    t.display_name
                ),
            );
            show_create.set(false);
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(t)) = update.value().get() {
            toasts.push(ToastKind::Success, format!("{} saved.", t.display_name));
            editing.set(None);
        }
    });
    Effect::new(move |_| match enable.value().get() {
        Some(Ok(t)) if t.enabled => {
            toasts.push(ToastKind::Success, format!("{} enabled.", t.display_name))
        }
        Some(Ok(t)) => toasts.push(
            ToastKind::Success,
            format!("{} disabled: its assertions are refused.", t.display_name),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match delete.value().get() {
        Some(Ok(())) => toasts.push(ToastKind::Success, "Identity provider removed."),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    view! {
        <PageHeader title="Identity providers" description="Enterprise identity providers whose ID-JAGs (MCP enterprise-managed authorization) this realm trades for access tokens: the provider decides which people reach which MCP servers, with no consent screen here.">
            <button type="button" class=format!("{BTN_PRIMARY} whitespace-nowrap") on:click=move |_| show_create.set(true)>"Trust a provider"</button>
        </PageHeader>
        <Show when=move || show_create.get()>
            <CreateIssuerForm action=create on_cancel=Callback::new(move |_| show_create.set(false))/>
        </Show>
        <Transition fallback=|| view! { <Loading/> }>
            {move || list.get().map(|result| match result {
                Ok(found) => view! {
                    <div class=format!("{CARD} mb-6 grid gap-4 p-4 sm:grid-cols-2")>
                        <div class="min-w-0">
                            <p class=MUTED>"Assertions are addressed to (aud)"</p>
                            <div class="mt-1"><CopyValue value=found.issuer.clone() label="this realm's issuer"/></div>
                        </div>
                        <div class="min-w-0">
                            <p class=MUTED>"Clients present them at (grant jwt-bearer)"</p>
                            <div class="mt-1"><CopyValue value=found.token_endpoint.clone() label="the token endpoint"/></div>
                        </div>
                    </div>
                    {if found.items.is_empty() {
                        view! {
                            <div class=CARD>
                                <EmptyState title="No identity providers" hint="Trust your company's identity provider so that the apps it lists can trade its ID-JAGs for tokens here."/>
                            </div>
                        }.into_any()
                    } else {
                        view! {
                            <ul class="space-y-4" aria-label="Identity providers">
                                {found.items.into_iter().map(|t| view! { <IssuerCard t editing update enable delete check checked_for/> }).collect_view()}
                            </ul>
                        }.into_any()
                    }}
                }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}

/// One provider: what it is trusted with, and its actions.
#[component]
fn IssuerCard(
    t: TrustedIssuerView,
    editing: RwSignal<Option<String>>,
    update: ServerAction<UpdateTrustedIssuer>,
    enable: ServerAction<SetTrustedIssuerEnabled>,
    delete: ServerAction<DeleteTrustedIssuer>,
    check: ServerAction<CheckTrustedIssuerKeys>,
    checked_for: RwSignal<Option<String>>,
) -> impl IntoView {
    let id = StoredValue::new(t.id.clone());
    // The last check's answer, on the card it was asked for, once it is in.
    let checked = move || {
        (checked_for.get().as_deref() == Some(id.get_value().as_str()) && !check.pending().get())
            .then(|| check.value().get())
            .flatten()
    };
    let open = move || editing.get().as_deref() == Some(id.get_value().as_str());
    let keys = if t.jwks_uri.is_empty() {
        format!(
            "{} pasted public key{}",
            t.inline_keys,
            if t.inline_keys == 1 { "" } else { "s" }
        )
    } else {
        t.jwks_uri.clone()
    };
    let name = t.display_name.clone();
    let heading = format!("idp-{}", t.id);
    let labelled_by = heading.clone();
    let edit_v = StoredValue::new(t.clone());
    view! {
        <li class=format!("{CARD} p-4") data-testid="idp" aria-labelledby=labelled_by>
            <div class="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
                <div class="min-w-0 space-y-1">
                    <h2 id=heading class="break-words font-medium text-slate-900 dark:text-white">{t.display_name.clone()}
                        <span class="ml-2"><Pill tone=if t.enabled { Tone::Good } else { Tone::Off } text=if t.enabled { "Enabled" } else { "Disabled" }/></span>
                    </h2>
                    <p class=format!("{MONO} text-slate-600 dark:text-slate-300")>{t.issuer.clone()}</p>
                    <dl class="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
                        <dt class=MUTED>"Keys"</dt><dd class="min-w-0 break-all">{keys}</dd>
                        <dt class=MUTED>"Algorithms"</dt><dd>{t.algorithms.clone()}</dd>
                        <dt class=MUTED>"Clients"</dt><dd class=format!("min-w-0 {MONO}")>{t.clients.join(" ")}</dd>
                        <dt class=MUTED>"People"</dt><dd>{people_policy(&t)}</dd>
                        <dt class=MUTED>"Changed"</dt><dd><When at=t.updated.at.clone() words=t.updated.ago.clone()/></dd>
                    </dl>
                </div>
                <div class="flex shrink-0 flex-wrap gap-2 sm:flex-nowrap sm:justify-end">
                    <button type="button" class=BTN_SMALL aria-expanded=move || open().to_string()
                        on:click=move |_| editing.set(if open() { None } else { Some(id.get_value()) })>"Edit"</button>
                    <button type="button" class=BTN_SMALL disabled=move || check.pending().get()
                        on:click=move |_| { checked_for.set(Some(id.get_value())); check.dispatch(CheckTrustedIssuerKeys { id: id.get_value() }); }>"Check keys"</button>
                    {if t.enabled {
                        view! {
                            <ConfirmButton label="Disable" title=format!("Disable {name}?")
                                message="Its assertions are refused from now on, and the tokens they bought are revoked: servers that introspect refuse them at once, servers that verify tokens themselves when they expire."
                                confirm_label="Disable" class=BTN_SMALL_DANGER
                                on_confirm=Callback::new(move |_| { enable.dispatch(SetTrustedIssuerEnabled { id: id.get_value(), enabled: false }); })/>
                        }.into_any()
                    } else {
                        view! {
                            <button type="button" class=BTN_SMALL
                                on:click=move |_| { enable.dispatch(SetTrustedIssuerEnabled { id: id.get_value(), enabled: true }); }>"Enable"</button>
                        }.into_any()
                    }}
                    <ConfirmButton label="Remove" title=format!("Stop trusting {}?", t.display_name)
                        message="Its assertions are refused from now on, the tokens they bought are revoked, and its links to people are removed. The people it created stay."
                        confirm_label="Remove" class=BTN_SMALL_DANGER
                        on_confirm=Callback::new(move |_| { delete.dispatch(DeleteTrustedIssuer { id: id.get_value() }); })/>
                </div>
            </div>
            <div role="status" aria-live="polite" data-testid="idp-keys">
                {move || checked().map(|r| match r {
                    Ok(keys) if keys.is_empty() => view! { <p class="mt-3 text-sm text-amber-700 dark:text-amber-300">"No usable key: assertions cannot be verified."</p> }.into_any(),
                    Ok(keys) => view! { <p class="mt-3 break-all text-sm text-emerald-700 dark:text-emerald-300">"Keys now: " {keys.join(", ")}</p> }.into_any(),
                    Err(e) => view! { <p class="mt-3 break-words text-sm text-red-700 dark:text-red-300">{e.to_string()}</p> }.into_any(),
                })}
            </div>
            <Show when=open>
                <EditIssuerForm action=update v=edit_v.get_value() on_cancel=Callback::new(move |_| editing.set(None))/>
            </Show>
        </li>
    }
}
