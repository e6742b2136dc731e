//! A resource's token policy on its page: who may get tokens for it, and how.
use crate::components::card::{EditableCard, FormButtons};
use crate::components::field::{Field, FieldErrors};
use crate::components::layout::use_abilities;
use crate::components::ui::*;
use crate::types::resources::ResourceView;
use leptos::form::ActionForm;
use leptos::prelude::*;

/// Who may get tokens for a resource: the consent policy, people roles, default scopes and
/// self-registered machine clients.
#[component]
pub fn ResourcePolicy(
    r: ResourceView,
    action: ServerAction<crate::api::resources::SetResourcePolicy>,
) -> impl IntoView {
    const FIELDS: &[(&str, &str)] = &[
        ("consent", "consent"),
        ("people_roles", "people_roles"),
        ("default_scopes", "default_scopes"),
    ];
    let editing = RwSignal::new(false);
    let errors = FieldErrors::new(action, "resource-policy", FIELDS);
    Effect::new(move |_| {
        if let Some(Ok(_)) = action.value().get() {
            editing.set(false);
        }
    });
    let v = StoredValue::new(r);
    view! {
        <EditableCard id="resource-policy-card" title="Who may get tokens" editable=use_abilities().manage_resources editing shown=ViewFn::from(move || {
            let r = v.get_value();
            view! {
                <dl class="mt-4 grid gap-4 text-sm sm:grid-cols-2" data-testid="resource-policy">
                    <div><dt class=MUTED>"Apps acting for people"</dt><dd>{if r.consent == "granted_clients" { "Only clients an admin granted (within their grant)" } else { "Any approved client; each person decides" }}</dd></div>
                    <div><dt class=MUTED>"People"</dt><dd class="break-words">{if r.people_roles.is_empty() { "Everyone in the realm".to_owned() } else { format!("Holders of: {}", r.people_roles) }}</dd></div>
                    <div><dt class=MUTED>"Without a scope, a request gets"</dt><dd class="break-words font-mono text-xs">{if r.default_scopes.is_empty() { "every scope it may be granted".to_owned() } else { r.default_scopes.clone() }}</dd></div>
                    <div><dt class=MUTED>"Self-registered machine clients"</dt><dd>{if r.open_to_self_registered { "Get tokens within their registered scope" } else { "Need a grant (from a reviewer or admin)" }}</dd></div>
                </dl>
            }
        })>
            <ActionForm action attr:id="resource-policy" attr:class="mt-4 grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                <input type="hidden" name="slug" value=v.with_value(|r| r.slug.clone())/>
                <div>
                    <label class=LABEL for="resource-consent">"Apps acting for people"</label>
                    <select id="resource-consent" name="consent" class=format!("mt-1 {INPUT}")>
                        <option value="any_client" selected=v.with_value(|r| r.consent != "granted_clients")>"Any approved client; each person decides"</option>
                        <option value="granted_clients" selected=v.with_value(|r| r.consent == "granted_clients")>"Only clients an admin granted"</option>
                    </select>
                </div>
                <Field errors name="people_roles" id="resource-people-roles" label="People roles (empty: everyone)" value=v.with_value(|r| r.people_roles.clone()) maxlength=1000/>
                <Field errors name="default_scopes" id="resource-default-scopes" label="Default scopes (empty: all)" value=v.with_value(|r| r.default_scopes.clone()) maxlength=1000 mono=true/>
                <label class="flex items-center gap-2 text-sm sm:col-span-2">
                    <input type="checkbox" name="open_to_self_registered" value="on" checked=v.with_value(|r| r.open_to_self_registered) class="h-4 w-4 rounded border-slate-300"/>
                    "Self-registered machine clients (client credentials) get tokens without a grant"
                </label>
                <div class="sm:col-span-2">{errors.form_error()}</div>
                <FormButtons pending=action.pending() editing/>
            </ActionForm>
        </EditableCard>
    }
}
