//! A newly issued client secret, shown once.
use super::copy::CopyValue;
use super::ui::BTN_SMALL;
use crate::types::clients::IssuedSecret;
use leptos::prelude::*;

/// A client secret shown once, with a copy button and "Done"; `next` links the step that
/// follows (a new client's page, to give it access). It takes focus when it appears: the
/// secret is what the keyboard user came for.
#[component]
pub fn SecretPanel(
    issued: IssuedSecret,
    on_close: Callback<()>,
    #[prop(optional)] next: Option<(String, &'static str)>,
) -> impl IntoView {
    let panel = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        if let Some(el) = panel.get() {
            let _ = el.focus();
        }
    });
    view! {
        <div node_ref=panel tabindex="-1" role="status" data-testid="issued-secret" class="mb-6 focus:outline-none rounded-lg border border-indigo-200 bg-indigo-50 p-4 dark:border-indigo-900 dark:bg-indigo-950">
            <p class="text-sm font-medium text-indigo-900 dark:text-indigo-100">"Client " <code class="font-mono">{issued.client_id.clone()}</code></p>
            {if issued.secret.is_empty() {
                view! { <p class="mt-1 text-sm text-indigo-800 dark:text-indigo-200">"This client has no secret: it is public, or authenticates with its private key."</p> }.into_any()
            } else {
                view! {
                    <p class="mt-1 text-sm text-indigo-800 dark:text-indigo-200">"Its secret is shown only now. Store it in your secret manager; Portcullis keeps only a hash."</p>
                    <div class="mt-3"><CopyValue value=issued.secret.clone() label="client secret"/></div>
                }.into_any()
            }}
            <div class="mt-3 flex flex-wrap items-center gap-3">
                <button type="button" class=BTN_SMALL on:click=move |_| on_close.run(())>"Done"</button>
                {next.map(|(href, label)| view! {
                    <a class="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300" href=href>{label}</a>
                })}
            </div>
        </div>
    }
}
