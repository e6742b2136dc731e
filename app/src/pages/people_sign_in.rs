//! Sign-in providers for a realm's people (brokering).
//!
//! The company's OpenID Connect providers the realm's sign-in page offers, which groups give
//! which roles, units and rings, and whether the page still takes the people's own password.
//!
//! One list; each provider opens its form in place (one at a time), tests its connection, is
//! disabled (confirmed) or enabled, and removed (confirmed, only when nobody comes from it). Its
//! redirect URI is shown to copy into the provider's settings.
use crate::api::brokering::{
    CreateRealmProvider, DeleteRealmProvider, SetRealmPasswordSignIn, SetRealmProviderEnabled,
    TestRealmProvider, UpdateRealmProvider, realm_sign_in,
};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyValue;
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::pages::sso::DiscoveryResult;
use crate::types::sso::{RealmProviderView, RealmSignInView};
use leptos::prelude::*;

/// The form's inputs, named as the server's fields.
const FIELDS: &[(&str, &str)] = &[
    ("display_name", "display_name"),
    ("button_text", "button_text"),
    ("issuer", "issuer"),
    ("client_id", "client_id"),
    ("client_secret", "client_secret"),
    ("scopes", "scopes"),
    ("groups_claim", "groups_claim"),
    ("group_mapping", "group_mapping"),
];

const MAPPING_HELP: &str = "One rule per line: GROUP -> role:NAME, GROUP -> unit:ID or GROUP -> ring:ID (* is everyone it signs in; # starts a comment). At every sign-in a person gets what their groups map to and loses what the mapping names and no group of theirs gives; roles, units and rings it does not name stay as admins set them.";

/// The settings of a provider, for the create (`v` empty) and edit forms.
#[component]
fn ProviderFields(
    form: &'static str,
    v: Option<RealmProviderView>,
    errors: FieldErrors,
) -> impl IntoView {
    let f = move |name: &str| format!("{form}-{name}");
    let editing = v.is_some();
    let has_secret = v.as_ref().is_some_and(|v| v.has_secret);
    let v = v.unwrap_or(RealmProviderView {
        id: String::new(),
        display_name: String::new(),
        button_text: String::new(),
        issuer: String::new(),
        client_id: String::new(),
        has_secret: false,
        scopes: "openid email profile".into(),
        groups_claim: "groups".into(),
        trust_email: false,
        group_mapping: String::new(),
        people: 0,
        missing: Vec::new(),
        redirect_uri: String::new(),
        enabled: true,
        updated: Default::default(),
    });
    let secret_help = if editing && has_secret {
        "A secret is stored (encrypted with the master key). Leave empty to keep it."
    } else {
        "Encrypted with the master key; never shown again. Leave empty for a public client (PKCE only)."
    };
    view! {
        <Field errors name="display_name" id=f("name") label="Name" value=v.display_name required=true maxlength=100 placeholder="Acme Okta"/>
        <Field errors name="button_text" id=f("button") label="Button text" value=v.button_text maxlength=100 placeholder="Defaults to Sign in with <name>"/>
        {if editing {
            view! {
                <div class="sm:col-span-2">
                    <input type="hidden" name="issuer" value=v.issuer.clone()/>
                    <p class=LABEL>"Issuer"</p>
                    <p class=format!("mt-1 break-all {MONO} text-slate-700 dark:text-slate-200")>{v.issuer.clone()}</p>
                    <p class=format!("mt-1 {MUTED}")>"It never changes: people are linked to the provider by the subjects its issuer names. For another issuer, add another provider."</p>
                </div>
            }.into_any()
        } else {
            view! {
                <Field errors name="issuer" id=f("issuer") label="Issuer" value=v.issuer.clone() required=true maxlength=2048 mono=true
                    placeholder="https://acme.okta.com" class="sm:col-span-2"
                    help="Its discovery document is at <issuer>/.well-known/openid-configuration; the issuer it names must match exactly."/>
            }.into_any()
        }}
        <Field errors name="client_id" id=f("client-id") label="Client ID" value=v.client_id required=true maxlength=255 mono=true/>
        <Field errors name="client_secret" id=f("client-secret") label="Client secret" kind=Kind::Password maxlength=1024 autocomplete="new-password" help=secret_help/>
        {editing.then(|| view! {
            <label class="flex items-start gap-2 text-sm sm:col-span-2">
                <input type="checkbox" id=f("clear-secret") name="clear_secret" value="on" class="mt-1"/>
                <span>"Forget the stored secret (a public client)"</span>
            </label>
        })}
        <Field errors name="scopes" id=f("scopes") label="Scopes" value=v.scopes maxlength=2000 mono=true
            help="openid is always asked for. Add the scope that releases groups if your provider has one."/>
        <Field errors name="groups_claim" id=f("groups-claim") label="Groups claim" value=v.groups_claim maxlength=100 mono=true
            help="Read from the ID token, else from userinfo: a list of strings or one string."/>
        <label class="flex items-start gap-2 text-sm sm:col-span-2">
            <input type="checkbox" id=f("trust-email") name="trust_email" value="on" checked=v.trust_email class="mt-1"/>
            <span>"Trust its emails when it does not say whether they are verified"
                <span class=format!("block {MUTED}")>"A new person is made only from an email the provider marks verified (or, ticked, does not mark at all). Someone who already has that email here must enter their password once to connect the provider: never by email alone."</span>
            </span>
        </label>
        <Field errors name="group_mapping" id=f("mapping") label="Group mapping" value=v.group_mapping kind=Kind::Lines(5) mono=true
            class="sm:col-span-2" placeholder="Platform Engineering -> unit:platform\nengineering -> ring:canary\n* -> role:mcp-user" help=MAPPING_HELP/>
    }
}

#[component]
fn CreateProviderForm(
    action: ServerAction<CreateRealmProvider>,
    on_cancel: Callback<()>,
) -> impl IntoView {
    let errors = FieldErrors::new(action, "new-realm-sso", FIELDS);
    view! {
        <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-realm-sso-title">
            <h2 id="new-realm-sso-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Add a sign-in provider"</h2>
            <p class=MUTED>"Register Portcullis at your provider as a web application with the authorization code flow; once added, copy the redirect URI shown on its card into the provider."</p>
            <ActionForm action=action attr:id="new-realm-sso" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                <ProviderFields form="new-realm-sso" v=None errors/>
                <div class="sm:col-span-2">{errors.form_error()}</div>
                <div class="flex gap-2 sm:col-span-2">
                    <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Add provider"</button>
                    <button type="button" class=BTN_SECONDARY on:click=move |_| on_cancel.run(())>"Cancel"</button>
                </div>
            </ActionForm>
        </section>
    }
}

#[component]
fn EditProviderForm(
    action: ServerAction<UpdateRealmProvider>,
    v: RealmProviderView,
    on_cancel: Callback<()>,
) -> impl IntoView {
    let errors = FieldErrors::new(action, "edit-realm-sso", FIELDS);
    crate::components::field::focus_first_when(RwSignal::new(true), "edit-realm-sso");
    let id = v.id.clone();
    view! {
        <ActionForm action=action attr:id="edit-realm-sso" attr:class="mt-4 grid gap-4 border-t border-slate-200 pt-4 sm:grid-cols-2 dark:border-slate-700" on:input=move |_| errors.clear()>
            <input type="hidden" name="id" value=id/>
            <ProviderFields form="edit-realm-sso" v=Some(v) errors/>
            <div class="sm:col-span-2">{errors.form_error()}</div>
            <div class="flex gap-2 sm:col-span-2">
                <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Save"</button>
                <button type="button" class=BTN_SECONDARY on:click=move |_| on_cancel.run(())>"Cancel"</button>
            </div>
        </ActionForm>
    }
}

/// The realm's sign-in providers for its people.
#[component]
pub fn PeopleSignInPage() -> impl IntoView {
    let create = ServerAction::<CreateRealmProvider>::new();
    let update = ServerAction::<UpdateRealmProvider>::new();
    let enable = ServerAction::<SetRealmProviderEnabled>::new();
    let delete = ServerAction::<DeleteRealmProvider>::new();
    let password = ServerAction::<SetRealmPasswordSignIn>::new();
    let changed = (
        successes(create),
        successes(update),
        successes(enable),
        successes(delete),
        successes(password),
    );
    let view = Resource::new(
        move || {
            (
                changed.0.get(),
                changed.1.get(),
                changed.2.get(),
                changed.3.get(),
                changed.4.get(),
            )
        },
        |_| realm_sign_in(),
    );
    let show_create = RwSignal::new(false);
    crate::components::field::focus_first_when(show_create, "new-realm-sso");
    let editing = RwSignal::new(None::<String>);
    let test = ServerAction::<TestRealmProvider>::new();
    let tested_for = RwSignal::new(None::<String>);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(_)) = create.value().get() {
            toasts.push(
                ToastKind::Success,
                "Provider added. Register its redirect URI at the provider, then test the connection.",
            );
            show_create.set(false);
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = update.value().get() {
            toasts.push(
                ToastKind::Success,
                "Saved: it applies from each person's next sign-in.",
            );
            editing.set(None);
        }
    });
    for (action, done) in [
        (enable.value(), "Saved."),
        (delete.value(), "Sign-in provider removed."),
    ] {
        Effect::new(move |_| match action.get() {
            Some(Ok(_)) => toasts.push(ToastKind::Success, done),
            Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
            None => {}
        });
    }
    Effect::new(move |_| match password.value().get() {
        Some(Ok(v)) if v.password_sign_in => toasts.push(
            ToastKind::Success,
            "The sign-in page takes people's passwords again.",
        ),
        Some(Ok(_)) => toasts.push(
            ToastKind::Success,
            "The sign-in page no longer takes a password: people sign in through a provider.",
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    view! {
        <PageHeader title="Sign-in providers" description="The company identity providers this realm's people sign in with when an MCP client or portcullis-cli sends them to its sign-in page. A first sign-in creates the person; their groups decide their roles and which registry servers reach them (units and rings). Console accounts sign in through Installation → Single sign-on; identity providers whose ID-JAG assertions this realm accepts are under Identity providers.">
            <button type="button" class=format!("{BTN_PRIMARY} whitespace-nowrap") on:click=move |_| show_create.set(true)>"Add a provider"</button>
        </PageHeader>
        <Show when=move || show_create.get()>
            <CreateProviderForm action=create on_cancel=Callback::new(move |_| show_create.set(false))/>
        </Show>
        <Transition fallback=|| view! { <Loading/> }>
            {move || view.get().map(|result| match result {
                Ok(v) => view! { <SignInView v editing update enable delete password test tested_for/> }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}

/// The password switch and the providers.
#[component]
fn SignInView(
    v: RealmSignInView,
    editing: RwSignal<Option<String>>,
    update: ServerAction<UpdateRealmProvider>,
    enable: ServerAction<SetRealmProviderEnabled>,
    delete: ServerAction<DeleteRealmProvider>,
    password: ServerAction<SetRealmPasswordSignIn>,
    test: ServerAction<TestRealmProvider>,
    tested_for: RwSignal<Option<String>>,
) -> impl IntoView {
    let on = v.password_sign_in;
    let list = if v.providers.is_empty() {
        view! {
            <div class=CARD>
                <EmptyState title="No sign-in providers" hint="Add your company's OpenID Connect provider (Okta, Entra ID, Google Workspace, Keycloak…): its button then appears on this realm's sign-in page, beside the password."/>
            </div>
        }
        .into_any()
    } else {
        view! {
            <ul class="space-y-4" aria-label="Sign-in providers">
                {v.providers.into_iter().map(|s| view! { <ProviderCard s editing update enable delete test tested_for/> }).collect_view()}
            </ul>
        }
        .into_any()
    };
    view! {
        <section class=format!("{CARD} mb-6 flex flex-col gap-3 p-4 sm:flex-row sm:items-center sm:justify-between") data-testid="realm-password-sign-in" aria-labelledby="realm-password-title">
            <div class="min-w-0">
                <h2 id="realm-password-title" class="font-medium text-slate-900 dark:text-white">"Password sign-in in " {v.realm.clone()}
                    <span class="ml-2"><Pill tone=if on { Tone::Good } else { Tone::Off } text=if on { "On" } else { "Off" }/></span>
                </h2>
                <p class=MUTED>{if on {
                    "People with a password may sign in with it, beside the providers."
                } else {
                    "The sign-in page offers the providers only; passwords are refused."
                }}</p>
            </div>
            <div class="shrink-0">
                {if on {
                    view! {
                        <ConfirmButton label="Turn off" title="Turn password sign-in off?"
                            message="This realm's sign-in page will offer its providers only; people's passwords are refused from now on. Sessions already open stay."
                            confirm_label="Turn off" class=BTN_SMALL_DANGER
                            on_confirm=Callback::new(move |_| { password.dispatch(SetRealmPasswordSignIn { on: false }); })/>
                    }.into_any()
                } else {
                    view! {
                        <button type="button" class=BTN_SMALL disabled=move || password.pending().get()
                            on:click=move |_| { password.dispatch(SetRealmPasswordSignIn { on: true }); }>"Turn on"</button>
                    }.into_any()
                }}
            </div>
        </section>
        {list}
    }
}

/// One provider: its settings, its mapping, its redirect URI, and its actions.
#[component]
fn ProviderCard(
    s: RealmProviderView,
    editing: RwSignal<Option<String>>,
    update: ServerAction<UpdateRealmProvider>,
    enable: ServerAction<SetRealmProviderEnabled>,
    delete: ServerAction<DeleteRealmProvider>,
    test: ServerAction<TestRealmProvider>,
    tested_for: RwSignal<Option<String>>,
) -> impl IntoView {
    let id = StoredValue::new(s.id.clone());
    let tested = move || {
        (tested_for.get().as_deref() == Some(id.get_value().as_str()) && !test.pending().get())
            .then(|| test.value().get())
            .flatten()
    };
    let open = move || editing.get().as_deref() == Some(id.get_value().as_str());
    let name = s.display_name.clone();
    let heading = format!("realm-sso-{}", s.id);
    let labelled_by = heading.clone();
    let edit_v = StoredValue::new(s.clone());
    let people = match s.people {
        0 => "Nobody yet".to_owned(),
        1 => "1 person".to_owned(),
        n => format!("{n} people"),
    };
    let missing = (!s.missing.is_empty()).then(|| {
        view! {
            <p role="alert" data-testid="realm-sso-missing" class="mt-3 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900 break-words dark:border-amber-900 dark:bg-amber-950 dark:text-amber-200">
                "Its mapping names what the registry no longer has: " {s.missing.join(", ")}
                ". Nobody is added there until it exists again; edit the mapping or add it back under MCP registry → Rings & units."
            </p>
        }
    });
    let blocks = match s.people {
        0 => "Nobody comes from it yet.".to_owned(),
        1 => "The 1 person linked to it can neither sign in nor refresh meanwhile, and their sign-in sessions and tokens end now.".to_owned(),
        n => format!("The {n} people linked to it can neither sign in nor refresh meanwhile, and their sign-in sessions and tokens end now."),
    };
    let mapping = if s.group_mapping.is_empty() {
        view! { <dd>"None: people get no role, unit or ring from their groups"</dd> }.into_any()
    } else {
        view! { <dd class=format!("min-w-0 whitespace-pre-wrap break-words {MONO}") data-testid="realm-sso-mapping">{s.group_mapping.clone()}</dd> }.into_any()
    };
    view! {
        <li class=format!("{CARD} p-4") data-testid="realm-sso-provider" aria-labelledby=labelled_by>
            <div class="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
                <div class="min-w-0 space-y-1">
                    <h2 id=heading class="break-words font-medium text-slate-900 dark:text-white">{s.display_name.clone()}
                        <span class="ml-2"><Pill tone=if s.enabled { Tone::Good } else { Tone::Off } text=if s.enabled { "Enabled" } else { "Disabled" }/></span>
                    </h2>
                    <p class=format!("break-all {MONO} text-slate-600 dark:text-slate-300")>{s.issuer.clone()}</p>
                    <dl class="grid gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr]">
                        <dt class=MUTED>"Client ID"</dt><dd class=format!("min-w-0 break-all {MONO}")>{s.client_id.clone()}</dd>
                        <dt class=MUTED>"Client secret"</dt><dd>{if s.has_secret { "Stored (encrypted)" } else { "None (public client)" }}</dd>
                        <dt class=MUTED>"Button"</dt><dd class="min-w-0 break-words">{s.button_text.clone()}</dd>
                        <dt class=MUTED>"Scopes"</dt><dd class=format!("min-w-0 break-words {MONO}")>{s.scopes.clone()}</dd>
                        <dt class=MUTED>"Groups claim"</dt><dd class=MONO>{s.groups_claim.clone()}</dd>
                        <dt class=MUTED>"Emails"</dt><dd>{if s.trust_email { "Verified, or not marked" } else { "Verified only" }}</dd>
                        <dt class=MUTED>"Group mapping"</dt>{mapping}
                        <dt class=MUTED>"People from it"</dt><dd data-testid="realm-sso-people">{people}</dd>
                        <dt class=MUTED>"Changed"</dt><dd><When at=s.updated.at.clone() words=s.updated.ago.clone()/></dd>
                    </dl>
                </div>
                <div class="flex shrink-0 flex-wrap gap-2 sm:flex-nowrap sm:justify-end">
                    <button type="button" class=BTN_SMALL aria-expanded=move || open().to_string()
                        on:click=move |_| editing.set(if open() { None } else { Some(id.get_value()) })>"Edit"</button>
                    <button type="button" class=BTN_SMALL disabled=move || test.pending().get()
                        on:click=move |_| { tested_for.set(Some(id.get_value())); test.dispatch(TestRealmProvider { id: id.get_value() }); }>"Test connection"</button>
                    {if s.enabled {
                        view! {
                            <ConfirmButton label="Disable" title=format!("Disable {name}?")
                                message=format!("Nobody signs in with it until it is enabled again. {blocks}")
                                confirm_label="Disable" class=BTN_SMALL_DANGER
                                on_confirm=Callback::new(move |_| { enable.dispatch(SetRealmProviderEnabled { id: id.get_value(), enabled: false }); })/>
                        }.into_any()
                    } else {
                        view! {
                            <button type="button" class=BTN_SMALL
                                on:click=move |_| { enable.dispatch(SetRealmProviderEnabled { id: id.get_value(), enabled: true }); }>"Enable"</button>
                        }.into_any()
                    }}
                    <ConfirmButton label="Remove" title=format!("Remove {}?", s.display_name)
                        message="Only a provider nobody comes from can be removed; disable one that people use instead."
                        confirm_label="Remove" class=BTN_SMALL_DANGER
                        on_confirm=Callback::new(move |_| { delete.dispatch(DeleteRealmProvider { id: id.get_value() }); })/>
                </div>
            </div>
            {missing}
            <div class="mt-3 min-w-0">
                <p class=MUTED>"Redirect URI to register at the provider"</p>
                <div class="mt-1"><CopyValue value=s.redirect_uri.clone() label="the redirect URI"/></div>
            </div>
            <div role="status" aria-live="polite" data-testid="realm-sso-test">
                {move || tested().map(|r| match r {
                    Ok(Ok(d)) => view! { <DiscoveryResult d/> }.into_any(),
                    Ok(Err(e)) => view! { <p class="mt-3 break-words text-sm text-red-700 dark:text-red-300">"Discovery failed: "{e}</p> }.into_any(),
                    Err(e) => view! { <p class="mt-3 break-words text-sm text-red-700 dark:text-red-300">{e.to_string()}</p> }.into_any(),
                })}
            </div>
            <Show when=open>
                <EditProviderForm action=update v=edit_v.get_value() on_cancel=Callback::new(move |_| editing.set(None))/>
            </Show>
        </li>
    }
}
