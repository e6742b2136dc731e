//! Drift: what `portcullis-cli drift --report` found on people's laptops.
//!
//! The realm in numbers, the server names found on the most people's devices, each device's
//! last report with its fix hints, and forgetting a device given back.
use super::RegistryTabs;
use crate::api::registry::{ForgetDriftDevice, registry_drift, registry_drift_device};
use crate::components::confirm::ConfirmButton;
use crate::components::layout::use_abilities;
use crate::components::pager::{grouped, with_query};
use crate::components::ui::*;
use crate::types::registry::{DriftDeviceView, DriftFindingView, DriftRowView, DriftView};
use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

/// A finding kind, in words.
fn kind_pill(kind: &str) -> impl IntoView + use<> {
    match kind {
        "version-drift" => view! { <Pill tone=Tone::Warn text="Version drift"/> },
        _ => view! { <Pill tone=Tone::Bad text="Unapproved"/> },
    }
}

/// A device's page, from its row.
fn device_href(r: &DriftRowView) -> String {
    with_query(
        "/registry/drift/device",
        &[("subject", r.subject.clone()), ("device", r.device.clone())],
    )
}

/// The release a device compared with.
fn release_cell(r: &DriftRowView) -> impl IntoView + use<> {
    let text = format!("#{}", r.release_sequence);
    if r.latest {
        view! { <span>{text}" "<Pill tone=Tone::Good text="Latest"/></span> }.into_any()
    } else {
        view! { <span>{text}" "<Pill tone=Tone::Warn text="Older: pull again"/></span> }.into_any()
    }
}

/// The Drift screen.
#[component]
pub fn DriftPage() -> impl IntoView {
    let query = use_query_map();
    let q = Memo::new(move |_| query.with(|m| m.get("q").unwrap_or_default()));
    let drifting = Memo::new(move |_| query.with(|m| m.get("drifting").is_some_and(|v| v == "1")));
    let after = Memo::new(move |_| query.with(|m| m.get("after").unwrap_or_default()));
    // One person's devices (from their page): `subject` is their id, `who` how to name them.
    let subject = Memo::new(move |_| query.with(|m| m.get("subject").unwrap_or_default()));
    let who = Memo::new(move |_| query.with(|m| m.get("who").unwrap_or_default()));
    let drift = Resource::new(
        move || (q.get(), subject.get(), drifting.get(), after.get()),
        |(q, subject, drifting, after)| registry_drift(q, subject, drifting, after),
    );
    view! {
        <PageHeader title="Drift" description="What portcullis-cli drift --report finds on people's laptops: MCP servers configured in their harnesses that the release does not approve for them (unapproved), or approves with another URL or command line (version drift). Reports name servers, hosts and hashes only, never a command line, argument or URL path."/>
        <RegistryTabs current="/registry/drift"/>
        <Transition fallback=|| view! { <Loading/> }>
            {move || drift.get().map(|result| match result {
                Ok(v) if v.devices == 0 => view! { <NoReports/> }.into_any(),
                Ok(v) => view! {
                    // One person's devices: the realm's numbers would read as theirs.
                    {subject.get().is_empty().then(|| view! { <Summary v=v.clone()/> })}
                    {(!subject.get().is_empty()).then(|| view! {
                        <p class="mb-3 flex flex-wrap items-center gap-2 text-sm" data-testid="drift-person">
                            <span class="break-all">{format!("Devices of {}", if who.get().is_empty() { subject.get() } else { who.get() })}</span>
                            <a class="text-indigo-700 hover:underline dark:text-indigo-300" href="/registry/drift">"Show everyone's"</a>
                        </p>
                    })}
                    <Devices v q=q.get() subject=subject.get() who=who.get() drifting=drifting.get() after=after.get()/>
                }.into_any(),
                Err(error) => view! { <ErrorMessage error/> }.into_any(),
            })}
        </Transition>
    }
}

/// Before the first report: how laptops start reporting.
#[component]
fn NoReports() -> impl IntoView {
    view! {
        <section class=format!("{CARD} p-4 sm:p-6") data-testid="drift-empty">
            <h2 class="text-lg font-semibold text-slate-900 dark:text-white">"No device has reported yet"</h2>
            <p class="mt-2 text-sm">"On each laptop, once signed in and pulled, run drift with --report, for example daily from a scheduled task. The registry must be served over HTTP (Publish & releases → settings) and the person signed in with portcullis-cli login."</p>
            <pre class="mt-3 whitespace-pre-wrap break-all rounded-md bg-slate-100 p-3 font-mono text-xs text-slate-800 dark:bg-slate-900 dark:text-slate-200">"portcullis-cli login --server URL --realm REALM\nportcullis-cli pull --server URL --realm REALM --ring RING\nportcullis-cli drift --report"</pre>
        </section>
    }
}

/// The realm in numbers, and the most common findings.
#[component]
fn Summary(v: DriftView) -> impl IntoView {
    let latest = v
        .latest_sequence
        .map_or_else(|| "no release".to_owned(), |s| format!("release #{s}"));
    let tiles = [
        (
            "Devices reporting",
            grouped(v.devices),
            format!(
                "belonging to {} {}",
                grouped(v.people),
                if v.people == 1 { "person" } else { "people" }
            ),
        ),
        (
            "Drifting",
            grouped(v.drifting),
            "with findings in their last report".to_owned(),
        ),
        ("On the latest release", grouped(v.on_latest), latest),
        ("Stale", grouped(v.stale), "no report for a week".to_owned()),
    ];
    view! {
        <section aria-label="Summary" class="mb-6 grid grid-cols-2 gap-3 lg:grid-cols-4" data-testid="drift-summary">
            {tiles.into_iter().map(|(label, value, note)| view! {
                <div class=format!("{CARD} p-4")>
                    <p class="text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">{label}</p>
                    <p class="mt-1 text-2xl font-semibold text-slate-900 dark:text-white">{value}</p>
                    <p class=format!("{MUTED} break-words")>{note}</p>
                </div>
            }).collect_view()}
        </section>
        {(!v.top.is_empty()).then(|| view! {
            <section class=format!("{CARD} mb-6 p-4 sm:p-6") aria-labelledby="drift-top">
                <h2 id="drift-top" class="text-lg font-semibold text-slate-900 dark:text-white">"Found on the most people's devices"</h2>
                <p class=MUTED>"From each device's last report. Unapproved servers many people use are candidates for the registry; version drift means laptops run something other than what was pinned. A name the latest release now approves may still show until those laptops pull and report again."</p>
                <ul class="mt-3 divide-y divide-slate-200 dark:divide-slate-700" data-testid="drift-top">
                    {v.top.into_iter().map(|t| view! {
                        <li class="flex flex-wrap items-center justify-between gap-2 py-2">
                            <span class="flex min-w-0 flex-wrap items-center gap-2">
                                {kind_pill(&t.kind)}
                                <span class="font-mono text-sm break-all">{t.name}</span>
                                {t.in_latest.then(|| view! { <Pill tone=Tone::Info text="In the latest release"/> })}
                            </span>
                            <span class=MUTED>{format!("{} {}", grouped(t.people), if t.people == 1 { "person" } else { "people" })}</span>
                        </li>
                    }).collect_view()}
                </ul>
            </section>
        })}
    }
}

/// The page of devices, with search and the drifting filter.
#[component]
fn Devices(
    v: DriftView,
    q: String,
    subject: String,
    who: String,
    drifting: bool,
    after: String,
) -> impl IntoView {
    let href = |after: String| {
        with_query(
            "/registry/drift",
            &[
                ("q", q.clone()),
                ("subject", subject.clone()),
                ("who", who.clone()),
                (
                    "drifting",
                    if drifting { "1".into() } else { String::new() },
                ),
                ("after", after),
            ],
        )
    };
    let next = (!v.next.is_empty()).then(|| href(v.next.clone()));
    let first = (!after.is_empty()).then(|| href(String::new()));
    let shown = v.rows.len();
    view! {
        <section class=CARD aria-labelledby="drift-devices">
            <h2 id="drift-devices" class="sr-only">"Devices"</h2>
            <Form method="GET" action="" attr:class="flex flex-wrap items-center gap-2 border-b border-slate-200 p-4 dark:border-slate-700" attr:role="search">
                <label class="sr-only" for="drift-search">"Search devices"</label>
                {(!subject.is_empty()).then(|| view! {
                    <input type="hidden" name="subject" value=subject.clone()/>
                    <input type="hidden" name="who" value=who.clone()/>
                })}
                <input class=format!("{INPUT} min-w-0 basis-full sm:basis-0 sm:flex-1") id="drift-search" name="q" type="search" placeholder="Search by email or device" prop:value=q.clone()/>
                <label class="flex items-center gap-2 text-sm">
                    <input type="checkbox" name="drifting" value="1" checked=drifting class="h-4 w-4 rounded border-slate-300"/>
                    "Only drifting"
                </label>
                <button type="submit" class=BTN_SECONDARY>"Search"</button>
            </Form>
            {if v.rows.is_empty() {
                view! { <EmptyState title="No devices match" hint="Try another search, or clear Only drifting."/> }.into_any()
            } else {
                view! {
                    <table class=CARDS_TABLE>
                        <thead class=CARDS_HEAD>
                            <tr>
                                <th class=format!("{TH} sm:w-[40%]") scope="col">"Device"</th>
                                <th class=TH scope="col">"Last report"</th>
                                <th class=TH scope="col">"Release"</th>
                                <th class=TH scope="col">"Findings"</th>
                            </tr>
                        </thead>
                        <tbody class=CARDS_BODY>
                            {v.rows.into_iter().map(|r| view! {
                                <tr class=CARDS_ROW data-testid="drift-row">
                                    <td class=CARDS_CELL>
                                        <a class="font-medium break-all text-indigo-700 hover:underline dark:text-indigo-300" href=device_href(&r)>{r.device.clone()}</a>
                                        <div class=format!("{MUTED} break-all")>{r.email.clone()}</div>
                                    </td>
                                    <td class=CARDS_CELL_NEXT>
                                        <span class="sm:hidden text-xs font-semibold text-slate-500 dark:text-slate-400">"Last report: "</span>
                                        <When at=r.received.at.clone() words=r.received.ago.clone()/>
                                        {r.stale.then(|| view! { " " <Pill tone=Tone::Off text="Stale"/> })}
                                    </td>
                                    <td class=CARDS_CELL_NEXT>
                                        <span class="sm:hidden text-xs font-semibold text-slate-500 dark:text-slate-400">"Release: "</span>
                                        {release_cell(&r)}
                                    </td>
                                    <td class=CARDS_CELL_NEXT>
                                        <span class="sm:hidden text-xs font-semibold text-slate-500 dark:text-slate-400">"Findings: "</span>
                                        {if r.findings == 0 {
                                            view! { <Pill tone=Tone::Good text="Clean"/> }.into_any()
                                        } else {
                                            view! { <Pill tone=Tone::Bad text=format!("{} finding{}", grouped(r.findings), if r.findings == 1 { "" } else { "s" })/> }.into_any()
                                        }}
                                        {(r.problems > 0).then(|| view! { " " <Pill tone=Tone::Warn text=format!("{} unreadable", r.problems)/> })}
                                    </td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            }}
            <nav aria-label="Pagination" class="flex flex-wrap items-center justify-between gap-2 border-t border-slate-200 px-4 py-3 dark:border-slate-700">
                <p class=MUTED>{format!("{shown} device{} on this page, newest report first", if shown == 1 { "" } else { "s" })}</p>
                <div class="flex gap-2">
                    {first.map(|href| view! { <a class=BTN_SMALL href=href>"First page"</a> })}
                    {next.map(|href| view! { <a class=BTN_SMALL href=href rel="next">"Next page"</a> })}
                </div>
            </nav>
        </section>
    }
}

/// One device's last report.
#[component]
pub fn DriftDevicePage() -> impl IntoView {
    let query = use_query_map();
    let key = Memo::new(move |_| {
        query.with(|m| {
            (
                m.get("subject").unwrap_or_default(),
                m.get("device").unwrap_or_default(),
            )
        })
    });
    let device = Resource::new(move || key.get(), |(s, d)| registry_drift_device(s, d));
    let forget = ServerAction::<ForgetDriftDevice>::new();
    leave_after(
        forget,
        "Device forgotten: it comes back with its next report.",
        "/registry/drift",
    );
    view! {
        <Transition fallback=|| view! { <Loading/> }>
            {move || device.get().map(|result| match result {
                Ok(d) => view! { <Device d forget/> }.into_any(),
                Err(error) => view! {
                    <PageHeader title="Device"/>
                    <ErrorMessage error/>
                    <p class="mt-4"><a class=BTN_SECONDARY href="/registry/drift">"All devices"</a></p>
                }.into_any(),
            })}
        </Transition>
    }
}

#[component]
fn Device(d: DriftDeviceView, forget: ServerAction<ForgetDriftDevice>) -> impl IntoView {
    let can = use_abilities();
    let (subject, name) = (d.row.subject.clone(), d.row.device.clone());
    let latest = d.latest_sequence.map_or_else(
        || "no release is published".to_owned(),
        |s| format!("the latest is #{s}"),
    );
    let list = |items: &[String]| {
        if items.is_empty() {
            "none".to_owned()
        } else {
            items.join(", ")
        }
    };
    let facts = [
        ("Person", d.row.email.clone()),
        ("Their rings now", list(&d.rings_now)),
        ("Their units now", list(&d.units_now)),
        (
            "Pulled for (as the laptop says)",
            format!("rings: {}; units: {}", list(&d.rings), list(&d.units)),
        ),
        (
            "Approved for what it pulled",
            format!(
                "{} server{}",
                d.approved,
                if d.approved == 1 { "" } else { "s" }
            ),
        ),
        ("Config files read", d.files_read.to_string()),
    ];
    let mismatch = {
        let mut pulled: Vec<&String> = d.rings.iter().chain(&d.units).collect();
        let mut now: Vec<&String> = d.rings_now.iter().chain(&d.units_now).collect();
        pulled.sort();
        now.sort();
        pulled != now
    };
    let findings = d.findings.len();
    view! {
        <a href="/registry/drift" class="text-sm text-indigo-600 hover:underline dark:text-indigo-300">"← All devices"</a>
        <div class="mt-2 mb-6 flex flex-col gap-3 sm:flex-row sm:items-end sm:justify-between">
            <div class="min-w-0">
                <h1 class=format!("{H1} break-all")>{d.row.device.clone()}</h1>
                <p class=format!("mt-1 {MUTED} break-all")>{format!("A laptop of {}: its last drift report.", d.row.email)}</p>
            </div>
            <div class="flex gap-2">
                {can.manage_registry.then(|| view! {
                    <ConfirmButton label="Forget device" title=format!("Forget {name}?")
                        message="Its report is removed (say, a laptop given back). If it reports again, it comes back." confirm_label="Forget" class=BTN_DANGER
                        on_confirm=Callback::new(move |_| { forget.dispatch(ForgetDriftDevice { subject: subject.clone(), device: name.clone() }); })/>
                })}
            </div>
        </div>
        <section class=format!("{CARD} mb-6 p-4 sm:p-6") aria-label="Report">
            <dl class="grid gap-3 text-sm sm:grid-cols-[12rem_1fr]">
                <dt class="font-medium text-slate-500 dark:text-slate-400">"Last report"</dt>
                <dd><When at=d.row.received.at.clone() words=d.row.received.ago.clone()/>{d.row.stale.then(|| view! { " " <Pill tone=Tone::Off text="Stale: no report for a week"/> })}</dd>
                <dt class="font-medium text-slate-500 dark:text-slate-400">"Compared with"</dt>
                <dd>{release_cell(&d.row)}<span class=format!("ml-1 {MUTED}")>{format!("({latest})")}</span></dd>
                {facts.into_iter().map(|(k, v)| view! {
                    <dt class="font-medium text-slate-500 dark:text-slate-400">{k}</dt>
                    <dd class="break-words">{v}</dd>
                }).collect_view()}
            </dl>
            {mismatch.then(|| view! {
                <p class="mt-3 text-sm text-amber-800 dark:text-amber-300" data-testid="drift-groups-differ">"The laptop pulled for other rings or units than its person is in now: its findings are against what it pulled for. Pulling again with their rings and units (--ring, --unit) makes them match."</p>
            })}
        </section>
        <section class=format!("{CARD} mb-6 p-4 sm:p-6") aria-labelledby="device-findings">
            <h2 id="device-findings" class="text-lg font-semibold text-slate-900 dark:text-white">{format!("Findings ({})", findings as u64 + u64::from(d.omitted_findings))}</h2>
            {if d.findings.is_empty() && d.files_read == 0 {
                view! { <p class="mt-2 text-sm">"No harness config file was found on this device, so there was nothing to compare."</p> }.into_any()
            } else if d.findings.is_empty() {
                view! { <p class="mt-2 text-sm">"Nothing drifted: every configured server is one the release approves for what the laptop pulled."</p> }.into_any()
            } else {
                view! {
                    <ul class="mt-3 space-y-3" data-testid="drift-findings">
                        {d.findings.into_iter().map(|f| view! { <Finding f/> }).collect_view()}
                    </ul>
                }.into_any()
            }}
            {(d.omitted_findings > 0).then(|| view! { <p class=format!("mt-3 {MUTED}")>{format!("And {} more the laptop left out of the report (run drift on it to see them all).", d.omitted_findings)}</p> })}
        </section>
        {(!d.problems.is_empty()).then(|| view! {
            <section class=format!("{CARD} mb-6 p-4 sm:p-6") aria-labelledby="device-problems">
                <h2 id="device-problems" class="text-lg font-semibold text-slate-900 dark:text-white">"Files it could not read"</h2>
                <ul class="mt-3 space-y-2 text-sm">
                    {d.problems.into_iter().map(|p| view! {
                        <li class="break-words"><span class="font-mono text-xs">{p.source}</span>" ("{p.harness}"): "{p.message}</li>
                    }).collect_view()}
                </ul>
            </section>
        })}
    }
}

#[component]
fn Finding(f: DriftFindingView) -> impl IntoView {
    let reached = if f.host.is_empty() {
        f.transport.clone()
    } else {
        format!("{} at {}", f.transport, f.host)
    };
    let short = f.definition_sha256.chars().take(12).collect::<String>();
    view! {
        <li class="rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="drift-finding">
            <div class="flex flex-wrap items-center gap-2">
                {kind_pill(&f.kind)}
                <span class="font-mono text-sm font-medium break-all">{f.name}</span>
            </div>
            <p class=format!("mt-1 {MUTED} break-words")>{f.harness}" · "<span class="font-mono text-xs">{f.source}</span>" · "{reached}
                " · fingerprint "<span class="font-mono text-xs" title=format!("The definition's SHA-256, keyed with this device's own key: the same on this device's next report while the definition stays the same. {}", f.definition_sha256)>{short}</span></p>
            <p class="mt-2 text-sm break-words"><span class="font-medium">"Fix: "</span>{f.fix}</p>
        </li>
    }
}
