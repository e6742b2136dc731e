//! Realms: create, rename, enable and disable.
use crate::api::realms::{CreateRealm, SetRealmEnabled, UpdateRealm, list_realms};
use crate::components::confirm::ConfirmButton;
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::*;
use crate::types::RealmView;
use leptos::prelude::*;

#[component]
fn RealmRow(realm: RealmView, refresh: Callback<()>) -> impl IntoView {
    let toasts = use_toasts();
    let editing = RwSignal::new(false);
    let update = ServerAction::<UpdateRealm>::new();
    let enable = ServerAction::<SetRealmEnabled>::new();
    Effect::new(move |_| {
        if let Some(Ok(r)) = update.value().get() {
            toasts.push(ToastKind::Success, format!("Realm {} saved.", r.name));
            editing.set(false);
            refresh.run(());
        }
    });
    Effect::new(move |_| match enable.value().get() {
        Some(Ok(r)) => {
            toasts.push(
                ToastKind::Success,
                format!(
                    "Realm {} {}.",
                    r.name,
                    if r.enabled { "enabled" } else { "disabled" }
                ),
            );
            refresh.run(());
        }
        Some(Err(e)) => toasts.push(ToastKind::Error, e.to_string()),
        None => {}
    });
    let name = realm.name.clone();
    let (n_enable, n_disable) = (name.clone(), name.clone());
    let is_default = realm.name == "default";
    let (r_name, r_display) = (
        StoredValue::new(realm.name.clone()),
        StoredValue::new(realm.display_name.clone()),
    );
    view! {
        <tr data-testid="realm-row">
            <td class=TD>
                <div class="font-medium text-slate-900 dark:text-white">{realm.display_name.clone()}</div>
                <div class="font-mono text-xs text-slate-500 dark:text-slate-400">{realm.name.clone()}</div>
            </td>
            <td class=format!("{TD} hidden lg:table-cell")><span class=MONO>{realm.issuer.clone()}</span></td>
            <td class=TD><Badge ok=realm.enabled text=if realm.enabled { "Enabled" } else { "Disabled" }/></td>
            <td class=format!("{TD} text-right")>
                <div class="flex justify-end gap-2">
                    <button type="button" class=BTN_SMALL on:click=move |_| editing.update(|e| *e = !*e)>"Edit"</button>
                    {(!is_default).then(|| if realm.enabled {
                        view! {
                            <ConfirmButton
                                label="Disable"
                                title="Disable this realm?"
                                message=format!("Realm {} stops issuing anything until it is enabled again.", name)
                                confirm_label="Disable realm"
                                class=BTN_SMALL_DANGER
                                on_confirm=Callback::new(move |_| { enable.dispatch(SetRealmEnabled { name: n_disable.clone(), enabled: false }); })
                            />
                        }.into_any()
                    } else {
                        view! {
                            <button type="button" class=BTN_SMALL on:click=move |_| {
                                enable.dispatch(SetRealmEnabled { name: n_enable.clone(), enabled: true });
                            }>"Enable"</button>
                        }.into_any()
                    })}
                </div>
            </td>
        </tr>
        <Show when=move || editing.get()>
            <tr>
                <td colspan="4" class="bg-slate-50 px-4 py-4 dark:bg-slate-900">
                    <ActionForm action=update attr:class="grid gap-4 sm:grid-cols-3">
                        <input type="hidden" name="name" value=r_name.get_value()/>
                        <div>
                            <label class=LABEL for=format!("rename-{}", r_name.get_value())>"Name"</label>
                            <input class=format!("mt-1 {INPUT}") id=format!("rename-{}", r_name.get_value()) name="new_name" value=r_name.get_value() required readonly=is_default/>
                            <p class=format!("mt-1 {MUTED}")>"Renaming changes the issuer."</p>
                        </div>
                        <div>
                            <label class=LABEL for=format!("display-{}", r_name.get_value())>"Display name"</label>
                            <input class=format!("mt-1 {INPUT}") id=format!("display-{}", r_name.get_value()) name="display_name" value=r_display.get_value() required/>
                        </div>
                        <div class="flex items-end gap-2">
                            <button type="submit" class=BTN_PRIMARY disabled=move || update.pending().get()>"Save"</button>
                            <button type="button" class=BTN_SECONDARY on:click=move |_| editing.set(false)>"Cancel"</button>
                        </div>
                        <div class="sm:col-span-3">{action_error(update)}</div>
                    </ActionForm>
                </td>
            </tr>
        </Show>
    }
}

/// The Realms screen.
#[component]
pub fn RealmsPage() -> impl IntoView {
    let create = ServerAction::<CreateRealm>::new();
    let reload = RwSignal::new(0u32);
    let realms = Resource::new(
        move || (reload.get(), create.version().get()),
        |_| list_realms(),
    );
    let show_create = RwSignal::new(false);
    let toasts = use_toasts();
    Effect::new(move |_| {
        if let Some(Ok(r)) = create.value().get() {
            toasts.push(ToastKind::Success, format!("Realm {} created.", r.name));
            show_create.set(false);
        }
    });
    let refresh = Callback::new(move |_| reload.update(|n| *n += 1));
    view! {
        <PageHeader title="Realms" description="Each realm is an issuer with its own clients, keys and policies.">
            <button type="button" class=BTN_PRIMARY on:click=move |_| show_create.set(true)>"New realm"</button>
        </PageHeader>
        <Show when=move || show_create.get()>
            <section class=format!("{CARD} mb-6 p-6") aria-labelledby="new-realm-title">
                <h2 id="new-realm-title" class="text-lg font-semibold text-slate-900 dark:text-white">"New realm"</h2>
                <ActionForm action=create attr:class="mt-4 grid gap-4 sm:grid-cols-2">
                    <div>
                        <label class=LABEL for="realm-name">"Name"</label>
                        <input class=format!("mt-1 {INPUT}") id="realm-name" name="name" required placeholder="payments"/>
                        <p class=format!("mt-1 {MUTED}")>"Lowercase letters, digits and '-'; part of the issuer URL."</p>
                    </div>
                    <div>
                        <label class=LABEL for="realm-display">"Display name"</label>
                        <input class=format!("mt-1 {INPUT}") id="realm-display" name="display_name" required placeholder="Payments"/>
                    </div>
                    <div class="sm:col-span-2">{action_error(create)}</div>
                    <div class="flex gap-2 sm:col-span-2">
                        <button type="submit" class=BTN_PRIMARY disabled=move || create.pending().get()>"Create realm"</button>
                        <button type="button" class=BTN_SECONDARY on:click=move |_| show_create.set(false)>"Cancel"</button>
                    </div>
                </ActionForm>
            </section>
        </Show>
        <div class=CARD>
            <Transition fallback=|| view! { <div class="p-4"><Loading/></div> }>
                {move || realms.get().map(|result| match result {
                    Ok(list) => view! {
                        <div class="overflow-x-auto">
                            <table class=TABLE>
                                <thead class="bg-slate-50 dark:bg-slate-900">
                                    <tr>
                                        <th class=TH scope="col">"Realm"</th>
                                        <th class=format!("{TH} hidden lg:table-cell") scope="col">"Issuer"</th>
                                        <th class=TH scope="col">"Status"</th>
                                        <th class=TH scope="col"><span class="sr-only">"Actions"</span></th>
                                    </tr>
                                </thead>
                                <tbody class="divide-y divide-slate-200 dark:divide-slate-700">
                                    {list.into_iter().map(|realm| view! { <RealmRow realm refresh/> }).collect_view()}
                                </tbody>
                            </table>
                        </div>
                    }.into_any(),
                    Err(error) => view! { <div class="p-4"><ErrorMessage error/></div> }.into_any(),
                })}
            </Transition>
        </div>
    }
}
