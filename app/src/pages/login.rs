//! Sign-in (works without JavaScript; enhanced after hydration) and the one-time link pages' frame.
use crate::components::layout::ThemeToggle;
use crate::components::ui::{BTN_PRIMARY, BTN_SECONDARY, INPUT, LABEL, MUTED};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

/// Centered card used by the signed-out pages.
#[component]
pub fn AuthFrame(title: &'static str, children: Children) -> impl IntoView {
    view! {
        <div class="flex min-h-screen flex-col items-center justify-center px-4 py-12">
            <div class="absolute right-4 top-4"><ThemeToggle/></div>
            <div class="mb-6 flex items-center gap-2">
                <span class="flex h-9 w-9 items-center justify-center rounded-md bg-indigo-600 font-bold text-white">"P"</span>
                <span class="text-xl font-semibold text-slate-900 dark:text-white">"Portcullis"</span>
            </div>
            <div class="w-full max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-md dark:border-slate-700 dark:bg-slate-800">
                <h1 class="mb-4 text-lg font-semibold text-slate-900 dark:text-white">{title}</h1>
                {children()}
            </div>
        </div>
    }
}

fn login_error(code: &str, retry: Option<String>) -> String {
    match code {
        "throttled" => {
            let minutes = retry
                .and_then(|s| s.parse::<u64>().ok())
                .map_or(15, |s| s.div_ceil(60));
            format!("Too many failed sign-in attempts. Try again in {minutes} minute(s).")
        }
        "expired" => "Your session has ended. Please sign in again.".to_owned(),
        "csrf" => "The sign-in form expired. Please try again.".to_owned(),
        "sso_no_role" => "Your identity provider signed you in, but none of your groups gives access to this console. Ask an admin to map one of your groups to a role.".to_owned(),
        "sso_no_email" => "Your identity provider did not share a verified email address, which a new console account needs. Ask an admin to check the provider's email scope and settings.".to_owned(),
        "sso_email_taken" => "A console account with your email exists already and does not sign in with this provider yet. Sign in with its password, then connect the provider on your Account page.".to_owned(),
        "sso_expired" => "The sign-in took too long or was started in another tab. Please try again.".to_owned(),
        "sso_failed" => "Signing in with your identity provider failed. Try again; if it keeps failing, an admin finds the reason in the audit log.".to_owned(),
        "sso_second_factor" => "Your role requires two-step verification, and your identity provider did not confirm a second factor for this sign-in. Sign in there again with your second factor; if it keeps failing, ask an admin.".to_owned(),
        "sso_unknown" => "This sign-in provider is not available any more.".to_owned(),
        "unavailable" => "Signing in is not possible right now. Please try again.".to_owned(),
        "password_off" => "Password sign-in is turned off: sign in with your company account above. (Break-glass admins: check your email and password.)".to_owned(),
        _ => "Invalid email or password.".to_owned(),
    }
}

/// The sign-in page: a plain form POST to `/login`.
#[component]
pub fn LoginPage() -> impl IntoView {
    let query = use_query_map();
    let error = move || query.with(|q| q.get("error").map(|c| login_error(&c, q.get("retry"))));
    let next = move || query.with(|q| q.get("next").unwrap_or_default());
    let submitting = RwSignal::new(false);
    // After a failed attempt the email is kept (rendered by the server; the browser keeps what
    // the page arrived with).
    #[cfg(feature = "ssr")]
    let email = crate::ssr::login::login_email().unwrap_or_default();
    #[cfg(not(feature = "ssr"))]
    let email = String::new();
    let has_email = !email.is_empty();
    let email = StoredValue::new(email);
    let options = OnceResource::new(crate::api::session::get_sign_in_providers());
    let password_form = move || {
        view! {
            <form method="post" action="/login" class="space-y-4" on:submit=move |_| submitting.set(true)>
                <input type="hidden" name="next" value=next/>
                <div>
                    <label class=LABEL for="email">"Email"</label>
                    <input class=format!("mt-1 {INPUT}") id="email" name="email" type="email" autocomplete="username" maxlength="254" required value=email.get_value() autofocus=!has_email/>
                </div>
                <div>
                    <label class=LABEL for="password">"Password"</label>
                    <input class=format!("mt-1 {INPUT}") id="password" name="password" type="password" autocomplete="current-password" required autofocus=has_email/>
                </div>
                <button type="submit" class=format!("w-full {BTN_PRIMARY}") disabled=move || submitting.get()>
                    {move || if submitting.get() { "Signing in…" } else { "Sign in" }}
                </button>
            </form>
        }
    };
    let body = move || {
        let next = next();
        let query = if next.is_empty() {
            String::new()
        } else {
            format!("?next={}", encode_query_value(&next))
        };
        let options = options.get().and_then(Result::ok);
        let providers = options
            .as_ref()
            .map(|o| o.providers.clone())
            .unwrap_or_default();
        // Password sign-in off: the form stays, folded away, for break-glass admins.
        let break_glass_only = !providers.is_empty()
            && options
                .as_ref()
                .is_some_and(|o| o.password_break_glass_only);
        let has_providers = !providers.is_empty();
        let links = has_providers.then(|| {
            view! {
                <div class="space-y-2" data-testid="sso-providers">
                    {providers
                        .into_iter()
                        .map(|p| {
                            view! {
                                // A full navigation (the router would look for a page).
                                <a
                                    rel="external"
                                    href=format!("/login/sso/{}{query}", p.id)
                                    class=format!("w-full break-words text-center {BTN_SECONDARY}")
                                >
                                    {p.button_text}
                                </a>
                            }
                        })
                        .collect_view()}
                </div>
            }
        });
        let password = if break_glass_only {
            view! {
                <details class="mt-6">
                    <summary class=format!("cursor-pointer {MUTED}")>"Break-glass sign-in with a password (admins only)"</summary>
                    <div class="mt-3">{password_form()}</div>
                </details>
            }
            .into_any()
        } else {
            view! {
                {has_providers.then(|| view! {
                    <div class="my-4 flex items-center gap-3 text-xs text-slate-500 dark:text-slate-400" aria-hidden="true">
                        <span class="h-px flex-1 bg-slate-200 dark:bg-slate-700"></span>
                        "or with a password"
                        <span class="h-px flex-1 bg-slate-200 dark:bg-slate-700"></span>
                    </div>
                })}
                {password_form()}
            }
            .into_any()
        };
        // How the first admin gets in, until the console has sign-in providers.
        let first_admin = (!has_providers).then(|| {
            view! {
                <p class=format!("mt-4 {MUTED}")>
                    "No account yet? The first admin signs up with the one-time setup link "
                    <code class="font-mono text-xs">"portcullis serve"</code>
                    " prints on its first start (and writes to "<code class="font-mono text-xs">"setup-link"</code>" in its data directory), or with "
                    <code class="font-mono text-xs">"portcullis admin create"</code>"."
                </p>
            }
        });
        view! { {links} {password} {first_admin} }
    };
    view! {
        <AuthFrame title="Sign in to the console">
            {move || error().map(|e| view! {
                <p role="alert" data-testid="login-error" class="mb-4 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">{e}</p>
            })}
            <Suspense fallback=|| ()>{body}</Suspense>
        </AuthFrame>
    }
}

/// Percent-encodes a query value (the `next` path carried to a provider sign-in).
fn encode_query_value(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
