//! Errors on the field they belong to: a failed submission's message appears under the input it
//! names (`aria-invalid`, `aria-describedby`), focus moves there, and editing the form clears it.
//!
//! Form inputs build on `ui` (classes, [`ErrorMessage`]); `ui` never names this module.
use super::ui::{ErrorMessage, INPUT, LABEL, MUTED};
use crate::error::AppError;
use leptos::prelude::*;

/// The field errors of one form, following its action.
#[derive(Debug, Clone, Copy)]
pub struct FieldErrors {
    /// The form's element id (error ids derive from it).
    form: &'static str,
    /// The inputs blamed by the last failure, and why.
    error: RwSignal<Vec<(&'static str, String)>>,
    /// The last failure not tied to one of this form's inputs.
    other: RwSignal<Option<AppError>>,
}

impl FieldErrors {
    /// Follows `action`, a form with id `form` whose inputs are `fields` as (input name, server
    /// field name) pairs.
    pub fn new<I, O>(
        action: ServerAction<I>,
        form: &'static str,
        fields: &'static [(&'static str, &'static str)],
    ) -> Self
    where
        I: leptos::server_fn::ServerFn<Output = O, Error = AppError>
            + Clone
            + Send
            + Sync
            + 'static,
        O: Clone + Send + Sync + 'static,
    {
        let errors = Self {
            form,
            error: RwSignal::new(Vec::new()),
            other: RwSignal::new(None),
        };
        Effect::new(move |_| {
            let failed = action.value().get().and_then(Result::err);
            let problems: Vec<(String, String)> = match &failed {
                Some(AppError::Field { field, message }) => vec![(field.clone(), message.clone())],
                Some(AppError::Fields(all)) => all
                    .iter()
                    .map(|p| (p.field.clone(), p.message.clone()))
                    .collect(),
                _ => Vec::new(),
            };
            let mut on_fields: Vec<(&'static str, String)> = Vec::new();
            let mut elsewhere = Vec::new();
            for (field, message) in problems {
                match input_of(fields, &field) {
                    // One message per input: the first is what to fix first.
                    Some(input) if on_fields.iter().any(|(i, _)| *i == input) => {}
                    Some(input) => on_fields.push((input, message)),
                    None => elsewhere.push(message),
                }
            }
            errors.other.set(if on_fields.is_empty() {
                failed
            } else if elsewhere.is_empty() {
                None
            } else {
                Some(AppError::Invalid(elsewhere.join(" ")))
            });
            if let Some((input, _)) = on_fields.first() {
                focus(form, input);
            }
            errors.error.set(on_fields);
        });
        errors
    }

    /// The message for input `name`, if it is at fault.
    pub fn message(self, name: &str) -> Option<String> {
        self.error
            .with(|e| e.iter().find(|(n, _)| *n == name).map(|(_, m)| m.clone()))
    }

    /// `aria-invalid` for input `name`.
    pub fn invalid(self, name: &'static str) -> impl Fn() -> Option<&'static str> + Copy {
        move || self.message(name).map(|_| "true")
    }

    /// The element id of input `name`'s error message.
    pub fn id(self, name: &str) -> String {
        format!("{}-{name}-error", self.form)
    }

    /// Forgets the errors (the user is editing: they may be stale).
    pub fn clear(self) {
        if self.error.with_untracked(|e| !e.is_empty()) {
            self.error.set(Vec::new());
        }
        if self.other.with_untracked(Option::is_some) {
            self.other.set(None);
        }
    }

    /// The form-level error: a failure not tied to one of the form's inputs.
    pub fn form_error(self) -> impl IntoView {
        move || {
            self.other
                .get()
                .map(|error| view! { <ErrorMessage error/> })
        }
    }
}

/// The input a server field names: its own pair, or the pair of the field it is part of
/// (`headers.Authorization` and `command.args[2]` belong to `headers` and `command.args`).
fn input_of(fields: &[(&'static str, &'static str)], field: &str) -> Option<&'static str> {
    fields
        .iter()
        .find(|(input, server)| *server == field || *input == field)
        .or_else(|| {
            fields.iter().find(|(_, server)| {
                field
                    .strip_prefix(server)
                    .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
            })
        })
        .map(|(input, _)| *input)
}

/// Input `name`'s error message, when it is the one at fault.
#[component]
pub fn FieldError(errors: FieldErrors, name: &'static str) -> impl IntoView {
    move || {
        errors.message(name).map(|m| {
            view! { <p id=errors.id(name) class="mt-1 text-sm text-red-700 dark:text-red-300">{m}</p> }
        })
    }
}

/// Whenever `open` turns true, moves focus to the first field of form `form`: a create form that
/// just appeared is where keyboard users continue.
pub fn focus_first_when(open: RwSignal<bool>, form: &'static str) {
    Effect::new(move |_| {
        if open.get() {
            #[cfg(feature = "hydrate")]
            request_animation_frame(move || {
                use wasm_bindgen::JsCast;
                let selector =
                    format!("#{form} input:not([type=hidden]), #{form} select, #{form} textarea");
                if let Some(el) = document()
                    .query_selector(&selector)
                    .ok()
                    .flatten()
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    let _ = el.focus();
                }
            });
            #[cfg(not(feature = "hydrate"))]
            let _ = form;
        }
    });
}

/// Moves focus to input `name` of form `form` (in the browser).
fn focus(form: &str, name: &str) {
    #[cfg(feature = "hydrate")]
    {
        use wasm_bindgen::JsCast;
        if let Some(el) = document()
            .query_selector(&format!("#{form} [name=\"{name}\"]"))
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    }
    #[cfg(not(feature = "hydrate"))]
    let _ = (form, name);
}

/// The ISO form of a console time (`YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`, UTC), as an input
/// pattern; the browser's own date widgets show local formats, so times are typed like this.
pub const ISO_PATTERN: &str = r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?";

/// What kind of input a [`Field`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Kind {
    /// One line of text.
    #[default]
    Text,
    /// An email address.
    Email,
    /// A URL.
    Url,
    /// A whole number.
    Number,
    /// A password (never echoed).
    Password,
    /// A UTC date and time, typed in ISO form (`YYYY-MM-DDTHH:MM`).
    DateTime,
    /// Several lines (rows).
    Lines(u32),
}

/// The `type` of a one-line input.
fn input_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Email => "email",
        Kind::Url => "url",
        Kind::Number => "number",
        Kind::Password => "password",
        _ => "text",
    }
}

/// A labelled input with its help text and its error, wired for assistive technology: the
/// error and the help describe the input, and `aria-invalid` marks it while it is at fault.
#[component]
pub fn Field(
    errors: FieldErrors,
    /// Input name (what the server function receives).
    name: &'static str,
    /// Element id.
    #[prop(into)]
    id: String,
    /// Visible label.
    label: &'static str,
    /// Help text under the input.
    #[prop(optional)]
    help: Option<&'static str>,
    /// Initial value.
    #[prop(optional, into)]
    value: String,
    #[prop(optional)] kind: Kind,
    #[prop(optional)] required: bool,
    /// The server's limit, in characters.
    #[prop(optional)]
    maxlength: Option<u32>,
    #[prop(optional, into)] placeholder: String,
    /// The browser's autofill hint (`username`, `new-password`, …).
    #[prop(optional)]
    autocomplete: Option<&'static str>,
    /// The server's lower limit, in characters.
    #[prop(optional)]
    minlength: Option<u32>,
    /// Monospace (identifiers, URLs, keys).
    #[prop(optional)]
    mono: bool,
    /// Extra classes on the wrapper (grid spans).
    #[prop(optional)]
    class: &'static str,
    /// Keeps the value in this signal (for forms that confirm before they submit); `value` is
    /// then ignored.
    #[prop(optional)]
    bind: Option<RwSignal<String>>,
) -> impl IntoView {
    let help_id = help.map(|_| format!("{id}-help"));
    let described = {
        let help_id = help_id.clone();
        move || {
            let ids: Vec<String> = errors
                .message(name)
                .map(|_| errors.id(name))
                .into_iter()
                .chain(help_id.clone())
                .collect();
            (!ids.is_empty()).then(|| ids.join(" "))
        }
    };
    let mono = if mono { " font-mono" } else { "" };
    let input_class = move || {
        if errors.message(name).is_some() {
            format!("mt-1 {INPUT}{mono} border-red-500 dark:border-red-400")
        } else {
            format!("mt-1 {INPUT}{mono}")
        }
    };
    let maxlength = maxlength.map(|m| m.to_string());
    let minlength = minlength.map(|m| m.to_string());
    let input = match kind {
        Kind::Lines(rows) => view! {
            <textarea class=input_class id=id.clone() name=name rows=rows.to_string() required=required
                maxlength=maxlength placeholder=placeholder.clone()
                aria-invalid=errors.invalid(name) aria-describedby=described>{value}</textarea>
        }
        .into_any(),
        Kind::DateTime => view! {
            <input class=input_class id=id.clone() name=name type="text" inputmode="numeric" value=value required=required
                pattern=ISO_PATTERN placeholder="YYYY-MM-DDTHH:MM"
                aria-invalid=errors.invalid(name) aria-describedby=described/>
        }
        .into_any(),
        _ if bind.is_some() => {
            let bound = bind.unwrap_or_else(|| RwSignal::new(String::new()));
            view! {
                <input class=input_class id=id.clone() name=name type=input_type(kind) required=required
                    maxlength=maxlength minlength=minlength placeholder=placeholder autocomplete=autocomplete
                    prop:value=move || bound.get() on:input=move |ev| bound.set(event_target_value(&ev))
                    aria-invalid=errors.invalid(name) aria-describedby=described/>
            }
            .into_any()
        }
        _ => {
            let kind = input_type(kind);
            view! {
                <input class=input_class id=id.clone() name=name type=kind value=value required=required
                    maxlength=maxlength minlength=minlength placeholder=placeholder autocomplete=autocomplete
                    aria-invalid=errors.invalid(name) aria-describedby=described/>
            }
            .into_any()
        }
    };
    view! {
        <div class=class>
            <label class=LABEL for=id.clone()>{label}</label>
            {input}
            {help.map(|h| view! { <p id=help_id.clone() class=format!("mt-1 {MUTED}")>{h}</p> })}
            <FieldError errors name/>
        </div>
    }
}

/// A new-password field and its confirmation, named `password` and `confirm`, with their
/// errors on them.
#[component]
pub fn PasswordFields(
    errors: FieldErrors,
    label: &'static str,
    confirm_label: &'static str,
) -> impl IntoView {
    view! {
        <Field errors name="password" id="password" label kind=Kind::Password required=true
            minlength=12 maxlength=256 autocomplete="new-password" help="12 to 256 characters."/>
        <Field errors name="confirm" id="confirm" label=confirm_label kind=Kind::Password required=true
            maxlength=256 autocomplete="new-password"/>
    }
}

/// The inputs of a password form: the one-time link pages and the account page.
pub const PASSWORD_FIELDS: &[(&str, &str)] = &[
    ("email", "email"),
    ("display_name", "display_name"),
    ("current", "current"),
    ("password", "password"),
    ("confirm", "confirm"),
];
