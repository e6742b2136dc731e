//! The signed-in user's account: change password.
use crate::api::account::ChangePassword;
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::{BTN_PRIMARY, CARD, PASSWORD_FIELDS, PageHeader, PasswordFields};
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
    view! {
        <PageHeader title="Account" description="Your console sign-in."/>
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
    }
}
