//! The signed-in user's account: change password, and the apps they let act for them (a
//! console account signs in as a person of the default realm).
use crate::api::account::ChangePassword;
use crate::api::people::{RevokeMyConnectedApp, my_connected_apps};
use crate::components::field::{Field, FieldErrors, Kind, PASSWORD_FIELDS, PasswordFields};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::{
    BTN_PRIMARY, BTN_SECONDARY, CARD, ErrorMessage, Loading, MUTED, PageHeader, successes,
};
use crate::pages::people::ConnectedAppList;
use leptos::prelude::*;

/// Account settings.
#[component]
pub fn AccountPage() -> impl IntoView {
    let action = ServerAction::<ChangePassword>::new();
    let toasts = use_toasts();
    let form = NodeRef::<leptos::html::Form>::new();
    let errors = FieldErrors::new(action, "password-form", PASSWORD_FIELDS);
    Effect::new(move |_| {
        if let Some(Ok(())) = action.value().get() {
            toasts.push(ToastKind::Success, "Password changed.");
            if let Some(f) = form.get() {
                f.reset();
            }
        }
    });
    let revoke = ServerAction::<RevokeMyConnectedApp>::new();
    let revoked = successes(revoke);
    let apps = Resource::new(move || revoked.get(), |_| my_connected_apps());
    let disconnected = StoredValue::new(crate::components::layout::with_revocation_note(
        "Disconnected: the app's refresh tokens stopped working, and servers that introspect refuse its access tokens now.",
    ));
    Effect::new(move |_| match revoke.value().get() {
        Some(Ok(())) => toasts.push(ToastKind::Success, disconnected.get_value()),
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    view! {
        <PageHeader title="Account" description="Your console sign-in, and the apps you let act for you."/>
        <section class=format!("{CARD} max-w-lg p-6")>
            <h2 class="text-lg font-semibold text-slate-900 dark:text-white">"Change password"</h2>
            <ActionForm action=action node_ref=form attr:id="password-form" attr:class="mt-4 space-y-4" on:input=move |_| errors.clear()>
                <Field errors name="current" id="current" label="Current password" kind=Kind::Password required=true
                    maxlength=256 autocomplete="current-password"/>
                <PasswordFields errors label="New password" confirm_label="Repeat new password"/>
                {errors.form_error()}
                <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Change password"</button>
            </ActionForm>
        </section>
        <SingleSignOn/>
        <crate::pages::second_factor::AccountSecondFactor/>
        <section class=format!("{CARD} mt-6") aria-labelledby="my-apps-title">
            <div class="border-b border-slate-200 p-4 dark:border-slate-700">
                <h2 id="my-apps-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Connected apps"</h2>
                <p class=MUTED>"MCP clients you allowed to act for you in the default realm."</p>
            </div>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || apps.get().map(|r| match r {
                    Ok(list) => view! { <ConnectedAppList apps=list whose="your" revoke=Callback::new(move |id| { revoke.dispatch(RevokeMyConnectedApp { id }); })/> }.into_any(),
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </section>
    }
}

/// How the account signs in: the provider it is linked to, or the providers it may connect
/// (proving both sides: signed in here, and at the provider).
#[component]
fn SingleSignOn() -> impl IntoView {
    let state = OnceResource::new(crate::api::account::my_sign_in());
    view! {
        <Transition fallback=|| ()>
            {move || state.get().and_then(Result::ok).and_then(|(linked, providers)| {
                if let Some(name) = linked {
                    return Some(view! {
                        <section class=format!("{CARD} mt-6 max-w-lg p-6") aria-labelledby="my-sso-title" data-testid="my-sso">
                            <h2 id="my-sso-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Single sign-on"</h2>
                            <p class=format!("mt-1 break-words {MUTED}")>"You sign in with "{name}"; your groups there decide your role at every sign-in."</p>
                        </section>
                    }.into_any());
                }
                (!providers.is_empty()).then(|| view! {
                    <section class=format!("{CARD} mt-6 max-w-lg p-6") aria-labelledby="my-sso-title" data-testid="my-sso">
                        <h2 id="my-sso-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Single sign-on"</h2>
                        <p class=format!("mt-1 {MUTED}")>"Connect your company sign-in to this account: you sign in there, and from then on sign in with it. Your groups there decide your role from then on."</p>
                        <div class="mt-4 flex flex-wrap gap-2">
                            {providers.into_iter().map(|p| view! {
                                // A full navigation to the provider.
                                <a rel="external" class=format!("break-words {BTN_SECONDARY}") href=format!("/login/sso/{}?next=%2Faccount", p.id)>"Connect "{p.button_text}</a>
                            }).collect_view()}
                        </div>
                    </section>
                }.into_any())
            })}
        </Transition>
    }
}
