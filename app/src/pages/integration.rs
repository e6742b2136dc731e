//! Integration → Protect your MCP server: a developer enters their MCP server's URL and copies
//! everything that protects it with this realm. Generation happens in the core; this only
//! renders.
use crate::api::integration::ProtectMcpServer;
use crate::components::copy::CopyBlock;
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::ui::*;
use crate::types::{ArtifactView, ProtectionView};
use leptos::prelude::*;

const FIELDS: &[(&str, &str)] = &[
    ("server_url", "server_url"),
    ("resource_name", "resource_name"),
    ("scopes", "scopes"),
    ("documentation_url", "documentation_url"),
];

#[component]
fn ArtifactCard(a: ArtifactView) -> impl IntoView {
    let (heading, labelled_by) = (
        format!("artifact-{}-title", a.id),
        format!("artifact-{}-title", a.id),
    );
    view! {
        <section class=format!("{CARD} p-4 sm:p-5") aria-labelledby=labelled_by data-testid="artifact">
            <div class="flex flex-wrap items-baseline justify-between gap-2">
                <h3 id=heading class="text-base font-semibold text-slate-900 dark:text-white">{a.title.clone()}</h3>
                <a href=a.reference_url.clone() target="_blank" rel="noopener noreferrer" class="text-xs text-indigo-700 hover:underline dark:text-indigo-300">{a.reference_label.clone()}</a>
            </div>
            <p class=format!("mt-1 mb-3 {MUTED}")>{a.explanation.clone()}</p>
            <CopyBlock value=a.text.clone() label=a.title.clone() testid=format!("artifact-{}", a.id)/>
        </section>
    }
}

#[component]
fn Generated(p: ProtectionView) -> impl IntoView {
    view! {
        <section class="mt-6 space-y-4" aria-label="Generated for your MCP server" data-testid="protection">
            <div class=format!("{CARD} p-4 sm:p-5")>
                <h2 class="text-lg font-semibold text-slate-900 dark:text-white">"Resource"</h2>
                <p class=format!("mt-1 {MUTED}")>"Your server's URL in canonical form: the resource clients name and the audience (aud) of every token for it."</p>
                <p class=format!("mt-2 {MONO} text-slate-900 dark:text-slate-100") data-testid="canonical-resource">{p.resource.clone()}</p>
                {(!p.changes.is_empty()).then(|| view! {
                    <ul class="mt-2 list-disc space-y-1 pl-5 text-sm text-slate-700 dark:text-slate-300" data-testid="canonical-changes">
                        {p.changes.iter().map(|c| view! { <li>{c.clone()}</li> }).collect_view()}
                    </ul>
                })}
                {(!p.scope_notes.is_empty()).then(|| view! {
                    <ul class="mt-2 list-disc space-y-1 pl-5 text-sm text-amber-800 dark:text-amber-300" data-testid="scope-notes">
                        {p.scope_notes.iter().map(|c| view! { <li>{c.clone()}</li> }).collect_view()}
                    </ul>
                })}
            </div>
            {p.artifacts.into_iter().map(|a| view! { <ArtifactCard a/> }).collect_view()}
        </section>
    }
}

/// The "Protect your MCP server" screen of the selected realm.
#[component]
pub fn ProtectPage() -> impl IntoView {
    let generate = ServerAction::<ProtectMcpServer>::new();
    let errors = FieldErrors::new(generate, "protect-form", FIELDS);
    view! {
        <PageHeader title="Protect your MCP server" description="Enter your MCP server's URL: you get the metadata it serves, the challenges it answers, commands to register clients and get tokens, configurations for MCP clients, and a complete server in TypeScript or Python, all for this realm."/>
        <section class=format!("{CARD} p-4 sm:p-6") aria-labelledby="protect-title">
            <h2 id="protect-title" class="sr-only">"Your MCP server"</h2>
            <ActionForm action=generate attr:id="protect-form" attr:class="grid gap-4 sm:grid-cols-2" on:input=move |_| errors.clear()>
                <Field errors name="server_url" id="protect-url" label="MCP server URL" kind=Kind::Url required=true maxlength=2048 mono=true
                    placeholder="https://mcp.example.com/mcp" help="The URL clients connect to (its MCP endpoint)."/>
                <Field errors name="resource_name" id="protect-name" label="Name (optional)" maxlength=100 placeholder="Payments MCP"
                    help="Shown to people who consent and in client configurations."/>
                <Field errors name="scopes" id="protect-scopes" label="Scopes (optional)" maxlength=1000 mono=true placeholder="tools:call"
                    help="Space-separated: the least the server needs. offline_access never belongs here."/>
                <Field errors name="documentation_url" id="protect-docs" label="Documentation URL (optional)" kind=Kind::Url maxlength=2048
                    placeholder="https://docs.example.com/payments-mcp"/>
                <div class="sm:col-span-2">{errors.form_error()}</div>
                <div class="sm:col-span-2">
                    <button type="submit" class=BTN_PRIMARY disabled=move || generate.pending().get()>"Generate"</button>
                </div>
            </ActionForm>
        </section>
        {move || generate.value().get().and_then(Result::ok).map(|p| view! { <Generated p/> })}
    }
}
