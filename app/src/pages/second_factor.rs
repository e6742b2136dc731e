//! Two-step verification: the sign-in step after the password or provider (a code, or setting
//! up an authenticator app when the role requires one), and the Account page's section.
use crate::api::second_factor::{
    ConfirmMyEnrolment, ConfirmSignInEnrolment, NewMyRecoveryCodes, RemoveMySecondFactor,
    StartMyEnrolment, my_second_factor, second_factor_challenge,
};
use crate::components::copy::{CopyButton, CopyValue};
use crate::components::field::{Field, FieldErrors, Kind};
use crate::components::toast::{ToastKind, use_toasts};
use crate::components::ui::{
    BTN_DANGER, BTN_PRIMARY, BTN_SECONDARY, CARD, ErrorMessage, INPUT, LABEL, Loading, MUTED,
    successes,
};
use crate::pages::login::AuthFrame;
use crate::types::second_factor::{ChallengeView, EnrolmentView};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

const CODE_FIELDS: &[(&str, &str)] = &[("code", "code")];
const ALERT: &str = "mb-4 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200";

fn step_error(code: &str, retry: Option<String>) -> String {
    match code {
        "throttled" => {
            let minutes = retry
                .and_then(|s| s.parse::<u64>().ok())
                .map_or(15, |s| s.div_ceil(60));
            format!("Too many wrong codes. Try again in {minutes} minute(s).")
        }
        "unavailable" => "Signing in is not possible right now. Please try again.".to_owned(),
        "malformed" => "Type the six digits your app shows, or one of your recovery codes (four groups of four letters and digits).".to_owned(),
        _ => "That code is not right. Type the newest code your app shows (codes change every 30 seconds, and each works once), or a recovery code.".to_owned(),
    }
}

/// `/login/second-factor`: the second sign-in step.
#[component]
pub fn SecondFactorPage() -> impl IntoView {
    let challenge = OnceResource::new(second_factor_challenge());
    view! {
        <AuthFrame title="Two-step verification">
            <Suspense fallback=|| view! { <Loading/> }>
                {move || challenge.get().map(|r| match r {
                    Ok(Some(c)) if c.enrolment.is_some() => view! { <SignInEnrolment challenge=c/> }.into_any(),
                    Ok(Some(c)) => view! { <CodeStep challenge=c/> }.into_any(),
                    Ok(None) => view! {
                        <p class=MUTED data-testid="second-factor-expired">"This sign-in has expired or was finished in another tab."</p>
                        <a rel="external" href="/login" class=format!("mt-4 w-full {BTN_PRIMARY}")>"Sign in again"</a>
                    }.into_any(),
                    Err(error) => view! { <ErrorMessage error/> }.into_any(),
                })}
            </Suspense>
        </AuthFrame>
    }
}

/// The code form: a plain form POST (works without JavaScript).
#[component]
fn CodeStep(challenge: ChallengeView) -> impl IntoView {
    let query = use_query_map();
    let error = move || query.with(|q| q.get("error").map(|c| step_error(&c, q.get("retry"))));
    let submitting = RwSignal::new(false);
    view! {
        {move || error().map(|e| view! { <p role="alert" data-testid="second-factor-error" class=ALERT>{e}</p> })}
        <p class=format!("break-words {MUTED}")>"Signing in as "<span class="font-medium text-slate-700 dark:text-slate-200">{challenge.email}</span>"."</p>
        <form method="post" action="/login/second-factor" class="mt-4 space-y-4" on:submit=move |_| submitting.set(true)>
            <div>
                <label class=LABEL for="code">"Code from your authenticator app"</label>
                <input class=format!("mt-1 {INPUT} font-mono tracking-widest") id="code" name="code" type="text" autocomplete="one-time-code"
                    autocapitalize="off" spellcheck="false" maxlength="32" required autofocus aria-describedby="code-help"/>
                <p id="code-help" class=format!("mt-1 {MUTED}")>"Lost your phone? Type one of your recovery codes instead."</p>
            </div>
            <button type="submit" class=format!("w-full {BTN_PRIMARY}") disabled=move || submitting.get()>
                {move || if submitting.get() { "Verifying…" } else { "Verify" }}
            </button>
        </form>
        <p class=format!("mt-4 {MUTED}")>"No codes left? An admin can reset your authenticator app."</p>
        <SomeoneElse/>
    }
}

/// Ends the sign-in on hold and goes back to the sign-in page (a form: it changes state).
#[component]
fn SomeoneElse() -> impl IntoView {
    view! {
        <form method="post" action="/login/second-factor/cancel" class="mt-2">
            <button type="submit" class="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">"Sign in as someone else"</button>
        </form>
    }
}

/// The account must set up an authenticator app to finish signing in.
#[component]
fn SignInEnrolment(challenge: ChallengeView) -> impl IntoView {
    let confirm = ServerAction::<ConfirmSignInEnrolment>::new();
    let errors = FieldErrors::new(confirm, "enrol-form", CODE_FIELDS);
    let enrolment = challenge.enrolment.clone();
    view! {
        {move || match confirm.value().get() {
            Some(Ok(done)) => view! {
                <RecoveryCodes codes=done.codes.clone()/>
                // A full navigation: the console loads with the new session.
                <a rel="external" href=done.next.clone() class=format!("mt-4 w-full {BTN_PRIMARY}") data-testid="continue">"Continue to the console"</a>
            }.into_any(),
            _ => {
                let enrolment = enrolment.clone();
                view! {
                    <p class=format!("break-words {MUTED}")>
                        "Your role requires two-step verification. Set up an authenticator app for "
                        <span class="font-medium text-slate-700 dark:text-slate-200">{challenge.email.clone()}</span>
                        " to finish signing in."
                    </p>
                    {enrolment.map(|e| view! { <EnrolmentSteps enrolment=e/> })}
                    <ActionForm action=confirm attr:id="enrol-form" attr:class="mt-4 space-y-4" on:input=move |_| errors.clear()>
                        <Field errors name="code" id="enrol-code" label="Six-digit code from the app" required=true maxlength=32 autocomplete="one-time-code" mono=true/>
                        {errors.form_error()}
                        <button type="submit" class=format!("w-full {BTN_PRIMARY}") disabled=move || confirm.pending().get()>"Turn on and sign in"</button>
                    </ActionForm>
                    <div class="mt-2"><SomeoneElse/></div>
                }.into_any()
            }
        }}
    }
}

/// Scan the QR code (or type the key); the next step asks for the app's code.
#[component]
pub fn EnrolmentSteps(enrolment: EnrolmentView) -> impl IntoView {
    view! {
        <div class="mt-4 space-y-3 text-sm text-slate-700 dark:text-slate-200" data-testid="enrolment">
            <p>"1. Scan this code with your authenticator app (1Password, Google or Microsoft Authenticator, …)."</p>
            // A phone cannot scan its own screen: there, the app opens from a link.
            <p class="sm:hidden">"On this phone? "<a rel="external" class="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href=enrolment.uri.clone()>"Open it in your authenticator app"</a>"."</p>
            // Made by the server from the otpauth URI; white, so it scans in dark mode too.
            <div class="mx-auto w-fit rounded-md bg-white p-1" role="img" aria-label="QR code to scan with your authenticator app" inner_html=enrolment.qr_svg></div>
            <details>
                <summary class=format!("cursor-pointer {MUTED}")>"Cannot scan it?"</summary>
                <div class="mt-2 space-y-2">
                    <p class=MUTED>"Type this key into the app (time-based, six digits):"</p>
                    <div data-testid="totp-secret"><CopyValue value=enrolment.secret label="key"/></div>
                    <p class=MUTED>"On a phone with the app: "<a rel="external" class="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href=enrolment.uri>"open it in the app"</a>"."</p>
                </div>
            </details>
            <p>"2. Type the six-digit code the app shows."</p>
        </div>
    }
}

/// Recovery codes, shown once.
#[component]
pub fn RecoveryCodes(codes: Vec<String>) -> impl IntoView {
    let all = codes.join("\n");
    view! {
        <div role="status" class="rounded-lg border border-indigo-200 bg-indigo-50 p-4 dark:border-indigo-900 dark:bg-indigo-950" data-testid="recovery-codes">
            <p class="text-sm font-medium text-indigo-900 dark:text-indigo-100">"Your recovery codes"</p>
            <p class="mt-1 text-sm text-indigo-800 dark:text-indigo-200">"Keep them somewhere safe, like your password manager. Each works once in place of a code from the app, if you lose your phone. They are shown only now."</p>
            <ul class="mt-3 space-y-1 font-mono text-sm text-slate-900 dark:text-slate-100">
                {codes.into_iter().map(|c| view! { <li class="whitespace-nowrap">{c}</li> }).collect_view()}
            </ul>
            <div class="mt-3"><CopyButton value=all label="all recovery codes".to_owned()/></div>
        </div>
    }
}

/// The Account page's section: set up, renew recovery codes, remove.
#[component]
pub fn AccountSecondFactor() -> impl IntoView {
    let toasts = use_toasts();
    let start = ServerAction::<StartMyEnrolment>::new();
    let confirm = ServerAction::<ConfirmMyEnrolment>::new();
    let renew = ServerAction::<NewMyRecoveryCodes>::new();
    let remove = ServerAction::<RemoveMySecondFactor>::new();
    let confirm_errors = FieldErrors::new(confirm, "sf-confirm-form", CODE_FIELDS);
    let start_errors = FieldErrors::new(start, "sf-start-form", &[("password", "password")]);
    let renew_errors = FieldErrors::new(renew, "sf-renew-form", CODE_FIELDS);
    let remove_errors = FieldErrors::new(remove, "sf-remove-form", CODE_FIELDS);
    let (confirmed, renewed, removed) = (successes(confirm), successes(renew), successes(remove));
    let status = Resource::new(
        move || (confirmed.get(), renewed.get(), removed.get()),
        |_| my_second_factor(),
    );
    // The codes just handed out (by setting up or renewing), until the page is left.
    let shown = RwSignal::new(None::<Vec<String>>);
    // The authenticator being set up, until it is confirmed or removed.
    let enrolling = RwSignal::new(None::<EnrolmentView>);
    Effect::new(move |_| {
        if let Some(Ok(e)) = start.value().get() {
            enrolling.set(Some(e));
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(codes)) = confirm.value().get() {
            toasts.push(ToastKind::Success, "Two-step verification is on.");
            enrolling.set(None);
            shown.set(Some(codes));
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(codes)) = renew.value().get() {
            toasts.push(
                ToastKind::Success,
                "New recovery codes: the old ones stopped working.",
            );
            shown.set(Some(codes));
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(())) = remove.value().get() {
            toasts.push(ToastKind::Success, "Two-step verification is off.");
            enrolling.set(None);
            shown.set(None);
        }
    });
    view! {
        <section class=format!("{CARD} mt-6 max-w-lg p-6") aria-labelledby="my-2fa-title" data-testid="my-second-factor">
            <h2 id="my-2fa-title" class="text-lg font-semibold text-slate-900 dark:text-white">"Two-step verification"</h2>
            {move || shown.get().map(|codes| view! { <div class="mt-4"><RecoveryCodes codes/></div> })}
            <Transition fallback=|| view! { <Loading/> }>
                {move || status.get().map(|r| match r {
                    Err(error) => view! { <ErrorMessage error/> }.into_any(),
                    Ok(s) => match s.since {
                        Some(since) => {
                            let low = s.recovery_codes_left < 3;
                            view! {
                                <p class=format!("mt-1 {MUTED}") data-testid="second-factor-status">
                                    "On since "<time datetime=since.at.clone() title=since.at.clone()>{since.ago.clone()}</time>". "
                                    {format!("{} recovery code{} left.", s.recovery_codes_left, if s.recovery_codes_left == 1 { "" } else { "s" })}
                                </p>
                                {low.then(|| view! { <p class="mt-1 text-sm text-amber-700 dark:text-amber-300">"Few recovery codes left: get new ones."</p> })}
                                <details class="mt-4">
                                    <summary class="cursor-pointer text-sm font-medium text-slate-700 dark:text-slate-200">"Get new recovery codes"</summary>
                                    <ActionForm action=renew attr:id="sf-renew-form" attr:class="mt-3 space-y-3" on:input=move |_| renew_errors.clear()>
                                        <Field errors=renew_errors name="code" id="sf-renew-code" label="Code from your app (or a recovery code)" required=true maxlength=32 autocomplete="one-time-code" mono=true/>
                                        {renew_errors.form_error()}
                                        <button type="submit" class=BTN_SECONDARY disabled=move || renew.pending().get()>"Get new codes"</button>
                                    </ActionForm>
                                </details>
                                <details class="mt-3">
                                    <summary class="cursor-pointer text-sm font-medium text-slate-700 dark:text-slate-200">"Remove the authenticator app"</summary>
                                    <p class=format!("mt-2 {MUTED}")>{if s.required {
                                        "Your role requires two-step verification: you set up a new app at your next sign-in. Use this when you change phones."
                                    } else {
                                        "You then sign in with your password (or provider) alone."
                                    }}</p>
                                    <ActionForm action=remove attr:id="sf-remove-form" attr:class="mt-3 space-y-3" on:input=move |_| remove_errors.clear()>
                                        <Field errors=remove_errors name="code" id="sf-remove-code" label="Code from your app (or a recovery code)" required=true maxlength=32 autocomplete="one-time-code" mono=true/>
                                        {remove_errors.form_error()}
                                        <button type="submit" class=BTN_DANGER disabled=move || remove.pending().get()>"Remove"</button>
                                    </ActionForm>
                                </details>
                            }.into_any()
                        }
                        None => view! {
                            <p class=format!("mt-1 {MUTED}")>"With an authenticator app, your console password no longer signs you in to MCP clients at the default realm's sign-in page (it asks for no code there)."</p>
                            <p class=format!("mt-1 {MUTED}") data-testid="second-factor-status">{if s.required {
                                "Off. Your role requires it: set it up now, or you will at your next sign-in."
                            } else {
                                "Off. Add a code from an authenticator app to your sign-in."
                            }}</p>
                            {move || match enrolling.get() {
                                Some(e) => view! {
                                    <EnrolmentSteps enrolment=e/>
                                    <ActionForm action=confirm attr:id="sf-confirm-form" attr:class="mt-3 space-y-3" on:input=move |_| confirm_errors.clear()>
                                        <Field errors=confirm_errors name="code" id="sf-confirm-code" label="Six-digit code from the app" required=true maxlength=32 autocomplete="one-time-code" mono=true/>
                                        {confirm_errors.form_error()}
                                        <button type="submit" class=BTN_PRIMARY disabled=move || confirm.pending().get()>"Turn on"</button>
                                    </ActionForm>
                                }.into_any(),
                                None => view! {
                                    <ActionForm action=start attr:id="sf-start-form" attr:class="mt-4 space-y-3" on:input=move |_| start_errors.clear()>
                                        {s.has_password.then(|| view! {
                                            <Field errors=start_errors name="password" id="sf-start-password" label="Your password" kind=Kind::Password
                                                required=true maxlength=256 autocomplete="current-password"/>
                                        })}
                                        {start_errors.form_error()}
                                        <button type="submit" class=BTN_PRIMARY disabled=move || start.pending().get()>"Set up an authenticator app"</button>
                                    </ActionForm>
                                }.into_any(),
                            }}
                        }.into_any(),
                    },
                })}
            </Transition>
        </section>
    }
}
