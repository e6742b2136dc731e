//! Trusting servers: the authorization servers that accept this realm's ID-JAGs.
//!
//! A client signed in here reaches their MCP servers for the same person without another
//! sign-in (identity chaining; the realm as the enterprise IdP of MCP enterprise-managed
//! authorization).
//!
//! One list; each server opens its form in place (one at a time), is disabled (confirmed) or
//! enabled, and removed (confirmed). What the other server needs of this realm (issuer, keys) is
//! shown to copy.
use crate::api::chaining::{
    CreateTrustingServer, DeleteTrustingServer, SetTrustingServerEnabled, UpdateTrustingServer,
    list_trusting_servers,
};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyValue;
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::chaining::TrustingServerView;
use leptos::prelude::*;

/// The form's inputs, named as the server's fields.
const FIELDS: &[(&str, &str)] = &[
    ("issuer", "issuer"),
    ("display_name", "display_name"),
    ("resources", "resources"),
    ("scopes", "scopes"),
    ("clients", "clients"),
];

/// The settings of a server, for the create (`v` empty) and edit forms.
#[component]
fn ServerFields(
    form: &'static str,
    v: Option<TrustingServerView>,
    errors: FieldErrors,
) -> impl IntoView {
    let f = move |name: &str| format!("{form}-{name}");
    let editing = v.is_some();
    let v = v.unwrap_or(TrustingServerView {
        id: String::new(),
        issuer: String::new(),
        display_name: String::new(),
        resources: Vec::new(),
        scopes: String::new(),
        clients: String::new(),
        enabled: true,
        updated: Default::default(),
    });
    let issuer = if editing {
        view! {
            <div class="sm:col-span-2">
                <input type="hidden" name="issuer" value=v.issuer.clone()/>
                <p class=LABEL>"Issuer"</p>
                <p class=format!("mt-1 break-all {MONO} text-slate-700 dark:text-slate-200")>{v.issuer.clone()}</p>
                <p class=format!("mt-1 {MUTED}")>"It never changes. For another server, add it as another entry."</p>
            </div>
        }
        .into_any()
    } else {
        view! {
            <Field errors name="issuer" id=f("issuer") label="Issuer" value=v.issuer.clone() required=true maxlength=2048 mono=true
                placeholder="https://tickets.example.com/oauth" class="sm:col-span-2"
                help="Its issuer identifier, as its metadata says: clients name it as the audience, and the ID-JAG is addressed to it (aud)."/>
        }
        .into_any()
    };
    view! {
        {issuer}
        <Field errors name="display_name" id=f("name") label="Name" value=v.display_name maxlength=100 placeholder="Defaults to the issuer's host"/>
        <Field errors name="scopes" id=f("scopes") label="Scopes" value=v.scopes maxlength=1000 mono=true placeholder="As the client asks"
            help="Space-separated. ID-JAGs carry only these (a client asking for more is refused). Empty: what the client asks, and that server decides."/>
        <Field errors name="resources" id=f("resources") label="Resources" value=v.resources.join("\n") kind=Kind::Lines(2) required=true maxlength=110000 mono=true
            placeholder="https://tickets.example.com/mcp" class="sm:col-span-2"
            help="Its MCP servers that ID-JAGs may name, one per line, exactly as it knows them (a trailing slash either way is the same)."/>
        <Field errors name="clients" id=f("clients") label="Clients" value=v.clients kind=Kind::Lines(3) required=true maxlength=16000 mono=true
            placeholder="service-desk -> 0oa8f5j3xY" class="sm:col-span-2"
            help="One per line: the client id here, then → and its client id at that server when it differs. Confidential clients only; each exchanges the ID tokens it got itself, and nothing else."/>
    }
}

#[component]
fn CreateServerForm(
    action: ServerAction<CreateTrustingServer>,
    on_cancel: Callback<()>,
) -> impl IntoView {
    let errors = FieldErrors::new(action, "new-tas", FIELDS);
    view! {
        <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-tas-title">
            <h2 id="new-tas-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Add a trusting server"</h2>
            <p class=MUTED>"Before the first ID-JAG works there, that server must trust this realm as an identity provider: give it this realm's issuer and keys (shown on this page), and the client ids below. Copy its issuer from its metadata: it is compared byte for byte, trailing slash included."</p>
            <ActionForm action=action attr:id="new-tas" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                <ServerFields form="new-tas" v=None errors/>
                <div class="sm:col-span-2">{errors.form_error()}</div>
                <div class="flex gap-2 sm:col-span-2">
                    <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Add it"</button>
                    <button type="button" class=BTN_SECONDARY on:click=move |_| on_cancel.run(())>"Cancel"</button>
                </div>
            </ActionForm>
        </section>
    }
}

#[component]
fn EditServerForm(
    action: ServerAction<UpdateTrustingServer>,
    v: TrustingServerView,
    on_cancel: Callback<()>,
) -> impl IntoView {
    let errors = FieldErrors::new(action, "edit-tas", FIELDS);
    crate::components::field::focus_first_when(RwSignal::new(true), "edit-tas");
    let id = v.id.clone();
    view! {
        <ActionForm action=action attr:id="edit-tas" attr:class="mt-4 grid gap-4 border-t border-slate-200 pt-4 sm:grid-cols-2 dark:border-slate-700" on:input=move |_| errors.clear()>
            <input type="hidden" name="id" value=id/>
            <ServerFields form="edit-tas" v=Some(v) errors/>
            <div class="sm:col-span-2">{errors.form_error()}</div>
            <div class="flex gap-2 sm:col-span-2">
                <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Save"</button>
                <button type="button" class=BTN_SECONDARY on:click=move |_| on_cancel.run(())>"Cancel"</button>
            </div>
        </ActionForm>
    }
}

/// The Trusting servers screen of the selected realm.
#[component]
pub fn TrustingServersPage() -> impl IntoView {
    let create = ServerAction::<CreateTrustingServer>::new();
    let update = ServerAction::<UpdateTrustingServer>::new();
    let enable = ServerAction::<SetTrustingServerEnabled>::new();
    let delete = ServerAction::<DeleteTrustingServer>::new();
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
        |_| list_trusting_servers(),
    );
    let show_create = RwSignal::new(false);
    crate::components::field::focus_first_when(show_create, "new-tas");
    let editing = RwSignal::new(None::<String>);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(t)) = create.value().get() {
            toasts.push(
                ToastKind::Success,
                format!(
                    "{} added: the clients listed may ask for its ID-JAGs now.",
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
            format!("{} disabled: no more ID-JAGs for it.", t.display_name),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match delete.value().get() {
        Some(Ok(())) => toasts.push(ToastKind::Success, "Trusting server removed."),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    view! {
        <PageHeader title="Trusting servers" description="Other authorization servers that accept this realm's ID-JAGs (MCP enterprise-managed authorization, with this realm as the identity provider): a client you list trades a person's ID token for one and gets tokens for that server's MCP servers, without the person signing in again.">
            <button type="button" class=format!("{BTN_PRIMARY} whitespace-nowrap") on:click=move |_| show_create.set(true)>"Add a server"</button>
        </PageHeader>
        <Show when=move || show_create.get()>
            <CreateServerForm action=create on_cancel=Callback::new(move |_| show_create.set(false))/>
        </Show>
        <Transition fallback=|| view! { <Loading/> }>
            {move || list.get().map(|result| match result {
                Ok(found) => view! {
                    <div class=format!("{CARD} mb-6 grid gap-4 p-4 sm:grid-cols-3")>
                        <div class="min-w-0">
                            <p class=MUTED>"ID-JAGs come from (iss)"</p>
                            <div class="mt-1"><CopyValue value=found.issuer.clone() label="this realm's issuer"/></div>
                        </div>
                        <div class="min-w-0">
                            <p class=MUTED>"Signed with the keys at"</p>
                            <div class="mt-1"><CopyValue value=found.jwks_uri.clone() label="the JWKS URL"/></div>
                        </div>
                        <div class="min-w-0">
                            <p class=MUTED>"Clients exchange ID tokens at"</p>
                            <div class="mt-1"><CopyValue value=found.token_endpoint.clone() label="the token endpoint"/></div>
                        </div>
                    </div>
                    {if found.items.is_empty() {
                        view! {
                            <div class=CARD>
                                <EmptyState title="No trusting servers" hint="Add an authorization server that trusts this realm, so that the clients you list can reach its MCP servers for the people signed in here."/>
                            </div>
                        }.into_any()
                    } else {
                        view! {
                            <ul class="space-y-4" aria-label="Trusting servers">
                                {found.items.into_iter().map(|t| view! { <ServerCard t editing update enable delete/> }).collect_view()}
                            </ul>
                        }.into_any()
                    }}
                }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}

/// One server: what the realm issues for it, and its actions.
#[component]
fn ServerCard(
    t: TrustingServerView,
    editing: RwSignal<Option<String>>,
    update: ServerAction<UpdateTrustingServer>,
    enable: ServerAction<SetTrustingServerEnabled>,
    delete: ServerAction<DeleteTrustingServer>,
) -> impl IntoView {
    let id = StoredValue::new(t.id.clone());
    let open = move || editing.get().as_deref() == Some(id.get_value().as_str());
    let name = t.display_name.clone();
    let heading = format!("tas-{}", t.id);
    let labelled_by = heading.clone();
    let edit_v = StoredValue::new(t.clone());
    let scopes = if t.scopes.is_empty() {
        view! { <dd>"As the client asks"</dd> }.into_any()
    } else {
        view! { <dd class=format!("min-w-0 break-words {MONO}")>{t.scopes.clone()}</dd> }.into_any()
    };
    view! {
        <li class=format!("{CARD} p-4") data-testid="trusting-server" aria-labelledby=labelled_by>
            <div class="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
                <div class="min-w-0 space-y-1">
                    <h2 id=heading class="break-words font-medium text-slate-900 dark:text-white">{t.display_name.clone()}
                        <span class="ml-2"><Pill tone=if t.enabled { Tone::Good } else { Tone::Off } text=if t.enabled { "Enabled" } else { "Disabled" }/></span>
                    </h2>
                    <p class=format!("break-all {MONO} text-slate-600 dark:text-slate-300")>{t.issuer.clone()}</p>
                    <dl class="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
                        <dt class=MUTED>"Resources"</dt>
                        <dd class="min-w-0">
                            <ul>{t.resources.iter().map(|r| view! { <li class=format!("break-all {MONO}")>{r.clone()}</li> }).collect_view()}</ul>
                        </dd>
                        <dt class=MUTED>"Scopes"</dt>{scopes}
                        <dt class=MUTED>"Clients"</dt>
                        <dd class="min-w-0">
                            <ul>{t.clients.lines().map(|c| view! { <li class=format!("break-all {MONO}")>{c.replace("->", "→")}</li> }).collect_view()}</ul>
                        </dd>
                        <dt class=MUTED>"Changed"</dt><dd><When at=t.updated.at.clone() words=t.updated.ago.clone()/></dd>
                    </dl>
                </div>
                <div class="flex shrink-0 flex-wrap gap-2 sm:flex-nowrap sm:justify-end">
                    <button type="button" class=BTN_SMALL aria-expanded=move || open().to_string()
                        on:click=move |_| editing.set(if open() { None } else { Some(id.get_value()) })>"Edit"</button>
                    {if t.enabled {
                        view! {
                            <ConfirmButton label="Disable" title=format!("Disable {name}?")
                                message="The realm issues no more ID-JAGs for it. Those issued already expire within five minutes."
                                confirm_label="Disable" class=BTN_SMALL_DANGER
                                on_confirm=Callback::new(move |_| { enable.dispatch(SetTrustingServerEnabled { id: id.get_value(), enabled: false }); })/>
                        }.into_any()
                    } else {
                        view! {
                            <button type="button" class=BTN_SMALL
                                on:click=move |_| { enable.dispatch(SetTrustingServerEnabled { id: id.get_value(), enabled: true }); }>"Enable"</button>
                        }.into_any()
                    }}
                    <ConfirmButton label="Remove" title=format!("Remove {}?", t.display_name)
                        message="The realm issues no more ID-JAGs for it. Tokens that server already issued are its own to revoke."
                        confirm_label="Remove" class=BTN_SMALL_DANGER
                        on_confirm=Callback::new(move |_| { delete.dispatch(DeleteTrustingServer { id: id.get_value() }); })/>
                </div>
            </div>
            <Show when=open>
                <EditServerForm action=update v=edit_v.get_value() on_cancel=Callback::new(move |_| editing.set(None))/>
            </Show>
        </li>
    }
}
