//! The signed-in user's account: change password.
use crate::api::account::ChangePassword;
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::{
    BTN_PRIMARY, CARD, INPUT, LABEL, PageHeader, PasswordFields, action_error,
};
use leptos::prelude::*;

/// Account settings.
#[component]
pub fn AccountPage() -> impl IntoView {
    let action = ServerAction::<ChangePassword>::new();
    let toasts = use_toasts();
    let form = NodeRef::<leptos::html::Form>::new();
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
            <ActionForm action=action node_ref=form attr:class="mt-4 space-y-4">
                <div>
                    <label class=LABEL for="current">"Current password"</label>
                    <input class=format!("mt-1 {INPUT}") id="current" name="current" type="password" autocomplete="current-password" required/>
                </div>
                <PasswordFields label="New password" confirm_label="Repeat new password"/>
                {action_error(action)}
                <button type="submit" class=BTN_PRIMARY disabled=move || action.pending().get()>"Change password"</button>
            </ActionForm>
        </section>
    }
}
