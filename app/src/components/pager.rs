//! Pagination links for list screens.
use super::ui::{BTN_SMALL, MUTED};
use leptos::prelude::*;

/// "Showing a–b of n" with previous/next links built by `href(page)`.
#[component]
pub fn Pager(
    total: u64,
    page: u32,
    page_size: u32,
    href: impl Fn(u32) -> String + 'static,
) -> impl IntoView {
    let size = u64::from(page_size.max(1));
    let first = u64::from(page) * size;
    let last = (first + size).min(total);
    let pages = total.div_ceil(size).max(1);
    let has_prev = page > 0;
    let has_next = u64::from(page) + 1 < pages;
    view! {
        <nav aria-label="Pagination" class="flex items-center justify-between border-t border-slate-200 px-4 py-3 dark:border-slate-700">
            <p class=MUTED>
                {if total == 0 { "No results".to_owned() } else { format!("Showing {}–{} of {}", grouped(first + 1), grouped(last), grouped(total)) }}
            </p>
            <div class="flex gap-2">
                {has_prev.then(|| view! { <a class=BTN_SMALL href=href(page - 1) rel="prev">"Previous"</a> })}
                {has_next.then(|| view! { <a class=BTN_SMALL href=href(page + 1) rel="next">"Next"</a> })}
            </div>
        </nav>
    }
}

/// The `after` and `before` keys of a list screen's address (empty when absent): which page of
/// a list paged by key it shows.
pub fn use_key_params() -> Memo<(String, String)> {
    let query = leptos_router::hooks::use_query_map();
    Memo::new(move |_| {
        query.with(|m| {
            (
                m.get("after").unwrap_or_default(),
                m.get("before").unwrap_or_default(),
            )
        })
    })
}

/// "Showing 21–40 of 61" with First/Previous/Next links for a list paged by key. `href` builds
/// a link from the page's key parameter (`after` or `before`, none for the first page).
#[component]
pub fn KeyPager(
    total: u64,
    /// Matching rows before this page.
    before: u64,
    shown: usize,
    prev: Option<String>,
    next: Option<String>,
    href: impl Fn(Option<(&'static str, String)>) -> String + 'static,
) -> impl IntoView {
    let count = showing(before, shown as u64, total);
    // The page a link opens replaces this pager: focus goes to the same link on the new one,
    // or (none there: the first or last page) to the count, never back to the top of the page.
    Effect::new(move |_| paged::restore_focus());
    view! {
        <nav aria-label="Pagination" class="flex flex-wrap items-center justify-between gap-2 border-t border-slate-200 px-4 py-3 dark:border-slate-700">
            <p class=MUTED tabindex="-1" data-pager="count">{count}</p>
            <div class="flex gap-2">
                {prev.as_ref().map(|_| view! { <a class=BTN_SMALL href=href(None) data-pager="first" on:click=paged::follow("first")>"First"</a> })}
                {prev.map(|k| view! { <a class=BTN_SMALL href=href(Some(("before", k))) rel="prev" data-pager="prev" on:click=paged::follow("prev")>"Previous"</a> })}
                {next.map(|k| view! { <a class=BTN_SMALL href=href(Some(("after", k))) rel="next" data-pager="next" on:click=paged::follow("next")>"Next"</a> })}
            </div>
        </nav>
    }
}

/// Which pager link was followed, until the page it opened takes focus (browser only).
mod paged {
    #[cfg(feature = "hydrate")]
    thread_local! {
        static FOLLOWED: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
    }

    /// A click on the pager link `which`: remembered when it opens the page here (not with a
    /// modifier key or another button, which open it elsewhere or not at all).
    #[cfg_attr(not(feature = "hydrate"), allow(unused_variables))]
    pub fn follow(which: &'static str) -> impl Fn(leptos::ev::MouseEvent) {
        move |ev| {
            let elsewhere = ev.ctrl_key() || ev.meta_key() || ev.shift_key() || ev.alt_key();
            #[cfg(feature = "hydrate")]
            if !elsewhere && ev.button() == 0 {
                FOLLOWED.with(|f| f.set(Some(which)));
            }
            #[cfg(not(feature = "hydrate"))]
            let _ = (elsewhere, which);
        }
    }

    /// After a pager link: focuses the same link on the new page, else its count.
    pub fn restore_focus() {
        #[cfg(feature = "hydrate")]
        if let Some(which) = FOLLOWED.with(std::cell::Cell::take) {
            leptos::prelude::request_animation_frame(move || {
                use wasm_bindgen::JsCast;
                let doc = leptos::prelude::document();
                let found = [which, "count"].into_iter().find_map(|w| {
                    doc.query_selector(&format!("[data-pager=\"{w}\"]"))
                        .ok()
                        .flatten()
                        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
                });
                if let Some(el) = found {
                    let _ = el.focus();
                }
            });
        }
    }
}

/// The match count and Newer/Older links for a list paged by cursor (newest first). Each link is
/// `None` when there is nothing that way; `newest` links back to the top from a deeper page.
#[component]
pub fn CursorPager(
    total: u64,
    exact: bool,
    newest: Option<String>,
    newer: Option<String>,
    older: Option<String>,
) -> impl IntoView {
    let count = match (total, exact) {
        (1, true) => "1 matching event".to_owned(),
        (n, true) => format!("{} matching events", grouped(n)),
        (n, false) => format!("More than {} matching events", grouped(n)),
    };
    view! {
        <nav aria-label="Pagination" class="flex flex-wrap items-center justify-between gap-2 border-t border-slate-200 px-4 py-3 dark:border-slate-700">
            <p class=MUTED>{count}</p>
            <div class="flex gap-2">
                {newest.map(|href| view! { <a class=BTN_SMALL href=href>"Newest"</a> })}
                {newer.map(|href| view! { <a class=BTN_SMALL href=href rel="prev">"Newer"</a> })}
                {older.map(|href| view! { <a class=BTN_SMALL href=href rel="next">"Older"</a> })}
            </div>
        </nav>
    }
}

/// Which rows a page shows: "Showing 21–40 of 61", "Showing 1 of 1", "No results".
fn showing(before: u64, shown: u64, total: u64) -> String {
    match (shown, total) {
        (0, 0) => "No results".to_owned(),
        (0, _) => format!("None here of {}", grouped(total)),
        (1, _) => format!("Showing {} of {}", grouped(before + 1), grouped(total)),
        _ => format!(
            "Showing {}–{} of {}",
            grouped(before + 1),
            grouped(before + shown),
            grouped(total)
        ),
    }
}

/// `n` with thousands separators: 1234567 → "1,234,567".
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Appends `key=value` pairs (URL-encoded, empty values skipped) to `path`.
pub fn with_query(path: &str, pairs: &[(&str, String)]) -> String {
    let q: Vec<String> = pairs
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .collect();
    if q.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{}", q.join("&"))
    }
}

/// A console link that carries its realm.
///
/// It opens the `kind` (`clients`, `resources`, `agents`, `people`, `servers`) `id` in `realm`
/// whatever realm the reader's session is in. The server selects the realm, then opens the page,
/// so the console's router must not take it: `rel="external"`.
pub fn realm_link(realm: &str, kind: &str, id: &str) -> String {
    format!("/go/{}/{kind}/{}", encode(realm), encode(id))
}

/// Percent-encodes everything but RFC 3986 unreserved characters (a query value or path segment).
pub fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b))
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{grouped, with_query};

    #[test]
    fn pages_say_which_rows_they_show() {
        assert_eq!(super::showing(0, 0, 0), "No results");
        assert_eq!(super::showing(0, 20, 61), "Showing 1–20 of 61");
        assert_eq!(super::showing(20, 20, 61), "Showing 21–40 of 61");
        assert_eq!(super::showing(60, 1, 61), "Showing 61 of 61");
        assert_eq!(
            super::showing(2_480, 20, 2_561),
            "Showing 2,481–2,500 of 2,561"
        );
        // A page past the end (its rows deleted meanwhile).
        assert_eq!(super::showing(0, 0, 61), "None here of 61");
    }

    #[test]
    fn groups_thousands() {
        let cases = [(0, "0"), (999, "999"), (1000, "1,000"), (123456, "123,456")];
        for (n, text) in cases {
            assert_eq!(grouped(n), text);
        }
        assert_eq!(grouped(1_234_567), "1,234,567");
    }

    #[test]
    fn realm_links_keep_each_id_one_segment() {
        assert_eq!(
            super::realm_link("ops", "clients", "https://app.example.com/client.json"),
            "/go/ops/clients/https%3A%2F%2Fapp.example.com%2Fclient.json"
        );
        assert_eq!(
            super::realm_link("default", "people", "psn_1"),
            "/go/default/people/psn_1"
        );
    }

    #[test]
    fn builds_queries() {
        assert_eq!(with_query("/users", &[("q", String::new())]), "/users");
        assert_eq!(
            with_query("/users", &[("q", "a b&c".into()), ("page", "2".into())]),
            "/users?q=a%20b%26c&page=2"
        );
    }
}
