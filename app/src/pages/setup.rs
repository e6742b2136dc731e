//! One-time link pages: first-admin setup and password reset.
use super::login::AuthFrame;
use crate::api::session::{
    CompletePasswordReset, CompleteSetup, reset_link_status, setup_link_status,
};
use crate::components::field::{Field, FieldErrors, Kind, PASSWORD_FIELDS, PasswordFields};
use crate::components::ui::{BTN_PRIMARY, Loading, MUTED};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

fn token() -> Memo<String> {
    let query = use_query_map();
    Memo::new(move |_| query.with(|q| q.get("token").unwrap_or_default()))
}

/// Lets the first admin create their account with the one-time setup link `portcullis serve`
/// prints on its first start.
#[component]
pub fn SetupPage() -> impl IntoView {
    let token = token();
    let status = Resource::new(move || token.get(), setup_link_status);
    let action = ServerAction::<CompleteSetup>::new();
    let errors = FieldErrors::new(action, "setup-form", PASSWORD_FIELDS);
    Effect::new(move |_| {
        if let Some(Ok(to)) = action.value().get() {
            // The console, or first the second sign-in step when admins require one.
            #[cfg(feature = "hydrate")]
            let _ = window().location().set_href(&to);
            #[cfg(not(feature = "hydrate"))]
            let _ = to;
        }
    });
    view! {
        <AuthFrame title="Create the first admin">
            <Suspense fallback=|| view! { <Loading/> }>
                {move || status.get().map(|valid| match valid {
                    Ok(true) => view! {
                        <ActionForm action=action attr:id="setup-form" attr:class="space-y-4" on:input=move |_| errors.clear()>
                            <input type="hidden" name="token" value=move || token.get()/>
                            <Field errors name="email" id="email" label="Email" kind=Kind::Email required=true maxlength=254 autocomplete="username"/>
                            <Field errors name="display_name" id="display_name" label="Name" required=true maxlength=100 autocomplete="name"/>
                            <PasswordFields errors label="Password" confirm_label="Repeat password"/>
                            {errors.form_error()}
                            <button type="submit" class=format!("w-full {BTN_PRIMARY}") disabled=move || action.pending().get()>"Create admin and sign in"</button>
                        </ActionForm>
                    }.into_any(),
                    _ => view! {
                        <p role="alert" class=MUTED>
                            "This setup link is invalid, already used or expired. Restart the server to print a new one (only while no user exists), or create an admin with "
                            <code class="font-mono text-xs">"portcullis admin create"</code>"."
                        </p>
                        <a class=format!("mt-4 {BTN_PRIMARY}") href="/login">"Go to sign in"</a>
                    }.into_any(),
                })}
            </Suspense>
        </AuthFrame>
    }
}

/// Lets a user choose a password with a one-time link from an admin.
#[component]
pub fn ResetPasswordPage() -> impl IntoView {
    let token = token();
    let status = Resource::new(move || token.get(), reset_link_status);
    let action = ServerAction::<CompletePasswordReset>::new();
    let errors = FieldErrors::new(action, "reset-form", PASSWORD_FIELDS);
    view! {
        <AuthFrame title="Choose a password">
            <Suspense fallback=|| view! { <Loading/> }>
                {move || status.get().map(|email| match email {
                    Ok(email) => {
                        let email = StoredValue::new(email);
                        view! {
                        <Show
                            when=move || matches!(action.value().get(), Some(Ok(())))
                            fallback=move || view! {
                                <ActionForm action=action attr:id="reset-form" attr:class="space-y-4" on:input=move |_| errors.clear()>
                                    <p class=MUTED>"For " <strong>{email.get_value()}</strong></p>
                                    <input type="hidden" name="token" value=move || token.get()/>
                                    <PasswordFields errors label="Password" confirm_label="Repeat password"/>
                                    {errors.form_error()}
                                    <button type="submit" class=format!("w-full {BTN_PRIMARY}") disabled=move || action.pending().get()>"Set password"</button>
                                </ActionForm>
                            }
                        >
                            <p role="status" class="text-sm text-emerald-700 dark:text-emerald-300">"Your password is set."</p>
                            <a class=format!("mt-4 {BTN_PRIMARY}") href="/login">"Sign in"</a>
                        </Show>
                    }.into_any()
                    }
                    Err(_) => view! {
                        <p role="alert" class=MUTED>"This link is invalid, already used or expired. Ask an admin for a new one."</p>
                        <a class=format!("mt-4 {BTN_PRIMARY}") href="/login">"Go to sign in"</a>
                    }.into_any(),
                })}
            </Suspense>
        </AuthFrame>
    }
}
