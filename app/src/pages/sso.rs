//! Single sign-on: the OpenID Connect providers console users sign in with, and which of their
//! groups make which role.
//!
//! One list; each provider opens its form in place (one at a time), tests its connection
//! (discovery, now), is disabled (confirmed) or enabled, and removed (confirmed). Its redirect
//! URI is shown to copy into the provider's settings.
use crate::api::sso::{
    CreateSsoProvider, DeleteSsoProvider, SetPasswordSignIn, SetSsoProviderEnabled,
    TestSsoProvider, UpdateSsoProvider, get_password_sign_in, list_sso_providers,
};
use crate::components::confirm::ConfirmButton;
use crate::components::copy::CopyValue;
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::sso::{SsoDiscoveryView, SsoProviderView};
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
    ("admin_groups", "admin_groups"),
    ("reviewer_groups", "reviewer_groups"),
    ("developer_groups", "developer_groups"),
    ("second_factor_amr", "second_factor_amr"),
    ("second_factor_acr", "second_factor_acr"),
];

/// The settings of a provider, for the create (`v` empty) and edit forms.
#[component]
fn ProviderFields(
    form: &'static str,
    v: Option<SsoProviderView>,
    errors: FieldErrors,
) -> impl IntoView {
    let f = move |name: &str| format!("{form}-{name}");
    let editing = v.is_some();
    let has_secret = v.as_ref().is_some_and(|v| v.has_secret);
    let v = v.unwrap_or(SsoProviderView {
        id: String::new(),
        display_name: String::new(),
        button_text: String::new(),
        issuer: String::new(),
        client_id: String::new(),
        has_secret: false,
        scopes: "openid email profile".into(),
        groups_claim: "groups".into(),
        trust_email: false,
        second_factor_amr: String::new(),
        second_factor_acr: String::new(),
        admin_groups: Vec::new(),
        reviewer_groups: Vec::new(),
        developer_groups: Vec::new(),
        redirect_uri: String::new(),
        post_logout_uri: String::new(),
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
                    <p class=format!("mt-1 {MUTED}")>"It never changes: accounts are linked to the provider by the subjects its issuer names. For another issuer, add another provider."</p>
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
                <span class=format!("block {MUTED}")>"Emails are taken only when the provider marks them verified. Tick this for a provider that sends none (some Entra ID set-ups) and does not let users change their own email; an email it marks unverified never counts."</span>
            </span>
        </label>
        <fieldset class="sm:col-span-2">
            <legend class=LABEL>"Which groups get which role"</legend>
            <p class=format!("mt-1 {MUTED}")>"One group per line, matched exactly. The most privileged match wins; * matches everyone the provider signs in. Someone matching none is refused, and loses access at their next sign-in."</p>
            <div class="mt-2 grid gap-4 sm:grid-cols-3">
                <Field errors name="admin_groups" id=f("admin") label="Admin" value=v.admin_groups.join("\n") kind=Kind::Lines(3) mono=true/>
                <Field errors name="reviewer_groups" id=f("reviewer") label="Security reviewer" value=v.reviewer_groups.join("\n") kind=Kind::Lines(3) mono=true/>
                <Field errors name="developer_groups" id=f("developer") label="Developer" value=v.developer_groups.join("\n") kind=Kind::Lines(3) mono=true/>
            </div>
        </fieldset>
        <fieldset class="sm:col-span-2">
            <legend class=LABEL>"Second factor at the provider"</legend>
            <p class=format!("mt-1 {MUTED}")>"For roles that require two-step verification: the ID token must show one of these amr values, or one of these acr values (asked for as acr_values), or the sign-in is refused. Leave both empty to have those accounts use an authenticator app at Portcullis instead."</p>
            <div class="mt-2 grid gap-4 sm:grid-cols-2">
                <Field errors name="second_factor_amr" id=f("amr") label="amr values" value=v.second_factor_amr maxlength=1100 mono=true placeholder="mfa otp hwk"/>
                <Field errors name="second_factor_acr" id=f("acr") label="acr values" value=v.second_factor_acr maxlength=1100 mono=true placeholder="phr"/>
            </div>
        </fieldset>
    }
}

#[component]
fn CreateProviderForm(
    action: ServerAction<CreateSsoProvider>,
    on_cancel: Callback<()>,
) -> impl IntoView {
    let errors = FieldErrors::new(action, "new-sso", FIELDS);
    view! {
        <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-sso-title">
            <h2 id="new-sso-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Add a sign-in provider"</h2>
            <p class=MUTED>"Register Portcullis at your provider as a web application with the authorization code flow; once added, copy the redirect URI shown on its card into the provider."</p>
            <ActionForm action=action attr:id="new-sso" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                <ProviderFields form="new-sso" v=None errors/>
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
    action: ServerAction<UpdateSsoProvider>,
    v: SsoProviderView,
    on_cancel: Callback<()>,
) -> impl IntoView {
    let errors = FieldErrors::new(action, "edit-sso", FIELDS);
    // Opened by its Edit button: keyboard users continue in its first field.
    crate::components::field::focus_first_when(RwSignal::new(true), "edit-sso");
    let id = v.id.clone();
    view! {
        <ActionForm action=action attr:id="edit-sso" attr:class="mt-4 grid gap-4 border-t border-slate-200 pt-4 sm:grid-cols-2 dark:border-slate-700" on:input=move |_| errors.clear()>
            <input type="hidden" name="id" value=id/>
            <ProviderFields form="edit-sso" v=Some(v) errors/>
            <div class="sm:col-span-2">{errors.form_error()}</div>
            <div class="flex gap-2 sm:col-span-2">
                <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Save"</button>
                <button type="button" class=BTN_SECONDARY on:click=move |_| on_cancel.run(())>"Cancel"</button>
            </div>
        </ActionForm>
    }
}

/// The Single sign-on screen.
#[component]
pub fn SingleSignOnPage() -> impl IntoView {
    let create = ServerAction::<CreateSsoProvider>::new();
    let update = ServerAction::<UpdateSsoProvider>::new();
    let enable = ServerAction::<SetSsoProviderEnabled>::new();
    let delete = ServerAction::<DeleteSsoProvider>::new();
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
        |_| list_sso_providers(),
    );
    let show_create = RwSignal::new(false);
    crate::components::field::focus_first_when(show_create, "new-sso");
    let editing = RwSignal::new(None::<String>);
    let test = ServerAction::<TestSsoProvider>::new();
    // Which card the last test was for (its answer shows there).
    let tested_for = RwSignal::new(None::<String>);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(s)) = create.value().get() {
            toasts.push(
                ToastKind::Success,
                format!(
                    "{} added. Register its redirect URI at the provider, then test the connection.",
                    s.display_name
                ),
            );
            show_create.set(false);
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(s)) = update.value().get() {
            toasts.push(ToastKind::Success, format!("{} saved.", s.display_name));
            editing.set(None);
        }
    });
    Effect::new(move |_| match enable.value().get() {
        Some(Ok(s)) if s.enabled => {
            toasts.push(ToastKind::Success, format!("{} enabled.", s.display_name))
        }
        Some(Ok(s)) => toasts.push(
            ToastKind::Success,
            format!(
                "{} disabled: nobody signs in with it, and its accounts' sessions ended.",
                s.display_name
            ),
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    Effect::new(move |_| match delete.value().get() {
        Some(Ok(())) => toasts.push(ToastKind::Success, "Sign-in provider removed."),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    view! {
        <PageHeader title="Single sign-on" description="The OpenID Connect providers console users sign in with. Accounts are created at their first sign-in, and their role follows their groups at every sign-in.">
            <button type="button" class=format!("{BTN_PRIMARY} whitespace-nowrap") on:click=move |_| show_create.set(true)>"Add a provider"</button>
        </PageHeader>
        <PasswordSignIn/>
        <SecondFactorPolicy/>
        <Show when=move || show_create.get()>
            <CreateProviderForm action=create on_cancel=Callback::new(move |_| show_create.set(false))/>
        </Show>
        <Transition fallback=|| view! { <Loading/> }>
            {move || list.get().map(|result| match result {
                Ok(items) if items.is_empty() => view! {
                    <div class=CARD>
                        <EmptyState title="No sign-in providers" hint="Add your company's OpenID Connect provider (Okta, Entra ID, Google Workspace, Keycloak…) so that people sign in with it instead of a password."/>
                    </div>
                }.into_any(),
                Ok(items) => view! {
                    <ul class="space-y-4" aria-label="Sign-in providers">
                        {items.into_iter().map(|s| view! { <ProviderCard s editing update enable delete test tested_for/> }).collect_view()}
                    </ul>
                }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}

/// The groups of one role, in words.
fn groups(list: &[String]) -> String {
    if list.is_empty() {
        "—".to_owned()
    } else {
        list.join(", ")
    }
}

/// What discovery found, on the provider's card.
#[component]
pub(crate) fn DiscoveryResult(d: SsoDiscoveryView) -> impl IntoView {
    let or_none = |s: String| if s.is_empty() { "(none)".to_owned() } else { s };
    view! {
        <div class="mt-3 rounded-md border border-emerald-200 bg-emerald-50 p-3 text-sm dark:border-emerald-900 dark:bg-emerald-950">
            <p class="font-medium text-emerald-800 dark:text-emerald-200">"Discovery works: the provider's discovery document and keys were read."</p>
            <p class="mt-1 text-emerald-800 dark:text-emerald-200">"The client ID, secret and redirect URI are checked by a sign-in: try one in a private window."</p>
            <dl class="mt-2 grid gap-x-4 gap-y-1 sm:grid-cols-[auto_1fr]">
                <dt class=MUTED>"Issuer"</dt><dd class=format!("min-w-0 break-all {MONO}")>{d.issuer}</dd>
                <dt class=MUTED>"Authorization"</dt><dd class=format!("min-w-0 break-all {MONO}")>{d.authorization_endpoint}</dd>
                <dt class=MUTED>"Token"</dt><dd class=format!("min-w-0 break-all {MONO}")>{or_none(d.token_endpoint)}</dd>
                <dt class=MUTED>"Userinfo"</dt><dd class=format!("min-w-0 break-all {MONO}")>{or_none(d.userinfo_endpoint)}</dd>
                <dt class=MUTED>"Sign-out"</dt><dd class=format!("min-w-0 break-all {MONO}")>{or_none(d.end_session_endpoint)}</dd>
                <dt class=MUTED>"Signing keys"</dt><dd>{d.keys}" ("{d.algorithms.join(", ")}")"</dd>
                <dt class=MUTED>"Scopes"</dt><dd class="min-w-0 break-words">{d.scopes.join(" ")}</dd>
                <dt class=MUTED>"Claims"</dt><dd class="min-w-0 break-words">{d.claims.join(" ")}</dd>
            </dl>
        </div>
    }
}

/// One provider: its settings, its redirect URI, and its actions.
#[component]
fn ProviderCard(
    s: SsoProviderView,
    editing: RwSignal<Option<String>>,
    update: ServerAction<UpdateSsoProvider>,
    enable: ServerAction<SetSsoProviderEnabled>,
    delete: ServerAction<DeleteSsoProvider>,
    test: ServerAction<TestSsoProvider>,
    tested_for: RwSignal<Option<String>>,
) -> impl IntoView {
    let id = StoredValue::new(s.id.clone());
    // The last test's answer, on the card it was asked for, once it is in.
    let tested = move || {
        (tested_for.get().as_deref() == Some(id.get_value().as_str()) && !test.pending().get())
            .then(|| test.value().get())
            .flatten()
    };
    let open = move || editing.get().as_deref() == Some(id.get_value().as_str());
    let name = s.display_name.clone();
    let heading = format!("sso-{}", s.id);
    let labelled_by = heading.clone();
    let edit_v = StoredValue::new(s.clone());
    view! {
        <li class=format!("{CARD} p-4") data-testid="sso-provider" aria-labelledby=labelled_by>
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
                        <dt class=MUTED>"Admins"</dt><dd class="min-w-0 break-words">{groups(&s.admin_groups)}</dd>
                        <dt class=MUTED>"Security reviewers"</dt><dd class="min-w-0 break-words">{groups(&s.reviewer_groups)}</dd>
                        <dt class=MUTED>"Developers"</dt><dd class="min-w-0 break-words">{groups(&s.developer_groups)}</dd>
                        <dt class=MUTED>"Second factor"</dt><dd class="min-w-0 break-words">{second_factor_proof(&s)}</dd>
                        <dt class=MUTED>"Changed"</dt><dd><When at=s.updated.at.clone() words=s.updated.ago.clone()/></dd>
                    </dl>
                </div>
                <div class="flex shrink-0 flex-wrap gap-2 sm:flex-nowrap sm:justify-end">
                    <button type="button" class=BTN_SMALL aria-expanded=move || open().to_string()
                        on:click=move |_| editing.set(if open() { None } else { Some(id.get_value()) })>"Edit"</button>
                    <button type="button" class=BTN_SMALL disabled=move || test.pending().get()
                        on:click=move |_| { tested_for.set(Some(id.get_value())); test.dispatch(TestSsoProvider { id: id.get_value() }); }>"Test connection"</button>
                    {if s.enabled {
                        view! {
                            <ConfirmButton label="Disable" title=format!("Disable {name}?")
                                message="Nobody signs in with it until it is enabled again, and the sessions of the accounts that signed in with it end now."
                                confirm_label="Disable" class=BTN_SMALL_DANGER
                                on_confirm=Callback::new(move |_| { enable.dispatch(SetSsoProviderEnabled { id: id.get_value(), enabled: false }); })/>
                        }.into_any()
                    } else {
                        view! {
                            <button type="button" class=BTN_SMALL
                                on:click=move |_| { enable.dispatch(SetSsoProviderEnabled { id: id.get_value(), enabled: true }); }>"Enable"</button>
                        }.into_any()
                    }}
                    <ConfirmButton label="Remove" title=format!("Remove {}?", s.display_name)
                        message="Its accounts stay, but their sessions end and they can no longer sign in with it (only with a password an admin gives them)."
                        confirm_label="Remove" class=BTN_SMALL_DANGER
                        on_confirm=Callback::new(move |_| { delete.dispatch(DeleteSsoProvider { id: id.get_value() }); })/>
                </div>
            </div>
            <div class="mt-3 min-w-0">
                <p class=MUTED>"Redirect URI to register at the provider"</p>
                <div class="mt-1"><CopyValue value=s.redirect_uri.clone() label="the redirect URI"/></div>
                <p class=format!("mt-3 {MUTED}")>"Sign-out return URI (its post-logout redirect URI), if the provider offers sign-out"</p>
                <div class="mt-1"><CopyValue value=s.post_logout_uri.clone() label="the sign-out return URI"/></div>
            </div>
            <div role="status" aria-live="polite" data-testid="sso-test">
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

/// Whether password sign-in is on for everyone or only for break-glass admins.
#[component]
fn PasswordSignIn() -> impl IntoView {
    let set = ServerAction::<SetPasswordSignIn>::new();
    let mode = Resource::new(move || set.version().get(), |_| get_password_sign_in());
    let toasts = use_toasts();
    Effect::new(move |_| match set.value().get() {
        Some(Ok(true)) => toasts.push(
            ToastKind::Success,
            "Password sign-in is off: only break-glass admins use a password now.",
        ),
        Some(Ok(false)) => toasts.push(ToastKind::Success, "Password sign-in is on for everyone."),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    view! {
        <Transition fallback=|| ()>
            {move || mode.get().and_then(Result::ok).map(|off| view! {
                <section class=format!("{CARD} mb-6 flex flex-col gap-3 p-4 sm:flex-row sm:items-center sm:justify-between") data-testid="password-sign-in" aria-labelledby="password-sign-in-title">
                    <div class="min-w-0">
                        <h2 id="password-sign-in-title" class="font-medium text-slate-900 dark:text-white">"Password sign-in"
                            <span class="ml-2"><Pill tone=if off { Tone::Off } else { Tone::Good } text=if off { "Break-glass admins only" } else { "Everyone" }/></span>
                        </h2>
                        <p class=MUTED>{if off {
                            "Everyone signs in through a provider; only admins marked break-glass (Console users → an admin) may use a password, for when the provider is down."
                        } else {
                            "Anyone with a password may sign in with it, beside the providers. Turn it off once everyone signs in through a provider; mark a break-glass admin first."
                        }}</p>
                    </div>
                    <div class="shrink-0">
                        {if off {
                            view! {
                                <button type="button" class=BTN_SMALL disabled=move || set.pending().get()
                                    on:click=move |_| { set.dispatch(SetPasswordSignIn { break_glass_only: false }); }>"Turn on for everyone"</button>
                            }.into_any()
                        } else {
                            view! {
                                <ConfirmButton label="Turn off" title="Turn password sign-in off?"
                                    message="Only break-glass admins may sign in with a password from now on; everyone else signs in through a provider. Sessions already open stay."
                                    confirm_label="Turn off" class=BTN_SMALL_DANGER
                                    on_confirm=Callback::new(move |_| { set.dispatch(SetPasswordSignIn { break_glass_only: true }); })/>
                            }.into_any()
                        }}
                    </div>
                </section>
            })}
        </Transition>
    }
}

/// How a provider proves a second factor, in words.
fn second_factor_proof(s: &SsoProviderView) -> String {
    match (
        s.second_factor_amr.is_empty(),
        s.second_factor_acr.is_empty(),
    ) {
        (true, true) => "Authenticator app at Portcullis (when the role requires one)".to_owned(),
        (false, true) => format!("amr: {}", s.second_factor_amr),
        (true, false) => format!("acr: {}", s.second_factor_acr),
        (false, false) => format!(
            "amr: {} · acr: {}",
            s.second_factor_amr, s.second_factor_acr
        ),
    }
}

/// Which roles must sign in with a second factor.
#[component]
fn SecondFactorPolicy() -> impl IntoView {
    use crate::api::second_factor::{SetSecondFactorRoles, second_factor_roles};
    let set = ServerAction::<SetSecondFactorRoles>::new();
    let roles = Resource::new(move || set.version().get(), |_| second_factor_roles());
    let toasts = use_toasts();
    Effect::new(move |_| match set.value().get() {
        Some(Ok(())) => toasts.push(
            ToastKind::Success,
            "Saved: it applies from each account's next sign-in.",
        ),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    const ROLES: [(&str, &str); 3] = [
        ("admin", "Admins"),
        ("security_reviewer", "Security reviewers"),
        ("developer", "Developers"),
    ];
    view! {
        <Transition fallback=|| ()>
            {move || roles.get().and_then(Result::ok).map(|on| view! {
                <section class=format!("{CARD} mb-6 p-4") data-testid="second-factor-policy" aria-labelledby="second-factor-title">
                    <h2 id="second-factor-title" class="font-medium text-slate-900 dark:text-white">"Two-step verification"</h2>
                    <p class=MUTED>"Roles ticked here sign in with a second factor: a code from an authenticator app (set up at their next sign-in), or, through a provider set up to prove one, its amr/acr. Anyone may turn it on for themselves on their Account page."</p>
                    <ActionForm action=set attr:class="mt-3 flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
                        <fieldset class="flex flex-wrap gap-x-6 gap-y-2">
                            <legend class="sr-only">"Roles that require a second factor"</legend>
                            {ROLES.into_iter().map(|(name, label)| view! {
                                <label class="flex items-center gap-2 text-sm text-slate-700 dark:text-slate-200">
                                    <input type="checkbox" name=name value="on" checked=on.iter().any(|r| r == name)/>
                                    {label}
                                </label>
                            }).collect_view()}
                        </fieldset>
                        <button type="submit" class=format!("shrink-0 {BTN_SMALL}") disabled=move || set.pending().get()>"Save"</button>
                    </ActionForm>
                </section>
            })}
        </Transition>
    }
}
