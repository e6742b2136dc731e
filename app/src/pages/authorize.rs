//! The pages of a realm's authorization endpoint: sign-in, consent, errors, the account page.
//!
//! Plain HTML forms rendered on the server (no hydration, no JavaScript needed), in the
//! console's look. They live here so the stylesheet generator sees their classes.
use crate::components::ui::{BTN_PRIMARY, BTN_SECONDARY, INPUT, LABEL};
use authz::authorize::{ConsentPage, LoginPage};
use authz::broker::{LinkPage, SignInButton};
use authz::clients::RedirectKind;
use leptos::prelude::*;

/// Quiet text colour (sizes set where used).
const MUTED: &str = "text-slate-500 dark:text-slate-400";
const ALERT: &str = "mb-4 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200";
const WARN: &str = "rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-200";

/// A whole document around `body`.
fn document(title: &str, body: String) -> String {
    let title = html_escape(title);
    format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"/><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/><meta name=\"referrer\" content=\"no-referrer\"/><title>{title}</title><script>{}</script><link rel=\"stylesheet\" href=\"/pkg/app.css\"/><link rel=\"icon\" href=\"/favicon.svg\"/></head><body class=\"min-h-screen bg-slate-50 text-slate-900 antialiased dark:bg-slate-950 dark:text-slate-100\">{body}</body></html>",
        crate::components::layout::THEME_SCRIPT
    )
}

/// `s` as HTML text or a double-quoted attribute value.
pub fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The frame of every page: the realm's name on top, a card.
fn frame(realm: String, title: String, children: impl IntoView + 'static) -> String {
    view! {
        <main class="flex min-h-screen flex-col items-center justify-center px-4 py-10">
            <div class="mb-6 flex min-w-0 max-w-full items-center gap-2">
                <span class="flex h-9 w-9 shrink-0 items-center justify-center rounded-md bg-indigo-600 font-bold text-white">"P"</span>
                <span class="truncate text-xl font-semibold text-slate-900 dark:text-white" data-testid="realm-name">{realm}</span>
            </div>
            <div class="w-full max-w-md rounded-lg border border-slate-200 bg-white p-6 shadow-md dark:border-slate-700 dark:bg-slate-800">
                <h1 class="mb-4 break-words text-lg font-semibold text-slate-900 dark:text-white">{title}</h1>
                {children}
            </div>
        </main>
    }
    .to_html()
}

/// Whether an administrator or reviewer vouches for the client's name, or it named itself.
fn verified_badge(verified: bool) -> AnyView {
    if verified {
        view! { <span data-testid="client-verified" class="rounded bg-emerald-100 px-1.5 py-0.5 text-xs font-medium text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200">"Verified by your administrators"</span> }.into_any()
    } else {
        view! { <span data-testid="client-unverified" class="rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-950 dark:text-amber-200">"Self-registered: not reviewed"</span> }.into_any()
    }
}

/// The sign-in page.
pub fn login_html(page: &LoginPage, action: &str) -> String {
    let title = format!("Sign in to continue to {}", page.client_name);
    let error = page.error.clone().map(|e| {
        view! {
            <p role="alert" data-testid="login-error" class=ALERT>{e}</p>
        }
    });
    let providers = provider_buttons(action, ("ticket", &page.ticket), &page.providers);
    let divider = (page.password && !page.providers.is_empty()).then(|| {
        view! {
            <p class=format!("my-4 text-center text-xs {MUTED}")>"or sign in with your password"</p>
        }
    });
    // With providers, they lead and the password form follows (no field takes the focus).
    let lead = page.providers.is_empty();
    let submit = if lead { BTN_PRIMARY } else { BTN_SECONDARY };
    let password = page.password.then(|| {
        view! {
            <form method="post" action=action.to_owned() class="space-y-4">
                <input type="hidden" name="ticket" value=page.ticket.clone()/>
                <input type="hidden" name="step" value="login"/>
                <div>
                    <label for="email" class=LABEL>"Email"</label>
                    <input id="email" name="email" type="email" required autocomplete="username" maxlength="254" autofocus=lead && page.email.is_empty() value=page.email.clone() class=format!("mt-1 {INPUT}")/>
                </div>
                <div>
                    <label for="password" class=LABEL>"Password"</label>
                    <input id="password" name="password" type="password" required autocomplete="current-password" maxlength="256" autofocus=!page.email.is_empty() class=format!("mt-1 {INPUT}")/>
                </div>
                <div><button type="submit" class=format!("w-full {submit}")>"Sign in"</button></div>
            </form>
        }
    });
    let nothing = (!page.password && page.providers.is_empty()).then(|| {
        view! {
            <p role="alert" class=ALERT>"Signing in to " {page.realm.clone()} " is not possible right now: ask your administrator."</p>
        }
    });
    let shared = if page.password {
        ". Your password is never shared with the application."
    } else {
        "."
    };
    let body = view! {
        <p class="-mt-2 mb-4">{verified_badge(page.client_verified)}</p>
        {error}
        {nothing}
        {providers}
        {divider}
        {password}
        <p class=format!("mt-4 text-xs {MUTED}")>"You are signing in to " {page.realm.clone()} {shared}</p>
    };
    document(&title, frame(page.realm.clone(), title.clone(), body))
}

/// One form per sign-in provider button, each posting `bound` (the sealed request, or the
/// account form's token) and the provider's id; nothing when there is none.
fn provider_buttons(
    action: &str,
    bound: (&'static str, &str),
    providers: &[SignInButton],
) -> Option<impl IntoView + use<>> {
    (!providers.is_empty()).then(|| {
        let buttons = providers
            .iter()
            .map(|b| {
                view! {
                    <form method="post" action=action.to_owned()>
                        <input type="hidden" name=bound.0 value=bound.1.to_owned()/>
                        <input type="hidden" name="step" value="upstream"/>
                        <input type="hidden" name="provider" value=b.id.clone()/>
                        <button type="submit" data-testid="upstream-button" class=format!("w-full break-words {BTN_PRIMARY}")>{b.text.clone()}</button>
                    </form>
                }
            })
            .collect_view();
        view! { <div class="space-y-2">{buttons}</div> }
    })
}

/// The page that links a sign-in provider's identity to an existing account: its password
/// proves the account is theirs.
pub fn link_html(page: &LinkPage, action: &str) -> String {
    let title = format!("Connect {} to your account", page.provider);
    let error = page.error.clone().map(|e| {
        view! {
            <p role="alert" data-testid="login-error" class=ALERT>{e}</p>
        }
    });
    let body = view! {
        <p class="mb-4 break-words">
            "You already have an account here as " <strong>{page.email.clone()}</strong>
            ". Enter its password once to confirm it is yours; after that " {page.provider.clone()}
            " signs you in to it."
        </p>
        {error}
        <form method="post" action=action.to_owned() class="space-y-4">
            <input type="hidden" name="link" value=page.link.clone()/>
            <input type="hidden" name="step" value="link"/>
            <input type="email" name="email" value=page.email.clone() autocomplete="username" class="hidden" readonly/>
            <div>
                <label for="password" class=LABEL>"Password"</label>
                <input id="password" name="password" type="password" required autocomplete="current-password" maxlength="256" autofocus class=format!("mt-1 {INPUT}")/>
            </div>
            <div><button type="submit" class=format!("w-full {BTN_PRIMARY}")>"Connect and continue"</button></div>
        </form>
        <p class=format!("mt-4 text-xs {MUTED}")>"You are signing in to " {page.realm.clone()} ". If this is not your account, close this page and ask your administrator."</p>
    };
    document(&title, frame(page.realm.clone(), title.clone(), body))
}

/// The consent page.
pub fn consent_html(page: &ConsentPage, action: &str) -> String {
    let title = format!("{} wants to act for you", page.client_name);
    let logo = page.logo_uri.clone().map(|src| view! {
        <img src=src alt="" width="48" height="48" referrerpolicy="no-referrer" class="h-12 w-12 shrink-0 rounded-md border border-slate-200 object-contain dark:border-slate-700"/>
    });
    let verified = verified_badge(page.verified);
    let warning = match page.redirect_kind {
        _ if page.device_user_code.is_some() => Some(
            "Allow only if you started this yourself on a device in front of you and it shows exactly this code. Someone who sends you a code is asking for your access.",
        ),
        RedirectKind::Https => None,
        RedirectKind::Loopback => Some(
            "It returns to a program on this computer (a loopback address). Continue only if you just started this connection from an app you trust.",
        ),
        RedirectKind::PrivateUse => Some(
            "It returns to an app on this device through its own link scheme. Any app can claim such a scheme; continue only if you just started this from the app you expect.",
        ),
    };
    let scopes = page
        .scopes
        .iter()
        .map(|(s, words)| {
            view! {
                <li class="flex flex-col">
                    <span>{words.clone()}</span>
                    <code class=format!("break-all text-xs {MUTED}")>{s.clone()}</code>
                </li>
            }
        })
        .collect_view();
    let offline = page.offline.then(|| view! {
        <li class="flex flex-col" data-testid="consent-offline">
            <span>"Stay connected after you close it"</span>
            <span class=format!("text-xs {MUTED}")>"until you disconnect it on your account page"</span>
        </li>
    });
    let body = view! {
        <div class="mb-4 flex items-start gap-3">
            {logo}
            <div class="min-w-0 space-y-1">
                <p class="break-words font-medium" data-testid="client-name">{page.client_name.clone()}</p>
                <p class=format!("break-all text-xs {MUTED}")>{page.client_id.clone()}</p>
                <p>{verified}</p>
            </div>
        </div>
        <dl class="grid gap-3 text-sm">
            <div>
                <dt class=format!("text-xs font-semibold uppercase tracking-wide {MUTED}")>"Signed in as"</dt>
                <dd class="break-words">{page.subject_name.clone()} " " <span class=MUTED>"(" {page.subject_email.clone()} ")"</span></dd>
            </div>
            <div>
                <dt class=format!("text-xs font-semibold uppercase tracking-wide {MUTED}")>"At"</dt>
                <dd class="break-words" data-testid="consent-resource">{page.resource_name.clone()} <code class=format!("block break-all text-xs {MUTED}")>{page.resource_uri.clone()}</code></dd>
            </div>
            <div>
                <dt class=format!("text-xs font-semibold uppercase tracking-wide {MUTED}")>"It may"</dt>
                <dd><ul class="mt-1 grid list-disc gap-1 pl-5" data-testid="consent-scopes">{scopes}{offline}</ul></dd>
            </div>
            {match page.device_user_code.clone() {
                Some(code) => view! {
                    <div>
                        <dt class=format!("text-xs font-semibold uppercase tracking-wide {MUTED}")>"On the device showing"</dt>
                        <dd class="font-mono text-lg font-semibold tracking-widest" data-testid="consent-device-code">{code}</dd>
                    </div>
                }.into_any(),
                None => view! {
                    <div>
                        <dt class=format!("text-xs font-semibold uppercase tracking-wide {MUTED}")>"Afterwards you go to"</dt>
                        <dd class="break-all font-mono text-xs" data-testid="consent-redirect">{page.redirect_origin.clone()}</dd>
                    </div>
                }.into_any(),
            }}
        </dl>
        {page.purpose.clone().map(|p| view! { <p class="mt-4 text-sm" data-testid="consent-purpose">{p}</p> })}
        {warning.map(|w| view! { <p class=format!("mt-4 {WARN}") data-testid="consent-warning">{w}</p> })}
        <form method="post" action=action.to_owned() class="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            <input type="hidden" name="ticket" value=page.ticket.clone()/>
            <input type="hidden" name="step" value="consent"/>
            <button type="submit" name="decision" value="deny" class=BTN_SECONDARY>"Deny"</button>
            <button type="submit" name="decision" value="approve" class=BTN_PRIMARY>"Allow"</button>
        </form>
    };
    document(&title, frame(page.realm.clone(), title.clone(), body))
}

/// The device verification page (RFC 8628 §3.3): type the code the device shows.
pub fn device_entry_html(page: &authz::authorize::DeviceEntryPage, action: &str) -> String {
    let title = "Connect a device".to_owned();
    let error = page.error.clone().map(|e| {
        view! { <p role="alert" id="device-error" data-testid="device-error" class=ALERT>{e}</p> }
    });
    let invalid = page.error.is_some();
    let body = view! {
        {error}
        <form method="post" action=action.to_owned() class="space-y-4">
            <input type="hidden" name="csrf" value=page.form_token.clone()/>
            <div>
                <label for="user_code" class=LABEL>"Code shown on your device"</label>
                <input id="user_code" name="user_code" type="text" required autofocus
                    autocomplete="one-time-code" autocapitalize="characters" spellcheck="false"
                    maxlength="32" placeholder="BCDF-GHJK" value=page.user_code.clone()
                    aria-invalid=invalid.then_some("true") aria-describedby=invalid.then_some("device-error")
                    class=format!("mt-1 font-mono uppercase tracking-widest {INPUT}")/>
                <p class=format!("mt-1 text-xs {MUTED}")>"Eight letters; dashes, spaces and case do not matter."</p>
            </div>
            <div><button type="submit" class=format!("w-full {BTN_PRIMARY}")>"Continue"</button></div>
        </form>
        <p class=format!("mt-4 text-xs {MUTED}")>"Enter a code only if you started a sign-in on a device you are using now. You will see which application asks, and for what, before anything is allowed."</p>
    };
    document(&title, frame(page.realm.clone(), title.clone(), body))
}

/// After a device authorization was answered: back to the device.
pub fn device_done_html(page: &authz::authorize::DeviceDonePage) -> String {
    let title = if page.approved {
        "Device connected".to_owned()
    } else {
        "Access refused".to_owned()
    };
    let message = if page.approved {
        format!(
            "{} is allowed. Go back to your device: it continues on its own within a few seconds. You can close this page.",
            page.client_name
        )
    } else {
        format!(
            "{} was not allowed. Your device will say so; you can close this page.",
            page.client_name
        )
    };
    let body = view! {
        <p class="break-words text-sm" role="status" data-testid="device-done">{message}</p>
    };
    document(&title, frame(page.realm.clone(), title.clone(), body))
}

/// The page of a client that waits for a security review: the person learns why they cannot
/// sign in, and the reviewer where to let it in.
pub fn awaiting_review_html(page: &authz::authorize::ReviewPage) -> String {
    let title = "Waiting for a security review";
    let body = view! {
        <p role="alert" data-testid="authorize-error" class=ALERT>
            <span class="break-words font-medium">{page.client_name.clone()}</span>
            " is awaiting approval by the security team: it registered itself, and nobody can sign in to it until a security reviewer approves it."
        </p>
        <p class=format!("break-all text-xs {MUTED}")>{page.client_id.clone()}</p>
        <p class="text-sm">
            "Security reviewers approve it in the Portcullis console: "
            <a class="font-medium text-indigo-700 underline dark:text-indigo-300" href=page.queue_url.clone() data-testid="review-queue-link">"Security review"</a>
            " (realm " {page.realm.clone()} ")."
        </p>
        <p class=format!("text-sm {MUTED}")>"Once it is approved, start again from the application."</p>
    };
    document(title, frame(page.realm.clone(), title.to_owned(), body))
}

/// The connect link of a gateway upstream opened by nobody signed in at the realm.
pub fn connect_sign_in_html(realm: &str, account_url: &str) -> String {
    let title = "Sign in to connect your account";
    let body = view! {
        <p class="break-words text-sm" role="status" data-testid="connect-sign-in">
            "To connect your own account at this server, sign in first. You come back here once you have."
        </p>
        <a class=format!("mt-4 flex w-full justify-center {BTN_PRIMARY}") href=account_url.to_owned() data-testid="connect-sign-in-link">"Sign in"</a>
    };
    document(title, frame(realm.to_owned(), title.to_owned(), body))
}

/// The connect link of a gateway upstream: the person signed in confirms who they are and
/// where they connect (a form posted back with the account form token).
pub fn connect_confirm_html(c: &authz::gateway::ConnectConfirm, action: &str) -> String {
    let title = format!("Connect your account at {}", c.server);
    let replaces = c.replaces.as_ref().map(|issuer| {
        view! {
            <p class="break-words text-sm" data-testid="connect-replaces">
                "This replaces the account you connected before (at " <span class="break-all">{issuer.clone()}</span> ")."
            </p>
        }
    });
    let body = view! {
        <div class="space-y-3">
            <p class="break-words text-sm">
                "Signed in as " <span class="font-medium">{c.person.clone()}</span> ". "
                <a class="text-indigo-700 underline dark:text-indigo-300" href=c.account_url.clone()>"Not you?"</a>
            </p>
            <p class="break-words text-sm">
                "Next, sign in to your own account at " <span class="font-medium">{c.server.clone()}</span>
                " (the server at " <span class="break-words">{c.host.clone()}</span> "). Your agents' calls to it through the gateway then act as that account."
            </p>
            {replaces}
            <form method="post" action=action.to_owned()>
                <input type="hidden" name="csrf" value=c.form_token.clone()/>
                <input type="hidden" name="server" value=c.server_id.clone()/>
                <button type="submit" class=format!("w-full {BTN_PRIMARY}") data-testid="connect-confirm">"Connect"</button>
            </form>
        </div>
    };
    document(&title, frame(c.realm.clone(), title.clone(), body))
}

/// A person connected their own account at a gateway upstream.
pub fn connected_html(realm: &str, server: &str) -> String {
    let title = "Account connected";
    let body = view! {
        <p class="break-words text-sm" role="status" data-testid="connected">
            "Your account at " <span class="font-medium">{server.to_owned()}</span>
            " is connected. Your agents' calls to it through the gateway now act as you; you can disconnect it on your account page at any time. You can close this page."
        </p>
    };
    document(title, frame(realm.to_owned(), title.to_owned(), body))
}

/// An error page: the request cannot go back to the application.
pub fn error_html(realm: &str, title: &str, message: &str) -> String {
    let body = view! {
        <p role="alert" data-testid="authorize-error" class=ALERT>{message.to_owned()}</p>
        <p class=format!("text-sm {MUTED}")>"Close this window and start again from the application. If this keeps happening, tell your administrator."</p>
    };
    document(title, frame(realm.to_owned(), title.to_owned(), body))
}

/// One connected app as the account page lists it.
#[derive(Debug, Clone)]
pub struct AccountApp {
    /// Consent id (posted back to revoke).
    pub id: String,
    /// Client name.
    pub client_name: String,
    /// Client id.
    pub client_id: String,
    /// Resource name.
    pub resource_name: String,
    /// Resource URI.
    pub resource_uri: String,
    /// Scopes agreed to, in words.
    pub scopes: Vec<String>,
    /// When it was last agreed to (words).
    pub since: String,
}

/// One of a person's own accounts at a gateway upstream, as the account page lists it.
#[derive(Debug, Clone)]
pub struct AccountServer {
    /// Registry server id (posted back to disconnect).
    pub id: String,
    /// Its title.
    pub title: String,
    /// The authorization server the account is at.
    pub issuer: String,
    /// When it was connected (words).
    pub since: String,
}

/// The sign-in form of a person's account page.
pub fn account_login_html(
    realm: &str,
    action: &str,
    csrf: &str,
    error: Option<&str>,
    email: &str,
    (providers, password): (&[SignInButton], bool),
) -> String {
    let title = "Sign in to your account".to_owned();
    let error = error.map(
        |e| view! { <p role="alert" data-testid="login-error" class=ALERT>{e.to_owned()}</p> },
    );
    let buttons = provider_buttons(action, ("csrf", csrf), providers);
    let divider = (password && !providers.is_empty()).then(|| {
        view! {
            <p class=format!("my-4 text-center text-xs {MUTED}")>"or sign in with your password"</p>
        }
    });
    let submit = if providers.is_empty() {
        BTN_PRIMARY
    } else {
        BTN_SECONDARY
    };
    let form = password.then(|| {
        view! {
            <form method="post" action=action.to_owned() class="space-y-4">
                <input type="hidden" name="csrf" value=csrf.to_owned()/>
                <input type="hidden" name="step" value="login"/>
                <div>
                    <label for="email" class=LABEL>"Email"</label>
                    <input id="email" name="email" type="email" required autocomplete="username" maxlength="254" value=email.to_owned() class=format!("mt-1 {INPUT}")/>
                </div>
                <div>
                    <label for="password" class=LABEL>"Password"</label>
                    <input id="password" name="password" type="password" required autocomplete="current-password" maxlength="256" class=format!("mt-1 {INPUT}")/>
                </div>
                <div><button type="submit" class=format!("w-full {submit}")>"Sign in"</button></div>
            </form>
        }
    });
    let nothing = (!password && providers.is_empty()).then(|| {
        view! {
            <p role="alert" class=ALERT>"Signing in here is not possible right now: ask your administrator."</p>
        }
    });
    let body = view! {
        {error}
        {nothing}
        {buttons}
        {divider}
        {form}
    };
    document(&title, frame(realm.to_owned(), title.clone(), body))
}

/// A person's account page: the apps they let act for them, each revocable.
pub fn account_html(
    realm: &str,
    action: &str,
    csrf: &str,
    (name, email): (&str, &str),
    apps: &[AccountApp],
    servers: &[AccountServer],
    notice: Option<&str>,
) -> String {
    let title = "Connected apps".to_owned();
    let notice = notice.map(|n| view! { <p role="status" class="mb-4 rounded-md border border-emerald-200 bg-emerald-50 px-3 py-2 text-sm text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950 dark:text-emerald-100">{n.to_owned()}</p> });
    let list = if apps.is_empty() {
        view! { <p class=format!("text-sm {MUTED}") data-testid="no-apps">"No app can act for you. When you allow one, it appears here, and you can disconnect it at any time."</p> }.into_any()
    } else {
        apps.iter()
            .map(|a| {
                let words = a.scopes.join(", ");
                view! {
                    <li class="flex flex-col gap-2 py-3 sm:flex-row sm:items-start sm:justify-between" data-testid="connected-app">
                        <div class="min-w-0">
                            <p class="break-words font-medium">{a.client_name.clone()}</p>
                            <p class=format!("break-all text-xs {MUTED}")>{a.client_id.clone()}</p>
                            <p class="mt-1 break-words text-sm">"At " {a.resource_name.clone()} <code class=format!("ml-1 break-all text-xs {MUTED}")>{a.resource_uri.clone()}</code></p>
                            <p class=format!("break-words text-xs {MUTED}")>{words} " · since " {a.since.clone()}</p>
                        </div>
                        <form method="post" action=action.to_owned() class="shrink-0">
                            <input type="hidden" name="csrf" value=csrf.to_owned()/>
                            <input type="hidden" name="step" value="revoke"/>
                            <input type="hidden" name="consent" value=a.id.clone()/>
                            <button type="submit" class=BTN_SECONDARY>"Disconnect"</button>
                        </form>
                    </li>
                }
            })
            .collect_view()
            .into_any()
    };
    // Listed only when there is one: most people never connect an upstream account.
    let servers = (!servers.is_empty()).then(|| {
        let items = servers
            .iter()
            .map(|c| {
                view! {
                    <li class="flex flex-col gap-2 py-3 sm:flex-row sm:items-start sm:justify-between" data-testid="connected-server">
                        <div class="min-w-0">
                            <p class="break-words font-medium">{c.title.clone()}</p>
                            <p class=format!("break-all text-xs {MUTED}")>"Account at " {c.issuer.clone()}</p>
                            <p class=format!("break-words text-xs {MUTED}")>"Since " {c.since.clone()}</p>
                        </div>
                        <form method="post" action=action.to_owned() class="shrink-0">
                            <input type="hidden" name="csrf" value=csrf.to_owned()/>
                            <input type="hidden" name="step" value="disconnect-server"/>
                            <input type="hidden" name="server" value=c.id.clone()/>
                            <button type="submit" class=BTN_SECONDARY>"Disconnect"</button>
                        </form>
                    </li>
                }
            })
            .collect_view();
        view! {
            <h2 class="mt-6 text-base font-semibold">"Your accounts at servers"</h2>
            <p class=format!("mb-2 break-words text-sm {MUTED}")>"Calls your agents make through the gateway to these servers act as you there."</p>
            <ul class="divide-y divide-slate-200 dark:divide-slate-700">{items}</ul>
        }
    });
    let body = view! {
        {notice}
        <p class=format!("mb-4 break-words text-sm {MUTED}")>"Signed in as " {name.to_owned()} " (" {email.to_owned()} ")."</p>
        <ul class="divide-y divide-slate-200 dark:divide-slate-700">{list}</ul>
        {servers}
        <form method="post" action=action.to_owned() class="mt-6">
            <input type="hidden" name="csrf" value=csrf.to_owned()/>
            <input type="hidden" name="step" value="logout"/>
            <button type="submit" class=BTN_SECONDARY>"Sign out"</button>
        </form>
    };
    document(&title, frame(realm.to_owned(), title.clone(), body))
}
